#include "rapidgrade/extract.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/detail/units.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::extract {
namespace {

using detail::digits_end;
using detail::ends_with;
using detail::find_byte;
using detail::find_digit_or;
using detail::find_str;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;
using detail::rfind_pair_icase;
using detail::rfind_str;
using detail::starts_with;

constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";  // U+2212

Range trim(std::string_view s, Range r) noexcept {
  detail::trim_bounds(s, r.start, r.end);
  return r;
}

// The range of `part`, a view into s.
Range range_of(std::string_view s, std::string_view part) noexcept {
  const std::size_t start = detail::offset_in(s, part);
  return Range{start, start + part.size()};
}

// ---------------------------------------------------------------------------------------------
// anchors

// What the rules of the auto strategy after the box search look for, read in one pass over
// s[from, n) once no box is found (find_anchors): a rule whose anchor is absent cannot match and
// is skipped, and the backward searches start at their last anchor. Each rule alone (a named
// strategy) gets Anchors{}, which lets it search the whole region as before. The box
// search runs first on its own: most responses end with a box, and it needs no other anchor.
// The anchors are bytes, or pairs of bytes rarer than either alone, that every match holds:
// - "sw" in either case: "answer";
// - "r>": "</answer>"; '#': "####"; '`': a "```" fence;
// - "n{": "\begin{", the math environments;
// - "A:": the GSM8K answer line; any byte >= 0x80: the CJK markers (detail/markers.hpp).
struct Anchors {
  std::size_t sw_end = kNpos;   // the backward search for "sw" starts before sw_end (0: none)
  bool close_tag = true;
  bool hash = true;
  bool fence = true;
  std::size_t begin_from = 0;   // the search for "\begin{" starts at max(from, begin_from)
  bool a_colon = true;          // "A:", the GSM8K answer line
  bool non_ascii = true;        // a byte >= 0x80: the CJK markers
};

#if defined(__SSE2__)  // (x86-64, where the AVX2 form also builds)
// The positional anchors of find_anchors' vector loops in the block of positions from i: bit k
// of sw (of nb) set when position i + k holds "sw" (the first "n{" sought). Moves last_sw to the
// block's last "sw" and sets first_nb to its first "n{"; true when it found one.
bool note_positions(std::size_t i, unsigned sw, unsigned nb, std::size_t& last_sw, std::size_t& first_nb) noexcept {
  if (sw != 0) last_sw = i + (31 - static_cast<std::size_t>(__builtin_clz(sw)));
  if (nb == 0) return false;
  first_nb = i + static_cast<std::size_t>(__builtin_ctz(nb));
  return true;
}
#endif

#if RAPIDGRADE_AVX2_DISPATCH
// find_anchors' vector loop 32 positions at a time, on CPUs with AVX2 (the same comparisons as
// the SSE2 loop below): from i while i + 33 <= n; returns where it stopped. The existence anchors
// are or-ed into the flags, "sw" and "n{" update last_sw and first_nb.
__attribute__((target("avx2"))) std::size_t anchors_avx2(std::string_view s, std::size_t i, Anchors& a,
                                                         std::size_t& last_sw, std::size_t& first_nb) noexcept {
  const std::size_t n = s.size();
  const __m256i fold = _mm256_set1_epi8(0x20);
  const __m256i sl = _mm256_set1_epi8('s'), wl = _mm256_set1_epi8('w'), r = _mm256_set1_epi8('r');
  const __m256i gt = _mm256_set1_epi8('>'), hash = _mm256_set1_epi8('#'), tick = _mm256_set1_epi8('`');
  const __m256i en = _mm256_set1_epi8('n'), brace = _mm256_set1_epi8('{');
  const __m256i cap_a = _mm256_set1_epi8('A'), colon = _mm256_set1_epi8(':');
  __m256i any_tag = _mm256_setzero_si256(), any_hash = any_tag, any_fence = any_tag, any_a = any_tag, any_high = any_tag;
  __m256i want_begin = first_nb == kNpos ? _mm256_set1_epi8(-1) : _mm256_setzero_si256();
  for (; i + 33 <= n; i += 32) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i));
    const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i + 1));
    any_tag = _mm256_or_si256(any_tag, _mm256_and_si256(_mm256_cmpeq_epi8(w, r), _mm256_cmpeq_epi8(next, gt)));
    any_hash = _mm256_or_si256(any_hash, _mm256_cmpeq_epi8(w, hash));
    any_fence = _mm256_or_si256(any_fence, _mm256_cmpeq_epi8(w, tick));
    any_a = _mm256_or_si256(any_a, _mm256_and_si256(_mm256_cmpeq_epi8(w, cap_a), _mm256_cmpeq_epi8(next, colon)));
    any_high = _mm256_or_si256(any_high, w);
    const __m256i sw = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(w, fold), sl),
                                        _mm256_cmpeq_epi8(_mm256_or_si256(next, fold), wl));
    const __m256i nb = _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(w, en), _mm256_cmpeq_epi8(next, brace)),
                                        want_begin);
    if (_mm256_movemask_epi8(_mm256_or_si256(sw, nb)) != 0 &&
        note_positions(i, static_cast<unsigned>(_mm256_movemask_epi8(sw)), static_cast<unsigned>(_mm256_movemask_epi8(nb)),
                       last_sw, first_nb)) {
      want_begin = _mm256_setzero_si256();
    }
  }
  a.close_tag = a.close_tag || _mm256_movemask_epi8(any_tag) != 0;
  a.hash = a.hash || _mm256_movemask_epi8(any_hash) != 0;
  a.fence = a.fence || _mm256_movemask_epi8(any_fence) != 0;
  a.a_colon = a.a_colon || _mm256_movemask_epi8(any_a) != 0;
  a.non_ascii = a.non_ascii || _mm256_movemask_epi8(any_high) != 0;
  return i;
}
#endif

Anchors find_anchors(std::string_view s, std::size_t from) noexcept {
  const std::size_t n = s.size();
  Anchors a;
  a.close_tag = a.hash = a.fence = a.a_colon = a.non_ascii = false;
  std::size_t last_sw = kNpos, first_nb = kNpos;  // the last "sw" (its 's'), the first "n{"
  std::size_t i = from;
#if RAPIDGRADE_AVX2_DISPATCH
  if (detail::has_avx2()) i = anchors_avx2(s, i, a, last_sw, first_nb);
#endif
#if defined(__SSE2__)
  const __m128i fold = _mm_set1_epi8(0x20);
  const auto byte = [](char c) { return _mm_set1_epi8(c); };
  const auto eq = [](__m128i u, __m128i v) { return _mm_cmpeq_epi8(u, v); };
  const __m128i sl = byte('s'), wl = byte('w'), r = byte('r'), gt = byte('>');
  const __m128i hash = byte('#'), tick = byte('`'), en = byte('n'), brace = byte('{');
  // The existence anchors are or-ed into one vector each and read once at the end; the two
  // whose position matters ("sw", "n{") share one movemask, decoded only where it is set.
  const __m128i cap_a = byte('A'), colon = byte(':');
  __m128i any_tag = _mm_setzero_si128(), any_hash = any_tag, any_fence = any_tag, any_a = any_tag, any_high = any_tag;
  const __m128i no_begin = _mm_setzero_si128();
  __m128i want_begin = first_nb == kNpos ? _mm_set1_epi8(-1) : no_begin;  // all ones until the first "n{"
  // positions i..i+15, each with the byte after it (up to i + 16) in s
  for (; i + 17 <= n; i += 16) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i + 1));
    any_tag = _mm_or_si128(any_tag, _mm_and_si128(eq(w, r), eq(next, gt)));
    any_hash = _mm_or_si128(any_hash, eq(w, hash));
    any_fence = _mm_or_si128(any_fence, eq(w, tick));
    any_a = _mm_or_si128(any_a, _mm_and_si128(eq(w, cap_a), eq(next, colon)));
    any_high = _mm_or_si128(any_high, w);
    const __m128i sw = _mm_and_si128(eq(_mm_or_si128(w, fold), sl), eq(_mm_or_si128(next, fold), wl));
    const __m128i nb = _mm_and_si128(_mm_and_si128(eq(w, en), eq(next, brace)), want_begin);
    if (_mm_movemask_epi8(_mm_or_si128(sw, nb)) != 0 &&
        note_positions(i, static_cast<unsigned>(_mm_movemask_epi8(sw)), static_cast<unsigned>(_mm_movemask_epi8(nb)),
                       last_sw, first_nb)) {
      want_begin = no_begin;
    }
  }
  a.close_tag = a.close_tag || _mm_movemask_epi8(any_tag) != 0;
  a.hash = a.hash || _mm_movemask_epi8(any_hash) != 0;
  a.fence = a.fence || _mm_movemask_epi8(any_fence) != 0;
  a.a_colon = a.a_colon || _mm_movemask_epi8(any_a) != 0;
  a.non_ascii = a.non_ascii || _mm_movemask_epi8(any_high) != 0;
#endif
  for (; i < n; ++i) {
    const char c = s[i];
    const char d = i + 1 < n ? s[i + 1] : '\0';
    a.close_tag |= c == 'r' && d == '>';
    a.hash |= c == '#';
    a.fence |= c == '`';
    a.a_colon |= c == 'A' && d == ':';
    a.non_ascii |= static_cast<unsigned char>(c) >= 0x80;
    if (detail::to_lower(c) == 's' && detail::to_lower(d) == 'w') last_sw = i;
    if (first_nb == kNpos && c == 'n' && d == '{') first_nb = i;
  }
  a.sw_end = last_sw == kNpos ? 0 : last_sw + 2;
  // "\begin{" holds its "n{" five bytes after its start
  a.begin_from = first_nb == kNpos ? kNpos : (first_nb >= 5 ? first_nb - 5 : 0);
  return a;
}

// ---------------------------------------------------------------------------------------------
// boxed

// The command at a \boxed or \fbox found by next_box_command: the position after its name and
// whether it is \boxed.
struct Command {
  std::size_t name_end = kNpos;
  bool boxed = false;
};

// The first x >= max(i, 1) with s[x - 1] == 'o' and s[x] == 'x' (the "ox" of both \boxed and
// \fbox), or s.size(). find_str reads the pair sixteen positions at a time, so the speed does not
// depend on how many 'o' or 'x' the text holds.
std::size_t next_ox(std::string_view s, std::size_t i) noexcept {
  const std::size_t o = find_str(s, i == 0 ? 0 : i - 1, "ox");
  return o == kNpos ? s.size() : o + 1;
}

