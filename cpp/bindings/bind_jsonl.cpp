// Bindings of rapidgrade::jsonl: the scoring job's reader of JSON lines (jsonl_pick) and writer
// of evaluated lines (jsonl_splice). Lines are read with the GIL released, in the batch runner's
// blocks (Ctrl-C is let through between blocks); Python objects are built with the GIL held.
#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/io/jsonl.hpp"
#include "rapidgrade/parallel.hpp"

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

// The Python value of a picked value that is not a string.
py::object scalar_object(const jsonl::Value& v) {
  switch (v.kind) {
    case jsonl::Kind::kTrue: return py::bool_(true);
    case jsonl::Kind::kFalse: return py::bool_(false);
    case jsonl::Kind::kInt: return py::int_(v.integer);
    case jsonl::Kind::kFloat: return py::float_(v.real);
    default: return py::none();
  }
}

// Reads `views` (JSON lines) for the pick of `keys_obj` (skipping lines with a key of
// `reserved_obj`) on `threads` threads; with `lines` the lines are also returned as bytes.
// In four steps, so that the bytes are copied on every thread and only the objects are made
// one at a time: the lines are read (without the GIL); the str and bytes objects are allocated
// (with it); their bytes are written (without it); the columns are filled (with it). A string
// that is not ASCII is decoded to UTF-8 in the third step and made a str in the fourth.
py::tuple pick_views(const std::vector<std::string_view>& views, const py::handle& keys_obj,
                     const py::handle& reserved_obj, unsigned threads, const char* fn, py::list* lines) {
  jsonl::Keys keys;
  keys.pick = names_of(keys_obj, fn, "keys");
  keys.reserved = names_of(reserved_obj, fn, "reserved");
  const std::size_t n = views.size();
  const std::size_t k_keys = keys.pick.size();

  std::string status(n, '\0');
  std::vector<jsonl::Value> values(n * k_keys);
  {
    py::gil_scoped_release release;
    parallel_for(n, threads, [&](std::size_t i) {
      std::size_t b = 0;
      std::size_t e = 0;
      if (jsonl::read_line(views[i], keys, b, e, values.data() + i * k_keys)) status[i] = '\1';
    });
  }
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();

  // the objects, allocated; an ASCII str or a line's bytes is written in the next step
  std::vector<py::object> objects(n * k_keys);
  std::vector<py::object> line_objects(lines != nullptr ? n : 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (lines != nullptr) {
      PyObject* line = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(views[i].size()));
      if (line == nullptr) throw py::error_already_set();
      line_objects[i] = py::reinterpret_steal<py::object>(line);
    }
    if (status[i] == '\0') continue;
    for (std::size_t k = 0; k < k_keys; ++k) {
      const jsonl::Value& v = values[i * k_keys + k];
      if (v.kind != jsonl::Kind::kString) {
        objects[i * k_keys + k] = scalar_object(v);
      } else if (v.ascii) {
        PyObject* str = PyUnicode_New(static_cast<Py_ssize_t>(v.decoded_size), 127);
        if (str == nullptr) throw py::error_already_set();
        objects[i * k_keys + k] = py::reinterpret_steal<py::object>(str);
      }
    }
  }

  std::vector<std::string> decoded(n * k_keys);  // the UTF-8 of the strings that are not ASCII
  {
    py::gil_scoped_release release;  // the objects are not shared yet: their bytes are written here
    parallel_for(n, threads, [&](std::size_t i) {
      thread_local std::string scratch;
      if (lines != nullptr) std::memcpy(PyBytes_AS_STRING(line_objects[i].ptr()), views[i].data(), views[i].size());
      if (status[i] == '\0') return;
      for (std::size_t k = 0; k < k_keys; ++k) {
        const jsonl::Value& v = values[i * k_keys + k];
        if (v.kind != jsonl::Kind::kString) continue;
        char* out = nullptr;
        if (!v.ascii) {
          decoded[i * k_keys + k].resize(v.decoded_size + jsonl::kDecodePadding);
          jsonl::decode_string(views[i], v, decoded[i * k_keys + k].data());
          continue;
        }
        out = reinterpret_cast<char*>(PyUnicode_1BYTE_DATA(objects[i * k_keys + k].ptr()));
        if (!v.escaped) {
          std::memcpy(out, views[i].data() + v.begin, v.decoded_size);
        } else {
          scratch.resize(v.decoded_size + jsonl::kDecodePadding);  // decode_string writes past the text
          jsonl::decode_string(views[i], v, scratch.data());
          std::memcpy(out, scratch.data(), v.decoded_size);
        }
      }
    });
  }
  if (PyErr_CheckSignals() != 0) throw py::error_already_set();

  std::vector<py::list> columns;
  for (std::size_t k = 0; k < k_keys; ++k) columns.emplace_back(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (lines != nullptr) set_item(*lines, i, std::move(line_objects[i]));
    for (std::size_t k = 0; k < k_keys; ++k) {
      py::object& value = objects[i * k_keys + k];
      const jsonl::Value& v = values[i * k_keys + k];
      if (status[i] != '\0' && v.kind == jsonl::Kind::kString && !v.ascii) {
        std::string& utf8 = decoded[i * k_keys + k];
        PyObject* str = PyUnicode_DecodeUTF8(utf8.data(), static_cast<Py_ssize_t>(v.decoded_size), "strict");
        if (str == nullptr) throw py::error_already_set();  // valid: read_line checked it
        value = py::reinterpret_steal<py::object>(str);
        std::string().swap(utf8);
      }
      set_item(columns[k], i, value ? std::move(value) : py::none());
    }
  }
  py::list value_columns(k_keys);
  for (std::size_t k = 0; k < k_keys; ++k) set_item(value_columns, k, std::move(columns[k]));
  return py::make_tuple(py::bytes(status), std::move(value_columns));
}

