// Bindings of rapidgrade::distance. Python str objects are read in place (1, 2 or 4 bytes per
// code point), so no conversion or copy happens per call.
#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/distance.hpp"

namespace rapidgrade::bindings {
namespace {

struct CodePoints {
  const void* data = nullptr;
  std::size_t size = 0;
  int kind = PyUnicode_1BYTE_KIND;
};

CodePoints as_code_points(const py::handle& obj, const char* function, const char* argument) {
  PyObject* o = obj.ptr();
  if (!PyUnicode_Check(o)) {
    throw py::type_error(std::string(function) + ": " + argument + " must be str, not " + Py_TYPE(o)->tp_name);
  }
#if PY_VERSION_HEX < 0x030C0000
  if (PyUnicode_READY(o) < 0) throw py::error_already_set();
#endif
  return CodePoints{PyUnicode_DATA(o), static_cast<std::size_t>(PyUnicode_GET_LENGTH(o)),
                    static_cast<int>(PyUnicode_KIND(o))};
}

template <typename F>
std::size_t visit(const CodePoints& s, F&& f) {
  switch (s.kind) {
    case PyUnicode_1BYTE_KIND: return f(static_cast<const std::uint8_t*>(s.data));
    case PyUnicode_2BYTE_KIND: return f(static_cast<const std::uint16_t*>(s.data));
    default: return f(static_cast<const std::uint32_t*>(s.data));
  }
}

std::size_t levenshtein(const CodePoints& a, const CodePoints& b, std::size_t max,
                        const std::atomic<bool>* cancel = nullptr) {
  return visit(a, [&](auto pa) {
    return visit(b, [&](auto pb) { return distance::levenshtein(pa, a.size, pb, b.size, max, cancel); });
  });
}

// How often a long computation lets Ctrl-C through.
constexpr std::chrono::milliseconds kSignalPoll{50};

// levenshtein(a, b, max) on a thread of its own while the calling thread, GIL released, wakes
// every kSignalPoll to run the signal handlers (PyErr_CheckSignals, GIL held): on Ctrl-C (or
// any handler that raises) the computation is told to stop, joined, and the exception raised.
std::size_t interruptible_levenshtein(const CodePoints& a, const CodePoints& b, std::size_t max) {
  std::atomic<bool> cancel{false};
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false;
  std::size_t result = 0;
  std::exception_ptr error;
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::thread worker([&]() {
      try {
        result = levenshtein(a, b, max, &cancel);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        done = true;
      }
      cv.notify_all();
    });
    std::unique_lock<std::mutex> lock(mutex);
    while (!cv.wait_for(lock, kSignalPoll, [&]() { return done; })) {
      if (interrupted) continue;  // told to stop: wait for it
      lock.unlock();
      {
        py::gil_scoped_acquire acquire;
        // the exception stays set in this thread's state until it is raised below
        interrupted = PyErr_CheckSignals() != 0;
      }
      if (interrupted) cancel.store(true, std::memory_order_relaxed);
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
  return result;
}

std::size_t resolve_max(const py::object& max_distance, const char* function) {
  if (max_distance.is_none()) return distance::kNoLimit;
  if (!PyLong_Check(max_distance.ptr()) || PyBool_Check(max_distance.ptr())) {
    throw py::type_error(std::string(function) + ": max_distance must be an int or None");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(max_distance.ptr(), &overflow);
  // A bound beyond 64 bits is beyond every distance: no bound at all (2**70 is not an error).
  // (On overflow the call returns -1 and sets `overflow` to the sign.)
  if (overflow > 0) return distance::kNoLimit;
  if (v < 0 || overflow < 0) {
    throw py::value_error(std::string(function) + ": max_distance must be >= 0, got " +
                          py::str(max_distance).cast<std::string>());
  }
  return static_cast<std::size_t>(v);
}

// Above this many cells (length of a times length of b) a single call releases the GIL, so other
// threads run meanwhile (100k x 100k characters take about half a second), and lets Ctrl-C
// through while it runs. Below it the release would cost more than it frees. The strings stay
// alive and unchanged: the caller holds them and str is immutable.
constexpr double kReleaseGilCells = 1e8;

std::size_t edit_distance(const py::handle& a, const py::handle& b, const py::object& max_distance) {
  const std::size_t max = resolve_max(max_distance, "edit_distance");
  const CodePoints ca = as_code_points(a, "edit_distance", "a");
  const CodePoints cb = as_code_points(b, "edit_distance", "b");
  if (static_cast<double>(ca.size) * static_cast<double>(cb.size) < kReleaseGilCells) return levenshtein(ca, cb, max);
  return interruptible_levenshtein(ca, cb, max);
}

py::object closest(const py::handle& word, const py::handle& choices, const py::object& max_distance) {
  std::size_t max = resolve_max(max_distance, "closest");
  const CodePoints w = as_code_points(word, "closest", "word");
  if (PyUnicode_Check(choices.ptr())) throw py::type_error("closest: choices must be an iterable of str, not str");
  py::object best;
  std::size_t best_distance = 0;
  std::size_t index = 0;
  for (const py::handle choice : py::iter(choices)) {
    const std::string where = "choices[" + std::to_string(index++) + "]";
    const CodePoints c = as_code_points(choice, "closest", where.c_str());
    const std::size_t d = levenshtein(w, c, max);
    if (d <= max) {
      best = py::reinterpret_borrow<py::object>(choice);
      best_distance = d;
      if (d == 0) break;
      max = d - 1;  // only a strictly closer choice can replace this one
    }
  }
  if (!best) return py::none();
  return py::make_tuple(best, best_distance);
}

py::list edit_distance_many(const py::handle& pairs_obj, const py::object& max_distance, const py::object& threads) {
  const std::size_t max = resolve_max(max_distance, "edit_distance_many");
  const unsigned n_threads = resolve_threads(threads, "edit_distance_many");
  if (PyUnicode_Check(pairs_obj.ptr()) || !PySequence_Check(pairs_obj.ptr())) {
    throw py::type_error("edit_distance_many: pairs must be a sequence of (str, str) pairs");
  }
  // A tuple of the pairs (the same object for a tuple, a copy of the references for a list, which
  // another thread could change while the GIL is released) holds every pair, and so its
  // strings, for the whole computation; items are then read without Python calls.
  py::object held = py::reinterpret_steal<py::object>(PySequence_Tuple(pairs_obj.ptr()));
  if (!held) throw py::error_already_set();
  const std::size_t n = static_cast<std::size_t>(PyTuple_GET_SIZE(held.ptr()));
  std::vector<py::object> keep;  // items of pairs that are not tuples or lists
  std::vector<std::pair<CodePoints, CodePoints>> items;
  items.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    PyObject* pair = PyTuple_GET_ITEM(held.ptr(), static_cast<Py_ssize_t>(i));
    PyObject* a = nullptr;
    PyObject* b = nullptr;
    if (PyTuple_Check(pair) && PyTuple_GET_SIZE(pair) == 2) {
      a = PyTuple_GET_ITEM(pair, 0);
      b = PyTuple_GET_ITEM(pair, 1);
    } else if (PyList_Check(pair) && PyList_GET_SIZE(pair) == 2) {
      // a list could change while the GIL is released: keep its items alive ourselves
      keep.push_back(py::reinterpret_borrow<py::object>(PyList_GET_ITEM(pair, 0)));
      keep.push_back(py::reinterpret_borrow<py::object>(PyList_GET_ITEM(pair, 1)));
      a = keep[keep.size() - 2].ptr();
      b = keep.back().ptr();
    } else {
      throw py::type_error("edit_distance_many: pairs[" + std::to_string(i) + "] must be a pair of str");
    }
    if (!PyUnicode_Check(a) || !PyUnicode_Check(b)) {
      const std::string where = "pairs[" + std::to_string(i) + "][" + (PyUnicode_Check(a) ? "1" : "0") + "]";
      as_code_points(PyUnicode_Check(a) ? b : a, "edit_distance_many", where.c_str());  // raises
    }
    items.emplace_back(as_code_points(a, "edit_distance_many", "pairs"),
                       as_code_points(b, "edit_distance_many", "pairs"));
  }
  std::vector<std::size_t> out(n);
  py::list result(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) out[i] = levenshtein(items[i].first, items[i].second, max);
      },
      [&](std::size_t i) { set_item(result, i, py::int_(out[i])); });
  return result;
}

}  // namespace