// The next \boxed or \fbox command starting at or after `pos`: the position of its backslash,
// or kNpos. Searches for "ox" (next_ox) and looks back for the command around it. A backslash starts a command when it is preceded by an
// even number of backslashes (a run of backslashes always starts at a token boundary, and
// "\\\\" pairs are escapes), so the check is local.
std::size_t next_box_command(std::string_view s, std::size_t pos, Command& cmd) noexcept {
  const std::size_t n = s.size();
  std::size_t i = pos;
  while (true) {
    const std::size_t x = next_ox(s, i);
    if (x >= n) return kNpos;
    i = x + 1;
    std::size_t c = kNpos;
    // Cheap byte tests first: most 'x' are variables, not part of a box command.
    if (x >= pos + 3 && s[x - 3] == '\\' && s[x - 2] == 'b' && s[x - 1] == 'o' && x + 2 < n && s[x + 1] == 'e' &&
        s[x + 2] == 'd' && (x + 3 >= n || !is_letter(s[x + 3]))) {
      c = x - 3;
      cmd = Command{x + 3, true};
    } else if (x >= pos + 4 && s[x - 4] == '\\' && s[x - 3] == 'f' && s[x - 2] == 'b' && s[x - 1] == 'o' &&
               (x + 1 >= n || !is_letter(s[x + 1]))) {
      c = x - 4;
      cmd = Command{x + 1, false};
    } else {
      continue;
    }
    std::size_t k = c;
    while (k > 0 && s[k - 1] == '\\') --k;
    if ((c - k) % 2 == 0) return c;
  }
}

// Every top-level box (one not inside another box) in s[from, n), in order. Finds box commands
// with next_box_command, matches the braces of each box once and continues after it, so the
// text inside a box is read once and the text outside is only searched (find_str).
// An unclosed box hands the rest of the text to scan::find_boxed (one more linear pass), which
// finds the closed boxes inside it, as a full scan would.
std::vector<Box> top_level_boxes(std::string_view s, std::size_t from) {
  std::vector<Box> out;
  const std::size_t n = s.size();
  std::size_t i = from;
  while (true) {
    Command cmd;
    i = next_box_command(s, i, cmd);
    if (i == kNpos) break;
    std::size_t k = cmd.name_end;
    while (k < n && is_space(s[k])) ++k;
    if (k < n && s[k] == '{') {
      const std::size_t close = scan::match_brace(s, k);
      if (close == kNpos) {
        const std::size_t base = k + 1;
        const std::vector<scan::Span> spans = scan::find_boxed(s.substr(base));
        std::size_t last_end = 0;
        bool any = false;
        for (const scan::Span& sp : spans) {
          if (any && sp.outer_start < last_end) continue;
          out.push_back(Box{base + sp.outer_start, base + sp.start, base + sp.end, base + sp.outer_end});
          last_end = sp.outer_end;
          any = true;
        }
        break;
      }
      out.push_back(Box{i, k + 1, close, close + 1});
      i = close + 1;
    } else if (cmd.boxed) {
      const std::size_t end = detail::bare_box_argument_end(s, k);
      if (end > k) {
        out.push_back(Box{i, k, end, end});
        i = end;
      } else {
        i = k;
      }
    } else {
      i = k;
    }
  }
  return out;
}

// \boxed{\boxed{x}} -> x: while the whole (trimmed) content is itself one box, take its content.
// The result is trimmed of whitespace: \boxed{ 42 } -> "42".
Range unwrap_box(std::string_view s, Range r) noexcept {
  return range_of(s, detail::unwrap(s.substr(r.start, r.end - r.start), detail::Wrappers::kBoxes,
                                    detail::kMaxWrapperLayers));
}

// True when the text between two boxes ends a sentence: '.', '!' or '?' followed by
// whitespace, '$', a backslash or the end of the gap; or a blank line.
bool ends_sentence(std::string_view s, std::size_t from, std::size_t to) noexcept {
  for (std::size_t k = from; k < to; ++k) {
    const char c = s[k];
    if (c == '.' || c == '!' || c == '?') {
      if (k + 1 == to || is_space(s[k + 1]) || s[k + 1] == '$' || s[k + 1] == '\\') return true;
    } else if (c == '\n') {
      std::size_t m = k + 1;
      while (m < to && (s[m] == ' ' || s[m] == '\t' || s[m] == '\r')) ++m;
      if (m < to && s[m] == '\n') return true;
    }
  }
  return false;
}

std::optional<Extraction> find_boxed_answer(std::string_view s, std::size_t from) {
  const std::vector<Box> boxes = top_level_boxes(s, from);
  if (boxes.empty()) return std::nullopt;
  std::size_t first = boxes.size() - 1;
  while (first > 0 && !ends_sentence(s, boxes[first - 1].outer_end, boxes[first].outer_start)) --first;
  Extraction e;
  if (first == boxes.size() - 1) {
    const Range r = unwrap_box(s, Range{boxes.back().start, boxes.back().end});
    e.method = Method::kBoxed;
    e.start = r.start;
    e.end = r.end;
    return e;
  }
  e.method = Method::kBoxedMulti;
  for (std::size_t k = first; k < boxes.size(); ++k) {
    e.parts.push_back(unwrap_box(s, Range{boxes[k].start, boxes[k].end}));
  }
  e.start = e.parts.front().start;
  e.end = e.parts.back().end;
  return e;
}

// Defined with the rules that use them most (choice, last_number).
bool is_choice_letter(char c) noexcept;
std::size_t letters_end_in(std::string_view s, std::size_t i, std::size_t end) noexcept;
std::size_t with_sign(std::string_view s, std::size_t from, std::size_t i) noexcept;
std::size_t number_end(std::string_view s, std::size_t i) noexcept;
Range span_answer(std::string_view s, Range r);

// ---------------------------------------------------------------------------------------------
// the answer phrase

// A unit of detail/units.hpp spelled s[b, e): a symbol, or an SI prefix and a prefixable symbol
// ("km", "kg"). Case matters, as in the table.
bool is_unit_word(std::string_view s, std::size_t b, std::size_t e) noexcept {
  const std::string_view w = s.substr(b, e - b);
  if (detail::find_unit_symbol(w) != nullptr) return true;
  for (std::size_t p = 1; p <= 2 && p < w.size(); ++p) {
    if (detail::find_unit_prefix(w.substr(0, p)) == nullptr) continue;
    const detail::UnitSymbol* u = detail::find_unit_symbol(w.substr(p));
    if (u != nullptr && u->prefixable) return true;
  }
  return false;
}

// The end of a unit expression that starts with the unit word s[b, e): more unit words joined by
// '/', '^' with digits, '*' or "per" ("km/h", "m/s^2", "bolts per minute" is not one: "bolts"
// is no unit). Never past `end`.
std::size_t unit_end(std::string_view s, std::size_t e, std::size_t end) noexcept {
  std::size_t k = e;
  while (k < end) {
    std::size_t q = k;
    if (s[q] == '^') {
      ++q;
      if (q < end && (s[q] == '-' || s[q] == '{')) ++q;
      const std::size_t d = digits_end(s.substr(0, end), q);
      if (d == q) break;
      k = d < end && s[d] == '}' ? d + 1 : d;
      continue;
    }
    if (s[q] == '/' || s[q] == '*') {
      ++q;
    } else {
      break;
    }
    const std::size_t w = letters_end_in(s, q, end);
    if (w == q || !is_unit_word(s, q, w)) break;
    k = w;
  }
  return k;
}

// The position after the character (a UTF-8 sequence) that starts at k, at most `end`.
std::size_t next_char(std::string_view s, std::size_t k, std::size_t end) noexcept {
  if (k >= end) return end;
  ++k;
  while (k < end && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) ++k;
  return k;
}

// A math character that is not ASCII, at s[k]: its length, or 0 (kMathNonAscii, full-width forms).
std::size_t math_non_ascii(std::string_view s, std::size_t k) noexcept {
  if (const char c = detail::fullwidth_ascii(s, k)) {
    return (is_digit(c) || std::string_view("+-*/=<>()[],.%^").find(c) != std::string_view::npos) ? 3 : 0;
  }
  for (const std::string_view m : detail::kMathNonAscii) {
    if (starts_with(s, k, m)) return m.size();
  }
  return 0;
}

// A currency sign at s[k] that is not ASCII (¥, €, £, full-width ¥): its length, or 0.
std::size_t currency_length(std::string_view s, std::size_t k) noexcept {
  for (const std::string_view m : {std::string_view("\xC2\xA5"), std::string_view("\xE2\x82\xAC"),
                                   std::string_view("\xC2\xA3"), std::string_view("\xEF\xBF\xA5")}) {
    if (starts_with(s, k, m)) return m.size();
  }
  return 0;
}

// A CJK list joiner ("和", "或") at s[k]: its length, or 0.
std::size_t cjk_joiner(std::string_view s, std::size_t k) noexcept {
  for (const std::string_view m : detail::kCjkListJoiners) {
    if (starts_with(s, k, m)) return m.size();
  }
  return 0;
}

// True when the word s[b, e) (ASCII letters) belongs to math: one letter (a variable or a choice
// letter), a function word (detail/functions.hpp), a constant.
bool math_word(std::string_view s, std::size_t b, std::size_t e) noexcept {
  if (e - b == 1) return true;
  const std::string_view w = s.substr(b, e - b);
  return w == "pi" || w == "oo" || w == "inf" || w == "infty" || w == "infinity" || w == "sqrt" ||
         detail::find_function_word(w) != nullptr;
}

// True when the word s[k, w) is an operand of the math around it, though it is no math_word: an
// operator before it ("x + yz", "3 \cdot ab") or after it ("3 xy + y ^ 2", "ab^2").
bool operand_word(std::string_view s, std::size_t begin, std::size_t k, std::size_t w, std::size_t end) noexcept {
  constexpr std::string_view kOperators = "+-*/^=<>_(";
  std::size_t b = k;
  while (b > begin && is_blank(s[b - 1])) --b;
  if (b > begin && (kOperators.find(s[b - 1]) != std::string_view::npos || s[b - 1] == '{')) return true;
  std::size_t a = w;
  while (a < end && is_blank(s[a])) ++a;
  return a < end && kOperators.find(s[a]) != std::string_view::npos;
}

// Where the math that may follow a joiner ("and", "or", ",", "和") starts, from k: true when
// s[k] (blanks skipped) starts a number, a sign, a math span, a command, a group or a one-letter
// word.
bool math_follows(std::string_view s, std::size_t k, std::size_t end) noexcept {
  while (k < end && is_blank(s[k])) ++k;
  if (k >= end) return false;
  const char c = s[k];
  if (is_digit(c) || c == '-' || c == '$' || c == '\\' || c == '(' || c == '[' || c == '{') return true;
  if (is_letter(c)) return letters_end_in(s, k, end) == k + 1 || math_word(s, k, letters_end_in(s, k, end));
  return math_non_ascii(s, k) > 0;
}

// End of a number at s[i] (a digit) for the answer phrase: number_end's grammar, plus thousands
// groups apart by one space ("1 000") and mixed numbers ("1 1/2").
std::size_t phrase_number_end(std::string_view s, std::size_t i, std::size_t end) noexcept {
  const std::string_view t = s.substr(0, end);
  std::size_t k = number_end(t, i);
  const std::size_t run = digits_end(t, i);
  if (k == run) {
    const std::size_t g = detail::thousands_end(t, i, run, detail::GroupSeparators::kLatex);
    // only plain spaces here: the LaTeX spellings are read by the expression lexer
    if (g != run && t.substr(run, 1) == " ") {
      bool spaces = true;
      for (std::size_t q = run; q < g; ++q) spaces = spaces && (is_digit(t[q]) || t[q] == ' ');
      if (spaces) k = g;
    }
  }
  if (k == run && k + 1 < end && t[k] == ' ' && is_digit(t[k + 1])) {  // "1 1/2"
    const std::size_t num = digits_end(t, k + 1);
    if (num + 1 < end && t[num] == '/' && is_digit(t[num + 1])) {
      const std::size_t den = digits_end(t, num + 1);
      if (den >= end || !(is_digit(t[den]) || t[den] == '.')) k = den;
    }
  }
  return k;
}

