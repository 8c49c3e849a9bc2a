// Unicode math written by models, folded to the LaTeX the parsers read.
#pragma once

#include <string>
#include <string_view>

namespace rapidgrade::unicode {

/// Folds Unicode math notation to ASCII LaTeX, leaving everything else unchanged:
///  - full-width forms U+FF01..U+FF5E -> ASCII ("１２" -> "12"), the Unicode spaces of
///    detail/spaces.hpp (no-break, em, thin, ideographic ...) -> ' ', minus signs U+2212 U+FE63
///    -> '-';
///  - vulgar fractions -> \frac{a}{b} ("½" -> "\frac{1}{2}", "2½" -> "2\frac{1}{2}");
///  - √ and ∛ -> \sqrt{...} / \sqrt[3]{...} over the following parenthesized group (at most 256
///    bytes ahead), digit/letter run or brace group ("√2" -> "\sqrt{2}", "√(x+1)" -> "\sqrt{x+1}");
///  - superscript and subscript digits -> ^{..} / _{..} ("x²" -> "x^{2}", "10⁻³" -> "10^{-3}");
///  - × ÷ · ⋅ ± ∓ ≤ ≥ ≠ ≈ ∞ π ° and common Greek letters -> \times \div \cdot \cdot \pm \mp \le
///    \ge \ne \approx \infty \pi ^\circ \alpha ...
/// O(n) time (the group search is bounded), no recursion, never throws except std::bad_alloc.
/// Invalid UTF-8 (a stray byte, an overlong encoding) becomes U+FFFD, as Python's
/// errors="replace" does. Pure ASCII input is returned as is.
std::string fold_math(std::string_view s);

}  // namespace rapidgrade::unicode
