// Bindings of rapidgrade::grade: the batch fast path of rapidgrade.grade_many.
#include <pybind11/pybind11.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/grade.hpp"

namespace rapidgrade::bindings {
namespace {

/// Code of "no answer found" in the method column.
constexpr std::uint8_t kNoMethod = 255;

/// Rows of a batch whose inputs grade_fast_many reads at once (see TextSequence::refs): the
/// slices grow from kFirstSliceRows to kSliceRows, each as long as the rows before it, so that
/// little is read before the first work starts.
constexpr std::size_t kFirstSliceRows = 4096;
constexpr std::size_t kSliceRows = 65536;

/// The inputs of one slice of a batch, held (see HeldTexts).
struct SliceRefs {
  HeldTexts golds, responses;
};

// A column of strings packed as Arrow packs them: the UTF-8 bytes of every row back to back and
// n + 1 offsets (int64) into them; row i is data[offsets[i]:offsets[i + 1]].
struct Packed {
  std::string data;
  std::vector<std::int64_t> offsets{0};

  void add(std::string_view s) {
    data.append(s);
    offsets.push_back(static_cast<std::int64_t>(data.size()));
  }
  void add_empty() { offsets.push_back(static_cast<std::int64_t>(data.size())); }
  // The rows of `other` after this column's rows.
  void append(const Packed& other) {
    const auto base = static_cast<std::int64_t>(data.size());
    data.append(other.data);
    for (std::size_t k = 1; k < other.offsets.size(); ++k) offsets.push_back(base + other.offsets[k]);
  }
};

// What a worker makes of one block of rows besides their code bytes: the strings, packed; the
// golds its cache prepared in this block, which the calling thread adds to the batch's table;
// and the block's own table of the undecided rows' unwrapped golds, merged likewise.
struct BlockColumns {
  Packed extracted, normalized;
  std::size_t cache = 0;                   // the index of the cache the block used
  std::vector<std::uint64_t> new_serials;  // the serials of the golds prepared here,
  std::vector<std::string> new_golds;      // ... and their normalized texts
  std::vector<std::uint64_t> gold_of;      // per row: the serial of its gold
  std::vector<std::string> raws;           // undecided rows' unwrapped golds (a BlockTable's)
  std::vector<std::int32_t> raw_of;        // per undecided row: index into raws
};

// A block's table of the unwrapped golds of its undecided rows: each distinct one's text once,
// found by the serial its cache gave it. A direct-mapped array of serials stands in for a hash
// map (a block has at most batch_block_size rows, and a cache's serials are consecutive, so two
// golds of one block rarely share a slot); a gold pushed out of its slot by another and met
// again is added again, which the join's merge by value undoes.
class BlockTable {
 public:
  /// The index in `table` of the gold with `serial`, whose `text` is added the first time.
  std::int32_t index(std::uint64_t serial, const std::string& text) {
    Slot& slot = slots_[serial % kSlots];
    if (slot.serial != serial) {  // serials start at 1: an empty slot matches none
      slot.serial = serial;
      slot.index = static_cast<std::int32_t>(table.size());
      table.push_back(text);
    }
    return slot.index;
  }

  std::vector<std::string> table;  // distinct golds, first seen first

 private:
  static constexpr std::size_t kSlots = 512;  // twice the most rows of a block
  struct Slot {
    std::uint64_t serial = 0;
    std::int32_t index = 0;
  };
  std::array<Slot, kSlots> slots_{};
};

// Adds the strings of a block's table that `table` lacks to it (moved from block_table) and
// sets ids[k] to the index in `table` of block_table[k].
void join_table(std::vector<std::string>& block_table, std::vector<std::string>& table,
                std::unordered_map<std::string, std::int32_t>& id_of, std::vector<std::int32_t>& ids) {
  ids.resize(block_table.size());
  for (std::size_t k = 0; k < block_table.size(); ++k) {
    auto id = id_of.find(block_table[k]);
    if (id == id_of.end()) {
      id = id_of.emplace(block_table[k], static_cast<std::int32_t>(table.size())).first;
      table.push_back(std::move(block_table[k]));
    }
    ids[k] = id->second;
  }
}

py::bytes as_bytes(const void* data, std::size_t size) { return py::bytes(static_cast<const char*>(data), size); }

// A gold cache of one batch, numbered; the first row of the last block it served; and the last
// serial it has sent to the calling thread (every gold is sent, with its text, by the block
// that prepared it).
struct BatchCache {
  explicit BatchCache(std::size_t i) : index(i) {}
  grade::GoldCache cache;
  std::size_t index;
  std::size_t last_row = 0;
  std::uint64_t sent = 0;
};

// Per-thread gold caches of one batch: a block of rows borrows one while it runs (a thread
// keeps reusing the caches the others are not using), so a gold is prepared about once per
// thread however the rows are ordered. A cache serves only blocks after the last one it
// served, so the blocks that use one cache are joined (in row order) in the order they ran,
// and a row's gold has been sent by a block joined before it or by its own.
class CachePool {
 public:
  std::unique_ptr<BatchCache> take(std::size_t first_row) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<BatchCache> cache;
    for (std::size_t k = free_.size(); k-- > 0;) {
      if (free_[k]->last_row < first_row) {  // every cache given back has served a block
        cache = std::move(free_[k]);
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(k));
        break;
      }
    }
    if (!cache) cache = std::make_unique<BatchCache>(made_++);
    cache->last_row = first_row;
    return cache;
  }
  void give_back(std::unique_ptr<BatchCache> cache) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(cache));
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<BatchCache>> free_;
  std::size_t made_ = 0;
};