// The end of the group opened at s[k] ('(', '[' or '{'), any of the three closing it, within
// end; kNpos when it is not closed.
std::size_t group_end(std::string_view s, std::size_t k, std::size_t end) noexcept {
  std::size_t depth = 0;
  for (std::size_t q = k; q < end; ++q) {
    const char c = s[q];
    if (c == '\\') {
      ++q;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return q + 1;
    }
  }
  return kNpos;
}

// True when s[b, e) holds a prose word: two or more ASCII letters that are not math_word and not
// a command name, or a non-ASCII character that is not math (CJK text).
bool holds_prose(std::string_view s, std::size_t b, std::size_t e) noexcept {
  for (std::size_t k = b; k < e;) {
    const char c = s[k];
    if (c == '\\') {
      const std::size_t w = letters_end_in(s, k + 1, e);
      k = w > k + 1 ? w : next_char(s, k + 1, e);  // a command name, or the one character escaped
      continue;
    }
    if (is_letter(c)) {
      const std::size_t w = letters_end_in(s, k, e);
      const std::string_view word = s.substr(k, w - k);
      if (!math_word(s, k, w) && word != "and" && word != "or") return true;
      k = w;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t m = std::max(math_non_ascii(s, k), cjk_joiner(s, k));
      if (m == 0) return true;
      k += m;
      continue;
    }
    ++k;
  }
  return false;
}

// The numbers and math spans of s[b, e) (words skipped), for a phrase that starts with prose:
// how many there are, and the last one.
struct Objects {
  std::size_t count = 0;
  Range last;
  bool span = false;
};

Objects math_objects(std::string_view s, std::size_t b, std::size_t e) {
  Objects o;
  for (std::size_t k = b; k < e;) {
    const char c = s[k];
    if (c == '$' || (c == '\\' && k + 1 < e && (s[k + 1] == '(' || s[k + 1] == '['))) {
      const bool dollar = c == '$';
      const std::size_t open = dollar && k + 1 < e && s[k + 1] == '$' ? 2 : (dollar ? 1 : 2);
      const std::string_view close = dollar ? (open == 2 ? "$$" : "$") : (s[k + 1] == '(' ? "\\)" : "\\]");
      const std::size_t at = detail::find_math_closer(s.substr(0, e), k + open, close);
      if (at == kNpos) return Objects{2, {}, true};
      ++o.count;
      o.span = true;
      o.last = Range{k, at + close.size()};
      k = at + close.size();
      continue;
    }
    if (is_digit(c) && (k == b || !is_letter(s[k - 1]))) {
      const std::size_t ne = phrase_number_end(s, k, e);
      ++o.count;
      o.last = Range{with_sign(s, b, k), ne};
      k = ne;
      continue;
    }
    if (c == '\\') {
      k = next_char(s, k + 1, e);
      continue;
    }
    ++k;
  }
  return o;
}

}  // namespace

Phrase read_answer_phrase(std::string_view s, Range r) {
  Phrase out;
  r = trim(s, r);
  out.answer = r;
  if (r.end <= r.start) return out;
  const std::size_t end = r.end;
  // a choice letter at the head: "(B) 42", "B) 42", "B. 42"
  {
    std::size_t k = r.start;
    const bool paren = s[k] == '(';
    if (paren) ++k;
    if (k + 1 < end && is_choice_letter(s[k]) && (s[k + 1] == ')' || (!paren && s[k + 1] == '.'))) {
      const std::size_t after = k + 2;
      if (after < end && is_blank(s[after]) && trim(s, Range{after, end}).end > after) {
        out.answer = Range{r.start, paren ? after : k + 1};
        out.cut = true;
        out.clean = false;
        return out;
      }
    }
  }
  std::size_t k = r.start;
  std::size_t answer_start = r.start;  // after a currency sign that opens the phrase
  std::size_t math_end = r.start;  // the end of the math read so far
  bool seen = false;               // a math object was read
  while (k < end) {
    const char c = s[k];
    if (is_blank(c)) {
      ++k;
      continue;
    }
    const std::size_t before = k;
    if (c == '*' && !seen) {  // markdown bold around the answer: "**18** eggs"
      answer_start = ++k;
      continue;
    }
    if (c == '$' || (c == '\\' && k + 1 < end && (s[k + 1] == '(' || s[k + 1] == '['))) {
      const bool dollar = c == '$';
      const std::size_t open = dollar && k + 1 < end && s[k + 1] == '$' ? 2 : (dollar ? 1 : 2);
      const std::string_view close = dollar ? (open == 2 ? "$$" : "$") : (s[k + 1] == '(' ? "\\)" : "\\]");
      const std::size_t at = detail::find_math_closer(s.substr(0, end), k + open, close);
      // "$18" is a price: a lone dollar before a number, or one whose "span" holds prose and no
      // command ("$18 and $20")
      if (dollar && open == 1 && k + 1 < end && is_digit(s[k + 1]) &&
          (at == kNpos ? find_byte(s.substr(0, end), k + 1, '$') >= end
                       : holds_prose(s, k + 1, at) && find_byte(s.substr(0, at), k + 1, '\\') >= at)) {
        if (!seen) answer_start = k + 1;
        ++k;
        continue;
      }
      if (at == kNpos) {
        math_end = end;
        seen = true;
        break;
      }
      k = at + close.size();
    } else if (c == '\\') {
      const std::size_t w = letters_end_in(s, k + 1, end);
      if (w == k + 1) {  // a control symbol: "\$", "\%", "\{", "\,"
        k = next_char(s, k + 1, end);
      } else {
        const std::string_view name = s.substr(k + 1, w - k - 1);
        const bool text = name == "text" || name == "textrm" || name == "mbox" || name == "mathrm";
        k = w;
        if (k < end && s[k] == '{') {
          const std::size_t g = group_end(s, k, end);
          if (g == kNpos) {
            math_end = end;
            seen = true;
            break;
          }
          // "\text{ eggs}" after the math is a unit or a noun: the answer ends before it
          if (text && seen && holds_prose(s, k + 1, g - 1)) {
            out.cut = true;
            break;
          }
          k = g;
        }
      }
    } else if (c == '(' || c == '[' || c == '{') {
      const std::size_t g = group_end(s, k, end);
      if (g == kNpos) {
        math_end = end;
        seen = true;
        break;
      }
      // "18 (since ...)": a group of prose after the math is a remark
      if (seen && before > r.start && is_blank(s[before - 1]) && holds_prose(s, k + 1, g - 1)) {
        out.cut = true;
        break;
      }
      k = g;
    } else if (is_digit(c) || (c == '.' && k + 1 < end && is_digit(s[k + 1]))) {
      k = phrase_number_end(s, k, end);
      // letters right after the number: a unit ("48g", "5km"), else math ("2x", "3pi")
      const std::size_t w = letters_end_in(s, k, end);
      if (w > k && is_unit_word(s, k, w) && (w >= end || !is_digit(s[w]))) {
        math_end = k;
        out.unit = Range{k, unit_end(s, w, end)};
        out.cut = true;
        seen = true;
        break;
      }
      if (w > k && !math_word(s, k, w) && w - k > 1) {  // "2nd", "3rd", "10th"
        math_end = k;
        out.cut = true;
        seen = true;
        break;
      }
      k = w;
    } else if (is_letter(c)) {
      const std::size_t w = letters_end_in(s, k, end);
      const std::string_view word = s.substr(k, w - k);
      if (seen && (word == "and" || word == "or") && math_follows(s, w, end)) {
        out.joined = true;
        k = w;
        continue;
      }
      if (seen && is_unit_word(s, k, w) && before > r.start && is_blank(s[before - 1]) &&
          (is_digit(s[math_end - 1]) || s[math_end - 1] == ')' || s[math_end - 1] == ']') &&
          (w >= end || s[w] == '/' || s[w] == '^' || is_space(s[w]) || s[w] == '.' || s[w] == ',')) {
        // "5 m", "3 s", "5 km/h": a unit after a number, apart from it
        out.unit = Range{k, unit_end(s, w, end)};
        out.cut = true;
        break;
      }
      // the article "a" before a word is prose ("a total of 18")
      const bool article = w - k == 1 && c == 'a' && w + 1 < end && is_blank(s[w]) && is_letter(s[w + 1]) &&
                           !math_word(s, w + 1, letters_end_in(s, w + 1, end));
      if (article || (!math_word(s, k, w) && !operand_word(s, r.start, k, w, end))) {
        if (!seen) {
          out.leading_prose = true;
          break;
        }
        if (is_unit_word(s, k, w)) out.unit = Range{k, unit_end(s, w, end)};
        out.cut = true;
        break;
      }
      k = w;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      if (!seen) {
        const std::size_t cur = currency_length(s, k);
        if (cur > 0) {
          k += cur;
          answer_start = k;
          continue;
        }
      }
      std::size_t m = math_non_ascii(s, k);
      if (m == 0 && seen && math_follows(s, k + cjk_joiner(s, k), end)) {
        m = cjk_joiner(s, k);
        out.joined = m > 0;
      }
      if (m == 0) {
        if (!seen) {
          out.leading_prose = true;
          break;
        }
        out.cut = true;
        break;
      }
      k += m;
    } else if (c == '.' || c == ',' || c == ';' || c == ':' || c == '?') {
      // punctuation ends the math unless more math follows it ("(1, 2)" is a group; "1, 2, 3")
      if ((c == ',' || c == ';' || c == ':') && seen && math_follows(s, k + 1, end)) {
        ++k;
        continue;
      }
      if (seen) {
        out.cut = trim(s, Range{k + 1, end}).end > k + 1 || c == ',' || c == ';' || c == ':';
        break;
      }
      ++k;
      continue;
    } else {
      ++k;  // operators and the rest of ASCII: part of the math
    }
    seen = true;
    math_end = k;
  }
  if (out.leading_prose) {
    // a phrase that starts with words: a text answer ("Yes", "no solution"), or a restating
    // sentence ("Melanie started with 18 vacuum cleaners"), whose one number is the answer
    const Objects o = math_objects(s, r.start, end);
    if (o.count == 1) {
      out.answer = trim(s, o.last);
      out.cut = true;
      out.clean = false;
    } else if (o.count > 1) {
      out.clean = false;
    }
    return out;
  }
  if (!seen) return out;
  out.answer = trim(s, Range{answer_start, math_end});
  // trailing punctuation and a dangling joiner are not part of the answer
  while (out.answer.end > out.answer.start) {
    const char c = s[out.answer.end - 1];
    if (c == ',' || c == ';' || c == ':' || c == '.' || c == '*') {
      --out.answer.end;
      out.answer = trim(s, out.answer);
      continue;
    }
    break;
  }
  if (out.answer.end <= out.answer.start) {
    out.answer = r;
    out.cut = false;
  }
  return out;
}

