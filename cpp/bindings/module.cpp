// The extension module rapidgrade._core: the exception types, then each concern's functions.
// The module is flat (no submodules) so that a single _core.pyi stub describes it exactly.
#include <pybind11/pybind11.h>

#include "rapidgrade/common.hpp"

namespace py = pybind11;

namespace rapidgrade::bindings {
void bind_scan(py::module_& m);
void bind_distance(py::module_& m);
void bind_extract(py::module_& m);
void bind_normalize(py::module_& m);
void bind_expr(py::module_& m);
void bind_grade(py::module_& m);
void bind_absa(py::module_& m);
void bind_mvcompat(py::module_& m);
void bind_physics(py::module_& m);
void bind_fredholm(py::module_& m);
void bind_fields(py::module_& m);
void bind_jsonl(py::module_& m);
void bind_eed(py::module_& m);
void bind_residual(py::module_& m);
}  // namespace rapidgrade::bindings

PYBIND11_MODULE(_core, m) {
  m.doc() = "rapidgrade's compiled core. Use the documented wrappers in the rapidgrade package.";
  py::register_exception<rapidgrade::ParseError>(m, "ParseError", PyExc_ValueError);
  py::register_exception<rapidgrade::LimitError>(m, "LimitError", PyExc_ValueError);
  rapidgrade::bindings::bind_scan(m);
  rapidgrade::bindings::bind_distance(m);
  rapidgrade::bindings::bind_extract(m);
  rapidgrade::bindings::bind_normalize(m);
  rapidgrade::bindings::bind_expr(m);
  rapidgrade::bindings::bind_grade(m);
  rapidgrade::bindings::bind_absa(m);
  rapidgrade::bindings::bind_mvcompat(m);
  rapidgrade::bindings::bind_physics(m);
  rapidgrade::bindings::bind_fredholm(m);
  rapidgrade::bindings::bind_fields(m);
  rapidgrade::bindings::bind_jsonl(m);
  rapidgrade::bindings::bind_eed(m);
  rapidgrade::bindings::bind_residual(m);
}
