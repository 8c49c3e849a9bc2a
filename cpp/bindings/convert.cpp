#include "convert.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "rapidgrade/detail/text.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace rapidgrade::bindings {

Text as_text(py::handle obj, const char* function, const char* argument) {
  Text text;
  text.original = py::reinterpret_borrow<py::object>(obj);
  PyObject* o = obj.ptr();
  if (PyUnicode_Check(o)) {
    text.ascii = PyUnicode_IS_ASCII(o);
    if (!text.ascii && reinterpret_cast<PyCompactUnicodeObject*>(o)->utf8 == nullptr) {
      // A non-ASCII str with no UTF-8 form cached: encode a copy that lives as long as this
      // Text (the batch), instead of PyUnicode_AsUTF8AndSize's copy cached in the str for good.
      PyObject* encoded = PyUnicode_AsUTF8String(o);
      if (encoded != nullptr) {
        text.utf8_copy = py::reinterpret_steal<py::object>(encoded);
        text.utf8 = std::string_view(PyBytes_AS_STRING(encoded), static_cast<std::size_t>(PyBytes_GET_SIZE(encoded)));
        return text;
      }
      PyErr_Clear();  // lone surrogates: replaced below
    }
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
      text.utf8 = std::string_view(PyBytes_AS_STRING(encoded), static_cast<std::size_t>(PyBytes_GET_SIZE(encoded)));
    }
    return text;
  }
  if (PyBytes_Check(o)) {
    text.utf8 = std::string_view(PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o)));
    text.is_bytes = true;
    text.ascii = true;
    return text;
  }
  throw py::type_error(std::string(function) + ": " + argument + " must be str or bytes, not " + Py_TYPE(o)->tp_name);
}

namespace {

// Items ahead of the one being read whose object header texts_of prefetches.
constexpr std::size_t kPrefetchItems = 32;

}  // namespace

TextSequence::TextSequence(py::handle obj, const char* function, const char* argument, bool allow_bytes)
    : function_(function), argument_(argument), allow_bytes_(allow_bytes) {
  if (PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()) || !PySequence_Check(obj.ptr())) {
    throw py::type_error(std::string(function) + ": " + argument + " must be a sequence of str");
  }
  fast_ = py::reinterpret_steal<py::object>(PySequence_Fast(obj.ptr(), "not a sequence"));
  if (!fast_) throw py::error_already_set();
  size_ = static_cast<std::size_t>(PySequence_Fast_GET_SIZE(fast_.ptr()));
}

std::vector<Text> TextSequence::texts(std::size_t begin, std::size_t end) const {
  // a list is read in place, not copied: another thread may have changed it while the GIL was
  // released between two slices
  check_size();
  end = std::min(end, size_);
  PyObject** items = PySequence_Fast_ITEMS(fast_.ptr());
  std::vector<Text> out;
  out.reserve(end > begin ? end - begin : 0);
  for (std::size_t i = begin; i < end; ++i) {
    // A batch's str objects are often far apart in memory (shuffled, or made one at a time):
    // ask for an object's header a few items ahead, so that the reads overlap.
    if (i + kPrefetchItems < end) detail::prefetch(items[i + kPrefetchItems]);
    check_item(items[i], i);
    out.push_back(as_text(items[i], function_, argument_));
  }
  return out;
}

void TextSequence::check_size() const {
  if (static_cast<std::size_t>(PySequence_Fast_GET_SIZE(fast_.ptr())) != size_) {
    throw std::runtime_error(std::string(function_) + ": " + argument_ + " changed size while being read");
  }
}

void TextSequence::check_item(PyObject* item, std::size_t i) const {
  if (PyUnicode_Check(item) || (allow_bytes_ && PyBytes_Check(item))) return;
  const std::string where = std::string(argument_) + "[" + std::to_string(i) + "]";
  if (!allow_bytes_) {
    throw py::type_error(std::string(function_) + ": " + where + " must be str, not " + Py_TYPE(item)->tp_name);
  }
  as_text(item, function_, where.c_str());  // raises the TypeError naming the item
}

