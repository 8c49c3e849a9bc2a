// The EED score (see rapidgrade/eed.hpp): expressions rewritten into SymPy's form, Zhang-Shasha
// tree edit distance with PHYBench's costs, score map.
#include "rapidgrade/tasks/eed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rapidgrade/equiv.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/tasks/physics.hpp"

namespace rapidgrade::eed {

const char* status_name(Status status) noexcept {
  switch (status) {
    case Status::kScored: return "scored";
    case Status::kEqual: return "equal";
    case Status::kEmpty: return "empty";
    case Status::kUnsupported: return "unsupported";
    case Status::kTooLong: return "too_long";
    case Status::kParseFailed: return "parse_failed";
    case Status::kTooLarge: return "too_large";
    case Status::kUnitMismatch: return "unit_mismatch";
  }
  return "scored";
}

namespace {

using expr::Int;
using expr::Kind;

struct Overflow {};     // exact arithmetic past 128 bits, or an exponent past its cap
struct TooBig {};       // more nodes than the pool allows
struct Unsupported {};  // a structure (tuple, set, relation, text, ...) in the expression

// -- exact rationals (checked) -------------------------------------------------------------------

struct Q {
  Int n = 0, d = 1;
};

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

enum class C : std::uint8_t { kNum, kFloat, kPi, kE, kI, kInf, kNegInf, kZoo, kSymbol, kPow, kMul, kAdd, kFunc };

struct Term {
  C c = C::kNum;
  Q q;               // kNum, kFloat (the exact value of the decimal)
  std::string name;  // kSymbol, kFunc
  std::vector<std::uint32_t> k;
};

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

class Pool {
 public:
  // A deque: adding a term never moves the others, so a `const Term&` taken before a call that
  // makes terms (num, mul, pow, ...) stays valid after it, as the rewriting rules assume.
  std::deque<Term> t;
  bool had_float = false;

  const Term& at(std::uint32_t i) const { return t[i]; }
  std::uint32_t make(Term x) {
    if (t.size() >= kPoolCap) throw TooBig{};
    t.push_back(std::move(x));
    return static_cast<std::uint32_t>(t.size() - 1);
  }
  std::uint32_t num(Q q) {
    Term x;
    x.c = C::kNum;
    x.q = q;
    return make(std::move(x));
  }
  std::uint32_t num(Int n) { return num(Q{n, 1}); }
  std::uint32_t leaf(C c, std::string name = {}) {
    Term x;
    x.c = c;
    x.name = std::move(name);
    return make(std::move(x));
  }
  bool is_num(std::uint32_t i) const { return t[i].c == C::kNum; }
  bool is_int(std::uint32_t i) const { return t[i].c == C::kNum && t[i].q.d == 1; }
  bool is_val(std::uint32_t i, Int n) const { return t[i].c == C::kNum && t[i].q.d == 1 && t[i].q.n == n; }
  bool is_func(std::uint32_t i, std::string_view name) const { return t[i].c == C::kFunc && t[i].name == name; }

  std::string class_name(std::uint32_t i) const {
    const Term& x = t[i];
    switch (x.c) {
      case C::kNum:
        if (x.q.d == 1) {
          if (x.q.n == 0) return "Zero";
          if (x.q.n == 1) return "One";
          if (x.q.n == -1) return "NegativeOne";
          return "Integer";
        }
        if (x.q.n == 1 && x.q.d == 2) return "Half";
        return "Rational";
      case C::kFloat: return "Float";
      case C::kPi: return "Pi";
      case C::kE: return "Exp1";
      case C::kI: return "ImaginaryUnit";
      case C::kInf: return "Infinity";
      case C::kNegInf: return "NegativeInfinity";
      case C::kZoo: return "ComplexInfinity";
      case C::kSymbol: return "Symbol";
      case C::kPow: return "Pow";
      case C::kMul: return "Mul";
      case C::kAdd: return "Add";
      case C::kFunc: return x.name;
    }
    return "";
  }

