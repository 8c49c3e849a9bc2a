// The fast path of grading: extract the answer of a response, normalize both sides, and decide
// equality with certainty or not at all.
//
// grade() composes the other concerns (extract, normalize, equiv) and adds the grading rules
// that belong to neither: a gold given with math delimiters is unwrapped, a multiple-choice
// letter matches its decorated forms, an answer found only as "the last number" can be
// refused. It returns UNKNOWN whenever equiv does; the caller then asks SymPy / math-verify.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "rapidgrade/equiv.hpp"
#include "rapidgrade/extract.hpp"
#include "rapidgrade/normalize.hpp"

namespace rapidgrade::grade {

/// Default of Options::max_answer_bytes: 64 KiB.
constexpr std::size_t kDefaultMaxAnswerBytes = std::size_t{1} << 16;

struct Options {
  /// Accept an answer found only by the last-number strategy. Off for RL rewards where only
  /// an explicit final answer may earn credit; off, the numbers of the final sentence are not
  /// read as a list either (Reason::kSentenceNumbers): a list of numbers in prose earns no more
  /// than a last number.
  bool last_number = true;
  /// Longest extracted answer (bytes of UTF-8) the grader compares; a longer one is not
  /// compared (Reason::kAnswerTooLong, a limit). Costly answers are a policy's way to slow
  /// a reward down: a cap keeps the cost of one sample bounded.
  std::size_t max_answer_bytes = kDefaultMaxAnswerBytes;
  equiv::Options equiv;
};

/// Why a fast verdict was reached; each has a one-line message (reason_text).
enum class Reason : std::uint8_t {
  kSameAfterNormalization,
  kEquivalent,
  kNotEquivalent,
  kChoiceMatches,
  kChoiceDiffers,
  kNoAnswer,
  kOnlyLastNumber,
  kEmptyAnswer,
  kEmptyGold,
  kUndecided,
  kOtherReadingMatches,    // a guessed (weak) reading differs, another reading matches: UNKNOWN
  kWeakReading,            // a weak answer phrase reading (Extraction::clean, rivals) differs: UNKNOWN
  kSentenceNumbers,        // no marked answer; the numbers of the final sentence are the gold's list: TRUE
  kOpeningStatement,       // no marked answer; the opening sentence states the gold's answer: TRUE
  kClosingStatement,       // no marked answer, or a weak one; the last sentence states the gold's answer: TRUE
  kSentenceValues,         // no marked answer; the values the final sentence assigns are the gold's list: TRUE
  kNumberBeforeName,       // no marked answer; the final span only names what the sentence's number counts: TRUE
  kLastAssignment,         // no marked answer; the last of the final span's assignments is the gold's value: TRUE
  kChoiceNotNamed,         // a choice letter against an answer that names no choice: UNKNOWN
  kDeclines,               // no marked answer, and the text after the last number declines to answer: FALSE
  kNoValue,                // "f(0)", words or a lone name against a number, "f(x)" on one side only: UNKNOWN
  kLastMemberDiffers,      // an equation chain's last member differs, an earlier one may not: UNKNOWN (kLastMember)
  kGoldEquation,           // a gold equation with a number in its left side against a value: UNKNOWN (kGoldEquation)
  kConditionAgainstValue,  // a condition (an inequality) against values: UNKNOWN (kCondition, or unread)
  kEllipsisList,           // an answer with an ellipsis (a term, or in one) against one with none: UNKNOWN
  kProofClose,             // no marked answer, a final sentence that closes a proof, a reading that differs: UNKNOWN
  kWordsAgainstMath,       // words with no digit against an expression in unknowns: UNKNOWN (equiv::Limit::kWords)
  kSumOverSet,             // a sum over a set a condition names, against no sum: UNKNOWN (sums_over_a_condition)
  kProgramWithoutOutput,   // no marked answer, a program's print() at the end and no output: UNKNOWN
  kTableCell,              // no marked answer, a reading from a cell of a table that differs: UNKNOWN
  kOneOfGoldValues,        // no marked answer, a value read that is one of a gold list's or union's: UNKNOWN
  kLastNumberGuess,        // no marked answer, a last number that does not close the text, differs: UNKNOWN
  kOtherShape,             // no marked answer, a reading of another shape than the gold (other_shape): UNKNOWN
  kEarlierMarkerMatches,   // the last "answer is" differs, an earlier one's answer matches: UNKNOWN
  // Limits: not compared, neither correct nor sent to the fallback (decided_by="limit").
  kAnswerTooLong,   // the extracted answer is longer than Options::max_answer_bytes
  kWorkLimit,       // equiv ran out of its work budget (equiv::Limit::kWork)
  kMagnitudeLimit,  // a value past the range of doubles, undecided (equiv::Limit::kMagnitude)
};

/// The last reason (for tables indexed by reason).
constexpr Reason kLastReason = Reason::kMagnitudeLimit;

/// A limit was reached: the pair is neither graded by the fast path nor worth a fallback.
constexpr bool is_limit(Reason reason) noexcept {
  return reason == Reason::kAnswerTooLong || reason == Reason::kWorkLimit || reason == Reason::kMagnitudeLimit;
}

/// An UNKNOWN that the fallback cannot turn into TRUE, so it is not sent there (the verdict
/// stays UNKNOWN, counted wrong, decided by the fast path). The fallback compares the extracted
/// answer with the gold, as the fast path did: a weak reading that the core disproved
/// (kWeakReading, kOtherReadingMatches) stays disproved there, and whether an answer that
/// names no choice is the gold's choice only the options could say (kChoiceNotNamed), and an
/// undefined function's value or words are no number whatever algebra does, nor is an undefined
/// function that one side alone applies anything the other side is (kNoValue), and an
/// equation is read by the fallback as its last member, which the core disproved
/// (kLastMemberDiffers), and the fallback compares a gold equation with a value only through an
/// assignment's right side (kGoldEquation), and neither of its readers proves a condition equal
/// to values, nor reads one that the core could not parse as the value it bounds
/// (kConditionAgainstValue: SymPy keeps it a relation, math-verify compares a relation with a
/// value as FALSE), and its sequence rule makes an answer with an ellipsis (a list's term, or
/// inside one) equal only to one with the same ellipsis terms (kEllipsisList), and it compares
/// the same reading of a text
/// that ends by closing a proof, which the core disproved (kProofClose), and it reads words as a
/// product of letters or not at all (kWordsAgainstMath), and it enumerates no set that a sum's
/// condition names (kSumOverSet), and it runs no program (kProgramWithoutOutput), and it reads
/// the same cell of a table (kTableCell) or the same one of a gold list's values
/// (kOneOfGoldValues), the same last number (kLastNumberGuess) and the same reading of another
/// shape than the gold (kOtherShape), and it reads the same last "answer is" of a text whose
/// earlier one matches (kEarlierMarkerMatches).
constexpr bool fallback_cannot_help(Reason reason) noexcept {
  return reason == Reason::kWeakReading || reason == Reason::kOtherReadingMatches ||
         reason == Reason::kChoiceNotNamed || reason == Reason::kNoValue || reason == Reason::kLastMemberDiffers ||
         reason == Reason::kGoldEquation || reason == Reason::kConditionAgainstValue ||
         reason == Reason::kEllipsisList || reason == Reason::kProofClose || reason == Reason::kWordsAgainstMath ||
         reason == Reason::kSumOverSet || reason == Reason::kProgramWithoutOutput || reason == Reason::kTableCell ||
         reason == Reason::kOneOfGoldValues || reason == Reason::kLastNumberGuess || reason == Reason::kOtherShape ||
         reason == Reason::kEarlierMarkerMatches;
}

/// The one-line message of a reason, e.g. "same answer after normalization".
const char* reason_text(Reason reason) noexcept;

struct FastVerdict {
  equiv::Tri tri = equiv::Tri::kUnknown;
  Reason reason = Reason::kUndecided;
  bool found = false;  // an answer was extracted
  extract::Method method = extract::Method::kAuto;
  std::string answer;      // the extracted answer as written (what the fallback receives)
  std::string normalized;  // the extracted answer, unwrapped and normalized ("" when none)
};

/// A normalized answer as the grading stages hand it on: its text, whether normalization
/// removed a percent sign or a degree mark, and its expression tree, parsed on first need and
/// kept.
class Answer {
 public:
  Answer() = default;
  explicit Answer(normalize::Normalized normalized) : normalized_(std::move(normalized)) {}

