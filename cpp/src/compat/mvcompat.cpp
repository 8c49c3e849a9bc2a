// See mvcompat.hpp. The regular expressions emulated here are math-verify 0.9.0's
// `make_latex_env_pattern(context="boxed")` (pattern A) and `\\boxed{.+}` (pattern B), both
// compiled with re.DOTALL. Each environment alternative of A, tried at a start position s in
// the order $$, \[, $, \(, \s[, has a content class that cannot cross one terminator, so its
// lazy quantifiers can only close at the first terminator after s:
//   $$  content (?:[^$]|\$(?!\$))   closes at the first "$$", which must not follow a backslash
//   \[  content (?:[^\\]|\\(?!\]))  closes at the first "\]", which must not follow a backslash
//   $   content (?:\\[$]|[^\n$])    closes at the first "$" not after a backslash, no newline
//   \(  content (?:[^\\\n]|\\(?!\))) closes at the first "\)", not after a backslash, no newline
//   \s[ content [^\n\]\[]           closes at the first "]" (then a whitespace character)
// and the content must hold "\boxed{" followed, at least one character later, by a "}".
// Everything after the environment is optional, so the first alternative that closes wins.
#include "rapidgrade/compat/mvcompat.hpp"

#include <string_view>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::mvcompat {
namespace detail {

constexpr std::size_t kNpos = std::string_view::npos;

// Python's \s on ASCII: [ \t\n\r\f\v] and the separators \x1c-\x1f (str.isspace()). Deliberately
// wider than detail::is_space: this file emulates math-verify's regular expressions.
inline bool is_python_space(unsigned char c) noexcept {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

inline bool is_ascii_digit(unsigned char c) noexcept { return c >= '0' && c <= '9'; }

// First position >= k where `hit(text, pos)` holds. Queries are answered from the previous
// result when k has not moved past it, so a sequence of non-decreasing queries scans the text
// once in total; a smaller k than before is answered correctly by a fresh search.
template <typename Hit>
class NextFinder {
 public:
  NextFinder(std::string_view text, Hit hit) noexcept : text_(text), hit_(hit) {}

  std::size_t query(std::size_t k) noexcept {
    if (valid_ && k >= from_ && (pos_ == kNpos || pos_ >= k)) return pos_;
    pos_ = kNpos;
    for (std::size_t p = k; p < text_.size(); ++p) {
      if (hit_(text_, p)) {
        pos_ = p;
        break;
      }
    }
    from_ = k;
    valid_ = true;
    return pos_;
  }

 private:
  std::string_view text_;
  Hit hit_;
  std::size_t pos_ = kNpos;
  std::size_t from_ = 0;
  bool valid_ = false;
};

template <typename Hit>
NextFinder<Hit> make_finder(std::string_view text, Hit hit) noexcept {
  return NextFinder<Hit>(text, hit);
}

using ::rapidgrade::detail::is_letter;
using ::rapidgrade::detail::starts_with;

// After an environment and its trailing whitespace: could math-verify's optional percent group
// or one of the "and"/"or"/"," continuations start here? e.g. "\(\boxed{5}\)\%" or
// "\(\boxed{1}\), \(\boxed{2}\)".
inline bool continuation_possible(std::string_view text, std::size_t w) noexcept {
  if (w >= text.size()) return false;
  const unsigned char c = static_cast<unsigned char>(text[w]);
  if (c == '%' || c == ',' || c >= 0x80) return true;
  return starts_with(text, w, "\\%") || starts_with(text, w, "percent") || starts_with(text, w, "Percent") ||
         starts_with(text, w, "pct") || starts_with(text, w, "Pct") || starts_with(text, w, "and") ||
         starts_with(text, w, "or");
}

}  // namespace detail

BoxedWinner boxed_winner(std::string_view text) noexcept {
  using detail::is_python_space;
  using detail::kNpos;
  BoxedWinner out;
  const std::size_t n = text.size();
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };

  const std::size_t first_boxed = text.find("\\boxed{");
  if (first_boxed == kNpos) return out;  // neither A nor B can match without "\boxed{"
  const std::size_t last_brace = text.rfind('}');
  const bool has_plain = last_brace != kNpos && last_brace >= first_boxed + 8;