  /// Basic.compare: class (ordering_of_classes, else name), length of the hashable content,
  /// then its items.
  int compare(std::uint32_t a, std::uint32_t b) const {
    if (a == b) return 0;
    const std::string na = class_name(a), nb = class_name(b);
    if (na != nb) {
      const int ra = class_rank(na), rb = class_rank(nb);
      if (ra == 1000 && rb == 1000) return na < nb ? -1 : 1;
      return ra < rb ? -1 : (ra > rb ? 1 : 0);
    }
    const Term& x = t[a];
    const Term& y = t[b];
    switch (x.c) {
      case C::kNum:
      case C::kFloat: {
        if (x.c == C::kNum && x.q.d == 1) return x.q.n < y.q.n ? -1 : (x.q.n > y.q.n ? 1 : 0);
        if (x.c == C::kNum) {  // (p, q)
          if (x.q.n != y.q.n) return x.q.n < y.q.n ? -1 : 1;
          return x.q.d < y.q.d ? -1 : (x.q.d > y.q.d ? 1 : 0);
        }
        return qcmp(x.q, y.q);
      }
      case C::kSymbol: return x.name < y.name ? -1 : (x.name > y.name ? 1 : 0);
      case C::kPow:
      case C::kMul:
      case C::kAdd:
      case C::kFunc: {
        if (x.k.size() != y.k.size()) return x.k.size() < y.k.size() ? -1 : 1;
        for (std::size_t i = 0; i < x.k.size(); ++i) {
          int c = compare(x.k[i], y.k[i]);
          if (c) return c;
        }
        return 0;
      }
      default: return 0;
    }
  }
  bool same(std::uint32_t a, std::uint32_t b) const { return compare(a, b) == 0; }

  // -- constructors with SymPy's automatic evaluation ---------------------------------------------

  std::uint32_t add(std::vector<std::uint32_t> in);
  std::uint32_t mul(std::vector<std::uint32_t> in, int round = 0);
  std::uint32_t pow(std::uint32_t b, std::uint32_t e);
  std::uint32_t func(const std::string& name, std::vector<std::uint32_t> args);
  std::uint32_t neg(std::uint32_t x) { return mul({num(-1), x}); }

  /// (coefficient, rest) of a product: 3*x*y -> (3, x*y).
  std::pair<Q, std::uint32_t> coeff_rest(std::uint32_t i) {
    const Term& x = t[i];
    if (x.c == C::kNum) return {x.q, num(1)};
    if (x.c == C::kMul && is_num(x.k[0])) {
      Q c = t[x.k[0]].q;
      if (x.k.size() == 2) return {c, x.k[1]};
      Term r;
      r.c = C::kMul;
      r.k.assign(x.k.begin() + 1, x.k.end());
      return {c, make(std::move(r))};
    }
    return {Q{1, 1}, i};
  }
  /// (base, exponent): x**2 -> (x, 2); exp(a) -> (E, a); x -> (x, 1).
  std::pair<std::uint32_t, std::uint32_t> base_exp(std::uint32_t i) {
    const Term& x = t[i];
    if (x.c == C::kPow) return {x.k[0], x.k[1]};
    if (x.c == C::kFunc && x.name == "exp") return {leaf(C::kE), x.k[0]};
    return {i, num(1)};
  }
  /// Positive under PHYBench's posify (every symbol positive).
  bool positive(std::uint32_t i) const {
    const Term& x = t[i];
    switch (x.c) {
      case C::kNum:
      case C::kFloat: return x.q.n > 0;
      case C::kPi:
      case C::kE:
      case C::kSymbol: return true;
      case C::kPow: return positive(x.k[0]) && real(x.k[1]);
      case C::kMul:
      case C::kAdd:
        for (std::uint32_t k : x.k)
          if (!positive(k)) return false;
        return true;
      case C::kFunc: return (x.name == "exp" && real(x.k[0])) || x.name == "Abs";
      default: return false;
    }
  }
  bool real(std::uint32_t i) const {
    const Term& x = t[i];
    switch (x.c) {
      case C::kNum:
      case C::kFloat:
      case C::kPi:
      case C::kE:
      case C::kSymbol: return true;
      case C::kPow: return positive(x.k[0]) && real(x.k[1]);
      case C::kMul:
      case C::kAdd:
        for (std::uint32_t k : x.k)
          if (!real(k)) return false;
        return true;
      case C::kFunc:
        return (x.name == "sin" || x.name == "cos" || x.name == "tan" || x.name == "exp" || x.name == "atan" ||
                x.name == "sinh" || x.name == "cosh" || x.name == "tanh" || x.name == "Abs") &&
               real(x.k[0]);
      default: return false;
    }
  }
  /// A term whose sign SymPy would pull out: a negative number, or a product with a negative
  /// coefficient.
  bool negative_form(std::uint32_t i) const {
    const Term& x = t[i];
    if (x.c == C::kNum || x.c == C::kFloat) return x.q.n < 0;
    if (x.c == C::kMul) return is_num(x.k[0]) && t[x.k[0]].q.n < 0;
    return false;
  }

