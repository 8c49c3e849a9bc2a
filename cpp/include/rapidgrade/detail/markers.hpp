// The one table of answer markers: the words and signs after which (or between which) a model
// states its final answer, with the extraction method each reports, and the few non-ASCII words
// that the answer phrase reader reads as math (CJK answers, "根号3", "1和3").
//
// Extraction (extract.cpp) finds every marker of the table in the searched text; the marker
// nearest the end that yields an answer wins (the box is looked for first: a response that
// boxes its answer means the box). What follows a marker is read by the answer phrase reader
// (extract::read_answer_phrase): the math object at the start of the phrase, not the rest of the
// sentence. docs/ARCHITECTURE.md lists the table; tests/unit/test_markers.py has one test per row.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rapidgrade::detail {

/// How a marker delimits its answer.
enum class MarkerShape : std::uint8_t {
  kBox,          // \boxed{...} / \fbox{...}: the braces
  kPhrase,       // the answer phrase after the marker, to the sentence or line end
  kSection,      // a heading line: the answer phrase on the next non-blank line
  kLine,         // the rest of the line that starts with the marker
  kTagPair,      // an opening and a closing tag: what is between them (or to the line end)
  kFinalClause,  // a conclusion word and, later in the last sentence of the text, 为/是
  kValueBefore,  // the value right before the marker, which closes its clause: "6 is the answer."
};

struct AnswerMarker {
  std::string_view text;  // as written (ASCII markers match in either case, except "A:")
  MarkerShape shape;
  std::string_view method;  // the extraction method it reports (extract::method_name)
  std::string_view example;
};

/// Every marker extraction knows. The box and the "answer" word markers are found by their own
/// fast scans; this table is what those scans and the CJK search implement, in one place.
inline constexpr AnswerMarker kAnswerMarkers[] = {
    {"\\boxed", MarkerShape::kBox, "boxed", "\\boxed{18}"},
    {"\\fbox", MarkerShape::kBox, "boxed", "\\fbox{18}"},
    {"the answer is", MarkerShape::kPhrase, "answer_is", "The answer is 18 eggs."},
    {"is the answer", MarkerShape::kValueBefore, "answer_is", "Thus, 6 is the correct answer."},
    {"final answer:", MarkerShape::kPhrase, "answer_is", "**Final Answer:** 5"},
    {"answer:", MarkerShape::kPhrase, "answer_is", "**Answer:** (B)"},
    {"# Answer", MarkerShape::kSection, "answer_is", "# Answer\n\n(8,-2)"},
    {"####", MarkerShape::kLine, "tagged", "#### 72"},
    {"A:", MarkerShape::kLine, "answer_is", "A: 18"},
    {"<answer>", MarkerShape::kTagPair, "tagged", "<answer>18</answer>"},
    {"\xE3\x80\x90\xE7\xAD\x94\xE6\xA1\x88\xE3\x80\x91", MarkerShape::kTagPair, "tagged", "【答案】-3<eoa>"},
    {"\xE7\xAD\x94\xE6\xA1\x88\xE6\x98\xAF", MarkerShape::kPhrase, "answer_is", "答案是12。"},
    {"\xE7\xAD\x94\xE6\xA1\x88\xE4\xB8\xBA", MarkerShape::kPhrase, "answer_is", "故答案为：－３"},
    {"\xE7\xAD\x94\xE6\xA1\x88\xEF\xBC\x9A", MarkerShape::kPhrase, "answer_is", "答案：12"},
    {"\xE6\x89\x80\xE4\xBB\xA5", MarkerShape::kFinalClause, "answer_is", "所以a的值为-3"},
    {"\xE5\x9B\xA0\xE6\xAD\xA4", MarkerShape::kFinalClause, "answer_is", "因此面积是6。"},
};

/// The words of the kValueBefore marker, between its value and "answer" (ASCII, matched ignoring
/// case, whole words): a verb, a determiner, and at most one adjective ("6 is the correct answer",
/// "623 must be the only answer", "$x=2$ is our final answer"). What follows "answer" is a
/// sentence's or a clause's end: "5 is the answer to part (a)" and "5 is the answer we want" name
/// no final answer, nor does a value after "if" or "whether" ("check whether 5 is the answer.").
inline constexpr std::string_view kValueBeforeVerbs[] = {"is", "must be"};
inline constexpr std::string_view kValueBeforeDeterminers[] = {"the", "our"};
inline constexpr std::string_view kValueBeforeAdjectives[] = {"only", "correct", "final", "right"};
inline constexpr std::string_view kValueBeforeConditions[] = {"if", "whether"};

