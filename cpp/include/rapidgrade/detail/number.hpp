// The one reader of thousands separators, shared by normalization (rule 9), answer extraction
// (number_end) and the LaTeX lexer of the expression engine.
//
// A number with thousands separators is a first run of one to three digits followed by groups,
// each a separator and exactly three digits not followed by a further digit:
//   "1,234,567"  -> one number 1234567 (every site)
//   "1,2345"     -> no group: the separator is not a thousands separator
//   "1234,567"   -> no group: the first run is longer than three digits
// Which separators count is the one difference between the sites, and it is deliberate:
//   GroupSeparators::kComma: only ",". Plain text and normalized answers ("7,425,000").
//   GroupSeparators::kLatex: also the LaTeX spellings ",\!", "{,}", "\,", "\ " and one space
//     ("10{,}000", "1\,000", "1 000"), for the expression lexer, where normalization has not
//     run and a space between digit groups cannot be anything else.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rapidgrade::detail {

enum class GroupSeparators : unsigned char { kComma, kLatex };

/// Length of the thousands separator at s[k] (0 when there is none).
inline std::size_t group_separator_length(std::string_view s, std::size_t k, GroupSeparators seps) noexcept {
  if (seps == GroupSeparators::kComma) return k < s.size() && s[k] == ',' ? 1 : 0;
  // longest spellings first: ",\!" before ","
  for (std::string_view cand : {std::string_view(",\\!"), std::string_view("{,}"), std::string_view("\\,"),
                                std::string_view("\\ "), std::string_view(","), std::string_view(" ")}) {
    if (s.substr(k, cand.size()) == cand) return cand.size();
  }
  return 0;
}

/// `s[start, int_end)` is a run of ASCII digits. Returns the end of the thousands groups that
/// follow it, or `int_end` when there are none (or when the run is longer than three digits, or
/// starts with 0: "0,198" is no number with a thousands separator).
/// e.g. thousands_end("7,425,000.5", 0, 1, kComma) == 9. O(length of the groups).
inline std::size_t thousands_end(std::string_view s, std::size_t start, std::size_t int_end,
                                 GroupSeparators seps) noexcept {
  auto digit = [&](std::size_t q) { return q < s.size() && s[q] >= '0' && s[q] <= '9'; };
  if (int_end == start || int_end - start > 3 || s[start] == '0') return int_end;
  std::size_t k = int_end;
  for (;;) {
    const std::size_t sep = group_separator_length(s, k, seps);
    const std::size_t d = k + sep;
    if (sep == 0 || !digit(d) || !digit(d + 1) || !digit(d + 2) || digit(d + 3)) return k;
    k = d + 3;
  }
}

/// The digits of `s[start, end)`, separators dropped ("7,425,000" -> "7425000").
inline std::string group_digits(std::string_view s, std::size_t start, std::size_t end) {
  std::string out;
  for (std::size_t q = start; q < end; ++q)
    if (s[q] >= '0' && s[q] <= '9') out += s[q];
  return out;
}

}  // namespace rapidgrade::detail
