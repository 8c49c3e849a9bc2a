// The one table of the expression engine's function names. Every reader of a function name
// derives from it: the LaTeX parser (\sin, \arcsin, bare "sin(x)"), the infix parser
// ("asin(x)", arity checks), the RPN parser ("x sin"), text detection (a known function name is
// not a word of plain text), the numeric compiler (one instruction per row), equivalence (branch
// cuts) and, through _core.expr_function_table(), the SymPy bridge (python/rapidgrade/_sympy.py)
// and the fallback's name list (checked by tests/unit/test_vocab.py).
//
// Adding a function is one row here, plus its kernel in expr_compile.cpp when it is evaluable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::detail {

/// The branch cut a function puts on its (first) argument, for equivalence: two expressions are
/// only identified by sampling when they take the same cuts of equivalent arguments. sqrt,
/// root, log and powers all go through the principal logarithm and share kLog.
enum class Cut : std::uint8_t { kNone, kLog, kAsin, kAtan, kAcot, kAsec, kAsinh, kAcosh, kAtanh };

/// Name of a cut as equivalence compares them ("log", "asin", ...); "" for kNone.
constexpr std::string_view cut_key(Cut c) noexcept {
  switch (c) {
    case Cut::kLog: return "log";
    case Cut::kAsin: return "asin";
    case Cut::kAtan: return "atan";
    case Cut::kAcot: return "acot";
    case Cut::kAsec: return "asec";
    case Cut::kAsinh: return "asinh";
    case Cut::kAcosh: return "acosh";
    case Cut::kAtanh: return "atanh";
    default: return "";
  }
}

// Row flags.
constexpr std::uint8_t kNotAnalytic = 1;    // evaluation leaves the analytic functions (Abs, floor)
constexpr std::uint8_t kDiscontinuous = 2;  // floor, ceiling: close values do not prove equality
constexpr std::uint8_t kCallOnly = 4;       // a bare word is this function only before "(":
                                            // "erf" alone stays the letters (or text) it was
constexpr std::uint8_t kRealOnly = 8;       // evaluated on the real axis only (nan off it)
// f(x, k) with k a constant integer 0 <= k <= kMaxFallingTerms is the falling factorial
// x(x-1)...(x-k+1), a polynomial in x (over k! with kOverKFactorial): binomial(n, 3) is
// n(n-1)(n-2)/6 for every n, and equal to it by sampling; with a k that is a symbol, values
// at points decide no equivalence (expr::Program::sampling_decides: binomial(n, k) is left to
// SymPy)
constexpr std::uint8_t kFalling = 16;
constexpr std::uint8_t kOverKFactorial = 32;

/// Largest constant k of a kFalling row evaluated as a product of k factors (larger ones as
/// the row's instruction, or not at all).
constexpr int kMaxFallingTerms = 64;

constexpr std::uint8_t kVariadic = 255;  // max_args of max, min, gcd, lcm

constexpr std::size_t kMaxWords = 3;

struct FunctionSpec {
  std::string_view name;              // canonical AST name (SymPy's spelling): "asin", "Abs", "besselj"
  std::string_view sympy;             // attribute of the sympy module: "asin", "Max", "besselj"; "" for
                                      // none (det: a matrix's .det(), an undefined Function otherwise)
  std::string_view latex;             // LaTeX command without the backslash ("arcsin" for \arcsin), or ""
  std::string_view words[kMaxWords];  // bare words, LaTeX and infix: {"asin", "arcsin"}
  std::string_view rpn;               // RPN token, or ""
  std::uint8_t min_args;
  std::uint8_t max_args;  // arguments are unpacked from "(a, b)" when this is > 1
  expr::Op op1;           // instruction for one argument (kNan: not evaluable)
  expr::Op op2;           // instruction for two arguments (kNan: not evaluable)
  Cut cut;
  std::uint8_t flags;
};

using expr::Op;

