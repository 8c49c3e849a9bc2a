// JSON lines read on the scoring job's hot path (see jsonl.hpp for what is picked and what is
// left to the caller).
#include "rapidgrade/io/jsonl.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <system_error>

#include "rapidgrade/detail/simd.hpp"

namespace rapidgrade::jsonl {
namespace {

constexpr bool is_ws(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the four hex digits at s[i..i+4), or -1.
long hex4(std::string_view s, std::size_t i) noexcept {
  if (i + 4 > s.size()) return -1;
  long v = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    const int h = hex_value(s[i + k]);
    if (h < 0) return -1;
    v = v * 16 + h;
  }
  return v;
}

// Length of the valid UTF-8 sequence of at least two bytes starting at s[i] (as orjson and
// Python's strict decoder accept: no overlong forms, no surrogates, at most U+10FFFF), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i) noexcept {
  const auto at = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = at(0);
  const auto cont = [](unsigned b) { return (b & 0xC0u) == 0x80u; };
  if (c >= 0xC2 && c <= 0xDF) return cont(at(1)) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = c == 0xED ? 0x9F : 0xBF;
    return at(1) >= lo && at(1) <= hi && cont(at(2)) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = c == 0xF4 ? 0x8F : 0xBF;
    return at(1) >= lo && at(1) <= hi && cont(at(2)) && cont(at(3)) ? 4 : 0;
  }
  return 0;
}

// Bytes a string needs no second look at: printable ASCII other than '"' and '\\'.
constexpr std::array<bool, 256> make_plain() {
  std::array<bool, 256> t{};
  for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
  return t;
}
constexpr std::array<bool, 256> kPlain = make_plain();

// The short escapes (\" \\ \/ \b \f \n \r \t) by their letter: the byte each stands for; 0 for
// a letter that is not one.
constexpr std::array<char, 256> make_short_escapes() {
  std::array<char, 256> t{};
  t['"'] = '"';
  t['\\'] = '\\';
  t['/'] = '/';
  t['b'] = '\b';
  t['f'] = '\f';
  t['n'] = '\n';
  t['r'] = '\r';
  t['t'] = '\t';
  return t;
}
constexpr std::array<char, 256> kShortEscape = make_short_escapes();

// The first index from k on of a byte that is not plain (see kPlain), or s.size(): a vector of
// bytes a step (detail/simd.hpp's Native vector: sixteen with SSE2, else eight in a word), where
// a signed compare below 0x20 flags control bytes and bytes above 0x7F at once, then byte by
// byte.
std::size_t skip_plain(std::string_view s, std::size_t k) noexcept {
  using V = detail::simd::Native;
  const std::size_t n = s.size();
  const V quote = V::set1('"'), backslash = V::set1('\\'), space = V::set1(0x20);
  for (; k + V::kLanes <= n; k += V::kLanes) {
    const V w = V::load(s.data() + k);
    const detail::simd::Mask mask = ((w == quote) | (w == backslash) | lt_signed(w, space)).mask();
    if (mask != 0) return k + detail::simd::lowest(mask);
  }
  while (k < n && kPlain[static_cast<unsigned char>(s[k])]) ++k;
  return k;
}

// Reads the string whose opening quote is at s[i]; on success sets `i` past the closing quote
// and fills v (kind, bounds, escaped, ascii, decoded_size). False on anything orjson rejects.
bool read_string(std::string_view s, std::size_t& i, Value& v) noexcept {
  std::size_t k = i + 1;
  v.kind = Kind::kString;
  v.begin = k;
  v.escaped = false;
  v.ascii = true;
  std::size_t saved = 0;  // bytes the escapes take beyond what they decode to
  const std::size_t n = s.size();
  while (true) {
    k = skip_plain(s, k);
    if (k >= n) return false;  // unterminated
    const auto c = static_cast<unsigned char>(s[k]);
    if (c == '"') {
      v.end = k;
      v.decoded_size = k - v.begin - saved;
      i = k + 1;
      return true;
    }
    if (c == '\\') {
      v.escaped = true;
      if (k + 1 >= n) return false;
      const char e = s[k + 1];
      if (e == 'u') {
        long cp = hex4(s, k + 2);
        if (cp < 0) return false;
        std::size_t raw = 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF) return false;  // a lone low surrogate
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (k + 7 >= n || s[k + 6] != '\\' || s[k + 7] != 'u') return false;
          const long lo = hex4(s, k + 8);
          if (lo < 0xDC00 || lo > 0xDFFF) return false;
          raw = 12;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        const std::size_t len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        saved += raw - len;
        if (cp >= 0x80) v.ascii = false;
        k += raw;
        continue;
      }
      if (kShortEscape[static_cast<unsigned char>(e)] == 0) return false;
      k += 2;
      saved += 1;
      continue;
    }
    if (c < 0x20) return false;  // a raw control character
    const std::size_t len = utf8_sequence(s, k);
    if (len == 0) return false;
    k += len;
    v.ascii = false;
  }
}

