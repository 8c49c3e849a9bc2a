// Exact rational arithmetic of the expression engine (checked 128-bit numerator and
// denominator; overflow gives nullopt, never a wrong value) and the exact value of constant
// subtrees.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {
namespace {

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 UInt;
#else
typedef unsigned long long UInt;
#endif

// The range is kept symmetric, [-kMax, kMax], so that negation and abs never overflow.
constexpr Int kMax = static_cast<Int>(static_cast<UInt>(-1) >> 1);

using Q = std::optional<Rational>;

bool add_ok(Int a, Int b, Int& r) {
  if ((b > 0 && a > kMax - b) || (b < 0 && a < -kMax - b)) return false;
  r = a + b;
  return true;
}

Int iabs(Int a) { return a < 0 ? -a : a; }

bool mul_ok(Int a, Int b, Int& r) {
#if defined(__GNUC__) || defined(__clang__)
  // the compiler's checked multiply (a division per product costs more than the product), on
  // the magnitudes: unsigned, it needs no runtime helper on any compiler version
  const UInt ua = static_cast<UInt>(iabs(a)), ub = static_cast<UInt>(iabs(b));
  UInt p;
  if (__builtin_mul_overflow(ua, ub, &p) || p > static_cast<UInt>(kMax)) return false;
  r = (a < 0) != (b < 0) ? -static_cast<Int>(p) : static_cast<Int>(p);
  return true;
#else
  if (a == 0 || b == 0) {
    r = 0;
    return true;
  }
  if (iabs(a) > kMax / iabs(b)) return false;
  r = a * b;
  return true;
#endif
}

Int gcd(Int a, Int b) {
  a = iabs(a);
  b = iabs(b);
  constexpr UInt kWord = ~std::uint64_t{0};
  while (b != 0) {
    if (static_cast<UInt>(a) <= kWord && static_cast<UInt>(b) <= kWord) {
      // both fit in 64 bits (nearly always): the rest in machine words
      std::uint64_t x = static_cast<std::uint64_t>(a), y = static_cast<std::uint64_t>(b);
      while (y != 0) {
        const std::uint64_t t = x % y;
        x = y;
        y = t;
      }
      return static_cast<Int>(x);
    }
    Int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

Q make_q(Int num, Int den) {
  if (den == 0) return std::nullopt;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  Int g = gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  return Rational{num, den};
}

Q q_add(const Rational& a, const Rational& b) {
  Int g = gcd(a.den, b.den);
  Int x, y, d, s;
  if (!mul_ok(a.num, b.den / g, x) || !mul_ok(b.num, a.den / g, y) || !mul_ok(a.den / g, b.den, d) || !add_ok(x, y, s))
    return std::nullopt;
  return make_q(s, d);
}

Q q_mul(const Rational& a, const Rational& b) {
  Int g1 = gcd(a.num, b.den), g2 = gcd(b.num, a.den);
  if (g1 == 0) g1 = 1;
  if (g2 == 0) g2 = 1;
  Int n, d;
  if (!mul_ok(a.num / g1, b.num / g2, n) || !mul_ok(a.den / g2, b.den / g1, d)) return std::nullopt;
  return make_q(n, d);
}

Q q_inv(const Rational& a) {
  if (a.num == 0) return std::nullopt;
  return make_q(a.den, a.num);
}

/// r^k (k >= 0) by squaring, or nullopt past 128 bits.
std::optional<Int> int_pow(Int r, Int k) {
  Int out = 1;
  Int base = r;
  while (k > 0) {
    if ((k & 1) != 0 && !mul_ok(out, base, out)) return std::nullopt;
    k >>= 1;
    if (k > 0 && !mul_ok(base, base, base)) return std::nullopt;
  }
  return out;
}

Q q_pow_int(Rational base, Int e) {
  if (e < 0) {
    Q inv = q_inv(base);
    if (!inv) return std::nullopt;
    base = *inv;
    e = -e;
  }
  if (base.den == 1 && (base.num == 1 || base.num == 0)) return e == 0 ? Rational{1, 1} : base;
  if (base.den == 1 && base.num == -1) return Rational{(e % 2 == 0) ? Int(1) : Int(-1), 1};
  if (e > 128) return std::nullopt;  // |base| != 0, 1 and an exponent this large overflows 128 bits
  // (n/d)^e = n^e / d^e, in lowest terms when n/d is: the products need no gcd
  const std::optional<Int> num = int_pow(base.num, e);
  const std::optional<Int> den = int_pow(base.den, e);
  if (!num || !den) return std::nullopt;
  return make_q(*num, *den);
}

/// Exact k-th root of a non-negative integer, if it is one (results below 2^52 only).
std::optional<Int> int_root(Int x, Int k) {
  if (x < 0 || k < 1) return std::nullopt;
  if (x < 2) return x;
  // In doubles (long double's powl costs ten times more): x rounds to a relative error of
  // 2^-53 and pow to one more; a root below 4e15 < 2^52 is then off by less than 2, and the
  // candidates around the estimate are checked exactly, the estimate first (a root is nearly
  // always that one; the others are checked only to tell that there is none).
  const double xd = static_cast<double>(x);
  const double est = k == 2 ? std::sqrt(xd) : std::pow(xd, 1.0 / static_cast<double>(k));
  if (!(est < 4.0e15)) return std::nullopt;
  const Int r0 = static_cast<Int>(std::llround(est));
  for (const Int step : {0, -1, 1, -2, 2}) {
    const Int r = r0 + step;
    if (r < 0) continue;
    const std::optional<Int> p = int_pow(r, k);
    if (p && *p == x) return r;
  }
  return std::nullopt;
}

/// x^(p/q) exactly when x's numerator and denominator are perfect q-th powers.
Q q_pow(const Rational& base, const Rational& e) {
  if (e.den == 1) return q_pow_int(base, e.num);
  if (e.den > 64) return std::nullopt;
  Int num = base.num;
  bool neg = false;
  if (num < 0) {
    // principal root of a negative number is not real (SymPy: (-8)**(1/3) is complex)
    return std::nullopt;
  }
  (void)neg;
  auto rn = int_root(num, e.den);
  auto rd = int_root(base.den, e.den);
  if (!rn || !rd) return std::nullopt;
  return q_pow_int(Rational{*rn, *rd}, e.num);
}

bool is_integer(const Rational& q) { return q.den == 1; }

Q exact(const Ast& ast, std::uint32_t i);

/// det of a square matrix of at most 6 x 6 rational entries, by exact Gaussian elimination.
Q exact_det(const Ast& ast, const Node& m) {
  const std::size_t size = m.extra;
  if (size == 0 || size > 6 || m.kids.size() != size * size) return std::nullopt;
  std::vector<Rational> a(size * size);
  for (std::size_t k = 0; k < a.size(); ++k) {
    Q v = exact(ast, m.kids[k]);
    if (!v) return std::nullopt;
    a[k] = *v;
  }
  Rational det{1, 1};
  for (std::size_t col = 0; col < size; ++col) {
    std::size_t pivot = col;
    while (pivot < size && a[pivot * size + col].num == 0) ++pivot;
    if (pivot == size) return Rational{0, 1};
    if (pivot != col) {
      for (std::size_t c = 0; c < size; ++c) std::swap(a[pivot * size + c], a[col * size + c]);
      det.num = -det.num;
    }
    Q d = q_mul(det, a[col * size + col]);
    if (!d) return std::nullopt;
    det = *d;
    Q inv = q_inv(a[col * size + col]);
    if (!inv) return std::nullopt;
    for (std::size_t r = col + 1; r < size; ++r) {
      Q f = q_mul(a[r * size + col], *inv);
      if (!f) return std::nullopt;
      for (std::size_t c = col; c < size; ++c) {
        Q t = q_mul(*f, a[col * size + c]);
        if (!t) return std::nullopt;
        Q u = q_add(a[r * size + c], Rational{-t->num, t->den});
        if (!u) return std::nullopt;
        a[r * size + c] = *u;
      }
    }
  }
  return det;
}

/// The falling factorial a(a-1)...(a-k+1) of a rational a and an integer 0 <= k <= 200, over k!
/// when `over_k_factorial` (binomial(a, k)). A factor of zero ends it.
Q exact_falling(const Rational& a, Int k, bool over_k_factorial) {
  if (k < 0 || k > 200) return std::nullopt;
  Rational r{1, 1};
  for (Int j = 0; j < k; ++j) {
    Q term = q_add(a, Rational{-j, 1});
    if (!term) return std::nullopt;
    if (term->num == 0) return Rational{0, 1};
    Q m = q_mul(r, *term);
    if (m && over_k_factorial) m = q_mul(*m, Rational{1, j + 1});
    if (!m) return std::nullopt;
    r = *m;
  }
  return r;
}

/// binomial(n, k) for an integer k: for an integer n >= 0, 0 outside 0..n and min(k, n - k) <=
/// 200; for any other rational n (SymPy's polynomial in n), 0 <= k <= 200.
Q exact_binomial(const Rational& a, const Rational& b) {
  if (!is_integer(b)) return std::nullopt;
  if (!is_integer(a) || a.num < 0) return exact_falling(a, b.num, true);
  Int nn = a.num, k = b.num;
  if (k < 0 || k > nn) return Rational{0, 1};
  if (k > nn - k) k = nn - k;
  if (k > 200) return std::nullopt;
  Rational r{1, 1};
  for (Int j = 0; j < k; ++j) {
    Q m = q_mul(r, Rational{nn - j, j + 1});
    if (!m) return std::nullopt;
    r = *m;
  }
  return r;
}

/// Exact value of the functions with rational values at rational points: sqrt, root, det,
/// binomial, ff (the falling factorial).
Q exact_function(const Ast& ast, const Node& n) {
  if (n.text == "sqrt" && n.kids.size() == 1) {
    Q v = exact(ast, n.kids[0]);
    if (!v) return std::nullopt;
    return q_pow(*v, Rational{1, 2});
  }
  if (n.text == "root" && n.kids.size() == 2) {
    Q v = exact(ast, n.kids[0]);
    Q k = exact(ast, n.kids[1]);
    if (!v || !k || !is_integer(*k) || k->num < 1) return std::nullopt;
    return q_pow(*v, Rational{1, k->num});
  }
  if (n.text == "det" && n.kids.size() == 1 && ast.at(n.kids[0]).kind == Kind::kMatrix) {
    return exact_det(ast, ast.at(n.kids[0]));
  }
  if (n.text == "binomial" && n.kids.size() == 2) {
    Q a = exact(ast, n.kids[0]);
    Q b = exact(ast, n.kids[1]);
    if (!a || !b) return std::nullopt;
    return exact_binomial(*a, *b);
  }
  if (n.text == "ff" && n.kids.size() == 2) {
    Q a = exact(ast, n.kids[0]);
    Q b = exact(ast, n.kids[1]);
    if (!a || !b || !is_integer(*b)) return std::nullopt;
    return exact_falling(*a, b->num, false);
  }
  return std::nullopt;
}

Q exact(const Ast& ast, std::uint32_t i) {
  const Node& n = ast.at(i);
  switch (n.kind) {
    case Kind::kNumber: return parse_decimal(n.text);
    case Kind::kAdd: {
      Rational acc{0, 1};
      for (std::uint32_t k : n.kids) {
        Q v = exact(ast, k);
        if (!v) return std::nullopt;
        Q s = q_add(acc, *v);
        if (!s) return std::nullopt;
        acc = *s;
      }
      return acc;
    }
    case Kind::kMul: {
      Rational acc{1, 1};
      for (std::uint32_t k : n.kids) {
        Q v = exact(ast, k);
        if (!v) return std::nullopt;
        Q s = q_mul(acc, *v);
        if (!s) return std::nullopt;
        acc = *s;
      }
      return acc;
    }
    case Kind::kNeg: {
      Q v = exact(ast, n.kids[0]);
      if (!v) return std::nullopt;
      return Rational{-v->num, v->den};
    }
    case Kind::kDiv: {
      Q a = exact(ast, n.kids[0]);
      if (!a) return std::nullopt;
      Q b = exact(ast, n.kids[1]);
      if (!b) return std::nullopt;
      Q inv = q_inv(*b);
      if (!inv) return std::nullopt;
      return q_mul(*a, *inv);
    }
    case Kind::kPow: {
      Q b = exact(ast, n.kids[0]);
      if (!b) return std::nullopt;
      Q e = exact(ast, n.kids[1]);
      if (!e) return std::nullopt;
      if (b->num == 0 && e->num <= 0) return std::nullopt;  // 0^0, 0^-1: leave to SymPy
      return q_pow(*b, *e);
    }
    case Kind::kPercent: {
      Q v = exact(ast, n.kids[0]);
      if (!v) return std::nullopt;
      return q_mul(*v, Rational{1, 100});
    }
    case Kind::kAbs: {
      Q v = exact(ast, n.kids[0]);
      if (!v) return std::nullopt;
      return Rational{iabs(v->num), v->den};
    }
    case Kind::kFactorial: {
      Q v = exact(ast, n.kids[0]);
      if (!v || !is_integer(*v) || v->num < 0 || v->num > 33) return std::nullopt;
      Int r = 1;
      for (Int k = 2; k <= v->num; ++k) r *= k;
      return Rational{r, 1};
    }
    case Kind::kFunc: return exact_function(ast, n);
    default: return std::nullopt;
  }
}

}  // namespace

double Rational::to_double() const {
  // Both exact in doubles (most values): one correctly rounded division. Otherwise through long
  // double, which keeps 64 bits of each (and costs several times more).
  constexpr Int kExact = Int{1} << 53;
  if (num >= -kExact && num <= kExact && den >= -kExact && den <= kExact) {
    return static_cast<double>(static_cast<std::int64_t>(num)) / static_cast<double>(static_cast<std::int64_t>(den));
  }
  return static_cast<double>(static_cast<long double>(num) / static_cast<long double>(den));
}

static std::string int_to_string(Int v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  UInt u = neg ? static_cast<UInt>(-v) : static_cast<UInt>(v);
  std::string s;
  while (u > 0) {
    s += static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) s += '-';
  std::reverse(s.begin(), s.end());
  return s;
}

std::string Rational::to_string() const {
  return den == 1 ? int_to_string(num) : int_to_string(num) + "/" + int_to_string(den);
}

std::optional<Rational> parse_decimal(std::string_view lit) {
  Int m = 0;
  int frac = 0;
  bool in_frac = false;
  std::size_t i = 0;
  for (; i < lit.size(); ++i) {
    const char c = lit[i];
    if (c == '.') {
      in_frac = true;
      continue;
    }
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') return std::nullopt;
    if (!mul_ok(m, 10, m) || !add_ok(m, c - '0', m)) return std::nullopt;
    if (in_frac) ++frac;
  }
  long long e = 0;
  if (i < lit.size()) {
    ++i;
    bool neg = false;
    if (i < lit.size() && (lit[i] == '-' || lit[i] == '+')) neg = lit[i++] == '-';
    for (; i < lit.size(); ++i) {
      if (lit[i] < '0' || lit[i] > '9') return std::nullopt;
      e = e * 10 + (lit[i] - '0');
      if (e > 100000) return std::nullopt;
    }
    if (neg) e = -e;
  }
  const long long scale = e - frac;
  if (m == 0) return Rational{0, 1};
  if (scale > 40 || scale < -40) return std::nullopt;
  Int p = 1;
  for (long long k = 0; k < (scale < 0 ? -scale : scale); ++k)
    if (!mul_ok(p, 10, p)) return std::nullopt;
  if (scale >= 0) {
    Int r;
    if (!mul_ok(m, p, r)) return std::nullopt;
    return Rational{r, 1};
  }
  return make_q(m, p);
}

std::optional<Rational> exact_value(const Ast& ast, std::uint32_t node) { return exact(ast, node); }

std::optional<Rational> rational_mul(const Rational& a, const Rational& b) { return q_mul(a, b); }

}  // namespace rapidgrade::expr
