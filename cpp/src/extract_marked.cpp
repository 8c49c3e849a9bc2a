// The marker rules of extraction: "the answer is X" (answer_is), <answer>X</answer> and "#### X"
// (tagged), the "A: X" line, the CJK markers, and the output block after code (code_output).
// The value after a marker is read by the answer phrase reader (extract_phrase.cpp).
#include "extract_internal.hpp"

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/parts.hpp"

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
using detail::rfind_pair_icase;
using detail::rfind_str;
using detail::starts_with;

namespace {

// ---------------------------------------------------------------------------------------------
// answer_is

// Removes one pair of surrounding markdown "**", then one layer of math delimiters around the
// whole value (detail::unwrap; one layer, so "$\(x\)$" keeps "\(x\)", as extraction always has).
Range strip_answer_delimiters(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  if (r.end - r.start >= 4 && starts_with(s, r.start, "**") && s.compare(r.end - 2, 2, "**") == 0) {
    r = Range{r.start + 2, r.end - 2};
  }
  return range_of(s, detail::unwrap(s.substr(r.start, r.end - r.start), detail::Wrappers::kMath, 1));
}

// The end of a list of enumerated parts (detail/parts.hpp) that starts at s[r.start] and may go
// on past r.end, its first sentence or line: over sentence ends and single line breaks, as long
// as the text there starts with the list's next label ("(1) 5.\n(2) 7."); never past `limit`.
// r.end when r starts no list.
std::size_t parts_end(std::string_view s, Range r, std::size_t limit) {
  detail::PartStyle style{};
  std::size_t label = 0;
  limit = std::min(limit, s.size());
  if (!detail::first_part_label(s.substr(0, limit), r.start, style, label)) return r.end;
  std::size_t end = std::max(r.end, std::min(sentence_end(s, label), limit));
  std::size_t starts[detail::kMaxParts];
  std::size_t ends[detail::kMaxParts];
  for (int count = detail::part_labels(s, r.start, end, starts, ends); count < detail::kMaxParts;) {
    std::size_t k = end;
    int breaks = 0;
    while (k < limit && (is_space(s[k]) || s[k] == '.' || s[k] == '!' || s[k] == '?')) breaks += s[k++] == '\n';
    if (breaks > 1 || k >= limit) break;
    const std::size_t next = detail::part_label_end(s.substr(0, limit), k, style, count + 1);
    if (next == kNpos) break;
    end = std::max(k + 1, std::min(sentence_end(s, next), limit));
    const int now = detail::part_labels(s, r.start, end, starts, ends);
    if (now <= count) break;
    count = now;
  }
  return end;
}

// The answer after a marker, starting at j and read no further than `limit`: whitespace (newlines
// too) skipped, then a display block ($$...$$ or \[...\]) or the answer phrase of the rest of the
// sentence/line (read_answer_phrase).
Phrase answer_value(std::string_view s, std::size_t j, std::size_t limit = kNpos) {
  const std::size_t n = std::min(s.size(), limit);
  Phrase p;
  while (j < n && is_space(s[j])) ++j;
  if (j == n) {
    p.answer = Range{j, j};
    return p;
  }
  if (starts_with(s, j, "$$") || starts_with(s, j, "\\[")) {
    const bool dollars = s[j] == '$';
    const std::size_t close = detail::find_math_closer(s.substr(0, n), j + 2, dollars ? "$$" : "\\]");
    if (close != kNpos) {
      p.answer = strip_answer_delimiters(s, Range{j, close + 2});
      return p;
    }
  }
  Range phrase = trim(s, Range{j, std::min(sentence_end(s, j), n)});
  phrase.end = parts_end(s, phrase, s.size());  // a list of parts may go on over the line's end
  p = read_answer_phrase(s, phrase);
  p.answer = strip_answer_delimiters(s, p.answer);
  // a chain or a computation states its last member: "9 * 2 = 18" -> "18", "x = 5" stays
  if (!p.leading_prose && !p.joined && !p.parts && p.answer.end > p.answer.start) p.answer = span_answer(s, p.answer);
  return p;
}

// The extraction of a marker's reading.
Extraction marked(Method method, const Phrase& p) {
  Extraction e;
  e.method = method;
  e.start = p.answer.start;
  e.end = p.answer.end;
  e.unit = p.unit;
  e.clean = p.clean;
  return e;
}

// True when s[b, i) holds only '#', '*', blanks and the word "final" (either case), back to a
// line start or `from`: "# Answer", "## Final Answer", "**Answer**".
bool heading_before(std::string_view s, std::size_t from, std::size_t i) noexcept {
  std::size_t b = i;
  while (b > from && s[b - 1] != '\n') {
    const char c = s[b - 1];
    if (c == '#' || c == '*' || is_blank(c)) {
      --b;
    } else if (b >= from + 5 && istarts_with(s, b - 5, "final") && (b - 5 == from || !is_letter(s[b - 6]))) {
      b -= 5;
    } else {
      return false;
    }
  }
  return true;
}

// Words that may name what an answer answers: "the answer to the question is",
// "the answer to this problem is".
constexpr std::size_t kMaxAnswerToWords = 4;

// After "answer to" at j (the blank after "to"): the position of the "is" that ends "the answer to
// the question is", up to kMaxAnswerToWords words of letters later, or kNpos.
std::size_t answer_to_is(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  for (std::size_t words = 0; words <= kMaxAnswerToWords; ++words) {
    const std::size_t b = j;
    while (j < n && is_blank(s[j])) ++j;
    if (j == b) return kNpos;
    const std::size_t w = detail::letters_end(s, j);
    if (w == j) return kNpos;
    if (w - j == 2 && istarts_with(s, j, "is") && words > 0) return j;
    j = w;
  }
  return kNpos;
}

// After "answer" at i: the position where the answer starts, or kNpos when no marker follows.
// Accepted: "answer is", "answer is:", "answer:", "answer**:", "answer:**", "answer** is", "answer
// to the question is" (answer_to_is), and a heading line "# Answer" / "**Final Answer**" whose
// answer is on the next lines.
std::size_t after_marker(std::string_view s, std::size_t from, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t j = i + 6;
  if (starts_with(s, j, "**")) j += 2;
  while (j < n && is_blank(s[j])) ++j;
  if (istarts_with(s, j, "to") && j + 2 < n && is_blank(s[j + 2])) {
    const std::size_t is = answer_to_is(s, j + 2);
    if (is != kNpos) j = is;
  }
  if (j < n && s[j] == ':') {
    ++j;
    if (starts_with(s, j, "**")) j += 2;
    return j;
  }
  if (istarts_with(s, j, "is") && (j + 2 >= n || !is_letter(s[j + 2]))) {
    j += 2;
    while (j < n && is_blank(s[j])) ++j;
    if (j < n && s[j] == ':') ++j;
    return j;
  }
  if (j < n && (s[j] == '\n' || s[j] == '\r') && heading_before(s, from, i)) return j;
  return kNpos;
}

// The longest value read before a kValueBefore marker ("$...$ is the answer"), in bytes.
constexpr std::size_t kMaxValueBefore = 256;

// The start of the whole word of `table` (ASCII, either case) that ends s[from, k) after blanks,
// or kNpos. Phrases of two words ("must be") match with one blank between.
template <std::size_t N>
std::size_t word_before(std::string_view s, std::size_t from, std::size_t k,
                        const std::string_view (&table)[N]) noexcept {
  while (k > from && is_blank(s[k - 1])) --k;
  for (const std::string_view w : table) {
    if (detail::word_ends_at(s, from, k, w)) return k - w.size();
  }
  return kNpos;
}

// The value of a kValueBefore marker (detail/markers.hpp) whose "answer" starts at s[i], before
// its words ("6 is the correct answer.", "$x=2$ must be the only answer,"), or an empty range:
// a math span in '$' or a number (digits, '.', ',', '/', '%', a sign) that starts after a blank,
// a line start or `from`, not after "if" or "whether". O(kMaxValueBefore).
Range value_before_answer(std::string_view s, std::size_t from, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t q = i + 6;
  if (q < n && is_letter(s[q])) return Range{};  // "answers"
  while (q < n && is_blank(s[q])) ++q;
  if (q < n && std::string_view(".,;!\n\r").find(s[q]) == std::string_view::npos) return Range{};
  std::size_t k = i;
  if (const std::size_t a = word_before(s, from, k, detail::kValueBeforeAdjectives); a != kNpos) k = a;
  k = word_before(s, from, k, detail::kValueBeforeDeterminers);
  if (k != kNpos) k = word_before(s, from, k, detail::kValueBeforeVerbs);
  if (k == kNpos) return Range{};
  while (k > from && is_blank(s[k - 1])) --k;
  const std::size_t end = k;
  const std::size_t stop = end > from + kMaxValueBefore ? end - kMaxValueBefore : from;
  if (end > stop && s[end - 1] == '$') {
    k = end - 1;
    while (k > stop && s[k - 1] != '$' && s[k - 1] != '\n') --k;
    if (k == stop || s[k - 1] != '$' || (k > from + 1 && s[k - 2] == '$')) return Range{};
    --k;
  } else {
    while (k > stop && (is_digit(s[k - 1]) || std::string_view(".,/%").find(s[k - 1]) != std::string_view::npos)) --k;
    while (k < end && !is_digit(s[k])) ++k;  // the punctuation before the first digit is no value's
    if (k == end) return Range{};
    if (k > stop && s[k - 1] == '-') --k;
  }
  if (k > from && !is_space(s[k - 1])) return Range{};
  if (word_before(s, from, k, detail::kValueBeforeConditions) != kNpos) return Range{};
  return Range{k, end};
}

std::optional<Extraction> find_answer_is(std::string_view s, std::size_t from, const Anchors& anchors,
                                         std::size_t& marker) {
  const std::size_t n = s.size();
  // Candidates are found by the "sw" of "answer" in either case (rfind_pair_icase), from the
  // end backwards: the last marker wins, and its answer starts after every earlier marker's
  // (between "answer" and where after_marker's answer starts there are only '*', blanks, ':'
  // and "is", so no other "answer" begins there), so the search stops at the first marker found.
  std::size_t last = kNpos;
  for (std::size_t p = rfind_pair_icase(s, from + 2, anchors.sw_end, 's', 'w'); p != kNpos;
       p = rfind_pair_icase(s, from + 2, p + 1, 's', 'w')) {
    const std::size_t i = p - 2;
    if (!istarts_with(s, i, "answer")) continue;
    if (i > from && is_letter(s[i - 1])) continue;
    last = after_marker(s, from, i);
    if (last != kNpos) {
      marker = i;
      break;
    }
    if (const Range before = value_before_answer(s, from, i); before.end > before.start) {
      // "6 is the correct answer.": the value before the marker, and the chain it states
      marker = i;
      Phrase p;
      p.answer = strip_answer_delimiters(s, before);
      if (p.answer.end <= p.answer.start) return std::nullopt;
      p.answer = span_answer(s, p.answer);
      return marked(Method::kAnswerIs, p);
    }
  }
  if (last == kNpos) return std::nullopt;
  const Phrase p = answer_value(s, last);
  const Range r = p.answer;
  if (r.end <= r.start) return std::nullopt;
  Extraction e = marked(Method::kAnswerIs, p);
  // The answer stopped at a sentence end with more of its line after it ("Yes. $F(x,y)=...$"):
  // the whole line is the other reading, for a gold of several sentences.
  std::size_t line_end = r.end;
  while (line_end < n && s[line_end] != '\n' && s[line_end] != '\r') ++line_end;
  const Range whole = trim(s, Range{r.start, line_end});
  if (whole.end > r.end + 1) e.others.push_back(whole);
  return e;
}

// ---------------------------------------------------------------------------------------------
// tagged

std::size_t line_end(std::string_view s, std::size_t i) noexcept { return find_byte(s, i, '\n'); }

// The position of the next `marker` at or after pos that begins a line of s[from, n) (only
// blanks before it on its line), or kNpos; `line_start` is set to the start of that line.
// Searches for the marker's first byte with memchr ('#' and '`' are rare in prose and LaTeX).
std::size_t next_marker_line(std::string_view s, std::size_t from, std::size_t pos, std::string_view marker,
                             std::size_t& line_start) noexcept {
  const std::size_t n = s.size();
  for (std::size_t p = find_byte(s, pos, marker[0]); p < n; p = find_byte(s, p + 1, marker[0])) {
    if (!starts_with(s, p, marker)) continue;
    std::size_t b = p;
    while (b > from && is_blank(s[b - 1])) --b;
    if (b == from || s[b - 1] == '\n') {
      line_start = b;
      return p;
    }
  }
  return kNpos;
}

// "#### X": X is a plain number, possibly with '$', separators, sign, '/' and spaces.
bool gsm8k_value(std::string_view s, Range r) noexcept {
  bool digit = false;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (is_digit(c)) {
      digit = true;
    } else if (starts_with(s.substr(0, r.end), k, kUnicodeMinus)) {
      k += 2;
    } else if (!(c == ',' || c == '.' || c == '-' || c == '+' || c == '/' || c == ' ' || c == '$')) {
      return false;
    }
  }
  return digit;
}

