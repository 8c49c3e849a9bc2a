// Parsers of the expression engine: LaTeX, infix (Python/SymPy style) and RPN, all building the
// same Ast. Recursive descent with an explicit depth counter (kMaxAstDepth); every token is
// consumed once, so parsing is linear in the input.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
namespace {

[[noreturn]] void fail(const std::string& problem, std::size_t offset) {
  // the message quotes input; non-ASCII bytes (possibly invalid UTF-8 from bytes input) become '?'
  std::string safe = problem;
  for (char& c : safe)
    if (static_cast<unsigned char>(c) >= 0x80) c = '?';
  throw ParseError("parse_expr: " + safe + " at offset " + std::to_string(offset), offset);
}

/// Length of the UTF-8 sequence starting at s[i] (1 for ASCII or a stray byte).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  std::size_t k = 1;
  while (k < len && i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80) ++k;
  return k;
}

void check_size(std::string_view text) {
  if (text.size() > kMaxExprBytes) {
    throw LimitError("parse_expr: input of " + std::to_string(text.size()) +
                     " bytes exceeds the limit of " + std::to_string(kMaxExprBytes) + " bytes");
  }
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/// Canonical decimal literal: leading zeros of the integer part dropped ("007" -> "7",
/// ".5" -> "0.5"), trailing '.' dropped; exponent kept as "e<n>".
std::string canonical_number(std::string_view mant, std::string_view exp) {
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

Node make(Kind kind, std::string text = {}, std::vector<std::uint32_t> kids = {}) {
  Node n;
  n.kind = kind;
  n.text = std::move(text);
  n.kids = std::move(kids);
  return n;
}

// Known function names, shared by the LaTeX (\sin, bare sin) and infix parsers.
const char* const kFunctions[] = {
    "sin",   "cos",   "tan",   "sec",   "csc",    "cot",    "asin",   "acos",    "atan",
    "asec",  "acsc",  "acot",  "sinh",  "cosh",   "tanh",   "asinh",  "acosh",   "atanh",
    "exp",   "log",   "ln",    "sqrt",  "floor",  "ceiling", "ceil",  "Abs",     "abs",
    "factorial", "binomial", "root", "arcsin", "arccos", "arctan", "arcsec", "arccsc", "arccot",
    "sgn",   "sign",  "det",   "max",   "min",    "gcd",    "lcm",    "arsinh", "arcosh", "artanh"};

bool is_function_name(std::string_view w) {
  for (const char* f : kFunctions)
    if (w == f) return true;
  return false;
}

/// Maps spellings to the AST's function names (arcsin -> asin, ln -> log, ...).
std::string canonical_function(std::string_view w) {
  if (w.size() > 3 && w.substr(0, 3) == "arc") return "a" + std::string(w.substr(3));
  if (w == "arsinh" || w == "arcosh" || w == "artanh") return "a" + std::string(w.substr(2));
  if (w == "ln") return "log";
  if (w == "abs") return "Abs";
  if (w == "ceil") return "ceiling";
  if (w == "sgn") return "sign";
  return std::string(w);
}

const char* const kGreek[] = {
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "rho", "varrho",
    "sigma", "varsigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma",
    "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"};

bool is_greek(std::string_view w) {
  for (const char* g : kGreek)
    if (w == g) return true;
  return false;
}

// ============================================================================================
// LaTeX lexer

enum class T { End, Num, Word, Cmd, Punct };

struct Tok {
  T type = T::End;
  std::string text;
  std::size_t pos = 0;
  bool space_before = false;
};

bool skipped_command(std::string_view c) {
  static const char* const kSkip[] = {
      ",", ";", ":", "!", " ", "[", "]", "quad", "qquad", "left", "right", "big", "Big", "bigg", "Bigg",
      "bigl", "bigr", "Bigl", "Bigr", "biggl", "biggr", "displaystyle", "textstyle", "limits",
      "nolimits", "middle", "$", "mathstrut", "strut", "relax", "hfill", "hspace*", "enspace",
      "thinspace", "negthinspace"};
  for (const char* s : kSkip)
    if (c == s) return true;
  return false;
}

std::vector<Tok> lex_latex(std::string_view s) {
  std::vector<Tok> out;
  std::size_t i = 0, n = s.size();
  bool space = false;
  int depth = 0;  // bracket depth, for thousands separators at top level only
  while (i < n) {
    char c = s[i];
    if (is_space(c) || c == '~' || c == '$') {
      space = true;
      ++i;
      continue;
    }
    Tok t;
    t.pos = i;
    t.space_before = space;
    space = false;
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]))) {
      std::size_t j = i;
      while (j < n && is_digit(s[j])) ++j;
      // thousands separators at top level: "7,425,000" (groups of exactly three digits)
      // separators: "," ",\!" "{,}" "\," "\ " or one space ("7,425,000", "10{,}000", "1 000")
      if (depth == 0 && j - i <= 3) {
        std::size_t k = j;
        std::size_t last = j;
        for (;;) {
          std::size_t sep = 0;
          for (std::string_view cand : {std::string_view(",\\!"), std::string_view("{,}"), std::string_view("\\,"),
                                        std::string_view("\\ "), std::string_view(","), std::string_view(" ")}) {
            if (s.substr(k, cand.size()) == cand) {
              sep = cand.size();
              break;
            }
          }
          const std::size_t d = k + sep;
          if (sep == 0 || d + 3 > n || !is_digit(s[d]) || !is_digit(s[d + 1]) || !is_digit(s[d + 2]) ||
              (d + 3 < n && is_digit(s[d + 3]))) {
            break;
          }
          k = d + 3;
          last = k;
        }
        if (last != j) {
          std::string m;
          for (std::size_t q = i; q < last; ++q)
            if (is_digit(s[q])) m += s[q];
          j = last;
          std::string frac;
          if (j + 1 < n && s[j] == '.' && is_digit(s[j + 1])) {
            std::size_t q = j + 1;
            while (q < n && is_digit(s[q])) ++q;
            m += std::string(s.substr(j, q - j));
            j = q;
          }
          t.type = T::Num;
          t.text = canonical_number(m, "");
          out.push_back(t);
          i = j;
          continue;
        }
      }
      if (j < n && s[j] == '.' && (j + 1 < n && is_digit(s[j + 1]))) {
        ++j;
        while (j < n && is_digit(s[j])) ++j;
      } else if (j < n && s[j] == '.' && !(j + 1 < n && s[j + 1] == '.')) {
        ++j;  // "5." -> 5
      }
      std::string_view mant = s.substr(i, j - i);
      std::string_view exp;
      // scientific notation "1.5e-3" / "2E5": e, optional sign, digits, not followed by a letter
      if (j < n && (s[j] == 'e' || s[j] == 'E')) {
        std::size_t k = j + 1;
        if (k < n && (s[k] == '+' || s[k] == '-')) ++k;
        std::size_t d = k;
        while (k < n && is_digit(s[k])) ++k;
        // An integer mantissa counts too when digits follow the e directly ("1e5"): a product
        // 1*e*5 is written that way by nobody. "2e-3" with a sign is read as 2*10^-3 as well.
        if (k > d && (k >= n || !is_alpha(s[k])) &&
            (mant.find('.') != std::string_view::npos || k > j + 1)) {
          exp = s.substr(j + 1, k - j - 1);
          j = k;
        }
      }
      t.type = T::Num;
      if (mant.back() == '.') mant.remove_suffix(1);
      t.text = canonical_number(mant, exp);
      out.push_back(t);
      i = j;
      continue;
    }
    if (is_alpha(c)) {
      std::size_t j = i;
      while (j < n && is_alpha(s[j])) ++j;
      t.type = T::Word;
      t.text = std::string(s.substr(i, j - i));
      if (t.text == "and") {  // "1 and -2" lists answers
        t.type = T::Punct;
        t.text = ",";
      } else if (t.text == "pi") {  // plain-text "pi/2" means \pi/2, not p*i/2
        t.type = T::Cmd;
      }
      out.push_back(t);
      i = j;
      continue;
    }
    if (c == '\\') {
      std::size_t j = i + 1;
      if (j < n && is_alpha(s[j])) {
        while (j < n && is_alpha(s[j])) ++j;
        if (j < n && s[j] == '*') ++j;
      } else if (j < n) {
        j += utf8_length(s, j);  // "\{", "\%", "\," or an escaped non-ASCII character
      }
      std::string name(s.substr(i + 1, j - i - 1));
      // "\quadx" (a missing space after \quad): skip the spacing command, keep the letters
      for (const char* sp : {"qquad", "quad"}) {
        const std::size_t len = std::strlen(sp);
        if (name.size() > len && name.compare(0, len, sp) == 0 && name.back() != '*') {
          j = i + 1 + len;
          name = sp;
          break;
        }
      }
      i = j;
      if (skipped_command(name)) {
        space = true;
        // "\left." and "\right." are invisible delimiters
        if ((name == "left" || name == "right") && i < n && s[i] == '.') ++i;
        continue;
      }
      if (name == "lvert" || name == "rvert" || name == "vert" || name == "mid" || name == "|") {
        t.type = T::Punct;
        t.text = "|";
      } else if (name == "lbrace") {
        t.type = T::Cmd;
        t.text = "{";
      } else if (name == "rbrace") {
        t.type = T::Cmd;
        t.text = "}";
      } else if (name == "lbrack") {
        t.type = T::Punct;
        t.text = "[";
      } else if (name == "rbrack") {
        t.type = T::Punct;
        t.text = "]";
      } else if (name == "(" || name == ")") {
        // "\( 3, \frac{\pi}{2} \)" is read as brackets, as math-verify does
        t.type = T::Punct;
        t.text = name;
      } else if (name == "langle") {
        t.type = T::Punct;
        t.text = "(";
      } else if (name == "rangle") {
        t.type = T::Punct;
        t.text = ")";
      } else {
        t.type = T::Cmd;
        t.text = name;
      }
      if (t.text == "{" || t.text == "[" || t.text == "(") ++depth;
      if (t.text == "}" || t.text == "]" || t.text == ")") --depth;
      out.push_back(t);
      continue;
    }
    t.type = T::Punct;
    if (i + 1 < n && ((c == '<' && s[i + 1] == '=') || (c == '>' && s[i + 1] == '=') ||
                      (c == '!' && s[i + 1] == '=') || (c == '*' && s[i + 1] == '*') ||
                      (c == '=' && s[i + 1] == '='))) {
      t.text = std::string(s.substr(i, 2));
      if (t.text == "**") t.text = "^";
      if (t.text == "==") t.text = "=";
      i += 2;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      // a non-ASCII character: the degree sign U+00B0 is recognized; anything else is junk
      if (c == '\xC2' && i + 1 < n && s[i + 1] == '\xB0') {
        t.text = "deg";
        i += 2;
      } else {
        fail("unexpected character", i);
      }
    } else {
      t.text = std::string(1, c);
      ++i;
    }
    if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
    if (t.text == ")" || t.text == "]" || t.text == "}") --depth;
    out.push_back(t);
  }
  Tok end;
  end.pos = n;
  out.push_back(end);
  return out;
}