namespace {

// ---------------------------------------------------------------------------------------------
// answer_is

// Removes one pair of surrounding markdown "**", then one layer of math delimiters around the
// whole value (detail::unwrap; one layer, so "$\(x\)$" keeps "\(x\)", as extraction always has).
Range strip_answer_delimiters(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  if (r.end - r.start >= 4 && starts_with(s, r.start, "**") && s.compare(r.end - 2, 2, "**") == 0) {
    r = Range{r.start + 2, r.end - 2};
  }
  return range_of(s, detail::unwrap(s.substr(r.start, r.end - r.start), detail::Wrappers::kMath, 1));
}

// The answer after a marker, starting at j and read no further than `limit`: whitespace (newlines
// too) skipped, then a display block ($$...$$ or \[...\]) or the answer phrase of the rest of the
// sentence/line (read_answer_phrase).
Phrase answer_value(std::string_view s, std::size_t j, std::size_t limit = kNpos) {
  const std::size_t n = std::min(s.size(), limit);
  Phrase p;
  while (j < n && is_space(s[j])) ++j;
  if (j == n) {
    p.answer = Range{j, j};
    return p;
  }
  if (starts_with(s, j, "$$") || starts_with(s, j, "\\[")) {
    const bool dollars = s[j] == '$';
    const std::size_t close = detail::find_math_closer(s.substr(0, n), j + 2, dollars ? "$$" : "\\]");
    if (close != kNpos) {
      p.answer = strip_answer_delimiters(s, Range{j, close + 2});
      return p;
    }
  }
  const Range phrase = trim(s, Range{j, std::min(sentence_end(s, j), n)});
  p = read_answer_phrase(s, phrase);
  p.answer = strip_answer_delimiters(s, p.answer);
  // a chain or a computation states its last member: "9 * 2 = 18" -> "18", "x = 5" stays
  if (!p.leading_prose && !p.joined && p.answer.end > p.answer.start) p.answer = span_answer(s, p.answer);
  return p;
}

// The extraction of a marker's reading.
Extraction marked(Method method, const Phrase& p) {
  Extraction e;
  e.method = method;
  e.start = p.answer.start;
  e.end = p.answer.end;
  e.unit = p.unit;
  e.clean = p.clean;
  return e;
}

// True when s[b, i) holds only '#', '*', blanks and the word "final" (either case), back to a
// line start or `from`: "# Answer", "## Final Answer", "**Answer**".
bool heading_before(std::string_view s, std::size_t from, std::size_t i) noexcept {
  std::size_t b = i;
  while (b > from && s[b - 1] != '\n') {
    const char c = s[b - 1];
    if (c == '#' || c == '*' || is_blank(c)) {
      --b;
    } else if (b >= from + 5 && istarts_with(s, b - 5, "final") && (b - 5 == from || !is_letter(s[b - 6]))) {
      b -= 5;
    } else {
      return false;
    }
  }
  return true;
}

// After "answer" at i: the position where the answer starts, or kNpos when no marker follows.
// Accepted: "answer is", "answer is:", "answer:", "answer**:", "answer:**", "answer** is", and a
// heading line "# Answer" / "**Final Answer**" whose answer is on the next lines.
std::size_t after_marker(std::string_view s, std::size_t from, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t j = i + 6;
  if (starts_with(s, j, "**")) j += 2;
  while (j < n && is_blank(s[j])) ++j;
  if (j < n && s[j] == ':') {
    ++j;
    if (starts_with(s, j, "**")) j += 2;
    return j;
  }
  if (istarts_with(s, j, "is") && (j + 2 >= n || !is_letter(s[j + 2]))) {
    j += 2;
    while (j < n && is_blank(s[j])) ++j;
    if (j < n && s[j] == ':') ++j;
    return j;
  }
  if (j < n && (s[j] == '\n' || s[j] == '\r') && heading_before(s, from, i)) return j;
  return kNpos;
}

std::optional<Extraction> find_answer_is(std::string_view s, std::size_t from, const Anchors& anchors,
                                         std::size_t& marker) {
  const std::size_t n = s.size();
  // Candidates are found by the "sw" of "answer" in either case (rfind_pair_icase), from the
  // end backwards: the last marker wins, and its answer starts after every earlier marker's
  // (between "answer" and where after_marker's answer starts there are only '*', blanks, ':'
  // and "is", so no other "answer" begins there), so the search stops at the first marker found.
  std::size_t last = kNpos;
  for (std::size_t p = rfind_pair_icase(s, from + 2, anchors.sw_end, 's', 'w'); p != kNpos;
       p = rfind_pair_icase(s, from + 2, p + 1, 's', 'w')) {
    const std::size_t i = p - 2;
    if (!istarts_with(s, i, "answer")) continue;
    if (i > from && is_letter(s[i - 1])) continue;
    last = after_marker(s, from, i);
    if (last != kNpos) {
      marker = i;
      break;
    }
  }
  if (last == kNpos) return std::nullopt;
  const Phrase p = answer_value(s, last);
  const Range r = p.answer;
  if (r.end <= r.start) return std::nullopt;
  Extraction e = marked(Method::kAnswerIs, p);
  // The answer stopped at a sentence end with more of its line after it ("Yes. $F(x,y)=...$"):
  // the whole line is the other reading, for a gold of several sentences.
  std::size_t line_end = r.end;
  while (line_end < n && s[line_end] != '\n' && s[line_end] != '\r') ++line_end;
  const Range whole = trim(s, Range{r.start, line_end});
  if (whole.end > r.end + 1) e.others.push_back(whole);
  return e;
}

// ---------------------------------------------------------------------------------------------
// tagged

std::size_t line_end(std::string_view s, std::size_t i) noexcept { return find_byte(s, i, '\n'); }

// The position of the next `marker` at or after pos that begins a line of s[from, n) (only
// blanks before it on its line), or kNpos; `line_start` is set to the start of that line.
// Searches for the marker's first byte with memchr ('#' and '`' are rare in prose and LaTeX).
std::size_t next_marker_line(std::string_view s, std::size_t from, std::size_t pos, std::string_view marker,
                             std::size_t& line_start) noexcept {
  const std::size_t n = s.size();
  for (std::size_t p = find_byte(s, pos, marker[0]); p < n; p = find_byte(s, p + 1, marker[0])) {
    if (!starts_with(s, p, marker)) continue;
    std::size_t b = p;
    while (b > from && is_blank(s[b - 1])) --b;
    if (b == from || s[b - 1] == '\n') {
      line_start = b;
      return p;
    }
  }
  return kNpos;
}

// "#### X": X is a plain number, possibly with '$', separators, sign, '/' and spaces.
bool gsm8k_value(std::string_view s, Range r) noexcept {
  bool digit = false;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (is_digit(c)) {
      digit = true;
    } else if (starts_with(s.substr(0, r.end), k, kUnicodeMinus)) {
      k += 2;
    } else if (!(c == ',' || c == '.' || c == '-' || c == '+' || c == '/' || c == ' ' || c == '$')) {
      return false;
    }
  }
  return digit;
}

std::optional<Extraction> find_tagged(std::string_view s, std::size_t from, const Anchors& anchors,
                                      std::size_t& marker) {
  // <answer>X</answer>: the last closing tag and the last opening tag before it, searched for
  // from the end.
  const std::size_t base = std::min(from, s.size());
  std::optional<Extraction> tag;
  std::size_t close = anchors.close_tag ? rfind_str(s.substr(base), "</answer>") : kNpos;
  if (close != kNpos) {
    close += base;
    std::size_t open = rfind_str(s.substr(base, close - base), "<answer>");
    if (open != kNpos) {
      open += base;
      const Range r = trim(s, Range{open + 8, close});
      if (r.end > r.start) {
        Extraction e;
        e.method = Method::kTagged;
        e.start = r.start;
        e.end = r.end;
        tag = e;
        marker = open;
      }
    }
  }
  // #### X at the start of a line (after blanks), the last valid one.
  if (!anchors.hash) return tag;
  std::optional<Range> best;
  std::size_t best_at = 0;
  std::size_t line_start = 0;
  for (std::size_t k = next_marker_line(s, from, from, "####", line_start); k != kNpos;) {
    const std::size_t eol = line_end(s, k);
    Range r = trim(s, Range{k + 4, eol});
    while (r.end > r.start && s[r.end - 1] == '.') --r.end;
    r = trim(s, r);
    if (r.end > r.start && !gsm8k_value(s, r)) {
      // "#### 18 eggs": a number and words after a blank ("#### 1. Compute", "#### Step 2" are headings)
      const Phrase p = read_answer_phrase(s, r);
      std::size_t w = p.answer.end;
      while (w < r.end && is_blank(s[w])) ++w;
      r = !p.leading_prose && w > p.answer.end && w < r.end && is_letter(s[w]) ? p.answer : Range{};
    }
    if (r.end > r.start && gsm8k_value(s, r)) {
      best = r;
      best_at = k;
    }
    k = eol < s.size() ? next_marker_line(s, from, eol + 1, "####", line_start) : kNpos;
  }
  if (!best || (tag && marker > best_at)) return tag;
  Extraction e;
  e.method = Method::kTagged;
  e.start = best->start;
  e.end = best->end;
  marker = best_at;
  return e;
}

// "A: 18" on the last line that starts with "A:" (GSM8K's few-shot style).
std::optional<Extraction> find_a_line(std::string_view s, std::size_t from, const Anchors& anchors,
                                      std::size_t& marker) {
  if (!anchors.a_colon) return std::nullopt;
  std::size_t end = s.size();
  while (end > from) {
    std::size_t p = rfind_str(s.substr(from, end - from), "A:");
    if (p == kNpos) return std::nullopt;
    p += from;
    std::size_t b = p;
    while (b > from && is_blank(s[b - 1])) --b;
    // "A: 18", not "A:B:C = 2:3:4"
    if ((b == from || s[b - 1] == '\n') && p + 2 < s.size() && is_blank(s[p + 2])) {
      const Phrase ph = answer_value(s, p + 2, line_end(s, p + 2));
      if (ph.answer.end <= ph.answer.start) return std::nullopt;
      marker = p;
      return marked(Method::kAnswerIs, ph);
    }
    end = p + 1;
  }
  return std::nullopt;
}

