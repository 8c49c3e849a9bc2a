// The bolded answer of a competition write-up (extract_internal.hpp, bold_answer): where a text
// sets the numbers of its answer in bold and nothing else, final_span reads the span that bolds
// the last of them, not the last span of the text; and a bold number after a marked answer is
// the value that answer comes to (read_bold_after_marker).
#include <optional>
#include <string_view>
#include <vector>

#include "extract_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"

namespace rapidgrade::extract::internal {

using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::kNpos;

namespace {

// Bytes of a bold group's content; a longer one is prose in bold, not a number.
constexpr std::size_t kMaxBoldGroup = 64;

enum class Bold : unsigned char { kNone, kNumber, kOther };

// The bold group whose command starts at s[k] (a backslash): what it holds, and its end in `end`.
Bold bold_group(std::string_view s, std::size_t k, std::size_t& end) noexcept {
  std::size_t e = detail::letters_end(s, k + 1);
  if (!detail::is_bold_command(s.substr(k + 1, e - k - 1))) return Bold::kNone;
  while (e < s.size() && is_blank(s[e])) ++e;
  if (e >= s.size() || s[e] != '{') return Bold::kNone;
  // the content up to the matching brace: digits (spaced or not) and what writes a number ("3
  // \pi", "-2", "1.5") are a number; a letter outside a command is a vector or a word
  bool digit = false, letter = false;
  std::size_t depth = 0;
  for (std::size_t c = e; c < s.size() && c - e <= kMaxBoldGroup; ++c) {
    const char x = s[c];
    if (x == '{') {
      ++depth;
    } else if (x == '}') {
      if (--depth == 0) {
        end = c + 1;
        return digit && !letter ? Bold::kNumber : Bold::kOther;
      }
    } else if (x == '\\') {
      c = detail::letters_end(s, c + 1) - 1;  // a command's name is no letter of the content
    } else if (is_digit(x)) {
      digit = true;
    } else if (is_letter(x)) {
      letter = true;
    }
  }
  return Bold::kOther;  // unbalanced, or too long
}

// Whether the comma at s[k] separates thousands ("1,000"): a digit before it and exactly three
// after it.
bool thousands_comma(std::string_view s, std::size_t k) noexcept {
  if (k == 0 || !is_digit(s[k - 1])) return false;
  std::size_t d = k + 1;
  while (d < s.size() && is_digit(s[d])) ++d;
  return d - k - 1 == 3;
}

// Whether s may bold something from `from`: most texts bold nothing, so a vector search for the
// commands' letters comes first ("bf" of \mathbf and \textbf, \boldsymbol, \bm;
// detail::kBoldCommands).
bool may_bold(std::string_view s, std::size_t from) noexcept {
  return detail::find_str(s, from, "bf") != kNpos || detail::find_str(s, from, "\\bold") != kNpos ||
         detail::find_str(s, from, "\\bm") != kNpos;
}

}  // namespace

std::optional<BoldAnswer> bold_answer(std::string_view s, std::size_t from, const std::vector<Box>& spans) {
  if (!may_bold(s, from)) return std::nullopt;
  std::size_t last = kNpos;
  for (std::size_t k = s.find('\\', from); k < s.size(); k = s.find('\\', k + 1)) {
    std::size_t end = k + 1;
    const Bold b = bold_group(s, k, end);
    if (b == Bold::kOther) return std::nullopt;  // bold letters or words: bold is no answer mark here
    if (b == Bold::kNumber) {
      last = k;
      k = end - 1;
    }
  }
  if (last == kNpos) return std::nullopt;
  for (std::size_t i = spans.size(); i > 0; --i) {
    const Box& box = spans[i - 1];
    if (last < box.start || last >= box.end) continue;
    // the part of the span from the top-level comma before its first bold number
    std::size_t part = box.start, depth = 0;
    for (std::size_t k = box.start; k < box.end; ++k) {
      const char c = s[k];
      if (c == '\\') {
        std::size_t end = k + 1;
        if (bold_group(s, k, end) == Bold::kNumber) break;
        if (k + 1 < box.end && (s[k + 1] == '{' || s[k + 1] == '}')) {
          depth = s[k + 1] == '{' ? depth + 1 : (depth > 0 ? depth - 1 : 0);
        }
        ++k;
      } else if (c == '{' || c == '(' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
        --depth;
      } else if (c == ',' && depth == 0 && !thousands_comma(s, k)) {
        part = k + 1;
      }
    }
    return BoldAnswer{i - 1, part};
  }
  return std::nullopt;
}

std::optional<Extraction> final_span_reading(std::string_view s, std::size_t from, const std::vector<Box>& spans) {
  if (const std::optional<BoldAnswer> bold = bold_answer(s, from, spans)) {
    if (std::optional<Extraction> e = find_final_span(s, spans, &*bold)) return e;
  }
  return find_final_span(s, spans);
}

void read_bold_after_marker(std::string_view text, std::size_t from, const Anchors& anchors,
                            std::optional<Extraction>& e) {
  if (!e || e->method != Method::kAnswerIs || e->start >= text.size() || !may_bold(text, e->start)) return;
  const std::string_view s = text.substr(0, final_statement_end(text, from));
  if (e->start >= s.size()) return;
  std::vector<Box> spans = math_spans(s, from, anchors);
  const std::optional<BoldAnswer> bold = bold_answer(s, e->start, spans);
  if (!bold) return;
  // the bold number in the span the marked answer was read from (or before it) is that answer
  const Box& box = spans[bold->span];
  if (box.start <= e->start || (box.outer_start <= e->start && e->start < box.outer_end)) return;
  std::optional<Extraction> b = find_final_span(s, spans, &*bold);
  if (!b) return;
  b->rivals.push_back(Range{e->start, e->end});
  b->readings.spans = std::move(spans);
  b->readings.from = from;
  b->readings.end = s.size();
  e = std::move(b);
}

}  // namespace rapidgrade::extract::internal
