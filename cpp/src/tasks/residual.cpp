// The residual check of integral equations; see rapidgrade/residual.hpp.
//
// Quadrature: composite 16-point Gauss-Legendre over panels of [a, b], refined adaptively and
// shared by every sample point. Each panel's value is compared with the sum of its two halves'
// values, for all points at once; a panel whose difference is within its share of the target
// error (or of the rounding floor of its terms) is accepted with the halves' sum, the others
// are replaced by their halves. The node budget (limits.max_nodes, and max_work divided by the
// cost of a node over all points) ends the refinement; a panel left unrefined then counts its
// parent's difference (or, for a first panel, the L1 size of its terms) as its error bound.
#include "rapidgrade/tasks/residual.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <deque>
#include <limits>
#include <string>

#include "rapidgrade/common.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/tasks/fredholm.hpp"

namespace rapidgrade::residual {
namespace {

constexpr std::size_t kOrder = 16;       // Gauss-Legendre points per panel
constexpr std::size_t kFirstPanels = 4;  // panels of the first pass
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr double kPi = 3.141592653589793238462643383279502884;

struct Rule {
  std::array<double, kOrder> x{}, w{};
};

// Nodes and weights of the kOrder-point Gauss-Legendre rule on [-1, 1] (Newton's method on the
// Legendre polynomial, from the Chebyshev-like first guesses; converges to rounding in a few
// steps).
Rule make_rule() {
  Rule r;
  const std::size_t m = kOrder;
  for (std::size_t i = 0; i < (m + 1) / 2; ++i) {
    double z = std::cos(kPi * (static_cast<double>(i) + 0.75) / (static_cast<double>(m) + 0.5));
    double pp = 1.0;
    for (int iter = 0; iter < 100; ++iter) {
      double p1 = 1.0, p2 = 0.0;
      for (std::size_t j = 1; j <= m; ++j) {
        const double p3 = p2;
        p2 = p1;
        p1 = ((2.0 * static_cast<double>(j) - 1.0) * z * p2 - (static_cast<double>(j) - 1.0) * p3) /
             static_cast<double>(j);
      }
      pp = static_cast<double>(m) * (z * p1 - p2) / (z * z - 1.0);
      const double z1 = z;
      z = z1 - p1 / pp;
      if (std::fabs(z - z1) < 1e-16) break;
    }
    r.x[i] = -z;
    r.x[m - 1 - i] = z;
    r.w[i] = r.w[m - 1 - i] = 2.0 / ((1.0 - z * z) * pp * pp);
  }
  return r;
}

const Rule& rule() {
  static const Rule r = make_rule();
  return r;
}

// Operations of the subtree at `root` (see count_ops), walked with an explicit stack.
std::size_t ops_of(const expr::Ast& ast, std::uint32_t root) {
  std::size_t ops = 0;
  std::vector<std::uint32_t> stack{root};
  while (!stack.empty()) {
    const expr::Node& n = ast.at(stack.back());
    stack.pop_back();
    switch (n.kind) {
      case expr::Kind::kAdd:
      case expr::Kind::kMul: ops += n.kids.empty() ? 0 : n.kids.size() - 1; break;
      case expr::Kind::kNumber:
      case expr::Kind::kSymbol:
      case expr::Kind::kConst: break;
      default: ops += 1;
    }
    for (std::uint32_t k : n.kids) stack.push_back(k);
  }
  return ops;
}

// A compiled expression and the values of its constants (vars past the `fixed` first ones).
struct Bound {
  const expr::Program* prog = nullptr;
  std::vector<double> consts;  // values of prog->vars[fixed..]
  std::size_t fixed = 0;
};

// Values for the constants of `prog` past its first `fixed` variables, or the name of one that
// has none (from `constants`, else `free_value` when given).
std::optional<std::string> bind_constants(const expr::Program& prog, std::size_t fixed,
                                          const std::map<std::string, double>& constants,
                                          const std::optional<double>& free_value, Bound& out) {
  out.prog = &prog;
  out.fixed = fixed;
  out.consts.clear();
  for (std::size_t v = fixed; v < prog.vars.size(); ++v) {
    const auto it = constants.find(std::string(prog.vars[v]));
    if (it != constants.end()) {
      out.consts.push_back(it->second);
    } else if (free_value) {
      out.consts.push_back(*free_value);
    } else {
      return std::string(prog.vars[v]);
    }
  }
  return std::nullopt;
}

// Evaluates a bound program at n points: variable 0 from v0 (stride s0), variable 1 (when the
// program has two fixed variables) from v1 (stride s1). Complex programs (those using I) are run
// in complex arithmetic; a result with an imaginary part beyond rounding is NaN.
void evaluate(const Bound& b, const double* v0, std::size_t s0, const double* v1, std::size_t s1, std::size_t n,
              double* out) {
  const expr::Program& prog = *b.prog;
  const std::size_t nv = prog.vars.size();
  if (!prog.complex_constants) {
    std::vector<const double*> inputs(nv);
    std::vector<std::size_t> strides(nv, 0);
    if (nv > 0) inputs[0] = v0, strides[0] = s0;
    if (nv > 1 && b.fixed > 1) inputs[1] = v1, strides[1] = s1;
    for (std::size_t v = b.fixed; v < nv; ++v) inputs[v] = &b.consts[v - b.fixed];
    expr::run(prog, inputs, strides, n, out);
    return;
  }
  std::vector<std::complex<double>> c0(n), c1(b.fixed > 1 ? n : 0), cc(b.consts.begin(), b.consts.end()), res(n);
  for (std::size_t j = 0; j < n; ++j) c0[j] = v0[j * s0];
  for (std::size_t j = 0; j < c1.size(); ++j) c1[j] = v1[j * s1];
  std::vector<const std::complex<double>*> inputs(nv);
  std::vector<std::size_t> strides(nv, 0);
  if (nv > 0) inputs[0] = c0.data(), strides[0] = 1;
  if (nv > 1 && b.fixed > 1) inputs[1] = c1.data(), strides[1] = 1;
  for (std::size_t v = b.fixed; v < nv; ++v) inputs[v] = &cc[v - b.fixed];
  expr::run(prog, inputs, strides, n, res.data());
  for (std::size_t j = 0; j < n; ++j) {
    const double re = res[j].real(), im = res[j].imag();
    out[j] = std::fabs(im) <= 1e-12 * std::max(1.0, std::fabs(re)) ? re : kNan;
  }
}

// Parses and compiles one expression of the equation ("kernel" or "f") in `syntax` with the
// fixed variables `vars`; "" or the reason it cannot serve.
std::string compile_part(const std::string& text, expr::Syntax syntax, std::vector<std::string_view> vars,
                         const char* name, const Options& options, std::optional<expr::Ast>& ast, expr::Program& prog) {
  const std::string who(name);
  if (text.size() > options.limits.max_bytes) return who + "_too_large";
  ast = expr::try_parse(text, syntax);
  if (!ast) return who + "_parse_failed";
  if (ops_of(*ast, ast->root) > options.limits.max_equation_ops) return who + "_too_large";
  prog = expr::compile(*ast, ast->root, std::move(vars));
  if (!prog.evaluable) return who + "_not_numeric";
  return "";
}

// The sample points: given, or the midpoints of n equal cells of [a, b].
std::vector<double> sample_points(const Equation& eq, const Options& options) {
  if (!eq.x_values.empty()) return eq.x_values;
  std::vector<double> xs(options.n_points);
  const double h = (eq.b - eq.a) / static_cast<double>(options.n_points);
  for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = eq.a + (static_cast<double>(i) + 0.5) * h;
  return xs;
}

// The integral I(x_i) = int_a^b K(x_i, t) u(t) dt at every sample point, with an error bound
// per point and the number of nodes used.
class Quadrature {
 public:
  Quadrature(const Bound& kernel, const Bound& u, const std::vector<double>& xs, double a, double b, double target,
             std::size_t max_nodes)
      : kernel_(kernel), u_(u), n_(xs.size()), a_(a), b_(b), target_(target), max_nodes_(max_nodes) {
    xgrid_.resize(n_ * kOrder);
    for (std::size_t i = 0; i < n_; ++i)
      std::fill_n(xgrid_.begin() + static_cast<std::ptrdiff_t>(i * kOrder), kOrder, xs[i]);
    tgrid_.resize(n_ * kOrder);
    kv_.resize(n_ * kOrder);
  }

