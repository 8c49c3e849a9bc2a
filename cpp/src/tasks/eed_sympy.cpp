// The EED score's expressions in SymPy's form (eed_internal.hpp): exact rationals (checked), the
// term pool with SymPy's automatic evaluation (add, mul, pow, func), the rewriting rules PHYBench's
// simplify leaves its trees in (factor_terms, together, normal), the conversion from the core's
// parser tree and the floats restored after.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eed_internal.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::eed::internal {

using expr::Kind;

namespace {

// -- exact rationals (checked) -------------------------------------------------------------------

Int iabs(Int a) { return a < 0 ? -a : a; }
Int igcd(Int a, Int b) {
  a = iabs(a);
  b = iabs(b);
  while (b != 0) {
    Int t = a % b;
    a = b;
    b = t;
  }
  return a;
}
Int chk_mul(Int a, Int b) {
  Int r;
  if (__builtin_mul_overflow(a, b, &r)) throw Overflow{};
  return r;
}
Int chk_add(Int a, Int b) {
  Int r;
  if (__builtin_add_overflow(a, b, &r)) throw Overflow{};
  return r;
}

}  // namespace

Q qmake(Int n, Int d) {
  if (d == 0) throw Overflow{};
  if (d < 0) {
    n = -n;
    d = -d;
  }
  Int g = igcd(n, d);
  if (g > 1) {
    n /= g;
    d /= g;
  }
  return {n, d};
}

namespace {

Q qadd(Q a, Q b) { return qmake(chk_add(chk_mul(a.n, b.d), chk_mul(b.n, a.d)), chk_mul(a.d, b.d)); }
Q qmul(Q a, Q b) {
  Int g1 = igcd(a.n, b.d), g2 = igcd(b.n, a.d);
  if (g1 == 0) g1 = 1;
  if (g2 == 0) g2 = 1;
  return qmake(chk_mul(a.n / g1, b.n / g2), chk_mul(a.d / g2, b.d / g1));
}
Q qpow(Q a, Int e) {
  if (e < 0) {
    if (a.n == 0) throw Overflow{};
    a = qmake(a.d, a.n);
    e = -e;
  }
  if (e > 512) {
    if (a.n == a.d || (a.n == 0)) return a;
    if (a.n == -a.d) return e % 2 ? a : Q{1, 1};
    throw Overflow{};
  }
  Q r{1, 1};
  for (Int k = 0; k < e; ++k) r = qmul(r, a);
  return r;
}
bool qeq(Q a, Q b) { return a.n == b.n && a.d == b.d; }

}  // namespace

int qcmp(Q a, Q b) {  // numeric
  long double x = static_cast<long double>(a.n) / static_cast<long double>(a.d);
  long double y = static_cast<long double>(b.n) / static_cast<long double>(b.d);
  if (x < y) return -1;
  if (x > y) return 1;
  return 0;
}
std::string int_str(Int v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  std::string s;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    s.push_back(static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  }
  if (neg) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}

// -- terms in SymPy's form -----------------------------------------------------------------------