// clang-format off
inline constexpr FunctionSpec kFunctionTable[] = {
  // name       sympy        latex      words                          rpn        args            op1            op2            cut          flags
  {"sin",       "sin",       "sin",     {"sin"},                       "sin",     1, 1,           Op::kSin,      Op::kNan,      Cut::kNone,  0},
  {"cos",       "cos",       "cos",     {"cos"},                       "cos",     1, 1,           Op::kCos,      Op::kNan,      Cut::kNone,  0},
  {"tan",       "tan",       "tan",     {"tan"},                       "tan",     1, 1,           Op::kTan,      Op::kNan,      Cut::kNone,  0},
  {"sec",       "sec",       "sec",     {"sec"},                       "",        1, 1,           Op::kSec,      Op::kNan,      Cut::kNone,  0},
  {"csc",       "csc",       "csc",     {"csc"},                       "",        1, 1,           Op::kCsc,      Op::kNan,      Cut::kNone,  0},
  {"cot",       "cot",       "cot",     {"cot"},                       "",        1, 1,           Op::kCot,      Op::kNan,      Cut::kNone,  0},
  {"asin",      "asin",      "arcsin",  {"asin", "arcsin"},            "",        1, 1,           Op::kAsin,     Op::kNan,      Cut::kAsin,  0},
  {"acos",      "acos",      "arccos",  {"acos", "arccos"},            "",        1, 1,           Op::kAcos,     Op::kNan,      Cut::kAsin,  0},
  {"atan",      "atan",      "arctan",  {"atan", "arctan"},            "",        1, 1,           Op::kAtan,     Op::kNan,      Cut::kAtan,  0},
  {"asec",      "asec",      "arcsec",  {"asec", "arcsec"},            "",        1, 1,           Op::kAsec,     Op::kNan,      Cut::kAsec,  0},
  {"acsc",      "acsc",      "arccsc",  {"acsc", "arccsc"},            "",        1, 1,           Op::kAcsc,     Op::kNan,      Cut::kAsec,  0},
  {"acot",      "acot",      "arccot",  {"acot", "arccot"},            "",        1, 1,           Op::kAcot,     Op::kNan,      Cut::kAcot,  0},
  {"sinh",      "sinh",      "sinh",    {"sinh"},                      "sinh",    1, 1,           Op::kSinh,     Op::kNan,      Cut::kNone,  0},
  {"cosh",      "cosh",      "cosh",    {"cosh"},                      "cosh",    1, 1,           Op::kCosh,     Op::kNan,      Cut::kNone,  0},
  {"tanh",      "tanh",      "tanh",    {"tanh"},                      "tanh",    1, 1,           Op::kTanh,     Op::kNan,      Cut::kNone,  0},
  {"asinh",     "asinh",     "arcsinh", {"asinh", "arsinh", "arcsinh"}, "",       1, 1,           Op::kAsinh,    Op::kNan,      Cut::kAsinh, 0},
  {"acosh",     "acosh",     "arccosh", {"acosh", "arcosh", "arccosh"}, "",       1, 1,           Op::kAcosh,    Op::kNan,      Cut::kAcosh, 0},
  {"atanh",     "atanh",     "arctanh", {"atanh", "artanh", "arctanh"}, "",       1, 1,           Op::kAtanh,    Op::kNan,      Cut::kAtanh, 0},
  {"exp",       "exp",       "exp",     {"exp"},                       "exp",     1, 1,           Op::kExp,      Op::kNan,      Cut::kNone,  0},
  // \log is base 10 and \ln natural, \lg is log10, bare log(x) natural, log(x, b) base b: the
  // parsers special-case these spellings; the AST always has log(x) or log(x, base)
  {"log",       "log",       "log",     {"log", "ln"},                 "log",     1, 2,           Op::kLog,      Op::kLogBase,  Cut::kLog,   0},
  {"sqrt",      "sqrt",      "",        {"sqrt"},                      "sqrt",    1, 1,           Op::kSqrt,     Op::kNan,      Cut::kLog,   0},
  {"root",      "root",      "",        {"root"},                      "",        2, 2,           Op::kNan,      Op::kRoot,     Cut::kLog,   0},
  {"floor",     "floor",     "",        {"floor"},                     "",        1, 1,           Op::kFloor,    Op::kNan,      Cut::kNone,  kNotAnalytic | kDiscontinuous},
  {"ceiling",   "ceiling",   "",        {"ceiling", "ceil"},           "",        1, 1,           Op::kCeil,     Op::kNan,      Cut::kNone,  kNotAnalytic | kDiscontinuous},
  {"Abs",       "Abs",       "",        {"Abs", "abs"},                "abs",     1, 1,           Op::kAbs,      Op::kNan,      Cut::kNone,  kNotAnalytic},
  {"factorial", "factorial", "",        {"factorial"},                 "",        1, 1,           Op::kNan,      Op::kNan,      Cut::kNone,  0},
  {"binomial",  "binomial",  "",        {"binomial"},                  "",        2, 2,           Op::kNan,      Op::kBinom,    Cut::kNone,  kNotAnalytic | kFalling | kOverKFactorial},
  // the falling factorial n(n-1)...(n-k+1) = n!/(n-k)!, arrangements of k of n things
  {"ff",        "ff",        "",        {"ff"},                        "",        2, 2,           Op::kNan,      Op::kNan,      Cut::kNone,  kCallOnly | kFalling},
  {"sign",      "sign",      "sgn",     {"sign", "sgn"},               "",        1, 1,           Op::kNan,      Op::kNan,      Cut::kNone,  0},
  {"det",       "",          "det",     {"det"},                       "",        1, 1,           Op::kNan,      Op::kNan,      Cut::kNone,  0},
  {"max",       "Max",       "max",     {"max"},                       "",        1, kVariadic,   Op::kNan,      Op::kMax,      Cut::kNone,  kNotAnalytic},
  {"min",       "Min",       "min",     {"min"},                       "",        1, kVariadic,   Op::kNan,      Op::kMin,      Cut::kNone,  kNotAnalytic},
  {"gcd",       "gcd",       "gcd",     {"gcd"},                       "",        1, kVariadic,   Op::kNan,      Op::kNan,      Cut::kNone,  0},
  {"lcm",       "lcm",       "",        {"lcm"},                       "",        1, kVariadic,   Op::kNan,      Op::kNan,      Cut::kNone,  0},
  // special functions (solutions of integral equations); \operatorname{erf}, \mathrm{Si}(x),
  // \Gamma(x) in LaTeX; evaluated on the real axis (nan for complex arguments)
  {"erf",       "erf",       "",        {"erf"},                       "erf",     1, 1,           Op::kErf,      Op::kNan,      Cut::kNone,  kCallOnly | kRealOnly | kNotAnalytic},
  {"erfc",      "erfc",      "",        {"erfc"},                      "erfc",    1, 1,           Op::kErfc,     Op::kNan,      Cut::kNone,  kCallOnly | kRealOnly | kNotAnalytic},
  {"Si",        "Si",        "",        {"Si"},                        "Si",      1, 1,           Op::kSi,       Op::kNan,      Cut::kNone,  kCallOnly | kRealOnly | kNotAnalytic},
  {"Ci",        "Ci",        "",        {"Ci"},                        "Ci",      1, 1,           Op::kCi,       Op::kNan,      Cut::kLog,   kCallOnly | kRealOnly | kNotAnalytic},
  {"Ei",        "Ei",        "",        {"Ei"},                        "Ei",      1, 1,           Op::kEi,       Op::kNan,      Cut::kLog,   kCallOnly | kRealOnly | kNotAnalytic},
  {"gamma",     "gamma",     "Gamma",   {"gamma"},                     "gamma",   1, 1,           Op::kGamma,    Op::kNan,      Cut::kNone,  kCallOnly | kRealOnly | kNotAnalytic},
  {"besselj",   "besselj",   "",        {"besselj"},                   "besselj", 2, 2,           Op::kNan,      Op::kBesselJ,  Cut::kNone,  kCallOnly | kRealOnly | kNotAnalytic},
};
// clang-format on

