#include "rapidgrade/grade.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "grade_lists.hpp"
#include "grade_text.hpp"
#include "rapidgrade/common.hpp"
#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/detail/units.hpp"
#include "rapidgrade/normalize.hpp"

namespace rapidgrade::grade {
namespace {

using detail::prefetch;
using detail::trim;
using internal::an_operand;
using internal::argues_a_proof;
using internal::choice_letter;
using internal::closes_a_proof;
using internal::closes_the_text;
using internal::constant_scalar;
using internal::declines_to_answer;
using internal::ellipses;
using internal::Ellipses;
using internal::ellipsis_at;
using internal::ends_a_listing;
using internal::ends_with_program_result;
using internal::gold_is_list;
using internal::gold_list_size;
using internal::holds_big_operator;
using internal::in_table_row;
using internal::leading_choice;
using internal::names_only;
using internal::one_of_gold_values;
using internal::other_shape;
using internal::plain_number;
using internal::several_sentences;
using internal::states_a_contradiction;
using internal::states_value_of;
using internal::sums_over_a_condition;
using internal::trailing_letter;
using internal::without_label;

// Bytes of a text's start (and of its end) that prefetch_text asks for.
constexpr std::size_t kPrefetchBytes = 1024;

// The most earlier "answer is" markers read back when the last one's answer differs.
constexpr std::size_t kMaxEarlierMarkers = 4;

}  // namespace

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

const expr::Ast* Answer::tree() {
  if (!parsed_) {
    parsed_ = true;
    if (normalized_.percent) {
      std::string with_sign = normalized_.text;
      with_sign += "\\%";
      tree_ = expr::try_parse(with_sign);
    } else {
      tree_ = expr::try_parse(normalized_.text);
    }
  }
  return tree_ ? &*tree_ : nullptr;
}

namespace {

// Node `i` of `ast` read in degrees: a degree node over it, appended to the pool, for a value;
// the same structure over its parts read in degrees for a tuple, a set or an interval (each
// value of "30^\circ, 60^\circ" carried a mark) and over a condition's constant bounds; the
// value of an equation ("x = 45"). Returns the new node, or nullopt for a part no degree
// applies to (words, a matrix).
// Recursion bounded by the tree's depth. Throws ParseError when a node would pass the depth limit.
std::optional<std::uint32_t> in_degrees(expr::Ast& ast, std::uint32_t i) {
  using expr::Kind;
  const Kind kind = ast.at(i).kind;
  switch (kind) {
    case Kind::kDegree: return i;
    case Kind::kTuple:
    case Kind::kSet:
    case Kind::kInterval:
    case Kind::kRelation: {
      const bool equation = kind == Kind::kRelation && ast.at(i).text.find_first_not_of('=') == std::string::npos;
      expr::Node n = ast.at(i);  // a copy: the pool grows below
      // an equation's value is its last member; every part of a tuple, set or interval; a
      // condition's constant bounds ("0^\circ < x < 90^\circ" is 0 < x < pi/2: x is an angle)
      const bool condition = kind == Kind::kRelation && !equation;
      for (std::size_t k = equation ? n.kids.size() - 1 : 0; k < n.kids.size(); ++k) {
        if (condition && !expr::symbol_names(ast, n.kids[k]).empty()) continue;
        const std::optional<std::uint32_t> part = in_degrees(ast, n.kids[k]);
        if (!part) return std::nullopt;
        n.kids[k] = *part;
      }
      return ast.add(std::move(n));
    }
    case Kind::kUnion:
    case Kind::kMatrix:
    case Kind::kText:
    case Kind::kPlusMinus: return std::nullopt;
    default: {
      expr::Node n;
      n.kind = Kind::kDegree;
      n.kids = {i};
      return ast.add(std::move(n));
    }
  }
}

}  // namespace

const expr::Ast* Answer::degree_tree() {
  if (!degree_built_) {
    degree_built_ = true;
    const expr::Ast* plain = normalized_.degrees ? tree() : nullptr;
    if (plain != nullptr) {
      expr::Ast ast = *plain;
      try {
        if (const std::optional<std::uint32_t> root = in_degrees(ast, ast.root)) {
          ast.root = *root;
          degree_tree_ = std::move(ast);
        }
      } catch (const ParseError&) {
        // at the depth limit: no reading in degrees
      }
    }
  }
  return degree_tree_ ? &*degree_tree_ : nullptr;
}

namespace {

// The answer of a gold that is a whole solution, as evaluation harnesses pass golds (lighteval's
// MATH tasks: the reference solution, ending in \boxed{...}; its GSM8K task: the reference
// answer, ending in "#### 72"): what the solution's box or tag holds, found by the extractor's
// own rules for those markers (Method::kBoxed, then Method::kTagged), so that a gold is read as a
// response would be. Only these markers say for certain where an answer is; a gold without one
// is read whole ("x = 5", "Yes. $F(x,y)=x+y$"). Returns false when `gold` holds none.
bool solution_answer(std::string_view gold, std::string& answer) {
  for (const extract::Method marker : {extract::Method::kBoxed, extract::Method::kTagged}) {
    if (const auto found = extract::extract_answer(gold, marker)) {
      answer = extract::answer_text(gold, *found);
      return true;
    }
  }
  return false;
}

}  // namespace

namespace {

// Whether `unit`, a unit the answer phrase reader kept apart from a number, is the degree of
// angle: a row of the units table (detail/units.hpp) named "degree" by pint ("degrees", "deg").
// The number is then an answer in degrees, as "45^\circ" is.
bool is_degree_unit(std::string_view unit) noexcept {
  const rapidgrade::detail::UnitSymbol* u = rapidgrade::detail::find_unit_symbol(trim(unit));
  return u != nullptr && u->pint == "degree";
}

// `answer` written in degrees (the degree unit after its number).
Answer written_in_degrees(Answer answer) {
  if (answer.degrees()) return answer;
  normalize::Normalized n = answer.normalized();
  n.degrees = true;
  return Answer(std::move(n));
}

}  // namespace

// The answer of a gold written as a phrase ("18 eggs", "2 (any value in (1, 2] will do)"): the
// math object at its start, read by the answer phrase reader, when the reading is clean and stops
// at a word, a unit or a remark; `raw` unchanged otherwise ("x = 5", "no solution"). `unit`
// receives the unit kept apart from the number read, if any ("45 degrees": "degrees").
std::string_view gold_phrase(std::string_view raw, std::string_view& unit) {
  unit = {};
  const extract::Phrase p = extract::read_answer_phrase(raw, extract::Range{0, raw.size()});
  if (!p.cut || !p.clean || p.leading_prose || p.answer.end <= p.answer.start) return raw;
  // cut at punctuation before more digits, it stops at no word: a number broken apart ("0. 98.",
  // a gold's OCR) is read whole
  std::size_t rest = p.answer.end;
  while (rest < raw.size() && (detail::is_blank(raw[rest]) || raw[rest] == '.' || raw[rest] == ',')) ++rest;
  // nor is a list that goes on with an ellipsis ("1,2,…,n")
  if (rest < raw.size() && (detail::is_digit(raw[rest]) || ellipsis_at(raw, rest) > 0)) return raw;
  // a one-letter unit written onto a gold's number is a symbol there: "6m" is six times m
  if (p.unit.start == p.answer.end && p.unit.end == p.unit.start + 1) return raw;
  // and what follows the number is no remark when it goes on with arithmetic ("2RC+R+C")
  if (raw.find_first_of("+=^", p.answer.end) != std::string_view::npos) return raw;
  // only a number: "18 eggs", "\$18.00 per hour"; a gold expression is compared whole
  const std::string_view answer = raw.substr(p.answer.start, p.answer.end - p.answer.start);
  bool digit = false;
  for (std::size_t k = 0; k < answer.size(); ++k) {
    const char c = answer[k];
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (!(c == ',' || c == '.' || c == '-' || c == '+' || c == '/' || c == ' ' || c == '$' || c == '\\' ||
                 c == '%')) {
      return raw;
    }
  }
  if (digit) unit = raw.substr(p.unit.start, p.unit.end - p.unit.start);
  return digit ? answer : raw;
}

namespace {

// `answer` without a trailing quantifier domain (extract::domain_tail): "x = \frac{\pi}{4} + k\pi,
// k \in \mathbb{Z}" is compared as "x = \frac{\pi}{4} + k\pi".
std::string_view without_domain(std::string_view answer) noexcept {
  return without_label(trim(answer.substr(0, extract::domain_tail(answer))));
}

}  // namespace

PreparedGold prepare_gold(std::string_view gold) {
  PreparedGold prepared;
  std::string_view raw = unwrap_answer(gold);
  std::string solution;
  // the fast path compares the number of a gold phrase ("18 eggs" -> 18); the fallback
  // receives the gold as written
  std::string_view compared = raw;
  std::string_view unit;
  if (solution_answer(raw, solution)) {
    raw = compared = unwrap_answer(solution);
  } else {
    compared = without_domain(unwrap_answer(gold_phrase(raw, unit)));
  }
  prepared.raw = std::string(raw);
  prepared.answer = Answer(normalize::normalize(compared, answer_normalization()));
  if (is_degree_unit(unit)) prepared.answer = written_in_degrees(std::move(prepared.answer));
  prepared.sentences = several_sentences(raw);
  return prepared;
}

FastVerdict grade(std::string_view gold, std::string_view response, const Options& options) {
  PreparedGold prepared = prepare_gold(gold);
  return grade(prepared, response, options);
}

namespace {

// An answer found in a response, unwrapped and normalized as grading reads it. An answer written
// as the gold was (unwrapped: most correct answers, "\boxed{42}" against "42") takes the gold's
// normal form, made once: normalization is a function of the unwrapped text.
Answer read_answer(std::string_view found, const PreparedGold& gold) {
  const std::string_view unwrapped = unwrap_answer(found);
  if (unwrapped == gold.raw) return Answer(gold.answer.normalized());
  const std::string_view text = without_domain(unwrapped);
  normalize::Options norm = answer_normalization();
  // "6 m" is six metres to normalization's rule 4 (a one-letter unit apart from its number), but
  // against a gold that holds m as a symbol ("6m", "2m+1") the letter is that symbol
  if (const char letter = trailing_letter(text); letter != 0 && detail::holds_letter(gold.answer.text(), letter)) {
    norm.units = false;
  }
  return Answer(normalize::normalize(text, norm));
}

struct Comparison {
  equiv::Tri tri;
  Reason reason;
};

// Whether `s` holds a command parse_expr reads as '=' and math-verify ends an equation at
// (detail::is_equals_command: "x = 1/3 \approx 0.33"): the member the fallback compares may not be
// the last one the core compared.
bool approximation(std::string_view s) noexcept {
  for (std::size_t k = s.find('\\'); k != std::string_view::npos; k = s.find('\\', k + 1)) {
    const std::size_t end = detail::letters_end(s, k + 1);
    if (detail::is_equals_command(s.substr(k + 1, end - k - 1))) return true;
  }
  return false;
}

// Whether `s` holds no math at all: ASCII punctuation alone ("?", "...", "-"), no letter, digit,
// command, bracket or non-ASCII character. Neither the core nor SymPy nor math-verify reads it.
bool no_math(std::string_view s) noexcept {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x80 || detail::is_letter(c) || detail::is_digit(c) || c == '\\' || c == '(' || c == ')' || c == '[' ||
        c == ']' || c == '{' || c == '}' || c == '|') {
      return false;
    }
  }
  return true;
}

