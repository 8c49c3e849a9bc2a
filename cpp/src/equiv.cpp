// Three-valued equivalence of two answers: exact rationals, seeded numeric identity testing,
// and structural rules for tuples, sets, intervals, unions, matrices and relations. This file
// holds the comparison of two trees (one Comparer per call, its work bounded by
// Options::work_budget and kMaxComparisons); the numbers it compares, sample points and the
// values of constant trees, are equiv_numeric.cpp's (equiv_internal.hpp).
#include "rapidgrade/equiv.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "equiv_internal.hpp"
#include "expr_kernels.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/number_words.hpp"
#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::equiv {
namespace {

using namespace expr;
using namespace equiv::detail;
using expr::detail::magnitude;

// The ranges of sample points a side is evaluated in, a range at a time: the real points, then
// the complex ones.
constexpr std::array<std::pair<std::size_t, std::size_t>, 2> kRanges{{{0, kReal}, {kReal, kPoints}}};

// A side (a subtree) at the sample points of one list of variables: compiled once and
// evaluated a range of points at a time, for its values alone or with their bounds and flags
// (each point's value, bound and flag are the same whatever range it is evaluated in, and
// with or without the bounds), so that a comparison can stop at the first range where the
// sides clearly differ. Kept in its tree's facts: a gold's sides are evaluated once for all
// the answers compared with it.
struct Side {
  std::uint32_t node = 0;
  std::vector<std::string> vars;  // the points' variables (owned: some may be the other tree's)
  Program prog;
  bool may_flag = false;  // may_flag_near_cut(prog)
  Eval e;
  std::array<unsigned char, kRanges.size()> done{};  // per range: 0 nothing, 1 values, 2 bounds too

  Side(Ref r, const Points& pts)
      : node(r.i), vars(pts.vars.begin(), pts.vars.end()), prog(compile(*r.ast, r.i, pts.vars)) {
    e.evaluable = prog.evaluable && prog.sampling_decides && prog.vars.size() == pts.vars.size();
    e.analytic = prog.analytic;
    e.continuous = prog.continuous;
    may_flag = may_flag_near_cut(prog);
  }

  /// Whether this is the side of `r` at points `pts`.
  bool is(Ref r, const Points& pts) const {
    if (node != r.i || vars.size() != pts.vars.size()) return false;
    for (std::size_t k = 0; k < vars.size(); ++k)
      if (vars[k] != pts.vars[k]) return false;
    return true;
  }

  /// Evaluates range `range` of `pts` (the points it was made for), with the bounds and flags
  /// when `bounds`, unless it was already.
  void run(const Points& pts, std::size_t range, bool bounds) {
    const unsigned char want = bounds ? 2 : 1;
    if (!e.evaluable || done[range] >= want) return;
    const auto [begin, end] = kRanges[range];
    std::vector<const C*> at(pts.values.size());
    for (std::size_t k = 0; k < at.size(); ++k) at[k] = pts.values[k] != nullptr ? pts.values[k] + begin : nullptr;
    if (bounds) {
      run_bounded(prog, at, end - begin, e.v.data() + begin, e.err.data() + begin, e.near_cut.data() + begin);
    } else {
      expr::run_values(prog, at, end - begin, e.v.data() + begin);
    }
    done[range] = want;
  }

  /// Every point, with its bound and flag.
  const Eval& all(const Points& pts) {
    for (std::size_t range = 0; range < kRanges.size(); ++range) run(pts, range, true);
    return e;
  }
};

// ---------------------------------------------------------------------------------------------

// Kleene's conjunction and disjunction: a list of verdicts folded with both() from kTrue is
// kFalse when one is, else kUnknown when one is, else kTrue; folded with either() from kFalse,
// the same with kTrue and kFalse swapped. No list is built.
constexpr Tri both(Tri a, Tri b) noexcept {
  if (a == Tri::kFalse || b == Tri::kFalse) return Tri::kFalse;
  return a == Tri::kUnknown || b == Tri::kUnknown ? Tri::kUnknown : Tri::kTrue;
}
constexpr Tri either(Tri a, Tri b) noexcept {
  if (a == Tri::kTrue || b == Tri::kTrue) return Tri::kTrue;
  return a == Tri::kUnknown || b == Tri::kUnknown ? Tri::kUnknown : Tri::kFalse;
}

/// A gap between two computed values that rounding cannot explain.
bool clearly_different(double gap, double magnitude, double error_bound) {
  return gap > kClear * error_bound && gap > kClearRel * magnitude;
}

// What is computed once per tree compared, node by node: subtree sizes (node counts, all in
// one pass on first need; 0 until then) and where in the tree's pool of values the candidate
// values of a constant node are (count 0 until computed: a node has at least one). None of it
// depends on the other tree, so a gold's can be kept for its next answer (TreeFacts).
struct NodeFacts {
  std::size_t size = 0;
  std::uint32_t first = 0;  // index of the first candidate in Tree::values
  std::uint32_t count = 0;  // 0: not computed yet (every node has at least one)
};
struct Tree {
  const Ast* ast;
  std::vector<NodeFacts> nodes;
  std::vector<Val> values;                   // the candidate values of every node computed, in one pool
  std::vector<std::unique_ptr<Side>> sides;  // its subtrees evaluated at sample points (kMaxSides)
};

// Sides a tree keeps (a gold compared with answers in other variables, or element by element):
// past them a side is evaluated for one comparison only. A side takes about 1 KB, so a gold
// cache of GoldCache::kMaxEntries golds holds at most a few tens of MB of them.
constexpr std::size_t kMaxSides = 8;

class Comparer {
 public:
  /// `shared`: a tree's facts from earlier comparisons, used for that tree (shared->ast) and
  /// added to; may be null.
  Comparer(const Options& o, Tree* shared) : o_(o), shared_(shared) {}

  /// The limit behind the last UNKNOWN, if one was reached.
  Limit limit() const { return limit_; }

