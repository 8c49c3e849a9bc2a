// LaTeX vocabulary shared by normalization, extraction, the expression parser and the tasks: the
// text-wrapper commands, the fraction commands, the spacing commands and the degree marks. One
// table each; every site that recognizes
// "\text{...}"-like or "\frac{..}{..}"-like commands reads it, so that normalize_latex,
// extract_answer and parse_expr accept the same set (tests/unit/test_vocab.py checks this).
#pragma once

#include <cstddef>
#include <string_view>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::detail {

/// What the braced argument of a wrapper command holds.
enum class WrapperContent : unsigned char {
  kText,      // words or a value in text mode: \text{cm}, \textrm{m}, \mbox{ and }
  kMath,      // math in another font: \mathrm{e}, \mathbf{x}, \boldsymbol{v}
  kOperator,  // the name of an operator, applied to what follows: \operatorname{erf}(x)
};

struct TextWrapper {
  std::string_view name;  // without the backslash
  WrapperContent content;
};

/// normalize_latex strips kText and kMath wrappers ("\mathbf{5}" -> "5") and keeps kOperator;
/// parse_expr reads the content of kText and kMath wrappers as math when it parses ("\text{5}"
/// is 5, "2\textrm{m}" is 2*m) and as a symbol otherwise, and applies a kOperator name as a
/// function ("\operatorname{erf}(x)"); text detection looks inside all but kOperator.
inline constexpr TextWrapper kTextWrappers[] = {
    {"text", WrapperContent::kText},       {"textrm", WrapperContent::kText},
    {"textnormal", WrapperContent::kText}, {"textbf", WrapperContent::kText},
    {"textit", WrapperContent::kText},     {"mbox", WrapperContent::kText},
    {"mathrm", WrapperContent::kMath},     {"mathbf", WrapperContent::kMath},
    {"mathit", WrapperContent::kMath},     {"mathsf", WrapperContent::kMath},
    {"boldsymbol", WrapperContent::kMath}, {"operatorname", WrapperContent::kOperator},
};

/// The wrapper named `name` (without the backslash), or nullptr.
inline const TextWrapper* find_text_wrapper(std::string_view name) noexcept {
  for (const TextWrapper& w : kTextWrappers)
    if (same(w.name, name)) return &w;
  return nullptr;
}

/// The fraction commands (without the backslash): each takes a numerator and a denominator.
/// normalize_latex writes them all as \frac; parse_expr reads them as a division; extraction
/// reads a numeric "\dfrac{3}{4}" as one number.
inline constexpr std::string_view kFractionCommands[] = {"frac", "dfrac", "tfrac", "cfrac"};

/// Whether `name` (without the backslash) is one of kFractionCommands.
inline bool is_fraction_command(std::string_view name) noexcept {
  for (const std::string_view f : kFractionCommands)
    if (same(f, name)) return true;
  return false;
}

/// The binomial commands (without the backslash): each takes two arguments, n and k.
/// parse_expr reads them as binomial(n, k); normalization counts their arguments (a group after
/// the second is no argument: "\binom{5}{2}{cm}").
inline constexpr std::string_view kBinomialCommands[] = {"binom", "dbinom", "tbinom"};

/// Whether `name` (without the backslash) is one of kBinomialCommands.
inline bool is_binomial_command(std::string_view name) noexcept {
  for (const std::string_view b : kBinomialCommands)
    if (same(b, name)) return true;
  return false;
}

/// The words that join the parts of a list answer ("1 and -2", "x = 1 or x = 2", "x<2 \text{ or }
/// x>3"), ASCII, matched as written, whole words: the expression lexer reads one (alone, or
/// alone in a text wrapper) as a comma (expr_latex_lex.cpp), and text detection as no word
/// (expr_text.cpp); normalization keeps the spaces around one between math (rule 5) and reads
/// one in a list of numbers ("1, 100 and 0"); extraction joins the spans one joins
/// (extract_math.cpp). `alternative`: the parts are alternatives, a union of conditions
/// (Tok::alternative, Extraction::alternatives), as markers.hpp's kCjkOr says in CJK text.
struct JoinerWord {
  std::string_view word;
  bool alternative;
};
inline constexpr JoinerWord kJoinerWords[] = {{"and", false}, {"or", true}};

/// The row of kJoinerWords that `word` is, or nullptr.
constexpr const JoinerWord* joiner_word(std::string_view word) noexcept {
  for (const JoinerWord& j : kJoinerWords) {
    if (same(word, j.word)) return &j;
  }
  return nullptr;
}

/// The names of an integer parameter in a family of solutions: "\frac{\pi}{6}+k\pi", "x = 2n\pi \pm
/// \frac{\pi}{3}", "m\pi". Equivalence compares two lists of such families, whose periods are
/// rational multiples of pi, as the sets of reals they are (equiv::periodic_families).
inline constexpr std::string_view kIntegerParameters[] = {"k", "n", "m"};

