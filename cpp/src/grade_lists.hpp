// Lists in the grader (grade.cpp): what a gold list holds, and whether an answer is one of its
// values. Trees only, no text. Internal to the core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rapidgrade/expr.hpp"
#include "rapidgrade/grade.hpp"

namespace rapidgrade::grade::internal {

/// Whether the subtree at `root` is a scalar value with no unknown: numbers and constants under
/// arithmetic and functions, not a list, an interval, a relation, a symbol or words.
bool constant_scalar(const expr::Ast& tree, std::uint32_t root);

/// Whether the relation at `root` states the value of `name`: its first member is the name or a
/// function of that name ("f(n)=n", "x = 5"). A lone name read against it names the unknown and
/// states no value of it ("It follows that $f$ is the identity function.").
bool states_value_of(const expr::Ast& tree, std::uint32_t root, std::string_view name);

/// The number of values of a gold that is a list of n >= 2 (at most 16) constant scalar values,
/// a set or a tuple ("\{9, 10\}", "(2, 3)", "9, 10" (a set)), with the kind; 0 for any other
/// gold.
std::size_t gold_list_size(Answer& gold, expr::Kind& kind);

/// Whether the gold is a list, a set, a tuple or an interval: no single value (true for a gold
/// that does not parse: it is not known to be one value).
bool gold_is_list(Answer& gold);

/// Whether `pred` is one member of a gold that is a list, a set, a tuple or a union, at any depth:
/// one of its values, one of the tuples of a list or one of their values ("(27,20,13),
/// (18,20,22)" holds (18,20,22) and 22), one of the sets of a union ("(-\sqrt{11},-2) \cup
/// (\sqrt{11},9)" holds \sqrt{11}<x<9). At most 64 of the gold's members are compared.
bool one_of_gold_values(Answer& gold, Answer& pred, const Options& options);

/// Whether `pred`, an unmarked reading, has another shape than the gold, so that it more likely
/// is not the answer than a wrong one: a list of two or more values against one constant value
/// (a listing of what the gold counts: "so is $1,2,3,4,5$" against 12); against a gold that is no
/// constant value and no equation, an equation that gives a constant to a name of the gold ("for
/// $n=5$" against 2n^{2}-2n+1: an instance) or that sets names against a constant with no name
/// alone on a side and no function's value there ("$1+r^{4}=5$": an equation still to solve; not
/// a simplification, "-(a+3) = -a-3", whose last member is its result).
bool other_shape(Answer& gold, Answer& pred);

}  // namespace rapidgrade::grade::internal
