// Compilation of an expression tree to a flat register program, and its evaluation over
// blocks of points (the hot loop of numeric comparison and of Expr.evaluate).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <locale>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "expr_kernels.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/spare.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::expr {
namespace {

using namespace detail;
using rapidgrade::detail::Spare;

double literal_to_double(const std::string& lit) {
  std::istringstream in(lit);
  in.imbue(std::locale::classic());
  double v = 0;
  in >> v;
  if (in.fail()) {
    // out of range: inf (or 0 for tiny)
    const auto e = lit.find('e');
    if (e != std::string::npos && lit.find('-', e) != std::string::npos) return 0.0;
    return std::numeric_limits<double>::infinity();
  }
  return v;
}

struct Compiler {
  const Ast& ast;
  Program& prog;

  std::uint32_t emit(Instr in) {
    prog.code.push_back(in);
    return static_cast<std::uint32_t>(prog.code.size() - 1);
  }
  std::uint32_t constant(double re, double im = 0) {
    Instr in{Op::kConst};
    in.re = re;
    in.im = im;
    return emit(in);
  }
  std::uint32_t bin(Op op, std::uint32_t a, std::uint32_t b) {
    Instr in{op};
    in.a = a;
    in.b = b;
    return emit(in);
  }
  std::uint32_t un(Op op, std::uint32_t a) {
    Instr in{op};
    in.a = a;
    return emit(in);
  }
  std::uint32_t opaque() {
    prog.evaluable = false;
    prog.analytic = false;
    return emit(Instr{Op::kNan});
  }

  std::uint32_t var(std::string_view name) {  // a node's text: it lives as long as the tree
    auto it = std::find(prog.vars.begin(), prog.vars.end(), name);
    std::size_t idx = static_cast<std::size_t>(it - prog.vars.begin());
    if (it == prog.vars.end()) prog.vars.emplace_back(name);
    Instr in{Op::kVar};
    in.a = static_cast<std::uint32_t>(idx);
    return emit(in);
  }

  bool has_symbol(std::uint32_t i) const {
    const Node& n = ast.at(i);
    if (n.kind == Kind::kSymbol) return true;
    for (std::uint32_t k : n.kids)
      if (has_symbol(k)) return true;
    return false;
  }

  /// A row marked kFalling (binomial, ff) of (x, k): for a constant integer 0 <= k <=
  /// kMaxFallingTerms the polynomial x(x-1)...(x-k+1) (over k! for kOverKFactorial), analytic;
  /// otherwise the row's instruction (binomial's gamma quotient; none for ff: opaque), which
  /// does not decide equivalence when k has symbols (Program::sampling_decides).
  std::uint32_t falling(const Node& n, const rapidgrade::detail::FunctionSpec& f) {
    const std::optional<Rational> k = exact_value(ast, n.kids[1]);
    if (k && k->den == 1 && k->num >= 0 && k->num <= rapidgrade::detail::kMaxFallingTerms) {
      const int terms = static_cast<int>(k->num);
      // each factor compiles x again: a program uses each value once (allocate_registers)
      std::uint32_t acc = terms == 0 ? constant(1) : go(n.kids[0]);
      double k_factorial = 1;
      for (int j = 1; j < terms; ++j) {
        const std::uint32_t x = go(n.kids[0]);
        const std::uint32_t factor = bin(Op::kSub, x, constant(j));
        acc = bin(Op::kMul, acc, factor);
        k_factorial *= j + 1;
      }
      if ((f.flags & rapidgrade::detail::kOverKFactorial) != 0 && k_factorial != 1) {
        acc = bin(Op::kDiv, acc, constant(k_factorial));
      }
      return acc;
    }
    if (f.op2 == Op::kNan) return opaque();
    if (has_symbol(n.kids[1])) prog.sampling_decides = false;
    prog.analytic = false;
    const std::uint32_t x = go(n.kids[0]);
    const std::uint32_t y = go(n.kids[1]);
    return bin(f.op2, x, y);
  }