  Tri tri(Ref g, Ref p) {
    // nested sets compare element by element at every level: bound the total work
    if (budget_ == 0) return Tri::kUnknown;
    --budget_;
    if (!spend(1)) return Tri::kUnknown;
    const Node& G = g.node();
    const Node& P = p.node();
    if (G.kind == Kind::kText || P.kind == Kind::kText) {
      if (G.kind == Kind::kText && P.kind == Kind::kText) return G.text == P.text ? Tri::kTrue : Tri::kFalse;
      // words alone against a number ("I do not know" against 12), or against a list of numbers
      // ("a Python list with the following elements:" against [2014, 2016]), are different
      // answers; text with digits may be math read as words ("S_{ABC}:S=7:32", "\int_0^1 x
      // dx"), and words against an expression in symbols or a set they may name ("all real
      // numbers", "the empty set", "none"): UNKNOWN
      Ref other = G.kind == Kind::kText ? p : g;
      const std::string& words = (G.kind == Kind::kText ? G : P).text;
      const bool digits = std::any_of(words.begin(), words.end(), rapidgrade::detail::is_digit) ||
                          rapidgrade::detail::holds_number_word(words);  // "twelve apples"
      if (!digits && !has_symbols(other) && numbers(other)) return Tri::kFalse;
      // against an expression in unknowns ("\binom{2n}{n}", "x^2"): words may say it ("n
      // squared"), and no reader of the fallback reads them so (Limit::kWords)
      if (!digits && other.node().kind != Kind::kRelation && !is_structure(other.node().kind) && has_symbols(other)) {
        limit_ = Limit::kWords;
      }
      return Tri::kUnknown;
    }
    const bool g_empty = G.kind == Kind::kSet && G.kids.empty(), p_empty = P.kind == Kind::kSet && P.kids.empty();
    if (g_empty || p_empty) {  // the empty set: another set has elements, a number is none
      if (g_empty && p_empty) return Tri::kTrue;
      const Ref other = g_empty ? p : g;
      if (other.node().kind == Kind::kSet || (numbers(other) && !has_symbols(other))) return Tri::kFalse;
      return Tri::kUnknown;  // a condition may have no solution, an interval no point
    }
    if (G.kind == Kind::kRelation || P.kind == Kind::kRelation) return relation(g, p);
    if (G.kind == Kind::kSet && G.kids.size() == 1 && !is_structure(P.kind)) return tri(g.kid(0), p);
    if (P.kind == Kind::kSet && P.kids.size() == 1 && !is_structure(G.kind)) return tri(g, p.kid(0));
    const bool gs = is_structure(G.kind), ps = is_structure(P.kind);
    if (gs || ps) {
      if (gs && ps) return structures(g, p);
      // a set whose elements all are the value is that value: {a, a} is {a} ("3/4 or 0.75"), and
      // so are assignments of it ("\angle A = 90, \angle B = 90" against 90)
      const Ref set = gs ? g : p;
      if (set.node().kind == Kind::kSet) {
        bool all = true;
        for (std::size_t k = 0; k < set.node().kids.size() && all; ++k) {
          const Ref kid = set.kid(k);
          const Node& e = kid.node();
          const bool assignment =
              e.kind == Kind::kRelation && e.text == "=" && e.kids.size() == 2 && is_assignment_lhs(kid.kid(0));
          all = (!is_structure(e.kind) || assignment) && (gs ? tri(g.kid(k), p) : tri(g, p.kid(k))) == Tri::kTrue;
        }
        if (all) return Tri::kTrue;
      }
      // a number against a tuple, interval, matrix or a set of several elements
      Ref scalar = gs ? p : g;
      if (!spend(size(scalar))) return Tri::kUnknown;
      Program prog = compile(*scalar.ast, scalar.i);
      return prog.evaluable ? Tri::kFalse : Tri::kUnknown;
    }
    return scalar(g, p);
  }

 private:
  Options o_;
  std::size_t budget_ = kMaxComparisons;
  std::size_t work_ = 0;  // counted operations spent, against o_.work_budget
  Limit limit_ = Limit::kNone;
  std::vector<Tree> trees_;                           // the trees compared but the one of shared_
  Tree* shared_ = nullptr;                            // a tree's facts kept from one comparison to the next (TreeFacts)
  std::vector<std::unique_ptr<Side>> passing_sides_;  // sides past a tree's kMaxSides
  // trees of definitions renamed (renamed_definition), alive as long as the facts of trees_ about
  // them; kMaxRenamed at most, as each is a copy of a whole tree
  static constexpr std::size_t kMaxRenamed = 4;
  std::vector<std::unique_ptr<Ast>> renamed_;

  /// The table of r's tree, made on first use. A reference into it stays valid while the
  /// Comparer lives: moving a Tree (trees_ growing) keeps its vectors' buffers.
  Tree& tree(Ref r) {
    if (shared_ != nullptr && shared_->ast == r.ast) return *shared_;
    for (Tree& t : trees_)
      if (t.ast == r.ast) return t;
    if (trees_.empty()) trees_.reserve(4);  // the gold's and the answer's, and a few derived
    trees_.push_back(Tree{r.ast, std::vector<NodeFacts>(r.ast->nodes.size()), {}, {}});
    return trees_.back();
  }

  /// r at the points `pts`, compiled on first need and kept with its tree (the reference stays
  /// valid while the Comparer lives).
  Side& side(Ref r, const Points& pts) {
    Tree& t = tree(r);
    for (const std::unique_ptr<Side>& s : t.sides)
      if (s->is(r, pts)) return *s;
    std::vector<std::unique_ptr<Side>>& into = t.sides.size() < kMaxSides ? t.sides : passing_sides_;
    into.push_back(std::make_unique<Side>(r, pts));
    return *into.back();
  }

  /// Takes `units` from the work budget; false (and Limit::kWork) when they are not left.
  bool spend(std::size_t units) {
    if (units > o_.work_budget - work_) {
      work_ = o_.work_budget;
      limit_ = Limit::kWork;
      return false;
    }
    work_ += units;
    return true;
  }

  std::size_t size(Ref r) {
    std::vector<NodeFacts>& facts = tree(r).nodes;
    if (facts[r.i].size == 0) {
      constexpr std::size_t kCap = std::size_t{1} << 40;  // a shared subtree is counted per use
      for (NodeFacts& f : facts) f.size = 1;
      for (std::size_t i = 0; i < facts.size(); ++i)  // children come before their parents
        for (std::uint32_t k : r.ast->nodes[i].kids) facts[i].size = std::min(kCap, facts[i].size + facts[k].size);
    }
    return facts[r.i].size;
  }

  /// Cost of evaluating two sides of `nodes` nodes in all at every sample point, with their
  /// compilation, symbol sets and structural walks.
  static std::size_t evaluation_cost(std::size_t nodes) { return (2 * kPoints + 8) * nodes; }

  // ---- scalars

  Tri scalar(Ref g, Ref p) {
    const Node& G = g.node();
    const Node& P = p.node();
    if (G.kind == Kind::kPercent && P.kind == Kind::kPercent) return scalar(g.kid(0), p.kid(0));
    if (G.kind == Kind::kDegree && P.kind == Kind::kDegree) return scalar(g.kid(0), p.kid(0));
    const std::size_t nodes = size(g) + size(p);
    if (!spend(2 * nodes)) return Tri::kUnknown;
    // an expression equals itself, whether or not it can be evaluated: "-\sin(x)" as an entry
    // of both matrices is not sampled, "f(x)" and "0.33" are not left undecided
    if (same_tree(g, p)) return Tri::kTrue;
    const bool g_const = !has_symbols(g);  // free_symbols(g).empty(), without the strings
    const bool p_const = !has_symbols(p);
    if (!g_const || !p_const) {
      if (!spend(evaluation_cost(nodes))) return Tri::kUnknown;
      return functions(g, p);
    }
    if (!spend(8 * nodes)) return Tri::kUnknown;
    const NodeFacts gv = candidates(g);
    const NodeFacts pv = candidates(p);
    // neither beyond_doubles() nor values() adds to a pool: the references they get hold
    const std::vector<Val>& gvals = tree(g).values;
    const std::vector<Val>& pvals = tree(p).values;
    if (gv.count == 1 && pv.count == 1) {
      if (const auto t = beyond_doubles(g, p, gvals[gv.first], pvals[pv.first])) return *t;
    }
    Tri result = Tri::kFalse;
    for (std::uint32_t a = gv.first; a < gv.first + gv.count; ++a)
      for (std::uint32_t b = pv.first; b < pv.first + pv.count; ++b)
        result = either(result, values(gvals[a], pvals[b]));
    return result;
  }

