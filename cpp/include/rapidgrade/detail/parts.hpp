// The one table of part labels: how an answer of several parts numbers them ("(1) 3; (2) 5",
// "① 3 ② 5", "(a) 3 (b) 5", "(Ⅰ) 3 (Ⅱ) 5"), and the reader of such a list.
//
// An answer that starts with the first label of a style and holds the labels that follow it, in
// order, each after a separator, outside any bracket, is the list of its parts. Extraction reads
// such a list whole where a marker's answer starts with one (and over the lines that go on with
// the next label); normalization's rule 13 writes it as the list of its parts, "3,5", labels
// gone. Both read the labels here. Every label is read in its ASCII and its full-width form
// ("（1）" is "(1)").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::detail {

/// How a style writes its labels.
enum class PartStyle : std::uint8_t {
  kArabic,      // "(1)" "(2)" ...
  kRomanLower,  // "(i)" "(ii)" ...
  kRomanUpper,  // "(I)" "(II)" ...
  kRomanSign,   // "(Ⅰ)" "(Ⅱ)" ... (U+2160..)
  kLetter,      // "(a)" "(b)" ... (lower case: "(A)" is a choice)
  kCircled,     // "①" "②" ... (U+2460..)
  kParenDigit,  // "⑴" "⑵" ... (U+2474..)
};

struct PartStyleRow {
  PartStyle style;
  int count;  // labels 1..count exist
  std::string_view example;
};

/// Every label style, with the labels it has. A list starts at label 1 of its style; "(i)" is
/// the first roman numeral, never the ninth letter.
inline constexpr PartStyleRow kPartStyles[] = {
    {PartStyle::kArabic, 20, "(1) 3; (2) 5"},
    {PartStyle::kRomanLower, 10, "(i) 3 (ii) 5"},
    {PartStyle::kRomanUpper, 10, "(I) 3, (II) 5"},
    {PartStyle::kRomanSign, 10, "(\xE2\x85\xA0) 3 (\xE2\x85\xA1) 5"},
    {PartStyle::kLetter, 8, "(a) 3 (b) 5"},
    {PartStyle::kCircled, 20, "\xE2\x91\xA0 3 \xE2\x91\xA1 5"},
    {PartStyle::kParenDigit, 20, "\xE2\x91\xB4 3 \xE2\x91\xB5 5"},
};

/// kPartStyles holds one row per style, in the enum's order: a style's row is kPartStyles[style].
constexpr bool part_styles_in_order() noexcept {
  for (std::size_t k = 0; k < sizeof(kPartStyles) / sizeof(kPartStyles[0]); ++k) {
    if (static_cast<std::size_t>(kPartStyles[k].style) != k) return false;
  }
  return true;
}
static_assert(part_styles_in_order(), "kPartStyles: one row per PartStyle, in order");

/// Labels of a list at most (the largest count of kPartStyles).
inline constexpr int kMaxParts = 20;

inline constexpr std::string_view kRomanNumerals[] = {"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"};

/// The ASCII character at s[k], a full-width form read as its ASCII one ("（" is '('); 0 at the
/// end or at another non-ASCII byte. `length` receives the bytes read.
inline char part_ascii_at(std::string_view s, std::size_t k, std::size_t& length) noexcept {
  length = 1;
  if (k >= s.size()) return 0;
  if (static_cast<unsigned char>(s[k]) < 0x80) return s[k];
  length = 3;
  return fullwidth_ascii(s, k);
}

/// Whether s[k] starts the three-byte UTF-8 sequence of code point `cp` (U+0800..U+FFFF).
inline bool code_point_at(std::string_view s, std::size_t k, std::uint32_t cp) noexcept {
  return k + 2 < s.size() && static_cast<unsigned char>(s[k]) == (0xE0 | (cp >> 12)) &&
         static_cast<unsigned char>(s[k + 1]) == (0x80 | ((cp >> 6) & 0x3F)) &&
         static_cast<unsigned char>(s[k + 2]) == (0x80 | (cp & 0x3F));
}