// SymPy's ordering_of_classes (sympy/core/basic.py): index of a class name; unknown names
// (sin, cos, exp, log, ...: lower-case class names) come after all, compared by name.
int class_rank(std::string_view name) {
  static constexpr std::string_view kOrder[] = {"Zero",
                                                "One",
                                                "Half",
                                                "Infinity",
                                                "NaN",
                                                "NegativeOne",
                                                "NegativeInfinity",
                                                "Integer",
                                                "Rational",
                                                "Float",
                                                "Exp1",
                                                "Pi",
                                                "ImaginaryUnit",
                                                "Symbol",
                                                "Wild",
                                                "Pow",
                                                "Mul",
                                                "Add",
                                                "Derivative",
                                                "Integral",
                                                "Abs",
                                                "Sign",
                                                "Sqrt",
                                                "Floor",
                                                "Ceiling",
                                                "Re",
                                                "Im",
                                                "Arg",
                                                "Conjugate",
                                                "Exp",
                                                "Log",
                                                "Sin",
                                                "Cos",
                                                "Tan",
                                                "Cot",
                                                "ASin",
                                                "ACos",
                                                "ATan",
                                                "ACot",
                                                "Sinh",
                                                "Cosh",
                                                "Tanh",
                                                "Coth",
                                                "ASinh",
                                                "ACosh",
                                                "ATanh",
                                                "ACoth",
                                                "RisingFactorial",
                                                "FallingFactorial",
                                                "factorial",
                                                "binomial",
                                                "Gamma",
                                                "LowerGamma",
                                                "UpperGamma",
                                                "PolyGamma",
                                                "Erf",
                                                "Chebyshev",
                                                "Chebyshev2",
                                                "Function",
                                                "WildFunction",
                                                "Lambda",
                                                "Order",
                                                "Equality",
                                                "Unequality",
                                                "StrictGreaterThan",
                                                "StrictLessThan",
                                                "GreaterThan",
                                                "LessThan"};
  for (std::size_t i = 0; i < std::size(kOrder); ++i)
    if (kOrder[i] == name) return static_cast<int>(i);
  return 1000;
}

std::uint32_t Pool::add(std::vector<std::uint32_t> in) {
  // flatten
  std::vector<std::uint32_t> flat;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (t[in[i]].c == C::kAdd) {
      for (std::uint32_t k : t[in[i]].k) flat.push_back(k);
    } else {
      flat.push_back(in[i]);
    }
  }
  Q coeff{0, 1};
  bool has_float = false;
  std::vector<std::pair<std::uint32_t, Q>> terms;  // rest, coefficient
  for (std::uint32_t f : flat) {
    const C c = t[f].c;
    if (c == C::kNum) {
      coeff = qadd(coeff, t[f].q);
      continue;
    }
    if (c == C::kFloat) {
      coeff = qadd(coeff, t[f].q);
      has_float = true;
      continue;
    }
    if (c == C::kZoo || c == C::kInf || c == C::kNegInf) return f;
    auto [q, rest] = coeff_rest(f);
    bool found = false;
    for (auto& [r, cq] : terms) {
      if (same(r, rest)) {
        cq = qadd(cq, q);
        found = true;
        break;
      }
    }
    if (!found) terms.emplace_back(rest, q);
  }
  std::vector<std::uint32_t> out;
  for (auto& [r, cq] : terms) {
    if (cq.n == 0) continue;
    out.push_back((cq.n == 1 && cq.d == 1) ? r : mul({num(cq), r}));
  }
  // an Add produced by distribution above holds terms that may combine with others
  for (std::uint32_t o : out)
    if (t[o].c == C::kAdd) {
      std::vector<std::uint32_t> parts;
      for (std::uint32_t p : out) {
        if (t[p].c == C::kAdd)
          for (std::uint32_t k : t[p].k) parts.push_back(k);
        else
          parts.push_back(p);
      }
      std::uint32_t cnum = has_float ? make(Term{C::kFloat, coeff, {}, {}}) : num(coeff);
      parts.push_back(cnum);
      return add(parts);
    }
  std::sort(out.begin(), out.end(), [this](std::uint32_t a, std::uint32_t b) { return compare(a, b) < 0; });
  if (coeff.n != 0 || (out.empty())) {
    std::uint32_t cnum = has_float ? make(Term{C::kFloat, coeff, {}, {}}) : num(coeff);
    if (out.empty()) return cnum;
    if (coeff.n != 0) out.insert(out.begin(), cnum);
  }
  if (out.size() == 1) return out[0];
  Term r;
  r.c = C::kAdd;
  r.k = std::move(out);
  return make(std::move(r));
}