/// The combinatorics notations written as a capital letter with a subscript n and a superscript
/// k (either order): C_n^k (Chinese and European textbooks: n choose k), A_n^k and P_n^k
/// (arrangements: n!/(n-k)!). The LaTeX parser reads "C_n^k", "C_{n}^{k}", "C^k_n",
/// "\mathrm{C}_n^k" and "{C}_{n}^{k}" as the row `function` of (n, k).
///
/// The letter is also a point, a term of a sequence, a probability ("A_1^2" is the square of
/// A_1 in a geometry answer), so the reading is conservative. It needs:
///  - the letter alone, not the end of a longer word ("AC_1^2" keeps its reading);
///  - both scripts, each one digit, one letter, or a brace group of numbers, letters, '+' and
///    '-' that neither starts nor ends with a sign ("n+1", "2n", "k-1"; "C_n^{-1}" is an inverse);
///  - when the subscript is an integer, an integer superscript no larger: C_5^2 is 10, A_5^2 is
///    20, while C_1^2, A_1^2 and A_1^n stay powers of a subscripted symbol.
/// A symbolic subscript with any simple superscript is read as the notation (C_n^2, A_n^3):
/// then (A_n)^2, written with parentheses, is the power. Anything else keeps the ordinary
/// reading, a subscripted symbol to a power.
struct ScriptNotation {
  char letter;
  std::string_view function;  // a row's name
};
inline constexpr ScriptNotation kScriptNotations[] = {{'C', "binomial"}, {'A', "ff"}, {'P', "ff"}};

