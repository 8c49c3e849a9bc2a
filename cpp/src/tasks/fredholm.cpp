// Post-processing of integral-equation answers; see rapidgrade/fredholm.hpp. Every scanner here
// is a hand-written linear pass (no std::regex); each mirrors one pattern of the fred-llm
// reference (src/postprocessing/parse.py, src/llm/math_verify_adapter.py), quoted above it.
#include "rapidgrade/tasks/fredholm.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "rapidgrade/common.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::fredholm {
namespace {

using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;
using detail::to_lower;
using detail::trim;

// Python's \w on UTF-8 bytes: ASCII letters, digits, '_' and any non-ASCII byte (letters of other
// scripts; a few non-ASCII symbols are counted too, which only matters next to a key word).
bool is_word(char c) { return is_letter(c) || is_digit(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80; }

std::size_t skip_spaces(std::string_view s, std::size_t i) {
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// The lines of `s` split on '\n' (as str.split("\n")).
std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (;;) {
    const std::size_t nl = s.find('\n', start);
    if (nl == kNpos) {
      lines.push_back(s.substr(start));
      return lines;
    }
    lines.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
}

// "u\s*\(\s*x\s*\)" at i (case-sensitive unless `icase`): the end of the match or kNpos.
std::size_t match_ux(std::string_view s, std::size_t i, bool icase) {
  auto eq = [&](std::size_t k, char c) { return k < s.size() && (icase ? to_lower(s[k]) == c : s[k] == c); };
  if (!eq(i, 'u')) return kNpos;
  std::size_t k = skip_spaces(s, i + 1);
  if (!eq(k, '(')) return kNpos;
  k = skip_spaces(s, k + 1);
  if (!eq(k, 'x')) return kNpos;
  k = skip_spaces(s, k + 1);
  if (!eq(k, ')')) return kNpos;
  return k + 1;
}

// After "u(x)": "\s*=\s*" (or, when `approx`, an approximate relation: \approx, ≈, ~=, \simeq).
// Returns the start of the right side or kNpos.
std::size_t match_relation(std::string_view s, std::size_t i, bool approx) {
  std::size_t k = skip_spaces(s, i);
  if (k < s.size() && s[k] == '=') return skip_spaces(s, k + 1);
  if (!approx) return kNpos;
  for (std::string_view rel : {std::string_view("\\approx"), std::string_view("\\simeq"),
                               std::string_view("\xE2\x89\x88"), std::string_view("~=")}) {
    if (detail::starts_with(s, k, rel)) {
      const std::size_t e = k + rel.size();
      if (rel[0] == '\\' && e < s.size() && is_letter(s[e])) continue;
      return skip_spaces(s, e);
    }
  }
  return kNpos;
}

// The first "u(x) = " in s[from..) (see match_ux / match_relation): {start of "u", start of rhs}.
std::pair<std::size_t, std::size_t> find_ux(std::string_view s, std::size_t from, bool icase, bool approx) {
  for (std::size_t i = from; i < s.size(); ++i) {
    if (s[i] != 'u' && !(icase && s[i] == 'U')) continue;
    const std::size_t e = match_ux(s, i, icase);
    if (e == kNpos) continue;
    const std::size_t r = match_relation(s, e, approx);
    if (r != kNpos) return {i, r};
  }
  return {kNpos, kNpos};
}

bool word_at(std::string_view s, std::size_t i, std::string_view w) {
  return istarts_with(s, i, w) && (i + w.size() >= s.size() || !is_word(s[i + w.size()]));
}

// (?:where|with|for|if|when) at i, ignoring case, followed by a word boundary: its end or kNpos.
std::size_t match_clause_word(std::string_view s, std::size_t i) {
  for (std::string_view w : {"where", "with", "when", "for", "if"}) {
    if (word_at(s, i, w)) return i + w.size();
  }
  return kNpos;
}

std::size_t rtrim_end(std::string_view s, std::size_t end) {
  while (end > 0 && is_space(s[end - 1])) --end;
  return end;
}

bool is_punct(char c) { return c == ',' || c == ';' || c == '.'; }

// Removes `\name` where name is one of `names` and is followed by a non-word character.
std::string remove_commands(std::string_view s, std::initializer_list<std::string_view> names) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '\\') {
      std::size_t e = i + 1;
      while (e < s.size() && is_word(s[e]) && static_cast<unsigned char>(s[e]) < 0x80) ++e;
      const std::string_view name = s.substr(i + 1, e - i - 1);
      if (std::find(names.begin(), names.end(), name) != names.end()) {
        i = e;
        continue;
      }
      out.append(s.substr(i, std::max<std::size_t>(e - i, 1)));
      i = std::max(e, i + 1);
      continue;
    }
    out.push_back(s[i++]);
  }
  return out;
}

