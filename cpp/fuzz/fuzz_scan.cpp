// Brace and span scanning: find_boxed, find_math_spans, match_brace.
// Invariants: spans lie inside the input; a matched brace is a '}' after its '{'.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/scan.hpp"

namespace sc = rapidgrade::scan;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  for (const sc::Span& span : sc::find_boxed(text)) {
    RAPIDGRADE_FUZZ_CHECK(span.start <= span.end && span.end <= text.size());
    RAPIDGRADE_FUZZ_CHECK(span.outer_start <= span.start && span.end <= span.outer_end && span.outer_end <= text.size());
  }
  for (const sc::Span& span : sc::find_math_spans(text)) {
    RAPIDGRADE_FUZZ_CHECK(span.start <= span.end && span.end <= text.size());
  }
  const std::size_t open = text.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = sc::match_brace(text, open);
    if (close != std::string_view::npos) RAPIDGRADE_FUZZ_CHECK(close > open && close < text.size() && text[close] == '}');
  }
  return 0;
}