// The CJK markers: "【答案】X<eoa>" (X to "<eoa>" or the line end), "答案是 X", "答案为 X",
// "答案：X", and a last clause "所以/因此 ... 为/是 X" that ends the text.
std::optional<Extraction> find_cjk(std::string_view s, std::size_t from, const Anchors& anchors,
                                   std::size_t& marker) {
  if (!anchors.non_ascii) return std::nullopt;
  const std::size_t n = s.size();
  std::optional<Extraction> out;
  const std::size_t a = from < n ? rfind_str(s.substr(from), detail::kCjkAnswer) : kNpos;
  if (a != kNpos) {
    const std::size_t p = from + a;
    std::size_t j = p + detail::kCjkAnswer.size();
    const bool tag = p >= from + 3 && s.compare(p - 3, 3, "\xE3\x80\x90") == 0 && starts_with(s, j, "\xE3\x80\x91");
    if (tag) {
      j += 3;
      const std::size_t eol = line_end(s, j);
      const std::size_t eoa = find_str(s.substr(0, eol), j, detail::kEndOfAnswerTag);
      Phrase ph = read_answer_phrase(s, Range{j, eoa == kNpos ? eol : eoa});
      ph.answer = strip_answer_delimiters(s, ph.answer);
      if (ph.answer.end > ph.answer.start) {
        out = marked(Method::kTagged, ph);
        marker = p - 3;
      }
    } else {
      while (j < n && is_blank(s[j])) ++j;
      bool copula = false;
      for (const std::string_view w : {detail::kCjkIs, detail::kCjkBe}) {
        if (starts_with(s, j, w)) {
          j += w.size();
          copula = true;
          break;
        }
      }
      while (j < n && is_blank(s[j])) ++j;
      if (starts_with(s, j, "\xEF\xBC\x9A")) {  // full-width colon
        j += 3;
        copula = true;
      } else if (j < n && s[j] == ':') {
        ++j;
        copula = true;
      }
      if (copula) {
        const Phrase ph = answer_value(s, j, line_end(s, j));
        if (ph.answer.end > ph.answer.start) {
          out = marked(Method::kAnswerIs, ph);
          marker = p;
        }
      }
    }
  }
  // 所以/因此 ... 为/是 X, the last clause of the text
  std::size_t conclusion = kNpos;
  for (const std::string_view w : detail::kCjkConclusions) {
    const std::size_t c = from < n ? rfind_str(s.substr(from), w) : kNpos;
    if (c != kNpos && (conclusion == kNpos || from + c > conclusion)) conclusion = from + c;
  }
  if (conclusion == kNpos || (out && marker > conclusion)) return out;
  const std::size_t eol = line_end(s, conclusion);
  // the copula: the last 为/是 of the clause's line
  std::size_t copula = kNpos;
  for (const std::string_view w : {detail::kCjkIs, detail::kCjkBe}) {
    const std::size_t c = rfind_str(s.substr(conclusion, eol - conclusion), w);
    if (c != kNpos && (copula == kNpos || conclusion + c > copula)) copula = conclusion + c;
  }
  if (copula == kNpos) return out;
  Phrase ph = answer_value(s, copula + 3, eol);
  if (ph.answer.end <= ph.answer.start) return out;
  // only what ends the text: punctuation and blanks may follow the answer
  for (std::size_t k = std::max(ph.answer.end, ph.unit.end); k < n;) {
    if (is_space(s[k]) || s[k] == '.' || s[k] == '$') {
      ++k;
    } else if (starts_with(s, k, "\xE3\x80\x82")) {  // 。
      k += 3;
    } else {
      return out;
    }
  }
  marker = conclusion;
  return marked(Method::kAnswerIs, ph);
}

