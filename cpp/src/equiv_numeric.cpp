// The numbers behind the equivalence check (equiv.cpp; declarations in equiv_internal.hpp):
// the seeded sample points at which both sides of a numeric identity test are evaluated (32 per
// variable: 8 real, 24 complex), and the values of constant trees, exact in 128-bit rationals
// where they fit, else in doubles with a rounding-error bound, with magnitudes past the range
// of doubles from logarithms ((10^{10})!, 10^{10^{10}}). Every walk is O(tree size), recursion
// bounded by the tree depth.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "equiv_internal.hpp"
#include "expr_kernels.hpp"
#include "rapidgrade/detail/functions.hpp"

namespace rapidgrade::equiv::detail {

using expr::detail::magnitude;

// ---------------------------------------------------------------------------------------------
// Sample points

namespace {

// splitmix64: the fixed-seed generator of the sample points
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
};

// Variables whose sample values are drawn once per process (past them, per comparison).
constexpr std::size_t kSharedVariables = 16;

// The sample values of a comparison's v-th variable (its variables sorted by name): kPoints
// values from the fixed-seed sequence, each variable its own 2 * kPoints draws, so a variable's
// values are the same in every comparison.
std::vector<C> draw_points(std::size_t v) {
  Rng rng{0x5EEDu + v * 2 * kPoints * 0x9E3779B97F4A7C15ull};  // the state after v * 2 * kPoints draws
  std::vector<C> vals(kPoints);
  // magnitudes log-uniform in [1/20, 20] (and [1/4, 4] for the bulk of the complex points,
  // where nested exponentials stay finite), in all directions, so that sub-expressions take
  // values on both sides of 1 and of every branch cut (sqrt(u^2) = u only where Re u > 0)
  for (std::size_t k = 0; k < kPoints; ++k) {
    const bool near = k >= kReal && k < kReal + kNear;
    const double mag = std::exp((2 * rng.uniform() - 1) * std::log(near ? 4.0 : 20.0));
    if (k < kReal) {
      vals[k] = C(rng.uniform() < 0.5 ? -mag : mag, 0);
    } else {
      const double t = 2 * kPi * rng.uniform();
      vals[k] = C(mag * std::cos(t), mag * std::sin(t));
    }
  }
  return vals;
}

// The values of the first kSharedVariables variables, drawn on first use (a constant table:
// thread-safe initialization, never written again).
const std::vector<std::vector<C>>& shared_points() {
  static const std::vector<std::vector<C>> table = [] {
    std::vector<std::vector<C>> t;
    for (std::size_t v = 0; v < kSharedVariables; ++v) t.push_back(draw_points(v));
    return t;
  }();
  return table;
}

}  // namespace

Points make_points(std::vector<std::string_view> vars) {
  Points p;
  p.vars = std::move(vars);
  const std::vector<std::vector<C>>& shared = shared_points();
  for (std::size_t v = 0; v < p.vars.size(); ++v) {
    if (v < shared.size()) {
      p.values.push_back(shared[v].data());
    } else {
      p.own.push_back(draw_points(v));  // a moved vector keeps its buffer: the pointer stays valid
      p.values.push_back(p.own.back().data());
    }
  }
  return p;
}

Eval difference(const Eval& a, const Eval& b) {
  Eval x = a;
  for (std::size_t k = 0; k < kPoints; ++k) {
    x.v[k] -= b.v[k];
    x.err[k] = x.err[k] + b.err[k] + 2.3e-16 * magnitude(x.v[k]);
    x.near_cut[k] = x.near_cut[k] | b.near_cut[k];
  }
  x.evaluable = x.evaluable && b.evaluable;
  x.analytic = x.analytic && b.analytic;
  x.continuous = x.continuous && b.continuous;
  return x;
}

std::vector<std::string_view> union_symbols(Ref a, Ref b) {
  std::vector<std::string_view> s = symbol_names(*a.ast, a.i), t = symbol_names(*b.ast, b.i);
  s.insert(s.end(), t.begin(), t.end());
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return s;
}

