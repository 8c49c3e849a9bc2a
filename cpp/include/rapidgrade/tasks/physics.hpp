// Physical-reasoning answers: the normalize_answer flow (category + canonical value) and the
// number-and-unit reading that unit-aware grading builds on.
//
// All input is UTF-8 (invalid bytes are tolerated: only ASCII bytes and a few listed UTF-8
// sequences are compared). Every routine is a linear scanner (O(n) time, O(n) memory), no
// recursion, no std::regex, never throws for any input. The unit vocabulary is the one table
// detail/units.hpp; what a unit means (dimension, factor) is decided by pint in Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rapidgrade/extract.hpp"

namespace rapidgrade::physics {

/// The category of an answer string, in the order the flow tries them.
enum class Category : std::uint8_t { kNumber, kEquation, kPhysicalQuantity, kFormula, kText };

/// "number", "equation", "physical_quantity", "formula", "text".
const char* category_name(Category category) noexcept;

/// The result of normalize_answer.
struct Normalized {
  Category category = Category::kText;
  double number = 0.0;       // kNumber: the value
  std::string value;         // every other category: the canonical text
  bool needs_sympy = false;  // kEquation / kFormula with LaTeX patterns: `value` is the clean math
                             // that Python converts with latex2sympy (and keeps on failure)
};

/// The math content of an answer: delimiters $..$, $$..$$, \[..\], \(..\) removed wherever they
/// are; \boxed{..}, \fbox{..} and the text/math wrappers of detail/latex_vocab.hpp (\text,
/// \mathrm, ...) unwrapped where their braces balance; \; \, \: \! dropped; "\ " and '~' become a
/// space; trimmed. `had_latex` is true when any of that happened or a backslash command is left
/// ("\frac{a}{b}" has LaTeX patterns). E.g. "$-10^{4} \mathrm{A}/\mathrm{s}$" -> ("-10^{4} A/s",
/// true); "a + b" -> ("a + b", false). A command glued to what a removal leaves after it is kept
/// apart from it: "\mu\mathrm{C}" -> "\mu C". `spacing_as_space` (the quantity path): \, \; \:
/// are a space as LaTeX sets them, except between two digits ("1\,000" -> "1000"), so that
/// "m\,s^{-2}" stays two units. O(n).
struct MathContent {
  std::string text;
  bool had_latex = false;
};
MathContent extract_math_content(std::string_view s, bool spacing_as_space = false);

/// The normalize_answer flow (see python/rapidgrade/tasks/physics.py for the documented rules):
///  1. number: the answer without math delimiters and boxes is "\frac{a}{b}" (a, b decimal
///     numbers), an integer, a decimal or "p/q" -> kNumber. "\frac{2}{3}" -> 0.666...
///  2. gate: only answers starting (after whitespace) with $, $$, \[, \(, \boxed{, \frac{, \text{
///     or \mathrm{ go on; any other -> kText with inline math delimiters removed, trimmed, unless
///     that removal uncovers a gate ("\]\boxed{5}"): then the flow goes on from the uncovered text.
///  3. extract_math_content; '=' -> kEquation; a number (sign, digits, optional ^/** power or
///     "\times 10^{k}") followed by a unit of the unit table -> kPhysicalQuantity "{value} {unit}";
///     otherwise kFormula. Equation and formula values are the whitespace-collapsed clean math.
///  4. empty math content -> kText "".
/// O(n); never throws.
Normalized normalize_answer(std::string_view answer);

/// A unit text read by the unit grammar.
struct Unit {
  bool ok = false;      // the text (or, greedy, a prefix of it) is a unit of >= 1 factor
  std::size_t end = 0;  // bytes of the text read
  std::string pint;     // pint expression: "kilojoule * mole ** -1"
  std::string shown;    // the unit text read, whitespace collapsed: "kJ mol^{-1}"
  bool affine = false;  // a temperature with an offset (degree Celsius / Fahrenheit)
};

/// Reads a unit: factors (an optional SI prefix and a symbol of detail/units.hpp, or a
/// parenthesized group) separated by spaces, '*', '\cdot', '\times', '·'; '/' or "per" puts
/// every later factor (of the same group) in the denominator ("J/mol K" is J mol^-1 K^-1, "J/mol/K"
/// too); powers '^2', '^{-1}', '**2', '²', '⁻¹'; degree signs "^{\circ}C", "°C", "\circ F";
/// "\mu C", "µm", "k\Omega". `greedy`: read the longest prefix that is a unit (for "51 atm at
/// sea level"); else the whole text must be one. Groups nest at most 8 deep. O(n).
Unit parse_unit(std::string_view text, bool greedy);

/// A number (and what follows it) read from the start of a text.
struct Quantity {
  bool has_number = false;
  double value = 0.0;
  int sig_figs = 0;          // significant figures of the mantissa as written; 0 for a fraction
  Unit unit;                 // the unit after the number (ok == false: none)
  bool rest_is_unit = true;  // nothing but the unit follows the number
  std::size_t end = 0;       // bytes of the (Unicode-space-converted) text read: number and unit
};

/// Reads "{number} {unit}" from `text` (already clean: see extract_math_content). Numbers:
/// optional sign (also U+2212), digits with comma thousands groups, decimals, "1.5e3",
/// "5.07 \times 10^{1}", "3\cdot10^{-4}", "×10^5", a power "-10^{4}" (= -(10^4)), "\frac{a}{b}".
/// The unit is read greedily. O(n).
Quantity read_quantity(std::string_view text);

/// One side of a physics grading pair, as the core reads it.
struct Side {
  bool found = false;  // response: an answer was extracted
  extract::Method method = extract::Method::kAuto;
  std::string text;                     // the gold, or the extracted answer
  Category category = Category::kText;  // normalize_answer's category of `text`
  Quantity quantity;                    // number + unit read from the clean text
};

/// The gold side: the whole gold read as a quantity, and its category.
Side read_gold(std::string_view gold);

/// The response side: the final answer by the extraction cascade (extract::extract_answer),
/// read as a quantity; when the answer is only the last number of the text, the unit written
/// right after it in the response is read too ("... is 51 atm." -> 51, atm).
Side read_response(std::string_view response);

/// `value` as the shortest decimal that reads back to it ("-10000", "9.8", "1e-07").
std::string format_number(double value);

// ---- comparing a quantity gold with a response ------------------------------------------------

/// What a unit means, as pint says (the caller asks it; the core has no unit algebra):
/// value_in_base = scale * value + offset; `dimension` an id, equal for equal dimensions within
/// one batch. known == false: pint could not read the unit.
struct UnitMeaning {
  bool known = false;
  long long dimension = 0;
  double scale = 1.0;
  double offset = 0.0;
};

/// `value` in unit `source` expressed in unit `target` (same dimension; offsets applied).
double convert_unit(double value, const UnitMeaning& source, const UnitMeaning& target) noexcept;

struct QuantityOptions {
  double rel_tol = 1e-2;       // relative tolerance of the magnitudes (in the gold's unit)
  bool sig_figs = true;        // also equal at the response's significant figures (n >= 2)
  bool unit_required = false;  // a bare number against a gold with a unit is wrong
};

struct QuantityVerdict {
  bool correct = false;
  std::string reason;           // why, without the "quantity: " head ("within 0.5%", ...)
  std::optional<double> value;  // the response's magnitude in the gold's unit, when compared
};

/// A gold that is a number with (at most) a unit against the response's quantity: the rules of
/// the physics task (python/rapidgrade/tasks/physics.py, grade_physics_many): different
/// dimensions are wrong; same dimension: the magnitudes in the gold's unit within rel_tol, or
/// the gold rounded to the response's significant figures (sig_figs, n >= 2); a bare number is
/// compared in the gold's unit unless unit_required; a gold of 0 needs |value| <= 1e-12.
/// `gold_unit` / `response_unit`: the units' meanings (nullptr: the side has no unit). O(1).
QuantityVerdict compare_quantity(const Side& gold, const Side& response, const UnitMeaning* gold_unit,
                                 const UnitMeaning* response_unit, const QuantityOptions& options);

/// `value` printed as C's "%.{precision}g" (Python's f"{value:.{precision}g}").
std::string format_g(double value, int precision);

}  // namespace rapidgrade::physics