// The CJK pieces the extraction searches for (UTF-8).
inline constexpr std::string_view kCjkAnswer = "\xE7\xAD\x94\xE6\xA1\x88";                              // 答案
inline constexpr std::string_view kCjkAnswerOpen = "\xE3\x80\x90\xE7\xAD\x94\xE6\xA1\x88\xE3\x80\x91";  // 【答案】
inline constexpr std::string_view kCjkIs = "\xE6\x98\xAF";                                              // 是
inline constexpr std::string_view kCjkBe = "\xE4\xB8\xBA";                                              // 为
inline constexpr std::string_view kCjkConclusions[] = {"\xE6\x89\x80\xE4\xBB\xA5",                      // 所以
                                                       "\xE5\x9B\xA0\xE6\xAD\xA4"};                     // 因此
inline constexpr std::string_view kEndOfAnswerTag = "<eoa>";
inline constexpr std::string_view kIdeographicFullStop = "\xE3\x80\x82";  // 。

/// The words that announce a multiple-choice letter closing a response ("Answer B", "the correct
/// option is C", "(ANSWER E)"): ASCII, matched ignoring case, as whole words; and the CJK verb 选
/// ("choose") of a Chinese conclusion ("故选：D.", "应选 B", "答案选C"). Read by extraction's
/// choice rule (extract.cpp, find_choice).
inline constexpr std::string_view kChoiceWords[] = {"answer", "option", "choice", "\xE9\x80\x89"};  // ... 选

/// Phrases (ASCII, matched ignoring case) with which a response declines to answer: "the
/// question cannot be answered with the given information", "I cannot determine ...", "please
/// provide more details". After the last number of a response with no marked answer, they make
/// that number no answer (grade.cpp, Reason::kDeclines).
inline constexpr std::string_view kRefusals[] = {
    "cannot be determined",      "cannot determine", "cannot be answered",     "cannot answer",
    "cannot be calculated",      "cannot calculate", "not enough information", "insufficient information",
    "unable to determine",       "unable to answer", "unable to calculate",    "impossible to determine",
    "not possible to determine", "please provide",
};

/// Abbreviations whose full stop ends no sentence ("Mr. Jackson wants to give each student 2 glue
/// sticks.", "Dr. Lee", "Team A vs. Team B"): titles before a name, and "vs". ASCII, matched as
/// written, whole words. Read by extract::sentence_end, which cuts an answer phrase and the
/// sentences the unmarked readers read.
inline constexpr std::string_view kAbbreviations[] = {"Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Jr", "Sr", "vs"};

/// Words (ASCII, matched ignoring case, whole words) that open a line of a closing section which
/// checks or illustrates the answer stated before it: "Verification", "Checking:", "We check
/// these answers in the original equation.", "For example, if $k+1=8$, then ...". The readers of
/// an unmarked answer (final_span, last_number) read the text before such a section, as they read
/// it before the remarks in parentheses that close it (extract.cpp, final_statement_end): an
/// example only as the last paragraph, and neither when a later paragraph opens with one of
/// kConclusionLeads ("For example, we may take $a=197$. ...\n\nTherefore, the smallest size is 6.").
/// A check that such paragraphs follow may conclude itself there ("Thus, ... $=10000$."): the
/// reading before it is then another reading of the answer (extract::other_readings).
struct AsideOpener {
  std::string_view phrase;
  bool example;  // an illustration, not a check
};
inline constexpr AsideOpener kAsideOpeners[] = {
    {"verification", false}, {"verify", false},       {"check", false},       {"checking", false},
    {"we check", false},     {"we can check", false}, {"we verify", false},   {"let us check", false},
    {"let's check", false},  {"for example", true},   {"for instance", true},
};
/// Phrases (ASCII, matched ignoring case, whole words) that open a clause giving a reason for the
/// value stated right before it, or an example of it: "so $x=3$ since $x>0$.", "Thus $\sin x =
/// \frac{3}{4}$ because $x$ is acute.", "$S$ attains value 8, e.g., when $a=c=1$." When such a
/// clause closes the final sentence right after its math (blanks and commas between), the readers
/// of an unmarked answer read the text before it (extract.cpp, final_statement_end): the math of
/// a reason or an example is no answer. "as" is not one: "$P$ as a fraction is $\frac{3}{4}$".
inline constexpr std::string_view kReasonClauses[] = {"since",       "because",      "given that",
                                                      "for example", "for instance", "e.g."};

