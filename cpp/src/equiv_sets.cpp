// Sets of reals for the equivalence check (equiv_internal.hpp, "Sets of reals"): intervals,
// points and unions of them with constant ends, merged into their largest disjoint intervals
// and compared piece by piece, so that "(1, 2) \cup [2, 3]" is "(1, 3]" and "(-\sqrt{11}, -2)
// \cup (\sqrt{11}, 9)" is not "\sqrt{11} < x < 9".
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "equiv_internal.hpp"

namespace rapidgrade::equiv::detail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The end `e` of a piece: infinite (no reference, +-inf), or a constant with a real value.
bool end_of(Ref e, std::optional<Ref>& ref, double& x) {
  if (const int inf = infinity_sign(e); inf != 0) {
    ref.reset();
    x = inf * kInfinity;
    return true;
  }
  if (has_symbols(e)) return false;
  const Val v = value(e);
  const double re = v.num.real();
  if (!v.evaluable || v.inf != 0 || !std::isfinite(re) || !std::isfinite(v.num.imag()) ||
      std::fabs(v.num.imag()) > 1e-12 * std::max(1.0, std::fabs(re))) {
    return false;
  }
  ref = e;
  x = re;
  return true;
}

// A piece with its ends read; false when an end is no constant real or the piece is empty or
// reversed ("(2, 1)", "(1, 1)"), which no answer means.
bool piece(Ref lo, Ref hi, bool lo_open, bool hi_open, std::vector<RealPiece>& out) {
  RealPiece p;
  if (!end_of(lo, p.lo, p.l) || !end_of(hi, p.hi, p.h)) return false;
  p.lo_open = lo_open || !p.lo;  // an infinite end is open whatever the bracket says
  p.hi_open = hi_open || !p.hi;
  if (!(p.l < p.h) && !(p.l == p.h && !p.lo_open && !p.hi_open)) return false;
  out.push_back(p);
  return true;
}

// How x (of `rx`, none for an infinite end) and y compare: 0 when `same` finds them one number
// (as the comparison of two values would: a decimal rounded to the gold's places is the gold's
// number), else -1 or 1 by their values, or nullopt when doubles cannot order them.
std::optional<int> order(const std::optional<Ref>& rx, double x, const std::optional<Ref>& ry, double y,
                         const SameEnd& same) {
  if (std::isinf(x) || std::isinf(y)) return x == y ? 0 : (x < y ? -1 : 1);
  if (rx && ry && same(*rx, *ry) == Tri::kTrue) return 0;
  const double tolerance = 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)});
  if (x < y - tolerance) return -1;
  if (x > y + tolerance) return 1;
  return std::nullopt;
}

// Joins q into c, which starts no later, when they overlap or touch at a point one of them holds:
// true when joined, false when they are apart, nullopt when two ends cannot be ordered.
std::optional<bool> join(RealPiece& c, const RealPiece& q, const SameEnd& same) {
  const std::optional<int> starts = order(q.lo, q.l, c.hi, c.h, same);  // q's start against c's end
  if (!starts) return std::nullopt;
  if (*starts > 0 || (*starts == 0 && q.lo_open && c.hi_open)) return false;
  const std::optional<int> same_start = order(q.lo, q.l, c.lo, c.l, same);
  const std::optional<int> ends = order(q.hi, q.h, c.hi, c.h, same);
  if (!same_start || !ends) return std::nullopt;
  if (*same_start == 0) c.lo_open = c.lo_open && q.lo_open;
  if (*ends > 0) {
    c.hi = q.hi;
    c.h = q.h;
    c.hi_open = q.hi_open;
  } else if (*ends == 0) {
    c.hi_open = c.hi_open && q.hi_open;
  }
  return true;
}

// The largest disjoint intervals the pieces make, in order: overlapping pieces joined, and
// touching ones unless the point they share is outside both. A join that closes a piece's start
// may make it touch the piece before, which is joined in turn. nullopt when two ends cannot be
// ordered.
std::optional<std::vector<RealPiece>> merged(std::vector<RealPiece> pieces, const SameEnd& same) {
  std::stable_sort(pieces.begin(), pieces.end(), [](const RealPiece& a, const RealPiece& b) {
    return a.l < b.l || (a.l == b.l && !a.lo_open && b.lo_open);  // a closed start first
  });
  std::vector<RealPiece> out;
  for (const RealPiece& q : pieces) {
    const std::optional<bool> joined = out.empty() ? std::optional<bool>(false) : join(out.back(), q, same);
    if (!joined) return std::nullopt;
    if (!*joined) {
      out.push_back(q);
      continue;
    }
    while (out.size() >= 2) {
      const std::optional<bool> again = join(out[out.size() - 2], out.back(), same);
      if (!again) return std::nullopt;
      if (!*again) break;
      out.pop_back();
    }
  }
  return out;
}