// The member before an approximation sign that ends right before s[at] ("\frac{1}{3}" in
// "$\frac{1}{3} \approx 0.333$", "1/3" in "The answer is 1/3 ≈ 0.333."): the exact value a
// response states beside the approximate one it ends with. It ends at the sign and starts after
// a top-level relation, separator, '$' or line break, or a word of prose; at most kMaxMember
// bytes back. Empty when no sign precedes s[at].
constexpr std::size_t kMaxMember = 256;
extract::Range approximated_member(std::string_view s, std::size_t at) noexcept {
  const std::size_t sign = detail::approximation_sign_before(s, at);
  if (sign == detail::kNpos) return extract::Range{at, at};
  std::size_t e = sign;
  while (e > 0 && detail::is_blank(s[e - 1])) --e;
  std::size_t b = e;
  int depth = 0;
  while (b > 0 && e - b < kMaxMember) {
    const char c = s[b - 1];
    if (c == ')' || c == ']' || c == '}') {
      ++depth;
    } else if (c == '(' || c == '[' || c == '{') {
      if (depth == 0) break;
      --depth;
    } else if (depth == 0 &&
               (c == '=' || c == '<' || c == '>' || c == '$' || c == '\n' || c == ':' || c == ',' || c == ';')) {
      break;
    } else if (depth == 0 && c == ' ' && b >= 2 && detail::is_letter(s[b - 2])) {
      std::size_t w = b - 1;  // a word of two letters or more that is no command ends the member
      while (w > 0 && detail::is_letter(s[w - 1])) --w;
      if (b - 1 - w >= 2 && (w == 0 || s[w - 1] != '\\')) break;
    }
    --b;
  }
  if (e - b >= kMaxMember) return extract::Range{at, at};
  while (b < e && detail::is_blank(s[b])) ++b;
  return extract::Range{b, e};
}