// n ** e for a positive integer n and a non-integer rational e: perfect powers taken out, the
// remaining primes grouped by their remaining exponent (SymPy: 12**(1/2) = 2*sqrt(3),
// 2**(-1/2) = sqrt(2)/2, 6**(1/2) stays).
std::uint32_t Pool::int_root_pow(Int n, Q e) {
  std::vector<std::pair<Int, Int>> factors;  // prime, multiplicity
  Int m = n;
  for (Int p = 2; p * p <= m && p < 100000; ++p) {
    Int a = 0;
    while (m % p == 0) {
      m /= p;
      ++a;
    }
    if (a) factors.emplace_back(p, a);
  }
  if (m > 1) factors.emplace_back(m, 1);
  Q out{1, 1};
  std::vector<std::pair<Q, Int>> groups;  // remaining exponent, product of primes
  for (auto [p, a] : factors) {
    Int num_ = chk_mul(a, e.n);
    Int fl = num_ >= 0 ? num_ / e.d : -((-num_ + e.d - 1) / e.d);  // floor(a*e)
    Int rem = num_ - fl * e.d;                                     // 0 <= rem < e.d
    out = qmul(out, qpow(Q{p, 1}, fl));
    if (rem == 0) continue;
    Q r = qmake(rem, e.d);
    bool found = false;
    for (auto& [gq, prod] : groups)
      if (qeq(gq, r)) {
        prod = chk_mul(prod, p);
        found = true;
      }
    if (!found) groups.emplace_back(r, p);
  }
  std::vector<std::uint32_t> parts{num(out)};
  for (auto& [gq, prod] : groups) {
    Term x;
    x.c = C::kPow;
    x.k = {num(prod), num(gq)};
    parts.push_back(make(std::move(x)));
  }
  if (parts.size() == 1) return parts[0];
  if (parts.size() == 2 && qeq(out, Q{1, 1})) return parts[1];
  return mul(parts, 3);
}

std::uint32_t Pool::pow(std::uint32_t b, std::uint32_t e) {
  const Term& eb = t[e];
  if (eb.c == C::kNum && eb.q.n == 0) return num(1);
  if (eb.c == C::kNum && eb.q.n == 1 && eb.q.d == 1) return b;
  const Term& bb = t[b];
  if (bb.c == C::kNum && bb.q.n == 1 && bb.q.d == 1) return num(1);
  if (bb.c == C::kNum && bb.q.n == 0) {
    if (eb.c == C::kNum && eb.q.n > 0) return num(0);
    if (eb.c == C::kNum && eb.q.n < 0) return leaf(C::kZoo);
  }
  if ((bb.c == C::kNum || bb.c == C::kFloat) && (eb.c == C::kNum || eb.c == C::kFloat)) {
    const bool flt = bb.c == C::kFloat || eb.c == C::kFloat;
    if (eb.q.d == 1) {
      Q r = qpow(bb.q, eb.q.n);
      if (flt) return make(Term{C::kFloat, r, {}, {}});
      return num(r);
    }
    if (!flt && bb.q.n > 0) {
      std::uint32_t top = int_root_pow(bb.q.n, eb.q);
      if (bb.q.d == 1) return top;
      std::uint32_t bottom = int_root_pow(bb.q.d, Q{-eb.q.n, eb.q.d});
      return mul({top, bottom});
    }
    if (!flt && bb.q.n < 0 && eb.q.d == 2) {  // (-n)**(k/2) = I**k * n**(k/2)
      std::uint32_t mag = pow(num(Q{-bb.q.n, bb.q.d}), e);
      std::uint32_t i = pow(leaf(C::kI), num(eb.q.n));
      return mul({i, mag});
    }
  }
  if (bb.c == C::kI && eb.c == C::kNum && eb.q.d == 1) {
    Int r = ((eb.q.n % 4) + 4) % 4;
    if (r == 0) return num(1);
    if (r == 1) return b;
    if (r == 2) return num(-1);
    return mul({num(-1), b});
  }
  if (bb.c == C::kE) return func("exp", {e});
  if (bb.c == C::kFunc && bb.name == "exp" && (eb.c == C::kNum)) return func("exp", {mul({bb.k[0], e})});
  if (bb.c == C::kPow && (eb.c == C::kNum || eb.c == C::kFloat) && (positive(bb.k[0]) || eb.q.d == 1)) {
    return pow(bb.k[0], mul({bb.k[1], e}));
  }
  if (bb.c == C::kMul && (eb.c == C::kNum || eb.c == C::kFloat)) {
    if (eb.q.d == 1) {
      std::vector<std::uint32_t> parts;
      for (std::uint32_t f : bb.k) parts.push_back(pow(f, e));
      return mul(parts);
    }
    // a rational power: the positive factors apart, the rest together
    std::vector<std::uint32_t> pos, rest;
    std::vector<std::uint32_t> kids = bb.k;
    for (std::uint32_t f : kids) (positive(f) ? pos : rest).push_back(f);
    if (!pos.empty()) {
      std::vector<std::uint32_t> parts;
      for (std::uint32_t f : pos) parts.push_back(pow(f, e));
      if (!rest.empty()) {
        std::uint32_t r = rest.size() == 1 ? rest[0] : mul(rest);
        Term x;
        x.c = C::kPow;
        x.k = {r, e};
        parts.push_back(make(std::move(x)));
      }
      return mul(parts);
    }
  }
  Term x;
  x.c = C::kPow;
  x.k = {b, e};
  return make(std::move(x));
}