// ============================================================================================
// LaTeX parser

struct DepthGuard {
  std::size_t& d;
  DepthGuard(std::size_t& depth, std::size_t offset) : d(depth) {
    if (++d > kMaxAstDepth) {
      fail("expression nested deeper than " + std::to_string(kMaxAstDepth) + " levels", offset);
    }
  }
  ~DepthGuard() { --d; }
};

class LatexParser {
 public:
  LatexParser(std::string_view src, Ast& ast) : src_(src), ast_(ast), toks_(lex_latex(src)) {}

  std::uint32_t top() {
    // "a, b; c, d": groups separated by ';' are tuples of a set; a bare list "1, 2" is a set
    std::vector<std::vector<std::uint32_t>> groups(1);
    groups.back().push_back(relation());
    while (is_punct(",") || is_punct(";")) {
      if (is_punct(";")) groups.emplace_back();
      ++p_;
      if (at_end()) break;  // trailing separator
      groups.back().push_back(relation());
    }
    if (!at_end()) fail("unexpected '" + tok().text + "'", tok().pos);
    if (groups.back().empty()) groups.pop_back();
    if (groups.size() > 1) {
      std::vector<std::uint32_t> tuples;
      for (auto& g : groups) {
        tuples.push_back(g.size() == 1 ? g[0] : add(make(Kind::Tuple, {}, std::move(g))));
      }
      return add(make(Kind::Set, {}, std::move(tuples)));
    }
    std::vector<std::uint32_t>& items = groups[0];
    if (items.size() == 1) return items[0];
    // "n = 1, 2, 3": the values of one unknown
    const Node& first = ast_.at(items[0]);
    if (first.kind == Kind::Relation && first.text == "=") {
      bool rest_plain = true;
      for (std::size_t k = 1; k < items.size(); ++k)
        if (ast_.at(items[k]).kind == Kind::Relation) rest_plain = false;
      const Kind lhs = ast_.at(first.kids[0]).kind;
      if (rest_plain && (lhs == Kind::Symbol || lhs == Kind::Tuple)) {
        const std::uint32_t l = first.kids[0];
        std::vector<std::uint32_t> values{first.kids[1]};
        values.insert(values.end(), items.begin() + 1, items.end());
        const std::uint32_t set = add(make(Kind::Set, {}, std::move(values)));
        return add(make(Kind::Relation, "=", {l, set}));
      }
    }
    return add(make(Kind::Set, {}, std::move(items)));
  }

 private:
  std::string_view src_;
  Ast& ast_;
  std::vector<Tok> toks_;
  std::size_t p_ = 0;
  std::size_t depth_ = 0;
  int abs_open_ = 0;

  const Tok& tok() const { return toks_[p_]; }
  const Tok& peek(std::size_t k = 1) const { return toks_[std::min(p_ + k, toks_.size() - 1)]; }
  bool at_end() const { return tok().type == T::End; }
  bool is_punct(const char* s) const { return tok().type == T::Punct && tok().text == s; }
  bool is_cmd(const char* s) const { return tok().type == T::Cmd && tok().text == s; }
  std::uint32_t add(Node n) { return ast_.add(std::move(n), tok().pos); }
  std::uint32_t num(const std::string& lit) { return add(make(Kind::Number, lit)); }

