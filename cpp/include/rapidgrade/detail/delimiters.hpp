// What wraps an answer: math delimiters and box commands, each read by one function.
//
// Used by extraction (the value after "the answer is", nested boxes), by grading (the gold
// answer), by scan::find_boxed (the bare "\boxed 5" argument) and by scan::find_math_spans.
// Byte offsets into UTF-8; only ASCII bytes are compared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::detail {

/// The argument of a box written without braces, "\boxed 5" or "\boxed5", starting at `begin`:
/// the run of bytes up to whitespace, '$', '{', '}' or a backslash, without trailing '.', ','
/// and ';'. Returns the end of the run (== begin when it is empty). O(length of the run).
/// E.g. at "5. Done" -> the end of "5"; at "x$" -> the end of "x"; at "{1}" -> begin.
constexpr std::size_t bare_box_argument_end(std::string_view s, std::size_t begin) noexcept {
  std::size_t k = begin;
  while (k < s.size() && !is_space(s[k]) && s[k] != '$' && s[k] != '{' && s[k] != '}' && s[k] != '\\') ++k;
  while (k > begin && (s[k - 1] == '.' || s[k - 1] == ',' || s[k - 1] == ';')) --k;
  return k;
}

/// The math delimiters of a text from left to right: next(from) is the first position p >= from
/// holding an unescaped '$', or an unescaped backslash followed by one of ( [ ) ]. A byte is
/// unescaped when the run of backslashes right before it is even: a backslash takes the byte
/// after it along, so "\\$" holds no delimiter and "\\\\$" one. With SSE2, sixteen positions are
/// compared at once (with AVX2, where has_avx2() says so, 64 while 65 bytes are left) and kept
/// while the calls move forward through them, so each block of the text is compared once however
/// many calls read it; a call behind the block compares again from there. Each run of
/// backslashes is counted once per delimiter after it. Never throws.
class MathDelimiters {
 public:
  explicit MathDelimiters(std::string_view s) noexcept : s_(s) {}

  std::size_t next(std::size_t from) noexcept {
    const std::size_t n = s_.size();
    if (from >= block_ && from - block_ < block_width_) {  // in the block compared last
      const std::size_t p = first_unescaped(mask_ >> (from - block_), from);
      if (p != kNpos) return p;
      from = block_ + block_width_;
    }
#if RAPIDGRADE_AVX2_DISPATCH
    if (wide_) {
      while (from + kWideBlock + 1 <= n) {
        std::uint64_t mask = 0;
        from = find_block_avx2(from, mask);
        if (mask == 0) break;  // fewer than kWideBlock + 1 bytes left
        const std::size_t p = enter_block(from, kWideBlock, mask);
        if (p != kNpos) return p;
        from += kWideBlock;
      }
    }
#endif
#if defined(__SSE2__)
    for (; from + kBlock + 1 <= n; from += kBlock) {
      const unsigned mask = compare_block(from);
      if (mask == 0) continue;
      const std::size_t p = enter_block(from, kBlock, mask);
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

  /// The first delimiter at or after `from` that is the closer `close` ("$", "$$", "\)" or
  /// "\]"), passing over the other delimiters, or kNpos. "$" is any '$', "$$" a '$' followed
  /// by another. E.g. "$$" in "a$b$$" from 1 -> 3.
  std::size_t closer(std::size_t from, std::string_view close) noexcept {
    const auto is_close = [&](std::size_t q) {  // close is one or two bytes
      return s_[q] == close[0] && (close.size() == 1 || (q + 1 < s_.size() && s_[q + 1] == close[1]));
    };
    std::size_t q = next(from);
    while (q != kNpos && !is_close(q)) q = next(q + 1);
    return q;
  }

 private:
  static constexpr std::size_t kBlock = 16;

  static constexpr bool closes_after_backslash(char c) noexcept {
    return c == '(' || c == ')' || c == '[' || c == ']';
  }

#if RAPIDGRADE_AVX2_DISPATCH
  // Bytes compared at a time by the AVX2 loop (two vectors).
  static constexpr std::size_t kWideBlock = 64;

  // compare_block's comparisons kWideBlock positions at a time: from `from` on, the first block
  // [b, b + 64) with a candidate (mask set to its bits, bit k: position b + k), or, with mask
  // 0, the position where fewer than 65 bytes are left.
  __attribute__((target("avx2"))) std::size_t find_block_avx2(std::size_t from, std::uint64_t& mask) const noexcept {
    const std::size_t n = s_.size();
    const __m256i backslash = _mm256_set1_epi8('\\'), dollar = _mm256_set1_epi8('$');
    const __m256i one = _mm256_set1_epi8(1), paren = _mm256_set1_epi8(')');
    const __m256i open = _mm256_set1_epi8('['), close = _mm256_set1_epi8(']');
    for (; from + kWideBlock + 1 <= n; from += kWideBlock) {
      std::uint64_t bits = 0;
      for (std::size_t half = 0; half < 2; ++half) {
        const char* p = s_.data() + from + 32 * half;
        const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
        const __m256i after = _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_or_si256(next, one), paren),
                                              _mm256_or_si256(_mm256_cmpeq_epi8(next, open), _mm256_cmpeq_epi8(next, close)));
        const __m256i pair = _mm256_and_si256(_mm256_cmpeq_epi8(w, backslash), after);
        const auto m = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_or_si256(pair, _mm256_cmpeq_epi8(w, dollar))));
        bits |= static_cast<std::uint64_t>(m) << (32 * half);
      }
      if (bits != 0) {
        mask = bits;
        return from;
      }
    }
    mask = 0;
    return from;
  }