std::uint32_t Pool::mul(std::vector<std::uint32_t> in, int round) {
  std::vector<std::uint32_t> flat;
  for (std::uint32_t f : in) {
    if (t[f].c == C::kMul) {
      for (std::uint32_t k : t[f].k) flat.push_back(k);
    } else {
      flat.push_back(f);
    }
  }
  Q coeff{1, 1};
  bool has_float = false;
  bool zoo = false;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> powers;  // base, exponent
  for (std::uint32_t f : flat) {
    const C c = t[f].c;
    if (c == C::kNum) {
      coeff = qmul(coeff, t[f].q);
      continue;
    }
    if (c == C::kFloat) {
      coeff = qmul(coeff, t[f].q);
      has_float = true;
      continue;
    }
    if (c == C::kZoo) zoo = true;
    auto [b, e] = base_exp(f);
    bool found = false;
    for (auto& [pb, pe] : powers) {
      if (same(pb, b)) {
        pe = add({pe, e});
        found = true;
        break;
      }
    }
    if (!found) powers.emplace_back(b, e);
  }
  if (zoo) return leaf(C::kZoo);
  if (coeff.n == 0) return has_float ? make(Term{C::kFloat, coeff, {}, {}}) : num(0);
  // numeric bases with the same rational exponent multiply together (sqrt(2)*sqrt(3) = sqrt(6))
  std::vector<std::uint32_t> factors;
  std::vector<std::pair<Q, Q>> numeric;  // exponent, base product
  bool again = false;
  for (auto& [b, e] : powers) {
    if (is_num(b) && is_num(e) && t[e].q.d != 1 && t[b].q.n > 0) {
      Q eq = t[e].q;
      bool found = false;
      for (auto& [ne, nb] : numeric)
        if (qeq(ne, eq)) {
          nb = qmul(nb, t[b].q);
          found = true;
        }
      if (!found) numeric.emplace_back(eq, t[b].q);
      continue;
    }
    std::uint32_t p = pow(b, e);
    const C c = t[p].c;
    if (c == C::kNum || c == C::kFloat) {
      coeff = qmul(coeff, t[p].q);
      has_float = has_float || c == C::kFloat;
    } else if (c == C::kMul) {
      again = true;
      factors.push_back(p);
    } else {
      factors.push_back(p);
    }
  }
  for (auto& [ne, nb] : numeric) {
    std::uint32_t p = pow(num(nb), num(ne));
    if (t[p].c == C::kNum) {
      coeff = qmul(coeff, t[p].q);
    } else if (t[p].c == C::kMul) {
      again = true;
      factors.push_back(p);
    } else {
      factors.push_back(p);
    }
  }
  if (again && round < 4) {
    factors.push_back(has_float ? make(Term{C::kFloat, coeff, {}, {}}) : num(coeff));
    return mul(factors, round + 1);
  }
  if (coeff.n == 0) return num(0);
  std::sort(factors.begin(), factors.end(), [this](std::uint32_t a, std::uint32_t b) { return compare(a, b) < 0; });
  const bool unit = coeff.n == 1 && coeff.d == 1 && !has_float;
  if (factors.empty()) return has_float ? make(Term{C::kFloat, coeff, {}, {}}) : num(coeff);
  // a rational times one sum distributes (SymPy's Mul.flatten and simplify's hollow-Mul rule)
  if (!unit && !has_float && factors.size() == 1 && t[factors[0]].c == C::kAdd) {
    std::vector<std::uint32_t> parts;
    for (std::uint32_t k : t[factors[0]].k) parts.push_back(mul({num(coeff), k}));
    return add(parts);
  }
  if (unit && factors.size() == 1) return factors[0];
  if (!unit) factors.insert(factors.begin(), has_float ? make(Term{C::kFloat, coeff, {}, {}}) : num(coeff));
  Term x;
  x.c = C::kMul;
  x.k = std::move(factors);
  return make(std::move(x));
}

