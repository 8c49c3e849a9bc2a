// The whole fast path (input "gold\0response"): unwrap, normalize, extract, parse, compare.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/grade.hpp"

namespace gr = rapidgrade::grade;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [gold, response] = rapidgrade::fuzz::split_pair(rapidgrade::fuzz::as_text(data, size));
  (void)gr::grade(gold, response);
  gr::Options strict;
  strict.last_number = false;
  (void)gr::grade(gold, response, strict);
  return 0;
}