// The end of the last approximation sign in s (a command of kApproximationCommands, read as
// approximation() reads commands, or kApproximationSign), or npos.
std::size_t last_approximation_end(std::string_view s) noexcept {
  const std::size_t sign = detail::rfind_str(s, detail::kApproximationSign);
  std::size_t best = sign == detail::kNpos ? std::string_view::npos : sign + detail::kApproximationSign.size();
  for (std::size_t k = s.find('\\'); k != std::string_view::npos; k = s.find('\\', k + 1)) {
    const std::size_t end = detail::letters_end(s, k + 1);
    if (detail::is_approximation_command(s.substr(k + 1, end - k - 1)) &&
        (best == std::string_view::npos || end > best)) {
      best = end;
    }
  }
  return best;
}

// Whether `tree` states values: numbers, expressions, tuples and sets of them; no relation, no
// interval, no words, and no pair "(a, b)", which may be the open interval.
bool states_a_value(const expr::Ast& tree) noexcept {
  using expr::Kind;
  const expr::Node& root = tree.at(tree.root);
  if (root.kind == Kind::kTuple && root.kids.size() == 2) return false;
  for (const expr::Node& node : tree.nodes) {
    if (node.kind == Kind::kRelation || node.kind == Kind::kInterval || node.kind == Kind::kUnion ||
        node.kind == Kind::kText) {
      return false;
    }
  }
  return true;
}

// The residue a congruence states, read from a normalized answer: "N\equiv47\pmod{100}",
// "3^{34}\equiv69(\bmod100)", "x\equiv3(mod5)" -> 47, 69, 3 (the member after its last
// \equiv, before the modulus clause: \pmod, \bmod, \mod or "mod", in parentheses or not). None
// when the text is no such congruence, or its residue or modulus does not parse.
std::optional<expr::Ast> congruence_residue(std::string_view p) {
  const std::size_t eq = p.rfind("\\equiv");
  if (eq == std::string_view::npos || trim(p.substr(0, eq)).empty()) return std::nullopt;
  const std::size_t mod = p.find("mod", eq);
  if (mod == std::string_view::npos) return std::nullopt;
  std::size_t clause = mod;  // back over "\p", "\b", "\" and an opening parenthesis
  if (clause >= 2 && p[clause - 2] == '\\' && (p[clause - 1] == 'p' || p[clause - 1] == 'b')) {
    clause -= 2;
  } else if (clause >= 1 && p[clause - 1] == '\\') {
    clause -= 1;
  }
  while (clause > eq && detail::is_blank(p[clause - 1])) --clause;
  const bool paren = clause > eq && p[clause - 1] == '(';
  if (paren) --clause;
  std::string_view modulus = trim(p.substr(mod + 3));
  if (paren) {
    if (modulus.empty() || modulus.back() != ')') return std::nullopt;
    modulus = trim(modulus.substr(0, modulus.size() - 1));
  }
  if (modulus.size() >= 2 && modulus.front() == '{' && modulus.back() == '}') {
    modulus = trim(modulus.substr(1, modulus.size() - 2));
  }
  const std::string_view residue = trim(p.substr(eq + 6, clause - eq - 6));
  if (residue.empty() || modulus.empty() || !expr::try_parse(modulus)) return std::nullopt;
  return expr::try_parse(residue);
}

