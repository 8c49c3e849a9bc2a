// Argument conversion shared by the bindings: text in, offsets out, threads, GIL handling.
#pragma once

#include <pybind11/pybind11.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/parallel.hpp"
#include "rapidgrade/utf8.hpp"

namespace rapidgrade::bindings {

namespace py = pybind11;

/// UTF-8 view of a Python str or bytes argument. For str, the view is Python's cached UTF-8
/// form; a str with lone surrogates (which has no UTF-8 form) is encoded with each surrogate
/// replaced by '?', so that code-point offsets stay exact (slices are still taken from the
/// original object, so the caller gets its own characters back).
struct Text {
  std::string_view utf8;
  py::object original;  // the caller's str or bytes; keeps `utf8` alive when it is cached there
  py::object encoded;   // the replacement-encoded copy `utf8` points into, for lone surrogates
  bool is_bytes = false;
  bool ascii = false;  // offsets in bytes and code points coincide
};

/// Converts `obj` or raises TypeError naming the function and argument.
Text as_text(py::handle obj, const char* function, const char* argument);

/// The items of a sequence of str/bytes (lists and tuples read directly) as Text. Raises
/// TypeError "<function>: <argument> must be a sequence of str" for a str, bytes or non-sequence,
/// and names the item ("<argument>[i]") when one has the wrong type.
std::vector<Text> texts_of(py::handle obj, const char* function, const char* argument);

/// Converts every byte offset in `offsets` to the caller's units (code points for str).
void to_caller_units(const Text& text, std::vector<std::size_t*>& offsets);

/// `text[start:end]` in the caller's units, as the caller's type (str or bytes), sliced from
/// the original object so that the characters are exactly the caller's.
py::object slice(const Text& text, std::size_t start, std::size_t end);

/// Validates the `threads` keyword: None means all hardware threads; otherwise an int >= 1.
unsigned resolve_threads(const py::object& threads, const char* function);

/// Runs f(i) for i in [0, n) on `threads` threads with the GIL released, in chunks; between
/// chunks the GIL is taken back to let Ctrl-C through (PyErr_CheckSignals).
template <typename F>
void run_released(std::size_t n, unsigned threads, F&& f) {
  constexpr std::size_t kChunk = 16384;
  for (std::size_t begin = 0; begin < n; begin += kChunk) {
    const std::size_t end = std::min(n, begin + kChunk);
    {
      py::gil_scoped_release release;
      parallel_for(end - begin, threads, [&](std::size_t k) { f(begin + k); });
    }
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
}

}  // namespace rapidgrade::bindings
