// LaTeX parser of the expression engine: a recursive-descent parser with an explicit depth counter
// (kMaxAstDepth) over the tokens of the LaTeX lexer (expr_latex_lex.cpp, expr_latex_internal.hpp:
// numbers with thousands separators, words, commands, punctuation). Every token is consumed once,
// so parsing is linear in the input.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr_build.hpp"
#include "expr_latex_internal.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/spare.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {
namespace detail {
namespace {

using rapidgrade::detail::FunctionSpec;
using rapidgrade::detail::same;
using rapidgrade::detail::Spare;
using rapidgrade::detail::WrapperContent;

// The most points an angle names ("\angle ABC"): its vertex and a point on each side.
constexpr std::size_t kMaxAnglePoints = 3;

// ============================================================================================
// LaTeX parser

// The relation code of a token (relation_code: '=', '<', 'l', ...), or 0: an operator, or a
// command (detail::kInequalityCommands, and detail::is_equals_command read as '=').
int latex_relop(const Tok& t) {
  if (t.type == T::kPunct) return relation_code(t.text);
  if (t.type == T::kCmd) {
    if (const char code = rapidgrade::detail::inequality_code(t.text)) return code;
    if (rapidgrade::detail::is_equals_command(t.text)) return '=';
  }
  return 0;
}

// Malformed input does not throw: the first problem is recorded (failure()), the parser moves
// to the end token and returns a placeholder node, and every caller goes on to the end
// without consuming more. A C++ exception would unwind the recursive descent frame by frame,
// about a microsecond a frame: 10-30 us for a failed short answer, more than parsing it.
// The depth limits (DepthGuard, Ast::add) still throw.
class LatexParser {
 public:
  LatexParser(std::string_view src, Ast& ast) : src_(src), ast_(ast), b_{ast} {
    Failure lexed;
    if (!lex_latex(src, toks_, texts_, lexed)) fail(lexed.problem, lexed.offset);
  }

  bool failed() const { return failed_; }
  const Failure& failure() const { return failure_; }

  std::uint32_t top() {
    // "a, b; c, d": groups separated by ';' are tuples of a set; a bare list "1, 2" is a set
    KidList items{relation()};
    std::vector<KidList> earlier;  // the groups before the last ';' (none in most answers)
    bool alternatives = true;      // every separator says "or"
    while (is_punct(",") || is_punct(";")) {
      alternatives = alternatives && tok().alternative;
      if (is_punct(";")) {
        earlier.push_back(std::move(items));
        items = KidList();
      }
      ++p_;
      if (at_end()) break;  // trailing separator
      items.push_back(relation());
    }
    if (!at_end()) return fail("unexpected '" + std::string(tok().text) + "'", tok().pos);
    if (!earlier.empty()) {
      if (!items.empty()) earlier.push_back(std::move(items));
      if (earlier.size() > 1) {
        std::vector<std::uint32_t> tuples;
        for (auto& g : earlier) {
          tuples.push_back(g.size() == 1 ? g[0] : add(make(Kind::kTuple, {}, std::move(g))));
        }
        return add(make(Kind::kSet, {}, std::move(tuples)));
      }
      items = std::move(earlier[0]);  // one group and a trailing ';'
    }
    if (items.size() == 1) return items[0];
    // "x < 2 or x > 3": inequalities ('<', '>', \le, \ge) joined by "or" hold where any does, a union
    const auto condition = [this](std::uint32_t k) {
      return ast_.at(k).kind == Kind::kRelation && ast_.at(k).text.find_first_not_of("<>lg") == std::string::npos;
    };
    if (alternatives && std::all_of(items.begin(), items.end(), condition))
      return add(make(Kind::kUnion, {}, std::move(items)));
    // "n = 1, 2, 3": the values of one unknown
    const Node& first = ast_.at(items[0]);
    if (first.kind == Kind::kRelation && same(first.text, "=")) {
      bool rest_plain = true;
      for (std::size_t k = 1; k < items.size(); ++k)
        if (ast_.at(items[k]).kind == Kind::kRelation) rest_plain = false;
      const Kind lhs = ast_.at(first.kids[0]).kind;
      if (rest_plain && (lhs == Kind::kSymbol || lhs == Kind::kTuple)) {
        const std::uint32_t l = first.kids[0];
        std::vector<std::uint32_t> values{first.kids[1]};
        values.insert(values.end(), items.begin() + 1, items.end());
        const std::uint32_t set = add(make(Kind::kSet, {}, std::move(values)));
        return add(make(Kind::kRelation, "=", {l, set}));
      }
    }
    return add(make(Kind::kSet, {}, std::move(items)));
  }

 private:
  std::string_view src_;
  Ast& ast_;
  TreeBuilder b_;
  struct TokensTag;
  Texts texts_;                                    // before the tokens, which view it
  Spare<std::vector<Tok>, TokensTag> spare_toks_;  // the thread's token buffer, reused from parse to parse
  std::vector<Tok>& toks_ = *spare_toks_;
  std::size_t p_ = 0;
  std::size_t depth_ = 0;
  int abs_open_ = 0;
  bool failed_ = false;
  Failure failure_;
  std::uint32_t placeholder_ = 0;  // the node returned after a failure

  /// Records the first problem, moves to the end token and returns the placeholder node.
  std::uint32_t fail(const std::string& problem, std::size_t offset) {
    if (!failed_) {
      failed_ = true;
      failure_ = Failure{problem, offset};
      ast_.nodes.push_back(make(Kind::kNumber, "0"));
      placeholder_ = static_cast<std::uint32_t>(ast_.nodes.size() - 1);
    }
    p_ = toks_.size() - 1;
    return placeholder_;
  }

