// Byte-level text helpers shared by the scanners (scan, extract, fields, normalize, grade).
//
// One home for the character classes and prefix tests that every scanner needs. All of them
// look at single bytes (ASCII): a UTF-8 sequence never matches, since all its bytes are >= 0x80.
// Everything here is constexpr or inline, O(1) or O(length of the pattern) unless stated, and
// never throws; positions past the end of the text are allowed and simply do not match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "rapidgrade/detail/simd.hpp"

namespace rapidgrade::detail {

/// "Not found" for byte offsets (the same value as std::string_view::npos).
inline constexpr std::size_t kNpos = std::string_view::npos;

/// ASCII letter A-Z or a-z: 'x' -> true, '1' -> false, '\xC3' -> false.
constexpr bool is_letter(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// ASCII digit 0-9.
constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// C isspace in the "C" locale: ' ', '\t', '\n', '\r', '\f', '\v' (not the separators \x1c-\x1f
/// that Python's str.isspace() also accepts).
constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// Blank within a line: ' ' or '\t'.
constexpr bool is_blank(char c) noexcept { return c == ' ' || c == '\t'; }

/// ASCII lower case: 'A' -> 'a'; every other byte is returned as is.
constexpr char to_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

/// True when `p` occurs in `s` at byte `i` ("\\frac12", 1, "frac" -> true). i may exceed s.size().
constexpr bool starts_with(std::string_view s, std::size_t i, std::string_view p) noexcept {
  return i <= s.size() && s.size() - i >= p.size() && s.compare(i, p.size(), p) == 0;
}

/// starts_with ignoring ASCII case ("Answer", 0, "answer" -> true).
constexpr bool istarts_with(std::string_view s, std::size_t i, std::string_view p) noexcept {
  if (i > s.size() || s.size() - i < p.size()) return false;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (to_lower(s[i + k]) != to_lower(p[k])) return false;
  }
  return true;
}

/// Whether the whole word (or phrase) `w` ends s[0, k) and starts at or after `from`: `w` stands
/// there ignoring ASCII case, with no letter right before it ("so n is divisible by", k at its
/// end, "divisible by" -> true; "modulo" before k does not end a word "mod").
constexpr bool word_ends_at(std::string_view s, std::size_t from, std::size_t k, std::string_view w) noexcept {
  if (k < from + w.size() || !istarts_with(s, k - w.size(), w)) return false;
  return k == w.size() || !is_letter(s[k - w.size() - 1]);
}

/// True when `s` ends with `p`.
constexpr bool ends_with(std::string_view s, std::string_view p) noexcept {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

/// a == b, byte by byte after the lengths: for the tests of a token against words of a table or
/// literals (a few bytes, most differing in the first: "(" against "{", "frac" against "sqrt"),
/// where std::string_view's == calls memcmp once the lengths agree. A loop this small is
/// inlined at each test, and unrolled against a literal.
constexpr bool same(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k] != b[k]) return false;
  return true;
}

/// End of the run of ASCII letters starting at `i` (i itself when there is none).
constexpr std::size_t letters_end(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_letter(s[i])) ++i;
  return i;
}

/// Whether the ASCII letter c stands alone in s as a symbol: not inside a longer word, not in a
/// command's name ("6m", "2m+1" hold m; "\min" and "mn" do not). Read by normalization's rule 4
/// (a one-letter unit whose letter is a symbol of the answer) and by the grader (one the gold holds).
inline bool holds_letter(std::string_view s, char c) noexcept {
  for (std::size_t k = s.find(c); k != std::string_view::npos; k = s.find(c, k + 1)) {
    if (k > 0 && (is_letter(s[k - 1]) || s[k - 1] == '\\')) continue;
    if (k + 1 < s.size() && is_letter(s[k + 1])) continue;
    return true;
  }
  return false;
}

/// End of the run of ASCII digits starting at `i` (i itself when there is none).
constexpr std::size_t digits_end(std::string_view s, std::size_t i) noexcept {
  while (i < s.size() && is_digit(s[i])) ++i;
  return i;
}

