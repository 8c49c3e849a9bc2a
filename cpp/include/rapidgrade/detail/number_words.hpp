// The one table of English number words ("two", "twenty-one", "three hundred"), read by
// normalization (an answer written as words is its number) and by equivalence (words that name
// a number are not "words alone" against a number).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::detail {

/// The words of 0-19, by value.
inline constexpr std::array<std::string_view, 20> kNumberUnits = {
    "zero", "one",    "two",    "three",    "four",     "five",    "six",     "seven",     "eight",    "nine",
    "ten",  "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};

/// The words of 20, 30, ..., 90, by value / 10 - 2.
inline constexpr std::array<std::string_view, 8> kNumberTens = {"twenty", "thirty",  "forty",  "fifty",
                                                                "sixty",  "seventy", "eighty", "ninety"};

/// The value of the number word s (ASCII, any case), or -1: a unit (0-19) or a tens word.
constexpr int number_word_value(std::string_view s) noexcept {
  const auto same = [&](std::string_view w) { return w.size() == s.size() && istarts_with(s, 0, w); };
  for (std::size_t k = 0; k < kNumberUnits.size(); ++k)
    if (same(kNumberUnits[k])) return static_cast<int>(k);
  for (std::size_t k = 0; k < kNumberTens.size(); ++k)
    if (same(kNumberTens[k])) return static_cast<int>(20 + 10 * k);
  return -1;
}

/// The number that the whole of s writes in words, -999 to 999, or nullopt: "two", "Twelve",
/// "twenty-one", "twenty one", "a hundred", "three hundred and five", "one hundred twenty-three",
/// "negative five", "minus twelve"; blanks around it and one final '.' are allowed. Anything else
/// (another word, a digit, "two and three") is nullopt.
inline std::optional<int> read_number_words(std::string_view s) noexcept {
  std::size_t k = 0;
  const auto skip_blanks = [&] {
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n')) ++k;
  };
  const auto next_word = [&]() -> std::string_view {
    skip_blanks();
    const std::size_t b = k;
    while (k < s.size() && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z'))) ++k;
    return s.substr(b, k - b);
  };
  // words: ["negative"|"minus"] [unit|"a"] ["hundred" ["and"]] [tens[-unit]|unit]
  int total = 0;
  bool any = false;
  std::string_view w = next_word();
  int sign = 1;
  if ((w.size() == 8 && istarts_with(w, 0, "negative")) || (w.size() == 5 && istarts_with(w, 0, "minus"))) {
    sign = -1;
    w = next_word();
  }
  const auto at_end = [&] {
    skip_blanks();
    if (k < s.size() && s[k] == '.') ++k;
    skip_blanks();
    return k == s.size();
  };
  // hundreds
  {
    const std::size_t save = k;
    const int v = (w.size() == 1 && (w[0] == 'a' || w[0] == 'A')) ? 1 : number_word_value(w);
    if (v >= 1 && v <= 9) {
      const std::string_view h = next_word();
      if (h.size() == 7 && istarts_with(h, 0, "hundred")) {
        total = 100 * v;
        any = true;
        const std::size_t after = k;
        w = next_word();
        if (w.size() == 3 && istarts_with(w, 0, "and")) {
          w = next_word();
          if (w.empty()) return std::nullopt;  // "one hundred and"
        } else if (w.empty()) {
          k = after;
          return at_end() ? std::optional<int>(sign * total) : std::nullopt;
        }
      } else {
        k = save;
      }
    }
  }
  if (w.empty()) return std::nullopt;
  const int v = number_word_value(w);
  if (v < 0 || (any && v == 0)) return std::nullopt;
  total += v;
  if (v >= 20) {  // "twenty-one", "twenty one"
    const std::size_t save = k;
    if (k < s.size() && s[k] == '-') ++k;
    const std::string_view u = next_word();
    const int uv = number_word_value(u);
    if (uv >= 1 && uv <= 9) {
      total += uv;
    } else {
      k = save;
    }
  }
  return at_end() ? std::optional<int>(sign * total) : std::nullopt;
}

/// Whether s holds a number word (kNumberUnits, kNumberTens, "hundred") as a word of its own, or
/// starts with one (normalization removes the spaces: "twelve apples" is "twelveapples").
inline bool holds_number_word(std::string_view s) noexcept {
  for (const std::string_view w : kNumberUnits)
    if (istarts_with(s, 0, w)) return true;
  for (const std::string_view w : kNumberTens)
    if (istarts_with(s, 0, w)) return true;
  for (std::size_t k = 0; k < s.size();) {
    const auto letter = [&](std::size_t q) { return (s[q] >= 'a' && s[q] <= 'z') || (s[q] >= 'A' && s[q] <= 'Z'); };
    if (!letter(k)) {
      ++k;
      continue;
    }
    const std::size_t b = k;
    while (k < s.size() && letter(k)) ++k;
    const std::string_view w = s.substr(b, k - b);
    if (number_word_value(w) >= 0 || (w.size() == 7 && istarts_with(w, 0, "hundred"))) return true;
  }
  return false;
}

}  // namespace rapidgrade::detail
