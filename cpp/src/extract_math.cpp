// The rule of extraction that reads the math of the text without a marker: final_span (the last
// statement among the math spans, $..$, \[..\] and the display environments). The last-number
// rule is in extract_number.cpp.
#include "extract_internal.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::extract {

using namespace internal;
using detail::find_byte;
using detail::find_str;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;
using detail::starts_with;

namespace {

// ---------------------------------------------------------------------------------------------
// final_span

// The display environments read as math spans (with or without '*').
constexpr std::string_view kMathEnvironments[] = {"equation",    "align",    "gather", "multline",
                                                  "displaymath", "eqnarray", "math"};

bool is_math_environment(std::string_view name) noexcept {
  if (!name.empty() && name.back() == '*') name.remove_suffix(1);
  for (const std::string_view env : kMathEnvironments) {
    if (env == name) return true;
  }
  return false;
}

// Spans math_spans reserves room for at the first one: a worked solution has tens of them.
constexpr std::size_t kReservedBoxes = 32;

}  // namespace

namespace internal {

// Every math span of s[from, n) in order: scan::find_math_spans's $..$, $$..$$, \(..\), \[..\],
// and \begin{equation}..\end{equation} and the other kMathEnvironments; a span inside an
// environment is part of it. O(n).
std::vector<Box> math_spans(std::string_view s, std::size_t from, const Anchors& anchors) {
  std::vector<Box> envs;
  std::size_t at = find_str(s, std::max(from, anchors.begin_from), "\\begin{");  // kNpos: none
  while (at != kNpos) {
    const std::size_t name_start = at + 7;
    const std::size_t close = find_byte(s, name_start, '}');
    if (close >= s.size()) break;
    const std::string_view name = s.substr(name_start, close - name_start);
    std::size_t next = close + 1;
    if (is_math_environment(name)) {
      std::string end_tag = "\\end{";
      end_tag.append(name);
      end_tag += '}';
      const std::size_t end = find_str(s, close + 1, end_tag);
      if (end == kNpos) break;
      envs.push_back(Box{at, close + 1, end, end + end_tag.size()});
      next = end + end_tag.size();
    }
    at = find_str(s, next, "\\begin{");
  }
  std::vector<Box> out;
  std::size_t e = 0;
  // each span as the scanner finds it, merged with the environments (no list of its own)
  scan::for_each_math_span(s.substr(from), [&](std::size_t outer_start, std::size_t start, std::size_t end,
                                               std::size_t outer_end, scan::SpanKind) {
    const Box b{from + outer_start, from + start, from + end, from + outer_end};
    while (e < envs.size() && envs[e].outer_end <= b.outer_start) out.push_back(envs[e++]);
    if (e < envs.size() && envs[e].outer_start < b.outer_end) return;  // inside (or across) an environment
    if (out.empty()) out.reserve(kReservedBoxes);
    out.push_back(b);
  });
  while (e < envs.size()) out.push_back(envs[e++]);
  return out;
}

}  // namespace internal

namespace {

// The last byte of the command whose backslash is at k (the loop's ++k then goes on after it):
// the end of a command name ("\quad5" -> the 'd'), or the one byte of a control symbol ("\\x"
// is a line break, then x).
std::size_t skip_command(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const std::size_t e = letters_end_in(s, k + 1, end);
  return e > k + 1 ? e - 1 : k + 1;
}

}  // namespace

namespace internal {

// True when s[r) holds a digit or a letter outside command names: "x", "- 1", "\frac{1}{2}";
// "\therefore", "\quad" and "," hold none.
bool has_content(std::string_view s, Range r) noexcept {
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '\\') {
      k = skip_command(s, k, r.end);
      continue;
    }
    if (is_digit(c) || is_letter(c)) return true;
  }
  return false;
}

}  // namespace internal

