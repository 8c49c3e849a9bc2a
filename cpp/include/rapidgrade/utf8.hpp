// UTF-8 helpers shared by the scanners.
//
// Inputs are assumed to be UTF-8 as produced by Python's encoder; invalid bytes are tolerated
// (each counts as one code point) so that junk input never crashes or loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rapidgrade::utf8 {

/// True when `b` is a UTF-8 continuation byte (10xxxxxx).
constexpr bool is_continuation(unsigned char b) noexcept { return (b & 0xC0u) == 0x80u; }

/// Number of code points in `s[from, to)`. Linear; invalid bytes count as one code point each.
std::size_t count_code_points(std::string_view s, std::size_t from, std::size_t to) noexcept;

/// Decode the code point starting at byte `i` and advance `i` past it. Invalid or truncated
/// sequences yield U+FFFD and advance by one byte. Requires i < s.size().
char32_t decode(std::string_view s, std::size_t& i) noexcept;

/// Rewrite every byte offset pointed to by `offsets` into a code-point offset, in one forward
/// pass over `s` (the offsets are sorted internally; O(n + k log k)). Offsets must be <= s.size().
void bytes_to_code_points(std::string_view s, std::vector<std::size_t*>& offsets);

}  // namespace rapidgrade::utf8
