// The canonical form of a constant tree, for values too large to compare by value: two trees
// with one canonical form have one value, whatever their written forms ("10000000000!" and
// "(10^{10})!", "(10^{10})! + 1" and "1 + (10^{10})!"). The form is built bottom-up from three
// rewrites that keep the value:
//
//   (a) a subtree whose value is an exact rational within the core's exact arithmetic
//       (expr::exact_value: checked 128-bit) is that rational: "10^{10}" and "10000000000" are
//       one leaf, and so are "5.000" and "5" (a literal past 128 bits is its significant digits
//       and decimal exponent: "1e50" is "100...0");
//   (b) sums and products are n-ary, flattened and their operands ordered, with their exact
//       operands folded into one (dropped when it is 0 in a sum, 1 in a product); -x is
//       (-1)*x and a/b is a*b^(-1);
//   (c) every form is interned (hash-consed) in one table for both trees: its id stands for
//       it, operands are ordered by id, and two trees have one form exactly when their roots
//       have one id.
//
// One-way: different forms may have one value ("(10^{40})!/(10^{40}-1)!" and "10^{40}"), so a
// difference decides nothing. Only scalar trees have a form (sets, matrices, relations and
// text do not: a product of matrices does not commute). No recursion: an explicit stack; the
// work (stack pushes plus the bytes of every key interned) is capped by the caller, and one
// sum or product holds at most kMaxOperands operands.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "equiv_internal.hpp"

namespace rapidgrade::equiv::detail {
namespace {

// Operands of one flattened sum or product: past this (a shared subtree flattened once per
// use can double at every level) the tree has no form. The work cap bounds them too; this
// keeps one list's sort small.
constexpr std::size_t kMaxOperands = std::size_t{1} << 16;
// Digits of a literal's exponent read: a longer one ("1e123456789012345678901") keeps its text.
constexpr std::size_t kMaxExponentDigits = 15;

bool has_form(Kind k) {
  switch (k) {
    case Kind::kTuple:
    case Kind::kSet:
    case Kind::kInterval:
    case Kind::kUnion:
    case Kind::kMatrix:
    case Kind::kRelation:
    case Kind::kText:
    case Kind::kPlusMinus: return false;
    default: return true;
  }
}

class Canonizer {
 public:
  explicit Canonizer(std::size_t max_work) : left_(max_work) {}

  /// The id of r's canonical form, or nullopt when it has none (a structure inside, or the
  /// work or operand cap reached).
  std::optional<std::uint32_t> form(Ref r) {
    std::unordered_map<std::uint32_t, std::uint32_t> done;  // node -> id, for this tree
    std::vector<std::uint32_t> pending{r.i};
    std::vector<std::uint32_t> kids;
    while (!pending.empty()) {
      const std::uint32_t i = pending.back();
      if (done.count(i) != 0) {
        pending.pop_back();
        continue;
      }
      const Node& n = r.ast->at(i);
      if (!has_form(n.kind)) return std::nullopt;
      bool ready = true;
      for (const std::uint32_t k : n.kids) {
        if (done.count(k) != 0) continue;
        if (!spend(1)) return std::nullopt;
        pending.push_back(k);
        ready = false;
      }
      if (!ready) continue;
      pending.pop_back();
      kids.clear();
      for (const std::uint32_t k : n.kids) kids.push_back(done[k]);
      const std::optional<std::uint32_t> id = make(n, kids);
      if (!id) return std::nullopt;
      done.emplace(i, *id);
    }
    return done[r.i];
  }

  std::size_t used(std::size_t max_work) const { return max_work - left_; }

 private:
  struct Form {
    Kind kind;
    std::vector<std::uint32_t> kids;
    std::optional<Rational> value;  // an exact leaf
  };
  std::vector<Form> forms_;
  std::unordered_map<std::string, std::uint32_t> ids_;  // a form's key -> its id
  std::size_t left_;
  Ast scratch_;  // a node over exact leaves, for exact_value

