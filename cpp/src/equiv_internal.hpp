// Internals shared by the sources of the equivalence check: equiv.cpp (the comparison of two
// trees: exact, structural and by sampling, in one Comparer), equiv_numeric.cpp (the numbers it
// compares: seeded sample points and the values of constant trees), equiv_canonical.cpp (the
// canonical forms of values too large to compare) and equiv_relations.cpp (reading relations).
// Private to cpp/src; not installed. Sizes are in nodes of an expr::Ast, costs per call.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/equiv.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::equiv::detail {

using namespace expr;
using C = std::complex<double>;

constexpr std::size_t kPoints = 32;  // 8 real + 24 complex
constexpr std::size_t kReal = 8;
constexpr std::size_t kNear = 16;      // complex points of moderate size (|z| in [1/4, 4])
constexpr std::size_t kMinValid = 16;  // points where both sides must agree for TRUE
constexpr double kClear = 1000;        // a gap this many times the error bound is a difference
constexpr double kClearRel = 1e-9;     // ... and at least this large relative to the values
constexpr std::size_t kMaxElements = 64;
constexpr std::size_t kMaxComparisons = 20000;  // sub-comparisons per call (nested sets)
constexpr double kPi = 3.14159265358979323846;

// differ_at_integers: its points of positive integers, and the variables it takes at most
constexpr std::size_t kIntegerPoints = 8;
constexpr std::size_t kMaxIntegerVariables = 8;

struct Ref {
  const Ast* ast;
  std::uint32_t i;
  const Node& node() const { return ast->at(i); }
  Ref kid(std::size_t k) const { return Ref{ast, node().kids[k]}; }
};

// ---------------------------------------------------------------------------------------------
// Sample points (equiv_numeric.cpp)

struct Points {
  Points() = default;
  Points(Points&&) = default;
  Points(const Points&) = delete;  // `values` points into `own`
  Points& operator=(const Points&) = delete;
  std::vector<std::string_view> vars;  // views of the compared trees' symbol names
  std::vector<const C*> values;        // per variable, kPoints values
  std::vector<std::vector<C>> own;     // the values of variables past the shared ones
};

/// The sample points of the variables `vars` (sorted, without repeats): kPoints values per
/// variable, a variable's values the same in every comparison (its place in the sorted list
/// picks them). The first 16 variables' values are drawn once per process, past them per call.
/// O(variables), plus O(kPoints) per variable past the 16th.
Points make_points(std::vector<std::string_view> vars);

// The values of a side at the kPoints sample points (held in place: a comparison makes a few
// of these, and none needs the heap).
struct Eval {
  std::array<C, kPoints> v{};
  std::array<double, kPoints> err{};              // rounding-error bound of each value
  std::array<unsigned char, kPoints> near_cut{};  // branch chosen by rounding noise: the point is unusable
  bool evaluable = true;
  bool analytic = true;
  bool continuous = true;
};

// a - b at every point (both evaluated at every point, with bounds).
Eval difference(const Eval& a, const Eval& b);

inline bool finite(C z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); }

/// The free symbols of a and b together, sorted, without repeats (views of the trees' names).
/// O(tree size) plus the sort of the names.
std::vector<std::string_view> union_symbols(Ref a, Ref b);

/// A literal a double cannot hold exactly (beyond 2^53, or more than 15 significant digits):
/// sampling in doubles cannot tell x + 10^20 from x + 10^20 + 1. O(tree size).
bool has_inexact_literal(Ref r);

// ---------------------------------------------------------------------------------------------
// Constant values (equiv_numeric.cpp)

struct Val {
  std::optional<Rational> exact;
  C num{0, 0};
  double err = 0;  // rounding-error bound of num
  bool evaluable = true;
  bool continuous = true;
  bool decimal = false;
  int places = 0;
  int inf = 0;              // +1 / -1 for oo / -oo
  bool overflowed = false;  // rational-valued, but past the 128-bit range: never TRUE by tolerance
  bool near_cut = false;    // a branch was chosen by rounding noise: never FALSE
};

/// +1 for oo, -1 for -oo (a negation of either flips it), else 0. O(depth of the negations).
int infinity_sign(Ref r);

/// ln |value| of a tree built from positive numbers, pi, e, sums, products, quotients, powers,
/// factorials and percent signs (its value is positive, and the logarithm is computed without
/// forming the value: +inf when even the logarithm overflows), or nullopt for any other tree
/// (a subtraction could cancel, so no magnitude is claimed for it). Recursion bounded by the
/// tree depth; O(tree size) plus the exact value of each exponent.
std::optional<double> log_magnitude(Ref r);

/// log_magnitude of r, or of what r negates ("-2^{5000}"). Same bounds.
std::optional<double> signed_log_magnitude(Ref r);

/// Whether r, with its value v, lies below the range of doubles: no exact value, a double that
/// rounded to 0, and a finite magnitude from its tree ("1/2004!", "10^{-400}"; not "\ln 1").
bool below_doubles(Ref r, const Val& v);