// The piece a condition in one variable states (relation_interval), when its bounds are constant
// reals; false otherwise.
bool relation_piece(const RelationInterval& ri, std::vector<RealPiece>& out) {
  RealPiece p;
  if (ri.lo && !end_of(*ri.lo, p.lo, p.l)) return false;
  if (ri.hi && !end_of(*ri.hi, p.hi, p.h)) return false;
  if (!ri.lo) p.l = -kInfinity;
  if (!ri.hi) p.h = kInfinity;
  p.lo_open = ri.lo_open || !p.lo;
  p.hi_open = ri.hi_open || !p.hi;
  if (!(p.l < p.h)) return false;
  out.push_back(p);
  return true;
}

}  // namespace

bool real_pieces(Ref r, std::vector<RealPiece>& out) {
  const Node& n = r.node();
  if (n.kind == Kind::kRelation) {
    RelationInterval ri;
    return relation_interval(r, ri) && relation_piece(ri, out);
  }
  if (n.kind == Kind::kInterval) {
    return piece(r.kid(0), r.kid(1), (n.flags & kLeftOpen) != 0, (n.flags & kRightOpen) != 0, out);
  }
  // a pair is an open interval here: LaTeX cannot tell them apart, and the other side is a set
  if (n.kind == Kind::kTuple) return n.kids.size() == 2 && piece(r.kid(0), r.kid(1), true, true, out);
  if (n.kind == Kind::kSet && n.kids.size() <= kMaxElements) {
    for (std::size_t j = 0; j < n.kids.size(); ++j) {
      if (!piece(r.kid(j), r.kid(j), false, false, out)) return false;  // a point
    }
    return true;
  }
  if (n.kind != Kind::kUnion || n.kids.size() > kMaxElements) return false;
  std::string_view variable;  // the name the conditions of "x < 2 or x > 3" bound: one name
  for (std::size_t k = 0; k < n.kids.size(); ++k) {
    const Ref part = r.kid(k);
    const Kind kind = part.node().kind;
    if (kind == Kind::kRelation) {
      RelationInterval ri;
      if (!relation_interval(part, ri) || (!variable.empty() && ri.variable != variable)) return false;
      variable = ri.variable;
      if (!relation_piece(ri, out)) return false;
      continue;
    }
    if (kind != Kind::kInterval && kind != Kind::kTuple && kind != Kind::kSet) return false;
    if (!real_pieces(part, out)) return false;
  }
  return true;
}

bool point_pair(Ref r) {
  const Node& n = r.node();
  if (n.kind != Kind::kTuple || n.kids.size() != 2) return false;
  std::optional<Ref> ra, rb;
  double a = 0, b = 0;
  return end_of(r.kid(0), ra, a) && end_of(r.kid(1), rb, b) && ra && rb && !(a < b);
}

Tri same_real_set(std::vector<RealPiece> a, std::vector<RealPiece> b, const SameEnd& same) {
  const std::optional<std::vector<RealPiece>> ma = merged(std::move(a), same);
  const std::optional<std::vector<RealPiece>> mb = merged(std::move(b), same);
  if (!ma || !mb) return Tri::kUnknown;
  if (ma->size() != mb->size()) return Tri::kFalse;
  Tri all = Tri::kTrue;
  for (std::size_t k = 0; k < ma->size(); ++k) {
    const RealPiece& x = (*ma)[k];
    const RealPiece& y = (*mb)[k];
    const std::optional<int> lo = order(x.lo, x.l, y.lo, y.l, same);
    const std::optional<int> hi = order(x.hi, x.h, y.hi, y.h, same);
    if ((lo && *lo != 0) || (hi && *hi != 0)) return Tri::kFalse;
    if ((lo && x.lo_open != y.lo_open) || (hi && x.hi_open != y.hi_open)) return Tri::kFalse;
    if (!lo || !hi) all = Tri::kUnknown;
  }
  return all;
}

}  // namespace rapidgrade::equiv::detail