namespace {

bool is_multiple_of_pi(const Pool& p, std::uint32_t i, Q* k) {
  const Term& x = p.at(i);
  if (x.c == C::kPi) {
    *k = Q{1, 1};
    return true;
  }
  if (x.c == C::kMul && x.k.size() == 2 && p.is_num(x.k[0]) && p.at(x.k[1]).c == C::kPi) {
    *k = p.at(x.k[0]).q;
    return true;
  }
  if (x.c == C::kNum && x.q.n == 0) {
    *k = Q{0, 1};
    return true;
  }
  return false;
}

}  // namespace

std::uint32_t Pool::func(const std::string& name, std::vector<std::uint32_t> args) {
  auto node = [&](const std::string& n, std::vector<std::uint32_t> a) {
    Term x;
    x.c = C::kFunc;
    x.name = n;
    x.k = std::move(a);
    return make(std::move(x));
  };
  if (args.size() == 1) {
    const std::uint32_t a = args[0];
    Q k;
    const bool odd = name == "sin" || name == "tan" || name == "asin" || name == "atan" || name == "sinh" ||
                     name == "tanh" || name == "asinh" || name == "atanh" || name == "cot" || name == "csc";
    const bool even = name == "cos" || name == "cosh" || name == "sec";
    if ((odd || even) && negative_form(a)) {
      std::uint32_t f = func(name, {neg(a)});
      return odd ? neg(f) : f;
    }
    if ((name == "sin" || name == "tan") && is_multiple_of_pi(*this, a, &k) && k.d == 1) return num(0);
    if (name == "cos" && is_multiple_of_pi(*this, a, &k) && k.d == 1) return num(k.n % 2 ? -1 : 1);
    if (name == "sin" && is_multiple_of_pi(*this, a, &k) && k.d == 2) return num(((k.n % 4) + 4) % 4 == 1 ? 1 : -1);
    if (name == "cos" && is_multiple_of_pi(*this, a, &k) && k.d == 2) return num(0);
    if ((name == "asin" || name == "atan" || name == "sinh" || name == "tanh" || name == "asinh") && is_val(a, 0))
      return num(0);
    if (name == "cosh" && is_val(a, 0)) return num(1);
    if (name == "exp") {
      if (is_val(a, 0)) return num(1);
      if (is_func(a, "log")) return t[a].k[0];
      return node("exp", {a});
    }
    if (name == "log") {
      if (is_val(a, 1)) return num(0);
      if (t[a].c == C::kE) return num(1);
      if (is_func(a, "exp") && real(t[a].k[0])) return t[a].k[0];
      if (is_num(a) && t[a].q.d != 1 && t[a].q.n == 1) return neg(func("log", {num(t[a].q.d)}));
      return node("log", {a});
    }
    if (name == "sqrt") return pow(a, num(Q{1, 2}));
    if (name == "Abs") {
      if (is_num(a)) return num(Q{iabs(t[a].q.n), t[a].q.d});
      if (positive(a)) return a;
      if (negative_form(a)) return func("Abs", {neg(a)});
      return node("Abs", {a});
    }
    return node(name, {a});
  }
  if (name == "root" && args.size() == 2) return pow(args[0], pow(args[1], num(-1)));
  if (name == "log" && args.size() == 2) {  // log(x, b) = log(x) / log(b)
    if (t[args[1]].c == C::kE) return func("log", {args[0]});
    return mul({func("log", {args[0]}), pow(func("log", {args[1]}), num(-1))});
  }
  return node(name, std::move(args));
}