  /// A value past the range of doubles on either side, above it (no exact value, no finite
  /// double) or below it (a positive tree whose double rounded to 0: "1/2004!"): different
  /// magnitudes (from logarithms) or signs are FALSE, two trees that print alike or have one
  /// canonical form (same_canonical_form: "(10^{10})!" and "10000000000!") are TRUE (the same
  /// tree never gets here: scalar() has found it first), anything else UNKNOWN, with
  /// Limit::kMagnitude when a side is above the range (exact arithmetic there may not end);
  /// constants with no value at all: UNKNOWN, Limit::kNoValue against a value; nullopt when
  /// neither side is such a value.
  std::optional<Tri> beyond_doubles(Ref g, Ref p, const Val& a, const Val& b) {
    const bool a_tiny = below_doubles(g, a), b_tiny = below_doubles(p, b);
    auto huge = [](const Val& v) { return v.inf == 0 && !v.exact && (!v.evaluable || !finite(v.num)); };
    if (!huge(a) && !huge(b) && !a_tiny && !b_tiny) return std::nullopt;
    auto log_abs = [](Ref r, const Val& v, bool is_tiny) -> std::optional<double> {
      if (v.exact) return std::log(std::abs(v.exact->to_double()));  // beyond 1e308 is inf: not decided
      if (!is_tiny && v.evaluable && finite(v.num) && v.err <= 1e-6 * magnitude(v.num))
        return std::log(magnitude(v.num));
      return signed_log_magnitude(r);
    };
    const auto la = log_abs(g, a, a_tiny), lb = log_abs(p, b, b_tiny);
    // a constant that cannot be evaluated and has no magnitude either has no value ("f(0)",
    // words): against a number that has one, no proof can make them equal
    const bool a_none = !a.evaluable && !la, b_none = !b.evaluable && !lb;
    if (a_none || b_none) {
      if (a_none != b_none && (a_none ? b : a).evaluable) limit_ = Limit::kNoValue;
      return Tri::kUnknown;
    }
    if (la && lb && (std::isinf(*la) || std::isinf(*lb)) && !std::isnan(*la) && !std::isnan(*lb) && *la != *lb) {
      return Tri::kFalse;  // a magnitude past any double's logarithm (or zero) against another
    }
    if (la && lb && std::isfinite(*la) && std::isfinite(*lb)) {
      const double gap = std::fabs(*la - *lb);
      if (gap > 1e-6 + 1e-9 * std::max(std::fabs(*la), std::fabs(*lb))) return Tri::kFalse;
      const int sa = value_sign(g, a), sb = value_sign(p, b);  // where both trees give one
      if (sa != 0 && sb != 0 && sa != sb) return Tri::kFalse;
    }
    if (to_string(*g.ast, g.i) == to_string(*p.ast, p.i)) return Tri::kTrue;
    // the work left in the budget at most; a form not built in it leaves the limit as it is
    std::size_t used = 0;
    const bool same = same_canonical_form(g, p, o_.work_budget - work_, used);
    work_ += used;
    if (same) return Tri::kTrue;
    // past the top of the range, exact arithmetic may not end ("(10^{10})!"): a limit; below it
    // only (1/2004! against 2005/2005!), the fallback's exact arithmetic can decide
    if (huge(a) || huge(b)) limit_ = Limit::kMagnitude;
    return Tri::kUnknown;
  }

  /// Where in its tree's pool the values r may stand for are (see add_candidates), computed
  /// once per node of each tree (an element of a set is compared with every element of the
  /// other set).
  NodeFacts candidates(Ref r) {
    Tree& t = tree(r);
    NodeFacts& facts = t.nodes[r.i];
    if (facts.count == 0) {
      facts.first = static_cast<std::uint32_t>(t.values.size());
      if (t.values.capacity() == 0) t.values.reserve(4);
      add_candidates(r, t.values);
      facts.count = static_cast<std::uint32_t>(t.values.size() - facts.first);
    }
    return facts;
  }

  /// Appends to `out` the values an answer may stand for: p% is p/100 or p; x° is x or
  /// x*pi/180; anything else its value.
  static void add_candidates(Ref r, std::vector<Val>& out) {
    const Node& n = r.node();
    if (n.kind == Kind::kPercent) {
      Val inner = value(r.kid(0));
      out.push_back(scaled(inner, 1, 100, 2));
      out.push_back(std::move(inner));
    } else if (n.kind == Kind::kDegree) {
      Val inner = value(r.kid(0));
      out.push_back(inner);
      out.push_back(times_pi_over_180(inner));
    } else {
      out.push_back(value(r));
    }
  }

  Tri values(const Val& g, const Val& p) {
    if (g.inf || p.inf) {
      if (g.inf && p.inf) return g.inf == p.inf ? Tri::kTrue : Tri::kFalse;
      const Val& other = g.inf ? p : g;
      if (other.exact) return Tri::kFalse;
      return Tri::kUnknown;
    }
    if (!g.evaluable || !p.evaluable) return Tri::kUnknown;
    if (g.exact && p.exact && *g.exact == *p.exact) return Tri::kTrue;
    if (!finite(g.num) || !finite(p.num)) return Tri::kUnknown;
    if ((g.decimal || p.decimal) && g.num.imag() == 0 && p.num.imag() == 0) {
      const int r = o_.float_rounding >= 0 ? o_.float_rounding : (g.decimal ? g.places : 6);
      auto a = round_to(g, r), b = round_to(p, r);
      if (!a || !b) return Tri::kUnknown;
      return *a == *b ? Tri::kTrue : Tri::kFalse;
    }
    if (g.exact && p.exact) return Tri::kFalse;
    const double d = magnitude(g.num - p.num);
    const double m = std::max(magnitude(g.num), magnitude(p.num));
    if (d <= std::max(o_.abs_tol, o_.rel_tol * m)) {
      const bool exactness_lost = g.overflowed || p.overflowed;
      return (g.continuous && p.continuous && !exactness_lost) ? Tri::kTrue : Tri::kUnknown;
    }
    if (clearly_different(d, m, g.err + p.err) && !g.near_cut && !p.near_cut) return Tri::kFalse;
    return Tri::kUnknown;
  }

  Tri functions(Ref g, Ref p) {
    const Points pts = make_points(union_symbols(g, p));
    Side& sa = side(g, pts);
    Side& sb = side(p, pts);
    const Eval& a = sa.e;
    const Eval& b = sb.e;
    if (!a.evaluable || !b.evaluable) return differ_at_integers(sa, sb) ? Tri::kFalse : Tri::kUnknown;
    // Each point is equal (within tolerance), clearly different (beyond the rounding-error bound
    // of the largest intermediate value), or inconclusive (cancellation: cosh(20)^2 - sinh(20)^2
    // is 0 in doubles); poles, overflow and branch-cut noise make a point unusable. The real
    // points are evaluated first: different answers usually differ there, and the complex
    // points are then never computed.
    //
    // A point's bound matters only where the values differ, and its flag only for a multivalued
    // function: sides without one are evaluated for their values alone on the complex points
    // (where equal answers spend most of their time), and again with bounds if a point differs
    // there. Either way each point is judged on the same values, bounds and flags.
    const bool values_first = !sa.may_flag && !sb.may_flag;
    std::size_t equal = 0;
    for (std::size_t range = 0; range < kRanges.size(); ++range) {
      const auto [begin, end] = kRanges[range];
      bool bounded = !values_first || begin == 0;  // the real points first: differences show there
      sa.run(pts, range, bounded);
      sb.run(pts, range, bounded);
      const std::size_t equal_before = equal;
      for (std::size_t k = begin; k < end; ++k) {
        if (!finite(a.v[k]) || !finite(b.v[k]) || (bounded && (a.near_cut[k] || b.near_cut[k]))) continue;
        const double d = magnitude(a.v[k] - b.v[k]);
        const double m = std::max(magnitude(a.v[k]), magnitude(b.v[k]));
        if (d <= std::max(o_.abs_tol, o_.rel_tol * m)) {
          ++equal;
        } else if (!bounded) {
          // the bounds of this range, then its points again from the first
          sa.run(pts, range, true);
          sb.run(pts, range, true);
          bounded = true;
          equal = equal_before;
          k = begin - 1;
        } else if (clearly_different(d, m, a.err[k] + b.err[k])) {
          return Tri::kFalse;
        }
      }
    }
    if (equal >= kMinValid && a.analytic && b.analytic && !has_inexact_literal(g) && !has_inexact_literal(p) &&
        same_branches({g}, {p})) {
      return Tri::kTrue;
    }
    return Tri::kUnknown;
  }

