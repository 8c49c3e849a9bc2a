// RPN parser of the expression engine: whitespace-separated postfix tokens, one pass with an
// explicit operand stack (no recursion). Operators: + - * / ^, neg, and the RPN column of the
// function table (functions.hpp: sin cos tan exp log ln sqrt abs erf erfc Si Ci Ei gamma,
// besselj with two operands); constants pi e; numbers and identifiers are operands.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr_build.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {
namespace detail {
namespace {

using rapidgrade::detail::FunctionSpec;

/// The function row of an RPN token taking `operands` operands, or nullptr. With `detect`,
/// rows marked kCallOnly do not count ("alpha beta gamma" stays text under syntax="auto").
const FunctionSpec* rpn_function(std::string_view w, std::size_t operands, bool detect) {
  const FunctionSpec* f = rapidgrade::detail::find_function_rpn(w);
  if (f == nullptr || f->min_args != operands) return nullptr;
  if (detect && (f->flags & rapidgrade::detail::kCallOnly) != 0) return nullptr;
  return f;
}

/// "12", "1.5", "1.5e-3", ".5"; anything else in a token that starts with a digit is an error.
std::uint32_t rpn_number(Ast& ast, const std::string& w, std::size_t at) {
  std::size_t k = 0;
  while (k < w.size() && is_digit(w[k])) ++k;
  if (k < w.size() && w[k] == '.') {
    ++k;
    while (k < w.size() && is_digit(w[k])) ++k;
  }
  std::string mant = w.substr(0, k);
  std::string exp;
  if (k < w.size() && (w[k] == 'e' || w[k] == 'E')) {
    std::size_t e = k + 1;
    if (e < w.size() && (w[e] == '+' || w[e] == '-')) ++e;
    const std::size_t d = e;
    while (e < w.size() && is_digit(w[e])) ++e;
    if (e > d) {
      exp = w.substr(k + 1, e - k - 1);
      k = e;
    }
  }
  if (k != w.size()) fail("invalid token '" + w + "'", at);
  if (mant.back() == '.') mant.pop_back();
  return ast.add(make(Kind::kNumber, canonical_number(mant, exp)), at);
}

class RpnParser {
 public:
  explicit RpnParser(Ast& ast) : ast_(ast), b_{ast} {}

  std::uint32_t run(std::string_view text) {
    std::size_t i = 0;
    const std::size_t n = text.size();
    std::string last;
    while (i < n) {
      if (is_space(text[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < n && !is_space(text[j])) ++j;
      last = std::string(text.substr(i, j - i));
      token(last, i);
      i = j;
    }
    if (stack_.empty()) fail("empty expression", 0);
    if (stack_.size() > 1) {
      fail(std::to_string(stack_.size()) + " operands left on the stack after the last token '" + last +
               "' (missing operator)",
           stack_[stack_.size() - 2].second);
    }
    return stack_.back().first;
  }

 private:
  Ast& ast_;
  TreeBuilder b_;
  std::vector<std::pair<std::uint32_t, std::size_t>> stack_;  // node, offset of its token

  std::vector<std::uint32_t> pop(std::size_t k, const std::string& w, std::size_t at) {
    if (stack_.size() < k) {
      fail("stack underflow: '" + w + "' needs " + std::to_string(k) + " operand" + (k == 1 ? "" : "s") + ", " +
               std::to_string(stack_.size()) + " available",
           at);
    }
    std::vector<std::uint32_t> out(k);
    for (std::size_t q = k; q-- > 0;) {
      out[q] = stack_.back().first;
      stack_.pop_back();
    }
    return out;
  }

  void token(const std::string& w, std::size_t at) {
    std::uint32_t r;
    if (is_rpn_binary(w)) {
      const std::vector<std::uint32_t> ab = pop(2, w, at);
      // sums and products are n-ary, as in the other parsers: "1 2 3 + +" is 1 + 2 + 3
      if (w == "+")
        r = b_.flat(Kind::kAdd, ab, at);
      else if (w == "-")
        r = b_.flat(Kind::kAdd, KidList{ab[0], b_.neg(ab[1], at)}, at);
      else if (w == "*")
        r = b_.flat(Kind::kMul, ab, at);
      else if (w == "/")
        r = ast_.add(make(Kind::kDiv, {}, ab), at);
      else if (w == "^")
        r = ast_.add(make(Kind::kPow, {}, ab), at);
      else
        r = ast_.add(make(Kind::kFunc, std::string(rpn_function(w, 2, false)->name), ab), at);
    } else if (is_rpn_unary(w)) {
      const std::uint32_t x = pop(1, w, at)[0];
      const FunctionSpec* f = w == "neg" ? nullptr : rpn_function(w, 1, false);
      if (f == nullptr)
        r = b_.neg(x, at);
      else if (f->name == "Abs")
        r = ast_.add(make(Kind::kAbs, {}, {x}), at);
      else
        r = ast_.add(make(Kind::kFunc, std::string(f->name), {x}), at);
    } else if (w == "pi") {
      r = ast_.add(make(Kind::kConst, "pi"), at);
    } else if (w == "e") {
      r = ast_.add(make(Kind::kConst, "E"), at);
    } else if (is_digit(w[0]) || (w.size() > 1 && w[0] == '.' && is_digit(w[1]))) {
      r = rpn_number(ast_, w, at);
    } else if (is_alpha(w[0])) {
      for (char c : w)
        if (!(is_alpha(c) || is_digit(c) || c == '_')) fail("invalid token '" + w + "'", at);
      r = ast_.add(make(Kind::kSymbol, w), at);
    } else {
      fail("unknown token '" + w + "'", at);
    }
    stack_.emplace_back(r, at);
  }
};

}  // namespace

bool is_rpn_unary(std::string_view w, bool detect) { return w == "neg" || rpn_function(w, 1, detect) != nullptr; }

bool is_rpn_binary(std::string_view w, bool detect) {
  return w == "+" || w == "-" || w == "*" || w == "/" || w == "^" || rpn_function(w, 2, detect) != nullptr;
}

}  // namespace detail

Ast parse_rpn(std::string_view text) {
  detail::check_size(text);
  Ast ast;
  detail::RpnParser p(ast);
  ast.root = p.run(text);
  return ast;
}

}  // namespace rapidgrade::expr
