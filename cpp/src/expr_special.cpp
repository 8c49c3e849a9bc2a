// Real special functions: Si, Ci (Numerical Recipes' cisi: series below 2, Lentz's continued
// fraction for E1(ix) above), Ei (series, asymptotic series; E1 for negative x), Bessel J_n
// (trapezoidal rule, exact for trigonometric polynomials, on Bessel's integral). Every loop
// has a fixed cap.
#include "rapidgrade/detail/special.hpp"

#include <cmath>
#include <complex>
#include <limits>

namespace rapidgrade::detail {
namespace {

constexpr double kEuler = 0.57721566490153286061;
constexpr double kHalfPi = 1.57079632679489661923;
constexpr double kTwoPi = 6.28318530717958647692;
constexpr double kEps = 2.220446049250313e-16;
constexpr double kTiny = 1e-300;
constexpr int kMaxIter = 200;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

/// Si(t) and Ci(t) for t > 0.
void si_ci(double t, double& si, double& ci) {
  if (t > 2.0) {
    // E1(i t) by the continued fraction; Ci = -Re, Si = pi/2 + Im of exp(-i t) * fraction
    std::complex<double> b(1.0, t);
    std::complex<double> c(1.0 / kTiny, 0.0);
    std::complex<double> d = 1.0 / b;
    std::complex<double> h = d;
    for (int i = 2; i <= kMaxIter; ++i) {
      const double a = -static_cast<double>(i - 1) * (i - 1);
      b += 2.0;
      d = 1.0 / (a * d + b);
      c = b + a / c;
      const std::complex<double> del = c * d;
      h *= del;
      if (std::fabs(del.real() - 1.0) + std::fabs(del.imag()) < kEps) break;
    }
    h *= std::complex<double>(std::cos(t), -std::sin(t));
    ci = -h.real();
    si = kHalfPi + h.imag();
    return;
  }
  // power series: Si = sum (-1)^k t^(2k+1) / ((2k+1) (2k+1)!), Ci = gamma + ln t + sum ...
  double sum_s = 0, sum_c = 0, fact = 1;
  for (int k = 1; k <= kMaxIter; ++k) {
    fact *= t / k;
    const double term = fact / k;
    const int m = k % 4;  // odd k: Si terms (+, -); even k: Ci terms (-, +)
    if (m == 1) sum_s += term;
    if (m == 3) sum_s -= term;
    if (m == 2) sum_c -= term;
    if (m == 0) sum_c += term;
    if (term < kEps * std::fabs(k % 2 ? sum_s : sum_c)) break;
  }
  si = sum_s;
  ci = sum_c + std::log(t) + kEuler;
}

/// E1(x) for x > 0.
double e1(double x) {
  if (x > 1.0) {
    double b = x + 1.0, c = 1.0 / kTiny, d = 1.0 / b, h = d;
    for (int i = 1; i <= kMaxIter; ++i) {
      const double an = -static_cast<double>(i) * i;
      b += 2.0;
      d = 1.0 / (an * d + b);
      c = b + an / c;
      const double del = c * d;
      h *= del;
      if (std::fabs(del - 1.0) < kEps) break;
    }
    return h * std::exp(-x);
  }
  double ans = -std::log(x) - kEuler, fact = 1.0;
  for (int i = 1; i <= kMaxIter; ++i) {
    fact *= -x / i;
    const double del = -fact / i;
    ans += del;
    if (std::fabs(del) < std::fabs(ans) * kEps) break;
  }
  return ans;
}

}  // namespace

double sine_integral(double x) {
  if (std::isnan(x)) return kNan;
  if (std::isinf(x)) return x > 0 ? kHalfPi : -kHalfPi;
  if (x == 0) return x;
  double si = 0, ci = 0;
  si_ci(std::fabs(x), si, ci);
  return x < 0 ? -si : si;
}

double cosine_integral(double x) {
  if (std::isnan(x) || x < 0) return kNan;
  if (x == 0) return -kInf;
  if (std::isinf(x)) return 0.0;
  double si = 0, ci = 0;
  si_ci(x, si, ci);
  return ci;
}

double exponential_integral(double x) {
  if (std::isnan(x)) return kNan;
  if (x == 0) return -kInf;
  if (x < 0) return std::isinf(x) ? 0.0 : -e1(-x);
  if (std::isinf(x)) return kInf;
  if (x <= -std::log(kEps)) {  // power series, positive terms: Ei = gamma + ln x + sum x^k/(k k!)
    double sum = 0, fact = 1;
    for (int k = 1; k <= kMaxIter; ++k) {
      fact *= x / k;
      const double term = fact / k;
      sum += term;
      if (term < kEps * sum) break;
    }
    return sum + std::log(x) + kEuler;
  }
  // asymptotic series e^x/x * sum k!/x^k, stopped before the terms grow
  double sum = 0, term = 1;
  for (int k = 1; k <= kMaxIter; ++k) {
    const double prev = term;
    term *= k / x;
    if (term < kEps) break;
    if (term < prev) {
      sum += term;
    } else {
      sum -= prev;
      break;
    }
  }
  return std::exp(x) * (1.0 + sum) / x;
}

namespace {

constexpr double kMaxBesselOrder = 1000;
constexpr double kMaxBesselNodes = 1e5;

/// Hankel's asymptotic expansion (Abramowitz & Stegun 9.2.5) is accurate to the last bit for
/// x >= max(1000, 4 n^2): its terms shrink by at least 1/(2k) + k/(2x) each.
bool bessel_asymptotic(double n, double x) { return x >= 1000.0 && x >= 4.0 * n * n; }

/// J_n(x) for n, x >= 0 by Hankel's expansion: sqrt(2/(pi x)) (P cos chi - Q sin chi).
double bessel_j_hankel(double n, double x) {
  const double mu = 4.0 * n * n;
  double p = 1.0, q = 0.0, term = 1.0;
  for (int k = 1; k <= 60; ++k) {
    const double next = term * (mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * x);
    if (std::fabs(next) >= std::fabs(term) && k > 1) break;  // the series starts to diverge
    term = next;
    const int sign = (k / 2) % 2 == 0 ? 1 : -1;  // t1 +Q, t2 -P, t3 -Q, t4 +P, ...
    if (k % 2 == 1)
      q += sign * term;
    else
      p += sign * term;
    if (std::fabs(term) < kEps * 1e-2) break;
  }
  const double chi = x - (n / 2.0 + 0.25) * 3.14159265358979323846;
  return std::sqrt(2.0 / (3.14159265358979323846 * x)) * (p * std::cos(chi) - q * std::sin(chi));
}

/// Trapezoidal nodes for J_n(x) (0 when the asymptotic expansion is used).
double quadrature_nodes(double n, double x) {
  if (bessel_asymptotic(n, x)) return 0;
  return std::ceil(n + x + 20.0 * std::cbrt(x + 1.0) + 40.0);
}

}  // namespace

double bessel_j_rounding(double n, double x) {
  n = std::fabs(n);
  x = std::fabs(x);
  if (bessel_asymptotic(n, x)) return 4 * kEps * (x + 40.0);  // the phase x - (n/2 + 1/4) pi
  return 4 * kEps * (quadrature_nodes(n, x) + 8.0);
}

double bessel_j(double n, double x) {
  if (std::isnan(n) || std::isnan(x) || n != std::floor(n) || std::fabs(n) > kMaxBesselOrder || std::isinf(x)) {
    return std::isinf(x) && n == std::floor(n) && std::fabs(n) <= kMaxBesselOrder ? 0.0 : kNan;
  }
  // J_{-n} = (-1)^n J_n and J_n(-x) = (-1)^n J_n(x)
  const bool odd = std::fmod(std::fabs(n), 2.0) == 1.0;
  const double sign = odd && ((n < 0) != (x < 0)) ? -1.0 : 1.0;
  const double an = std::fabs(n), ax = std::fabs(x);
  if (bessel_asymptotic(an, ax)) return sign * bessel_j_hankel(an, ax);
  const double nodes = quadrature_nodes(an, ax);
  if (nodes > kMaxBesselNodes) return kNan;
  // J_n(x) = 1/(2 pi) int_0^{2 pi} cos(n t - x sin t) dt; the trapezoidal rule with M nodes
  // is off by J_{n +- M}(x) terms, negligible once M exceeds n + x by the transition width
  const int m = static_cast<int>(nodes);
  double sum = 0;
  for (int k = 0; k < m; ++k) {
    const double t = kTwoPi * k / m;
    sum += std::cos(an * t - ax * std::sin(t));
  }
  return sign * sum / m;
}

}  // namespace rapidgrade::detail