/// Words (ASCII, matched ignoring case, whole words) that open a paragraph which concludes.
inline constexpr std::string_view kConclusionLeads[] = {
    "therefore", "thus", "so", "hence", "consequently", "finally", "in conclusion", "in summary"};

/// Phrases (ASCII, matched ignoring case) with which a final sentence closes a proof, or a check of
/// a result by another way ("which equals $199(200)\frac{67}{2}$, as expected."), not states an
/// answer: "..., as required.", "a contradiction", "This completes the proof.", "\blacksquare". A
/// response with no marked answer that ends so states its answer elsewhere (olympiad write-ups
/// state it first): the reading of its last math is no certain answer, and a FALSE from it is
/// UNKNOWN (grade.cpp, Reason::kProofClose).
inline constexpr std::string_view kProofCloses[] = {
    "as required",         "as desired",
    "as claimed",          "as wanted",
    "as expected",         "we wanted to",
    "aimed to prove",      "to be proved",
    "to be shown",         "we are done",
    "completes the proof", "completes our proof",
    "completes the solu",  "completes our solu",
    "proof is complete",   "solution is complete",
    "problem is solved",   "conclusion follows",
    "claim follows",       "q.e.d",
    "\\blacksquare",       "\\qed",
    "desired inequality",
};

/// Phrases (ASCII, matched ignoring case) with which a final sentence states a contradiction:
/// it closes a proof too (with kProofCloses), and its math is the case it refutes ("Then $k =
/// 4$, a contradiction.", "..., which is false. This contradiction completes our solution."),
/// never the answer: a reading that matches there is UNKNOWN as well (grade.cpp).
inline constexpr std::string_view kContradictions[] = {"contradiction", "contradicts", "which is absurd"};

/// Phrases (ASCII, matched ignoring case where a word starts) with which a text argues a proof:
/// "We show that ...", "Lemma 2.", "by induction on $n$", "It remains to prove ...". A response
/// with no marked answer that argues so is a write-up whose answer is stated in words, often
/// first, and whose last math may be a step of the argument: a FALSE from reading it is UNKNOWN
/// (grade.cpp, Reason::kProofClose), as for a text that ends by closing a proof (kProofCloses).
inline constexpr std::string_view kProofArguments[] = {
    "we prove",
    "we show",
    "we will prove",
    "we will show",
    "we shall prove",
    "we shall show",
    "we now prove",
    "we now show",
    "we first prove",
    "we first show",
    "we can prove",
    "we can show",
    "we claim",
    "claim",
    "lemma",
    "induction",
    "it remains to",
    "it suffices to",
    "without loss of generality",
    "wlog",
};

/// Words before a math span that make it a quantifier's domain when it only names a set of
/// numbers ("$f(x) = 2x$ for all $x \in \mathbb{R}^{+}$", "where $k \in \mathbb{Z}$"): ASCII,
/// matched ignoring case as the last words before the span. Such a span is not the final answer
/// (extract_math.cpp, find_final_span); a comma before it or \forall in it count the same.
inline constexpr std::string_view kQuantifierWords[] = {"for all", "for every", "for each", "for any",
                                                        "for",     "where",     "with",     "whenever"};

/// The opening sentence of an answer-first write-up (olympiad solutions state their answer, then
/// prove it): "The required maximum is $2n-2$.", "We claim the minimum value of $m$ is
/// $2^{k-1}$.", "The only possible value of $a_{2015} a_{2016}$ is 0." Its subject opens with
/// "the" after one of kOpeningLeads (or none) and holds one of kExtremumWords outside math; one
/// of kOpeningVerbs ends it. ASCII, matched ignoring case, whole words. Read by
/// extract::opening_statement and extract::stated_answer for a grader whose response marks no
/// answer; the same statement closes a write-up ("Thus the least possible value is $65$.").
inline constexpr std::string_view kOpeningLeads[] = {"we claim that", "we claim",           "we will show that",
                                                     "we show that",  "we will prove that", "we prove that"};
inline constexpr std::string_view kExtremumWords[] = {"required", "largest", "smallest", "greatest", "least",
                                                      "maximum",  "minimum", "maximal",  "minimal",  "biggest",
                                                      "only",     "desired", "sought",   "unique"};