  struct Out {
    std::vector<double> integral, error;
    std::size_t nodes = 0;
  };

  Out run() {
    struct Panel {
      double lo, hi;
      std::vector<double> value, bound;  // value per point; error bound if never refined
    };
    Out out;
    out.integral.assign(n_, 0.0);
    out.error.assign(n_, 0.0);
    std::deque<Panel> active;
    const double width = (b_ - a_) / static_cast<double>(kFirstPanels);
    for (std::size_t p = 0; p < kFirstPanels; ++p) {
      const double lo = a_ + width * static_cast<double>(p);
      const double hi = p + 1 == kFirstPanels ? b_ : lo + width;
      Panel panel{lo, hi, {}, {}};
      std::vector<double> mag;
      panel_value(lo, hi, panel.value, mag);
      panel.bound = mag;  // nothing better is known of a first panel
      active.push_back(std::move(panel));
    }
    out.nodes = kFirstPanels * kOrder;
    const double total_width = std::fabs(b_ - a_);
    std::vector<double> left, right, mag_l, mag_r;
    while (!active.empty()) {
      Panel panel = std::move(active.front());
      active.pop_front();
      const bool finite =
          std::all_of(panel.value.begin(), panel.value.end(), [](double v) { return std::isfinite(v); });
      if (!finite || out.nodes + 2 * kOrder > max_nodes_) {
        // Not refinable (a non-finite value stays so) or out of budget: keep it with its bound.
        for (std::size_t i = 0; i < n_; ++i) {
          out.integral[i] += panel.value[i];
          out.error[i] += finite ? panel.bound[i] : kNan;
        }
        continue;
      }
      const double mid = 0.5 * (panel.lo + panel.hi);
      panel_value(panel.lo, mid, left, mag_l);
      panel_value(mid, panel.hi, right, mag_r);
      out.nodes += 2 * kOrder;
      const double share = target_ * std::fabs(panel.hi - panel.lo) / total_width;
      bool accept = true;
      std::vector<double> diff(n_);
      for (std::size_t i = 0; i < n_; ++i) {
        const double refined = left[i] + right[i];
        diff[i] = std::fabs(refined - panel.value[i]);
        const double floor = 64.0 * kEps * (mag_l[i] + mag_r[i]);
        if (!(diff[i] <= std::max(share, floor))) accept = false;
      }
      if (accept) {
        for (std::size_t i = 0; i < n_; ++i) {
          out.integral[i] += left[i] + right[i];
          out.error[i] += diff[i];
        }
        continue;
      }
      std::vector<double> half(n_);
      for (std::size_t i = 0; i < n_; ++i) half[i] = 0.5 * diff[i];
      active.push_back(Panel{panel.lo, mid, left, half});
      active.push_back(Panel{mid, panel.hi, right, std::move(half)});
    }
    return out;
  }

