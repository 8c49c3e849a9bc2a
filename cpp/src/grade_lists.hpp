// Lists in the grader (grade.cpp): what a gold list holds, and whether an answer is one of its
// values. Trees only, no text. Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rapidgrade/expr.hpp"
#include "rapidgrade/grade.hpp"

namespace rapidgrade::grade::internal {

/// Whether the subtree at `root` is a scalar value with no unknown: numbers and constants under
/// arithmetic and functions, not a list, an interval, a relation, a symbol or words.
bool constant_scalar(const expr::Ast& tree, std::uint32_t root);

/// The number of values of a gold that is a list of n >= 2 (at most 16) constant scalar values,
/// a set or a tuple ("\{9, 10\}", "(2, 3)", "9, 10" (a set)), with the kind; 0 for any other
/// gold.
std::size_t gold_list_size(Answer& gold, expr::Kind& kind);

/// Whether the gold is a list, a set, a tuple or an interval: no single value (true for a gold
/// that does not parse: it is not known to be one value).
bool gold_is_list(Answer& gold);

/// Whether `pred`, one value (no set, tuple or list), is one of the values of a gold that is a
/// list, a set or a tuple, or of the tuples of a list ("(27,20,13), (18,20,22)" holds 22). At
/// most 64 of the gold's values are compared.
bool one_of_gold_values(Answer& gold, Answer& pred, const Options& options);

}  // namespace rapidgrade::grade::internal