/// `s` without leading and trailing is_space bytes: " 42\n" -> "42".
constexpr std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Narrows [start, end) of `s` past leading and trailing is_space bytes (for offset ranges).
constexpr void trim_bounds(std::string_view s, std::size_t& start, std::size_t& end) noexcept {
  while (start < end && is_space(s[start])) ++start;
  while (end > start && is_space(s[end - 1])) --end;
}

/// Byte offset of `part` in `whole`; `part` must be a view into `whole` (e.g. from substr).
inline std::size_t offset_in(std::string_view whole, std::string_view part) noexcept {
  return static_cast<std::size_t>(part.data() - whole.data());
}

/// Next occurrence of byte `c` in s[i, n), or s.size() (memchr).
inline std::size_t find_byte(std::string_view s, std::size_t i, char c) noexcept {
  if (i >= s.size()) return s.size();
  const void* p = std::memchr(s.data() + i, c, s.size() - i);
  return p == nullptr ? s.size() : static_cast<std::size_t>(static_cast<const char*>(p) - s.data());
}

/// Asks the CPU for the cache line at `p` (a hint: nothing happens where the compiler has no
/// prefetch builtin). For texts that are far apart in memory, asked for before they are read.
inline void prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
#else
  (void)p;
#endif
}

/// find_str's vector loop on V (detail/simd.hpp) over the text [d, d + n): 64 candidate starts
/// from i at a time, kept only where the needle's first, second and last bytes stand at their
/// places and tested with one branch, then V::kLanes at a time, while the candidates' last bytes
/// are in the text. Returns the first match, or kNpos with i set to where it stopped. Needs
/// m >= 2.
template <class V>
std::size_t find_str_vector(const char* d, std::size_t n, std::size_t& i, const char* needle, std::size_t m) noexcept {
  constexpr std::size_t kVectors = 64 / V::kLanes;
  const V first = V::set1(needle[0]);
  const V second = V::set1(needle[1]);  // == last when m == 2
  const V last = V::set1(needle[m - 1]);
  // the candidate starts j..j + kLanes - 1
  const auto starts = [&](std::size_t j) {
    return (V::load(d + j) == first) & (V::load(d + j + 1) == second) & (V::load(d + j + m - 1) == last);
  };
  // the first match among the candidate starts from j (their bits in mask), or kNpos
  const auto verify = [&](std::size_t j, simd::Mask mask) {
    for (; mask != 0; mask &= mask - 1) {
      const std::size_t at = j + simd::lowest(mask);
      if (std::memcmp(d + at + 1, needle + 1, m - 2) == 0) return at;
    }
    return kNpos;
  };
  for (; i + 63 + m <= n; i += 64) {
    V hits[kVectors];
    V any = V::zero();
    for (std::size_t h = 0; h < kVectors; ++h) {
      hits[h] = starts(i + h * V::kLanes);
      any = any | hits[h];
    }
    if (any.mask() == 0) continue;
    for (std::size_t h = 0; h < kVectors; ++h) {
      const std::size_t at = verify(i + h * V::kLanes, hits[h].mask());
      if (at != kNpos) return at;
    }
  }
  for (; i + V::kLanes - 1 + m <= n; i += V::kLanes) {
    const std::size_t at = verify(i, starts(i).mask());
    if (at != kNpos) return at;
  }
  return kNpos;
}

#if RAPIDGRADE_AVX2_DISPATCH
/// find_str_vector<simd::Avx2> (cpp/src/simd_avx2.cpp): call only where has_avx2().
std::size_t find_str_avx2(const char* d, std::size_t n, std::size_t& i, const char* needle, std::size_t m) noexcept;
#endif

