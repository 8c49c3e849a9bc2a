// ABSA key normalization: aspect terms, aspect references and polarity labels, on code points of
// width 1, 2 or 4 bytes (the three layouts of a Python str). The first byte picks the width.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.hpp"
#include "rapidgrade/tasks/absa.hpp"

namespace ab = rapidgrade::absa;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned width = data[0] % 3 == 0 ? 1u : data[0] % 3 == 1 ? 2u : 4u;
  ++data;
  --size;
  const std::size_t n = size / width;
  std::vector<std::uint8_t> narrow;
  std::vector<std::uint16_t> wide;
  std::vector<std::uint32_t> full;
  ab::CodePoints s;
  s.size = n;
  s.width = width;
  if (width == 1) {
    narrow.assign(data, data + n);
    s.data = narrow.data();
  } else if (width == 2) {
    wide.resize(n);
    if (n) std::memcpy(wide.data(), data, n * 2);
    s.data = wide.data();
  } else {
    full.resize(n);
    if (n) std::memcpy(full.data(), data, n * 4);
    for (auto& c : full) c %= 0x110000;  // a Python str holds code points up to U+10FFFF
    s.data = full.data();
  }
  std::string out;
  ab::normalize_for_eval(s, out);
  ab::normalize_ref_for_eval(s, out);
  (void)ab::needs_unicode_lower(s);
  std::string folded;
  (void)ab::canonicalize_polarity(s, true, &folded);
  (void)ab::canonicalize_polarity(s, false, &folded);
  const auto [begin, end] = ab::strip_bounds(s);
  RAPIDGRADE_FUZZ_CHECK(begin <= end && end <= n);
  return 0;
}