// The gold against one normalized reading of the response (both non-empty).
Comparison compare(Answer& gold, Answer& pred, const Options& options) {
  const std::string& g = gold.text();
  const std::string& p = pred.text();
  if (g == p) return {equiv::Tri::kTrue, Reason::kSameAfterNormalization};
  // "?" against 23: an answer with no math is not the gold's (nor is any answer a gold's that
  // has none)
  if (no_math(p) || no_math(g)) return {equiv::Tri::kFalse, Reason::kNotEquivalent};
  if (const char letter = choice_letter(g)) {
    // A choice letter against the answer's: the letter alone ("(C)", "C") or at the start of
    // the option it names ("(E) Equilateral Triangle"). An answer that names no choice (a value,
    // "None of the above") may be the text of the gold's option: UNKNOWN, which only the
    // options could settle, so the fallback is not asked (fallback_cannot_help).
    char answer = choice_letter(p);
    if (answer == 0) answer = leading_choice(p);
    if (answer != 0) {
      return answer == letter ? Comparison{equiv::Tri::kTrue, Reason::kChoiceMatches}
                              : Comparison{equiv::Tri::kFalse, Reason::kChoiceDiffers};
    }
    return {equiv::Tri::kUnknown, Reason::kChoiceNotNamed};
  }
  if (choice_letter(p) != 0 && plain_number(g)) return {equiv::Tri::kUnknown, Reason::kChoiceNotNamed};
  // Tree against tree: the gold's was parsed once for all its responses.
  const expr::Ast* gold_tree = gold.tree();
  const expr::Ast* pred_tree = gold_tree != nullptr ? pred.tree() : nullptr;
  equiv::Limit limit = equiv::Limit::kNone;
  equiv::Tri t = gold_tree != nullptr && pred_tree != nullptr
                     ? equiv::equivalent(*gold_tree, *pred_tree, options.equiv, &limit, gold.facts())
                     : equiv::Tri::kUnknown;
  const expr::TopLevelRelations top =
      gold_tree != nullptr && pred_tree == nullptr ? expr::top_level_relations(p) : expr::TopLevelRelations{};
  if (top.inequality && states_a_value(*gold_tree)) {
    // An answer the core cannot read that states a condition at its top level ("S \le
    // \sum_{i=1}^{50} x_i = \frac{25}{2}", "n \geqslant 5") against a value: a condition is no
    // value, and neither fallback reads one as its bound
    return {equiv::Tri::kUnknown, Reason::kConditionAgainstValue};
  }
  const bool unread = pred_tree == nullptr || pred_tree->at(pred_tree->root).kind == expr::Kind::kText;
  if (gold_tree != nullptr && unread && states_a_value(*gold_tree)) {
    // A congruence ("N \equiv 47 \pmod{100}", a remainder's usual statement; the core reads it
    // neither as math nor, with "(mod 5)", other than as words) states its residue:
    // TRUE when the gold is that value; FALSE when a gold constant differs from it. A gold with
    // unknowns ("4k + 3") may state the same class another way: UNKNOWN.
    if (const std::optional<expr::Ast> residue = congruence_residue(p)) {
      const equiv::Tri r = equiv::equivalent(*gold_tree, *residue, options.equiv, nullptr, gold.facts());
      if (r == equiv::Tri::kTrue) return {equiv::Tri::kTrue, Reason::kEquivalent};
      if (r == equiv::Tri::kFalse && constant_scalar(*gold_tree, gold_tree->root)) {
        return {equiv::Tri::kFalse, Reason::kNotEquivalent};
      }
    }
  }
  if (gold_tree != nullptr && pred_tree == nullptr && !pred.percent() && !pred.degrees() &&
      gold_tree->at(gold_tree->root).kind != expr::Kind::kRelation) {
    // A chain of equalities the core cannot read whole ends in its answer: its last member,
    // read alone, as math-verify reads an equation against a value ("\cos\langle\vec{a},
    // \vec{b}\rangle = \frac{...}{...} = -\frac{\sqrt{2}}{10}", "\iint_R f\,dA \approx -11.875").
    const std::size_t at = top.last_equality_end;
    const std::optional<expr::Ast> member =
        at != std::string_view::npos ? expr::try_parse(trim(std::string_view(p).substr(at))) : std::nullopt;
    if (member) {
      const equiv::Tri m = equiv::equivalent(*gold_tree, *member, options.equiv, nullptr, gold.facts());
      if (m == equiv::Tri::kTrue) return {equiv::Tri::kTrue, Reason::kEquivalent};
      // disproved: the fallback reads the same last member (kLastMemberDiffers), unless the chain
      // holds an \approx, where math-verify ends an equation earlier
      if (m == equiv::Tri::kFalse) {
        return {equiv::Tri::kUnknown, approximation(p) ? Reason::kUndecided : Reason::kLastMemberDiffers};
      }
    }
  }
  if (t != equiv::Tri::kTrue && gold.degrees() != pred.degrees()) {
    // One side is written in degrees ("45^\circ"), the other not: its number (45, as the trees
    // compared above read it) or the angle (pi/4). FALSE only when neither reading matches.
    const expr::Ast* g_angle = gold.degrees() ? gold.degree_tree() : gold_tree;
    const expr::Ast* p_angle = pred.degrees() ? pred.degree_tree() : pred_tree;
    equiv::Limit angle_limit = equiv::Limit::kNone;
    const equiv::Tri angle = g_angle != nullptr && p_angle != nullptr
                                 ? equiv::equivalent(*g_angle, *p_angle, options.equiv, &angle_limit)
                                 : equiv::Tri::kUnknown;
    t = t == equiv::Tri::kFalse && angle == equiv::Tri::kFalse ? equiv::Tri::kFalse
        : angle == equiv::Tri::kTrue                           ? equiv::Tri::kTrue
                                                               : equiv::Tri::kUnknown;
    if (limit == equiv::Limit::kNone) limit = angle_limit;
  }
  if (t == equiv::Tri::kUnknown && limit == equiv::Limit::kNone && !expr::is_plain_text(g) && !expr::is_plain_text(p)) {
    // An answer written with an ellipsis, a list's term ("1, 2, \ldots, n") or inside a term
    // ("d(d-1) \cdots (d-k+1)", "1+2+\cdots+n"), against one with no ellipsis: the fallback's
    // sequence rule compares such answers only term by term, ellipsis against ellipsis
    const Ellipses ge = ellipses(g), pe = ellipses(p);
    if (ge.any != pe.any) return {equiv::Tri::kUnknown, Reason::kEllipsisList};
  }
  if (t == equiv::Tri::kUnknown && limit == equiv::Limit::kNone && gold_tree != nullptr && pred_tree != nullptr &&
      equiv::undefined_function_apart(*gold_tree, *pred_tree)) {
    // "f(x)" against -3/2, "p(x) = \frac{(x-1)(x-2)}{6}" against "N = n": a function with no
    // definition, applied once on one side and named nowhere on the other, has a value no
    // algebra knows; only the problem's definition of it could make the answers equal
    limit = equiv::Limit::kNoValue;
  }
  if (t == equiv::Tri::kUnknown && limit == equiv::Limit::kNone &&
      (sums_over_a_condition(p) ? !holds_big_operator(g) : sums_over_a_condition(g) && !holds_big_operator(p))) {
    // "w(S)=\sum_{x \in R} 2^{-r(x)}" against 2^{k}: a sum over a set that a condition names,
    // against an answer with no sum; no reader enumerates such a set
    return {equiv::Tri::kUnknown, Reason::kSumOverSet};
  }
  return {t, t == equiv::Tri::kTrue                                    ? Reason::kEquivalent
             : t == equiv::Tri::kFalse                                 ? Reason::kNotEquivalent
             : limit == equiv::Limit::kWork                            ? Reason::kWorkLimit
             : limit == equiv::Limit::kMagnitude                       ? Reason::kMagnitudeLimit
             : limit == equiv::Limit::kNoValue                         ? Reason::kNoValue
             : limit == equiv::Limit::kLastMember && !approximation(p) ? Reason::kLastMemberDiffers
             : limit == equiv::Limit::kGoldEquation                    ? Reason::kGoldEquation
             : limit == equiv::Limit::kCondition                       ? Reason::kConditionAgainstValue
             : limit == equiv::Limit::kWords                           ? Reason::kWordsAgainstMath
                                                                       : Reason::kUndecided};
}

// Whether the values `joined` ("9, 10"), written as the gold's kind (a tuple in order, a set in
// any order), are the gold's list; when they are, `v` is set to the TRUE verdict for `reason`.
bool list_matches(PreparedGold& gold, expr::Kind kind, std::string joined, Reason reason, const Options& options,
                  FastVerdict& v) {
  if (joined.size() > options.max_answer_bytes) return false;
  const std::string written = kind == expr::Kind::kTuple ? "(" + joined + ")" : "\\{" + joined + "\\}";
  Answer reading(normalize::normalize(written, answer_normalization()));
  if (reading.text().empty() || compare(gold.answer, reading, options).tri != equiv::Tri::kTrue) return false;
  v.tri = equiv::Tri::kTrue;
  v.reason = reason;
  v.answer = std::move(joined);
  v.normalized = reading.text();
  return true;
}

