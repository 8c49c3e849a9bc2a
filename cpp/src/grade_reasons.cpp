// The one-line message of each reason a fast verdict was reached (grade.hpp, Reason): the texts
// users read in Verdict.reason, in one place.
#include "rapidgrade/grade.hpp"

namespace rapidgrade::grade {

const char* reason_text(Reason reason) noexcept {
  switch (reason) {
    case Reason::kSameAfterNormalization: return "same answer after normalization";
    case Reason::kEquivalent: return "equivalent";
    case Reason::kNotEquivalent: return "not equivalent";
    case Reason::kChoiceMatches: return "same multiple-choice letter";
    case Reason::kChoiceDiffers: return "different multiple-choice letter";
    case Reason::kNoAnswer: return "no answer found in the response";
    case Reason::kOnlyLastNumber: return "no explicit final answer (only a last number; last_number=False)";
    case Reason::kEmptyAnswer: return "the extracted answer is empty";
    case Reason::kEmptyGold: return "the gold answer is empty";
    case Reason::kUndecided: return "undecided by the fast path";
    case Reason::kOtherReadingMatches:
      return "undecided: the unmarked answer differs, but another reading of the final statement matches";
    case Reason::kWeakReading:
      return "undecided: the answer was read from a phrase with words it skipped, or the markers disagree";
    case Reason::kSentenceNumbers:
      return "the numbers of the final sentence are the gold's values (no marked answer; read as the gold's list)";
    case Reason::kLastAssignment:
      return "the last value the final span assigns is the gold's (no marked answer; what comes before it assigns "
             "givens or other unknowns, or solves for it)";
    case Reason::kNumberBeforeName:
      return "the number of the final sentence is its answer (no marked answer; the math after it only names what "
             "it counts)";
    case Reason::kSentenceValues:
      return "the values the final sentence assigns to its unknowns are the gold's (no marked answer; read as the "
             "gold's list)";
    case Reason::kOpeningStatement:
      return "the opening sentence states the gold's answer (no marked answer; a write-up that states its answer "
             "first, then proves it)";
    case Reason::kClosingStatement:
      return "the last sentence states the gold's answer as the sought value (no marked answer, or a weak one: \"Thus "
             "the least possible value is 65, and ...\")";
    case Reason::kDeclines:
      return "the response declines to answer (a refusal after its last number): that number is no answer";
    case Reason::kChoiceNotNamed:
      return "undecided: a multiple-choice letter against an answer that names no choice (only the options can tell)";
    case Reason::kNoValue:
      return "undecided: one answer is a constant with no value (a function the grader does not know, or words) "
             "and the other a number, or applies a function with no definition that the other does not name, or "
             "the answer is a lone name (\"the answer is $n$\") against a value or against the gold's value of that "
             "name";
    case Reason::kLastMemberDiffers:
      return "undecided: the last member of the answer's equation differs; a member before it may be the answer";
    case Reason::kGoldEquation:
      return "undecided: the gold is an equation and the answer a value that only its left side could be";
    case Reason::kConditionAgainstValue:
      return "undecided: one answer states a condition (an inequality), the other a value, a list of values or an "
             "equation";
    case Reason::kProofClose:
      return "undecided: no marked answer, and the response argues a proof (we show, a lemma, by induction) or ends "
             "by closing one (as required, a contradiction); its last math may be a step, not a stated answer";
    case Reason::kEllipsisList:
      return "undecided: an answer with an ellipsis (\\ldots) against one without; such answers are equal only term by "
             "term";
    case Reason::kWordsAgainstMath:
      return "undecided: one answer is words, the other an expression in unknowns; no reader of the fallback reads "
             "words as math";
    case Reason::kProgramWithoutOutput:
      return "undecided: the response ends with a program's print or return and shows no output; its last number is "
             "not the value the program prints, and no reader runs it";
    case Reason::kOneOfGoldValues:
      return "undecided: no marked answer, and the reading is one member of the gold (a value or a tuple of its list, "
             "a set of its union); the response may state the others elsewhere";
    case Reason::kTableCell:
      return "undecided: no marked answer, and the last value stands in a cell of a table; which cell answers, the "
             "table does not say";
    case Reason::kLastNumberGuess:
      return "undecided: no marked answer, and the answer read is the text's last number, which a label, a caption "
             "or another sentence follows or which ends a listing of numbers, or a last value that is an operand "
             "(\"dividing by 5\"): a step of the text, not its stated answer";
    case Reason::kEarlierMarkerMatches:
      return "undecided: the last marked answer differs, but an earlier answer marker's answer matches (a general "
             "answer after a particular one, or a change of mind)";
    case Reason::kOtherShape:
      return "undecided: no marked answer, and the reading has another shape than the gold (a list against one "
             "value, a value for a name of the gold's formula, an equation to solve): a listing, an instance or a "
             "step, not the answer";
    case Reason::kSumOverSet:
      return "undecided: one answer sums over a set that a condition names (\\sum_{x \\in R}, \\sum_{i<j}), the "
             "other holds no sum; no reader of the fallback enumerates such a set";
    case Reason::kAnswerTooLong: return "limit: the extracted answer is longer than max_answer_bytes";
    case Reason::kWorkLimit: return "limit: comparing the answers needs more work than the fast path's budget";
    case Reason::kMagnitudeLimit:
      return "limit: a value too large to compare exactly, of the same magnitude as the other";
  }
  return "";
}

}  // namespace rapidgrade::grade
