// Internals shared by the expression parsers (expr_latex.cpp, expr_infix.cpp, expr_rpn.cpp,
// expr_text.cpp, expr_parse.cpp): character classes, errors, literal canonicalization, the
// depth guard and the tree builder that every parser uses for its n-ary sums and products,
// relations, negations and intervals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/utf8.hpp"

namespace rapidgrade::expr::detail {

/// ParseError("parse_expr: <problem> at offset <offset>"); non-ASCII bytes of the problem
/// (quoted input, possibly invalid UTF-8) become '?'.
ParseError parse_error(const std::string& problem, std::size_t offset);
/// Throws parse_error(problem, offset).
[[noreturn]] void fail(const std::string& problem, std::size_t offset);

/// What makes input malformed, and where: the parts of the ParseError a parser reports.
struct Failure {
  std::string problem;
  std::size_t offset = 0;
};

/// parse_latex without an exception for malformed input: false, with `failure` set, where
/// parse_latex throws ParseError for it. The depth limit still throws ParseError and an
/// oversized input LimitError. On failure `ast` holds a partial tree.
bool parse_latex_into(std::string_view text, Ast& ast, Failure& failure);
/// LimitError when the text is longer than kMaxExprBytes.
void check_size(std::string_view text);

// Character classes and UTF-8 lengths have one home (detail/text.hpp, utf8.hpp).
using ::rapidgrade::detail::is_digit;
using ::rapidgrade::detail::is_space;
inline constexpr auto& is_alpha = ::rapidgrade::detail::is_letter;
inline constexpr auto& utf8_length = ::rapidgrade::utf8::sequence_length;

/// Canonical decimal literal: leading zeros of the integer part dropped ("007" -> "7",
/// ".5" -> "0.5"), trailing '.' dropped; exponent kept as "e<n>" ("1.5", "-03" -> "1.5e-3").
std::string canonical_number(std::string_view mant, std::string_view exp);

inline Node make(Kind kind, std::string text = {}, KidList kids = {}) {
  Node n;
  n.kind = kind;
  n.text = std::move(text);
  n.kids = std::move(kids);
  return n;
}

/// A bare word that names a function ("sin", "arcsin", "ceil"), or nullptr. Rows marked
/// kCallOnly ("erf", "gamma") count only when `before_paren` (the word is followed by "(").
inline const rapidgrade::detail::FunctionSpec* function_word(std::string_view w, bool before_paren) {
  const rapidgrade::detail::FunctionSpec* f = rapidgrade::detail::find_function_word(w);
  if (f != nullptr && (f->flags & rapidgrade::detail::kCallOnly) != 0 && !before_paren) return nullptr;
  return f;
}

/// The commands that name a letter, read as a symbol of that name: the Greek letters and the
/// script l of lengths ("\ell").
constexpr std::string_view kLetterCommands[] = {
    "alpha",    "beta",   "gamma",   "delta", "epsilon", "varepsilon", "zeta",    "eta",   "theta",  "vartheta",
    "iota",     "kappa",  "lambda",  "mu",    "nu",      "xi",         "omicron", "rho",   "varrho", "sigma",
    "varsigma", "tau",    "upsilon", "phi",   "varphi",  "chi",        "psi",     "omega", "Gamma",  "Delta",
    "Theta",    "Lambda", "Xi",      "Pi",    "Sigma",   "Upsilon",    "Phi",     "Psi",   "Omega",  "ell"};

inline bool is_letter_command(std::string_view w) {
  for (const std::string_view g : kLetterCommands)
    if (rapidgrade::detail::same(w, g)) return true;
  return false;
}

/// Plain-text detection and normalization (expr_text.cpp).
/// A plain-text answer: a run of >= 3 letters (outside commands) that is not a known function
/// name, e.g. "Yes", "odd", "\text{east}", or a CJK ideograph ("三棱锥"). "xyz" is therefore
/// text, not x*y*z.
bool looks_like_text(std::string_view s);
/// An equation that names its left side in words or letters and states a value on its right:
/// "area = 60", "abcd = 2240", "[ARML] = 74", "\frac{[ABCD]}{[MPQ]} = 6", "\text{Area} = 12 \cdot
/// 5 = 60". Its first '=' at the top level has ASCII math or words before it (no '$') and math
/// after it (a digit or a command) that does not look like text. Such a text is parsed as math:
/// the letters of its left side as LaTeX reads a run of letters (a product), so the equation
/// states the value of its left side; it stays the words it was when it does not parse ("5
/// apples = x", "area = big" and "yes = no" stay text).
bool names_a_value(std::string_view s);
/// The words of a text answer, lower case, commands and braces dropped ("\text{East}." -> "east").
std::string normalize_text(std::string_view s);

/// RPN operator tokens (expr_rpn.cpp): "+ - * / ^" and the RPN column of the function table.
/// `detect` restricts to the tokens used by syntax detection (rows marked kCallOnly excluded).
bool is_rpn_unary(std::string_view w, bool detect = false);
bool is_rpn_binary(std::string_view w, bool detect = false);

/// Counts nesting for a parser: throws ParseError past kMaxAstDepth.
struct DepthGuard {
  std::size_t& d;
  DepthGuard(std::size_t& depth, std::size_t offset) : d(depth) {
    if (++d > kMaxAstDepth) {
      fail("expression nested deeper than " + std::to_string(kMaxAstDepth) + " levels", offset);
    }
  }
  DepthGuard(const DepthGuard&) = delete;
  DepthGuard& operator=(const DepthGuard&) = delete;
  ~DepthGuard() { --d; }
};

/// The node constructors every parser shares; `at` is the offset reported on a depth error.
struct TreeBuilder {
  Ast& ast;