#endif

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

  // Keeps the block [b, b + width) and its candidates `mask` for the calls after this one, and
  // returns its first unescaped candidate, or kNpos.
  std::size_t enter_block(std::size_t b, std::size_t width, std::uint64_t mask) noexcept {
    block_ = b;
    block_width_ = width;
    mask_ = mask;
    return first_unescaped(mask, b);
  }

  // The first candidate of `mask` (bit k: position from + k) that no backslash escapes, or kNpos.
  std::size_t first_unescaped(std::uint64_t mask, std::size_t from) const noexcept {
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t p = from + static_cast<std::size_t>(__builtin_ctzll(mask));
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
  std::size_t block_ = kNpos;  // the block [block_, block_ + block_width_) that mask_ describes
  std::size_t block_width_ = 0;
  std::uint64_t mask_ = 0;
  const bool wide_ = has_avx2();  // the AVX2 loop first
};

/// The next closing math delimiter `close` ("$", "$$", "\)" or "\]") at or after `from`, a
/// token boundary, or kNpos (MathDelimiters::closer: a backslash escapes the byte after it, so
/// "\$" closes nothing, except that it starts the closers "\)" and "\]"). E.g. "$$" in "a$b$$"
/// -> 3. O(n).
inline std::size_t find_math_closer(std::string_view s, std::size_t from, std::string_view close) noexcept {
  return MathDelimiters(s).closer(from, close);
}

/// Which wrappers unwrap() peels off (a bit set).
enum class Wrappers : std::uint8_t {
  kMath = 1,   // $$..$$, $..$, \(..\), \[..\]   (see unwrap)
  kBoxes = 2,  // \boxed{..}, \fbox{..}, \boxed 5
  kAll = 3,
};

/// Layers of wrappers peeled at most: \boxed{\boxed{x}} and "$\boxed{x}$" need two.
inline constexpr int kMaxWrapperLayers = 8;

/// The text inside the wrappers that enclose all of `s`, peeled one layer at a time, at most
/// `max_layers` layers, trimmed of whitespace (is_space) before each layer and at the end.
/// A wrapper counts only when it encloses the whole text: "$a$ and $b$" and
/// "\boxed{1} \boxed{2}" are left alone. Per layer, the first of these that applies:
///  - "$$..$$" when the text between holds no unescaped '$' (a backslash escapes the byte after
///    it): "$$x^2$$" -> "x^2", "$$a$b$$" stays;
///  - "$..$" under the same condition, and the closing '$' is not right after a backslash:
///    "$\frac12$" -> "\frac12", "$\$5$" -> "\$5", "$5\$" stays;
///  - "\(..\)" and "\[..\]" when the text between does not contain the closing pair:
///    "\( x \)" -> "x", "\(a\) and \(b\)" stays;
///  - (kBoxes) \boxed or \fbox followed by optional whitespace and a brace group that ends the
///    text (braces matched as scan::match_brace does), or "\boxed" followed by a bare argument
///    (bare_box_argument_end) that ends the text: "\boxed{ 42 }" -> "42", "\boxed 5" -> "5".
/// Returns a view into `s` (possibly empty, "$$" -> ""). O(max_layers * n), no recursion, no
/// allocation, never throws.
std::string_view unwrap(std::string_view s, Wrappers which, int max_layers) noexcept;

}  // namespace rapidgrade::detail
