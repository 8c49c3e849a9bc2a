// The physics flow: normalize_answer, the unit grammar (whole and greedy) and the reading of a
// grading pair. Invariants: nothing throws; a greedy unit reads a prefix of its input; the
// string value of a physical quantity normalizes to itself (a text of the same value).
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/tasks/physics.hpp"

namespace ph = rapidgrade::physics;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  const ph::Normalized n = ph::normalize_answer(text);
  if (n.category == ph::Category::kPhysicalQuantity) {
    RAPIDGRADE_FUZZ_CHECK(ph::normalize_answer(n.value).value == n.value ||
                          ph::normalize_answer(n.value).category == ph::Category::kNumber);
  }
  const ph::Unit greedy = ph::parse_unit(text, true);
  RAPIDGRADE_FUZZ_CHECK(!greedy.ok || greedy.end <= text.size());
  const ph::Unit whole = ph::parse_unit(text, false);
  RAPIDGRADE_FUZZ_CHECK(!whole.ok || !whole.pint.empty());
  const auto [gold, response] = rapidgrade::fuzz::split_pair(text);
  (void)ph::read_gold(gold);
  (void)ph::read_response(response);
  return 0;
}
