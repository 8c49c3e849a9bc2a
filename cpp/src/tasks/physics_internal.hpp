// Internals shared by the physics task's two sources: physics_quantity.cpp (the number-and-unit
// grammar: numbers, units, read_quantity, parse_unit) and physics.cpp (the normalize_answer flow,
// read_gold, read_response). Private to cpp/src; not installed. Offsets are bytes of UTF-8 text;
// every routine is a linear scanner (O(n)) that never throws.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "rapidgrade/tasks/physics.hpp"

namespace rapidgrade::physics::internal {

// The Unicode spaces of detail/spaces.hpp, each read as ' ' by the quantity path.
std::string unicode_spaces_to_ascii(std::string_view s);

// Whitespace runs to one space, trimmed.
std::string collapse_spaces(std::string_view s);

struct NumberRead {
  bool ok = false;
  std::size_t end = 0;
  double value = 0.0;
  int sig_figs = 0;
};

// A number at s[i] as read_quantity documents it.
NumberRead read_number(std::string_view s, std::size_t i);

// The whole of `t` is a plain number of step 1: \frac{a}{b}, an integer, a decimal, or p/q.
std::optional<double> plain_number(std::string_view t);

// "\frac{a}{b}" in a unit text -> "a/b" (a, b without braces inside).
std::string unit_fracs(std::string_view s);

// The unit of the normalize_answer flow: the whole of `text` as one unit, its shown form (no
// pint spelling), the whole_only rows not read ("$2in$" is a formula, not 2 inches).
Unit read_shown_unit(std::string_view text);

}  // namespace rapidgrade::physics::internal