// -- rewriting: common factors of sums (SymPy's factor_terms, sign kept) -------------------------

namespace {

struct Factors {
  Q coeff{1, 1};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> powers;  // base, exponent
};

Factors factors_of(Pool& p, std::uint32_t term) {
  Factors f;
  auto [c, rest] = p.coeff_rest(term);
  f.coeff = c;
  std::vector<std::uint32_t> items;
  if (p.at(rest).c == C::kMul) {
    items = p.at(rest).k;
  } else if (!p.is_val(rest, 1)) {
    items.push_back(rest);
  }
  for (std::uint32_t i : items) f.powers.push_back(p.base_exp(i));
  return f;
}

bool sum_with_sum_denominator(Pool& p, std::uint32_t sum);

std::uint32_t factor_sum(Pool& p, std::uint32_t sum) {
  const std::vector<std::uint32_t> terms = p.at(sum).k;
  std::vector<Factors> fs;
  for (std::uint32_t term : terms) fs.push_back(factors_of(p, term));
  // numeric content: gcd of numerators over lcm of denominators (positive)
  Int gn = 0, ld = 1;
  for (const Factors& f : fs) {
    gn = igcd(gn, f.coeff.n);
    ld = chk_mul(ld / igcd(ld, f.coeff.d), f.coeff.d);
  }
  Q content = qmake(gn == 0 ? 1 : gn, ld);
  // common bases: present in every term with a positive integer exponent; the smallest
  std::vector<std::pair<std::uint32_t, Q>> common;
  for (auto& [b, e] : fs[0].powers) {
    if (!p.is_num(e) || p.at(e).q.n <= 0) continue;
    Q least = p.at(e).q;
    bool everywhere = true;
    for (std::size_t k = 1; k < fs.size() && everywhere; ++k) {
      bool found = false;
      for (auto& [b2, e2] : fs[k].powers)
        if (p.same(b, b2) && p.is_num(e2) && p.at(e2).q.n > 0) {
          if (qcmp(p.at(e2).q, least) < 0) least = p.at(e2).q;
          found = true;
        }
      everywhere = found;
    }
    if (everywhere) common.emplace_back(b, least);
  }
  if (common.empty() && qeq(content, Q{1, 1})) return sum;
  std::vector<std::uint32_t> common_parts{p.num(content)};
  std::vector<std::uint32_t> inverse{p.num(qmake(content.d, content.n))};
  for (auto& [b, e] : common) {
    common_parts.push_back(p.pow(b, p.num(e)));
    inverse.push_back(p.pow(b, p.num(Q{-e.n, e.d})));
  }
  std::uint32_t inv = p.mul(inverse);
  std::vector<std::uint32_t> reduced;
  for (std::uint32_t term : terms) reduced.push_back(p.mul({term, inv}));
  std::uint32_t inner = p.add(reduced);
  if (common.empty()) return sum;  // a number times a sum distributes back (hollow Mul)
  common_parts.push_back(inner);
  return p.mul(common_parts);
}

}  // namespace

std::uint32_t factor_terms(Pool& p, std::uint32_t i) {
  const Term& x = p.at(i);
  if (x.k.empty()) return i;
  std::vector<std::uint32_t> kids;
  for (std::uint32_t k : x.k) kids.push_back(factor_terms(p, k));
  std::uint32_t r;
  switch (p.at(i).c) {
    case C::kAdd: r = p.add(kids); break;
    case C::kMul: r = p.mul(kids); break;
    case C::kPow: r = p.pow(kids[0], kids[1]); break;
    case C::kFunc: r = p.func(p.at(i).name, kids); break;
    default: return i;
  }
  if (p.at(r).c == C::kAdd && !sum_with_sum_denominator(p, r)) return factor_sum(p, r);
  return r;
}