  void expect_punct(const char* s) {
    if (!is_punct(s)) {
      fail(std::string("expected '") + s + "'" + (at_end() ? " before the end" : ", found '" + tok().text + "'"),
           tok().pos);
    }
    ++p_;
  }

  static int relop(const Tok& t) {
    if (t.type == T::Punct) {
      if (t.text == "=") return '=';
      if (t.text == "<") return '<';
      if (t.text == ">") return '>';
      if (t.text == "<=") return 'l';
      if (t.text == ">=") return 'g';
      if (t.text == "!=") return 'n';
    } else if (t.type == T::Cmd) {
      const std::string& c = t.text;
      if (c == "le" || c == "leq" || c == "leqslant") return 'l';
      if (c == "ge" || c == "geq" || c == "geqslant") return 'g';
      if (c == "lt") return '<';
      if (c == "gt") return '>';
      if (c == "ne" || c == "neq") return 'n';
      if (c == "in" || c == "approx") return '=';
    }
    return 0;
  }

  std::uint32_t relation() {
    DepthGuard g(depth_, tok().pos);
    std::vector<std::uint32_t> kids{union_()};
    std::string ops;
    while (int op = relop(tok())) {
      ++p_;
      ops += static_cast<char>(op);
      kids.push_back(union_());
    }
    if (ops.empty()) return kids[0];
    return add(make(Kind::Relation, ops, std::move(kids)));
  }

  std::uint32_t union_() {
    std::vector<std::uint32_t> kids{sum()};
    while (is_cmd("cup")) {
      ++p_;
      kids.push_back(sum());
    }
    if (kids.size() == 1) return kids[0];
    return add(make(Kind::Union, {}, std::move(kids)));
  }

  std::uint32_t sum() {
    DepthGuard g(depth_, tok().pos);
    std::vector<std::uint32_t> terms;
    terms.push_back(term());
    for (;;) {
      if (is_punct("+")) {
        ++p_;
        terms.push_back(term());
      } else if (is_punct("-")) {
        ++p_;
        std::uint32_t t = term();
        terms.push_back(add(make(Kind::Neg, {}, {t})));
      } else if (is_cmd("pm") || is_cmd("mp")) {
        const bool mp = tok().text == "mp";
        ++p_;
        std::uint32_t left = flat(Kind::Add, terms);
        std::uint32_t right = term();
        if (mp) right = add(make(Kind::Neg, {}, {right}));
        terms.assign(1, add(make(Kind::PlusMinus, {}, {left, right})));
      } else {
        break;
      }
    }
    return flat(Kind::Add, terms);
  }

  /// n-ary node of `kind`, merging children of the same kind; a single child is returned as is.
  std::uint32_t flat(Kind kind, const std::vector<std::uint32_t>& items) {
    if (items.size() == 1) return items[0];
    std::vector<std::uint32_t> kids;
    for (std::uint32_t k : items) {
      if (ast_.at(k).kind == kind) {
        const auto& sub = ast_.at(k).kids;
        kids.insert(kids.end(), sub.begin(), sub.end());
      } else {
        kids.push_back(k);
      }
    }
    return add(make(kind, {}, std::move(kids)));
  }

  bool starts_primary(bool allow_functions) const {
    const Tok& t = tok();
    switch (t.type) {
      case T::Num:
        return true;
      case T::Word:
        return allow_functions || !(is_function_name(t.text) && peek().type == T::Punct && peek().text == "(");
      case T::Punct:
        return t.text == "(" || t.text == "{" || (t.text == "|" && abs_open_ == 0);
      case T::Cmd: {
        const std::string& c = t.text;
        if (c == "frac" || c == "dfrac" || c == "tfrac" || c == "cfrac" || c == "sqrt" || c == "pi" ||
            c == "infty" || c == "binom" || c == "dbinom" || c == "tbinom" || c == "text" ||
            c == "mathrm" || c == "textbf" || c == "mathbf" || c == "mathit" || c == "textit" ||
            c == "lfloor" || c == "lceil" || c == "begin" || c == "{" || c == "mbox" || is_greek(c))
          return true;
        if (c == "operatorname") return allow_functions;
        return allow_functions && latex_function(c) != nullptr;
      }
      default:
        return false;
    }
  }

  static const char* latex_function(const std::string& c) {
    static const char* const kNames[][2] = {
        {"sin", "sin"}, {"cos", "cos"}, {"tan", "tan"}, {"sec", "sec"}, {"csc", "csc"},
        {"cot", "cot"}, {"arcsin", "asin"}, {"arccos", "acos"}, {"arctan", "atan"},
        {"arcsec", "asec"}, {"arccsc", "acsc"}, {"arccot", "acot"}, {"sinh", "sinh"},
        {"cosh", "cosh"}, {"tanh", "tanh"}, {"exp", "exp"}, {"ln", "ln"}, {"log", "log"},
        {"lg", "log10"}, {"det", "det"}, {"max", "max"}, {"min", "min"}, {"gcd", "gcd"},
        {"arcsinh", "asinh"}, {"arccosh", "acosh"}, {"arctanh", "atanh"}, {"sgn", "sign"}};
    for (const auto& kv : kNames)
      if (c == kv[0]) return kv[1];
    return nullptr;
  }

  std::uint32_t term() {
    DepthGuard g(depth_, tok().pos);
    std::vector<std::uint32_t> factors{unary()};
    for (;;) {
      if (is_punct("*") || is_cmd("cdot") || is_cmd("times") || is_cmd("ast")) {
        ++p_;
        factors.push_back(unary());
      } else if (is_punct("/") || is_cmd("div") || is_punct(":")) {  // "7:32" is a ratio
        const std::size_t at = tok().pos;
        ++p_;
        std::uint32_t left = flat(Kind::Mul, factors);
        std::uint32_t right = unary();
        factors.assign(1, ast_.add(make(Kind::Div, {}, {left, right}), at));
      } else if (starts_primary(true)) {
        const bool negated = factors.size() == 1 && ast_.at(factors[0]).kind == Kind::Neg &&
                             ast_.at(factors[0]).kids.size() == 1;
        const std::uint32_t whole = negated ? ast_.at(factors[0]).kids[0] : factors[0];
        const bool after_integer = factors.size() == 1 && is_integer_literal(whole);
        std::uint32_t next = postfix(primary());
        // A mixed number "12\frac{3}{5}" is 12 + 3/5 (and "-1\frac{1}{2}" is -(1 + 1/2)), as
        // math-verify and every textbook read it: an integer literal directly followed by a
        // fraction of two integer literals.
        if (after_integer && is_integer_fraction(next)) {
          std::uint32_t mixed = ast_.add(make(Kind::Add, {}, {whole, next}), tok().pos);
          factors[0] = negated ? ast_.add(make(Kind::Neg, {}, {mixed}), tok().pos) : mixed;
        } else {
          factors.push_back(next);
        }
      } else {
        break;
      }
    }
    return flat(Kind::Mul, factors);
  }

  bool is_integer_literal(std::uint32_t k) const {
    const Node& n = ast_.at(k);
    if (n.kind != Kind::Number || n.text.empty()) return false;
    for (char c : n.text)
      if (!is_digit(c)) return false;
    return true;
  }

  bool is_integer_fraction(std::uint32_t k) const {
    const Node& n = ast_.at(k);
    return n.kind == Kind::Div && n.kids.size() == 2 && is_integer_literal(n.kids[0]) &&
           is_integer_literal(n.kids[1]);
  }

