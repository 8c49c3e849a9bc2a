// Canonical form of a LaTeX/plain-text answer, for string comparison of extracted answers.
//
// Input is UTF-8 (rule 0 makes each invalid byte U+FFFD). The rules below are normative. They
// are applied in the order given (each one a linear pass). Rule 0 runs once; rules 1-12 only
// delete or write ASCII bytes, so what rule 0 left stays folded, and their sequence is repeated
// until the text stops changing, at most kMaxRounds times, so that normalize(normalize(s)) ==
// normalize(s). Every example written as two quoted strings joined by an arrow holds for the
// whole sequence with the default Options: normalize(first).text == second.
// tests/unit/test_normalize_examples.py reads every such example from this file and checks it;
// the Python docstring (python/rapidgrade/normalize.py) states the same rules, and its examples
// are checked the same way.
//
//  0. Unicode math folded to LaTeX (unicode::fold_math): "½" -> "\frac{1}{2}",
//     "2½" -> "2\frac{1}{2}", "√2" -> "\sqrt{2}", "√(x+1)" -> "\sqrt{x+1}", full-width digits
//     "１２" -> "12", "x²" -> "x^{2}", "3×4" -> "3\times4", "−5" -> "-5".
//     An answer that is a number in English words is that number (detail/number_words.hpp):
//     "two" -> "2", "Twenty-one" -> "21", "three hundred and five" -> "305",
//     "negative five" -> "-5".
//     The CJK math words first (detail/markers.hpp): "根号" is the root sign, "根号3" ->
//     "\sqrt{3}"; "无穷大" -> "\infty", "负无穷" -> "-\infty", "正无穷大" -> "+\infty".
//  1. commands and signs:
//     - \dfrac \tfrac \cfrac -> \frac: "\dfrac{1}{2}" -> "\frac{1}{2}";
//     - \left \right (and a '.' right after them) and \displaystyle removed:
//       "\left( 1, 2 \right)" -> "(1,2)", "\left. x \right|" -> "x|",
//       "\displaystyle \frac{1}{2}" -> "\frac{1}{2}"; other commands stay:
//       "x \rightarrow 0" -> "x\rightarrow0";
//     - spacing (the table detail/latex_vocab.hpp): the thin commands \! \, \; \: \thinspace
//       \negthinspace removed with the spaces after them: "3,\!250" -> "3250", "1\,000" -> "1000",
//       "32,\! 349" -> "32349"; a backslash-space and '~'
//       become a space: "\pi~r" -> "\pi r"; the other wide ones are written \quad, the separator
//       of an answer's parts: "x=1\qquad y=2" -> "x=1\quad y=2";
//     - text wrappers (the table detail/latex_vocab.hpp: \text{..} \textbf{..} \textit{..}
//       \textrm{..} \textnormal{..} \mathrm{..} \mathbf{..} \mathit{..} \mathsf{..} \boldsymbol{..}
//       \mbox{..} ...) unwrapped: "\text{(A)}" -> "(A)", "\mathrm{B}" -> "B", "\mathbf{5}" -> "5",
//       "\text{\textit{nested}}" -> "nested";
//     - every '$' and \$ removed, wherever it is: "$x$" -> "x", "\$6" -> "6",
//       "$5$ and $6$" -> "5 and 6" (the other math delimiters stay: "\(x\)" -> "\(x\)"; peeling
//       delimiters that enclose a whole answer is detail::unwrap's job, before normalization);
//     - the degree marks (the table detail/latex_vocab.hpp: ^\circ, ^{\circ}, \degree, U+00B0)
//       removed (and `degrees` set): "120^\circ" -> "120", "45^{\circ}" -> "45", "90°" -> "90";
//     - \% and % removed (and `percent` set): "25\%" -> "25", "25%" -> "25";
//     - U+2212 -> '-' (also done by rule 0);
//     - "{,}" between digits: ',' before exactly three digits, else '.' (a decimal comma):
//       "10{,}000" -> "10000", "0{,}5" -> "0.5".
//  2. whitespace runs -> one space, then trimmed: " \pi   r " -> "\pi r" (rule 5 keeps that space).
//  3. trailing '.' (and whitespace) removed: "5." -> "5".
//  4. (units) trailing unit words after a number or a closing brace removed (kUnitWords, several
//     in a row, each optionally with an integer power; "percent" also sets `percent`, "degrees"
//     and "degree" set `degrees`):
//     "5 cm" -> "5", "100 square units" -> "100", "12 cm^2" -> "12",
//     "\frac{1}{2} inch" -> "\frac{1}{2}", "12 percent" -> "12"; not after a letter: "x cm" -> "xcm".
//     The units of the units table (detail/units.hpp) too, with SI prefixes and any integer
//     power, joined by blanks, '/', '*' or "\cdot": "540 nm" -> "540", "3.0 m / s" -> "3.0",
//     "146 J mol^{-1} K^{-1}" -> "146" (not its rows read only alone: "in", "mi", "D").
//     Also after \pi ("\frac{3}{4}\pi inches"); two unit words of two letters or more run
//     together are one ("5 sqft"); one group of unit words in braces of its own, no command's
//     argument and no one-letter word (a "\text" lost): "69{degrees}" -> "69" (degrees),
//     "8\sqrt{3}{squareinches}" -> "8\sqrt{3}"; "\frac{1}{cm}" and "5{m}" stay.
//  5. a mixed number that is the whole text keeps its whole part apart: "1 1/4" ->
//     "1\frac{1}{4}" (read as 5/4, as "1\frac{1}{4}" is), "-2 3/8" -> "-2\frac{3}{8}"; only with
//     a numerator below the denominator ("12 345/678" is rule 5's "12345/678").
//     Then spaces removed, except one between a control word and a following letter, one on
//     each side of a joiner word "and" or "or" alone between math (after a digit, a closing
//     bracket, '!', a prime, a control word or a lone letter; before a digit, a sign, an opening
//     bracket, a control word or a lone letter), which the parser reads as a joiner, and one
//     after a comma between a digit and exactly three digits in a bare list of numbers, where
//     the comma separates the list's parts, not thousands (a thousands separator is never
//     followed by a space): "1 + 2" -> "1+2", "2\pi r" -> "2\pi r", "x = 1 or x = 2" ->
//     "x=1 or x=2", "yes or no" -> "yesorno", "45, 135" -> "45, 135", "1, 23" -> "1,23",
//     "(12, 102)" -> "(12,102)".
//  6. \frac and \sqrt arguments braced: "\frac12" -> "\frac{1}{2}", "\frac1b" -> "\frac{1}{b}",
//     "\frac{1}2" -> "\frac{1}{2}", "\sqrt3" -> "\sqrt{3}", "\frac\pi2" -> "\frac{\pi}{2}",
//     "\sqrt[3]8" -> "\sqrt[3]{8}".
//  7. (equations) the right side when the text has exactly one '=' and its left side is a single
//     symbol: a letter or a control word, optionally with a subscript: "x=5" -> "5",
//     "\theta = \pi" -> "\pi", "x_1=2" -> "2", "x_{10}=3" -> "3", "y = 2x" -> "2x"; other
//     equations stay: "x+y=5" -> "x+y=5", "x=y=5" -> "x=y=5".
//  8. a '0' before a '.' that starts a number (at the start or after one of { ( [ , = + - * / ^
//     ; : | < > or a space): ".5" -> "0.5", "-.5" -> "-0.5", "x+.5" -> "x+0.5".
//  9. thousands separators removed when the whole text is one number: "1,234,567.5" -> "1234567.5";
//     tuples keep their commas: "(1,2)" -> "(1,2)"; a list keeps its space: "1, 234" -> "1, 234".
// 10. an integer fraction that is the whole text -> \frac: "3/4" -> "\frac{3}{4}",
//     "-3/4" -> "-\frac{3}{4}"; "x/4" -> "x/4".
// 11. a CJK list joiner (detail/markers.hpp: "和" / "或") between two math characters is a comma,
//     "1和3" -> "1,3", "2 或 5" -> "2,5", also where other rules made it so: "$x$或$2$" -> "x,2".
// 12. the CJK math words of rule 0 again, where other rules brought their characters together:
//     "根$$号3" -> "\sqrt{3}".
// 13. (parts; run after rule 4) an answer of enumerated parts is the list of its parts
//     (detail/parts.hpp: "(1)", "(i)", "(I)", "(a)", "①", "⑴" and their full-width forms; label
//     1 at the start, the next ones in order, each after a blank or a separator, outside any
//     bracket): "(1) -\frac{1}{2}; \quad (2) \ln 2" -> "-\frac{1}{2},\ln2",
//     "① 3 ② 5" -> "3,5", "（1）5 cm；（2）7 cm" -> "5,7" (each part's units go, as rule 4's),
//     "(a) x = 1 and (b) y = 2." -> "x=1,y=2". Parts that are no answers leave the text as it
//     is: an empty one, a list ("(1) 1; 2 (2) 3" -> "(1)1;2(2)3"), an operator at either end.
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
  // A degree mark (rule 1) or the unit word "degrees" (rule 4) was removed: the answer is an
  // angle in degrees, which grading reads as its number or as that many times pi/180
  // (grade::Answer).
  bool degrees = false;
};

/// Canonical form of `s` (rules above). O(n) time and memory per round, no recursion, any
/// nesting depth; never throws except std::bad_alloc.
Normalized normalize(std::string_view s, const Options& options = Options{});

}  // namespace rapidgrade::normalize
