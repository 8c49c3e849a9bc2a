// Scanning LaTeX in free text: \boxed{...} arguments and math-mode spans.
//
// All offsets are byte offsets into the UTF-8 input; the bindings convert them to the units of
// the caller's object (code points for Python str). Every function here is a single forward
// pass, O(n) time, O(depth) memory for the brace stack, and never recurses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rapidgrade::scan {

enum class SpanKind : std::uint8_t {
  kBoxed,         // \boxed{...} or \boxed 5
  kFbox,          // \fbox{...}
  kInlineDollar,  // $...$
  kDisplayDollar, // $$...$$
  kInlineParen,   // \(...\)
  kDisplayBracket // \[...\]
};

/// Name of a span kind as exposed to Python: "boxed", "fbox", "$", "$$", "\\(", "\\[".
const char* kind_name(SpanKind kind) noexcept;

/// A delimited region of text. [start, end) is the content; [outer_start, outer_end) includes
/// the command or delimiters, e.g. for "\boxed{42}" the content is "42".
struct Span {
  std::size_t start = 0;
  std::size_t end = 0;
  std::size_t outer_start = 0;
  std::size_t outer_end = 0;
  SpanKind kind = SpanKind::kBoxed;
};

/// Every \boxed{...} and \fbox{...} in `text`, ordered by outer_start (an outer box comes before
/// the boxes nested in it). Braces are matched by counting; escaped braces \{ and \} do not
/// count; "\\{" is a line break followed by a real brace. An unclosed \boxed{ yields no span.
/// Without braces, "\boxed 5" (also "\boxed5") takes the run of characters up to whitespace,
/// '$', '{' or '}' (trailing '.', ',' and ';' dropped).
/// Complexity: O(n) time, O(max brace depth) memory, no recursion, any depth.
std::vector<Span> find_boxed(std::string_view text);

/// Every math-mode span: $...$, $$...$$, \(...\) and \[...\], ordered by position, not nested
/// (a span's content is not searched for further spans). An escaped \$ is not a delimiter. An
/// opener without a closer is treated as text and scanning resumes after it.
/// Complexity: O(n) time and memory.
std::vector<Span> find_math_spans(std::string_view text);

/// Position of the '}' matching the '{' at `open` (escapes respected), or npos when the brace is
/// never closed. `open` must index a '{'. O(n), no recursion.
std::size_t match_brace(std::string_view text, std::size_t open) noexcept;

}  // namespace rapidgrade::scan