// Reads the number starting at s[i]; on success sets `i` past it and fills v. False on a token
// outside the grammar or outside what is picked (see kMaxIntDigits, kMaxNumberBytes).
bool read_number(std::string_view s, std::size_t& i, Value& v) noexcept {
  const std::size_t start = i;
  std::size_t k = i;
  const std::size_t n = s.size();
  if (k < n && s[k] == '-') ++k;
  const std::size_t int_start = k;
  if (k >= n || !is_digit(s[k])) return false;
  if (s[k] == '0') {
    ++k;
  } else {
    while (k < n && is_digit(s[k])) ++k;
  }
  const std::size_t int_digits = k - int_start;
  bool is_float = false;
  if (k < n && s[k] == '.') {
    ++k;
    if (k >= n || !is_digit(s[k])) return false;
    while (k < n && is_digit(s[k])) ++k;
    is_float = true;
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    ++k;
    if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
    if (k >= n || !is_digit(s[k])) return false;
    while (k < n && is_digit(s[k])) ++k;
    is_float = true;
  }
  if (k - start > kMaxNumberBytes) return false;
  if (!is_float) {
    if (int_digits > kMaxIntDigits) return false;
    std::int64_t value = 0;
    for (std::size_t d = int_start; d < k; ++d) value = value * 10 + (s[d] - '0');  // < 10**18
    v.kind = Kind::kInt;
    v.integer = s[start] == '-' ? -value : value;
  } else {
    double value = 0.0;
    const auto r = std::from_chars(s.data() + start, s.data() + k, value);
    if (r.ec != std::errc() || r.ptr != s.data() + k) return false;
    // Out of double range, or a magnitude the job's reader treats as a possible huge integer.
    if (!std::isfinite(value) || std::fabs(value) >= 9223372036854775808.0) return false;
    v.kind = Kind::kFloat;
    v.real = value;
  }
  i = k;
  return true;
}

bool read_literal(std::string_view s, std::size_t& i, std::string_view word) noexcept {
  if (s.compare(i, word.size(), word) != 0) return false;
  i += word.size();
  return true;
}

void skip_ws(std::string_view s, std::size_t& i) noexcept {
  while (i < s.size() && is_ws(s[i])) ++i;
}

// Index of `key` in `names`, or -1.
int find_key(const std::vector<std::string>& names, std::string_view key) noexcept {
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (names[k] == key) return static_cast<int>(k);
  }
  return -1;
}

}  // namespace

bool read_line(std::string_view line, const Keys& keys, std::size_t& begin, std::size_t& end, Value* values) noexcept {
  // A carriage return anywhere but in the line's closing run of \r and \n is left to the
  // caller: a line ends only at \n, and the job's reader writes a row with a carriage return
  // between its tokens back rebuilt (never as its text), and one inside a string is invalid.
  std::size_t body = line.size();
  while (body > 0 && (line[body - 1] == '\r' || line[body - 1] == '\n')) --body;
  if (body > 0 && std::memchr(line.data(), '\r', body) != nullptr) return false;

  std::size_t b = 0;
  std::size_t e = line.size();
  while (b < e && is_ws(line[b])) ++b;
  while (e > b && is_ws(line[e - 1])) --e;
  if (b == e || line[b] != '{') return false;
  const std::string_view s = line.substr(0, e);

  const std::size_t n_keys = keys.pick.size();
  for (std::size_t k = 0; k < n_keys; ++k) values[k] = Value{};

  enum class State : std::uint8_t { kValue, kKey, kAfter };
  std::array<char, kMaxDepth> stack{};
  std::size_t depth = 0;
  State state = State::kValue;
  int picking = -1;  // the requested key whose value comes next (top level only)
  std::size_t i = b;
  while (true) {
    skip_ws(s, i);
    if (state == State::kAfter) {
      if (depth == 0) break;
      if (i >= s.size()) return false;
      const char c = s[i];
      const char top = stack[depth - 1];
      if (c == ',') {
        ++i;
        state = top == '{' ? State::kKey : State::kValue;
      } else if ((c == '}' && top == '{') || (c == ']' && top == '[')) {
        ++i;
        --depth;
      } else {
        return false;
      }
      continue;
    }
    if (i >= s.size()) return false;
    if (state == State::kKey) {
      if (s[i] != '"') return false;
      Value key;
      if (!read_string(s, i, key)) return false;
      picking = -1;
      if (depth == 1) {
        // Top-level keys are compared as written: one with escapes is left to the caller.
        if (key.escaped) return false;
        const std::string_view name = s.substr(key.begin, key.end - key.begin);
        if (find_key(keys.reserved, name) >= 0) return false;
        picking = find_key(keys.pick, name);
        if (picking >= 0 && values[picking].kind != Kind::kMissing) return false;  // given twice
      }
      skip_ws(s, i);
      if (i >= s.size() || s[i] != ':') return false;
      ++i;
      state = State::kValue;
      continue;
    }
    // state == kValue
    const char c = s[i];
    if (c == '{' || c == '[') {
      if (picking >= 0 || depth >= kMaxDepth) return false;
      if (depth == 0 && c != '{') return false;
      stack[depth++] = c;
      ++i;
      skip_ws(s, i);
      if (i < s.size() && s[i] == (c == '{' ? '}' : ']')) {
        ++i;
        --depth;
        state = State::kAfter;
      } else {
        state = c == '{' ? State::kKey : State::kValue;
      }
      continue;
    }
    if (depth == 0) return false;
    Value scratch;
    Value& v = picking >= 0 ? values[picking] : scratch;
    bool ok = false;
    if (c == '"') {
      ok = read_string(s, i, v);
    } else if (c == 't') {
      ok = read_literal(s, i, "true");
      v.kind = Kind::kTrue;
    } else if (c == 'f') {
      ok = read_literal(s, i, "false");
      v.kind = Kind::kFalse;
    } else if (c == 'n') {
      ok = read_literal(s, i, "null");
      v.kind = Kind::kNull;
    } else if (c == '-' || is_digit(c)) {
      ok = read_number(s, i, v);
    }
    if (!ok) return false;
    picking = -1;
    state = State::kAfter;
  }
  if (i != s.size()) return false;
  begin = b;
  end = e;
  return true;
}

