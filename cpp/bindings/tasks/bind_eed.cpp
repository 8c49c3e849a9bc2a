// Bindings of rapidgrade::eed: the EED score of one pair, of a batch (GIL released, in parallel,
// Ctrl-C let through between blocks), and the rewritten tree of an expression.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/tasks/eed.hpp"

namespace rapidgrade::bindings {
namespace {

eed::Config config_of(double initial_score, double scoring_slope, const py::handle& insert_cost,
                      const py::handle& delete_cost, const py::handle& update_cost, double change_type_cost,
                      double bar_size, double discount_slope, std::size_t max_cells, const char* function) {
  eed::Config c;
  c.initial_score = initial_score;
  c.scoring_slope = scoring_slope;
  auto costs = [&](const py::handle& obj, double* out, const char* name) {
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
    if (!py::isinstance<py::sequence>(obj) || py::len(seq) != 4) {
      throw py::type_error(std::string(function) + ": " + name +
                           " must be 4 costs (number, symbol, operator, function)");
    }
    for (std::size_t k = 0; k < 4; ++k) {
      out[k] = seq[k].cast<double>();
      if (!(out[k] >= 0)) throw py::value_error(std::string(function) + ": " + name + " must be >= 0");
    }
  };
  costs(insert_cost, c.insert_cost, "insert_cost");
  costs(delete_cost, c.delete_cost, "delete_cost");
  costs(update_cost, c.update_cost, "update_cost");
  c.change_type_cost = change_type_cost;
  c.bar_size = bar_size;
  c.discount_slope = discount_slope;
  if (max_cells < 1) throw py::value_error(std::string(function) + ": max_cells must be >= 1");
  c.max_cells = max_cells;
  return c;
}

py::tuple result_tuple(const eed::Result& r) {
  return py::make_tuple(r.score, r.relative_distance, r.tree_size, r.distance, eed::status_name(r.status),
                        to_str(r.gold_unit), to_str(r.answer_unit));
}

py::tuple eed_score(const py::handle& gold, const py::handle& answer, double answer_scale, double initial_score,
                    double scoring_slope, const py::handle& insert_cost, const py::handle& delete_cost,
                    const py::handle& update_cost, double change_type_cost, double bar_size, double discount_slope,
                    std::size_t max_cells) {
  const eed::Config c = config_of(initial_score, scoring_slope, insert_cost, delete_cost, update_cost, change_type_cost,
                                  bar_size, discount_slope, max_cells, "eed_score");
  const Text g = as_text(gold, "eed_score", "gold");
  const Text a = as_text(answer, "eed_score", "answer");
  eed::Result r;
  {
    py::gil_scoped_release release;
    r = eed::score(g.utf8, a.utf8, c, answer_scale);
  }
  return result_tuple(r);
}

// Columns: score, relative_distance, tree_size, distance (float64 arrays), status, gold_unit,
// answer_unit (lists of str).
py::tuple eed_score_many(const py::handle& golds_obj, const py::handle& answers_obj, const py::object& scales_obj,
                         const py::object& threads, double initial_score, double scoring_slope,
                         const py::handle& insert_cost, const py::handle& delete_cost, const py::handle& update_cost,
                         double change_type_cost, double bar_size, double discount_slope, std::size_t max_cells) {
  const eed::Config c = config_of(initial_score, scoring_slope, insert_cost, delete_cost, update_cost, change_type_cost,
                                  bar_size, discount_slope, max_cells, "eed_score_many");
  const unsigned n_threads = resolve_threads(threads, "eed_score_many");
  const std::vector<Text> golds = texts_of(golds_obj, "eed_score_many", "golds");
  const std::vector<Text> answers = texts_of(answers_obj, "eed_score_many", "answers");
  if (golds.size() != answers.size()) {
    throw py::value_error("eed_score_many: golds and answers must have the same length");
  }
  const std::size_t n = golds.size();
  std::vector<double> scales(n, 1.0);
  if (!scales_obj.is_none()) {
    const py::sequence seq = py::reinterpret_borrow<py::sequence>(scales_obj);
    if (!py::isinstance<py::sequence>(scales_obj) || py::len(seq) != n) {
      throw py::value_error("eed_score_many: scales must be None or one number per pair");
    }
    for (std::size_t i = 0; i < n; ++i) scales[i] = seq[i].cast<double>();
  }
  std::vector<eed::Result> results(n);
  py::array_t<double> score(static_cast<py::ssize_t>(n)), rel(static_cast<py::ssize_t>(n)),
      size(static_cast<py::ssize_t>(n)), dist(static_cast<py::ssize_t>(n));
  auto sw = score.mutable_unchecked<1>();
  auto rw = rel.mutable_unchecked<1>();
  auto zw = size.mutable_unchecked<1>();
  auto dw = dist.mutable_unchecked<1>();
  py::list status(n), gold_unit(n), answer_unit(n);
  std::vector<py::object> names;
  for (int s = 0; s <= static_cast<int>(eed::Status::kUnitMismatch); ++s)
    names.push_back(py::str(eed::status_name(static_cast<eed::Status>(s))));
  const py::str empty("");
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) results[i] = eed::score(golds[i].utf8, answers[i].utf8, c, scales[i]);
      },
      [&](std::size_t i) {
        const eed::Result& r = results[i];
        const auto k = static_cast<py::ssize_t>(i);
        sw(k) = r.score;
        rw(k) = r.relative_distance;
        zw(k) = r.tree_size;
        dw(k) = r.distance;
        set_item(status, i, names[static_cast<int>(r.status)]);
        set_item(gold_unit, i, r.gold_unit.empty() ? py::object(empty) : py::object(to_str(r.gold_unit)));
        set_item(answer_unit, i, r.answer_unit.empty() ? py::object(empty) : py::object(to_str(r.answer_unit)));
        results[i] = eed::Result{};
      });
  return py::make_tuple(score, rel, size, dist, status, gold_unit, answer_unit);
}

}  // namespace