namespace {

// The alignment environments a display span may hold whole ("$$\begin{aligned} V &= ... \\ &=
// \frac{2 \pi}{15} \end{aligned}$$"): their rows are the span's rows.
constexpr std::string_view kAlignmentEnvironments[] = {"aligned", "gathered", "split", "alignedat"};

// Strips trailing '.', ',', ';', '&' (an empty last row: "... \\ &"), "\\", \quad, \qquad,
// \nonumber, \notag and whitespace.
Range strip_span_tails(std::string_view s, Range r) noexcept {
  bool changed = true;
  while (changed && r.end > r.start) {
    changed = false;
    r = trim(s, r);
    if (ends_with_list_ellipsis(s, r.start, r.end)) break;  // "1, 2, 3, ..." keeps its last term
    for (const std::string_view tail :
         {std::string_view("\\nonumber"), std::string_view("\\notag"), std::string_view("\\qquad"),
          std::string_view("\\quad"), std::string_view("\\\\"), std::string_view("."), std::string_view(","),
          std::string_view(";"), std::string_view("&")}) {
      // the last byte first: most spans end in none of them
      if (r.end - r.start >= tail.size() && s[r.end - 1] == tail.back() &&
          s.compare(r.end - tail.size(), tail.size(), tail) == 0) {
        r.end -= tail.size();
        changed = true;
        break;
      }
    }
  }
  return r;
}

// r without an alignment environment (kAlignmentEnvironments) that encloses all of it: what is
// between its \begin{..} (and the column count of alignedat) and the \end{..} that closes it,
// when nothing follows that \end; r itself otherwise.
Range unwrap_alignment(std::string_view s, Range r) noexcept {
  constexpr std::string_view kBegin = "\\begin{";
  if (!starts_with(s.substr(0, r.end), r.start, kBegin)) return r;
  const std::size_t name_start = r.start + kBegin.size();
  const std::size_t close = find_byte(s.substr(0, r.end), name_start, '}');
  if (close >= r.end) return r;
  const std::string_view name = s.substr(name_start, close - name_start);
  bool alignment = false;
  for (const std::string_view env : kAlignmentEnvironments) alignment = alignment || env == name;
  if (!alignment) return r;
  // the "\end{name}" that closes it (environments inside it nest: "\begin{array} .. \end{array}")
  // must end r
  std::size_t end = kNpos;
  std::size_t nested = 0;
  for (std::size_t k = find_byte(s.substr(0, r.end), close + 1, '\\'); k < r.end;
       k = find_byte(s.substr(0, r.end), k + 1, '\\')) {
    if (starts_with(s.substr(0, r.end), k, kBegin)) {
      ++nested;
    } else if (starts_with(s.substr(0, r.end), k, "\\end{")) {
      if (nested == 0) {
        end = k;
        break;
      }
      --nested;
    } else if (k + 1 < r.end && s[k + 1] == '\\') {
      ++k;  // a line break "\\\\" is not the start of a command
    }
  }
  if (end == kNpos || end + 5 + name.size() + 1 != r.end || s.compare(end + 5, name.size(), name) != 0) return r;
  std::size_t inner = close + 1;
  if (name == "alignedat" && inner < end && s[inner] == '{') {
    const std::size_t c = find_byte(s.substr(0, end), inner, '}');
    if (c >= end) return r;
    inner = c + 1;
  }
  return Range{inner, end};
}

// The content of a span without what is not part of the answer: \tag{..}, \label{..}, an
// alignment environment around all of it (unwrap_alignment), and trailing '.', ',', ';', "\\",
// \quad, \qquad, \nonumber, \notag and whitespace.
Range span_content(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  for (const std::string_view cmd : {std::string_view("\\tag"), std::string_view("\\label")}) {
    const std::size_t at = find_str(s.substr(0, r.end), r.start, cmd);
    if (at != kNpos) r.end = at;  // \tag and \label end a line of an equation
  }
  r = strip_span_tails(s, r);
  const Range inner = unwrap_alignment(s, r);
  return inner.start == r.start ? r : strip_span_tails(s, inner);
}

// A relation operator at s[k] (outside braces): its length and whether it is an equality
// ('=', \approx and the other approximation commands of latex_vocab.hpp, U+2248); 0 when
// there is none. '<=', '>=', '!=', the inequality commands
// ("\le", "\neq", ...: latex_vocab.hpp's kInequalityCommands) and U+2264/2265/2260 are
// inequalities; so are the divisibility commands ("\mid", "\nmid": kDivisibilityCommands).
struct RelationAt {
  std::size_t length = 0;
  bool equality = false;
};

RelationAt relation_at(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const char c = s[k];
  if (c == '=') {
    if (k + 1 < end && s[k + 1] == '=') return {2, true};
    return {1, true};
  }
  if (c == '<' || c == '>' || c == '!') {
    if (k + 1 < end && s[k + 1] == '=') return {2, false};
    if (c == '!') return {};
    return {1, false};
  }
  if (c == '\\') {
    const std::size_t e = letters_end_in(s, k + 1, end);
    const std::string_view name = s.substr(k + 1, e - k - 1);
    if (detail::is_approximation_command(name)) return {e - k, true};  // latex_vocab.hpp
    if (detail::inequality_code(name) != 0) return {e - k, false};     // latex_vocab.hpp
    if (detail::is_divisibility_command(name)) return {e - k, false};  // latex_vocab.hpp
    return {};
  }
  if (c == '\xE2' && k + 2 < end && s[k + 1] == '\x89') {
    const char d = s[k + 2];
    if (d == '\x88') return {3, true};                                 // U+2248 almost equal
    if (d == '\xA4' || d == '\xA5' || d == '\xA0') return {3, false};  // U+2264, U+2265, U+2260
  }
  return {};
}

// True when s[r) holds a letter outside command names (a symbol): "x", "f(2)"; not "1 - 2",
// "\frac{3}{4}".
bool has_symbol(std::string_view s, Range r) noexcept {
  for (std::size_t k = r.start; k < r.end; ++k) {
    if (s[k] == '\\') {
      k = skip_command(s, k, r.end);
      continue;
    }
    if (is_letter(s[k])) return true;
  }
  return false;
}

// The last row of r, after its last line break ("\\") outside braces and environments, when
// that row states something of its own: a row that starts with a relation ("& = 0.23")
// continues the rows before it, and r is returned whole. "x &= 1 \\ y &= 2" -> "y &= 2",
// "a &= 0.5 \\ & 0.59" -> "0.59";
// "V &= \int ... \\ &= 2" stays whole; a matrix's rows are inside its environment.
Range last_own_row(std::string_view s, Range r) noexcept {
  std::size_t row = kNpos;
  std::size_t depth = 0;
  std::size_t environments = 0;
  bool before = false;  // a row before the break: in "\\boxed{..}" (an escaped backslash) there is none
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '\\' && k + 1 < r.end && s[k + 1] == '\\') {
      if (depth == 0 && environments == 0 && before) row = k + 2;
      ++k;
      continue;
    }
    before = before || !is_space(c);
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth > 0) --depth;
    } else if (c == '\\' && k + 1 < r.end) {
      if (starts_with(s.substr(0, r.end), k, "\\begin{")) {
        ++environments;
      } else if (starts_with(s.substr(0, r.end), k, "\\end{")) {
        if (environments > 0) --environments;
      } else if (s[k + 1] == '{' || s[k + 1] == '}') {
        ++k;  // "\{" and "\}" are no braces of the text
      }
    }
  }
  if (row == kNpos) return r;
  std::size_t k = row;
  while (k < r.end && (is_space(s[k]) || s[k] == '&')) ++k;
  if (k == r.end || relation_at(s, k, r.end).length > 0) return r;
  return Range{k, r.end};  // without the row's leading blanks and '&' ("\\ & 0.59")
}