/// Next occurrence of the non-empty `needle` in s[i, n), or kNpos. Candidate starts are kept
/// only where the needle's first, second and last bytes stand at the right distances, a vector
/// of them at a time (find_str_vector: AVX2 where has_avx2(), else the build's Native vector),
/// so the speed hardly depends on the text ("\\begin{" in LaTeX, where every command starts
/// with its first byte and many with "\\b"); the last few starts by memchr on the first byte.
/// O(n * |needle|) worst case.
inline std::size_t find_str(std::string_view s, std::size_t i, std::string_view needle) noexcept {
  const std::size_t m = needle.size();
  if (m == 0 || s.size() < m || i > s.size() - m) return kNpos;
  if (m >= 2) {
#if RAPIDGRADE_AVX2_DISPATCH
    if (i + 63 + m <= s.size() && has_avx2()) {  // (short texts do not call it)
      const std::size_t at = find_str_avx2(s.data(), s.size(), i, needle.data(), m);
      if (at != kNpos) return at;
    }
#endif
    const std::size_t at = find_str_vector<simd::Native>(s.data(), s.size(), i, needle.data(), m);
    if (at != kNpos) return at;
  }
  while (i + m <= s.size()) {
    i = find_byte(s, i, needle[0]);
    if (i + m > s.size()) return kNpos;
    if (starts_with(s, i, needle)) return i;
    ++i;
  }
  return kNpos;
}

/// find_digit_or's vector loop on V over the text at d: from i while i + kLanes <= end, the
/// first position of a digit, `a` or `b` (a digit is a byte above '/' and below ':' as int8_t,
/// so no byte >= 0x80 is one), or where it stopped.
template <class V>
std::size_t find_digit_or_vector(const char* d, std::size_t i, std::size_t end, char a, char b) noexcept {
  const V below = V::set1('0' - 1), above = V::set1('9' + 1), va = V::set1(a), vb = V::set1(b);
  for (; i + V::kLanes <= end; i += V::kLanes) {
    const V w = V::load(d + i);
    const simd::Mask mask = ((gt_signed(w, below) & lt_signed(w, above)) | (w == va) | (w == vb)).mask();
    if (mask != 0) return i + simd::lowest(mask);
  }
  return i;
}

/// The first position in [i, end) holding an ASCII digit, `a` or `b`, or `end`: for the scans
/// that read numbers and skip everything else (end <= s.size()). A vector of bytes a step
/// (find_digit_or_vector on the Native vector), then byte by byte.
inline std::size_t find_digit_or(std::string_view s, std::size_t i, std::size_t end, char a, char b) noexcept {
  i = find_digit_or_vector<simd::Native>(s.data(), i, end, a, b);
  while (i < end && !is_digit(s[i]) && s[i] != a && s[i] != b) ++i;
  return i;
}

/// rfind_pair_icase's vector loop on V over the text at d: candidates p < hi, a vector of them
/// a step from the end while hi >= from + kLanes (a byte OR 0x20 equals a lower-case letter only
/// when it is that letter in either case). Returns the last match, or kNpos with hi set to where
/// it stopped.
template <class V>
std::size_t rfind_pair_icase_vector(const char* d, std::size_t from, std::size_t& hi, char a, char b) noexcept {
  const V fold = V::set1(0x20), va = V::set1(a), vb = V::set1(b);
  for (; hi >= from + V::kLanes; hi -= V::kLanes) {
    const V w = V::load(d + hi - V::kLanes);
    const V next = V::load(d + hi - V::kLanes + 1);
    const simd::Mask mask = (((w | fold) == va) & ((next | fold) == vb)).mask();
    if (mask != 0) return hi - V::kLanes + simd::highest(mask);
  }
  return kNpos;
}

/// The last position p in [from, end - 1) where s[p] and s[p + 1] are the letters `a` and `b`
/// in either case ('a' and 'b' given in lower case), or kNpos: for the searches that want the
/// last occurrence of a word and stop there without reading the text before it. A pair of
/// letters is much rarer than either letter alone, so candidates are few ("sw" of "answer").
/// A vector of starts a step (rfind_pair_icase_vector on the Native vector), then byte by byte.
/// O(end - from).
inline std::size_t rfind_pair_icase(std::string_view s, std::size_t from, std::size_t end, char a, char b) noexcept {
  if (end > s.size()) end = s.size();
  if (end < from + 2) return kNpos;
  std::size_t hi = end - 1;  // candidates p < hi
  const std::size_t at = rfind_pair_icase_vector<simd::Native>(s.data(), from, hi, a, b);
  if (at != kNpos) return at;
  while (hi > from) {
    --hi;
    if (to_lower(s[hi]) == a && to_lower(s[hi + 1]) == b) return hi;
  }
  return kNpos;
}