  /// Sides that sampling cannot decide (Program::sampling_decides), disproved at integers
  /// (differ_at_integers) within the budget.
  bool differ_at_integers(const Side& sa, const Side& sb) {
    const Program& pa = sa.prog;
    const Program& pb = sb.prog;
    if (!pa.evaluable || !pb.evaluable || (pa.sampling_decides && pb.sampling_decides)) return false;
    if (!spend(kIntegerPoints * (pa.code.size() + pb.code.size() + sa.vars.size()))) return false;
    return detail::differ_at_integers(pa, pb, sa.vars.size());
  }

  /// Every multivalued function applied on one side is applied, to an equivalent argument,
  /// on the other. Then both sides are analytic functions of x and of the same branches
  /// s_i(x), and agreement on an open set carries over to every branch (analytic
  /// continuation); without it, sqrt(u^2) and u, or log(exp(u)) and u, agree on a region
  /// that the sample points may not leave.
  bool same_branches(const std::vector<Ref>& gs, const std::vector<Ref>& ps) {
    std::vector<CutApplication> a, b;
    for (Ref r : gs) collect_cuts(r, a);
    for (Ref r : ps) collect_cuts(r, b);
    if (a.empty() && b.empty()) return true;
    if (a.size() > 16 || b.size() > 16) return false;
    auto covered = [&](const std::vector<CutApplication>& xs, const std::vector<CutApplication>& ys, bool gold_first) {
      for (const auto& x : xs) {
        bool found = false;
        for (const auto& y : ys) {
          if (x.key != y.key) continue;
          const Tri t = gold_first ? tri(x.arg, y.arg) : tri(y.arg, x.arg);
          if (t == Tri::kTrue) {
            found = true;
            break;
          }
        }
        if (!found) return false;
      }
      return true;
    };
    return covered(a, b, true) && covered(b, a, false);
  }

  // ---- relations

  /// f_g / f_p is a nonzero constant (positive if `positive`) at every sample point.
  enum class Ratio { kConstant, kNegative, kVaries, kUnknown };
  Ratio proportional(Ref gl, Ref gr, Ref pl, Ref pr, bool positive) {
    std::vector<std::string_view> vars = union_symbols(gl, gr);
    std::vector<std::string_view> more = union_symbols(pl, pr);
    vars.insert(vars.end(), more.begin(), more.end());
    std::sort(vars.begin(), vars.end());
    vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    if (vars.empty()) return Ratio::kUnknown;
    if (!spend(evaluation_cost(size(gl) + size(gr) + size(pl) + size(pr)))) return Ratio::kUnknown;
    const Points pts = make_points(std::move(vars));
    const Eval f = difference(side(gl, pts).all(pts), side(gr, pts).all(pts));
    const Eval h = difference(side(pl, pts).all(pts), side(pr, pts).all(pts));
    if (!f.evaluable || !h.evaluable) return Ratio::kUnknown;
    std::size_t valid = 0;
    C ratio{0, 0};
    bool have = false;
    for (std::size_t k = 0; k < kPoints; ++k) {
      if (!finite(f.v[k]) || !finite(h.v[k]) || f.near_cut[k] || h.near_cut[k]) continue;
      // |f| within its error bound: zero as far as doubles can tell
      const bool fz = magnitude(f.v[k]) <= kClear * f.err[k], hz = magnitude(h.v[k]) <= kClear * h.err[k];
      if (fz || hz) continue;
      // ill-conditioned at this point: the ratio would carry the rounding error
      if (f.err[k] > 1e-10 * magnitude(f.v[k]) || h.err[k] > 1e-10 * magnitude(h.v[k])) continue;
      const C r = f.v[k] / h.v[k];
      if (!have) {
        ratio = r;
        have = true;
      } else if (magnitude(r - ratio) > 1e-8 * magnitude(ratio)) {
        return magnitude(r - ratio) > 1e-4 * magnitude(ratio) ? Ratio::kVaries : Ratio::kUnknown;
      }
      ++valid;
    }
    if (!have || valid < kMinValid || !f.analytic || !h.analytic) return Ratio::kUnknown;
    if (!same_branches({gl, gr}, {pl, pr})) return Ratio::kUnknown;
    if (positive && !(ratio.real() > 0 && std::fabs(ratio.imag()) <= 1e-9 * magnitude(ratio))) {
      // a negative factor turns the inequality around: x > 2 against x < 2
      if (ratio.real() < 0 && std::fabs(ratio.imag()) <= 1e-9 * magnitude(ratio)) return Ratio::kNegative;
      return Ratio::kUnknown;
    }
    return Ratio::kConstant;
  }

  /// The half-line that "lo < hi" (or "lo <= hi") states when hi - lo is affine in its one
  /// variable v, a v + b with a real a != 0: v > -b/a when a > 0 (`up`), v < -b/a otherwise.
  /// "2a - 5 > 0" is a > 5/2. Checked at every sample point, real and complex, so that a
  /// function that is affine only on the reals (|v|) is not taken for one.
  struct AffineBound {
    std::string var;
    double root = 0;
    bool up = false;
  };
  bool affine_half_line(Ref lo, Ref hi, AffineBound& out) {
    std::vector<std::string_view> vars = union_symbols(lo, hi);
    if (vars.size() != 1 || has_function_call(lo) || has_function_call(hi)) return false;
    if (!spend(evaluation_cost(size(lo) + size(hi)))) return false;
    const Points pts = make_points(vars);
    const Eval f = difference(side(hi, pts).all(pts), side(lo, pts).all(pts));
    if (!f.evaluable || !f.analytic) return false;
    const C* x = pts.values[0];
    std::size_t p0 = kPoints, p1 = kPoints;
    for (std::size_t k = 0; k < kReal; ++k) {
      if (!finite(f.v[k]) || f.near_cut[k]) continue;
      if (p0 == kPoints) {
        p0 = k;
      } else if (magnitude(x[k] - x[p0]) > 0.1) {
        p1 = k;
        break;
      }
    }
    if (p1 == kPoints) return false;
    const C a = (f.v[p1] - f.v[p0]) / (x[p1] - x[p0]);
    const C b = f.v[p0] - a * x[p0];
    const double scale = magnitude(a) + magnitude(b);
    if (!finite(a) || !finite(b) || magnitude(a) <= 1e-9 * scale) return false;
    if (std::fabs(a.imag()) > 1e-12 * scale || std::fabs(b.imag()) > 1e-12 * scale) return false;
    std::size_t valid = 0;
    for (std::size_t k = 0; k < kPoints; ++k) {
      if (!finite(f.v[k]) || f.near_cut[k]) continue;
      const C line = a * x[k] + b;
      if (magnitude(f.v[k] - line) >
          1e-9 * (magnitude(f.v[k]) + magnitude(a * x[k]) + magnitude(b)) + kClear * f.err[k]) {
        return false;
      }
      ++valid;
    }
    if (valid < kMinValid) return false;
    out = AffineBound{std::string(vars[0]), -b.real() / a.real(), a.real() > 0};
    return true;
  }

