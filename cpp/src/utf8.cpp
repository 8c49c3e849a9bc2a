#include "rapidgrade/utf8.hpp"

#include <algorithm>
#include <cstring>

namespace rapidgrade::utf8 {

std::size_t count_code_points(std::string_view s, std::size_t from, std::size_t to) noexcept {
  to = std::min(to, s.size());
  std::size_t n = 0;
  std::size_t i = from;
  // Eight bytes at a time (offsets of answers at the end of long responses run over the whole
  // text): bit 7 set and bit 6 clear in a byte marks a continuation byte.
  for (; i + 8 <= to; i += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    const std::uint64_t cont = (w & ~(w << 1)) & 0x8080808080808080ULL;
    n += 8 - static_cast<std::size_t>(((cont >> 7) * 0x0101010101010101ULL) >> 56);
  }
  for (; i < to; ++i) n += !is_continuation(static_cast<unsigned char>(s[i]));
  return n;
}

char32_t decode(std::string_view s, std::size_t& i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  std::size_t len = 0;
  char32_t cp = 0;
  if ((b0 & 0xE0u) == 0xC0u) {
    len = 2;
    cp = b0 & 0x1Fu;
  } else if ((b0 & 0xF0u) == 0xE0u) {
    len = 3;
    cp = b0 & 0x0Fu;
  } else if ((b0 & 0xF8u) == 0xF0u) {
    len = 4;
    cp = b0 & 0x07u;
  } else {
    ++i;
    return 0xFFFD;
  }
  if (i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (!is_continuation(b)) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3Fu);
  }
  i += len;
  return cp;
}

void bytes_to_code_points(std::string_view s, std::vector<std::size_t*>& offsets) {
  std::sort(offsets.begin(), offsets.end(), [](const std::size_t* a, const std::size_t* b) { return *a < *b; });
  std::size_t byte = 0;
  std::size_t cp = 0;
  for (std::size_t* off : offsets) {
    const std::size_t target = std::min(*off, s.size());
    cp += count_code_points(s, byte, target);
    byte = target;
    *off = cp;
  }
}

}  // namespace rapidgrade::utf8