// What grade_fast_many returns: the batch's columns, by name (see FastColumns' docstring in
// bind_grade()).
struct FastColumns {
  py::object tri, reason, method, gold_index, gold_table, raw_index, raw_table, extracted_offsets, extracted_data,
      normalized_offsets, normalized_data;
};

FastColumns grade_fast_many(const py::handle& golds_obj, const py::handle& responses_obj, const py::object& last_number,
                            const py::object& rel_tol, const py::object& abs_tol, const py::object& float_rounding,
                            const py::object& threads, const py::object& max_answer_bytes) {
  grade::Options options = grade_options(last_number, rel_tol, abs_tol, float_rounding, "grade_fast_many");
  options.max_answer_bytes = max_answer_bytes_option(max_answer_bytes, "grade_fast_many");
  const unsigned n_threads = resolve_threads(threads, "grade_fast_many");
  const TextSequence golds(golds_obj, "grade_fast_many", "golds", false);
  const TextSequence responses(responses_obj, "grade_fast_many", "responses", false);
  if (golds.size() != responses.size()) {
    throw py::value_error("grade_fast_many: golds and responses must have the same length");
  }
  const std::size_t n = golds.size();
  // The columns: one byte per row for the verdict, reason and method, written by the workers;
  // an index into a table of distinct normalized golds, and the extracted / normalized answers
  // packed, which the workers build per block and the calling thread joins in order (a few
  // copies and one table lookup per distinct gold of a block: no Python object per row).
  std::string tri(n, '\0'), reason(n, '\0'), method(n, '\0');
  std::vector<std::int32_t> gold_index(n);
  std::vector<std::string> gold_table;
  std::unordered_map<std::string, std::int32_t> gold_ids;
  // per cache, per serial of its golds: the index in gold_table (a row finds its gold's by
  // serial, without hashing the text again)
  std::vector<std::vector<std::int32_t>> id_of_serial;
  // the undecided rows' unwrapped golds (what the fallback reads): an index per row, in row
  // order, into a table of the distinct ones
  std::vector<std::int32_t> raw_index;
  std::vector<std::string> raw_table;
  std::unordered_map<std::string, std::int32_t> raw_ids;
  Packed extracted, normalized;
  extracted.offsets.reserve(n + 1);
  normalized.offsets.reserve(n + 1);
  CachePool caches;  // kept from slice to slice
  // The inputs are read a slice at a time: the calling thread only takes a reference to each
  // str, and reads the next slice's (and drops the last slice's) while the workers grade this
  // one; the workers make the UTF-8 views of a block's rows (and encode a non-ASCII str, freed
  // with the block).
  const auto slice_rows = [n](std::size_t lo) { return std::min(n - lo, std::clamp(lo, kFirstSliceRows, kSliceRows)); };
  const auto read_slice = [&](std::size_t lo) {
    const std::size_t hi = lo + slice_rows(lo);
    return std::make_unique<SliceRefs>(SliceRefs{golds.refs(lo, hi), responses.refs(lo, hi)});
  };
  std::unique_ptr<SliceRefs> current, next, previous;
  if (n > 0) current = read_slice(0);
  for (std::size_t lo = 0; lo < n; lo += slice_rows(lo)) {
    const std::size_t rows = slice_rows(lo);
    const HeldTexts& gold_refs = current->golds;
    const HeldTexts& response_refs = current->responses;
    const std::size_t block = batch_block_size(rows, n_threads);
    std::vector<BlockColumns> blocks((rows - 1) / block + 1);
    run_blocks(
        rows, n_threads,
        [&](std::size_t begin, std::size_t end) {
          BlockColumns& out = blocks[begin / block];
          std::vector<std::string_view> gold_views, response_views;
          std::unique_ptr<char[]> encoded_golds, encoded_responses;
          utf8_views(gold_refs, begin, end, gold_views, encoded_golds);
          utf8_views(response_refs, begin, end, response_views, encoded_responses);
          BlockTable raws_seen;  // becomes out.raws
          std::unique_ptr<BatchCache> cache = caches.take(lo + begin);
          out.cache = cache->index;
          out.gold_of.reserve(end - begin);
          grade::grade_span(gold_views.data(), response_views.data(), end - begin, options, cache->cache,
                            [&](std::size_t k, const grade::PreparedGold& gold, grade::FastVerdict& v) {
                              const std::size_t i = lo + begin + k;
                              // code 3: a limit was reached (decided_by="limit"), neither graded nor sent on;
                              // code 4: UNKNOWN that the fallback cannot help, not sent on (decided_by="fast")
                              const bool kept = v.tri == equiv::Tri::kUnknown && grade::fallback_cannot_help(v.reason);
                              tri[i] = grade::is_limit(v.reason) ? char{3} : kept ? char{4} : static_cast<char>(v.tri);
                              reason[i] = static_cast<char>(v.reason);
                              // serials grow in the order the golds are prepared, each at its first row
                              if (gold.serial > cache->sent) {
                                cache->sent = gold.serial;
                                out.new_serials.push_back(gold.serial);
                                out.new_golds.push_back(gold.answer.text());
                              }
                              out.gold_of.push_back(gold.serial);
                              // only the undecided pairs need the unwrapped gold (for the fallback)
                              if (v.tri == equiv::Tri::kUnknown && !grade::is_limit(v.reason) && !kept) {
                                out.raw_of.push_back(raws_seen.index(gold.serial, gold.raw));
                              }
                              if (v.found) {
                                method[i] = static_cast<char>(v.method);
                                out.extracted.add(v.answer);
                                out.normalized.add(v.normalized);
                              } else {
                                method[i] = static_cast<char>(kNoMethod);
                                out.extracted.add_empty();
                                out.normalized.add_empty();
                              }
                            });
          out.raws = std::move(raws_seen.table);
          caches.give_back(std::move(cache));
        },
        [&](std::size_t begin, std::size_t end) {
          BlockColumns done = std::move(blocks[begin / block]);  // freed once joined
          std::vector<std::int32_t> ids;                         // a block table's indices into the batch's
          join_table(done.new_golds, gold_table, gold_ids, ids);
          if (id_of_serial.size() <= done.cache) id_of_serial.resize(done.cache + 1);
          std::vector<std::int32_t>& id_of = id_of_serial[done.cache];
          if (!done.new_serials.empty()) {
            id_of.resize(static_cast<std::size_t>(done.new_serials.back()) + 1, -1);
          }
          for (std::size_t k = 0; k < done.new_serials.size(); ++k) {
            id_of[static_cast<std::size_t>(done.new_serials[k])] = ids[k];
          }
          for (std::size_t i = begin; i < end; ++i) {
            gold_index[lo + i] = id_of[static_cast<std::size_t>(done.gold_of[i - begin])];
          }
          extracted.append(done.extracted);
          normalized.append(done.normalized);
          join_table(done.raws, raw_table, raw_ids, ids);
          for (const std::int32_t k : done.raw_of) raw_index.push_back(ids[static_cast<std::size_t>(k)]);
        },
        [&]() {
          previous.reset();
          if (lo + rows < n) next = read_slice(lo + rows);
        });
    previous = std::move(current);
    current = std::move(next);
  }
  previous.reset();
  py::list table(gold_table.size());
  for (std::size_t k = 0; k < gold_table.size(); ++k) set_item(table, k, to_str(gold_table[k]));
  py::list raws(raw_table.size());
  for (std::size_t k = 0; k < raw_table.size(); ++k) set_item(raws, k, to_str(raw_table[k]));
  return FastColumns{py::bytearray(tri),
                     as_bytes(reason.data(), n),
                     as_bytes(method.data(), n),
                     as_bytes(gold_index.data(), n * sizeof(std::int32_t)),
                     table,
                     as_bytes(raw_index.data(), raw_index.size() * sizeof(std::int32_t)),
                     raws,
                     as_bytes(extracted.offsets.data(), extracted.offsets.size() * sizeof(std::int64_t)),
                     py::bytes(extracted.data),
                     as_bytes(normalized.offsets.data(), normalized.offsets.size() * sizeof(std::int64_t)),
                     py::bytes(normalized.data)};
}

