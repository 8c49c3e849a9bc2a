// Reading relations and the shape of trees for the equivalence check (equiv_internal.hpp,
// "Relations"): which way a chain points, the interval a condition in one variable states, the
// symbols and function calls a side holds, which nodes are values, the left sides of
// assignments, the multivalued functions a side applies, and whether two subtrees are one tree.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "equiv_internal.hpp"
#include "expr_kernels.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/spare.hpp"

namespace rapidgrade::equiv::detail {

bool is_structure(Kind k) {
  return k == Kind::kTuple || k == Kind::kSet || k == Kind::kInterval || k == Kind::kUnion || k == Kind::kMatrix ||
         k == Kind::kRelation || k == Kind::kText || k == Kind::kPlusMinus;
}

bool numbers(Ref r) {
  const Node& n = r.node();
  if (!is_structure(n.kind)) return compile(*r.ast, r.i).evaluable;
  if ((n.kind != Kind::kTuple && n.kind != Kind::kSet) || n.kids.empty()) return false;
  for (std::size_t k = 0; k < n.kids.size(); ++k) {
    Ref kid = r.kid(k);
    if (is_structure(kid.node().kind) || !compile(*kid.ast, kid.i).evaluable) return false;
  }
  return true;
}

bool values_only(Ref r) {
  const Node& n = r.node();
  if ((n.kind != Kind::kTuple && n.kind != Kind::kSet) || n.kids.empty()) return false;
  if (r.i == r.ast->root && names_interval(n)) return false;
  for (std::size_t k = 0; k < n.kids.size(); ++k) {
    if (!numbers(r.kid(k)) && !values_only(r.kid(k))) return false;
  }
  return true;
}

bool has_number(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kNumber || n.kind == Kind::kConst) return true;
  for (std::size_t k = 0; k < n.kids.size(); ++k)
    if (has_number(r.kid(k))) return true;
  return false;
}

bool disjoint_symbols(Ref a, Ref b) {
  const std::vector<std::string_view> sa = symbol_names(*a.ast, a.i), sb = symbol_names(*b.ast, b.i);
  if (sa.empty() || sb.empty()) return false;
  std::size_t i = 0, j = 0;  // both sorted
  while (i < sa.size() && j < sb.size()) {
    if (sa[i] == sb[j]) return false;
    if (sa[i] < sb[j])
      ++i;
    else
      ++j;
  }
  return true;
}

bool has_symbols(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kSymbol) return true;
  for (std::size_t k = 0; k < n.kids.size(); ++k)
    if (has_symbols(r.kid(k))) return true;
  return false;
}

bool has_function_call(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kFunc && rapidgrade::detail::find_function(n.text) == nullptr) return true;
  for (std::size_t k = 0; k < n.kids.size(); ++k)
    if (has_function_call(r.kid(k))) return true;
  return false;
}

bool orient(Ref r, std::vector<Ref>& operands, std::string& ops) {
  const Node& n = r.node();
  operands.clear();
  operands.reserve(n.kids.size());
  ops = n.text;
  for (std::size_t k = 0; k < n.kids.size(); ++k) operands.push_back(r.kid(k));
  bool up = false, down = false;
  for (char c : ops) {
    if (c == '<' || c == 'l') up = true;
    if (c == '>' || c == 'g') down = true;
  }
  if (up && down) return false;
  if (down) {
    std::reverse(operands.begin(), operands.end());
    std::reverse(ops.begin(), ops.end());
    for (char& c : ops) c = c == '>' ? '<' : 'l';
  }
  return true;
}

bool relation_interval(Ref rel, RelationInterval& out) {
  std::vector<Ref> ops;
  std::string dirs;
  if (!orient(rel, ops, dirs) || ops.size() < 2 || ops.size() > 3) return false;
  for (char c : dirs)
    if (c != '<' && c != 'l') return false;
  // the variable: the middle of a chain, or the one member with symbols
  std::size_t v = ops.size() == 3 ? 1 : (has_symbols(ops[0]) ? 0 : 1);
  if (ops[v].node().kind != Kind::kSymbol) return false;
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (k != v && has_symbols(ops[k])) return false;
  out = RelationInterval{};
  out.variable = ops[v].node().text;
  if (v > 0) {
    out.lo = ops[v - 1];
    out.lo_open = dirs[v - 1] == '<';
  }
  if (v + 1 < ops.size()) {
    out.hi = ops[v + 1];
    out.hi_open = dirs[v] == '<';
  }
  return true;
}