std::optional<Extraction> find_tagged(std::string_view s, std::size_t from, const Anchors& anchors,
                                      std::size_t& marker) {
  // <answer>X</answer>: the last closing tag and the last opening tag before it, searched for
  // from the end.
  const std::size_t base = std::min(from, s.size());
  std::optional<Extraction> tag;
  std::size_t close = anchors.close_tag ? rfind_str(s.substr(base), "</answer>") : kNpos;
  if (close != kNpos) {
    close += base;
    std::size_t open = rfind_str(s.substr(base, close - base), "<answer>");
    if (open != kNpos) {
      open += base;
      const Range r = trim(s, Range{open + 8, close});
      if (r.end > r.start) {
        Extraction e;
        e.method = Method::kTagged;
        e.start = r.start;
        e.end = r.end;
        tag = e;
        marker = open;
      }
    }
  }
  // #### X at the start of a line (after blanks), the last valid one.
  if (!anchors.hash) return tag;
  std::optional<Range> best;
  std::size_t best_at = 0;
  std::size_t line_start = 0;
  for (std::size_t k = next_marker_line(s, from, from, "####", line_start); k != kNpos;) {
    const std::size_t eol = line_end(s, k);
    Range r = trim(s, Range{k + 4, eol});
    while (r.end > r.start && s[r.end - 1] == '.') --r.end;
    r = trim(s, r);
    if (r.end > r.start && !gsm8k_value(s, r)) {
      // "#### 18 eggs": a number and words after a blank ("#### 1. Compute", "#### Step 2" are
      // headings), or a number and an end token ("#### 18</s>")
      const Phrase p = read_answer_phrase(s, r);
      std::size_t w = p.answer.end;
      while (w < r.end && is_blank(s[w])) ++w;
      const bool words = w > p.answer.end && w < r.end && is_letter(s[w]);
      const bool token = w < r.end && markup_tag_end(s, w, r.end) != kNpos;
      r = !p.leading_prose && (words || token) ? p.answer : Range{};
    }
    if (r.end > r.start && gsm8k_value(s, r)) {
      best = r;
      best_at = k;
    }
    k = eol < s.size() ? next_marker_line(s, from, eol + 1, "####", line_start) : kNpos;
  }
  if (!best || (tag && marker > best_at)) return tag;
  Extraction e;
  e.method = Method::kTagged;
  e.start = best->start;
  e.end = best->end;
  marker = best_at;
  return e;
}

