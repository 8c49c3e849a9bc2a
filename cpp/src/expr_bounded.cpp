// Point-by-point evaluation with a rounding-error bound on every result and branch-cut flags:
// the bounded sampling that equivalence decides with (a gap beyond the bound is a difference).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "expr_kernels.hpp"
#include "rapidgrade/detail/spare.hpp"
#include "rapidgrade/detail/special.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {
namespace {

using namespace detail;
using rapidgrade::detail::Spare;

using Cx = std::complex<double>;
constexpr double kEps = 2.220446049250313e-16;
constexpr double kInf = std::numeric_limits<double>::infinity();
// Points that run_bounded evaluates together (its buffers hold this many values per
// instruction).
constexpr std::size_t kBoundedChunk = 64;

/// run_bounded's rows of values, error bounds and branch-cut flags, one row per instruction,
/// held as one spare buffer of the thread (capacity() counts bytes, for Spare's bound).
struct Rows {
  using value_type = unsigned char;
  std::vector<Cx> v;
  std::vector<double> e;
  std::vector<unsigned char> cut;
  void clear() noexcept {
    v.clear();
    e.clear();
    cut.clear();
  }
  std::size_t capacity() const noexcept {
    return v.capacity() * sizeof(Cx) + e.capacity() * sizeof(double) + cut.capacity();
  }
};

/// Distance from z to the negative real axis (the cut of sqrt, log and non-integer powers).
double to_negative_axis(Cx z) { return z.real() <= 0 ? std::fabs(z.imag()) : magnitude(z); }
/// Distance from z to the real axis outside [lo, hi] (asin, acos, atanh: [-1, 1]).
double to_real_rays(Cx z, double lo, double hi) {
  if (z.real() <= lo || z.real() >= hi) return std::fabs(z.imag());
  return std::min(magnitude(z - Cx(lo, 0)), magnitude(z - Cx(hi, 0)));
}
/// Distance from z to the imaginary axis beyond +-i (atan, asinh).
double to_imaginary_rays(Cx z) {
  if (std::fabs(z.imag()) >= 1) return std::fabs(z.real());
  return std::min(magnitude(z - Cx(0, 1)), magnitude(z + Cx(0, 1)));
}

/// An argument whose error disk touches the cut: the branch taken is not determined.
/// (An exact argument, error 0, is on its principal branch even when it lies on the cut.)
bool straddles(double distance, double err) { return err > 0 && distance <= 8 * err; }

/// Error bound of / powers, roots, exp, log and the integer functions (+ - * and negation have
/// theirs in run_arithmetic).
double arithmetic_error(const Instr& in, Cx a, Cx b, Cx r, double ea, double eb, unsigned char& c) {
  [[maybe_unused]] const double ar = magnitude(r);
  [[maybe_unused]] const double own = 4 * kEps * ar;  // the operation's own rounding (libm: a few ulp)
  // the operands' magnitudes, computed by the cases that use them
  [[maybe_unused]] const auto aa = [&a] { return magnitude(a); };
  [[maybe_unused]] const auto ab = [&b] { return magnitude(b); };
  (void)eb;  // not every operation has a second operand
  double err = kInf;
  switch (in.op) {
    case Op::kDiv: {
      const double mb = ab();
      err = mb > eb ? (ea + ar * eb) / (mb - eb) + kEps * ar : kInf;
      break;
    }
    case Op::kPowInt: {
      const double m = std::fabs(in.re);
      const double ma = aa();
      if (ea == 0) {
        err = m * kEps * ar;  // an exact operand: the terms below are ar * (1^m - 1) = 0
      } else if (ma > ea) {
        err = ar * (std::pow(1 + ea / ma, m) - 1) + m * kEps * ar;
        if (in.re < 0) err = ar * (std::pow(1 - ea / ma, -m) - 1) + m * kEps * ar;
      } else {
        err = in.re > 0 ? std::pow(ma + ea, m) + ar : kInf;
      }
      break;
    }
    case Op::kPow:
      if (const double ma = aa(); ma > ea) {
        err = ar * (magnitude(b) * ea / (ma - ea) + magnitude(std::log(a)) * eb) + own;
      }
      if (!(b.imag() == 0 && b.real() == std::round(b.real())) || eb > 0) {
        if (straddles(to_negative_axis(a), ea)) c = 1;
      }
      break;
    case Op::kSqrt:
      err = ar > 0 ? ea / (2 * ar) + own : std::sqrt(ea);
      if (straddles(to_negative_axis(a), ea)) c = 1;
      break;
    case Op::kRoot:
      if (const double ma = aa(), mb = ab(); ma > ea && mb > 0) err = ar * ea / (mb * (ma - ea)) + own;
      if (straddles(to_negative_axis(a), ea)) c = 1;
      break;
    case Op::kExp: err = ar * ea * (1 + ea) + own; break;
    case Op::kLog:
      if (const double ma = aa(); ma > ea) err = ea / (ma - ea) + own + 4 * kEps;
      if (straddles(to_negative_axis(a), ea)) c = 1;
      break;
    case Op::kLogBase: {
      const Cx la = std::log(a), lb = std::log(b);
      const double ma = aa(), mb = ab();
      const double ela = ma > ea ? ea / (ma - ea) + 4 * kEps * (magnitude(la) + 1) : kInf;
      const double elb = mb > eb ? eb / (mb - eb) + 4 * kEps * (magnitude(lb) + 1) : kInf;
      const double alb = magnitude(lb);
      err = alb > elb ? (ela + ar * elb) / (alb - elb) + own : kInf;
      if (straddles(to_negative_axis(a), ea) || straddles(to_negative_axis(b), eb)) c = 1;
      break;
    }
    case Op::kAbs: err = ea + kEps * ar; break;
    case Op::kMax:
    case Op::kMin: err = std::max(ea, eb); break;  // one operand, exactly: a slope of 1 at most
    case Op::kFloor:
    case Op::kCeil: {
      const double frac = std::fabs(a.real() - std::round(a.real()));
      err = frac <= ea ? kInf : 0;
      break;
    }
    case Op::kFactorial: err = ar * ea * (std::log(aa() + 2) + 2) + own; break;
    case Op::kBinom: err = ar * (ea + eb) * (std::log(aa() + 2) + 2) + own; break;
    default: err = kInf; break;
  }
  return err;
}

/// `e`, or an infinite bound where the value `r` is not finite or `e` is nan: the point is then
/// unusable. Without branches, so that it costs nothing in the loops that compute r and e.
inline double usable_bound(Cx r, double e) {
  constexpr double kMax = std::numeric_limits<double>::max();
  const int ok = static_cast<int>(std::fabs(r.real()) <= kMax) & static_cast<int>(std::fabs(r.imag()) <= kMax) &
                 static_cast<int>(e == e);
  return ok != 0 ? e : kInf;
}

/// The values and error bounds of + - * and negation, in one loop per instruction: most of the
/// instructions of a sampled polynomial or rational expression. A sum's bound is its operands'
/// plus its own rounding; a product's is |b| ea + |a| eb + ea eb plus its rounding, where an
/// operand known exactly (error 0) drops the terms it multiplies (0 wherever the result is
/// finite; where it is not, usable_bound makes the bound infinite anyway). Returns false for
/// every other operation, which takes the general path (op_error).
bool run_arithmetic(const Instr& in, Cx* r, const Cx* a, const Cx* b, const double* ea, const double* eb, double* er,
                    std::size_t m) {
  switch (in.op) {
    case Op::kAdd:
      for (std::size_t j = 0; j < m; ++j) {
        r[j] = a[j] + b[j];
        er[j] = usable_bound(r[j], ea[j] + eb[j] + kEps * magnitude(r[j]));
      }
      return true;
    case Op::kSub:
      for (std::size_t j = 0; j < m; ++j) {
        r[j] = a[j] - b[j];
        er[j] = usable_bound(r[j], ea[j] + eb[j] + kEps * magnitude(r[j]));
      }
      return true;
    case Op::kNeg:
      for (std::size_t j = 0; j < m; ++j) {
        r[j] = -a[j];
        er[j] = usable_bound(r[j], ea[j]);
      }
      return true;
    case Op::kMul:
      for (std::size_t j = 0; j < m; ++j) {
        r[j] = a[j] * b[j];
        const double from_a = ea[j] == 0 ? 0.0 : magnitude(b[j]) * ea[j];
        const double from_b = eb[j] == 0 ? 0.0 : magnitude(a[j]) * eb[j];
        er[j] = usable_bound(r[j], from_a + from_b + ea[j] * eb[j] + kEps * magnitude(r[j]));
      }
      return true;
    default: return false;
  }
}

/// Error bound of the trigonometric and hyperbolic functions and their inverses.
double trigonometric_error(const Instr& in, Cx a, Cx b, Cx r, double ea, double eb, unsigned char& c) {
  [[maybe_unused]] const double ar = magnitude(r);
  [[maybe_unused]] const double own = 4 * kEps * ar;  // the operation's own rounding (libm: a few ulp)
  // the operands' magnitudes, computed by the cases that use them
  [[maybe_unused]] const auto aa = [&a] { return magnitude(a); };
  [[maybe_unused]] const auto ab = [&b] { return magnitude(b); };
  (void)eb;  // not every operation has a second operand
  double err = kInf;
  switch (in.op) {
    case Op::kSin: err = magnitude(std::cos(a)) * ea + own + kEps; break;
    case Op::kCos: err = magnitude(std::sin(a)) * ea + own + kEps; break;
    case Op::kTan: err = magnitude(Cx(1) + r * r) * ea + own + kEps; break;
    case Op::kSec: err = magnitude(r * std::tan(a)) * ea + own; break;
    case Op::kCsc: err = magnitude(r / std::tan(a)) * ea + own; break;
    case Op::kCot: err = magnitude(Cx(1) + r * r) * ea + own + kEps; break;
    case Op::kSinh: err = magnitude(std::cosh(a)) * ea + own + kEps; break;
    case Op::kCosh: err = magnitude(std::sinh(a)) * ea + own + kEps; break;
    case Op::kTanh: err = magnitude(Cx(1) - r * r) * ea + own + kEps; break;
    case Op::kAsin:
    case Op::kAcos:
      err = ea / magnitude(std::sqrt(Cx(1) - a * a)) + own + kEps;
      if (straddles(to_real_rays(a, -1, 1), ea)) c = 1;
      break;
    case Op::kAtanh:
      err = ea / magnitude(Cx(1) - a * a) + own + kEps;
      if (straddles(to_real_rays(a, -1, 1), ea)) c = 1;
      break;
    case Op::kAcosh:
      err = ea / magnitude(std::sqrt(a * a - Cx(1))) + own + kEps;
      if (straddles(to_real_rays(a, 1, kInf), ea)) c = 1;
      break;
    case Op::kAtan:
    case Op::kAsinh:
      err = ea / magnitude(in.op == Op::kAtan ? Cx(1) + a * a : std::sqrt(a * a + Cx(1))) + own + kEps;
      if (straddles(to_imaginary_rays(a), ea)) c = 1;
      break;
    case Op::kAsec:
    case Op::kAcsc:
    case Op::kAcot: {
      const Cx inv = Cx(1) / a;
      const double ma = aa();
      const double einv = ma > ea ? ea / (ma * (ma - ea)) : kInf;
      const Cx d = in.op == Op::kAcot ? Cx(1) + inv * inv : std::sqrt(Cx(1) - inv * inv);
      err = einv / magnitude(d) + own + kEps;
      const double dist = in.op == Op::kAcot ? to_imaginary_rays(inv) : to_real_rays(inv, -1, 1);
      if (straddles(dist, einv)) c = 1;
      break;
    }
    default: err = kInf; break;
  }
  return err;
}

/// Error bound of the special functions (real axis only: elsewhere the value is nan).
double special_error(const Instr& in, Cx a, Cx b, Cx r, double ea, double eb, unsigned char& c) {
  [[maybe_unused]] const double ar = magnitude(r);
  [[maybe_unused]] const double own = 4 * kEps * ar;  // the operation's own rounding (libm: a few ulp)
  // the operands' magnitudes, computed by the cases that use them
  [[maybe_unused]] const auto aa = [&a] { return magnitude(a); };
  [[maybe_unused]] const auto ab = [&b] { return magnitude(b); };
  (void)eb;  // not every operation has a second operand
  double err = kInf;
  switch (in.op) {
    case Op::kErf:
    case Op::kErfc: err = 1.1283791670955126 * std::exp(-a.real() * a.real()) * ea + own + kEps; break;
    case Op::kSi: err = (aa() > 0 ? std::fabs(std::sin(a.real()) / a.real()) : 1.0) * ea + 4 * own + kEps; break;
    case Op::kCi:
    case Op::kEi: {
      // Ci' = cos(x)/x, Ei' = e^x/x: unbounded at 0
      const double ma = aa();
      const double slope = in.op == Op::kCi ? 1.0 / (ma - ea) : std::exp(ma + ea) / (ma - ea);
      err = ma > ea ? slope * ea + 4 * own + kEps : kInf;
      if (in.op == Op::kCi && straddles(to_negative_axis(a), ea)) c = 1;
      break;
    }
    case Op::kGamma: {
      // |Gamma'| = |Gamma psi| <= |Gamma| (log(|x| + 2) + 2 + 1/distance to the nearest pole)
      const double x = a.real();
      const double pole = x > 0 ? x : std::fabs(x - std::round(x));
      err = pole > ea ? ar * ea * (std::log(aa() + 2) + 2 + 1 / (pole - ea)) + 2 * own : kInf;
      break;
    }
    case Op::kBesselJ:  // J_n(x): |dJ/dx| <= 1; an inexact order is unusable
      err = ea > 0 ? kInf : eb + rapidgrade::detail::bessel_j_rounding(a.real(), b.real());
      break;
    default: err = kInf; break;
  }
  return err;
}

/// First-order error bound of one instruction's result r = op(a, b), from its operands' bounds
/// ea, eb: the operation's own rounding plus the propagation through its derivative. Sets `c`
/// when a multivalued function's argument straddles its branch cut.
double op_error(const Instr& in, Cx a, Cx b, Cx r, double ea, double eb, unsigned char& c) {
  if (in.op >= Op::kSin && in.op <= Op::kAtanh) return trigonometric_error(in, a, b, r, ea, eb, c);
  if (in.op >= Op::kErf && in.op <= Op::kBesselJ) return special_error(in, a, b, r, ea, eb, c);
  return arithmetic_error(in, a, b, r, ea, eb, c);
}

/// The ops whose error bound can set a point's near_cut flag (the `straddles` tests above: the
/// multivalued functions). Every other op only passes its operands' flags on.
bool may_straddle(Op op) noexcept {
  switch (op) {
    case Op::kPow:
    case Op::kSqrt:
    case Op::kRoot:
    case Op::kLog:
    case Op::kLogBase:
    case Op::kAsin:
    case Op::kAcos:
    case Op::kAtan:
    case Op::kAsec:
    case Op::kAcsc:
    case Op::kAcot:
    case Op::kAsinh:
    case Op::kAcosh:
    case Op::kAtanh:
    case Op::kCi: return true;
    default: return false;
  }
}

/// run_bounded (kBounds) and run_values: one loop, so that both give every point the same
/// value; without kBounds, `error` and `near_cut` are not written (and may be null).
template <bool kBounds>
void run_rows(const Program& prog, const std::vector<const Cx*>& inputs, std::size_t n, Cx* out, double* error,
              unsigned char* near_cut) {
  const std::size_t nc = prog.code.size();
  if (nc == 0) {
    for (std::size_t j = 0; j < n; ++j) {
      out[j] = Cx(std::nan(""), 0);
      if constexpr (kBounds) {
        error[j] = kInf;
        near_cut[j] = 0;
      }
    }
    return;
  }
  // Instruction by instruction over a chunk of points (row k holds instruction k's values at
  // the chunk's points): one dispatch per instruction and chunk, not per point; each point's
  // arithmetic is the same as evaluating it alone. Every bound goes through usable_bound as it
  // is computed.
  const std::size_t chunk = std::min(n, kBoundedChunk);
  // the rows in the thread's buffers, reused from run to run (every entry read is written first)
  Spare<Rows, Rows> rows;
  std::vector<Cx>& v = rows->v;
  std::vector<double>& e = rows->e;
  std::vector<unsigned char>& cut = rows->cut;
  v.resize(nc * chunk);
  if constexpr (kBounds) {
    e.resize(nc * chunk);
    cut.resize(nc * chunk);
  }
  for (std::size_t j0 = 0; j0 < n; j0 += chunk) {
    const std::size_t m = std::min(chunk, n - j0);
    for (std::size_t k = 0; k < nc; ++k) {
      const Instr& in = prog.code[k];
      Cx* r = v.data() + k * chunk;
      if (in.op == Op::kConst) {
        const Cx value(in.re, in.im);
        std::fill(r, r + m, value);
        if constexpr (kBounds) {
          // integers below 2^53 (and i) are exact; pi, e and decimals carry one rounding
          const bool exact =
              in.re == std::round(in.re) && std::fabs(in.re) < 9007199254740992.0 && in.im == std::round(in.im);
          const double err = usable_bound(value, exact ? 0 : kEps * magnitude(value));
          std::fill(e.data() + k * chunk, e.data() + k * chunk + m, err);
          std::fill(cut.data() + k * chunk, cut.data() + k * chunk + m, 0);
        }
      } else if (in.op == Op::kVar) {
        const Cx* x = in.a < inputs.size() ? inputs[in.a] : nullptr;
        for (std::size_t j = 0; j < m; ++j) r[j] = x != nullptr ? x[j0 + j] : Cx(std::nan(""), 0);
        if constexpr (kBounds) {
          double* er = e.data() + k * chunk;
          for (std::size_t j = 0; j < m; ++j) er[j] = usable_bound(r[j], 0.0);
          std::fill(cut.data() + k * chunk, cut.data() + k * chunk + m, 0);
        }
      } else {
        const Cx* a = v.data() + std::size_t{in.a} * chunk;
        const Cx* b = v.data() + std::size_t{in.b} * chunk;
        if constexpr (kBounds) {
          double* er = e.data() + k * chunk;
          unsigned char* cr = cut.data() + k * chunk;
          const double* ea = e.data() + std::size_t{in.a} * chunk;
          const double* eb = e.data() + std::size_t{in.b} * chunk;
          const unsigned char* ca = cut.data() + std::size_t{in.a} * chunk;
          const unsigned char* cb = cut.data() + std::size_t{in.b} * chunk;
          if (run_arithmetic(in, r, a, b, ea, eb, er, m)) {
            for (std::size_t j = 0; j < m; ++j) cr[j] = ca[j] | cb[j];
          } else {
            kernel<Cx>(in, r, a, b, m);
            for (std::size_t j = 0; j < m; ++j) {
              unsigned char c = ca[j] | cb[j];
              er[j] = usable_bound(r[j], op_error(in, a[j], b[j], r[j], ea[j], eb[j], c));
              cr[j] = c;
            }
          }
        } else {
          kernel<Cx>(in, r, a, b, m);  // + - * and negation as run_arithmetic computes them
        }
      }
    }
    const std::size_t last = (nc - 1) * chunk;
    std::copy(v.data() + last, v.data() + last + m, out + j0);
    if constexpr (kBounds) {
      std::copy(e.data() + last, e.data() + last + m, error + j0);
      std::copy(cut.data() + last, cut.data() + last + m, near_cut + j0);
    }
  }
}

}  // namespace

bool may_flag_near_cut(const Program& prog) noexcept {
  return std::any_of(prog.code.begin(), prog.code.end(), [](const Instr& in) { return may_straddle(in.op); });
}

void run_bounded(const Program& prog, const std::vector<const Cx*>& inputs, std::size_t n, Cx* out, double* error,
                 unsigned char* near_cut) {
  run_rows<true>(prog, inputs, n, out, error, near_cut);
}

void run_values(const Program& prog, const std::vector<const Cx*>& inputs, std::size_t n, Cx* out) {
  run_rows<false>(prog, inputs, n, out, nullptr, nullptr);
}

}  // namespace rapidgrade::expr