  std::uint32_t unary() {
    DepthGuard g(depth_, tok().pos);
    if (is_punct("-")) {
      ++p_;
      std::uint32_t x = unary();
      // "-5" stays a negated literal; the printer shows it as -5
      return add(make(Kind::Neg, {}, {x}));
    }
    if (is_punct("+")) {
      ++p_;
      return unary();
    }
    if (is_cmd("pm") || is_cmd("mp")) {
      ++p_;
      std::uint32_t x = unary();
      return add(make(Kind::PlusMinus, {}, {num("0"), x}));
    }
    return postfix(primary());
  }

  /// The single-token argument of ^, _, \frac12: "{...}", one digit of a number, one letter,
  /// or a command primary.
  std::uint32_t script_arg() {
    DepthGuard g(depth_, tok().pos);
    Tok& t = toks_[p_];
    if (t.type == T::Punct && t.text == "{") return brace_group();
    if (t.type == T::Num) {
      if (t.text.size() > 1 && is_digit(t.text[1])) {
        std::string first = t.text.substr(0, 1);
        t.text = canonical_number(t.text.substr(1), "");
        t.pos += 1;
        return num(first);
      }
      ++p_;
      return num(t.text);
    }
    if (t.type == T::Word) {
      if (t.text.size() > 1) {
        std::string first = t.text.substr(0, 1);
        t.text = t.text.substr(1);
        t.pos += 1;
        return letter(first);
      }
      ++p_;
      return letter(t.text);
    }
    if (t.type == T::Punct && t.text == "-") {
      ++p_;
      std::uint32_t x = script_arg();
      return add(make(Kind::Neg, {}, {x}));
    }
    if (t.type == T::Cmd) return primary();
    if (t.type == T::Punct && t.text == "(") return primary();
    fail(at_end() ? "missing argument before the end" : "unexpected '" + t.text + "' as an argument", t.pos);
  }

  /// Raw text of a brace group (for subscripts, \text, environment names), braces balanced.
  std::string raw_group() {
    if (!is_punct("{")) {
      // single token
      Tok& t = toks_[p_];
      if (t.type == T::Num || t.type == T::Word) {
        if (t.text.size() > 1) {
          std::string first = t.text.substr(0, 1);
          t.text = t.text.substr(1);
          t.pos += 1;
          if (t.type == T::Num) t.text = canonical_number(t.text, "");
          return first;
        }
        ++p_;
        return t.text;
      }
      if (t.type == T::Cmd) {
        ++p_;
        return t.text;
      }
      fail("expected a group", t.pos);
    }
    const std::size_t start = tok().pos + 1;
    int level = 0;
    for (;;) {
      if (at_end()) fail("unclosed '{'", start - 1);
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
    if (is_punct("}")) fail("empty group", open);
    std::vector<std::uint32_t> items{relation()};
    while (is_punct(",")) {
      ++p_;
      items.push_back(relation());
    }
    if (!is_punct("}")) fail("unclosed '{'", open);
    ++p_;
    if (items.size() == 1) return items[0];
    return add(make(Kind::Set, {}, std::move(items)));
  }

  std::uint32_t letter(const std::string& name) {
    if (name == "e") return add(make(Kind::Const, "E"));
    if (name == "i") return add(make(Kind::Const, "I"));
    return add(make(Kind::Symbol, name));
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
      return add(make(Kind::Symbol, name));
    }
    return letter(name);
  }

  /// "f(x)", "g(2)", "f(x, y)": a letter applied to atoms is a function application (as
  /// latex2sympy reads it); "x(x+1)" with an operator inside is a product.
  bool is_application() const {
    if (!(tok().type == T::Punct && tok().text == "(")) return false;
    std::size_t k = 1;
    for (;;) {
      const Tok& a = peek(k);
      const bool atom = (a.type == T::Num) || (a.type == T::Word && a.text.size() == 1) ||
                        (a.type == T::Cmd && is_greek(a.text));
      if (!atom) return false;
      const Tok& sep = peek(k + 1);
      if (sep.type != T::Punct) return false;
      if (sep.text == ")") return true;
      if (sep.text != ",") return false;
      k += 2;
    }
  }

  std::uint32_t application(const std::string& name) {
    ++p_;  // (
    std::vector<std::uint32_t> args;
    for (;;) {
      args.push_back(primary());
      if (is_punct(")")) break;
      ++p_;  // ,
    }
    ++p_;  // )
    return add(make(Kind::Func, name, std::move(args)));
  }

  std::uint32_t bracket() {
    DepthGuard g(depth_, tok().pos);
    const Tok open = tok();
    ++p_;
    if (is_punct(")") || is_punct("]")) fail("empty brackets", open.pos);
    const int saved_abs = abs_open_;
    abs_open_ = 0;
    std::vector<std::uint32_t> items{relation()};
    while (is_punct(",") || is_punct(";")) {  // "(0;-2;6)"
      ++p_;
      items.push_back(relation());
    }
    abs_open_ = saved_abs;
    if (!(is_punct(")") || is_punct("]"))) {
      fail(std::string("unclosed '") + open.text + "'", open.pos);
    }
    const bool left_round = open.text == "(";
    const bool right_round = tok().text == ")";
    ++p_;
    if (items.size() == 1) {
      if (left_round == right_round) return items[0];
      fail("mismatched brackets", open.pos);
    }
    if (items.size() == 2 && (!left_round || !right_round || is_infinite(items[0]) || is_infinite(items[1]))) {
      Node n = make(Kind::Interval, {}, std::move(items));
      n.flags = static_cast<std::uint8_t>((left_round ? kLeftOpen : 0) | (right_round ? kRightOpen : 0));
      return add(std::move(n));
    }
    if (left_round != right_round) fail("mismatched brackets", open.pos);
    return add(make(Kind::Tuple, {}, std::move(items)));
  }

  bool is_infinite(std::uint32_t k) const {
    const Node& n = ast_.at(k);
    if (n.kind == Kind::Const && n.text == "oo") return true;
    if (n.kind == Kind::Neg) return is_infinite(n.kids[0]);
    return false;
  }