  std::uint32_t add(Node n, std::size_t at) { return ast.add(std::move(n), at); }

  /// n-ary node of `kind`, merging children of the same kind; a single child is returned as is.
  std::uint32_t flat(Kind kind, const std::vector<std::uint32_t>& items, std::size_t at) {
    return flat(kind, items.data(), items.data() + items.size(), at);
  }
  std::uint32_t flat(Kind kind, const KidList& items, std::size_t at) {
    return flat(kind, items.begin(), items.end(), at);
  }
  std::uint32_t flat(Kind kind, const std::uint32_t* first, const std::uint32_t* last, std::size_t at) {
    if (last - first == 1) return *first;
    KidList kids;
    for (const std::uint32_t* it = first; it != last; ++it) {
      const std::uint32_t k = *it;
      if (ast.at(k).kind == kind) {
        const KidList& sub = ast.at(k).kids;
        kids.append(sub.begin(), sub.end());
      } else {
        kids.push_back(k);
      }
    }
    return add(make(kind, {}, std::move(kids)), at);
  }

  std::uint32_t neg(std::uint32_t x, std::size_t at) { return add(make(Kind::kNeg, {}, {x}), at); }

  /// "a \pm b"; a unary \pm b has a = 0.
  std::uint32_t plus_minus(std::uint32_t a, std::uint32_t b, std::size_t at) {
    return add(make(Kind::kPlusMinus, {}, {a, b}), at);
  }

  /// The relation chain both parsers read, "a < b <= c": `next_op()` consumes the next relation
  /// operator and returns its code (relation_code: '=', '<', 'l', ...) or returns 0;
  /// `operand()` parses one side. A single operand is returned as is.
  template <class NextOp, class Operand, class At>
  std::uint32_t relation_chain(NextOp next_op, Operand operand, At at) {
    KidList kids{operand()};  // a chain's operands (one or two in most: no allocation)
    std::string ops;
    while (const int op = next_op()) {
      ops += static_cast<char>(op);
      kids.push_back(operand());
    }
    if (ops.empty()) return kids[0];
    return add(make(Kind::kRelation, std::move(ops), std::move(kids)), at());
  }

  /// The additive chain both the LaTeX and the infix parser read, "a + b - c \pm d":
  /// `next_op()` consumes the next additive operator and returns '+', '-', 'p' (plus-minus) or
  /// 'm' (minus-plus), or returns 0 at anything else; `term()` parses one term; `at()` is the
  /// current offset. "a \pm b" takes the whole sum so far as a: "1 + 2 \pm 3" is (1 + 2) \pm 3.
  template <class NextOp, class Term, class At>
  std::uint32_t sum_chain(NextOp next_op, Term term, At at) {
    KidList terms{term()};
    while (const char op = next_op()) {
      if (op == '+') {
        terms.push_back(term());
      } else if (op == '-') {
        const std::uint32_t t = term();
        terms.push_back(neg(t, at()));
      } else {
        const std::uint32_t left = flat(Kind::kAdd, terms, at());
        std::uint32_t right = term();
        if (op == 'm') right = neg(right, at());
        terms = {plus_minus(left, right, at())};
      }
    }
    return flat(Kind::kAdd, terms, at());
  }

  std::uint32_t interval(KidList ends, bool left_open, bool right_open, std::size_t at) {
    Node n = make(Kind::kInterval, {}, std::move(ends));
    n.flags = static_cast<std::uint8_t>((left_open ? kLeftOpen : 0) | (right_open ? kRightOpen : 0));
    return add(std::move(n), at);
  }
};

/// Relation operator code of a token's text ('=', '<', '>', 'l' (<=), 'g' (>=), 'n' (!=)), or 0.
/// e.g. "<=" -> 'l', "==" -> '='. LaTeX commands (\le, \neq) are mapped by the LaTeX parser.
inline int relation_code(std::string_view t) {
  if (t == "=" || t == "==") return '=';
  if (t == "<") return '<';
  if (t == ">") return '>';
  if (t == "<=") return 'l';
  if (t == ">=") return 'g';
  if (t == "!=") return 'n';
  return 0;
}

}  // namespace rapidgrade::expr::detail
