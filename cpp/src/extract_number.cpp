// The last-number rule of extraction (the last number of a text, found from the end, with its
// sign, widened to what it belongs to) and the numbers of a final sentence, which the grader
// reads as a list; split from extract_math.cpp, which reads the math spans.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "extract_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::extract {

using namespace internal;
using detail::digits_end;
using detail::ends_with;
using detail::find_digit_or;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;
using detail::starts_with;

namespace {

// ---------------------------------------------------------------------------------------------
// last_number

bool sign_context(char c) noexcept {
  return is_space(c) || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' || c == ';' || c == '$';
}

// Commands after which a '-' is a sign: operators and relations ("\times - 2", "\le -3").
bool operator_command(std::string_view name) noexcept {
  for (const std::string_view op : {"times", "cdot", "div", "pm", "mp", "le", "leq", "ge", "geq", "neq", "ne", "to",
                                    "Rightarrow", "implies", "therefore", "because", "left", "lt", "gt"}) {
    if (op == name) return true;
  }
  // "\approx -2", "\quad -2" (latex_vocab.hpp)
  return detail::is_approximation_command(name) || detail::is_wide_spacing(name);
}

// True when a '-' at p, written apart from its number ("= - 2", "is - 5"), is a sign: what
// precedes it (blanks skipped) is the region start, a line break, one of ( [ { = , : ; $, a
// word of two or more letters, or an operator command. "3 - 5", "x - 5", "\pi - 5" stay
// subtractions.
bool spaced_sign(std::string_view s, std::size_t from, std::size_t p) noexcept {
  std::size_t q = p;
  while (q > from && is_blank(s[q - 1])) --q;
  if (q == from) return true;
  const char c = s[q - 1];
  if (c == '\n' || c == '\r' || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' || c == ';' ||
      c == '$') {
    return true;
  }
  if (!is_letter(c)) return false;
  std::size_t w = q;
  while (w > from && is_letter(s[w - 1])) --w;
  if (w > from && s[w - 1] == '\\') return operator_command(s.substr(w, q - w));
  return q - w >= 2;
}

}  // namespace

namespace internal {

// Start of the number at i including a '-' or U+2212 sign before it: right before it when that
// sign follows the region start, whitespace or one of ( [ { = , : ; $ (so "3-5" is 3 and 5,
// while "x = -5" is -5), or apart from it by blanks when spaced_sign says so ("= - 2" is -2).
std::size_t with_sign(std::string_view s, std::size_t from, std::size_t i) noexcept {
  std::size_t q = i;
  while (q > from && is_blank(s[q - 1])) --q;
  const bool apart = q != i;
  std::size_t p = i;
  if (q >= from + 1 && s[q - 1] == '-') {
    p = q - 1;
  } else if (q >= from + 3 && s.compare(q - 3, 3, kUnicodeMinus) == 0) {
    p = q - 3;
  } else {
    return i;
  }
  if (apart) return spaced_sign(s, from, p) ? p : i;
  if (p == from || sign_context(s[p - 1])) return p;
  return i;
}

// End of the number starting at i (a digit, or '.' followed by a digit).
// Grammar: 1,234,567 (groups of exactly three digits after a first run of one to three),
// decimals 3.25 and .5, exponents 1.5e-3, integer fractions 3/4.
std::size_t number_end(std::string_view s, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t k = i;
  bool plain = true;
  if (s[k] == '.') {
    k = digits_end(s, k + 1);
    plain = false;
  } else {
    k = digits_end(s, k);
    const std::size_t groups_end =
        rapidgrade::detail::thousands_end(s, i, k, rapidgrade::detail::GroupSeparators::kComma);
    if (groups_end != k) plain = false;
    k = groups_end;
    if (k + 1 < n && s[k] == '.' && is_digit(s[k + 1])) {
      k = digits_end(s, k + 1);
      plain = false;
    }
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    std::size_t m = k + 1;
    if (m < n && (s[m] == '+' || s[m] == '-')) ++m;
    if (m < n && is_digit(s[m])) {
      k = digits_end(s, m);
      plain = false;
    }
  }
  if (plain && k + 1 < n && s[k] == '/' && is_digit(s[k + 1])) k = digits_end(s, k + 1);
  return k;
}

}  // namespace internal

