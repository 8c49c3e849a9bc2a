// Sentiment-tuple evaluation (aspect-based sentiment analysis): the normalization rules and the
// batch scorer behind rapidgrade.tasks.absa.
//
// Text is taken as a view of code points stored 1, 2 or 4 bytes each (the three layouts of a
// Python str), so the bindings pass strings without conversion. Outputs are UTF-8; a lone
// surrogate is written as its 3-byte form (decode with "surrogatepass").
//
// Case folding: the core lower-cases ASCII itself. Other scripts need Unicode case mapping
// (with context rules such as the Greek final sigma), which the core does not carry: callers
// check needs_unicode_lower() and lower-case such strings beforehand (the bindings use Python's
// str.lower(), the reference for the rules). Hangul, CJK, kana, punctuation and emoji have no
// case and never need it.
//
// Every function is linear in its input (polarity repair: bounded edit distance against three
// 8-letter words), allocates at most the size of its output, and never throws on any input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace rapidgrade::absa {

/// A read-only view of `size` code points stored `width` bytes each (1, 2 or 4).
struct CodePoints {
  const void* data = nullptr;
  std::size_t size = 0;
  unsigned width = 1;

  char32_t at(std::size_t i) const noexcept {
    switch (width) {
      case 1: return static_cast<const std::uint8_t*>(data)[i];
      case 2: return static_cast<const std::uint16_t*>(data)[i];
      default: return static_cast<const std::uint32_t*>(data)[i];
    }
  }
};

/// Python's str.isspace() set: ASCII \t\n\v\f\r, U+001C..U+001F, space, U+0085, U+00A0,
/// U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (detail/spaces.hpp beyond
/// ASCII).
bool is_space(char32_t c) noexcept;

/// True when `s` has a code point that the core cannot lower-case itself (anything but ASCII
/// and blocks known to have no case: Hangul, CJK, kana, general punctuation, emoji, ...).
/// Conservative: a false "true" only costs a call to the caller's Unicode lower().
bool needs_unicode_lower(CodePoints s) noexcept;

/// The evaluation form of an aspect term: ASCII lower-cased (see the note on case folding),
/// whitespace runs collapsed to one space, whitespace and edge punctuation stripped from both
/// ends. Appends UTF-8 to `out` (cleared first). e.g. "  The  Battery!! " -> "the battery",
/// "“배터리”。" -> "배터리".
void normalize_for_eval(CodePoints s, std::string& out);

/// The evaluation form of an aspect reference: whitespace stripped and collapsed, spaces around
/// '#' removed; case and every other symbol kept. e.g. " 제품 전체 # 품질 " -> "제품 전체#품질".
void normalize_ref_for_eval(CodePoints s, std::string& out);

/// Canonical polarity labels.
enum class Polarity : std::int8_t { kInvalid = -1, kPositive = 0, kNegative = 1, kNeutral = 2, kMixed = 3 };

/// "positive", "negative", "neutral", "mixed" ("" for kInvalid).
const char* polarity_name(Polarity p) noexcept;

struct PolarityResult {
  Polarity label = Polarity::kInvalid;
  bool repaired = false;  // label found by edit distance, not by the whitelist
  bool missing = false;   // empty after stripping whitespace (label stays kInvalid)
};

/// Whitelist, after stripping whitespace and ASCII lower-casing: pos/neg/neu and
/// positive/negative/neutral/mixed. With `repair`, a non-whitelisted value at edit distance 1 or
/// 2 from exactly one of positive/negative/neutral maps to it (repaired = true). When the label
/// is kInvalid and `folded` is not null, the stripped, lower-cased text is written there.
PolarityResult canonicalize_polarity(CodePoints s, bool repair, std::string* folded = nullptr);

/// One candidate field of a gold tuple: `present` when the field holds a string.
struct Field {
  bool present = false;
  CodePoints text;
};

enum class GoldTermSource { kNone, kAspectTerm, kOpinionTerm, kAspectRef, kTerm };

/// Which field gives a gold tuple's aspect term. An aspect_term that is present but empty (after
/// stripping whitespace) is an explicit empty term: kNone. Otherwise the first non-empty of
/// aspect_term, opinion_term.term, aspect_ref, term; kNone when all are empty or absent.
GoldTermSource select_gold_term(const Field& aspect_term, const Field& opinion_term, const Field& aspect_ref,
                                const Field& term) noexcept;

/// [begin, end) of `s` without leading and trailing whitespace (is_space).
std::pair<std::size_t, std::size_t> strip_bounds(CodePoints s) noexcept;