  /// "x < 3" or "3 > x": one variable against a constant, with the variable on the left.
  struct HalfLine {
    std::string var;
    char op = '=';  // '=' '<' 'l' (<=) '>' 'g' (>=) 'n' (!=)
    Ref bound{nullptr, 0};
  };

  static bool half_line(Ref r, HalfLine& out) {
    const Node& n = r.node();
    if (n.kind != Kind::kRelation || n.kids.size() != 2 || n.text.size() != 1) return false;
    for (int side = 0; side < 2; ++side) {
      Ref v = r.kid(static_cast<std::size_t>(side)), c = r.kid(static_cast<std::size_t>(1 - side));
      if (v.node().kind != Kind::kSymbol || has_symbols(c)) continue;
      char op = n.text[0];
      if (side == 1) {  // "3 > x" is "x < 3"
        op = op == '<' ? '>' : op == '>' ? '<' : op == 'l' ? 'g' : op == 'g' ? 'l' : op;
      }
      out = HalfLine{v.node().text, op, c};
      return true;
    }
    return false;
  }

  /// An equation chain ("\tan\alpha = -\frac{4}{6} = -\frac{2}{3}") against a value: the
  /// value its last member states (as math-verify reads a chain) is TRUE. A response's chain
  /// whose right members are all constants and all differ from the value is FALSE. Anything
  /// else is UNKNOWN: a member before the last that is the value may be the answer, where the
  /// chain goes on to an approximation ("x = 1/3 \approx 0.33", \approx reads as '=').
  ///
  /// An UNKNOWN of a whole response (not of an element of a list) whose last member the core
  /// disproved is Limit::kLastMember: the fallback reads an equation against a value as its
  /// last member alone (math-verify's rule), so it cannot turn the pair TRUE.
  Tri equation_chain(Ref chain, Ref value, bool chain_is_gold) {
    const std::size_t n = chain.node().kids.size();
    auto against = [&](Ref member) { return chain_is_gold ? tri(member, value) : tri(value, member); };
    const Tri last = against(chain.kid(n - 1));
    if (last == Tri::kTrue) return Tri::kTrue;
    if (chain_is_gold) return Tri::kUnknown;
    for (std::size_t k = 1; k < n; ++k) {
      if (has_symbols(chain.kid(k)) || (k + 1 < n ? against(chain.kid(k)) : last) != Tri::kFalse) {
        const bool whole = chain.i == chain.ast->root && value.i == value.ast->root;
        if (last == Tri::kFalse && whole && limit_ == Limit::kNone) limit_ = Limit::kLastMember;
        return Tri::kUnknown;
      }
    }
    return Tri::kFalse;
  }

  /// The interval `ri` (relation_interval) against the interval node `iv`, or a pair "(a, b)",
  /// which LaTeX cannot tell from the open interval: the same set when both ends are (an
  /// infinite end is open whatever the bracket says, as in interval()).
  Tri interval_of_relation(const RelationInterval& ri, Ref iv) {
    const Node& I = iv.node();
    const unsigned open_ends = I.kind == Kind::kTuple ? unsigned{kLeftOpen} | kRightOpen : unsigned{I.flags};
    Tri all = Tri::kTrue;
    for (int end = 0; end < 2; ++end) {
      const std::optional<Ref>& bound = end == 0 ? ri.lo : ri.hi;
      Ref theirs = iv.kid(static_cast<std::size_t>(end));
      const int inf = infinity_sign(theirs);
      const int want = end == 0 ? -1 : 1;
      Tri t;
      if (!bound) {
        t = inf == want ? Tri::kTrue : (inf != 0 || !has_symbols(theirs) ? Tri::kFalse : Tri::kUnknown);
      } else if (inf != 0) {
        t = Tri::kFalse;  // a finite bound against an infinite end
      } else {
        t = tri(*bound, theirs);
        const bool open = (open_ends & (end == 0 ? kLeftOpen : kRightOpen)) != 0;
        if (t == Tri::kTrue && open != (end == 0 ? ri.lo_open : ri.hi_open)) t = Tri::kFalse;
      }
      if (t == Tri::kFalse) return Tri::kFalse;
      all = both(all, t);
    }
    return all;
  }