py::tuple jsonl_pick(const py::handle& lines_obj, const py::handle& keys_obj, const py::handle& reserved_obj,
                     const py::object& threads_obj) {
  const char* fn = "jsonl_pick";
  const unsigned threads = resolve_threads(threads_obj, fn);
  const std::vector<py::object> lines = bytes_items(lines_obj, fn, "lines");
  std::vector<std::string_view> views(lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i) views[i] = view_of(lines[i]);
  return pick_views(views, keys_obj, reserved_obj, threads, fn, nullptr);
}

// jsonl_pick over the lines of one buffer: the lines are cut at each '\n' (kept with its line;
// the last line may have none), read as jsonl_pick reads them, and returned as bytes, so that a
// reader hands over a block of the file instead of building a bytes object per line in Python.
py::tuple jsonl_pick_block(const py::handle& data_obj, const py::handle& keys_obj, const py::handle& reserved_obj,
                           const py::object& stop_obj, const py::object& threads_obj) {
  const char* fn = "jsonl_pick_block";
  const unsigned threads = resolve_threads(threads_obj, fn);
  if (!PyBytes_Check(data_obj.ptr())) throw py::type_error("jsonl_pick_block: data must be bytes");
  const py::object data = py::reinterpret_borrow<py::object>(data_obj);  // held for the batch
  std::string_view all = view_of(data);
  if (!stop_obj.is_none()) {
    const auto stop = stop_obj.cast<long long>();
    if (stop < 0 || static_cast<unsigned long long>(stop) > all.size()) {
      throw py::value_error("jsonl_pick_block: stop must be between 0 and len(data)");
    }
    all = all.substr(0, static_cast<std::size_t>(stop));
  }
  std::vector<std::string_view> views;
  for (std::size_t at = 0; at < all.size();) {
    const void* nl = std::memchr(all.data() + at, '\n', all.size() - at);
    const std::size_t end =
        nl == nullptr ? all.size() : static_cast<std::size_t>(static_cast<const char*>(nl) - all.data()) + 1;
    views.push_back(all.substr(at, end - at));
    at = end;
  }
  py::list lines(views.size());
  py::tuple picked = pick_views(views, keys_obj, reserved_obj, threads, fn, &lines);
  return py::make_tuple(picked[0], picked[1], std::move(lines));
}

// The inputs of a splice: per line the object's text (whitespace around it dropped), its head,
// its string value (or null) and its tail, viewed in the Python objects held here, and the size
// of the line it makes (without a newline).
struct SpliceLine {
  std::string_view text, head, value, tail;
  bool null = false;
  std::size_t size = 0;
};
struct SpliceInput {
  std::vector<py::object> texts, heads, tails, strings;  // held while the views are used
  std::vector<SpliceLine> lines;
};

SpliceInput splice_input(const py::handle& texts_obj, const py::handle& heads_obj, const py::handle& strings_obj,
                         const py::handle& tails_obj, const char* fn) {
  SpliceInput in;
  in.texts = bytes_items(texts_obj, fn, "texts");
  in.heads = bytes_items(heads_obj, fn, "heads");
  in.tails = bytes_items(tails_obj, fn, "tails");
  const std::size_t n = in.texts.size();
  if (in.heads.size() != n || in.tails.size() != n || static_cast<std::size_t>(py::len(strings_obj)) != n) {
    throw py::value_error(std::string(fn) + ": texts, heads, strings and tails must have the same length");
  }
  if (!PyList_Check(strings_obj.ptr()) && !PyTuple_Check(strings_obj.ptr())) {
    throw py::type_error(std::string(fn) + ": strings must be a list of str or None");
  }
  const py::sequence strings = py::reinterpret_borrow<py::sequence>(strings_obj);
  in.strings.resize(n);
  in.lines.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    SpliceLine& line = in.lines[i];
    line.text = view_of(in.texts[i]);
    while (!line.text.empty() && is_json_space(line.text.front())) line.text.remove_prefix(1);
    while (!line.text.empty() && is_json_space(line.text.back())) line.text.remove_suffix(1);
    if (line.text.empty() || line.text.back() != '}' || line.text.front() != '{') {
      throw py::value_error(std::string(fn) + ": texts[" + std::to_string(i) + "] is not a JSON object's text");
    }
    line.head = view_of(in.heads[i]);
    line.tail = view_of(in.tails[i]);
    in.strings[i] = strings[i];
    line.null = in.strings[i].is_none();
    if (!line.null) {
      if (!PyUnicode_Check(in.strings[i].ptr())) {
        throw py::type_error(std::string(fn) + ": strings[" + std::to_string(i) + "] must be str or None");
      }
      Py_ssize_t size = 0;
      const char* data = PyUnicode_AsUTF8AndSize(in.strings[i].ptr(), &size);
      if (data == nullptr) throw py::error_already_set();  // lone surrogates, as orjson refuses them
      line.value = std::string_view(data, static_cast<std::size_t>(size));
    }
    const std::size_t value_size = line.null ? 4 : jsonl::json_string_size(line.value);
    line.size = line.text.size() - 1 + line.head.size() + value_size + line.tail.size();
  }
  return in;
}

