// The AVX2 forms of the whole-text loops: each loop is a template on the vector type of
// detail/simd.hpp, written once beside the function that runs it, and instantiated here for
// simd::Avx2. This source alone is compiled with -mavx2 (CMakeLists.txt); the core calls these
// functions only where detail::has_avx2() says so, and runs the Native instances elsewhere.
// Nothing else may be defined here: an inline function emitted by this source would be AVX2 code
// that the linker may pick for the baseline callers too (the loops use only their vector type,
// raw pointers and builtins).
#include "rapidgrade/detail/simd.hpp"

#if RAPIDGRADE_AVX2_DISPATCH

#if !defined(__AVX2__)
#error "cpp/src/simd_avx2.cpp must be compiled with -mavx2 where RAPIDGRADE_SIMD_AVX2 is defined (CMakeLists.txt)"
#endif

#include <cstddef>
#include <cstdint>

#include "extract_internal.hpp"
#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::detail {

std::size_t find_str_avx2(const char* d, std::size_t n, std::size_t& i, const char* needle, std::size_t m) noexcept {
  return find_str_vector<simd::Avx2>(d, n, i, needle, m);
}

std::size_t find_delimiter_block_avx2(const char* d, std::size_t n, std::size_t from, std::uint64_t& mask) noexcept {
  return find_delimiter_block<simd::Avx2, 2>(d, n, from, mask);
}

}  // namespace rapidgrade::detail

namespace rapidgrade::extract::internal {

std::size_t anchors_avx2(const char* d, std::size_t n, std::size_t i, AnchorScan& a) noexcept {
  return anchors_vector<detail::simd::Avx2>(d, n, i, a);
}

}  // namespace rapidgrade::extract::internal

#endif  // RAPIDGRADE_AVX2_DISPATCH
