// Final-answer extraction from free-form model output.
//
// All offsets are byte offsets into the UTF-8 input; the bindings convert them to the caller's
// units (code points for Python str). Every routine is a hand-written scanner: O(n) time in the
// input length, no recursion, no std::regex, any brace depth. Invalid UTF-8 is tolerated (the
// scanners only compare ASCII bytes and the UTF-8 encoding of U+2212).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rapidgrade::extract {

/// Which rule found an answer. kAuto is only a strategy, never a method.
enum class Method : std::uint8_t {
  kAuto,
  kBoxed,       // the last top-level \boxed{...} / \fbox{...}
  kBoxedMulti,  // several boxes in the final sentence, joined with ", "
  kAnswerIs,    // "the answer is X", "Final Answer: X", "**Answer:** X", "answer: X"
  kTagged,      // <answer>X</answer>, or GSM8K-style "#### X"
  kCodeOutput,  // the last ```output / ```text block that follows a code block
  kChoice,      // a multiple-choice letter closing the text: "Answer B", "(ANSWER E)", a lone "C"
  kBare,        // the whole response is one answer: "pi/2", "$45^\circ$", "(1, 2)", "Yes"
  kFinalSpan,   // the last math span(s) of the final statement, chains cut to their last member
  kLastNumber,  // the last number in the text (the last resort); keep it the last enumerator
};

/// Name exposed to Python: "auto", "boxed", "boxed_multi", "answer_is", "tagged", "code_output",
/// "choice", "bare", "final_span", "last_number".
const char* method_name(Method method) noexcept;

/// Parses a strategy name (any method name except "boxed_multi"). Returns false when unknown.
bool parse_strategy(std::string_view name, Method& out) noexcept;

/// True for the methods that guess where an unmarked answer is (kFinalSpan, kLastNumber): a
/// mismatch found through them is only certain when the other readings (other_readings())
/// do not match either.
constexpr bool is_weak(Method m) noexcept { return m == Method::kFinalSpan || m == Method::kLastNumber; }

/// A part [start, end) of the input.
struct Range {
  std::size_t start = 0;
  std::size_t end = 0;
};

/// A delimited part of the input: [outer_start, outer_end) with its delimiters ("$x$",
/// "\boxed{x}", "\begin{align}...\end{align}"), [start, end) between them.
struct Box {
  std::size_t outer_start = 0;
  std::size_t start = 0;
  std::size_t end = 0;
  std::size_t outer_end = 0;
};

/// An extracted answer. For every method but kBoxedMulti the answer is text[start, end) and
/// `parts` is empty. For kBoxedMulti, `parts` holds each box's content in order, the answer is
/// their texts joined with ", ", and [start, end) runs from the first part's start to the last
/// part's end.
/// For kAnswerIs (in the cascade or alone), `others` holds the answer with the rest of its line
/// when the answer stopped at a sentence end before it (the reading of a gold of several
/// sentences); it is empty for every other method. The other readings of a weak answer
/// (is_weak) are not computed by the extraction: a grader needs them only when that answer does
/// not match, so other_readings() computes them from what the cascade keeps here (`readings`).
struct Extraction {
  Method method = Method::kAuto;
  std::size_t start = 0;
  std::size_t end = 0;
  std::vector<Range> parts;
  /// Whether "or" joins the parts ("$x<2$ or $x>3$"): answer_text() then joins them with " or ",
  /// which the parser reads as alternatives (a union of conditions), else with ", ".
  bool alternatives = false;
  std::vector<Range> others;
  /// For an answer read by the answer phrase reader (read_answer_phrase): a unit of
  /// detail/units.hpp written after the number ("5 km/h" -> [start, end) "5", unit "km/h"),
  /// kept apart; empty (start == end) when there is none.
  Range unit;
  /// False when the reading is weak: the phrase began with words that the reader skipped ("The
  /// answer is Melanie started with 18 ...") or held several numbers and no math span, or
  /// another marker's answer differs (`rivals`). A weak reading that does not match is not a
  /// certain FALSE.
  bool clean = true;
  /// The answers of the other markers that differ from this one in text (nearest the end first).
  std::vector<Range> rivals;
  /// For an answer of the marker rules (kAnswerIs, kTagged, and the CJK markers): where its
  /// marker starts (the text before it holds the earlier markers); 0 for any other.
  std::size_t marker = 0;
  /// Kept by the cascade for other_readings() when a weak method found the answer: the math
  /// spans of the searched text (none kept by a method run alone, nor when the text has none),
  /// where the search began, and the first span of the answer.
  struct Readings {
    std::vector<Box> spans;
    std::size_t from = 0;
    std::size_t first_span = 0;
    std::size_t end = 0;  // where the searched text ends (final_statement_end)
  } readings;
};

