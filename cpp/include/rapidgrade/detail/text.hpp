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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// Loops with an AVX2 form (a function with target("avx2")) run it where has_avx2() says so; the
// build itself targets the baseline x86-64 (SSE2).
#define RAPIDGRADE_AVX2_DISPATCH 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define RAPIDGRADE_AVX2_DISPATCH 0
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rapidgrade::detail {

/// "Not found" for byte offsets (the same value as std::string_view::npos).
inline constexpr std::size_t kNpos = std::string_view::npos;

/// Whether the AVX2 forms of the loops run: the CPU has AVX2 (CPUID) and the operating system
/// saves its registers (XGETBV), and the environment variable RAPIDGRADE_NO_AVX2 is unset or
/// empty (set, it keeps the SSE2 loops, to compare the two on any machine). Asked once, then read;
/// false where the build has no AVX2 dispatch. The CPU is asked directly rather than through
/// __builtin_cpu_supports, which needs a runtime library that not every toolchain links.
inline bool has_avx2() noexcept {
#if RAPIDGRADE_AVX2_DISPATCH
  static const bool avx2 = [] {
    const char* off = std::getenv("RAPIDGRADE_NO_AVX2");
    if (off != nullptr && *off != '\0') return false;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) return false;
    if ((c & (1U << 27)) == 0 || (c & (1U << 28)) == 0) return false;  // OSXSAVE, AVX
    unsigned lo = 0, hi = 0;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6U) != 6U) return false;  // the XMM and YMM registers are saved
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return false;
    return (b & (1U << 5)) != 0;  // AVX2
  }();
  return avx2;
#else
  return false;
#endif
}

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

#if RAPIDGRADE_AVX2_DISPATCH
/// find_str's vector loop for CPUs with AVX2: the same test on the needle's first, second and
/// last bytes, 64 candidate starts from i at a time, while their last bytes are in s. Returns
/// the first match, or kNpos with i set to where it stopped. Needs needle.size() >= 2.
__attribute__((target("avx2"))) inline std::size_t find_str_avx2(std::string_view s, std::size_t& i,
                                                                 std::string_view needle) noexcept {
  const std::size_t m = needle.size();
  const __m256i first = _mm256_set1_epi8(needle[0]);
  const __m256i second = _mm256_set1_epi8(needle[1]);
  const __m256i last = _mm256_set1_epi8(needle[m - 1]);
  const char* d = s.data();
  for (; i + 63 + m <= s.size(); i += 64) {
    __m256i hits[2];
    for (std::size_t h = 0; h < 2; ++h) {
      const char* p = d + i + 32 * h;
      hits[h] = _mm256_and_si256(
          _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), first),
                           _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1)), second)),
          _mm256_cmpeq_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + m - 1)), last));
    }
    if (_mm256_movemask_epi8(_mm256_or_si256(hits[0], hits[1])) == 0) continue;
    for (std::size_t h = 0; h < 2; ++h) {
      for (auto mask = static_cast<unsigned>(_mm256_movemask_epi8(hits[h])); mask != 0; mask &= mask - 1) {
        const std::size_t at = i + 32 * h + static_cast<std::size_t>(__builtin_ctz(mask));
        if (std::memcmp(d + at + 1, needle.data() + 1, m - 2) == 0) return at;
      }
    }
  }
  return kNpos;
}
#endif

/// Next occurrence of the non-empty `needle` in s[i, n), or kNpos. With SSE2, sixteen
/// candidate starts at a time are kept only where the needle's first, second and last bytes
/// stand at the right distances, so the speed hardly depends on the text ("\\begin{" in LaTeX,
/// where every command starts with its first byte and many with "\\b"), and four such steps
/// are tested with one branch (with AVX2, find_str_avx2 first: two steps of 32); elsewhere
/// memchr finds the first byte. O(n * |needle|) worst
/// case.
inline std::size_t find_str(std::string_view s, std::size_t i, std::string_view needle) noexcept {
  const std::size_t m = needle.size();
  if (m == 0 || s.size() < m || i > s.size() - m) return kNpos;
#if RAPIDGRADE_AVX2_DISPATCH
  if (m >= 2 && i + 63 + m <= s.size() && has_avx2()) {  // (short texts do not call it)
    const std::size_t at = find_str_avx2(s, i, needle);
    if (at != kNpos) return at;
  }
#endif
#if defined(__SSE2__)
  if (m >= 2) {
    const __m128i first = _mm_set1_epi8(needle[0]);
    const __m128i second = _mm_set1_epi8(needle[1]);  // == last when m == 2
    const __m128i last = _mm_set1_epi8(needle[m - 1]);
    // the candidate starts j..j+15: the needle's first, second and last bytes at their places
    const auto starts = [&](std::size_t j) {
      const __m128i at_first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + j));
      const __m128i at_second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + j + 1));
      const __m128i at_last = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + j + m - 1));
      return _mm_and_si128(_mm_and_si128(_mm_cmpeq_epi8(at_first, first), _mm_cmpeq_epi8(at_second, second)),
                           _mm_cmpeq_epi8(at_last, last));
    };
    // the first match among the candidate starts j..j+15 (their bits in mask), or kNpos
    const auto verify = [&](std::size_t j, unsigned mask) {
      for (; mask != 0; mask &= mask - 1) {
        const auto bit = static_cast<std::size_t>(__builtin_ctz(mask));
        if (std::memcmp(s.data() + j + bit + 1, needle.data() + 1, m - 2) == 0) return j + bit;
      }
      return kNpos;
    };
    // 64 starts i..i+63 at a time, tested with one branch, while their last bytes are in s
    for (; i + 63 + m <= s.size(); i += 64) {
      const __m128i a = starts(i), b = starts(i + 16), c = starts(i + 32), d = starts(i + 48);
      if (_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) == 0) continue;
      for (const auto& [j, hits] : {std::pair{i, a}, std::pair{i + 16, b}, std::pair{i + 32, c}, std::pair{i + 48, d}}) {
        const std::size_t at = verify(j, static_cast<unsigned>(_mm_movemask_epi8(hits)));
        if (at != kNpos) return at;
      }
    }
    // then 16 at a time
    for (; i + 15 + m <= s.size(); i += 16) {
      const std::size_t at = verify(i, static_cast<unsigned>(_mm_movemask_epi8(starts(i))));
      if (at != kNpos) return at;
    }
  }
