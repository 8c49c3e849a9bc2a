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

namespace {

// The math delimiters of a text from left to right: next(from) is the first position p >= from
// holding an unescaped '$', or an unescaped backslash followed by one of ( [ ) ] (a byte is
// unescaped when the run of backslashes right before it is even: a backslash takes the byte
// after it along, so "\\$" holds no delimiter and "\\\\$" one). Sixteen positions are compared
// at once (SSE2) and kept while the calls move forward through them, so each block of the text
// is compared once however many calls read it; a call behind the block compares again from
// there. Each run of backslashes is counted once per delimiter after it.
class DelimiterCursor {
 public:
  explicit DelimiterCursor(std::string_view s) noexcept : s_(s) {}

  std::size_t next(std::size_t from) noexcept {
    const std::size_t n = s_.size();
    if (from >= block_ && from - block_ < kBlock) {  // in the block compared last
      const std::size_t p = first_unescaped(mask_ >> (from - block_), from);
      if (p != kNpos) return p;
      from = block_ + kBlock;
    }
#if defined(__SSE2__)
    for (; from + kBlock + 1 <= n; from += kBlock) {
      const unsigned mask = compare_block(from);
      if (mask == 0) continue;
      block_ = from;
      mask_ = mask;
      const std::size_t p = first_unescaped(mask, from);
      if (p != kNpos) return p;
    }
#endif
    for (; from < n; ++from) {
      if ((s_[from] == '$' || (s_[from] == '\\' && from + 1 < n && closes_after_backslash(s_[from + 1]))) &&
          unescaped(from)) {
        return from;
      }
    }
    return kNpos;
  }

 private:
  static constexpr std::size_t kBlock = 16;

  static constexpr bool closes_after_backslash(char c) noexcept {
    return c == '(' || c == ')' || c == '[' || c == ']';
  }

#if defined(__SSE2__)
  // Bit k set when s[b + k] may be a delimiter (escapes not looked at); needs b + 17 <= n.
  unsigned compare_block(std::size_t b) const noexcept {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_.data() + b));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_.data() + b + 1));
    const __m128i paren = _mm_cmpeq_epi8(_mm_or_si128(next, _mm_set1_epi8(1)), _mm_set1_epi8(')'));  // ( or )
    const __m128i bracket = _mm_or_si128(_mm_cmpeq_epi8(next, _mm_set1_epi8('[')), _mm_cmpeq_epi8(next, _mm_set1_epi8(']')));
    const __m128i pair = _mm_and_si128(_mm_cmpeq_epi8(w, _mm_set1_epi8('\\')), _mm_or_si128(paren, bracket));
    return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(pair, _mm_cmpeq_epi8(w, _mm_set1_epi8('$')))));
  }
#endif

  // The first candidate of `mask` (bit k: position from + k) that no backslash escapes, or kNpos.
  std::size_t first_unescaped(unsigned mask, std::size_t from) const noexcept {
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t p = from + static_cast<std::size_t>(__builtin_ctz(mask));
      if (unescaped(p)) return p;
    }
    return kNpos;
  }

  bool unescaped(std::size_t p) const noexcept {
    std::size_t k = p;
    while (k > 0 && s_[k - 1] == '\\') --k;
    return ((p - k) & 1) == 0;
  }

  std::string_view s_;
  std::size_t block_ = kNpos;  // the block [block_, block_ + kBlock) that mask_ describes
  unsigned mask_ = 0;
};

}  // namespace

// Spans reserved up front: a worked solution has tens of them (the vector grows past that).
constexpr std::size_t kReservedSpans = 32;

std::vector<Span> find_math_spans(std::string_view s) {
  // Kinds of span: $..$, $$..$$, \(..\), \[..\]. An opener is matched with the first closer of
  // its kind after it, across the other kinds' delimiters. A failed search for a closer proves
  // there is none until the end of the text, so each kind of closer is searched for in vain at
  // most once: O(n) overall.
  static constexpr std::size_t kCloseLength[4] = {1, 2, 2, 2};
  static constexpr SpanKind kKinds[4] = {SpanKind::kInlineDollar, SpanKind::kDisplayDollar, SpanKind::kInlineParen,
                                         SpanKind::kDisplayBracket};
  const std::size_t n = s.size();
  const auto closes = [&](std::size_t q, int kind) {
    switch (kind) {
      case 0: return s[q] == '$';
      case 1: return s[q] == '$' && q + 1 < n && s[q + 1] == '$';
      case 2: return s[q] == '\\' && s[q + 1] == ')';
      default: return s[q] == '\\' && s[q + 1] == ']';
    }
  };
  bool exhausted[4] = {false, false, false, false};
  std::vector<Span> spans;
  spans.reserve(kReservedSpans);
  DelimiterCursor delimiters(s);
  std::size_t i = delimiters.next(0);
  while (i != kNpos) {
    int kind;
    if (s[i] == '$') {
      kind = i + 1 < n && s[i + 1] == '$' ? 1 : 0;
    } else if (s[i + 1] == '(' || s[i + 1] == '[') {
      kind = s[i + 1] == '(' ? 2 : 3;
    } else {
      i = delimiters.next(i + 2);  // a closer outside a span is text
      continue;
    }
    const std::size_t open_len = kind == 0 ? 1 : 2;
    std::size_t close = kNpos;
    if (!exhausted[kind]) {
      close = delimiters.next(i + open_len);
      while (close != kNpos && !closes(close, kind)) close = delimiters.next(close + 1);
    }
    if (close == kNpos) {
      exhausted[kind] = true;
      i = delimiters.next(i + open_len);
      continue;
    }
    Span& span = spans.emplace_back();  // filled in place: a Span built aside and copied
    span.start = i + open_len;          // stalled on its store forwarding
    span.end = close;
    span.outer_start = i;
    span.outer_end = close + kCloseLength[kind];
    span.kind = kKinds[kind];
    i = delimiters.next(span.outer_end);
  }
  return spans;
}

}  // namespace rapidgrade::scan