// "A: 18" on the last line that starts with "A:" (GSM8K's few-shot style).
std::optional<Extraction> find_a_line(std::string_view s, std::size_t from, const Anchors& anchors,
                                      std::size_t& marker) {
  if (!anchors.a_colon) return std::nullopt;
  std::size_t end = s.size();
  while (end > from) {
    std::size_t p = rfind_str(s.substr(from, end - from), "A:");
    if (p == kNpos) return std::nullopt;
    p += from;
    std::size_t b = p;
    while (b > from && is_blank(s[b - 1])) --b;
    // "A: 18", not "A:B:C = 2:3:4"
    if ((b == from || s[b - 1] == '\n') && p + 2 < s.size() && is_blank(s[p + 2])) {
      const Phrase ph = answer_value(s, p + 2, line_end(s, p + 2));
      if (ph.answer.end <= ph.answer.start) return std::nullopt;
      marker = p;
      return marked(Method::kAnswerIs, ph);
    }
    end = p + 1;
  }
  return std::nullopt;
}

// After a marker at j: past blanks and one colon, ASCII or full-width ("："), when a colon
// follows; j itself when none does.
std::size_t after_colon(std::string_view s, std::size_t j) noexcept {
  std::size_t k = j;
  while (k < s.size() && is_blank(s[k])) ++k;
  if (k < s.size() && s[k] == ':') return k + 1;
  if (detail::fullwidth_ascii(s, k) == ':') return k + 3;
  return j;
}

