#include "rapidgrade/grade.hpp"

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/normalize.hpp"

namespace rapidgrade::grade {
namespace {

constexpr bool is_space(char c) noexcept {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// The letter of a multiple-choice answer written as "C", "(C)", "C)" or "(C" after
// normalization (which has already unwrapped \text{...}), or 0. Letters A-J only.
char choice_letter(std::string_view s) noexcept {
  s = trim(s);
  if (!s.empty() && s.front() == '(') s.remove_prefix(1);
  if (!s.empty() && s.back() == ')') s.remove_suffix(1);
  s = trim(s);
  if (s.size() != 1) return 0;
  const char c = s[0];
  if (c >= 'A' && c <= 'J') return c;
  return 0;
}

}  // namespace

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
  }
  return "";
}

std::string_view unwrap_answer(std::string_view s) noexcept {
  // Each wrapper must enclose the whole string: "$a$ and $b$" is left alone.
  return detail::unwrap(s, detail::Wrappers::kAll, detail::kMaxWrapperLayers);
}

namespace {

// Equations are kept whole ("y = 2x + 1" is not "2x + 1"): equiv knows that "x = 5" matches 5.
normalize::Options answer_normalization() noexcept {
  normalize::Options norm;
  norm.equations = false;
  return norm;
}

}  // namespace

PreparedGold prepare_gold(std::string_view gold) {
  PreparedGold prepared;
  const std::string_view raw = unwrap_answer(gold);
  prepared.raw = std::string(raw);
  prepared.normalized = normalize::normalize(raw, answer_normalization());
  return prepared;
}

FastVerdict grade(std::string_view gold, std::string_view response, const Options& options) {
  return grade(prepare_gold(gold), response, options);
}

FastVerdict grade(const PreparedGold& gold, std::string_view response, const Options& options) {
  FastVerdict v;
  v.gold_raw = gold.raw;
  const normalize::Normalized& g = gold.normalized;
  v.gold = g.text;
  const normalize::Options norm = answer_normalization();
  const auto found = extract::extract_answer(response, extract::Method::kAuto);
  if (!found) {
    v.tri = equiv::Tri::False;
    v.reason = Reason::kNoAnswer;
    return v;
  }
  v.found = true;
  v.method = found->method;
  v.answer = extract::answer_text(response, *found);
  if (found->method == extract::Method::kLastNumber && !options.last_number) {
    v.tri = equiv::Tri::False;
    v.reason = Reason::kOnlyLastNumber;
    return v;
  }
  const normalize::Normalized p = normalize::normalize(unwrap_answer(v.answer), norm);
  if (g.text.empty()) {
    v.reason = Reason::kEmptyGold;  // nothing to compare with: leave it to the fallback
    return v;
  }
  if (p.text.empty()) {
    v.tri = equiv::Tri::False;
    v.reason = Reason::kEmptyAnswer;
    return v;
  }
  if (g.text == p.text) {
    v.tri = equiv::Tri::True;
    v.reason = Reason::kSameAfterNormalization;
    return v;
  }
  if (const char letter = choice_letter(g.text)) {
    const char answer = choice_letter(p.text);
    if (answer != 0) {
      v.tri = answer == letter ? equiv::Tri::True : equiv::Tri::False;
      v.reason = answer == letter ? Reason::kChoiceMatches : Reason::kChoiceDiffers;
      return v;
    }
  }
  // The percent sign was removed by normalization; equiv knows the percent rules.
  std::string gold_expr = g.text;
  std::string pred_expr = p.text;
  if (g.percent) gold_expr += "\\%";
  if (p.percent) pred_expr += "\\%";
  v.tri = equiv::equivalent(gold_expr, pred_expr, options.equiv);
  v.reason = v.tri == equiv::Tri::True    ? Reason::kEquivalent
             : v.tri == equiv::Tri::False ? Reason::kNotEquivalent
                                          : Reason::kUndecided;
  return v;
}

}  // namespace rapidgrade::grade
