// Brace and span scanning: find_boxed, find_math_spans, match_brace; the searches of the
// scanners (detail::find_str, detail::rfind_str, detail::ByteSet, utf8::ascii_end).
// Invariants: spans lie inside the input; find_math_spans finds the spans of the byte loop
// (math_spans_loop); a matched brace is a '}' after its '{'; find_str finds
// what std::string_view::find finds, from every start, and rfind_str what rfind finds, from the
// ends of prefixes of every size class, for needles of the scanners and for the
// input's own bytes; ByteSet::find what find_first_of finds; ascii_end the first byte >= 0x80;
// rfind_pair_icase and find_digit_or what a byte loop finds; MathDelimiters::next what the byte
// loop it stands for finds (a backslash takes the byte after it along), from every start, on
// one cursor moving forward and on a new one.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/scan.hpp"
#include "rapidgrade/utf8.hpp"

namespace sc = rapidgrade::scan;

namespace {

// The byte loop of the math scanners from i: the first '$' (when `dollar`) or backslash followed
// by a byte of `after`.
std::size_t math_delimiter_loop(std::string_view s, std::size_t i, bool dollar, std::string_view after) {
  while (i < s.size()) {
    if (s[i] == '\\') {
      if (i + 1 < s.size() && after.find(s[i + 1]) != std::string_view::npos) return i;
      i += 2;
    } else {
      if (s[i] == '$' && dollar) return i;
      ++i;
    }
  }
  return rapidgrade::detail::kNpos;
}

// The spans of the byte loop: from each opener ($, $$, \( or \[) on, its first closer of the same
// kind; an opener without one is passed over.
std::vector<sc::Span> math_spans_loop(std::string_view s) {
  constexpr std::size_t npos = rapidgrade::detail::kNpos;
  std::vector<sc::Span> spans;
  std::size_t i = math_delimiter_loop(s, 0, true, "([");
  while (i != npos) {
    const bool dollar = s[i] == '$';
    const bool display = dollar ? i + 1 < s.size() && s[i + 1] == '$' : s[i + 1] == '[';
    const std::size_t open_len = dollar && !display ? 1 : 2;
    std::size_t close;
    if (dollar) {
      close = math_delimiter_loop(s, i + open_len, true, {});
      while (display && close != npos && !(close + 1 < s.size() && s[close + 1] == '$')) {
        close = math_delimiter_loop(s, close + 1, true, {});
      }
    } else {
      close = math_delimiter_loop(s, i + 2, false, display ? "]" : ")");
    }
    if (close == npos) {
      i = math_delimiter_loop(s, i + open_len, true, "([");
      continue;
    }
    sc::Span span;
    span.outer_start = i;
    span.start = i + open_len;
    span.end = close;
    span.outer_end = close + (dollar && !display ? 1 : 2);
    span.kind = dollar ? (display ? sc::SpanKind::kDisplayDollar : sc::SpanKind::kInlineDollar)
                       : (display ? sc::SpanKind::kDisplayBracket : sc::SpanKind::kInlineParen);
    spans.push_back(span);
    i = math_delimiter_loop(s, span.outer_end, true, "([");
  }
  return spans;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  for (const sc::Span& span : sc::find_boxed(text)) {
    RAPIDGRADE_FUZZ_CHECK(span.start <= span.end && span.end <= text.size());
    RAPIDGRADE_FUZZ_CHECK(span.outer_start <= span.start && span.end <= span.outer_end &&
                          span.outer_end <= text.size());
  }
  const std::vector<sc::Span> math = sc::find_math_spans(text);
  const std::vector<sc::Span> expected_math = math_spans_loop(text);
  RAPIDGRADE_FUZZ_CHECK(math.size() == expected_math.size());
  for (std::size_t k = 0; k < math.size(); ++k) {
    const sc::Span& span = math[k];
    const sc::Span& want = expected_math[k];
    RAPIDGRADE_FUZZ_CHECK(span.start <= span.end && span.end <= text.size());
    RAPIDGRADE_FUZZ_CHECK(span.outer_start == want.outer_start && span.start == want.start && span.end == want.end &&
                          span.outer_end == want.outer_end && span.kind == want.kind);
  }
  const std::size_t open = text.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = sc::match_brace(text, open);
    if (close != std::string_view::npos)
      RAPIDGRADE_FUZZ_CHECK(close > open && close < text.size() && text[close] == '}');
  }
  // needles: the scanners' own, and the input's first bytes (so that they occur in it)
  const std::string_view own[] = {
      "ox", "\\begin{", "</answer>", "<answer>", "</think>", text.substr(0, 1 + size % 5), text.substr(size / 2, 3)};
  for (const std::string_view needle : own) {
    if (needle.empty()) continue;
    for (std::size_t from = 0; from <= text.size() + 1; from += 1 + from / 8) {
      RAPIDGRADE_FUZZ_CHECK(rapidgrade::detail::find_str(text, from, needle) == text.find(needle, from));
    }
    // rfind_str from the end of prefixes of every size class (each search reads its prefix whole)
    for (std::size_t end = 0; end <= text.size() + 1; end += 1 + end / 2) {
      const std::string_view prefix = text.substr(0, end);
      RAPIDGRADE_FUZZ_CHECK(rapidgrade::detail::rfind_str(prefix, needle) == prefix.rfind(needle));
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
  // MathDelimiters::next(from): the first stop >= from of the byte loop read from the start,
  // stopping at '$' and at a backslash before ( [ ) ] (a stop's next byte is never a backslash,
  // so the loop goes on from there)
  rapidgrade::detail::MathDelimiters forward(text);  // one cursor, from start to start
  std::size_t delimiter = math_delimiter_loop(text, 0, true, "([)]");
  for (std::size_t from = 0; from <= text.size(); from += 1 + from / 8) {
    while (delimiter < from) delimiter = math_delimiter_loop(text, delimiter + 1, true, "([)]");
    RAPIDGRADE_FUZZ_CHECK(forward.next(from) == delimiter);
    RAPIDGRADE_FUZZ_CHECK(rapidgrade::detail::MathDelimiters(text).next(from) == delimiter);
    const std::size_t end = text.size() - from / 2;
    std::size_t last = end;  // one past the last "sw"/"SW"/"sW"/"Sw" starting in [from / 2, end - 1)
    while (last > from / 2 + 1 && !(rapidgrade::detail::to_lower(text[last - 2]) == 's' &&
                                    rapidgrade::detail::to_lower(text[last - 1]) == 'w')) {
      --last;
    }
    RAPIDGRADE_FUZZ_CHECK(rapidgrade::detail::rfind_pair_icase(text, from / 2, end, 's', 'w') ==
                          (last > from / 2 + 1 ? last - 2 : rapidgrade::detail::kNpos));
    std::size_t digit = from / 2;
    while (digit < end && !rapidgrade::detail::is_digit(text[digit]) && text[digit] != '.' && text[digit] != '\\') {
      ++digit;
    }
    RAPIDGRADE_FUZZ_CHECK(rapidgrade::detail::find_digit_or(text, from / 2, end, '.', '\\') == digit);
    std::size_t expected = from;
    while (expected < text.size() && static_cast<unsigned char>(text[expected]) < 0x80) ++expected;
    RAPIDGRADE_FUZZ_CHECK(rapidgrade::utf8::ascii_end(text, from, text.size()) == expected);
  }
  return 0;
}
