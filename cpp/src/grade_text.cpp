// Text predicates of the grader (grade_text.hpp).
#include "grade_text.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "rapidgrade/common.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/extract.hpp"

namespace rapidgrade::grade::internal {

using detail::trim;

namespace {

// Bytes that declines_to_answer reads right after a last number, and at the end of the text.
constexpr std::size_t kMaxAfterNumber = 512;

// The first letters of the phrases of `table` (lower case ASCII), where a phrase may start.
template <std::size_t N>
constexpr std::array<bool, 256> first_letters(const std::string_view (&table)[N]) noexcept {
  std::array<bool, 256> out{};
  for (const std::string_view phrase : table) out[static_cast<unsigned char>(phrase[0])] = true;
  return out;
}
constexpr std::array<bool, 256> kRefusalStarts = first_letters(detail::kRefusals);
constexpr std::array<bool, 256> kProofCloseStarts = first_letters(detail::kProofCloses);
constexpr std::array<bool, 256> kContradictionStarts = first_letters(detail::kContradictions);
constexpr std::array<bool, 256> kProofArgumentStarts = first_letters(detail::kProofArguments);

// Whether `text` holds a phrase of `table` (ignoring case), where a word starts when
// `word_start` ("lemma", not "dilemma"). One pass; a phrase is compared only where its first
// letter is (`starts`).
template <std::size_t N>
bool holds_phrase(std::string_view text, const std::string_view (&table)[N], const std::array<bool, 256>& starts,
                  bool word_start = false) noexcept {
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = detail::to_lower(text[k]);
    if (!starts[static_cast<unsigned char>(c)]) continue;
    if (word_start && k > 0 && detail::is_letter(text[k - 1])) continue;
    for (const std::string_view phrase : table) {
      if (phrase[0] == c && detail::istarts_with(text, k, phrase)) return true;
    }
  }
  return false;
}

bool holds_refusal(std::string_view text) noexcept { return holds_phrase(text, detail::kRefusals, kRefusalStarts); }

// Bytes of a text's end that closes_a_proof reads.
constexpr std::size_t kMaxFinalSentence = 300;

// Longest subscript of a big operator read; a longer one is taken for a condition.
constexpr std::size_t kMaxSubscript = 256;

// Whether the subscript s[b, e) of a big operator assigns one index its first value ("i=1",
// "k = 0", "j=i+1"): one '=', no other relation, no command that states a relation or a set.
bool assigns_first_value(std::string_view s, std::size_t b, std::size_t e) noexcept {
  int equals = 0;
  for (std::size_t k = b; k < e; ++k) {
    const char c = s[k];
    if (c == '=') ++equals;
    if (c == '<' || c == '>' || c == '|') return false;
    if (c == '\\') {
      const std::size_t w = detail::letters_end(s.substr(0, e), k + 1);
      const std::string_view name = s.substr(k + 1, w - k - 1);
      if (detail::inequality_code(name) != 0 || detail::is_equals_command(name) ||
          detail::is_divisibility_command(name) || name == "text" || name == "substack" || name == "mathrm" ||
          name == "equiv" || name == "notin" || name == "subset" || name == "subseteq") {
        return false;
      }
      k = w > k + 1 ? w - 1 : k + 1;
    }
  }
  return equals == 1;
}

// Calls `on(name_end, is_big)` for each command of s: for a big operator, the position after its
// name; stops when `on` returns true, and returns whether it did.
template <typename F>
bool each_big_operator(std::string_view s, F on) noexcept {
  for (std::size_t k = s.find('\\'); k < s.size(); k = s.find('\\', k + 1)) {
    const std::size_t e = detail::letters_end(s, k + 1);
    if (e > k + 1 && detail::is_big_operator(s.substr(k + 1, e - k - 1)) && on(e)) return true;
  }
  return false;
}

}  // namespace

bool ends_with_program_result(std::string_view text, std::size_t end) noexcept {
  std::size_t e = std::min(end, text.size());
  while (e > 0 && detail::is_space(text[e - 1])) --e;
  std::size_t b = e;
  while (b > 0 && text[b - 1] != '\n') --b;
  while (b < e && detail::is_blank(text[b])) ++b;
  // a step label before it: "Step 4: print(time)"
  std::size_t w = detail::letters_end(text.substr(0, e), b);
  bool label = false;
  for (const std::string_view l : detail::kStepLabels)
    label = label || (w - b == l.size() && detail::istarts_with(text, b, l));
  if (label) {
    std::size_t k = w;
    while (k < e && (detail::is_blank(text[k]) || detail::is_digit(text[k]))) ++k;
    if (k < e && text[k] == ':') {
      b = k + 1;
      while (b < e && detail::is_blank(text[b])) ++b;
      w = detail::letters_end(text.substr(0, e), b);
    }
  }
  if (w == b || w >= e || !(text[w] == '(' || detail::is_blank(text[w]))) return false;
  const std::string_view word = text.substr(b, w - b);
  for (const std::string_view r : detail::kProgramResults)
    if (word == r) return true;
  return false;
}

