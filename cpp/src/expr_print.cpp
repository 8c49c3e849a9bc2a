// Canonical printing and free symbols of an Ast. Recursion is bounded by the tree depth
// (at most kMaxAstDepth, enforced when the tree is built).
#include <algorithm>
#include <string>
#include <vector>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {
namespace {

int precedence(const Node& n) {
  switch (n.kind) {
    case Kind::kRelation: return 1;
    case Kind::kPlusMinus:
    case Kind::kAdd: return 10;
    case Kind::kMul:
    case Kind::kDiv: return 20;
    case Kind::kNeg: return 15;
    case Kind::kPow: return 30;
    case Kind::kPercent:
    case Kind::kDegree: return 40;
    case Kind::kNumber: return n.text.find('e') != std::string::npos ? 35 : 50;
    default: return 50;
  }
}

const char* relop_text(char op) {
  switch (op) {
    case '=': return " = ";
    case '<': return " < ";
    case '>': return " > ";
    case 'l': return " <= ";
    case 'g': return " >= ";
    case 'n': return " != ";
    default: return " ? ";
  }
}

void print(const Ast& ast, std::uint32_t i, std::string& out);

void print_prec(const Ast& ast, std::uint32_t i, int min_prec, std::string& out) {
  const bool paren = precedence(ast.at(i)) < min_prec;
  if (paren) out += '(';
  print(ast, i, out);
  if (paren) out += ')';
}

void print_list(const Ast& ast, const KidList& kids, std::string& out) {
  for (std::size_t k = 0; k < kids.size(); ++k) {
    if (k) out += ", ";
    print(ast, kids[k], out);
  }
}

void print_structure(const Ast& ast, const Node& n, std::string& out);

void print(const Ast& ast, std::uint32_t i, std::string& out) {
  const Node& n = ast.at(i);
  switch (n.kind) {
    case Kind::kNumber:
    case Kind::kSymbol:
    case Kind::kConst: out += n.text; return;
    case Kind::kText: out += "text(\"" + n.text + "\")"; return;
    case Kind::kAdd:
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        const Node& c = ast.at(n.kids[k]);
        if (k > 0 && c.kind == Kind::kNeg) {
          out += " - ";
          print_prec(ast, c.kids[0], 16, out);
        } else {
          if (k > 0) out += " + ";
          print_prec(ast, n.kids[k], 11, out);
        }
      }
      return;
    case Kind::kMul:
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        if (k) out += '*';
        print_prec(ast, n.kids[k], k == 0 ? 15 : 21, out);
      }
      return;
    case Kind::kDiv:
      print_prec(ast, n.kids[0], 20, out);
      out += '/';
      print_prec(ast, n.kids[1], 21, out);
      return;
    case Kind::kNeg:
      out += '-';
      print_prec(ast, n.kids[0], 20, out);
      return;
    case Kind::kPow:
      print_prec(ast, n.kids[0], 31, out);
      out += "**";
      print_prec(ast, n.kids[1], 31, out);
      return;
    case Kind::kFunc:
      out += n.text + "(";
      print_list(ast, n.kids, out);
      out += ')';
      return;
    case Kind::kFactorial:
      out += "factorial(";
      print(ast, n.kids[0], out);
      out += ')';
      return;
    case Kind::kAbs:
      out += "Abs(";
      print(ast, n.kids[0], out);
      out += ')';
      return;
    case Kind::kPercent:
      print_prec(ast, n.kids[0], 41, out);
      out += '%';
      return;
    case Kind::kDegree:
      print_prec(ast, n.kids[0], 41, out);
      out += "\xC2\xB0";
      return;
    case Kind::kPlusMinus:
      if (ast.at(n.kids[0]).kind == Kind::kNumber && ast.at(n.kids[0]).text == "0") {
        out += "\xC2\xB1";
        print_prec(ast, n.kids[1], 16, out);
        return;
      }
      print_prec(ast, n.kids[0], 11, out);
      out += " \xC2\xB1 ";
      print_prec(ast, n.kids[1], 16, out);
      return;
    default: print_structure(ast, n, out); return;
  }
}

/// Tuples, sets, intervals, unions, matrices and relations.
void print_structure(const Ast& ast, const Node& n, std::string& out) {
  switch (n.kind) {
    case Kind::kTuple:
      out += '(';
      print_list(ast, n.kids, out);
      if (n.kids.size() == 1) out += ',';
      out += ')';
      return;
    case Kind::kSet:
      out += '{';
      print_list(ast, n.kids, out);
      out += '}';
      return;
    case Kind::kInterval:
      out += (n.flags & kLeftOpen) ? '(' : '[';
      print_list(ast, n.kids, out);
      out += (n.flags & kRightOpen) ? ')' : ']';
      return;
    case Kind::kUnion:
      out += "Union(";
      print_list(ast, n.kids, out);
      out += ')';
      return;
    case Kind::kMatrix: {
      const std::size_t cols = std::max<std::size_t>(1, n.extra);
      out += "Matrix([";
      for (std::size_t r = 0; r * cols < n.kids.size(); ++r) {
        if (r) out += ", ";
        out += '[';
        for (std::size_t c = 0; c < cols && r * cols + c < n.kids.size(); ++c) {
          if (c) out += ", ";
          print(ast, n.kids[r * cols + c], out);
        }
        out += ']';
      }
      out += "])";
      return;
    }
    case Kind::kRelation:
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        if (k) out += relop_text(n.text[k - 1]);
        print_prec(ast, n.kids[k], 2, out);
      }
      return;
    default: return;
  }
}

void collect(const Ast& ast, std::uint32_t i, std::vector<std::string_view>& out) {
  const Node& n = ast.at(i);
  if (n.kind == Kind::kSymbol) out.push_back(n.text);
  for (std::uint32_t k : n.kids) collect(ast, k, out);
}

}  // namespace

std::string to_string(const Ast& ast, std::uint32_t node) {
  std::string out;
  print(ast, node, out);
  return out;
}

std::string to_string(const Ast& ast) { return to_string(ast, ast.root); }

std::vector<std::string_view> symbol_names(const Ast& ast, std::uint32_t node) {
  std::vector<std::string_view> out;
  collect(ast, node, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> free_symbols(const Ast& ast, std::uint32_t node) {
  const std::vector<std::string_view> names = symbol_names(ast, node);
  return std::vector<std::string>(names.begin(), names.end());
}

std::vector<std::string> free_symbols(const Ast& ast) { return free_symbols(ast, ast.root); }

}  // namespace rapidgrade::expr
