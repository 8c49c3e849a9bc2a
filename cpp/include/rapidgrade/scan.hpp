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

#include "rapidgrade/detail/delimiters.hpp"

namespace rapidgrade::scan {

enum class SpanKind : std::uint8_t {
  kBoxed,          // \boxed{...} or \boxed 5
  kFbox,           // \fbox{...}
  kInlineDollar,   // $...$
  kDisplayDollar,  // $$...$$
  kInlineParen,    // \(...\)
  kDisplayBracket  // \[...\]
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

/// The spans of find_math_spans, each handed to emit(outer_start, start, end, outer_end, kind)
/// in order instead of being collected (extraction builds its own list from them). O(n), no
/// allocation of its own.
template <typename Emit>
void for_each_math_span(std::string_view s, Emit&& emit) {
  // Kinds of span: $..$, $$..$$, \(..\), \[..\]. An opener is matched with the first closer of
  // its kind after it, across the other kinds' delimiters. A failed search for a closer proves
  // there is none until the end of the text, so each kind of closer is searched for in vain at
  // most once: O(n) overall.
  static constexpr std::string_view kClosers[4] = {"$", "$$", "\\)", "\\]"};
  static constexpr SpanKind kKinds[4] = {SpanKind::kInlineDollar, SpanKind::kDisplayDollar, SpanKind::kInlineParen,
                                         SpanKind::kDisplayBracket};
  constexpr std::size_t npos = std::string_view::npos;
  const std::size_t n = s.size();
  bool exhausted[4] = {false, false, false, false};
  detail::MathDelimiters delimiters(s);
  std::size_t i = delimiters.next(0);
  while (i != npos) {
    int kind;
    if (s[i] == '$') {
      kind = i + 1 < n && s[i + 1] == '$' ? 1 : 0;
    } else if (s[i + 1] == '(' || s[i + 1] == '[') {
      kind = s[i + 1] == '(' ? 2 : 3;
    } else {
      i = delimiters.next(i + 2);  // a closer outside a span is text
      continue;
    }
    const std::size_t open_len = kClosers[kind].size();  // an opener is as long as its closer
    std::size_t close = npos;
    if (!exhausted[kind]) close = delimiters.closer(i + open_len, kClosers[kind]);
    if (close == npos) {
      exhausted[kind] = true;
      i = delimiters.next(i + open_len);
      continue;
    }
    const std::size_t outer_end = close + kClosers[kind].size();
    emit(i, i + open_len, close, outer_end, kKinds[kind]);
    i = delimiters.next(outer_end);
  }
}

/// Position of the '}' matching the '{' at `open` (escapes respected), or npos when the brace is
/// never closed. `open` must index a '{'. O(n), no recursion.
std::size_t match_brace(std::string_view text, std::size_t open) noexcept;

}  // namespace rapidgrade::scan
