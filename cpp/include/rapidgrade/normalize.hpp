// Canonical form of a LaTeX/plain-text answer, for string comparison of extracted answers.
//
// Input is UTF-8 (invalid bytes are copied through). The rules, in the order applied (each one a
// linear pass; the whole sequence is repeated until the text stops changing, at most
// kMaxRounds times, so that normalize(normalize(s)) == normalize(s)):
//
//  0. Unicode math folded to LaTeX (unicode::fold_math): "½" -> "\frac{1}{2}", "√2" -> "\sqrt{2}",
//     full-width digits -> ASCII, "x²" -> "x^{2}", "×" -> "\times".
//  1. commands: \dfrac \tfrac \cfrac -> \frac; \left \right (and a following '.') and
//     \displaystyle removed; \! \, \; \: removed; "\ " and '~' -> space; \text{..} \textbf{..}
//     \textit{..} \textrm{..} \textnormal{..} \mathrm{..} \mbox{..} unwrapped; '$' and \$
//     removed; ^\circ, ^{\circ}, \degree and U+00B0 removed; \% and % removed (sets `percent`);
//     U+2212 -> '-'; "{,}" between digits -> ',' before exactly three digits ("10{,}000"),
//     else '.' (a decimal comma: "0{,}5" -> "0.5").
//  2. whitespace runs -> one space, then trimmed.
//  3. trailing '.' (and whitespace) removed.
//  4. (units) trailing unit words after a number or a closing brace removed (kUnitWords, each
//     optionally with ^2, ^3, ^{2}, ^{3}): "5 cm" -> "5", "100 square units" -> "100".
//  5. spaces removed, except one between a control word and a following letter ("\pi r").
//  6. \frac and \sqrt arguments braced: \frac12 -> \frac{1}{2}, \frac1b -> \frac{1}{b},
//     \frac{1}2 -> \frac{1}{2}, \sqrt3 -> \sqrt{3}, \frac\pi2 -> \frac{\pi}{2}.
//  7. (equations) "x=5" -> "5" when the text has exactly one '=' and its left side is a single
//     symbol: a letter or a control word (\alpha), optionally with a subscript (x_1, x_{10}).
//  8. ".5" -> "0.5" where '.' starts a number (at the start or after one of "{([,=+-*/^;:|<> ").
//  9. thousands separators: when the whole text is one number "1,234,567.5" -> "1234567.5".
// 10. when the whole text is an integer fraction "a/b" -> "\frac{a}{b}" ("-3/4" -> "-\frac{3}{4}").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rapidgrade::normalize {

/// The words removed by rule 4, after a number: lengths, areas, volumes, money, time, angles,
/// mass and counting units. Matched case-sensitively.
extern const std::string_view kUnitWords[];
extern const std::size_t kUnitWordCount;

/// Rounds of the rule sequence at most (the text normally stops changing after one).
constexpr int kMaxRounds = 4;

struct Options {
  bool units = true;      // rule 4
  bool equations = true;  // rule 7
};

struct Normalized {
  std::string text;
  bool percent = false;  // a '%' or '\%' was removed
};

/// Canonical form of `s` (rules above). O(n) time and memory per round, no recursion, any
/// nesting depth; never throws except std::bad_alloc.
Normalized normalize(std::string_view s, const Options& options = Options{});

}  // namespace rapidgrade::normalize