  bool spend(std::size_t units) {
    if (units > left_) {
      left_ = 0;
      return false;
    }
    left_ -= units;
    return true;
  }

  /// The id of the form (kind, flags, extra, text, kids), interned; nullopt past the work cap.
  std::optional<std::uint32_t> intern(Kind kind, std::uint8_t flags, std::uint32_t extra, std::string_view text,
                                      const std::vector<std::uint32_t>& kids,
                                      std::optional<Rational> value = std::nullopt) {
    std::string key;
    key.reserve(8 + text.size() + 4 * kids.size());
    key.push_back(static_cast<char>(kind));
    key.push_back(static_cast<char>(flags));
    key.append(reinterpret_cast<const char*>(&extra), sizeof extra);
    const std::uint64_t length = text.size();  // the text's end is known: no text is a prefix of another key's
    key.append(reinterpret_cast<const char*>(&length), sizeof length);
    key.append(text.data(), text.size());
    for (const std::uint32_t k : kids) key.append(reinterpret_cast<const char*>(&k), sizeof k);
    if (!spend(key.size())) return std::nullopt;
    const auto [at, added] = ids_.try_emplace(std::move(key), static_cast<std::uint32_t>(forms_.size()));
    if (added) forms_.push_back(Form{kind, kids, value});
    return at->second;
  }

  /// The leaf of an exact value: its lowest terms are its key.
  std::optional<std::uint32_t> exact(const Rational& v) { return intern(Kind::kNumber, 0, 0, v.to_string(), {}, v); }

  /// A leaf of scratch_ with value v: "n", "n/d", "-(n/d)".
  std::uint32_t scratch_leaf(const Rational& v) {
    std::uint32_t i = scratch_.add_leaf(Kind::kNumber, Rational{v.num < 0 ? -v.num : v.num, 1}.to_string());
    if (v.den != 1) {
      Node d;
      d.kind = Kind::kDiv;
      d.kids = {i, scratch_.add_leaf(Kind::kNumber, Rational{v.den, 1}.to_string())};
      i = scratch_.add(std::move(d));
    }
    if (v.num < 0) {
      Node neg;
      neg.kind = Kind::kNeg;
      neg.kids = {i};
      i = scratch_.add(std::move(neg));
    }
    return i;
  }

  /// The exact value of a node shaped as `shape` over operands of exact values `ids`, by the
  /// rules of expr::exact_value; nullopt where they give none.
  std::optional<Rational> fold(Kind kind, const Node& shape, const std::vector<std::uint32_t>& ids) {
    if (!spend(8 * (ids.size() + 1))) return std::nullopt;
    scratch_.nodes.clear();
    Node n;
    n.kind = kind;
    n.flags = shape.flags;
    n.extra = shape.extra;
    n.text = shape.text;
    for (const std::uint32_t id : ids) n.kids.push_back(scratch_leaf(*forms_[id].value));
    scratch_.root = scratch_.add(std::move(n));
    return exact_value(scratch_, scratch_.root);
  }

  bool all_exact(const std::vector<std::uint32_t>& ids) const {
    return std::all_of(ids.begin(), ids.end(), [this](std::uint32_t id) { return forms_[id].value.has_value(); });
  }