char trailing_letter(std::string_view s) noexcept {
  std::size_t e = s.size();
  while (e > 0 && (detail::is_space(s[e - 1]) || s[e - 1] == '.' || s[e - 1] == '$')) --e;
  if (e < 3 || !detail::is_letter(s[e - 1]) || !detail::is_blank(s[e - 2])) return 0;
  std::size_t b = e - 2;
  while (b > 0 && detail::is_blank(s[b - 1])) --b;
  // a word or a command before the blank: "is m", "\\cdot m" name no unit of a number
  if (b == 0 || detail::is_letter(s[b - 1])) return 0;
  return s[e - 1];
}

bool holds_big_operator(std::string_view s) noexcept {
  return each_big_operator(s, [](std::size_t) { return true; });
}

bool sums_over_a_condition(std::string_view s) noexcept {
  return each_big_operator(s, [s](std::size_t q) {
    while (q < s.size() && detail::is_blank(s[q])) ++q;
    // "\limits" or "\nolimits" between the operator and its subscript
    if (q < s.size() && s[q] == '\\') {
      const std::size_t w = detail::letters_end(s, q + 1);
      const std::string_view name = s.substr(q + 1, w - q - 1);
      if (name == "limits" || name == "nolimits") q = w;
      while (q < s.size() && detail::is_blank(s[q])) ++q;
    }
    if (q >= s.size() || s[q] != '_') return false;  // no subscript: no sum this rule reads
    ++q;
    while (q < s.size() && detail::is_blank(s[q])) ++q;
    if (q >= s.size()) return false;
    if (s[q] != '{') return detail::is_letter(s[q]);  // "\sum_p": an index with no first value
    std::size_t depth = 0, close = q;
    for (; close < s.size() && close - q <= kMaxSubscript; ++close) {
      if (s[close] == '{') ++depth;
      if (s[close] == '}' && --depth == 0) break;
    }
    if (close >= s.size() || close - q > kMaxSubscript) return true;
    return !assigns_first_value(s, q + 1, close);
  });
}

