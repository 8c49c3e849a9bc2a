// The answer phrase reader (read_answer_phrase, extract.hpp): what follows a marker ("the answer
// is ...", "#### ...", "答案是 ..."), read up to the end of its math object. Units, words, numbers
// and math spans decide where the answer stops.
#include "extract_internal.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/number_words.hpp"
#include "rapidgrade/detail/parts.hpp"
#include "rapidgrade/detail/units.hpp"

namespace rapidgrade::extract {

using namespace internal;
using detail::digits_end;
using detail::find_byte;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::kNpos;
using detail::starts_with;

namespace {

// ---------------------------------------------------------------------------------------------
// the answer phrase

// A unit of detail/units.hpp spelled s[b, e): a symbol, or an SI prefix and a prefixable symbol
// ("km", "kg"). Case matters, as in the table.
bool is_unit_word(std::string_view s, std::size_t b, std::size_t e) noexcept {
  return detail::find_unit(s.substr(b, e - b)) != nullptr;
}

// The end of a unit expression that starts with the unit word s[b, e): more unit words joined by
// '/', '^' with digits, '*' or "per" ("km/h", "m/s^2", "bolts per minute" is not one: "bolts"
// is no unit). Never past `end`.
std::size_t unit_end(std::string_view s, std::size_t e, std::size_t end) noexcept {
  std::size_t k = e;
  while (k < end) {
    std::size_t q = k;
    if (s[q] == '^') {
      ++q;
      if (q < end && (s[q] == '-' || s[q] == '{')) ++q;
      const std::size_t d = digits_end(s.substr(0, end), q);
      if (d == q) break;
      k = d < end && s[d] == '}' ? d + 1 : d;
      continue;
    }
    if (s[q] == '/' || s[q] == '*') {
      ++q;
    } else {
      break;
    }
    const std::size_t w = letters_end_in(s, q, end);
    if (w == q || !is_unit_word(s, q, w)) break;
    k = w;
  }
  return k;
}

// The position after the character (a UTF-8 sequence) that starts at k, at most `end`.
std::size_t next_char(std::string_view s, std::size_t k, std::size_t end) noexcept {
  if (k >= end) return end;
  ++k;
  while (k < end && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) ++k;
  return k;
}

// A math character that is not ASCII, at s[k]: its length, or 0 (kMathNonAscii, full-width forms).
std::size_t math_non_ascii(std::string_view s, std::size_t k) noexcept {
  if (const char c = detail::fullwidth_ascii(s, k)) {
    return (is_digit(c) || std::string_view("+-*/=<>()[],.%^").find(c) != std::string_view::npos) ? 3 : 0;
  }
  for (const std::string_view m : detail::kMathNonAscii) {
    if (starts_with(s, k, m)) return m.size();
  }
  for (const detail::CjkMathWord& w : detail::kCjkMathWords) {
    if (starts_with(s, k, w.word)) return w.word.size();
  }
  for (const std::string_view e : detail::kEllipsisTexts) {
    if (static_cast<unsigned char>(e[0]) < 0x80 || !starts_with(s, k, e)) continue;
    std::size_t b = k;  // an element of a list: a comma before it
    while (b > 0 && is_blank(s[b - 1])) --b;
    return b > 0 && s[b - 1] == ',' ? e.size() : 0;
  }
  return 0;
}

// A currency sign at s[k] that is not ASCII (¥, €, £, full-width ¥): its length, or 0.
std::size_t currency_length(std::string_view s, std::size_t k) noexcept {
  for (const std::string_view m : {std::string_view("\xC2\xA5"), std::string_view("\xE2\x82\xAC"),
                                   std::string_view("\xC2\xA3"), std::string_view("\xEF\xBF\xA5")}) {
    if (starts_with(s, k, m)) return m.size();
  }
  return 0;
}

// An apostrophe at s[k], ASCII or U+2019 (RIGHT SINGLE QUOTATION MARK): its length, or 0.
std::size_t apostrophe_length(std::string_view s, std::size_t k, std::size_t end) noexcept {
  if (k < end && s[k] == '\'') return 1;
  return k + 3 <= end && starts_with(s, k, "\xE2\x80\x99") ? 3 : 0;
}

// A CJK list joiner ("和", "或") at s[k]: its length, or 0.
std::size_t cjk_joiner(std::string_view s, std::size_t k) noexcept {
  for (const std::string_view m : detail::kCjkListJoiners) {
    if (starts_with(s, k, m)) return m.size();
  }
  return 0;
}

// True when the word s[b, e) (ASCII letters) belongs to math: one letter (a variable or a choice
// letter), a function word (detail/functions.hpp), a constant.
bool math_word(std::string_view s, std::size_t b, std::size_t e) noexcept {
  if (e - b == 1) return true;
  const std::string_view w = s.substr(b, e - b);
  return w == "pi" || w == "oo" || w == "inf" || w == "infty" || w == "infinity" || w == "sqrt" ||
         detail::find_function_word(w) != nullptr;
}

// Whether s[k] starts a "**" that closes markdown bold, not a power: after a non-blank, before a
// punctuation mark, the end or a blank that no operator follows ("**18** eggs", "**42 apples**";
// "2**3" is a power, and so is the "**" of "**x** = 5", whose equation goes on).
bool bold_close(std::string_view s, std::size_t begin, std::size_t k, std::size_t end) noexcept {
  if (k <= begin || k + 1 >= end || s[k] != '*' || s[k + 1] != '*' || is_blank(s[k - 1])) return false;
  std::size_t a = k + 2;
  if (a < end && !is_blank(s[a])) return std::string_view(".,;:!?)").find(s[a]) != std::string_view::npos;
  while (a < end && is_blank(s[a])) ++a;
  return a >= end || std::string_view("=<>+-*/^").find(s[a]) == std::string_view::npos;
}

// True when the word s[k, w) is an operand of the math around it, though it is no math_word: an
// operator before it ("x + yz", "3 \cdot ab") or after it ("3 xy + y ^ 2", "ab^2"); a "**" that
// closes bold is none ("**18** eggs"), and neither is a word with an apostrophe and a letter
// after it, a possessive or a contraction ("10+John's age", "isn't").
bool operand_word(std::string_view s, std::size_t begin, std::size_t k, std::size_t w, std::size_t end) noexcept {
  constexpr std::string_view kOperators = "+-*/^=<>_(";
  if (const std::size_t q = apostrophe_length(s, w, end); q > 0 && w + q < end && is_letter(s[w + q])) return false;
  std::size_t b = k;
  while (b > begin && is_blank(s[b - 1])) --b;
  if (b > begin && (kOperators.find(s[b - 1]) != std::string_view::npos || s[b - 1] == '{') &&
      !(b >= begin + 2 && bold_close(s, begin, b - 2, end))) {
    return true;
  }
  std::size_t a = w;
  while (a < end && is_blank(s[a])) ++a;
  return a < end && kOperators.find(s[a]) != std::string_view::npos && !bold_close(s, begin, a, end);
}

// Where the math that may follow a joiner ("and", "or", ",", "和") starts, from k: true when
// s[k] (blanks skipped) starts a number, a sign, a math span, a command, a group or a one-letter
// word.
// The end of an ellipsis of three dots or more after the blanks at s[k] ("1, 2, ..., n", "1, 2,
// 3, ..."), or 0.
std::size_t dots_after(std::string_view s, std::size_t k, std::size_t end) noexcept {
  while (k < end && is_blank(s[k])) ++k;
  std::size_t d = k;
  while (d < end && s[d] == '.') ++d;
  return d - k >= 3 ? d : 0;
}

bool math_follows(std::string_view s, std::size_t k, std::size_t end) noexcept {
  while (k < end && is_blank(s[k])) ++k;
  if (k >= end) return false;
  const char c = s[k];
  if (is_digit(c) || c == '-' || c == '$' || c == '\\' || c == '(' || c == '[' || c == '{') return true;
  if (is_letter(c)) return letters_end_in(s, k, end) == k + 1 || math_word(s, k, letters_end_in(s, k, end));
  return math_non_ascii(s, k) > 0;
}

// End of a number at s[i] (a digit) for the answer phrase: number_end's grammar, plus thousands
// groups apart by one space ("1 000") and mixed numbers ("1 1/2").
std::size_t phrase_number_end(std::string_view s, std::size_t i, std::size_t end) noexcept {
  const std::string_view t = s.substr(0, end);
  std::size_t k = number_end(t, i);
  const std::size_t run = digits_end(t, i);
  if (k == run) {
    const std::size_t g = detail::thousands_end(t, i, run, detail::GroupSeparators::kLatex);
    // only plain spaces here: the LaTeX spellings are read by the expression lexer
    if (g != run && t.substr(run, 1) == " ") {
      bool spaces = true;
      for (std::size_t q = run; q < g; ++q) spaces = spaces && (is_digit(t[q]) || t[q] == ' ');
      if (spaces) k = g;
    }
  }
  if (k == run && k + 1 < end && t[k] == ' ' && is_digit(t[k + 1])) {  // "1 1/2"
    const std::size_t num = digits_end(t, k + 1);
    if (num + 1 < end && t[num] == '/' && is_digit(t[num + 1])) {
      const std::size_t den = digits_end(t, num + 1);
      if (den >= end || !(is_digit(t[den]) || t[den] == '.')) k = den;
    }
  }
  return k;
}

// The end of the group opened at s[k] ('(', '[' or '{'), any of the three closing it, within
// end; kNpos when it is not closed.
std::size_t group_end(std::string_view s, std::size_t k, std::size_t end) noexcept {
  std::size_t depth = 0;
  for (std::size_t q = k; q < end; ++q) {
    const char c = s[q];
    if (c == '\\') {
      ++q;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return q + 1;
    }
  }
  return kNpos;
}

// True when s[b, e) holds a prose word: two or more ASCII letters that are not math_word and not
// a command name, or a non-ASCII character that is not math (CJK text).
bool holds_prose(std::string_view s, std::size_t b, std::size_t e) noexcept {
  for (std::size_t k = b; k < e;) {
    const char c = s[k];
    if (c == '\\') {
      const std::size_t w = letters_end_in(s, k + 1, e);
      k = w > k + 1 ? w : next_char(s, k + 1, e);  // a command name, or the one character escaped
      continue;
    }
    if (is_letter(c)) {
      const std::size_t w = letters_end_in(s, k, e);
      const std::string_view word = s.substr(k, w - k);
      if (!math_word(s, k, w) && word != "and" && word != "or") return true;
      k = w;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t m = std::max(math_non_ascii(s, k), cjk_joiner(s, k));
      if (m == 0) return true;
      k += m;
      continue;
    }
    ++k;
  }
  return false;
}

// The numbers and math spans of s[b, e) (words skipped), for a phrase that starts with prose:
// how many there are, and the last one; and how many of them hold a digit (numbers, and spans
// such as "$120$" but not names such as "$n$" or "$f(x)$"), with the last of those.
struct Objects {
  std::size_t count = 0;
  Range last;
  bool span = false;
  std::size_t valued = 0;
  Range last_valued;
};

Objects math_objects(std::string_view s, std::size_t b, std::size_t e) {
  Objects o;
  for (std::size_t k = b; k < e;) {
    const char c = s[k];
    if (c == '$' || (c == '\\' && k + 1 < e && (s[k + 1] == '(' || s[k + 1] == '['))) {
      const bool dollar = c == '$';
      const std::size_t open = dollar && k + 1 < e && s[k + 1] == '$' ? 2 : (dollar ? 1 : 2);
      const std::string_view close = dollar ? (open == 2 ? "$$" : "$") : (s[k + 1] == '(' ? "\\)" : "\\]");
      const std::size_t at = detail::find_math_closer(s.substr(0, e), k + open, close);
      if (at == kNpos) return Objects{2, {}, true, 0, {}};
      ++o.count;
      o.span = true;
      o.last = Range{k, at + close.size()};
      const std::string_view inside = s.substr(k + open, at - k - open);
      if (std::any_of(inside.begin(), inside.end(), is_digit)) {
        ++o.valued;
        o.last_valued = o.last;
      }
      k = at + close.size();
      continue;
    }
    if (is_digit(c) && (k == b || !is_letter(s[k - 1]))) {
      // with its percent sign: "about 50%", "roughly 12.5\%" (grading reads 50 and 0.5)
      const std::size_t ne = internal::percent_sign_end(s, phrase_number_end(s, k, e), e);
      ++o.count;
      o.last = Range{with_sign(s, b, k), ne};
      ++o.valued;
      o.last_valued = o.last;
      k = ne;
      continue;
    }
    if (c == '\\') {
      k = next_char(s, k + 1, e);
      continue;
    }
    ++k;
  }
  return o;
}

}  // namespace

std::size_t markup_tag_end(std::string_view s, std::size_t k, std::size_t end) noexcept {
  std::size_t q = k + 1;
  const std::size_t stop = std::min(end, k + internal::kMaxMarkupTag);
  if (q < stop && s[q] == '|') {
    for (q += 1; q + 1 < stop; ++q)
      if (s[q] == '|' && s[q + 1] == '>') return q + 2;
    return kNpos;
  }
  if (q < stop && s[q] == '/') ++q;
  if (q >= stop || !is_letter(s[q])) return kNpos;
  while (q < stop && (is_letter(s[q]) || is_digit(s[q]) || s[q] == '_')) ++q;
  return q < stop && s[q] == '>' ? q + 1 : kNpos;
}

// Words of a number written in words that the count reader tries ("three hundred and twenty one").
constexpr std::size_t kMaxCountWords = 6;

// The end of the longest run of up to kMaxCountWords words at k that writes a number
// (detail::read_number_words: "seven", "twenty-one", "negative five"; only one of 0 or more
// unless `negative`), or k when none does. Never past `end`.
std::size_t number_words_end(std::string_view s, std::size_t k, std::size_t end, bool negative) noexcept {
  std::size_t stop = k;
  std::size_t q = k;
  for (std::size_t words = 0; words < kMaxCountWords && q < end && is_letter(s[q]); ++words) {
    while (q < end && (is_letter(s[q]) || s[q] == '-')) ++q;
    const std::optional<int> value = detail::read_number_words(s.substr(k, q - k));
    if (value && (negative || *value >= 0)) stop = q;
    while (q < end && is_blank(s[q])) ++q;
  }
  return stop;
}

Phrase read_answer_phrase(std::string_view s, Range r) {
  Phrase out;
  r = trim(s, r);
  out.answer = r;
  if (r.end <= r.start) return out;
  const std::size_t end = r.end;
  // enumerated parts ("(1) 3; (2) 5", "（Ⅰ）…（Ⅱ）…", "① 3 ② 5"): the whole phrase, whose parts
  // normalization's rule 13 reads ("(I) 3 (II) 5" names no choice)
  {
    std::size_t starts[detail::kMaxParts];
    std::size_t ends[detail::kMaxParts];
    if (detail::part_labels(s, r.start, end, starts, ends) >= 2) {
      const auto [b, e] = detail::parts_trimmed(s, r.start, r.end);
      out.answer = Range{b, e};
      out.parts = true;
      return out;
    }
  }
  // a choice letter at the head: "(B) 42", "B) 42", "B. 42", "C: 5 meters"
  {
    std::size_t k = r.start;
    const bool paren = s[k] == '(';
    if (paren) ++k;
    if (k + 1 < end && is_choice_letter(s[k]) &&
        (s[k + 1] == ')' || (!paren && (s[k + 1] == '.' || s[k + 1] == ':')))) {
      const std::size_t after = k + 2;
      if (after < end && is_blank(s[after]) && trim(s, Range{after, end}).end > after) {
        out.answer = Range{r.start, paren ? after : k + 1};
        out.cut = true;
        out.clean = false;
        return out;
      }
    }
  }
  std::size_t k = r.start;
  std::size_t answer_start = r.start;  // after a currency sign that opens the phrase
  std::size_t math_end = r.start;      // the end of the math read so far
  bool seen = false;                   // a math object was read
  while (k < end) {
    const char c = s[k];
    if (is_blank(c)) {
      ++k;
      continue;
    }
    const std::size_t before = k;
    if (c == '*' && seen && bold_close(s, r.start, k, end)) {  // "**18** eggs": the bold ends the math
      out.cut = trim(s, Range{k + 2, end}).end > k + 2;
      break;
    }
    if (c == '*' && !seen) {  // markdown bold around the answer: "**18** eggs"
      answer_start = ++k;
      continue;
    }
    if (c == '$' || (c == '\\' && k + 1 < end && (s[k + 1] == '(' || s[k + 1] == '['))) {
      const bool dollar = c == '$';
      const std::size_t open = dollar && k + 1 < end && s[k + 1] == '$' ? 2 : (dollar ? 1 : 2);
      const std::string_view close = dollar ? (open == 2 ? "$$" : "$") : (s[k + 1] == '(' ? "\\)" : "\\]");
      const std::size_t at = detail::find_math_closer(s.substr(0, end), k + open, close);
      // "$18" is a price: a lone dollar before a number, or one whose "span" holds prose and no
      // command ("$18 and $20")
      if (dollar && open == 1 && k + 1 < end && is_digit(s[k + 1]) &&
          (at == kNpos ? find_byte(s.substr(0, end), k + 1, '$') >= end
                       : holds_prose(s, k + 1, at) && find_byte(s.substr(0, at), k + 1, '\\') >= at)) {
        if (!seen) answer_start = k + 1;
        ++k;
        continue;
      }
      if (at == kNpos) {
        math_end = end;
        seen = true;
        break;
      }
      k = at + close.size();
    } else if (c == '\\') {
      const std::size_t w = letters_end_in(s, k + 1, end);
      if (w == k + 1) {  // a control symbol: "\$", "\%", "\{", "\,"
        k = next_char(s, k + 1, end);
      } else {
        const std::string_view name = s.substr(k + 1, w - k - 1);
        const bool text = name == "text" || name == "textrm" || name == "mbox" || name == "mathrm";
        k = w;
        if (k < end && s[k] == '{') {
          const std::size_t g = group_end(s, k, end);
          if (g == kNpos) {
            math_end = end;
            seen = true;
            break;
          }
          // "\text{ eggs}" after the math is a unit or a noun: the answer ends before it
          if (text && seen && holds_prose(s, k + 1, g - 1)) {
            out.cut = true;
            break;
          }
          k = g;
        }
      }
    } else if (c == '(' || c == '[' || c == '{') {
      const std::size_t g = group_end(s, k, end);
      if (g == kNpos) {
        math_end = end;
        seen = true;
        break;
      }
      // "18 (since ...)", "8 (20 - 12)": a group of prose or a computation after the math is a remark
      if (seen && before > r.start && is_blank(s[before - 1]) &&
          (holds_prose(s, k + 1, g - 1) || (c == '(' && internal::computation(s, k + 1, g - 1)))) {
        out.cut = true;
        break;
      }
      k = g;
    } else if (is_digit(c) || (c == '.' && k + 1 < end && is_digit(s[k + 1]))) {
      k = phrase_number_end(s, k, end);
      // letters right after the number: a unit ("48g", "5km"), else math ("2x", "3pi")
      const std::size_t w = letters_end_in(s, k, end);
      if (w > k && is_unit_word(s, k, w) && (w >= end || !is_digit(s[w]))) {
        math_end = k;
        out.unit = Range{k, unit_end(s, w, end)};
        out.cut = true;
        seen = true;
        break;
      }
      if (w > k && !math_word(s, k, w) && w - k > 1) {  // "2nd", "3rd", "10th"
        math_end = k;
        out.cut = true;
        seen = true;
        break;
      }
      k = w;
    } else if (is_letter(c)) {
      const std::size_t w = letters_end_in(s, k, end);
      const std::string_view word = s.substr(k, w - k);
      if (seen && (word == "and" || word == "or") && math_follows(s, w, end)) {
        out.joined = true;
        k = w;
        continue;
      }
      if (seen && is_unit_word(s, k, w) && before > r.start && is_blank(s[before - 1]) &&
          (is_digit(s[math_end - 1]) || s[math_end - 1] == ')' || s[math_end - 1] == ']') &&
          (w >= end || s[w] == '/' || s[w] == '^' || is_space(s[w]) || s[w] == '.' || s[w] == ',')) {
        // "5 m", "3 s", "5 km/h": a unit after a number, apart from it
        out.unit = Range{k, unit_end(s, w, end)};
        out.cut = true;
        break;
      }
      // the article "a" before a word is prose ("a total of 18")
      const bool article = w - k == 1 && c == 'a' && w + 1 < end && is_blank(s[w]) && is_letter(s[w + 1]) &&
                           !math_word(s, w + 1, letters_end_in(s, w + 1, end));
      if (article || (!math_word(s, k, w) && !operand_word(s, r.start, k, w, end))) {
        if (!seen) {
          out.leading_prose = true;
          break;
        }
        if (is_unit_word(s, k, w)) out.unit = Range{k, unit_end(s, w, end)};
        out.cut = true;
        break;
      }
      k = w;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      if (!seen) {
        const std::size_t cur = currency_length(s, k);
        if (cur > 0) {
          k += cur;
          answer_start = k;
          continue;
        }
      }
      std::size_t m = math_non_ascii(s, k);
      // full-width ',' ';' ':' before more math join it as the ASCII ones do ("$x$；$y$")
      if (const char w = detail::fullwidth_ascii(s.substr(0, end), k);
          m == 0 && seen && (w == ',' || w == ';' || w == ':') && math_follows(s, k + 3, end)) {
        k += 3;
        continue;
      }
      if (m == 0 && seen && math_follows(s, k + cjk_joiner(s, k), end)) {
        m = cjk_joiner(s, k);
        out.joined = m > 0;
      }
      if (m == 0) {
        if (!seen) {
          out.leading_prose = true;
          break;
        }
        out.cut = true;
        break;
      }
      k += m;
    } else if (const std::size_t tag = c == '<' ? markup_tag_end(s, k, end) : kNpos; tag != kNpos) {
      // markup or a model's end token ("10</s>", "10<|im_end|>") ends the answer; before it, it
      // is skipped
      if (seen) {
        out.cut = trim(s, Range{tag, end}).end > tag;
        break;
      }
      k = tag;
      answer_start = k;
      continue;
    } else if (const std::size_t dots = c == ',' && seen ? dots_after(s, k + 1, end) : 0; dots != 0) {
      k = dots;  // an ellipsis as a list's term: "1, 2, ..., n", "1, 2, 3, ..."
    } else if (c == '.' || c == ',' || c == ';' || c == ':' || c == '?') {
      // punctuation ends the math unless more math follows it ("(1, 2)" is a group; "1, 2, 3")
      if ((c == ',' || c == ';' || c == ':') && seen && math_follows(s, k + 1, end)) {
        ++k;
        continue;
      }
      if (c == ',' && seen) {  // a list's last member after ", and" / ", or": "1, 2, and 3"
        std::size_t j = k + 1;
        while (j < end && is_blank(s[j])) ++j;
        const std::size_t w = letters_end_in(s, j, end);
        const std::string_view word = s.substr(j, w - j);
        if ((word == "and" || word == "or") && math_follows(s, w, end)) {
          out.joined = true;
          k = w;
          continue;
        }
      }
      if (seen) {
        out.cut = trim(s, Range{k + 1, end}).end > k + 1 || c == ',' || c == ';' || c == ':';
        break;
      }
      ++k;
      continue;
    } else if ((c == ')' || c == ']' || c == '}') && seen) {
      // a closer that no group of the phrase opened closes one around it: "(..., then the
      // answer is $n$ )" ends at it
      out.cut = true;
      break;
    } else {
      ++k;  // operators and the rest of ASCII: part of the math
    }
    seen = true;
    math_end = k;
  }
  if (out.leading_prose) {
    // a phrase that starts with words: a text answer ("Yes", "no solution"), or a restating
    // sentence ("Melanie started with 18 vacuum cleaners"), whose one number is the answer;
    // math that only names ("The largest $n$ is 34") is not a second one when the value closes
    // the phrase
    const Objects o = math_objects(s, r.start, end);
    if (o.count == 1 || (o.valued == 1 && o.last_valued.start == o.last.start)) {
      out.answer = trim(s, o.last);
      out.cut = true;
      out.clean = false;
    } else if (o.count > 1) {
      out.clean = false;
    } else if (const std::size_t w = number_words_end(s, r.start, end, true); w > r.start && w < end) {
      // a number in words before other words: "seven apples" (weak: "one of them")
      out.answer = Range{r.start, w};
      out.cut = true;
      out.clean = false;
    }
    return out;
  }
  if (!seen) return out;
  out.answer = trim(s, Range{answer_start, math_end});
  // trailing punctuation and a dangling joiner are not part of the answer
  while (out.answer.end > out.answer.start && !ends_with_list_ellipsis(s, out.answer.start, out.answer.end)) {
    const char c = s[out.answer.end - 1];
    if (c == ',' || c == ';' || c == ':' || c == '.' || c == '*') {
      --out.answer.end;
      out.answer = trim(s, out.answer);
      continue;
    }
    break;
  }
  if (out.answer.end <= out.answer.start) {
    out.answer = r;
    out.cut = false;
  } else if (out.cut && std::string_view("+/^=<>").find(s[out.answer.end - 1]) != std::string_view::npos) {
    // the math stops at a word before the operand of its last operator ("10+John's age"): it
    // states no answer of its own; the phrase is read whole, a weak reading (a '-' after a
    // number is a dash of prose as often: "18 - that is, ...")
    out.answer = r;
    out.unit = Range{};
    out.cut = false;
    out.clean = false;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// the count sentence

namespace {

// The count right after a count sentence's verb at k (blanks first, then a word of
// detail::kCountLeads), before a blank and a word: digits ("3", "1,000") or number words
// ("three", "twenty-one"), perhaps in emphasis ("**3**"); an empty range when there is none.
// Never past `end`.
Range count_at(std::string_view s, std::size_t k, std::size_t end) noexcept {
  while (k < end && is_blank(s[k])) ++k;
  for (const std::string_view lead : detail::kCountLeads) {
    if (k + lead.size() < end && detail::istarts_with(s, k, lead) && is_blank(s[k + lead.size()])) {
      k += lead.size();
      while (k < end && is_blank(s[k])) ++k;
      break;
    }
  }
  std::size_t stars = 0;  // markdown emphasis: "**3**"
  while (stars < 2 && k < end && s[k] == '*') {
    ++stars;
    ++k;
  }
  std::size_t stop = k;
  if (k < end && is_digit(s[k])) {
    stop = phrase_number_end(s, k, end);
  } else {
    stop = number_words_end(s, k, end, false);  // a count is never "minus three"
  }
  std::size_t after = stop;
  for (std::size_t q = 0; q < stars; ++q) {
    if (after >= end || s[after] != '*') return Range{k, k};
    ++after;
  }
  if (stop == k || after + 1 >= end || !is_blank(s[after]) || !is_letter(s[after + 1])) return Range{k, k};
  return Range{k, stop};
}

// The count that opens the subject of the sentence s[b, e), "8 of the positive divisors of 900
// are perfect squares." ("Thus, 202 of the integers ... have ..."): its first number, after
// words, blanks and commas only, in digits, right before " of the"; an empty range otherwise.
Range of_the_count(std::string_view s, std::size_t b, std::size_t e) noexcept {
  std::size_t k = b;
  while (k < e && (is_letter(s[k]) || is_space(s[k]) || s[k] == ',')) ++k;
  if (k >= e || !is_digit(s[k]) || (k > b && is_letter(s[k - 1]))) return Range{b, b};
  const std::size_t stop = phrase_number_end(s, k, e);
  if (stop == k || stop + 8 > e || !detail::istarts_with(s, stop, " of the ")) return Range{b, b};
  return Range{k, stop};
}

// The count of the first "there is/are ..." of s[b, e) that states one, else the count that
// opens its subject (of_the_count), or an empty range.
Range sentence_count(std::string_view s, std::size_t b, std::size_t e) noexcept {
  for (std::size_t k = b; k + 5 < e; ++k) {
    if ((s[k] != 't' && s[k] != 'T') || (k > b && is_letter(s[k - 1])) || !detail::istarts_with(s, k, "there")) {
      continue;
    }
    std::size_t q = k + 5;
    if (q < e && s[q] == '\'') {  // "there's"
      if (q + 1 < e && s[q + 1] == 's') {
        const Range c = count_at(s, q + 2, e);
        if (c.end > c.start) return c;
      }
      continue;
    }
    if (q >= e || !is_blank(s[q])) continue;
    while (q < e && is_blank(s[q])) ++q;
    for (const std::string_view verb : detail::kThereBe) {
      if (!detail::istarts_with(s, q, verb) || (q + verb.size() < e && is_letter(s[q + verb.size()]))) continue;
      const Range c = count_at(s, q + verb.size(), e);
      if (c.end > c.start) return c;
    }
  }
  return of_the_count(s, b, e);
}

}  // namespace

namespace internal {

namespace {

// The sentence that holds s[at] with the mark that ends it ("3 bars." with its '.').
Range sentence_with_mark(std::string_view s, std::size_t from, std::size_t at) noexcept {
  const Range r = sentence_at(s, from, at);
  return Range{r.start, std::min(r.end + 1, s.size())};
}

// The first number after a count, up to `stop`: digits, or a number word ("every two females");
// kNpos when there is none.
std::size_t next_number(std::string_view s, std::size_t k, std::size_t stop) noexcept {
  while (k < stop) {
    if (is_digit(s[k])) {
      // an argument, an index or a power names what is counted, no value: "202 of the integers
      // $f(1), \ldots, f(2014)$", "the terms $a_1, a_2$"
      const char before = k > 0 ? s[k - 1] : ' ';
      const char twice = k > 1 ? s[k - 2] : ' ';
      if (before == '_' || before == '^' || (before == '(' && is_letter(twice)) ||
          (before == '{' && (twice == '_' || twice == '^'))) {
        while (k < stop && is_digit(s[k])) ++k;
        continue;
      }
      return k;
    }
    if (is_letter(s[k])) {  // a word: runs start after a non-letter (the count ends before a blank or '*')
      const std::size_t w = letters_end_in(s, k, stop);
      if (detail::number_word_value(s.substr(k, w - k)) >= 0) return k;
      k = w;
      continue;
    }
    ++k;
  }
  return kNpos;
}

// Whether the number at d comes right after a reference word (detail::kReferenceWords), over its
// sign, blanks and '$', no further back than `begin`.
bool introduced_by_reference(std::string_view s, std::size_t begin, std::size_t d) noexcept {
  std::size_t w = d;
  if (w > begin && (s[w - 1] == '-' || s[w - 1] == '+')) --w;
  while (w > begin && (is_blank(s[w - 1]) || s[w - 1] == '$')) --w;
  std::size_t b = w;
  while (b > begin && is_letter(s[b - 1])) --b;
  return b != w && word_in(s, b, w, detail::kReferenceWords);
}

// The count of the count sentence [r) when every number after it is a reference value, the
// first introduced by a reference word; else an empty range.
Range count_of(std::string_view s, Range r) noexcept {
  const Range count = sentence_count(s, r.start, r.end);
  if (count.end <= count.start) return count;
  const std::size_t d = next_number(s, count.end, r.end);
  if (d != kNpos && !introduced_by_reference(s, count.end, d)) return Range{count.start, count.start};
  return count;
}

// A final-statement rule's reading `r` of the last-number answer `e`: `e` becomes r, and the
// reading it was, r's rival (no certain FALSE while the rival matches).
void read_instead(std::optional<Extraction>& e, Range r) {
  Extraction reading;
  reading.method = Method::kLastNumber;
  reading.start = r.start;
  reading.end = r.end;
  if (e) reading.rivals.push_back(Range{e->start, e->end});
  e = std::move(reading);
}

}  // namespace

void read_count_sentence(std::string_view s, std::size_t from, std::optional<Extraction>& e) {
  Range count{0, 0};
  if (e) {
    // the sentence of the last number: the count before it ("There are 3 bars with values
    // below 40.") or the last number itself
    const Range sentence = sentence_with_mark(s, from, e->start);
    count = count_of(s, sentence);
    if (count.end > count.start && (count.start == e->start || count.end > e->start)) return;
  }
  if (count.end <= count.start) {
    // the text's last sentence, after the last number: "... there are three objects left."
    std::size_t last = s.size();
    while (last > from && is_space(s[last - 1])) --last;
    if (last <= from || (e && last <= e->end)) return;
    const Range sentence = sentence_with_mark(s, from, last - 1);
    if (e && sentence.start < e->end) return;
    count = count_of(s, sentence);
    if (count.end <= count.start) return;
  }
  read_instead(e, count);
}

namespace {

// Bold spans read_bold_value reads at most (more are a structure: steps, labels), and the
// bytes and words of one.
constexpr std::size_t kMaxBoldSpans = 16;
constexpr std::size_t kMaxBoldBytes = 60;
constexpr std::size_t kMaxBoldWords = 4;

// The one number of the bold span s[open, close) ("**52**", "**week 3**", "**$1,578**"), or an
// empty range: a span of more than kMaxBoldWords words or kMaxBoldBytes bytes, over a line
// break, a label ("**Step 1:**"), an expression ("**158 + LK**": an operator or a command), or
// with no number or two.
Range bold_number(std::string_view s, std::size_t open, std::size_t close) {
  const std::string_view content = detail::trim(s.substr(open, close - open));
  if (close - open > kMaxBoldBytes || content.empty() || content.back() == ':' ||
      content.find_first_of("\n+*/=^<>\\") != std::string_view::npos) {
    return Range{0, 0};
  }
  std::size_t words = 0;
  for (std::size_t k = 0; k < content.size(); ++k) {
    if (!is_space(content[k]) && (k == 0 || is_space(content[k - 1]))) ++words;
  }
  if (words > kMaxBoldWords) return Range{0, 0};
  const std::optional<Extraction> last = find_last_number(s.substr(0, close), open);
  if (!last || find_last_number(s.substr(0, last->start), open)) return Range{0, 0};
  return Range{last->start, last->end};
}

}  // namespace

void read_bold_value(std::string_view s, std::size_t from, std::optional<Extraction>& e) {
  Range value{0, 0};
  std::size_t spans = 0;
  for (std::size_t k = detail::find_str(s, from, "**"); k < s.size();) {
    const std::size_t open = k + 2;
    const std::size_t close = detail::find_str(s, open, "**");
    if (close >= s.size() || ++spans > kMaxBoldSpans) return;  // unbalanced markup, or a structure
    const Range number = bold_number(s, open, close);
    if (number.end <= number.start) return;
    if (value.end > value.start &&
        s.substr(number.start, number.end - number.start) != s.substr(value.start, value.end - value.start)) {
      return;  // two numbers in bold
    }
    if (value.end <= value.start) value = number;
    k = detail::find_str(s, close + 2, "**");
  }
  if (value.end <= value.start) return;
  if (e && s.substr(e->start, e->end - e->start) == s.substr(value.start, value.end - value.start)) return;
  read_instead(e, value);
}

}  // namespace internal

}  // namespace rapidgrade::extract