// The reference's _clean_mv_content (math_verify_adapter.py), step by step.
std::string clean_reference(std::string_view in) {
  std::string_view s = trim(in);
  // ^\s*\\\(\s*   e.g. "\( x^2 \)" -> "x^2 \)"
  if (detail::starts_with(s, 0, "\\(")) s = trim(s.substr(2));
  std::size_t end = s.size();
  // \s*\\\)\s*[,;.]?\s*(?:where|with|for|if|when)\b.*$   e.g. "x^2\), where C = 1"
  for (std::size_t i = 0; i + 1 < end; ++i) {
    if (s[i] != '\\' || s[i + 1] != ')') continue;
    std::size_t k = skip_spaces(s, i + 2);
    if (k < s.size() && is_punct(s[k])) ++k;
    k = skip_spaces(s, k);
    if (match_clause_word(s, k) != kNpos) {
      end = rtrim_end(s, i);
      break;
    }
  }
  s = s.substr(0, end);
  // \s*\\\)\s*[,;.]*\s*$   e.g. "x^2 \)."
  {
    std::size_t k = rtrim_end(s, s.size());
    while (k > 0 && is_punct(s[k - 1])) --k;
    k = rtrim_end(s, k);
    if (k >= 2 && s[k - 2] == '\\' && s[k - 1] == ')') s = s.substr(0, rtrim_end(s, k - 2));
  }
  // \s*[,;]\s+(?:where|with|for|if|when)\s+.*$   e.g. "x + C, where C is arbitrary"
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ',' && s[i] != ';') continue;
    const std::size_t k = skip_spaces(s, i + 1);
    if (k == i + 1) continue;
    const std::size_t w = match_clause_word(s, k);
    if (w != kNpos && w < s.size() && is_space(s[w])) {
      s = s.substr(0, rtrim_end(s, i));
      break;
    }
  }
  // \s+(?:where|with|for|if|when)\s+.*$   e.g. "C e^{x} for any C"
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!is_space(s[i])) continue;
    const std::size_t k = skip_spaces(s, i);
    const std::size_t w = match_clause_word(s, k);
    if (w != kNpos && w < s.size() && is_space(s[w])) {
      s = s.substr(0, i);
      break;
    }
    i = k - 1;
  }
  // \\(?:Bigl?|Bigr?|bigl?|bigr?|displaystyle|qquad|quad)\b
  std::string out = remove_commands(s, {"Big", "Bigl", "Bigr", "big", "bigl", "bigr", "displaystyle", "qquad", "quad"});
  // [,;.]+$ after strip
  std::string_view t = trim(out);
  while (!t.empty() && is_punct(t.back())) t.remove_suffix(1);
  return std::string(trim(t));
}

// A candidate's prefix "u(x) \approx" / "u(x) =" (our extension: approximate answers count).
std::size_t solution_prefix_end(std::string_view s) {
  const std::size_t e = match_ux(s, 0, false);
  if (e == kNpos) return 0;
  const std::size_t r = match_relation(s, e, true);
  return r == kNpos ? 0 : r;
}

bool says_no_solution(std::string_view s) {
  std::string flat;
  for (std::size_t i = 0; i < s.size() && flat.size() < 64; ++i) {
    if (s[i] == '\\') {  // \text{, \mathrm{, ... : drop the command name
      std::size_t e = i + 1;
      while (e < s.size() && is_letter(s[e])) ++e;
      i = e - 1;
      continue;
    }
    if (s[i] == '{' || s[i] == '}' || s[i] == '$' || s[i] == '*') continue;
    flat.push_back(to_lower(s[i]));
  }
  const std::string_view f = trim(flat);
  if (!detail::starts_with(f, 0, "no")) return false;
  const std::size_t k = skip_spaces(f, 2);
  return k > 2 && word_at(f, k, "solution");
}

}  // namespace

std::string clean_candidate(std::string_view text) {
  std::string s = clean_reference(text);
  // Our additions: math delimiters, \left / \right and a leading "u(x) =" / "u(x) \approx".
  s = remove_commands(s, {"left", "right", "displaystyle"});
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c != '$') out.push_back(c);
  }
  std::string_view v = trim(out);
  if (detail::starts_with(v, 0, "\\[") || detail::starts_with(v, 0, "\\(")) v = trim(v.substr(2));
  if (detail::ends_with(v, "\\]") || detail::ends_with(v, "\\)")) v = trim(v.substr(0, v.size() - 2));
  v = trim(v.substr(solution_prefix_end(v)));
  // Trailing punctuation, spacing commands and a dangling operator: "-8.9 \;+\" -> "-8.9"
  // (not in RPN, where the last token is an operator: "x 2 ^ x sin +").
  if (!v.empty() && expr::detect_syntax(v) == expr::Syntax::kRpn) return std::string(v);
  for (;;) {
    const std::size_t before = v.size();
    while (!v.empty() && (is_punct(v.back()) || v.back() == '+' || v.back() == '*' || v.back() == '/' ||
                          v.back() == '=' || v.back() == '\\')) {
      v = trim(v.substr(0, v.size() - 1));
    }
    for (std::string_view sp : {"\\;", "\\,", "\\:", "\\!", "\\quad", "\\qquad"}) {
      if (detail::ends_with(v, sp)) v = trim(v.substr(0, v.size() - sp.size()));
    }
    if (v.size() == before) break;
  }
  return std::string(v);
}

