// Post-processing of answers to Fredholm integral equations ("find u(x)"): the string work of
// rapidgrade.tasks.fredholm.parse_llm_output, as the fred-llm reference pipeline defines it
// (see ../shared/corpora/FREDHOLM.md), with its quirks documented where we differ.
//
// Input is UTF-8; every routine is linear in the response length times a small constant (each
// candidate is parsed at most once, and the number of candidates is capped by kMaxCandidates),
// has no recursion of its own (the expression parsers bound theirs) and never throws except
// std::bad_alloc: a malformed candidate is simply not accepted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::fredholm {

/// How the solution was found (most specific first).
enum class Method : std::uint8_t {
  kNone,             // nothing found
  kUxLine,           // the last line holding "u(x) = rhs" whose rhs parses
  kSolutionMarker,   // the first "SOLUTION: ..." line whose content parses
  kWholeResponse,    // "u(x) =" ending a line, its rhs on the following lines (display math)
  kRegexMarkerLine,  // fallback: "SOLUTION: u(x) = ..." at a line start
  kRegexSolution,    // fallback: "Solution: u(x) = ..." anywhere
  kRegexGeneric,     // fallback: "u(x) = ..." up to a newline or a sentence end
  kPoints,           // a discrete point list [(x, y), ...]
};
inline constexpr std::string_view kMethodNames[] = {"none",           "ux_line",           "solution_marker",
                                                    "whole_response", "regex_marker_line", "regex_solution",
                                                    "regex_generic",  "discrete_points"};

/// At most this many candidate strings are tried per strategy (the last u(x) lines first).
constexpr std::size_t kMaxCandidates = 64;

/// The seven solution types (SOLUTION_TYPE values kept; anything else is dropped).
inline constexpr std::string_view kSolutionTypes[] = {
    "exact_symbolic", "approx_coef", "discrete_points", "series", "family", "regularized", "none"};

/// What a name of the solution reads as (the reference's FREDHOLM_LOCAL_DICT, by name): another
/// symbol, a constant ("pi", "E", "I", "oo") or a finite number (a decimal literal, maybe
/// negative: "-2.5", "1e-05").
struct SymbolRule {
  enum class Kind : std::uint8_t { kSymbol, kConst, kNumber };
  Kind kind = Kind::kSymbol;
  std::string text;
};
/// Names to rules. The table applies to every syntax; in infix, "e" is Euler's number unless the
/// table names "e" (the reference's table maps "e" to E; LaTeX and RPN read it so already).
using SymbolTable = std::map<std::string, SymbolRule, std::less<>>;

struct Options {
  bool extract_solution = true;
  bool validate = true;  // parse candidates (false: the first candidate's text is taken as is)
  expr::Syntax syntax = expr::Syntax::kAuto;
  SymbolTable symbols;
};

struct Parsed {
  /// The cleaned solution text (right-hand side only): delimiters, \left/\right, sizing and
  /// display commands, trailing "where ..." clauses and punctuation removed. Empty: none.
  std::string solution;
  /// What the expression parser read (the solution without a leading "u(x) \approx", or the
  /// canonical infix form of an equation's left side), and in which syntax; empty when the
  /// solution did not parse.
  std::string expr_text;
  expr::Syntax expr_syntax = expr::Syntax::kLatex;
  Method method = Method::kNone;
  bool parsed = false;  // expr_text parsed to a non-text expression
  /// The final answer is the words "No solution" (not an expression: the reference's letter
  /// product quirk is not reproduced).
  bool says_no_solution = false;
  std::optional<bool> has_solution;               // HAS_SOLUTION line or a phrase; nullopt: not stated
  std::optional<std::string> solution_type;       // one of kSolutionTypes
  std::optional<std::string> reasoning;           // numbered steps joined by '\n', else REASONING: text
  std::vector<std::pair<double, double>> points;  // kPoints only
  double confidence = 0.0;
};

/// Post-processes one response. O(n * kMaxCandidates) in the worst case; O(n) typically.
Parsed parse_output(std::string_view response, const Options& options = {});

/// The reference's HAS_SOLUTION reading: "HAS_SOLUTION: yes|no|true|false", else the line's
/// words (no/not/false/n/a/none/does not -> false; yes/true/exists -> true), else the phrases
/// "no solution exists" / "solution does not exist" -> false; nullopt otherwise.
std::optional<bool> read_has_solution(std::string_view response);
/// The reference's SOLUTION_TYPE reading (first "SOLUTION_TYPE:" / "Solution type", its words
/// joined by '_' and lower-cased, kept when one of kSolutionTypes).
std::optional<std::string> read_solution_type(std::string_view response);
/// Removes delimiters and trailing explanations from a candidate ("\(x^2\), where ..." -> "x^2").
std::string clean_candidate(std::string_view text);

/// Cleans `text` (clean_candidate) and parses it as parse_output accepts a candidate; on success
/// fills out.solution, out.expr_text, out.expr_syntax, out.parsed and returns true.
///
/// How a candidate is read (parse_output too): Unicode subscripts become subscripts
/// ("a₀ + a₁x" as a_0 + a_1*x); under kAuto, a candidate without backslash or brace whose
/// multi-letter name stands next to '*' or '/' ("lam*x + mu*sin(x)", "lambda_1*x") is read as
/// infix, and so is one that LaTeX reads as words; `symbols` is applied to the tree, and when it
/// changes a name, expr_text is the canonical infix form of the result.
bool read_solution(std::string_view text, expr::Syntax syntax, Parsed& out);
bool read_solution(std::string_view text, expr::Syntax syntax, const SymbolTable& symbols, Parsed& out);

/// Values of the expression `text` (parsed in `syntax`) at the points `xs` of `variable`; other
/// free symbols take their value from `constants`. NaN for every point when the text does not
/// parse, is not numeric (structures, text, unknown functions) or has a symbol without a value;
/// NaN at points where the value is undefined or not real. O(|xs| * expression size).
std::vector<double> sample(std::string_view text, expr::Syntax syntax, const std::string& variable,
                           const std::map<std::string, double>& constants, const std::vector<double>& xs);

}  // namespace rapidgrade::fredholm