// The CJK markers: "【答案】X<eoa>" (X to "<eoa>" or the line end), "答案是 X", "答案为 X",
// "答案：X", and a last clause "所以/因此 ... 为/是 X" that ends the text.
std::optional<Extraction> find_cjk(std::string_view s, std::size_t from, const Anchors& anchors, std::size_t& marker) {
  if (!anchors.non_ascii) return std::nullopt;
  const std::size_t n = s.size();
  std::optional<Extraction> out;
  const std::size_t a = from < n ? rfind_str(s.substr(from), detail::kCjkAnswer) : kNpos;
  if (a != kNpos) {
    const std::size_t p = from + a;
    std::size_t j = p + detail::kCjkAnswer.size();
    const bool tag = p >= from + 3 && s.compare(p - 3, 3, "\xE3\x80\x90") == 0 && starts_with(s, j, "\xE3\x80\x91");
    if (tag) {
      j = after_colon(s, j + 3);  // "【答案】: A <eoa>"
      const std::size_t eol = line_end(s, j);
      const std::size_t eoa = find_str(s.substr(0, eol), j, detail::kEndOfAnswerTag);
      Range r{j, eoa == kNpos ? eol : eoa};
      if (eoa == kNpos) {  // parts on lines of their own: "【答案】(1) 5\n(2) 7<eoa>"
        const std::size_t close = find_str(s, j, detail::kEndOfAnswerTag);
        r.end = parts_end(s, r, close == kNpos ? n : close);
      }
      Phrase ph = read_answer_phrase(s, r);
      ph.answer = strip_answer_delimiters(s, ph.answer);
      if (ph.answer.end > ph.answer.start) {
        out = marked(Method::kTagged, ph);
        marker = p - 3;
      }
    } else {
      while (j < n && is_blank(s[j])) ++j;
      bool copula = false;
      for (const std::string_view w : {detail::kCjkIs, detail::kCjkBe}) {
        if (starts_with(s, j, w)) {
          j += w.size();
          copula = true;
          break;
        }
      }
      const std::size_t colon = after_colon(s, j);
      copula = copula || colon != j;
      j = colon;
      if (copula) {
        const Phrase ph = answer_value(s, j, line_end(s, j));
        if (ph.answer.end > ph.answer.start) {
          out = marked(Method::kAnswerIs, ph);
          marker = p;
        }
      }
    }
  }
  // 所以/因此 ... 为/是 X, the last clause of the text
  std::size_t conclusion = kNpos;
  for (const std::string_view w : detail::kCjkConclusions) {
    const std::size_t c = from < n ? rfind_str(s.substr(from), w) : kNpos;
    if (c != kNpos && (conclusion == kNpos || from + c > conclusion)) conclusion = from + c;
  }
  if (conclusion == kNpos || (out && marker > conclusion)) return out;
  const std::size_t eol = line_end(s, conclusion);
  // the copula: the last 为/是 of the clause's line
  std::size_t copula = kNpos;
  for (const std::string_view w : {detail::kCjkIs, detail::kCjkBe}) {
    const std::size_t c = rfind_str(s.substr(conclusion, eol - conclusion), w);
    if (c != kNpos && (copula == kNpos || conclusion + c > copula)) copula = conclusion + c;
  }
  if (copula == kNpos) return out;
  Phrase ph = answer_value(s, copula + 3, eol);
  if (ph.answer.end <= ph.answer.start) return out;
  // only what ends the text: punctuation and blanks may follow the answer
  for (std::size_t k = std::max(ph.answer.end, ph.unit.end); k < n;) {
    if (is_space(s[k]) || s[k] == '.' || s[k] == '$') {
      ++k;
    } else if (starts_with(s, k, detail::kIdeographicFullStop)) {
      k += 3;
    } else {
      return out;
    }
  }
  marker = conclusion;
  return marked(Method::kAnswerIs, ph);
}

}  // namespace

