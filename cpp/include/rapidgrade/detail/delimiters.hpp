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

/// The first position p >= from at which the byte loop of the math scanners stands at an
/// unescaped '$' (when `dollar`) or at an unescaped backslash followed by a byte of `after`
/// ("([" for the openers \( \[, ")" for the closer \)), or kNpos. The loop reads s from `from`
/// and a backslash takes the byte after it along, so a byte is unescaped when the run of
/// backslashes just before it (from `from` on) is even: "\\$" holds no '$' the loop stops at.
/// With SSE2, sixteen positions are tested a step, so the backslashes of other commands cost
/// nothing; elsewhere the loop jumps between backslashes and dollars. Each run of backslashes
/// is counted once: O(n).
inline std::size_t find_math_delimiter(std::string_view s, std::size_t from, bool dollar,
                                       std::string_view after) noexcept {
  const std::size_t n = s.size();
  const auto unescaped = [&](std::size_t p) {
    std::size_t k = p;
    while (k > from && s[k - 1] == '\\') --k;
    return ((p - k) & 1) == 0;
  };
  const auto stops_at = [&](std::size_t p) {
    if (s[p] == '$') return dollar;
    return p + 1 < n && after.find(s[p + 1]) != std::string_view::npos;  // s[p] is a backslash
  };
  std::size_t i = from;
#if defined(__SSE2__)
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i dollars = _mm_set1_epi8('$');
  const __m128i a = _mm_set1_epi8(after.empty() ? '\0' : after[0]);
  const __m128i b = _mm_set1_epi8(after.empty() ? '\0' : after.back());
  const unsigned pairs = after.empty() ? 0u : 0xFFFFu;
  // positions i..i+15, each with the byte after it (up to i + 16) in s
  for (; i + 17 <= n; i += 16) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i + 1));
    const __m128i pair = _mm_and_si128(_mm_cmpeq_epi8(w, backslash),
                                       _mm_or_si128(_mm_cmpeq_epi8(next, a), _mm_cmpeq_epi8(next, b)));
    auto mask = (static_cast<unsigned>(_mm_movemask_epi8(pair)) & pairs) |
                (dollar ? static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(w, dollars))) : 0u);
    while (mask != 0) {
      const std::size_t p = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (unescaped(p)) return p;
      mask &= mask - 1;
    }
  }
#endif
  for (i = find_either(s, i, '\\', '$'); i < n; i = find_either(s, i + 1, '\\', '$')) {
    if (stops_at(i) && unescaped(i)) return i;
  }
  return kNpos;
}

/// The next closing math delimiter `close` ("$", "$$", "\)" or "\]") at or after `from`, a
/// token boundary, or kNpos. A backslash escapes the byte after it (so "\$" closes nothing),
/// except that it starts the closers "\)" and "\]". E.g. "$$" in "a$b$$" -> 3. O(n).
inline std::size_t find_math_closer(std::string_view s, std::size_t from,
                                       std::string_view close) noexcept {
  if (close[0] == '\\') return find_math_delimiter(s, from, false, close.substr(1, 1));
  for (std::size_t i = find_math_delimiter(s, from, true, {}); i != kNpos;
       i = find_math_delimiter(s, i + 1, true, {})) {
    if (close.size() == 1 || (i + 1 < s.size() && s[i + 1] == '$')) return i;
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
