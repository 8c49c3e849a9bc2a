// The fast path of grading: extract the answer of a response, normalize both sides, and decide
// equality with certainty or not at all.
//
// grade() composes the other concerns (extract, normalize, equiv) and adds the grading rules
// that belong to neither: a gold given with math delimiters is unwrapped, a multiple-choice
// letter matches its decorated forms, an answer found only as "the last number" can be
// refused. It returns UNKNOWN whenever equiv does; the caller then asks SymPy / math-verify.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rapidgrade/equiv.hpp"
#include "rapidgrade/extract.hpp"
#include "rapidgrade/normalize.hpp"

namespace rapidgrade::grade {

struct Options {
  /// Accept an answer found only by the last-number strategy. Off for RL rewards where only
  /// an explicit final answer may earn credit.
  bool last_number = true;
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
};

/// The one-line message of a reason, e.g. "same answer after normalization".
const char* reason_text(Reason reason) noexcept;

struct FastVerdict {
  equiv::Tri tri = equiv::Tri::Unknown;
  Reason reason = Reason::kUndecided;
  std::string gold;           // the gold, unwrapped and normalized
  std::string gold_raw;       // the gold, unwrapped (what the fallback receives)
  bool found = false;         // an answer was extracted
  extract::Method method = extract::Method::kAuto;
  std::string answer;         // the extracted answer as written (what the fallback receives)
};

/// A gold answer made ready for grading: unwrapped and normalized once, then compared with
/// any number of responses (n samples of one problem share their gold).
struct PreparedGold {
  std::string raw;  // unwrapped (what the fallback receives)
  normalize::Normalized normalized;
};

/// Unwraps and normalizes a gold answer (UTF-8).
PreparedGold prepare_gold(std::string_view gold);

/// Grades one response against one gold answer (both UTF-8). Linear in the response plus the
/// cost of equiv on the two answers; never throws for any input (parse failures are UNKNOWN)
/// except std::bad_alloc.
FastVerdict grade(std::string_view gold, std::string_view response, const Options& options = {});

/// grade() with a gold prepared by prepare_gold(): the same verdict.
FastVerdict grade(const PreparedGold& gold, std::string_view response, const Options& options = {});

/// `s` without surrounding whitespace and the wrappers that enclose all of it, up to
/// detail::kMaxWrapperLayers layers: math delimiters ($...$, $$...$$, \(...\), \[...\]) and
/// \boxed{...} / \fbox{...}: "$x^2$" -> "x^2", "$\boxed{5}$" -> "5"; "$a$ and $b$" is kept.
/// The rules are detail::unwrap's (rapidgrade/detail/delimiters.hpp), shared with extraction.
std::string_view unwrap_answer(std::string_view s) noexcept;

}  // namespace rapidgrade::grade
