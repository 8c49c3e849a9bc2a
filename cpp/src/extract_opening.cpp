// The opening statement of an answer-first write-up (extract.hpp, opening_statement): "The
// required maximum is $2n-2$." before the proof that the maximum is that, whose last math is a
// step of the proof, not the answer.
#include <algorithm>
#include <optional>
#include <string_view>

#include "extract_internal.hpp"
#include "rapidgrade/detail/markers.hpp"

namespace rapidgrade::extract {

using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using internal::letters_end_in;
using internal::word_in;

namespace {

// Longest opening sentence read, in bytes: a statement of the answer is short.
constexpr std::size_t kMaxOpeningBytes = 400;

// The length of the lead of kOpeningLeads at s[k], followed by a blank, or 0.
std::size_t lead_length(std::string_view s, std::size_t k, std::size_t end) noexcept {
  std::size_t best = 0;
  for (const std::string_view w : detail::kOpeningLeads) {
    if (w.size() > best && k + w.size() < end && istarts_with(s, k, w) && is_space(s[k + w.size()])) best = w.size();
  }
  return best;
}

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
  if (const std::size_t lead = lead_length(s, k, end); lead > 0) {
    k += lead;
    while (k < end && is_space(s[k])) ++k;
  }
  if (!(k + 4 < end && istarts_with(s, k, "the") && is_space(s[k + 3]))) return std::nullopt;
  // the subject, to its verb: words outside math, one of them an extremum word
  bool extremum = false;
  std::size_t q = k + 4;
  while (q < end) {
    const char c = s[q];
    if (c == '$') {
      std::size_t close = q + 1;
      while (close < end && s[close] != '$') ++close;
      if (close >= end) return std::nullopt;
      q = close + 1;
      continue;
    }
    if (c == '\\') {  // a command, or an escaped character
      const std::size_t w = letters_end_in(s, q + 1, end);
      q = w > q + 1 ? w : q + 2;
      continue;
    }
    if (!is_letter(c)) {
      ++q;
      continue;
    }
    const std::size_t w = letters_end_in(s, q, end);
    if (word_in(s, q, w, detail::kOpeningVerbs)) {
      // the first verb ends the subject: "The value is the least ..." has no extremum in it
      if (!extremum) return std::nullopt;
      const Phrase p = read_answer_phrase(s, Range{w, end});
      if (!p.clean || p.leading_prose || p.answer.end <= p.answer.start) return std::nullopt;
      return p.answer;
    }
    extremum = extremum || word_in(s, q, w, detail::kExtremumWords);
    q = w;
  }
  return std::nullopt;
}

}  // namespace rapidgrade::extract
