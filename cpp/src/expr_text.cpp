// Plain-text answers: detection ("Yes", "odd", "\\text{east}" are text, not products of
// letters) and normalization of their words. Both are single linear scans.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "expr_build.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"

namespace rapidgrade::expr::detail {

using rapidgrade::detail::WrapperContent;

bool looks_like_text(std::string_view s) {
  // Brace groups that are arguments of math ("\frac{a^3}{4abc}", "\sqrt{xyz}", "x^{abc}") hold
  // products of letters, not words: a group opened after a command that wraps no text, after
  // '^' or '_', after such a group or inside one is math (a wrapper's group, "\text{east}", is
  // not). Kept for kMaxMathGroups levels; deeper groups count their words.
  constexpr std::size_t kMaxMathGroups = 32;
  std::array<bool, kMaxMathGroups> math_group{};
  std::size_t depth = 0;
  enum class Next : unsigned char { kInherit, kMath, kWords };  // what a '{' here opens
  Next next = Next::kInherit;
  const auto in_math = [&] { return depth > 0 && depth <= kMaxMathGroups && math_group[depth - 1]; };
  std::size_t i = 0, n = s.size();
  while (i < n) {
    if (s[i] == '\\') {
      std::size_t j = i + 1;
      while (j < n && is_alpha(s[j])) ++j;
      std::string_view cmd = s.substr(i + 1, j - i - 1);
      // the words inside \text{...} and the other wrappers count; an operator name does not
      const auto* w = rapidgrade::detail::find_text_wrapper(cmd);
      const bool name_group =
          cmd == "begin" || cmd == "end" || (w != nullptr && w->content == WrapperContent::kOperator);
      next = cmd.empty() ? Next::kInherit : w == nullptr ? Next::kMath : Next::kWords;
      if (j == i + 1) ++j;
      i = j;
      if (name_group && i < n && s[i] == '{') {
        while (i < n && s[i] != '}') ++i;  // the environment or operator name is not text
        if (i < n) ++i;
        next = Next::kInherit;
      }
      if (rapidgrade::detail::is_angle_command(cmd)) {  // an angle's points ("\angle ACB") are no word
        while (i < n && (is_space(s[i]) || (s[i] >= 'A' && s[i] <= 'Z'))) ++i;
      }
      continue;
    }
    // a CJK ideograph (U+4000..U+9FFF, lead bytes E4..E9) is a word: normalization has already
    // read the CJK math words (根号, 无穷大) and list joiners (和, 或) of detail/markers.hpp
    const auto lead = static_cast<unsigned char>(s[i]);
    if (lead >= 0xE4 && lead <= 0xE9 && i + 2 < n) return true;
    if (is_alpha(s[i])) {
      std::size_t j = i;
      while (j < n && is_alpha(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      // words glued to digits ("2xyz") still count, outside a math group
      // ("erf" is a function name only before "(": "erf(x)" is math, "erf" alone a word)
      // ("\mathrm{erf}(x)" too)
      const bool before_paren = (j < n && s[j] == '(') || (j + 1 < n && s[j] == '}' && s[j + 1] == '(');
      if (word.size() >= 3 && !in_math() && !function_word(word, before_paren) &&
          rapidgrade::detail::joiner_word(word) == nullptr) {
        return true;  // one word is enough
      }
      next = Next::kInherit;
      i = j;
      continue;
    }
    if (s[i] == '{') {
      const bool math = next == Next::kMath || (next == Next::kInherit && in_math());
      if (depth < kMaxMathGroups) math_group[depth] = math;
      ++depth;
      next = Next::kInherit;
    } else if (s[i] == '}') {
      // "\frac{a}{bcd}": the group after a math group is one too
      next = in_math() ? Next::kMath : Next::kInherit;
      if (depth > 0) --depth;
    } else if (s[i] == '^' || s[i] == '_') {
      next = Next::kMath;
    } else if (s[i] == '[' && next == Next::kMath) {
      while (i + 1 < n && s[i + 1] != ']') ++i;  // an optional argument ("\sqrt[3]{abc}"): its group is next
      ++i;
    } else if (!is_space(s[i])) {
      next = Next::kInherit;
    }
    ++i;
  }
  return false;
}

bool names_a_value(std::string_view s) {
  // the first '=' outside brackets and braces, not part of "<=", ">=", "!=", "=="
  std::size_t depth = 0, eq = std::string_view::npos;
  for (std::size_t i = 0; i < s.size() && eq == std::string_view::npos; ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == '=' && depth == 0) {
      const bool joined = (i > 0 && (s[i - 1] == '<' || s[i - 1] == '>' || s[i - 1] == '!' || s[i - 1] == ':')) ||
                          (i + 1 < s.size() && s[i + 1] == '=');
      if (joined) return false;
      eq = i;
    }
  }
  if (eq == std::string_view::npos) return false;
  const std::string_view lhs = s.substr(0, eq), rhs = s.substr(eq + 1);
  // the left side: a name or an expression of names ("\frac{[ABCD]}{[MPQ]}"), ASCII, no '$'
  bool letter = false;
  for (const char c : lhs) {
    if (static_cast<unsigned char>(c) >= 0x80 || c == '$') return false;
    letter = letter || is_alpha(c);
  }
  // the right side is math: a digit or a command in it ("yes = no" stays text)
  const bool math = rhs.find_first_of("0123456789\\") != std::string_view::npos;
  return letter && math && !looks_like_text(rhs);
}

namespace {
// The bytes normalize_text acts on; the runs of other bytes between them are copied (lowered).
constexpr rapidgrade::detail::ByteSet kTextBytes = rapidgrade::detail::ByteSet::where(
    [](char c) { return c == '\\' || c == '{' || c == '}' || c == '$' || c == '~' || is_space(c); });
}  // namespace

std::string normalize_text(std::string_view s) {
  // Written through a pointer into a buffer of the input's size (the output is never longer:
  // each byte read writes at most one, and a space only in place of bytes skipped).
  std::string out(s.size(), '\0');
  char* const begin = out.data();
  char* w = begin;
  std::size_t i = 0, n = s.size();
  bool space = false;
  while (i < n) {
    const std::size_t run_end = kTextBytes.find(s, i);
    if (run_end > i) {  // a run of ordinary bytes: one space before it if one is pending
      if (space && w != begin) *w++ = ' ';
      space = false;
      // ASCII only: std::tolower follows the C locale, which Python sets
      for (; i < run_end; ++i) *w++ = rapidgrade::detail::to_lower(s[i]);
      continue;
    }
    const char c = s[i];
    if (c == '\\') {
      std::size_t j = i + 1;
      while (j < n && is_alpha(s[j])) ++j;
      if (j == i + 1 && j < n) j += utf8_length(s, j);
      i = j;
      space = true;
    } else if (c == '{' || c == '}' || c == '$') {
      ++i;
    } else {  // whitespace or '~'
      space = true;
      ++i;
    }
  }
  while (w != begin && (w[-1] == '.' || w[-1] == ' ')) --w;
  out.resize(static_cast<std::size_t>(w - begin));
  return out;
}

}  // namespace rapidgrade::expr::detail

namespace rapidgrade::expr {

bool is_plain_text(std::string_view text) { return detail::looks_like_text(text); }

}  // namespace rapidgrade::expr