void bind_distance(py::module_& m) {
  m.def("edit_distance", &edit_distance, py::arg("a"), py::arg("b"), py::kw_only(),
        py::arg("max_distance") = py::none(),
        R"doc(edit_distance(a, b, *, max_distance=None) -> int

Levenshtein distance between two str, counted in code points (insertions, deletions and
substitutions cost 1). With max_distance, a distance above it is reported as max_distance + 1
and the computation may stop early. Bit-parallel (Myers/Hyyrö), O(ceil(m/64) * n).

>>> edit_distance("positve", "positive")
1
>>> edit_distance("kitten", "sitting", max_distance=1)
2
)doc");
  m.def("closest", &closest, py::arg("word"), py::arg("choices"), py::kw_only(), py::arg("max_distance") = py::none(),
        R"doc(closest(word, choices, *, max_distance=None) -> tuple[str, int] | None

The choice nearest to word by edit distance, with its distance; the first one wins ties.
None when choices is empty or every choice is farther than max_distance.

>>> closest("negatve", ["positive", "negative", "neutral"], max_distance=2)
('negative', 1)
)doc");
  m.def("edit_distance_many", &edit_distance_many, py::arg("pairs"), py::kw_only(),
        py::arg("max_distance") = py::none(), py::arg("threads") = py::none(),
        "edit_distance over a sequence of (a, b) pairs on `threads` threads with the GIL released.");
}

}  // namespace rapidgrade::bindings