 private:
  static constexpr std::size_t kPoolCap = 200000;
  std::uint32_t int_root_pow(Int n, Q e);
};

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

std::uint32_t factor_terms(Pool& p, std::uint32_t i);
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

struct Names {
  std::vector<std::pair<std::string, std::string>> placeholders;  // parser name -> latex2sympy name
};

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

// -- the distance ------------------------------------------------------------------------------------

struct Flat {  // a tree in post-order
  std::vector<std::uint8_t> kind;
  std::vector<std::uint32_t> label;  // interned label id
  std::vector<std::uint32_t> lmd;    // leftmost leaf descendant
  std::vector<std::uint32_t> nkids;
  std::vector<double> size;  // subtree insertion cost
  std::vector<std::uint32_t> keyroots;
};

std::string label_of(const Pool& p, std::uint32_t i) {
  const Term& x = p.at(i);
  switch (x.c) {
    case C::kNum: return "number_" + int_str(x.q.n) + (x.q.d == 1 ? "" : "/" + int_str(x.q.d));
    case C::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "number_%.15g",
                    static_cast<double>(static_cast<long double>(x.q.n) / static_cast<long double>(x.q.d)));
      return buf;
    }
    case C::kPi: return "number_pi";
    case C::kE: return "number_E";
    case C::kI: return "number_I";
    case C::kInf: return "number_oo";
    case C::kNegInf: return "number_-oo";
    case C::kZoo: return "number_zoo";
    case C::kSymbol: return "symbol_" + x.name;
    case C::kPow: return "operator_Pow";
    case C::kMul: return "operator_Mul";
    case C::kAdd: return "operator_Add";
    case C::kFunc: return "function_" + x.name;
  }
  return "";
}

NodeKind kind_of(const Pool& p, std::uint32_t i) {
  switch (p.at(i).c) {
    case C::kSymbol: return NodeKind::kSymbol;
    case C::kPow:
    case C::kMul:
    case C::kAdd: return NodeKind::kOperator;
    case C::kFunc: return NodeKind::kFunction;
    default: return NodeKind::kNumber;
  }
}

// A negative number under Mul/Add prints "-1" etc.; SymPy's tree holds it as one number node.
std::size_t count_nodes(const Pool& p, std::uint32_t i, std::size_t cap) {
  std::size_t n = 1;
  for (std::uint32_t k : p.at(i).k) {
    n += count_nodes(p, k, cap);
    if (n > cap) return n;
  }
  return n;
}