bool has_inexact_literal(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kNumber) {
    std::size_t digits = 0;
    for (char c : n.text) {
      if (c == 'e') break;
      if (c >= '0' && c <= '9' && !(digits == 0 && c == '0')) ++digits;
    }
    return digits > 15;
  }
  for (std::size_t k = 0; k < n.kids.size(); ++k)
    if (has_inexact_literal(r.kid(k))) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Constant values

namespace {

/// Built only from numbers, + - * / integer powers, factorials, binomials and falling factorials
/// (the kFalling rows of the function table), percent and abs: its value is rational, so a
/// failed exact evaluation means overflow, not irrationality.
bool rational_shaped(Ref r) {
  const Node& n = r.node();
  switch (n.kind) {
    case Kind::kNumber: return true;
    case Kind::kAdd:
    case Kind::kMul:
    case Kind::kNeg:
    case Kind::kDiv:
    case Kind::kFactorial:
    case Kind::kPercent:
    case Kind::kAbs: break;
    case Kind::kPow: {
      auto e = exact_value(*r.ast, n.kids[1]);
      if (!e || e->den != 1) return false;
      return rational_shaped(r.kid(0));
    }
    case Kind::kFunc: {
      const rapidgrade::detail::FunctionSpec* f = rapidgrade::detail::find_function(n.text);
      if (f == nullptr || (f->flags & rapidgrade::detail::kFalling) == 0) return false;
      break;
    }
    default: return false;
  }
  for (std::size_t k = 0; k < n.kids.size(); ++k)
    if (!rational_shaped(r.kid(k))) return false;
  return true;
}

/// Decimal places of a literal "1.25" (2), "1.5e-3" (4); -1 if not a decimal literal.
int decimal_places(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kNeg) return decimal_places(r.kid(0));
  if (n.kind != Kind::kNumber) return -1;
  const std::string& t = n.text;
  const auto dot = t.find('.');
  const auto e = t.find('e');
  if (dot == std::string::npos && e == std::string::npos) return -1;
  int places = 0;
  if (dot != std::string::npos) places = static_cast<int>((e == std::string::npos ? t.size() : e) - dot - 1);
  if (e != std::string::npos) places -= std::atoi(t.c_str() + e + 1);
  return std::max(places, 0);
}

/// Whether r calls a function whose row of the function table marks it discontinuous (floor,
/// ceiling): what compile() reports as !Program::continuous for a tree with an exact value
/// (every function exact_value evaluates has its row).
bool calls_discontinuous(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kFunc) {
    const rapidgrade::detail::FunctionSpec* f = rapidgrade::detail::find_function(n.text);
    if (f != nullptr && (f->flags & rapidgrade::detail::kDiscontinuous) != 0) return true;
  }
  for (std::size_t k = 0; k < n.kids.size(); ++k)
    if (calls_discontinuous(r.kid(k))) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Magnitudes of values past the range of doubles: (10^{10})!, 10^{10^{10}}, 2^{3^{40}}.

constexpr double kLn10 = 2.30258509299404568402;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Natural logarithm of the value of a decimal literal, from its first 17 significant digits
/// and its length: "1e400" is 921.03..., a literal of a million digits about 2.3 million.
double log_of_literal(std::string_view t) {
  const std::size_t e = t.find('e');
  long long exp10 = 0;
  if (e != std::string_view::npos) {
    bool negative = false;
    std::size_t k = e + 1;
    if (k < t.size() && (t[k] == '-' || t[k] == '+')) negative = t[k++] == '-';
    for (; k < t.size() && t[k] >= '0' && t[k] <= '9'; ++k)
      exp10 = std::min(exp10 * 10 + (t[k] - '0'), 1000000000000000LL);
    if (negative) exp10 = -exp10;
  }
  double mantissa = 0;
  int used = 0;
  long long scale = 0;  // value = mantissa * 10^(scale + exp10)
  bool point = false;
  for (std::size_t k = 0; k < std::min(e, t.size()); ++k) {
    const char c = t[k];
    if (c == '.') {
      point = true;
      continue;
    }
    if (c < '0' || c > '9') continue;
    if (used < 17) {
      if (point) --scale;
      if (mantissa == 0 && c == '0') continue;
      mantissa = mantissa * 10 + (c - '0');
      ++used;
    } else if (!point) {
      ++scale;
    }
  }
  if (mantissa == 0) return -kInf;
  return std::log(mantissa) + static_cast<double>(scale + exp10) * kLn10;
}

}  // namespace