  std::uint32_t matrix(const std::string& env, std::size_t at) {
    std::vector<std::uint32_t> entries;
    std::size_t cols = 0, cur = 0, rows = 0;
    for (;;) {
      if (at_end()) fail("unclosed \\begin{" + env + "}", at);
      if (is_cmd("end")) {
        ++p_;
        raw_group();
        break;
      }
      if (is_cmd("\\")) {
        ++p_;
        if (cur == 0) continue;
        if (rows > 0 && cur != cols) fail("matrix rows of different lengths", tok().pos);
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
      if (!(is_cmd("\\") || is_cmd("end"))) fail("unexpected '" + tok().text + "' in matrix", tok().pos);
    }
    if (cur > 0) {
      if (rows > 0 && cur != cols) fail("matrix rows of different lengths", at);
      cols = cur;
      ++rows;
    }
    if (rows == 0) fail("empty matrix", at);
    Node n = make(Kind::Matrix, env, std::move(entries));
    n.extra = static_cast<std::uint32_t>(cols);
    std::uint32_t m = add(std::move(n));
    if (env == "vmatrix" || env == "Vmatrix") return add(make(Kind::Func, "det", {m}));
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
        if (is_punct("{") && peek().type == T::Punct && peek().text == "-" && peek(2).type == T::Num &&
            peek(2).text == "1" && peek(3).type == T::Punct && peek(3).text == "}" &&
            name.size() <= 4 && name.find('a') != 0 && name != "log" && name != "ln" && name != "exp") {
          p_ += 4;
          inverse = true;
        } else {
          power = script_arg();
          has_power = true;
        }
      } else if (is_punct("_") && (name == "log")) {
        ++p_;
        base = script_arg();
        has_base = true;
      }
    }
    if (inverse) name = "a" + name;
    std::vector<std::uint32_t> args;
    if (is_punct("(")) {
      std::uint32_t a = bracket();
      if (ast_.at(a).kind == Kind::Tuple && (name == "max" || name == "min" || name == "gcd")) {
        args = ast_.at(a).kids;
      } else {
        args.push_back(a);
      }
    } else if (is_punct("{")) {
      args.push_back(brace_group());
    } else {
      // "\sin 2x": the argument is a run of implicitly multiplied factors, stopping at the
      // next function, operator or relation
      if (!starts_primary(false)) fail("missing argument of \\" + name, tok().pos);
      std::vector<std::uint32_t> f{postfix(primary())};
      while (starts_primary(false) && !(tok().type == T::Punct && tok().text == "(")) f.push_back(postfix(primary()));
      args.push_back(flat(Kind::Mul, f));
    }
    std::uint32_t call;
    if (name == "bare_log") {
      if (args.size() == 1 && ast_.at(args[0]).kind == Kind::Tuple && ast_.at(args[0]).kids.size() == 2) {
        args = ast_.at(args[0]).kids;
      }
      call = add(make(Kind::Func, "log", std::move(args)));
    } else if (name == "ln") {
      call = add(make(Kind::Func, "log", std::move(args)));
    } else if (name == "log") {
      // LaTeX \log without a base is base 10 (as latex2sympy reads it); \log_b is base b
      args.push_back(has_base ? base : num("10"));
      call = add(make(Kind::Func, "log", std::move(args)));
    } else if (name == "log10") {
      args.push_back(num("10"));
      call = add(make(Kind::Func, "log", std::move(args)));
    } else {
      call = add(make(Kind::Func, name, std::move(args)));
    }
    if (has_power) call = add(make(Kind::Pow, {}, {call, power}));
    return call;
  }

  std::uint32_t text_command(const std::string& cmd, std::size_t at) {
    std::string raw = raw_group();
    std::string inner;
    for (char c : raw)
      if (!is_space(c)) inner += c;
    if (cmd == "operatorname") return function(inner, at);
    if (inner.empty()) fail("empty \\" + cmd, at);
    // \mathrm{e} is Euler's number (math-verify's verify agrees); other letters are symbols
    if (inner == "e") return add(make(Kind::Const, "E"));
    if (inner.size() == 1 && is_alpha(inner[0])) return add(make(Kind::Symbol, inner));
    // \text{5}, \mathrm{e}, \mathbf{x}: parse the content as math
    Ast sub;
    try {
      sub = parse_latex(inner);
    } catch (const ParseError&) {
      return add(make(Kind::Symbol, inner));
    }
    if (sub.nodes[sub.root].kind == Kind::Text) return add(make(Kind::Symbol, inner));
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
    const Tok t = tok();
    switch (t.type) {
      case T::End:
        fail("unexpected end of input", t.pos);
      case T::Num:
        ++p_;
        return num(t.text);
      case T::Word: {
        if (is_function_name(t.text) && peek().type == T::Punct && peek().text == "(") {
          ++p_;
          // a bare "log(x)" is Python's natural logarithm ("log(x, b)": base b); \log is base 10
          return function(t.text == "log" ? "bare_log" : canonical_function(t.text), t.pos);
        }
        // a run of letters is a product of single-letter symbols; the last may carry a subscript
        ++p_;
        std::vector<std::uint32_t> f;
        for (std::size_t k = 0; k + 1 < t.text.size(); ++k) f.push_back(letter(t.text.substr(k, 1)));
        const std::string last = t.text.substr(t.text.size() - 1);
        if (last != "e" && last != "i" && is_application()) {
          f.push_back(application(last));
        } else {
          f.push_back(symbol_with_subscript(last));
        }
        return flat(Kind::Mul, f);
      }
      case T::Punct:
        if (t.text == "(" || t.text == "[") return bracket();
        if (t.text == "{") return brace_group();
        if (t.text == "|") {
          ++p_;
          ++abs_open_;
          std::uint32_t x = sum();
          --abs_open_;
          if (!is_punct("|")) fail("unclosed '|'", t.pos);
          ++p_;
          return add(make(Kind::Abs, {}, {x}));
        }
        fail(t.text == ")" || t.text == "]" || t.text == "}" ? "unbalanced '" + t.text + "'"
                                                                : "unexpected '" + t.text + "'",
             t.pos);
      case T::Cmd:
        break;
    }
    const std::string& c = t.text;
    ++p_;
    if (c == "frac" || c == "dfrac" || c == "tfrac" || c == "cfrac") {
      std::uint32_t a = script_arg();
      std::uint32_t b = script_arg();
      return add(make(Kind::Div, {}, {a, b}));
    }
    if (c == "sqrt") {
      if (is_punct("[")) {
        ++p_;
        std::uint32_t idx = sum();
        expect_punct("]");
        std::uint32_t x = script_arg();
        return add(make(Kind::Func, "root", {x, idx}));
      }
      std::uint32_t x = script_arg();
      return add(make(Kind::Func, "sqrt", {x}));
    }
    if (c == "binom" || c == "dbinom" || c == "tbinom") {
      std::uint32_t a = script_arg();
      std::uint32_t b = script_arg();
      return add(make(Kind::Func, "binomial", {a, b}));
    }
    if (c == "pi") return add(make(Kind::Const, "pi"));
    if (c == "infty" || c == "infin") return add(make(Kind::Const, "oo"));
    if (is_greek(c)) return symbol_with_subscript(c);
    if (const char* f = latex_function(c)) return function(f, t.pos);
    if (c == "text" || c == "mathrm" || c == "textbf" || c == "mathbf" || c == "mathit" || c == "textit" ||
        c == "mbox" || c == "operatorname" || c == "textrm" || c == "mathsf" || c == "boldsymbol") {
      return text_command(c, t.pos);
    }
    if (c == "{") {
      // \{ a, b \}
      if (is_cmd("}")) fail("empty set", t.pos);
      std::vector<std::uint32_t> items{relation()};
      while (is_punct(",") || is_punct(";")) {
        ++p_;
        items.push_back(relation());
      }
      if (!is_cmd("}")) fail("unclosed '\\{'", t.pos);
      ++p_;
      return add(make(Kind::Set, {}, std::move(items)));
    }
    if (c == "lfloor" || c == "lceil") {
      std::uint32_t x = sum();
      if (!is_cmd(c == "lfloor" ? "rfloor" : "rceil")) fail("unclosed \\" + c, t.pos);
      ++p_;
      return add(make(Kind::Func, c == "lfloor" ? "floor" : "ceiling", {x}));
    }
    if (c == "begin") {
      std::string env = raw_group();
      if (env == "pmatrix" || env == "bmatrix" || env == "vmatrix" || env == "Vmatrix" || env == "matrix" ||
          env == "Bmatrix" || env == "smallmatrix") {
        return matrix(env, t.pos);
      }
      fail("unsupported environment '" + env + "'", t.pos);
    }
    fail("unsupported command '\\" + c + "'", t.pos);
  }

  std::uint32_t postfix(std::uint32_t x) {
    for (;;) {
      if (is_punct("^")) {
        const std::size_t at = tok().pos;
        ++p_;
        // degrees: x^\circ, x^{\circ}
        if (is_cmd("circ")) {
          ++p_;
          x = ast_.add(make(Kind::Degree, {}, {x}), at);
          continue;
        }
        if (is_punct("{") && peek().type == T::Cmd && peek().text == "circ" && peek(2).type == T::Punct &&
            peek(2).text == "}") {
          p_ += 3;
          x = ast_.add(make(Kind::Degree, {}, {x}), at);
          continue;
        }
        std::uint32_t e = script_arg();
        x = ast_.add(make(Kind::Pow, {}, {x, e}), at);
      } else if (is_punct("!") ) {
        ++p_;
        x = add(make(Kind::Factorial, {}, {x}));
      } else if (is_punct("%") || is_cmd("%")) {
        ++p_;
        x = add(make(Kind::Percent, {}, {x}));
      } else if (is_cmd("circ") || is_punct("deg") || is_cmd("degree")) {
        ++p_;
        x = add(make(Kind::Degree, {}, {x}));
      } else if (is_punct("_") && ast_.at(x).kind != Kind::Symbol) {
        fail("unexpected subscript", tok().pos);
      } else {
        return x;
      }
    }
  }
};

