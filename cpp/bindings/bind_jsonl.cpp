// Bindings of rapidgrade::jsonl: the scoring job's reader of JSON lines (jsonl_pick) and writer
// of evaluated lines (jsonl_splice). Lines are read with the GIL released, in the batch runner's
// blocks (Ctrl-C is let through between blocks); Python objects are built with the GIL held.
#include <pybind11/pybind11.h>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/jsonl.hpp"

namespace rapidgrade::bindings {
namespace {

// The bytes items of `obj` (a list or tuple of bytes), each held by a reference for the batch.
std::vector<py::object> bytes_items(const py::handle& obj, const char* function, const char* argument) {
  if (!PyList_Check(obj.ptr()) && !PyTuple_Check(obj.ptr())) {
    throw py::type_error(std::string(function) + ": " + argument + " must be a list of bytes");
  }
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  std::vector<py::object> items;
  items.reserve(seq.size());
  for (std::size_t i = 0; i < seq.size(); ++i) {
    py::object item = seq[i];
    if (!PyBytes_Check(item.ptr())) {
      throw py::type_error(std::string(function) + ": " + argument + "[" + std::to_string(i) + "] must be bytes");
    }
    items.push_back(std::move(item));
  }
  return items;
}

constexpr bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string_view view_of(const py::object& bytes) {
  return {PyBytes_AS_STRING(bytes.ptr()), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes.ptr()))};
}

// The str items of `obj` (a sequence of str, not a str), as std::string.
std::vector<std::string> names_of(const py::handle& obj, const char* function, const char* argument) {
  std::vector<std::string> names;
  for (const Text& text : texts_of(obj, function, argument, /*allow_bytes=*/false)) names.emplace_back(text.utf8);
  return names;
}

// The Python value of a picked value; a string with escapes comes decoded in `decoded`.
py::object value_object(std::string_view line, const jsonl::Value& v, const std::string& decoded) {
  switch (v.kind) {
    case jsonl::Kind::kMissing:
    case jsonl::Kind::kNull: return py::none();
    case jsonl::Kind::kTrue: return py::bool_(true);
    case jsonl::Kind::kFalse: return py::bool_(false);
    case jsonl::Kind::kInt: return py::int_(v.integer);
    case jsonl::Kind::kFloat: return py::float_(v.real);
    case jsonl::Kind::kString: break;
  }
  const auto size = static_cast<Py_ssize_t>(v.decoded_size);
  const char* text = v.escaped ? decoded.data() : line.data() + v.begin;
  PyObject* s = nullptr;
  if (v.ascii) {
    s = PyUnicode_New(size, 127);
    if (s != nullptr && size > 0) std::memcpy(PyUnicode_1BYTE_DATA(s), text, v.decoded_size);
  } else {
    s = PyUnicode_DecodeUTF8(text, size, "strict");  // valid: read_line checked it
  }
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

py::tuple jsonl_pick(const py::handle& lines_obj, const py::handle& keys_obj, const py::handle& reserved_obj,
                     const py::object& threads_obj) {
  const char* fn = "jsonl_pick";
  const unsigned threads = resolve_threads(threads_obj, fn);
  const std::vector<py::object> lines = bytes_items(lines_obj, fn, "lines");
  jsonl::Keys keys;
  keys.pick = names_of(keys_obj, fn, "keys");
  keys.reserved = names_of(reserved_obj, fn, "reserved");
  const std::size_t n = lines.size();
  const std::size_t k_keys = keys.pick.size();
  std::vector<std::string_view> views(n);
  for (std::size_t i = 0; i < n; ++i) views[i] = view_of(lines[i]);

  std::string status(n, '\0');
  std::vector<jsonl::Value> values(n * k_keys);
  std::vector<std::string> decoded(n * k_keys);  // the strings with escapes, decoded by the workers
  std::vector<py::list> columns;
  for (std::size_t k = 0; k < k_keys; ++k) columns.emplace_back(n);
  run_pipelined(
      n, threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          std::size_t b = 0;
          std::size_t e = 0;
          jsonl::Value* row = values.data() + i * k_keys;
          if (!jsonl::read_line(views[i], keys, b, e, row)) continue;
          status[i] = '\1';
          for (std::size_t k = 0; k < k_keys; ++k) {
            if (row[k].kind != jsonl::Kind::kString || !row[k].escaped) continue;
            std::string& out = decoded[i * k_keys + k];
            out.resize(row[k].decoded_size + jsonl::kDecodePadding);
            jsonl::decode_string(views[i], row[k], out.data());
          }
        }
      },
      [&](std::size_t i) {
        if (status[i] == '\0') {
          for (std::size_t k = 0; k < k_keys; ++k) set_item(columns[k], i, py::none());
          return;
        }
        for (std::size_t k = 0; k < k_keys; ++k) {
          set_item(columns[k], i, value_object(views[i], values[i * k_keys + k], decoded[i * k_keys + k]));
          std::string().swap(decoded[i * k_keys + k]);  // freed as soon as it is a str
        }
      });
  py::list value_columns(k_keys);
  for (std::size_t k = 0; k < k_keys; ++k) set_item(value_columns, k, std::move(columns[k]));
  return py::make_tuple(py::bytes(status), std::move(value_columns));
}

