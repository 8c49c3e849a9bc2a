// Equivalence of two answers (input "gold\0pred"): equivalent on strings (auto syntax) with the
// default options and with float_rounding = 2, and on the parsed trees. Invariant: a tree that
// parses is never FALSE against itself.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "rapidgrade/common.hpp"
#include "rapidgrade/equiv.hpp"
#include "rapidgrade/expr.hpp"

namespace eq = rapidgrade::equiv;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto [gold, pred] = rapidgrade::fuzz::split_pair(rapidgrade::fuzz::as_text(data, size));
  eq::Options rounded;
  rounded.float_rounding = 2;
  (void)eq::equivalent(gold, pred);
  (void)eq::equivalent(gold, pred, rounded);
  try {
    const rapidgrade::expr::Ast tree = rapidgrade::expr::parse(gold);
    RAPIDGRADE_FUZZ_CHECK(eq::equivalent(tree, tree) != eq::Tri{0});  // Tri 0 is FALSE
  } catch (const rapidgrade::ParseError&) {
  } catch (const rapidgrade::LimitError&) {
  }
  return 0;
}
