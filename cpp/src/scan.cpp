#include "rapidgrade/scan.hpp"

#include <algorithm>
#include <string_view>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::scan {
namespace {

using detail::is_letter;
using detail::is_space;
using detail::kNpos;

// Bytes that can change the state of the boxed scanner.
struct SpecialTable {
  bool table[256] = {};
  constexpr SpecialTable() {
    table[static_cast<unsigned char>('{')] = true;
    table[static_cast<unsigned char>('}')] = true;
    table[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr SpecialTable kBoxedSpecial{};

// First position at or after i holding a special byte, or n.
inline std::size_t skip_plain(const char* s, std::size_t i, std::size_t n) noexcept {
  while (i + 4 <= n) {
    if (kBoxedSpecial.table[static_cast<unsigned char>(s[i])]) return i;
    if (kBoxedSpecial.table[static_cast<unsigned char>(s[i + 1])]) return i + 1;
    if (kBoxedSpecial.table[static_cast<unsigned char>(s[i + 2])]) return i + 2;
    if (kBoxedSpecial.table[static_cast<unsigned char>(s[i + 3])]) return i + 3;
    i += 4;
  }
  while (i < n && !kBoxedSpecial.table[static_cast<unsigned char>(s[i])]) ++i;
  return i;
}

}  // namespace

const char* kind_name(SpanKind kind) noexcept {
  switch (kind) {
    case SpanKind::kBoxed: return "boxed";
    case SpanKind::kFbox: return "fbox";
    case SpanKind::kInlineDollar: return "$";
    case SpanKind::kDisplayDollar: return "$$";
    case SpanKind::kInlineParen: return "\\(";
    case SpanKind::kDisplayBracket: return "\\[";
  }
  return "?";
}

std::vector<Span> find_boxed(std::string_view s) {
  std::vector<Span> spans;
  // One entry per unmatched '{': index into `pending` of the box it opens, or kNpos.
  std::vector<std::size_t> stack;
  std::vector<Span> pending;
  const std::size_t n = s.size();
  std::size_t i = 0;
  while (i < n) {
    i = skip_plain(s.data(), i, n);
    if (i >= n) break;
    const char c = s[i];
    if (c == '{') {
      stack.push_back(kNpos);
      ++i;
    } else if (c == '}') {
      if (!stack.empty()) {
        const std::size_t box = stack.back();
        stack.pop_back();
        if (box != kNpos) {
          Span span = pending[box];
          span.end = i;
          span.outer_end = i + 1;
          spans.push_back(span);
        }
      }
      ++i;
    } else if (c == '\\') {
      if (i + 1 >= n) break;
      if (!is_letter(s[i + 1])) {  // escape such as \{ \} \\ \$ : skip both bytes
        i += 2;
        continue;
      }
      std::size_t j = i + 1;
      while (j < n && is_letter(s[j])) ++j;
      const std::string_view name = s.substr(i + 1, j - i - 1);
      const bool boxed = name == "boxed";
      if (!boxed && name != "fbox") {
        i = j;
        continue;
      }
      std::size_t k = j;
      while (k < n && is_space(s[k])) ++k;
      Span span;
      span.outer_start = i;
      span.kind = boxed ? SpanKind::kBoxed : SpanKind::kFbox;
      if (k < n && s[k] == '{') {
        span.start = k + 1;
        stack.push_back(pending.size());
        pending.push_back(span);
        i = k + 1;
      } else if (boxed) {
        const std::size_t end = detail::bare_box_argument_end(s, k);
        if (end > k) {
          span.start = k;
          span.end = end;
          span.outer_end = end;
          spans.push_back(span);
          i = end;
        } else {
          i = k;
        }
      } else {
        i = k;
      }
    }
  }
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.outer_start < b.outer_start; });
  return spans;
}

std::size_t match_brace(std::string_view s, std::size_t open) noexcept {
  std::size_t depth = 0;
  std::size_t i = open;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth == 0) return kNpos;
      if (--depth == 0) return i;
    }
    ++i;
  }
  return kNpos;
}

// Spans reserved at the first span found: a worked solution has tens of them (the vector grows
// past that).
constexpr std::size_t kReservedSpans = 32;

std::vector<Span> find_math_spans(std::string_view s) {
  std::vector<Span> spans;  // room reserved at the first span: a text without one allocates nothing
  for_each_math_span(
      s, [&spans](std::size_t outer_start, std::size_t start, std::size_t end, std::size_t outer_end, SpanKind kind) {
        if (spans.empty()) spans.reserve(kReservedSpans);
        Span& span = spans.emplace_back();  // filled in place: a Span built aside and copied
        span.start = start;                 // stalled on its store forwarding
        span.end = end;
        span.outer_start = outer_start;
        span.outer_end = outer_end;
        span.kind = kind;
      });
  return spans;
}

}  // namespace rapidgrade::scan
