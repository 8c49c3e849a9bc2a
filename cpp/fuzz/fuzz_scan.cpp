// Brace and span scanning: find_boxed, find_math_spans, match_brace; the searches of the
// scanners (detail::find_str, detail::ByteSet, utf8::ascii_end).
// Invariants: spans lie inside the input; a matched brace is a '}' after its '{'; find_str finds
// what std::string_view::find finds, from every start, for needles of the scanners and for the
// input's own bytes; ByteSet::find what find_first_of finds; ascii_end the first byte >= 0x80.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/scan.hpp"
#include "rapidgrade/utf8.hpp"

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
  // needles: the scanners' own, and the input's first bytes (so that they occur in it)
  const std::string_view own[] = {"ox", "\\begin{", "</answer>", "<answer>", text.substr(0, 1 + size % 5),
                                  text.substr(size / 2, 3)};
  for (const std::string_view needle : own) {
    if (needle.empty()) continue;
    for (std::size_t from = 0; from <= text.size() + 1; from += 1 + from / 8) {
      RAPIDGRADE_FUZZ_CHECK(rapidgrade::detail::find_str(text, from, needle) == text.find(needle, from));
    }
  }
  // byte sets: normalization's, and the input's own first bytes
  const std::string_view sets[] = {"\\{}$%~^\xC2\xE2", " \t\n\r\f\v", text.substr(0, size % 4)};
  for (const std::string_view bytes : sets) {
    const rapidgrade::detail::ByteSet set(bytes);
    for (std::size_t from = 0; from <= text.size(); from += 1 + from / 8) {
      const std::size_t expected = text.find_first_of(bytes, from);
      RAPIDGRADE_FUZZ_CHECK(set.find(text, from) == (expected == std::string_view::npos ? text.size() : expected));
    }
  }
  for (std::size_t from = 0; from <= text.size(); from += 1 + from / 8) {
    std::size_t expected = from;
    while (expected < text.size() && static_cast<unsigned char>(text[expected]) < 0x80) ++expected;
    RAPIDGRADE_FUZZ_CHECK(rapidgrade::utf8::ascii_end(text, from, text.size()) == expected);
  }
  return 0;
}
