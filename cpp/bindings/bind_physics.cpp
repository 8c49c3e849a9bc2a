// Bindings of rapidgrade::physics: the normalize_answer flow and the number-and-unit reading of
// grading pairs, one and many (the batch forms release the GIL through run_pipelined).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <unordered_map>

#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/detail/units.hpp"
#include "rapidgrade/physics.hpp"

namespace rapidgrade::bindings {
namespace {

using physics::Category;
using physics::Normalized;
using physics::Side;

py::tuple normalized_tuple(const Normalized& r) {
  py::object value = r.category == Category::kNumber ? py::object(py::float_(r.number)) : py::object(to_str(r.value));
  return py::make_tuple(py::str(physics::category_name(r.category)), std::move(value), py::bool_(r.needs_sympy));
}

py::tuple physics_normalize(const py::handle& s) {
  const Text text = as_text(s, "physics_normalize", "s");
  return normalized_tuple(physics::normalize_answer(text.utf8));
}

// (list of (category, value), indices of the rows whose value is clean math for SymPy). The
// category strs are created once per batch and shared by every row.
py::tuple physics_normalize_many(const py::handle& strings, const py::object& threads) {
  const unsigned n_threads = resolve_threads(threads, "physics_normalize_many");
  const std::vector<Text> texts = texts_of(strings, "physics_normalize_many", "strings");
  const std::size_t n = texts.size();
  std::vector<py::object> names;
  for (int c = 0; c <= static_cast<int>(Category::kText); ++c) {
    names.push_back(py::str(physics::category_name(static_cast<Category>(c))));
  }
  std::vector<Normalized> results(n);
  py::list out(n);
  py::list needs;
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) results[i] = physics::normalize_answer(texts[i].utf8);
      },
      [&](std::size_t i) {
        const Normalized& r = results[i];
        py::object value = r.category == Category::kNumber ? py::object(py::float_(r.number)) : py::object(to_str(r.value));
        set_item(out, i, py::make_tuple(names[static_cast<std::size_t>(r.category)], std::move(value)));
        if (r.needs_sympy) needs.append(py::int_(i));
        results[i] = Normalized{};
      });
  return py::make_tuple(out, needs);
}

py::object unit_tuple(const physics::Unit& u) {
  if (!u.ok) return py::none();
  return py::make_tuple(to_str(u.pint), to_str(u.shown), py::bool_(u.affine));
}

py::object physics_parse_unit(const py::handle& s, bool greedy) {
  const Text text = as_text(s, "physics_parse_unit", "s");
  return unit_tuple(physics::parse_unit(text.utf8, greedy));
}

// A text read as a gold is: (value, significant figures, pint expression or None, unit as shown
// or None, whether nothing but the unit follows the number), or None when it has no number.
py::object physics_read_quantity(const py::handle& s) {
  const Text text = as_text(s, "physics_read_quantity", "s");
  const physics::Quantity q = physics::read_gold(text.utf8).quantity;
  if (!q.has_number) return py::none();
  py::object pint = q.unit.ok ? py::object(to_str(q.unit.pint)) : py::object(py::none());
  py::object shown = q.unit.ok ? py::object(to_str(q.unit.shown)) : py::object(py::none());
  return py::make_tuple(py::float_(q.value), py::int_(q.sig_figs), std::move(pint), std::move(shown),
                        py::bool_(q.rest_is_unit));
}

// What pint says a unit means (from the Python resolver): value_in_base = scale * value + offset,
// `dimension` an id equal for equal dimensions within one batch.
struct UnitMeaning {
  bool known = false;
  long long dimension = 0;
  double scale = 1.0;
  double offset = 0.0;
};

double convert_unit(double value, const UnitMeaning& source, const UnitMeaning& target) {
  return (source.scale * value + source.offset - target.offset) / target.scale;
}

std::string printf_double(const char* format, int precision, double value) {
  std::string out(static_cast<std::size_t>(std::max(precision, 0)) + 400, '\0');
  const int n = std::snprintf(out.data(), out.size(), format, precision, value);
  out.resize(n > 0 ? std::min(static_cast<std::size_t>(n), out.size() - 1) : 0);
  return out;
}

// Python's f"{x * 100:.2g}%".
std::string percent(double rel) { return printf_double("%.*g", 2, rel * 100) + "%"; }

// Python's math.isclose(a, b, rel_tol=1e-9).
bool is_close(double a, double b) {
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  const double diff = std::fabs(b - a);
  return diff <= std::fabs(1e-9 * b) || diff <= std::fabs(1e-9 * a);
}

struct QuantityVerdict {
  bool correct = false;
  std::string reason;  // without the "quantity: " head
  std::optional<double> value;
};

struct QuantityOptions {
  double rel_tol = 1e-2;
  bool sig_figs = true;
  bool unit_required = false;
};