namespace {

// "{3}{4}" or "{-3}{4}" right after \frac, or two single digits "12" (\dfrac12 is 1/2): the
// end of the arguments, or kNpos.
std::size_t numeric_frac_end(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  if (j + 1 < n && is_digit(s[j]) && is_digit(s[j + 1])) return j + 2;
  if (j >= n || s[j] != '{') return kNpos;
  std::size_t k = j + 1;
  if (k < n && s[k] == '-') ++k;
  std::size_t d = digits_end(s, k);
  if (d == k || d + 1 >= n || s[d] != '}' || s[d + 1] != '{') return kNpos;
  k = d + 2;
  d = digits_end(s, k);
  if (d == k || d >= n || s[d] != '}') return kNpos;
  return d + 1;
}

// Calls visit(range) for each number, in order, that the forward scan of s from `from` reads
// among the tokens starting in [begin, stop), where begin is `from` or a token boundary (see
// token_boundary_before) and stop is s.size() or such a boundary: the scan reads commands,
// escapes, \frac{3}{4} and numbers as tokens, and a number never runs past such a boundary.
// visit returns false to stop the scan.
template <class Visit>
void scan_numbers(std::string_view s, std::size_t from, std::size_t begin, std::size_t stop, Visit&& visit) {
  const std::size_t n = s.size();
  std::size_t i = begin;
  while (i < stop) {
    i = find_digit_or(s, i, stop, '.', '\\');
    if (i >= stop) break;
    const char c = s[i];
    if (c == '\\') {
      if (i + 1 < n && is_letter(s[i + 1])) {
        std::size_t j = i + 1;
        while (j < n && is_letter(s[j])) ++j;
        const std::string_view name = s.substr(i + 1, j - i - 1);
        if (detail::is_fraction_command(name)) {
          const std::size_t end = numeric_frac_end(s, j);
          if (end != kNpos) {
            if (!visit(Range{with_sign(s, from, i), end})) return;
            i = end;
            continue;
          }
        }
        i = j;
      } else {
        i += 2;
      }
      continue;
    }
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]) && (i == from || !is_digit(s[i - 1])))) {
      const std::size_t end = number_end(s, i);
      if (!visit(Range{with_sign(s, from, i), end})) return;
      i = end;
      continue;
    }
    ++i;
  }
}

// Whether the number s[r) labels a part of a solution: digits after a word of
// detail::kStepLabels and blanks ("Step 5: print(x)", "## Case 2: n is odd", "no solution in
// Case 3.", "see Figure 2").
bool step_label(std::string_view s, std::size_t from, Range r) noexcept {
  if (r.start == from || !is_blank(s[r.start - 1])) return false;
  for (std::size_t k = r.start; k < r.end; ++k) {
    if (!is_digit(s[k])) return false;
  }
  return follows_step_label(s, from, r.start);
}

// Whether the number s[r) lies inside a markup tag (markup_tag_end: "<img_4019>", a dump's image
// placeholder): the '<' that opens it is before r with only tag bytes between, and the tag ends
// after r.
bool in_markup_tag(std::string_view s, std::size_t from, Range r) noexcept {
  std::size_t k = r.start;
  while (k > from && r.start - k < kMaxMarkupTag && s[k - 1] != '<' && s[k - 1] != '>' && !is_space(s[k - 1])) --k;
  if (k == from || s[k - 1] != '<') return false;
  const std::size_t end = markup_tag_end(s, k - 1, s.size());
  return end != kNpos && end > r.end;
}

// The last number that scan_numbers reads among the tokens starting in [begin, stop), a label of
// a step and the digits of a markup tag passed over (step_label, in_markup_tag).
std::optional<Range> last_number_in(std::string_view s, std::size_t from, std::size_t begin, std::size_t stop) {
  std::optional<Range> best;
  scan_numbers(s, from, begin, stop, [&](Range r) {
    if (!step_label(s, from, r) && !in_markup_tag(s, from, r)) best = r;
    return true;
  });
  return best;
}

// A position in [from, at] where the forward scan of last_number_in from `from` is inside no
// number: a whitespace byte, or `from`. No number holds whitespace (numbers are digits and
// , . / e, \frac's arguments digits and braces), and whitespace starts no token, so a scan
// started there reads the same numbers after it as the scan from `from`. (An escape "\ " is the
// one token holding whitespace; both scans go on right after it.)
std::size_t token_boundary_before(std::string_view s, std::size_t from, std::size_t at) noexcept {
  for (std::size_t b = at; b > from; --b) {
    if (is_space(s[b])) return b;
  }
  return from;
}

// Bytes of text scanned at a time by find_last_number, from the end backwards.
constexpr std::size_t kLastNumberChunk = 64;

}  // namespace