  /// One instruction per row of the function table (functions.hpp): op1 for one argument, op2
  /// for two (kFalling rows: falling()); anything else (det, max, unknown names) is opaque.
  std::uint32_t func(const Node& n) {
    const rapidgrade::detail::FunctionSpec* f = rapidgrade::detail::find_function(n.text);
    if (f == nullptr) return opaque();
    if ((f->flags & rapidgrade::detail::kFalling) != 0 && n.kids.size() == 2) return falling(n, *f);
    // a variadic row with an instruction for two (max, min) folds any number of arguments
    const bool fold = f->max_args == rapidgrade::detail::kVariadic && n.kids.size() > 2;
    const Op op = n.kids.size() == 1 ? f->op1 : (n.kids.size() == 2 || fold) ? f->op2 : Op::kNan;
    if (op == Op::kNan) return opaque();
    if ((f->flags & rapidgrade::detail::kNotAnalytic) != 0) prog.analytic = false;
    if ((f->flags & rapidgrade::detail::kDiscontinuous) != 0) prog.continuous = false;
    if (n.kids.size() == 1) return un(op, go(n.kids[0]));
    std::uint32_t acc = go(n.kids[0]);
    for (std::size_t k = 1; k < n.kids.size(); ++k) {
      const std::uint32_t y = go(n.kids[k]);
      acc = bin(op, acc, y);
    }
    return acc;
  }

