// Partial credit for expressions: the expression edit distance (EED) score of PHYBench.
//
// Both sides are parsed (expr.hpp), rewritten into the form SymPy gives them (its automatic
// evaluation of sums, products and powers, its ordering of arguments, the powers of positive
// symbols split as PHYBench's posify + simplify leave them, common factors of sums taken out),
// turned into trees of four node kinds (number, symbol, operator, function), and compared by
// a Zhang-Shasha tree edit distance with PHYBench's costs: insert/delete/update per node kind
// and a discount for inserting or deleting a whole subtree. The distance relative to the gold's
// tree size maps to a score: 100 when the two are equal (the same tree, or equal values at
// sample points), else max(0, 60 - 100 * distance / size).
//
// Bounded: at most kMaxEedNodes nodes per side after rewriting, at most max_cells cells of the
// O(n*m) distance tables; past either, the pair scores 0 with status kTooLarge. Never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rapidgrade::eed {

/// Node kinds of the trees compared, in PHYBench's order.
enum class NodeKind : std::uint8_t { kNumber = 0, kSymbol = 1, kOperator = 2, kFunction = 3 };

/// The costs and the score map (defaults: PHYBench's EvaluationEEDSettings).
struct Config {
  double initial_score = 60.0;
  double scoring_slope = 100.0;
  double insert_cost[4] = {1.0, 1.0, 1.0, 1.0};  // by NodeKind
  double delete_cost[4] = {1.0, 1.0, 1.0, 1.0};
  double update_cost[4] = {1.0, 1.0, 1.0, 1.0};
  double change_type_cost = 1.0;
  double bar_size = 5.0;        // subtrees above this size are inserted/deleted at a discount
  double discount_slope = 0.6;  // cost of a subtree of size s: min(s, slope * (s - bar) + bar)
  /// Cells of one distance table (nodes of the answer x nodes of the gold) above which the
  /// distance is not computed (status kTooLarge, score 0): 2 tables of 8-byte cells.
  std::size_t max_cells = std::size_t{1} << 20;
};

/// Largest tree (nodes after rewriting) of either side.
constexpr std::size_t kMaxEedNodes = 2000;

enum class Status : std::uint8_t {
  kScored = 0,    // distance computed (score may be 0)
  kEqual,         // equal: score 100, distance 0
  kEmpty,         // the answer is empty: score 0
  kUnsupported,   // an integral or a sum (PHYBench scores 0), or a structure (tuple, set, ...)
  kTooLong,       // the answer is more than 3 times longer than the gold (PHYBench scores 0)
  kParseFailed,   // a side did not parse: score 0
  kTooLarge,      // past kMaxEedNodes or max_cells: score 0
  kUnitMismatch,  // set by the caller: the units have different dimensions
};

/// "scored", "equal", "empty", "unsupported", "too_long", "parse_failed", "too_large",
/// "unit_mismatch".
const char* status_name(Status status) noexcept;

/// The score of one pair, with PHYBench's fields.
struct Result {
  double score = 0.0;             // 0..100
  double relative_distance = -1;  // distance / tree_size; -1 when not computed
  double tree_size = -1;          // the gold's tree size (sum of insertion costs); -1: unknown
  double distance = -1;           // the tree edit distance; -1 when not computed
  Status status = Status::kScored;
  std::string gold_unit;    // pint expression of a unit written after the gold ("" none)
  std::string answer_unit;  // the same for the answer
};

/// A unit written at the end of an answer: `text` without it, and the unit (pint expression,
/// "" when there is none). A unit is taken only where it cannot be a symbol: in a text/roman
/// wrapper at the end (`\frac{mg}{2}\,\mathrm{N}`, `3\ \text{m/s}`), or after a plain number
/// (`9.8 m/s^2`). O(n).
struct Stripped {
  std::string text;
  std::string unit;
};
Stripped strip_unit(std::string_view text);

/// The EED score of `answer` against `gold` (LaTeX, or infix as latex2sympy also reads it).
/// Units written after either side are stripped (see strip_unit) and reported; `answer_scale`
/// multiplies the answer (a unit conversion factor decided by the caller; 1 = none).
/// O(n*m) time and memory in the tree sizes, bounded by config.max_cells.
Result score(std::string_view gold, std::string_view answer, const Config& config = {}, double answer_scale = 1.0);

/// The rewritten (SymPy-form) tree of an expression as nested text, labels as PHYBench writes
/// them: "operator_Mul(number_1/2, symbol_m, function_sin(symbol_theta_0))". For debugging and
/// tests; "" when the text does not parse.
std::string canonical_tree(std::string_view text);

}  // namespace rapidgrade::eed
