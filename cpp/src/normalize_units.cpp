// Rule 4 of math normalization (normalize.hpp): the unit words that end an answer, removed
// after a number or a closing brace. Split from normalize.cpp, which runs the rules in order.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "normalize_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/detail/units.hpp"
#include "rapidgrade/normalize.hpp"

namespace rapidgrade::normalize {

namespace {

using detail::ends_with;
using detail::is_digit;
using detail::is_letter;
using detail::letters_end;

bool is_unit(std::string_view word) noexcept {
  for (std::size_t k = 0; k < kUnitWordCount; ++k) {
    if (kUnitWords[k] == word) return true;
  }
  return false;
}

// A unit word, or two unit words of two letters or more written as one ("squareinches",
// "sqft", "cubicfeet": an answer whose spaces were stripped).
bool is_unit_word(std::string_view word) noexcept {
  if (is_unit(word)) return true;
  for (std::size_t k = 2; k + 2 <= word.size(); ++k) {
    if (is_unit(word.substr(0, k)) && is_unit(word.substr(k))) return true;
  }
  return false;
}

// A unit word of rule 4: one of kUnitWords (is_unit_word), or a unit of the units table
// (detail/units.hpp: "nm", "K", "kPa", "Hz"), except the rows read only when nothing else
// follows their number ("in", "mi").
bool is_trailing_unit(std::string_view word) noexcept {
  if (is_unit_word(word)) return true;
  const rapidgrade::detail::UnitSymbol* u = rapidgrade::detail::find_unit(word);
  return u != nullptr && !u->whole_only;
}

// The start of a power that ends s[0, q) ("^2", "^{3}", "^{-1}", "^-2": an integer exponent), or
// q when none does.
std::size_t power_start(std::string_view s, std::size_t q) noexcept {
  std::size_t k = q;
  const bool braced = k > 0 && s[k - 1] == '}';
  if (braced) --k;
  const std::size_t digits = k;
  while (k > 0 && is_digit(s[k - 1])) --k;
  if (k == digits) return q;
  if (k > 0 && s[k - 1] == '-') --k;
  if (braced) {
    if (k == 0 || s[k - 1] != '{') return q;
    --k;
  }
  return k > 0 && s[k - 1] == '^' ? k - 1 : q;
}

// Where the text before the unit word at w ends: before a '/', '*' or "\cdot" that joins it to
// another unit word ("m / s", "J \cdot s") and the blanks around it; w when none does.
std::size_t unit_joiner_start(std::string_view s, std::size_t w) noexcept {
  std::size_t k = w;
  while (k > 0 && s[k - 1] == ' ') --k;
  if (k > 0 && (s[k - 1] == '/' || s[k - 1] == '*')) return k - 1;
  if (ends_with(s.substr(0, k), "\\cdot")) return k - 5;
  return w;
}

// The unit word (is_trailing_unit, without the integer power after it) that ends v[0, p) with
// that power, or none: "mol" in "J mol^{-1}"; not a command's name ("\\min").
struct UnitWord {
  std::size_t start, end;
};
std::optional<UnitWord> unit_word_before(std::string_view v, std::size_t p) noexcept {
  const std::size_t q = power_start(v, p);
  std::size_t w = q;
  while (w > 0 && is_letter(v[w - 1])) --w;
  if (w == q || (w > 0 && v[w - 1] == '\\') || !is_trailing_unit(v.substr(w, q - w))) return std::nullopt;
  return UnitWord{w, q};
}

// The unit words of c when c holds units only, read as rule 4 reads them at the end of a text:
// words of is_trailing_unit, each with an integer power, apart or joined by '/', '*' or \cdot
// ("min", "m/s", "J mol^{-1}"). A one-letter word counts only in a group joined by '/' ("m/s":
// "(m)" after a number may be a product). Empty when c holds anything else.
std::vector<std::string_view> units_only(std::string_view c) {
  std::vector<std::string_view> words;
  bool joined = false;
  bool short_word = false;
  std::size_t e = c.size();
  while (true) {
    std::size_t p = e;
    while (p > 0 && c[p - 1] == ' ') --p;
    if (p == 0) break;
    const std::optional<UnitWord> u = unit_word_before(c, p);
    if (!u) return {};
    words.push_back(c.substr(u->start, u->end - u->start));
    short_word = short_word || u->end - u->start == 1;
    e = unit_joiner_start(c, u->start);
    joined = joined || (e < u->start && c[e] == '/');
  }
  if (short_word && !joined) return {};
  return words;
}

// Whether s[0, e) ends with a value a unit may follow: a digit, a closing brace ("\frac{1}{2}
// inch") or \pi ("\frac{3}{4}\pi inches").
bool ends_with_value(std::string_view s, std::size_t e) noexcept {
  while (e > 0 && s[e - 1] == ' ') --e;
  if (e == 0) return false;
  return is_digit(s[e - 1]) || s[e - 1] == '}' || ends_with(s.substr(0, e), "\\pi");
}

// The braced arguments a command takes: two for the fractions and binomials, one for the
// others ("\sqrt", "\overline", "^", "_").
std::size_t argument_count(std::string_view name) noexcept {
  const bool two = rapidgrade::detail::is_fraction_command(name) || rapidgrade::detail::is_binomial_command(name);
  return two ? 2 : 1;
}

// The name of the command ("\sqrt" -> "sqrt") that ends s[0, b), or "" when none does.
std::string_view command_before(std::string_view s, std::size_t b) noexcept {
  std::size_t w = b;
  while (w > 0 && is_letter(s[w - 1])) --w;
  return w < b && w > 0 && s[w - 1] == '\\' ? s.substr(w, b - w) : std::string_view();
}

// The position of the '{' of a group of unit words that ends s[0, e) (s[e - 1] is '}') and is
// not a command's argument: "69{degrees}", "8\sqrt{3}{square inches}", "\frac{1}{2}{cm}" (the
// braces of a unit written without its "\text"); npos otherwise ("\frac{1}{cm}", "\sqrt{cm}",
// "5{m}": a one-letter word may be a symbol).
std::size_t bare_unit_group(std::string_view s, std::size_t e) noexcept {
  std::size_t open = e - 1;
  while (open > 0 && (is_letter(s[open - 1]) || s[open - 1] == ' ')) --open;
  if (open == 0 || s[open - 1] != '{') return std::string::npos;
  --open;
  std::size_t words = 0;
  for (std::size_t k = open + 1; k + 1 < e;) {
    if (s[k] == ' ') {
      ++k;
      continue;
    }
    const std::size_t j = letters_end(s, k);
    if (j - k < 2 || !is_unit_word(s.substr(k, j - k))) return std::string::npos;
    ++words;
    k = j;
  }
  if (words == 0) return std::string::npos;
  // What the group follows: a value (bare), or a command whose arguments it may be.
  std::size_t b = open;
  while (b > 0 && s[b - 1] == ' ') --b;
  if (b == 0) return std::string::npos;
  if (s[b - 1] != '}') {
    const std::string_view command = command_before(s, b);
    return command.empty() || command == "pi" ? open : std::string::npos;
  }
  // after groups: count them back to what they follow
  std::size_t groups = 0;
  while (b > 0 && s[b - 1] == '}' && groups < 2) {  // no command here takes more than two
    std::size_t depth = 0;
    std::size_t k = b;
    while (k > 0) {
      --k;
      if (s[k] == '}') ++depth;
      if (s[k] == '{' && --depth == 0) break;
    }
    if (depth != 0) return std::string::npos;
    ++groups;
    b = k;
  }
  std::size_t takes = 0;
  if (b > 0 && (s[b - 1] == '^' || s[b - 1] == '_' || s[b - 1] == ']')) {
    takes = 1;
  } else if (const std::string_view command = command_before(s, b); !command.empty()) {
    takes = argument_count(command);
  }
  return groups >= takes ? open : std::string::npos;
}

// The one-letter unit words whose letters strip_units looks for before the units it read.
constexpr std::size_t kMaxLetterSearches = 8;

}  // namespace

namespace internal {

// Rule 4: trailing unit words after a number (or a closing brace, e.g. \frac{1}{2} inch, or
// \pi), bare or in braces of their own ("69{degrees}").
void strip_units(std::string& s, bool& percent, bool& degrees) {
  std::string_view v = s;
  std::size_t cut = std::string::npos;
  bool saw_percent = false;
  bool saw_degrees = false;
  auto saw = [&](std::string_view word) {
    saw_percent = saw_percent || word == "percent";
    saw_degrees = saw_degrees || word == "degrees" || word == "degree";
  };
  bool group_read = false;
  std::string one_letter;  // the one-letter unit words read
  std::size_t e = v.size();
  while (true) {
    std::size_t p = e;
    while (p > 0 && v[p - 1] == ' ') --p;
    // units in parentheses that end the text ("130.4(min)", "12(m/s)"), read like those apart
    if (cut == std::string::npos && p > 0 && v[p - 1] == ')') {
      const std::size_t open = v.rfind('(', p - 1);
      if (open != std::string::npos && v.find_first_of("()", open + 1) == p - 1) {
        const std::vector<std::string_view> words = units_only(v.substr(open + 1, p - 1 - (open + 1)));
        for (const std::string_view word : words) saw(word);
        if (!words.empty()) {
          cut = open;
          e = open;
          continue;
        }
      }
    }
    // one group at most: finding one reads back over the groups before it
    const std::size_t open = p > 0 && v[p - 1] == '}' && !group_read ? bare_unit_group(v, p) : std::string::npos;
    if (open != std::string::npos) {
      for (std::size_t k = open + 1; k + 1 < p;) {
        const std::size_t j = letters_end(v, k);
        saw(v.substr(k, j - k));
        k = j == k ? k + 1 : j;
      }
      group_read = true;
      cut = open;
      e = open;
      continue;
    }
    const std::optional<UnitWord> u = unit_word_before(v, p);
    if (!u) break;
    const std::string_view word = v.substr(u->start, u->end - u->start);
    // a one-letter unit must be marked (apart from its number, or in \text / \mathrm): "6m"
    // is six times m, "6 m" and "6\,\text{m}" are six metres
    if (word.size() == 1 && u->start > 0 && is_digit(v[u->start - 1])) break;
    if (word.size() == 1) one_letter.push_back(word[0]);
    saw(word);
    cut = u->start;
    e = unit_joiner_start(v, u->start);
  }
  if (cut == std::string::npos || !ends_with_value(v, cut)) return;
  // nor is a one-letter unit whose letter stands as a symbol before the units: "8 m - 2 m = 6 m"
  // is in m (one search per letter: a letter seen again is in the text before it)
  for (std::size_t k = 0; k < one_letter.size() && k < kMaxLetterSearches; ++k) {
    if (detail::holds_letter(v.substr(0, cut), one_letter[k])) return;
  }
  std::size_t r = cut;
  while (r > 0 && v[r - 1] == ' ') --r;
  s.resize(r);
  percent = percent || saw_percent;
  degrees = degrees || saw_degrees;
}

}  // namespace internal

}  // namespace rapidgrade::normalize
