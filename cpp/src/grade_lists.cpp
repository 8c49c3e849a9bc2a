// Lists in the grader (declarations in grade_lists.hpp).
#include "grade_lists.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rapidgrade/equiv.hpp"

namespace rapidgrade::grade::internal {

namespace {

// Most values a gold list may have for the reading of the final sentence's numbers.
constexpr std::size_t kMaxSentenceValues = 16;

// Elements of a gold list compared with one answer, at most.
constexpr std::size_t kMaxGoldElements = 64;

}  // namespace

bool constant_scalar(const expr::Ast& tree, std::uint32_t root) {
  std::vector<std::uint32_t> todo{root};
  while (!todo.empty()) {
    const expr::Node& node = tree.at(todo.back());
    todo.pop_back();
    switch (node.kind) {
      case expr::Kind::kNumber:
      case expr::Kind::kConst:
      case expr::Kind::kAdd:
      case expr::Kind::kMul:
      case expr::Kind::kNeg:
      case expr::Kind::kDiv:
      case expr::Kind::kPow:
      case expr::Kind::kFunc:
      case expr::Kind::kFactorial:
      case expr::Kind::kAbs: break;
      default: return false;
    }
    for (const std::uint32_t kid : node.kids) todo.push_back(kid);
  }
  return true;
}

bool states_value_of(const expr::Ast& tree, std::uint32_t root, std::string_view name) {
  const expr::Node& node = tree.at(root);
  if (node.kind != expr::Kind::kRelation || node.kids.size() < 2) return false;
  const expr::Node& first = tree.at(node.kids[0]);
  return (first.kind == expr::Kind::kSymbol || first.kind == expr::Kind::kFunc) && first.text == name;
}

std::size_t gold_list_size(Answer& gold, expr::Kind& kind) {
  const expr::Ast* tree = gold.tree();
  if (tree == nullptr) return 0;
  const expr::Node& root = tree->at(tree->root);
  if (root.kind != expr::Kind::kSet && root.kind != expr::Kind::kTuple) return 0;
  if (root.kids.size() < 2 || root.kids.size() > kMaxSentenceValues) return 0;
  for (const std::uint32_t kid : root.kids) {
    if (!constant_scalar(*tree, kid)) return 0;
  }
  kind = root.kind;
  return root.kids.size();
}

bool gold_is_list(Answer& gold) {
  const expr::Ast* tree = gold.tree();
  if (tree == nullptr) return true;  // unread: not known to be one value
  const expr::Kind k = tree->at(tree->root).kind;
  return k == expr::Kind::kSet || k == expr::Kind::kTuple || k == expr::Kind::kInterval || k == expr::Kind::kUnion ||
         k == expr::Kind::kMatrix;
}

bool one_of_gold_values(Answer& gold, Answer& pred, const Options& options) {
  const expr::Ast* g = gold.tree();
  const expr::Ast* p = pred.tree();
  if (g == nullptr || p == nullptr) return false;
  const auto holds_members = [](expr::Kind k) {
    return k == expr::Kind::kSet || k == expr::Kind::kTuple || k == expr::Kind::kUnion;
  };
  if (!holds_members(g->at(g->root).kind)) return false;
  expr::Ast member = *g;
  const expr::KidList& top = g->at(g->root).kids;
  std::vector<std::uint32_t> todo(top.begin(), top.end());
  std::size_t compared = 0;
  while (!todo.empty() && compared < kMaxGoldElements) {
    const std::uint32_t at = todo.back();
    todo.pop_back();
    ++compared;
    member.root = at;
    if (equiv::equivalent(member, *p, options.equiv) == equiv::Tri::kTrue) return true;
    const expr::Node& node = g->at(at);
    if (holds_members(node.kind)) todo.insert(todo.end(), node.kids.begin(), node.kids.end());
  }
  return false;
}

bool other_shape(Answer& gold, Answer& pred) {
  const expr::Ast* g = gold.tree();
  const expr::Ast* p = pred.tree();
  if (g == nullptr || p == nullptr) return false;
  const expr::Node& top = p->at(p->root);
  const expr::Kind gold_kind = g->at(g->root).kind;
  const bool gold_value = constant_scalar(*g, g->root);
  if ((top.kind == expr::Kind::kSet || top.kind == expr::Kind::kTuple) && top.kids.size() >= 2) {
    // a listing of values or of tuples of values, where the gold counts or sums what it lists
    // (not a list of equations: "$T=650, k=13$" assigns, and is read as its assignments)
    const auto listed_value = [&p](std::uint32_t at) {
      const expr::Node& member = p->at(at);
      if (member.kind != expr::Kind::kTuple) return constant_scalar(*p, at);
      for (const std::uint32_t kid : member.kids) {
        if (!constant_scalar(*p, kid)) return false;
      }
      return true;
    };
    if (!gold_value) return false;
    for (const std::uint32_t kid : top.kids) {
      if (!listed_value(kid)) return false;
    }
    return true;
  }
  if (top.kind != expr::Kind::kRelation || top.text != "=" || top.kids.size() != 2) return false;
  if (gold_kind == expr::Kind::kRelation || gold_value) return false;  // the gold's shape, or a value
  const expr::Node& lhs = p->at(top.kids[0]);
  const expr::Node& rhs = p->at(top.kids[1]);
  if (lhs.kind == expr::Kind::kSymbol) {
    // "n=5" against 2n^{2}-2n+1: a value for a name of the gold's formula, an instance of it
    const std::vector<std::string> names = expr::free_symbols(*g);
    return constant_scalar(*p, top.kids[1]) && std::find(names.begin(), names.end(), lhs.text) != names.end();
  }
  // "1+r^{4}=5": an equation of names against a constant, with no name alone on a side (nor a
  // function's value, "f(x)"), to be solved; not a simplification ("-(a+3) = -a-3", names on
  // both sides), whose last member is its result
  return lhs.kind != expr::Kind::kFunc && rhs.kind != expr::Kind::kSymbol && rhs.kind != expr::Kind::kFunc &&
         constant_scalar(*p, top.kids[0]) != constant_scalar(*p, top.kids[1]) && !expr::free_symbols(*p).empty();
}

}  // namespace rapidgrade::grade::internal