bool looks_like_text(std::string_view s) {
  // A plain-text answer: a run of >= 3 letters (outside commands) that is not a known
  // function name, e.g. "Yes", "odd", "\text{east}". "xyz" is therefore text, not x*y*z.
  std::size_t i = 0, n = s.size();
  bool saw_word = false;
  while (i < n) {
    if (s[i] == '\\') {
      std::size_t j = i + 1;
      while (j < n && is_alpha(s[j])) ++j;
      std::string_view cmd = s.substr(i + 1, j - i - 1);
      if (cmd == "text" || cmd == "textbf" || cmd == "mathrm" || cmd == "textit" || cmd == "mbox") {
        // look inside
        i = j;
        continue;
      }
      if (j == i + 1) ++j;
      i = j;
      if ((cmd == "begin" || cmd == "end" || cmd == "operatorname") && i < n && s[i] == '{') {
        while (i < n && s[i] != '}') ++i;  // the environment or operator name is not text
      }
      continue;
    }
    if (is_alpha(s[i])) {
      std::size_t j = i;
      while (j < n && is_alpha(s[j])) ++j;
      std::string_view w = s.substr(i, j - i);
      // words glued to digits ("2xyz") still count
      if (w.size() >= 3 && !is_function_name(w) && w != "and") saw_word = true;
      i = j;
      continue;
    }
    ++i;
  }
  return saw_word;
}