py::list jsonl_splice(const py::handle& texts_obj, const py::handle& heads_obj, const py::handle& strings_obj,
                      const py::handle& tails_obj) {
  const char* fn = "jsonl_splice";
  const std::vector<py::object> texts = bytes_items(texts_obj, fn, "texts");
  const std::vector<py::object> heads = bytes_items(heads_obj, fn, "heads");
  const std::vector<py::object> tails = bytes_items(tails_obj, fn, "tails");
  const std::size_t n = texts.size();
  if (heads.size() != n || tails.size() != n || static_cast<std::size_t>(py::len(strings_obj)) != n) {
    throw py::value_error("jsonl_splice: texts, heads, strings and tails must have the same length");
  }
  if (!PyList_Check(strings_obj.ptr()) && !PyTuple_Check(strings_obj.ptr())) {
    throw py::type_error("jsonl_splice: strings must be a list of str or None");
  }
  const py::sequence strings = py::reinterpret_borrow<py::sequence>(strings_obj);
  py::list out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::string_view text = view_of(texts[i]);
    while (!text.empty() && is_json_space(text.front())) text.remove_prefix(1);
    while (!text.empty() && is_json_space(text.back())) text.remove_suffix(1);
    if (text.empty() || text.back() != '}' || text.front() != '{') {
      throw py::value_error("jsonl_splice: texts[" + std::to_string(i) + "] is not a JSON object's text");
    }
    const std::string_view head = view_of(heads[i]);
    const std::string_view tail = view_of(tails[i]);
    const py::object item = strings[i];
    std::string_view value;
    bool null = item.is_none();
    if (!null) {
      if (!PyUnicode_Check(item.ptr())) {
        throw py::type_error("jsonl_splice: strings[" + std::to_string(i) + "] must be str or None");
      }
      Py_ssize_t size = 0;
      const char* data = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
      if (data == nullptr) throw py::error_already_set();  // lone surrogates, as orjson refuses them
      value = std::string_view(data, static_cast<std::size_t>(size));
    }
    const std::size_t value_size = null ? 4 : jsonl::json_string_size(value);
    const std::size_t size = text.size() - 1 + head.size() + value_size + tail.size();
    PyObject* line = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(size));
    if (line == nullptr) throw py::error_already_set();
    char* p = PyBytes_AS_STRING(line);
    std::memcpy(p, text.data(), text.size() - 1);
    p += text.size() - 1;
    std::memcpy(p, head.data(), head.size());
    p += head.size();
    if (null) {
      std::memcpy(p, "null", 4);
      p += 4;
    } else {
      p = jsonl::write_json_string(p, value);
    }
    std::memcpy(p, tail.data(), tail.size());
    set_item(out, i, py::reinterpret_steal<py::object>(line));
    if ((i & 4095) == 4095 && PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return out;
}

}  // namespace

void bind_jsonl(py::module_& m) {
  m.def("jsonl_pick", &jsonl_pick, py::arg("lines"), py::arg("keys"), py::arg("reserved"), py::kw_only(),
        py::arg("threads") = py::none(),
        R"doc(Read JSON lines as the scoring job's reader of record (orjson) would, keeping only a few
top-level values: for each line, whether it is picked, its object's text, and the value of each
of `keys` (None when absent, as dict.get gives it).

A line is picked only when it is a JSON object that orjson reads exactly and the job's reader
keeps as the row's text; lines with invalid JSON or UTF-8, lone surrogates, integers of more than
18 digits, floats of magnitude >= 2**63, nesting deeper than 256, a carriage return before the
line's end, a top-level key written with escapes, a key of `keys` given twice or holding an
object or array, or any key of `reserved`, are not picked (the caller reads them itself).

Returns (status, columns): status is a bytes of one byte per line (1 picked, 0 not);
columns[k][i] the value of keys[k] in line i (str, int, float, bool or None; None when not
picked). The lines are read on `threads` threads (default: all cores) with the GIL released.)doc");
  m.def("jsonl_splice", &jsonl_splice, py::arg("texts"), py::arg("heads"), py::arg("strings"), py::arg("tails"),
        R"doc(Evaluated lines: texts[i] (a JSON object's text, whitespace around it dropped) without its
closing brace, then heads[i],
then strings[i] written as a JSON string the way orjson writes it (null for None), then tails[i]
(which closes the object). All four sequences have one entry per line.)doc");
}

}  // namespace rapidgrade::bindings