/// Whether `name` is one of kIntegerParameters.
constexpr bool is_integer_parameter(std::string_view name) noexcept {
  for (const std::string_view p : kIntegerParameters) {
    if (same(name, p)) return true;
  }
  return false;
}

/// The commands of approximate equality: "x = 1/3 \approx 0.33"; textbooks also write \simeq and
/// \cong for "about" ("T = (\ln 50) / 0.03 \cong 130.4 min"). Extraction reads them as the
/// equalities of a chain (extract_math.cpp, relation_at), the parser as '=' (is_equals_command).
inline constexpr std::string_view kApproximationCommands[] = {"approx", "simeq", "cong", "doteq"};

/// Whether `name` (without the backslash) is one of kApproximationCommands.
inline bool is_approximation_command(std::string_view name) noexcept {
  for (const std::string_view a : kApproximationCommands)
    if (same(a, name)) return true;
  return false;
}

/// U+2248 "≈" in UTF-8, the sign of kApproximationCommands' \approx (unicode::fold_math writes it
/// so in normalization; grading reads it where the response has it as written).
inline constexpr std::string_view kApproximationSign = "\xE2\x89\x88";

/// The start of an approximation sign that ends s[0, k) (blanks before k skipped): a command of
/// kApproximationCommands or kApproximationSign; kNpos when none does.
inline std::size_t approximation_sign_before(std::string_view s, std::size_t k) noexcept {
  while (k > 0 && is_blank(s[k - 1])) --k;
  const std::size_t sign = kApproximationSign.size();
  if (k >= sign && s.substr(k - sign, sign) == kApproximationSign) return k - sign;
  std::size_t w = k;
  while (w > 0 && is_letter(s[w - 1])) --w;
  if (w < k && w > 0 && s[w - 1] == '\\' && is_approximation_command(s.substr(w, k - w))) return w - 1;
  return kNpos;
}

/// Whether parse_expr reads the command `name` as "=" in a relation: the approximation commands
/// and \in ("x \in \{1, 2\}"). math-verify ends an equation at them instead, so grading does
/// not take the core's last member of such an equation for the one the fallback compares.
inline bool is_equals_command(std::string_view name) noexcept {
  return is_approximation_command(name) || same("in", name);
}

/// The inequality commands, each with the relation code the LaTeX parser gives it (expr_build's
/// relation_code: 'l' is <=, 'g' is >=, 'n' is !=): the parser's relations and extraction's
/// reading of a span's relations (extract_math.cpp, relation_at) both read this table.
struct InequalityCommand {
  std::string_view name;  // without the backslash
  char code;
};
inline constexpr InequalityCommand kInequalityCommands[] = {
    {"le", 'l'},       {"leq", 'l'}, {"leqslant", 'l'}, {"ge", 'g'}, {"geq", 'g'},
    {"geqslant", 'g'}, {"lt", '<'},  {"gt", '>'},       {"ne", 'n'}, {"neq", 'n'},
};

/// The relation code of the inequality command `name` (without the backslash), or 0.
inline char inequality_code(std::string_view name) noexcept {
  for (const InequalityCommand& c : kInequalityCommands)
    if (same(c.name, name)) return c.code;
  return 0;
}

/// The big operators over an index (without the backslash): "\sum_{i=1}^{n} i",
/// "\prod_{p \mid n} p". The core evaluates none; SymPy evaluates one whose subscript assigns the
/// index its first value. One whose subscript is a condition ("\sum_{x \in R}", "\sum_{1 \le i <
/// j \le n}", "\sum_{\substack{...}}") sums over a set that no reader enumerates: the grader keeps
/// such a pair undecided (grade_text.cpp, sums_over_a_condition).
inline constexpr std::string_view kBigOperators[] = {"sum", "prod"};

/// Whether `name` (without the backslash) is one of kBigOperators.
inline bool is_big_operator(std::string_view name) noexcept {
  for (const std::string_view b : kBigOperators)
    if (same(b, name)) return true;
  return false;
}

/// The divisibility commands (without the backslash): "6 \mid n+1", "3 \nmid m". Extraction reads
/// one as a relation (extract_math.cpp, relation_at): a span that states divisibility is a
/// condition, not a value that a list of values may continue ("Hence $3 \nmid 16-m$, and
/// $d(16, m)=1$." answers 1).
inline constexpr std::string_view kDivisibilityCommands[] = {"mid", "nmid", "divides", "ndivides"};

/// Whether `name` (without the backslash) is one of kDivisibilityCommands.
inline bool is_divisibility_command(std::string_view name) noexcept {
  for (const std::string_view d : kDivisibilityCommands)
    if (same(d, name)) return true;
  return false;
}

/// The commands that name an angle by its points, "\angle ACB", "\measuredangle A C B" (or its
/// number, "\angle 1"): parse_expr reads one as a single symbol, not as a product of points, and
/// the capital letters after it are no words to text detection (expr_text.cpp).
inline constexpr std::string_view kAngleCommands[] = {"angle", "measuredangle"};

