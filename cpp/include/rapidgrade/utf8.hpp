// UTF-8 helpers shared by the scanners: the one place that knows the encoding.
//
// Inputs are assumed to be UTF-8 as produced by Python's encoder; invalid bytes are tolerated
// (each counts as one code point) so that junk input never crashes or loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace rapidgrade::utf8 {

/// True when `b` is a UTF-8 continuation byte (10xxxxxx).
constexpr bool is_continuation(unsigned char b) noexcept { return (b & 0xC0u) == 0x80u; }

/// Length in bytes of the UTF-8 sequence that starts at s[i]: the length its lead byte announces,
/// cut short at the first byte that is not a continuation byte or at the end of `s`; 1 for ASCII,
/// a stray continuation byte or an invalid lead byte. Requires i < s.size(). O(1).
/// E.g. "é" (C3 A9) -> 2, "€" -> 3, "\xC3(" -> 1.
constexpr std::size_t sequence_length(std::string_view s, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(s[i]);
  const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  std::size_t k = 1;
  while (k < len && i + k < s.size() && is_continuation(static_cast<unsigned char>(s[i + k]))) ++k;
  return k;
}

/// The first position >= i (and < stop) of a byte that is not ASCII, or `stop`: eight bytes a
/// step.
inline std::size_t ascii_end(std::string_view s, std::size_t i, std::size_t stop) noexcept {
  if (stop > s.size()) stop = s.size();
  for (; i + 8 <= stop; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, s.data() + i, 8);
    if ((word & 0x8080808080808080ull) != 0) break;
  }
  while (i < stop && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  return i;
}

/// Writes the UTF-8 encoding of `cp` (1 to 4 bytes) at `out` and returns the end of what it
/// wrote. Surrogates U+D800..U+DFFF are encoded like any other code point below U+10000 (as
/// Python's "surrogatepass" does); `cp` must be at most U+10FFFF. O(1).
inline char* write_utf8(char* out, char32_t cp) noexcept {
  if (cp < 0x80) {
    *out++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out++ = static_cast<char>(0xC0 | (cp >> 6));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out++ = static_cast<char>(0xE0 | (cp >> 12));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (cp >> 18));
    *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

/// Appends the UTF-8 encoding of `cp` to `out`, as write_utf8 writes it. O(1); throws only
/// std::bad_alloc.
inline void append_utf8(std::string& out, char32_t cp) {
  char bytes[4];
  out.append(bytes, static_cast<std::size_t>(write_utf8(bytes, cp) - bytes));
}

/// Number of code points in `s[from, to)`. Linear; invalid bytes count as one code point each.
std::size_t count_code_points(std::string_view s, std::size_t from, std::size_t to) noexcept;

/// Decode the code point starting at byte `i` and advance `i` past it. Invalid or truncated
/// sequences yield U+FFFD and advance by one byte. Requires i < s.size().
char32_t decode(std::string_view s, std::size_t& i) noexcept;

/// Rewrite every byte offset pointed to by `offsets` into a code-point offset, in one forward
/// pass over `s` (the offsets are sorted internally; O(n + k log k)). Offsets must be <= s.size().
void bytes_to_code_points(std::string_view s, std::vector<std::size_t*>& offsets);

}  // namespace rapidgrade::utf8
