// Levenshtein (edit) distance on sequences of code points.
//
// Characters are compared by value, so a Python str of any internal kind (1, 2 or 4 bytes per
// code point) can be passed without conversion. Bit-parallel (Myers 1999 / Hyyrö 2003): one
// 64-bit word per 64 characters of the shorter string, so O(ceil(m/64) * n) time and
// O(ceil(m/64) * alphabet-in-pattern) memory. No recursion, no allocation for patterns of at
// most 64 code points.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace rapidgrade::distance {

constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();

/// Levenshtein distance between a[0, na) and b[0, nb) (insertions, deletions and substitutions
/// of single code points, each costing 1). When the distance exceeds `max_distance`, returns
/// max_distance + 1 and may stop early. C1 and C2 are uint8_t, uint16_t or uint32_t.
/// `cancel` (optional) is polled every few thousand columns of a long computation: once it is
/// set, the call returns soon with an unspecified value (the caller, who set it, discards it).
template <typename C1, typename C2>
std::size_t levenshtein(const C1* a, std::size_t na, const C2* b, std::size_t nb, std::size_t max_distance = kNoLimit,
                        const std::atomic<bool>* cancel = nullptr);

}  // namespace rapidgrade::distance