// The reading of a response with no marked answer against a gold that is a list of n values
// (gold_list_size): the numbers of its final sentence (extract::final_sentence_numbers), when
// there are exactly n of them, compared as the gold's kind (a set in any order, a tuple in
// order). True, with `v` set to the TRUE verdict, when they match; `v` is left alone otherwise
// (a sentence with more or fewer numbers, or other numbers, is not this reading).
bool sentence_numbers_match(PreparedGold& gold, std::string_view response, const Options& options, FastVerdict& v,
                            Reason reason = Reason::kSentenceNumbers) {
  expr::Kind kind = expr::Kind::kSet;
  const std::size_t n = gold_list_size(gold.answer, kind);
  if (n == 0) return false;
  const std::vector<extract::Range> numbers = extract::final_sentence_numbers(response, n);
  if (numbers.size() != n) return false;
  std::string joined;
  for (const extract::Range& r : numbers) {
    if (!joined.empty()) joined += ", ";
    for (std::size_t k = r.start; k < r.end; ++k) {
      if (response[k] != ',') joined += response[k];  // a thousands separator: "1,000"
    }
  }
  return list_matches(gold, kind, std::move(joined), reason, options, v);
}

// The reading of a response whose final span is an assignment against a gold that is a list of n
// values (gold_list_size): the values its final sentence assigns to n distinct names
// (extract::final_assignments: "so $p=3$ and $q=4$" against "3, 4"), compared as the gold's kind.
// True, with `v` set to the TRUE verdict, when they match; `v` is left alone otherwise.
// With `premise`, the values of the premise that the final span concludes from instead
// (extract::premise_assignments).
bool sentence_values_match(PreparedGold& gold, std::string_view response, const extract::Extraction& found,
                           const Options& options, FastVerdict& v, bool premise = false) {
  expr::Kind kind = expr::Kind::kSet;
  const std::size_t n = gold_list_size(gold.answer, kind);
  if (n == 0) return false;
  const std::vector<extract::Range> values =
      premise ? extract::premise_assignments(response, found, n) : extract::final_assignments(response, found, n);
  if (values.size() != n) return false;
  std::string joined;
  for (const extract::Range& r : values) {
    if (!joined.empty()) joined += ", ";
    joined += response.substr(r.start, r.end - r.start);
  }
  return list_matches(gold, kind, std::move(joined), Reason::kSentenceValues, options, v);
}

// Whether the final sentence of response[0, end) states as many numbers as the gold, a list of
// constant values, lists (gold_list_size, extract::final_sentence_numbers).
bool states_as_many_numbers(PreparedGold& gold, std::string_view response, std::size_t end) {
  expr::Kind kind = expr::Kind::kSet;
  const std::size_t n = gold_list_size(gold.answer, kind);
  return n > 0 && extract::final_sentence_numbers(response.substr(0, end), n).size() == n;
}

}  // namespace