namespace {

// -- rewriting: sums over a common denominator where SymPy's simplify leaves them so ---------------

bool has_sum_denominator(Pool& p, std::uint32_t term) {
  Factors f = factors_of(p, term);
  for (auto& [b, e] : f.powers)
    if (p.at(b).c == C::kAdd && p.is_num(e) && p.at(e).q.n < 0) return true;
  return false;
}

bool sum_with_sum_denominator(Pool& p, std::uint32_t sum) {
  for (std::uint32_t k : p.at(sum).k)
    if (has_sum_denominator(p, k)) return true;
  return false;
}

// a sum over its common denominator: g + v**2/R -> (R*g + v**2)/R, the numerator's common
// factors taken out
std::uint32_t together_sum(Pool& p, std::uint32_t sum) {
  const std::vector<std::uint32_t> terms = p.at(sum).k;
  Int lcm = 1;
  std::vector<std::pair<std::uint32_t, Q>> den;  // base, largest negative exponent (as positive)
  for (std::uint32_t term : terms) {
    Factors f = factors_of(p, term);
    lcm = chk_mul(lcm / igcd(lcm, f.coeff.d), f.coeff.d);
    for (auto& [b, e] : f.powers) {
      if (!p.is_num(e) || p.at(e).q.n >= 0) continue;
      Q pe{-p.at(e).q.n, p.at(e).q.d};
      bool found = false;
      for (auto& [db, dq] : den)
        if (p.same(db, b)) {
          if (qcmp(pe, dq) > 0) dq = pe;
          found = true;
        }
      if (!found) den.emplace_back(b, pe);
    }
  }
  if (den.empty() && lcm == 1) return sum;
  std::vector<std::uint32_t> d_parts{p.num(lcm)}, inv_parts{p.num(Q{1, lcm})};
  for (auto& [b, q] : den) {
    d_parts.push_back(p.pow(b, p.num(q)));
    inv_parts.push_back(p.pow(b, p.num(Q{-q.n, q.d})));
  }
  const std::uint32_t d = p.mul(d_parts);
  std::vector<std::uint32_t> nums;
  for (std::uint32_t term : terms) nums.push_back(p.mul({term, d}));
  std::uint32_t numer = p.add(nums);
  if (p.at(numer).c == C::kAdd) numer = factor_sum(p, numer);
  inv_parts.push_back(numer);
  return p.mul(inv_parts);
}

}  // namespace

// bottom-up: sums inside products and powers over a common denominator; the whole sum too when
// one of its terms has a sum in its denominator
std::uint32_t normal(Pool& p, std::uint32_t i, bool top) {
  const Term& x = p.at(i);
  if (x.k.empty()) return i;
  const C c = x.c;
  const std::string name = x.name;
  std::vector<std::uint32_t> kids;
  std::optional<std::size_t> expand;  // a product over a sum with a sum in a denominator: expanded
  for (std::uint32_t k : std::vector<std::uint32_t>(x.k)) {
    std::uint32_t r = normal(p, k, false);
    if ((c == C::kMul || c == C::kPow) && p.at(r).c == C::kAdd) {
      if (c == C::kMul && sum_with_sum_denominator(p, r) && !expand) {
        expand = kids.size();
      } else {
        r = together_sum(p, r);
      }
    }
    kids.push_back(r);
  }
  std::uint32_t r;
  if (expand) {
    std::vector<std::uint32_t> others;
    for (std::size_t k = 0; k < kids.size(); ++k)
      if (k != *expand) others.push_back(kids[k]);
    std::vector<std::uint32_t> parts;
    for (std::uint32_t term : std::vector<std::uint32_t>(p.at(kids[*expand]).k)) {
      std::vector<std::uint32_t> f(others);
      f.push_back(term);
      parts.push_back(p.mul(f));
    }
    return p.add(parts);
  }
  switch (c) {
    case C::kAdd: r = p.add(kids); break;
    case C::kMul: r = p.mul(kids); break;
    case C::kPow: r = p.pow(kids[0], kids[1]); break;
    case C::kFunc: r = p.func(name, kids); break;
    default: return i;
  }
  if (top && p.at(r).c == C::kAdd) {
    bool sum_den = false;
    for (std::uint32_t k : p.at(r).k) sum_den = sum_den || has_sum_denominator(p, k);
    if (sum_den) r = together_sum(p, r);
  }
  return r;
}