namespace {

// Unicode subscripts: U+2080..U+2089 (digits) and the letters U+2090..U+209C but the schwa
// (a e o x h k l m n p s t): the ASCII character, or 0. `i` is at the first byte.
char subscript_at(std::string_view s, std::size_t i) {
  if (i + 2 >= s.size() || s[i] != '\xE2' || s[i + 1] != '\x82') return 0;
  const unsigned char c = static_cast<unsigned char>(s[i + 2]);
  if (c >= 0x80 && c <= 0x89) return static_cast<char>('0' + (c - 0x80));
  static constexpr char kLetters[] = {'a', 'e', 'o', 'x', '\0', 'h', 'k', 'l', 'm', 'n', 'p', 's', 't'};
  return c >= 0x90 && c <= 0x9C ? kLetters[c - 0x90] : '\0';
}

bool has_subscripts(std::string_view s) {
  for (std::size_t i = s.find('\xE2'); i != kNpos; i = s.find('\xE2', i + 1)) {
    if (subscript_at(s, i) != 0) return true;
  }
  return false;
}

bool is_name_char(char c) { return is_letter(c) || is_digit(c) || c == '_'; }

// The subscript runs of `s` as ASCII subscripts: "a₁₂" -> "a_{12}" (latex) or "a_12" (infix, with
// a '*' before a name or a bracket that follows at once: "a₁x" -> "a_1*x"). Linear.
std::string rewrite_subscripts(std::string_view s, bool latex) {
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    if (subscript_at(s, i) == 0) {
      out.push_back(s[i++]);
      continue;
    }
    out += latex ? "_{" : "_";
    while (i < s.size() && subscript_at(s, i) != 0) {
      out.push_back(subscript_at(s, i));
      i += 3;
    }
    if (latex)
      out.push_back('}');
    else if (i < s.size() && (is_name_char(s[i]) || s[i] == '('))
      out.push_back('*');
  }
  return out;
}

// A name of two or more letters (then letters, digits, '_': "lam", "lambda_1", "mu") that is not
// a function word, pi or oo, standing next to '*' or '/' (spaces between allowed), or any name of
// the table: the candidate is written with Python-style names, which LaTeX reads letter by letter.
bool python_names(std::string_view t, const SymbolTable& symbols) {
  const std::size_t n = t.size();
  for (std::size_t i = 0; i < n;) {
    if (!is_letter(t[i]) || (i > 0 && is_name_char(t[i - 1]))) {
      ++i;
      continue;
    }
    std::size_t j = i, letters = 0;
    while (j < n && is_name_char(t[j])) letters += is_letter(t[j++]) ? 1 : 0;
    const std::string_view w = t.substr(i, j - i);
    if (symbols.find(w) != symbols.end() && w.size() >= 2) return true;
    if (letters >= 2 && w != "pi" && w != "oo" && rapidgrade::detail::find_function_word(w) == nullptr) {
      std::size_t k = i;
      while (k > 0 && is_space(t[k - 1])) --k;
      if (k > 0 && (t[k - 1] == '*' || t[k - 1] == '/')) return true;
      k = skip_spaces(t, j);
      if (k < n && (t[k] == '*' || t[k] == '/')) return true;
    }
    i = j;
  }
  return false;
}

// The tree is one name of two or more characters (maybe negated) that the table does not list:
// a word ("undefined", "none"), not an expression.
bool lone_word(const expr::Ast& ast, const SymbolTable& symbols) {
  const expr::Node* node = &ast.at(ast.root);
  if (node->kind == expr::Kind::kNeg && !node->kids.empty()) node = &ast.at(node->kids[0]);
  return node->kind == expr::Kind::kSymbol && node->text.size() >= 2 && symbols.find(node->text) == symbols.end();
}

// Applies the table (and, in infix, e -> E unless the table names "e") to the symbols of the tree;
// true when a node changed. A negative number becomes Neg(number), its number node appended to
// the pool (the tree is printed, not evaluated, afterwards).
bool apply_symbols(expr::Ast& ast, const SymbolTable& symbols, bool infix) {
  static const SymbolRule kEuler{SymbolRule::Kind::kConst, "E"};
  bool changed = false;
  const std::size_t n = ast.nodes.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (ast.nodes[i].kind != expr::Kind::kSymbol) continue;
    const auto it = symbols.find(ast.nodes[i].text);
    const SymbolRule* rule = it != symbols.end() ? &it->second : nullptr;
    if (rule == nullptr && infix && ast.nodes[i].text == "e") rule = &kEuler;
    if (rule == nullptr) continue;
    switch (rule->kind) {
      case SymbolRule::Kind::kSymbol:
        if (ast.nodes[i].text == rule->text) continue;
        ast.nodes[i].text = rule->text;
        break;
      case SymbolRule::Kind::kConst:
        ast.nodes[i].kind = expr::Kind::kConst;
        ast.nodes[i].text = rule->text;
        break;
      case SymbolRule::Kind::kNumber: {
        std::string_view v = rule->text;
        if (!v.empty() && v[0] == '-') {
          const std::uint32_t number = ast.add_leaf(expr::Kind::kNumber, v.substr(1));
          expr::Node& node = ast.nodes[i];  // after add_leaf: the pool may have moved
          node.kind = expr::Kind::kNeg;
          node.text.clear();
          node.kids = {number};
        } else {
          ast.nodes[i].kind = expr::Kind::kNumber;
          ast.nodes[i].text.assign(v.data(), v.size());
        }
        break;
      }
    }
    changed = true;
  }
  return changed;
}