void flatten(const Pool& p, std::uint32_t root, const Config& cfg, std::map<std::string, std::uint32_t>& labels,
             Flat& f) {
  // iterative post-order
  struct Frame {
    std::uint32_t node;
    std::size_t next;
    std::uint32_t first_leaf;
  };
  std::vector<Frame> stack{{root, 0, 0}};
  std::vector<double> child_sizes;  // running sums per frame
  std::vector<double> sums{0.0};
  while (!stack.empty()) {
    Frame& fr = stack.back();
    const Term& x = p.at(fr.node);
    if (fr.next < x.k.size()) {
      std::uint32_t child = x.k[fr.next++];
      stack.push_back({child, 0, 0});
      sums.push_back(0.0);
      continue;
    }
    const std::uint32_t idx = static_cast<std::uint32_t>(f.kind.size());
    const NodeKind k = kind_of(p, fr.node);
    f.kind.push_back(static_cast<std::uint8_t>(k));
    auto [it, inserted] = labels.emplace(label_of(p, fr.node), static_cast<std::uint32_t>(labels.size()));
    (void)inserted;
    f.label.push_back(it->second);
    f.nkids.push_back(static_cast<std::uint32_t>(x.k.size()));
    const double own = cfg.insert_cost[static_cast<int>(k)];
    const double total = own + sums.back();
    f.size.push_back(total);
    // leftmost leaf: the first node of this subtree in post-order
    const std::uint32_t lmd = x.k.empty() ? idx : fr.first_leaf;
    f.lmd.push_back(lmd);
    stack.pop_back();
    sums.pop_back();
    if (!stack.empty()) {
      sums.back() += total;
      if (stack.back().next == 1) stack.back().first_leaf = lmd;
    }
  }
  // keyroots: for each leftmost leaf, the highest node having it
  std::vector<std::int64_t> highest(f.kind.size(), -1);
  for (std::uint32_t i = 0; i < f.kind.size(); ++i) highest[f.lmd[i]] = i;
  for (std::uint32_t i = 0; i < f.kind.size(); ++i)
    if (highest[i] >= 0) f.keyroots.push_back(static_cast<std::uint32_t>(highest[i]));
  std::sort(f.keyroots.begin(), f.keyroots.end());
}

double tree_cost(const Flat& f, std::uint32_t i, const Config& cfg, bool remove) {
  if (f.nkids[i] == 0) return remove ? cfg.delete_cost[f.kind[i]] : cfg.delete_cost[f.kind[i]];
  const double s = f.size[i];
  return std::min(s, cfg.discount_slope * (s - cfg.bar_size) + cfg.bar_size);
}

// PHYBench's extended Zhang-Shasha (tree_distance.ext_distance): single-node and whole-subtree
// insertions and removals, relabelling by kind.
double ext_distance(const Flat& a, const Flat& b, const Config& cfg) {
  const std::size_t na = a.kind.size(), nb = b.kind.size();
  std::vector<double> treedists(na * nb, 0.0);
  std::vector<double> fd((na + 1) * (nb + 1), 1000.0);
  auto FD = [&](std::size_t i, std::size_t j) -> double& { return fd[i * (nb + 1) + j]; };
  auto TD = [&](std::size_t i, std::size_t j) -> double& { return treedists[i * nb + j]; };
  auto update = [&](std::uint32_t i, std::uint32_t j) -> double {
    if (a.label[i] == b.label[j]) return 0.0;
    if (a.kind[i] == b.kind[j]) return cfg.update_cost[a.kind[i]];
    return cfg.change_type_cost;
  };
  for (std::uint32_t x : a.keyroots) {
    for (std::uint32_t y : b.keyroots) {
      const std::uint32_t ax = a.lmd[x], by = b.lmd[y];
      FD(ax, by) = 0;
      for (std::uint32_t i = ax; i <= x; ++i) FD(i + 1, by) = FD(a.lmd[i], by) + tree_cost(a, i, cfg, true);
      for (std::uint32_t j = by; j <= y; ++j) FD(ax, j + 1) = FD(ax, b.lmd[j]) + tree_cost(b, j, cfg, false);
      for (std::uint32_t i = ax; i <= x; ++i) {
        for (std::uint32_t j = by; j <= y; ++j) {
          double m = FD(i, j + 1) + cfg.delete_cost[a.kind[i]];
          m = std::min(m, FD(i + 1, j) + cfg.insert_cost[b.kind[j]]);
          m = std::min(m, FD(a.lmd[i], j + 1) + tree_cost(a, i, cfg, true));
          m = std::min(m, FD(i + 1, b.lmd[j]) + tree_cost(b, j, cfg, false));
          if (a.lmd[i] == ax && b.lmd[j] == by) {
            TD(i, j) = std::min(m, FD(i, j) + update(i, j));
            FD(i + 1, j + 1) = TD(i, j);
          } else {
            FD(i + 1, j + 1) = std::min(m, FD(a.lmd[i], b.lmd[j]) + TD(i, j));
          }
        }
      }
    }
  }
  return TD(na - 1, nb - 1);
}