HeldTexts TextSequence::refs(std::size_t begin, std::size_t end) const {
  check_size();
  end = std::min(end, size_);
  PyObject** items = PySequence_Fast_ITEMS(fast_.ptr());
  HeldTexts out;
  const std::size_t n = end > begin ? end - begin : 0;
  out.objects_.reserve(n);
  out.refs_.reserve(n);
  for (std::size_t i = begin; i < end; ++i) {
    if (i + kPrefetchItems < end) detail::prefetch(items[i + kPrefetchItems]);
    PyObject* item = items[i];
    check_item(item, i);
    Py_INCREF(item);
    out.objects_.push_back(item);  // held from here on: a later item's error drops it
    TextRef ref;
    if (PyBytes_Check(item)) {
      ref.data = PyBytes_AS_STRING(item);
      ref.length = static_cast<std::size_t>(PyBytes_GET_SIZE(item));
    } else if (PyUnicode_IS_ASCII(item)) {
      ref.data = PyUnicode_DATA(item);
      ref.length = static_cast<std::size_t>(PyUnicode_GET_LENGTH(item));
    } else if (PyUnicode_IS_COMPACT(item) && reinterpret_cast<PyCompactUnicodeObject*>(item)->utf8 != nullptr) {
      const auto* compact = reinterpret_cast<PyCompactUnicodeObject*>(item);
      ref.data = compact->utf8;
      ref.length = static_cast<std::size_t>(compact->utf8_length);
    } else {
      ref.data = PyUnicode_DATA(item);
      ref.length = static_cast<std::size_t>(PyUnicode_GET_LENGTH(item));
      ref.kind = static_cast<unsigned>(PyUnicode_KIND(item));
    }
    out.refs_.push_back(ref);
  }
  return out;
}

namespace {

// Bytes of the next str's storage that utf8_views asks for while it encodes one.
constexpr std::size_t kPrefetchStorage = 4096;

// Code units of a str that encode_code_points tests at once for an ASCII run (most of a
// model's text is ASCII, even in a str that is not: a run of 8 is common where a run of 16 is
// broken by every tenth character).
constexpr std::size_t kAsciiRun = 8;

// Most bytes the UTF-8 form of one code unit of a str's storage kind takes: 2 for kind 1
// (up to U+00FF), 3 for kind 2, 4 for kind 4.
std::size_t max_utf8_bytes(unsigned kind) noexcept { return kind == 1 ? 2 : kind == 2 ? 3 : 4; }

// Whether the kAsciiRun code units at `units` are all ASCII; if so, writes them at `out` as
// bytes. One word (1-byte units) or SSE2 vectors (2- and 4-byte units) where it can.
template <class Unit>
bool ascii_run(const Unit* units, char* out) noexcept {
  Unit any = 0;
  for (std::size_t j = 0; j < kAsciiRun; ++j) any |= units[j];
  if (any >= 0x80) return false;
  for (std::size_t j = 0; j < kAsciiRun; ++j) out[j] = static_cast<char>(units[j]);
  return true;
}

bool ascii_run(const Py_UCS1* units, char* out) noexcept {
  static_assert(kAsciiRun == sizeof(std::uint64_t), "one word of 1-byte units");
  std::uint64_t word;
  std::memcpy(&word, units, sizeof word);
  if ((word & 0x8080808080808080ull) != 0) return false;
  std::memcpy(out, &word, sizeof word);
  return true;
}

#if defined(__SSE2__)
bool ascii_run(const Py_UCS2* units, char* out) noexcept {
  static_assert(kAsciiRun * sizeof(Py_UCS2) == sizeof(__m128i), "one vector of 2-byte units");
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(units));
  const __m128i high = _mm_and_si128(v, _mm_set1_epi16(static_cast<short>(0xFF80)));  // bits above 0x7F
  if (_mm_movemask_epi8(_mm_cmpeq_epi16(high, _mm_setzero_si128())) != 0xFFFF) return false;
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(v, v));
  return true;
}

bool ascii_run(const Py_UCS4* units, char* out) noexcept {
  static_assert(kAsciiRun * sizeof(Py_UCS4) == 2 * sizeof(__m128i), "two vectors of 4-byte units");
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(units));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(units + 4));
  const __m128i high = _mm_and_si128(_mm_or_si128(lo, hi), _mm_set1_epi32(static_cast<int>(0xFFFFFF80u)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi32(high, _mm_setzero_si128())) != 0xFFFF) return false;
  const __m128i words = _mm_packs_epi32(lo, hi);  // each unit below 0x80: no saturation
  _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(words, words));
  return true;
}
#endif