/// A set of bytes, for the passes that copy runs of ordinary bytes whole and stop only at the
/// bytes they act on: `i = set.find(s, i)` skips to the next one.
class ByteSet {
 public:
  /// The set of the bytes of `bytes`.
  constexpr explicit ByteSet(std::string_view bytes) noexcept {
    for (const char c : bytes) add(c);
  }
  /// The set of the bytes for which the constexpr predicate holds: ByteSet::where(is_space).
  template <typename Predicate>
  static constexpr ByteSet where(Predicate holds) noexcept {
    ByteSet set{std::string_view{}};
    for (int c = 0; c < 256; ++c) {
      if (holds(static_cast<char>(c))) set.add(static_cast<char>(c));
    }
    return set;
  }
  constexpr bool has(char c) const noexcept { return has_[static_cast<unsigned char>(c)]; }
  /// The first position >= i of a byte in the set, or s.size(). With a set of at most
  /// kVectorMembers bytes, a vector of bytes (the Native vector) is compared with every member a
  /// step.
  std::size_t find(std::string_view s, std::size_t i) const noexcept {
    using V = simd::Native;
    if (count_ <= kVectorMembers && i + V::kLanes <= s.size()) {
      V member[kVectorMembers];
      for (std::size_t k = 0; k < count_; ++k) member[k] = V::set1(members_[k]);
      for (; i + V::kLanes <= s.size(); i += V::kLanes) {
        const V w = V::load(s.data() + i);
        V hit = V::zero();
        for (std::size_t k = 0; k < count_; ++k) hit = hit | (w == member[k]);
        const simd::Mask mask = hit.mask();
        if (mask != 0) return i + simd::lowest(mask);
      }
    }
    while (i < s.size() && !has(s[i])) ++i;
    return i;
  }

 private:
  /// Sets of up to this many bytes are searched a vector at a time.
  static constexpr std::size_t kVectorMembers = 12;

  constexpr void add(char c) noexcept {
    bool& in = has_[static_cast<unsigned char>(c)];
    if (in) return;
    in = true;
    if (count_ < kVectorMembers) members_[count_] = c;
    ++count_;
  }

  bool has_[256] = {};
  char members_[kVectorMembers] = {};  // the first kVectorMembers bytes added
  std::size_t count_ = 0;              // bytes in the set
};

/// The whitespace bytes (is_space): `kSpaceBytes.find(s, i)` is the end of the word at i.
inline constexpr ByteSet kSpaceBytes = ByteSet::where(is_space);

/// Last occurrence of the non-empty `needle` in s, or kNpos: a backward scan from the end for
/// the needle's last byte (memrchr where the C library has it), so a needle near the end is
/// found without reading the text before it. O(n * |needle|) worst case.
inline std::size_t rfind_str(std::string_view s, std::string_view needle) noexcept {
  const std::size_t m = needle.size();
  if (m == 0 || s.size() < m) return kNpos;
  const char last = needle[m - 1];
  std::size_t end = s.size();  // candidates end at or before `end`
  while (end >= m) {
#if defined(__GLIBC__)
    const void* p = memrchr(s.data() + (m - 1), last, end - (m - 1));
    if (p == nullptr) return kNpos;
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(p) - s.data());
#else
    std::size_t at = end;
    while (at > m - 1 && s[at - 1] != last) --at;
    if (at == m - 1) return kNpos;
    --at;
#endif
    const std::size_t start = at + 1 - m;
    if (s.compare(start, m, needle) == 0) return start;
    end = at;  // the byte at `at` cannot end another match
  }
  return kNpos;
}

}  // namespace rapidgrade::detail
