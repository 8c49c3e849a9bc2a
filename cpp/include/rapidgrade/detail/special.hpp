// Real special functions of the expression engine (erf and gamma come from <cmath>). Each is
// computed by a series, continued fraction or quadrature with a fixed iteration cap, so every
// call is bounded; accuracy is a few ulp (Si, Ci, Ei) or a few ulp times the number of
// quadrature nodes (besselj). libc++ has no std::expint / std::cyl_bessel_j, so these are
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
/// Bessel function of the first kind J_n(x) for an integer order n (nan otherwise, and for
/// |n| > 10^4 or |x| > 10^5). Trapezoidal rule on Bessel's integral with nodes(n, x) points.
double bessel_j(double n, double x);
/// Quadrature nodes bessel_j uses (its rounding error is about nodes * 2^-52).
double bessel_j_nodes(double n, double x);

}  // namespace rapidgrade::detail
