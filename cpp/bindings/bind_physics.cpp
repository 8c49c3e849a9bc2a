// Bindings of rapidgrade::physics: the normalize_answer flow and the number-and-unit reading of
// grading pairs, one and many (the batch forms release the GIL through run_pipelined).
#include <pybind11/pybind11.h>

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

py::tuple side_tuple(const Side& side) {
  const physics::Quantity& q = side.quantity;
  return py::make_tuple(
      py::bool_(side.found), side.found ? py::object(py::str(extract::method_name(side.method))) : py::object(py::none()),
      side.found ? py::object(to_str(side.text)) : py::object(py::none()),
      py::str(physics::category_name(side.category)), py::bool_(q.has_number), py::float_(q.value),
      py::int_(q.sig_figs), q.unit.ok ? py::object(to_str(q.unit.pint)) : py::object(py::none()),
      q.unit.ok ? py::object(to_str(q.unit.shown)) : py::object(py::none()), py::bool_(q.rest_is_unit));
}

py::list physics_read_many(const py::handle& golds_obj, const py::handle& responses_obj, const py::object& threads) {
  const unsigned n_threads = resolve_threads(threads, "physics_read_many");
  const std::vector<Text> golds = texts_of(golds_obj, "physics_read_many", "golds", false);
  const std::vector<Text> responses = texts_of(responses_obj, "physics_read_many", "responses", false);
  if (golds.size() != responses.size()) {
    throw py::value_error("physics_read_many: golds and responses must have the same length");
  }
  const std::size_t n = golds.size();
  std::vector<Side> gold_sides(n), response_sides(n);
  py::list out(n);
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
        set_item(out, i, py::make_tuple(side_tuple(gold_sides[i]), side_tuple(response_sides[i])));
        gold_sides[i] = Side{};
        response_sides[i] = Side{};
      });
  return out;
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
  m.def("physics_read_many", &physics_read_many, py::arg("golds"), py::arg("responses"), py::kw_only(),
        py::arg("threads") = py::none(),
        "Each (gold, response) pair read for physics grading: ((gold side), (response side)), each side "
        "(found, method, text, category, has_number, value, sig_figs, unit_pint, unit_shown, rest_is_unit).");
}

}  // namespace rapidgrade::bindings
