// Bindings of rapidgrade::grade: the batch fast path of rapidgrade.grade_many.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/grade.hpp"

namespace rapidgrade::bindings {
namespace {

py::object utf8_str(const std::string& s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

py::tuple grade_fast_many(const py::handle& golds_obj, const py::handle& responses_obj, const py::object& last_number,
                          const py::object& rel_tol, const py::object& abs_tol, const py::object& float_rounding,
                          const py::object& threads) {
  const grade::Options options = grade_options(last_number, rel_tol, abs_tol, float_rounding, "grade_fast_many");
  const unsigned n_threads = resolve_threads(threads, "grade_fast_many");
  const std::vector<Text> golds = texts_of(golds_obj, "grade_fast_many", "golds", false);
  const std::vector<Text> responses = texts_of(responses_obj, "grade_fast_many", "responses", false);
  if (golds.size() != responses.size()) {
    throw py::value_error("grade_fast_many: golds and responses must have the same length");
  }
  const std::size_t n = golds.size();
  // One str object per distinct reason and method, shared by every row (a million rows hold
  // references, not a million copies).
  std::vector<py::object> reason_strs, method_strs;
  for (int r = 0; r <= static_cast<int>(grade::Reason::kUndecided); ++r) {
    reason_strs.push_back(py::str(grade::reason_text(static_cast<grade::Reason>(r))));
  }
  for (int k = 0; k <= static_cast<int>(extract::Method::kLastNumber); ++k) {
    method_strs.push_back(py::str(extract::method_name(static_cast<extract::Method>(k))));
  }
  py::bytearray tri_codes(std::string(n, '\0'));
  char* tri = PyByteArray_AS_STRING(tri_codes.ptr());
  py::list gold(n), gold_raw(n), extracted(n), method(n), reason(n);
  std::vector<grade::FastVerdict> verdicts(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        // Consecutive pairs often share their gold (n samples of a problem): prepare it once.
        grade::PreparedGold gold;
        std::string_view prepared_for;
        bool have = false;
        for (std::size_t i = begin; i < end; ++i) {
          if (!have || golds[i].utf8 != prepared_for) {
            gold = grade::prepare_gold(golds[i].utf8);
            prepared_for = golds[i].utf8;
            have = true;
          }
          verdicts[i] = grade::grade(gold, responses[i].utf8, options);
        }
      },
      [&](std::size_t i) {
        grade::FastVerdict v = std::move(verdicts[i]);  // freed as soon as it is read
        tri[i] = static_cast<char>(v.tri);
        set_item(gold, i, utf8_str(v.gold));
        // only the undecided pairs need the unwrapped gold (for the fallback)
        set_item(gold_raw, i, v.tri == equiv::Tri::Unknown ? utf8_str(v.gold_raw) : py::none());
        if (v.found) {
          set_item(extracted, i, utf8_str(v.answer));
          set_item(method, i, method_strs[static_cast<std::size_t>(v.method)]);
        } else {
          set_item(extracted, i, py::none());
          set_item(method, i, py::none());
        }
        set_item(reason, i, reason_strs[static_cast<std::size_t>(v.reason)]);
      });
  return py::make_tuple(tri_codes, gold, gold_raw, extracted, method, reason);
}

}  // namespace

void bind_grade(py::module_& m) {
  m.def("grade_fast_many", &grade_fast_many, py::arg("golds"), py::arg("responses"), py::kw_only(),
        py::arg("last_number") = true, py::arg("rel_tol") = 1e-9, py::arg("abs_tol") = 1e-12,
        py::arg("float_rounding") = py::none(), py::arg("threads") = py::none(),
        "The fast path of grade_many: (tri codes as a bytearray, one byte per pair, normalized golds, unwrapped golds of the undecided "
        "pairs (None elsewhere), extracted answers, methods, reasons), computed on `threads` threads with the GIL released.");
}

}  // namespace rapidgrade::bindings