/// Whether `name` (without the backslash) is one of kAngleCommands.
inline bool is_angle_command(std::string_view name) noexcept {
  for (const std::string_view a : kAngleCommands)
    if (same(a, name)) return true;
  return false;
}

/// The bold commands (without the backslash). Extraction reads spaced digits in bold as one
/// number ("\mathbf{1 7}" is 17, widen_bold_digits) and a text that sets the numbers of its
/// answer in bold, and nothing else, as stating that answer (extract_bold.cpp).
inline constexpr std::string_view kBoldCommands[] = {"mathbf", "textbf", "boldsymbol", "bm"};

/// Whether `name` (without the backslash) is one of kBoldCommands.
inline bool is_bold_command(std::string_view name) noexcept {
  for (const std::string_view b : kBoldCommands)
    if (same(b, name)) return true;
  return false;
}

/// The ellipsis commands (without the backslash), as the fallback's sequence rule reads them
/// (python/rapidgrade/_fallback_rules.py, _ELLIPSIS), and the ellipses written as characters.
/// A list with an ellipsis ("1, 2, \ldots, n") equals another only term by term.
inline constexpr std::string_view kEllipsisCommands[] = {"dots",  "ldots", "cdots", "vdots", "dotsb", "dotsc",
                                                         "dotsi", "dotsm", "dotso", "ldotp", "cdotp"};
inline constexpr std::string_view kEllipsisTexts[] = {"...", "\xE2\x80\xA6" /* … */, "\xE2\x8B\xAF" /* ⋯ */};

/// Whether `name` (without the backslash) is one of kEllipsisCommands.
inline bool is_ellipsis_command(std::string_view name) noexcept {
  for (const std::string_view e : kEllipsisCommands)
    if (same(e, name)) return true;
  return false;
}

/// How much space a spacing command makes.
enum class Spacing : unsigned char {
  kThin,  // \, \; \: \! \thinspace \negthinspace: inside a number or a product ("1\,000")
  kWide,  // "\ " \quad \qquad \enspace \enskip \hfill: between words or parts of an answer
};

struct SpacingCommand {
  std::string_view name;  // without the backslash
  Spacing width;
};

/// The spacing commands. normalize_latex removes the thin ones ("1\,000" -> "1000"), writes "\ "
/// as a space and every other wide one as "\quad" ("\qquad" -> "\quad"), the separator of an
/// answer's parts; parse_expr skips them all ("x\quad+1" is x+1); extraction reads a wide one
/// between two parts of an answer as a separator ("x=1\quad y=2").
inline constexpr SpacingCommand kSpacingCommands[] = {
    {",", Spacing::kThin},       {";", Spacing::kThin},         {":", Spacing::kThin},
    {"!", Spacing::kThin},       {"thinspace", Spacing::kThin}, {"negthinspace", Spacing::kThin},
    {" ", Spacing::kWide},       {"quad", Spacing::kWide},      {"qquad", Spacing::kWide},
    {"enspace", Spacing::kWide}, {"enskip", Spacing::kWide},    {"hfill", Spacing::kWide},
};

/// The spacing command named `name` (without the backslash), or nullptr.
inline const SpacingCommand* find_spacing_command(std::string_view name) noexcept {
  for (const SpacingCommand& c : kSpacingCommands)
    if (same(c.name, name)) return &c;
  return nullptr;
}

/// Whether `name` is a wide spacing command (\quad, \qquad, ...).
inline bool is_wide_spacing(std::string_view name) noexcept {
  const SpacingCommand* c = find_spacing_command(name);
  return c != nullptr && c->width == Spacing::kWide;
}

/// The degree marks written after a number: "45^\circ", "45^{\circ}", "45\degree", "45°" (U+00B0).
/// normalize_latex removes them and flags the answer as written in degrees (Normalized::degrees,
/// as it flags a percentage), so that grading reads "45^\circ" as 45 or as pi/4 (grade.cpp);
/// parse_expr reads each as a degree node (x^\circ: x or x*pi/180, equiv.hpp).
inline constexpr std::string_view kDegreeMarks[] = {"^\\circ", "^{\\circ}", "\\degree", "\xC2\xB0"};

/// The length of the degree mark of kDegreeMarks at s[i], or 0. A mark that ends in a letter
/// must not be followed by one: "^\circle" and "\degrees" hold no mark.
inline std::size_t degree_mark_at(std::string_view s, std::size_t i) noexcept {
  for (const std::string_view m : kDegreeMarks) {
    if (!starts_with(s, i, m)) continue;
    const std::size_t end = i + m.size();
    if (is_letter(m.back()) && end < s.size() && is_letter(s[end])) continue;
    return m.size();
  }
  return 0;
}

}  // namespace rapidgrade::detail
