// The physics task's comparison of a quantity gold with a response (physics.hpp:
// compare_quantity): units by their meaning (pint's, asked by the caller), then the magnitudes
// within a tolerance or at the response's significant figures.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rapidgrade/tasks/physics.hpp"

namespace rapidgrade::physics {
namespace {

// Python's f"{x * 100:.2g}%".
std::string percent(double rel) { return format_g(rel * 100, 2) + "%"; }

// Python's math.isclose(a, b, rel_tol=1e-9).
bool is_close(double a, double b) noexcept {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  const double diff = std::fabs(b - a);
  return diff <= std::fabs(1e-9 * b) || diff <= std::fabs(1e-9 * a);
}

// `value` rounded to `figures` significant figures, as C's "%.{figures-1}e" prints and reads it.
double round_to_figures(double value, int figures) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.*e", std::clamp(figures - 1, 0, 30), value);
  return n > 0 ? std::strtod(buf, nullptr) : value;
}

}  // namespace

std::string format_g(double value, int precision) {
  char buf[64];  // "%.{p}g" with p <= 30: at most a sign, 31 digits, a point and "e-308"
  const int n = std::snprintf(buf, sizeof buf, "%.*g", std::clamp(precision, 0, 30), value);
  return n > 0 ? std::string(buf, std::min(static_cast<std::size_t>(n), sizeof buf - 1)) : std::string();
}

double convert_unit(double value, const UnitMeaning& source, const UnitMeaning& target) noexcept {
  return (source.scale * value + source.offset - target.offset) / target.scale;
}

QuantityVerdict compare_quantity(const Side& gold, const Side& response, const UnitMeaning* gold_unit,
                                 const UnitMeaning* response_unit, const QuantityOptions& options) {
  QuantityVerdict v;
  const Quantity& g = gold.quantity;
  const Quantity& r = response.quantity;
  if (!response.found) {
    v.reason = "no answer found in the response";
    return v;
  }
  if (!r.has_number) {
    v.reason = "no number in the answer";
    return v;
  }
  std::string note;
  double value = r.value;
  bool both_units = false;
  if (gold_unit != nullptr && response_unit != nullptr) {
    if (!gold_unit->known || !response_unit->known) {
      v.reason = "unit not understood by pint: " + (gold_unit->known ? r.unit.shown : g.unit.shown);
      return v;
    }
    if (gold_unit->dimension != response_unit->dimension) {
      v.reason = "unit mismatch: " + r.unit.shown + " vs " + g.unit.shown;
      return v;
    }
    both_units = true;
    value = convert_unit(r.value, *response_unit, *gold_unit);
    if (g.unit.pint != r.unit.pint) note = " after " + r.unit.shown + "\xe2\x86\x92" + g.unit.shown;
  } else if (gold_unit != nullptr) {
    if (options.unit_required) {
      v.reason = "unit required: the answer has none (gold in " + g.unit.shown + ")";
      return v;
    }
    note = ", no unit in the answer: compared in " + g.unit.shown;
  } else if (response_unit != nullptr) {
    note = ", gold has no unit: " + r.unit.shown + " ignored";
  }
  v.value = value;
  if (g.value == 0.0) {
    v.correct = std::fabs(value) <= 1e-12;
    v.reason = v.correct ? "equal to 0" + note : "not 0 (" + format_g(value, 6) + ")" + note;
    return v;
  }
  const double rel = std::fabs(value - g.value) / std::fabs(g.value);
  if (rel <= options.rel_tol) {
    v.correct = true;
    v.reason = rel == 0 ? "equal" + note : "within " + percent(rel) + note;
    return v;
  }
  if (options.sig_figs && r.sig_figs >= 2) {
    // the gold rounded to the response's figures, in the response's own unit
    const double g_in_response = both_units ? convert_unit(g.value, *gold_unit, *response_unit) : g.value;
    const double rounded = g_in_response == 0.0 ? 0.0 : round_to_figures(g_in_response, r.sig_figs);
    if (is_close(rounded, r.value)) {
      v.correct = true;
      v.reason = "equal at " + std::to_string(r.sig_figs) + " significant figures" + note;
      return v;
    }
  }
  v.reason = "off by " + percent(rel) + note + " (tolerance " + percent(options.rel_tol) + ")";
  return v;
}

}  // namespace rapidgrade::physics