namespace internal {

// The answer of the marker nearest the end of s[from, n) among the marker rules (answer_is,
// tagged, the "A:" line, the CJK markers), each with its last marker; `which` keeps only the
// rules of one method (kAuto: all). The answers of the other rules that differ from it in text
// are its rivals.
std::optional<Extraction> find_marked(std::string_view s, std::size_t from, const Anchors& anchors, Method which) {
  std::optional<Extraction> found[4];
  std::size_t at[4] = {0, 0, 0, 0};
  const bool all = which == Method::kAuto;
  if (all || which == Method::kAnswerIs) found[0] = find_answer_is(s, from, anchors, at[0]);
  if (all || which == Method::kTagged) found[1] = find_tagged(s, from, anchors, at[1]);
  if (all || which == Method::kAnswerIs) found[2] = find_a_line(s, from, anchors, at[2]);
  found[3] = find_cjk(s, from, anchors, at[3]);
  if (found[3] && !all && found[3]->method != which) found[3].reset();
  int best = -1;
  for (int k = 0; k < 4; ++k) {
    if (found[k] && (best < 0 || at[k] > at[best])) best = k;
  }
  if (best < 0) return std::nullopt;
  Extraction e = std::move(*found[best]);
  e.marker = at[best];
  const std::string_view text = s.substr(e.start, e.end - e.start);
  for (int k = 0; k < 4; ++k) {
    if (k == best || !found[k]) continue;
    if (s.substr(found[k]->start, found[k]->end - found[k]->start) != text) {
      e.rivals.push_back(Range{found[k]->start, found[k]->end});
    }
  }
  return e;
}

}  // namespace internal

