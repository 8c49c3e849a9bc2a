// Internals shared by the EED score's two sources: eed_sympy.cpp (exact rationals, the term pool
// and SymPy's automatic evaluation and rewriting rules) and eed.cpp (the LaTeX preprocessing,
// the tree edit distance, strip_unit, score, canonical_tree). Private to cpp/src; not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::eed::internal {

using expr::Int;

struct Overflow {};     // exact arithmetic past 128 bits, or an exponent past its cap
struct TooBig {};       // more nodes than the pool allows
struct Unsupported {};  // a structure (tuple, set, relation, text, ...) in the expression

// -- exact rationals (checked) -------------------------------------------------------------------

struct Q {
  Int n = 0, d = 1;
};

// n / d reduced, the sign on the numerator; throws Overflow when d is 0.
Q qmake(Int n, Int d);
// a <=> b by numeric value: -1, 0, 1.
int qcmp(Q a, Q b);
// The decimal digits of v.
std::string int_str(Int v);

// -- terms in SymPy's form -----------------------------------------------------------------------

enum class C : std::uint8_t { kNum, kFloat, kPi, kE, kI, kInf, kNegInf, kZoo, kSymbol, kPow, kMul, kAdd, kFunc };

struct Term {
  C c = C::kNum;
  Q q;               // kNum, kFloat (the exact value of the decimal)
  std::string name;  // kSymbol, kFunc
  std::vector<std::uint32_t> k;
};

// SymPy's ordering_of_classes: the index of a class name, 1000 for names not in it.
int class_rank(std::string_view name);

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

struct Names {
  std::vector<std::pair<std::string, std::string>> placeholders;  // parser name -> latex2sympy name
};

// The parser's tree under node i made into SymPy's form (its automatic evaluation applied).
// Throws Overflow, Unsupported or TooBig.
std::uint32_t convert(Pool& p, const expr::Ast& ast, std::uint32_t i, const Names& names);
// SymPy's normal where PHYBench's simplify leaves sums over a common denominator.
std::uint32_t normal(Pool& p, std::uint32_t i, bool top);
// SymPy's factor_terms (sign kept), bottom-up.
std::uint32_t factor_terms(Pool& p, std::uint32_t i);
// Every number outside an exponent made a float again.
std::uint32_t restore_floats(Pool& p, std::uint32_t i);

}  // namespace rapidgrade::eed::internal