// The strings of a packed column (UTF-8 bytes and n + 1 int64 offsets) as a list of str, None
// where `present` (one byte per row) is 0: how GradeResults decodes its columns in bulk.
py::list unpack_strings(const py::bytes& data, const py::buffer& offsets, const py::buffer& present) {
  const py::buffer_info off = offsets.request();
  const py::buffer_info has = present.request();
  if (off.itemsize != sizeof(std::int64_t) || off.ndim != 1 || has.itemsize != 1 || has.ndim != 1 ||
      off.shape[0] != has.shape[0] + 1) {
    throw py::value_error("unpack_strings: offsets must be n + 1 int64 values and present n bytes");
  }
  const std::string_view bytes = data;
  const auto* o = static_cast<const std::int64_t*>(off.ptr);
  const auto* p = static_cast<const std::uint8_t*>(has.ptr);
  const std::size_t n = static_cast<std::size_t>(has.shape[0]);
  py::list out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] == 0) {
      set_item(out, i, py::none());
      continue;
    }
    if (o[i] < 0 || o[i] > o[i + 1] || static_cast<std::size_t>(o[i + 1]) > bytes.size()) {
      throw py::value_error("unpack_strings: offsets out of range");
    }
    const std::string_view row =
        bytes.substr(static_cast<std::size_t>(o[i]), static_cast<std::size_t>(o[i + 1] - o[i]));
    set_item(out, i, to_str(row, "surrogatepass"));
  }
  return out;
}

