// Infix parser of the expression engine (Python / SymPy style: "x**2 + sin(x)", "Interval(0, 1)",
// "Integral(x, x)" kept as an opaque function). Recursive descent with an explicit depth
// counter; linear in the input.
#include <cstring>
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

using rapidgrade::detail::same;

enum class T { kEnd, kNum, kWord, kPunct };

struct ITok {
  T type = T::kEnd;
  std::string text;
  std::size_t pos = 0;
};

std::vector<ITok> lex_infix(std::string_view s) {
  std::vector<ITok> out;
  std::size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    ITok t;
    t.pos = i;
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
      std::size_t j = i;
      while (j < n && is_digit(s[j])) ++j;
      if (j < n && s[j] == '.') {
        ++j;
        while (j < n && is_digit(s[j])) ++j;
      }
      std::string_view mant = s.substr(i, j - i);
      std::string_view exp;
      if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
        std::size_t d = k;
        while (k < n && is_digit(s[k])) ++k;
        if (k > d) {
          exp = s.substr(j + 1, k - j - 1);
          j = k;
        }
      }
      if (mant.back() == '.') mant.remove_suffix(1);
      t.type = T::kNum;
      t.text = canonical_number(mant, exp);
      i = j;
    } else if (is_alpha(c) || c == '_') {
      std::size_t j = i;
      while (j < n && (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '_' || s[j] == '.')) {
        if (s[j] == '.' && !(j + 1 < n && is_alpha(s[j + 1]))) break;
        ++j;
      }
      t.type = T::kWord;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else {
      t.type = T::kPunct;
      static const char* const kTwo[] = {"**", "<=", ">=", "==", "!=", "+-"};
      bool two = false;
      for (const char* op : kTwo) {
        if (i + 1 < n && s[i] == op[0] && s[i + 1] == op[1]) {
          t.text = op;
          two = true;
          break;
        }
      }
      if (two) {
        i += 2;
      } else if (c == '\xC2' && i + 1 < n && (s[i + 1] == '\xB1' || s[i + 1] == '\xB0')) {
        t.text = s[i + 1] == '\xB1' ? "+-" : "deg";
        i += 2;
      } else if ((c == '\xC2' && i + 1 < n && s[i + 1] == '\xB7') || (c == '\xC3' && i + 1 < n && s[i + 1] == '\x97')) {
        t.text = "*";  // U+00B7 middle dot, U+00D7 multiplication sign: "C·sin(x)", "2×x"
        i += 2;
      } else if (c == '\xCF' && i + 1 < n && s[i + 1] == '\x80') {
        t.type = T::kWord;  // U+03C0 π, read as pi: "sin(π*x)"
        t.text = "pi";
        i += 2;
      } else if (std::strchr("+-*/^()[]{},=<>!%", c) != nullptr && c != '\0') {
        t.text = std::string(1, c);
        ++i;
      } else {
        fail(std::string("unexpected character '") + (static_cast<unsigned char>(c) < 0x80 ? std::string(1, c) : "?") +
                 "'",
             i);
      }
    }
    out.push_back(t);
  }
  ITok end;
  end.pos = n;
  out.push_back(end);
  return out;
}

class InfixParser {
 public:
  InfixParser(std::string_view src, Ast& ast) : ast_(ast), b_{ast}, toks_(lex_infix(src)) {}

  std::uint32_t top() {
    std::vector<std::uint32_t> items{relation()};
    while (is(",")) {
      ++p_;
      items.push_back(relation());
    }
    if (tok().type != T::kEnd) fail("unexpected '" + tok().text + "'", tok().pos);
    if (items.size() == 1) return items[0];
    return add(make(Kind::kTuple, {}, std::move(items)));
  }

 private:
  Ast& ast_;
  TreeBuilder b_;
  std::vector<ITok> toks_;
  std::size_t p_ = 0;
  std::size_t depth_ = 0;

  const ITok& tok() const { return toks_[p_]; }
  bool is(std::string_view s) const { return tok().type == T::kPunct && same(tok().text, s); }
  std::uint32_t add(Node n) { return ast_.add(std::move(n), tok().pos); }
  void expect(const char* s) {
    if (!is(s)) {
      fail(std::string("expected '") + s + "'" +
               (tok().type == T::kEnd ? " before the end" : ", found '" + tok().text + "'"),
           tok().pos);
    }
    ++p_;
  }

  int relop() const { return tok().type == T::kPunct ? relation_code(tok().text) : 0; }