std::optional<double> log_magnitude(Ref r) {
  const Node& n = r.node();
  switch (n.kind) {
    case Kind::kNumber: return log_of_literal(n.text);
    case Kind::kConst:
      if (n.text == "pi") return std::log(kPi);
      if (n.text == "E") return 1.0;
      return std::nullopt;
    case Kind::kPercent: {
      const auto l = log_magnitude(r.kid(0));
      if (!l) return std::nullopt;
      return *l - 2 * kLn10;
    }
    case Kind::kAdd: {  // log-sum-exp of positive terms
      std::vector<double> ls;
      double top = -kInf;
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        const auto l = log_magnitude(r.kid(k));
        if (!l) return std::nullopt;
        ls.push_back(*l);
        top = std::max(top, *l);
      }
      if (!std::isfinite(top)) return top;
      double sum = 0;
      for (double l : ls) sum += std::exp(l - top);
      return top + std::log(sum);
    }
    case Kind::kMul:
    case Kind::kDiv: {
      double total = 0;
      bool pos_inf = false, neg_inf = false;
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        auto l = log_magnitude(r.kid(k));
        if (!l) return std::nullopt;
        const double term = (n.kind == Kind::kDiv && k > 0) ? -*l : *l;
        if (term == kInf) pos_inf = true;
        if (term == -kInf) neg_inf = true;
        total += term;
      }
      if (pos_inf && neg_inf) return std::nullopt;  // inf / inf
      return pos_inf ? kInf : neg_inf ? -kInf : total;
    }
    case Kind::kPow: {
      const auto base = log_magnitude(r.kid(0));
      if (!base) return std::nullopt;
      double exponent = 0;
      if (const auto e = exact_value(*r.ast, n.kids[1])) {
        exponent = e->to_double();
      } else {
        const auto le = log_magnitude(r.kid(1));
        if (!le) return std::nullopt;
        exponent = std::exp(*le);  // +inf for a tower
      }
      if (*base == 0 || exponent == 0) return 0.0;  // 1^x, x^0
      if (std::isinf(exponent) && std::isinf(*base)) return std::nullopt;
      return exponent * *base;
    }
    case Kind::kFactorial: {
      const auto l = log_magnitude(r.kid(0));
      if (!l) return std::nullopt;
      const double x = std::exp(*l);
      if (std::isinf(x)) return kInf;
      return std::lgamma(x + 1);
    }
    default: return std::nullopt;
  }
}

std::optional<double> signed_log_magnitude(Ref r) {
  return r.node().kind == Kind::kNeg ? log_magnitude(r.kid(0)) : log_magnitude(r);
}

bool below_doubles(Ref r, const Val& v) {
  if (v.inf != 0 || v.exact || !v.evaluable || v.num != C{0, 0}) return false;
  const std::optional<double> l = signed_log_magnitude(r);
  return l && std::isfinite(*l);
}

int value_sign(Ref r, const Val& v) {
  if (v.exact) return v.exact->num > 0 ? 1 : v.exact->num < 0 ? -1 : 0;
  if (r.node().kind == Kind::kNeg) return log_magnitude(r.kid(0)) ? -1 : 0;
  return log_magnitude(r) ? 1 : 0;
}

int infinity_sign(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kConst && n.text == "oo") return 1;
  if (n.kind == Kind::kNeg) return -infinity_sign(r.kid(0));
  return 0;
}

