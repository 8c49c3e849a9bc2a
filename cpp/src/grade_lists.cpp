// Lists in the grader (declarations in grade_lists.hpp).
#include "grade_lists.hpp"

#include <cstddef>
#include <cstdint>
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
  const auto listed = [](expr::Kind k) { return k == expr::Kind::kSet || k == expr::Kind::kTuple; };
  if (!listed(g->at(g->root).kind) || listed(p->at(p->root).kind)) return false;
  expr::Ast element = *g;
  std::vector<std::uint32_t> todo{g->root};
  std::size_t compared = 0;
  while (!todo.empty() && compared < kMaxGoldElements) {
    const std::uint32_t at = todo.back();
    todo.pop_back();
    const expr::Node& node = g->at(at);
    if (listed(node.kind)) {
      for (const std::uint32_t kid : node.kids) todo.push_back(kid);
      continue;
    }
    ++compared;
    element.root = at;
    if (equiv::equivalent(element, *p, options.equiv) == equiv::Tri::kTrue) return true;
  }
  return false;
}

}  // namespace rapidgrade::grade::internal
