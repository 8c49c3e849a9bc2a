// Bindings of rapidgrade::residual: the residual check of candidate solutions of integral
// equations, as one batch (equations prepared, then candidates checked, GIL released, Ctrl-C
// checked between blocks). Conversion only; the rules are in the core.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/tasks/residual.hpp"

namespace rapidgrade::bindings {
namespace {

using EquationTuple = std::tuple<std::string, std::string, double, double, double, std::string, py::object>;

expr::Syntax residual_syntax(const std::string& s, const char* what) {
  if (s == "auto") return expr::Syntax::kAuto;
  if (s == "latex") return expr::Syntax::kLatex;
  if (s == "infix") return expr::Syntax::kInfix;
  if (s == "rpn") return expr::Syntax::kRpn;
  throw py::value_error(std::string("fredholm_residual_many: ") + what +
                        " must be 'auto', 'latex', 'infix' or 'rpn', not '" + s + "'");
}

std::size_t positive(long long v, const char* what) {
  if (v < 1) throw py::value_error(std::string("fredholm_residual_many: ") + what + " must be >= 1");
  return static_cast<std::size_t>(v);
}

py::array_t<double> to_array(const std::vector<double>& v) {
  py::array_t<double> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// Checks candidates[i] against equations[equation_index[i]]. Each equation is (kernel, f, lambda,
// a, b, kind, x_values or None); kind is "second" or "first". Returns per candidate (status,
// reason, residual_max, residual_mean, residual_rmse, quadrature_error, nodes, xs, residuals).
py::list fredholm_residual_many(const py::handle& candidates_obj, const std::vector<EquationTuple>& equations,
                                const std::vector<long long>& equation_index, const std::string& syntax,
                                const std::string& equation_syntax, double tolerance, long long n_points,
                                const std::map<std::string, double>& constants,
                                const std::optional<double>& free_constants, long long max_ops, long long max_points,
                                long long max_nodes, long long max_work, const py::object& threads) {
  const char* fn = "fredholm_residual_many";
  residual::Options o;
  if (!(tolerance > 0)) throw py::value_error("fredholm_residual_many: tolerance must be > 0");
  o.tolerance = tolerance;
  o.n_points = positive(n_points, "n_points");
  o.syntax = residual_syntax(syntax, "syntax");
  o.constants = constants;
  o.free_constants = free_constants;
  o.limits.max_ops = positive(max_ops, "max_ops");
  o.limits.max_points = positive(max_points, "max_points");
  o.limits.max_nodes = positive(max_nodes, "max_nodes");
  o.limits.max_work = positive(max_work, "max_work");
  const expr::Syntax eq_syntax = residual_syntax(equation_syntax, "equation_syntax");
  const unsigned n_threads = resolve_threads(threads, fn);
  const std::vector<Text> texts = texts_of(candidates_obj, fn, "candidates", false);
  if (texts.size() != equation_index.size()) {
    throw py::value_error("fredholm_residual_many: candidates and equation_index differ in length");
  }
  for (long long k : equation_index) {
    if (k < 0 || static_cast<std::size_t>(k) >= equations.size()) {
      throw py::value_error("fredholm_residual_many: equation_index out of range");
    }
  }
  std::vector<residual::Equation> eqs(equations.size());
  for (std::size_t e = 0; e < equations.size(); ++e) {
    const auto& [kernel, f, lam, a, b, kind, xs] = equations[e];
    residual::Equation& q = eqs[e];
    q.kernel = kernel;
    q.f = f;
    q.lambda = lam;
    q.a = a;
    q.b = b;
    if (kind == "second") {
      q.kind = residual::Kind::kSecond;
    } else if (kind == "first") {
      q.kind = residual::Kind::kFirst;
    } else {
      throw py::value_error("fredholm_residual_many: kind must be 'second' or 'first', not '" + kind + "'");
    }
    q.syntax = eq_syntax;
    if (!xs.is_none()) {
      const auto arr = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(xs);
      if (!arr || arr.ndim() != 1)
        throw py::value_error("fredholm_residual_many: x_values must be a 1-d sequence of floats");
      q.x_values.assign(arr.data(), arr.data() + arr.size());
      if (q.x_values.empty()) throw py::value_error("fredholm_residual_many: x_values must not be empty");
    }
  }
  std::vector<residual::Prepared> prepared(eqs.size());
  run_blocks(
      eqs.size(), n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t e = begin; e < end; ++e) prepared[e] = residual::prepare(eqs[e], o);
      },
      [](std::size_t, std::size_t) {});
  const std::size_t n = texts.size();
  std::vector<residual::Result> results(n);
  py::list out(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          results[i] = residual::check(prepared[static_cast<std::size_t>(equation_index[i])], texts[i].utf8, o);
        }
      },
      [&](std::size_t i) {
        const residual::Result& r = results[i];
        set_item(out, i,
                 py::make_tuple(py::str(std::string(residual::kStatusNames[static_cast<int>(r.status)])),
                                py::str(r.reason), r.residual_max, r.residual_mean, r.residual_rmse, r.quadrature_error,
                                r.nodes, to_array(r.xs), to_array(r.residuals)));
        results[i] = residual::Result{};
      });
  return out;
}

}  // namespace

void bind_residual(py::module_& m) {
  m.def("fredholm_residual_many", &fredholm_residual_many, py::arg("candidates"), py::arg("equations"),
        py::arg("equation_index"), py::kw_only(), py::arg("syntax") = "auto", py::arg("equation_syntax") = "auto",
        py::arg("tolerance") = 1e-6, py::arg("n_points") = 50, py::arg("constants") = std::map<std::string, double>{},
        py::arg("free_constants") = py::none(), py::arg("max_ops") = 800, py::arg("max_points") = 1024,
        py::arg("max_nodes") = 4096, py::arg("max_work") = 1LL << 25, py::arg("threads") = py::none(),
        "Residual check of candidate solutions of integral equations, GIL released "
        "(see rapidgrade.tasks.fredholm.verify_residual).");
}

}  // namespace rapidgrade::bindings