FastVerdict grade(PreparedGold& gold, std::string_view response, const Options& options) {
  FastVerdict v;
  const std::string& g = gold.answer.text();
  const auto found = extract::extract_answer(response, extract::Method::kAuto);
  if (!found) {
    v.tri = equiv::Tri::kFalse;
    v.reason = Reason::kNoAnswer;
    return v;
  }
  v.found = true;
  v.method = found->method;
  // where the readings of the final statement end (the whole text when none was recorded)
  const std::size_t readings_end = found->readings.end > 0 ? found->readings.end : response.size();
  v.answer = extract::answer_text(response, *found);
  if (found->method == extract::Method::kLastNumber && declines_to_answer(response.substr(found->end))) {
    // "... 300 in the previous weeks. Therefore, the question cannot be answered with the given
    // information.": the last number of the text is no answer
    v.tri = equiv::Tri::kFalse;
    v.reason = Reason::kDeclines;
    return v;
  }
  if (v.answer.size() > options.max_answer_bytes) {
    v.reason = Reason::kAnswerTooLong;
    return v;
  }
  Answer pred = read_answer(v.answer, gold);
  if (found->unit.end > found->unit.start &&
      is_degree_unit(response.substr(found->unit.start, found->unit.end - found->unit.start))) {
    pred = written_in_degrees(std::move(pred));  // "The answer is 45 degrees.": 45 with the unit apart
  }
  v.normalized = pred.text();
  if (found->method == extract::Method::kLastNumber && !options.last_number) {
    v.tri = equiv::Tri::kFalse;
    v.reason = Reason::kOnlyLastNumber;
    return v;
  }
  const std::string& p = pred.text();
  if (g.empty()) {
    v.reason = Reason::kEmptyGold;  // nothing to compare with: leave it to the fallback
    return v;
  }
  if (p.empty()) {
    v.tri = equiv::Tri::kFalse;
    v.reason = Reason::kEmptyAnswer;
    return v;
  }
  const Comparison c = compare(gold.answer, pred, options);
  v.tri = c.tri;
  v.reason = c.reason;
  const auto text_of = [response](const extract::Range& r) { return response.substr(r.start, r.end - r.start); };
  if (v.tri != equiv::Tri::kTrue && found->method == extract::Method::kBoxedMulti) {
    // Several boxes that hold one value are one answer ("\boxed{025} ... \boxed{25}"): when the
    // list does not match, its value does. A list of different values stays a list.
    Answer last = read_answer(text_of(found->parts.back()), gold);
    bool one_value = !last.text().empty();
    for (std::size_t k = 0; one_value && k + 1 < found->parts.size(); ++k) {
      Answer part = read_answer(text_of(found->parts[k]), gold);
      one_value = !part.text().empty() && compare(part, last, options).tri == equiv::Tri::kTrue;
    }
    if (one_value) {
      const Comparison w = compare(gold.answer, last, options);
      v.tri = w.tri;
      v.reason = w.reason;
      v.normalized = last.text();
    }
  }
  if (v.tri != equiv::Tri::kTrue) {
    // "1/3 ≈ 0.333" states the exact value and its rounding: matching either is matching the
    // answer, when the rounding is one of the exact value (to its own decimals: "42 ≈ 0" states
    // no value). The answer read may be the rounding after a sign before it, or hold the sign.
    const std::string_view found_text = text_of(extract::Range{found->start, found->end});
    std::string_view exact = text_of(approximated_member(response, found->start));
    std::string_view rounded = found_text;
    if (exact.empty()) {
      if (const std::size_t sign = last_approximation_end(found_text); sign != std::string_view::npos) {
        const extract::Range inner = approximated_member(found_text, sign);
        exact = found_text.substr(inner.start, inner.end - inner.start);
        rounded = trim(found_text.substr(sign));
      }
    }
    if (!exact.empty() && !rounded.empty() && exact.size() + rounded.size() <= options.max_answer_bytes) {
      Answer e = read_answer(exact, gold);
      Answer r = read_answer(rounded, gold);
      if (!e.text().empty() && !r.text().empty() && compare(r, e, options).tri == equiv::Tri::kTrue &&
          (compare(gold.answer, e, options).tri == equiv::Tri::kTrue ||
           compare(gold.answer, r, options).tri == equiv::Tri::kTrue)) {
        v.tri = equiv::Tri::kTrue;  // the answer read stays what it was (reward policies read it)
        v.reason = Reason::kEquivalent;
      }
    }
  }
  // A capital letter that is the last math span of prose ("... to paddle from $A$ to $B$.") may
  // name a point or a set rather than a choice: the readings of the final statement before it
  // are tried as for a reading that differs, and it stays a choice that names no value otherwise
  const bool letter_span =
      v.reason == Reason::kChoiceNotNamed && choice_letter(g) == 0 && found->method == extract::Method::kFinalSpan;
  if (letter_span) {
    v.tri = equiv::Tri::kFalse;
    v.reason = Reason::kNotEquivalent;
  }
  if (v.reason == Reason::kChoiceNotNamed && choice_letter(g) != 0 &&
      (found->method == extract::Method::kBoxed || found->method == extract::Method::kBoxedMulti)) {
    // A choice letter as the gold, a boxed value, then a choice named after the box ("... =
    // \boxed{44} square units. Therefore, the answer is (C)."): the response's choice is its
    // answer to a multiple-choice question.
    for (const extract::Method later_method : {extract::Method::kAnswerIs, extract::Method::kChoice}) {
      const auto later = extract::extract_answer(response, later_method);
      if (!later || later->start < found->end) continue;
      const std::string_view named = text_of(extract::Range{later->start, later->end});
      if (named.size() > options.max_answer_bytes) continue;
      Answer reading = read_answer(named, gold);
      if (choice_letter(reading.text()) == 0 && leading_choice(reading.text()) == 0) continue;
      const Comparison w = compare(gold.answer, reading, options);
      v.tri = w.tri;
      v.reason = w.reason;
      v.method = later->method;
      v.answer = std::string(named);
      v.normalized = reading.text();
      break;
    }
  }
  if (v.tri != equiv::Tri::kTrue && found->method == extract::Method::kAnswerIs && gold.sentences) {
    // A gold of several sentences is compared with the whole answer, not its first sentence.
    for (const extract::Range& r : found->others) {
      const std::string_view whole = text_of(r);
      if (whole.size() > options.max_answer_bytes) continue;
      Answer reading = read_answer(whole, gold);
      if (reading.text().empty()) continue;
      const Comparison w = compare(gold.answer, reading, options);
      if (w.tri == equiv::Tri::kTrue || (w.tri == equiv::Tri::kUnknown && v.tri == equiv::Tri::kFalse)) {
        v.tri = w.tri;
        v.reason = w.reason;
        v.answer = std::string(whole);
        v.normalized = reading.text();
      }
    }
  }
  if (v.tri != equiv::Tri::kTrue && found->method == extract::Method::kFinalSpan &&
      sentence_values_match(gold, response, *found, options, v)) {
    // No marked answer, a gold that is a list: the values the final sentence assigns are that
    // list ("so $p=3$ and $q=4$" against 3, 4); read before its bare numbers, the more specific
    // reading
    return v;
  }
  if (v.tri != equiv::Tri::kTrue && extract::is_weak(found->method) && options.last_number &&
      sentence_numbers_match(gold, response.substr(0, readings_end), options, v)) {
    // No marked answer, a gold that is a list: the final sentence's numbers are that list
    // ("There are 9 chickens and 10 rabbits." against \{9, 10\}). Not with last_number=False,
    // which refuses a last number: a list of numbers in prose earns no more.
    return v;
  }
  if (v.tri != equiv::Tri::kTrue && extract::is_weak(found->method)) {
    // No marked answer, and the response opens by stating an answer ("The required maximum is
    // $2n-2$."): an answer-first write-up, whose last math is a step of the proof that follows
    if (const std::optional<extract::Range> opening = extract::opening_statement(response);
        opening && opening->end - opening->start <= options.max_answer_bytes) {
      const std::string_view stated = text_of(*opening);
      Answer reading = read_answer(stated, gold);
      if (!reading.text().empty() && compare(gold.answer, reading, options).tri == equiv::Tri::kTrue) {
        v.tri = equiv::Tri::kTrue;
        v.reason = Reason::kOpeningStatement;
        v.answer = std::string(stated);
        v.normalized = reading.text();
        return v;
      }
    }
  }
  if (v.tri != equiv::Tri::kTrue && (extract::is_weak(found->method) || !found->clean)) {
    // No marked answer, or a weak one, and the last sentence states the sought value ("Thus the
    // least possible measure is $65^{\circ}$, and the hexagon has angles ...", "thus 79 is the
    // largest such integer"): the answer the write-up closes with. After a weak marked answer
    // only ("the answer is the remainder when ... . ..., hence the desired remainder is 976.").
    if (const std::optional<extract::Range> stated = extract::closing_statement(response, readings_end);
        stated && stated->end - stated->start <= options.max_answer_bytes &&
        (extract::is_weak(found->method) || stated->start >= found->end)) {
      const std::string_view text = text_of(*stated);
      Answer reading = read_answer(text, gold);
      if (!reading.text().empty() && compare(gold.answer, reading, options).tri == equiv::Tri::kTrue) {
        v.tri = equiv::Tri::kTrue;
        v.reason = Reason::kClosingStatement;
        v.answer = std::string(text);
        v.normalized = reading.text();
        return v;
      }
    }
  }
  if (v.tri != equiv::Tri::kTrue && extract::is_weak(found->method) && options.last_number) {
    // No marked answer, a gold that is a list: the numbers of an opening statement that is not the
    // final one ("The minimum number is 1 and the maximum number is 3.", "Such a sequence exists
    // for $n=1,2,3,4$ and no other $n$.") are that list, stated first as above
    const std::optional<extract::Range> opening = extract::opening_sentence(response);
    if (opening && opening->end < found->start &&
        sentence_numbers_match(gold, response.substr(0, opening->end), options, v, Reason::kOpeningStatement)) {
      return v;
    }
  }
  if (v.tri == equiv::Tri::kFalse && found->method == extract::Method::kFinalSpan && !gold_is_list(gold.answer)) {
    // "With $T=650, k=13$.", "Because $T=75, n=37$.": a final span that assigns values to
    // several names, against a gold of one value: its last assignment is the answer, the ones
    // before are givens or other unknowns (one of them matching leaves it UNKNOWN); so is the
    // last of a span that solves for one name ("$2x=6, x=3$")
    const std::string_view stated = text_of(extract::Range{found->start, found->end});
    std::vector<extract::Range> parts = extract::assignment_parts(stated);
    if (parts.empty()) parts = extract::solved_parts(stated);  // "2x=6, x=3": steps, then the value
    for (std::size_t k = parts.size(); k > 0; --k) {
      const extract::Range& part = parts[k - 1];
      Answer reading = read_answer(stated.substr(part.start, part.end - part.start), gold);
      if (reading.text().empty() || compare(gold.answer, reading, options).tri != equiv::Tri::kTrue) continue;
      v.tri = k == parts.size() ? equiv::Tri::kTrue : equiv::Tri::kUnknown;
      v.reason = k == parts.size() ? Reason::kLastAssignment : Reason::kLastMemberDiffers;
      if (k == parts.size()) {
        v.normalized = reading.text();
        return v;
      }
      break;
    }
  }
  if (v.tri == equiv::Tri::kFalse && found->method == extract::Method::kFinalSpan && gold_is_list(gold.answer)) {
    // "Therefore, $a=\frac{1}{3}, b=-2$, and $c=5$, which gives $y=\log_{1/3}(x-2)+5$." against
    // 1/3, -2, 5: the values of the premise are the gold's list, and which of premise and
    // conclusion answers, the sentence does not say
    if (FastVerdict premise; sentence_values_match(gold, response, *found, options, premise, true)) {
      v.tri = equiv::Tri::kUnknown;
      v.reason = Reason::kOtherReadingMatches;
    }
  }
  if (v.tri == equiv::Tri::kFalse && extract::is_weak(found->method) && in_table_row(response, found->start)) {
    // No marked answer, and the reading is a cell of a table ("| -15 | 240 | 16 |"): a table
    // lists cases or values, and its last cell is no more the answer than the others
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kTableCell;
  }
  if (v.tri == equiv::Tri::kFalse && found->method == extract::Method::kLastNumber &&
      ends_with_program_result(response, readings_end)) {
    // A program of thought that ends with "print(time)" and shows no output: its last number is
    // one of the program's, not the value it prints; no reader runs the program
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kProgramWithoutOutput;
  }
  if (v.tri == equiv::Tri::kFalse && extract::is_weak(found->method)) {
    // A guessed reading that does not match is certain only when no other reading matches (an
    // other reading that cannot be compared, such as an intermediate equation, does not count).
    for (const extract::Range& r : extract::other_readings(response, *found)) {
      Answer alternative = read_answer(text_of(r), gold);
      if (alternative.text().empty()) continue;
      if (compare(gold.answer, alternative, options).tri != equiv::Tri::kTrue) continue;
      if (found->method == extract::Method::kFinalSpan && options.last_number && r.end <= found->start &&
          names_only(text_of(extract::Range{found->start, found->end})) &&
          extract::sentence_end(response, r.start) >= found->start &&
          !extract::follows_step_label(response, 0, r.start) && !closes_a_proof(response, readings_end)) {
        // "Thus there are 41 such integers $n$.", "... giving 5 integral values for $AC$.": a
        // span that only names what the sentence's number counts states no value of its own
        v.tri = equiv::Tri::kTrue;
        v.reason = Reason::kNumberBeforeName;
        v.answer = std::string(text_of(r));
        v.normalized = alternative.text();
        return v;
      }
      v.tri = equiv::Tri::kUnknown;
      v.reason = Reason::kOtherReadingMatches;
      break;
    }
  }
  if ((v.tri == equiv::Tri::kFalse || (v.tri == equiv::Tri::kUnknown && v.reason == Reason::kUndecided)) &&
      extract::is_weak(found->method) && (closes_a_proof(response, readings_end) || argues_a_proof(response))) {
    // No marked answer, and the text argues a proof ("We show that ...", "Lemma 2.", "by
    // induction") or ends by closing one ("..., as required.", "a contradiction"): a write-up
    // that states its answer in words, whose last math may be a step of the proof. Neither a
    // FALSE nor the fallback's reading of the same step says more ("6 \mid n+1",
    // "\mathcal{I}(2N, x)", a span cut short).
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kProofClose;
  }
  if (v.tri == equiv::Tri::kTrue && extract::is_weak(found->method) &&
      (v.reason == Reason::kEquivalent || v.reason == Reason::kSameAfterNormalization) &&
      states_a_contradiction(response, readings_end)) {
    // No marked answer, and the text ends by stating a contradiction ("Then $k = 4$, a
    // contradiction.", "... divisible by 4, which is false. This contradiction completes our
    // solution."): its last math is the case it refutes, not an answer, whatever it equals
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kProofClose;
  }
  if (v.tri == equiv::Tri::kFalse && extract::is_weak(found->method) && gold.answer.tree() != nullptr &&
      states_a_value(*gold.answer.tree()) && expr::top_level_relations(p).inequality) {
    // No marked answer, and the last math states a condition ("k \le 3", "S \leqslant
    // \frac{25}{2}") against a gold value: a bound the write-up proves on the way, or the answer
    // to another question; neither reader of the fallback reads a condition as its bound
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kConditionAgainstValue;
  }
  if (v.tri == equiv::Tri::kFalse && (!found->clean || !found->rivals.empty())) {
    // A weak reading (words skipped before the answer, several numbers, markers that disagree)
    // that does not match is not a certain FALSE; a rival marker's answer that matches says so.
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kWeakReading;
    for (const extract::Range& r : found->rivals) {
      Answer alternative = read_answer(text_of(r), gold);
      if (!alternative.text().empty() && compare(gold.answer, alternative, options).tri == equiv::Tri::kTrue) {
        v.reason = Reason::kOtherReadingMatches;
        break;
      }
    }
  }
  if (v.tri == equiv::Tri::kUnknown && v.reason == Reason::kUndecided && !found->clean && v.normalized == p) {
    // A weak reading kept whole as words ("The model has 9 dots divided into 3 equal groups": a
    // restating sentence with several values): which value answers, the words do not say, and
    // the fallback would only compare the same words again.
    const expr::Ast* words = pred.tree();
    if (words != nullptr && words->at(words->root).kind == expr::Kind::kText) v.reason = Reason::kWeakReading;
  }
  if (letter_span && v.tri == equiv::Tri::kFalse) {
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kChoiceNotNamed;
  }
  if (v.tri == equiv::Tri::kFalse && extract::is_weak(found->method) &&
      one_of_gold_values(gold.answer, pred, options) && !states_as_many_numbers(gold, response, readings_end)) {
    // No marked answer, a gold list, and the value read is one of its values ("So $x=19$ ...
    // Thus $z=1$." against 19, 0, 1): the response may state the others elsewhere. Not when its
    // final sentence states as many numbers as the gold lists ("So x is 3 and y is 2." against
    // (2, 3)): that list is its answer, and it differs.
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kOneOfGoldValues;
  }
  if (v.tri == equiv::Tri::kFalse && v.reason == Reason::kNotEquivalent && pred.tree() != nullptr &&
      pred.tree()->at(pred.tree()->root).kind == expr::Kind::kSymbol && gold.answer.tree() != nullptr &&
      (constant_scalar(*gold.answer.tree(), gold.answer.tree()->root) ||
       states_value_of(*gold.answer.tree(), gold.answer.tree()->root, pred.tree()->at(pred.tree()->root).text))) {
    // A lone name against a value ("... then the answer is $n$." after "$n=100$", "... is
    // constant for all $x$.") or against the gold's statement of that name's value ("It follows
    // that $f$ is the identity function." against f(n)=n): a name states no value; the response
    // may give it elsewhere or in words, and no algebra finds it there
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kNoValue;
  }
  const bool differs = v.tri == equiv::Tri::kFalse && v.reason == Reason::kNotEquivalent;
  if ((differs || v.tri == equiv::Tri::kTrue) && extract::is_weak(found->method) &&
      an_operand(response, found->start)) {
    // No marked answer, and the last number or span read is an operand ("After possibly dividing
    // by 5, we obtain infinitely many primitive triples.", "... divisible by $8$."): an input of a
    // step, which says nothing of the answer whether it equals the gold or not
    v.tri = equiv::Tri::kUnknown;
    v.reason = Reason::kLastNumberGuess;
  } else if (differs && extract::is_weak(found->method)) {
    // No marked answer. The text's last number states the answer when it closes the text ("So
    // she has 16 eggs left."); one that a label, a caption or another sentence follows is a step
    // of the text ("... > 1$. Therefore, there is no solution in Case 3.", "... the 25th are
    // L-rows (see Fig. 4).") and differs from the gold without saying the response is wrong; so is
    // the last of a listing of numbers ("the squares 100, 256, 289, 324 use each digit"). Nor is a
    // reading of another shape than the gold (other_shape) certain.
    if (found->method == extract::Method::kLastNumber &&
        (!closes_the_text(response, found->end, response.size()) || ends_a_listing(response, found->start))) {
      v.tri = equiv::Tri::kUnknown;
      v.reason = Reason::kLastNumberGuess;
    } else if (other_shape(gold.answer, pred)) {
      v.tri = equiv::Tri::kUnknown;
      v.reason = Reason::kOtherShape;
    }
  }
  if (v.tri == equiv::Tri::kFalse && v.reason == Reason::kNotEquivalent &&
      found->method == extract::Method::kAnswerIs) {
    // The last "answer is" differs, and an earlier one's answer matches ("So the final answer is
    // $n=960$. In general, if there are $N>1$ boxes, the answer is $n=...$.", a change of mind):
    // which one answers, the text does not say. At most kMaxEarlierMarkers are read back.
    std::size_t end = found->marker;
    for (std::size_t k = 0; k < kMaxEarlierMarkers && end > 0 && end < found->start; ++k) {
      const auto earlier = extract::extract_answer(response.substr(0, end), extract::Method::kAnswerIs);
      if (!earlier || earlier->marker >= end) break;
      Answer alternative = read_answer(extract::answer_text(response, *earlier), gold);
      if (!alternative.text().empty() && compare(gold.answer, alternative, options).tri == equiv::Tri::kTrue) {
        v.tri = equiv::Tri::kUnknown;
        v.reason = Reason::kEarlierMarkerMatches;
        break;
      }
      end = earlier->marker;
    }
  }
  return v;
}

