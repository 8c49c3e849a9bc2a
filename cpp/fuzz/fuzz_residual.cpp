// The residual check of integral equations (residual.hpp): the input's two halves are the
// kernel and a candidate, f is a fixed function. Invariants: nothing throws but LimitError; a
// checked candidate's residuals are one per sample point; the work stays within the caps (the
// fuzzer's timeout catches a check that does not).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_common.hpp"
#include "rapidgrade/tasks/residual.hpp"

namespace rs = rapidgrade::residual;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  const auto [kernel, candidate] = rapidgrade::fuzz::split_pair(text);
  rs::Options options;
  options.n_points = 8;
  options.free_constants = 1.0;
  options.limits.max_nodes = 256;  // a fuzz run is many short checks: smaller caps, the same code paths
  options.limits.max_work = std::size_t{1} << 18;
  rs::Equation equation;
  equation.kernel = std::string(kernel);
  equation.f = "x";
  equation.lambda = 0.5;
  const rs::Prepared prepared = rs::prepare(equation, options);
  const rs::Result r = rs::check(prepared, candidate, options);
  RAPIDGRADE_FUZZ_CHECK(r.residuals.empty() || r.residuals.size() == r.xs.size());
  RAPIDGRADE_FUZZ_CHECK(r.status != rs::Status::kVerified || r.reason.empty());
  return 0;
}
