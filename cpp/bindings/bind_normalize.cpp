// Bindings of rapidgrade::normalize. str in, str out (bytes in, bytes out).
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/detail/spaces.hpp"
#include "rapidgrade/normalize.hpp"

namespace rapidgrade::bindings {
namespace {

using normalize::Normalized;
using normalize::Options;

py::object to_python(const std::string& s, bool as_bytes) {
  if (!as_bytes) return to_str(s);
  PyObject* out = PyBytes_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(out);
}

// The normalized text as the caller's type; the caller's own object when nothing changed (a
// canonical answer, the common case), which saves decoding and allocating a new one.
py::object result_object(const Text& text, const std::string& out) {
  PyObject* original = text.original.ptr();
  const bool exact = text.is_bytes ? PyBytes_CheckExact(original) : PyUnicode_CheckExact(original);
  if (exact && !text.encoded && out.size() == text.utf8.size() && out == text.utf8) return text.original;
  return to_python(out, text.is_bytes);
}

py::object build(const Normalized& r, const Text& text, const py::handle& type) {
  return new_record(type, {result_object(text, r.text), py::bool_(r.percent), py::bool_(r.degrees)});
}

py::object normalize_latex(const py::handle& s, bool units, bool equations) {
  const Text text = as_text(s, "normalize_latex", "s");
  const Normalized r = normalize::normalize(text.utf8, Options{units, equations});
  return result_object(text, r.text);
}

py::object normalize_answer(const py::handle& s, const py::handle& type, bool units, bool equations) {
  check_record_type(type, "normalize_answer", "normalized_type");
  const Text text = as_text(s, "normalize_answer", "s");
  return build(normalize::normalize(text.utf8, Options{units, equations}), text, type);
}

// normalize over `texts` on `threads` threads, make(i, result) building each output item (GIL
// held, in order) while the rest is still being normalized.
template <typename Make>
py::list run_many(const std::vector<Text>& texts, bool units, bool equations, const py::object& threads,
                  const char* function, Make&& make) {
  const unsigned n_threads = resolve_threads(threads, function);
  const std::size_t n = texts.size();
  std::vector<Normalized> results(n);
  const Options options{units, equations};
  py::list out(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) results[i] = normalize::normalize(texts[i].utf8, options);
      },
      [&](std::size_t i) {
        set_item(out, i, make(i, results[i]));
        results[i] = Normalized{};
      });
  return out;
}

py::list normalize_many(const py::handle& strings, bool units, bool equations, const py::object& threads) {
  const std::vector<Text> texts = texts_of(strings, "normalize_many", "strings");
  return run_many(texts, units, equations, threads, "normalize_many",
                  [&](std::size_t i, const Normalized& r) { return result_object(texts[i], r.text); });
}

py::list normalize_answer_many(const py::handle& strings, const py::handle& type, bool units, bool equations,
                               const py::object& threads) {
  check_record_type(type, "normalize_answer_many", "normalized_type");
  const std::vector<Text> texts = texts_of(strings, "normalize_answer_many", "strings");
  return run_many(texts, units, equations, threads, "normalize_answer_many",
                  [&](std::size_t i, const Normalized& r) { return build(r, texts[i], type); });
}

}  // namespace

void bind_normalize(py::module_& m) {
  m.def(
      "unicode_spaces",
      [] {
        py::list out;
        for (const char32_t c : rapidgrade::detail::kUnicodeSpaces) out.append(static_cast<int>(c));
        return out;
      },
      "The Unicode spaces every reader takes as ' ' (detail/spaces.hpp), as code points.");
  py::tuple units(normalize::kUnitWordCount);
  for (std::size_t k = 0; k < normalize::kUnitWordCount; ++k) units[k] = py::str(std::string(normalize::kUnitWords[k]));
  m.attr("UNIT_WORDS") = units;
  m.def("normalize_latex", &normalize_latex, py::arg("s"), py::kw_only(), py::arg("units") = true,
        py::arg("equations") = true, "Canonical form of an answer string (see rapidgrade.normalize_latex).");
  m.def("normalize_answer", &normalize_answer, py::arg("s"), py::arg("normalized_type"), py::kw_only(),
        py::arg("units") = true, py::arg("equations") = true,
        "normalize_latex plus whether a percent sign and a degree mark were removed, as "
        "normalized_type(text, percent, degrees).");
  m.def("normalize_many", &normalize_many, py::arg("strings"), py::kw_only(), py::arg("units") = true,
        py::arg("equations") = true, py::arg("threads") = py::none(),
        "normalize_latex over a sequence on `threads` threads with the GIL released.");
  m.def("normalize_answer_many", &normalize_answer_many, py::arg("strings"), py::arg("normalized_type"), py::kw_only(),
        py::arg("units") = true, py::arg("equations") = true, py::arg("threads") = py::none(),
        "normalize_answer over a sequence on `threads` threads with the GIL released.");
}

}  // namespace rapidgrade::bindings
