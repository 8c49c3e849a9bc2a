// The one door to vector instructions: a vector of bytes per instruction set, with the handful
// of operations the whole-text loops need, so that each loop is written once, as a template on
// the vector type, and compiled once per instruction set.
//
//   Swar   8 lanes in a 64-bit word, plain C++: the fallback where the build has no SSE2
//   Sse2   16 lanes (__m128i): baseline x86-64, the form every x86-64 build runs
//   Avx2   32 lanes (__m256i): only in cpp/src/simd_avx2.cpp, the one source compiled with
//          -mavx2 (CMakeLists.txt), whose functions the core calls where has_avx2() says so
//
// Each type V has V::kLanes, load (unaligned), store, set1, zero, ones, the lane-wise ==, |, &
// (a comparison gives all-ones lanes where it holds), lt_signed / gt_signed (lanes read as
// int8_t), and mask(): bit k set when the top bit of lane k is (movemask). `Native` is the
// vector every build has (Sse2, else Swar). Lane k is the byte at p + k of the load on every
// type and byte order. Everything here is O(1), never throws and reads exactly kLanes bytes
// from p.
//
// Writing a loop: a template on V over `const char*` and sizes (no std::string_view, no shared
// non-template inline helper): the -mavx2 source instantiates it for Avx2, and any inline
// function that source emitted would be compiled for AVX2 and could be picked by the linker for
// the baseline callers too. Its AVX2 entry point is declared beside the loop under
// RAPIDGRADE_AVX2_DISPATCH and defined in simd_avx2.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__GNUC__) || defined(__clang__)
#define RAPIDGRADE_SIMD_INLINE inline __attribute__((always_inline))
#else
#define RAPIDGRADE_SIMD_INLINE inline
#endif