// -- from the parser's tree ------------------------------------------------------------------------

namespace {

std::string sympy_name(const std::string& name, const Names& names) {
  for (auto& [ph, real] : names.placeholders)
    if (name == ph) return real;
  if (name == "I") return "bar{I}";
  if (name.size() > 2 && (name[0] == 'E' || name[0] == 'e') && name[1] == '_')
    return std::string("bar{") + name[0] + "}" + name.substr(1);
  if (name == "epsilon") return "varepsilon";
  if (name.rfind("epsilon_", 0) == 0) return "var" + name;
  if (name == "varOmega") return "Omega";
  return name;
}

}  // namespace

std::uint32_t convert(Pool& p, const expr::Ast& ast, std::uint32_t i, const Names& names) {
  const expr::Node& n = ast.at(i);
  std::vector<std::uint32_t> kids;
  auto conv_kids = [&]() {
    for (std::uint32_t k : n.kids) kids.push_back(convert(p, ast, k, names));
  };
  switch (n.kind) {
    case Kind::kNumber: {
      auto q = expr::parse_decimal(n.text);
      if (!q) throw Overflow{};
      Q v{q->num, q->den};
      if (n.text.find_first_of(".eE") != std::string::npos) {
        p.had_float = true;  // PHYBench: rationalized for simplify, floats restored after
      }
      return p.num(v);
    }
    case Kind::kSymbol: return p.leaf(C::kSymbol, sympy_name(n.text, names));
    case Kind::kConst:
      if (n.text == "pi") return p.leaf(C::kPi);
      if (n.text == "E") return p.leaf(C::kE);
      if (n.text == "I") return p.leaf(C::kI);
      if (n.text == "oo") return p.leaf(C::kInf);
      return p.leaf(C::kSymbol, n.text);
    case Kind::kAdd: conv_kids(); return p.add(kids);
    case Kind::kMul: conv_kids(); return p.mul(kids);
    case Kind::kNeg: conv_kids(); return p.neg(kids[0]);
    case Kind::kDiv: conv_kids(); return p.mul({kids[0], p.pow(kids[1], p.num(-1))});
    case Kind::kPow: conv_kids(); return p.pow(kids[0], kids[1]);
    case Kind::kFunc: {
      conv_kids();
      std::string name = n.text;
      if (name == "bare_log" || name == "ln") name = "log";
      if (name == "arcsin") name = "asin";
      if (name == "arccos") name = "acos";
      if (name == "arctan") name = "atan";
      if (name == "factorial") return p.func("factorial", kids);
      return p.func(name, kids);
    }
    case Kind::kFactorial: conv_kids(); return p.func("factorial", kids);
    case Kind::kAbs: conv_kids(); return p.func("Abs", kids);
    case Kind::kPercent: conv_kids(); return p.mul({kids[0], p.num(Q{1, 100})});
    case Kind::kDegree: conv_kids(); return p.mul({kids[0], p.leaf(C::kPi), p.num(Q{1, 180})});
    case Kind::kPlusMinus: conv_kids(); return p.add(kids);  // PHYBench: \pm -> +
    default: throw Unsupported{};
  }
}

// floats restored (SymPy's nfloat, exponents kept): every number outside an exponent
std::uint32_t restore_floats(Pool& p, std::uint32_t i) {
  const Term x = p.at(i);
  if (x.c == C::kNum) return p.make(Term{C::kFloat, x.q, {}, {}});
  if (x.k.empty()) return i;
  Term y = x;
  for (std::size_t k = 0; k < y.k.size(); ++k) {
    if (x.c == C::kPow && k == 1) continue;
    y.k[k] = restore_floats(p, y.k[k]);
  }
  return p.make(std::move(y));
}

}  // namespace rapidgrade::eed::internal
