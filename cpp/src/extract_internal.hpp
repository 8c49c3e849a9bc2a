// What the sources of extraction share (private to cpp/src): the anchors read before the rules,
// the small range helpers, and the functions one rule's file calls in another's.
//
//   extract.cpp          the cascade (extract_answer, other_readings), the anchors, boxed,
//                        choice, bare
//   extract_marked.cpp   the marker rules: answer_is, tagged, the "A:" line, the CJK markers,
//                        code_output
//   extract_phrase.cpp   the answer phrase reader (read_answer_phrase), which reads the value
//                        after a marker
//   extract_math.cpp     the rule that reads the math spans of a text without a marker:
//                        final_span
//   extract_number.cpp   the rule that reads its numbers: last_number, and the numbers of the
//                        final sentence
//   extract_bold.cpp     the bolded answer of a competition write-up, read by final_span
//   extract_domain.cpp   the quantifier domains after an answer, which final_span skips
//   simd_avx2.cpp        the AVX2 form of the anchors' vector loop (anchors_vector)
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/simd.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/extract.hpp"

namespace rapidgrade::extract::internal {

inline constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";  // U+2212

/// r narrowed past leading and trailing whitespace of s.
inline Range trim(std::string_view s, Range r) noexcept {
  detail::trim_bounds(s, r.start, r.end);
  return r;
}

/// The range of `part`, a view into s.
inline Range range_of(std::string_view s, std::string_view part) noexcept {
  const std::size_t start = detail::offset_in(s, part);
  return Range{start, start + part.size()};
}

/// Whether s[a, b) ends with an ellipsis of three dots or more after a comma, a list's last term
/// ("1, 2, 3, ..."), which no trimming of trailing dots removes.
inline bool ends_with_list_ellipsis(std::string_view s, std::size_t a, std::size_t b) noexcept {
  std::size_t d = b;
  while (d > a && s[d - 1] == '.') --d;
  if (b - d < 3) return false;
  while (d > a && detail::is_blank(s[d - 1])) --d;
  return d > a && s[d - 1] == ',';
}

/// Thousands separators met in a forward scan of s[start, end): at each byte k, call at(k). A
/// comma at k separates thousands when at(k) is true: when it lies in the groups of the number
/// whose run of digits and commas it belongs to, as the number grammar reads them
/// (detail::thousands_end: "1,000,000"; "0,198" and "1234,567" have none).
class CommaGroups {
 public:
  CommaGroups(std::string_view s, std::size_t start, std::size_t end) : s_(s.substr(0, end)), start_(start) {}

  /// Reads s[k]; true when it is a comma inside a number's thousands groups.
  bool at(std::size_t k) noexcept {
    const char c = s_[k];
    if (detail::is_digit(c) && (k == start_ || !(detail::is_digit(s_[k - 1]) || s_[k - 1] == ','))) {
      grouped_end_ = detail::thousands_end(s_, k, detail::digits_end(s_, k), detail::GroupSeparators::kComma);
    }
    return c == ',' && k < grouped_end_;
  }