/// Byte offset where the searched region begins: just after the last "</think>", or 0.
/// O(n).
std::size_t search_start(std::string_view text) noexcept;

/// Where the final statement of text[from, ...) ends for the readers of an unmarked answer
/// (final_span, last_number): before the remarks in parentheses that close the text, each a
/// paragraph or a sentence of its own that opens with a word ("Therefore, $x = 7$.\n\n(We can
/// check that $x = 0, 1, 2$ do not work.)", "... $\frac{1}{2} \le x \le 8$. (It seems
/// surprising that ...)"), kMaxRemarks at most, and before a closing section that checks or
/// illustrates the answer: the last line that opens with one of detail::kAsideOpeners
/// ("Verification", "Checking:", "For example, ..."; an example only as the last paragraph,
/// neither when a later paragraph opens with one of detail::kConclusionLeads); text.size() when
/// none does. O(n).
std::size_t final_statement_end(std::string_view text, std::size_t from) noexcept;

/// Where a trailing quantifier domain of an answer starts: its last part after a comma at the top
/// level, or a trailing group in parentheses, that only names variables in a set of numbers ("x =
/// \frac{\pi}{4} + k\pi, k \in \mathbb{Z}", "f(x) = x - 1 \ (x \in \mathbb{R})"); answer.size()
/// when there is none. The grader compares an answer (and a gold) without it. O(n).
std::size_t domain_tail(std::string_view answer) noexcept;

/// The opening sentence of `text`: the first sentence of the searched region (search_start),
/// from its first non-blank byte to sentence_end, when it is a statement (not ended by '?' or
/// '!') of at most 400 bytes; nullopt otherwise. O(first sentence).
std::optional<Range> opening_sentence(std::string_view text) noexcept;

/// The answer that the opening sentence of an answer-first write-up states ("The required maximum
/// is $2n-2$.", "We claim the minimum value of $m$ is $2^{k-1}$."; olympiad solutions state their
/// answer, then prove it): what stated_answer reads in the opening sentence (opening_sentence).
/// Or a sentence that is one math span stating a function's value at numbers ("$E(7,3)=3$.",
/// ARML's answer-first solutions): that span. nullopt when the text opens otherwise. A grader
/// reads it only when the response marks no answer. O(first sentence).
std::optional<Range> opening_statement(std::string_view text) noexcept;

/// The answer that a clause of text[sentence) states as the sought value, in one of two forms:
/// - "the <subject> <verb> <answer>": a subject that opens with "the" and holds a word of
///   detail::kExtremumWords outside math, up to its first verb (detail::kOpeningVerbs, or "be"
///   after one of detail::kStatementModals); the answer is what read_answer_phrase reads after the
///   verb, when that reading is clean and opens with math: "The required maximum is $2n-2$.",
///   "Thus the least possible measure is $65^{\circ}$, and ...", "hence the desired remainder is
///   976";
/// - "<value> <verb> [indeed] the <extremum word> ...": one math span or one number right before
///   the verb: "thus 79 is the largest two-digit integer $N$ ...", "$M=2$ is indeed the smallest
///   constant".
/// - the value that "namely" introduces after a word of detail::kExtremumWords: "There is only one
///   such integer, namely, $n=2$.".
/// The first two open a clause: at the sentence start, or after a word of detail::kClauseOpeners
/// ("thus", "that", ...) or a lead of detail::kOpeningLeads. The first such clause counts; nullopt
/// when none does, or when the sentence is longer than 400 bytes. O(sentence) per clause start.
std::optional<Range> stated_answer(std::string_view text, Range sentence) noexcept;

/// The answer that the last sentence of text[search_start, end) states (stated_answer), trailing
/// blanks aside: the closing statement of a write-up that marks no answer ("Thus the least
/// possible measure is $65^{\circ}$, and the hexagon has angles $65^{\circ}, 87^{\circ}, ...$").
/// O(that sentence's line).
std::optional<Range> closing_statement(std::string_view text, std::size_t end) noexcept;