namespace {

// ---------------------------------------------------------------------------------------------
// code_output

}  // namespace

namespace internal {

std::optional<Extraction> find_code_output(std::string_view s, std::size_t from, const Anchors& anchors) {
  if (!anchors.fence) return std::nullopt;
  const std::size_t n = s.size();
  bool in_block = false;
  bool block_is_output = false;
  bool seen_code = false;
  std::size_t content_start = 0;
  std::optional<Range> best;
  std::size_t i = 0;  // start of the fence line
  for (std::size_t k = next_marker_line(s, from, from, "```", i); k != kNpos;) {
    const std::size_t eol = line_end(s, k);
    {
      const Range info = trim(s, Range{k + 3, eol});
      if (!in_block) {
        std::size_t w = info.start;
        while (w < info.end && !is_space(s[w])) ++w;
        const std::string_view lang = s.substr(info.start, w - info.start);
        auto ieq = [&](std::string_view word) { return lang.size() == word.size() && istarts_with(lang, 0, word); };
        block_is_output = ieq("output") || ieq("text");
        in_block = true;
        content_start = eol < n ? eol + 1 : n;
      } else if (info.end == info.start) {
        if (block_is_output && seen_code) {
          const Range r = trim(s, Range{content_start, i});
          if (r.end > r.start) best = r;
        }
        if (!block_is_output) seen_code = true;
        in_block = false;
      }
    }
    k = eol < n ? next_marker_line(s, from, eol + 1, "```", i) : kNpos;
  }
  if (!best) return std::nullopt;
  Extraction e;
  e.method = Method::kCodeOutput;
  e.start = best->start;
  e.end = best->end;
  return e;
}

}  // namespace internal

}  // namespace rapidgrade::extract