  /// A literal: its exact value, else its significant digits and decimal exponent ("1.50e3" is
  /// "15e2"; "0.00" is 0), else (an exponent past kMaxExponentDigits) its text.
  std::optional<std::uint32_t> literal(const std::string& t) {
    if (!spend(t.size())) return std::nullopt;
    if (const auto v = parse_decimal(t)) return exact(*v);
    const std::size_t e = std::min(t.find_first_of("eE"), t.size());
    std::string digits;
    long long power = 0;
    bool point = false;
    for (std::size_t k = 0; k < e; ++k) {
      const char c = t[k];
      if (c == '.') {
        point = true;
      } else if (c >= '0' && c <= '9') {
        if (!(digits.empty() && c == '0')) digits.push_back(c);
        if (point) --power;
      } else {
        return intern(Kind::kNumber, 1, 0, t, {});  // not a decimal literal: kept as written
      }
    }
    if (e < t.size()) {
      std::size_t k = e + 1;
      bool negative = false;
      if (k < t.size() && (t[k] == '-' || t[k] == '+')) negative = t[k++] == '-';
      if (k == t.size() || t.size() - k > kMaxExponentDigits) return intern(Kind::kNumber, 1, 0, t, {});
      long long exp10 = 0;
      for (; k < t.size(); ++k) {
        if (t[k] < '0' || t[k] > '9') return intern(Kind::kNumber, 1, 0, t, {});
        exp10 = exp10 * 10 + (t[k] - '0');
      }
      power += negative ? -exp10 : exp10;
    }
    if (digits.empty()) return exact(Rational{0, 1});
    while (digits.back() == '0') {
      digits.pop_back();
      ++power;
    }
    digits += 'e';
    digits += std::to_string(power);
    if (const auto v = parse_decimal(digits)) return exact(*v);  // "5.000...0" past 128 bits of digits
    return intern(Kind::kNumber, 2, 0, digits, {});
  }

  /// The form of a sum or product of the forms `operands`: flattened, its exact operands
  /// folded into one, ordered.
  std::optional<std::uint32_t> nary(Kind kind, const Node& shape, const std::vector<std::uint32_t>& operands) {
    std::vector<std::uint32_t> ops, constants;
    for (const std::uint32_t id : operands) {
      const Form& f = forms_[id];
      const bool splice = f.kind == kind && !f.value;  // a sum in a sum, a product in a product
      const std::size_t count = splice ? f.kids.size() : 1;
      if (ops.size() + constants.size() + count > kMaxOperands || !spend(count)) return std::nullopt;
      if (!splice) {
        (f.value ? constants : ops).push_back(id);
        continue;
      }
      for (const std::uint32_t k : f.kids) (forms_[k].value ? constants : ops).push_back(k);
    }
    if (constants.size() > 1) {
      if (const auto v = fold(kind, shape, constants)) {
        const auto id = exact(*v);
        if (!id) return std::nullopt;
        constants.assign(1, *id);
      }
    }
    if (constants.size() == 1 && !ops.empty()) {
      const Rational& c = *forms_[constants[0]].value;
      const bool identity = c.den == 1 && c.num == (kind == Kind::kAdd ? 0 : 1);
      if (identity) constants.clear();
    }
    ops.insert(ops.end(), constants.begin(), constants.end());
    if (ops.empty()) return exact(Rational{kind == Kind::kAdd ? 0 : 1, 1});
    if (ops.size() == 1) return ops[0];
    std::sort(ops.begin(), ops.end());
    return intern(kind, 0, 0, {}, ops);
  }

  std::optional<std::uint32_t> make(const Node& n, const std::vector<std::uint32_t>& kids) {
    switch (n.kind) {
      case Kind::kNumber: return literal(n.text);
      case Kind::kAdd:
      case Kind::kMul: return nary(n.kind, n, kids);
      default: break;
    }
    if (!kids.empty() && all_exact(kids)) {
      if (const auto v = fold(n.kind, n, kids)) return exact(*v);
    }
    const Node plain;  // the shape of a rewritten node: no flags, extra or text
    if (n.kind == Kind::kNeg) {
      const auto minus_one = exact(Rational{-1, 1});
      if (!minus_one) return std::nullopt;
      return nary(Kind::kMul, plain, {*minus_one, kids[0]});
    }
    if (n.kind == Kind::kDiv) {
      const auto minus_one = exact(Rational{-1, 1});
      if (!minus_one) return std::nullopt;
      std::optional<std::uint32_t> inverse;
      const std::vector<std::uint32_t> power{kids[1], *minus_one};
      if (forms_[kids[1]].value) {
        if (const auto v = fold(Kind::kPow, plain, power)) inverse = exact(*v);
      }
      if (!inverse) inverse = intern(Kind::kPow, 0, 0, {}, power);
      if (!inverse) return std::nullopt;
      return nary(Kind::kMul, plain, {kids[0], *inverse});
    }
    if (n.kind == Kind::kPow && kids.size() == 2) return power(kids[0], kids[1]);
    return intern(n.kind, n.flags, n.extra, n.text, kids);
  }