// Commands and words that introduce what a statement concludes: "$\therefore$ $x = 2$",
// "... so $m = -3$", "the value is $8$", "solving gives: $a = -2$". One table for the commands
// (span_answer reads a span from the last of them) and one for the words.
constexpr std::string_view kConclusionCommands[] = {"therefore", "Rightarrow", "Longrightarrow", "implies"};
constexpr std::string_view kConclusionWords[] = {
    "is",       "are",   "was",  "be",     "equals", "becomes", "get",  "gets",      "got",   "obtain", "obtains",
    "obtained", "gives", "give", "yields", "yield",  "so",      "thus", "therefore", "hence", "then"};

bool is_conclusion_command(std::string_view name) noexcept {
  for (const std::string_view c : kConclusionCommands)
    if (name == c) return true;
  return false;
}

// The position of the '{' that follows s[k] after blanks, or `end` when none does before it.
std::size_t brace_after(std::string_view s, std::size_t k, std::size_t end) noexcept {
  while (k < end && s[k] == ' ') ++k;
  return k < end && s[k] == '{' ? k : end;
}

// Whether `word` is one of kConclusionWords, in any case (only a letter lowers to a letter).
bool is_conclusion_word(std::string_view word) noexcept {
  if (word.empty() || word.size() > 9) return false;
  char lower[10];
  for (std::size_t i = 0; i < word.size(); ++i) lower[i] = static_cast<char>(word[i] | 0x20);
  const std::string_view w(lower, word.size());
  for (const std::string_view c : kConclusionWords)
    if (w == c) return true;
  return false;
}

}  // namespace

