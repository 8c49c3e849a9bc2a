// Families of values with an integer parameter (equiv_internal.hpp, periodic_families): the
// solutions of a trigonometric equation, with periods that are rational multiples of pi, written
// as "\frac{\pi}{6}+k\pi", "x=\frac{\pi}{6}+2k\pi, \frac{7\pi}{6}+2k\pi", "2k\pi \pm \frac{\pi}{3}".
// Each family c + p k (k an integer) is a union of residue classes modulo any common multiple P
// of the periods, so two lists of families are one set of reals exactly when their residues
// modulo P are the same.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string_view>
#include <vector>

#include "equiv_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"

namespace rapidgrade::equiv::detail {

namespace {

// One family c + p k, p != 0.
struct Family {
  double c;
  double p;
};

// Residues of one side at most (a family of period p gives P/p of them).
constexpr std::int64_t kMaxResidues = 256;
// Denominators tried for the ratio of a period to pi ("\frac{2\pi}{3}": 2/3).
constexpr std::int64_t kMaxDenominator = 24;
// Families of one side at most.
constexpr std::size_t kMaxFamilies = 64;
// Integers at which a family is checked to be c + p k (a family is linear in its parameter).
constexpr double kChecks[] = {0, 1, 2, -1, 3, -2};

// Relative tolerance of values computed in doubles.
constexpr double kTolerance = 1e-9;

bool near(double a, double b, double scale) { return std::fabs(a - b) <= kTolerance * (1 + scale); }

// The one symbol of the subtree at `r` when it is an integer parameter
// (rapidgrade::detail::kIntegerParameters), "" when it holds no symbol; nullopt when it holds
// another symbol or two of them.
std::optional<std::string_view> parameter_of(Ref r) {
  const std::vector<std::string_view> names = expr::symbol_names(*r.ast, r.i);
  if (names.empty()) return std::string_view();
  if (names.size() != 1 || !rapidgrade::detail::is_integer_parameter(names.front())) return std::nullopt;
  return names.front();
}

// The family that the scalar subtree at `r` is (c + p k in its one integer parameter k), or
// nullopt: no parameter, another symbol, a structure, a value that is no finite real, or not
// linear in k at the integers of kChecks.
std::optional<Family> family_of(Ref r) {
  if (is_structure(r.node().kind)) return std::nullopt;
  const std::optional<std::string_view> k = parameter_of(r);
  if (!k || k->empty()) return std::nullopt;
  const expr::Program prog = expr::compile(*r.ast, r.i, {*k});
  if (!prog.evaluable || prog.complex_constants) return std::nullopt;
  constexpr std::size_t n = sizeof(kChecks) / sizeof(kChecks[0]);
  double out[n];
  const std::vector<const double*> inputs{kChecks};
  const std::vector<std::size_t> strides{1};
  expr::run(prog, inputs, strides, n, out);
  for (const double v : out) {
    if (!std::isfinite(v)) return std::nullopt;
  }
  const Family f{out[0], out[1] - out[0]};
  const double scale = std::fabs(f.c) + std::fabs(f.p) * 3;
  if (near(f.p, 0, scale)) return std::nullopt;
  for (std::size_t j = 2; j < n; ++j) {
    if (!near(out[j], f.c + f.p * kChecks[j], scale)) return std::nullopt;
  }
  return f;
}

// The families of one answer: a family, a list of them, "x = " before either, each element of a
// list "x = ..." too; a \pm already expanded into two values. False when any value is no family.
bool families_of(const Ast& ast, std::vector<Family>& out) {
  Ref r{&ast, ast.root};
  auto value_side = [](Ref e) {
    // "x = \frac{\pi}{6} + k\pi": the right side when the left side is one symbol, no parameter
    const expr::Node& n = e.node();
    if (n.kind == Kind::kRelation && n.text == "=" && n.kids.size() == 2 && e.kid(0).node().kind == Kind::kSymbol &&
        !parameter_of(e.kid(0))) {
      return e.kid(1);
    }
    return e;
  };
  r = value_side(r);
  std::vector<Ref> elements;
  if (r.node().kind == Kind::kSet) {
    for (std::size_t k = 0; k < r.node().kids.size(); ++k) elements.push_back(value_side(r.kid(k)));
  } else {
    elements.push_back(r);
  }
  if (elements.empty() || elements.size() > kMaxFamilies) return false;
  for (const Ref e : elements) {
    const std::optional<Family> f = family_of(e);
    if (!f) return false;
    out.push_back(*f);
  }
  return true;
}

// n/d with d <= kMaxDenominator and |x - n/d| within tolerance, lowest terms; nullopt when none.
std::optional<std::pair<std::int64_t, std::int64_t>> small_ratio(double x) {
  for (std::int64_t d = 1; d <= kMaxDenominator; ++d) {
    const double n = std::round(x * static_cast<double>(d));
    if (n < 1 || n > 1e6) continue;
    if (near(x * static_cast<double>(d), n, x * static_cast<double>(d))) {
      const auto ni = static_cast<std::int64_t>(n);
      const std::int64_t g = std::gcd(ni, d);
      return std::make_pair(ni / g, d / g);
    }
  }
  return std::nullopt;
}

// The residues modulo `period` of the families, sorted, one of each (values within tolerance of
// `period` are 0).
std::vector<double> residues(const std::vector<Family>& families, double period, double scale) {
  std::vector<double> out;
  for (const Family& f : families) {
    const auto count = static_cast<std::int64_t>(std::llround(period / std::fabs(f.p)));
    for (std::int64_t j = 0; j < count; ++j) {
      double v = std::fmod(f.c + static_cast<double>(j) * std::fabs(f.p), period);
      if (v < 0) v += period;
      if (near(v, period, scale)) v = 0;
      out.push_back(v);
    }
  }
  std::sort(out.begin(), out.end());
  std::vector<double> unique;
  for (const double v : out) {
    if (unique.empty() || !near(v, unique.back(), scale)) unique.push_back(v);
  }
  return unique;
}

}  // namespace

Tri periodic_families(const Ast& gold, const Ast& pred) {
  // a parameter and pi on both sides, or no family: a scan before any work
  for (const Ast* tree : {&gold, &pred}) {
    bool parameter = false, pi = false;
    for (const expr::Node& n : tree->nodes) {
      pi = pi || (n.kind == Kind::kConst && n.text == "pi");
      parameter = parameter || (n.kind == Kind::kSymbol && rapidgrade::detail::is_integer_parameter(n.text));
    }
    if (!parameter || !pi) return Tri::kUnknown;
  }
  std::vector<Family> sides[2];
  if (!families_of(gold, sides[0]) || !families_of(pred, sides[1])) return Tri::kUnknown;
  // The periods as integer multiples of one unit: p_i = unit * m_i, and P = unit * lcm(m_i). Each
  // is a rational multiple of pi, as the solutions of trigonometric equations are: "2n + 1" is
  // the general term of a sequence, whose index is no family's parameter.
  const double base = kPi;
  std::vector<std::pair<std::int64_t, std::int64_t>> ratios;
  std::int64_t denominators = 1;
  for (const auto& side : sides) {
    for (const Family& f : side) {
      const std::optional<std::pair<std::int64_t, std::int64_t>> q = small_ratio(std::fabs(f.p) / base);
      if (!q) return Tri::kUnknown;
      ratios.push_back(*q);
      denominators = std::lcm(denominators, q->second);
      if (denominators > kMaxResidues) return Tri::kUnknown;
    }
  }
  std::int64_t multiple = 1;
  for (const auto& [n, d] : ratios) {
    multiple = std::lcm(multiple, n * (denominators / d));
    if (multiple > kMaxResidues * kMaxResidues) return Tri::kUnknown;
  }
  const double unit = base / static_cast<double>(denominators);
  const double period = unit * static_cast<double>(multiple);
  double scale = period;
  for (const auto& side : sides) {
    std::int64_t count = 0;
    for (const Family& f : side) {
      count += std::llround(period / std::fabs(f.p));
      scale = std::max(scale, std::fabs(f.c));
    }
    if (count > kMaxResidues) return Tri::kUnknown;
  }
  const std::vector<double> a = residues(sides[0], period, scale);
  const std::vector<double> b = residues(sides[1], period, scale);
  if (a.size() != b.size()) return Tri::kFalse;
  for (std::size_t j = 0; j < a.size(); ++j) {
    if (!near(a[j], b[j], scale)) return Tri::kFalse;
  }
  return Tri::kTrue;
}

}  // namespace rapidgrade::equiv::detail
