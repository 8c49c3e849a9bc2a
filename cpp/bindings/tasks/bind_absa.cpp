// Bindings of rapidgrade::absa. Strings are read in place (1, 2 or 4 bytes per code point);
// strings with cased non-ASCII letters are lower-cased with Python's str.lower() first (see the
// note on case folding in absa.hpp), once per string. The record schema and the scoring pipeline
// are the core's (absa_records.hpp, absa::score_chunks): the binding gives them a view of the
// Python objects (PyDoc, read with the GIL held) and releases the GIL while the core scores.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/tasks/absa.hpp"
#include "rapidgrade/tasks/absa_records.hpp"

namespace rapidgrade::bindings {
namespace {

using absa::CodePoints;

CodePoints view_of(PyObject* s) {
#if PY_VERSION_HEX < 0x030C0000
  if (PyUnicode_READY(s) < 0) throw py::error_already_set();
#endif
  return CodePoints{PyUnicode_DATA(s), static_cast<std::size_t>(PyUnicode_GET_LENGTH(s)),
                    static_cast<unsigned>(PyUnicode_KIND(s))};
}

// Python's str.lower, looked up once per call of a binding.
py::object str_lower() {
  return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyUnicode_Type)).attr("lower");
}

// `s` (a str) lower-cased by `lower` (str.lower) when the core cannot do it alone; else `s`.
py::object fold(PyObject* s, const py::object& lower) {
  if (PyUnicode_IS_ASCII(s) || !absa::needs_unicode_lower(view_of(s))) return py::reinterpret_borrow<py::object>(s);
  PyObject* lowered = PyObject_CallOneArg(lower.ptr(), s);
  if (lowered == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(lowered);
}

py::object fold(PyObject* s) { return fold(s, str_lower()); }

// The core re-encodes the lone surrogates a str may hold, so they decode back as they were.
py::str from_utf8(const std::string& s) { return to_str(s, "surrogatepass"); }

std::string type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// Throws TypeError unless `obj` is str or None; returns nullptr for None.
PyObject* str_or_none(const py::handle& obj, const char* function, const char* argument) {
  if (obj.is_none()) return nullptr;
  if (!PyUnicode_Check(obj.ptr())) {
    throw py::type_error(std::string(function) + ": " + argument + " must be str or None, not " + type_name(obj.ptr()));
  }
  return obj.ptr();
}

// ----- single-value rules --------------------------------------------------------------------

py::str normalize_for_eval(const py::handle& s) {
  PyObject* text = str_or_none(s, "normalize_for_eval", "s");
  if (text == nullptr) return py::str("");
  const py::object folded = fold(text);
  std::string out;
  absa::normalize_for_eval(view_of(folded.ptr()), out);
  return from_utf8(out);
}

py::str normalize_ref_for_eval(const py::handle& s) {
  PyObject* text = str_or_none(s, "normalize_ref_for_eval", "s");
  if (text == nullptr) return py::str("");
  std::string out;
  absa::normalize_ref_for_eval(view_of(text), out);
  return from_utf8(out);
}

py::object normalize_polarity(const py::handle& s, const py::object& default_missing) {
  PyObject* text = str_or_none(s, "normalize_polarity", "s");
  if (text == nullptr) return default_missing;
  const py::object folded = fold(text);
  std::string invalid;
  const absa::PolarityResult r = absa::canonicalize_polarity(view_of(folded.ptr()), false, &invalid);
  if (r.missing) return default_missing;
  if (r.label != absa::Polarity::kInvalid) return py::str(absa::polarity_name(r.label));
  return from_utf8(invalid);
}

py::tuple canonicalize_polarity_with_repair(const py::handle& s, const py::object& default_missing) {
  PyObject* text = str_or_none(s, "canonicalize_polarity_with_repair", "s");
  if (text == nullptr) return py::make_tuple(default_missing, false);
  const py::object folded = fold(text);
  const absa::PolarityResult r = absa::canonicalize_polarity(view_of(folded.ptr()), true);
  if (r.missing) return py::make_tuple(default_missing, false);
  if (r.label == absa::Polarity::kInvalid) return py::make_tuple(py::none(), false);
  return py::make_tuple(py::str(absa::polarity_name(r.label)), r.repaired);
}

// ----- record traversal ----------------------------------------------------------------------

// Interned, so that lookups in dicts whose keys are interned too (literals, most JSON
// decoders' keys) succeed on pointer equality.
py::str interned(const char* s) {
  PyObject* o = PyUnicode_InternFromString(s);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

struct Keys {
  py::str id = interned("id"), gold = interned("gold"), stages = interned("stages"),
          aspect_term = interned("aspect_term"), opinion_term = interned("opinion_term"),
          aspect_ref = interned("aspect_ref"), term = interned("term"), polarity = interned("polarity");
};

// Looks up `key` in dict `d`: the value (borrowed) or nullptr when missing.
PyObject* lookup(PyObject* d, const py::str& key) {
  PyObject* v = PyDict_GetItemWithError(d, key.ptr());
  if (v == nullptr && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

// Python objects as the document model of the core's record schema (absa_records.hpp): dicts,
// lists and str read in place. Strings the rows point into are kept alive here until the rows
// are scored (the records could change under us while the GIL is released).
class PyDoc {
 public:
  using Value = PyObject*;  // borrowed; nullptr: missing

  explicit PyDoc(std::vector<py::str> stages = {}) : stages_(std::move(stages)) {}

  bool missing(Value v) const noexcept { return v == nullptr; }
  bool is_null(Value v) const noexcept { return v == Py_None; }
  bool is_dict(Value v) const noexcept { return PyDict_Check(v); }
  bool is_list(Value v) const noexcept { return PyList_Check(v); }
  bool is_str(Value v) const noexcept { return PyUnicode_Check(v); }
  std::string type_name(Value v) const { return Py_TYPE(v)->tp_name; }
  Value get(Value d, absa::RecordField f) const { return lookup(d, key(f)); }
  Value stage(Value d, std::size_t k) const { return lookup(d, stages_[k]); }
  std::size_t size(Value list) const noexcept { return static_cast<std::size_t>(PyList_GET_SIZE(list)); }
  Value item(Value list, std::size_t i) const noexcept { return PyList_GET_ITEM(list, static_cast<Py_ssize_t>(i)); }
  CodePoints view(Value s) const { return view_of(s); }
  CodePoints keep(Value s) { return hold(py::reinterpret_borrow<py::object>(s)); }
  CodePoints keep_folded(Value s) { return hold(fold(s, lower_)); }
  std::size_t mark() const noexcept { return keep_.size(); }
  void rollback(std::size_t mark) { keep_.resize(mark); }
  void clear() { keep_.clear(); }

  const Keys keys;

 private:
  const py::str& key(absa::RecordField f) const {
    switch (f) {
      case absa::RecordField::kId: return keys.id;
      case absa::RecordField::kGold: return keys.gold;
      case absa::RecordField::kStages: return keys.stages;
      case absa::RecordField::kAspectTerm: return keys.aspect_term;
      case absa::RecordField::kOpinionTerm: return keys.opinion_term;
      case absa::RecordField::kAspectRef: return keys.aspect_ref;
      case absa::RecordField::kTerm: return keys.term;
      case absa::RecordField::kPolarity: return keys.polarity;
    }
    return keys.id;
  }

  CodePoints hold(py::object s) {
    const CodePoints v = view_of(s.ptr());
    keep_.push_back(std::move(s));
    return v;
  }

  std::vector<py::str> stages_;
  py::object lower_ = str_lower();
  std::vector<py::object> keep_;
};

py::str gold_aspect_term(const py::handle& row) {
  if (!PyDict_Check(row.ptr())) {
    throw py::type_error("gold_aspect_term: row must be a dict, not " + type_name(row.ptr()));
  }
  PyDoc doc;
  std::string reason;
  absa::detail::Where where;
  where.name = "row";
  const absa::GoldTerm<PyDoc> t = absa::gold_term(doc, row.ptr(), where, reason);
  if (!reason.empty()) throw py::type_error("gold_aspect_term: " + reason);
  if (t.source == nullptr) return py::str("");
  PyObject* out = PyUnicode_Substring(t.source, static_cast<Py_ssize_t>(t.begin), static_cast<Py_ssize_t>(t.end));
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(out);
}

// The records of one absa_score call, read chunk by chunk for absa::score_chunks (which owns
// the scoring thread): each chunk is walked with the GIL held, and the GIL is released while
// the core scores or waits.
class RecordSource final : public absa::ChunkSource {
 public:
  RecordSource(PyObject** items, Py_ssize_t n, Py_ssize_t chunk, const std::vector<py::str>& stages)
      : items_(items), n_(n), chunk_(chunk), stages_(stages) {
    for (const py::str& name : stages_) stage_names_.push_back(name.cast<std::string>());
  }

  bool next_chunk(absa::BatchInput& buffer) override {
    if (next_ >= n_) return false;
    Reader& reader = reader_for(buffer);
    reader.doc.clear();  // the buffer's previous chunk is scored: its strings may go
    const Py_ssize_t stop = std::min(n_, next_ + chunk_);
    for (Py_ssize_t i = next_; i < stop; ++i) {
      PyObject* record = items_[i];
      std::string reason = reader.records.add_record(record);
      if (!reason.empty()) {
        py::object id = py::none();
        if (PyDict_Check(record)) {
          PyObject* v = lookup(record, reader.doc.keys.id);
          if (v != nullptr) id = py::reinterpret_borrow<py::object>(v);
        }
        bad.append(py::make_tuple(i, id, from_utf8(reason)));
      }
    }
    next_ = stop;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    return true;
  }

  void blocking(const std::function<void()>& wait) override {
    py::gil_scoped_release release;
    wait();
  }

  py::list bad;  // (index, id, reason) of every record that does not follow the schema

 private:
  // One reader per buffer: its PyDoc keeps the strings of the buffer's rows alive until the
  // buffer is refilled.
  struct Reader {
    Reader(absa::BatchInput& buffer, const std::vector<py::str>& stages, const std::vector<std::string>& names)
        : doc(stages), records(doc, buffer, names) {}
    PyDoc doc;
    absa::RecordReader<PyDoc> records;
  };

  Reader& reader_for(absa::BatchInput& buffer) {
    for (auto& [owner, reader] : readers_) {
      if (owner == &buffer) return *reader;
    }
    readers_.emplace_back(&buffer, std::make_unique<Reader>(buffer, stages_, stage_names_));
    return *readers_.back().second;
  }

  PyObject** items_;
  Py_ssize_t n_, chunk_, next_ = 0;
  std::vector<py::str> stages_;
  std::vector<std::string> stage_names_;
  std::vector<std::pair<const absa::BatchInput*, std::unique_ptr<Reader>>> readers_;
};

py::dict counts_dict(const absa::GroupCounts& c) {
  py::dict d;
  d["tuples"] = c.tuples;
  d["unique"] = c.unique;
  d["matched"] = c.matched;
  d["exact"] = c.exact;
  d["invalid_polarity"] = c.invalid_polarity;
  d["repaired_polarity"] = c.repaired_polarity;
  d["missing_polarity"] = c.missing_polarity;
  d["invalid_ref"] = c.invalid_ref;
  return d;
}

py::dict score(const py::handle& records, const py::handle& stages_obj, bool repair, const py::handle& default_missing,
               const py::handle& ref_allowlist, const py::handle& transitions, const py::object& threads) {
  const unsigned n_threads = threads.is_none() ? 1u : resolve_threads(threads, "score");
  absa::BatchInput in;
  std::vector<py::str> stages;
  for (const py::handle s : py::iter(stages_obj)) {
    if (!PyUnicode_Check(s.ptr())) throw py::type_error("score: stage names must be str, not " + type_name(s.ptr()));
    stages.push_back(py::reinterpret_borrow<py::str>(s));
  }
  in.n_stages = stages.size();
  for (const py::handle pair : py::iter(transitions)) {
    const auto a = pair[py::int_(0)].cast<std::size_t>();
    const auto b = pair[py::int_(1)].cast<std::size_t>();
    if (a >= in.n_stages || b >= in.n_stages) throw py::value_error("score: transition out of range");
    in.transitions.emplace_back(a, b);
  }
  in.repair = repair;
  PyObject* dm = str_or_none(default_missing, "score", "default_missing");
  const absa::PolarityResult d =
      dm == nullptr ? absa::PolarityResult{} : absa::canonicalize_polarity(view_of(fold(dm).ptr()), false);
  if (d.label == absa::Polarity::kInvalid) {
    throw py::value_error("score: default_missing must be one of positive, negative, neutral, mixed");
  }
  in.default_missing = d.label;
  if (!ref_allowlist.is_none()) {
    in.check_refs = true;
    for (const py::handle r : py::iter(ref_allowlist)) {
      if (!PyUnicode_Check(r.ptr()))
        throw py::type_error("score: ref_allowlist items must be str, not " + type_name(r.ptr()));
      std::string norm;
      absa::normalize_ref_for_eval(view_of(r.ptr()), norm);
      in.allowlist.push_back(std::move(norm));
    }
  }

  std::sort(in.allowlist.begin(), in.allowlist.end());
  in.clear_records();

  // A tuple copy: the item array stays valid whatever the records list goes through meanwhile.
  if (!PySequence_Check(records.ptr()) || PyUnicode_Check(records.ptr()) || PyBytes_Check(records.ptr())) {
    throw py::type_error("score: records must be a sequence, not " + type_name(records.ptr()));
  }
  const py::object seq = py::reinterpret_steal<py::object>(PySequence_Tuple(records.ptr()));
  if (!seq) throw py::error_already_set();
  const Py_ssize_t n = PyTuple_GET_SIZE(seq.ptr());
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());

  // threads >= 2: larger chunks, each scored on the core's scoring thread while the next one is
  // walked; threads == 1: small chunks, each scored while its objects are still in cache.
  const Py_ssize_t chunk = n_threads >= 2 ? 4096 : 256;
  RecordSource source(items, n, chunk, stages);
  absa::BatchResult result;
  absa::score_chunks(in, source, n_threads, result);
  py::list bad = source.bad;

  py::dict out;
  out["records"] = static_cast<std::size_t>(n);
  out["scored"] = result.records;
  out["bad"] = bad;
  out["gold"] = counts_dict(result.gold);
  py::list stage_list;
  for (const auto& c : result.stages) stage_list.append(counts_dict(c));
  out["stages"] = stage_list;
  py::list trans;
  for (const auto& t : result.transitions) trans.append(py::make_tuple(t.changed, t.broke, t.fixed));
  out["transitions"] = trans;
  return out;
}

}  // namespace

void bind_absa(py::module_& m) {
  m.def("absa_normalize_for_eval", &normalize_for_eval, py::arg("s"),
        "Evaluation form of an aspect term (rapidgrade.tasks.absa.normalize_for_eval).");
  m.def("absa_normalize_ref_for_eval", &normalize_ref_for_eval, py::arg("s"),
        "Evaluation form of an aspect reference (rapidgrade.tasks.absa.normalize_ref_for_eval).");
  m.def("absa_normalize_polarity", &normalize_polarity, py::arg("s"), py::arg("default_missing"),
        "Whitelisted polarity label (rapidgrade.tasks.absa.normalize_polarity).");
  m.def("absa_canonicalize_polarity_with_repair", &canonicalize_polarity_with_repair, py::arg("s"),
        py::arg("default_missing"),
        "Polarity label with edit-distance repair (rapidgrade.tasks.absa.canonicalize_polarity_with_repair).");
  m.def("absa_gold_aspect_term", &gold_aspect_term, py::arg("row"),
        "Aspect term of a gold tuple (rapidgrade.tasks.absa.gold_aspect_term).");
  m.def("absa_score", &score, py::arg("records"), py::arg("stages"), py::kw_only(), py::arg("repair"),
        py::arg("default_missing"), py::arg("ref_allowlist"), py::arg("transitions"), py::arg("threads") = py::none(),
        "Counts behind rapidgrade.tasks.absa.score; records are walked with the GIL held, scored "
        "with it released.");
}

}  // namespace rapidgrade::bindings