// Writes `line` (line.size bytes) at p; returns the end.
char* write_spliced(char* p, const SpliceLine& line) {
  std::memcpy(p, line.text.data(), line.text.size() - 1);
  p += line.text.size() - 1;
  std::memcpy(p, line.head.data(), line.head.size());
  p += line.head.size();
  if (line.null) {
    std::memcpy(p, "null", 4);
    p += 4;
  } else {
    p = jsonl::write_json_string(p, line.value);
  }
  std::memcpy(p, line.tail.data(), line.tail.size());
  return p + line.tail.size();
}

py::list jsonl_splice(const py::handle& texts_obj, const py::handle& heads_obj, const py::handle& strings_obj,
                      const py::handle& tails_obj) {
  const SpliceInput in = splice_input(texts_obj, heads_obj, strings_obj, tails_obj, "jsonl_splice");
  py::list out(in.lines.size());
  for (std::size_t i = 0; i < in.lines.size(); ++i) {
    PyObject* line = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(in.lines[i].size));
    if (line == nullptr) throw py::error_already_set();
    write_spliced(PyBytes_AS_STRING(line), in.lines[i]);
    set_item(out, i, py::reinterpret_steal<py::object>(line));
    if ((i & 4095) == 4095 && PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return out;
}

// jsonl_splice's lines written one after another into one buffer, each followed by '\n', with
// the offset where each line's newline ends: what the scoring job writes to its output at once.
// The views are taken with the GIL held; the bytes are written with it released.
py::tuple jsonl_splice_joined(const py::handle& texts_obj, const py::handle& heads_obj, const py::handle& strings_obj,
                              const py::handle& tails_obj) {
  const SpliceInput in = splice_input(texts_obj, heads_obj, strings_obj, tails_obj, "jsonl_splice_joined");
  std::vector<std::uint64_t> ends(in.lines.size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < in.lines.size(); ++i) {
    total += in.lines[i].size + 1;
    ends[i] = total;
  }
  PyObject* buffer = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(total));
  if (buffer == nullptr) throw py::error_already_set();
  py::bytes out = py::reinterpret_steal<py::bytes>(buffer);
  {
    py::gil_scoped_release release;  // the views stay valid: `in` holds their objects
    char* p = PyBytes_AS_STRING(buffer);
    for (const SpliceLine& line : in.lines) {
      p = write_spliced(p, line);
      *p++ = '\n';
    }
  }
  return py::make_tuple(std::move(out),
                        py::bytes(reinterpret_cast<const char*>(ends.data()), ends.size() * sizeof(std::uint64_t)));
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
  m.def("jsonl_pick_block", &jsonl_pick_block, py::arg("data"), py::arg("keys"), py::arg("reserved"), py::kw_only(),
        py::arg("stop") = py::none(), py::arg("threads") = py::none(),
        R"doc(jsonl_pick over the lines of `data` (bytes; its first `stop` bytes when `stop` is given):
the lines are cut after each newline (which stays with its line; the last line may have none)
and read as jsonl_pick reads them.

Returns (status, columns, lines): status and columns as jsonl_pick returns them, and lines, the
list of the lines as bytes, as `data.splitlines(keepends=True)` would give them for "\n"
alone (what a binary file's readlines() gives).)doc");
  m.def("jsonl_splice", &jsonl_splice, py::arg("texts"), py::arg("heads"), py::arg("strings"), py::arg("tails"),
        R"doc(Evaluated lines: texts[i] (a JSON object's text, whitespace around it dropped) without its
closing brace, then heads[i],
then strings[i] written as a JSON string the way orjson writes it (null for None), then tails[i]
(which closes the object). All four sequences have one entry per line.)doc");
  m.def("jsonl_splice_joined", &jsonl_splice_joined, py::arg("texts"), py::arg("heads"), py::arg("strings"),
        py::arg("tails"),
        R"doc(jsonl_splice's lines joined: (data, ends), where data holds every line followed by a newline
and ends the native-endian uint64 offset in data after each line's newline (read it with
memoryview(ends).cast("Q")). The bytes are written with the GIL released.)doc");
}

}  // namespace rapidgrade::bindings