  /// The form of base^exponent, with its base as small as it can be: an integer base that is a
  /// perfect power p^k is p with k in the exponent ("4^{2^{99}}" is "2^{2 \cdot 2^{99}}", so
  /// "2^{2^{100}}"), and a power of a positive exact base raised again multiplies the exponents
  /// ("(2^{3})^{x}" is "2^{3x}"); both keep the value for a positive base.
  std::optional<std::uint32_t> power(std::uint32_t base, std::uint32_t exponent) {
    const Node plain;
    const Form& b = forms_[base];
    if (!b.value && b.kind == Kind::kPow && b.kids.size() == 2) {
      const std::optional<Rational>& inner = forms_[b.kids[0]].value;
      if (inner && inner->num > 0) {
        const std::uint32_t inner_base = b.kids[0], inner_exponent = b.kids[1];
        const auto product = nary(Kind::kMul, plain, {inner_exponent, exponent});
        if (!product) return std::nullopt;
        base = inner_base;
        exponent = *product;
      }
    }
    if (const std::optional<Rational>& v = forms_[base].value; v && v->den == 1 && v->num > 1) {
      Int root = 0;
      const int k = largest_root(v->num, root);
      if (k > 1) {
        const auto p = exact(Rational{root, 1});
        const auto times = exact(Rational{k, 1});
        if (!p || !times) return std::nullopt;
        const auto product = nary(Kind::kMul, plain, {*times, exponent});
        if (!product) return std::nullopt;
        base = *p;
        exponent = *product;
      }
    }
    return intern(Kind::kPow, 0, 0, {}, {base, exponent});
  }