// A gold that is a number with (at most) a unit against the response's quantity: the comparison
// of the physics task, documented in python/rapidgrade/tasks/physics.py (grade_physics_many).
// `g_unit` / `r_unit` are the units' meanings (nullptr: the side has no unit).
QuantityVerdict compare_quantity(const Side& gold, const Side& response, const UnitMeaning* g_unit,
                                 const UnitMeaning* r_unit, const QuantityOptions& options) {
  QuantityVerdict v;
  const physics::Quantity& g = gold.quantity;
  const physics::Quantity& r = response.quantity;
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
  if (g_unit != nullptr && r_unit != nullptr) {
    if (!g_unit->known || !r_unit->known) {
      v.reason = "unit not understood by pint: " + (g_unit->known ? r.unit.shown : g.unit.shown);
      return v;
    }
    if (g_unit->dimension != r_unit->dimension) {
      v.reason = "unit mismatch: " + r.unit.shown + " vs " + g.unit.shown;
      return v;
    }
    both_units = true;
    value = convert_unit(r.value, *r_unit, *g_unit);
    if (g.unit.pint != r.unit.pint) note = " after " + r.unit.shown + "\xe2\x86\x92" + g.unit.shown;
  } else if (g_unit != nullptr) {
    if (options.unit_required) {
      v.reason = "unit required: the answer has none (gold in " + g.unit.shown + ")";
      return v;
    }
    note = ", no unit in the answer: compared in " + g.unit.shown;
  } else if (r_unit != nullptr) {
    note = ", gold has no unit: " + r.unit.shown + " ignored";
  }
  v.value = value;
  if (g.value == 0.0) {
    v.correct = std::fabs(value) <= 1e-12;
    v.reason = v.correct ? "equal to 0" + note : "not 0 (" + printf_double("%.*g", 6, value) + ")" + note;
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
    const double g_in_response = both_units ? convert_unit(g.value, *g_unit, *r_unit) : g.value;
    const double rounded = g_in_response == 0.0
                               ? 0.0
                               : std::strtod(printf_double("%.*e", r.sig_figs - 1, g_in_response).c_str(), nullptr);
    if (is_close(rounded, r.value)) {
      v.correct = true;
      v.reason = "equal at " + std::to_string(r.sig_figs) + " significant figures" + note;
      return v;
    }
  }
  v.reason = "off by " + percent(rel) + note + " (tolerance " + percent(options.rel_tol) + ")";
  return v;
}

// Paths of physics_grade_columns rows.
constexpr std::int8_t kPathQuantity = 0;  // decided here
constexpr std::int8_t kPathSymbolic = 1;  // an equation or formula gold: Python decides
constexpr std::int8_t kPathText = 2;      // a text gold: Python decides

