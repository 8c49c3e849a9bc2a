// Equivalence of two parsed answers, in three-valued logic: TRUE and FALSE only when certain,
// UNKNOWN otherwise (the caller then asks SymPy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::equiv {

enum class Tri : std::uint8_t { kFalse = 0, kTrue = 1, kUnknown = 2 };

/// Default work budget of one comparison, in counted operations: one unit is one instruction
/// of a compiled expression at one sample point (or one node visited by an exact or structural
/// walk). Ordinary answers (up to thousands of nodes, sets of 64 elements) need well under a
/// tenth of it; a comparison that would need more is UNKNOWN (Limit::kWork) after about a
/// quarter of a second of work at most, whatever the input.
constexpr std::size_t kWorkBudget = std::size_t{1} << 23;

/// Why a comparison came out UNKNOWN when the cause is a limit, not a missing rule: the answer
/// is too costly to compare (kWork) or a value too large for exact or double arithmetic whose
/// magnitude does not settle the question (kMagnitude). The grader reports these as
/// decided_by="limit" instead of handing them to SymPy. kNoValue is no limit: one side is a
/// constant with no value at all (a function the grader does not know at a number, "f(0)";
/// words), the other a number; it stays UNKNOWN, and no proof can make it TRUE. Nor is
/// kLastMember: a response's equation chain whose last member differs from the gold's value
/// while a member before it (one with symbols: "x = 2a = 12") may be the answer; UNKNOWN, and the
/// fallback reads the last member only (math-verify takes an equation's last right side), which
/// the core has disproved. Nor is kGoldEquation: a gold equation whose left side holds a number
/// ("5x - y + 2 = 0", "a + 3z = 0") against a value; the value may be what that side equals
/// (UNKNOWN), and the fallback never reads it so (math-verify compares an equation with a value
/// only through an assignment's right side, an assignment's left side being symbols alone). Nor
/// is kCondition: a condition ("n \ge 5", "1 < x < 3") against a finite set or tuple of values
/// ("1, 2, 3, 4", "(1, 1), (3, 2)"); no reader proves them equal. Nor is kWords: words with no
/// digit ("obtained in the same way as above") against an expression in unknowns; either reader
/// of the fallback reads words as a product of letters, or not at all, and proves nothing.
enum class Limit : std::uint8_t {
  kNone = 0,
  kWork,
  kMagnitude,
  kNoValue,
  kLastMember,
  kGoldEquation,
  kCondition,
  kWords
};

struct Options {
  double rel_tol = 1e-9;
  double abs_tol = 1e-12;
  /// Decimal places both sides are rounded to when either is a decimal literal; -1 means the
  /// precision rule: the gold's own number of decimals (6 when only the prediction is a decimal).
  int float_rounding = -1;
  /// Counted operations one call may spend (kWorkBudget); past it the answer is UNKNOWN.
  std::size_t work_budget = kWorkBudget;
};

/// Decides whether `gold` and `pred` denote the same answer.
///
/// * the same tree on both sides (as a whole, or as elements, entries or sides being compared):
///   TRUE, before any rule below, whatever it holds (|x|, f(x), 0.33x, 34!);
/// * numbers: exact rational comparison (checked 128-bit; overflow -> UNKNOWN); decimals per
///   the rounding rule above; `p%` matches `p/100` and `p`; `x^\circ` matches `x` and
///   `x*pi/180`;
/// * expressions with free symbols: evaluation at 32 seeded points (8 real, 24 complex,
///   magnitudes from 1/20 to 20); equal on at least 16 points, no point clearly different,
///   only analytic operations, and the same branches of every multivalued function on both
///   sides (sqrt/log/powers/inverse trig of equivalent arguments) -> TRUE; a difference at any
///   point far above the rounding error bound (propagated through every operation) -> FALSE;
///   otherwise UNKNOWN;
/// * tuples (ordered), sets (unordered, duplicates ignored), intervals (ends matter), unions
///   (with constant ends: as sets of reals, merged into their largest disjoint intervals, so
///   "(1, 2) \cup [2, 3]" is "(1, 3]"), matrices (shape and entries), equations (up to a nonzero
///   factor), inequalities (up to a positive factor, either direction), `x = 5` vs `5`, `a \pm b`
///   as the set {a+b, a-b};
/// * text: equal after normalization -> TRUE, else FALSE; text against math -> UNKNOWN;
/// * values past the range of doubles (towers, factorials like (10^{10})!, numbers of
///   thousands of digits): their magnitudes, computed with logarithms, differ -> FALSE; the
///   same printed form or the same canonical form on both sides -> TRUE (exact subtrees folded
///   into their values, sums and products flattened and their operands ordered:
///   "10000000000!" and "(10^{10})!", "(10^{10})! + 1" and "1 + (10^{10})!"); otherwise UNKNOWN
///   with Limit::kMagnitude (different forms may still have one value).
///
/// Work is O(tree size * 16) plus O(n*m) element matching for sets (capped at 64 elements),
/// and never more than options.work_budget counted operations: past the budget the answer is
/// UNKNOWN with Limit::kWork. `limit` (optional) receives the reason of a limit's UNKNOWN
/// (kNone otherwise). Never throws on well-formed trees.
Tri equivalent(const expr::Ast& gold, const expr::Ast& pred, const Options& options = {}, Limit* limit = nullptr);

/// What equivalent() works out about one tree alone, whatever it is compared with: the sizes
/// of its subtrees, the values of its constant subtrees, and its subtrees compiled for a list
/// of variables with the sample points evaluated so far. A prepared gold keeps one beside
/// its tree (grade::Answer), so that these are computed once for all the answers compared
/// with it. It belongs to one tree, which must not change while it is used: equivalent()
/// starts it afresh when given a tree at another address or of another size.
class TreeFacts {
 public:
  TreeFacts() noexcept;
  ~TreeFacts();
  TreeFacts(TreeFacts&&) noexcept;
  TreeFacts& operator=(TreeFacts&&) noexcept;
  TreeFacts(const TreeFacts&) = delete;
  TreeFacts& operator=(const TreeFacts&) = delete;

  struct Impl;

 private:
  friend Impl& impl_of(TreeFacts& facts);
  std::unique_ptr<Impl> impl_;
};

/// equivalent(), keeping what it works out about `gold` alone in `gold_facts` (and reading it
/// from there when `gold_facts` was used with this tree before): the same result.
Tri equivalent(const expr::Ast& gold, const expr::Ast& pred, const Options& options, Limit* limit,
               TreeFacts& gold_facts);

/// Whether one tree applies, exactly once, a function with no definition (a name outside the
/// function table: "f(x)", "p(x) = \frac{(x-1)(x-2)}{6}", "E(n)") that the other tree does not
/// name at all, as a function or as a symbol, and that its own tree holds as no symbol either.
/// Such an application is a value no algebra knows: only the problem's definition of the
/// function could make the two answers equal, and one application cannot cancel out. Each tree
/// is walked once, without recursion; false when a tree applies more than 64 distinct undefined
/// functions. O(nodes * 64 + symbols log symbols).
bool undefined_function_apart(const expr::Ast& a, const expr::Ast& b);

/// Parses both strings (auto syntax) and compares; a parse error on either side is UNKNOWN.
Tri equivalent(std::string_view gold, std::string_view pred, const Options& options = {}, Limit* limit = nullptr);

}  // namespace rapidgrade::equiv