 private:
  // value[i] = int_lo^hi K(x_i, t) u(t) dt by the rule; mag[i] = the same of |K u|.
  void panel_value(double lo, double hi, std::vector<double>& value, std::vector<double>& mag) {
    const Rule& r = rule();
    const double c = 0.5 * (lo + hi), h = 0.5 * (hi - lo);
    std::array<double, kOrder> ts{}, uv{};
    for (std::size_t k = 0; k < kOrder; ++k) ts[k] = c + h * r.x[k];
    evaluate(u_, ts.data(), 1, nullptr, 0, kOrder, uv.data());
    for (std::size_t i = 0; i < n_; ++i)
      std::copy(ts.begin(), ts.end(), tgrid_.begin() + static_cast<std::ptrdiff_t>(i * kOrder));
    evaluate(kernel_, xgrid_.data(), 1, tgrid_.data(), 1, n_ * kOrder, kv_.data());
    value.assign(n_, 0.0);
    mag.assign(n_, 0.0);
    for (std::size_t i = 0; i < n_; ++i) {
      double s = 0, m = 0;
      const double* kv = kv_.data() + i * kOrder;
      for (std::size_t k = 0; k < kOrder; ++k) {
        const double term = r.w[k] * kv[k] * uv[k];
        s += term;
        m += std::fabs(term);
      }
      value[i] = h * s;
      mag[i] = std::fabs(h) * m;
    }
  }

