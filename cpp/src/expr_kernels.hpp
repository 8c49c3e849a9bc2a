// Elementwise kernels of the expression engine's register machine, shared by block evaluation
// (expr_compile.cpp) and the point-by-point evaluation with error bounds (expr_bounded.cpp).
#pragma once

#include <cmath>
#include <complex>
#include <cstddef>
#include <type_traits>

#include "rapidgrade/detail/special.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr::detail {

/// |z|: hypot's value (within an ulp) without its cost where the squares neither overflow nor
/// underflow, the exact |re| or |im| on an axis; hypot elsewhere. Error bounds and comparisons of
/// sampled values take a magnitude per operation.
inline double magnitude(std::complex<double> z) noexcept {
  const double re = z.real(), im = z.imag();
  if (im == 0) return std::fabs(re);
  if (re == 0) return std::fabs(im);
  const double squares = re * re + im * im;
  if (squares > 1e-300 && squares < 1e300) return std::sqrt(squares);
  return std::hypot(re, im);
}

inline double r_factorial(double x) { return std::tgamma(x + 1.0); }
inline std::complex<double> r_factorial(std::complex<double> x) {
  if (x.imag() != 0) return {std::nan(""), 0};
  return std::tgamma(x.real() + 1.0);
}
inline double r_floor(double x) { return std::floor(x); }
inline std::complex<double> r_floor(std::complex<double> x) {
  if (x.imag() != 0) return {std::nan(""), 0};
  return std::floor(x.real());
}
inline double r_ceil(double x) { return std::ceil(x); }
inline std::complex<double> r_ceil(std::complex<double> x) {
  if (x.imag() != 0) return {std::nan(""), 0};
  return std::ceil(x.real());
}
inline double r_abs(double x) { return std::fabs(x); }
inline std::complex<double> r_abs(std::complex<double> x) { return std::abs(x); }
// The larger and the smaller of two reals; nan propagates, and a complex operand off the real
// axis has no order (nan).
inline double r_max(double x, double y) { return x != x || y != y ? std::nan("") : (x < y ? y : x); }
inline double r_min(double x, double y) { return x != x || y != y ? std::nan("") : (x < y ? x : y); }
inline std::complex<double> r_max(std::complex<double> x, std::complex<double> y) {
  if (x.imag() != 0 || y.imag() != 0) return {std::nan(""), 0};
  return r_max(x.real(), y.real());
}
inline std::complex<double> r_min(std::complex<double> x, std::complex<double> y) {
  if (x.imag() != 0 || y.imag() != 0) return {std::nan(""), 0};
  return r_min(x.real(), y.real());
}
inline double r_binom(double n, double k) {
  if (k == std::floor(k) && n == std::floor(n) && n >= 0) {
    if (k < 0 || k > n) return 0;
    return std::round(std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1)));
  }
  return std::tgamma(n + 1) / (std::tgamma(k + 1) * std::tgamma(n - k + 1));
}
inline std::complex<double> r_binom(std::complex<double> n, std::complex<double> k) {
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
/// Real special functions (functions.hpp rows marked kRealOnly): a complex argument off the
/// real axis gives nan; Ci of a negative real is SymPy's Ci(|x|) + i*pi in complex mode.
template <double (*F)(double)>
std::complex<double> real_only(std::complex<double> z) {
  if (z.imag() != 0) return {std::nan(""), 0};
  return F(z.real());
}
inline double r_erf(double x) { return std::erf(x); }
inline double r_erfc(double x) { return std::erfc(x); }
inline double r_gamma(double x) { return std::tgamma(x); }
inline double r_si(double x) { return rapidgrade::detail::sine_integral(x); }
inline double r_ci(double x) { return rapidgrade::detail::cosine_integral(x); }
inline double r_ei(double x) { return rapidgrade::detail::exponential_integral(x); }
inline std::complex<double> r_erf(std::complex<double> z) { return real_only<r_erf>(z); }
inline std::complex<double> r_erfc(std::complex<double> z) { return real_only<r_erfc>(z); }
inline std::complex<double> r_gamma(std::complex<double> z) { return real_only<r_gamma>(z); }
inline std::complex<double> r_si(std::complex<double> z) { return real_only<r_si>(z); }
inline std::complex<double> r_ei(std::complex<double> z) { return real_only<r_ei>(z); }
inline std::complex<double> r_ci(std::complex<double> z) {
  if (z.imag() == 0 && z.real() < 0) return {r_ci(-z.real()), 3.14159265358979323846};
  return real_only<r_ci>(z);
}
inline double r_besselj(double n, double x) { return rapidgrade::detail::bessel_j(n, x); }
inline std::complex<double> r_besselj(std::complex<double> n, std::complex<double> x) {
  if (n.imag() != 0 || x.imag() != 0) return {std::nan(""), 0};
  return rapidgrade::detail::bessel_j(n.real(), x.real());
}
inline double r_root(double x, double k) { return std::pow(x, 1.0 / k); }
inline std::complex<double> r_root(std::complex<double> x, std::complex<double> k) {
  return std::pow(x, std::complex<double>(1.0) / k);
}
inline double r_sqrt(double x) { return std::sqrt(x); }
inline std::complex<double> r_sqrt(std::complex<double> x) { return std::sqrt(x); }

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
    case Op::kAdd:
      for (std::size_t j = 0; j < m; ++j) r[j] = a[j] + b[j];
      break;
    case Op::kSub:
      for (std::size_t j = 0; j < m; ++j) r[j] = a[j] - b[j];
      break;
    case Op::kMul:
      for (std::size_t j = 0; j < m; ++j) r[j] = a[j] * b[j];
      break;
    case Op::kDiv:
      for (std::size_t j = 0; j < m; ++j) r[j] = a[j] / b[j];
      break;
    case Op::kPow:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::pow(branch_arg(a[j]), b[j]);
      break;
    case Op::kPowInt: {
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
    case Op::kNeg:
      for (std::size_t j = 0; j < m; ++j) r[j] = -a[j];
      break;
    case Op::kSin:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::sin(a[j]);
      break;
    case Op::kCos:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::cos(a[j]);
      break;
    case Op::kTan:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::tan(a[j]);
      break;
    case Op::kSec:
      for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / std::cos(a[j]);
      break;
    case Op::kCsc:
      for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / std::sin(a[j]);
      break;
    case Op::kCot:
      for (std::size_t j = 0; j < m; ++j) r[j] = T(1) / std::tan(a[j]);
      break;
    case Op::kAsin:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::asin(branch_arg(a[j]));
      break;
    case Op::kAcos:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::acos(branch_arg(a[j]));
      break;
    case Op::kAtan:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::atan(branch_arg(a[j]));
      break;
    case Op::kAsec:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::acos(branch_arg(T(1) / a[j]));
      break;
    case Op::kAcsc:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::asin(branch_arg(T(1) / a[j]));
      break;
    case Op::kAcot:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::atan(branch_arg(T(1) / a[j]));
      break;
    case Op::kSinh:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::sinh(a[j]);
      break;
    case Op::kCosh:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::cosh(a[j]);
      break;
    case Op::kTanh:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::tanh(a[j]);
      break;
    case Op::kAsinh:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::asinh(branch_arg(a[j]));
      break;
    case Op::kAcosh:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::acosh(branch_arg(a[j]));
      break;
    case Op::kAtanh:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::atanh(branch_arg(a[j]));
      break;
    case Op::kExp:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::exp(a[j]);
      break;
    case Op::kLog:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::log(branch_arg(a[j]));
      break;
    case Op::kLogBase:
      for (std::size_t j = 0; j < m; ++j) r[j] = std::log(branch_arg(a[j])) / std::log(branch_arg(b[j]));
      break;
    case Op::kSqrt:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_sqrt(branch_arg(a[j]));
      break;
    case Op::kRoot:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_root(branch_arg(a[j]), b[j]);
      break;
    case Op::kAbs:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_abs(a[j]);
      break;
    case Op::kFactorial:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_factorial(a[j]);
      break;
    case Op::kFloor:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_floor(a[j]);
      break;
    case Op::kCeil:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_ceil(a[j]);
      break;
    case Op::kBinom:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_binom(a[j], b[j]);
      break;
    case Op::kErf:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_erf(a[j]);
      break;
    case Op::kErfc:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_erfc(a[j]);
      break;
    case Op::kSi:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_si(a[j]);
      break;
    case Op::kCi:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_ci(a[j]);
      break;
    case Op::kEi:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_ei(a[j]);
      break;
    case Op::kGamma:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_gamma(a[j]);
      break;
    case Op::kBesselJ:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_besselj(a[j], b[j]);
      break;
    case Op::kMax:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_max(a[j], b[j]);
      break;
    case Op::kMin:
      for (std::size_t j = 0; j < m; ++j) r[j] = r_min(a[j], b[j]);
      break;
    default:
      for (std::size_t j = 0; j < m; ++j) r[j] = T(std::nan(""));
      break;
  }
}

template <typename T>
T make_const(const Instr& in);
template <>
inline double make_const<double>(const Instr& in) {
  return in.im == 0 ? in.re : std::nan("");
}
template <>
inline std::complex<double> make_const<std::complex<double>>(const Instr& in) {
  return {in.re, in.im};
}

inline int arity(Op op) {
  switch (op) {
    case Op::kConst:
    case Op::kVar:
    case Op::kNan: return 0;
    case Op::kAdd:
    case Op::kSub:
    case Op::kMul:
    case Op::kDiv:
    case Op::kPow:
    case Op::kLogBase:
    case Op::kRoot:
    case Op::kBinom:
    case Op::kBesselJ:
    case Op::kMax:
    case Op::kMin: return 2;
    default: return 1;
  }
}

}  // namespace rapidgrade::expr::detail