namespace internal {

// True when s[from, to), the text before a math span, ends with a conclusion word or command
// (blanks, ':' and ',' may follow it): "we get: ", "so ", "\therefore ". O(to - from).
bool introduced_as_conclusion(std::string_view s, std::size_t from, std::size_t to) noexcept {
  std::size_t k = to;
  while (k > from && (is_space(s[k - 1]) || s[k - 1] == ':' || s[k - 1] == ',')) --k;
  std::size_t b = k;
  while (b > from && is_letter(s[b - 1])) --b;
  if (b == k) return false;
  const std::string_view word = s.substr(b, k - b);
  if (b > from && s[b - 1] == '\\') return is_conclusion_command(word);
  if (b > from && is_letter(s[b - 1])) return false;
  return is_conclusion_word(word);
}

// A span that holds only a conclusion command: "$\therefore$ when $x = -1$, ...".
bool conclusion_command_span(std::string_view s, Range content) noexcept {
  const Range r = trim(s, content);
  if (r.end - r.start < 2 || s[r.start] != '\\') return false;
  const std::size_t e = letters_end_in(s, r.start + 1, r.end);
  return e == r.end && is_conclusion_command(s.substr(r.start + 1, e - r.start - 1));
}

// The answer a math span states: "a = b = c" -> "c"; "1 - 2 = - 1" -> "- 1" (an arithmetic
// left side is a computation); "x = 5", "f(x) = x + 2", "x < - 2", "1 < x < 3" stay whole (the
// relation is the answer; equivalence knows that "x = 5" matches 5). After the last top-level
// \Rightarrow, \implies or \therefore, or a \text{} that holds one conclusion word ("\text{ so }"),
// only. A span listing several parts (a top-level ',' or ';'
// that is not a thousands separator, "\text{ or }", \quad) is kept whole. O(length).
Range span_answer(std::string_view s, Range r, Range* statement) {
  r = last_own_row(s, span_content(s, r));
  struct Op {
    std::size_t at, length;
    bool equality;
  };
  std::vector<Op> ops;
  bool parts = false;
  bool concluded = false;  // r starts after a conclusion
  int depth = 0;
  bool row_start = true;  // only blanks and '&' since the start or the last "\\": a \quad there indents
  CommaGroups groups(s, r.start, r.end);
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (!(is_space(c) || c == '&' || c == '\\')) row_start = false;
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
      continue;
    }
    if (c == '}' || c == ')' || c == ']') {
      if (depth > 0) --depth;
      continue;
    }
    if (c == '\\') {
      const std::size_t e = letters_end_in(s, k + 1, r.end);
      if (e == k + 1) {  // a control symbol: "\{" and "\}" are braces, "\," and "\\" are not
        if (k + 1 < r.end && s[k + 1] == '{') ++depth;
        if (k + 1 < r.end && s[k + 1] == '}' && depth > 0) --depth;
        if (k + 1 < r.end && (s[k + 1] == '{' || s[k + 1] == '}')) row_start = false;
        if (k + 1 < r.end && s[k + 1] == '\\') row_start = true;
        ++k;
        continue;
      }
      const std::string_view name = s.substr(k + 1, e - k - 1);
      const bool wide = detail::is_wide_spacing(name);  // \quad, \qquad (latex_vocab.hpp)
      if (!wide) row_start = false;
      if (depth == 0) {
        if (is_conclusion_command(name)) {
          ops.clear();
          parts = false;
          concluded = true;
          r.start = e;
        } else if (wide) {
          parts = parts || !row_start;  // between two parts, not a row's indent ("&\quad \times ...")
        } else if (name == "text" || name == "mbox" || name == "textrm") {
          const std::size_t g = brace_after(s, e, r.end);  // "\text {so}" as "\text{so}"
          const std::size_t close = g < r.end ? find_byte(s.substr(0, std::min(r.end, g + 16)), g, '}') : r.end;
          if (close < r.end) {
            const std::string_view word = detail::trim(s.substr(g + 1, close - g - 1));
            if (detail::joiner_word(word) != nullptr) {
              parts = true;
            } else if (is_conclusion_word(word)) {
              // "R^2 = \frac{19}{576}, \quad \text{so} \quad R = 0.18": read from after it, as
              // after \therefore
              ops.clear();
              parts = false;
              concluded = true;
              r.start = close + 1;
            }
          }
        } else {
          const RelationAt rel = relation_at(s, k, r.end);
          if (rel.length > 0) ops.push_back(Op{k, rel.length, rel.equality});
        }
      }
      k = e - 1;
      continue;
    }
    if (depth != 0) continue;
    const bool thousands = groups.at(k);
    if (is_digit(c)) continue;
    if (c == ',' || c == ';') {
      if (!thousands) parts = true;
      continue;
    }
    const RelationAt rel = relation_at(s, k, r.end);
    if (rel.length > 0) {
      ops.push_back(Op{k, rel.length, rel.equality});
      k += rel.length - 1;
    }
  }
  r = trim(s, r);
  // after a conclusion, the spacing before what it concludes: "\text{so} \quad R = 0.18"
  while (concluded && r.start < r.end && s[r.start] == '\\') {
    const std::size_t e = letters_end_in(s, r.start + 1, r.end);
    if (!detail::is_wide_spacing(s.substr(r.start + 1, e - r.start - 1))) break;
    r = trim(s, Range{e, r.end});
  }
  if (statement != nullptr) *statement = r;
  if (parts || ops.empty()) return r;
  bool all_equalities = true;
  for (const Op& op : ops) all_equalities = all_equalities && op.equality;
  if (!all_equalities) return r;
  const Op& last = ops.back();
  Range rhs = trim(s, Range{last.at + last.length, r.end});
  // an alignment mark right after the relation ("= & 0.59") is not part of the member
  while (rhs.start < rhs.end && (s[rhs.start] == '&' || is_space(s[rhs.start]))) ++rhs.start;
  if (rhs.end == rhs.start) return r;
  if (ops.size() >= 2) return rhs;
  const Range lhs = trim(s, Range{r.start, last.at});
  if (!has_symbol(s, lhs)) return rhs;
  return r;
}

}  // namespace internal

