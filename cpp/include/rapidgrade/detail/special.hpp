// Real special functions of the expression engine (erf and gamma come from <cmath>). Each is
// computed by a series, continued fraction or quadrature with a fixed iteration cap, so every
// call is bounded; accuracy is a few ulp (Si, Ci, Ei) or, for besselj, an absolute error of a
// few ulp times the quadrature's node count or the asymptotic phase. libc++ has no std::expint / std::cyl_bessel_j, so these are
// written out rather than taken from the C++17 special math functions.
#pragma once

namespace rapidgrade::detail {

/// Sine integral Si(x) = int_0^x sin(t)/t dt. Odd; Si(inf) = pi/2.
double sine_integral(double x);
/// Cosine integral Ci(x) = gamma + ln x + int_0^x (cos t - 1)/t dt for x > 0 (nan for x < 0,
/// where SymPy's value is complex: Ci(|x|) + i*pi; -inf at 0).
double cosine_integral(double x);
/// Exponential integral Ei(x) (principal value; real for x < 0 too; -inf at 0).
double exponential_integral(double x);
/// Bessel function of the first kind J_n(x) for an integer order |n| <= 1000 (nan otherwise):
/// Hankel's asymptotic expansion for x >= max(1000, 4 n^2), else the trapezoidal rule on
/// Bessel's integral with about |n| + |x| nodes (nan beyond 10^5 nodes). 0 at x = +-inf.
double bessel_j(double n, double x);
/// Absolute rounding-error bound of bessel_j(n, x) (nodes or phase size times a few ulp).
double bessel_j_rounding(double n, double x);

}  // namespace rapidgrade::detail