// Writes the UTF-8 encoding of `n` code units of `Unit` (a str's PEP 393 storage) at `out`,
// which has room for n * max_utf8_bytes(sizeof(Unit)) bytes, each lone surrogate as '?' (what
// the "replace" error handler of Python's UTF-8 codec writes); returns the end of what it
// wrote. Runs of kAsciiRun ASCII units are narrowed at once, the rest one unit at a time.
template <class Unit>
char* encode_code_points(const Unit* units, std::size_t n, char* out) noexcept {
  std::size_t k = 0;
  while (k < n) {
    for (; n - k >= kAsciiRun && ascii_run(units + k, out); k += kAsciiRun, out += kAsciiRun) {
    }
    // one at a time until kAsciiRun ASCII units in a row have passed: in text that mixes
    // scripts ("所以 x = 4。") a run test would fail again at once
    for (std::size_t ascii = 0; k < n && ascii < kAsciiRun; ++k) {
      const char32_t cp = units[k];
      if (cp < 0x80) {
        *out++ = static_cast<char>(cp);
        ++ascii;
      } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        *out++ = '?';
        ascii = 0;
      } else {
        out = utf8::write_utf8(out, cp);
        ascii = 0;
      }
    }
  }
  return out;
}

// encode_code_points for the storage kind of `ref` (1, 2 or 4).
char* encode_code_points(const TextRef& ref, char* out) noexcept {
  switch (ref.kind) {
    case 1: return encode_code_points(static_cast<const Py_UCS1*>(ref.data), ref.length, out);
    case 2: return encode_code_points(static_cast<const Py_UCS2*>(ref.data), ref.length, out);
    default: return encode_code_points(static_cast<const Py_UCS4*>(ref.data), ref.length, out);
  }
}

}  // namespace

void utf8_views(const HeldTexts& held, std::size_t begin, std::size_t end, std::vector<std::string_view>& views,
                std::unique_ptr<char[]>& store) {
  views.resize(end - begin);
  std::size_t room = 0;  // the most the encoded texts can take
  for (std::size_t i = begin; i < end; ++i) {
    const TextRef& ref = held[i];
    if (ref.kind == 0) {
      views[i - begin] = std::string_view(static_cast<const char*>(ref.data), ref.length);
    } else {
      room += ref.length * max_utf8_bytes(ref.kind);
    }
  }
  // One buffer for the block, not zero-filled (every byte read is written first) and not
  // measured first: its unused tail is never touched, and it is freed with the block.
  store.reset(room > 0 ? new char[room] : nullptr);
  char* at = store.get();
  std::size_t ahead = begin;  // the next str whose storage is asked for (prefetched)
  for (std::size_t i = begin; i < end; ++i) {
    const TextRef& ref = held[i];
    if (ref.kind == 0) continue;
    // A batch's strs lie far apart and are read here for the first time: while this one is
    // encoded, ask for the storage of the next one to encode (its first kPrefetchStorage bytes).
    for (ahead = std::max(ahead, i + 1); ahead < end && held[ahead].kind == 0; ++ahead) {
    }
    if (ahead < end) {
      const auto* data = static_cast<const char*>(held[ahead].data);
      const std::size_t bytes = std::min(held[ahead].length * held[ahead].kind, kPrefetchStorage);
      for (std::size_t b = 0; b < bytes; b += 64) detail::prefetch(data + b);
    }
    char* const stop = encode_code_points(ref, at);
    views[i - begin] = std::string_view(at, static_cast<std::size_t>(stop - at));
    at = stop;
  }
}

