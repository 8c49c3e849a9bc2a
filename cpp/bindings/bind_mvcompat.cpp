// Bindings of rapidgrade::mvcompat (the fast path of the math-verify compatible API).
#include <pybind11/pybind11.h>

#include <vector>

#include "convert.hpp"
#include "rapidgrade/compat/mvcompat.hpp"

namespace rapidgrade::bindings {
namespace {

py::tuple mv_boxed_winner(const py::handle& text_obj) {
  const Text text = as_text(text_obj, "mv_boxed_winner", "text");
  mvcompat::BoxedWinner w = mvcompat::boxed_winner(text.utf8);
  switch (w.status) {
    case mvcompat::BoxedStatus::kNone: return py::make_tuple("none", false, py::none(), 0, 0);
    case mvcompat::BoxedStatus::kUnknown: return py::make_tuple("unknown", false, py::none(), 0, 0);
    case mvcompat::BoxedStatus::kFound: break;
  }
  std::vector<std::size_t*> offsets{&w.begin, &w.end, &w.match_start, &w.match_end};
  to_caller_units(text, offsets);
  return py::make_tuple("found", w.plain, slice(text, w.begin, w.end), w.match_start, w.match_end);
}

py::tuple mv_last_number(const py::handle& text_obj, bool non_ascii_inert) {
  const Text text = as_text(text_obj, "mv_last_number", "text");
  const mvcompat::LastNumber r = mvcompat::last_number(text.utf8, non_ascii_inert);
  switch (r.status) {
    case mvcompat::BoxedStatus::kNone: return py::make_tuple("none", py::none(), false);
    case mvcompat::BoxedStatus::kUnknown: return py::make_tuple("unknown", py::none(), false);
    case mvcompat::BoxedStatus::kFound: break;
  }
  return py::make_tuple("found", py::str(r.number.data(), r.number_size), r.percent);
}

}  // namespace

void bind_mvcompat(py::module_& m) {
  m.def("mv_boxed_winner", &mv_boxed_winner, py::arg("text"),
        "The \\boxed match math-verify 0.9.0 tries first: (status, plain, latex, start, end).");
  m.def("mv_last_number", &mv_last_number, py::arg("text"), py::kw_only(), py::arg("non_ascii_inert") = false,
        "math-verify 0.9.0's last-number answer where certain: (status, number_string, percent).");
}

}  // namespace rapidgrade::bindings
