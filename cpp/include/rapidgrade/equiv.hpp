// Equivalence of two parsed answers, in three-valued logic: TRUE and FALSE only when certain,
// UNKNOWN otherwise (the caller then asks SymPy).
#pragma once

#include <cstdint>
#include <string_view>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::equiv {

enum class Tri : std::uint8_t { kFalse = 0, kTrue = 1, kUnknown = 2 };

struct Options {
  double rel_tol = 1e-9;
  double abs_tol = 1e-12;
  /// Decimal places both sides are rounded to when either is a decimal literal; -1 means the
  /// precision rule: the gold's own number of decimals (6 when only the prediction is a decimal).
  int float_rounding = -1;
};

/// Decides whether `gold` and `pred` denote the same answer.
///
/// * numbers: exact rational comparison (checked 128-bit; overflow -> UNKNOWN); decimals per
///   the rounding rule above; `p%` matches `p/100` and `p`; `x^\circ` matches `x` and
///   `x*pi/180`;
/// * expressions with free symbols: evaluation at 32 seeded points (8 real, 24 complex,
///   magnitudes from 1/20 to 20); equal on at least 16 points, no point clearly different,
///   only analytic operations, and the same branches of every multivalued function on both
///   sides (sqrt/log/powers/inverse trig of equivalent arguments) -> TRUE; a difference at any
///   point far above the rounding error bound (propagated through every operation) -> FALSE;
///   otherwise UNKNOWN;
/// * tuples (ordered), sets (unordered, duplicates ignored), intervals (ends matter), unions,
///   matrices (shape and entries), equations (up to a nonzero factor), inequalities (up to a
///   positive factor, either direction), `x = 5` vs `5`, `a \pm b` as the set {a+b, a-b};
/// * text: equal after normalization -> TRUE, else FALSE; text against math -> UNKNOWN.
///
/// Work is O(tree size * 16) plus O(n*m) element matching for sets (capped at 64 elements).
/// Never throws on well-formed trees.
Tri equivalent(const expr::Ast& gold, const expr::Ast& pred, const Options& options = {});

/// Parses both strings (auto syntax) and compares; a parse error on either side is UNKNOWN.
Tri equivalent(std::string_view gold, std::string_view pred, const Options& options = {});

}  // namespace rapidgrade::equiv
