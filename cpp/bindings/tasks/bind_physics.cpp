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
#include "rapidgrade/tasks/physics.hpp"

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
        py::object value =
            r.category == Category::kNumber ? py::object(py::float_(r.number)) : py::object(to_str(r.value));
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

// Paths of physics_grade_columns rows.
constexpr std::int8_t kPathQuantity = 0;  // decided here
constexpr std::int8_t kPathSymbolic = 1;  // an equation or formula gold: Python decides
constexpr std::int8_t kPathText = 2;      // a text gold: Python decides

// Reads every pair (GIL released, in parallel) and decides the pairs whose gold is a quantity;
// the meaning of each distinct unit is asked of `resolve_unit` (pint expression -> None or
// (dimension id, scale, offset)) once per batch. Returns the columns of the verdicts.
// What physics_grade_columns returns: the verdicts' columns, by name (see PhysicsColumns'
// docstring in bind_physics()).
struct PhysicsColumns {
  py::object path, correct, value, has_value, category, gold, extracted, method, reason, unit, normalized;
};

PhysicsColumns physics_grade_columns(const py::handle& golds_obj, const py::handle& responses_obj,
                                     const py::object& resolve_unit, double rel_tol, bool sig_figs, bool unit_required,
                                     const py::object& threads) {
  const unsigned n_threads = resolve_threads(threads, "physics_grade_columns");
  const std::vector<Text> golds = texts_of(golds_obj, "physics_grade_columns", "golds", false);
  const std::vector<Text> responses = texts_of(responses_obj, "physics_grade_columns", "responses", false);
  if (golds.size() != responses.size()) {
    throw py::value_error("physics_grade_columns: golds and responses must have the same length");
  }
  const physics::QuantityOptions options{rel_tol, sig_figs, unit_required};
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
  std::unordered_map<std::string, physics::UnitMeaning> meanings;
  auto meaning_of = [&](const std::string& pint) -> const physics::UnitMeaning* {
    auto it = meanings.find(pint);
    if (it == meanings.end()) {
      physics::UnitMeaning m;
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
          const physics::UnitMeaning* g_unit = g.quantity.unit.ok ? meaning_of(g.quantity.unit.pint) : nullptr;
          const physics::UnitMeaning* r_unit = r.quantity.unit.ok ? meaning_of(r.quantity.unit.pint) : nullptr;
          const physics::QuantityVerdict v = physics::compare_quantity(g, r, g_unit, r_unit, options);
          path_w(k) = kPathQuantity;
          correct_w(k) = v.correct;
          set_item(reason, i, to_str("quantity: " + v.reason));
          const Category c = g.quantity.unit.ok ? Category::kPhysicalQuantity : Category::kNumber;
          set_item(category, i, category_names[static_cast<std::size_t>(c)]);
          set_item(unit, i, r.quantity.unit.ok ? py::object(to_str(r.quantity.unit.shown)) : py::object(py::none()));
          if (v.value.has_value()) {
            value_w(k) = *v.value;
            has_value_w(k) = true;
            set_item(normalized, i, to_str(physics::format_g(*v.value, 12)));
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
  return PhysicsColumns{path,      correct, value,  has_value, category,  gold_text,
                        extracted, method,  reason, unit,      normalized};
}

}  // namespace

void bind_physics(py::module_& m) {
  py::class_<PhysicsColumns>(
      m, "PhysicsColumns",
      "The columns of physics_grade_columns, one entry per pair: path (int8 array: 0 quantity, decided here; 1 "
      "symbolic and 2 text, decided by the caller), correct (bool array), value (float64 array: the response's "
      "magnitude in the gold's unit) and has_value (bool array), then lists: category, gold, extracted, method, reason "
      "(None where the caller decides), unit (the response's unit as shown) and normalized (the value as %.12g).")
      .def_readonly("path", &PhysicsColumns::path)
      .def_readonly("correct", &PhysicsColumns::correct)
      .def_readonly("value", &PhysicsColumns::value)
      .def_readonly("has_value", &PhysicsColumns::has_value)
      .def_readonly("category", &PhysicsColumns::category)
      .def_readonly("gold", &PhysicsColumns::gold)
      .def_readonly("extracted", &PhysicsColumns::extracted)
      .def_readonly("method", &PhysicsColumns::method)
      .def_readonly("reason", &PhysicsColumns::reason)
      .def_readonly("unit", &PhysicsColumns::unit)
      .def_readonly("normalized", &PhysicsColumns::normalized);
  py::list symbols;
  for (const detail::UnitSymbol& u : detail::kUnitSymbols) {
    symbols.append(py::make_tuple(to_str(u.symbol), to_str(u.pint), py::bool_(u.prefixable)));
  }
  m.attr("PHYSICS_UNIT_SYMBOLS") = py::tuple(symbols);
  py::list prefixes;
  for (const detail::UnitPrefix& p : detail::kUnitPrefixes)
    prefixes.append(py::make_tuple(to_str(p.symbol), to_str(p.pint)));
  m.attr("PHYSICS_UNIT_PREFIXES") = py::tuple(prefixes);
  m.def("physics_normalize", &physics_normalize, py::arg("s"),
        "The physics normalize_answer flow: (category, value, needs_sympy).");
  m.def("physics_normalize_many", &physics_normalize_many, py::arg("strings"), py::kw_only(),
        py::arg("threads") = py::none(),
        "physics_normalize over a sequence with the GIL released: ([(category, value)], [indices needing SymPy]).");
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