  Tri relation(Ref g, Ref p) {
    const Node& G = g.node();
    const Node& P = p.node();
    if (G.kind != Kind::kRelation || P.kind != Kind::kRelation) {
      // "x = 5" against "5"
      Ref rel = G.kind == Kind::kRelation ? g : p;
      Ref other = G.kind == Kind::kRelation ? p : g;
      const Node& R = rel.node();
      if (R.text.find_first_not_of('=') != std::string::npos) {
        // A condition in one variable with constant bounds ("x \le 8", "-1 < x < 2") is an
        // interval: against one (or a pair "(1, 2)", the open interval) it is the same set or
        // not, end by end.
        if (names_interval(other.node())) {
          RelationInterval ri;
          if (relation_interval(rel, ri)) return interval_of_relation(ri, other);
        }
        // against a union ("\sqrt{11} < x < 9" against "(-\sqrt{11}, -2) \cup (\sqrt{11}, 9)"): as sets
        if (other.node().kind == Kind::kUnion) return real_sets(g, p);
        // A condition ("x \ge 5", "a \ne 1", "1 < x < 3") against a value ("5", "-0.5k") are
        // different answers: a set of solutions is never one number or expression. Against an
        // interval it does not read as (two variables, a symbolic bound) or a set it may be the
        // same set (UNKNOWN: the fallback compares them), and a chain with an equals sign may
        // state a value.
        const bool condition = R.text.find('=') == std::string::npos;
        if (condition && !is_structure(other.node().kind)) return Tri::kFalse;
        // nor is it a finite set or tuple of values, nor is a chain with an equals sign ("2g \ge N
        // = 114784", "a + d = 0 \ne 1") a value: both readers of the fallback read such a chain
        // as a conjunction of relations, never equal to values (Limit::kCondition)
        const bool value = values_only(other) || (!condition && !is_structure(other.node().kind));
        if (rel.i == rel.ast->root && other.i == other.ast->root && value && limit_ == Limit::kNone) {
          limit_ = Limit::kCondition;
        }
        return Tri::kUnknown;
      }
      if (R.kids.size() > 2) return equation_chain(rel, other, G.kind == Kind::kRelation);
      Ref lhs = rel.kid(0), rhs = rel.kid(1);
      // "x = 5" against "5", either way round. A response may also state the value of an
      // expression, "m + n = 4", or end a simplification, "a^6 / a^2 = a^4": against a gold
      // "4" or "a^4" its right side is its answer. A gold equation such as "a + 3z = 0" or
      // "x^2 + y^2 = 1" asks for the equation: a bare value does not state it (UNKNOWN).
      const bool response_states = P.kind == Kind::kRelation && (!has_symbols(rhs) || tri(lhs, rhs) == Tri::kTrue);
      const bool value_of = is_assignment_lhs(lhs) || response_states;
      if (!value_of) {
        // Any other equation of the response ends in its answer when its right side is the
        // gold: "|m - 2020| = -m + 2020" against "-m + 2020", "f(x) = x + 1" against "x + 1"
        // (math-verify reads the right side so too). Otherwise nothing is certain.
        const Tri on_rhs = P.kind == Kind::kRelation ? tri(other, rhs) : Tri::kUnknown;
        if (on_rhs == Tri::kTrue) return Tri::kTrue;
        // An equation in none of the other side's variables cannot state it: "|m - 2020| =
        // -m + 2020" against "x^2 - 3x - 1".
        if (!has_function_call(g) && !has_function_call(p) && disjoint_symbols(rel, other)) return Tri::kFalse;
        // The fallback reads the right side alone, which the core has disproved ("2x = y"
        // against 5): it cannot prove the pair (Limit::kLastMember).
        const bool whole = p.i == p.ast->root && g.i == g.ast->root;
        if (on_rhs == Tri::kFalse && whole && limit_ == Limit::kNone) limit_ = Limit::kLastMember;
        // A gold equation against a value: only the value of its left side could match. With a
        // number in that side ("5x - y + 2 = 0", "a + 3z = 0") no fallback reads it so
        // (Limit::kGoldEquation); a side of symbols alone ("\frac{NO}{BO}", "f(x)", "|AB|") is an
        // assignment to math-verify, which then compares the right side.
        if (G.kind == Kind::kRelation && P.kind != Kind::kRelation && whole && has_number(lhs) &&
            limit_ == Limit::kNone) {
          limit_ = Limit::kGoldEquation;
        }
        return Tri::kUnknown;
      }
      return G.kind == Kind::kRelation ? tri(rhs, other) : tri(other, rhs);
    }
    // Relations in different variables state different things ("x = -7" against
    // "y = x^2 + 4x + 2", "x > 2" against "k < -1").
    if (!has_function_call(g) && !has_function_call(p) && symbol_names(*g.ast, g.i) != symbol_names(*p.ast, p.i)) {
      return Tri::kFalse;
    }
    // "x \in (1, 2)" (read as "x = (1, 2)") against the condition "1 < x < 2" on the same
    // variable: the set it names against the set the condition states.
    for (int side = 0; side < 2; ++side) {
      const Ref eq = side == 0 ? g : p;
      const Ref cond = side == 0 ? p : g;
      const Node& E = eq.node();
      if (E.text != "=" || E.kids.size() != 2 || cond.node().text.find('=') != std::string::npos) continue;
      if (eq.kid(0).node().kind != Kind::kSymbol || !names_interval(eq.kid(1).node())) continue;
      RelationInterval ri;
      if (relation_interval(cond, ri)) return interval_of_relation(ri, eq.kid(1));
    }
    // Two conditions on one variable against a constant ("x \ge -4" against "x \le 3",
    // "a \ne 2" against "a > 2"): the same set only with the same operator and bound.
    {
      HalfLine hg, hp;
      if (half_line(g, hg) && half_line(p, hp) && hg.var == hp.var) {
        if (hg.op != hp.op) return Tri::kFalse;
        return tri(hg.bound, hp.bound);
      }
    }
    const bool g_eq = G.text.find_first_not_of('=') == std::string::npos;
    const bool p_eq = P.text.find_first_not_of('=') == std::string::npos;
    if (G.text.size() == 1 && P.text.size() == 1 && ((g_eq && p_eq) || (G.text == "n" && P.text == "n"))) {
      if (is_assignment_lhs(g.kid(0)) && is_assignment_lhs(p.kid(0)) &&
          (to_string(*g.ast, g.kid(0).i) == to_string(*p.ast, p.kid(0).i) || names_one_function(g.kid(0), p.kid(0)))) {
        return tri(g.kid(1), p.kid(1));  // one left side, or "y" against "y(x)"
      }
      // one function defined in other variables: "f(n) = n" against "f(m) = m"
      if (renamed_.size() < kMaxRenamed) {
        if (std::optional<Ast> renamed = renamed_definition(g.kid(0), p.kid(0), p)) {
          renamed_.push_back(std::make_unique<Ast>(std::move(*renamed)));
          return tri(g.kid(1), Ref{renamed_.back().get(), p.kid(1).i});
        }
      }
      const Ratio r = proportional(g.kid(0), g.kid(1), p.kid(0), p.kid(1), false);
      if (r == Ratio::kConstant) return Tri::kTrue;
      // two linear equations ("5x - y + 2 = 0", "y = 3x + 6") state one line only when proportional
      if (r == Ratio::kVaries && affine(g.kid(0)) && affine(g.kid(1)) && affine(p.kid(0)) && affine(p.kid(1))) {
        return Tri::kFalse;
      }
      return Tri::kUnknown;
    }
    if (g_eq || p_eq || G.text.find('n') != std::string::npos || P.text.find('n') != std::string::npos) {
      // an equation between values against a condition ("f(x) = 1/x" against "m > 1"): no reader
      // proves them equal (not "z \in [1, 2]", read as "z = [1, 2]": the set a condition may state)
      const Ref eq = g_eq ? g : p;
      bool kept = g_eq != p_eq && (g_eq ? P : G).text.find('=') == std::string::npos && g.i == g.ast->root &&
                  p.i == p.ast->root && limit_ == Limit::kNone;
      for (std::size_t k = 0; kept && k < eq.node().kids.size(); ++k) kept = !is_structure(eq.kid(k).node().kind);
      if (kept) limit_ = Limit::kCondition;
      return Tri::kUnknown;
    }
    std::vector<Ref> go, po;
    std::string gops, pops;
    if (!orient(g, go, gops) || !orient(p, po, pops)) return Tri::kUnknown;
    if (go.size() == 2 && po.size() == 2) {
      const bool same_strictness = gops == pops;
      const Ratio r = proportional(go[1], go[0], po[1], po[0], true);
      if (r == Ratio::kConstant) return same_strictness ? Tri::kTrue : Tri::kFalse;
      if (r == Ratio::kNegative) return Tri::kFalse;  // opposite half-lines
      // same variable side, different bound: x < 2 vs x < 3
      for (int side = 0; side < 2; ++side) {
        if (tri(go[side], po[side]) != Tri::kTrue) continue;
        Ref a = go[1 - side], b = po[1 - side];
        if (has_symbols(a) || has_symbols(b)) continue;
        const Tri t = tri(a, b);
        if (t == Tri::kTrue) return same_strictness ? Tri::kTrue : Tri::kFalse;
        if (t == Tri::kFalse) return Tri::kFalse;
      }
      // two half-lines in one variable: "a < 4" against "2a - 5 > 0" (a > 5/2)
      AffineBound bg, bp;
      if (affine_half_line(go[0], go[1], bg) && affine_half_line(po[0], po[1], bp) && bg.var == bp.var) {
        if (bg.up != bp.up) return Tri::kFalse;
        const double gap = std::fabs(bg.root - bp.root);
        if (gap > 1e-6 * std::max({1.0, std::fabs(bg.root), std::fabs(bp.root)})) return Tri::kFalse;
      }
      return Tri::kUnknown;
    }
    if (go.size() != po.size()) return Tri::kUnknown;
    Tri all = Tri::kTrue;
    for (std::size_t k = 0; k < go.size(); ++k) all = both(all, tri(go[k], po[k]));
    if (all == Tri::kTrue) return gops == pops ? Tri::kTrue : Tri::kFalse;
    if (all == Tri::kFalse && gops == pops) return Tri::kFalse;
    return Tri::kUnknown;
  }

  // ---- structures

  Tri elementwise(Ref g, Ref p) {
    const Node& G = g.node();
    const Node& P = p.node();
    if (G.kids.size() != P.kids.size()) return Tri::kFalse;
    Tri all = Tri::kTrue;
    for (std::size_t k = 0; k < G.kids.size(); ++k) {
      const Tri t = tri(g.kid(k), p.kid(k));
      if (t == Tri::kFalse) return Tri::kFalse;
      all = both(all, t);
    }
    return all;
  }

