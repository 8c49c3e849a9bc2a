// RPN evaluation: parse_rpn, compile, run. Differential check of the two evaluators: when a
// constant tree has an exact rational value and the floating-point program gives a finite real
// result, the two agree to a relative 1e-6.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_common.hpp"
#include "fuzz_expr_common.hpp"
#include "rapidgrade/common.hpp"
#include "rapidgrade/expr.hpp"

namespace ex = rapidgrade::expr;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  ex::Ast ast;
  try {
    ast = ex::parse_rpn(text);
  } catch (const rapidgrade::ParseError&) {
    return 0;
  } catch (const rapidgrade::LimitError&) {
    return 0;
  }
  rapidgrade::fuzz::exercise_tree(ast);
  const auto exact = ex::exact_value(ast, ast.root);
  const ex::Program prog = ex::compile(ast, ast.root);
  if (!exact || !prog.evaluable || !prog.vars.empty() || prog.complex_constants) return 0;
  double value = 0;
  ex::run(prog, {}, {}, 1, &value);
  const double expected = exact->to_double();
  if (std::isfinite(value) && std::isfinite(expected) && std::fabs(expected) < 1e300) {
    RAPIDGRADE_FUZZ_CHECK(std::fabs(value - expected) <= 1e-6 * std::fmax(1.0, std::fabs(expected)));
  }
  return 0;
}