// Parses a cleaned candidate the way the reference's math-verify parse accepts it: the parse must
// succeed, give an expression (not text: "No solution" is not the product of its letters), and
// not collapse to a bare number when the candidate has letters outside LaTeX commands (the
// reference's _is_nontrivial). An equation gives its left side (the reference's Eq.lhs).
// Subscripts, Python-style names and the symbol table as read_solution says.
bool accept(const std::string& cleaned, expr::Syntax syntax, const SymbolTable& symbols, Parsed& out) {
  if (cleaned.empty()) return false;
  const bool subscripts = has_subscripts(cleaned);
  const std::string as_infix = subscripts ? rewrite_subscripts(cleaned, false) : cleaned;
  const std::string as_latex = subscripts ? rewrite_subscripts(cleaned, true) : cleaned;
  expr::Syntax used = syntax;
  std::optional<expr::Ast> parsed;
  if (syntax == expr::Syntax::kAuto) {
    used = expr::detect_syntax(as_infix);
    const bool plain = as_infix.find('\\') == kNpos;
    if (used == expr::Syntax::kLatex && plain && as_infix.find_first_of("{}") == kNpos &&
        python_names(as_infix, symbols)) {
      parsed = expr::try_parse(as_infix, expr::Syntax::kInfix);
      if (parsed) used = expr::Syntax::kInfix;
    }
    if (!parsed) {
      parsed = expr::try_parse(used == expr::Syntax::kLatex ? as_latex : as_infix, used);
      // What LaTeX reads as words ("lam*x + mu*sin(x)") may be infix with long names.
      if (used == expr::Syntax::kLatex && plain && (!parsed || parsed->at(parsed->root).kind == expr::Kind::kText)) {
        std::optional<expr::Ast> infix = expr::try_parse(as_infix, expr::Syntax::kInfix);
        if (infix && !lone_word(*infix, symbols)) {
          parsed = std::move(infix);
          used = expr::Syntax::kInfix;
        }
      }
    }
  } else {
    parsed = expr::try_parse(syntax == expr::Syntax::kLatex ? as_latex : as_infix, syntax);
  }
  if (!parsed) return false;
  expr::Ast& ast = *parsed;
  const std::string& text = used == expr::Syntax::kLatex ? as_latex : as_infix;
  const bool renamed = apply_symbols(ast, symbols, used == expr::Syntax::kInfix);
  std::uint32_t root = ast.root;
  const expr::Node* node = &ast.at(root);
  if (node->kind == expr::Kind::kText) return false;
  bool relation = false;
  if (node->kind == expr::Kind::kRelation) {
    if (node->text.empty() || node->text[0] != '=' || node->kids.empty()) return false;
    root = node->kids[0];
    node = &ast.at(root);
    relation = true;
  }
  const expr::Node* core = node;
  if (core->kind == expr::Kind::kNeg && !core->kids.empty()) core = &ast.at(core->kids[0]);
  if (core->kind == expr::Kind::kNumber && !renamed) {
    bool letters = false;
    for (std::size_t i = 0; i < cleaned.size(); ++i) {
      if (cleaned[i] == '\\') {
        while (i + 1 < cleaned.size() && is_letter(cleaned[i + 1])) ++i;
        continue;
      }
      if (is_letter(cleaned[i])) {
        letters = true;
        break;
      }
    }
    if (letters) return false;
  }
  std::string canonical;
  if (relation || renamed) {
    // Kept as infix text, which sample() parses again: a tree that does not read back (a word
    // inside it, an opaque \mathbf{...} symbol) is not an expression to sample.
    canonical = expr::to_string(ast, root);
    if (!expr::try_parse(canonical, expr::Syntax::kInfix)) return false;
  }
  out.solution = cleaned;
  out.parsed = true;
  if (relation || renamed) {
    out.expr_text = std::move(canonical);
    out.expr_syntax = expr::Syntax::kInfix;
  } else {
    out.expr_text = text;
    out.expr_syntax = used == expr::Syntax::kAuto ? expr::detect_syntax(text) : used;
  }
  return true;
}

// The stripped line starts (after markdown decoration "**", "- ", "#", ">") with "SOLUTION"
// (any case) and then "\s*[:=]\s*": the content's offset in `line`, or kNpos.
std::size_t solution_marker(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (is_space(line[i]) || line[i] == '*' || line[i] == '#' || line[i] == '-' || line[i] == '>'))
    ++i;
  if (!istarts_with(line, i, "solution")) return kNpos;
  std::size_t k = i + 8;
  while (k < line.size() && (is_space(line[k]) || line[k] == '*')) ++k;
  if (k >= line.size() || (line[k] != ':' && line[k] != '=')) return kNpos;
  ++k;
  while (k < line.size() && (is_space(line[k]) || line[k] == '*')) ++k;
  return k;
}