inline constexpr std::string_view kOpeningVerbs[] = {"is", "are", "equals", "equal"};
/// Modal words that make "be" after them a verb of such a statement: "the minimal value will be
/// $k+1$", "623 must be the only answer".
inline constexpr std::string_view kStatementModals[] = {"will", "must", "would", "to"};
/// Words after which a clause opens, so that a statement of the answer may follow them inside a
/// sentence: "Thus the least possible measure is $65^{\circ}$, and ...", "..., hence the desired
/// remainder is 976.", "thus 79 is the largest two-digit integer $N$ ...", "We see that $M=2$ is
/// indeed the smallest constant", "This proves $90^{\circ}$ and $60^{\circ}$ to be the only
/// possible values". ASCII, matched ignoring case, whole words.
inline constexpr std::string_view kClauseOpeners[] = {"thus", "hence", "so",  "therefore", "consequently",
                                                      "that", "then",  "and", "proves",    "shows"};

/// Words that label the parts of a solution, or of a text it cites, by number: "Step 5:
/// print(total_days)", "## Step 3: Compute the area", "Case 2:", "By Lemma 3, ...". A number after
/// one (blanks between) is a label, no value: the last-number rule passes over it
/// (extract_number.cpp, last_number_in: "no solution in Case 3.", "See Figure 2."), and the
/// grader reads no label as the number a sentence states (grade.cpp); both ask
/// extract::follows_step_label. ASCII, matched ignoring case, whole words.
inline constexpr std::string_view kStepLabels[] = {"step",    "case",    "part",    "lemma",     "theorem",
                                                   "claim",   "figure",  "fig",     "corollary", "proposition",
                                                   "section", "problem", "example", "equation"};

/// The statements with which a program hands its result over, the first word of a line (ASCII,
/// whole words, a '(' or a blank after it): "print(time)", "Step 4: print(total)", "return x".
/// A response that ends with one and shows no output (a program of thought that was not run)
/// states no value: its last number is the program's, and a FALSE from it is UNKNOWN (grade.cpp,
/// Reason::kProgramWithoutOutput).
inline constexpr std::string_view kProgramResults[] = {"print", "return"};

/// The verbs after "there" that open a count sentence, a final statement that counts: "There are
/// 3 bars with values below 40.", "So, there are 25 racks that have at least 0 ties." (ASCII,
/// matched ignoring case, a blank before the count). Read by extraction's count-sentence rule
/// (internal::read_count_sentence) when the response marks no answer.
inline constexpr std::string_view kThereBe[] = {"are", "is", "were", "was", "remain", "remains", "will be"};

/// Words that may stand between a count sentence's verb and its count ("There is only one ...",
/// "there are exactly 3 ...", "There are a total of 12 ..."), matched ignoring case.
inline constexpr std::string_view kCountLeads[] = {"only", "exactly", "just", "a total of"};

/// Words right before a number that make it a reference value in the description of what a
/// count sentence counts ("values below 40", "at least 0 ties", "larger than 4", "born after
/// 1945", "between 2000 and 2005", "that has exactly 36 houses", "less than or equal to 300",
/// "multiples of 3"), not a second count: then the count is the answer. "There are 9 chickens
/// and 10 rabbits." has no such word before 10, and its last number stays the answer.
inline constexpr std::string_view kReferenceWords[] = {
    "than",  "below",   "above", "over",      "under",  "least", "most",   "after",   "before", "since",
    "until", "between", "from",  "exceeding", "beyond", "in",    "within", "exactly", "to",     "of",
};

/// Words right before a number that make it an operand of an operation stated in words ("after
/// possibly dividing by 5, ...", "so n is divisible by 3", "taken modulo 7", "a multiple of 4"):
/// ASCII, matched ignoring case as the last words before the number. With no marked answer, a
/// text's last number read there is an input of a step, not the value the text computes, and a
/// reading of it is UNKNOWN either way (grade.cpp, Reason::kLastNumberGuess). "Increased by" is
/// not one: by how much something changed is often the question.
inline constexpr std::string_view kOperandLeads[] = {
    "divided by", "dividing by", "divide by",   "multiplied by", "multiplying by", "multiply by", "divisible by",
    "modulo",     "mod",         "multiple of", "multiples of",  "divisor of",     "divisors of",
};