// The texts the codes of grade_fast_many stand for: (reasons, methods), indexed by code.
py::tuple grade_tables() {
  py::list reasons, methods;
  for (int r = 0; r <= static_cast<int>(grade::kLastReason); ++r) {
    reasons.append(py::str(grade::reason_text(static_cast<grade::Reason>(r))));
  }
  for (int k = 0; k <= static_cast<int>(extract::Method::kLastNumber); ++k) {
    methods.append(py::str(extract::method_name(static_cast<extract::Method>(k))));
  }
  return py::make_tuple(reasons, methods);
}

}  // namespace

void bind_grade(py::module_& m) {
  py::class_<FastColumns>(
      m, "FastColumns",
      "The columns of grade_fast_many, one entry per pair: tri (bytearray: 0 false, 1 true, 2 undecided, 3 past a "
      "limit, 4 undecided where the fallback cannot help), reason and method (bytes of codes, see grade_tables; method "
      "255 where no answer was found), gold_index "
      "(int32 bytes) into gold_table (the distinct normalized golds, a list of str), raw_index (int32 bytes, one per "
      "undecided pair in row order) into raw_table (their distinct unwrapped golds, what the fallback reads), and the "
      "extracted and normalized answers packed: *_offsets (n + 1 int64, bytes) into *_data (UTF-8 bytes).")
      .def(
          py::init<>([](py::object tri, py::object reason, py::object method, py::object gold_index,
                        py::object gold_table, py::object raw_index, py::object raw_table, py::object extracted_offsets,
                        py::object extracted_data, py::object normalized_offsets, py::object normalized_data) {
            return FastColumns{std::move(tri),
                               std::move(reason),
                               std::move(method),
                               std::move(gold_index),
                               std::move(gold_table),
                               std::move(raw_index),
                               std::move(raw_table),
                               std::move(extracted_offsets),
                               std::move(extracted_data),
                               std::move(normalized_offsets),
                               std::move(normalized_data)};
          }),
          py::kw_only(), py::arg("tri"), py::arg("reason"), py::arg("method"), py::arg("gold_index"),
          py::arg("gold_table"), py::arg("raw_index"), py::arg("raw_table"), py::arg("extracted_offsets"),
          py::arg("extracted_data"), py::arg("normalized_offsets"), py::arg("normalized_data"))
      .def_readonly("tri", &FastColumns::tri)
      .def_readonly("reason", &FastColumns::reason)
      .def_readonly("method", &FastColumns::method)
      .def_readonly("gold_index", &FastColumns::gold_index)
      .def_readonly("gold_table", &FastColumns::gold_table)
      .def_readonly("raw_index", &FastColumns::raw_index)
      .def_readonly("raw_table", &FastColumns::raw_table)
      .def_readonly("extracted_offsets", &FastColumns::extracted_offsets)
      .def_readonly("extracted_data", &FastColumns::extracted_data)
      .def_readonly("normalized_offsets", &FastColumns::normalized_offsets)
      .def_readonly("normalized_data", &FastColumns::normalized_data);
  m.def("grade_fast_many", &grade_fast_many, py::arg("golds"), py::arg("responses"), py::kw_only(),
        py::arg("last_number") = true, py::arg("rel_tol") = 1e-9, py::arg("abs_tol") = 1e-12,
        py::arg("float_rounding") = py::none(), py::arg("threads") = py::none(),
        py::arg("max_answer_bytes") = grade::kDefaultMaxAnswerBytes,
        "The fast path of grade_many as a FastColumns, computed on `threads` threads with the GIL released.");
  m.def("unpack_strings", &unpack_strings, py::arg("data"), py::arg("offsets"), py::arg("present"),
        "The str of every row of a packed column (UTF-8 data, n + 1 int64 offsets), None where present[i] is 0.");
  m.def("grade_tables", &grade_tables,
        "(reason texts, method names), indexed by the reason and method codes of grade_fast_many.");
}

}  // namespace rapidgrade::bindings