  std::uint32_t relation() {
    DepthGuard g(depth_, tok().pos);
    auto next_op = [this] {
      const int op = relop();
      if (op != 0) ++p_;
      return op;
    };
    return b_.relation_chain(next_op, [this] { return arith(); }, [this] { return tok().pos; });
  }

  std::uint32_t flat(Kind kind, const std::vector<std::uint32_t>& items) { return b_.flat(kind, items, tok().pos); }

  std::uint32_t arith() {
    DepthGuard g(depth_, tok().pos);
    auto next_op = [this]() -> char {
      char op = 0;
      if (is("+"))
        op = '+';
      else if (is("-"))
        op = '-';
      else if (is("+-"))
        op = 'p';
      if (op != 0) ++p_;
      return op;
    };
    return b_.sum_chain(next_op, [this] { return term(); }, [this] { return tok().pos; });
  }

  std::uint32_t term() {
    DepthGuard g(depth_, tok().pos);
    std::vector<std::uint32_t> f{unary()};
    for (;;) {
      if (is("*")) {
        ++p_;
        f.push_back(unary());
      } else if (is("/")) {
        ++p_;
        std::uint32_t left = flat(Kind::kMul, f);
        std::uint32_t right = unary();
        f.assign(1, add(make(Kind::kDiv, {}, {left, right})));
      } else {
        return flat(Kind::kMul, f);
      }
    }
  }

  std::uint32_t unary() {
    DepthGuard g(depth_, tok().pos);
    if (is("-")) {
      ++p_;
      std::uint32_t x = unary();
      return add(make(Kind::kNeg, {}, {x}));
    }
    if (is("+")) {
      ++p_;
      return unary();
    }
    if (is("+-")) {
      ++p_;
      std::uint32_t x = unary();
      std::uint32_t zero = add(make(Kind::kNumber, "0"));
      return add(make(Kind::kPlusMinus, {}, {zero, x}));
    }
    return power();
  }

  std::uint32_t power() {
    DepthGuard g(depth_, tok().pos);
    std::uint32_t base = postfix(atom());
    if (is("**") || is("^")) {
      ++p_;
      std::uint32_t e = unary();  // right associative: 2**3**2 = 2**9, 2**-1
      return add(make(Kind::kPow, {}, {base, e}));
    }
    return base;
  }

  std::uint32_t postfix(std::uint32_t x) {
    for (;;) {
      if (is("!")) {
        ++p_;
        x = add(make(Kind::kFactorial, {}, {x}));
      } else if (is("%")) {
        ++p_;
        x = add(make(Kind::kPercent, {}, {x}));
      } else if (is("deg")) {
        ++p_;
        x = add(make(Kind::kDegree, {}, {x}));
      } else {
        return x;
      }
    }
  }

  std::vector<std::uint32_t> list(const char* close) {
    std::vector<std::uint32_t> items;
    if (is(close)) return items;
    items.push_back(relation());
    while (is(",")) {
      ++p_;
      if (is(close)) break;
      items.push_back(relation());
    }
    return items;
  }

  std::uint32_t atom() {
    DepthGuard g(depth_, tok().pos);
    const ITok t = tok();
    if (t.type == T::kEnd) fail("unexpected end of input", t.pos);
    if (t.type == T::kNum) {
      ++p_;
      return add(make(Kind::kNumber, t.text));
    }
    if (t.type == T::kPunct) {
      if (same(t.text, "(") || same(t.text, "[")) {
        ++p_;
        std::vector<std::uint32_t> items = list(")");
        if (!(is(")") || is("]"))) fail("unclosed '" + t.text + "'", t.pos);
        const bool lr = same(t.text, "("), rr = same(tok().text, ")");
        ++p_;
        if (items.size() == 1 && lr && rr && !same(toks_[p_ - 2].text, ",")) return items[0];
        if (items.size() == 2 && lr != rr) return b_.interval(std::move(items), lr, rr, tok().pos);
        if (lr != rr) fail("mismatched brackets", t.pos);
        if (items.size() == 2 && !lr) return b_.interval(std::move(items), false, false, tok().pos);
        if (items.empty()) fail("empty brackets", t.pos);
        return add(make(Kind::kTuple, {}, std::move(items)));
      }
      if (same(t.text, "{")) {
        ++p_;
        std::vector<std::uint32_t> items = list("}");
        expect("}");
        if (items.empty()) fail("empty set", t.pos);
        return add(make(Kind::kSet, {}, std::move(items)));
      }
      fail("unexpected '" + t.text + "'", t.pos);
    }
    // identifier
    ++p_;
    const std::string& w = t.text;
    if (is("(")) {
      ++p_;
      std::vector<std::uint32_t> args = list(")");
      expect(")");
      return call(w, std::move(args), t.pos);
    }
    if (same(w, "pi")) return add(make(Kind::kConst, "pi"));
    if (same(w, "E")) return add(make(Kind::kConst, "E"));
    if (same(w, "I")) return add(make(Kind::kConst, "I"));
    if (same(w, "oo")) return add(make(Kind::kConst, "oo"));
    if (same(w, "S.Half"))
      return add(make(Kind::kDiv, {}, {add(make(Kind::kNumber, "1")), add(make(Kind::kNumber, "2"))}));
    return add(make(Kind::kSymbol, w));
  }

