// LaTeX normalization with every combination of options. Invariant: normalization is idempotent
// (normalize(normalize(s)) == normalize(s)), as the property tests and the old harness checked.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/normalize.hpp"

namespace nm = rapidgrade::normalize;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  for (int units = 0; units < 2; ++units) {
    for (int equations = 0; equations < 2; ++equations) {
      nm::Options options;
      options.units = units != 0;
      options.equations = equations != 0;
      const nm::Normalized once = nm::normalize(text, options);
      RAPIDGRADE_FUZZ_CHECK(nm::normalize(once.text, options).text == once.text);
    }
  }
  return 0;
}