  // Sets: kFalse when an element of one side is kFalse against every element of the other, kTrue
  // when every element of each side is kTrue against some element of the other, kUnknown
  // otherwise. The pairs are compared as needed: a line (an element against the other side) is
  // settled by its first kTrue, so only a line without one is compared whole, which is what
  // telling that it is all kFalse takes. {1,2,3} against {3,1,2} compares 6 pairs, not 9.
  Tri unordered(const std::vector<Ref>& a, const std::vector<Ref>& b) {
    if (a.size() > kMaxElements || b.size() > kMaxElements) return Tri::kUnknown;
    constexpr std::uint8_t kNotCompared = 3;
    const std::size_t na = a.size(), nb = b.size();
    std::vector<std::uint8_t> cell(na * nb, kNotCompared);
    const auto at = [&](std::size_t i, std::size_t j) {
      std::uint8_t& c = cell[i * nb + j];
      if (c == kNotCompared) c = static_cast<std::uint8_t>(tri(a[i], b[j]));
      return static_cast<Tri>(c);
    };
    bool all_matched = true;
    // A line of `len` pairs, read through pair(k): kTrue at its first kTrue, else kFalse when
    // every pair is kFalse, else kUnknown.
    const auto line = [&](std::size_t len, auto&& pair) {
      bool all_false = true;
      for (std::size_t k = 0; k < len; ++k) {
        const Tri t = pair(k);
        if (t == Tri::kTrue) return Tri::kTrue;
        all_false = all_false && t == Tri::kFalse;
      }
      return all_false ? Tri::kFalse : Tri::kUnknown;
    };
    for (std::size_t i = 0; i < na; ++i) {
      const Tri row = line(nb, [&](std::size_t j) { return at(i, j); });
      if (row == Tri::kFalse) return Tri::kFalse;
      all_matched = all_matched && row == Tri::kTrue;
    }
    for (std::size_t j = 0; j < nb; ++j) {
      bool settled = false;  // by a kTrue the rows found in this column; otherwise it is read through
      for (std::size_t i = 0; i < na && !settled; ++i) {
        settled = cell[i * nb + j] == static_cast<std::uint8_t>(Tri::kTrue);
      }
      if (settled) continue;
      const Tri column = line(na, [&](std::size_t i) { return at(i, j); });
      if (column == Tri::kFalse) return Tri::kFalse;
      all_matched = all_matched && column == Tri::kTrue;
    }
    return all_matched ? Tri::kTrue : Tri::kUnknown;
  }

  static std::vector<Ref> kids(Ref r) {
    std::vector<Ref> out;
    out.reserve(r.node().kids.size());
    for (std::size_t k = 0; k < r.node().kids.size(); ++k) out.push_back(r.kid(k));
    return out;
  }

  Tri interval(Ref g, Ref p) {
    const Node& G = g.node();
    const Node& P = p.node();
    const Tri lo = tri(g.kid(0), p.kid(0));
    const Tri hi = tri(g.kid(1), p.kid(1));
    if (lo == Tri::kFalse || hi == Tri::kFalse) return Tri::kFalse;
    if (lo != Tri::kTrue || hi != Tri::kTrue) return Tri::kUnknown;
    // an infinite end is open whatever the bracket says (as in SymPy)
    const bool lo_inf = infinity_sign(g.kid(0)) != 0, hi_inf = infinity_sign(g.kid(1)) != 0;
    const bool lo_same = lo_inf || ((G.flags & kLeftOpen) == (P.flags & kLeftOpen));
    const bool hi_same = hi_inf || ((G.flags & kRightOpen) == (P.flags & kRightOpen));
    return lo_same && hi_same ? Tri::kTrue : Tri::kFalse;
  }

  /// Whether r is a union or a list of relations only ("x < 2 or x > 3", "x < 2, y > 3"): such
  /// lists compare part by part with each other, never part by part with intervals.
  static bool conditions(Ref r) {
    const Node& n = r.node();
    if (n.kind != Kind::kUnion && n.kind != Kind::kSet) return false;
    for (std::size_t k = 0; k < n.kids.size(); ++k)
      if (r.kid(k).node().kind != Kind::kRelation) return false;
    return true;
  }

  Tri structures(Ref g, Ref p) {
    const Node& G = g.node();
    const Node& P = p.node();
    if (G.kind == Kind::kPlusMinus || P.kind == Kind::kPlusMinus) return Tri::kUnknown;  // expanded earlier
    if (G.kind == P.kind) {
      switch (G.kind) {
        case Kind::kTuple: return elementwise(g, p);
        case Kind::kSet: return unordered(kids(g), kids(p));
        case Kind::kUnion: {
          const Tri t = real_sets(g, p);
          return t != Tri::kUnknown || conditions(g) != conditions(p) ? t : unordered(kids(g), kids(p));
        }
        case Kind::kInterval: return interval(g, p);
        case Kind::kMatrix:
          if (G.extra != P.extra || G.kids.size() != P.kids.size()) return Tri::kFalse;
          return elementwise(g, p);
        default: return Tri::kUnknown;
      }
    }
    // (a, b) against an open interval (a, b): LaTeX cannot tell them apart
    auto open_pair = [](Ref r) {
      const Node& n = r.node();
      return n.kind == Kind::kInterval && n.flags == (kLeftOpen | kRightOpen);
    };
    if ((G.kind == Kind::kTuple && open_pair(p)) || (P.kind == Kind::kTuple && open_pair(g))) {
      const Ref t = G.kind == Kind::kTuple ? g : p;
      if (t.node().kids.size() != 2) return Tri::kFalse;
      const Tri first = tri(g.kid(0), p.kid(0));
      return both(first, tri(g.kid(1), p.kid(1)));
    }
    if ((G.kind == Kind::kTuple && P.kind == Kind::kInterval) ||
        (P.kind == Kind::kTuple && G.kind == Kind::kInterval)) {
      return Tri::kFalse;  // a closed or half-open interval is not a point
    }
    const auto interval_like = [](Kind k) { return k == Kind::kInterval || k == Kind::kTuple || k == Kind::kSet; };
    if ((G.kind == Kind::kUnion && interval_like(P.kind)) || (P.kind == Kind::kUnion && interval_like(G.kind))) {
      const Tri t = real_sets(g, p);  // "(1, 2) \cup [2, 3]" against "(1, 3]"
      if (t == Tri::kUnknown && (point_pair(g) || point_pair(p))) return Tri::kFalse;  // "(6, 5)": a point
      // "x < 2 or x > 3" against the list "x < 2, x > 3": part by part, whatever joins them
      return t != Tri::kUnknown || !conditions(g) || !conditions(p) ? t : unordered(kids(g), kids(p));
    }
    if ((G.kind == Kind::kTuple && P.kind == Kind::kSet) || (P.kind == Kind::kTuple && G.kind == Kind::kSet)) {
      const bool gold_tuple = G.kind == Kind::kTuple;
      const Tri t = tuple_of_assignments(gold_tuple, gold_tuple ? g : p, gold_tuple ? p : g);
      return t != Tri::kUnknown ? t : tuple_against_set(gold_tuple, gold_tuple ? g : p, gold_tuple ? p : g);
    }
    return Tri::kUnknown;
  }

  /// Two sets of reals with constant ends (intervals, unions, points, conditions in one
  /// variable): the same set or not, piece by piece once merged (same_real_set); UNKNOWN when
  /// either is no such set.
  Tri real_sets(Ref g, Ref p) {
    std::vector<RealPiece> a, b;
    if (!spend(size(g) + size(p)) || !real_pieces(g, a) || !real_pieces(p, b)) return Tri::kUnknown;
    return same_real_set(std::move(a), std::move(b), [this](Ref x, Ref y) { return tri(x, y); });
  }