  const std::string& text() const noexcept { return normalized_.text; }
  const normalize::Normalized& normalized() const noexcept { return normalized_; }
  bool percent() const noexcept { return normalized_.percent; }
  /// Written in degrees ("45^\circ", "45°", "45 degrees"): normalization removed the mark.
  bool degrees() const noexcept { return normalized_.degrees; }
  /// The tree (auto syntax), or nullptr when the answer does not parse (or exceeds a limit).
  /// The percent sign goes back to the parser, which decides what it applies to: "5+3" with
  /// the flag reads 5 + 3%, "\frac{1}{2}" reads (1/2)%, as they were written.
  const expr::Ast* tree();
  /// An answer written in degrees read as an angle: tree() with the whole answer in degrees
  /// (a value; each value of a list, tuple, set or interval; the value of "x = 45"), whose
  /// degree nodes equiv reads as the number or the number times pi/180 ("30^\circ, 60^\circ"
  /// is {30°, 60°}, "45^\circ" matches 45 and pi/4). tree() itself is the plain reading, the
  /// marks dropped. nullptr when the answer is not in degrees, does not parse, or has a part
  /// no degree applies to (an inequality, words).
  const expr::Ast* degree_tree();
  /// What equiv works out about tree() alone, kept for the next comparison with it.
  equiv::TreeFacts& facts() noexcept { return facts_; }