 private:
  std::string_view s_;
  std::size_t start_;
  std::size_t grouped_end_ = 0;  // end of the groups of the number last started
};

/// A multiple-choice letter, A-J.
inline bool is_choice_letter(char c) noexcept { return c >= 'A' && c <= 'J'; }

/// Whether the word s[b, e) is one of `words` (ASCII), ignoring case.
template <std::size_t N>
bool word_in(std::string_view s, std::size_t b, std::size_t e, const std::string_view (&words)[N]) noexcept {
  for (const std::string_view w : words) {
    if (w.size() == e - b && detail::istarts_with(s, b, w)) return true;
  }
  return false;
}

/// End of the run of ASCII letters starting at `i`, at most `end`.
inline std::size_t letters_end_in(std::string_view s, std::size_t i, std::size_t end) noexcept {
  return detail::letters_end(s.substr(0, end), i);
}

// ---------------------------------------------------------------------------------------------
// anchors (extract.cpp)

/// What the rules of the auto strategy after the box search look for, read in one pass over
/// s[from, n) once no box is found (find_anchors): a rule whose anchor is absent cannot match and
/// is skipped, and the backward searches start at their last anchor. Each rule alone (a named
/// strategy) gets Anchors{}, which lets it search the whole region as before. The box
/// search runs first on its own: most responses end with a box, and it needs no other anchor.
/// The anchors are bytes, or pairs of bytes rarer than either alone, that every match holds:
/// - "sw" in either case: "answer";
/// - "r>": "</answer>"; '#': "####"; '`': a "```" fence;
/// - "n{": "\begin{", the math environments;
/// - "A:": the GSM8K answer line; any byte >= 0x80: the CJK markers (detail/markers.hpp).
struct Anchors {
  std::size_t sw_end = detail::kNpos;  // the backward search for "sw" starts before sw_end (0: none)
  bool close_tag = true;
  bool hash = true;
  bool fence = true;
  std::size_t begin_from = 0;  // the search for "\begin{" starts at max(from, begin_from)
  bool a_colon = true;         // "A:", the GSM8K answer line
  bool non_ascii = true;       // a byte >= 0x80: the CJK markers
};

/// The anchors of s[from, n) (extract.cpp). O(n - from).
Anchors find_anchors(std::string_view s, std::size_t from) noexcept;

/// What find_anchors' loops have read so far: the existence anchors, the last "sw" (its 's')
/// and the first "n{" (kNpos: none yet). Plain data, filled by the loop of every instruction set.
struct AnchorScan {
  bool close_tag = false;
  bool hash = false;
  bool fence = false;
  bool a_colon = false;
  bool non_ascii = false;
  std::size_t last_sw = detail::kNpos;
  std::size_t first_nb = detail::kNpos;
};

/// find_anchors' vector loop on V (detail/simd.hpp) over the text [d, d + n): the positions from
/// i a vector at a time, each with the byte after it, while i + V::kLanes + 1 <= n; returns
/// where it stopped. The existence anchors are or-ed into one vector each and read once at the
/// end; the two whose position matters ("sw", "n{") share one mask, decoded only where it is set.
template <class V>
std::size_t anchors_vector(const char* d, std::size_t n, std::size_t i, AnchorScan& a) noexcept {
  const V fold = V::set1(0x20);
  const V sl = V::set1('s'), wl = V::set1('w'), r = V::set1('r'), gt = V::set1('>');
  const V hash = V::set1('#'), tick = V::set1('`'), en = V::set1('n'), brace = V::set1('{');
  const V cap_a = V::set1('A'), colon = V::set1(':');
  V any_tag = V::zero(), any_hash = any_tag, any_fence = any_tag, any_a = any_tag, any_high = any_tag;
  V want_begin = a.first_nb == detail::kNpos ? V::ones() : V::zero();  // all ones until the first "n{"
  for (; i + V::kLanes + 1 <= n; i += V::kLanes) {
    const V w = V::load(d + i);
    const V next = V::load(d + i + 1);
    any_tag = any_tag | ((w == r) & (next == gt));
    any_hash = any_hash | (w == hash);
    any_fence = any_fence | (w == tick);
    any_a = any_a | ((w == cap_a) & (next == colon));
    any_high = any_high | w;
    const V sw = ((w | fold) == sl) & ((next | fold) == wl);
    const V nb = (w == en) & (next == brace) & want_begin;
    if ((sw | nb).mask() != 0) {
      const detail::simd::Mask sw_bits = sw.mask(), nb_bits = nb.mask();
      if (sw_bits != 0) a.last_sw = i + detail::simd::highest(sw_bits);
      if (nb_bits != 0) {
        a.first_nb = i + detail::simd::lowest(nb_bits);
        want_begin = V::zero();
      }
    }
  }
  a.close_tag = a.close_tag || any_tag.mask() != 0;
  a.hash = a.hash || any_hash.mask() != 0;
  a.fence = a.fence || any_fence.mask() != 0;
  a.a_colon = a.a_colon || any_a.mask() != 0;
  a.non_ascii = a.non_ascii || any_high.mask() != 0;
  return i;
}

#if RAPIDGRADE_AVX2_DISPATCH
/// anchors_vector<simd::Avx2> (simd_avx2.cpp): call only where detail::has_avx2().
std::size_t anchors_avx2(const char* d, std::size_t n, std::size_t i, AnchorScan& a) noexcept;
#endif

// ---------------------------------------------------------------------------------------------
// extract_marked.cpp

/// The answer of the marker nearest the end of s[from, n) among the marker rules (answer_is,
/// tagged, the "A:" line, the CJK markers), each with its last marker; `which` keeps only the
/// rules of one method (kAuto: all). The answers of the other rules that differ from it in text
/// are its rivals.
std::optional<Extraction> find_marked(std::string_view s, std::size_t from, const Anchors& anchors, Method which);

/// The content of the last ```output (or ```text) block that follows a code block.
std::optional<Extraction> find_code_output(std::string_view s, std::size_t from, const Anchors& anchors);

// ---------------------------------------------------------------------------------------------
// extract_math.cpp

/// Every math span of s[from, n) in order: $..$, $$..$$, \(..\), \[..\] and the display
/// environments; a span inside an environment is part of it. O(n).
std::vector<Box> math_spans(std::string_view s, std::size_t from, const Anchors& anchors);

/// The bolded answer of a text (extract_bold.cpp): spans[span] holds it, from part_start on.
struct BoldAnswer {
  std::size_t span = 0;
  std::size_t part_start = 0;
};

/// The final_span rule on the spans of math_spans; with `bold`, on the span that holds the
/// bolded answer, read from its part, whatever follows it.
std::optional<Extraction> find_final_span(std::string_view s, const std::vector<Box>& spans,
                                          const BoldAnswer* bold = nullptr);

// ---------------------------------------------------------------------------------------------
// extract_bold.cpp

/// The bolded answer, a convention of competition write-ups: a text that sets numbers in bold
/// (detail::kBoldCommands) and no letter or word, states its answer where it bolds its last
/// number: "$N = 125 + 8 - 1 = \mathbf{1 3 2}$", "$\frac{\mathbf{7 9}}{\mathbf{1 2 8}}$",
/// "$T = 36, [A R M L] = \mathbf{7 4}$" (the part of the span from the comma before its first
/// bold number: "[A R M L] = \mathbf{7 4}"). Nothing when a bold group holds a letter outside a
/// command (a vector, "\mathbf{v}"; a heading, "\textbf{Step 1}"), is longer than 64 bytes, or
/// when the last bold number is in no math span. O(length of s).
std::optional<BoldAnswer> bold_answer(std::string_view s, std::size_t from, const std::vector<Box>& spans);

// ---------------------------------------------------------------------------------------------
// extract_domain.cpp

/// Whether the math span `b` is a quantifier's domain after the answer it qualifies: it names
/// variables in a set of numbers and nothing else ("x \in \mathbb{R}^{+}", "k \in \mathbb{Z}",
/// "n \in \mathbb{N} \setminus \{0\}"), and it opens with \forall, or a comma or a quantifier
/// word (detail::kQuantifierWords: "for all", "where", ...) is right before it. "So $x \in
/// \mathbb{R}$." is an answer; so is "x \in [0, 1]".
bool quantifier_domain(std::string_view s, const Box& b) noexcept;

/// final_span as the cascade reads it: the bolded answer's span (bold_answer), else the last.
std::optional<Extraction> final_span_reading(std::string_view s, std::size_t from, const std::vector<Box>& spans);

/// The bold answer after a marked one, for the cascade: when `e` was read after an "answer is"
/// marker and, from its start, every bold group of text is a number (bold_answer) and the last one
/// lies in a later math span than the one `e` was read from ("so the answer is $\min\{-m,-n\}$.
/// With $m=7, n=8$, $\min\{-7,-8\}$ is $\mathbf{-8}$."; ARML's solutions bold their final
/// value), the final_span reading of that span replaces `e`, with `e` as its rival, read in the
/// final statement of `text` (final_statement_end). O(n) when it bolds something after `e`, else
/// a scan for the bold commands' letters.
void read_bold_after_marker(std::string_view text, std::size_t from, const Anchors& anchors,
                            std::optional<Extraction>& e);

/// The last number of s from `from`, as a forward scan of the whole region reads it.
std::optional<Extraction> find_last_number(std::string_view s, std::size_t from);

/// Widens a last number inside spaced bold digits ("**6 2 4 8**") to the whole group.
void widen_bold_digits(std::string_view s, std::size_t from, Extraction& e) noexcept;

/// Widens a last number to the object it is part of: a ratio or a time ("3:1", "4:30"), a
/// percentage ("50%", "50\\%"), a parenthesized list of numbers ("(1, 2)"), or the argument of
/// a function ("f(0)"). "The ratio is 3:1." states 3:1, not 1; "The probability is 50%."
/// states 50% (0.5 as much as 50); "the value of f(0)" states no number at all.
void widen_number_object(std::string_view s, std::size_t from, Extraction& e) noexcept;

/// Whether text[b, e) (the inside of a group in parentheses) is the computation of a result from
/// numbers ("3 boxes × 5 balls", "20 - 12", "3 × $15"): it starts with a digit or '$' and holds
/// only numbers, blanks, '$', the operators + - * / = × · \\times \\cdot, words of two letters
/// or more and an "x" between blanks, with one operator after an operand at least (in "(1, -2)"
/// the '-' is a sign). "(1, -2)" and "(x + 1)" are none. After an answer, such a group is a
/// remark that shows how it was found.
bool computation(std::string_view text, std::size_t b, std::size_t e) noexcept;

/// Bytes a markup tag or a model's special token may span (markup_tag_end, extract.hpp): the
/// reach of the tag reader, and of the last-number reader's search for a tag's '<'.
constexpr std::size_t kMaxMarkupTag = 32;

/// Where the percent sign right after a number ending at s[k] ends ("50%", "50\\%"), within
/// `end`; k when there is none. The readers that widen a number to its percentage share it.
inline std::size_t percent_sign_end(std::string_view s, std::size_t k, std::size_t end) noexcept {
  if (k < end && s[k] == '%') return k + 1;
  if (k + 1 < end && s[k] == '\\' && s[k + 1] == '%') return k + 2;
  return k;
}

/// The numbers standing alone as values (not a power, an index, a coefficient, an argument, a
/// percentage) of the sentence of s that holds s[at] (sentence_at), before `at`: the nearest
/// first, kMaxSentenceReadings at most. The other readings of a last number ("18 students out
/// of 30 passed": 18). O(length of that line up to `at`).
constexpr std::size_t kMaxSentenceReadings = 8;
std::vector<Range> sentence_numbers_before(std::string_view s, std::size_t from, std::size_t at);

/// The sentence of s that holds s[at], as sentence_end cuts sentences: a line break always ends
/// one, so the search starts at the beginning of its line (never before `from`). [start, end)
/// with end the mark that ends it, or the end of s. O(length of that line up to it).
Range sentence_at(std::string_view s, std::size_t from, std::size_t at) noexcept;

/// The count sentence rule, for a response with no marked answer: when its final statement (the
/// sentence holding the last number `e`, or the text's last sentence when it has no number)
/// counts ("There are 3 bars with values below 40.", "there are three objects left"), the count
/// is the answer; the last number becomes its rival. Only when every number after the count
/// comes after a reference word (detail::kReferenceWords) that introduces the first: "There are 9
/// chickens and 10 rabbits." keeps 10. O(length of that sentence).
void read_count_sentence(std::string_view s, std::size_t from, std::optional<Extraction>& e);

/// The bold value rule, for a response with no marked answer, after the count sentence rule:
/// when it has bold spans ("**...**") and every one states one and the same number, in at most
/// four words and not as a label ("The total value is **52**.", "highest in **week 3**"), that
/// number is the answer: a model that writes its answer first, then a table or an explanation,
/// bolds it. The reading before becomes its rival. Nothing when the markup is unbalanced, when
/// a span holds no number, two, a label ("**Step 1:**") or an expression ("**158 + LK**"), or
/// past 16 spans. O(length of s).
void read_bold_value(std::string_view s, std::size_t from, std::optional<Extraction>& e);

/// The answer a math span states ("a = b = c" -> "c").
/// With `statement`, also what the span states before a chain gives its last member: the row and
/// the part after a conclusion that the answer is read from ("x = 2^{3} = 8": the answer "8", the
/// statement "x = 2^{3} = 8").
Range span_answer(std::string_view s, Range r, Range* statement = nullptr);

/// True when s[r) holds a digit or a letter outside command names.
bool has_content(std::string_view s, Range r) noexcept;

/// True when s[from, to) ends a sentence: '.', '!' or '?' before whitespace or the end, or a
/// line break.
bool sentence_break(std::string_view s, std::size_t from, std::size_t to) noexcept;

/// True when s[from, to), the text before a math span, ends with a conclusion word or command.
bool introduced_as_conclusion(std::string_view s, std::size_t from, std::size_t to) noexcept;

/// A span that holds only a conclusion command: "$\therefore$".
bool conclusion_command_span(std::string_view s, Range content) noexcept;

/// Start of the number at i including a '-' or U+2212 sign before it (when it is a sign).
std::size_t with_sign(std::string_view s, std::size_t from, std::size_t i) noexcept;

/// End of the number starting at i (a digit, or '.' followed by a digit): 1,234,567, 3.25, .5,
/// 1.5e-3, 3/4.
std::size_t number_end(std::string_view s, std::size_t i) noexcept;

}  // namespace rapidgrade::extract::internal