bool affine(Ref r) {
  const Node& n = r.node();
  switch (n.kind) {
    case Kind::kNumber:
    case Kind::kConst:
    case Kind::kSymbol: return true;
    case Kind::kNeg: return affine(r.kid(0));
    case Kind::kDiv: return affine(r.kid(0)) && !has_symbols(r.kid(1));
    case Kind::kAdd:
    case Kind::kMul: {
      std::size_t symbolic = 0;  // factors of a product that hold a symbol: one at most
      for (std::size_t k = 0; k < n.kids.size(); ++k) {
        if (!has_symbols(r.kid(k))) continue;
        if (!affine(r.kid(k)) || (n.kind == Kind::kMul && ++symbolic > 1)) return false;
      }
      return true;
    }
    default: return !has_symbols(r);
  }
}

bool names_interval(const Node& n) noexcept {
  return n.kind == Kind::kInterval || (n.kind == Kind::kTuple && n.kids.size() == 2);
}

namespace {

// The variables of a definition's left side (is_assignment_lhs's function case): the names of
// its arguments, or empty when r is no such side.
std::vector<std::string_view> definition_variables(Ref r) {
  const Node& n = r.node();
  std::vector<std::string_view> vars;
  if (n.kind != Kind::kFunc || n.kids.empty() || rapidgrade::detail::find_function(n.text) != nullptr) return vars;
  for (std::size_t k = 0; k < n.kids.size(); ++k) {
    const Node& arg = r.kid(k).node();
    if (arg.kind != Kind::kSymbol || std::find(vars.begin(), vars.end(), arg.text) != vars.end()) return {};
    vars.push_back(arg.text);
  }
  return vars;
}

}  // namespace

bool is_assignment_lhs(Ref r) {
  const Node& n = r.node();
  if (n.kind == Kind::kSymbol) return true;
  if (n.kind == Kind::kTuple) {
    for (std::size_t k = 0; k < n.kids.size(); ++k)
      if (r.kid(k).node().kind != Kind::kSymbol) return false;
    return true;
  }
  return !definition_variables(r).empty();
}

std::optional<Ast> renamed_definition(Ref gl, Ref pl, Ref p) {
  const std::vector<std::string_view> from = definition_variables(pl);
  const std::vector<std::string_view> to = definition_variables(gl);
  if (from.empty() || from.size() != to.size() || gl.node().text != pl.node().text || from == to) return std::nullopt;
  Ast copy = *p.ast;
  for (Node& node : copy.nodes) {
    if (node.kind != Kind::kSymbol) continue;
    const auto at = std::find(from.begin(), from.end(), node.text);
    if (at != from.end()) {
      node.text.assign(to[static_cast<std::size_t>(at - from.begin())]);
    } else if (std::find(to.begin(), to.end(), node.text) != to.end()) {
      return std::nullopt;  // a free symbol of p named as one of gl's variables
    }
  }
  return copy;
}

bool names_one_function(Ref a, Ref b) {
  if (a.node().kind != Kind::kSymbol) std::swap(a, b);
  return a.node().kind == Kind::kSymbol && a.node().text == b.node().text && !definition_variables(b).empty();
}

/// g and p are one tree: node by node the same kind, flags, extra and text, with as many
/// children, in order. A subtree shared within a tree is walked once per use, so the work is at
/// most size(g) node pairs (what the caller has spent). No recursion: an explicit stack.
bool same_tree(Ref g, Ref p) {
  struct Tag;
  rapidgrade::detail::Spare<std::vector<std::pair<std::uint32_t, std::uint32_t>>, Tag> spare;  // the stack, reused
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& pending = *spare;
  pending.emplace_back(g.i, p.i);
  while (!pending.empty()) {
    const auto [a, b] = pending.back();
    pending.pop_back();
    if (g.ast == p.ast && a == b) continue;
    const Node& x = g.ast->at(a);
    const Node& y = p.ast->at(b);
    if (x.kind != y.kind || x.flags != y.flags || x.extra != y.extra || x.kids.size() != y.kids.size() ||
        x.text != y.text) {
      return false;
    }
    for (std::size_t k = 0; k < x.kids.size(); ++k) pending.emplace_back(x.kids[k], y.kids[k]);
  }
  return true;
}