std::string normalize_text(std::string_view s) {
  std::string out;
  std::size_t i = 0, n = s.size();
  bool space = false;
  while (i < n) {
    char c = s[i];
    if (c == '\\') {
      std::size_t j = i + 1;
      while (j < n && is_alpha(s[j])) ++j;
      if (j == i + 1 && j < n) j += utf8_length(s, j);
      i = j;
      space = true;
      continue;
    }
    if (c == '{' || c == '}' || c == '$') {
      ++i;
      continue;
    }
    if (is_space(c) || c == '~') {
      space = true;
      ++i;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ++i;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

// ============================================================================================
// Infix parser (Python / SymPy style)

struct ITok {
  T type = T::End;
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
      t.type = T::Num;
      t.text = canonical_number(mant, exp);
      i = j;
    } else if (is_alpha(c) || c == '_') {
      std::size_t j = i;
      while (j < n && (is_alpha(s[j]) || is_digit(s[j]) || s[j] == '_' || s[j] == '.')) {
        if (s[j] == '.' && !(j + 1 < n && is_alpha(s[j + 1]))) break;
        ++j;
      }
      t.type = T::Word;
      t.text = std::string(s.substr(i, j - i));
      i = j;
    } else {
      t.type = T::Punct;
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
      } else if (std::strchr("+-*/^()[]{},=<>!%", c) != nullptr && c != '\0') {
        t.text = std::string(1, c);
        ++i;
      } else {
        fail(std::string("unexpected character '") + (static_cast<unsigned char>(c) < 0x80 ? std::string(1, c) : "?") + "'", i);
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
  InfixParser(std::string_view src, Ast& ast) : ast_(ast), toks_(lex_infix(src)) {}

  std::uint32_t top() {
    std::vector<std::uint32_t> items{relation()};
    while (is(",")) {
      ++p_;
      items.push_back(relation());
    }
    if (tok().type != T::End) fail("unexpected '" + tok().text + "'", tok().pos);
    if (items.size() == 1) return items[0];
    return add(make(Kind::Tuple, {}, std::move(items)));
  }

 private:
  Ast& ast_;
  std::vector<ITok> toks_;
  std::size_t p_ = 0;
  std::size_t depth_ = 0;

  const ITok& tok() const { return toks_[p_]; }
  bool is(const char* s) const { return tok().type == T::Punct && tok().text == s; }
  std::uint32_t add(Node n) { return ast_.add(std::move(n), tok().pos); }
  void expect(const char* s) {
    if (!is(s)) {
      fail(std::string("expected '") + s + "'" + (tok().type == T::End ? " before the end" : ", found '" + tok().text + "'"),
           tok().pos);
    }
    ++p_;
  }

  int relop() const {
    if (tok().type != T::Punct) return 0;
    const std::string& t = tok().text;
    if (t == "=" || t == "==") return '=';
    if (t == "<") return '<';
    if (t == ">") return '>';
    if (t == "<=") return 'l';
    if (t == ">=") return 'g';
    if (t == "!=") return 'n';
    return 0;
  }

  std::uint32_t relation() {
    DepthGuard g(depth_, tok().pos);
    std::vector<std::uint32_t> kids{arith()};
    std::string ops;
    while (int op = relop()) {
      ++p_;
      ops += static_cast<char>(op);
      kids.push_back(arith());
    }
    if (ops.empty()) return kids[0];
    return add(make(Kind::Relation, ops, std::move(kids)));
  }

  std::uint32_t flat(Kind kind, const std::vector<std::uint32_t>& items) {
    if (items.size() == 1) return items[0];
    std::vector<std::uint32_t> kids;
    for (std::uint32_t k : items) {
      if (ast_.at(k).kind == kind) {
        const auto& sub = ast_.at(k).kids;
        kids.insert(kids.end(), sub.begin(), sub.end());
      } else {
        kids.push_back(k);
      }
    }
    return add(make(kind, {}, std::move(kids)));
  }

  std::uint32_t arith() {
    DepthGuard g(depth_, tok().pos);
    std::vector<std::uint32_t> terms{term()};
    for (;;) {
      if (is("+")) {
        ++p_;
        terms.push_back(term());
      } else if (is("-")) {
        ++p_;
        std::uint32_t t = term();
        terms.push_back(add(make(Kind::Neg, {}, {t})));
      } else if (is("+-")) {
        ++p_;
        std::uint32_t left = flat(Kind::Add, terms);
        std::uint32_t right = term();
        terms.assign(1, add(make(Kind::PlusMinus, {}, {left, right})));
      } else {
        return flat(Kind::Add, terms);
      }
    }
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
        std::uint32_t left = flat(Kind::Mul, f);
        std::uint32_t right = unary();
        f.assign(1, add(make(Kind::Div, {}, {left, right})));
      } else {
        return flat(Kind::Mul, f);
      }
    }
  }

  std::uint32_t unary() {
    DepthGuard g(depth_, tok().pos);
    if (is("-")) {
      ++p_;
      std::uint32_t x = unary();
      return add(make(Kind::Neg, {}, {x}));
    }
    if (is("+")) {
      ++p_;
      return unary();
    }
    if (is("+-")) {
      ++p_;
      std::uint32_t x = unary();
      std::uint32_t zero = add(make(Kind::Number, "0"));
      return add(make(Kind::PlusMinus, {}, {zero, x}));
    }
    return power();
  }

  std::uint32_t power() {
    DepthGuard g(depth_, tok().pos);
    std::uint32_t base = postfix(atom());
    if (is("**") || is("^")) {
      ++p_;
      std::uint32_t e = unary();  // right associative: 2**3**2 = 2**9, 2**-1
      return add(make(Kind::Pow, {}, {base, e}));
    }
    return base;
  }

  std::uint32_t postfix(std::uint32_t x) {
    for (;;) {
      if (is("!")) {
        ++p_;
        x = add(make(Kind::Factorial, {}, {x}));
      } else if (is("%")) {
        ++p_;
        x = add(make(Kind::Percent, {}, {x}));
      } else if (is("deg")) {
        ++p_;
        x = add(make(Kind::Degree, {}, {x}));
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
    if (t.type == T::End) fail("unexpected end of input", t.pos);
    if (t.type == T::Num) {
      ++p_;
      return add(make(Kind::Number, t.text));
    }
    if (t.type == T::Punct) {
      if (t.text == "(" || t.text == "[") {
        ++p_;
        std::vector<std::uint32_t> items = list(")");
        if (!(is(")") || is("]"))) fail("unclosed '" + t.text + "'", t.pos);
        const bool lr = t.text == "(", rr = tok().text == ")";
        ++p_;
        if (items.size() == 1 && lr && rr && toks_[p_ - 2].text != ",") return items[0];
        if (items.size() == 2 && lr != rr) {
          Node n = make(Kind::Interval, {}, std::move(items));
          n.flags = static_cast<std::uint8_t>((lr ? kLeftOpen : 0) | (rr ? kRightOpen : 0));
          return add(std::move(n));
        }
        if (lr != rr) fail("mismatched brackets", t.pos);
        if (items.size() == 2 && !lr) {
          Node n = make(Kind::Interval, {}, std::move(items));
          return add(std::move(n));
        }
        if (items.empty()) fail("empty brackets", t.pos);
        return add(make(Kind::Tuple, {}, std::move(items)));
      }
      if (t.text == "{") {
        ++p_;
        std::vector<std::uint32_t> items = list("}");
        expect("}");
        if (items.empty()) fail("empty set", t.pos);
        return add(make(Kind::Set, {}, std::move(items)));
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
    if (w == "pi") return add(make(Kind::Const, "pi"));
    if (w == "E") return add(make(Kind::Const, "E"));
    if (w == "I") return add(make(Kind::Const, "I"));
    if (w == "oo") return add(make(Kind::Const, "oo"));
    if (w == "S.Half") return add(make(Kind::Div, {}, {add(make(Kind::Number, "1")), add(make(Kind::Number, "2"))}));
    return add(make(Kind::Symbol, w));
  }

  std::uint32_t call(const std::string& name, std::vector<std::uint32_t> args, std::size_t at) {
    auto need = [&](std::size_t k) {
      if (args.size() != k) fail(name + "() takes " + std::to_string(k) + " argument" + (k == 1 ? "" : "s"), at);
    };
    if (name == "Abs" || name == "abs") {
      need(1);
      return add(make(Kind::Abs, {}, args));
    }
    if (name == "factorial") {
      need(1);
      return add(make(Kind::Factorial, {}, args));
    }
    if (name == "Rational") {
      need(2);
      return add(make(Kind::Div, {}, args));
    }
    if (name == "Integer" || name == "Float") {
      need(1);
      return args[0];
    }
    if (name == "Eq") {
      need(2);
      return add(make(Kind::Relation, "=", args));
    }
    if (name == "Interval") {
      need(2);
      return add(make(Kind::Interval, {}, args));
    }
    if (name == "Interval.open" || name == "Interval.Lopen" || name == "Interval.Ropen") {
      need(2);
      Node n = make(Kind::Interval, {}, args);
      n.flags = name == "Interval.open" ? (kLeftOpen | kRightOpen) : name == "Interval.Lopen" ? kLeftOpen : kRightOpen;
      return add(std::move(n));
    }
    if (name == "FiniteSet") return add(make(Kind::Set, {}, args));
    if (name == "Union") return add(make(Kind::Union, {}, args));
    if (name == "Tuple") return add(make(Kind::Tuple, {}, args));
    if (name == "Matrix") {
      need(1);
      const Node& rows = ast_.at(args[0]);
      if (rows.kind != Kind::Tuple && rows.kind != Kind::Interval) fail("Matrix() expects a list of rows", at);
      std::vector<std::uint32_t> entries;
      std::size_t cols = 0;
      for (std::size_t r = 0; r < rows.kids.size(); ++r) {
        const Node& row = ast_.at(rows.kids[r]);
        std::vector<std::uint32_t> items;
        if (row.kind == Kind::Tuple || row.kind == Kind::Interval) items = row.kids;
        else items.push_back(rows.kids[r]);
        if (r > 0 && items.size() != cols) fail("Matrix() rows of different lengths", at);
        cols = items.size();
        entries.insert(entries.end(), items.begin(), items.end());
      }
      Node n = make(Kind::Matrix, "Matrix", std::move(entries));
      n.extra = static_cast<std::uint32_t>(cols);
      return add(std::move(n));
    }
    if (name == "log" || name == "ln") {
      if (args.empty() || args.size() > 2 || (name == "ln" && args.size() != 1)) fail(name + "() takes 1 or 2 arguments", at);
      return add(make(Kind::Func, "log", args));
    }
    if (name == "sqrt" || name == "exp" || name == "sin" || name == "cos" || name == "tan" || name == "sec" ||
        name == "csc" || name == "cot" || name == "sinh" || name == "cosh" || name == "tanh" || name == "floor" ||
        name == "ceiling" || name == "ceil" || name.rfind("arc", 0) == 0 || name == "asin" || name == "acos" ||
        name == "atan" || name == "asec" || name == "acsc" || name == "acot" || name == "asinh" ||
        name == "acosh" || name == "atanh" || name == "sign") {
      need(1);
      return add(make(Kind::Func, canonical_function(name), args));
    }
    if (name == "root" || name == "binomial") {
      need(2);
      return add(make(Kind::Func, name, args));
    }
    // anything else (Integral, f(x), Sum, ...) is an opaque function node
    return add(make(Kind::Func, name, args));
  }
};

// ============================================================================================
// RPN

std::uint32_t rpn_unary(Ast& ast, const std::string& op, std::uint32_t x, std::size_t at) {
  if (op == "neg") return ast.add(make(Kind::Neg, {}, {x}), at);
  if (op == "abs") return ast.add(make(Kind::Abs, {}, {x}), at);
  if (op == "ln") return ast.add(make(Kind::Func, "log", {x}), at);
  return ast.add(make(Kind::Func, op, {x}), at);
}

bool is_rpn_unary(std::string_view w) {
  return w == "neg" || w == "sin" || w == "cos" || w == "tan" || w == "exp" || w == "log" || w == "ln" ||
         w == "sqrt" || w == "abs";
}
bool is_rpn_binary(std::string_view w) { return w == "+" || w == "-" || w == "*" || w == "/" || w == "^"; }

}  // namespace
}  // namespace detail

using namespace detail;

Ast parse_latex(std::string_view text) {
  check_size(text);
  Ast ast;
  bool blank = true;
  for (char c : text)
    if (!is_space(c)) blank = false;
  if (blank) fail("empty expression", 0);
  if (looks_like_text(text)) {
    ast.root = ast.add(make(Kind::Text, normalize_text(text)));
    return ast;
  }
  LatexParser p(text, ast);
  ast.root = p.top();
  return ast;
}

Ast parse_infix(std::string_view text) {
  check_size(text);
  Ast ast;
  InfixParser p(text, ast);
  ast.root = p.top();
  return ast;
}

Ast parse_rpn(std::string_view text) {
  check_size(text);
  Ast ast;
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;  // node, offset of its token
  std::size_t i = 0, n = text.size();
  std::string last;
  while (i < n) {
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && !is_space(text[j])) ++j;
    std::string w(text.substr(i, j - i));
    last = w;
    if (is_rpn_binary(w)) {
      if (stack.size() < 2) {
        fail("stack underflow: '" + w + "' needs 2 operands, " + std::to_string(stack.size()) + " available", i);
      }
      std::uint32_t b = stack.back().first;
      stack.pop_back();
      std::uint32_t a = stack.back().first;
      stack.pop_back();
      std::uint32_t r;
      // sums and products are n-ary, as in the other parsers: "1 2 3 + +" is 1 + 2 + 3
      auto nary = [&](Kind kind, std::uint32_t x, std::uint32_t y) {
        std::vector<std::uint32_t> kids;
        for (std::uint32_t k : {x, y}) {
          if (ast.nodes[k].kind == kind) {
            const auto& sub = ast.nodes[k].kids;
            kids.insert(kids.end(), sub.begin(), sub.end());
          } else {
            kids.push_back(k);
          }
        }
        return ast.add(make(kind, {}, std::move(kids)), i);
      };
      if (w == "+") r = nary(Kind::Add, a, b);
      else if (w == "-") r = nary(Kind::Add, a, ast.add(make(Kind::Neg, {}, {b}), i));
      else if (w == "*") r = nary(Kind::Mul, a, b);
      else if (w == "/") r = ast.add(make(Kind::Div, {}, {a, b}), i);
      else r = ast.add(make(Kind::Pow, {}, {a, b}), i);
      stack.emplace_back(r, i);
    } else if (is_rpn_unary(w)) {
      if (stack.empty()) fail("stack underflow: '" + w + "' needs 1 operand, 0 available", i);
      std::uint32_t a = stack.back().first;
      stack.pop_back();
      stack.emplace_back(rpn_unary(ast, w, a, i), i);
    } else if (w == "pi") {
      stack.emplace_back(ast.add(make(Kind::Const, "pi"), i), i);
    } else if (w == "e") {
      stack.emplace_back(ast.add(make(Kind::Const, "E"), i), i);
    } else if (is_digit(w[0]) || (w.size() > 1 && w[0] == '.' && is_digit(w[1]))) {
      // a number: digits, optional fraction, optional exponent, nothing else
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
        std::size_t d = e;
        while (e < w.size() && is_digit(w[e])) ++e;
        if (e > d) {
          exp = w.substr(k + 1, e - k - 1);
          k = e;
        }
      }
      if (k != w.size()) fail("invalid token '" + w + "'", i);
      if (mant.back() == '.') mant.pop_back();
      stack.emplace_back(ast.add(make(Kind::Number, canonical_number(mant, exp)), i), i);
    } else if (is_alpha(w[0])) {
      for (char c : w)
        if (!(is_alpha(c) || is_digit(c) || c == '_')) fail("invalid token '" + w + "'", i);
      stack.emplace_back(ast.add(make(Kind::Symbol, w), i), i);
    } else {
      fail("unknown token '" + w + "'", i);
    }
    i = j;
  }
  if (stack.empty()) fail("empty expression", 0);
  if (stack.size() > 1) {
    fail(std::to_string(stack.size()) + " operands left on the stack after the last token '" + last +
             "' (missing operator)",
         stack[stack.size() - 2].second);
  }
  ast.root = stack.back().first;
  return ast;
}

Syntax detect_syntax(std::string_view text) {
  // RPN: whitespace-separated, at least two tokens, the last one an operator.
  std::vector<std::string_view> words;
  bool has_backslash = false;
  std::size_t i = 0, n = text.size();
  while (i < n) {
    if (text[i] == '\\') has_backslash = true;
    if (is_space(text[i])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < n && !is_space(text[j])) {
      if (text[j] == '\\') has_backslash = true;
      ++j;
    }
    words.push_back(text.substr(i, j - i));
    i = j;
  }
  if (has_backslash) return Syntax::Latex;
  if (words.size() >= 2 && (is_rpn_binary(words.back()) || is_rpn_unary(words.back()))) {
    bool plausible = true;
    for (auto w : words) {
      for (char c : w)
        if (c == '(' || c == ')' || c == ',' || c == '{' || c == '}') plausible = false;
    }
    // at least one operand must precede the first operator
    if (plausible && !is_rpn_binary(words.front()) && !is_rpn_unary(words.front())) return Syntax::Rpn;
  }
  if (text.find("**") != std::string_view::npos) return Syntax::Infix;
  // Python-style identifiers: a known function name or an opaque call "Integral(",
  // "oo", "E"/"I" used as constants next to operators.
  i = 0;
  while (i < n) {
    if (is_alpha(text[i])) {
      std::size_t j = i;
      while (j < n && (is_alpha(text[j]) || is_digit(text[j]) || text[j] == '_')) ++j;
      std::string_view w = text.substr(i, j - i);
      if (w == "oo") return Syntax::Infix;
      if (w.size() >= 2 && j < n && text[j] == '(' && w != "ln" && !is_function_name(w)) return Syntax::Infix;
      i = j;
    } else {
      ++i;
    }
  }
  return Syntax::Latex;
}

Ast parse(std::string_view text, Syntax syntax) {
  if (syntax == Syntax::Auto) syntax = detect_syntax(text);
  switch (syntax) {
    case Syntax::Infix: return parse_infix(text);
    case Syntax::Rpn: return parse_rpn(text);
    default: return parse_latex(text);
  }
}

}  // namespace rapidgrade::expr