/// A CJK word that stands for a math symbol in an answer, and the symbol (UTF-8, folded to
/// LaTeX by normalization's rule 0 afterwards).
struct CjkMathWord {
  std::string_view word;
  std::string_view symbol;
};

/// The CJK math words (normalization's rule 0 and the answer phrase reader): 根号 is the square
/// root sign ("根号3" is √3); 无穷大 ("infinitely large") is ∞, with a sign when 正 (positive) or
/// 负 (negative) comes first, also without 大. A word that begins another comes after it. Bare
/// 无穷 is not here: 无穷多 ("infinitely many") and 无穷小 ("infinitesimal") are not ∞.
inline constexpr CjkMathWord kCjkMathWords[] = {
    {"\xE6\xA0\xB9\xE5\x8F\xB7", "\xE2\x88\x9A"},                           // 根号 √
    {"\xE6\xAD\xA3\xE6\x97\xA0\xE7\xA9\xB7\xE5\xA4\xA7", "+\xE2\x88\x9E"},  // 正无穷大 +∞
    {"\xE8\xB4\x9F\xE6\x97\xA0\xE7\xA9\xB7\xE5\xA4\xA7", "-\xE2\x88\x9E"},  // 负无穷大 -∞
    {"\xE6\xAD\xA3\xE6\x97\xA0\xE7\xA9\xB7", "+\xE2\x88\x9E"},              // 正无穷 +∞
    {"\xE8\xB4\x9F\xE6\x97\xA0\xE7\xA9\xB7", "-\xE2\x88\x9E"},              // 负无穷 -∞
    {"\xE6\x97\xA0\xE7\xA9\xB7\xE5\xA4\xA7", "\xE2\x88\x9E"},               // 无穷大 ∞
};

/// Non-ASCII characters that the answer phrase reader reads as part of the math (UTF-8): signs
/// and operators, Greek constants, full-width digits and signs (U+FF01..U+FF5E are read through
/// fullwidth_ascii); the CJK math words (kCjkMathWords) are read as math too, and 和 / 或 join
/// the parts of a list ("1和3" is 1, 3); an ellipsis character (latex_vocab.hpp's
/// kEllipsisTexts) is math as an element of a list, after a comma ("1, 2, …, n", not "18…").
inline constexpr std::string_view kMathNonAscii[] = {
    "\xE2\x88\x92",  // − U+2212
    "\xCF\x80",      // π
    "\xE2\x88\x9A",  // √
    "\xE2\x88\x9E",  // ∞
    "\xE2\x88\x85",  // ∅
    "\xC2\xB0",      // °
    "\xC2\xB2",      // ²
    "\xC2\xB3",      // ³
    "\xC3\x97",      // ×
    "\xC3\xB7",      // ÷
    "\xC2\xB7",      // ·
    "\xC2\xB1",      // ±
    "\xE2\x89\xA4",  // ≤
    "\xE2\x89\xA5",  // ≥
    "\xE2\x89\xA0",  // ≠
    "\xE2\x89\x88",  // ≈
    "\xE2\x8B\x85",  // ⋅
};

/// CJK words that join the parts of a list answer ("1和3", "2或3"), read as ", "; the second
/// says "or" (kCjkOr: the parts are alternatives, as the word "or" says).
inline constexpr std::string_view kCjkOr = "\xE6\x88\x96";              // 或
inline constexpr std::string_view kCjkListJoiners[] = {"\xE5\x92\x8C",  // 和
                                                       kCjkOr};

/// The ASCII character that the full-width form at s[k] stands for (U+FF01..U+FF5E, "３" is
/// '3', "－" is '-'), or 0 when s[k] starts no full-width form. `length` is set to 3 then.
inline char fullwidth_ascii(std::string_view s, std::size_t k) noexcept {
  if (k + 2 >= s.size() || static_cast<unsigned char>(s[k]) != 0xEF) return 0;
  const auto b1 = static_cast<unsigned char>(s[k + 1]);
  const auto b2 = static_cast<unsigned char>(s[k + 2]);
  // U+FF01..U+FF3F: EF BC 81..BF; U+FF40..U+FF5E: EF BD 80..9E
  if (b1 == 0xBC && b2 >= 0x81 && b2 <= 0xBF) return static_cast<char>(0x21 + (b2 - 0x81));
  if (b1 == 0xBD && b2 >= 0x80 && b2 <= 0x9E) return static_cast<char>(0x60 + (b2 - 0x80));
  return 0;
}

}  // namespace rapidgrade::detail