// Reads every pair (GIL released, in parallel) and decides the pairs whose gold is a quantity;
// the meaning of each distinct unit is asked of `resolve_unit` (pint expression -> None or
// (dimension id, scale, offset)) once per batch. Returns the columns of the verdicts.
py::tuple physics_grade_columns(const py::handle& golds_obj, const py::handle& responses_obj,
                                const py::object& resolve_unit, double rel_tol, bool sig_figs, bool unit_required,
                                const py::object& threads) {
  const unsigned n_threads = resolve_threads(threads, "physics_grade_columns");
  const std::vector<Text> golds = texts_of(golds_obj, "physics_grade_columns", "golds", false);
  const std::vector<Text> responses = texts_of(responses_obj, "physics_grade_columns", "responses", false);
  if (golds.size() != responses.size()) {
    throw py::value_error("physics_grade_columns: golds and responses must have the same length");
  }
  const QuantityOptions options{rel_tol, sig_figs, unit_required};
  const std::size_t n = golds.size();
  std::vector<Side> gold_sides(n), response_sides(n);

  py::array_t<std::int8_t> path(static_cast<py::ssize_t>(n));
  py::array_t<bool> correct(static_cast<py::ssize_t>(n));
  py::array_t<double> value(static_cast<py::ssize_t>(n));
  py::array_t<bool> has_value(static_cast<py::ssize_t>(n));
  auto path_w = path.mutable_unchecked<1>();
  auto correct_w = correct.mutable_unchecked<1>();
  auto value_w = value.mutable_unchecked<1>();
  auto has_value_w = has_value.mutable_unchecked<1>();
  py::list category(n), gold_text(n), extracted(n), method(n), reason(n), unit(n), normalized(n);

  std::vector<py::object> category_names;
  for (int c = 0; c <= static_cast<int>(Category::kText); ++c) {
    category_names.push_back(py::str(physics::category_name(static_cast<Category>(c))));
  }
  std::vector<py::object> method_names;
  for (int m = 0; m <= static_cast<int>(extract::Method::kLastNumber); ++m) {
    method_names.push_back(py::str(extract::method_name(static_cast<extract::Method>(m))));
  }
  std::unordered_map<std::string, UnitMeaning> meanings;
  auto meaning_of = [&](const std::string& pint) -> const UnitMeaning* {
    auto it = meanings.find(pint);
    if (it == meanings.end()) {
      UnitMeaning m;
      const py::object got = resolve_unit(to_str(pint));
      if (!got.is_none()) {
        const py::tuple t = got.cast<py::tuple>();
        m.known = true;
        m.dimension = t[0].cast<long long>();
        m.scale = t[1].cast<double>();
        m.offset = t[2].cast<double>();
      }
      it = meanings.emplace(pint, m).first;
    }
    return &it->second;
  };
  py::object last_gold;  // equal consecutive golds share one str
  std::string last_gold_text;

  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          // equal consecutive golds are read once
          if (i > begin && golds[i].utf8 == golds[i - 1].utf8) {
            gold_sides[i] = gold_sides[i - 1];
          } else {
            gold_sides[i] = physics::read_gold(golds[i].utf8);
          }
          response_sides[i] = physics::read_response(responses[i].utf8);
        }
      },
      [&](std::size_t i) {
        const Side& g = gold_sides[i];
        const Side& r = response_sides[i];
        const auto k = static_cast<py::ssize_t>(i);
        if (!last_gold || last_gold_text != g.text) {
          last_gold = to_str(g.text);
          last_gold_text = g.text;
        }
        set_item(gold_text, i, last_gold);
        set_item(extracted, i, r.found ? py::object(to_str(r.text)) : py::object(py::none()));
        set_item(method, i, r.found ? method_names[static_cast<std::size_t>(r.method)] : py::object(py::none()));
        correct_w(k) = false;
        value_w(k) = 0.0;
        has_value_w(k) = false;
        if (g.quantity.has_number && g.quantity.rest_is_unit) {
          const UnitMeaning* g_unit = g.quantity.unit.ok ? meaning_of(g.quantity.unit.pint) : nullptr;
          const UnitMeaning* r_unit = r.quantity.unit.ok ? meaning_of(r.quantity.unit.pint) : nullptr;
          const QuantityVerdict v = compare_quantity(g, r, g_unit, r_unit, options);
          path_w(k) = kPathQuantity;
          correct_w(k) = v.correct;
          set_item(reason, i, to_str("quantity: " + v.reason));
          const Category c = g.quantity.unit.ok ? Category::kPhysicalQuantity : Category::kNumber;
          set_item(category, i, category_names[static_cast<std::size_t>(c)]);
          set_item(unit, i, r.quantity.unit.ok ? py::object(to_str(r.quantity.unit.shown)) : py::object(py::none()));
          if (v.value.has_value()) {
            value_w(k) = *v.value;
            has_value_w(k) = true;
            set_item(normalized, i, to_str(printf_double("%.*g", 12, *v.value)));
          } else {
            set_item(normalized, i, py::none());
          }
        } else {
          const bool symbolic = g.category == Category::kEquation || g.category == Category::kFormula;
          path_w(k) = symbolic ? kPathSymbolic : kPathText;
          set_item(category, i, category_names[static_cast<std::size_t>(g.category)]);
          set_item(reason, i, py::none());
          set_item(unit, i, py::none());
          set_item(normalized, i, py::none());
        }
        gold_sides[i] = Side{};
        response_sides[i] = Side{};
      });
  return py::make_tuple(path, correct, value, has_value, category, gold_text, extracted, method, reason, unit,
                        normalized);
}

}  // namespace

void bind_physics(py::module_& m) {
  py::list symbols;
  for (const detail::UnitSymbol& u : detail::kUnitSymbols) {
    symbols.append(py::make_tuple(to_str(u.symbol), to_str(u.pint), py::bool_(u.prefixable)));
  }
  m.attr("PHYSICS_UNIT_SYMBOLS") = py::tuple(symbols);
  py::list prefixes;
  for (const detail::UnitPrefix& p : detail::kUnitPrefixes) prefixes.append(py::make_tuple(to_str(p.symbol), to_str(p.pint)));
  m.attr("PHYSICS_UNIT_PREFIXES") = py::tuple(prefixes);
  m.def("physics_normalize", &physics_normalize, py::arg("s"),
        "The physics normalize_answer flow: (category, value, needs_sympy).");
  m.def("physics_normalize_many", &physics_normalize_many, py::arg("strings"), py::kw_only(),
        py::arg("threads") = py::none(), "physics_normalize over a sequence with the GIL released: ([(category, value)], [indices needing SymPy]).");
  m.def("physics_parse_unit", &physics_parse_unit, py::arg("s"), py::kw_only(), py::arg("greedy") = false,
        "A unit text read by the unit grammar: (pint expression, shown, affine), or None.");
  m.def("physics_read_quantity", &physics_read_quantity, py::arg("s"),
        "A text read as a physics gold: (value, sig_figs, pint expression, shown unit, rest_is_unit), or None.");
  m.def("physics_grade_columns", &physics_grade_columns, py::arg("golds"), py::arg("responses"),
        py::arg("resolve_unit"), py::kw_only(), py::arg("rel_tol"), py::arg("sig_figs"), py::arg("unit_required"),
        py::arg("threads") = py::none(),
        "Each (gold, response) pair read and, when the gold is a quantity, graded: columns (path, correct, "
        "value, has_value, category, gold, extracted, method, reason, unit, normalized).");
}

}  // namespace rapidgrade::bindings
