#include "convert.hpp"

#include <algorithm>

namespace rapidgrade::bindings {

Text as_text(py::handle obj, const char* function, const char* argument) {
  Text text;
  text.original = py::reinterpret_borrow<py::object>(obj);
  PyObject* o = obj.ptr();
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(o, &size);
    if (data != nullptr) {
      text.utf8 = std::string_view(data, static_cast<std::size_t>(size));
    } else {
      // Lone surrogates: encode with replacement, one '?' per surrogate.
      PyErr_Clear();
      PyObject* encoded = PyUnicode_AsEncodedString(o, "utf-8", "replace");
      if (encoded == nullptr) throw py::error_already_set();
      text.encoded = py::reinterpret_steal<py::object>(encoded);
      text.utf8 = std::string_view(PyBytes_AS_STRING(encoded),
                                   static_cast<std::size_t>(PyBytes_GET_SIZE(encoded)));
    }
    text.ascii = PyUnicode_IS_ASCII(o);
    return text;
  }
  if (PyBytes_Check(o)) {
    text.utf8 = std::string_view(PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o)));
    text.is_bytes = true;
    text.ascii = true;
    return text;
  }
  throw py::type_error(std::string(function) + ": " + argument + " must be str or bytes, not " +
                       Py_TYPE(o)->tp_name);
}

std::vector<Text> texts_of(py::handle obj, const char* function, const char* argument, bool allow_bytes) {
  if (PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) || !PySequence_Check(obj.ptr())) {
    throw py::type_error(std::string(function) + ": " + argument + " must be a sequence of str");
  }
  py::object fast = py::reinterpret_steal<py::object>(PySequence_Fast(obj.ptr(), "not a sequence"));
  if (!fast) throw py::error_already_set();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  std::vector<Text> texts;
  texts.reserve(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = items[i];
    if (!PyUnicode_Check(item) && !(allow_bytes && PyBytes_Check(item))) {
      const std::string where = std::string(argument) + "[" + std::to_string(i) + "]";
      if (!allow_bytes) {
        throw py::type_error(std::string(function) + ": " + where + " must be str, not " + Py_TYPE(item)->tp_name);
      }
      as_text(item, function, where.c_str());  // raises the TypeError naming the item
    }
    texts.push_back(as_text(item, function, argument));
  }
  return texts;
}

void to_caller_units(const Text& text, std::vector<std::size_t*>& offsets) {
  if (text.ascii || offsets.empty()) return;
  utf8::bytes_to_code_points(text.utf8, offsets);
}

py::object slice(const Text& text, std::size_t start, std::size_t end) {
  PyObject* original = text.original.ptr();
  PyObject* out = nullptr;
  if (text.is_bytes) {
    out = PyBytes_FromStringAndSize(text.utf8.data() + start, static_cast<Py_ssize_t>(end - start));
  } else {
    out = PyUnicode_Substring(original, static_cast<Py_ssize_t>(start), static_cast<Py_ssize_t>(end));
  }
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(out);
}

unsigned resolve_threads(const py::object& threads, const char* function) {
  if (threads.is_none()) return default_threads();
  if (!PyLong_Check(threads.ptr()) || PyBool_Check(threads.ptr())) {
    throw py::type_error(std::string(function) + ": threads must be an int or None");
  }
  const long n = threads.cast<long>();
  if (n < 1) throw py::value_error(std::string(function) + ": threads must be >= 1, got " + std::to_string(n));
  return static_cast<unsigned>(std::min<long>(n, 1024));
}

}  // namespace rapidgrade::bindings