#endif
  while (i + m <= s.size()) {
    i = find_byte(s, i, needle[0]);
    if (i + m > s.size()) return kNpos;
    if (starts_with(s, i, needle)) return i;
    ++i;
  }
  return kNpos;
}

/// The first position in [i, end) holding an ASCII digit, `a` or `b`, or `end`: for the scans
/// that read numbers and skip everything else (end <= s.size()). With SSE2, sixteen bytes a step
/// (a digit is a byte whose distance from '0' is at most 9, unsigned).
inline std::size_t find_digit_or(std::string_view s, std::size_t i, std::size_t end, char a, char b) noexcept {
#if defined(__SSE2__)
  const __m128i zero = _mm_set1_epi8('0');
  const __m128i nine = _mm_set1_epi8(9);
  const __m128i va = _mm_set1_epi8(a);
  const __m128i vb = _mm_set1_epi8(b);
  for (; i + 16 <= end; i += 16) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i d = _mm_sub_epi8(w, zero);
    const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(d, nine), d),
                                     _mm_or_si128(_mm_cmpeq_epi8(w, va), _mm_cmpeq_epi8(w, vb)));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
  }
#endif
  while (i < end && !is_digit(s[i]) && s[i] != a && s[i] != b) ++i;
  return i;
}

/// The last position p in [from, end - 1) where s[p] and s[p + 1] are the letters `a` and `b`
/// in either case ('a' and 'b' given in lower case), or kNpos: for the searches that want the
/// last occurrence of a word and stop there without reading the text before it. A pair of
/// letters is much rarer than either letter alone, so candidates are few ("sw" of "answer").
/// With SSE2, sixteen starts a step (a byte OR 0x20 equals a lower-case letter only when it is
/// that letter in either case). O(end - from).
inline std::size_t rfind_pair_icase(std::string_view s, std::size_t from, std::size_t end, char a, char b) noexcept {
  if (end > s.size()) end = s.size();
  if (end < from + 2) return kNpos;
  std::size_t hi = end - 1;  // candidates p < hi
#if defined(__SSE2__)
  const __m128i fold = _mm_set1_epi8(0x20);
  const __m128i va = _mm_set1_epi8(a);
  const __m128i vb = _mm_set1_epi8(b);
  for (; hi >= from + 16; hi -= 16) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + hi - 16));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + hi - 15));
    const auto mask = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(
        _mm_cmpeq_epi8(_mm_or_si128(w, fold), va), _mm_cmpeq_epi8(_mm_or_si128(next, fold), vb))));
    if (mask != 0) return hi - 16 + (31 - static_cast<std::size_t>(__builtin_clz(mask)));
  }
#endif
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
  /// The first position >= i of a byte in the set, or s.size(). With SSE2 and a set of at most
  /// kVectorMembers bytes, sixteen bytes are compared with every member a step.
  std::size_t find(std::string_view s, std::size_t i) const noexcept {
#if defined(__SSE2__)
    if (count_ <= kVectorMembers && i + 16 <= s.size()) {
      __m128i member[kVectorMembers];
      for (std::size_t k = 0; k < count_; ++k) member[k] = _mm_set1_epi8(members_[k]);
      for (; i + 16 <= s.size(); i += 16) {
        const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
        __m128i hit = _mm_setzero_si128();
        for (std::size_t k = 0; k < count_; ++k) hit = _mm_or_si128(hit, _mm_cmpeq_epi8(w, member[k]));
        const auto mask = static_cast<unsigned>(_mm_movemask_epi8(hit));
        if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(mask));
      }
    }
#endif
    while (i < s.size() && !has(s[i])) ++i;
    return i;
  }

 private:
  /// Sets of up to this many bytes are searched sixteen bytes at a time.
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
