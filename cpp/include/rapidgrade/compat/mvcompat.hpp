// Emulation of math-verify 0.9.0's boxed extraction patterns (math_verify/parser.py), for the
// fast path of the math-verify compatible API.
//
// With the default LatexExtractionConfig, math-verify's priority-50 group holds two LaTeX
// patterns that look for \boxed (besides the "final answer ... is" patterns, which the caller
// rules out before asking):
//   A. a math environment whose content holds a \boxed{...}: $$...$$, \[...\], $...$, \(...\),
//      or " [...] ", optionally followed by a percent sign and by up to five more such
//      environments joined by "and", "or" or ",";
//      e.g. "so \[ x = \boxed{42} \]" matches from "\[" to the end of the whitespace after "\]";
//   B. "\boxed{" up to the last "}" of the text (DOTALL, greedy);
//      e.g. "\boxed{1} and {2}" matches all of it.
// math-verify takes every match of both (re.finditer), sorts them by end (rightmost first, then
// leftmost start, then pattern order) and tries them in that order. This module finds the match
// math-verify tries first, exactly, or says it cannot be sure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rapidgrade::mvcompat {

enum class BoxedStatus : std::uint8_t {
  kNone,     // neither pattern matches anywhere
  kFound,    // `BoxedWinner` describes the match tried first
  kUnknown,  // a case this emulation does not decide (non-ASCII at a decision point, a percent
             // sign or an "and"/"or"/"," chain after an environment): ask math-verify
};

/// The boxed-pattern match math-verify tries first.
struct BoxedWinner {
  BoxedStatus status = BoxedStatus::kNone;
  bool plain = false;           // true: pattern B (normalized with boxed="last"); false: pattern A
  std::size_t begin = 0;        // the match's LaTeX group (A: the environment's content; B: the
  std::size_t end = 0;          // whole match), byte offsets
  std::size_t match_start = 0;  // the whole match, byte offsets
  std::size_t match_end = 0;
};

/// The first boxed match of math-verify 0.9.0's default LaTeX extraction on `text` (UTF-8).
/// Decisions that depend on a non-ASCII character (Python's \s and \d are Unicode-aware) give
/// kUnknown. Complexity: O(n) time (forward cursors, no rescanning), O(1) memory, no recursion.
/// Never throws.
BoxedWinner boxed_winner(std::string_view text) noexcept;

/// The last-number answer of math-verify 0.9.0's default extraction, where it is certain.
///
/// For a response with no "answer" (any case), no "\boxed{" and hence no "final answer", every
/// priority group of the default configs before 300 is empty, and group 300 holds the plain LaTeX
/// environments (L), the anchored expressions (X: digits with an operator) and the anchored
/// numbers (N):
///   N  (?:^|\s|=)(?:\*\*)?[currency]?(?<!\d)(?:integer1 decimal1? | integer2 decimal2 |
///      decimal3 | integer3)(?:\s*(?:%|[Pp]ercent|...|[Pp]ct))?
/// math-verify sorts the group's matches by end (rightmost first) and tries them in turn; a number
/// always parses, so the last N match (re.finditer, emulated exactly) is the answer when it ends
/// strictly after every L and X match could end. Those ends are bounded from above: an L match
/// ends after its last closing delimiter ('$', ']', ')' or '}'), its trailing whitespace and a
/// percent word; an X match ends at most one character after the last run of expression
/// characters ([0-9.\s+\-*/^()]) that holds an operator after a digit.
struct LastNumber {
  BoxedStatus status = BoxedStatus::kNone;  // kFound: `number` is the answer; kUnknown: ask
                                            // math-verify; kNone: no N match at all (also ask)
  // math-verify's number string (`number_size` bytes): the integer without separators and
  // leading zeros ("" -> "0"), then the decimal part with "." (e.g. "1.5", "-007", "0.25").
  std::array<char, 64> number{};
  std::size_t number_size = 0;
  bool percent = false;         // the match ends with a percent sign or word
  std::size_t match_start = 0;  // the whole N match, byte offsets
  std::size_t match_end = 0;
};

/// The longest number string `last_number` returns (longer ones give kUnknown; fits `number`).
inline constexpr std::size_t kMaxNumberChars = 60;

/// See LastNumber. `text` is UTF-8. Python's \s and \d are Unicode-aware, and (?i:answer)
/// folds some non-ASCII letters: unless the caller has checked that no non-ASCII character of
/// `text` is a whitespace, a decimal digit, a currency sign of math-verify's list, x or / signs
/// (U+00D7, U+00F7) or a letter that folds to ASCII (`non_ascii_inert`), any non-ASCII byte gives
/// kUnknown. O(n) time, O(1) memory besides the result, no recursion. Never throws.
LastNumber last_number(std::string_view text, bool non_ascii_inert) noexcept;

}  // namespace rapidgrade::mvcompat