// -- text before parsing -------------------------------------------------------------------------------

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// the end of the brace group opening at `open` (index of '{'), or npos
std::size_t group_end(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      continue;
    }
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\n' || s[b - 1] == '\r')) --b;
  return std::string(s.substr(a, b - a));
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  std::size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

// \cmd{...} -> {...} (the command dropped, its group kept), for every occurrence
std::string unwrap_command(std::string s, std::string_view cmd) {
  std::size_t pos = 0;
  while ((pos = s.find(cmd, pos)) != std::string::npos) {
    const std::size_t after = pos + cmd.size();
    if (after < s.size() && is_alpha(s[after])) {
      pos = after;
      continue;
    }
    std::size_t open = after;
    while (open < s.size() && s[open] == ' ') ++open;
    if (open < s.size() && s[open] == '{') {
      s.erase(pos, open - pos);
    } else {
      s.erase(pos, cmd.size());
    }
  }
  return s;
}

// PHYBench's first stage: the boxed content, outer braces, the part before \quad, the part after
// the last relation.
std::string first_stage(std::string s) {
  s = replace_all(std::move(s), "\\{", "(");
  s = replace_all(std::move(s), "\\}", ")");
  s = unwrap_command(std::move(s), "\\boxed");
  auto strip_braces = [](std::string x) {
    for (int k = 0; k < 10; ++k) {
      std::string t = trim(x);
      if (t.size() >= 2 && t.front() == '{' && group_end(t, 0) == t.size() - 1) {
        x = t.substr(1, t.size() - 2);
      } else {
        return t;
      }
    }
    return trim(x);
  };
  s = strip_braces(std::move(s));
  if (std::size_t q = s.find("\\quad"); q != std::string::npos) s = s.substr(0, q);
  // after the last relation (top level)
  static constexpr std::string_view kRel[] = {"\\approx", "\\simeq", "\\sim", "\\propto", "\\equiv",
                                              "\\cong",   "\\geq",   "\\leq", "\\ge",     "\\le",
                                              "\\neq",    "\\ne",    "=",     "<",        ">"};
  std::size_t cut = std::string::npos, cut_len = 0;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') --depth;
    if (depth != 0) continue;
    for (std::string_view r : kRel) {
      if (s.compare(i, r.size(), r) == 0 && (r[0] != '\\' || i + r.size() >= s.size() || !is_alpha(s[i + r.size()]))) {
        cut = i;
        cut_len = r.size();
        break;
      }
    }
  }
  if (cut != std::string::npos) s = s.substr(cut + cut_len);
  return strip_braces(std::move(s));
}

bool known_command(std::string_view c) {
  static constexpr std::string_view kKnown[] = {
      "frac",    "dfrac",        "tfrac",  "cfrac",    "sqrt",   "pi",      "infty",      "left",   "right",
      "cdot",    "times",        "div",    "ln",       "log",    "exp",     "sin",        "cos",    "tan",
      "sec",     "csc",          "cot",    "arcsin",   "arccos", "arctan",  "sinh",       "cosh",   "tanh",
      "coth",    "operatorname", "mathrm", "text",     "textrm", "mathbf",  "mathit",     "rm",     "binom",
      "circ",    "alpha",        "beta",   "gamma",    "delta",  "epsilon", "varepsilon", "zeta",   "eta",
      "theta",   "vartheta",     "iota",   "kappa",    "lambda", "mu",      "nu",         "xi",     "omicron",
      "rho",     "varrho",       "sigma",  "varsigma", "tau",    "upsilon", "phi",        "varphi", "chi",
      "psi",     "omega",        "Gamma",  "Delta",    "Theta",  "Lambda",  "Xi",         "Pi",     "Sigma",
      "Upsilon", "Phi",          "Psi",    "Omega",    "cdotp",  "pm",      "mp",         "lfloor", "rfloor",
      "lceil",   "rceil",        "Big",    "big",      "Bigg",   "bigg",    "quad",       "qquad",  "partial",
      "ell",     "hbar_unused"};
  for (std::string_view k : kKnown)
    if (k == c) return true;
  return false;
}

