#include "rapidgrade/unicode.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "rapidgrade/detail/spaces.hpp"
#include "rapidgrade/utf8.hpp"

namespace rapidgrade::unicode {
namespace {

constexpr std::size_t kMaxGroup = 256;

struct Fraction {
  char32_t cp;
  const char* latex;
};
constexpr Fraction kFractions[] = {
    {0x00BC, "\\frac{1}{4}"}, {0x00BD, "\\frac{1}{2}"},  {0x00BE, "\\frac{3}{4}"}, {0x2150, "\\frac{1}{7}"},
    {0x2151, "\\frac{1}{9}"}, {0x2152, "\\frac{1}{10}"}, {0x2153, "\\frac{1}{3}"}, {0x2154, "\\frac{2}{3}"},
    {0x2155, "\\frac{1}{5}"}, {0x2156, "\\frac{2}{5}"},  {0x2157, "\\frac{3}{5}"}, {0x2158, "\\frac{4}{5}"},
    {0x2159, "\\frac{1}{6}"}, {0x215A, "\\frac{5}{6}"},  {0x215B, "\\frac{1}{8}"}, {0x215C, "\\frac{3}{8}"},
    {0x215D, "\\frac{5}{8}"}, {0x215E, "\\frac{7}{8}"},
};

struct Symbol {
  char32_t cp;
  const char* latex;  // followed by a space when it ends in a letter, so "×x" stays "\times x"
};
constexpr Symbol kSymbols[] = {
    {0x00B0, "^\\circ"},  {0x00B1, "\\pm"},       {0x00B7, "\\cdot"},   {0x00D7, "\\times"}, {0x00F7, "\\div"},
    {0x03B1, "\\alpha"},  {0x03B2, "\\beta"},     {0x03B3, "\\gamma"},  {0x03B4, "\\delta"}, {0x03B8, "\\theta"},
    {0x03BB, "\\lambda"}, {0x03BC, "\\mu"},       {0x03C0, "\\pi"},     {0x03C3, "\\sigma"}, {0x03C6, "\\phi"},
    {0x03C9, "\\omega"},  {0x2205, "\\emptyset"}, {0x2208, "\\in"},     {0x2213, "\\mp"},    {0x221E, "\\infty"},
    {0x2229, "\\cap"},    {0x222A, "\\cup"},      {0x2248, "\\approx"}, {0x2260, "\\ne"},    {0x2264, "\\le"},
    {0x2265, "\\ge"},     {0x22C5, "\\cdot"},
};

// Both tables are sorted by code point, strictly, for find_cp's binary search.
template <typename Entry, std::size_t N>
constexpr bool sorted_by_cp(const Entry (&table)[N]) noexcept {
  for (std::size_t k = 1; k < N; ++k)
    if (!(table[k - 1].cp < table[k].cp)) return false;
  return true;
}
static_assert(sorted_by_cp(kFractions) && sorted_by_cp(kSymbols), "keep the tables sorted by code point");

// The entry of `table` for cp, or nullptr. O(log N).
template <typename Entry, std::size_t N>
const Entry* find_cp(const Entry (&table)[N], char32_t cp) noexcept {
  const Entry* it =
      std::lower_bound(std::begin(table), std::end(table), cp, [](const Entry& e, char32_t c) { return e.cp < c; });
  return it != std::end(table) && it->cp == cp ? it : nullptr;
}

// Superscript / subscript forms of 0-9, '+', '-'; -1 when cp is none of them.
int superscript(char32_t cp) noexcept {
  switch (cp) {
    case 0x2070: return '0';
    case 0x00B9: return '1';
    case 0x00B2: return '2';
    case 0x00B3: return '3';
    case 0x207A: return '+';
    case 0x207B: return '-';
    default: return (cp >= 0x2074 && cp <= 0x2079) ? static_cast<int>('4' + (cp - 0x2074)) : -1;
  }
}
int subscript(char32_t cp) noexcept {
  if (cp >= 0x2080 && cp <= 0x2089) return static_cast<int>('0' + (cp - 0x2080));
  if (cp == 0x208A) return '+';
  if (cp == 0x208B) return '-';
  return -1;
}

char32_t simple_fold(char32_t cp) noexcept {
  if (cp >= 0xFF01 && cp <= 0xFF5E) return cp - 0xFEE0;      // full-width ASCII
  if (rapidgrade::detail::is_unicode_space(cp)) return ' ';  // detail/spaces.hpp
  if (cp == 0x2212 || cp == 0xFE63) return '-';
  return cp;
}

bool is_alnum(char c) noexcept {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.';
}

}  // namespace

std::string fold_math(std::string_view s) {
  if (utf8::ascii_end(s, 0, s.size()) == s.size()) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  // Offsets of the ')' closing a "√(" group, innermost last; each becomes '}'.
  std::vector<std::size_t> closes;
  // s[kept, i) is copied as it is, and appended in one piece before anything is rewritten: ASCII
  // (up to the next ')' that closes a "√(" group) and the characters without a rule.
  std::size_t kept = 0;
  const auto keep_until = [&](std::size_t at) { out.append(s.data() + kept, at - kept); };
  std::size_t i = 0;
  while (i < s.size()) {
    i = utf8::ascii_end(s, i, closes.empty() ? s.size() : closes.back());
    if (i >= s.size()) break;
    const std::size_t at = i;
    if (!closes.empty() && i == closes.back()) {
      keep_until(at);
      out += '}';
      closes.pop_back();
      kept = ++i;
      continue;
    }
    const char32_t raw = utf8::decode(s, i);
    // An invalid byte, or an overlong encoding of an ASCII character, becomes U+FFFD (as Python's
    // errors="replace" does): copied through, stray bytes could join a later step's neighbours
    // into a valid character ("\xC2 \xB2" -> "\xC2\xB2", a superscript two, once the space
    // goes), so normalizing twice would not give the same bytes.
    const bool invalid = (raw == 0xFFFD && i - at == 1) || (raw < 0x80 && i - at > 1);
    const char32_t cp = invalid ? raw : simple_fold(raw);  // != raw only for an ASCII result
    const Fraction* f = find_cp(kFractions, cp);
    const Symbol* sym = find_cp(kSymbols, cp);
    const bool root = cp == 0x221A || cp == 0x221B;  // √ ∛
    const int sup = superscript(cp);
    const int sub = sup < 0 ? subscript(cp) : -1;
    if (!invalid && cp == raw && f == nullptr && sym == nullptr && !root && sup < 0 && sub < 0) {
      continue;  // no rule: the original bytes stay in the kept run
    }
    keep_until(at);
    if (invalid) {
      out += "\xEF\xBF\xBD";
    } else if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (f != nullptr) {
      out += f->latex;
    } else if (sym != nullptr) {
      out += sym->latex;
      out += ' ';
    } else if (root) {
      out += cp == 0x221A ? "\\sqrt" : "\\sqrt[3]";
      std::size_t k = i;
      while (k < s.size() && s[k] == ' ') ++k;
      if (k < s.size() && s[k] == '(') {
        std::size_t depth = 0;
        std::size_t close = k;
        for (; close < s.size() && close - k < kMaxGroup; ++close) {
          if (s[close] == '(') ++depth;
          if (s[close] == ')' && --depth == 0) break;
        }
        if (close < s.size() && s[close] == ')' && depth == 0) {
          out += '{';
          closes.push_back(close);
          i = k + 1;
        }
      } else if (k < s.size() && is_alnum(s[k])) {
        std::size_t e = k;
        while (e < s.size() && is_alnum(s[e])) ++e;
        out += '{';
        out.append(s.substr(k, e - k));
        out += '}';
        i = e;
      }
      // else "\sqrt" followed by a brace group or a command, as written
    } else {  // a superscript or subscript
      out += sup >= 0 ? "^{" : "_{";
      out += static_cast<char>(sup >= 0 ? sup : sub);
      while (i < s.size()) {
        std::size_t next = i;
        const char32_t c2 = utf8::decode(s, next);
        const int more = sup >= 0 ? superscript(c2) : subscript(c2);
        if (more < 0) break;
        out += static_cast<char>(more);
        i = next;
      }
      out += '}';
    }
    kept = i;
  }
  keep_until(s.size());
  return out;
}

}  // namespace rapidgrade::unicode