namespace {

// Text after the final math span that may still hold the answer: a digit outside markup tags
// (markup_tag_end: "<img_3939>"), references in parentheses ("(see Figure 2)", "(3)") and words
// ("2nd" counts).
bool digit_after(std::string_view s, std::size_t from) noexcept {
  const std::size_t n = s.size();
  for (std::size_t k = from; k < n; ++k) {
    const char c = s[k];
    if (c == '<') {
      const std::size_t end = markup_tag_end(s, k, n);
      if (end != kNpos) {
        k = end - 1;
        continue;
      }
    } else if (c == '(') {
      std::size_t m = k + 1;
      while (m < n && m - k < 80 && s[m] != ')' && s[m] != '\n') ++m;
      if (m < n && s[m] == ')') {
        const std::string_view inside = detail::trim(s.substr(k + 1, m - k - 1));
        bool reference = !inside.empty();
        for (const char d : inside) reference = reference && (is_digit(d) || d == '.');
        for (const std::string_view w : {std::string_view("see"), std::string_view("cf"), std::string_view("fig"),
                                         std::string_view("table"), std::string_view("eq"), std::string_view("step")}) {
          reference = reference || istarts_with(inside, 0, w);
        }
        if (reference) {
          k = m;
          continue;
        }
      }
    } else if (is_digit(c)) {
      return true;
    }
  }
  return false;
}

// A CJK list joiner of detail/markers.hpp ("和", "或") at s[k], before `to`: its length, or 0.
std::size_t cjk_joiner_at(std::string_view s, std::size_t k, std::size_t to) noexcept {
  for (const std::string_view j : detail::kCjkListJoiners) {
    if (k + j.size() <= to && starts_with(s, k, j)) return j.size();
  }
  return 0;
}

// The gap between two parts of one answer: only ',', ';', "and", "or", the CJK joiners, blanks
// ("$(-6,6)$ and $(2,6)$", "$x=-1$ or $x=2$", "$90^{\circ}$, $60^{\circ}$", "$x<2$ 或 $x>3$").
bool joins_parts(std::string_view s, std::size_t from, std::size_t to) noexcept {
  if (to - from > 16) return false;
  std::size_t k = from;
  bool connector = false;
  while (k < to) {
    const char c = s[k];
    if (is_space(c)) {
      ++k;
    } else if (c == ',' || c == ';') {
      connector = true;
      ++k;
    } else if (const std::size_t j = cjk_joiner_at(s, k, to); j != 0) {
      connector = true;
      k += j;
    } else if (is_letter(c)) {
      const std::size_t e = letters_end_in(s, k, to);
      const std::string_view w = s.substr(k, e - k);
      if (detail::joiner_word(w) == nullptr) return false;
      connector = true;
      k = e;
    } else {
      return false;
    }
  }
  return connector;
}

// Whether a joiner word of alternatives ("or": detail::kJoinerWords) or the CJK "或" is among
// the connectors of s[from, to) (joins_parts).
bool joined_by_or(std::string_view s, std::size_t from, std::size_t to) noexcept {
  for (std::size_t k = from; k < to; ++k) {
    if (k + detail::kCjkOr.size() <= to && starts_with(s, k, detail::kCjkOr)) return true;
    if (!is_letter(s[k])) continue;
    const std::size_t e = letters_end_in(s, k, to);
    const detail::JoinerWord* joiner = detail::joiner_word(s.substr(k, e - k));
    if (joiner != nullptr && joiner->alternative) return true;
    k = e;
  }
  return false;
}

}  // namespace

