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
  bool plain = false;       // true: pattern B (normalized with boxed="last"); false: pattern A
  std::size_t begin = 0;    // the match's LaTeX group (A: the environment's content; B: the
  std::size_t end = 0;      // whole match), byte offsets
  std::size_t match_start = 0;  // the whole match, byte offsets
  std::size_t match_end = 0;
};

/// The first boxed match of math-verify 0.9.0's default LaTeX extraction on `text` (UTF-8).
/// Decisions that depend on a non-ASCII character (Python's \s and \d are Unicode-aware) give
/// kUnknown. Complexity: O(n) time (forward cursors, no rescanning), O(1) memory, no recursion.
/// Never throws.
BoxedWinner boxed_winner(std::string_view text) noexcept;

}  // namespace rapidgrade::mvcompat
