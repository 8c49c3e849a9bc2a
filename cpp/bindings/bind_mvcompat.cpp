// Bindings of rapidgrade::mvcompat (the fast path of the math-verify compatible API).
#include <pybind11/pybind11.h>

#include <vector>

#include "convert.hpp"
#include "rapidgrade/mvcompat.hpp"

namespace rapidgrade::bindings {
namespace {

py::tuple mv_boxed_winner(const py::handle& text_obj) {
  const Text text = as_text(text_obj, "mv_boxed_winner", "text");
  mvcompat::BoxedWinner w = mvcompat::boxed_winner(text.utf8);
  switch (w.status) {
    case mvcompat::BoxedStatus::kNone:
      return py::make_tuple("none", false, py::none(), 0, 0);
    case mvcompat::BoxedStatus::kUnknown:
      return py::make_tuple("unknown", false, py::none(), 0, 0);
    case mvcompat::BoxedStatus::kFound:
      break;
  }
  std::vector<std::size_t*> offsets{&w.begin, &w.end, &w.match_start, &w.match_end};
  to_caller_units(text, offsets);
  return py::make_tuple("found", w.plain, slice(text, w.begin, w.end), w.match_start, w.match_end);
}

}  // namespace

void bind_mvcompat(py::module_& m) {
  m.def("mv_boxed_winner", &mv_boxed_winner, py::arg("text"),
        "The \\boxed match math-verify 0.9.0 tries first: (status, plain, latex, start, end).");
}

}  // namespace rapidgrade::bindings