// The reference's unparsable-text rejections (_clean_expression): "No solution", "requires
// numerical ...", "cannot", "no closed-form", "[text in brackets]".
bool rejected_text(std::string_view s) {
  if (says_no_solution(s)) return true;
  std::string low(s);
  for (char& c : low) c = to_lower(c);
  for (std::string_view w : {"cannot", "can't", "no closed-form", "no closed form", "requires numerical",
                             "require numerical", "requires iterative", "requires computational"}) {
    if (low.find(w) != std::string::npos) return true;
  }
  const std::string_view t = trim(s);
  return t.size() >= 2 && t.front() == '[' && t.back() == ']' && t.find('(') == kNpos;
}

// A number as Python's float() reads the reference's [\d.eE+-]+ token; false when it does not.
bool read_number(std::string_view tok, double& v) {
  if (tok.empty() || tok.size() > 64) return false;
  const std::string buf(tok);
  char* endp = nullptr;
  v = std::strtod(buf.c_str(), &endp);
  return endp == buf.c_str() + buf.size() && std::isfinite(v);
}

bool is_num_char(char c) { return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; }

// "\(\s*num\s*,\s*num\s*\)" at i: end or kNpos; the numbers' tokens in a, b.
std::size_t match_pair(std::string_view s, std::size_t i, std::string_view& a, std::string_view& b) {
  if (i >= s.size() || s[i] != '(') return kNpos;
  std::size_t k = skip_spaces(s, i + 1);
  std::size_t st = k;
  while (k < s.size() && is_num_char(s[k])) ++k;
  if (k == st) return kNpos;
  a = s.substr(st, k - st);
  k = skip_spaces(s, k);
  if (k >= s.size() || s[k] != ',') return kNpos;
  k = skip_spaces(s, k + 1);
  st = k;
  while (k < s.size() && is_num_char(s[k])) ++k;
  if (k == st) return kNpos;
  b = s.substr(st, k - st);
  k = skip_spaces(s, k);
  if (k >= s.size() || s[k] != ')') return kNpos;
  return k + 1;
}

// A list "[ (x, y), (x, y), ... ]" at i: its end or kNpos.
std::size_t match_point_list(std::string_view s, std::size_t i) {
  if (i >= s.size() || s[i] != '[') return kNpos;
  std::string_view a, b;
  std::size_t k = match_pair(s, skip_spaces(s, i + 1), a, b);
  if (k == kNpos) return kNpos;
  for (;;) {
    const std::size_t c = skip_spaces(s, k);
    if (c < s.size() && s[c] == ',') {
      const std::size_t n = match_pair(s, skip_spaces(s, c + 1), a, b);
      if (n != kNpos) {
        k = n;
        continue;
      }
    }
    const std::size_t e = skip_spaces(s, k);
    return (e < s.size() && s[e] == ']') ? e + 1 : kNpos;
  }
}

// extract_discrete_points of the reference: the "SOLUTION: [...]" line's list (up to the first
// ']' that ends a line), else the first list of pairs anywhere; then every "(x, y)" in it. At
// least 2 points, all finite and below 1e10 in magnitude.
bool read_points(std::string_view s, std::vector<std::pair<double, double>>& points) {
  std::string_view list;
  for (std::size_t i = 0; i < s.size() && list.empty(); ++i) {
    if (!istarts_with(s, i, "solution")) continue;
    std::size_t k = skip_spaces(s, i + 8);
    if (k >= s.size() || s[k] != ':') continue;
    k = skip_spaces(s, k + 1);
    if (k >= s.size() || s[k] != '[') continue;
    for (std::size_t j = k + 1; j < s.size(); ++j) {
      if (s[j] == '\n') break;
      if (s[j] == ']' && (j + 1 == s.size() || s[j + 1] == '\n')) {
        list = s.substr(k, j + 1 - k);
        break;
      }
    }
  }
  if (list.empty()) {
    for (std::size_t i = s.find('['); i != kNpos; i = s.find('[', i + 1)) {
      const std::size_t e = match_point_list(s, i);
      if (e != kNpos) {
        list = s.substr(i, e - i);
        break;
      }
    }
  }
  if (list.empty()) return false;
  points.clear();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string_view a, b;
    const std::size_t e = match_pair(list, i, a, b);
    if (e == kNpos) continue;
    double x = 0, y = 0;
    if (!read_number(a, x) || !read_number(b, y)) {
      points.clear();
      return false;
    }
    points.emplace_back(x, y);
    i = e - 1;
  }
  if (points.size() < 2) return false;
  for (const auto& p : points) {
    if (!(std::fabs(p.first) < 1e10 && std::fabs(p.second) < 1e10)) return false;
  }
  return true;
}

