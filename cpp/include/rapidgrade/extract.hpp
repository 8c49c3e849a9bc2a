// Final-answer extraction from free-form model output.
//
// All offsets are byte offsets into the UTF-8 input; the bindings convert them to the caller's
// units (code points for Python str). Every routine is a hand-written scanner: O(n) time in the
// input length, no recursion, no std::regex, any brace depth. Invalid UTF-8 is tolerated (the
// scanners only compare ASCII bytes and the UTF-8 encoding of U+2212).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapidgrade::extract {

/// Which rule found an answer. kAuto is only a strategy, never a method.
enum class Method : std::uint8_t {
  kAuto,
  kBoxed,        // the last top-level \boxed{...} / \fbox{...}
  kBoxedMulti,   // several boxes in the final sentence, joined with ", "
  kAnswerIs,     // "the answer is X", "Final Answer: X", "**Answer:** X", "answer: X"
  kTagged,       // <answer>X</answer>, or GSM8K-style "#### X"
  kCodeOutput,   // the last ```output / ```text block that follows a code block
  kChoice,       // a multiple-choice letter closing the text: "Answer B", "(ANSWER E)", a lone "C"
  kBare,         // the whole response is one answer: "pi/2", "$45^\circ$", "(1, 2)", "Yes"
  kFinalSpan,    // the last math span(s) of the final statement, chains cut to their last member
  kLastNumber,   // the last number in the text (the last resort); keep it the last enumerator
};

/// Name exposed to Python: "auto", "boxed", "boxed_multi", "answer_is", "tagged", "code_output",
/// "choice", "bare", "final_span", "last_number".
const char* method_name(Method method) noexcept;

/// Parses a strategy name (any method name except "boxed_multi"). Returns false when unknown.
bool parse_strategy(std::string_view name, Method& out) noexcept;

/// True for the methods that guess where an unmarked answer is (kFinalSpan, kLastNumber): a
/// mismatch found through them is only certain when the other readings (other_readings())
/// do not match either.
constexpr bool is_weak(Method m) noexcept { return m == Method::kFinalSpan || m == Method::kLastNumber; }

/// A part [start, end) of the input.
struct Range {
  std::size_t start = 0;
  std::size_t end = 0;
};

/// A delimited part of the input: [outer_start, outer_end) with its delimiters ("$x$",
/// "\boxed{x}", "\begin{align}...\end{align}"), [start, end) between them.
struct Box {
  std::size_t outer_start = 0;
  std::size_t start = 0;
  std::size_t end = 0;
  std::size_t outer_end = 0;
};

/// An extracted answer. For every method but kBoxedMulti the answer is text[start, end) and
/// `parts` is empty. For kBoxedMulti, `parts` holds each box's content in order, the answer is
/// their texts joined with ", ", and [start, end) runs from the first part's start to the last
/// part's end.
/// For kAnswerIs (in the cascade or alone), `others` holds the answer with the rest of its line
/// when the answer stopped at a sentence end before it (the reading of a gold of several
/// sentences); it is empty for every other method. The other readings of a weak answer
/// (is_weak) are not computed by the extraction: a grader needs them only when that answer does
/// not match, so other_readings() computes them from what the cascade keeps here (`readings`).
struct Extraction {
  Method method = Method::kAuto;
  std::size_t start = 0;
  std::size_t end = 0;
  std::vector<Range> parts;
  std::vector<Range> others;
  /// Kept by the cascade for other_readings() when a weak method found the answer: the math
  /// spans of the searched text (none kept by a method run alone, nor when the text has none),
  /// where the search began, and the first span of the answer.
  struct Readings {
    std::vector<Box> spans;
    std::size_t from = 0;
    std::size_t first_span = 0;
  } readings;
};

/// Byte offset where the searched region begins: just after the last "</think>", or 0.
/// O(n).
std::size_t search_start(std::string_view text) noexcept;

/// Finds the answer in `text` with one strategy, or with the cascade boxed -> answer_is ->
/// tagged -> code_output -> choice -> bare -> final_span -> last_number for kAuto (first hit
/// wins). Only the text after the last "</think>" is searched when that tag is present.
/// Returns nullopt when nothing is found.
/// Complexity: O(n) time per strategy; the cascade runs at most eight linear scans.
/// Never throws for any input.
std::optional<Extraction> extract_answer(std::string_view text, Method strategy = Method::kAuto);

/// The other plausible readings of the final statement of `text` when the cascade of
/// extract_answer(text) found `e` by a weak method (is_weak), in that order: for kFinalSpan, the
/// other math spans of the final sentence (back to a sentence break or to the span that the
/// sentence concludes with), then the last number when it lies outside the answer; for
/// kLastNumber, the last math span with content, when it does not overlap the number. Empty
/// for any other extraction (a method run alone included). Reads only the neighbourhood of
/// those spans, and for kFinalSpan the text back from its end to its last number: O(n) at worst.
std::vector<Range> other_readings(std::string_view text, const Extraction& e);

/// Where the sentence or line that starts at `j` ends: the first line break (a "\\" before it
/// included), or the first '.', '!' or '?' followed by white space or the end, outside $...$,
/// \(...\) and braces; s.size() when there is none. What an "answer is" answer runs to. O(n).
std::size_t sentence_end(std::string_view s, std::size_t j) noexcept;

/// The answer text of `e` (for kBoxedMulti, the parts joined with ", ").
std::string answer_text(std::string_view text, const Extraction& e);

// The key/value field protocol ("SOLUTION: u(x) = ...") is in fields.hpp.

}  // namespace rapidgrade::extract