void collect_cuts(Ref r, std::vector<CutApplication>& out) {
  const Node& n = r.node();
  if (!has_symbols(r)) return;
  if (n.kind == Kind::kPow) {
    auto e = exact_value(*r.ast, n.kids[1]);
    if (!(e && e->den == 1) && has_symbols(r.kid(0))) out.push_back({"log", r.kid(0)});
  } else if (n.kind == Kind::kFunc) {
    // the cut of each function is in its row of the function table (functions.hpp)
    const rapidgrade::detail::FunctionSpec* f = rapidgrade::detail::find_function(n.text);
    const rapidgrade::detail::Cut cut = f != nullptr ? f->cut : rapidgrade::detail::Cut::kNone;
    if (cut == rapidgrade::detail::Cut::kLog) {
      for (std::size_t k = 0; k < n.kids.size(); ++k)
        if (has_symbols(r.kid(k))) out.push_back({"log", r.kid(k)});
    } else if (cut != rapidgrade::detail::Cut::kNone && !n.kids.empty()) {
      out.push_back({rapidgrade::detail::cut_key(cut), r.kid(0)});
    }
  }
  for (std::size_t k = 0; k < n.kids.size(); ++k) collect_cuts(r.kid(k), out);
}

}  // namespace rapidgrade::equiv::detail

namespace rapidgrade::equiv {

namespace {

// Distinct undefined functions a tree may apply for undefined_function_apart to answer: past
// them it answers false (each application is looked up among them).
constexpr std::size_t kMaxUndefinedNames = 64;

// The names a tree applies as functions outside the function table, with how many times, and
// the names it holds as symbols (sorted, without repeats).
struct Names {
  std::vector<std::pair<std::string_view, std::size_t>> undefined;
  std::vector<std::string_view> symbols;
  bool too_many = false;

  // An application that an inequality bounds ("0 < f(x) < 1") is the name of what the condition
  // constrains: math-verify reads such a chain as the interval (0, 1), and it counts as a symbol.
  explicit Names(const expr::Ast& ast) {
    std::vector<std::pair<std::uint32_t, bool>> pending{{ast.root, false}};
    while (!pending.empty()) {
      const auto [i, bounded] = pending.back();
      pending.pop_back();
      const expr::Node& n = ast.at(i);
      const bool undefined_call = n.kind == expr::Kind::kFunc && rapidgrade::detail::find_function(n.text) == nullptr;
      if (n.kind == expr::Kind::kSymbol || (undefined_call && bounded)) {
        symbols.push_back(n.text);
      } else if (undefined_call) {
        auto it = std::find_if(undefined.begin(), undefined.end(), [&](const auto& u) { return u.first == n.text; });
        if (it != undefined.end()) {
          ++it->second;
        } else if (undefined.size() < kMaxUndefinedNames) {
          undefined.emplace_back(n.text, 1);
        } else {
          too_many = true;
        }
      }
      const bool condition = n.kind == expr::Kind::kRelation && n.text.find_first_not_of('=') != std::string::npos;
      for (const std::uint32_t k : n.kids) pending.emplace_back(k, condition);
    }
    std::sort(symbols.begin(), symbols.end());
    symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
  }

  bool holds_symbol(std::string_view name) const { return std::binary_search(symbols.begin(), symbols.end(), name); }

  bool names(std::string_view name) const {
    return holds_symbol(name) || std::find_if(undefined.begin(), undefined.end(),
                                              [&](const auto& u) { return u.first == name; }) != undefined.end();
  }
};

bool applies_apart(const Names& own, const Names& other) {
  for (const auto& [name, count] : own.undefined) {
    if (count == 1 && !other.names(name) && !own.holds_symbol(name)) return true;
  }
  return false;
}

}  // namespace

bool undefined_function_apart(const expr::Ast& a, const expr::Ast& b) {
  const Names na(a), nb(b);
  if (na.too_many || nb.too_many) return false;
  return applies_apart(na, nb) || applies_apart(nb, na);
}

}  // namespace rapidgrade::equiv
