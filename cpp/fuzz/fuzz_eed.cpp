// The EED score of PHYBench (eed.hpp): a pair split from the input. Invariants: nothing throws
// but LimitError; the score is in [0, 100]; a text scored against itself is 100 (when it is
// scored at all); the canonical tree of any text is built without failing.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/tasks/eed.hpp"

namespace eed = rapidgrade::eed;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  const auto [gold, answer] = rapidgrade::fuzz::split_pair(text);
  const eed::Result r = eed::score(gold, answer);
  RAPIDGRADE_FUZZ_CHECK(r.score >= 0.0 && r.score <= 100.0 && !std::isnan(r.score));
  const eed::Result self = eed::score(gold, gold);
  RAPIDGRADE_FUZZ_CHECK(self.status != eed::Status::kScored || self.score == 100.0);
  (void)eed::canonical_tree(answer);
  return 0;
}
