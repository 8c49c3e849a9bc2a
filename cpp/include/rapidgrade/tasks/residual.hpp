// The residual check of integral equations: a candidate solution u of a Fredholm equation of the
// second kind, u(x) - lambda * integral_a^b K(x,t) u(t) dt = f(x), or of the first kind,
// lambda * integral_a^b K(x,t) u(t) dt = f(x), is judged by the residual
//
//   r(x) = u(x) - lambda * I(x) - f(x)   (second kind)    r(x) = lambda * I(x) - f(x)   (first kind)
//
// at sample points x_i of [a, b], where I(x) = integral_a^b K(x,t) u(t) dt is computed by
// composite Gauss-Legendre quadrature with adaptive refinement, without any ground truth.
//
// Every check is bounded: the candidate's size (operations), the number of sample points, the
// number of quadrature nodes and the total work (points x nodes x instructions) have hard caps,
// so no check needs a deadline. NaN and inf are values (a non-finite residual fails the check),
// never errors; nothing here throws for a malformed candidate, kernel or right-hand side (the
// result says why it could not be checked). Only LimitError for options out of range.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/expr.hpp"

namespace rapidgrade::residual {

enum class Kind : std::uint8_t { kSecond, kFirst };

/// The verdict: verified (max |r| < tolerance, and so by more than the quadrature's error
/// bound), failed (max |r| >= tolerance by more than that bound, or not finite), unverifiable
/// (no candidate expression, a symbol without a value, over a size cap, or a residual that the
/// quadrature could not resolve on the right side of the tolerance).
enum class Status : std::uint8_t { kVerified, kFailed, kUnverifiable };
inline constexpr std::string_view kStatusNames[] = {"verified", "failed", "unverifiable"};

/// Hard caps: what bounds the cost of one check.
struct Limits {
  std::size_t max_ops = 800;                    // operations in the candidate (SymPy's count_ops scale)
  std::size_t max_equation_ops = 4000;          // operations in the kernel and in f
  std::size_t max_bytes = 1u << 16;             // length of each expression text
  std::size_t max_points = 1024;                // sample points
  std::size_t max_nodes = 4096;                 // quadrature nodes over [a, b]
  std::size_t max_work = std::size_t{1} << 25;  // points x nodes x (kernel instructions + 1)
};

struct Options {
  double tolerance = 1e-6;                    // on max |r(x_i)|, absolute (fred-llm's verify_solution)
  std::size_t n_points = 50;                  // sample points when the equation gives none
  expr::Syntax syntax = expr::Syntax::kAuto;  // of the candidates
  /// Values of named constants (any symbol other than x in the candidate, f or the kernel, other
  /// than t in the kernel).
  std::map<std::string, double> constants;
  /// When set, every other free symbol of the candidate takes this value (fred-llm's agentic
  /// selection checks family answers with their constants set to 1).
  std::optional<double> free_constants;
  Limits limits;
};

/// The equation as given: texts (LaTeX, infix or RPN, read in `syntax`), lambda, [a, b].
struct Equation {
  std::string kernel;  // K(x, t)
  std::string f;       // f(x)
  double lambda = 1.0;
  double a = 0.0, b = 1.0;
  Kind kind = Kind::kSecond;
  expr::Syntax syntax = expr::Syntax::kAuto;
  /// Sample points; empty: n_points midpoints of equal cells of [a, b].
  std::vector<double> x_values;
};

/// An equation parsed and compiled once, for checking any number of candidates. Read-only
/// after prepare(), so one may serve several threads at once.
struct Prepared {
  Prepared() = default;
  Prepared(const Prepared&) = delete;  // its programs view its own trees
  Prepared& operator=(const Prepared&) = delete;
  Prepared(Prepared&&) = default;  // the trees' nodes stay where they are
  Prepared& operator=(Prepared&&) = default;

  std::string error;  // why candidates cannot be checked against it ("" when they can)
  Kind kind = Kind::kSecond;
  double lambda = 1.0, a = 0.0, b = 1.0;
  std::vector<double> xs;
  std::optional<expr::Ast> kernel_ast, f_ast;
  expr::Program kernel, f;       // kernel: vars {x, t, constants...}; f: {x, constants...}
  std::vector<double> f_values;  // f at xs
};

/// Parses and compiles an equation. Never throws for bad texts (Prepared::error says what is
/// wrong: "kernel_parse_failed", "f_parse_failed", "kernel_not_numeric", "f_not_numeric",
/// "kernel_free_symbol: s", "f_free_symbol: s", "kernel_too_large", "f_too_large",
/// "bad_domain", "bad_lambda", "bad_x_values"); throws LimitError when more than
/// limits.max_points sample points are asked for. O(size of the texts + points x |f|).
Prepared prepare(const Equation& equation, const Options& options);

struct Result {
  Status status = Status::kUnverifiable;
  /// Why, as a code: "" (verified), "residual_above_tolerance", "non_finite",
  /// "quadrature_unresolved", "no_solution", "parse_failed", "not_numeric",
  /// "candidate_too_large", "free_symbol: s", or the equation's Prepared::error.
  std::string reason;
  double residual_max = 0, residual_mean = 0, residual_rmse = 0;  // over the points; inf when unchecked
  double quadrature_error = 0;        // bound on |lambda| x the integral's error, max over the points
  std::size_t nodes = 0;              // quadrature nodes used
  std::vector<double> xs, residuals;  // r(x_i); empty when unchecked
  bool verified() const noexcept { return status == Status::kVerified; }
};

/// Checks one candidate (a solution text: "u(x) = ..." and math delimiters are removed as
/// parse_llm_output removes them; "No solution" is not an expression). Never throws (but
/// std::bad_alloc). Cost: O(|candidate|) to parse, then at most limits.max_work instruction
/// evaluations for the quadrature.
Result check(const Prepared& equation, std::string_view candidate, const Options& options);

/// Operations of a subtree on the scale of SymPy's count_ops: one per function, power,
/// division, negation, factorial, absolute value; k - 1 per k-term sum or product. O(size).
std::size_t count_ops(const expr::Ast& ast, std::uint32_t node);

}  // namespace rapidgrade::residual