// The answer of the marker nearest the end of s[from, n) among the marker rules (answer_is,
// tagged, the "A:" line, the CJK markers), each with its last marker; `which` keeps only the
// rules of one method (kAuto: all). The answers of the other rules that differ from it in text
// are its rivals.
std::optional<Extraction> find_marked(std::string_view s, std::size_t from, const Anchors& anchors, Method which) {
  std::optional<Extraction> found[4];
  std::size_t at[4] = {0, 0, 0, 0};
  const bool all = which == Method::kAuto;
  if (all || which == Method::kAnswerIs) found[0] = find_answer_is(s, from, anchors, at[0]);
  if (all || which == Method::kTagged) found[1] = find_tagged(s, from, anchors, at[1]);
  if (all || which == Method::kAnswerIs) found[2] = find_a_line(s, from, anchors, at[2]);
  found[3] = find_cjk(s, from, anchors, at[3]);
  if (found[3] && !all && found[3]->method != which) found[3].reset();
  int best = -1;
  for (int k = 0; k < 4; ++k) {
    if (found[k] && (best < 0 || at[k] > at[best])) best = k;
  }
  if (best < 0) return std::nullopt;
  Extraction e = std::move(*found[best]);
  const std::string_view text = s.substr(e.start, e.end - e.start);
  for (int k = 0; k < 4; ++k) {
    if (k == best || !found[k]) continue;
    if (s.substr(found[k]->start, found[k]->end - found[k]->start) != text) {
      e.rivals.push_back(Range{found[k]->start, found[k]->end});
    }
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// code_output

std::optional<Extraction> find_code_output(std::string_view s, std::size_t from, const Anchors& anchors) {
  if (!anchors.fence) return std::nullopt;
  const std::size_t n = s.size();
  bool in_block = false;
  bool block_is_output = false;
  bool seen_code = false;
  std::size_t content_start = 0;
  std::optional<Range> best;
  std::size_t i = 0;  // start of the fence line
  for (std::size_t k = next_marker_line(s, from, from, "```", i); k != kNpos;) {
    const std::size_t eol = line_end(s, k);
    {
      const Range info = trim(s, Range{k + 3, eol});
      if (!in_block) {
        std::size_t w = info.start;
        while (w < info.end && !is_space(s[w])) ++w;
        const std::string_view lang = s.substr(info.start, w - info.start);
        auto ieq = [&](std::string_view word) {
          return lang.size() == word.size() && istarts_with(lang, 0, word);
        };
        block_is_output = ieq("output") || ieq("text");
        in_block = true;
        content_start = eol < n ? eol + 1 : n;
      } else if (info.end == info.start) {
        if (block_is_output && seen_code) {
          const Range r = trim(s, Range{content_start, i});
          if (r.end > r.start) best = r;
        }
        if (!block_is_output) seen_code = true;
        in_block = false;
      }
    }
    k = eol < n ? next_marker_line(s, from, eol + 1, "```", i) : kNpos;
  }
  if (!best) return std::nullopt;
  Extraction e;
  e.method = Method::kCodeOutput;
  e.start = best->start;
  e.end = best->end;
  return e;
}

// ---------------------------------------------------------------------------------------------
// choice

bool is_choice_letter(char c) noexcept { return c >= 'A' && c <= 'J'; }

// End of the run of ASCII letters starting at `i`, at most `end`.
std::size_t letters_end_in(std::string_view s, std::size_t i, std::size_t end) noexcept {
  return detail::letters_end(s.substr(0, end), i);
}

// True when one of the words that announce a multiple-choice letter ("answer", "option",
// "choice", any case) ends at `end`, as a whole word.
bool choice_word_ends_at(std::string_view s, std::size_t from, std::size_t end) noexcept {
  for (const std::string_view w : {std::string_view("answer"), std::string_view("option"), std::string_view("choice")}) {
    if (end < from + w.size()) continue;
    const std::size_t b = end - w.size();
    if (istarts_with(s, b, w) && (b == from || !is_letter(s[b - 1]))) return true;
  }
  return false;
}

// A letter A-J that closes the text, announced by "answer"/"option"/"choice" ("Answer B",
// "correct answer A", "(ANSWER E)", "the correct option is C", "answer D.") or alone on the
// last line ("C", "(B)"). Decoration around the letter: "(", ")", ":", "**", "is", a period.
std::optional<Extraction> find_choice(std::string_view s, std::size_t from) {
  std::size_t e = s.size();
  while (e > from && (is_space(s[e - 1]) || s[e - 1] == '.' || s[e - 1] == ')' || s[e - 1] == ']' || s[e - 1] == '*')) {
    --e;
  }
  if (e == from || !is_choice_letter(s[e - 1])) return std::nullopt;
  const std::size_t letter = e - 1;
  if (letter > from && (is_letter(s[letter - 1]) || is_digit(s[letter - 1]) || s[letter - 1] == '\\')) {
    return std::nullopt;
  }
  std::size_t b = letter;
  auto skip_decoration = [&] {
    while (b > from && (is_blank(s[b - 1]) || s[b - 1] == '(' || s[b - 1] == '[' || s[b - 1] == ':' || s[b - 1] == '*')) {
      --b;
    }
  };
  skip_decoration();
  if (b >= from + 2 && istarts_with(s, b - 2, "is") && (b - 2 == from || !is_letter(s[b - 3]))) {
    b -= 2;
    skip_decoration();
  }
  const bool lone = b == from || s[b - 1] == '\n';
  if (!lone && !choice_word_ends_at(s, from, b)) return std::nullopt;
  Extraction e_out;
  e_out.method = Method::kChoice;
  e_out.start = letter;
  e_out.end = letter + 1;
  return e_out;
}

// ---------------------------------------------------------------------------------------------
// bare

constexpr std::size_t kMaxBare = 200;      // bytes of a response that may be read whole as math
constexpr std::size_t kMaxBareText = 40;   // ... and as a short text answer ("Yes", "no solution")
constexpr std::size_t kMaxBareWords = 4;

std::size_t word_count(std::string_view s) noexcept {
  std::size_t words = 0;
  bool in_word = false;
  for (const char c : s) {
    const bool space = is_space(c);
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

// True when `s` holds, among two or more whitespace-separated tokens, a word of two or more
// letters that is not a function name of detail/functions.hpp or a constant: "so it is 4",
// "x = 1 or 2"; not "pi/2", "2 x + 1", "sin x", "no solution" (words only: a text answer).
bool has_prose_word(std::string_view s) noexcept {
  bool several = false, word = false, only_words = true;
  std::size_t k = 0;
  const std::size_t n = s.size();
  while (k < n) {
    while (k < n && is_space(s[k])) ++k;
    if (k == n) break;
    const std::size_t start = k;
    while (k < n && !is_space(s[k])) ++k;
    if (start > 0) several = true;
    const std::string_view token = s.substr(start, k - start);
    const bool letters = letters_end_in(token, 0, token.size()) == token.size();
    only_words = only_words && letters;
    if (letters && token.size() >= 2 && token != "pi" && token != "oo" && token != "inf" &&
        rapidgrade::detail::find_function_word(token) == nullptr) {
      word = true;
    }
  }
  return several && word && !only_words;
}

// The whole response (after </think>) is one answer, on one line: math ("pi/2", "-2*pi",
// "14.0 + -1.0i", "$\frac{1}{\sqrt{n}}$", "1 1/4", "(1, 2)", "$45^\circ$"), or a short text
// answer without digits ("Yes", "no solution"). Prose with a number ("I think 5") is not bare.
std::optional<Extraction> find_bare(std::string_view s, std::size_t from) {
  const Range r = trim(s, Range{from, s.size()});
  if (r.end == r.start || r.end - r.start > kMaxBare) return std::nullopt;
  const std::string_view whole = s.substr(r.start, r.end - r.start);
  if (whole.find('\n') != std::string_view::npos) return std::nullopt;
  const std::string_view inner = detail::unwrap(whole, detail::Wrappers::kMath, 1);
  if (inner.empty()) return std::nullopt;
  // prose around math ("so $k = 2$.", "$a$ or $b$") is not one bare answer, nor is a display
  // environment (final_span reads it)
  if (inner.find('$') != std::string_view::npos || inner.find("\\(") != std::string_view::npos ||
      inner.find("\\[") != std::string_view::npos || inner.find("\\begin{") != std::string_view::npos) {
    return std::nullopt;
  }
  if (has_prose_word(inner)) return std::nullopt;
  if (expr::is_plain_text(inner)) {
    if (inner.size() > kMaxBareText || word_count(inner) > kMaxBareWords) return std::nullopt;
    for (const char c : inner) {
      if (is_digit(c) || c == '$') return std::nullopt;
    }
  }
  const Range a = range_of(s, inner);
  Extraction e;
  e.method = Method::kBare;
  e.start = a.start;
  e.end = a.end;
  return e;
}

// ---------------------------------------------------------------------------------------------
// final_span

// The display environments read as math spans (with or without '*').
constexpr std::string_view kMathEnvironments[] = {"equation", "align", "gather", "multline", "displaymath",
                                                  "eqnarray", "math"};

bool is_math_environment(std::string_view name) noexcept {
  if (!name.empty() && name.back() == '*') name.remove_suffix(1);
  for (const std::string_view env : kMathEnvironments) {
    if (env == name) return true;
  }
  return false;
}

// Spans math_spans reserves room for at the first one: a worked solution has tens of them.
constexpr std::size_t kReservedBoxes = 32;

// Every math span of s[from, n) in order: scan::find_math_spans's $..$, $$..$$, \(..\), \[..\],
// and \begin{equation}..\end{equation} and the other kMathEnvironments; a span inside an
// environment is part of it. O(n).
std::vector<Box> math_spans(std::string_view s, std::size_t from, const Anchors& anchors) {
  std::vector<Box> envs;
  std::size_t at = find_str(s, std::max(from, anchors.begin_from), "\\begin{");  // kNpos: none
  while (at != kNpos) {
    const std::size_t name_start = at + 7;
    const std::size_t close = find_byte(s, name_start, '}');
    if (close >= s.size()) break;
    const std::string_view name = s.substr(name_start, close - name_start);
    std::size_t next = close + 1;
    if (is_math_environment(name)) {
      std::string end_tag = "\\end{";
      end_tag.append(name);
      end_tag += '}';
      const std::size_t end = find_str(s, close + 1, end_tag);
      if (end == kNpos) break;
      envs.push_back(Box{at, close + 1, end, end + end_tag.size()});
      next = end + end_tag.size();
    }
    at = find_str(s, next, "\\begin{");
  }
  std::vector<Box> out;
  std::size_t e = 0;
  // each span as the scanner finds it, merged with the environments (no list of its own)
  scan::for_each_math_span(s.substr(from), [&](std::size_t outer_start, std::size_t start, std::size_t end,
                                               std::size_t outer_end, scan::SpanKind) {
    const Box b{from + outer_start, from + start, from + end, from + outer_end};
    while (e < envs.size() && envs[e].outer_end <= b.outer_start) out.push_back(envs[e++]);
    if (e < envs.size() && envs[e].outer_start < b.outer_end) return;  // inside (or across) an environment
    if (out.empty()) out.reserve(kReservedBoxes);
    out.push_back(b);
  });
  while (e < envs.size()) out.push_back(envs[e++]);
  return out;
}

// The last byte of the command whose backslash is at k (the loop's ++k then goes on after it):
// the end of a command name ("\quad5" -> the 'd'), or the one byte of a control symbol ("\\x"
// is a line break, then x).
std::size_t skip_command(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const std::size_t e = letters_end_in(s, k + 1, end);
  return e > k + 1 ? e - 1 : k + 1;
}

// True when s[r) holds a digit or a letter outside command names: "x", "- 1", "\frac{1}{2}";
// "\therefore", "\quad" and "," hold none.
bool has_content(std::string_view s, Range r) noexcept {
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '\\') {
      k = skip_command(s, k, r.end);
      continue;
    }
    if (is_digit(c) || is_letter(c)) return true;
  }
  return false;
}

// The content of a span without what is not part of the answer: \tag{..}, \label{..},
// \nonumber, \notag, and trailing '.', ',', ';', "\\", \quad, \qquad and whitespace.
Range span_content(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  for (const std::string_view cmd : {std::string_view("\\tag"), std::string_view("\\label")}) {
    const std::size_t at = find_str(s.substr(0, r.end), r.start, cmd);
    if (at != kNpos) r.end = at;  // \tag and \label end a line of an equation
  }
  bool changed = true;
  while (changed && r.end > r.start) {
    changed = false;
    r = trim(s, r);
    for (const std::string_view tail : {std::string_view("\\nonumber"), std::string_view("\\notag"),
                                        std::string_view("\\qquad"), std::string_view("\\quad"),
                                        std::string_view("\\\\"), std::string_view("."), std::string_view(","),
                                        std::string_view(";")}) {
      // the last byte first: most spans end in none of them
      if (r.end - r.start >= tail.size() && s[r.end - 1] == tail.back() &&
          s.compare(r.end - tail.size(), tail.size(), tail) == 0) {
        r.end -= tail.size();
        changed = true;
        break;
      }
    }
  }
  return r;
}

// A relation operator at s[k] (outside braces): its length and whether it is an equality
// ('=', \approx, U+2248); 0 when there is none. '<=', '>=', '!=', "\le", "\leq", "\ge", "\geq",
// "\neq", "\ne", "\lt", "\gt", "\leqslant", "\geqslant" and U+2264/2265/2260 are inequalities.
struct RelationAt {
  std::size_t length = 0;
  bool equality = false;
};

RelationAt relation_at(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const char c = s[k];
  if (c == '=') {
    if (k + 1 < end && s[k + 1] == '=') return {2, true};
    return {1, true};
  }
  if (c == '<' || c == '>' || c == '!') {
    if (k + 1 < end && s[k + 1] == '=') return {2, false};
    if (c == '!') return {};
    return {1, false};
  }
  if (c == '\\') {
    const std::size_t e = letters_end_in(s, k + 1, end);
    const std::string_view name = s.substr(k + 1, e - k - 1);
    if (name == "approx") return {e - k, true};
    if (name == "le" || name == "leq" || name == "ge" || name == "geq" || name == "neq" || name == "ne" ||
        name == "lt" || name == "gt" || name == "leqslant" || name == "geqslant") {
      return {e - k, false};
    }
    return {};
  }
  if (c == '\xE2' && k + 2 < end && s[k + 1] == '\x89') {
    const char d = s[k + 2];
    if (d == '\x88') return {3, true};                             // U+2248 almost equal
    if (d == '\xA4' || d == '\xA5' || d == '\xA0') return {3, false};  // U+2264, U+2265, U+2260
  }
  return {};
}

// True when s[r) holds a letter outside command names (a symbol): "x", "f(2)"; not "1 - 2",
// "\frac{3}{4}".
bool has_symbol(std::string_view s, Range r) noexcept {
  for (std::size_t k = r.start; k < r.end; ++k) {
    if (s[k] == '\\') {
      k = skip_command(s, k, r.end);
      continue;
    }
    if (is_letter(s[k])) return true;
  }
  return false;
}

// Commands and words that introduce what a statement concludes: "$\therefore$ $x = 2$",
// "... so $m = -3$", "the value is $8$", "solving gives: $a = -2$". One table for the commands
// (span_answer reads a span from the last of them) and one for the words.
constexpr std::string_view kConclusionCommands[] = {"therefore", "Rightarrow", "Longrightarrow", "implies"};
constexpr std::string_view kConclusionWords[] = {
    "is",   "are",   "was",   "be",       "equals",  "becomes", "get",  "gets",  "got",   "obtain",
    "obtains", "obtained", "gives", "give", "yields", "yield", "so", "thus", "therefore", "hence", "then"};

bool is_conclusion_command(std::string_view name) noexcept {
  for (const std::string_view c : kConclusionCommands)
    if (name == c) return true;
  return false;
}

// True when s[from, to), the text before a math span, ends with a conclusion word or command
// (blanks, ':' and ',' may follow it): "we get: ", "so ", "\therefore ". O(to - from).
bool introduced_as_conclusion(std::string_view s, std::size_t from, std::size_t to) noexcept {
  std::size_t k = to;
  while (k > from && (is_space(s[k - 1]) || s[k - 1] == ':' || s[k - 1] == ',')) --k;
  std::size_t b = k;
  while (b > from && is_letter(s[b - 1])) --b;
  if (b == k) return false;
  const std::string_view word = s.substr(b, k - b);
  if (b > from && s[b - 1] == '\\') return is_conclusion_command(word);
  if (b > from && is_letter(s[b - 1])) return false;
  if (word.size() > 9) return false;
  char lower[10];
  for (std::size_t i = 0; i < word.size(); ++i) lower[i] = static_cast<char>(word[i] | 0x20);
  const std::string_view w(lower, word.size());
  for (const std::string_view c : kConclusionWords)
    if (w == c) return true;
  return false;
}

// A span that holds only a conclusion command: "$\therefore$ when $x = -1$, ...".
bool conclusion_command_span(std::string_view s, Range content) noexcept {
  const Range r = trim(s, content);
  if (r.end - r.start < 2 || s[r.start] != '\\') return false;
  const std::size_t e = letters_end_in(s, r.start + 1, r.end);
  return e == r.end && is_conclusion_command(s.substr(r.start + 1, e - r.start - 1));
}

// The answer a math span states: "a = b = c" -> "c"; "1 - 2 = - 1" -> "- 1" (an arithmetic
// left side is a computation); "x = 5", "f(x) = x + 2", "x < - 2", "1 < x < 3" stay whole (the
// relation is the answer; equivalence knows that "x = 5" matches 5). After the last top-level
// \Rightarrow, \implies or \therefore only. A span listing several parts (a top-level ',' or ';'
// that is not a thousands separator, "\text{ or }", \quad) is kept whole. O(length).
Range span_answer(std::string_view s, Range r) {
  r = span_content(s, r);
  struct Op {
    std::size_t at, length;
    bool equality;
  };
  std::vector<Op> ops;
  bool parts = false;
  int depth = 0;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
      continue;
    }
    if (c == '}' || c == ')' || c == ']') {
      if (depth > 0) --depth;
      continue;
    }
    if (c == '\\') {
      const std::size_t e = letters_end_in(s, k + 1, r.end);
      if (e == k + 1) {  // a control symbol: "\{" and "\}" are braces, "\," and "\\" are not
        if (k + 1 < r.end && s[k + 1] == '{') ++depth;
        if (k + 1 < r.end && s[k + 1] == '}' && depth > 0) --depth;
        ++k;
        continue;
      }
      const std::string_view name = s.substr(k + 1, e - k - 1);
      if (depth == 0) {
        if (is_conclusion_command(name)) {
          ops.clear();
          parts = false;
          r.start = e;
        } else if (name == "quad" || name == "qquad") {
          parts = true;
        } else if ((name == "text" || name == "mbox" || name == "textrm") && e < r.end && s[e] == '{') {
          const std::size_t close = find_byte(s.substr(0, std::min(r.end, e + 16)), e, '}');
          if (close < r.end) {
            const std::string_view word = detail::trim(s.substr(e + 1, close - e - 1));
            if (word == "or" || word == "and") parts = true;
          }
        } else {
          const RelationAt rel = relation_at(s, k, r.end);
          if (rel.length > 0) ops.push_back(Op{k, rel.length, rel.equality});
        }
      }
      k = e - 1;
      continue;
    }
    if (depth != 0) continue;
    if (c == ',' || c == ';') {
      const bool thousands = c == ',' && k > r.start && is_digit(s[k - 1]) && k + 3 < r.end + 1 &&
                             digits_end(s.substr(0, r.end), k + 1) == k + 4;
      if (!thousands) parts = true;
      continue;
    }
    const RelationAt rel = relation_at(s, k, r.end);
    if (rel.length > 0) {
      ops.push_back(Op{k, rel.length, rel.equality});
      k += rel.length - 1;
    }
  }
  r = trim(s, r);
  if (parts || ops.empty()) return r;
  bool all_equalities = true;
  for (const Op& op : ops) all_equalities = all_equalities && op.equality;
  if (!all_equalities) return r;
  const Op& last = ops.back();
  const Range rhs = trim(s, Range{last.at + last.length, r.end});
  if (rhs.end == rhs.start) return r;
  if (ops.size() >= 2) return rhs;
  const Range lhs = trim(s, Range{r.start, last.at});
  if (!has_symbol(s, lhs)) return rhs;
  return r;
}