/// The notation a capital letter starts, or nullptr.
inline const ScriptNotation* find_script_notation(std::string_view letter) noexcept {
  if (letter.size() != 1) return nullptr;
  for (const ScriptNotation& n : kScriptNotations)
    if (n.letter == letter[0]) return &n;
  return nullptr;
}

/// The row with canonical name `name`, or nullptr. O(table size).
inline const FunctionSpec* find_function(std::string_view name) noexcept {
  for (const FunctionSpec& f : kFunctionTable)
    if (same(f.name, name)) return &f;
  return nullptr;
}

/// The row a bare word spells ("arcsin", "ceil", "erf"), or nullptr.
inline const FunctionSpec* find_function_word(std::string_view word) noexcept {
  if (word.size() < 2 || word.size() > 9) return nullptr;  // "Si" .. "factorial"
  for (const FunctionSpec& f : kFunctionTable)
    for (std::string_view w : f.words)
      if (same(w, word)) return &f;
  return nullptr;
}

/// The row a LaTeX command spells ("arcsin" for \arcsin, "Gamma"), or nullptr.
inline const FunctionSpec* find_function_command(std::string_view command) noexcept {
  for (const FunctionSpec& f : kFunctionTable)
    if (!f.latex.empty() && same(f.latex, command)) return &f;
  return nullptr;
}

/// The row an RPN token names ("sin", "ln" is natural log), or nullptr.
inline const FunctionSpec* find_function_rpn(std::string_view token) noexcept {
  if (token.size() < 2 || !((token[0] >= 'a' && token[0] <= 'z') || (token[0] >= 'A' && token[0] <= 'Z'))) {
    return nullptr;
  }
  if (token == "ln") return find_function("log");
  for (const FunctionSpec& f : kFunctionTable)
    if (!f.rpn.empty() && same(f.rpn, token)) return &f;
  return nullptr;
}

}  // namespace rapidgrade::detail