namespace internal {

// The last number of s from `from`, as a forward scan of the whole region reads it, found from
// the end: the region is cut at token boundaries into chunks of about kLastNumberChunk bytes,
// and the chunks are scanned from the last until one holds a number. A number near the end is
// found without reading the text before it; a byte is read at most twice (by the search for a
// cut, then by the scan of its chunk), so a text with no number costs O(n).
std::optional<Extraction> find_last_number(std::string_view s, std::size_t from) {
  std::size_t stop = s.size();
  while (stop > from) {
    const std::size_t begin =
        stop - from > kLastNumberChunk ? token_boundary_before(s, from, stop - kLastNumberChunk) : from;
    if (const std::optional<Range> best = last_number_in(s, from, begin, stop)) {
      Extraction e;
      e.method = Method::kLastNumber;
      e.start = best->start;
      e.end = best->end;
      return e;
    }
    stop = begin;
  }
  return std::nullopt;
}

// Spaced bold digits, a competition write-up convention: "**6 2 4 8**", "\mathbf{1 7}" and
// "\textbf{1 7}" are one number. When the last number [e.start, e.end) is a digit run inside
// such a group of digit runs apart by single spaces, closed by the bold markup on both sides,
// the answer becomes the whole group (normalization then reads "6 2 4 8" as 6248).
void widen_bold_digits(std::string_view s, std::size_t from, Extraction& e) noexcept {
  const std::size_t n = s.size();
  for (std::size_t k = e.start; k < e.end; ++k) {
    if (!is_digit(s[k])) return;
  }
  std::size_t lo = e.start, hi = e.end;
  while (lo >= from + 2 && s[lo - 1] == ' ' && is_digit(s[lo - 2])) {
    lo -= 2;
    while (lo > from && is_digit(s[lo - 1])) --lo;
  }
  while (hi + 1 < n && s[hi] == ' ' && is_digit(s[hi + 1])) hi = digits_end(s, hi + 1);
  if (lo == e.start && hi == e.end) return;
  const std::string_view before = s.substr(from, lo - from);
  bool closed = false;
  if (ends_with(before, "**")) {
    closed = starts_with(s, hi, "**");
  } else if (ends_with(before, "{")) {
    const std::string_view head = before.substr(0, before.size() - 1);
    std::size_t name = head.size();
    while (name > 0 && is_letter(head[name - 1])) --name;
    closed = name > 0 && head[name - 1] == '\\' && detail::is_bold_command(head.substr(name)) && hi < n && s[hi] == '}';
  }
  if (!closed) return;
  e.start = lo;
  e.end = hi;
}

// Bytes of a parenthesized list (or of a function's name) that widen_number_object reads.
constexpr std::size_t kMaxNumberGroup = 64;
constexpr std::size_t kMaxFunctionName = 16;

void widen_number_object(std::string_view s, std::size_t from, Extraction& e) noexcept {
  const std::size_t n = s.size();
  // the last term of a ratio or a time: "3:1", "1:2:3", "4:30"
  std::size_t a = e.start;
  while (a >= from + 2 && s[a - 1] == ':' && is_digit(s[a - 2])) {
    a -= 2;
    while (a > from && is_digit(s[a - 1])) --a;
  }
  if (a != e.start) {
    e.start = a;
    return;
  }
  // a percentage: "50%", "50\%" (grading reads it as 50 and as 0.5)
  if (const std::size_t pct = percent_sign_end(s, e.end, n); pct != e.end) {
    e.end = pct;
    return;
  }
  // an element of "(1, 2)" or the argument of "f(0)": inside the brackets only numbers
  const auto inside = [](char c) { return is_digit(c) || c == ',' || c == '.' || c == ' ' || c == '-'; };
  std::size_t open = e.start;
  while (open > from && e.start - open < kMaxNumberGroup && inside(s[open - 1])) --open;
  std::size_t close = e.end;
  while (close < n && close - e.end < kMaxNumberGroup && inside(s[close])) ++close;
  if (open == from || s[open - 1] != '(' || close >= n || s[close] != ')') return;
  std::size_t name = open - 1;
  while (name > from && open - 1 - name < kMaxFunctionName && is_letter(s[name - 1])) --name;
  if (name > from && (is_digit(s[name - 1]) || s[name - 1] == '\\' || s[name - 1] == '_')) return;
  // a list: a comma that is no thousands separator ("(12,345)" is one number, "(0,198)" two)
  bool list = false;
  CommaGroups groups(s, open, close);
  for (std::size_t k = open; k < close && !list; ++k) {
    const bool grouped = groups.at(k);  // at every byte: it follows the numbers
    list = s[k] == ',' && !grouped;
  }
  if (!list && name == open - 1) return;
  e.start = name;
  e.end = close + 1;
}

}  // namespace internal