/// The sign of r's value where it is known without evaluating it: its exact value's, +1 for a
/// tree that log_magnitude reads (positive), -1 for a negation of one; 0 otherwise.
int value_sign(Ref r, const Val& v);

/// The value of a constant subtree: exact when its rational arithmetic does not overflow (then
/// also as a double with its rounding bound), else evaluated in doubles with an error bound
/// (evaluable false when it has variables or cannot be evaluated); with its decimal places
/// when it is a decimal literal ("1.25"). O(tree size).
Val value(Ref r);

/// Whether two programs of the same `vars` variables clearly differ at two or more of
/// kIntegerPoints points of positive integers (each variable its own integers from 2 to 12). A
/// side whose values at sample points say nothing of equality (Program::sampling_decides:
/// binomial(n, k) with k a symbol) still means what it says at integers: "\binom{2n}{n}" against
/// "2n" differ there. Agreement proves no identity, so this only disproves. O(points * code).
bool differ_at_integers(const Program& pa, const Program& pb, std::size_t vars);

/// v times num/den (a percent: 1/100), with `extra_places` more decimal places. O(1).
Val scaled(Val v, Int num, Int den, int extra_places);

/// v degrees in radians: v * pi/180, no longer exact nor a decimal. O(1).
Val times_pi_over_180(Val v);

/// round(x * 10^places) half away from zero, or nullopt when it cannot be decided. O(places).
std::optional<long long> round_to(const Val& v, int places);

// ---------------------------------------------------------------------------------------------
// Canonical forms (equiv_canonical.cpp)

/// Whether a and b (scalar trees, of one Ast or two) have one canonical form: exact subtrees
/// folded into their rational values (expr::exact_value), sums and products flattened with
/// their exact operands folded and their operands ordered, -x as (-1)*x and a/b as a*b^(-1).
/// True means one value ("(10^{10})! + 1" and "1 + (10^{10})!"); false decides nothing
/// (different forms may have one value), and so does a tree holding a set, tuple, interval,
/// matrix, relation or text. O(n log n) in the distinct nodes of both trees, plus the bytes of
/// their literals; at most `max_work` counted units (past them: false), the units spent in
/// `used`. No recursion.
bool same_canonical_form(Ref a, Ref b, std::size_t max_work, std::size_t& used);

/// Rewrites a \pm b into the two values a+b and a-b, a set: a tree with one \pm ("2 \pm
/// \sqrt{3}", "y = \pm 2x") into the set of the tree with each value, and a top-level set each
/// of whose elements holds at most one ("(-1,-9),(4 \pm 2\sqrt{2}, 8)") into the set of those
/// elements, each one that holds a \pm taken with each value. Returns false when the tree has no
/// such node, or two in one tree or element: which goes with which is not said
/// (equiv_canonical.cpp). O(nodes x depth).
bool expand_plus_minus(Ast& ast);

// ---------------------------------------------------------------------------------------------
// Families of solutions (equiv_periodic.cpp).

/// Answers that are families of solutions with an integer parameter (a name of
/// detail::kIntegerParameters): a value c + p k linear in k, with a period p that is a rational
/// multiple of pi, a list of them, "x = " before either, a \pm expanded by the caller
/// (expand_plus_minus: "2k\pi \pm \frac{\pi}{3}"). As sets of reals, "\frac{5\pi}{6}+k\pi" is
/// "-\frac{\pi}{6}+k\pi", and "\frac{\pi}{6}+k\pi" is "\frac{\pi}{6}+2k\pi, \frac{7\pi}{6}+2k\pi":
/// TRUE when the two lists are one set (the same residues modulo a common multiple of their
/// periods), FALSE when not, UNKNOWN when either side is no such list (another symbol, a value
/// with no parameter, periods with no small common multiple). Values at six integers tell a
/// family's c and p. At most 64 families and 256 residues a side.
Tri periodic_families(const Ast& gold, const Ast& pred);

// ---------------------------------------------------------------------------------------------
// Relations (equiv_relations.cpp). Recursive over the tree, whose depth the parser bounds.

/// Whether nodes of kind k are structures (tuples, sets, intervals, unions, matrices,
/// relations, words, a \pm pair) rather than values.
bool is_structure(Kind k);

/// Whether r is a number, or a tuple or set of one or more numbers (not an interval: words may
/// name one, "all real numbers"). O(subtree).
bool numbers(Ref r);

/// Whether r is a set or tuple (not a pair at the root, which may be an interval) of numbers and
/// of sets and tuples of numbers. O(subtree).
bool values_only(Ref r);

/// A multivalued function applied to a non-constant argument. sqrt, root, log and non-integer
/// or symbolic powers all go through the principal logarithm (u^(p/q) = exp(p/q Log u)), so
/// they share the key "log"; inverse trigonometric functions have their own.
struct CutApplication {
  std::string_view key;  // rapidgrade::detail::cut_key
  Ref arg;
};