// Text after the final math span that may still hold the answer: a digit outside "<...>" tags
// ("<img_3939>"), references in parentheses ("(see Figure 2)", "(3)") and words ("2nd" counts).
bool digit_after(std::string_view s, std::size_t from) noexcept {
  const std::size_t n = s.size();
  for (std::size_t k = from; k < n; ++k) {
    const char c = s[k];
    if (c == '<') {
      std::size_t m = k + 1;
      while (m < n && m - k < 80 && s[m] != '>' && s[m] != '\n' && s[m] != ' ') ++m;
      if (m < n && s[m] == '>') {
        k = m;
        continue;
      }
    } else if (c == '(') {
      std::size_t m = k + 1;
      while (m < n && m - k < 80 && s[m] != ')' && s[m] != '\n') ++m;
      if (m < n && s[m] == ')') {
        const std::string_view inside = detail::trim(s.substr(k + 1, m - k - 1));
        bool reference = !inside.empty();
        for (const char d : inside) reference = reference && (is_digit(d) || d == '.');
        for (const std::string_view w : {std::string_view("see"), std::string_view("cf"), std::string_view("fig"),
                                         std::string_view("table"), std::string_view("eq"), std::string_view("step")}) {
          reference = reference || istarts_with(inside, 0, w);
        }
        if (reference) {
          k = m;
          continue;
        }
      }
    } else if (is_digit(c)) {
      return true;
    }
  }
  return false;
}

// The gap between two parts of one answer: only ',', ';', "and", "or", blanks
// ("$(-6,6)$ and $(2,6)$", "$x=-1$ or $x=2$", "$90^{\circ}$, $60^{\circ}$").
bool joins_parts(std::string_view s, std::size_t from, std::size_t to) noexcept {
  if (to - from > 16) return false;
  std::size_t k = from;
  bool connector = false;
  while (k < to) {
    const char c = s[k];
    if (is_space(c)) {
      ++k;
    } else if (c == ',' || c == ';') {
      connector = true;
      ++k;
    } else if (is_letter(c)) {
      const std::size_t e = letters_end_in(s, k, to);
      const std::string_view w = s.substr(k, e - k);
      if (w != "and" && w != "or") return false;
      connector = true;
      k = e;
    } else {
      return false;
    }
  }
  return connector;
}

// True when s[from, to) ends a sentence: '.', '!' or '?' before whitespace or the end, or a
// line break.
bool sentence_break(std::string_view s, std::size_t from, std::size_t to) noexcept {
  for (std::size_t k = from; k < to; ++k) {
    const char c = s[k];
    if (c == '\n') return true;
    if ((c == '.' || c == '!' || c == '?') && (k + 1 == to || is_space(s[k + 1]))) return true;
  }
  return false;
}

std::optional<Extraction> find_last_number(std::string_view s, std::size_t from);

// A variable name alone: letters (one command such as \alpha, or up to two letters) with an
// optional subscript "_1" / "_{12}": "m", "x _ 1", "\alpha".
bool is_lone_symbol(std::string_view s, Range r) noexcept {
  std::size_t k = r.start;
  if (k < r.end && s[k] == '\\') ++k;
  const std::size_t e = letters_end_in(s, k, r.end);
  if (e == k || (s[r.start] != '\\' && e - k > 2)) return false;
  k = e;
  while (k < r.end && is_blank(s[k])) ++k;
  if (k < r.end && s[k] == '_') {
    ++k;
    while (k < r.end && (is_blank(s[k]) || is_digit(s[k]) || is_letter(s[k]) || s[k] == '{' || s[k] == '}')) ++k;
  }
  return k == r.end;
}

// The left side of the relation that s[r) states ("x = 5" -> "x", "a + 2 \ge 0" -> "a + 2"),
// trimmed: the text before its first top-level relation operator (relation_at); an empty range
// when it holds none (a value).
Range relation_lhs(std::string_view s, Range r) noexcept {
  int depth = 0;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (depth == 0 && relation_at(s, k, r.end).length > 0) {
      return trim(s, Range{r.start, k});
    } else if (c == '\\') {
      k = skip_command(s, k, r.end);
    }
  }
  return Range{r.start, r.start};
}

// The last of `spans` (math_spans of s from `from`) of the final statement, when no number
// follows it in prose: read by span_answer; several spans joined by "and"/"or"/"," are one
// answer with several parts. Sets readings.first_span (the first span of the answer), from
// which other_readings() reads the other spans of the final sentence.
std::optional<Extraction> find_final_span(std::string_view s, const std::vector<Box>& spans) {
  std::size_t last = spans.size();
  while (last > 0 && !has_content(s, Range{spans[last - 1].start, spans[last - 1].end})) --last;
  if (last == 0) return std::nullopt;
  // "... gives $m = 2$ after solving for $m$": a span that only names a variable of an earlier
  // span of its sentence is not the answer
  if (last >= 2) {
    std::size_t prev = last - 1;
    while (prev > 0 && !has_content(s, Range{spans[prev - 1].start, spans[prev - 1].end})) --prev;
    if (prev > 0) {
      const Range name = span_content(s, Range{spans[last - 1].start, spans[last - 1].end});
      if (is_lone_symbol(s, name) && !sentence_break(s, spans[prev - 1].outer_end, spans[last - 1].outer_start)) {
        const Range before = span_content(s, Range{spans[prev - 1].start, spans[prev - 1].end});
        if (starts_with(s.substr(0, before.end), before.start, s.substr(name.start, name.end - name.start))) last = prev;
      }
    }
  }
  const Box& final_box = spans[last - 1];
  if (digit_after(s, final_box.outer_end)) return std::nullopt;
  std::size_t first = last - 1;
  const Range final_answer = span_answer(s, Range{final_box.start, final_box.end});
  std::optional<Range> final_lhs;  // read when a span before it joins it
  while (first > 0 && has_content(s, Range{spans[first - 1].start, spans[first - 1].end}) &&
         joins_parts(s, spans[first - 1].outer_end, spans[first].outer_start)) {
    if (!final_lhs) final_lhs = relation_lhs(s, final_answer);
    // parts of one answer have one shape: values ("$(-6,6)$ and $(2,6)$"), or relations of one
    // left side ("$x=-1$ or $x=2$"); "$3x = 12$ and $x = 4$" states two things, the last counts
    const Range part = span_answer(s, Range{spans[first - 1].start, spans[first - 1].end});
    const Range lhs = relation_lhs(s, part);
    if ((lhs.end == lhs.start) != (final_lhs->end == final_lhs->start)) break;
    if (lhs.end != lhs.start && s.substr(lhs.start, lhs.end - lhs.start) !=
                                    s.substr(final_lhs->start, final_lhs->end - final_lhs->start)) {
      break;
    }
    --first;
  }
  Extraction e;
  e.method = Method::kFinalSpan;
  if (first + 1 == last) {
    e.start = final_answer.start;
    e.end = final_answer.end;
  } else {
    for (std::size_t k = first; k < last; ++k) e.parts.push_back(span_answer(s, Range{spans[k].start, spans[k].end}));
    e.start = e.parts.front().start;
    e.end = e.parts.back().end;
  }
  if (e.end <= e.start) return std::nullopt;
  e.readings.first_span = first;
  return e;
}

// ---------------------------------------------------------------------------------------------
// last_number

bool sign_context(char c) noexcept {
  return is_space(c) || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' ||
         c == ';' || c == '$';
}

// Commands after which a '-' is a sign: operators and relations ("\times - 2", "\le -3").
bool operator_command(std::string_view name) noexcept {
  for (const std::string_view op : {"times", "cdot", "div", "pm", "mp", "le", "leq", "ge", "geq", "neq", "ne",
                                    "approx", "to", "quad", "qquad", "Rightarrow", "implies", "therefore",
                                    "because", "left", "lt", "gt"}) {
    if (op == name) return true;
  }
  return false;
}

// True when a '-' at p, written apart from its number ("= - 2", "is - 5"), is a sign: what
// precedes it (blanks skipped) is the region start, a line break, one of ( [ { = , : ; $, a
// word of two or more letters, or an operator command. "3 - 5", "x - 5", "\pi - 5" stay
// subtractions.
bool spaced_sign(std::string_view s, std::size_t from, std::size_t p) noexcept {
  std::size_t q = p;
  while (q > from && is_blank(s[q - 1])) --q;
  if (q == from) return true;
  const char c = s[q - 1];
  if (c == '\n' || c == '\r' || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' || c == ';' ||
      c == '$') {
    return true;
  }
  if (!is_letter(c)) return false;
  std::size_t w = q;
  while (w > from && is_letter(s[w - 1])) --w;
  if (w > from && s[w - 1] == '\\') return operator_command(s.substr(w, q - w));
  return q - w >= 2;
}

// Start of the number at i including a '-' or U+2212 sign before it: right before it when that
// sign follows the region start, whitespace or one of ( [ { = , : ; $ (so "3-5" is 3 and 5,
// while "x = -5" is -5), or apart from it by blanks when spaced_sign says so ("= - 2" is -2).
std::size_t with_sign(std::string_view s, std::size_t from, std::size_t i) noexcept {
  std::size_t q = i;
  while (q > from && is_blank(s[q - 1])) --q;
  const bool apart = q != i;
  std::size_t p = i;
  if (q >= from + 1 && s[q - 1] == '-') {
    p = q - 1;
  } else if (q >= from + 3 && s.compare(q - 3, 3, kUnicodeMinus) == 0) {
    p = q - 3;
  } else {
    return i;
  }
  if (apart) return spaced_sign(s, from, p) ? p : i;
  if (p == from || sign_context(s[p - 1])) return p;
  return i;
}

// End of the number starting at i (a digit, or '.' followed by a digit).
// Grammar: 1,234,567 (groups of exactly three digits after a first run of one to three),
// decimals 3.25 and .5, exponents 1.5e-3, integer fractions 3/4.
std::size_t number_end(std::string_view s, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t k = i;
  bool plain = true;
  if (s[k] == '.') {
    k = digits_end(s, k + 1);
    plain = false;
  } else {
    k = digits_end(s, k);
    const std::size_t groups_end =
        rapidgrade::detail::thousands_end(s, i, k, rapidgrade::detail::GroupSeparators::kComma);
    if (groups_end != k) plain = false;
    k = groups_end;
    if (k + 1 < n && s[k] == '.' && is_digit(s[k + 1])) {
      k = digits_end(s, k + 1);
      plain = false;
    }
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    std::size_t m = k + 1;
    if (m < n && (s[m] == '+' || s[m] == '-')) ++m;
    if (m < n && is_digit(s[m])) {
      k = digits_end(s, m);
      plain = false;
    }
  }
  if (plain && k + 1 < n && s[k] == '/' && is_digit(s[k + 1])) k = digits_end(s, k + 1);
  return k;
}