namespace {

// The command whose name ends right before `end` (a run of letters after a backslash), or "".
std::string_view command_before(std::string_view s, std::size_t from, std::size_t end) noexcept {
  std::size_t w = end;
  while (w > from && is_letter(s[w - 1])) --w;
  if (w == end || w == from || s[w - 1] != '\\') return {};
  return s.substr(w, end - w);
}

// Commands that may stand right before or after a value of a list without changing it:
// delimiters ("\left(2, 3\right)") and text ("9\text{ chickens}").
bool neutral_command(std::string_view name) noexcept {
  return name == "left" || name == "right" || name == "bigl" || name == "bigr" || name == "Bigl" || name == "Bigr" ||
         name == "text" || name == "textrm" || name == "mathrm" || name == "mbox" || name == "quad" || name == "qquad";
}

// True when the number s[r) stands alone as a value: it is not a power, an index, a coefficient,
// a function's or a command's argument, a percentage or a factorial ("x^2", "a_1", "2x", "x/2",
// "f(2)", "\sqrt{2}", "10^5", "10\%", "5!"). A sentence holding such a number states no list.
bool plain_value(std::string_view s, std::size_t from, Range r) noexcept {
  const std::size_t n = s.size();
  if (r.start > from) {
    const char c = s[r.start - 1];
    if (is_letter(c)) return false;
    if (c == '^' || c == '_' || c == '/' || c == '*') return false;
    if ((c == '{' || c == '(' || c == '[') && r.start - 1 > from) {
      const char d = s[r.start - 2];
      if (d == '^' || d == '_' || d == '}') return false;
      if (is_letter(d) && !neutral_command(command_before(s, from, r.start - 1))) return false;
    }
  }
  if (r.end < n) {
    const char c = s[r.end];
    if (is_letter(c) || c == '^' || c == '_' || c == '%' || c == '!' || c == '/' || c == '(' || c == '*') return false;
    if (c == '\\' && r.end + 1 < n) {
      if (s[r.end + 1] == '%') return false;
      if (is_letter(s[r.end + 1])) {
        const std::size_t e = detail::letters_end(s, r.end + 1);
        if (!neutral_command(s.substr(r.end + 1, e - r.end - 1))) return false;
      }
    }
  }
  return true;
}

// Where the clause that concludes the sentence s[r) starts: its last word of
// detail::kConclusionLeads after a ',' or a ';' (blanks between), or after an "and" that follows
// one ("Therefore, $19(7)+17(4)=201$, and so Thurka buys 7 goats and 4 helicopters."), outside
// math spans, when a digit follows it in the sentence; r.start otherwise.
std::size_t concluding_clause(std::string_view s, Range r) noexcept {
  std::size_t clause = r.start;
  bool math = false;
  for (std::size_t q = r.start; q < r.end;) {
    const char c = s[q];
    if (c == '$') math = !math;
    if (math || !is_letter(c) || (q > r.start && (is_letter(s[q - 1]) || s[q - 1] == '\\'))) {
      ++q;
      continue;
    }
    const std::size_t w = detail::letters_end(s.substr(0, r.end), q);
    if (word_in(s, q, w, detail::kConclusionLeads)) {
      std::size_t b = q;
      while (b > r.start && is_blank(s[b - 1])) --b;
      if (b >= r.start + 3 && istarts_with(s, b - 3, "and") && (b - 3 == r.start || !is_letter(s[b - 4]))) {
        b -= 3;
        while (b > r.start && is_blank(s[b - 1])) --b;
      }
      if (b > r.start && (s[b - 1] == ',' || s[b - 1] == ';') && find_digit_or(s, w, r.end, '\0', '\0') < r.end) {
        clause = q;
      }
    }
    q = w;
  }
  return clause;
}

}  // namespace

std::vector<Range> final_sentence_numbers(std::string_view text, std::size_t limit) {
  std::vector<Range> out;
  const std::size_t from = search_start(text);
  const std::optional<Extraction> last = find_last_number(text, from);
  if (!last) return out;
  const Range sentence = internal::sentence_at(text, from, last->start);
  const std::size_t j = concluding_clause(text, sentence), k = sentence.end;
  bool plain = true;
  scan_numbers(text, j, j, k, [&](Range r) {
    plain = plain_value(text, j, r);
    if (plain) out.push_back(r);
    return plain && out.size() <= limit;
  });
  if (!plain) out.clear();
  return out;
}

namespace internal {

std::vector<Range> sentence_numbers_before(std::string_view s, std::size_t from, std::size_t at) {
  std::vector<Range> out;
  const Range sentence = sentence_at(s, from, at);
  scan_numbers(s, sentence.start, sentence.start, at, [&](Range r) {
    if (r.end <= at && plain_value(s, sentence.start, r)) out.push_back(r);
    return true;
  });
  std::reverse(out.begin(), out.end());
  if (out.size() > kMaxSentenceReadings) out.resize(kMaxSentenceReadings);
  return out;
}

}  // namespace internal

bool follows_step_label(std::string_view s, std::size_t from, std::size_t at) noexcept {
  std::size_t w = at;
  while (w > from && is_blank(s[w - 1])) --w;
  if (w == at) return false;
  std::size_t b = w;
  while (b > from && is_letter(s[b - 1])) --b;
  if (b > from && s[b - 1] == '\\') return false;  // a command
  return word_in(s, b, w, detail::kStepLabels);
}

}  // namespace rapidgrade::extract
