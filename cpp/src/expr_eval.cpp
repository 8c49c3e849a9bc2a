// Exact rational evaluation (checked 128-bit) and the numeric register machine.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <locale>
#include <sstream>
#include <string>
#include <type_traits>
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
  if (a == 0 || b == 0) {
    r = 0;
    return true;
  }
  if (iabs(a) > kMax / iabs(b)) return false;
  r = a * b;
  return true;
}

Int gcd(Int a, Int b) {
  a = iabs(a);
  b = iabs(b);
  while (b != 0) {
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
  if (!mul_ok(a.num, b.den / g, x) || !mul_ok(b.num, a.den / g, y) || !mul_ok(a.den / g, b.den, d) ||
      !add_ok(x, y, s))
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
  Rational r{1, 1};
  while (e > 0) {
    if (e & 1) {
      Q m = q_mul(r, base);
      if (!m) return std::nullopt;
      r = *m;
    }
    e >>= 1;
    if (e > 0) {
      Q s = q_mul(base, base);
      if (!s) return std::nullopt;
      base = *s;
    }
  }
  return r;
}

/// Exact k-th root of a non-negative integer, if it is one (results below 2^52 only).
std::optional<Int> int_root(Int x, Int k) {
  if (x < 0 || k < 1) return std::nullopt;
  if (x < 2) return x;
  const long double est = std::pow(static_cast<long double>(x), 1.0L / static_cast<long double>(k));
  if (!(est < 4.0e15L)) return std::nullopt;
  const Int r0 = static_cast<Int>(std::llround(static_cast<double>(est)));
  for (Int r = std::max<Int>(0, r0 - 1); r <= r0 + 1; ++r) {
    Q p = q_pow_int(Rational{r, 1}, k);
    if (p && p->num == x) return r;
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

Q exact(const Ast& ast, std::uint32_t i) {
  const Node& n = ast.at(i);
  switch (n.kind) {
    case Kind::Number:
      return parse_decimal(n.text);
    case Kind::Add: {
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
    case Kind::Mul: {
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
    case Kind::Neg: {
      Q v = exact(ast, n.kids[0]);
      if (!v) return std::nullopt;
      return Rational{-v->num, v->den};
    }
    case Kind::Div: {
      Q a = exact(ast, n.kids[0]);
      if (!a) return std::nullopt;
      Q b = exact(ast, n.kids[1]);
      if (!b) return std::nullopt;
      Q inv = q_inv(*b);
      if (!inv) return std::nullopt;
      return q_mul(*a, *inv);
    }
    case Kind::Pow: {
      Q b = exact(ast, n.kids[0]);
      if (!b) return std::nullopt;
      Q e = exact(ast, n.kids[1]);
      if (!e) return std::nullopt;
      if (b->num == 0 && e->num <= 0) return std::nullopt;  // 0^0, 0^-1: leave to SymPy
      return q_pow(*b, *e);
    }
    case Kind::Percent: {
      Q v = exact(ast, n.kids[0]);
      if (!v) return std::nullopt;
      return q_mul(*v, Rational{1, 100});
    }
    case Kind::Abs: {
      Q v = exact(ast, n.kids[0]);
      if (!v) return std::nullopt;
      return Rational{iabs(v->num), v->den};
    }
    case Kind::Factorial: {
      Q v = exact(ast, n.kids[0]);
      if (!v || !is_integer(*v) || v->num < 0 || v->num > 33) return std::nullopt;
      Int r = 1;
      for (Int k = 2; k <= v->num; ++k) r *= k;
      return Rational{r, 1};
    }
    case Kind::Func: {
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
      if (n.text == "det" && n.kids.size() == 1 && ast.at(n.kids[0]).kind == Kind::Matrix) {
        // exact Gaussian elimination on a square matrix of at most 6 x 6 rational entries
        const Node& m = ast.at(n.kids[0]);
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
      if (n.text == "binomial" && n.kids.size() == 2) {
        Q a = exact(ast, n.kids[0]);
        Q b = exact(ast, n.kids[1]);
        if (!a || !b || !is_integer(*a) || !is_integer(*b) || a->num < 0) return std::nullopt;
        Int nn = a->num, k = b->num;
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
      return std::nullopt;
    }
    default:
      return std::nullopt;
  }
}

double literal_to_double(const std::string& lit) {
  std::istringstream in(lit);
  in.imbue(std::locale::classic());
  double v = 0;
  in >> v;
  if (in.fail()) {
    // out of range: inf (or 0 for tiny)
    const auto e = lit.find('e');
    if (e != std::string::npos && lit.find('-', e) != std::string::npos) return 0.0;
    return std::numeric_limits<double>::infinity();
  }
  return v;
}

}  // namespace

double Rational::to_double() const {
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

// ============================================================================================
// Compilation

namespace {

struct Compiler {
  const Ast& ast;
  Program& prog;

  std::uint32_t emit(Instr in) {
    prog.code.push_back(in);
    return static_cast<std::uint32_t>(prog.code.size() - 1);
  }
  std::uint32_t constant(double re, double im = 0) {
    Instr in{Op::Const};
    in.re = re;
    in.im = im;
    return emit(in);
  }
  std::uint32_t bin(Op op, std::uint32_t a, std::uint32_t b) {
    Instr in{op};
    in.a = a;
    in.b = b;
    return emit(in);
  }
  std::uint32_t un(Op op, std::uint32_t a) {
    Instr in{op};
    in.a = a;
    return emit(in);
  }
  std::uint32_t opaque() {
    prog.evaluable = false;
    prog.analytic = false;
    return emit(Instr{Op::Nan});
  }

  std::uint32_t var(const std::string& name) {
    auto it = std::find(prog.vars.begin(), prog.vars.end(), name);
    std::size_t idx = static_cast<std::size_t>(it - prog.vars.begin());
    if (it == prog.vars.end()) prog.vars.push_back(name);
    Instr in{Op::Var};
    in.a = static_cast<std::uint32_t>(idx);
    return emit(in);
  }

  std::uint32_t func(const Node& n) {
    const std::string& f = n.text;
    static const struct {
      const char* name;
      Op op;
    } kUnary[] = {{"sin", Op::Sin},   {"cos", Op::Cos},     {"tan", Op::Tan},     {"sec", Op::Sec},
                  {"csc", Op::Csc},   {"cot", Op::Cot},     {"asin", Op::Asin},   {"acos", Op::Acos},
                  {"atan", Op::Atan}, {"asec", Op::Asec},   {"acsc", Op::Acsc},   {"acot", Op::Acot},
                  {"sinh", Op::Sinh}, {"cosh", Op::Cosh},   {"tanh", Op::Tanh},   {"asinh", Op::Asinh},
                  {"acosh", Op::Acosh}, {"atanh", Op::Atanh}, {"exp", Op::Exp}, {"sqrt", Op::Sqrt}};
    if (n.kids.size() == 1) {
      for (const auto& u : kUnary) {
        if (f == u.name) return un(u.op, go(n.kids[0]));
      }
      if (f == "log") return un(Op::Log, go(n.kids[0]));
      if (f == "floor" || f == "ceiling") {
        prog.analytic = false;
        prog.continuous = false;
        return un(f == "floor" ? Op::Floor : Op::Ceil, go(n.kids[0]));
      }
      if (f == "Abs") {
        prog.analytic = false;
        return un(Op::Abs, go(n.kids[0]));
      }
    }
    if (n.kids.size() == 2) {
      if (f == "log") {
        std::uint32_t x = go(n.kids[0]);
        std::uint32_t b = go(n.kids[1]);
        return bin(Op::LogBase, x, b);
      }
      if (f == "root") {
        std::uint32_t x = go(n.kids[0]);
        std::uint32_t k = go(n.kids[1]);
        return bin(Op::Root, x, k);
      }
      if (f == "binomial") {
        prog.analytic = false;
        std::uint32_t a = go(n.kids[0]);
        std::uint32_t b = go(n.kids[1]);
        return bin(Op::Binom, a, b);
      }
    }
    return opaque();
  }

  std::uint32_t go(std::uint32_t i) {
    const Node& n = ast.at(i);
    switch (n.kind) {
      case Kind::Number: {
        auto q = parse_decimal(n.text);
        return constant(q ? q->to_double() : literal_to_double(n.text));
      }
      case Kind::Symbol:
        return var(n.text);
      case Kind::Const:
        if (n.text == "pi") return constant(3.14159265358979323846);
        if (n.text == "E") return constant(2.71828182845904523536);
        if (n.text == "I") {
          prog.complex_constants = true;
          return constant(0, 1);
        }
        return constant(std::numeric_limits<double>::infinity());
      case Kind::Add: {
        std::uint32_t acc = 0;
        bool first = true;
        for (std::uint32_t k : n.kids) {
          const Node& c = ast.at(k);
          if (!first && c.kind == Kind::Neg) {
            std::uint32_t v = go(c.kids[0]);
            acc = bin(Op::Sub, acc, v);
          } else {
            std::uint32_t v = go(k);
            acc = first ? v : bin(Op::Add, acc, v);
          }
          first = false;
        }
        return acc;
      }
      case Kind::Mul: {
        std::uint32_t acc = go(n.kids[0]);
        for (std::size_t k = 1; k < n.kids.size(); ++k) {
          std::uint32_t v = go(n.kids[k]);
          acc = bin(Op::Mul, acc, v);
        }
        return acc;
      }
      case Kind::Neg:
        return un(Op::Neg, go(n.kids[0]));
      case Kind::Div: {
        std::uint32_t a = go(n.kids[0]);
        std::uint32_t b = go(n.kids[1]);
        return bin(Op::Div, a, b);
      }
      case Kind::Pow: {
        auto e = exact(ast, n.kids[1]);
        if (e && e->den == 1 && e->num >= -64 && e->num <= 64) {
          Instr in{Op::PowInt};
          in.a = go(n.kids[0]);
          in.re = static_cast<double>(e->num);
          return emit(in);
        }
        if (e && e->den == 2 && e->num == 1) return un(Op::Sqrt, go(n.kids[0]));
        std::uint32_t a = go(n.kids[0]);
        std::uint32_t b = go(n.kids[1]);
        return bin(Op::Pow, a, b);
      }
      case Kind::Func:
        return func(n);
      case Kind::Factorial:
        prog.analytic = false;
        return un(Op::Factorial, go(n.kids[0]));
      case Kind::Abs:
        prog.analytic = false;
        return un(Op::Abs, go(n.kids[0]));
      case Kind::Percent: {
        std::uint32_t x = go(n.kids[0]);
        return bin(Op::Mul, x, constant(0.01));
      }
      case Kind::Degree: {
        std::uint32_t x = go(n.kids[0]);
        return bin(Op::Mul, x, constant(3.14159265358979323846 / 180.0));
      }
      default:
        return opaque();
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Kernels

double r_factorial(double x) { return std::tgamma(x + 1.0); }
std::complex<double> r_factorial(std::complex<double> x) {
  if (x.imag() != 0) return {std::nan(""), 0};
  return std::tgamma(x.real() + 1.0);
}
double r_floor(double x) { return std::floor(x); }
std::complex<double> r_floor(std::complex<double> x) {
  if (x.imag() != 0) return {std::nan(""), 0};
  return std::floor(x.real());
}
double r_ceil(double x) { return std::ceil(x); }
std::complex<double> r_ceil(std::complex<double> x) {
  if (x.imag() != 0) return {std::nan(""), 0};
  return std::ceil(x.real());
}
double r_abs(double x) { return std::fabs(x); }
std::complex<double> r_abs(std::complex<double> x) { return std::abs(x); }
double r_binom(double n, double k) {
  if (k == std::floor(k) && n == std::floor(n) && n >= 0) {
    if (k < 0 || k > n) return 0;
    return std::round(std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)));
  }
  return std::tgamma(n + 1) / (std::tgamma(k + 1) * std::tgamma(n - k + 1));
}
std::complex<double> r_binom(std::complex<double> n, std::complex<double> k) {
  if (n.imag() != 0 || k.imag() != 0) return {std::nan(""), 0};
  return r_binom(n.real(), k.real());
}
template <typename T>
T powi(T x, int e) {
  bool neg = e < 0;
  unsigned u = static_cast<unsigned>(neg ? -e : e);
  T r = T(1);
  T b = x;
  while (u) {
    if (u & 1) r *= b;
    u >>= 1;
    if (u) b *= b;
  }
  return neg ? T(1) / r : r;
}
double r_root(double x, double k) { return std::pow(x, 1.0 / k); }
std::complex<double> r_root(std::complex<double> x, std::complex<double> k) {
  return std::pow(x, std::complex<double>(1.0) / k);
}
double r_sqrt(double x) { return std::sqrt(x); }
std::complex<double> r_sqrt(std::complex<double> x) { return std::sqrt(x); }

/// Signed zeros pick the branch of a multivalued function: sqrt(-4 - 0i) is -2i. SymPy's
/// principal values are those of +0 (sqrt(-4) = 2i, log(-1) = i*pi), so -0 is made +0.
inline double unsign_zero(double v) { return v == 0 ? 0.0 : v; }
inline std::complex<double> unsign_zero(std::complex<double> z) {
  return {unsign_zero(z.real()), unsign_zero(z.imag())};
}
template <typename T>
T branch_arg(T z) {
  if constexpr (std::is_same_v<T, std::complex<double>>) return unsign_zero(z);
  return z;
}

template <typename T>
void kernel(const Instr& in, T* r, const T* a, const T* b, std::size_t m) {
  switch (in.op) {
    case Op::Add: for (std::size_t j = 0; j < m; ++j) r[j] = a[j] + b[j]; break;
    case Op::Sub: for (std::size_t j = 0; j < m; ++j) r[j] = a[j] - b[j]; break;
    case Op::Mul: for (std::size_t j = 0; j < m; ++j) r[j] = a[j] * b[j]; break;
    case Op::Div: for (std::size_t j = 0; j < m; ++j) r[j] = a[j] / b[j]; break;
    case Op::Pow: for (std::size_t j = 0; j < m; ++j) r[j] = std::pow(branch_arg(a[j]), b[j]); break;
    case Op::PowInt: {
      const int e = static_cast<int>(in.re);
      if (e == 2) {
        for (std::size_t j = 0; j < m; ++j) r[j] = a[j] * a[j];
      } else if (e == 3) {
        for (std::size_t j = 0; j < m; ++j) r[j] = a[j] * a[j] * a[j];
      } else if (e == 1) {
        for (std::size_t j = 0; j < m; ++j) r[j] = a[j];
      } else if (e == -1) {
        for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / a[j];
      } else {
        for (std::size_t j = 0; j < m; ++j) r[j] = powi(a[j], e);
      }
      break;
    }
    case Op::Neg: for (std::size_t j = 0; j < m; ++j) r[j] = -a[j]; break;
    case Op::Sin: for (std::size_t j = 0; j < m; ++j) r[j] = std::sin(a[j]); break;
    case Op::Cos: for (std::size_t j = 0; j < m; ++j) r[j] = std::cos(a[j]); break;
    case Op::Tan: for (std::size_t j = 0; j < m; ++j) r[j] = std::tan(a[j]); break;
    case Op::Sec: for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / std::cos(a[j]); break;
    case Op::Csc: for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / std::sin(a[j]); break;
    case Op::Cot: for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / std::tan(a[j]); break;
    case Op::Asin: for (std::size_t j = 0; j < m; ++j) r[j] = std::asin(branch_arg(a[j])); break;
    case Op::Acos: for (std::size_t j = 0; j < m; ++j) r[j] = std::acos(branch_arg(a[j])); break;
    case Op::Atan: for (std::size_t j = 0; j < m; ++j) r[j] = std::atan(branch_arg(a[j])); break;
    case Op::Asec: for (std::size_t j = 0; j < m; ++j) r[j] = std::acos(branch_arg(T(1) / a[j])); break;
    case Op::Acsc: for (std::size_t j = 0; j < m; ++j) r[j] = std::asin(branch_arg(T(1) / a[j])); break;
    case Op::Acot: for (std::size_t j = 0; j < m; ++j) r[j] = std::atan(branch_arg(T(1) / a[j])); break;
    case Op::Sinh: for (std::size_t j = 0; j < m; ++j) r[j] = std::sinh(a[j]); break;
    case Op::Cosh: for (std::size_t j = 0; j < m; ++j) r[j] = std::cosh(a[j]); break;
    case Op::Tanh: for (std::size_t j = 0; j < m; ++j) r[j] = std::tanh(a[j]); break;
    case Op::Asinh: for (std::size_t j = 0; j < m; ++j) r[j] = std::asinh(branch_arg(a[j])); break;
    case Op::Acosh: for (std::size_t j = 0; j < m; ++j) r[j] = std::acosh(branch_arg(a[j])); break;
    case Op::Atanh: for (std::size_t j = 0; j < m; ++j) r[j] = std::atanh(branch_arg(a[j])); break;
    case Op::Exp: for (std::size_t j = 0; j < m; ++j) r[j] = std::exp(a[j]); break;
    case Op::Log: for (std::size_t j = 0; j < m; ++j) r[j] = std::log(branch_arg(a[j])); break;
    case Op::LogBase: for (std::size_t j = 0; j < m; ++j) r[j] = std::log(branch_arg(a[j])) / std::log(branch_arg(b[j])); break;
    case Op::Sqrt: for (std::size_t j = 0; j < m; ++j) r[j] = r_sqrt(branch_arg(a[j])); break;
    case Op::Root: for (std::size_t j = 0; j < m; ++j) r[j] = r_root(branch_arg(a[j]), b[j]); break;
    case Op::Abs: for (std::size_t j = 0; j < m; ++j) r[j] = r_abs(a[j]); break;
    case Op::Factorial: for (std::size_t j = 0; j < m; ++j) r[j] = r_factorial(a[j]); break;
    case Op::Floor: for (std::size_t j = 0; j < m; ++j) r[j] = r_floor(a[j]); break;
    case Op::Ceil: for (std::size_t j = 0; j < m; ++j) r[j] = r_ceil(a[j]); break;
    case Op::Binom: for (std::size_t j = 0; j < m; ++j) r[j] = r_binom(a[j], b[j]); break;
    default: for (std::size_t j = 0; j < m; ++j) r[j] = T(std::nan("")); break;
  }
}

template <typename T>
T make_const(const Instr& in);
template <>
double make_const<double>(const Instr& in) {
  return in.im == 0 ? in.re : std::nan("");
}
template <>
std::complex<double> make_const<std::complex<double>>(const Instr& in) {
  return {in.re, in.im};
}

constexpr std::size_t kBlock = 256;

int arity(Op op) {
  switch (op) {
    case Op::Const: case Op::Var: case Op::Nan: return 0;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Pow: case Op::LogBase:
    case Op::Root: case Op::Binom: return 2;
    default: return 1;
  }
}

/// Every value of a tree program is used exactly once, so an operand's register is free as
/// soon as its user runs (kernels are elementwise, so the result may overwrite an operand).
/// The register count is then bounded by the tree's depth, not its size.
void allocate_registers(Program& prog) {
  std::vector<std::uint32_t> free_regs;
  prog.reg.assign(prog.code.size(), 0);
  prog.n_regs = 0;
  for (std::size_t k = 0; k < prog.code.size(); ++k) {
    const Instr& in = prog.code[k];
    const int n = arity(in.op);
    if (n >= 1) free_regs.push_back(prog.reg[in.a]);
    if (n >= 2) free_regs.push_back(prog.reg[in.b]);
    if (free_regs.empty()) {
      prog.reg[k] = prog.n_regs++;
    } else {
      prog.reg[k] = free_regs.back();
      free_regs.pop_back();
    }
  }
}

template <typename T>
void run_impl(const Program& prog, const std::vector<const T*>& inputs, const std::vector<std::size_t>& strides,
              std::size_t n, T* out) {
  const std::size_t nc = prog.code.size();
  if (nc == 0) {
    for (std::size_t j = 0; j < n; ++j) out[j] = T(std::nan(""));
    return;
  }
  std::vector<T> regs(static_cast<std::size_t>(prog.n_regs) * kBlock);
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t m = std::min(kBlock, n - begin);
    for (std::size_t k = 0; k < nc; ++k) {
      const Instr& in = prog.code[k];
      T* r = regs.data() + static_cast<std::size_t>(prog.reg[k]) * kBlock;
      if (in.op == Op::Const) {
        const T c = make_const<T>(in);
        for (std::size_t j = 0; j < m; ++j) r[j] = c;
      } else if (in.op == Op::Var) {
        const bool have = in.a < inputs.size() && inputs[in.a] != nullptr;
        if (!have) {
          for (std::size_t j = 0; j < m; ++j) r[j] = T(std::nan(""));
        } else if (strides[in.a] == 0) {
          const T v = inputs[in.a][0];
          for (std::size_t j = 0; j < m; ++j) r[j] = v;
        } else {
          const T* src = inputs[in.a] + begin;
          for (std::size_t j = 0; j < m; ++j) r[j] = src[j];
        }
      } else {
        const int n_args = arity(in.op);
        const T* a = regs.data() + static_cast<std::size_t>(n_args >= 1 ? prog.reg[in.a] : 0) * kBlock;
        const T* b = regs.data() + static_cast<std::size_t>(n_args >= 2 ? prog.reg[in.b] : 0) * kBlock;
        kernel<T>(in, r, a, b, m);
      }
    }
    const T* res = regs.data() + static_cast<std::size_t>(prog.reg[nc - 1]) * kBlock;
    std::copy(res, res + m, out + begin);
  }
}

}  // namespace

Program compile(const Ast& ast, std::uint32_t node, std::vector<std::string> vars) {
  Program prog;
  prog.vars = std::move(vars);
  Compiler c{ast, prog};
  c.go(node);
  allocate_registers(prog);
  return prog;
}

void run(const Program& prog, const std::vector<const double*>& inputs, const std::vector<std::size_t>& strides,
         std::size_t n, double* out) {
  run_impl<double>(prog, inputs, strides, n, out);
}

void run(const Program& prog, const std::vector<const std::complex<double>*>& inputs,
         const std::vector<std::size_t>& strides, std::size_t n, std::complex<double>* out) {
  run_impl<std::complex<double>>(prog, inputs, strides, n, out);
}

namespace {

using Cx = std::complex<double>;
constexpr double kEps = 2.220446049250313e-16;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Distance from z to the negative real axis (the cut of sqrt, log and non-integer powers).
double to_negative_axis(Cx z) { return z.real() <= 0 ? std::fabs(z.imag()) : std::abs(z); }
/// Distance from z to the real axis outside [lo, hi] (asin, acos, atanh: [-1, 1]).
double to_real_rays(Cx z, double lo, double hi) {
  if (z.real() <= lo || z.real() >= hi) return std::fabs(z.imag());
  return std::min(std::abs(z - Cx(lo, 0)), std::abs(z - Cx(hi, 0)));
}
/// Distance from z to the imaginary axis beyond +-i (atan, asinh).
double to_imaginary_rays(Cx z) {
  if (std::fabs(z.imag()) >= 1) return std::fabs(z.real());
  return std::min(std::abs(z - Cx(0, 1)), std::abs(z + Cx(0, 1)));
}

/// An argument whose error disk touches the cut: the branch taken is not determined.
/// (An exact argument, error 0, is on its principal branch even when it lies on the cut.)
bool straddles(double distance, double err) { return err > 0 && distance <= 8 * err; }

}  // namespace

void run_bounded(const Program& prog, const std::vector<const Cx*>& inputs, std::size_t n, Cx* out,
                 double* error, unsigned char* near_cut) {
  const std::size_t nc = prog.code.size();
  std::vector<Cx> v(nc);
  std::vector<double> e(nc);
  std::vector<unsigned char> cut(nc);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < nc; ++k) {
      const Instr& in = prog.code[k];
      Cx r;
      double err = 0;
      unsigned char c = 0;
      if (in.op == Op::Const) {
        r = Cx(in.re, in.im);
        // integers below 2^53 (and i) are exact; pi, e and decimals carry one rounding
        const bool exact = in.re == std::round(in.re) && std::fabs(in.re) < 9007199254740992.0 &&
                           in.im == std::round(in.im);
        err = exact ? 0 : kEps * std::abs(r);
      } else if (in.op == Op::Var) {
        r = in.a < inputs.size() && inputs[in.a] != nullptr ? inputs[in.a][j] : Cx(std::nan(""), 0);
      } else {
        const Cx a = v[in.a];
        const Cx b = v[in.b];
        const double ea = e[in.a], eb = e[in.b];
        c = cut[in.a] | cut[in.b];
        kernel<Cx>(in, &r, &a, &b, 1);
        const double ar = std::abs(r), aa = std::abs(a), ab = std::abs(b);
        const double own = 4 * kEps * ar;  // the operation's own rounding (libm: a few ulp)
        switch (in.op) {
          case Op::Add: case Op::Sub: err = ea + eb + kEps * ar; break;
          case Op::Mul: err = ab * ea + aa * eb + ea * eb + kEps * ar; break;
          case Op::Div: err = ab > eb ? (ea + ar * eb) / (ab - eb) + kEps * ar : kInf; break;
          case Op::Neg: err = ea; break;
          case Op::PowInt: {
            const double m = std::fabs(in.re);
            if (aa > ea) {
              err = ar * (std::pow(1 + ea / aa, m) - 1) + m * kEps * ar;
              if (in.re < 0) err = ar * (std::pow(1 - ea / aa, -m) - 1) + m * kEps * ar;
            } else {
              err = in.re > 0 ? std::pow(aa + ea, m) + ar : kInf;
            }
            break;
          }
          case Op::Pow:
            err = aa > ea ? ar * (std::abs(b) * ea / (aa - ea) + std::abs(std::log(a)) * eb) + own : kInf;
            if (!(b.imag() == 0 && b.real() == std::round(b.real())) || eb > 0) {
              if (straddles(to_negative_axis(a), ea)) c = 1;
            }
            break;
          case Op::Sqrt:
            err = ar > 0 ? ea / (2 * ar) + own : std::sqrt(ea);
            if (straddles(to_negative_axis(a), ea)) c = 1;
            break;
          case Op::Root:
            err = aa > ea && ab > 0 ? ar * ea / (ab * (aa - ea)) + own : kInf;
            if (straddles(to_negative_axis(a), ea)) c = 1;
            break;
          case Op::Exp: err = ar * ea * (1 + ea) + own; break;
          case Op::Log:
            err = aa > ea ? ea / (aa - ea) + own + 4 * kEps : kInf;
            if (straddles(to_negative_axis(a), ea)) c = 1;
            break;
          case Op::LogBase: {
            const Cx la = std::log(a), lb = std::log(b);
            const double ela = aa > ea ? ea / (aa - ea) + 4 * kEps * (std::abs(la) + 1) : kInf;
            const double elb = ab > eb ? eb / (ab - eb) + 4 * kEps * (std::abs(lb) + 1) : kInf;
            const double alb = std::abs(lb);
            err = alb > elb ? (ela + ar * elb) / (alb - elb) + own : kInf;
            if (straddles(to_negative_axis(a), ea) || straddles(to_negative_axis(b), eb)) c = 1;
            break;
          }
          case Op::Sin: err = std::abs(std::cos(a)) * ea + own + kEps; break;
          case Op::Cos: err = std::abs(std::sin(a)) * ea + own + kEps; break;
          case Op::Tan: err = std::abs(Cx(1) + r * r) * ea + own + kEps; break;
          case Op::Sec: err = std::abs(r * std::tan(a)) * ea + own; break;
          case Op::Csc: err = std::abs(r / std::tan(a)) * ea + own; break;
          case Op::Cot: err = std::abs(Cx(1) + r * r) * ea + own + kEps; break;
          case Op::Sinh: err = std::abs(std::cosh(a)) * ea + own + kEps; break;
          case Op::Cosh: err = std::abs(std::sinh(a)) * ea + own + kEps; break;
          case Op::Tanh: err = std::abs(Cx(1) - r * r) * ea + own + kEps; break;
          case Op::Asin: case Op::Acos:
            err = ea / std::abs(std::sqrt(Cx(1) - a * a)) + own + kEps;
            if (straddles(to_real_rays(a, -1, 1), ea)) c = 1;
            break;
          case Op::Atanh:
            err = ea / std::abs(Cx(1) - a * a) + own + kEps;
            if (straddles(to_real_rays(a, -1, 1), ea)) c = 1;
            break;
          case Op::Acosh:
            err = ea / std::abs(std::sqrt(a * a - Cx(1))) + own + kEps;
            if (straddles(to_real_rays(a, 1, kInf), ea)) c = 1;
            break;
          case Op::Atan: case Op::Asinh:
            err = ea / std::abs(in.op == Op::Atan ? Cx(1) + a * a : std::sqrt(a * a + Cx(1))) + own + kEps;
            if (straddles(to_imaginary_rays(a), ea)) c = 1;
            break;
          case Op::Asec: case Op::Acsc: case Op::Acot: {
            const Cx inv = Cx(1) / a;
            const double einv = aa > ea ? ea / (aa * (aa - ea)) : kInf;
            const Cx d = in.op == Op::Acot ? Cx(1) + inv * inv : std::sqrt(Cx(1) - inv * inv);
            err = einv / std::abs(d) + own + kEps;
            const double dist = in.op == Op::Acot ? to_imaginary_rays(inv) : to_real_rays(inv, -1, 1);
            if (straddles(dist, einv)) c = 1;
            break;
          }
          case Op::Abs: err = ea + kEps * ar; break;
          case Op::Floor: case Op::Ceil: {
            const double frac = std::fabs(a.real() - std::round(a.real()));
            err = frac <= ea ? kInf : 0;
            break;
          }
          case Op::Factorial: err = ar * ea * (std::log(aa + 2) + 2) + own; break;
          case Op::Binom: err = ar * (ea + eb) * (std::log(aa + 2) + 2) + own; break;
          default: err = kInf; break;
        }
      }
      if (!std::isfinite(r.real()) || !std::isfinite(r.imag()) || std::isnan(err)) err = kInf;
      v[k] = r;
      e[k] = err;
      cut[k] = c;
    }
    out[j] = nc ? v[nc - 1] : Cx(std::nan(""), 0);
    error[j] = nc ? e[nc - 1] : kInf;
    near_cut[j] = nc ? cut[nc - 1] : 0;
  }
}

}  // namespace rapidgrade::expr
