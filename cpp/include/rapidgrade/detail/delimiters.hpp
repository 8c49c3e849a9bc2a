// What wraps an answer: math delimiters and box commands, each read by one function.
//
// Used by extraction (the value after "the answer is", nested boxes), by grading (the gold
// answer) and by scan::find_boxed (the bare "\boxed 5" argument). Byte offsets into UTF-8;
// only ASCII bytes are compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::detail {

/// The argument of a box written without braces, "\boxed 5" or "\boxed5", starting at `begin`:
/// the run of bytes up to whitespace, '$', '{', '}' or a backslash, without trailing '.', ','
/// and ';'. Returns the end of the run (== begin when it is empty). O(length of the run).
/// E.g. at "5. Done" -> the end of "5"; at "x$" -> the end of "x"; at "{1}" -> begin.
constexpr std::size_t bare_box_argument_end(std::string_view s, std::size_t begin) noexcept {
  std::size_t k = begin;
  while (k < s.size() && !is_space(s[k]) && s[k] != '$' && s[k] != '{' && s[k] != '}' && s[k] != '\\') ++k;
  while (k > begin && (s[k - 1] == '.' || s[k - 1] == ',' || s[k - 1] == ';')) --k;
  return k;
}

/// The next closing math delimiter `close` ("$", "$$", "\)" or "\]") at or after `from`, a
/// token boundary, or kNpos. A backslash escapes the byte after it (so "\$" closes nothing),
/// except that it starts the closers "\)" and "\]". E.g. "$$" in "a$b$$" -> 3. O(n).
inline std::size_t find_math_closer(std::string_view s, std::size_t from,
                                       std::string_view close) noexcept {
  const std::size_t n = s.size();
  for (std::size_t i = from; i < n;) {
    const char c = s[i];
    if (c == '\\') {
      if (close[0] == '\\' && i + 1 < n && s[i + 1] == close[1]) return i;
      i += 2;
    } else if (c == '$') {
      if (close == "$") return i;
      if (close == "$$" && i + 1 < n && s[i + 1] == '$') return i;
      ++i;
    } else {
      i = find_either(s, i + 1, '\\', '$');  // plain text skipped
    }
  }
  return kNpos;
}

/// Which wrappers unwrap() peels off (a bit set).
enum class Wrappers : std::uint8_t {
  kMath = 1,   // $$..$$, $..$, \(..\), \[..\]   (see unwrap)
  kBoxes = 2,  // \boxed{..}, \fbox{..}, \boxed 5
  kAll = 3,
};

/// Layers of wrappers peeled at most: \boxed{\boxed{x}} and "$\boxed{x}$" need two.
inline constexpr int kMaxWrapperLayers = 8;

/// The text inside the wrappers that enclose all of `s`, peeled one layer at a time, at most
/// `max_layers` layers, trimmed of whitespace (is_space) before each layer and at the end.
/// A wrapper counts only when it encloses the whole text: "$a$ and $b$" and
/// "\boxed{1} \boxed{2}" are left alone. Per layer, the first of these that applies:
///  - "$$..$$" when the text between holds no unescaped '$' (a backslash escapes the byte after
///    it): "$$x^2$$" -> "x^2", "$$a$b$$" stays;
///  - "$..$" under the same condition, and the closing '$' is not right after a backslash:
///    "$\frac12$" -> "\frac12", "$\$5$" -> "\$5", "$5\$" stays;
///  - "\(..\)" and "\[..\]" when the text between does not contain the closing pair:
///    "\( x \)" -> "x", "\(a\) and \(b\)" stays;
///  - (kBoxes) \boxed or \fbox followed by optional whitespace and a brace group that ends the
///    text (braces matched as scan::match_brace does), or "\boxed" followed by a bare argument
///    (bare_box_argument_end) that ends the text: "\boxed{ 42 }" -> "42", "\boxed 5" -> "5".
/// Returns a view into `s` (possibly empty, "$$" -> ""). O(max_layers * n), no recursion, no
/// allocation, never throws.
std::string_view unwrap(std::string_view s, Wrappers which, int max_layers) noexcept;

}  // namespace rapidgrade::detail