void bind_eed(py::module_& m) {
  const eed::Config d;
  const py::tuple ins = py::make_tuple(d.insert_cost[0], d.insert_cost[1], d.insert_cost[2], d.insert_cost[3]);
  const py::tuple del = py::make_tuple(d.delete_cost[0], d.delete_cost[1], d.delete_cost[2], d.delete_cost[3]);
  const py::tuple upd = py::make_tuple(d.update_cost[0], d.update_cost[1], d.update_cost[2], d.update_cost[3]);
  m.def("eed_score", &eed_score, py::arg("gold"), py::arg("answer"), py::kw_only(), py::arg("answer_scale") = 1.0,
        py::arg("initial_score") = d.initial_score, py::arg("scoring_slope") = d.scoring_slope,
        py::arg("insert_cost") = ins, py::arg("delete_cost") = del, py::arg("update_cost") = upd,
        py::arg("change_type_cost") = d.change_type_cost, py::arg("bar_size") = d.bar_size,
        py::arg("discount_slope") = d.discount_slope, py::arg("max_cells") = d.max_cells,
        "EED score of one pair: (score, relative_distance, tree_size, distance, status, gold_unit, answer_unit).");
  m.def("eed_score_many", &eed_score_many, py::arg("golds"), py::arg("answers"), py::kw_only(),
        py::arg("scales") = py::none(), py::arg("threads") = py::none(), py::arg("initial_score") = d.initial_score,
        py::arg("scoring_slope") = d.scoring_slope, py::arg("insert_cost") = ins, py::arg("delete_cost") = del,
        py::arg("update_cost") = upd, py::arg("change_type_cost") = d.change_type_cost,
        py::arg("bar_size") = d.bar_size, py::arg("discount_slope") = d.discount_slope,
        py::arg("max_cells") = d.max_cells,
        "EED scores of a batch (GIL released, in parallel): columns score, relative_distance, tree_size, "
        "distance, status, gold_unit, answer_unit.");
  m.def(
      "eed_canonical_tree",
      [](const py::handle& text) {
        const Text t = as_text(text, "eed_canonical_tree", "text");
        return to_str(eed::canonical_tree(t.utf8));
      },
      py::arg("text"), "The rewritten (SymPy-form) tree of an expression with PHYBench's labels.");
}

}  // namespace rapidgrade::bindings