/// Finds the answer in `text` with one strategy, or with the cascade boxed -> answer_is ->
/// tagged -> code_output -> choice -> bare -> final_span -> last_number for kAuto (first hit
/// wins). Only the text after the last "</think>" is searched when that tag is present.
/// Returns nullopt when nothing is found.
/// Complexity: O(n) time per strategy; the cascade runs at most eight linear scans.
/// Never throws for any input.
std::optional<Extraction> extract_answer(std::string_view text, Method strategy = Method::kAuto);

/// The other plausible readings of the final statement of `text` when the cascade of
/// extract_answer(text) found `e` by a weak method (is_weak), in that order: for kFinalSpan, the
/// last of alternatives that "or" joins (a restatement: "$2(27 \mathrm{~cm}^{2}+32
/// \mathrm{~cm}^{2})$ or $118 \mathrm{~cm}^{2}$"), the other math spans of the final sentence
/// (back to a sentence break or to the span that the sentence concludes with), then the last
/// number when it lies outside the answer; for
/// kLastNumber, the numbers of its sentence before it that stand alone as values (nearest first,
/// 8 at most: "In total, 18 students out of 30 passed." -> 18), then the last math span with
/// content, when it does not overlap the number. First of all, for either, when `e` stands in a
/// closing check that conclusions follow (a line opening with one of detail::kAsideOpeners, then
/// paragraphs opening with one of detail::kConclusionLeads: "We check these answers ...\n\nThus,
/// ... $=10000$."), the reading of the text before that check. Empty for any other extraction (a
/// method run alone included). Reads only the neighbourhood of those spans, the last number's
/// line, for kFinalSpan the text back from its end to its last number, and the text before a
/// check: O(n) at worst.
std::vector<Range> other_readings(std::string_view text, const Extraction& e);

/// Where the sentence or line that starts at `j` ends: the first line break (a "\\" before it
/// included), or the first '.', '!' or '?' followed by white space or the end, outside $...$,
/// \(...\) and braces; s.size() when there is none. What an "answer is" answer runs to. O(n).
std::size_t sentence_end(std::string_view s, std::size_t j) noexcept;

/// The numbers, in order, of the final sentence of `text`'s searched region (search_start): the
/// sentence, as sentence_end cuts them, that holds the last number; from its concluding clause
/// when a word of detail::kConclusionLeads opens one after a ',' or ';' (or ", and") with a
/// digit after it ("Therefore, $19(7)+17(4)=201$, and so Thurka buys 7 goats and 4
/// helicopters." -> 7, 4). Numbers as the last-number
/// rule reads them: signed, decimals, thousands separators, a/b and \frac{a}{b}. Empty when the
/// text has no number, or when a number of that sentence is not a value standing alone (a power,
/// an index, a coefficient, an argument, a percentage: "x^2", "a_1", "2x", "f(2)", "10\%"): such a
/// sentence states no list of values. Stops after limit + 1 numbers (more than `limit`: the
/// caller sees that there are too many). The reading of a list of values written in prose
/// ("There are 9 chickens and 10 rabbits." -> 9, 10), for a grader whose gold is such a list.
/// O(n) at worst.
std::vector<Range> final_sentence_numbers(std::string_view text, std::size_t limit);

/// The values that the final sentence assigns to distinct names, in order, when `e` was found by
/// kFinalSpan in `text` by the cascade: "so $p=3$ and $q=4$" -> "3", "4"; "$d(6)=1/3, d(16)=1$,
/// and $d(72)=1/9$" -> "1/3", "1", "1/9". The spans of the answer, and the run of spans before
/// them in its sentence back to a sentence break, a span that is no such list or one that a
/// conclusion word follows ("If $d=-7$, then $a=27$ and $b=20$": the premise is not read); each
/// span is a list, at top-level commas, of "name = ... = value" (the value is the last member; a
/// name is one ASCII letter with a subscript, primes or arguments: "x", "a_1", "d(6)"; no other
/// relation). Empty when fewer than two values, when a name comes twice, when a span of the
/// answer is no such list, or past `limit` values. The reading of a grader whose gold is a list
/// of values. O(final sentence).
std::vector<Range> final_assignments(std::string_view text, const Extraction& e, std::size_t limit);