// PHYBench's second stage where it changes meaning, and commands the parser does not know made
// into symbols named as latex2sympy names them (\hbar -> hbar, \vec{F} -> vec{F}).
std::string second_stage(std::string s, Names& names) {
  static constexpr std::string_view kDrop[] = {
      "\\displaystyle", "\\left",  "\\right", "\\Bigr", "\\Bigl", "\\bigl", "\\bigr",
      "\\biggl",        "\\biggr", "\\Big",   "\\,",    "\\;",    "\\!",    "$"};
  for (std::string_view d : kDrop) {
    std::size_t pos = 0;
    while ((pos = s.find(d, pos)) != std::string::npos) {
      if (d[0] == '\\' && is_alpha(d[1]) && pos + d.size() < s.size() && is_alpha(s[pos + d.size()]) && d != "\\left" &&
          d != "\\right") {
        pos += d.size();
        continue;
      }
      if ((d == "\\left" || d == "\\right") && pos + d.size() < s.size() && is_alpha(s[pos + d.size()])) {
        pos += d.size();
        continue;
      }
      s.erase(pos, d.size());
      if (d == "\\left" || d == "\\right") {
        // "\left." and "\right." are invisible delimiters
        if (pos < s.size() && s[pos] == '.') s.erase(pos, 1);
      }
    }
  }
  for (std::string_view w : {"\\hat", "\\overline", "\\boldsymbol", "\\mathbb", "\\mathcal", "\\mathfrak", "\\pmb"})
    s = unwrap_command(std::move(s), w);
  s = replace_all(std::move(s), "\\pm", "+");
  s = replace_all(std::move(s), "\\mp", "-");
  s = replace_all(std::move(s), "\\varOmega", "\\Omega");
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (is_alpha(s[i])) {
      // a run of letters is a product of one-letter symbols, as latex2sympy reads it ("GMm"),
      // except a name in a wrapper or a subscript, or a function name before "("
      std::size_t j = i;
      while (j < s.size() && is_alpha(s[j])) ++j;
      bool wrapped = false;
      for (std::string_view w : {"_{", "\\mathrm{", "\\text{", "\\textrm{", "\\operatorname{", "\\mathbf{", "\\mathit{",
                                 "\\rm{", "\\begin{", "\\end{"})
        wrapped = wrapped || (out.size() >= w.size() && out.compare(out.size() - w.size(), w.size(), w) == 0);
      const bool call = j < s.size() && s[j] == '(';
      if (j - i >= 3 && !wrapped && !call) {
        for (std::size_t k = i; k < j; ++k) {
          out += s[k];
          if (k + 1 < j) out += ' ';
        }
      } else {
        out.append(s, i, j - i);
      }
      i = j;
      continue;
    }
    if (s[i] != '\\' || i + 1 >= s.size() || !is_alpha(s[i + 1])) {
      out += s[i++];
      continue;
    }
    std::size_t j = i + 1;
    while (j < s.size() && is_alpha(s[j])) ++j;
    std::string_view cmd(s.data() + i + 1, j - i - 1);
    if (known_command(cmd)) {
      out.append(s, i, j - i);
      i = j;
      continue;
    }
    std::string real(cmd);
    std::size_t end = j;
    if (cmd == "vec" || cmd == "bar" || cmd == "dot" || cmd == "ddot" || cmd == "tilde" || cmd == "widetilde") {
      std::size_t open = j;
      while (open < s.size() && s[open] == ' ') ++open;
      if (open < s.size() && s[open] == '{') {
        std::size_t close = group_end(s, open);
        if (close != std::string::npos) {
          real += s.substr(open, close - open + 1);
          end = close + 1;
        }
      } else if (open < s.size()) {
        real += "{" + std::string(1, s[open]) + "}";
        end = open + 1;
      }
    }
    const std::string ph = "upsilon_Q" + std::to_string(names.placeholders.size());
    names.placeholders.emplace_back(ph, real);
    out += "{\\upsilon_{Q" + std::to_string(names.placeholders.size() - 1) + "}}";
    i = end;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

struct Side {
  Pool pool;
  std::uint32_t root = 0;
  std::optional<expr::Ast> ast;
  bool ok = false;
  bool unsupported = false;
  bool too_big = false;
};

void build(std::string_view text, Side& side, double scale) {
  Names names;
  std::string s = second_stage(first_stage(std::string(text)), names);
  side.ast = expr::try_parse(s, expr::Syntax::kAuto);
  if (!side.ast) return;
  try {
    Pool& p = side.pool;
    std::uint32_t r = convert(p, *side.ast, side.ast->root, names);
    if (scale != 1.0) {
      // a unit conversion factor: exact when it is a power of ten or a small fraction
      double ip;
      std::uint32_t f;
      if (std::modf(scale, &ip) == 0.0 && std::fabs(scale) < 1e18) {
        f = p.num(static_cast<Int>(scale));
      } else if (std::modf(1.0 / scale, &ip) == 0.0 && std::fabs(1.0 / scale) < 1e18) {
        f = p.num(Q{1, static_cast<Int>(1.0 / scale)});
      } else {
        f = p.make(Term{
            C::kFloat, qmake(static_cast<Int>(std::llround(scale * 1e12)), static_cast<Int>(1000000000000LL)), {}, {}});
        p.had_float = true;
      }
      r = p.mul({f, r});
      p.had_float = true;  // a converted magnitude is a float, as the gold's decimal is
    }
    r = normal(p, r, true);
    r = factor_terms(p, r);
    if (p.had_float) r = restore_floats(p, r);
    side.root = r;
    side.ok = true;
  } catch (const Overflow&) {
    side.ok = false;
  } catch (const Unsupported&) {
    side.unsupported = true;
  } catch (const TooBig&) {
    side.too_big = true;
  }
}

void write_tree(const Pool& p, std::uint32_t i, std::string& out) {
  out += label_of(p, i);
  const Term& x = p.at(i);
  if (x.k.empty()) return;
  out += '(';
  for (std::size_t k = 0; k < x.k.size(); ++k) {
    if (k) out += ", ";
    write_tree(p, x.k[k], out);
  }
  out += ')';
}

}  // namespace

