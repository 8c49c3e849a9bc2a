// The values that the final sentence of an unmarked answer assigns to distinct names (extract.hpp,
// final_assignments): "so $p=3$ and $q=4$", "$d(6)=1/3, d(16)=1$, and $d(72)=1/9$"; and those of
// the premise that the answer concludes from (premise_assignments).
#include <string_view>
#include <vector>

#include "expr_build.hpp"
#include "extract_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"

namespace rapidgrade::extract {

using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::kNpos;
using internal::letters_end_in;
using internal::trim;

namespace {

// Most assignments read from one list (a name is compared with each name before it).
constexpr std::size_t kMaxAssignments = 64;

// The end of a name at s[k]: one ASCII letter or a letter command ("\alpha", the table of
// expr::detail::kLetterCommands), then a subscript ("_1", "_{n+1}"), primes and an argument list
// in parentheses ("d(6)", "f'(x)"), each at most once; kNpos when s[k] starts none.
std::size_t name_end(std::string_view s, std::size_t k, std::size_t end) noexcept {
  std::size_t q = k + 1;
  if (k + 1 < end && s[k] == '\\') {
    q = letters_end_in(s, k + 1, end);
    if (q == k + 1 || !expr::detail::is_letter_command(s.substr(k + 1, q - k - 1))) return kNpos;
  } else if (k >= end || !is_letter(s[k]) || (k + 1 < end && is_letter(s[k + 1]))) {
    return kNpos;
  }
  if (q + 1 < end && s[q] == '_') {
    if (s[q + 1] == '{') {
      q += 2;
      while (q < end && s[q] != '}' && s[q] != '{') ++q;
      if (q >= end || s[q] != '}') return kNpos;
      ++q;
    } else if (is_digit(s[q + 1]) || is_letter(s[q + 1])) {
      q += 2;
    } else {
      return kNpos;
    }
  }
  while (q < end && s[q] == '\'') ++q;
  if (q < end && s[q] == '(') {
    std::size_t close = q + 1;
    while (close < end && s[close] != ')' && s[close] != '(') ++close;
    if (close >= end || s[close] != ')') return kNpos;
    q = close + 1;
  }
  return q;
}

// Whether s[k] starts a relation other than '=' ("<", ">=", "!=", "\le", "\neq", "\approx",
// "\in").
bool other_relation(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const char c = s[k];
  if (c == '<' || c == '>' || (c == '!' && k + 1 < end && s[k + 1] == '=')) return true;
  if (c != '\\') return false;
  const std::size_t e = letters_end_in(s, k + 1, end);
  const std::string_view name = s.substr(k + 1, e - k - 1);
  return detail::inequality_code(name) != 0 || detail::is_equals_command(name);
}

// Appends to `out` the parts of the math s[r) at top-level commas, trimmed. False when its
// brackets do not balance or it has more than kMaxAssignments parts. O(length of r).
bool top_level_parts(std::string_view s, Range r, std::vector<Range>& out) {
  std::size_t part = r.start;
  int depth = 0;
  for (std::size_t k = r.start; k <= r.end; ++k) {
    const char c = k < r.end ? s[k] : ',';
    if (c == '\\' && k + 1 < r.end && !is_letter(s[k + 1])) {
      ++k;  // "\{", "\,": no group, no comma
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    if (depth < 0) return false;
    if (c != ',' || depth != 0) continue;
    if (out.size() >= kMaxAssignments) return false;
    out.push_back(trim(s, Range{part, k}));
    part = k + 1;
  }
  return depth == 0;
}

// The '=' signs at the top level of s[from, end): where the first one stands and where the
// member after the last one starts (kNpos for both when there is none). False when a relation
// other than '=' stands at the top level.
bool equals_signs(std::string_view s, std::size_t from, std::size_t end, std::size_t& first,
                  std::size_t& last) noexcept {
  first = last = kNpos;
  int inner = 0;
  for (std::size_t j = from; j < end; ++j) {
    const char d = s[j];
    if (d == '(' || d == '[' || d == '{') ++inner;
    if (d == ')' || d == ']' || d == '}') --inner;
    if (inner == 0 && other_relation(s, j, end)) return false;
    if (inner == 0 && d == '=') {
      if (first == kNpos) first = j;
      last = j + 1;
    }
  }
  return true;
}

// Appends to `names` and `values` the assignments of the math s[r): its parts at top-level
// commas, each "name = ... = value" (the value is the last member), and to `parts` (when not
// null) each part whole. False when a part is no such assignment, names a name already named
// (unless `one_name` and every part so far names that one name with values that differ:
// "$\alpha=90^{\circ}$ and $\alpha=60^{\circ}$", the values of one unknown: a premise's
// reading only, which leaves a verdict UNKNOWN and never makes one TRUE), or would make more
// than kMaxAssignments names.
// O(length of r + kMaxAssignments^2).
bool read_assignments(std::string_view s, Range r, std::vector<Range>& names, std::vector<Range>& values,
                      std::vector<Range>* parts = nullptr, bool one_name = false) {
  std::vector<Range> pieces;
  if (!top_level_parts(s, r, pieces)) return false;
  for (const Range& p : pieces) {
    const std::size_t n = name_end(s, p.start, p.end);
    if (n == kNpos) return false;
    std::size_t q = n;
    while (q < p.end && is_blank(s[q])) ++q;
    std::size_t first = kNpos, last = kNpos;  // last: the start of the last member
    if (q >= p.end || s[q] != '=' || !equals_signs(s, q, p.end, first, last)) return false;
    const Range value = trim(s, Range{last, p.end});
    if (value.end <= value.start) return false;
    const std::string_view name = s.substr(p.start, n - p.start);
    if (names.size() >= kMaxAssignments) return false;
    const std::string_view value_text = s.substr(value.start, value.end - value.start);
    bool named = false, only_that_name = true;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const bool same = s.substr(names[i].start, names[i].end - names[i].start) == name;
      named = named || same;
      only_that_name = only_that_name && same;
      if (same && s.substr(values[i].start, values[i].end - values[i].start) == value_text) return false;
    }
    if (named && !(one_name && only_that_name)) return false;
    names.push_back(Range{p.start, n});
    values.push_back(value);
    if (parts != nullptr) parts->push_back(p);
  }
  return true;
}

// Whether the math s[p) holds `name` as a variable: not inside a longer run of letters or a
// command ("x" in "2x", "\frac{x}{2}", not in "\max" or "xy"), and, for a name with a subscript,
// primes or arguments, as written.
bool holds_name(std::string_view s, Range p, std::string_view name) noexcept {
  const std::string_view scope = s.substr(0, p.end);
  for (std::size_t at = scope.find(name, p.start); at != kNpos; at = scope.find(name, at + 1)) {
    const bool letter_before = at > p.start && (is_letter(s[at - 1]) || s[at - 1] == '\\');
    const bool letter_after = at + name.size() < p.end && is_letter(s[at + name.size()]);
    if (!letter_before && !letter_after) return true;
  }
  return false;
}

}  // namespace

std::vector<Range> assignment_parts(std::string_view answer) {
  std::vector<Range> names, values, parts;
  if (!read_assignments(answer, Range{0, answer.size()}, names, values, &parts) || parts.size() < 2) return {};
  return parts;
}

std::vector<Range> final_assignments(std::string_view s, const Extraction& e, std::size_t limit) {
  std::vector<Range> names, values, out;
  const std::vector<Box>& spans = e.readings.spans;
  if (e.method != Method::kFinalSpan || e.readings.first_span >= spans.size()) return out;
  // the spans of the answer, then back through its sentence as other_readings goes
  std::size_t first = e.readings.first_span;
  std::size_t last = first;
  while (last + 1 < spans.size() && spans[last + 1].start < e.end) ++last;
  while (first > 0) {
    // a sentence break ends the run, and so does a conclusion word before the span after it
    // ("If $d=-7$, then $a=27$ and $b=20$": $d=-7$ is the premise)
    const Box& b = spans[first - 1];
    if (internal::sentence_break(s, b.outer_end, spans[first].outer_start) ||
        internal::introduced_as_conclusion(s, b.outer_end, spans[first].outer_start)) {
      break;
    }
    std::vector<Range> n, v;
    if (!read_assignments(s, Range{b.start, b.end}, n, v)) break;
    --first;
  }
  for (std::size_t k = first; k <= last; ++k) {
    if (!read_assignments(s, Range{spans[k].start, spans[k].end}, names, values)) return out;
    if (values.size() > limit) return out;
  }
  if (values.size() >= 2) out = std::move(values);
  return out;
}

std::vector<Range> premise_assignments(std::string_view s, const Extraction& e, std::size_t limit) {
  std::vector<Range> names, values, out;
  const std::vector<Box>& spans = e.readings.spans;
  const std::size_t first = e.readings.first_span;
  if (e.method != Method::kFinalSpan || first == 0 || first >= spans.size()) return out;
  // a conclusion word right before the answer's first span, in its sentence
  if (internal::sentence_break(s, spans[first - 1].outer_end, spans[first].outer_start) ||
      !internal::introduced_as_conclusion(s, spans[first - 1].outer_end, spans[first].outer_start)) {
    return out;
  }
  // the premise: the run of spans before it, back to a sentence break or another conclusion
  std::size_t start = first - 1;
  while (start > 0 && !internal::sentence_break(s, spans[start - 1].outer_end, spans[start].outer_start) &&
         !internal::introduced_as_conclusion(s, spans[start - 1].outer_end, spans[start].outer_start)) {
    --start;
  }
  for (std::size_t k = start; k < first; ++k) {
    if (!read_assignments(s, Range{spans[k].start, spans[k].end}, names, values, nullptr, true)) return out;
    if (values.size() > limit) return out;
  }
  if (values.size() >= 2) out = std::move(values);
  return out;
}

std::vector<Range> solved_parts(std::string_view answer) {
  std::vector<Range> parts;
  if (!top_level_parts(answer, Range{0, answer.size()}, parts) || parts.size() < 2) return {};
  std::vector<Range> names, values;
  if (!read_assignments(answer, parts.back(), names, values) || names.size() != 1) return {};
  const std::string_view name = answer.substr(names[0].start, names[0].end - names[0].start);
  for (std::size_t k = 0; k + 1 < parts.size(); ++k) {
    const Range p = parts[k];
    std::size_t equals = kNpos, last = kNpos;
    if (!equals_signs(answer, p.start, p.end, equals, last) || equals == kNpos) return {};
    // "x = 2, x = 3" lists two values of x: no step solves for it
    const Range lhs = trim(answer, Range{p.start, equals});
    if (answer.substr(lhs.start, lhs.end - lhs.start) == name) return {};
    if (!holds_name(answer, p, name)) return {};
  }
  return parts;
}

}  // namespace rapidgrade::extract
