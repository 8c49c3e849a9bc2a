// Text predicates of the grader (grade.cpp): what a response's words say about its answer, read
// without parsing math. Internal to the core.
#pragma once

#include <cstddef>
#include <string_view>

namespace rapidgrade::grade::internal {

/// Whether `s` holds several sentences: a sentence end (extract::sentence_end) with more text
/// after it ("Yes. $F(x,y)=x+y$"; not "3.5", not "x."). Line breaks only separate lines.
bool several_sentences(std::string_view s) noexcept;

/// The letter of a multiple-choice answer written as "C", "(C)", "C)" or "(C" after
/// normalization, or 0. Letters A-J only.
char choice_letter(std::string_view s) noexcept;

/// Whether the final sentence of text[0, end) closes a proof (detail::kProofCloses, or
/// detail::kContradictions).
bool closes_a_proof(std::string_view text, std::size_t end) noexcept;

/// Whether the final sentence of text[0, end) states a contradiction (detail::kContradictions):
/// its math is the case it refutes ("Then $k = 4$, a contradiction.").
bool states_a_contradiction(std::string_view text, std::size_t end) noexcept;
/// Whether text argues a proof anywhere (detail::kProofArguments): "We show that ...", "Lemma 2."
bool argues_a_proof(std::string_view text) noexcept;

/// Whether `after`, the text after a response's last number, declines to answer
/// (detail::kRefusals).
bool declines_to_answer(std::string_view after) noexcept;

/// The choice an answer names at its start, "(E)" before more, or 0.
char leading_choice(std::string_view s) noexcept;

/// A number as the whole text: digits with a sign, a decimal point or a fraction bar.
bool plain_number(std::string_view s) noexcept;

/// Whether `span` only names: letters (one at least), blanks, commas, parentheses, braces,
/// subscripts and primes; no digit, no operator, no command ("n", "B C", "(a, b, c, d)").
bool names_only(std::string_view span) noexcept;

/// Whether the last line of text[0, end) hands a program's result over (detail::kProgramResults,
/// after a step label such as "Step 4:"): "print(time)", "return total".
bool ends_with_program_result(std::string_view text, std::size_t end) noexcept;
/// Whether the line of text that holds byte `at` is a row of a table: it starts and ends with '|'
/// (after blanks), and '|' stands both before and after `at`.
bool in_table_row(std::string_view text, std::size_t at) noexcept;
/// Whether what ends at `at` closes text[0, end): no digit after it (a label's or a caption's:
/// "(see Fig. 4).", "Case 3", "Figure 2"), and after the end of its sentence ('.', '!' or '?'
/// before a blank or the end, a line break) only blanks, punctuation and markup tags ("18 eggs.",
/// "18.</s>"), no other sentence ("... > 1$. Therefore, there is no solution."). O(end - at).
bool closes_the_text(std::string_view text, std::size_t at, std::size_t end) noexcept;
/// Whether the number that starts at text[at] ends a listing of numbers: another number right
/// before it, apart by a comma or the word "and" or "or" ("100, 256, 289, 324", "9 ! and 10 !",
/// "3, 5, and 7"), with blanks, '$', '*' and a number's marks ('!', '%', "\%") between them.
/// Reads at most kMaxListingGap bytes back.
bool ends_a_listing(std::string_view text, std::size_t at) noexcept;

/// Whether the number that starts at text[at] is an operand of an operation stated in words
/// (detail::kOperandLeads right before it, over blanks and '$'): "dividing by 5", "divisible by
/// 3". Reads at most kMaxListingGap bytes back.
bool an_operand(std::string_view text, std::size_t at) noexcept;

/// Whether `s` holds a big operator (detail::kBigOperators: \sum, \prod).
bool holds_big_operator(std::string_view s) noexcept;

/// Whether `s` holds a big operator whose subscript is a condition rather than the assignment of
/// a first value to one index ("\sum_{x \in R}", "\sum_{1 \leqslant i<j \leqslant 2k}",
/// "\sum_{i \text{ is good}}", "\sum_{\substack{...}}", "\sum_{p}"; not "\sum_{i=1}^{n}"): a sum
/// over a set that no reader enumerates. Subscripts past 256 bytes count as conditions.
bool sums_over_a_condition(std::string_view s) noexcept;

/// The letter that ends `s` apart from what precedes it, when one ASCII letter alone is its last
/// word after a blank ("6 m", "x = 6 m.", "$6 m$"); 0 otherwise ("6m", "6 \mathrm{m}", "6 cm").
char trailing_letter(std::string_view s) noexcept;

/// The length of the ellipsis at s[i] ("\ldots", "...", "…"; detail::kEllipsisCommands), or 0.
std::size_t ellipsis_at(std::string_view s, std::size_t i) noexcept;

/// The ellipses of a list answer: whether `s` holds one anywhere, and whether an element of its
/// top-level comma list (inside one bracket around the whole) is an ellipsis alone, as the
/// fallback's sequence rule splits it.
struct Ellipses {
  bool any = false;
  bool term = false;
};
Ellipses ellipses(std::string_view s) noexcept;

/// The answer without a leading label that names what it gives values to: "(x, y): (0,2),(0,-2)"
/// -> "(0,2),(0,-2)", "n: 5" -> "5". The label is one name (one or two ASCII letters, a subscript
/// of digits or letters) or such names in parentheses, apart by commas; then ':' (not ":="), then
/// more. "3:1" (a ratio) and "f: \mathbb{R} \to \mathbb{R}" keep theirs only in this: the latter
/// loses "f:" and still names no value.
std::string_view without_label(std::string_view answer) noexcept;

}  // namespace rapidgrade::grade::internal