/// The values that the premise of the final sentence assigns, when `e` was found by kFinalSpan
/// in `text` by the cascade and a conclusion word introduces its first span: "Therefore,
/// $a=\frac{1}{3}, b=-2$, and $c=5$, which gives $y=\log_{1/3}(x-2)+5$." -> "\frac{1}{3}", "-2",
/// "5". The run of spans before that word back to a sentence break or another conclusion word,
/// read as final_assignments reads its spans; empty when any of them is no list of assignments,
/// when fewer than two values, or past `limit` values. O(final sentence).
std::vector<Range> premise_assignments(std::string_view text, const Extraction& e, std::size_t limit);

/// Whether a word of detail::kStepLabels ("Step", "Lemma", "Figure", ...; any case, no command)
/// and one blank or more come right before s[at], within s[from, at): a number there is a label
/// ("Step 5:", "By Lemma 3"), no value. Reads back over that word only.
bool follows_step_label(std::string_view s, std::size_t from, std::size_t at) noexcept;

/// The parts of `answer` when it is a list of two or more assignments to distinct names, as
/// final_assignments reads a span ("T=650, k=13" -> "T=650", "k=13"); empty otherwise. O(n).
std::vector<Range> assignment_parts(std::string_view answer);

/// The parts of `answer` when it solves for one name step by step: equations at top-level commas
/// (no other relation), the last an assignment "name = ... = value" as final_assignments reads
/// one, every part before it holding that name as a variable and none assigning it ("2x=6, x=3",
/// "302-296=2 d, d=3"; not "x=2, x=3", which lists two values); empty otherwise. The parts before
/// the last are the steps: the last one's value is what the answer states. O(n).
std::vector<Range> solved_parts(std::string_view answer);

/// What the answer phrase reader made of a phrase (read_answer_phrase).
struct Phrase {
  Range answer;                // the math object at the start of the phrase, or the whole phrase
  Range unit;                  // a unit of detail/units.hpp after a number; empty when none
  bool clean = true;           // false: words were skipped before the answer, or several numbers
  bool cut = false;            // the answer stops before the end of the phrase (a word, a unit)
  bool leading_prose = false;  // the phrase starts with words (a text answer, a restating sentence)
  bool joined = false;         // parts joined by "and", "or", "和": "x = 5 and y = 3"
  bool parts = false;          // enumerated parts (detail/parts.hpp): "(1) 3; (2) 5", read whole
};

/// Reads the answer at the start of the phrase s[r) (what follows a marker, to its sentence or
/// line end) by a small grammar: numbers with sign, thousands separators ("1,000", "1 000"),
/// decimals, fractions, mixed numbers ("1 1/2"), percent, scientific notation, currency signs
/// ("$18", "\$18.00", "¥12"); math spans; expressions, tuples, intervals, relations
/// ("x = 5"), lists joined by ",", "and", "or", "和"; a choice letter ("(B) ..."); a list of
/// enumerated parts ("(1) 3; (2) 5", detail/parts.hpp), read whole. The answer ends
/// at the first word that is not math ("18 eggs", "200 GB", "48g", "5 km/h"), at punctuation
/// before the end of the phrase, at a non-math non-ASCII character ("12。"). A unit of the units
/// table after a number is returned apart. A phrase that starts with words is a text answer
/// ("Yes", "no solution"), or, when it holds one number or math span, a restating sentence whose
/// number is the answer ("Melanie started with 18 vacuum cleaners" -> "18", not clean), or one
/// that starts with a number in words ("seven apples" -> "seven", not clean). Markdown bold ends
/// the math ("**18** eggs"). O(n).
Phrase read_answer_phrase(std::string_view s, Range r);

/// The end of a markup tag or a model's special token at s[k] ('<'), within 32 bytes and `end`:
/// "</s>", "<eos>", "<br>", "</answer>", "<|endoftext|>", "<|im_end|>"; kNpos when s[k] starts
/// none ("x<y", "< 3"). It ends an answer phrase ("10</s>" is 10).
std::size_t markup_tag_end(std::string_view s, std::size_t k, std::size_t end) noexcept;

/// The answer text of `e`: for several parts (kBoxedMulti, a final span of joined spans), the
/// parts joined with ", ", or with " or " where Extraction::alternatives.
std::string answer_text(std::string_view text, const Extraction& e);

// The key/value field protocol ("SOLUTION: u(x) = ...") is in fields.hpp.

}  // namespace rapidgrade::extract