  const Bound& kernel_;
  const Bound& u_;
  std::size_t n_;
  double a_, b_, target_;
  std::size_t max_nodes_;
  std::vector<double> xgrid_, tgrid_, kv_;
};

Result unchecked(std::string reason) {
  Result r;
  r.status = Status::kUnverifiable;
  r.reason = std::move(reason);
  r.residual_max = r.residual_mean = r.residual_rmse = kInf;
  r.quadrature_error = kInf;
  return r;
}

bool says_no_solution(std::string_view cleaned) {
  std::string flat;
  for (char ch : cleaned) {
    if (detail::is_letter(ch)) flat.push_back(detail::to_lower(ch));
    if (flat.size() >= 16) break;
  }
  return flat.rfind("nosolution", 0) == 0 || flat.rfind("textnosolution", 0) == 0 || flat == "none";
}

}  // namespace

std::size_t count_ops(const expr::Ast& ast, std::uint32_t node) { return ops_of(ast, node); }

Prepared prepare(const Equation& eq, const Options& options) {
  Prepared p;
  p.kind = eq.kind;
  p.lambda = eq.lambda;
  p.a = eq.a;
  p.b = eq.b;
  const std::size_t n = eq.x_values.empty() ? options.n_points : eq.x_values.size();
  if (n > options.limits.max_points) {
    throw LimitError("verify_residual: " + std::to_string(n) + " sample points exceed the limit of " +
                     std::to_string(options.limits.max_points));
  }
  if (!std::isfinite(eq.a) || !std::isfinite(eq.b) || eq.a == eq.b) {
    p.error = "bad_domain";
    return p;
  }
  if (!std::isfinite(eq.lambda)) {
    p.error = "bad_lambda";
    return p;
  }
  if (n == 0) {
    p.error = "bad_x_values";
    return p;
  }
  p.xs = sample_points(eq, options);
  if (!std::all_of(p.xs.begin(), p.xs.end(), [](double v) { return std::isfinite(v); })) {
    p.error = "bad_x_values";
    return p;
  }
  p.error = compile_part(eq.kernel, eq.syntax, {"x", "t"}, "kernel", options, p.kernel_ast, p.kernel);
  if (!p.error.empty()) return p;
  p.error = compile_part(eq.f, eq.syntax, {"x"}, "f", options, p.f_ast, p.f);
  if (!p.error.empty()) return p;
  Bound kb, fb;
  if (auto missing = bind_constants(p.kernel, 2, options.constants, std::nullopt, kb)) {
    p.error = "kernel_free_symbol: " + *missing;
    return p;
  }
  if (auto missing = bind_constants(p.f, 1, options.constants, std::nullopt, fb)) {
    p.error = "f_free_symbol: " + *missing;
    return p;
  }
  p.f_values.resize(p.xs.size());
  evaluate(fb, p.xs.data(), 1, nullptr, 0, p.xs.size(), p.f_values.data());
  return p;
}

Result check(const Prepared& eq, std::string_view candidate, const Options& options) {
  if (!eq.error.empty()) return unchecked(eq.error);
  const Limits& lim = options.limits;
  if (candidate.size() > lim.max_bytes) return unchecked("candidate_too_large");
  fredholm::Parsed parsed;
  if (!fredholm::read_solution(candidate, options.syntax, parsed)) {
    const std::string cleaned = fredholm::clean_candidate(candidate);
    return unchecked(says_no_solution(cleaned) ? "no_solution" : "parse_failed");
  }
  const std::optional<expr::Ast> ast = expr::try_parse(parsed.expr_text, parsed.expr_syntax);
  if (!ast) return unchecked("parse_failed");
  if (ops_of(*ast, ast->root) > lim.max_ops) return unchecked("candidate_too_large");
  const expr::Program prog = expr::compile(*ast, ast->root, {"x"});
  if (!prog.evaluable) return unchecked("not_numeric");
  Bound ub, kb;
  if (auto missing = bind_constants(prog, 1, options.constants, options.free_constants, ub)) {
    return unchecked("free_symbol: " + *missing);
  }
  bind_constants(eq.kernel, 2, options.constants, std::nullopt, kb);

  const std::size_t n = eq.xs.size();
  // Node budget: a node costs a kernel evaluation at every point and one of u.
  const std::size_t per_node = n * (eq.kernel.code.size() + 1) + prog.code.size() + 1;
  const std::size_t max_nodes = std::max(kFirstPanels * kOrder, std::min(lim.max_nodes, lim.max_work / per_node));
  // The integral's target error: a thousandth of the tolerance once multiplied by lambda.
  const double target = 1e-3 * options.tolerance / std::max(std::fabs(eq.lambda), 1e-12);

  Result r;
  r.xs = eq.xs;
  r.residuals.assign(n, 0.0);
  std::vector<double> integral(n, 0.0), error(n, 0.0);
  if (eq.lambda != 0.0) {
    Quadrature q(kb, ub, eq.xs, eq.a, eq.b, target, max_nodes);
    Quadrature::Out out = q.run();
    integral = std::move(out.integral);
    error = std::move(out.error);
    r.nodes = out.nodes;
  }
  std::vector<double> uv(n, 0.0);
  if (eq.kind == Kind::kSecond) evaluate(ub, eq.xs.data(), 1, nullptr, 0, n, uv.data());
  double mx = 0, sum = 0, sq = 0, qerr = 0;
  bool finite = true;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = eq.kind == Kind::kSecond ? uv[i] - eq.lambda * integral[i] - eq.f_values[i]
                                              : eq.lambda * integral[i] - eq.f_values[i];
    r.residuals[i] = v;
    if (!std::isfinite(v)) {
      finite = false;
      continue;
    }
    const double av = std::fabs(v);
    mx = std::max(mx, av);
    sum += av;
    sq += av * av;
    qerr = std::max(qerr, std::fabs(eq.lambda) * error[i]);
  }
  if (!finite) {
    r.status = Status::kFailed;
    r.reason = "non_finite";
    r.residual_max = r.residual_mean = r.residual_rmse = kNan;
    r.quadrature_error = kNan;
    return r;
  }
  r.residual_max = mx;
  r.residual_mean = sum / static_cast<double>(n);
  r.residual_rmse = std::sqrt(sq / static_cast<double>(n));
  r.quadrature_error = qerr;
  if (mx < options.tolerance) {
    if (mx + qerr < options.tolerance) {
      r.status = Status::kVerified;
    } else {
      r.status = Status::kUnverifiable;
      r.reason = "quadrature_unresolved";
    }
  } else if (mx - qerr >= options.tolerance) {
    r.status = Status::kFailed;
    r.reason = "residual_above_tolerance";
  } else {
    r.status = Status::kUnverifiable;
    r.reason = "quadrature_unresolved";
  }
  return r;
}

}  // namespace rapidgrade::residual