// ---------------------------------------------------------------------------------------------
// Batch scoring

/// One tuple as the scorer sees it. `term` is the aspect term (already chosen by
/// select_gold_term for gold tuples; already Unicode lower-cased when needed); `polarity` and
/// `ref` are absent when the field was missing or null.
struct TupleRow {
  CodePoints term;
  CodePoints polarity;
  CodePoints ref;
  bool has_polarity = false;
  bool has_ref = false;
};

struct BatchInput {
  std::size_t n_stages = 0;
  /// Tuples of all groups, group after group. Group r * (n_stages + 1) is record r's gold,
  /// group r * (n_stages + 1) + 1 + k its stage k.
  std::vector<TupleRow> rows;
  /// Offsets into rows: group g is rows[groups[g], groups[g + 1]); size n_groups + 1.
  std::vector<std::size_t> groups;
  /// Stage pairs (from, to) to compare for changed / break / fix.
  std::vector<std::pair<std::size_t, std::size_t>> transitions;
  bool repair = false;                            // predicted polarities only
  Polarity default_missing = Polarity::kNeutral;  // for missing or empty polarities
  bool check_refs = false;                        // count predicted refs outside `allowlist`
  std::vector<std::string> allowlist;             // normalize_ref_for_eval forms, sorted

  /// Empties rows and groups (keeping their capacity) for the next chunk of records.
  void clear_records() {
    rows.clear();
    groups.assign(1, 0);
  }
};

struct GroupCounts {
  std::uint64_t tuples = 0;             // tuples given
  std::uint64_t unique = 0;             // distinct evaluation keys (the set that is scored)
  std::uint64_t matched = 0;            // keys also in gold with a valid polarity (stages only)
  std::uint64_t exact = 0;              // records whose stage set equals gold exactly
  std::uint64_t invalid_polarity = 0;   // polarity outside the whitelist (after repair)
  std::uint64_t repaired_polarity = 0;  // polarity repaired by edit distance
  std::uint64_t missing_polarity = 0;   // polarity missing or empty (default used)
  std::uint64_t invalid_ref = 0;        // non-empty ref outside the allowlist (stages only)
};

struct TransitionCounts {
  std::uint64_t changed = 0;  // records whose key sets differ between the two stages
  std::uint64_t broke = 0;    // exactly right in `from`, not in `to`
  std::uint64_t fixed = 0;    // exactly right in `to`, not in `from`
};

struct BatchResult {
  std::uint64_t records = 0;
  GroupCounts gold;
  std::vector<GroupCounts> stages;
  std::vector<TransitionCounts> transitions;
};

/// Scores every record of `input` and adds the counts to `total` (sized on first use), so that
/// records can be scored in chunks. Per record, each group becomes the set of its keys
/// (normalize_for_eval(term), polarity); an invalid polarity keeps its folded text in the key,
/// so it still counts for `changed`, but never matches gold. matched = |gold ∩ stage| over
/// valid keys; exact when matched == |gold| == |stage|. Runs on `threads` threads; O(total
/// tuples * log(tuples per record)). Requires well-formed `groups` (the bindings build them).
void score_batch(const BatchInput& input, unsigned threads, BatchResult& total);

/// Where score_chunks() reads its records from. Both members are called on the calling thread
/// of score_chunks() only.
class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  /// Appends the rows and groups of the next chunk of records to `buffer` (whose records were
  /// cleared, and which keeps the settings given to score_chunks); false when none is left.
  /// The rows must stay valid until next_chunk is called again with the same buffer or
  /// score_chunks returns.
  virtual bool next_chunk(BatchInput& buffer) = 0;
  /// Runs `wait`, which scores or waits for the scoring thread (the bindings let other
  /// Python threads run meanwhile).
  virtual void blocking(const std::function<void()>& wait) { wait(); }
};

/// Scores every record `source` gives, chunk by chunk, into `total`; `settings` holds
/// everything but the records (stages, transitions, repair, default, allowlist). With
/// threads <= 1 each chunk is scored as soon as it is read, while its data is still in cache;
/// with threads >= 2 each chunk is scored on a background thread (with threads - 1 scoring
/// threads) while the next one is read, in two buffers, so memory stays bounded by two chunks.
/// An exception of the source or of the scorer ends the run (after the scoring thread is
/// joined) and propagates.
void score_chunks(const BatchInput& settings, ChunkSource& source, unsigned threads, BatchResult& total);

}  // namespace rapidgrade::absa