// "{3}{4}" or "{-3}{4}" right after \frac, or two single digits "12" (\dfrac12 is 1/2): the
// end of the arguments, or kNpos.
std::size_t numeric_frac_end(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  if (j + 1 < n && is_digit(s[j]) && is_digit(s[j + 1])) return j + 2;
  if (j >= n || s[j] != '{') return kNpos;
  std::size_t k = j + 1;
  if (k < n && s[k] == '-') ++k;
  std::size_t d = digits_end(s, k);
  if (d == k || d + 1 >= n || s[d] != '}' || s[d + 1] != '{') return kNpos;
  k = d + 2;
  d = digits_end(s, k);
  if (d == k || d >= n || s[d] != '}') return kNpos;
  return d + 1;
}

// The last number that the forward scan of s from `from` reads among the tokens starting in
// [begin, stop), where begin is `from` or a token boundary (see token_boundary_before) and stop
// is s.size() or such a boundary: the scan reads commands, escapes, \frac{3}{4} and numbers as
// tokens, and a number never runs past such a boundary.
std::optional<Range> last_number_in(std::string_view s, std::size_t from, std::size_t begin, std::size_t stop) {
  const std::size_t n = s.size();
  std::optional<Range> best;
  std::size_t i = begin;
  while (i < stop) {
    i = find_digit_or(s, i, stop, '.', '\\');
    if (i >= stop) break;
    const char c = s[i];
    if (c == '\\') {
      if (i + 1 < n && is_letter(s[i + 1])) {
        std::size_t j = i + 1;
        while (j < n && is_letter(s[j])) ++j;
        const std::string_view name = s.substr(i + 1, j - i - 1);
        if (detail::is_fraction_command(name)) {
          const std::size_t end = numeric_frac_end(s, j);
          if (end != kNpos) {
            best = Range{with_sign(s, from, i), end};
            i = end;
            continue;
          }
        }
        i = j;
      } else {
        i += 2;
      }
      continue;
    }
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]) && (i == from || !is_digit(s[i - 1])))) {
      const std::size_t end = number_end(s, i);
      best = Range{with_sign(s, from, i), end};
      i = end;
      continue;
    }
    ++i;
  }
  return best;
}

// A position in [from, at] where the forward scan of last_number_in from `from` is inside no
// number: a whitespace byte, or `from`. No number holds whitespace (numbers are digits and
// , . / e, \frac's arguments digits and braces), and whitespace starts no token, so a scan
// started there reads the same numbers after it as the scan from `from`. (An escape "\ " is the
// one token holding whitespace; both scans go on right after it.)
std::size_t token_boundary_before(std::string_view s, std::size_t from, std::size_t at) noexcept {
  for (std::size_t b = at; b > from; --b) {
    if (is_space(s[b])) return b;
  }
  return from;
}

// Bytes of text scanned at a time by find_last_number, from the end backwards.
constexpr std::size_t kLastNumberChunk = 64;

// The last number of s from `from`, as a forward scan of the whole region reads it, found from
// the end: the region is cut at token boundaries into chunks of about kLastNumberChunk bytes,
// and the chunks are scanned from the last until one holds a number. A number near the end is
// found without reading the text before it; a byte is read at most twice (by the search for a
// cut, then by the scan of its chunk), so a text with no number costs O(n).
std::optional<Extraction> find_last_number(std::string_view s, std::size_t from) {
  std::size_t stop = s.size();
  while (stop > from) {
    const std::size_t begin =
        stop - from > kLastNumberChunk ? token_boundary_before(s, from, stop - kLastNumberChunk) : from;
    if (const std::optional<Range> best = last_number_in(s, from, begin, stop)) {
      Extraction e;
      e.method = Method::kLastNumber;
      e.start = best->start;
      e.end = best->end;
      return e;
    }
    stop = begin;
  }
  return std::nullopt;
}

// Spaced bold digits, a competition write-up convention: "**6 2 4 8**", "\mathbf{1 7}" and
// "\textbf{1 7}" are one number. When the last number [e.start, e.end) is a digit run inside
// such a group of digit runs apart by single spaces, closed by the bold markup on both sides,
// the answer becomes the whole group (normalization then reads "6 2 4 8" as 6248).
void widen_bold_digits(std::string_view s, std::size_t from, Extraction& e) noexcept {
  const std::size_t n = s.size();
  for (std::size_t k = e.start; k < e.end; ++k) {
    if (!is_digit(s[k])) return;
  }
  std::size_t lo = e.start, hi = e.end;
  while (lo >= from + 2 && s[lo - 1] == ' ' && is_digit(s[lo - 2])) {
    lo -= 2;
    while (lo > from && is_digit(s[lo - 1])) --lo;
  }
  while (hi + 1 < n && s[hi] == ' ' && is_digit(s[hi + 1])) hi = digits_end(s, hi + 1);
  if (lo == e.start && hi == e.end) return;
  const std::string_view before = s.substr(from, lo - from);
  bool closed = false;
  if (ends_with(before, "**")) {
    closed = starts_with(s, hi, "**");
  } else if (ends_with(before, "{")) {
    const std::string_view head = before.substr(0, before.size() - 1);
    closed = (ends_with(head, "\\mathbf") || ends_with(head, "\\textbf") || ends_with(head, "\\boldsymbol") ||
              ends_with(head, "\\bm")) &&
             hi < n && s[hi] == '}';
  }
  if (!closed) return;
  e.start = lo;
  e.end = hi;
}

}  // namespace

const char* method_name(Method method) noexcept {
  switch (method) {
    case Method::kAuto: return "auto";
    case Method::kBoxed: return "boxed";
    case Method::kBoxedMulti: return "boxed_multi";
    case Method::kAnswerIs: return "answer_is";
    case Method::kTagged: return "tagged";
    case Method::kCodeOutput: return "code_output";
    case Method::kChoice: return "choice";
    case Method::kBare: return "bare";
    case Method::kFinalSpan: return "final_span";
    case Method::kLastNumber: return "last_number";
  }
  return "?";
}

bool parse_strategy(std::string_view name, Method& out) noexcept {
  static constexpr Method kStrategies[] = {Method::kAuto,       Method::kBoxed,  Method::kAnswerIs,
                                           Method::kTagged,     Method::kCodeOutput, Method::kChoice,
                                           Method::kBare,       Method::kFinalSpan, Method::kLastNumber};
  for (Method m : kStrategies) {
    if (name == method_name(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

std::size_t search_start(std::string_view text) noexcept {
  const std::size_t last = detail::rfind_str(text, "</think>");  // backward: a late </think> ends the scan early
  return last == kNpos ? 0 : last + 8;
}

std::optional<Extraction> extract_answer(std::string_view text, Method strategy) {
  const std::size_t from = search_start(text);
  switch (strategy) {
    case Method::kBoxed:
    case Method::kBoxedMulti: return find_boxed_answer(text, from);
    case Method::kAnswerIs: return find_marked(text, from, Anchors{}, Method::kAnswerIs);
    case Method::kTagged: return find_marked(text, from, Anchors{}, Method::kTagged);
    case Method::kCodeOutput: return find_code_output(text, from, Anchors{});
    case Method::kChoice: return find_choice(text, from);
    case Method::kBare: return find_bare(text, from);
    case Method::kFinalSpan: return find_final_span(text, math_spans(text, from, Anchors{}));
    case Method::kLastNumber: {
      auto e = find_last_number(text, from);
      if (e) widen_bold_digits(text, from, *e);
      return e;
    }
    case Method::kAuto: break;
  }
  if (auto e = find_boxed_answer(text, from)) return e;
  const Anchors anchors = find_anchors(text, from);
  if (auto e = find_marked(text, from, anchors, Method::kAuto)) return e;
  if (auto e = find_code_output(text, from, anchors)) return e;
  if (auto e = find_choice(text, from)) return e;
  if (auto e = find_bare(text, from)) return e;
  std::vector<Box> spans = math_spans(text, from, anchors);
  std::optional<Extraction> e = find_final_span(text, spans);
  if (!e) {
    e = find_last_number(text, from);
    if (e) widen_bold_digits(text, from, *e);
  }
  if (e) {  // what other_readings() reads, kept rather than computed: most answers match
    e->readings.spans = std::move(spans);
    e->readings.from = from;
  }
  return e;
}

std::vector<Range> other_readings(std::string_view s, const Extraction& e) {
  std::vector<Range> out;
  const std::vector<Box>& spans = e.readings.spans;
  // no spans kept: a method run alone, or a last number in a text without math spans (a
  // final-span answer found by the cascade always has its spans)
  if (spans.empty()) return out;
  if (e.method == Method::kFinalSpan) {
    // the other spans of the final sentence, back to the last sentence break or to the span
    // that the sentence concludes with ("..., solving for $a$ gives: $a = -2$", "Since $a^x = 3$,
    // therefore $a^{3x} = 27$"): the spans before a conclusion are the steps that led to it
    for (std::size_t k = e.readings.first_span; k > 0; --k) {
      const Box& b = spans[k - 1];
      if (sentence_break(s, b.outer_end, spans[k].outer_start)) break;
      if (introduced_as_conclusion(s, b.outer_end, spans[k].outer_start)) break;
      if (conclusion_command_span(s, Range{b.start, b.end})) break;
      if (has_content(s, Range{b.start, b.end})) out.push_back(span_answer(s, Range{b.start, b.end}));
    }
    if (const auto num = find_last_number(s, e.readings.from)) {
      if (num->start < e.start || num->end > e.end) out.push_back(Range{num->start, num->end});
    }
  } else if (e.method == Method::kLastNumber) {
    // the last math span of the text, though a number follows it
    for (std::size_t k = spans.size(); k > 0; --k) {
      const Box& b = spans[k - 1];
      if (!has_content(s, Range{b.start, b.end})) continue;
      if (b.end <= e.start || b.start >= e.end) out.push_back(span_answer(s, Range{b.start, b.end}));
      break;
    }
  }
  return out;
}

std::size_t sentence_end(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  bool in_dollar = false;
  bool in_paren = false;
  std::size_t depth = 0;
  std::size_t k = j;
  while (k < n) {
    const char c = s[k];
    if (c == '\n' || c == '\r') break;
    if (c == '\\') {
      if (k + 1 < n && (s[k + 1] == '\n' || s[k + 1] == '\r')) break;
      if (k + 1 < n) {
        if (s[k + 1] == '(') in_paren = true;
        else if (s[k + 1] == ')') in_paren = false;
      }
      k += 2;
      continue;
    }
    if (c == '$') {
      in_dollar = !in_dollar;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth > 0) --depth;
    } else if ((c == '.' || c == '!' || c == '?') && !in_dollar && !in_paren && depth == 0 &&
               (k + 1 >= n || is_space(s[k + 1]))) {
      break;
    }
    ++k;
  }
  return k > n ? n : k;
}

std::string answer_text(std::string_view text, const Extraction& e) {
  if (e.parts.empty()) return std::string(text.substr(e.start, e.end - e.start));
  std::string out;
  for (std::size_t k = 0; k < e.parts.size(); ++k) {
    if (k > 0) out += ", ";
    out.append(text.substr(e.parts[k].start, e.parts[k].end - e.parts[k].start));
  }
  return out;
}

}  // namespace rapidgrade::extract