  /// The largest k > 1 with n = r^k for an integer r (written to `root`), or 1. At most 126
  /// candidate exponents; for each, the root is searched exactly by bisection around the double
  /// estimate (within its relative error), a few tens of steps: a loop over doubles would not
  /// advance past 2^53.
  int largest_root(Int n, Int& root) {
    constexpr int kMaxExponent = 126;  // 2^127 is past the range
    if (!spend(kMaxExponent)) return 1;
    const double x = static_cast<double>(n);
    for (int k = kMaxExponent; k > 1; --k) {
      const double guess = std::round(std::pow(x, 1.0 / k));
      if (guess < 2) continue;
      Int lo = std::max<Int>(2, static_cast<Int>(guess * (1 - 1e-12)) - 2);
      Int hi = static_cast<Int>(guess * (1 + 1e-12)) + 2;
      while (lo <= hi) {
        const Int mid = lo + (hi - lo) / 2;
        const int c = compare_power(mid, k, n);
        if (c == 0) {
          root = mid;
          return k;
        }
        if (c < 0) {
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
    }
    return 1;
  }

  /// r^k against n (r >= 2, k >= 1, n >= 1): -1 below, 0 equal, 1 above; exact, stopping once
  /// the power passes n.
  static int compare_power(Int r, int k, Int n) noexcept {
    Int value = 1;
    for (int j = 0; j < k; ++j) {
      if (value > n / r) return 1;  // value * r would pass n
      value *= r;
    }
    return value == n ? 0 : (value < n ? -1 : 1);
  }
};

}  // namespace

bool same_canonical_form(Ref a, Ref b, std::size_t max_work, std::size_t& used) {
  Canonizer c(max_work);
  bool same = false;
  try {
    const std::optional<std::uint32_t> fa = c.form(a);
    const std::optional<std::uint32_t> fb = fa ? c.form(b) : std::nullopt;
    same = fa && fb && *fa == *fb;
  } catch (const ParseError&) {
    same = false;  // not reached: a scratch node is four levels deep at most
  }
  used = c.used(max_work);
  return same;
}

constexpr std::uint32_t kNoParent = UINT32_MAX;  // expand_plus_minus's parent of the root

// Rewrites a \pm b into the two values a+b and a-b: the tree, or each element of a top-level
// set, that holds one \pm becomes two, with the nodes from it up to the tree's (the element's)
// root copied (equiv_internal.hpp says more). No recursion.
bool expand_plus_minus(Ast& ast) {
  const std::size_t n = ast.nodes.size();
  std::vector<std::uint32_t> parent(n, kNoParent);
  bool any = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    any = any || ast.nodes[i].kind == Kind::kPlusMinus;
    for (const std::uint32_t kid : ast.nodes[i].kids) {
      if (kid < n) parent[kid] = i;
    }
  }
  if (!any) return false;
  const Node root = ast.nodes[ast.root];
  // the trees that expand apart: the elements of a top-level set, or the whole tree
  const std::vector<std::uint32_t> tops = root.kind == Kind::kSet
                                              ? std::vector<std::uint32_t>(root.kids.begin(), root.kids.end())
                                              : std::vector<std::uint32_t>{ast.root};
  // the one \pm of each top (kNoParent: none); a node's top is found by walking up from it
  std::vector<std::uint32_t> pm_of(tops.size(), kNoParent);
  bool held = false;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (ast.nodes[i].kind != Kind::kPlusMinus) continue;
    std::uint32_t at = i;
    std::size_t steps = 0;
    while (parent[at] != kNoParent && (root.kind != Kind::kSet || parent[at] != ast.root)) {
      at = parent[at];
      if (++steps > n) return false;  // not a tree
    }
    std::size_t t = 0;
    while (t < tops.size() && tops[t] != at) ++t;
    if (t == tops.size()) continue;           // not in the tree the root holds
    if (pm_of[t] != kNoParent) return false;  // two in one tree: which goes with which is not said
    pm_of[t] = i;
    held = true;
  }
  if (!held) return false;
  std::vector<std::uint32_t> items;
  for (std::size_t t = 0; t < tops.size(); ++t) {
    const std::uint32_t pm = pm_of[t];
    if (pm == kNoParent) {
      items.push_back(tops[t]);
      continue;
    }
    const Node pair = ast.nodes[pm];
    Node neg;
    neg.kind = Kind::kNeg;
    neg.kids = {pair.kids[1]};
    const std::uint32_t negated = ast.add(neg);
    std::uint32_t values[2] = {pair.kids[1], negated};
    if (!(ast.nodes[pair.kids[0]].kind == Kind::kNumber && ast.nodes[pair.kids[0]].text == "0")) {
      Node plus;
      plus.kind = Kind::kAdd;
      plus.kids = {pair.kids[0], pair.kids[1]};
      Node minus;
      minus.kind = Kind::kAdd;
      minus.kids = {pair.kids[0], negated};
      values[0] = ast.add(plus);
      values[1] = ast.add(minus);
    }
    for (std::uint32_t value : values) {
      for (std::uint32_t below = pm; below != tops[t];) {
        const std::uint32_t at = parent[below];
        Node copy = ast.nodes[at];
        for (std::uint32_t& kid : copy.kids) {
          if (kid == below) kid = value;
        }
        below = at;
        value = ast.add(copy);
      }
      items.push_back(value);
    }
  }
  Node set;
  set.kind = Kind::kSet;
  set.kids = std::move(items);
  ast.root = ast.add(set);
  return true;
}

}  // namespace rapidgrade::equiv::detail
