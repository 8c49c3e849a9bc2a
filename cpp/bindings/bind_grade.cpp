// Bindings of rapidgrade::grade: the batch fast path of rapidgrade.grade_many.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/grade.hpp"

namespace rapidgrade::bindings {
namespace {

// `text` as a str: the caller's own object when it holds exactly these characters (a gold that
// normalization leaves as it is, the common case), which saves decoding a copy per pair.
py::object same_or_new(const std::string& text, const Text& input) {
  if (!input.encoded && !input.is_bytes && PyUnicode_CheckExact(input.original.ptr()) && text == input.utf8) {
    return input.original;
  }
  return to_str(text);
}

py::tuple grade_fast_many(const py::handle& golds_obj, const py::handle& responses_obj, const py::object& last_number,
                          const py::object& rel_tol, const py::object& abs_tol, const py::object& float_rounding,
                          const py::object& threads, const py::object& max_answer_bytes) {
  grade::Options options = grade_options(last_number, rel_tol, abs_tol, float_rounding, "grade_fast_many");
  options.max_answer_bytes = max_answer_bytes_option(max_answer_bytes, "grade_fast_many");
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
  for (int r = 0; r <= static_cast<int>(grade::kLastReason); ++r) {
    reason_strs.push_back(py::str(grade::reason_text(static_cast<grade::Reason>(r))));
  }
  for (int k = 0; k <= static_cast<int>(extract::Method::kLastNumber); ++k) {
    method_strs.push_back(py::str(extract::method_name(static_cast<extract::Method>(k))));
  }
  py::bytearray tri_codes(std::string(n, '\0'));
  char* tri = PyByteArray_AS_STRING(tri_codes.ptr());
  py::list gold(n), gold_raw(n), extracted(n), method(n), reason(n), normalized(n);
  std::vector<std::string_view> gold_views(n), response_views(n);
  for (std::size_t i = 0; i < n; ++i) {
    gold_views[i] = golds[i].utf8;
    response_views[i] = responses[i].utf8;
  }
  std::vector<grade::FastVerdict> verdicts(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        grade::grade_span(gold_views.data() + begin, response_views.data() + begin, end - begin, options,
                          verdicts.data() + begin);
      },
      [&](std::size_t i) {
        grade::FastVerdict v = std::move(verdicts[i]);  // freed as soon as it is read
        // code 3: a limit was reached (decided_by="limit"), neither graded nor sent on
        tri[i] = grade::is_limit(v.reason) ? char{3} : static_cast<char>(v.tri);
        set_item(gold, i, same_or_new(v.gold, golds[i]));
        // only the undecided pairs need the unwrapped gold (for the fallback)
        set_item(gold_raw, i, v.tri == equiv::Tri::kUnknown ? same_or_new(v.gold_raw, golds[i]) : py::none());
        if (v.found) {
          py::str answer = to_str(v.answer);
          set_item(normalized, i, v.normalized == v.answer ? answer : to_str(v.normalized));
          set_item(extracted, i, std::move(answer));
          set_item(method, i, method_strs[static_cast<std::size_t>(v.method)]);
        } else {
          set_item(extracted, i, py::none());
          set_item(method, i, py::none());
          set_item(normalized, i, py::none());
        }
        set_item(reason, i, reason_strs[static_cast<std::size_t>(v.reason)]);
      });
  return py::make_tuple(tri_codes, gold, gold_raw, extracted, method, reason, normalized);
}

}  // namespace

void bind_grade(py::module_& m) {
  m.def("grade_fast_many", &grade_fast_many, py::arg("golds"), py::arg("responses"), py::kw_only(),
        py::arg("last_number") = true, py::arg("rel_tol") = 1e-9, py::arg("abs_tol") = 1e-12,
        py::arg("float_rounding") = py::none(), py::arg("threads") = py::none(),
        py::arg("max_answer_bytes") = grade::kDefaultMaxAnswerBytes,
        "The fast path of grade_many: (tri codes as a bytearray, one byte per pair, normalized golds, unwrapped golds of the undecided "
        "pairs (None elsewhere), extracted answers, methods, reasons, normalized extracted answers), tri code 3 for a pair "
        "past a limit (max_answer_bytes, the work budget, magnitudes), computed on `threads` threads with the GIL released.");
}

}  // namespace rapidgrade::bindings