// Whether `s` holds several sentences: a sentence end (extract::sentence_end, as an "answer is"
// answer is cut) with more text after it ("Yes. $F(x,y)=x+y$"; not "3.5", not "x."). Line
// breaks only separate the lines searched.
bool several_sentences(std::string_view s) noexcept {
  for (std::size_t j = 0; j < s.size();) {
    const std::size_t k = extract::sentence_end(s, j);
    if (k >= s.size()) return false;
    if (s[k] == '.' || s[k] == '!' || s[k] == '?') return !trim(s.substr(k + 1)).empty();
    j = k + 1;  // a line break
  }
  return false;
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

namespace {

// Whether text[k] ends a sentence that text goes on after: a line break, or '.', '!' or '?'
// before a blank.
bool ends_sentence(std::string_view text, std::size_t k) noexcept {
  const char c = text[k];
  return c == '\n' || ((c == '.' || c == '!' || c == '?') && k + 1 < text.size() && detail::is_space(text[k + 1]));
}

// The final sentence of text[0, end): after the last sentence end or line break in its last
// kMaxFinalSentence bytes, without the closing punctuation.
std::string_view final_sentence(std::string_view text, std::size_t end) noexcept {
  std::size_t e = std::min(end, text.size());
  while (e > 0 && detail::is_space(text[e - 1])) --e;
  if (e > 0 && (text[e - 1] == '.' || text[e - 1] == '!' || text[e - 1] == '?')) --e;
  std::size_t b = e > kMaxFinalSentence ? e - kMaxFinalSentence : 0;
  for (std::size_t k = e; k > b; --k) {
    if (ends_sentence(text, k - 1)) {
      b = k;
      break;
    }
  }
  return text.substr(b, e - b);
}

}  // namespace

// Whether the final sentence of text[0, end) closes a proof (detail::kProofCloses, or
// detail::kContradictions): "... which contradicts the minimality of $m$.", "Thereby the
// solution is complete."
bool closes_a_proof(std::string_view text, std::size_t end) noexcept {
  return holds_phrase(final_sentence(text, end), detail::kProofCloses, kProofCloseStarts) ||
         states_a_contradiction(text, end);
}

bool states_a_contradiction(std::string_view text, std::size_t end) noexcept {
  return holds_phrase(final_sentence(text, end), detail::kContradictions, kContradictionStarts);
}

bool closes_the_text(std::string_view text, std::size_t at, std::size_t end) noexcept {
  end = std::min(end, text.size());
  bool ended = false;  // past the end of the sentence that holds `at`
  for (std::size_t k = at; k < end; ++k) {
    const char c = text[k];
    if (detail::is_digit(c)) return false;
    if (c == '<') {
      const std::size_t tag = extract::markup_tag_end(text, k, end);
      if (tag != detail::kNpos) {
        k = tag - 1;
        continue;
      }
    }
    if (text.compare(k, detail::kIdeographicFullStop.size(), detail::kIdeographicFullStop) == 0) {
      ended = true;
      k += detail::kIdeographicFullStop.size() - 1;
    } else if (ends_sentence(text, k)) {
      ended = true;
    } else if (ended && (detail::is_letter(c) || static_cast<unsigned char>(c) >= 0x80)) {
      return false;  // a word of another sentence
    }
  }
  return true;
}

namespace {

// The most bytes ends_a_listing reads between two numbers of a listing.
constexpr std::size_t kMaxListingGap = 32;

}  // namespace

bool ends_a_listing(std::string_view text, std::size_t at) noexcept {
  std::size_t k = std::min(at, text.size());
  const std::size_t stop = k > kMaxListingGap ? k - kMaxListingGap : 0;
  const auto skip = [&](std::string_view marks) {
    while (k > stop && marks.find(text[k - 1]) != std::string_view::npos) --k;
  };
  bool joined = false;
  skip(" \t$*");
  for (const std::string_view word : {std::string_view("and"), std::string_view("or")}) {
    if (!joined && detail::word_ends_at(text, stop, k, word)) {
      k -= word.size();
      joined = true;
      skip(" \t$*");
    }
  }
  if (k > stop && text[k - 1] == ',') {
    --k;
    joined = true;
  }
  skip(" \t$*!%\\");
  return joined && k > stop && detail::is_digit(text[k - 1]);
}

bool an_operand(std::string_view text, std::size_t at) noexcept {
  std::size_t k = std::min(at, text.size());
  const std::size_t stop = k > kMaxListingGap ? k - kMaxListingGap : 0;
  while (k > stop && (detail::is_blank(text[k - 1]) || text[k - 1] == '$')) --k;
  for (const std::string_view lead : detail::kOperandLeads) {
    if (detail::word_ends_at(text, stop, k, lead)) return true;
  }
  return false;
}

bool in_table_row(std::string_view text, std::size_t at) noexcept {
  if (at >= text.size()) return false;
  std::size_t b = text.rfind('\n', at);
  b = b == std::string_view::npos ? 0 : b + 1;
  std::size_t e = text.find('\n', at);
  if (e == std::string_view::npos) e = text.size();
  const std::string_view line = trim(text.substr(b, e - b));
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return false;
  const std::string_view before = text.substr(b, at - b), after = text.substr(at, e - at);
  return before.find('|') != std::string_view::npos && after.find('|') != std::string_view::npos;
}

// Whether text argues a proof anywhere (detail::kProofArguments): "We show that ...", "Lemma 2.",
// "by induction on $n$".
bool argues_a_proof(std::string_view text) noexcept {
  return holds_phrase(text, detail::kProofArguments, kProofArgumentStarts, true);
}

// Whether `after`, the text after a response's last number, declines to answer: a refusal right
// after the number ("... 300 in the previous weeks. Therefore, the question cannot be answered
// with the given information.") or in the response's closing words ("... we cannot determine the
// year ... Please provide additional information."), each read for kMaxAfterNumber bytes. A
// number near the end of its text costs the bytes after it only.
bool declines_to_answer(std::string_view after) noexcept {
  if (after.size() <= 2 * kMaxAfterNumber) return holds_refusal(after);
  return holds_refusal(after.substr(0, kMaxAfterNumber)) || holds_refusal(after.substr(after.size() - kMaxAfterNumber));
}

// The choice an answer names at its start, "(E)" before more ("(E)EquilateralTriangle", "(C)8"
// after normalization), or 0: not when the rest names another choice ("(A)or(E)").
char leading_choice(std::string_view s) noexcept {
  s = trim(s);
  if (s.size() < 4 || s[0] != '(' || s[2] != ')' || s[1] < 'A' || s[1] > 'J') return 0;
  const std::string_view rest = s.substr(3);
  for (std::size_t k = 0; k + 2 < rest.size(); ++k) {
    if (rest[k] == '(' && rest[k + 1] >= 'A' && rest[k + 1] <= 'J' && rest[k + 2] == ')') return 0;
  }
  return s[1];
}

// A number as the whole text: digits with a sign, a decimal point or a fraction bar ("21",
// "-0.5", "3/4"); what a choice letter cannot be.
bool plain_number(std::string_view s) noexcept {
  return !s.empty() && s.find_first_not_of("0123456789.-/") == std::string_view::npos &&
         s.find_first_of("0123456789") != std::string_view::npos;
}

// Whether `span` only names: letters (one at least), blanks, commas, parentheses, braces,
// subscripts and primes; no digit, no operator, no command ("n", "B C", "(a, b, c, d)", "A B B
// A").
bool names_only(std::string_view span) noexcept {
  bool letter = false;
  for (const char c : span) {
    letter = letter || detail::is_letter(c);
    if (!detail::is_letter(c) && std::string_view(" \t,(){}_'").find(c) == std::string_view::npos) return false;
  }
  return letter;
}

std::size_t ellipsis_at(std::string_view s, std::size_t i) noexcept {
  if (s[i] == '\\') {
    const std::size_t j = detail::letters_end(s, i + 1);
    return detail::is_ellipsis_command(s.substr(i + 1, j - i - 1)) ? j - i : 0;
  }
  for (const std::string_view e : detail::kEllipsisTexts)
    if (s.substr(i, e.size()) == e) return e.size();
  return 0;
}

Ellipses ellipses(std::string_view s) noexcept {
  Ellipses out;
  std::size_t depth = 0, start = 0;
  // one bracket around the whole list ("\{1, 2, \ldots\}") is not part of its first and last elements
  if (s.size() >= 4 && s.substr(0, 2) == "\\{" && s.substr(s.size() - 2) == "\\}") {
    s = s.substr(2, s.size() - 4);
  } else if (s.size() >= 2 && ((s.front() == '(' && s.back() == ')') || (s.front() == '[' && s.back() == ']'))) {
    s = s.substr(1, s.size() - 2);
  }
  auto element = [&](std::size_t end) {
    std::size_t a = start, b = end;
    while (a < b && detail::is_space(s[a])) ++a;
    while (b > a && detail::is_space(s[b - 1])) --b;
    if (a < b && ellipsis_at(s, a) == b - a) out.term = true;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (const std::size_t n = ellipsis_at(s, i)) {
      out.any = true;
      i += n - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      element(i);
      start = i + 1;
    }
  }
  element(s.size());
  return out;
}

std::string_view without_label(std::string_view answer) noexcept {
  std::size_t k = 0;
  const auto name = [&]() {
    const std::size_t w = detail::letters_end(answer, k);
    if (w == k || w - k > 2) return false;
    k = w;
    if (k < answer.size() && answer[k] == '_') {
      ++k;
      if (k < answer.size() && answer[k] == '{') ++k;
      while (k < answer.size() && (detail::is_digit(answer[k]) || detail::is_letter(answer[k]))) ++k;
      if (k < answer.size() && answer[k] == '}') ++k;
    }
    return true;
  };
  const auto blanks = [&]() {
    while (k < answer.size() && detail::is_blank(answer[k])) ++k;
  };
  if (k < answer.size() && answer[k] == '(') {
    ++k;
    for (bool first = true;; first = false) {
      blanks();
      if (!first) {
        if (k >= answer.size() || answer[k] != ',') break;
        ++k;
        blanks();
      }
      if (!name()) return answer;
    }
    if (k >= answer.size() || answer[k] != ')') return answer;
    ++k;
  } else if (!name()) {
    return answer;
  }
  blanks();
  if (k >= answer.size() || answer[k] != ':' || (k + 1 < answer.size() && answer[k + 1] == '=')) return answer;
  const std::string_view rest = trim(answer.substr(k + 1));
  return rest.empty() ? answer : rest;
}

}  // namespace rapidgrade::grade::internal