namespace internal {

// True when s[from, to) ends a sentence: '.', '!' or '?' before whitespace or the end, or a
// line break.
bool sentence_break(std::string_view s, std::size_t from, std::size_t to) noexcept {
  for (std::size_t k = from; k < to; ++k) {
    const char c = s[k];
    if (c == '\n') return true;
    if ((c == '.' || c == '!' || c == '?') && (k + 1 == to || is_space(s[k + 1]))) return true;
  }
  return false;
}

}  // namespace internal

namespace {

// A variable name alone: letters (one command such as \alpha, or up to two letters) with an
// optional subscript "_1" / "_{12}": "m", "x _ 1", "\alpha".
bool is_lone_symbol(std::string_view s, Range r) noexcept {
  std::size_t k = r.start;
  if (k < r.end && s[k] == '\\') ++k;
  const std::size_t e = letters_end_in(s, k, r.end);
  if (e == k || (s[r.start] != '\\' && e - k > 2)) return false;
  k = e;
  while (k < r.end && is_blank(s[k])) ++k;
  if (k < r.end && s[k] == '_') {
    ++k;
    while (k < r.end && (is_blank(s[k]) || is_digit(s[k]) || is_letter(s[k]) || s[k] == '{' || s[k] == '}')) ++k;
  }
  return k == r.end;
}

// The left side of the relation that s[r) states ("x = 5" -> "x", "a + 2 \ge 0" -> "a + 2"),
// trimmed: the text before its first top-level relation operator (relation_at); an empty range
// when it holds none (a value).
Range relation_lhs(std::string_view s, Range r) noexcept {
  int depth = 0;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (depth == 0 && relation_at(s, k, r.end).length > 0) {
      return trim(s, Range{r.start, k});
    } else if (c == '\\') {
      k = skip_command(s, k, r.end);
    }
  }
  return Range{r.start, r.start};
}

// The left side of what a span states (relation_lhs) when it names something: one with no
// symbol is a computation ("1 + 2 = 3" states the value 3), an empty range as for a value.
Range stated_lhs(std::string_view s, Range statement) noexcept {
  const Range lhs = relation_lhs(s, statement);
  return has_symbol(s, lhs) ? lhs : Range{statement.start, statement.start};
}

}  // namespace

