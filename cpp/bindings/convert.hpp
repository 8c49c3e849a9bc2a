// Argument conversion shared by the bindings: text in, offsets out, threads, GIL handling.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "rapidgrade/equiv.hpp"
#include "rapidgrade/grade.hpp"
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
  py::object original;   // the caller's str or bytes; keeps `utf8` alive when it is cached there
  py::object encoded;    // the replacement-encoded copy `utf8` points into, for lone surrogates
  py::object utf8_copy;  // the exact UTF-8 copy `utf8` points into, for a non-ASCII str (freed with the Text)
  bool is_bytes = false;
  bool ascii = false;  // offsets in bytes and code points coincide
};

/// Converts `obj` or raises TypeError naming the function and argument.
Text as_text(py::handle obj, const char* function, const char* argument);

/// The items of a sequence of str/bytes (lists and tuples read directly) as Text. Raises
/// TypeError "<function>: <argument> must be a sequence of str" for a str, bytes or non-sequence,
/// and names the item ("<argument>[i]") when one has the wrong type. With allow_bytes=false,
/// bytes items are refused too.
std::vector<Text> texts_of(py::handle obj, const char* function, const char* argument, bool allow_bytes = true);

/// One item of a batch as the calling thread reads it (GIL held) for the workers to convert
/// without the GIL: UTF-8 bytes to view as they are (`kind` 0: an ASCII str, a str whose UTF-8
/// form Python has cached, bytes), or a str's code points as Python stores them (`kind` 1, 2 or
/// 4 bytes each), which utf8_views encodes.
struct TextRef {
  const void* data = nullptr;
  std::size_t length = 0;  // bytes (kind 0) or code points
  unsigned kind = 0;
};

/// Items [begin, end) of a TextSequence, each held by a strong reference and read as a
/// TextRef (see TextSequence::refs). The references are dropped when it is destroyed, which
/// must happen with the GIL held.
class HeldTexts {
 public:
  HeldTexts() = default;
  HeldTexts(const HeldTexts&) = delete;
  HeldTexts& operator=(const HeldTexts&) = delete;
  HeldTexts(HeldTexts&&) noexcept = default;  // leaves the other one holding nothing
  HeldTexts& operator=(HeldTexts&&) = delete;
  ~HeldTexts() {
    for (PyObject* o : objects_) Py_DECREF(o);
  }
  std::size_t size() const noexcept { return refs_.size(); }
  const TextRef& operator[](std::size_t k) const noexcept { return refs_[k]; }

 private:
  friend class TextSequence;
  std::vector<PyObject*> objects_;  // one strong reference each
  std::vector<TextRef> refs_;
};

/// UTF-8 views of held[begin, end) into `views` (resized to end - begin), as as_text reads
/// them: a view of the bytes of a kind 0 item, or a str's code points encoded with each lone
/// surrogate replaced by '?'. The encoded texts are written back to back into `store`, one
/// buffer with room for the longest encoding of each (replacing what it held), which must
/// outlive the views. Needs no GIL. O(total length).
void utf8_views(const HeldTexts& held, std::size_t begin, std::size_t end, std::vector<std::string_view>& views,
                std::unique_ptr<char[]>& store);

/// A sequence of str/bytes read as texts_of reads it, a slice at a time, so that a large batch
/// holds only one slice's Text at once. The sequence's type is checked when it is made (the
/// same TypeError as texts_of); texts(begin, end) converts items [begin, end) and raises
/// RuntimeError when the sequence no longer has the size it had (a list is read in place).
class TextSequence {
 public:
  TextSequence(py::handle obj, const char* function, const char* argument, bool allow_bytes = true);
  std::size_t size() const noexcept { return size_; }
  std::vector<Text> texts(std::size_t begin, std::size_t end) const;
  /// Items [begin, end), type-checked as texts() checks them, but only read, not converted:
  /// the conversion of a non-ASCII str is left to utf8_view, on the workers. The calling
  /// thread's share of a batch is then one object header per item.
  HeldTexts refs(std::size_t begin, std::size_t end) const;