Stripped strip_unit(std::string_view text) {
  std::string s = trim(text);
  // a trailing \mathrm{...} / \text{...} group (with an optional power) reading as a unit
  static constexpr std::string_view kWrappers[] = {"\\mathrm", "\\text", "\\textrm", "\\rm", "\\mathrm "};
  std::size_t best = std::string::npos;
  for (std::string_view w : kWrappers) {
    std::size_t pos = s.rfind(w);
    if (pos == std::string::npos || pos == 0) continue;
    std::size_t open = pos + w.size();
    while (open < s.size() && s[open] == ' ') ++open;
    if (open >= s.size() || s[open] != '{') continue;
    std::size_t close = group_end(s, open);
    if (close == std::string::npos) continue;
    std::size_t end = close + 1;
    if (end < s.size() && s[end] == '^') {  // \mathrm{m}^{2}
      ++end;
      if (end < s.size() && s[end] == '{') {
        std::size_t c2 = group_end(s, end);
        end = c2 == std::string::npos ? s.size() : c2 + 1;
      } else if (end < s.size()) {
        ++end;
      }
    }
    if (trim(std::string_view(s).substr(end)).empty() && (best == std::string::npos || pos < best)) best = pos;
  }
  if (best != std::string::npos) {
    // the unit may span several groups: "\mathrm{kg}\,\mathrm{m}^{2}"; take from the first
    // wrapper of the trailing run
    std::string unit_text = s.substr(best);
    physics::MathContent mc = physics::extract_math_content(unit_text);
    physics::Unit u = physics::parse_unit(mc.text, false);
    if (u.ok) {
      std::string rest = s.substr(0, best);
      while (!rest.empty()) {
        std::string t = trim(rest);
        bool changed = false;
        if (!t.empty() && t.back() == '\\' && (t.size() < 2 || t[t.size() - 2] != '\\')) {  // "\ " trimmed
          t.pop_back();
          changed = true;
        }
        for (std::string_view sp : {"\\,", "\\;", "\\ ", "\\!", "~", "\\quad"}) {
          if (t.size() >= sp.size() && t.compare(t.size() - sp.size(), sp.size(), sp) == 0) {
            t.erase(t.size() - sp.size());
            changed = true;
          }
        }
        rest = t;
        if (!changed) break;
      }
      if (!trim(rest).empty()) return {trim(rest), u.pint};
    }
  }
  // a plain number followed by a unit: "9.8 m/s^2"
  physics::MathContent mc = physics::extract_math_content(s);
  physics::Quantity q = physics::read_quantity(mc.text);
  std::size_t letters = 0;
  for (char c : q.unit.shown) letters += is_alpha(c) ? 1 : 0;
  const bool clear_unit = letters >= 2 || q.unit.shown.find('/') != std::string::npos;
  if (q.has_number && q.unit.ok && q.rest_is_unit && clear_unit && mc.text.find("\\frac") == std::string::npos) {
    return {physics::format_number(q.value), q.unit.pint};
  }
  return {s, ""};
}