namespace internal {

// The last of `spans` (math_spans of s from `from`) of the final statement, when no number
// follows it in prose: read by span_answer; several spans joined by "and"/"or"/"," are one
// answer with several parts. Sets readings.first_span (the first span of the answer), from
// which other_readings() reads the other spans of the final sentence.
std::optional<Extraction> find_final_span(std::string_view s, const std::vector<Box>& spans, const BoldAnswer* bold) {
  std::size_t last = bold != nullptr ? bold->span + 1 : spans.size();
  while (last > 0 && !has_content(s, Range{spans[last - 1].start, spans[last - 1].end})) --last;
  // a quantifier's domain after the answer ("... for all $x \in \mathbb{R}^{+}$") is not the
  // answer, unless nothing comes before it
  std::size_t qualified = last;
  while (qualified > 0 && (!has_content(s, Range{spans[qualified - 1].start, spans[qualified - 1].end}) ||
                           quantifier_domain(s, spans[qualified - 1]))) {
    --qualified;
  }
  const bool domains = qualified > 0 && qualified < last;
  if (domains) last = qualified;
  if (last == 0) return std::nullopt;
  // "... gives $m = 2$ after solving for $m$": a span that only names a variable of an earlier
  // span of its sentence is not the answer
  if (last >= 2 && bold == nullptr) {
    std::size_t prev = last - 1;
    while (prev > 0 && !has_content(s, Range{spans[prev - 1].start, spans[prev - 1].end})) --prev;
    if (prev > 0) {
      const Range name = span_content(s, Range{spans[last - 1].start, spans[last - 1].end});
      if (is_lone_symbol(s, name) && !sentence_break(s, spans[prev - 1].outer_end, spans[last - 1].outer_start)) {
        const Range before = span_content(s, Range{spans[prev - 1].start, spans[prev - 1].end});
        if (starts_with(s.substr(0, before.end), before.start, s.substr(name.start, name.end - name.start)))
          last = prev;
      }
    }
  }
  const Box& final_box = spans[last - 1];
  // a number after the bolded answer does not take its place; nor does one in the domains after it
  if (bold == nullptr && !domains && digit_after(s, final_box.outer_end)) return std::nullopt;
  if (bold == nullptr && domains) {
    std::size_t from = final_box.outer_end;
    for (std::size_t k = last; k < spans.size(); ++k) {
      if (digit_after(s.substr(0, spans[k].outer_start), from)) return std::nullopt;
      from = spans[k].outer_end;
    }
    if (digit_after(s, from)) return std::nullopt;
  }
  std::size_t first = last - 1;
  Range final_statement;
  const Range final_answer =
      span_answer(s, Range{bold != nullptr ? bold->part_start : final_box.start, final_box.end}, &final_statement);
  std::optional<Range> final_lhs;  // read when a span before it joins it
  while (first > 0 && has_content(s, Range{spans[first - 1].start, spans[first - 1].end}) &&
         joins_parts(s, spans[first - 1].outer_end, spans[first].outer_start)) {
    if (!final_lhs) final_lhs = stated_lhs(s, final_statement);
    // parts of one answer have one shape: values ("$(-6,6)$ and $(2,6)$"), or relations of one
    // left side ("$x=-1$ or $x=2$", "$x=2^{-2/3}$ or $x=2^{3}=8$"); "$3x = 12$ and $x = 4$" and
    // "$A+B=136^{\circ}$ and $C=180^{\circ}-(A+B)=44^{\circ}$" state two things, and "$\sin\theta
    // = \frac{x}{z}$, and $$\frac{x}{z} = ... = \frac{5}{4}$$" computes on: the last counts. The
    // left side is the statement's, before a chain gives its last member as the answer.
    Range part_statement;
    const Range part = span_answer(s, Range{spans[first - 1].start, spans[first - 1].end}, &part_statement);
    const Range lhs = stated_lhs(s, part_statement);
    // where only the statements' left sides agree (a chain reduced to its last member on one side),
    // "or" joins alternatives ("$x=2^{-2/3}$ or $x=2^{3}=8$"); "and" may restate one value ("$a+b
    // = 2-6 = -4$, and $a+b=-4$")
    const Range answer_lhs = relation_lhs(s, part), final_answer_lhs = relation_lhs(s, final_answer);
    if ((answer_lhs.end == answer_lhs.start) != (final_answer_lhs.end == final_answer_lhs.start) &&
        !joined_by_or(s, spans[first - 1].outer_end, spans[first].outer_start)) {
      break;
    }
    if ((lhs.end == lhs.start) != (final_lhs->end == final_lhs->start)) break;
    if (lhs.end != lhs.start &&
        s.substr(lhs.start, lhs.end - lhs.start) != s.substr(final_lhs->start, final_lhs->end - final_lhs->start)) {
      break;
    }
    --first;
  }
  Extraction e;
  e.method = Method::kFinalSpan;
  if (first + 1 == last) {
    e.start = final_answer.start;
    e.end = final_answer.end;
  } else {
    for (std::size_t k = first; k + 1 < last; ++k) {
      e.parts.push_back(span_answer(s, Range{spans[k].start, spans[k].end}));
      e.alternatives = e.alternatives || joined_by_or(s, spans[k].outer_end, spans[k + 1].outer_start);
    }
    e.parts.push_back(final_answer);
    e.start = e.parts.front().start;
    e.end = e.parts.back().end;
  }
  if (e.end <= e.start) return std::nullopt;
  e.readings.first_span = first;
  return e;
}

}  // namespace internal

}  // namespace rapidgrade::extract