  auto boxed =
      detail::make_finder(text, [](std::string_view t, std::size_t p) { return t.compare(p, 7, "\\boxed{") == 0; });
  auto brace = detail::make_finder(text, [](std::string_view t, std::size_t p) { return t[p] == '}'; });
  auto double_dollar = detail::make_finder(
      text, [](std::string_view t, std::size_t p) { return t[p] == '$' && p + 1 < t.size() && t[p + 1] == '$'; });
  auto close_bracket = detail::make_finder(
      text, [](std::string_view t, std::size_t p) { return t[p] == '\\' && p + 1 < t.size() && t[p + 1] == ']'; });
  auto close_paren = detail::make_finder(
      text, [](std::string_view t, std::size_t p) { return t[p] == '\\' && p + 1 < t.size() && t[p + 1] == ')'; });
  auto newline = detail::make_finder(text, [](std::string_view t, std::size_t p) { return t[p] == '\n'; });
  auto bare_dollar = detail::make_finder(
      text, [](std::string_view t, std::size_t p) { return t[p] == '$' && (p == 0 || t[p - 1] != '\\'); });
  auto bracket_stop = detail::make_finder(
      text, [](std::string_view t, std::size_t p) { return t[p] == '\n' || t[p] == '[' || t[p] == ']'; });
  // Does the content [a, q) hold "\boxed{", then at least one character, then "}"? The earliest
  // "\boxed{" is the most permissive choice, so it decides.
  const auto holds_boxed = [&](std::size_t a, std::size_t q) {
    const std::size_t i = boxed.query(a);
    if (i == kNpos || i >= q) return false;
    const std::size_t j = brace.query(i + 8);
    return j != kNpos && j < q;
  };

  bool have_env = false;
  std::size_t env_start = 0, env_end = 0, content_begin = 0, content_end = 0;
  std::size_t s = 0;
  while (s < n) {
    const unsigned char c = at(s);
    const bool after_backslash = s > 0 && at(s - 1) == '\\';
    std::size_t close = kNpos;  // end of the environment, when one matches at s
    std::size_t cb = 0, ce = 0;
    if (c == '$') {
      if (s + 1 < n && at(s + 1) == '$' && !after_backslash) {  // $$...$$
        const std::size_t q = double_dollar.query(s + 2);
        if (q != kNpos && at(q - 1) != '\\' && holds_boxed(s + 1, q)) {
          cb = s + 2, ce = q, close = q + 2;
        }
      }
      if (close == kNpos && !after_backslash && !(s > 0 && detail::is_ascii_digit(at(s - 1)))) {
        const std::size_t q = bare_dollar.query(s + 1);  // $...$
        if (q != kNpos) {
          const std::size_t nl = newline.query(s + 1);
          if ((nl == kNpos || nl > q) && holds_boxed(s + 1, q)) {
            if (s > 0 && at(s - 1) >= 0x80) {  // a Unicode digit would forbid the match
              out.status = BoxedStatus::kUnknown;
              return out;
            }
            cb = s + 1, ce = q, close = q + 1;
          }
        }
      }
    } else if (c == '\\' && s + 1 < n && !after_backslash && at(s + 1) == '[') {  // \[...\]
      const std::size_t q = close_bracket.query(s + 2);
      if (q != kNpos && at(q - 1) != '\\' && holds_boxed(s + 1, q)) cb = s + 2, ce = q, close = q + 2;
    } else if (c == '\\' && s + 1 < n && !after_backslash && at(s + 1) == '(') {  // \(...\)
      const std::size_t q = close_paren.query(s + 2);
      if (q != kNpos) {
        const std::size_t nl = newline.query(s + 2);
        if ((nl == kNpos || nl > q) && at(q - 1) != '\\' && holds_boxed(s + 1, q)) {
          cb = s + 2, ce = q, close = q + 2;
        }
      }
    } else if ((is_python_space(c) || c >= 0x80) && s + 1 < n && at(s + 1) == '[') {  // \s[...]\s
      const std::size_t k = bracket_stop.query(s + 2);
      if (k != kNpos && at(k) == ']' && k + 1 < n && holds_boxed(s + 1, k)) {
        const unsigned char after = at(k + 1);
        if (is_python_space(c) && is_python_space(after)) {
          cb = s + 2, ce = k, close = k + 2;
        } else if (after >= 0x80 || (c >= 0x80 && is_python_space(after))) {
          out.status = BoxedStatus::kUnknown;  // depends on Unicode whitespace
          return out;
        }
      }
    }
    if (close == kNpos) {
      ++s;
      continue;
    }
    std::size_t w = close;  // the optional groups' leading \s* always consume the whitespace
    while (w < n && is_python_space(at(w))) ++w;
    if (detail::continuation_possible(text, w)) {
      out.status = BoxedStatus::kUnknown;
      return out;
    }
    have_env = true;
    env_start = s, env_end = w, content_begin = cb, content_end = ce;
    s = w;  // re.finditer resumes at the end of the match
  }