Val value(Ref r) {
  Val v;
  v.inf = infinity_sign(r);
  v.exact = exact_value(*r.ast, r.i);
  if (v.exact) {  // no numeric program needed (a determinant has none)
    v.num = C(v.exact->to_double(), 0);
    v.err = 2.3e-16 * std::fabs(v.num.real());
    v.continuous = !calls_discontinuous(r);
  } else {
    const Program prog = compile(*r.ast, r.i);
    v.evaluable = prog.evaluable && prog.vars.empty();
    v.continuous = prog.continuous;
    if (v.evaluable) {
      std::vector<const C*> inputs;
      unsigned char cut = 0;
      run_bounded(prog, inputs, 1, &v.num, &v.err, &cut);
      v.near_cut = cut != 0;
    }
  }
  v.overflowed = !v.exact && rational_shaped(r);
  const int places = decimal_places(r);
  v.decimal = places >= 0;
  v.places = std::max(places, 0);
  return v;
}

Val scaled(Val v, Int num, Int den, int extra_places) {
  if (v.exact) v.exact = rational_mul(*v.exact, Rational{num, den});
  v.num *= static_cast<double>(num) / static_cast<double>(den);
  v.err = v.err * std::fabs(static_cast<double>(num) / static_cast<double>(den)) + 2.3e-16 * magnitude(v.num);
  v.places += extra_places;
  return v;
}

Val times_pi_over_180(Val v) {
  v.exact.reset();
  v.num *= kPi / 180.0;
  v.err = v.err * (kPi / 180.0) + 4.6e-16 * magnitude(v.num);
  v.decimal = false;
  return v;
}

std::optional<long long> round_to(const Val& v, int places) {
  if (places > 15) return std::nullopt;
  if (v.exact) {
    Int p = 1;
    for (int k = 0; k < places; ++k) p *= 10;
    const Int num = v.exact->num, den = v.exact->den;
    // num * p may overflow: check through division
    const Int lim = num < 0 ? -num : num;
    if (lim != 0 && lim > (static_cast<Int>(1) << 100) / p) goto numeric;
    {
      Int x = num * p;
      Int q = x / den, rem = x % den;
      Int twice = (rem < 0 ? -rem : rem) * 2;
      if (twice >= den) q += (x < 0 ? -1 : 1);
      if (q > static_cast<Int>(1) << 62 || q < -(static_cast<Int>(1) << 62)) return std::nullopt;
      return static_cast<long long>(q);
    }
  }
numeric:
  if (v.num.imag() != 0 || !std::isfinite(v.num.real())) return std::nullopt;
  {
    const double x = v.num.real() * std::pow(10.0, places);
    if (std::fabs(x) > 4.0e15) return std::nullopt;
    const double frac = std::fabs(x - std::trunc(x));
    if (std::fabs(frac - 0.5) < 1e-6) return std::nullopt;  // too close to a tie to decide
    return std::llround(x);
  }
}

bool differ_at_integers(const Program& pa, const Program& pb, std::size_t vars) {
  if (pa.vars.size() != vars || pb.vars.size() != vars || vars > kMaxIntegerVariables) return false;
  std::array<std::array<double, kIntegerPoints>, kMaxIntegerVariables> at{};
  std::vector<const double*> inputs(vars);
  const std::vector<std::size_t> strides(vars, 1);
  for (std::size_t v = 0; v < vars; ++v) {
    // each variable its own integers from 2 to 12, so that no two are equal at every point
    for (std::size_t k = 0; k < kIntegerPoints; ++k) at[v][k] = static_cast<double>(2 + (k * 7 + v * 3) % 11);
    inputs[v] = at[v].data();
  }
  std::array<double, kIntegerPoints> va{}, vb{};
  expr::run(pa, inputs, strides, kIntegerPoints, va.data());
  expr::run(pb, inputs, strides, kIntegerPoints, vb.data());
  std::size_t different = 0;
  for (std::size_t k = 0; k < kIntegerPoints; ++k) {
    if (!std::isfinite(va[k]) || !std::isfinite(vb[k])) continue;
    const double m = std::max(std::fabs(va[k]), std::fabs(vb[k]));
    if (m > 1e15) continue;  // past exact integers in doubles
    if (std::fabs(va[k] - vb[k]) > 1e-6 * m + 1e-9) ++different;
  }
  return different >= 2;
}

}  // namespace rapidgrade::equiv::detail