  /// A tuple against a set (a bare list "1, 2, 3"): FALSE when they differ as sets of values
  /// ("(7, n)" against "1, 3, 5"), or of points ("(3, 2, 1)" against "(1, 2, 3), (1, 3, 2)", or
  /// "(-7, -1)" against "(a, b) = (2, 32), (a, b) = (8, 18)"); TRUE
  /// when they match in the order written, as math-verify reads them ("(1, 2, 3)"); else UNKNOWN.
  Tri tuple_against_set(bool gold_tuple, Ref tuple, Ref set) {
    const auto all = [](const std::vector<Ref>& rs, bool tuples) {
      for (const Ref& r : rs) {
        const Kind kind = r.node().kind;
        if (tuples ? kind != Kind::kTuple : is_structure(kind)) return false;
      }
      return true;
    };
    // an assignment to a tuple of names in the set, "(a, b) = (2, 32)", is the point it assigns
    std::vector<Ref> members = kids(set);
    for (Ref& m : members) {
      const Node& M = m.node();
      if (M.kind == Kind::kRelation && M.text == "=" && M.kids.size() == 2 && m.kid(0).node().kind == Kind::kTuple &&
          is_assignment_lhs(m.kid(0)) && m.kid(1).node().kind == Kind::kTuple) {
        m = m.kid(1);
      }
    }
    const std::vector<Ref> values = kids(tuple);
    const bool set_of_points = all(members, true), tuple_of_values = all(values, false);
    std::vector<Ref> points = values;
    if (set_of_points && tuple_of_values) {
      points.assign(1, tuple);  // one point against a set of points
    } else if (!(all(members, false) && tuple_of_values) && !(set_of_points && all(values, true))) {
      return Tri::kUnknown;
    }
    const Tri as_sets = gold_tuple ? unordered(points, members) : unordered(members, points);
    if (as_sets != Tri::kTrue || points.size() != members.size())
      return as_sets == Tri::kFalse ? as_sets : Tri::kUnknown;
    Tri in_order = Tri::kTrue;
    for (std::size_t k = 0; k < points.size() && in_order == Tri::kTrue; ++k) {
      in_order = gold_tuple ? tri(points[k], members[k]) : tri(members[k], points[k]);
    }
    return in_order == Tri::kTrue ? Tri::kTrue : Tri::kUnknown;
  }

  /// A tuple "(4, 5)" against assignments to distinct symbols "x = 4, y = 5": TRUE when the
  /// values match in the order written (math-verify's reading), FALSE when they differ in any
  /// order, else UNKNOWN (another set, or the values in another order: "y = 5, x = 4").
  Tri tuple_of_assignments(bool gold_tuple, Ref tuple, Ref set) {
    const std::size_t n = set.node().kids.size();
    if (n < 2 || n != tuple.node().kids.size() || n > kMaxElements) return Tri::kUnknown;
    std::vector<Ref> values;
    std::vector<std::string_view> names;
    for (std::size_t k = 0; k < n; ++k) {
      const Ref a = set.kid(k);
      const Node& A = a.node();
      if (A.kind != Kind::kRelation || A.text != "=" || A.kids.size() != 2 || a.kid(0).node().kind != Kind::kSymbol) {
        return Tri::kUnknown;
      }
      const std::string_view name = a.kid(0).node().text;
      if (std::find(names.begin(), names.end(), name) != names.end()) return Tri::kUnknown;
      names.push_back(name);
      values.push_back(a.kid(1));
    }
    Tri in_order = Tri::kTrue;
    for (std::size_t k = 0; k < n && in_order != Tri::kFalse; ++k) {
      in_order = both(in_order, gold_tuple ? tri(tuple.kid(k), values[k]) : tri(values[k], tuple.kid(k)));
    }
    if (in_order == Tri::kTrue) return Tri::kTrue;
    const Tri any_order = gold_tuple ? unordered(kids(tuple), values) : unordered(values, kids(tuple));
    return any_order == Tri::kFalse ? Tri::kFalse : Tri::kUnknown;
  }
};

Tri compare(const Ast& gold, const Ast& pred, const Options& options, Limit* limit, Tree* gold_facts) {
  Comparer c(options, gold_facts);
  if (limit != nullptr) *limit = Limit::kNone;
  bool gpm = false, ppm = false;
  for (const Node& n : gold.nodes) gpm = gpm || n.kind == Kind::kPlusMinus;
  for (const Node& n : pred.nodes) ppm = ppm || n.kind == Kind::kPlusMinus;
  try {
    Ast g, p;  // copies with each \pm expanded (expand_plus_minus), where there is one
    if (gpm) expand_plus_minus(g = gold);
    if (ppm) expand_plus_minus(p = pred);
    const Ast& gt = gpm ? g : gold;
    const Ast& pt = ppm ? p : pred;
    const Tri t = c.tri(Ref{&gt, gt.root}, Ref{&pt, pt.root});
    if (limit != nullptr) *limit = c.limit();
    // families of solutions ("\frac{5\pi}{6}+k\pi" against "-\frac{\pi}{6}+k\pi"): sets of reals
    const Tri f = t == Tri::kTrue ? Tri::kUnknown : periodic_families(gt, pt);
    if (f != Tri::kUnknown && limit != nullptr) *limit = Limit::kNone;
    return f == Tri::kUnknown ? t : f;
  } catch (const ParseError&) {
    return Tri::kUnknown;  // a rewritten tree grew past the depth limit
  }
}

}  // namespace

struct TreeFacts::Impl {
  Tree tree{nullptr, {}, {}, {}};
};

TreeFacts::TreeFacts() noexcept = default;
TreeFacts::~TreeFacts() = default;
TreeFacts::TreeFacts(TreeFacts&&) noexcept = default;
TreeFacts& TreeFacts::operator=(TreeFacts&&) noexcept = default;

TreeFacts::Impl& impl_of(TreeFacts& facts) {
  if (!facts.impl_) facts.impl_ = std::make_unique<TreeFacts::Impl>();
  return *facts.impl_;
}

Tri equivalent(const Ast& gold, const Ast& pred, const Options& options, Limit* limit) {
  const Tri t = compare(gold, pred, options, limit, nullptr);
  if (limit != nullptr && t != Tri::kUnknown) *limit = Limit::kNone;
  return t;
}

Tri equivalent(const Ast& gold, const Ast& pred, const Options& options, Limit* limit, TreeFacts& gold_facts) {
  Tree& facts = impl_of(gold_facts).tree;
  if (facts.ast != &gold || facts.nodes.size() != gold.nodes.size()) {
    facts = Tree{&gold, std::vector<NodeFacts>(gold.nodes.size()), {}, {}};  // another tree: start afresh
  }
  const Tri t = compare(gold, pred, options, limit, &facts);
  if (limit != nullptr && t != Tri::kUnknown) *limit = Limit::kNone;
  return t;
}

Tri equivalent(std::string_view gold, std::string_view pred, const Options& options, Limit* limit) {
  if (limit != nullptr) *limit = Limit::kNone;
  const std::optional<Ast> g = try_parse(gold);
  if (!g) return Tri::kUnknown;
  const std::optional<Ast> p = try_parse(pred);
  if (!p) return Tri::kUnknown;
  return equivalent(*g, *p, options, limit);
}

}  // namespace rapidgrade::equiv