/// The end of label `n` (1-based) of `style` at s[k], with one '.', ':' or "、" after it; kNpos
/// when s[k] starts no such label.
inline std::size_t part_label_end(std::string_view s, std::size_t k, PartStyle style, int n) noexcept {
  if (n < 1 || n > kPartStyles[static_cast<std::size_t>(style)].count) return kNpos;
  std::size_t e = kNpos;
  if (style == PartStyle::kCircled || style == PartStyle::kParenDigit) {
    const std::uint32_t first = style == PartStyle::kCircled ? 0x2460 : 0x2474;
    if (code_point_at(s, k, first + static_cast<std::uint32_t>(n - 1))) e = k + 3;
  } else {
    std::size_t len = 0;
    if (part_ascii_at(s, k, len) != '(') return kNpos;
    std::size_t j = k + len;
    switch (style) {
      case PartStyle::kArabic: {
        const char tens = static_cast<char>('0' + n / 10);
        if (n >= 10) {
          if (j >= s.size() || s[j] != tens) return kNpos;
          ++j;
        }
        if (j >= s.size() || s[j] != static_cast<char>('0' + n % 10)) return kNpos;
        ++j;
        break;
      }
      case PartStyle::kRomanLower:
      case PartStyle::kRomanUpper: {
        const std::string_view numeral = kRomanNumerals[n - 1];
        for (const char c : numeral) {
          const char want = style == PartStyle::kRomanUpper ? static_cast<char>(c - 'a' + 'A') : c;
          if (j >= s.size() || s[j] != want) return kNpos;
          ++j;
        }
        break;
      }
      case PartStyle::kRomanSign:
        if (!code_point_at(s, j, 0x2160 + static_cast<std::uint32_t>(n - 1))) return kNpos;
        j += 3;
        break;
      default:  // kLetter
        if (j >= s.size() || s[j] != static_cast<char>('a' + n - 1)) return kNpos;
        ++j;
        break;
    }
    if (part_ascii_at(s, j, len) != ')') return kNpos;
    e = j + len;
  }
  if (e == kNpos) return kNpos;
  std::size_t len = 0;
  const char after = part_ascii_at(s, e, len);
  if (after == '.' || after == ':') {
    e += len;
  } else if (starts_with(s, e, "\xE3\x80\x81")) {  // 、
    e += 3;
  }
  return e;
}

/// Whether s[k] starts label 1 of some style; `style` and `end` (as part_label_end's) receive it.
inline bool first_part_label(std::string_view s, std::size_t k, PartStyle& style, std::size_t& end) noexcept {
  for (const PartStyleRow& row : kPartStyles) {
    end = part_label_end(s, k, row.style, 1);
    if (end != kNpos) {
      style = row.style;
      return true;
    }
  }
  return false;
}

/// Whether the text before s[k] lets a label start there: a blank, a line break, a separator
/// (',', ';', '.', ':', '$', "、", "\quad", a full-width one) or a label of its own sign
/// (circled, parenthesized digits), which no math writes.
inline bool part_label_may_follow(std::string_view s, std::size_t k, PartStyle style) noexcept {
  if (style == PartStyle::kCircled || style == PartStyle::kParenDigit) return true;
  if (k == 0) return false;
  const char c = s[k - 1];
  if (is_space(c) || c == ',' || c == ';' || c == '.' || c == ':' || c == '$') return true;
  if (k >= 5 && s.substr(k - 5, 5) == "\\quad") return true;
  if (k >= 3) {
    const std::string_view w = s.substr(k - 3, 3);
    if (w == "\xE3\x80\x81" || w == "\xE3\x80\x82") return true;  // 、 。
    const char a = fullwidth_ascii(s, k - 3);
    if (a == ',' || a == ';' || a == '.' || a == ':') return true;
  }
  return false;
}

/// s[b, e) less the blanks around it and the separators that end it: blanks and line breaks,
/// ',', ';', '.', ':', "、", "。", "\quad", a last " and" (a part, or a whole list).
inline std::pair<std::size_t, std::size_t> parts_trimmed(std::string_view s, std::size_t b, std::size_t e) noexcept {
  while (b < e && is_space(s[b])) ++b;
  while (e > b) {
    const char c = s[e - 1];
    if (is_space(c) || c == ',' || c == ';' || c == '.' || c == ':') {
      --e;
    } else if (e - b >= 3 && (s.substr(e - 3, 3) == "\xE3\x80\x81" || s.substr(e - 3, 3) == "\xE3\x80\x82")) {
      e -= 3;
    } else if (e - b >= 5 && s.substr(e - 5, 5) == "\\quad") {
      e -= 5;
    } else if (e - b >= 4 && s.substr(e - 4, 4) == " and") {
      e -= 4;
    } else {
      break;
    }
  }
  return {b, e};
}

/// The labels of the list that s[b, e) is: label 1 of some style at b, then labels 2, 3, ... of
/// that style, each where part_label_may_follow allows, at the top level of s[b, e) (outside
/// parentheses, brackets and braces; a backslash's next byte is skipped). `starts[i]` and
/// `ends[i]` receive label i + 1's position and end. Returns the number of labels (0 when s[b, e)
/// starts with none; 1 when no second one follows). O(e - b).
inline int part_labels(std::string_view s, std::size_t b, std::size_t e, std::size_t (&starts)[kMaxParts],
                       std::size_t (&ends)[kMaxParts]) noexcept {
  if (e > s.size()) e = s.size();
  PartStyle style = PartStyle::kArabic;
  std::size_t first = kNpos;
  if (!first_part_label(s.substr(0, e), b, style, first)) return 0;
  starts[0] = b;
  ends[0] = first;
  int count = 1;
  std::size_t depth = 0;
  const std::string_view t = s.substr(0, e);
  for (std::size_t k = first; k < e && count < kMaxParts;) {
    if (depth == 0 && part_label_may_follow(t, k, style)) {
      const std::size_t end = part_label_end(t, k, style, count + 1);
      if (end != kNpos) {
        starts[count] = k;
        ends[count] = end;
        ++count;
        k = end;
        continue;
      }
    }
    const char c = t[k];
    if (c == '\\') {
      k += 2;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    ++k;
  }
  return count;
}

}  // namespace rapidgrade::detail