  std::uint32_t call(const std::string& name, std::vector<std::uint32_t> args, std::size_t at) {
    auto need = [&](std::size_t k) {  // the arity of the SymPy constructors below
      if (args.size() != k) fail(name + "() takes " + std::to_string(k) + " argument" + (k == 1 ? "" : "s"), at);
    };
    if (same(name, "Abs") || same(name, "abs")) {
      need(1);
      return add(make(Kind::kAbs, {}, args));
    }
    if (same(name, "factorial")) {
      need(1);
      return add(make(Kind::kFactorial, {}, args));
    }
    if (same(name, "Rational")) {
      need(2);
      return add(make(Kind::kDiv, {}, args));
    }
    if (same(name, "Integer") || same(name, "Float")) {
      need(1);
      return args[0];
    }
    if (same(name, "Eq")) {
      need(2);
      return add(make(Kind::kRelation, "=", args));
    }
    if (same(name, "Interval")) {
      need(2);
      return add(make(Kind::kInterval, {}, args));
    }
    if (same(name, "Interval.open") || same(name, "Interval.Lopen") || same(name, "Interval.Ropen")) {
      need(2);
      Node n = make(Kind::kInterval, {}, args);
      n.flags = same(name, "Interval.open")    ? (kLeftOpen | kRightOpen)
                : same(name, "Interval.Lopen") ? kLeftOpen
                                               : kRightOpen;
      return add(std::move(n));
    }
    if (same(name, "FiniteSet")) return add(make(Kind::kSet, {}, args));
    if (same(name, "Union")) return add(make(Kind::kUnion, {}, args));
    if (same(name, "Tuple")) return add(make(Kind::kTuple, {}, args));
    if (same(name, "Matrix")) {
      need(1);
      const Node& rows = ast_.at(args[0]);
      if (rows.kind != Kind::kTuple && rows.kind != Kind::kInterval) fail("Matrix() expects a list of rows", at);
      std::vector<std::uint32_t> entries;
      std::size_t cols = 0;
      for (std::size_t r = 0; r < rows.kids.size(); ++r) {
        const Node& row = ast_.at(rows.kids[r]);
        std::vector<std::uint32_t> items;
        if (row.kind == Kind::kTuple || row.kind == Kind::kInterval)
          items.assign(row.kids.begin(), row.kids.end());
        else
          items.push_back(rows.kids[r]);
        if (r > 0 && items.size() != cols) fail("Matrix() rows of different lengths", at);
        cols = items.size();
        entries.insert(entries.end(), items.begin(), items.end());
      }
      Node n = make(Kind::kMatrix, "Matrix", std::move(entries));
      n.extra = static_cast<std::uint32_t>(cols);
      return add(std::move(n));
    }
    if (same(name, "ln") && args.size() != 1) fail("ln() takes 1 or 2 arguments", at);
    // a name of the function table (functions.hpp): its arity, its canonical name
    if (const rapidgrade::detail::FunctionSpec* f = rapidgrade::detail::find_function_word(name)) {
      if (f->max_args != rapidgrade::detail::kVariadic && (args.size() < f->min_args || args.size() > f->max_args)) {
        const std::string counts = f->min_args == f->max_args
                                       ? std::to_string(f->min_args)
                                       : std::to_string(f->min_args) + " or " + std::to_string(f->max_args);
        fail(name + "() takes " + counts + " argument" + (f->max_args == 1 ? "" : "s"), at);
      }
      return add(make(Kind::kFunc, std::string(f->name), args));
    }
    // anything else (Integral, f(x), Sum, ...) is an opaque function node
    return add(make(Kind::kFunc, name, args));
  }
};

}  // namespace
}  // namespace detail

Ast parse_infix(std::string_view text) {
  using namespace detail;
  check_size(text);
  Ast ast;
  InfixParser p(text, ast);
  ast.root = p.top();
  return ast;
}

}  // namespace rapidgrade::expr
