// Bindings of rapidgrade::scan. Spans are built as instances of the caller-supplied tuple
// subclass (rapidgrade.scan.Span, a NamedTuple) with tuple.__new__, at C speed. A span holds its
// offsets and a reference to the caller's text, not a copy of its content: nested boxes would
// otherwise copy the text once per level (quadratic time and memory in the nesting depth).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include "convert.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::bindings {
namespace {

using scan::Span;

// Rewrites the byte offsets of spans into the caller's units (code points for str). Touches no
// Python object, so batch workers call it with the GIL released.
void convert_spans(const Text& text, std::vector<Span>& spans) {
  if (spans.empty()) return;
  std::vector<std::size_t*> offsets;
  offsets.reserve(spans.size() * 4);
  for (Span& s : spans) {
    offsets.push_back(&s.start);
    offsets.push_back(&s.end);
    offsets.push_back(&s.outer_start);
    offsets.push_back(&s.outer_end);
  }
  to_caller_units(text, offsets);
}

// The spans, with offsets already in the caller's units, as span_type instances
// (start, end, outer_start, outer_end, kind, text): O(1) per span, whatever its length.
py::list build_spans(const Text& text, const std::vector<Span>& spans, const py::handle& span_type) {
  py::list out(spans.size());
  for (std::size_t k = 0; k < spans.size(); ++k) {
    const Span& s = spans[k];
    set_item(out, k,
             new_record(span_type, {py::int_(s.start), py::int_(s.end), py::int_(s.outer_start), py::int_(s.outer_end),
                                    py::str(scan::kind_name(s.kind)), text.original}));
  }
  return out;
}

py::list find_boxed(const py::handle& text_obj, const py::handle& span_type) {
  check_record_type(span_type, "find_boxed", "span_type");
  const Text text = as_text(text_obj, "find_boxed", "text");
  std::vector<Span> spans = scan::find_boxed(text.utf8);
  convert_spans(text, spans);
  return build_spans(text, spans, span_type);
}

py::list find_math_spans(const py::handle& text_obj, const py::handle& span_type) {
  check_record_type(span_type, "find_math_spans", "span_type");
  const Text text = as_text(text_obj, "find_math_spans", "text");
  std::vector<Span> spans = scan::find_math_spans(text.utf8);
  convert_spans(text, spans);
  return build_spans(text, spans, span_type);
}

py::list find_boxed_many(const py::handle& texts_obj, const py::handle& span_type, const py::object& threads) {
  check_record_type(span_type, "find_boxed_many", "span_type");
  const unsigned n_threads = resolve_threads(threads, "find_boxed_many");
  const std::vector<Text> texts = texts_of(texts_obj, "find_boxed_many", "texts");
  const std::size_t n = texts.size();
  std::vector<std::vector<Span>> results(n);
  py::list out(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          results[i] = scan::find_boxed(texts[i].utf8);
          convert_spans(texts[i], results[i]);
        }
      },
      [&](std::size_t i) {
        set_item(out, i, build_spans(texts[i], results[i], span_type));
        std::vector<Span>().swap(results[i]);
      });
  return out;
}

}  // namespace

void bind_scan(py::module_& m) {
  m.def("find_boxed", &find_boxed, py::arg("text"), py::arg("span_type"),
        "Every \\boxed{...}/\\fbox{...} in text, as span_type instances ordered by outer_start.");
  m.def("find_math_spans", &find_math_spans, py::arg("text"), py::arg("span_type"),
        "Every $...$, $$...$$, \\(...\\) and \\[...\\] span in text, in order.");
  m.def("find_boxed_many", &find_boxed_many, py::arg("texts"), py::arg("span_type"), py::kw_only(),
        py::arg("threads") = py::none(),
        "find_boxed over a sequence of texts on `threads` threads with the GIL released.");
  m.def(
      "vector_loops", [] { return detail::has_avx2() ? "avx2" : "sse2"; },
      "Which form of the scanning loops runs: 'avx2' where the CPU has AVX2 and the environment variable "
      "RAPIDGRADE_NO_AVX2 is unset or empty, else 'sse2'. Read once per process.");
}

}  // namespace rapidgrade::bindings
