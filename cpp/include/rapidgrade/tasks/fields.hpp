// The key/value answer protocol for function-valued solutions ("fred-style" fields), as asked of
// models solving integral equations:
//
//   REASONING: ...
//   SOLUTION: u(x) = x^2 + 1
//   HAS_SOLUTION: yes
//   SOLUTION_TYPE: exact_symbolic
//
// Separate from the generic extractor (extract.hpp): the protocol belongs to that task, and the
// generic cascade never reads these keys. Offsets are bytes into the UTF-8 input; the bindings
// convert them to the caller's units. Line-based, O(n) time, no recursion, never throws except
// std::bad_alloc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rapidgrade/extract.hpp"

namespace rapidgrade::fields {

/// A part [start, end) of the input (the same type as extraction results).
using Range = extract::Range;

/// The values of the keys, each empty when the key is absent.
struct Fields {
  std::optional<Range> solution;
  std::optional<bool> has_solution;
  std::optional<std::string> solution_type;
  std::optional<Range> reasoning;
};

/// The values of SOLUTION_TYPE that are recognized (matched ignoring case, returned lower-case).
inline constexpr std::string_view kSolutionTypes[] = {"exact_symbolic",  "approx_coef", "series", "family",
                                                      "discrete_points", "regularized", "none"};

/// Reads the fields of `text`. `function` and `variable` name the unknown, e.g. "u" and "x" for
/// "u(x) = ...". A key may be decorated as markdown ("**SOLUTION:**", "- SOLUTION:", "# ...")
/// and have blanks before its ':'.
/// - solution: right-hand side of the last "SOLUTION: u(x) = ..." line; failing that of the last
///   "Solution: u(x) = ..." line (any other capitalization of the key); failing that of the last
///   line that is a bare "u(x) = ..." (optionally opened by $, $$, \( or \[). Trailing '.', '$',
///   "\)", "\]" and whitespace are removed.
/// - has_solution: from the last "HAS_SOLUTION: yes|no|true|false" or "SOLUTION_EXISTS: ..."
///   line; failing that, false when the text says "no solution exists" (any case).
/// - solution_type: the last "SOLUTION_TYPE: v" with v one of kSolutionTypes (lower-cased).
/// - reasoning: the text after the last "REASONING:" marker, up to the next line that starts with
///   one of the keys above, trimmed.
Fields extract_fields(std::string_view text, std::string_view function = "u", std::string_view variable = "x");

}  // namespace rapidgrade::fields