  if (!have_env && !has_plain) return out;
  out.status = BoxedStatus::kFound;
  // Sorted by (end, -start), rightmost end first; A before B on a full tie (cannot happen:
  // A starts at a delimiter, B at "\boxed").
  const std::size_t plain_end = has_plain ? last_brace + 1 : 0;
  if (has_plain && (!have_env || plain_end > env_end || (plain_end == env_end && first_boxed < env_start))) {
    out.plain = true;
    out.begin = out.match_start = first_boxed;
    out.end = out.match_end = plain_end;
  } else {
    out.begin = content_begin;
    out.end = content_end;
    out.match_start = env_start;
    out.match_end = env_end;
  }
  return out;
}

// -- last_number ---------------------------------------------------------------------------------
// math-verify 0.9.0's ExprExtractionConfig number pattern (priority 300), in re.finditer order:
//   (?:^|\s|\=)(?:\*\*)?[currency]?(?<!\d)(?:
//     (?P<integer1>-?[1-9]\d{0,2}(?:[ ,]\d{3})+)(?P<decimal1>\.\d+)?|
//     (?P<integer2>-?\d+)(?P<decimal2>[.,]\d+)|(?P<decimal3>\.\d+)|(?P<integer3>-?\d+)
//   )(?P<percent>\s*(?:%|[Pp]ercent|\s*[Pp]ercentage|\s*[Pp]ct))?
// Every quantifier after the prefix is followed only by optional parts, or by a class its own
// characters cannot match, so backtracking never changes the greedy outcome: digit runs are taken
// whole, integer1 needs a run of 1-3 digits then at least one "[ ,]ddd" group (taken greedily; a
// fourth digit may follow a group), and the percent group matches iff a percent token follows the
// whitespace. The lookbehind (?<!\d) always holds: the prefix characters are not digits. The only
// ASCII currency sign is '$'; the others are not ASCII, excluded by the caller (non_ascii_inert).
namespace detail {

inline bool is_expr_char(unsigned char c) noexcept {  // [\d\.\s+\-*/^()] of the X pattern, ASCII
  return is_ascii_digit(c) || c == '.' || is_python_space(c) || c == '+' || c == '-' || c == '*' || c == '/' ||
         c == '^' || c == '(' || c == ')';
}

inline bool is_operator(unsigned char c) noexcept {
  return c == '+' || c == '-' || c == '*' || c == '/' || c == '^' || c == '(' || c == ')';
}

inline std::size_t digits_from(std::string_view t, std::size_t i) noexcept {
  std::size_t j = i;
  while (j < t.size() && is_ascii_digit(static_cast<unsigned char>(t[j]))) ++j;
  return j;
}

// One N match: where its groups are. `int_*`/`dec_*` are empty when the group did not take part.
struct NumberMatch {
  std::size_t start = 0, end = 0;
  std::size_t int_begin = 0, int_end = 0, dec_begin = 0, dec_end = 0;
  bool percent = false;
};

// The number alternatives and the percent group at r; false when no alternative matches.
inline bool number_at(std::string_view t, std::size_t r, NumberMatch& m) noexcept {
  const std::size_t n = t.size();
  const auto at = [&](std::size_t i) { return i < n ? static_cast<unsigned char>(t[i]) : 0U; };
  m = NumberMatch{};
  const std::size_t sign = at(r) == '-' ? r + 1 : r;
  std::size_t end = kNpos;
  // integer1 decimal1?
  if (at(sign) >= '1' && at(sign) <= '9') {
    const std::size_t run = digits_from(t, sign);
    std::size_t j = run;
    if (run - sign <= 3) {
      while ((at(j) == ' ' || at(j) == ',') && is_ascii_digit(at(j + 1)) && is_ascii_digit(at(j + 2)) &&
             is_ascii_digit(at(j + 3))) {
        j += 4;
      }
    }
    if (j > run) {
      m.int_begin = r, m.int_end = j;
      end = j;
      if (at(j) == '.' && is_ascii_digit(at(j + 1))) {
        end = digits_from(t, j + 1);
        m.dec_begin = j, m.dec_end = end;
      }
    }
  }
  // integer2 decimal2
  if (end == kNpos && is_ascii_digit(at(sign))) {
    const std::size_t run = digits_from(t, sign);
    if ((at(run) == '.' || at(run) == ',') && is_ascii_digit(at(run + 1))) {
      end = digits_from(t, run + 1);
      m.int_begin = r, m.int_end = run, m.dec_begin = run, m.dec_end = end;
    }
  }
  // decimal3
  if (end == kNpos && at(r) == '.' && is_ascii_digit(at(r + 1))) {
    end = digits_from(t, r + 1);
    m.int_begin = m.int_end = r, m.dec_begin = r, m.dec_end = end;
  }
  // integer3
  if (end == kNpos && is_ascii_digit(at(sign))) {
    end = digits_from(t, sign);
    m.int_begin = r, m.int_end = end, m.dec_begin = m.dec_end = end;
  }
  if (end == kNpos) return false;
  // (?P<percent>\s*(?:%|[Pp]ercent|\s*[Pp]ercentage|\s*[Pp]ct))?  ("percentage" never gets past
  // the "percent" alternative, which is tried first)
  std::size_t w = end;
  while (w < n && is_python_space(at(w))) ++w;
  m.percent = true;
  if (at(w) == '%') {
    end = w + 1;
  } else if (starts_with(t, w, "percent") || starts_with(t, w, "Percent")) {
    end = w + 7;
  } else if (starts_with(t, w, "pct") || starts_with(t, w, "Pct")) {
    end = w + 3;
  } else {
    m.percent = false;
  }
  m.end = end;
  return true;
}

// The N match at s, if any (re's search tries the prefix, the "**" and the currency sign in
// order, each with its longer choice first).
inline bool match_number_at(std::string_view t, std::size_t s, NumberMatch& m) noexcept {
  const std::size_t n = t.size();
  std::size_t prefixes[2];
  std::size_t count = 0;
  if (s == 0) prefixes[count++] = 0;  // ^
  if (s < n && (is_python_space(static_cast<unsigned char>(t[s])) || t[s] == '=')) prefixes[count++] = s + 1;
  for (std::size_t p = 0; p < count; ++p) {
    const std::size_t q0 = prefixes[p];
    const bool stars = starts_with(t, q0, "**");
    for (int with_stars = stars ? 1 : 0; with_stars >= 0; --with_stars) {
      const std::size_t q = q0 + (with_stars != 0 ? 2 : 0);
      const bool dollar = q < n && t[q] == '$';
      for (int with_dollar = dollar ? 1 : 0; with_dollar >= 0; --with_dollar) {
        if (number_at(t, q + static_cast<std::size_t>(with_dollar), m)) {
          m.start = s;
          return true;
        }
      }
    }
  }
  return false;
}

// Where the lowercase `word` first occurs in `t`, ASCII case-insensitively, and in `count` how
// many times it occurs.
inline std::size_t find_folded(std::string_view t, std::string_view word, std::size_t& count) noexcept {
  std::size_t first = kNpos;
  count = 0;
  for (std::size_t i = 0; i + word.size() <= t.size(); ++i) {
    std::size_t k = 0;
    while (k < word.size()) {
      unsigned char c = static_cast<unsigned char>(t[i + k]);
      if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
      if (c != static_cast<unsigned char>(word[k])) break;
      ++k;
    }
    if (k == word.size()) {
      if (first == kNpos) first = i;
      ++count;
    }
  }
  return first;
}

// The text's only "answer" is at `a`, not after "final ", and what follows it is words and
// spaces, then a number, then nothing but whitespace and full stops: e.g. "The answer is: 18".
// Then the priority groups 0-100 are empty (they need "final answer" or "answer:"), and group 200
// holds one match: the expression pattern
//   (?i:answer)(?:.{0,100}=\s*|.{0,50}?)(?:EXPR|N)(?!\s*=)
// whose first branch needs a "=" (absent), whose lazy branch stops at the first anchored number
// (the words hold no digits, so EXPR cannot start before it, and no operator follows its first
// digit, so EXPR fails there too), while the LaTeX one, (?i:answer).{0,50}?ENVS, finds no
// delimiter. The number match is stored in `m`.
inline bool answer_is_number(std::string_view t, std::size_t a, NumberMatch& m) noexcept {
  const std::size_t n = t.size();
  if (a >= 6) {
    std::size_t count = 0;
    if (find_folded(t.substr(a - 6, 6), "final ", count) == 0) return false;
  }
  const std::size_t p = a + 6;
  if (p < n && t[p] == ':') return false;  // "answer:" (group 100)
  std::size_t q = p;                       // the words: [A-Za-z :], at most 40 bytes
  while (q < n && q - p <= 40 && (is_letter(t[q]) || t[q] == ' ' || t[q] == ':')) ++q;
  if (q == p || q >= n || q - p > 40 || t[q - 1] != ' ') return false;
  if (!(is_ascii_digit(static_cast<unsigned char>(t[q])) ||
        (t[q] == '-' && q + 1 < n && is_ascii_digit(static_cast<unsigned char>(t[q + 1]))))) {
    return false;
  }
  if (!match_number_at(t, q - 1, m) || m.start != q - 1 || m.percent) return false;
  for (std::size_t i = m.end; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(t[i]);
    if (!(is_python_space(c) || c == '.')) return false;
  }
  for (std::size_t i = q + 1; i < m.end; ++i) {  // no operator after the first digit
    if (is_operator(static_cast<unsigned char>(t[i]))) return false;
  }
  return true;
}

}  // namespace detail