 private:
  normalize::Normalized normalized_;
  std::optional<expr::Ast> tree_;
  bool parsed_ = false;
  std::optional<expr::Ast> degree_tree_;
  bool degree_built_ = false;
  equiv::TreeFacts facts_;  // of tree_, which does not change once parsed
};

/// A gold answer made ready for grading (as RapidFuzz's CachedLevenshtein prepares its first
/// string): unwrapped and normalized once, its tree parsed at most once, then compared with
/// any number of responses (n samples of one problem share their gold). Not to be shared by
/// threads (the tree is parsed on first use).
struct PreparedGold {
  std::string raw;           // unwrapped (what the fallback receives)
  Answer answer;             // normalized; answer.text() is the gold as verdicts show it
  bool sentences = false;    // the gold holds several sentences ("Yes. $F(x,y)=x+y$")
  std::uint64_t serial = 0;  // set by GoldCache: distinct for every gold it prepares (from 1), never reused
};

/// Unwraps and normalizes a gold answer (UTF-8). A gold that is a whole solution, one that holds
/// a box or an answer tag (a MATH solution ending in \boxed{...}, a GSM8K answer ending in
/// "#### 72"), is read as a response is: its answer is what that marker holds.
PreparedGold prepare_gold(std::string_view gold);

/// Grades one response against one gold answer (both UTF-8). Linear in the response plus the
/// cost of equiv on the two answers; never throws for any input (parse failures are UNKNOWN)
/// except std::bad_alloc.
FastVerdict grade(std::string_view gold, std::string_view response, const Options& options = {});

/// grade() with a gold prepared by prepare_gold(): the same verdict; parses the gold's tree on
/// first need and keeps it for the next response.
FastVerdict grade(PreparedGold& gold, std::string_view response, const Options& options = {});

/// Prepared golds by value, for one thread of a batch: a gold is unwrapped, normalized and
/// parsed once however the rows are ordered (shuffled samples of one problem included).
/// Bounded: past kMaxEntries golds or kMaxBytes bytes of keys it is emptied and starts again.
/// Not to be shared by threads.
class GoldCache {
 public:
  static constexpr std::size_t kMaxEntries = 4096;
  static constexpr std::size_t kMaxBytes = std::size_t{8} << 20;

  /// The prepared form of `gold` (its serial set), valid until the next call.
  PreparedGold& get(std::string_view gold);

 private:
  struct Entry {
    std::string key;
    PreparedGold gold;
  };
  // Slots of the table of recent golds.
  static constexpr std::size_t kRecentSlots = 256;
  // Keyed by a view of the entry's own key (looked up without building a string).
  std::unordered_map<std::string_view, std::unique_ptr<Entry>> map_;
  // In front of map_: the gold last found in each slot, a slot chosen by the gold's length and
  // its first and last eight bytes (recent_slot), checked by comparing the whole key. A batch
  // repeats its golds (n samples of each problem), so most lookups end here, without hashing
  // the whole text or walking a bucket.
  std::array<Entry*, kRecentSlots> recent_{};
  std::size_t bytes_ = 0;
  std::uint64_t serials_ = 0;
  Entry* last_ = nullptr;
};

/// Asks the CPU for the first and last kilobyte of `text` (distinct responses are usually not
/// in cache; extraction reads a response from its end, then from its start).
void prefetch_text(std::string_view text) noexcept;

/// Grades the pairs (golds[k], responses[k]) for k in [0, n), the batch form of grade(), and
/// hands each verdict to sink(k, gold, verdict) in order of k: `gold` is the pair's prepared
/// gold (valid during the call), `verdict` may be moved from. Each distinct gold is prepared
/// once (unwrapped, normalized, parsed) through `cache`, which may be carried from one span to
/// the next of the same thread. The next response is prefetched while one is graded.
template <typename Sink>
void grade_span(const std::string_view* golds, const std::string_view* responses, std::size_t n, const Options& options,
                GoldCache& cache, Sink&& sink) {
  for (std::size_t k = 0; k < n; ++k) {
    if (k + 1 < n) prefetch_text(responses[k + 1]);
    PreparedGold& gold = cache.get(golds[k]);
    FastVerdict verdict = grade(gold, responses[k], options);
    sink(k, static_cast<const PreparedGold&>(gold), verdict);
  }
}

/// `s` without surrounding whitespace and the wrappers that enclose all of it, up to
/// detail::kMaxWrapperLayers layers: math delimiters ($...$, $$...$$, \(...\), \[...\]) and
/// \boxed{...} / \fbox{...}: "$x^2$" -> "x^2", "$\boxed{5}$" -> "5"; "$a$ and $b$" is kept.
/// The rules are detail::unwrap's (rapidgrade/detail/delimiters.hpp), shared with extraction.
std::string_view unwrap_answer(std::string_view s) noexcept;

}  // namespace rapidgrade::grade