/// Appends the multivalued functions applied in r to non-constant arguments (CutApplication).
/// Recursion bounded by the tree's depth. O(subtree).
void collect_cuts(Ref r, std::vector<CutApplication>& out);

/// g and p are one tree: node by node the same kind, flags, extra and text, with as many
/// children, in order. No recursion: an explicit stack. O(size(g)).
bool same_tree(Ref g, Ref p);

/// Whether the subtree holds a symbol. O(subtree).
bool has_symbols(Ref r);

/// Whether the subtree holds a number or a named constant (pi, e): what makes an equation's side
/// more than symbols. O(subtree).
bool has_number(Ref r);

/// Both sides have free symbols and share none. O(symbols log symbols).
bool disjoint_symbols(Ref a, Ref b);

/// Whether r holds an application of a function that is not in the function table ("f(x)"):
/// its variables are not comparable by name. O(subtree).
bool has_function_call(Ref r);

/// Operands and operators of a relation with every '>'/'>=' turned around ("x > 2" is "2 < x");
/// false when a chain mixes directions. O(operands).
bool orient(Ref r, std::vector<Ref>& operands, std::string& ops);

/// The interval a condition in one variable with constant bounds states: "x \le 8" is
/// (-oo, 8], "3 < x" is (3, oo), "-1 < x \le 2" is (-1, 2]. A missing bound (`lo`/`hi` null)
/// is an infinite end.
struct RelationInterval {
  std::optional<Ref> lo, hi;
  bool lo_open = true, hi_open = true;
  std::string_view variable;  // the name the condition bounds
};

/// The interval `rel` states (RelationInterval), or false when it is no such condition.
bool relation_interval(Ref rel, RelationInterval& out);

// ---- Sets of reals (equiv_sets.cpp)

/// A piece of a set of reals: an interval, or a point (both ends the same, closed). An end is
/// its subtree and value, or none and -inf / +inf for an infinite end (always open).
struct RealPiece {
  std::optional<Ref> lo, hi;
  double l = 0, h = 0;
  bool lo_open = true, hi_open = true;
};

/// Decides whether two ends whose values doubles cannot tell apart are one number.
using SameEnd = std::function<Tri(Ref, Ref)>;

/// Appends the pieces of r when it is a set of reals with constant real ends: an interval (a
/// pair is an open one), a set of numbers (its points), a union of those, or a condition in one
/// variable (relation_interval: the interval it states); false for anything else, an empty or
/// reversed interval included. O(pieces) values of constant ends.
bool real_pieces(Ref r, std::vector<RealPiece>& out);

/// Whether r is a pair of constant reals whose first member is not below its second ("(6, 5)",
/// "(4, \log_{10} 2)"): a point, which no interval or union of intervals is.
bool point_pair(Ref r);

/// Whether two sets of reals given as pieces are one set: each merged into its largest disjoint
/// intervals (overlapping pieces joined, and touching ones unless both leave out the point they
/// share), then compared piece by piece. FALSE when the merged pieces differ in number, or an
/// end in value or openness; TRUE when every end is the same; UNKNOWN when two ends can be
/// ordered neither by their values nor by `same`. O(pieces log pieces) plus the calls of `same`.
Tri same_real_set(std::vector<RealPiece> a, std::vector<RealPiece> b, const SameEnd& same);

/// Whether r is affine in its symbols: numbers, constants and symbols under sums, negation,
/// products with one factor that holds a symbol at most, and division by a constant ("5x - y + 2",
/// "\frac{x}{2} + \sqrt{3}"); no power, function or product of symbols. O(subtree^2) at worst.
bool affine(Ref r);

/// Whether n may name an interval: an interval node, or a pair "(a, b)", which LaTeX cannot tell
/// from the open interval (a, b).
bool names_interval(const Node& n) noexcept;

/// Whether r may be the left side of an assignment, whose right side is then the answer: a
/// symbol ("x = 5"), a tuple of symbols ("(x, y) = (1, 2)"), or a function of the table's
/// unknowns applied to distinct symbols, its definition ("f(x) = 1/x", "N(n) = 2n + 1";
/// not "f(2) = 5", not "\sin(x) = 0"). O(kids^2).
bool is_assignment_lhs(Ref r);

/// Two definitions of one function in other variables, "f(n) = n" against "f(m) = m": when `gl`
/// and `pl` define the same unknown function with as many variables, named differently, a copy
/// of `p`'s tree with pl's variables renamed to gl's, all at once (m -> n); nullopt otherwise, or
/// when a name of gl's variables is already a symbol of `p` that is not renamed (f(m) = m + n
/// against f(n): renaming would capture n). O(nodes of p's tree).
std::optional<Ast> renamed_definition(Ref gl, Ref pl, Ref p);

/// One function named bare on one left side and applied to its variables on the other: "y" and
/// "y(x)" in "y = C e^{2x}" against "y(x) = C e^{2x}" (a definition's left side, as
/// is_assignment_lhs reads one, of the name the other side's symbol has). O(kids).
bool names_one_function(Ref a, Ref b);

}  // namespace rapidgrade::equiv::detail