namespace {

// Writes the escape at line[k] (a backslash) decoded to `out`, advancing `out`; returns the index
// past the escape. The escape is one read_line accepted.
std::size_t decode_escape(std::string_view line, std::size_t k, char*& out) noexcept {
  const char e = line[k + 1];
  if (e != 'u') {
    *out++ = kShortEscape[static_cast<unsigned char>(e)];
    return k + 2;
  }
  long cp = hex4(line, k + 2);
  k += 6;
  if (cp >= 0xD800 && cp <= 0xDBFF) {  // read_line checked the low surrogate that follows
    cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4(line, k + 2) - 0xDC00);
    k += 6;
  }
  const auto u = static_cast<unsigned long>(cp);
  if (u < 0x80) {
    *out++ = static_cast<char>(u);
  } else if (u < 0x800) {
    *out++ = static_cast<char>(0xC0 | (u >> 6));
    *out++ = static_cast<char>(0x80 | (u & 0x3F));
  } else if (u < 0x10000) {
    *out++ = static_cast<char>(0xE0 | (u >> 12));
    *out++ = static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (u & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (u >> 18));
    *out++ = static_cast<char>(0x80 | ((u >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((u >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (u & 0x3F));
  }
  return k;
}

}  // namespace

void decode_string(std::string_view line, const Value& v, char* out) noexcept {
  if (!v.escaped) {
    if (v.end > v.begin) std::memcpy(out, line.data() + v.begin, v.end - v.begin);
    return;
  }
  std::size_t k = v.begin;
  const std::size_t end = v.end;
  // A vector of bytes at a time (detail/simd.hpp's Native vector), stored whole (out has
  // kDecodePadding bytes of room past the text) and kept up to the first backslash; the line is
  // read only below its size.
  using V = detail::simd::Native;
  static_assert(kDecodePadding >= V::kLanes, "a vector is stored whole");
  const V backslash = V::set1('\\');
  while (k < end && k + V::kLanes <= line.size()) {
    const V w = V::load(line.data() + k);
    w.store(out);
    const detail::simd::Mask mask = (w == backslash).mask();
    const std::size_t run = mask != 0 ? detail::simd::lowest(mask) : V::kLanes;
    if (k + run >= end) {  // the string ends among these bytes, before any backslash
      out += end - k;
      k = end;
      break;
    }
    out += run;
    k += run;
    if (mask != 0) k = decode_escape(line, k, out);
  }
  while (k < end) {
    if (line[k] != '\\') {
      *out++ = line[k++];
    } else {
      k = decode_escape(line, k, out);
    }
  }
}

namespace {

// The escape of byte c in orjson's output: 0 (as it is), a short form letter, or 'u'.
constexpr char escape_of(unsigned char c) noexcept {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return c < 0x20 ? 'u' : 0;
  }
}

}  // namespace

std::size_t json_string_size(std::string_view text) noexcept {
  std::size_t size = 2;
  for (const char ch : text) {
    const char e = escape_of(static_cast<unsigned char>(ch));
    size += e == 0 ? 1 : e == 'u' ? 6 : 2;
  }
  return size;
}

char* write_json_string(char* out, std::string_view text) noexcept {
  static constexpr char kHex[] = "0123456789abcdef";
  *out++ = '"';
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    const char e = escape_of(c);
    if (e == 0) {
      *out++ = ch;
    } else if (e == 'u') {
      std::memcpy(out, "\\u00", 4);
      out[4] = kHex[c >> 4];
      out[5] = kHex[c & 0xF];
      out += 6;
    } else {
      *out++ = '\\';
      *out++ = e;
    }
  }
  *out++ = '"';
  return out;
}

}  // namespace rapidgrade::jsonl