  std::uint32_t go(std::uint32_t i) {
    const Node& n = ast.at(i);
    switch (n.kind) {
      case Kind::kNumber: {
        auto q = parse_decimal(n.text);
        return constant(q ? q->to_double() : literal_to_double(n.text));
      }
      case Kind::kSymbol: return var(n.text);
      case Kind::kConst:
        if (n.text == "pi") return constant(3.14159265358979323846);
        if (n.text == "E") return constant(2.71828182845904523536);
        if (n.text == "I") {
          prog.complex_constants = true;
          return constant(0, 1);
        }
        return constant(std::numeric_limits<double>::infinity());
      case Kind::kAdd: {
        std::uint32_t acc = 0;
        bool first = true;
        for (std::uint32_t k : n.kids) {
          const Node& c = ast.at(k);
          if (!first && c.kind == Kind::kNeg) {
            std::uint32_t v = go(c.kids[0]);
            acc = bin(Op::kSub, acc, v);
          } else {
            std::uint32_t v = go(k);
            acc = first ? v : bin(Op::kAdd, acc, v);
          }
          first = false;
        }
        return acc;
      }
      case Kind::kMul: {
        std::uint32_t acc = go(n.kids[0]);
        for (std::size_t k = 1; k < n.kids.size(); ++k) {
          std::uint32_t v = go(n.kids[k]);
          acc = bin(Op::kMul, acc, v);
        }
        return acc;
      }
      case Kind::kNeg: return un(Op::kNeg, go(n.kids[0]));
      case Kind::kDiv: {
        std::uint32_t a = go(n.kids[0]);
        std::uint32_t b = go(n.kids[1]);
        return bin(Op::kDiv, a, b);
      }
      case Kind::kPow: {
        auto e = exact_value(ast, n.kids[1]);
        if (e && e->den == 1 && e->num >= -64 && e->num <= 64) {
          Instr in{Op::kPowInt};
          in.a = go(n.kids[0]);
          in.re = static_cast<double>(e->num);
          return emit(in);
        }
        if (e && e->den == 2 && e->num == 1) return un(Op::kSqrt, go(n.kids[0]));
        std::uint32_t a = go(n.kids[0]);
        std::uint32_t b = go(n.kids[1]);
        return bin(Op::kPow, a, b);
      }
      case Kind::kFunc: return func(n);
      case Kind::kFactorial: prog.analytic = false; return un(Op::kFactorial, go(n.kids[0]));
      case Kind::kAbs: prog.analytic = false; return un(Op::kAbs, go(n.kids[0]));
      case Kind::kPercent: {
        std::uint32_t x = go(n.kids[0]);
        return bin(Op::kMul, x, constant(0.01));
      }
      case Kind::kDegree: {
        std::uint32_t x = go(n.kids[0]);
        return bin(Op::kMul, x, constant(3.14159265358979323846 / 180.0));
      }
      default: return opaque();
    }
  }
};

constexpr std::size_t kBlock = 256;

/// Every value of a tree program is used exactly once, so an operand's register is free as
/// soon as its user runs (kernels are elementwise, so the result may overwrite an operand).
/// The register count is then bounded by the tree's depth, not its size.
void allocate_registers(Program& prog) {
  struct Tag;
  Spare<std::vector<std::uint32_t>, Tag> spare;  // the thread's list of free registers, reused
  std::vector<std::uint32_t>& free_regs = *spare;
  prog.reg.assign(prog.code.size(), 0);
  prog.n_regs = 0;
  for (std::size_t k = 0; k < prog.code.size(); ++k) {
    const Instr& in = prog.code[k];
    const int n = arity(in.op);
    if (n >= 1) free_regs.push_back(prog.reg[in.a]);
    if (n >= 2) free_regs.push_back(prog.reg[in.b]);
    if (free_regs.empty()) {
      prog.reg[k] = prog.n_regs++;
    } else {
      prog.reg[k] = free_regs.back();
      free_regs.pop_back();
    }
  }
}

template <typename T>
void run_impl(const Program& prog, const std::vector<const T*>& inputs, const std::vector<std::size_t>& strides,
              std::size_t n, T* out) {
  const std::size_t nc = prog.code.size();
  if (nc == 0) {
    for (std::size_t j = 0; j < n; ++j) out[j] = T(std::nan(""));
    return;
  }
  std::vector<T> regs(static_cast<std::size_t>(prog.n_regs) * kBlock);
  for (std::size_t begin = 0; begin < n; begin += kBlock) {
    const std::size_t m = std::min(kBlock, n - begin);
    for (std::size_t k = 0; k < nc; ++k) {
      const Instr& in = prog.code[k];
      T* r = regs.data() + static_cast<std::size_t>(prog.reg[k]) * kBlock;
      if (in.op == Op::kConst) {
        const T c = make_const<T>(in);
        for (std::size_t j = 0; j < m; ++j) r[j] = c;
      } else if (in.op == Op::kVar) {
        const bool have = in.a < inputs.size() && inputs[in.a] != nullptr;
        if (!have) {
          for (std::size_t j = 0; j < m; ++j) r[j] = T(std::nan(""));
        } else if (strides[in.a] == 0) {
          const T v = inputs[in.a][0];
          for (std::size_t j = 0; j < m; ++j) r[j] = v;
        } else {
          const T* src = inputs[in.a] + begin;
          for (std::size_t j = 0; j < m; ++j) r[j] = src[j];
        }
      } else {
        const int n_args = arity(in.op);
        const T* a = regs.data() + static_cast<std::size_t>(n_args >= 1 ? prog.reg[in.a] : 0) * kBlock;
        const T* b = regs.data() + static_cast<std::size_t>(n_args >= 2 ? prog.reg[in.b] : 0) * kBlock;
        kernel<T>(in, r, a, b, m);
      }
    }
    const T* res = regs.data() + static_cast<std::size_t>(prog.reg[nc - 1]) * kBlock;
    std::copy(res, res + m, out + begin);
  }
}

}  // namespace

Program compile(const Ast& ast, std::uint32_t node, std::vector<std::string_view> vars) {
  Program prog;
  prog.vars.assign(vars.begin(), vars.end());
  // about one instruction per node of the subtree, whose nodes all come at or before `node`
  prog.code.reserve(std::min<std::size_t>(std::size_t{node} + 1, ast.nodes.size()));
  Compiler c{ast, prog};
  c.go(node);
  allocate_registers(prog);
  return prog;
}

void run(const Program& prog, const std::vector<const double*>& inputs, const std::vector<std::size_t>& strides,
         std::size_t n, double* out) {
  run_impl<double>(prog, inputs, strides, n, out);
}

void run(const Program& prog, const std::vector<const std::complex<double>*>& inputs,
         const std::vector<std::size_t>& strides, std::size_t n, std::complex<double>* out) {
  run_impl<std::complex<double>>(prog, inputs, strides, n, out);
}

}  // namespace rapidgrade::expr