namespace {

// The first eight bytes of s at `at` (fewer when s is shorter, the rest zero), as a number.
std::uint64_t eight_bytes(std::string_view s, std::size_t at) noexcept {
  std::uint64_t w = 0;
  if (at < s.size()) std::memcpy(&w, s.data() + at, std::min<std::size_t>(8, s.size() - at));
  return w;
}

// GoldCache's slot for `gold` among `slots` (a power of two): its length and its first and last
// eight bytes, mixed by multiplication. Golds alike in all three share a slot, which stays
// correct (the key is compared) and only sends them on to the map.
std::size_t recent_slot(std::string_view gold, std::size_t slots) noexcept {
  const std::uint64_t head = eight_bytes(gold, 0);
  const std::uint64_t tail = gold.size() > 8 ? eight_bytes(gold, gold.size() - 8) : 0;
  const std::uint64_t h = (head * 0x9E3779B97F4A7C15ULL) ^ (tail * 0xC2B2AE3D27D4EB4FULL) ^ gold.size();
  return static_cast<std::size_t>((h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ULL >> 56) & (slots - 1);
}

}  // namespace

PreparedGold& GoldCache::get(std::string_view gold) {
  // n samples of one problem in a row: the same gold as the row before, no hashing
  if (last_ != nullptr && gold == last_->key) return last_->gold;
  Entry*& recent = recent_[recent_slot(gold, kRecentSlots)];
  if (recent != nullptr && gold == recent->key) {
    last_ = recent;
    return last_->gold;
  }
  auto it = map_.find(gold);
  if (it == map_.end()) {
    if (map_.size() >= kMaxEntries || bytes_ + gold.size() > kMaxBytes) {
      last_ = nullptr;
      recent_.fill(nullptr);
      map_.clear();
      bytes_ = 0;
    }
    auto entry = std::make_unique<Entry>(Entry{std::string(gold), prepare_gold(gold)});
    entry->gold.serial = ++serials_;
    const std::string_view key = entry->key;  // the heap string does not move with the entry
    it = map_.emplace(key, std::move(entry)).first;
    bytes_ += gold.size();
  }
  last_ = it->second.get();
  recent = last_;  // a slot of the array: still valid after the clearing above
  return last_->gold;
}

void prefetch_text(std::string_view text) noexcept {
  const std::size_t head = std::min<std::size_t>(text.size(), kPrefetchBytes);
  for (std::size_t k = 0; k < head; k += 64) prefetch(text.data() + k);
  if (text.size() > head) {
    for (std::size_t k = text.size() - std::min(text.size() - head, kPrefetchBytes); k < text.size(); k += 64) {
      prefetch(text.data() + k);
    }
  }
}

}  // namespace rapidgrade::grade
