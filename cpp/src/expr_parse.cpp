// The expression engine's parse entry point: syntax detection and dispatch to the parsers of
// each syntax (expr_latex.cpp, expr_infix.cpp, expr_rpn.cpp, sharing expr_build.hpp), the
// Ast's node pool, and the shared helpers of expr_build.hpp.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr_build.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {

std::uint32_t Ast::add(Node node, std::size_t offset) {
  std::size_t depth = 0;
  for (std::uint32_t k : node.kids) depth = std::max<std::size_t>(depth, nodes[k].depth);
  if (depth + 1 > kMaxAstDepth) {
    throw ParseError("parse_expr: expression nested deeper than " + std::to_string(kMaxAstDepth) +
                         " levels at offset " + std::to_string(offset),
                     offset);
  }
  node.depth = static_cast<std::uint16_t>(depth + 1);
  nodes.push_back(std::move(node));
  return static_cast<std::uint32_t>(nodes.size() - 1);
}

namespace detail {

ParseError parse_error(const std::string& problem, std::size_t offset) {
  // the message quotes input; non-ASCII bytes (possibly invalid UTF-8 from bytes input) become '?'
  std::string safe = problem;
  for (char& c : safe)
    if (static_cast<unsigned char>(c) >= 0x80) c = '?';
  return ParseError("parse_expr: " + safe + " at offset " + std::to_string(offset), offset);
}

[[noreturn]] void fail(const std::string& problem, std::size_t offset) { throw parse_error(problem, offset); }

void check_size(std::string_view text) {
  if (text.size() > kMaxExprBytes) {
    throw LimitError("parse_expr: input of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                     std::to_string(kMaxExprBytes) + " bytes");
  }
}

std::string canonical_number(std::string_view mant, std::string_view exp) {
  // no exponent and no leading zero ("42", "3.25"): already canonical, as nearly every literal
  if (exp.empty() && !mant.empty() && mant[0] != '0' && mant[0] != '.') return std::string(mant);
  std::string s(mant);
  std::size_t dot = s.find('.');
  std::string ip = dot == std::string::npos ? s : s.substr(0, dot);
  std::string fp = dot == std::string::npos ? "" : s.substr(dot + 1);
  std::size_t nz = ip.find_first_not_of('0');
  ip = nz == std::string::npos ? "0" : ip.substr(nz);
  std::string out = ip;
  if (!fp.empty()) out += "." + fp;
  if (!exp.empty()) {
    std::string e(exp);
    bool neg = false;
    std::size_t p = 0;
    if (e[0] == '+' || e[0] == '-') {
      neg = e[0] == '-';
      p = 1;
    }
    std::string digits = e.substr(p);
    std::size_t z = digits.find_first_not_of('0');
    digits = z == std::string::npos ? "0" : digits.substr(z);
    out += std::string("e") + (neg && digits != "0" ? "-" : "") + digits;
  }
  return out;
}

}  // namespace detail

using namespace detail;

Syntax detect_syntax(std::string_view text) {
  if (text.find('\\') != std::string_view::npos) return Syntax::kLatex;
  // RPN: whitespace-separated, at least two words, the last one an operator, the first not (at
  // least one operand precedes the first operator), and no bracket or comma in any word. Only
  // the first and the last word are needed: each is read from its end of the text.
  const std::size_t n = text.size();
  std::size_t first_start = 0;
  while (first_start < n && is_space(text[first_start])) ++first_start;
  const std::size_t first_end = rapidgrade::detail::kSpaceBytes.find(text, first_start);
  std::size_t last_end = n;
  while (last_end > first_end && is_space(text[last_end - 1])) --last_end;
  std::size_t last_start = last_end;
  while (last_start > first_end && !is_space(text[last_start - 1])) --last_start;
  const bool two_words = last_start > first_end;  // a space run lies between the two words
  const std::string_view first = text.substr(first_start, first_end - first_start);
  const std::string_view last = text.substr(last_start, last_end - last_start);
  if (two_words && (is_rpn_binary(last, true) || is_rpn_unary(last, true)) &&
      text.find_first_of("(),{}") == std::string_view::npos && !is_rpn_binary(first, true) &&
      !is_rpn_unary(first, true)) {
    return Syntax::kRpn;
  }
  if (rapidgrade::detail::find_str(text, 0, "**") != rapidgrade::detail::kNpos) return Syntax::kInfix;
  // Python-style identifiers: a known function name or an opaque call "Integral(",
  // "oo", "E"/"I" used as constants next to operators. Only a '(' or an "oo" can make one.
  if (text.find('(') == std::string_view::npos &&
      rapidgrade::detail::find_str(text, 0, "oo") == rapidgrade::detail::kNpos) {
    return Syntax::kLatex;
  }
  std::size_t i = 0;
  while (i < n) {
    if (is_alpha(text[i])) {
      std::size_t j = i;
      while (j < n && (is_alpha(text[j]) || is_digit(text[j]) || text[j] == '_')) ++j;
      std::string_view w = text.substr(i, j - i);
      if (w == "oo") return Syntax::kInfix;
      if (w.size() >= 2 && j < n && text[j] == '(' && w != "ln" && !function_word(w, true)) return Syntax::kInfix;
      i = j;
    } else {
      ++i;
    }
  }
  return Syntax::kLatex;
}

Ast parse(std::string_view text, Syntax syntax) {
  if (syntax == Syntax::kAuto) syntax = detect_syntax(text);
  switch (syntax) {
    case Syntax::kInfix: return parse_infix(text);
    case Syntax::kRpn: return parse_rpn(text);
    default: return parse_latex(text);
  }
}

std::optional<Ast> try_parse(std::string_view text, Syntax syntax) {
  try {
    if (syntax == Syntax::kAuto) syntax = detect_syntax(text);
    if (syntax != Syntax::kInfix && syntax != Syntax::kRpn) {  // parse()'s LaTeX case, without the throw
      Ast ast;
      Failure failure;
      if (!parse_latex_into(text, ast, failure)) return std::nullopt;
      return ast;
    }
    return parse(text, syntax);
  } catch (const ParseError&) {
    return std::nullopt;
  } catch (const LimitError&) {
    return std::nullopt;
  }
}

}  // namespace rapidgrade::expr