std::vector<Text> texts_of(py::handle obj, const char* function, const char* argument, bool allow_bytes) {
  const TextSequence sequence(obj, function, argument, allow_bytes);
  return sequence.texts(0, sequence.size());
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

void check_record_type(py::handle type, const char* function, const char* argument) {
  if (!PyType_Check(type.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type)) {
    throw py::type_error(std::string(function) + ": " + argument + " must be a tuple subclass");
  }
}

py::object new_record(py::handle type, std::initializer_list<py::object> items) {
  auto* t = reinterpret_cast<PyTypeObject*>(type.ptr());
  PyObject* record = t->tp_alloc(t, static_cast<Py_ssize_t>(items.size()));
  if (record == nullptr) throw py::error_already_set();
  Py_ssize_t k = 0;
  for (const py::object& item : items) PyTuple_SET_ITEM(record, k++, item.inc_ref().ptr());
  // A record holds only atoms and has no __dict__, so it can never be part of a reference
  // cycle: stop the cycle collector from tracking it, as CPython itself does for plain tuples
  // of atoms. (A batch makes one record per input; tracked, they made the young-generation
  // collections a tenth of the cost of extract_many.)
  if (t->tp_dictoffset == 0 && PyType_IS_GC(t)) PyObject_GC_UnTrack(record);
  return py::reinterpret_steal<py::object>(record);
}

py::str to_str(std::string_view utf8, const char* errors) {
  PyObject* o = PyUnicode_DecodeUTF8(utf8.data(), static_cast<Py_ssize_t>(utf8.size()), errors);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

namespace {

[[noreturn]] void option_type_error(const char* function, const char* option, const char* expected, py::handle value) {
  throw py::type_error(std::string(function) + ": " + option + " must be " + expected + ", not " +
                       std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

/// A real number (int or float, not bool), or TypeError.
double real_option(py::handle value, const char* function, const char* option) {
  PyObject* o = value.ptr();
  if (PyBool_Check(o) || !(PyFloat_Check(o) || PyLong_Check(o))) option_type_error(function, option, "a number", value);
  const double x = PyFloat_AsDouble(o);
  if (x == -1.0 && PyErr_Occurred()) throw py::error_already_set();  // an int too large for a double
  return x;
}

double tolerance_option(py::handle value, const char* function, const char* option) {
  const double x = real_option(value, function, option);
  if (!(std::isfinite(x) && x >= 0)) {
    throw py::value_error(std::string(function) + ": " + option + " must be a finite number >= 0, got " +
                          std::string(py::repr(value)));
  }
  return x;
}

}  // namespace

equiv::Options equiv_options(py::handle rel_tol, py::handle abs_tol, py::handle float_rounding, const char* function) {
  equiv::Options options;
  options.rel_tol = tolerance_option(rel_tol, function, "rel_tol");
  options.abs_tol = tolerance_option(abs_tol, function, "abs_tol");
  if (!float_rounding.is_none()) {
    PyObject* o = float_rounding.ptr();
    if (PyBool_Check(o) || !PyLong_Check(o))
      option_type_error(function, "float_rounding", "an int or None", float_rounding);
    int overflow = 0;
    const long long digits = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow != 0 || digits < 0 || digits > 15) {
      throw py::value_error(std::string(function) + ": float_rounding must be in [0, 15], got " +
                            std::string(py::repr(float_rounding)));
    }
    options.float_rounding = static_cast<int>(digits);
  }
  return options;
}

grade::Options grade_options(py::handle last_number, py::handle rel_tol, py::handle abs_tol, py::handle float_rounding,
                             const char* function) {
  grade::Options options;
  if (!PyBool_Check(last_number.ptr())) option_type_error(function, "last_number", "a bool", last_number);
  options.last_number = last_number.ptr() == Py_True;
  options.equiv = equiv_options(rel_tol, abs_tol, float_rounding, function);
  return options;
}

std::size_t max_answer_bytes_option(py::handle value, const char* function) {
  if (value.is_none()) return std::numeric_limits<std::size_t>::max();
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr())) {
    option_type_error(function, "max_answer_bytes", "an int or None", value);
  }
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow > 0) return std::numeric_limits<std::size_t>::max();
  if (overflow < 0 || n < 1) {
    throw py::value_error(std::string(function) + ": max_answer_bytes must be >= 1 or None, got " +
                          std::string(py::repr(value)));
  }
  return static_cast<std::size_t>(n);
}

unsigned resolve_threads(const py::object& threads, const char* function) {
  if (threads.is_none()) return default_threads();
  if (!PyLong_Check(threads.ptr()) || PyBool_Check(threads.ptr())) {
    option_type_error(function, "threads", "an int or None", threads);
  }
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(threads.ptr(), &overflow);
  if (overflow > 0) return 1024;
  if (overflow < 0 || n < 1) {
    throw py::value_error(std::string(function) + ": threads must be >= 1, got " + std::string(py::repr(threads)));
  }
  return static_cast<unsigned>(std::min<long long>(n, 1024));
}

}  // namespace rapidgrade::bindings
