// What the expression harnesses do with a parsed tree: print it, list its symbols, evaluate it
// exactly, compile it and run it over a few real and complex points (also with error bounds), and
// compare it with itself. Shared by fuzz_parse_{latex,infix,rpn}.cpp and fuzz_rpn_eval.cpp.
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fuzz_common.hpp"
#include "rapidgrade/equiv.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::fuzz {

inline void exercise_tree(const expr::Ast& ast) {
  RAPIDGRADE_FUZZ_CHECK(!ast.nodes.empty() && ast.root < ast.nodes.size());
  for (std::uint32_t i = 0; i < ast.nodes.size(); ++i) {
    for (std::uint32_t kid : ast.nodes[i].kids) RAPIDGRADE_FUZZ_CHECK(kid < i);  // children first
  }
  (void)expr::to_string(ast);
  (void)expr::free_symbols(ast);
  (void)expr::exact_value(ast, ast.root);
  const expr::Program prog = expr::compile(ast, ast.root);
  if (!prog.evaluable) return;  // the core runs only evaluable programs (see equiv.cpp, bind_expr.cpp)
  constexpr std::size_t kPoints = 4;
  std::vector<std::vector<double>> real_values(prog.vars.size(), {0.5, -1.25, 3.0, 1e-3});
  std::vector<std::vector<std::complex<double>>> complex_values(prog.vars.size(),
                                                                {{0.5, 0.25}, {-1.25, 2.0}, {3.0, -0.5}, {0.0, 1.0}});
  std::vector<const double*> real_inputs;
  std::vector<const std::complex<double>*> complex_inputs;
  for (const auto& v : real_values) real_inputs.push_back(v.data());
  for (const auto& v : complex_values) complex_inputs.push_back(v.data());
  const std::vector<std::size_t> strides(prog.vars.size(), 1);
  double real_out[kPoints];
  std::complex<double> complex_out[kPoints];
  double error[kPoints];
  unsigned char near_cut[kPoints];
  expr::run(prog, real_inputs, strides, kPoints, real_out);
  expr::run(prog, complex_inputs, strides, kPoints, complex_out);
  expr::run_bounded(prog, complex_inputs, kPoints, complex_out, error, near_cut);
  // run_values gives run_bounded's values bit for bit, and a program that applies no
  // multivalued function never has a point flagged near a branch cut (equivalence relies on
  // both to skip the bounds where values agree)
  std::complex<double> values[kPoints];
  expr::run_values(prog, complex_inputs, kPoints, values);
  RAPIDGRADE_FUZZ_CHECK(std::memcmp(values, complex_out, sizeof(values)) == 0);
  if (!expr::may_flag_near_cut(prog)) {
    for (const unsigned char flag : near_cut) RAPIDGRADE_FUZZ_CHECK(flag == 0);
  }
}

}  // namespace rapidgrade::fuzz