// The AVX2 forms exist where the build compiles simd_avx2.cpp with -mavx2 (CMake defines
// RAPIDGRADE_SIMD_AVX2 then, for the core and everything linking it); a build without it (another
// compiler, another processor, or the sources compiled by hand) runs the Native forms only.
#if defined(RAPIDGRADE_SIMD_AVX2) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RAPIDGRADE_AVX2_DISPATCH 1
#include <cpuid.h>
#else
#define RAPIDGRADE_AVX2_DISPATCH 0
#endif
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace rapidgrade::detail {

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

namespace simd {

/// The lanes of a comparison, bit k for lane k (V::mask()); at most 32 lanes.
using Mask = std::uint32_t;

/// The lowest lane set in a non-zero mask: 0b0100 -> 2.
RAPIDGRADE_SIMD_INLINE std::size_t lowest(Mask m) noexcept { return static_cast<std::size_t>(__builtin_ctz(m)); }

/// The highest lane set in a non-zero mask: 0b0110 -> 2.
RAPIDGRADE_SIMD_INLINE std::size_t highest(Mask m) noexcept { return 31 - static_cast<std::size_t>(__builtin_clz(m)); }

/// 8 lanes in a 64-bit word (SWAR), lane k in bits 8k..8k+7. Exact lane by lane: no carry or
/// borrow crosses a lane, so every lane's result is right (not only the lowest set one).
struct Swar {
  static constexpr std::size_t kLanes = 8;
  std::uint64_t v;

  static constexpr std::uint64_t kLow = 0x0101010101010101ULL;   // 0x01 in every lane
  static constexpr std::uint64_t kHigh = 0x8080808080808080ULL;  // the top bit of every lane

  static RAPIDGRADE_SIMD_INLINE Swar load(const char* p) noexcept {
    std::uint64_t w = 0;
    std::memcpy(&w, p, 8);
    return {from_memory(w)};
  }
  RAPIDGRADE_SIMD_INLINE void store(char* p) const noexcept {
    const std::uint64_t w = from_memory(v);
    std::memcpy(p, &w, 8);
  }
  static RAPIDGRADE_SIMD_INLINE Swar set1(char c) noexcept { return {kLow * static_cast<unsigned char>(c)}; }
  static RAPIDGRADE_SIMD_INLINE Swar zero() noexcept { return {0}; }
  static RAPIDGRADE_SIMD_INLINE Swar ones() noexcept { return {~std::uint64_t{0}}; }
  friend RAPIDGRADE_SIMD_INLINE Swar operator|(Swar a, Swar b) noexcept { return {a.v | b.v}; }
  friend RAPIDGRADE_SIMD_INLINE Swar operator&(Swar a, Swar b) noexcept { return {a.v & b.v}; }
  friend RAPIDGRADE_SIMD_INLINE Swar operator==(Swar a, Swar b) noexcept {
    const std::uint64_t x = a.v ^ b.v;  // a zero lane where equal
    return widen(~(((x & ~kHigh) + ~kHigh) | x) & kHigh);
  }
  /// Lanes where a < b as int8_t.
  friend RAPIDGRADE_SIMD_INLINE Swar lt_signed(Swar a, Swar b) noexcept {
    const std::uint64_t x = a.v ^ kHigh, y = b.v ^ kHigh;  // signed order as unsigned order
    // top bit of each lane of d: the low seven bits of x >= those of y (no borrow leaves a lane)
    const std::uint64_t d = (x | kHigh) - (y & ~kHigh);
    return widen(((~x & y) | (~(x ^ y) & ~d)) & kHigh);
  }
  /// Lanes where a > b as int8_t.
  friend RAPIDGRADE_SIMD_INLINE Swar gt_signed(Swar a, Swar b) noexcept { return lt_signed(b, a); }
  RAPIDGRADE_SIMD_INLINE Mask mask() const noexcept {
    // the top bits moved down to 0x01 per lane, gathered into the top byte by one product
    return static_cast<Mask>((((v & kHigh) >> 7) * 0x0102040810204080ULL) >> 56);
  }

 private:
  // The top bit of each lane spread over the lane: 0x80 -> 0xFF.
  static RAPIDGRADE_SIMD_INLINE Swar widen(std::uint64_t top) noexcept { return {(top >> 7) * 0xFF}; }
  // The word whose lane k is the byte at offset k in memory (and back).
  static RAPIDGRADE_SIMD_INLINE std::uint64_t from_memory(std::uint64_t w) noexcept {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(w);
#else
    return w;
#endif
  }
};

#if defined(__SSE2__)
/// 16 lanes in an SSE2 register.
struct Sse2 {
  static constexpr std::size_t kLanes = 16;
  __m128i v;

  static RAPIDGRADE_SIMD_INLINE Sse2 load(const char* p) noexcept {
    return {_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))};
  }
  RAPIDGRADE_SIMD_INLINE void store(char* p) const noexcept { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static RAPIDGRADE_SIMD_INLINE Sse2 set1(char c) noexcept { return {_mm_set1_epi8(c)}; }
  static RAPIDGRADE_SIMD_INLINE Sse2 zero() noexcept { return {_mm_setzero_si128()}; }
  static RAPIDGRADE_SIMD_INLINE Sse2 ones() noexcept { return {_mm_set1_epi8(-1)}; }
  friend RAPIDGRADE_SIMD_INLINE Sse2 operator|(Sse2 a, Sse2 b) noexcept { return {_mm_or_si128(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Sse2 operator&(Sse2 a, Sse2 b) noexcept { return {_mm_and_si128(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Sse2 operator==(Sse2 a, Sse2 b) noexcept { return {_mm_cmpeq_epi8(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Sse2 lt_signed(Sse2 a, Sse2 b) noexcept { return {_mm_cmplt_epi8(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Sse2 gt_signed(Sse2 a, Sse2 b) noexcept { return {_mm_cmpgt_epi8(a.v, b.v)}; }
  RAPIDGRADE_SIMD_INLINE Mask mask() const noexcept { return static_cast<Mask>(_mm_movemask_epi8(v)); }
};
using Native = Sse2;
#else
using Native = Swar;
#endif

#if defined(__AVX2__)
/// 32 lanes in an AVX2 register (in the -mavx2 source only).
struct Avx2 {
  static constexpr std::size_t kLanes = 32;
  __m256i v;

  static RAPIDGRADE_SIMD_INLINE Avx2 load(const char* p) noexcept {
    return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))};
  }
  RAPIDGRADE_SIMD_INLINE void store(char* p) const noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static RAPIDGRADE_SIMD_INLINE Avx2 set1(char c) noexcept { return {_mm256_set1_epi8(c)}; }
  static RAPIDGRADE_SIMD_INLINE Avx2 zero() noexcept { return {_mm256_setzero_si256()}; }
  static RAPIDGRADE_SIMD_INLINE Avx2 ones() noexcept { return {_mm256_set1_epi8(-1)}; }
  friend RAPIDGRADE_SIMD_INLINE Avx2 operator|(Avx2 a, Avx2 b) noexcept { return {_mm256_or_si256(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Avx2 operator&(Avx2 a, Avx2 b) noexcept { return {_mm256_and_si256(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Avx2 operator==(Avx2 a, Avx2 b) noexcept { return {_mm256_cmpeq_epi8(a.v, b.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Avx2 lt_signed(Avx2 a, Avx2 b) noexcept { return {_mm256_cmpgt_epi8(b.v, a.v)}; }
  friend RAPIDGRADE_SIMD_INLINE Avx2 gt_signed(Avx2 a, Avx2 b) noexcept { return {_mm256_cmpgt_epi8(a.v, b.v)}; }
  RAPIDGRADE_SIMD_INLINE Mask mask() const noexcept { return static_cast<Mask>(_mm256_movemask_epi8(v)); }
};
#endif

}  // namespace simd
}  // namespace rapidgrade::detail