 private:
  // Raises the RuntimeError of texts() when the sequence no longer has the size it had.
  void check_size() const;
  // Raises the TypeError of texts() when items[i] is not a str (or bytes, where allowed).
  void check_item(PyObject* item, std::size_t i) const;

  py::object fast_;
  std::size_t size_ = 0;
  const char* function_;
  const char* argument_;
  bool allow_bytes_;
};

/// Converts every byte offset in `offsets` to the caller's units (code points for str).
void to_caller_units(const Text& text, std::vector<std::size_t*>& offsets);

/// `text[start:end]` in the caller's units, as the caller's type (str or bytes), sliced from
/// the original object so that the characters are exactly the caller's.
py::object slice(const Text& text, std::size_t start, std::size_t end);

/// The one UTF-8 decoder of the bindings: a str from UTF-8 the core produced. Input given as
/// bytes may be invalid UTF-8, so by default bad bytes become U+FFFD instead of raising;
/// `errors` is a Python error handler name ("surrogatepass" where the core re-encodes the
/// lone surrogates of a str).
py::str to_str(std::string_view utf8, const char* errors = "replace");

/// Checks that `type` is a tuple subclass (the NamedTuple a wrapper passes for its records), or
/// raises TypeError "<function>: <argument> must be a tuple subclass".
void check_record_type(py::handle type, const char* function, const char* argument);

/// The one record builder: an instance of the tuple subclass `type` (checked by
/// check_record_type) holding `items`, allocated directly (what tuple.__new__(type, items) does,
/// without the intermediate tuples). The items must be atoms (str, bytes, int, bool, None): the
/// record is not tracked by the cycle collector.
py::object new_record(py::handle type, std::initializer_list<py::object> items);

/// Stores `value` in slot i of a list made with py::list(n) (whose slots hold NULL until set),
/// handing over its reference: how the batch entry points fill their result lists.
inline void set_item(py::list& list, std::size_t i, py::object value) {
  PyList_SET_ITEM(list.ptr(), static_cast<Py_ssize_t>(i), value.release().ptr());
}

/// Validates the `threads` keyword: None means all hardware threads; otherwise an int >= 1.
unsigned resolve_threads(const py::object& threads, const char* function);

/// The one conversion of the equivalence options (the keywords rel_tol, abs_tol,
/// float_rounding of every binding that takes them) to equiv::Options. Same rules and messages
/// as python/rapidgrade/config.py: "<function>: <option> must be ..."; TypeError for a wrong
/// type (a bool is not a number), ValueError for a value out of range.
equiv::Options equiv_options(py::handle rel_tol, py::handle abs_tol, py::handle float_rounding, const char* function);

/// grade::Options from the keywords last_number (a bool) and the equivalence options.
grade::Options grade_options(py::handle last_number, py::handle rel_tol, py::handle abs_tol, py::handle float_rounding,
                             const char* function);

/// The max_answer_bytes option (GradeConfig.max_answer_bytes): an int >= 1, or None for no
/// limit. TypeError / ValueError naming the function and the option otherwise.
std::size_t max_answer_bytes_option(py::handle value, const char* function);

/// Threads that run_blocks runs a batch of n items on: `threads`, at least 1, at most n (and
/// 1024).
inline unsigned batch_threads(std::size_t n, unsigned threads) noexcept {
  return std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(std::min<std::size_t>(n, 1024))));
}

/// Items per block of a batch of n items on `threads` threads (see run_blocks): at most 256,
/// and at least 8 blocks a thread when there are enough items, so that a batch of a few long
/// texts still spreads over every thread.
inline std::size_t batch_block_size(std::size_t n, unsigned threads) noexcept {
  return std::clamp<std::size_t>(n / (std::size_t{batch_threads(n, threads)} * 8), 1, 256);
}

