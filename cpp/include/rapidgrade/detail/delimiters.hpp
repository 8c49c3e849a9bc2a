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

/// The blocks MathDelimiters compares at a time: kVectors vectors V (detail/simd.hpp) of the text
/// [d, d + n). From `from` on, the first block [b, b + kVectors * V::kLanes) holding a byte that
/// may be a delimiter ('$', or a backslash before one of ( ) [ ], escapes not looked at), with
/// `mask` set to its candidates (bit k: position b + k), or, with mask 0, the position where too
/// few bytes are left (each block reads one byte past its end).
template <class V, std::size_t kVectors>
std::size_t find_delimiter_block(const char* d, std::size_t n, std::size_t from, std::uint64_t& mask) noexcept {
  constexpr std::size_t kWidth = kVectors * V::kLanes;
  static_assert(kWidth <= 64, "a block's candidates fill one 64-bit mask");
  const V backslash = V::set1('\\'), dollar = V::set1('$'), one = V::set1(1), paren = V::set1(')');
  const V open = V::set1('['), close = V::set1(']');
  for (; from + kWidth + 1 <= n; from += kWidth) {
    std::uint64_t bits = 0;
    for (std::size_t h = 0; h < kVectors; ++h) {
      const char* p = d + from + h * V::kLanes;
      const V w = V::load(p);
      const V next = V::load(p + 1);
      const V after = ((next | one) == paren) | (next == open) | (next == close);  // ( or ), [ or ]
      bits |= static_cast<std::uint64_t>((((w == backslash) & after) | (w == dollar)).mask()) << (h * V::kLanes);
    }
    if (bits != 0) {
      mask = bits;
      return from;
    }
  }
  mask = 0;
  return from;
}

#if RAPIDGRADE_AVX2_DISPATCH
/// find_delimiter_block<simd::Avx2, 2> (cpp/src/simd_avx2.cpp): call only where has_avx2().
std::size_t find_delimiter_block_avx2(const char* d, std::size_t n, std::size_t from, std::uint64_t& mask) noexcept;
#endif

/// The math delimiters of a text from left to right: next(from) is the first position p >= from
/// holding an unescaped '$', or an unescaped backslash followed by one of ( [ ) ]. A byte is
/// unescaped when the run of backslashes right before it is even: a backslash takes the byte
/// after it along, so "\\$" holds no delimiter and "\\\\$" one. A block of positions is compared
/// at once (find_delimiter_block: one Native vector, sixteen positions with SSE2; with AVX2,
/// where has_avx2() says so, 64 while 65 bytes are left) and kept while the calls move forward
/// through them, so each block of the text is compared once however
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
    if (wide_ && next_in_blocks<kWideBlock>(from, [](const char* d, std::size_t size, std::size_t b, std::uint64_t& m) {
          return find_delimiter_block_avx2(d, size, b, m);
        })) {
      return from;
    }
#endif
    if (next_in_blocks<kBlock>(from, [](const char* d, std::size_t size, std::size_t b, std::uint64_t& m) {
          return find_delimiter_block<simd::Native, 1>(d, size, b, m);
        })) {
      return from;
    }
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
  // Bytes compared at a time: one Native vector, and (AVX2) two AVX2 vectors.
  static constexpr std::size_t kBlock = simd::Native::kLanes;
  static constexpr std::size_t kWideBlock = 64;

  static constexpr bool closes_after_backslash(char c) noexcept { return c == '(' || c == ')' || c == '[' || c == ']'; }

  // Reads the blocks of kWidth bytes with candidates that find_block finds from `from` on, while
  // kWidth + 1 bytes are left: true with `from` set to the first unescaped candidate, else false
  // with `from` set to where the blocks stopped.
  template <std::size_t kWidth, typename FindBlock>
  bool next_in_blocks(std::size_t& from, FindBlock find_block) noexcept {
    while (from + kWidth + 1 <= s_.size()) {
      std::uint64_t mask = 0;
      from = find_block(s_.data(), s_.size(), from, mask);
      if (mask == 0) return false;  // fewer than kWidth + 1 bytes left
      const std::size_t p = enter_block(from, kWidth, mask);
      if (p != kNpos) {
        from = p;
        return true;
      }
      from += kWidth;
    }
    return false;
  }

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
#if RAPIDGRADE_AVX2_DISPATCH
  const bool wide_ = has_avx2();  // the AVX2 loop first
#endif
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