LastNumber last_number(std::string_view text, bool non_ascii_inert) noexcept {
  using detail::is_python_space;
  using detail::kNpos;
  LastNumber out;
  const std::size_t n = text.size();
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  out.status = BoxedStatus::kUnknown;
  if (!non_ascii_inert) {
    for (std::size_t i = 0; i < n; ++i) {
      if (at(i) >= 0x80) return out;
    }
  }
  // Groups 0-200 need "final answer", "\boxed{" or "answer".
  if (text.find("\\boxed{") != kNpos) return out;
  std::size_t answers = 0;
  const std::size_t answer_at = detail::find_folded(text, "answer", answers);
  detail::NumberMatch last, m;
  bool found = false;
  if (answers == 1 && detail::answer_is_number(text, answer_at, last)) {
    found = true;
  } else if (answers != 0) {
    return out;
  }

  // Otherwise the last N match, as re.finditer finds it (resuming at the end of each match).
  for (std::size_t s = 0; s < n && answers == 0;) {
    if (detail::match_number_at(text, s, m)) {
      last = m;
      found = true;
      s = m.end;  // never empty: a number has a digit
    } else {
      ++s;
    }
  }
  if (!found) {
    out.status = BoxedStatus::kNone;
    return out;
  }

  // Upper bound of the L ends: after the last closing delimiter, whitespace and a percent word.
  std::size_t latex_bound = 0;
  std::size_t d = kNpos;
  for (std::size_t i = n; i-- > 0;) {
    const unsigned char c = at(i);
    if (c == '$' || c == ']' || c == ')' || c == '}') {
      d = i;
      break;
    }
  }
  if (d != kNpos) {
    std::size_t e = d + 1;
    while (e < n && is_python_space(at(e))) ++e;
    if (detail::starts_with(text, e, "\\%")) {
      e += 2;
    } else if (e < n && at(e) == '%') {
      e += 1;
    } else if (detail::starts_with(text, e, "percent") || detail::starts_with(text, e, "Percent")) {
      e += detail::starts_with(text, e + 7, "age") ? 10 : 7;  // "percentage": never taken, but bound
    } else if (detail::starts_with(text, e, "pct") || detail::starts_with(text, e, "Pct")) {
      e += 3;
    }
    latex_bound = e;
  }
  // Upper bound of the X ends: X's expression is a run of expression characters with a digit,
  // then an operator; so an X match ends at most one character after the last such run (e.g.
  // " -20" is not one: its operator precedes the digits).
  std::size_t expr_bound = 0;
  for (std::size_t i = n; i > 0 && expr_bound == 0;) {
    if (!detail::is_expr_char(at(i - 1))) {
      --i;
      continue;
    }
    const std::size_t run_end = i;
    std::size_t b = i;
    while (b > 0 && detail::is_expr_char(at(b - 1))) --b;
    bool digit = false;
    for (std::size_t k = b; k < run_end; ++k) {
      if (detail::is_ascii_digit(at(k))) {
        digit = true;
      } else if (digit && detail::is_operator(at(k))) {
        expr_bound = run_end + 1;
        break;
      }
    }
    i = b;
  }
  if (answers == 0 && (last.end <= latex_bound || last.end <= expr_bound)) return out;

  // math-verify's number string: separators removed, leading zeros stripped, "," made ".".
  std::array<char, 64> buf{};
  std::size_t size = 0;
  bool stripping = true;
  for (std::size_t i = last.int_begin; i < last.int_end; ++i) {
    const char c = text[i];
    if (c == ',' || c == ' ') continue;
    if (stripping && c == '0') continue;
    stripping = false;
    if (size >= kMaxNumberChars) return out;
    buf[size++] = c;
  }
  if (size == 0) buf[size++] = '0';
  for (std::size_t i = last.dec_begin; i < last.dec_end; ++i) {
    if (size >= kMaxNumberChars) return out;
    buf[size++] = text[i] == ',' ? '.' : text[i];
  }
  out.status = BoxedStatus::kFound;
  out.number = buf;
  out.number_size = size;
  out.percent = last.percent;
  out.match_start = last.start;
  out.match_end = last.end;
  return out;
}

}  // namespace rapidgrade::mvcompat