  const Tok& tok() const { return toks_[p_]; }
  const Tok& peek(std::size_t k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  bool at_end() const { return tok().type == T::kEnd; }
  bool is_punct(std::string_view s) const { return tok().type == T::kPunct && same(tok().text, s); }
  bool is_cmd(std::string_view s) const { return tok().type == T::kCmd && same(tok().text, s); }
  std::uint32_t add(Node n) { return ast_.add(std::move(n), tok().pos); }
  std::uint32_t num(std::string_view lit) { return ast_.add_leaf(Kind::kNumber, lit); }

  void expect_punct(const char* s) {
    if (!is_punct(s)) {
      const std::string found = at_end() ? " before the end" : ", found '" + std::string(tok().text) + "'";
      fail(std::string("expected '") + s + "'" + found, tok().pos);
      return;
    }
    ++p_;
  }

  static int relop(const Tok& t) { return latex_relop(t); }

  std::uint32_t relation() {
    if (const std::optional<std::uint32_t> x = lone_atom()) return *x;
    DepthGuard g(depth_, tok().pos);
    auto next_op = [this] {
      if (alignment_mark(p_)) ++p_;  // "x &= 5"
      const int op = relop(tok());
      if (op != 0) ++p_;
      if (op != 0 && alignment_mark(p_)) ++p_;  // "x =& 5"
      return op;
    };
    return b_.relation_chain(next_op, [this] { return union_(); }, [this] { return tok().pos; });
  }

  /// Whether toks_[at] is an alignment mark: an '&' right before or after a relation operator
  /// (the rows of "\begin{aligned} V &= ... \\ &= 2 \end{aligned}"), no part of the math. A
  /// matrix's '&' separates cells, between operands.
  bool alignment_mark(std::size_t at) const {
    if (at >= toks_.size() || toks_[at].type != T::kPunct || !same(toks_[at].text, "&")) return false;
    return (at + 1 < toks_.size() && relop(toks_[at + 1]) != 0) || (at > 0 && relop(toks_[at - 1]) != 0);
  }

  /// Whether `t` ends an element at every level of the descent from relation() to postfix():
  /// no operator, postfix or implicit product continues an operand across it.
  static bool ends_element(const Tok& t) {
    if (t.type == T::kEnd) return true;
    if (t.type == T::kCmd) return same(t.text, "\\");  // a matrix row break
    if (t.type != T::kPunct) return false;
    const std::string_view c = t.text;
    return same(c, ",") || same(c, ";") || same(c, ")") || same(c, "]") || same(c, "}") || same(c, "&");
  }

  /// A number or a word, or a negated one, alone before the end of its element: the elements
  /// of "(3,37,3,13)", "x, y" and "[-2,7]". Makes the nodes the descent from relation() down to
  /// primary() would (the same nodes in the same order), without it; or returns nullopt and
  /// reads nothing. Where the descent would pass the depth limit the descent is taken, so that
  /// it fails there as before.
  std::optional<std::uint32_t> lone_atom() {
    const bool negated = is_punct("-");
    const std::size_t at = p_ + (negated ? 1 : 0);
    const std::size_t guards = negated ? 6 : 5;  // relation, sum, term, unary (twice if negated), primary
    if (at + 1 >= toks_.size() || !(toks_[at].type == T::kNum || toks_[at].type == T::kWord) ||
        !ends_element(toks_[at + 1]) || alignment_mark(at + 1) || depth_ + guards > kMaxAstDepth) {
      return std::nullopt;
    }
    p_ = at + 1;
    const std::uint32_t x = atom(toks_[at]);
    return negated ? add(make(Kind::kNeg, {}, {x})) : x;
  }

  /// What primary() makes of a number or word token `t` that p_ has just passed and that is
  /// not a call (no "(" follows it): a number, or letters().
  std::uint32_t atom(const Tok& t) { return t.type == T::kNum ? num(t.text) : letters(t.text); }

  std::uint32_t union_() {
    KidList kids{sum()};
    while (is_cmd("cup")) {
      ++p_;
      kids.push_back(sum());
    }
    if (kids.size() == 1) return kids[0];
    return add(make(Kind::kUnion, {}, std::move(kids)));
  }

  std::uint32_t sum() {
    DepthGuard g(depth_, tok().pos);
    auto next_op = [this]() -> char {
      char op = 0;
      if (is_punct("+"))
        op = '+';
      else if (is_punct("-"))
        op = '-';
      else if (is_cmd("pm"))
        op = 'p';
      else if (is_cmd("mp"))
        op = 'm';
      if (op != 0) ++p_;
      return op;
    };
    return b_.sum_chain(next_op, [this] { return term(); }, [this] { return tok().pos; });
  }

  template <class Items>
  std::uint32_t flat(Kind kind, const Items& items) {
    return b_.flat(kind, items, tok().pos);
  }

  bool starts_primary(bool allow_functions) const {
    const Tok& t = tok();
    switch (t.type) {
      case T::kNum: return true;
      case T::kWord:
        return allow_functions || !(peek().type == T::kPunct && same(peek().text, "(") && function_word(t.text, true));
      case T::kPunct: return same(t.text, "(") || same(t.text, "{") || (same(t.text, "|") && abs_open_ == 0);
      case T::kCmd: {
        const std::string_view c = t.text;
        static constexpr std::string_view kStarts[] = {"sqrt", "pi", "infty", "lfloor", "lceil", "begin", "{"};
        for (const std::string_view s : kStarts)
          if (same(c, s)) return true;
        if (rapidgrade::detail::is_fraction_command(c) || rapidgrade::detail::is_binomial_command(c)) return true;
        if (is_letter_command(c) || rapidgrade::detail::is_angle_command(c)) return true;
        if (const auto* w = rapidgrade::detail::find_text_wrapper(c)) {
          return allow_functions || w->content != WrapperContent::kOperator;
        }
        return allow_functions && latex_function(c, peek().type == T::kPunct && same(peek().text, "(")) != nullptr;
      }
      default: return false;
    }
  }

  /// The function a LaTeX command names, as function() takes it: the table's name, except the
  /// logarithms (\log base 10, \ln natural, \lg log10), or nullptr. \Gamma is the gamma
  /// function only before "(" (it is a Greek letter otherwise).
  static const char* latex_function(std::string_view c, bool before_paren) {
    if (same(c, "ln")) return "ln";
    if (same(c, "lg")) return "log10";
    const FunctionSpec* f = rapidgrade::detail::find_function_command(c);
    if (f == nullptr) return nullptr;
    if ((f->flags & rapidgrade::detail::kCallOnly) != 0 && !before_paren) return nullptr;
    return f->name.data();  // the table's names are literals: NUL-terminated
  }

  std::uint32_t term() {
    DepthGuard g(depth_, tok().pos);
    KidList factors{unary()};
    for (;;) {
      if (is_punct("*") || is_cmd("cdot") || is_cmd("times") || is_cmd("ast")) {
        ++p_;
        factors.push_back(unary());
      } else if (is_punct("/") || is_cmd("div") || is_punct(":")) {  // "7:32" is a ratio
        const std::size_t at = tok().pos;
        ++p_;
        std::uint32_t left = flat(Kind::kMul, factors);
        std::uint32_t right = unary();
        factors = {ast_.add(make(Kind::kDiv, {}, {left, right}), at)};
      } else if (starts_primary(true)) {
        const bool negated =
            factors.size() == 1 && ast_.at(factors[0]).kind == Kind::kNeg && ast_.at(factors[0]).kids.size() == 1;
        const std::uint32_t whole = negated ? ast_.at(factors[0]).kids[0] : factors[0];
        const bool after_integer = factors.size() == 1 && is_integer_literal(whole);
        std::uint32_t next = postfix(primary());
        // A mixed number "12\frac{3}{5}" is 12 + 3/5 (and "-1\frac{1}{2}" is -(1 + 1/2)), as
        // math-verify and every textbook read it: an integer literal directly followed by a
        // fraction of two integer literals.
        if (after_integer && is_integer_fraction(next)) {
          std::uint32_t mixed = ast_.add(make(Kind::kAdd, {}, {whole, next}), tok().pos);
          factors[0] = negated ? ast_.add(make(Kind::kNeg, {}, {mixed}), tok().pos) : mixed;
        } else {
          factors.push_back(next);
        }
      } else {
        break;
      }
    }
    return flat(Kind::kMul, factors);
  }

  bool is_integer_literal(std::uint32_t k) const {
    const Node& n = ast_.at(k);
    if (n.kind != Kind::kNumber || n.text.empty()) return false;
    for (char c : n.text)
      if (!is_digit(c)) return false;
    return true;
  }

  bool is_integer_fraction(std::uint32_t k) const {
    const Node& n = ast_.at(k);
    return n.kind == Kind::kDiv && n.kids.size() == 2 && is_integer_literal(n.kids[0]) && is_integer_literal(n.kids[1]);
  }

  /// Whether `t`, after a number or a word, makes more of it: a postfix (postfix()), a
  /// subscript, or the "(" of a call (primary()).
  static bool extends_atom(const Tok& t) {
    if (t.type == T::kCmd) return same(t.text, "%") || same(t.text, "circ") || same(t.text, "degree");
    if (t.type != T::kPunct) return false;
    const std::string_view c = t.text;
    return same(c, "^") || same(c, "_") || same(c, "!") || same(c, "%") || same(c, "(") || same(c, "deg");
  }

  std::uint32_t unary() {
    if (tok().type == T::kNum || tok().type == T::kWord) {
      // a number or a word that nothing extends: what postfix(primary()) makes of it, without
      // the two levels (taken where they would pass the depth limit, to fail there as before)
      if (!extends_atom(peek()) && depth_ + 2 <= kMaxAstDepth) {
        ++p_;
        return atom(toks_[p_ - 1]);
      }
    }
    DepthGuard g(depth_, tok().pos);
    if (is_punct("-")) {
      ++p_;
      std::uint32_t x = unary();
      // "-5" stays a negated literal; the printer shows it as -5
      return add(make(Kind::kNeg, {}, {x}));
    }
    if (is_punct("+")) {
      ++p_;
      return unary();
    }
    if (is_cmd("pm") || is_cmd("mp")) {
      ++p_;
      std::uint32_t x = unary();
      return add(make(Kind::kPlusMinus, {}, {num("0"), x}));
    }
    return postfix(primary());
  }

  /// The single-token argument of ^, _, \frac12: "{...}", one digit of a number, one letter,
  /// or a command primary.
  std::uint32_t script_arg() {
    DepthGuard g(depth_, tok().pos);
    Tok& t = toks_[p_];
    if (t.type == T::kPunct && same(t.text, "{")) return brace_group();
    if (t.type == T::kNum) {
      if (t.text.size() > 1 && is_digit(t.text[1])) {
        const std::string_view first = t.text.substr(0, 1);
        t.text = texts_.number(t.text.substr(1), "");
        t.pos += 1;
        return num(first);
      }
      ++p_;
      return num(t.text);
    }
    if (t.type == T::kWord) {
      if (t.text.size() > 1) {
        const std::string_view first = t.text.substr(0, 1);
        t.text = t.text.substr(1);
        t.pos += 1;
        return letter(first);
      }
      ++p_;
      return letter(t.text);
    }
    if (t.type == T::kPunct && same(t.text, "-")) {
      ++p_;
      std::uint32_t x = script_arg();
      return add(make(Kind::kNeg, {}, {x}));
    }
    if (t.type == T::kCmd) return primary();
    if (t.type == T::kPunct && same(t.text, "(")) return primary();
    return fail(
        at_end() ? "missing argument before the end" : "unexpected '" + std::string(t.text) + "' as an argument",
        t.pos);
  }

  /// Raw text of a brace group (for subscripts, \text, environment names), braces balanced.
  std::string raw_group() {
    if (!is_punct("{")) {
      // single token
      Tok& t = toks_[p_];
      if (t.type == T::kNum || t.type == T::kWord) {
        if (t.text.size() > 1) {
          std::string first(t.text.substr(0, 1));
          t.text = t.text.substr(1);
          t.pos += 1;
          if (t.type == T::kNum) t.text = texts_.number(t.text, "");
          return first;
        }
        ++p_;
        return std::string(t.text);
      }
      if (t.type == T::kCmd) {
        ++p_;
        return std::string(t.text);
      }
      fail("expected a group", t.pos);
      return {};
    }
    const std::size_t start = tok().pos + 1;
    int level = 0;
    for (;;) {
      if (at_end()) {
        fail("unclosed '{'", start - 1);
        return {};
      }
      if (is_punct("{")) ++level;
      if (is_punct("}")) {
        --level;
        if (level == 0) {
          const std::size_t end = tok().pos;
          ++p_;
          return std::string(src_.substr(start, end - start));
        }
      }
      ++p_;
    }
  }

  std::uint32_t brace_group() {
    DepthGuard g(depth_, tok().pos);
    const std::size_t open = tok().pos;
    expect_punct("{");
    if (is_punct("}")) return fail("empty group", open);
    KidList items{relation()};
    if (is_cmd("choose")) {  // "{n \choose k}": the binomial of TeX's plain syntax
      ++p_;
      const std::uint32_t k = relation();
      if (!is_punct("}")) return fail("unclosed '{'", open);
      ++p_;
      return add(make(Kind::kFunc, "binomial", {items[0], k}));
    }
    while (is_punct(",")) {
      ++p_;
      items.push_back(relation());
    }
    if (!is_punct("}")) return fail("unclosed '{'", open);
    ++p_;
    if (items.size() == 1) {
      // "{C}_{n}^{k}": a braced letter that starts a notation of scripts
      const Node& only = ast_.at(items[0]);
      if (only.kind == Kind::kSymbol) {
        if (const std::optional<std::uint32_t> x = script_notation(only.text)) return *x;
      }
      return items[0];
    }
    return add(make(Kind::kSet, {}, std::move(items)));
  }

  /// The end of a script of a notation of kScriptNotations (functions.hpp) at toks_[at], or 0
  /// when there is none there: one digit or one letter alone in its token (script_arg()'s one
  /// character, with nothing of the token left), or a brace group of numbers, words, '+' and
  /// '-' that neither starts nor ends with a sign ("n+1", "2n", "k-1"), at most 8 tokens.
  /// `integer` receives the value of a script that is one integer literal, else -1.
  std::size_t notation_script(std::size_t at, long long& integer) const {
    integer = -1;
    const auto digits = [](std::string_view t) {
      return !t.empty() && t.size() <= 18 &&
             std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const Tok& t = toks_[at];
    if (t.type == T::kNum || t.type == T::kWord) {
      if (t.text.size() != 1) return 0;
      if (t.type == T::kNum) integer = digits(t.text) ? t.text[0] - '0' : -1;
      return t.type == T::kWord || integer >= 0 ? at + 1 : 0;
    }
    if (!(t.type == T::kPunct && same(t.text, "{"))) return 0;
    std::size_t k = at + 1;
    bool sign_last = true;  // at the start: a sign may not come first
    for (; k < toks_.size() && k - at <= 9; ++k) {
      const Tok& u = toks_[k];
      if (u.type == T::kPunct && same(u.text, "}")) break;
      const bool sign = u.type == T::kPunct && (same(u.text, "+") || same(u.text, "-"));
      if (sign ? sign_last : !(u.type == T::kWord || (u.type == T::kNum && digits(u.text)))) return 0;
      sign_last = sign;
    }
    if (k >= toks_.size() || k == at + 1 || sign_last || !(toks_[k].type == T::kPunct && same(toks_[k].text, "}"))) {
      return 0;
    }
    if (k == at + 2 && toks_[at + 1].type == T::kNum) {
      integer = 0;
      for (const char c : toks_[at + 1].text) integer = integer * 10 + (c - '0');
    }
    return k + 1;
  }

  /// "C_n^k", "C^k_n", "A_n^k": after a lone capital letter `letter` of kScriptNotations
  /// (functions.hpp), its row's function of (n, k) when the rule of that table holds (both
  /// scripts, simple; an integer subscript n with an integer superscript k <= n), the scripts
  /// read; nullopt, nothing read, otherwise.
  std::optional<std::uint32_t> script_notation(std::string_view letter) {
    const rapidgrade::detail::ScriptNotation* notation = rapidgrade::detail::find_script_notation(letter);
    if (notation == nullptr || !(is_punct("_") || is_punct("^"))) return std::nullopt;
    const bool sub_first = is_punct("_");
    long long first = -1, second = -1;
    const std::size_t first_end = notation_script(p_ + 1, first);
    if (first_end == 0 || first_end >= toks_.size()) return std::nullopt;
    const Tok& other = toks_[first_end];
    if (!(other.type == T::kPunct && same(other.text, sub_first ? "^" : "_"))) return std::nullopt;
    if (notation_script(first_end + 1, second) == 0) return std::nullopt;
    const long long n = sub_first ? first : second;
    const long long k = sub_first ? second : first;
    // an integer subscript takes an integer superscript no larger: "A_1^2" is A_1 squared
    if (n >= 0 && (k < 0 || k > n)) return std::nullopt;
    ++p_;
    const std::uint32_t a = script_arg();
    ++p_;
    const std::uint32_t b = script_arg();
    return add(make(Kind::kFunc, std::string(notation->function), {sub_first ? a : b, sub_first ? b : a}));
  }

  /// A run of letters (the word token before p_) as a product of single-letter symbols; the
  /// last may carry a subscript, or be a function applied to atoms ("f(x)").
  std::uint32_t letters(std::string_view word) {
    if (word.size() == 1) {
      if (const std::optional<std::uint32_t> x = script_notation(word)) return *x;  // "C_n^k"
    }
    std::vector<std::uint32_t> f;
    for (std::size_t k = 0; k + 1 < word.size(); ++k) f.push_back(letter(word.substr(k, 1)));
    const std::string last(word.substr(word.size() - 1));
    if (!same(last, "e") && !same(last, "i") && is_application()) {
      f.push_back(application(last));
    } else {
      f.push_back(symbol_with_subscript(last));
    }
    // a power, a factorial or a percent after a run of letters is the last letter's: "ab^2" is
    // a b^2, "xe^x" is x e^x, "ab!" is a b! (as latex2sympy and every textbook read them); after
    // a run of capitals it is the run's, a segment of points: "AC_1^2" is (AC_1)^2
    const bool points = std::all_of(word.begin(), word.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
    if (word.size() > 1 && !points) f.back() = postfix(f.back());
    return flat(Kind::kMul, f);
  }

  std::uint32_t letter(std::string_view name) {
    if (same(name, "e")) return ast_.add_leaf(Kind::kConst, "E");
    if (same(name, "i")) return ast_.add_leaf(Kind::kConst, "I");
    return ast_.add_leaf(Kind::kSymbol, name);
  }

  static std::string clean_subscript(const std::string& raw) {
    std::string out;
    for (char c : raw)
      if (!is_space(c) && c != '{' && c != '}' && c != '\\') out += c;
    return out;
  }

  std::uint32_t symbol_with_subscript(std::string name) {
    if (is_punct("_")) {
      ++p_;
      name += "_" + clean_subscript(raw_group());
      return add(make(Kind::kSymbol, name));
    }
    return letter(name);
  }

  /// "\angle ACB", "\angle A C B", "\angle C", "\angle 1": the angle its points (capital
  /// letters) or its number name, one symbol rather than a product of points. Named either way
  /// round ("ACB" and "BCA" are one angle), the smaller of the two spellings.
  std::uint32_t angle(std::size_t pos) {
    // the points: capital letters, each with a subscript of digits or a letter after it or not
    // ("\angle ACB", "\angle B E A_{1}", "\angle A_1 B C")
    std::vector<std::string> points;
    while (tok().type == T::kWord &&
           std::all_of(tok().text.begin(), tok().text.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; })) {
      for (const char ch : tok().text) points.emplace_back(1, ch);
      ++p_;
      if (points.size() > kMaxAnglePoints) return fail("an angle of more than three points", pos);
      if (!is_punct("_")) continue;
      const bool braced = peek(1).type == T::kPunct && same(peek(1).text, "{");
      const Tok& index = peek(braced ? 2 : 1);
      const bool digits = index.type == T::kNum && index.text.find_first_not_of("0123456789") == std::string::npos;
      const bool letter = index.type == T::kWord && index.text.size() == 1;
      if (!(digits || letter) || (braced && !(peek(3).type == T::kPunct && same(peek(3).text, "}")))) break;
      points.back() += "_" + std::string(index.text);
      p_ += braced ? 4 : 2;
    }
    if (points.empty() && tok().type == T::kNum && tok().text.find_first_not_of("0123456789") == std::string::npos) {
      points.emplace_back(tok().text);
      ++p_;
    }
    if (points.empty()) return fail("an angle with no name", pos);
    std::string name, reversed;
    for (std::size_t k = 0; k < points.size(); ++k) {
      name += points[k];
      reversed += points[points.size() - 1 - k];
    }
    return add(make(Kind::kSymbol, "angle_" + std::min(name, reversed)));
  }

  /// "f(x)", "g(2)", "f(x, y)": a letter applied to atoms is a function application (as
  /// latex2sympy reads it); "x(x+1)" with an operator inside is a product.
  bool is_application() const {
    if (!(tok().type == T::kPunct && same(tok().text, "("))) return false;
    std::size_t k = 1;
    for (;;) {
      const Tok& a = peek(k);
      const bool atom = (a.type == T::kNum) || (a.type == T::kWord && a.text.size() == 1) ||
                        (a.type == T::kCmd && is_letter_command(a.text));
      if (!atom) return false;
      const Tok& sep = peek(k + 1);
      if (sep.type != T::kPunct) return false;
      if (same(sep.text, ")")) return true;
      if (!same(sep.text, ",")) return false;
      k += 2;
    }
  }

  std::uint32_t application(const std::string& name) {
    ++p_;  // (
    std::vector<std::uint32_t> args;
    for (;;) {
      args.push_back(primary());
      if (failed_) return placeholder_;  // at the end token: no ')' to step over
      if (is_punct(")")) break;
      ++p_;  // ,
    }
    ++p_;  // )
    return add(make(Kind::kFunc, name, std::move(args)));
  }

  std::uint32_t bracket() {
    DepthGuard g(depth_, tok().pos);
    const Tok open = tok();
    ++p_;
    if (same(open.text, "(") && is_cmd("begin") && peek().type == T::kPunct && same(peek().text, "{") &&
        peek(2).type == T::kWord && same(peek(2).text, "array")) {
      return array_binomial(open.pos);
    }
    if (is_punct(")") || is_punct("]")) return fail("empty brackets", open.pos);
    const int saved_abs = abs_open_;
    abs_open_ = 0;
    KidList items{relation()};
    while (is_punct(",") || is_punct(";")) {  // "(0;-2;6)"
      ++p_;
      items.push_back(relation());
    }
    abs_open_ = saved_abs;
    if (!(is_punct(")") || is_punct("]"))) {
      return fail("unclosed '" + std::string(open.text) + "'", open.pos);
    }
    const bool left_round = same(open.text, "(");
    const bool right_round = same(tok().text, ")");
    ++p_;
    if (items.size() == 1) {
      if (left_round == right_round) return items[0];
      return fail("mismatched brackets", open.pos);
    }
    if (items.size() == 2 && (!left_round || !right_round || is_infinite(items[0]) || is_infinite(items[1]))) {
      return b_.interval(std::move(items), left_round, right_round, tok().pos);
    }
    if (left_round != right_round) return fail("mismatched brackets", open.pos);
    return add(make(Kind::kTuple, {}, std::move(items)));
  }

  /// "\left(\begin{array}{c} n \\ k \end{array}\right)" after its "(": how OCR writes \binom{n}{k}
  /// (one column of two rows in round brackets); any other array in brackets is not read.
  std::uint32_t array_binomial(std::size_t at) {
    const auto refuse = [&] { return fail("unsupported environment 'array'", at); };
    ++p_;  // \begin
    raw_group();
    const std::string spec = raw_group();
    if (!(spec == "c" || spec == "l" || spec == "r")) return refuse();
    const std::uint32_t n = sum();
    if (!is_cmd("\\")) return refuse();
    ++p_;
    const std::uint32_t k = sum();
    if (is_cmd("\\")) ++p_;
    if (!is_cmd("end")) return refuse();
    ++p_;
    if (raw_group() != "array" || !is_punct(")")) return refuse();
    ++p_;
    return add(make(Kind::kFunc, "binomial", {n, k}));
  }

  bool is_infinite(std::uint32_t k) const {
    const Node& n = ast_.at(k);
    if (n.kind == Kind::kConst && same(n.text, "oo")) return true;
    if (n.kind == Kind::kNeg) return is_infinite(n.kids[0]);
    return false;
  }

  std::uint32_t matrix(const std::string& env, std::size_t at) {
    std::vector<std::uint32_t> entries;
    std::size_t cols = 0, cur = 0, rows = 0;
    for (;;) {
      if (at_end()) return fail("unclosed \\begin{" + env + "}", at);
      if (is_cmd("end")) {
        ++p_;
        raw_group();
        break;
      }
      if (is_cmd("\\")) {
        ++p_;
        if (cur == 0) continue;
        if (rows > 0 && cur != cols) return fail("matrix rows of different lengths", tok().pos);
        cols = cur;
        ++rows;
        cur = 0;
        continue;
      }
      entries.push_back(relation());
      ++cur;
      if (is_punct("&")) {
        ++p_;
        continue;
      }
      if (!(is_cmd("\\") || is_cmd("end"))) {
        return fail("unexpected '" + std::string(tok().text) + "' in matrix", tok().pos);
      }
    }
    if (cur > 0) {
      if (rows > 0 && cur != cols) return fail("matrix rows of different lengths", at);
      cols = cur;
      ++rows;
    }
    if (rows == 0) return fail("empty matrix", at);
    Node n = make(Kind::kMatrix, env, std::move(entries));
    n.extra = static_cast<std::uint32_t>(cols);
    std::uint32_t m = add(std::move(n));
    if (same(env, "vmatrix") || same(env, "Vmatrix")) return add(make(Kind::kFunc, "det", {m}));
    return m;
  }

  std::uint32_t function(std::string name, std::size_t at) {
    DepthGuard g(depth_, at);
    std::uint32_t power = 0;
    bool has_power = false;
    bool inverse = false;
    std::uint32_t base = 0;
    bool has_base = false;
    for (int k = 0; k < 2; ++k) {
      if (is_punct("^")) {
        ++p_;
        // \sin^{-1} x is arcsin
        if (is_punct("{") && peek().type == T::kPunct && same(peek().text, "-") && peek(2).type == T::kNum &&
            same(peek(2).text, "1") && peek(3).type == T::kPunct && same(peek(3).text, "}") && name.size() <= 4 &&
            name.find('a') != 0 && rapidgrade::detail::find_function("a" + name) != nullptr) {
          p_ += 4;
          inverse = true;
        } else {
          power = script_arg();
          has_power = true;
        }
      } else if (is_punct("_") && (same(name, "log"))) {
        ++p_;
        base = script_arg();
        has_base = true;
      }
    }
    if (inverse) name = "a" + name;
    KidList args;
    if (is_punct("(")) {
      std::uint32_t a = bracket();
      // "\max(a, b)", "besselj(0, x)": the arguments of a function of several (log: bare_log)
      const FunctionSpec* f = rapidgrade::detail::find_function(name);
      if (ast_.at(a).kind == Kind::kTuple && f != nullptr && f->max_args > 1 && !same(name, "log")) {
        args = ast_.at(a).kids;
      } else {
        args.push_back(a);
      }
    } else if (is_punct("{")) {
      args.push_back(brace_group());
    } else {
      // "\sin 2x": the argument is a run of implicitly multiplied factors, stopping at the
      // next function, operator or relation
      if (!starts_primary(false)) return fail("missing argument of \\" + name, tok().pos);
      std::vector<std::uint32_t> f{postfix(primary())};
      while (starts_primary(false) && !(tok().type == T::kPunct && same(tok().text, "("))) {
        f.push_back(postfix(primary()));
      }
      args.push_back(flat(Kind::kMul, f));
    }
    std::uint32_t call;
    if (same(name, "bare_log")) {
      if (args.size() == 1 && ast_.at(args[0]).kind == Kind::kTuple && ast_.at(args[0]).kids.size() == 2) {
        args = ast_.at(args[0]).kids;
      }
      call = add(make(Kind::kFunc, "log", std::move(args)));
    } else if (same(name, "ln")) {
      call = add(make(Kind::kFunc, "log", std::move(args)));
    } else if (same(name, "log")) {
      // LaTeX \log without a base is base 10 (as latex2sympy reads it); \log_b is base b
      args.push_back(has_base ? base : num("10"));
      call = add(make(Kind::kFunc, "log", std::move(args)));
    } else if (same(name, "log10")) {
      args.push_back(num("10"));
      call = add(make(Kind::kFunc, "log", std::move(args)));
    } else {
      // "\max\{a, b\}", "\min \left\{-m, -n\right\}": the set after a function of several
      // arguments (max, min, gcd, lcm) holds its arguments
      const FunctionSpec* f = rapidgrade::detail::find_function(name);
      if (f != nullptr && f->max_args > 1 && args.size() == 1 && ast_.at(args[0]).kind == Kind::kSet &&
          ast_.at(args[0]).kids.size() >= 2 && ast_.at(args[0]).kids.size() <= f->max_args) {
        const KidList elements = ast_.at(args[0]).kids;
        args = elements;
      }
      call = add(make(Kind::kFunc, name, std::move(args)));
    }
    if (has_power) call = add(make(Kind::kPow, {}, {call, power}));
    return call;
  }

  /// "\text{5}", "\mathbf{x}", "\operatorname{erf}": the wrappers of latex_vocab.hpp.
  std::uint32_t text_command(std::string_view cmd, const rapidgrade::detail::TextWrapper& wrapper, std::size_t at) {
    std::string raw = raw_group();
    std::string inner;
    for (char c : raw)
      if (!is_space(c)) inner += c;
    if (wrapper.content == WrapperContent::kOperator) return function(inner, at);
    if (inner.empty()) return fail("empty \\" + std::string(cmd), at);
    // "\mathrm{erf}(x)", "\text{min}(a, b)": a function name in a wrapper, applied
    if (is_punct("(")) {
      if (const FunctionSpec* f = function_word(inner, true)) {
        return function(same(inner, "log") ? "bare_log" : std::string(f->name), at);
      }
    }
    // \mathrm{e} is Euler's number (math-verify's verify agrees); other letters are symbols
    if (same(inner, "e")) return add(make(Kind::kConst, "E"));
    if (inner.size() == 1 && is_alpha(inner[0])) {
      if (const std::optional<std::uint32_t> x = script_notation(inner)) return *x;  // "\mathrm{C}_n^k"
      return add(make(Kind::kSymbol, inner));
    }
    // \text{5}, \mathrm{e}, \mathbf{x}: parse the content as math
    Ast sub;
    bool parsed = false;
    try {
      Failure ignored;
      parsed = parse_latex_into(inner, sub, ignored);
    } catch (const ParseError&) {
      parsed = false;  // nested too deep
    }
    if (!parsed) return add(make(Kind::kSymbol, inner));
    if (sub.nodes[sub.root].kind == Kind::kText) return add(make(Kind::kSymbol, inner));
    // splice the sub-tree into this one
    const std::uint32_t base = static_cast<std::uint32_t>(ast_.nodes.size());
    for (Node n : sub.nodes) {
      for (auto& k : n.kids) k += base;
      ast_.add(std::move(n), at);
    }
    return base + sub.root;
  }

  std::uint32_t primary() {
    DepthGuard g(depth_, tok().pos);
    const Tok& t = tok();  // the tokens behind p_ stay as they are: script_arg() splits only the current one
    switch (t.type) {
      case T::kEnd: return fail("unexpected end of input", t.pos);
      case T::kNum: ++p_; return num(t.text);
      case T::kWord: {
        if (peek().type == T::kPunct && same(peek().text, "(")) {
          if (const FunctionSpec* f = function_word(t.text, true)) {
            ++p_;
            // a bare "log(x)" is Python's natural logarithm ("log(x, b)": base b); \log is base 10
            return function(same(t.text, "log") ? "bare_log" : std::string(f->name), t.pos);
          }
        }
        ++p_;
        return letters(t.text);
      }
      case T::kPunct:
        if (same(t.text, "(") || same(t.text, "[")) return bracket();
        if (same(t.text, "{")) return brace_group();
        if (same(t.text, "|")) {
          ++p_;
          ++abs_open_;
          std::uint32_t x = sum();
          --abs_open_;
          if (!is_punct("|")) return fail("unclosed '|'", t.pos);
          ++p_;
          return add(make(Kind::kAbs, {}, {x}));
        }
        return fail((same(t.text, ")") || same(t.text, "]") || same(t.text, "}") ? "unbalanced '" : "unexpected '") +
                        std::string(t.text) + "'",
                    t.pos);
      case T::kCmd: break;
    }
    ++p_;
    return command_primary(t);
  }

  /// A primary that starts with a command: \frac, \sqrt, \binom, \pi, \infty, Greek letters,
  /// functions, text wrappers, \{ \}, floor and ceiling brackets, matrix environments.
  std::uint32_t command_primary(const Tok& t) {
    const std::string_view c = t.text;
    if (rapidgrade::detail::is_fraction_command(c)) {
      std::uint32_t a = script_arg();
      std::uint32_t b = script_arg();
      return add(make(Kind::kDiv, {}, {a, b}));
    }
    if (same(c, "sqrt")) {
      if (is_punct("[")) {
        ++p_;
        std::uint32_t idx = sum();
        expect_punct("]");
        std::uint32_t x = script_arg();
        return add(make(Kind::kFunc, "root", {x, idx}));
      }
      std::uint32_t x = script_arg();
      return add(make(Kind::kFunc, "sqrt", {x}));
    }
    if (rapidgrade::detail::is_binomial_command(c)) {
      std::uint32_t a = script_arg();
      std::uint32_t b = script_arg();
      return add(make(Kind::kFunc, "binomial", {a, b}));
    }
    if (same(c, "pi")) return add(make(Kind::kConst, "pi"));
    if (same(c, "infty") || same(c, "infin")) return add(make(Kind::kConst, "oo"));
    if (same(c, "emptyset") || same(c, "varnothing")) return add(make(Kind::kSet, {}, {}));  // the empty set
    if (const char* f = latex_function(c, is_punct("("))) return function(f, t.pos);         // before \Gamma the letter
    if (is_letter_command(c)) return symbol_with_subscript(std::string(c));
    if (rapidgrade::detail::is_angle_command(c)) return angle(t.pos);
    if (const auto* w = rapidgrade::detail::find_text_wrapper(c)) return text_command(c, *w, t.pos);
    if (same(c, "{")) {
      // \{ a, b \}
      if (is_cmd("}")) {  // "\{\}": the empty set
        ++p_;
        return add(make(Kind::kSet, {}, {}));
      }
      // set-builder notation, "\{x \mid x > 1\}", "\{x | x > 1\}", "\{x : x > 1\}": the set that
      // the condition on x states, a relation (compared as conditions and intervals are)
      if (tok().type == T::kWord && tok().text.size() == 1 && peek().type == T::kPunct &&
          (same(peek().text, "|") || same(peek().text, ":"))) {
        p_ += 2;
        const std::uint32_t condition = relation();
        if (failed_) return condition;
        if (!is_cmd("}")) return fail("unclosed '\\{'", t.pos);
        if (ast_.at(condition).kind != Kind::kRelation)
          return fail("a set-builder condition that is no relation", t.pos);
        ++p_;
        return condition;
      }
      std::vector<std::uint32_t> items{relation()};
      while (is_punct(",") || is_punct(";")) {
        ++p_;
        items.push_back(relation());
      }
      if (!is_cmd("}")) return fail("unclosed '\\{'", t.pos);
      ++p_;
      return add(make(Kind::kSet, {}, std::move(items)));
    }
    if (same(c, "lfloor") || same(c, "lceil")) {
      std::uint32_t x = sum();
      if (!is_cmd(same(c, "lfloor") ? "rfloor" : "rceil")) return fail("unclosed \\" + std::string(c), t.pos);
      ++p_;
      return add(make(Kind::kFunc, same(c, "lfloor") ? "floor" : "ceiling", {x}));
    }
    if (same(c, "begin")) {
      std::string env = raw_group();
      static constexpr std::string_view kMatrices[] = {"pmatrix", "bmatrix", "vmatrix",    "Vmatrix",
                                                       "matrix",  "Bmatrix", "smallmatrix"};
      for (const std::string_view m : kMatrices)
        if (same(env, m)) return matrix(env, t.pos);
      return fail("unsupported environment '" + env + "'", t.pos);
    }
    return fail("unsupported command '\\" + std::string(c) + "'", t.pos);
  }

  std::uint32_t postfix(std::uint32_t x) {
    for (;;) {
      if (is_punct("^")) {
        const std::size_t at = tok().pos;
        ++p_;
        // degrees: x^\circ, x^{\circ}
        if (is_cmd("circ")) {
          ++p_;
          x = ast_.add(make(Kind::kDegree, {}, {x}), at);
          continue;
        }
        if (is_punct("{") && peek().type == T::kCmd && same(peek().text, "circ") && peek(2).type == T::kPunct &&
            same(peek(2).text, "}")) {
          p_ += 3;
          x = ast_.add(make(Kind::kDegree, {}, {x}), at);
          continue;
        }
        std::uint32_t e = script_arg();
        x = ast_.add(make(Kind::kPow, {}, {x, e}), at);
      } else if (is_punct("!")) {
        ++p_;
        x = add(make(Kind::kFactorial, {}, {x}));
      } else if (is_punct("%") || is_cmd("%")) {
        ++p_;
        x = add(make(Kind::kPercent, {}, {x}));
      } else if (is_cmd("circ") || is_punct("deg") || is_cmd("degree")) {
        ++p_;
        x = add(make(Kind::kDegree, {}, {x}));
      } else if (is_punct("_") && ast_.at(x).kind != Kind::kSymbol) {
        return fail("unexpected subscript", tok().pos);
      } else {
        return x;
      }
    }
  }
};

}  // namespace
}  // namespace detail

namespace detail {

bool parse_latex_into(std::string_view text, Ast& ast, Failure& failure) {
  check_size(text);
  if (std::all_of(text.begin(), text.end(), is_space)) {
    failure = Failure{"empty expression", 0};
    return false;
  }
  const bool text_like = looks_like_text(text);
  if (text_like && !names_a_value(text)) {
    ast.root = ast.add(make(Kind::kText, normalize_text(text)));
    return true;
  }
  ast.nodes.reserve(std::min<std::size_t>(text.size() + 1, kReservedTokens));
  LatexParser p(text, ast);
  try {
    ast.root = p.top();
  } catch (const ParseError&) {
    if (!p.failed()) throw;  // a depth limit reached before any problem: as it was thrown
  }
  if (p.failed()) {
    if (text_like) {  // an equation naming a value that does not parse as math is the words it was
      ast.nodes.clear();
      ast.root = ast.add(make(Kind::kText, normalize_text(text)));
      return true;
    }
    failure = p.failure();  // the first problem, whatever happened after it
    return false;
  }
  return true;
}

}  // namespace detail

TopLevelRelations top_level_relations(std::string_view text) {
  using detail::T;
  using rapidgrade::detail::same;
  TopLevelRelations out;
  if (text.size() > kMaxExprBytes) return out;
  std::vector<detail::Tok> toks;
  detail::Texts texts;
  detail::Failure failure;
  if (!detail::lex_latex(text, toks, texts, failure)) return out;
  std::size_t depth = 0;
  bool chain = true;                                   // every relation at the top level an equality, and no list
  for (std::size_t k = 0; k + 1 < toks.size(); ++k) {  // the last token is kEnd
    const detail::Tok& t = toks[k];
    const std::string_view x = t.text;
    if (t.type == T::kPunct && (same(x, "(") || same(x, "[") || same(x, "{"))) {
      ++depth;
    } else if (t.type == T::kPunct && (same(x, ")") || same(x, "]") || same(x, "}"))) {
      if (depth > 0) --depth;
    } else if (t.type == T::kCmd && same(x, "{")) {  // "\{", "\lbrace" (\langle is a '(')
      ++depth;
    } else if (t.type == T::kCmd && same(x, "}")) {
      if (depth > 0) --depth;
    } else if (depth == 0) {
      if (t.type == T::kPunct && (same(x, ",") || same(x, ";"))) chain = false;
      const int op = detail::latex_relop(t);
      if (op != 0 && op != '=') {
        chain = false;
        out.inequality = true;
      }
      if (op == '=') out.last_equality_end = toks[k + 1].pos;
    }
  }
  if (!chain) out.last_equality_end = std::string_view::npos;
  return out;
}

Ast parse_latex(std::string_view text) {
  Ast ast;
  detail::Failure failure;
  if (!detail::parse_latex_into(text, ast, failure)) throw detail::parse_error(failure.problem, failure.offset);
  return ast;
}

}  // namespace rapidgrade::expr
