// Bindings of rapidgrade::extract. Extractions are built as instances of the caller-supplied
// tuple subclass (rapidgrade.extract.Extraction, a NamedTuple) with tuple.__new__.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/extract.hpp"

namespace rapidgrade::bindings {
namespace {

using extract::Extraction;
using extract::Method;

Method resolve_strategy(const py::handle& strategy, const char* function) {
  if (!PyUnicode_Check(strategy.ptr())) {
    throw py::type_error(std::string(function) + ": strategy must be a str");
  }
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(strategy.ptr(), &size);
  if (data == nullptr) throw py::error_already_set();
  const std::string_view name(data, static_cast<std::size_t>(size));
  Method m = Method::kAuto;
  if (!extract::parse_strategy(name, m)) {
    throw py::value_error(
        std::string(function) + ": unknown strategy '" + std::string(name) +
        "' (expected auto, boxed, answer_is, tagged, code_output, choice, bare, final_span or last_number)");
  }
  return m;
}

// The method names as interned str objects, created once when the module is initialized and
// kept for the life of the process (immutable; never freed, so never touched after finalization).
constexpr int kMethodCount = static_cast<int>(Method::kLastNumber) + 1;
PyObject* g_method_names[kMethodCount] = {};

py::object method_object(Method m) { return py::reinterpret_borrow<py::object>(g_method_names[static_cast<int>(m)]); }

// Rewrites the byte offsets of an extraction into the caller's units (code points for str).
// Touches no Python object, so batch workers call it with the GIL released.
void convert_offsets(const Text& text, Extraction& e) {
  std::vector<std::size_t*> offsets{&e.start, &e.end};
  for (auto& p : e.parts) {
    offsets.push_back(&p.start);
    offsets.push_back(&p.end);
  }
  to_caller_units(text, offsets);
}

// The record for `found`, whose offsets are already in the caller's units.
py::object build(const Text& text, std::optional<Extraction>& found, const py::handle& type) {
  if (!found) return py::none();
  Extraction& e = *found;
  py::object answer;
  if (e.parts.empty()) {
    answer = slice(text, e.start, e.end);
  } else {
    py::list pieces(e.parts.size());
    for (std::size_t k = 0; k < e.parts.size(); ++k) pieces[k] = slice(text, e.parts[k].start, e.parts[k].end);
    const char* joiner = e.alternatives ? " or " : ", ";  // as extract::answer_text joins them
    answer = text.is_bytes ? py::bytes(joiner).attr("join")(pieces) : py::str(joiner).attr("join")(pieces);
  }
  return new_record(type, {answer, py::int_(e.start), py::int_(e.end), method_object(e.method)});
}

py::object extract_answer(const py::handle& text_obj, const py::handle& type, const py::handle& strategy) {
  check_record_type(type, "extract_answer", "extraction_type");
  const Method m = resolve_strategy(strategy, "extract_answer");
  const Text text = as_text(text_obj, "extract_answer", "text");
  std::optional<Extraction> found = extract::extract_answer(text.utf8, m);
  if (found) convert_offsets(text, *found);
  return build(text, found, type);
}

py::list extract_many(const py::handle& texts_obj, const py::handle& type, const py::handle& strategy,
                      const py::object& threads) {
  check_record_type(type, "extract_many", "extraction_type");
  const Method m = resolve_strategy(strategy, "extract_many");
  const unsigned n_threads = resolve_threads(threads, "extract_many");
  const std::vector<Text> texts = texts_of(texts_obj, "extract_many", "texts");
  const std::size_t n = texts.size();
  std::vector<std::optional<Extraction>> results(n);
  py::list out(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          results[i] = extract::extract_answer(texts[i].utf8, m);
          if (results[i]) convert_offsets(texts[i], *results[i]);
        }
      },
      [&](std::size_t i) {
        set_item(out, i, build(texts[i], results[i], type));
        results[i].reset();
      });
  return out;
}

}  // namespace

void bind_extract(py::module_& m) {
  for (int k = 0; k < kMethodCount; ++k) {
    if (g_method_names[k] == nullptr) {
      g_method_names[k] = PyUnicode_InternFromString(extract::method_name(static_cast<Method>(k)));
      if (g_method_names[k] == nullptr) throw py::error_already_set();
    }
  }
  m.def("extract_answer", &extract_answer, py::arg("text"), py::arg("extraction_type"), py::kw_only(),
        py::arg("strategy") = "auto",
        "The final answer in text as an extraction_type(text, start, end, method), or None.");
  m.def("extract_many", &extract_many, py::arg("texts"), py::arg("extraction_type"), py::kw_only(),
        py::arg("strategy") = "auto", py::arg("threads") = py::none(),
        "extract_answer over a sequence of texts on `threads` threads with the GIL released.");
}

}  // namespace rapidgrade::bindings