/// The one batch runner of the bindings (every *_many entry point and Expr.evaluate).
///
/// Runs work(begin, end) over the blocks [begin, end) of batch_block_size(n, threads) items
/// covering [0, n) on `threads` threads with the GIL released, and emit_block(begin, end) on the
/// calling thread with the GIL held, in order of blocks, while the work goes on. The calling
/// thread works on blocks too and emits each block as soon as it and every block before it are
/// done, so the serial part of a batch overlaps the parallel part instead of following it, and
/// results are read back while still in cache. Between blocks the calling thread lets Ctrl-C
/// through (PyErr_CheckSignals). The first exception, of a worker or of emit_block, stops the
/// other threads and is rethrown on the calling thread with the GIL held.
///
/// work must be safe to call concurrently for distinct blocks and must not touch Python
/// objects; emit_block is called exactly once per block, only after the block's work has
/// returned, unless an exception ends the batch.
///
/// meanwhile() is called once on the calling thread with the GIL held, after the workers have
/// started and before the calling thread takes its first block: a serial job of the caller's
/// (such as reading the inputs of the next batch) that then overlaps this batch's work. An
/// exception from it ends the batch as one from emit_block does.
template <typename Work, typename EmitBlock, typename Meanwhile = void (*)()>
void run_blocks(std::size_t n, unsigned threads, Work&& work, EmitBlock&& emit_block, Meanwhile&& meanwhile = [] {}) {
  if (n == 0) return;
  threads = batch_threads(n, threads);
  const std::size_t block = batch_block_size(n, threads);
  const std::size_t blocks = (n + block - 1) / block;
  std::unique_ptr<std::atomic<bool>[]> done(new std::atomic<bool>[blocks]);
  for (std::size_t b = 0; b < blocks; ++b) done[b].store(false, std::memory_order_relaxed);
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards worker_error; with cv, wakes the calling thread when a block is done
  std::condition_variable cv;
  std::exception_ptr worker_error;

  // Claims and runs one block; false when none is left or the batch is stopping.
  auto run_one_block = [&]() -> bool {
    if (stop.load(std::memory_order_relaxed)) return false;
    const std::size_t b = next.fetch_add(1, std::memory_order_relaxed);
    if (b >= blocks) return false;
    const std::size_t end = std::min(n, (b + 1) * block);
    try {
      work(b * block, end);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex);
      if (!worker_error) worker_error = std::current_exception();
      stop.store(true, std::memory_order_relaxed);
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      done[b].store(true, std::memory_order_release);
    }
    cv.notify_all();
    return true;
  };

  struct Workers {  // joined on every way out, so no worker outlives the references it holds
    std::vector<std::thread> pool;
    std::atomic<bool>& stop;
    ~Workers() {
      stop.store(true, std::memory_order_relaxed);
      for (auto& t : pool) t.join();
    }
  } workers{{}, stop};
  workers.pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t) {
    workers.pool.emplace_back([&]() {
      while (run_one_block()) {
      }
    });
  }

  meanwhile();
  std::size_t emitted = 0;  // blocks already emitted
  while (emitted < blocks) {
    // Emit every block that is ready, in order (GIL held).
    while (emitted < blocks && done[emitted].load(std::memory_order_acquire)) {
      if (stop.load(std::memory_order_relaxed)) break;
      emit_block(emitted * block, std::min(n, (emitted + 1) * block));
      ++emitted;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    }
    if (stop.load(std::memory_order_relaxed) || emitted == blocks) break;
    // Nothing to emit: work on a block, or wait for the next one in order (GIL released).
    py::gil_scoped_release release;
    if (!run_one_block()) {
      std::unique_lock<std::mutex> lock(mutex);
      cv.wait(lock,
              [&]() { return stop.load(std::memory_order_relaxed) || done[emitted].load(std::memory_order_acquire); });
    }
  }
  if (stop.load(std::memory_order_relaxed)) {
    {
      py::gil_scoped_release release;  // workers never take the GIL, but joining can take a while
      for (auto& t : workers.pool) t.join();
      workers.pool.clear();
    }
    std::lock_guard<std::mutex> lock(mutex);
    if (worker_error) std::rethrow_exception(worker_error);
  }
}

/// run_blocks with emit(i) called for every item of a block in order of i: for emits that build
/// a Python object per item.
template <typename Work, typename Emit>
void run_pipelined(std::size_t n, unsigned threads, Work&& work, Emit&& emit) {
  run_blocks(n, threads, std::forward<Work>(work), [&emit](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) emit(i);
  });
}

}  // namespace rapidgrade::bindings