// "(?:Step\s*\d+[:.]?\s*|^\d+[.)\]]\s*)" at i: the end of the marker (content start) or kNpos.
// `lookahead` checks only the part the reference's lookahead checks (no [:.]?\s*).
std::size_t match_step(std::string_view s, std::size_t i, bool lookahead) {
  if (istarts_with(s, i, "step")) {
    std::size_t k = skip_spaces(s, i + 4);
    const std::size_t d = detail::digits_end(s, k);
    if (d > k) {
      if (lookahead) return d;
      k = d;
      if (k < s.size() && (s[k] == ':' || s[k] == '.')) ++k;
      return skip_spaces(s, k);
    }
  }
  if (i == 0 || s[i - 1] == '\n') {
    const std::size_t d = detail::digits_end(s, i);
    if (d > i && d < s.size() && (s[d] == '.' || s[d] == ')' || s[d] == ']')) {
      return lookahead ? d + 1 : skip_spaces(s, d + 1);
    }
  }
  return kNpos;
}

// _extract_reasoning: the texts after numbered-step markers, each up to the next marker.
std::optional<std::string> read_steps(std::string_view s) {
  std::string out;
  std::size_t i = 0;
  bool any = false;
  while (i < s.size()) {
    std::size_t c = kNpos;
    for (; i < s.size(); ++i) {
      c = match_step(s, i, false);
      if (c != kNpos && c < s.size()) break;
      c = kNpos;
    }
    if (c == kNpos) break;
    std::size_t e = c + 1;  // .+? takes at least one character
    while (e < s.size() && match_step(s, e, true) == kNpos) ++e;
    const std::string_view step = trim(s.substr(c, e - c));
    if (!step.empty()) {
      if (any) out.push_back('\n');
      out.append(step);
      any = true;
    }
    i = e;
  }
  if (!any) return std::nullopt;
  return out;
}

// "REASONING:" (any case, line start after decoration): the text up to the next key line.
std::optional<std::string> read_reasoning_key(std::string_view s) {
  const std::vector<std::string_view> lines = split_lines(s);
  std::string out;
  bool in = false;
  for (std::string_view line : lines) {
    std::size_t i = 0;
    while (i < line.size() && (is_space(line[i]) || line[i] == '*' || line[i] == '#')) ++i;
    const bool key = istarts_with(line, i, "solution") || istarts_with(line, i, "has_solution") ||
                     istarts_with(line, i, "solution_type");
    if (in && key) break;
    if (!in && istarts_with(line, i, "reasoning")) {
      std::size_t k = i + 9;
      while (k < line.size() && (is_space(line[k]) || line[k] == '*')) ++k;
      if (k < line.size() && line[k] == ':') {
        in = true;
        out.append(line.substr(k + 1));
        continue;
      }
    }
    if (in) {
      out.push_back('\n');
      out.append(line);
    }
  }
  const std::string_view t = trim(out);
  if (!in || t.empty()) return std::nullopt;
  return std::string(t);
}

// "HAS[_\s]SOLUTION\s*[:\s]+\s*" at i (any case): the value's start or kNpos.
std::size_t match_has_key(std::string_view s, std::size_t i) {
  if (!istarts_with(s, i, "has") || i + 3 >= s.size() || !(s[i + 3] == '_' || is_space(s[i + 3]))) return kNpos;
  if (!istarts_with(s, i + 4, "solution")) return kNpos;
  std::size_t k = i + 12;
  const std::size_t st = k;
  while (k < s.size() && (s[k] == ':' || is_space(s[k]))) ++k;
  return k == st ? kNpos : k;
}

// Case-insensitive "\bw1\s+w2\s+...\b" at i.
bool words_at(std::string_view s, std::size_t i, std::initializer_list<std::string_view> words) {
  if (i > 0 && is_word(s[i - 1])) return false;
  bool first = true;
  for (std::string_view w : words) {
    if (!first) {
      const std::size_t k = skip_spaces(s, i);
      if (k == i) return false;
      i = k;
    }
    first = false;
    if (!istarts_with(s, i, w)) return false;
    i += w.size();
  }
  return i >= s.size() || !is_word(s[i]);
}

bool contains_words(std::string_view s, std::initializer_list<std::string_view> words) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (words_at(s, i, words)) return true;
  }
  return false;
}

}  // namespace

std::optional<bool> read_has_solution(std::string_view s) {
  // HAS[_\s]SOLUTION\s*[:\s]+\s*(yes|no|true|false)\b
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t v = match_has_key(s, i);
    if (v == kNpos) continue;
    if (word_at(s, v, "yes") || word_at(s, v, "true")) return true;
    if (word_at(s, v, "no") || word_at(s, v, "false")) return false;
  }
  // HAS[_\s]SOLUTION\s*[:\s]+\s*(.+?)(?:\n|$): the words of the first such line
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t v = match_has_key(s, i);
    if (v == kNpos || v >= s.size()) continue;
    std::size_t e = s.find('\n', v);
    if (e == kNpos) e = s.size();
    const std::string_view value = trim(s.substr(v, e - v));
    if (contains_words(value, {"no"}) || contains_words(value, {"not"}) || contains_words(value, {"false"}) ||
        contains_words(value, {"n/a"}) || contains_words(value, {"na"}) || contains_words(value, {"none"}) ||
        contains_words(value, {"does", "not"})) {
      return false;
    }
    if (contains_words(value, {"yes"}) || contains_words(value, {"true"}) || contains_words(value, {"exist"}) ||
        contains_words(value, {"exists"})) {
      return true;
    }
    break;
  }
  if (contains_words(s, {"no", "solution", "exist"}) || contains_words(s, {"no", "solution", "exists"}) ||
      contains_words(s, {"solution", "does", "not", "exist"})) {
    return false;
  }
  return std::nullopt;
}

