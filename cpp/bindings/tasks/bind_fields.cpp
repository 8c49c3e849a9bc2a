// Binding of rapidgrade::fields: the key/value answer protocol of the fredholm task (SOLUTION:,
// HAS_SOLUTION:, SOLUTION_TYPE:, REASONING:), offsets in the caller's units.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/tasks/fields.hpp"

namespace rapidgrade::bindings {
namespace {

py::dict extract_fields(const py::handle& text_obj, const py::handle& function_obj, const py::handle& variable_obj) {
  const Text text = as_text(text_obj, "extract_fields", "text");
  if (!PyUnicode_Check(function_obj.ptr()) || !PyUnicode_Check(variable_obj.ptr())) {
    throw py::type_error("extract_fields: function and variable must be str");
  }
  const std::string function = function_obj.cast<std::string>();
  const std::string variable = variable_obj.cast<std::string>();
  if (function.empty() || variable.empty()) {
    throw py::value_error("extract_fields: function and variable must be non-empty");
  }
  fields::Fields f = fields::extract_fields(text.utf8, function, variable);
  std::vector<std::size_t*> offsets;
  if (f.solution) {
    offsets.push_back(&f.solution->start);
    offsets.push_back(&f.solution->end);
  }
  if (f.reasoning) {
    offsets.push_back(&f.reasoning->start);
    offsets.push_back(&f.reasoning->end);
  }
  to_caller_units(text, offsets);
  py::dict out;
  if (f.solution) out["solution"] = slice(text, f.solution->start, f.solution->end);
  if (f.has_solution) out["has_solution"] = py::bool_(*f.has_solution);
  if (f.solution_type) out["solution_type"] = py::str(*f.solution_type);
  if (f.reasoning) out["reasoning"] = slice(text, f.reasoning->start, f.reasoning->end);
  return out;
}

}  // namespace

void bind_fields(py::module_& m) {
  m.def("extract_fields", &extract_fields, py::arg("text"), py::kw_only(), py::arg("function") = "u",
        py::arg("variable") = "x",
        "Key/value answer fields (solution, has_solution, solution_type, reasoning) found in text.");
}

}  // namespace rapidgrade::bindings