Result score(std::string_view gold, std::string_view answer, const Config& config, double answer_scale) {
  Result r;
  Stripped g = strip_unit(gold);
  Stripped a = strip_unit(answer);
  r.gold_unit = g.unit;
  r.answer_unit = a.unit;
  // PHYBench's checks on the raw strings
  if (trim(answer).empty()) {
    r.status = Status::kEmpty;
    return r;
  }
  if (gold.find("\\int") != std::string_view::npos || answer.find("\\int") != std::string_view::npos ||
      gold.find("\\sum") != std::string_view::npos || answer.find("\\sum") != std::string_view::npos) {
    r.status = Status::kUnsupported;
    return r;
  }
  if (gold == answer && answer_scale == 1.0) {
    r.score = 100;
    r.relative_distance = 0;
    r.distance = 0;
    r.status = Status::kEqual;
    return r;
  }
  if (answer.size() > 3 * gold.size()) {
    r.status = Status::kTooLong;
    return r;
  }
  Side gs, as;
  build(g.text, gs, 1.0);
  build(a.text, as, answer_scale);
  if (gs.unsupported || as.unsupported) {
    r.status = Status::kUnsupported;
    return r;
  }
  if (gs.too_big || as.too_big) {
    r.status = Status::kTooLarge;
    return r;
  }
  if (!gs.ok || !as.ok) {
    r.status = Status::kParseFailed;
    return r;
  }
  const std::size_t ng = count_nodes(gs.pool, gs.root, kMaxEedNodes);
  const std::size_t na = count_nodes(as.pool, as.root, kMaxEedNodes);
  if (ng > kMaxEedNodes || na > kMaxEedNodes || ng * na > config.max_cells) {
    r.status = Status::kTooLarge;
    return r;
  }
  std::map<std::string, std::uint32_t> labels;
  Flat fg, fa;
  flatten(gs.pool, gs.root, config, labels, fg);
  flatten(as.pool, as.root, config, labels, fa);
  r.tree_size = fg.size.back();
  // equal: the same tree, or the same values (the core's equivalence at sample points)
  bool equal = fg.label == fa.label && fg.lmd == fa.lmd && fg.nkids == fa.nkids;
  // the core's numeric equivalence, for sides with the same symbols only (with others, a term
  // small beside the rest could pass for equal at the sample points)
  if (!equal && answer_scale == 1.0 && expr::free_symbols(*gs.ast) == expr::free_symbols(*as.ast)) {
    equiv::Limit limit = equiv::Limit::kNone;
    equal = equiv::equivalent(*gs.ast, *as.ast, equiv::Options{}, &limit) == equiv::Tri::kTrue;
  }
  if (equal) {
    r.score = 100;
    r.relative_distance = 0;
    r.distance = 0;
    r.status = Status::kEqual;
    return r;
  }
  const double d = ext_distance(fa, fg, config);
  r.distance = d;
  r.relative_distance = d / r.tree_size;
  r.score = d == 0.0 ? 100.0 : std::max(0.0, config.initial_score - config.scoring_slope * d / r.tree_size);
  r.status = d == 0.0 ? Status::kEqual : Status::kScored;
  return r;
}

std::string canonical_tree(std::string_view text) {
  Side s;
  build(strip_unit(text).text, s, 1.0);
  if (!s.ok) return "";
  std::string out;
  write_tree(s.pool, s.root, out);
  return out;
}

}  // namespace rapidgrade::eed