std::optional<std::string> read_solution_type(std::string_view s) {
  // SOLUTION[_\s]TYPE\s*[:\s]+\s*([\w]+(?:[_\s-][\w]+)*)   e.g. "SOLUTION_TYPE: exact_symbolic"
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!istarts_with(s, i, "solution") || i + 8 >= s.size()) continue;
    if (!(s[i + 8] == '_' || is_space(s[i + 8])) || !istarts_with(s, i + 9, "type")) continue;
    std::size_t k = i + 13;
    const std::size_t st = k;
    while (k < s.size() && (s[k] == ':' || is_space(s[k]))) ++k;
    if (k == st || k >= s.size() || !is_word(s[k])) continue;
    std::string value;
    bool sep = false;
    while (k < s.size()) {
      if (is_word(s[k])) {
        if (sep) value.push_back('_');
        sep = false;
        value.push_back(to_lower(s[k++]));
      } else if ((is_space(s[k]) || s[k] == '-') && k + 1 < s.size() && is_word(s[k + 1])) {
        sep = true;  // one separator, then a word character
        ++k;
      } else {
        break;
      }
    }
    for (std::string_view t : kSolutionTypes) {
      if (value == t) return std::string(t);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

Parsed parse_output(std::string_view response, const Options& options) {
  Parsed out;
  if (trim(response).empty()) return out;
  out.has_solution = read_has_solution(response);
  out.solution_type = read_solution_type(response);
  out.reasoning = read_steps(response);
  if (!out.reasoning) out.reasoning = read_reasoning_key(response);
  if (!options.extract_solution) return out;

  if (out.solution_type && *out.solution_type == "discrete_points") {
    // A point-list answer is read as points, never as an expression (a one-point list would
    // parse as an interval); without a readable list it stays unparsed (the reference's 0.3).
    if (read_points(response, out.points)) {
      out.method = Method::kPoints;
      out.confidence = 0.8;
    } else {
      out.confidence = 0.3;
    }
    return out;
  }
  const std::string_view body = trim(response);
  const std::vector<std::string_view> lines = split_lines(body);

  auto try_candidate = [&](std::string_view raw, Method method, bool& stop) {
    std::string cleaned = clean_candidate(raw);
    if (cleaned.empty()) return false;
    if (says_no_solution(cleaned)) {  // the final answer is "No solution": not an expression
      out.says_no_solution = true;
      stop = true;
      return false;
    }
    if (!options.validate) {
      out.solution = std::move(cleaned);
      out.method = method;
      out.confidence = 0.8;
      return true;
    }
    if (accept(cleaned, options.syntax, options.symbols, out)) {
      out.method = method;
      out.confidence = 0.8;
      return true;
    }
    return false;
  };

  bool stop = false;
  // 1. The last line holding "u(x) = rhs" whose rhs parses.
  std::size_t tried = 0;
  for (std::size_t n = lines.size(); n-- > 0 && !stop && tried < kMaxCandidates;) {
    const auto [u, r] = find_ux(lines[n], 0, false, true);
    if (u == kNpos) continue;
    ++tried;
    if (try_candidate(lines[n].substr(r), Method::kUxLine, stop)) return out;
  }
  // 2. The first "SOLUTION: ..." line whose content parses.
  tried = 0;
  for (std::size_t n = 0; n < lines.size() && !stop && tried < kMaxCandidates; ++n) {
    const std::size_t c = solution_marker(lines[n]);
    if (c == kNpos || trim(lines[n].substr(c)).empty()) continue;
    ++tried;
    std::string_view content = trim(lines[n].substr(c));
    if (detail::starts_with(content, 0, "\\(")) content = trim(content.substr(2));
    const auto [u, r] = find_ux(content, 0, false, true);
    if (u != kNpos) content = content.substr(r);
    if (try_candidate(content, Method::kSolutionMarker, stop)) return out;
  }
  // 3. "u(x) =" ending its line, the right side on the following lines (display math), the last first.
  tried = 0;
  for (std::size_t n = lines.size(); n-- > 0 && !stop && tried < kMaxCandidates;) {
    const auto [u, r] = find_ux(lines[n], 0, false, true);
    if (u == kNpos || !clean_candidate(lines[n].substr(r)).empty()) continue;
    ++tried;
    std::string joined;
    for (std::size_t m = n + 1; m < lines.size() && m <= n + 8; ++m) {
      const std::string_view l = trim(lines[m]);
      if (l.empty() || l == "$$" || l == "\\]") break;
      if (!joined.empty()) joined.push_back(' ');
      joined.append(l);
      if (detail::ends_with(l, "$$") || detail::ends_with(l, "\\]")) break;
    }
    if (try_candidate(joined, Method::kWholeResponse, stop)) return out;
  }
  if (stop) return out;

  // 4. The regex priorities of the reference's fallback: the first match of each, in order.
  std::string_view found;
  Method found_method = Method::kNone;
  for (std::string_view line : lines) {  // ^SOLUTION\s*:\s*u(x)\s*=\s*(.+?)$
    if (!istarts_with(line, 0, "solution")) continue;
    std::size_t k = skip_spaces(line, 8);
    if (k >= line.size() || line[k] != ':') continue;
    k = skip_spaces(line, k + 1);
    const std::size_t e = match_ux(line, k, true);
    if (e == kNpos) continue;
    const std::size_t r = match_relation(line, e, false);
    if (r == kNpos || trim(line.substr(r)).empty()) continue;
    found = line.substr(r);
    found_method = Method::kRegexMarkerLine;
    break;
  }
  if (found.empty()) {  // solution[:\s]+u(x)\s*=\s*(.+?)$   e.g. "The solution: u(x) = x"
    for (std::string_view line : lines) {
      for (std::size_t i = 0; i < line.size() && found.empty(); ++i) {
        if (!istarts_with(line, i, "solution")) continue;
        std::size_t k = i + 8;
        while (k < line.size() && (line[k] == ':' || is_space(line[k]))) ++k;
        if (k == i + 8) continue;
        const std::size_t e = match_ux(line, k, true);
        if (e == kNpos) continue;
        const std::size_t r = match_relation(line, e, false);
        if (r != kNpos && !trim(line.substr(r)).empty()) {
          found = line.substr(r);
          found_method = Method::kRegexSolution;
        }
      }
      if (!found.empty()) break;
    }
  }
  if (found.empty()) {  // u(x)\s*=\s*(.+?)(?:\n|$|\.(?:\s|$))   e.g. "so u(x) = x. Done"
    const auto [u, r] = find_ux(body, 0, true, false);
    if (u != kNpos && r < body.size()) {
      std::size_t e = r + 1;
      while (e < body.size() && body[e] != '\n' && !(body[e] == '.' && (e + 1 == body.size() || is_space(body[e + 1]))))
        ++e;
      found = body.substr(r, e - r);
      found_method = Method::kRegexGeneric;
    }
  }
  if (found.empty() || rejected_text(found)) return out;
  std::string cleaned = clean_candidate(found);
  if (cleaned.empty() || rejected_text(cleaned)) return out;
  out.method = found_method;
  if (options.validate && accept(cleaned, options.syntax, options.symbols, out)) {
    out.confidence = 0.7;
  } else {
    out.solution = std::move(cleaned);
    out.parsed = false;
    out.expr_text.clear();
    out.confidence = options.validate ? 0.3 : 0.7;
  }
  return out;
}

bool read_solution(std::string_view text, expr::Syntax syntax, const SymbolTable& symbols, Parsed& out) {
  const std::string cleaned = clean_candidate(text);
  if (cleaned.empty() || says_no_solution(cleaned)) return false;
  return accept(cleaned, syntax, symbols, out);
}

bool read_solution(std::string_view text, expr::Syntax syntax, Parsed& out) {
  return read_solution(text, syntax, SymbolTable{}, out);
}

std::vector<double> sample(std::string_view text, expr::Syntax syntax, const std::string& variable,
                           const std::map<std::string, double>& constants, const std::vector<double>& xs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> out(xs.size(), nan);
  const std::optional<expr::Ast> ast = expr::try_parse(text, syntax);
  if (!ast) return out;
  const expr::Program prog = expr::compile(*ast, ast->root, {variable});
  if (!prog.evaluable) return out;
  std::vector<double> values(prog.vars.size(), 0.0);
  for (std::size_t v = 1; v < prog.vars.size(); ++v) {
    const auto it = constants.find(std::string(prog.vars[v]));
    if (it == constants.end()) return out;
    values[v] = it->second;
  }
  if (xs.empty()) return out;
  if (!prog.complex_constants) {
    std::vector<const double*> inputs(prog.vars.size());
    std::vector<std::size_t> strides(prog.vars.size(), 0);
    inputs[0] = xs.data();
    strides[0] = 1;
    for (std::size_t v = 1; v < prog.vars.size(); ++v) inputs[v] = &values[v];
    expr::run(prog, inputs, strides, xs.size(), out.data());
  } else {
    std::vector<std::complex<double>> cx(xs.begin(), xs.end()), cv(values.begin(), values.end()), res(xs.size());
    std::vector<const std::complex<double>*> inputs(prog.vars.size());
    std::vector<std::size_t> strides(prog.vars.size(), 0);
    inputs[0] = cx.data();
    strides[0] = 1;
    for (std::size_t v = 1; v < prog.vars.size(); ++v) inputs[v] = &cv[v];
    expr::run(prog, inputs, strides, xs.size(), res.data());
    for (std::size_t j = 0; j < xs.size(); ++j) {
      const double re = res[j].real(), im = res[j].imag();
      out[j] = std::fabs(im) <= 1e-12 * std::max(1.0, std::fabs(re)) ? re : nan;
    }
  }
  for (double& v : out) {
    if (!std::isfinite(v)) v = nan;
  }
  return out;
}

}  // namespace rapidgrade::fredholm
