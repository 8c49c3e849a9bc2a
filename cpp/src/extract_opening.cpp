// Statements of the answer in prose (extract.hpp, stated_answer): "The required maximum is
// $2n-2$." opening an answer-first write-up (opening_statement), before the proof whose last math
// is a step, not the answer; "Thus the least possible measure is $65^{\circ}$, and ..." or "thus
// 79 is the largest such integer" closing one.
#include <algorithm>
#include <optional>
#include <string_view>

#include "extract_internal.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/number_words.hpp"

namespace rapidgrade::extract {

using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using internal::letters_end_in;
using internal::trim;
using internal::word_in;

namespace {

// Longest opening sentence read, in bytes: a statement of the answer is short.
constexpr std::size_t kMaxOpeningBytes = 400;

// Whether s[b, e) is a function's value at numbers stated as a number: a name of letters, its
// arguments in parentheses of digits, commas, signs and blanks, '=' and a right side with no
// other '=' and no letter outside a command ("E(7,3)=3", "T(12) = -1.5", "p(2)=\frac{3}{4}").
bool value_at_numbers(std::string_view s, std::size_t b, std::size_t e) noexcept {
  while (b < e && is_space(s[b])) ++b;
  std::size_t k = letters_end_in(s, b, e);
  if (k == b || k >= e || s[k] != '(') return false;
  bool digit = false;
  for (++k; k < e && s[k] != ')'; ++k) {
    const char c = s[k];
    digit = digit || is_digit(c);
    if (!is_digit(c) && c != ',' && c != '-' && c != '+' && !is_space(c)) return false;
  }
  if (!digit || k >= e) return false;
  ++k;
  while (k < e && is_space(s[k])) ++k;
  if (k >= e || s[k] != '=') return false;
  bool value = false;
  for (++k; k < e; ++k) {
    const char c = s[k];
    if (c == '\\') {  // a command ("\frac{3}{4}"): its letters name no unknown
      k = std::max(k, letters_end_in(s, k + 1, e) - 1);
      continue;
    }
    if (c == '=' || is_letter(c)) return false;
    value = value || is_digit(c);
  }
  return value;
}

// The end of the math span that opens at s[q] ('$'), past its closing '$', or kNpos when it does
// not close before `end`.
std::size_t span_end(std::string_view s, std::size_t q, std::size_t end) noexcept {
  std::size_t close = q + 1;
  while (close < end && s[close] != '$') ++close;
  return close < end ? close + 1 : detail::kNpos;
}

// The next word of s[q, end) outside math spans ($...$) and command names: its start, with its
// end in `w`; `end` or past it when there is none, kNpos when a span opens and does not close.
std::size_t next_word(std::string_view s, std::size_t q, std::size_t end, std::size_t& w) noexcept {
  while (q < end) {
    const char c = s[q];
    if (c == '$') {
      q = span_end(s, q, end);
      if (q == detail::kNpos) return detail::kNpos;
    } else if (c == '\\') {  // a command, or an escaped character
      const std::size_t e = letters_end_in(s, q + 1, end);
      q = e > q + 1 ? e : q + 2;
    } else if (!is_letter(c)) {
      ++q;
    } else {
      w = letters_end_in(s, q, end);
      return q;
    }
  }
  return q;
}

// The end of the verb of a statement that the word s[q, w) opens: the word itself for one of
// kOpeningVerbs, the "be" after one of kStatementModals ("will be", "must be"); kNpos otherwise.
std::size_t verb_end(std::string_view s, std::size_t q, std::size_t w, std::size_t end) noexcept {
  if (word_in(s, q, w, detail::kOpeningVerbs)) return w;
  if (!word_in(s, q, w, detail::kStatementModals)) return detail::kNpos;
  std::size_t b = w;
  while (b < end && is_space(s[b])) ++b;
  const std::size_t e = letters_end_in(s, b, end);
  return e == b + 2 && istarts_with(s, b, "be") ? e : detail::kNpos;
}

// Whether a clause may open at s[k] inside the sentence that starts at `from`: nothing but blanks
// and commas before it, or a word of kClauseOpeners ("thus", "that", ...) or a lead of
// kOpeningLeads ("we claim") right before it.
bool clause_start(std::string_view s, std::size_t from, std::size_t k) noexcept {
  while (k > from && (is_space(s[k - 1]) || s[k - 1] == ',')) --k;
  if (k == from) return true;
  std::size_t b = k;
  while (b > from && is_letter(s[b - 1])) --b;
  if (b == k || (b > from && s[b - 1] == '\\')) return false;
  if (word_in(s, b, k, detail::kClauseOpeners)) return true;
  for (const std::string_view lead : detail::kOpeningLeads) {
    if (k - from >= lead.size() && istarts_with(s, k - lead.size(), lead) &&
        (k - lead.size() == from || !is_letter(s[k - lead.size() - 1]))) {
      return true;
    }
  }
  return false;
}

// Whether s[from, to) holds a word of kExtremumWords outside math spans and commands.
bool extremum_before(std::string_view s, std::size_t from, std::size_t to) noexcept {
  bool math = false;
  for (std::size_t q = from; q < to;) {
    if (s[q] == '$') math = !math;
    if (math || !is_letter(s[q]) || (q > from && (is_letter(s[q - 1]) || s[q - 1] == '\\'))) {
      ++q;
      continue;
    }
    const std::size_t w = letters_end_in(s, q, to);
    if (word_in(s, q, w, detail::kExtremumWords)) return true;
    q = w;
  }
  return false;
}

// "the <subject> <verb> <answer>" at s[k] (the word "the"), within s[.., end): the subject, to
// the first verb, holds a word of kExtremumWords outside math; the answer is what
// read_answer_phrase reads after the verb, when it reads math cleanly.
std::optional<Range> subject_statement(std::string_view s, std::size_t k, std::size_t end) noexcept {
  bool extremum = false;
  for (std::size_t q = k + 3, w = 0; (q = next_word(s, q, end, w)) < end; q = w) {
    if (const std::size_t v = verb_end(s, q, w, end); v != detail::kNpos) {
      // the first verb ends the subject: "The value is the least ..." has no extremum in it
      if (!extremum) return std::nullopt;
      const Phrase p = read_answer_phrase(s, Range{v, end});
      if (p.clean && !p.leading_prose && p.answer.end > p.answer.start) return p.answer;
      // a number in words that is all the rest of the sentence: "... satisfying the given
      // condition is one."
      Range rest = trim(s, Range{v, end});
      while (rest.end > rest.start && s[rest.end - 1] == '.') --rest.end;
      if (rest.end > rest.start && detail::read_number_words(s.substr(rest.start, rest.end - rest.start))) {
        return rest;
      }
      return std::nullopt;
    }
    extremum = extremum || word_in(s, q, w, detail::kExtremumWords);
  }
  return std::nullopt;
}

// Values a stated list holds at most ("-2, 0 and 2 are the only good numbers").
constexpr std::size_t kMaxStatedValues = 16;

// One value that ends at s[e): a math span ($...$), whose content is the value, or a number
// ("79", "-2"); empty when none. [outer_start, outer_end) holds its delimiters.
struct StatedValue {
  Range value;
  std::size_t outer_start = 0, outer_end = 0;
};
StatedValue value_before(std::string_view s, std::size_t from, std::size_t e) noexcept {
  if (e > from + 1 && s[e - 1] == '$') {
    std::size_t b = e - 1;
    while (b > from && s[b - 1] != '$') --b;
    if (b == from) return {};
    return StatedValue{trim(s, Range{b, e - 1}), b - 1, e};
  }
  std::size_t b = e;
  while (b > from && (is_digit(s[b - 1]) || s[b - 1] == '.' || s[b - 1] == ',')) --b;
  while (b < e && !is_digit(s[b])) ++b;  // a comma or a point before the digits is no part
  if (b >= e) return {};
  if (b > from && s[b - 1] == '-') --b;
  if (b > from && is_letter(s[b - 1])) return {};
  return StatedValue{Range{b, e}, b, e};
}

// "<value> <verb> [indeed] the <extremum word> ..." with the verb at s[vb, ve): "79 is the
// largest two-digit integer", "$M=\frac{9}{32}\sqrt{2}$ is indeed the smallest constant", "623
// must be the only answer". The value is one math span or one number right before the verb, at a
// clause start (clause_start) of the sentence from `from`.
std::optional<Range> value_statement(std::string_view s, std::size_t from, std::size_t vb, std::size_t ve,
                                     std::size_t end) noexcept {
  std::size_t k = ve;
  while (k < end && is_space(s[k])) ++k;
  std::size_t w = letters_end_in(s, k, end);
  if (w == k + 6 && istarts_with(s, k, "indeed")) {
    for (k = w; k < end && is_space(s[k]);) ++k;
    w = letters_end_in(s, k, end);
  }
  if (!(w == k + 3 && istarts_with(s, k, "the"))) return std::nullopt;
  for (k = w; k < end && is_space(s[k]);) ++k;
  w = letters_end_in(s, k, end);
  if (w == k || !word_in(s, k, w, detail::kExtremumWords)) return std::nullopt;
  // the value before the verb: one span or one number, or several joined by ',', "and", "or"
  // ("$90^{\circ}$ and $60^{\circ}$ to be the only possible values"), then read whole
  std::size_t e = vb;
  while (e > from && is_space(s[e - 1])) --e;
  const StatedValue last = value_before(s, from, e);
  if (last.value.end <= last.value.start) return std::nullopt;
  std::size_t b = last.outer_start;
  bool list = false;
  for (std::size_t values = 1; values < kMaxStatedValues; ++values) {
    std::size_t q = b;
    bool comma = false;
    while (q > from && (is_space(s[q - 1]) || s[q - 1] == ',')) {
      comma = comma || s[q - 1] == ',';
      --q;
    }
    std::size_t x = q;
    while (x > from && is_letter(s[x - 1])) --x;
    const std::string_view joiner = s.substr(x, q - x);
    if (joiner == "and" || joiner == "or") {
      q = x;
      while (q > from && (is_space(s[q - 1]) || s[q - 1] == ',')) --q;
    } else if (!comma) {
      break;
    }
    const StatedValue before = value_before(s, from, q);
    if (before.value.end <= before.value.start) break;
    b = before.outer_start;
    list = true;
  }
  if (!clause_start(s, from, b)) return std::nullopt;
  return list ? Range{b, last.outer_end} : last.value;
}

}  // namespace

std::optional<Range> opening_sentence(std::string_view s) noexcept {
  std::size_t k = search_start(s);
  while (k < s.size() && is_space(s[k])) ++k;
  const std::size_t end = sentence_end(s, k);
  // a statement ends with a full stop or its line; a question or an exclamation states nothing
  if (end <= k || end - k > kMaxOpeningBytes || (end < s.size() && (s[end] == '?' || s[end] == '!'))) {
    return std::nullopt;
  }
  return Range{k, end};
}

std::optional<Range> opening_statement(std::string_view s) noexcept {
  const std::optional<Range> sentence = opening_sentence(s);
  if (!sentence) return std::nullopt;
  std::size_t k = sentence->start;
  const std::size_t end = sentence->end;
  // a sentence that is one span stating a function's value at numbers: "$E(7,3)=3$."
  if (s[k] == '$' && k + 1 < end && s[k + 1] != '$') {
    std::size_t close = k + 1;
    while (close < end && s[close] != '$') ++close;
    std::size_t after = close + 1;
    while (after < end && is_space(s[after])) ++after;
    if (close < end && after == end && value_at_numbers(s, k + 1, close)) return Range{k + 1, close};
  }
  return stated_answer(s, *sentence);
}

std::optional<Range> stated_answer(std::string_view s, Range sentence) noexcept {
  const std::size_t from = sentence.start, end = std::min(sentence.end, s.size());
  if (end <= from || end - from > kMaxOpeningBytes) return std::nullopt;
  for (std::size_t q = from, w = 0; (q = next_word(s, q, end, w)) < end; q = w) {
    if (q > from && is_letter(s[q - 1])) continue;  // no word start (letters_end stops at non-ASCII)
    if (w == q + 3 && istarts_with(s, q, "the") && clause_start(s, from, q)) {
      if (std::optional<Range> a = subject_statement(s, q, end)) return a;
    } else if (w == q + 6 && istarts_with(s, q, "namely") && extremum_before(s, from, q)) {
      // "There is only one such integer, namely, $n=2$.": the value the extremum names
      std::size_t k = w;
      while (k < end && (is_space(s[k]) || s[k] == ',' || s[k] == ':')) ++k;
      const Phrase p = read_answer_phrase(s, Range{k, end});
      if (p.clean && !p.leading_prose && p.answer.end > p.answer.start) return p.answer;
    } else if (const std::size_t v = verb_end(s, q, w, end); v != detail::kNpos) {
      if (std::optional<Range> a = value_statement(s, from, q, v, end)) return a;
    }
  }
  return std::nullopt;
}

std::optional<Range> closing_statement(std::string_view s, std::size_t end) noexcept {
  end = std::min(end, s.size());
  const std::size_t from = search_start(s);
  while (end > from && is_space(s[end - 1])) --end;
  if (end == from) return std::nullopt;
  const Range sentence = internal::sentence_at(s, from, end - 1);
  return stated_answer(s, sentence);
}

}  // namespace rapidgrade::extract
