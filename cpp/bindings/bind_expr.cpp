// Bindings of rapidgrade::expr and rapidgrade::equiv: the Expr class (which owns its AST),
// parse_expr, vectorized evaluation and the equivalence entry points.
#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/equiv.hpp"
#include "rapidgrade/expr.hpp"

namespace rapidgrade::bindings {
namespace {

using expr::Ast;
using expr::Kind;
using expr::Node;

struct PyExpr {
  std::shared_ptr<const Ast> ast;
};

expr::Syntax parse_syntax(const std::string& s) {
  if (s == "auto") return expr::Syntax::kAuto;
  if (s == "latex") return expr::Syntax::kLatex;
  if (s == "infix") return expr::Syntax::kInfix;
  if (s == "rpn") return expr::Syntax::kRpn;
  throw py::value_error("parse_expr: syntax must be 'auto', 'latex', 'infix' or 'rpn', not '" + s + "'");
}

/// Re-raises a ParseError with its byte offset converted to code points for str input.
[[noreturn]] void rethrow_in_caller_units(const ParseError& e, const Text& text) {
  std::string msg = e.what();
  std::size_t off = e.offset();
  if (!text.is_bytes && !text.ascii) {
    std::size_t cp = off;
    std::vector<std::size_t*> offs{&cp};
    to_caller_units(text, offs);
    const std::string needle = " at offset " + std::to_string(off);
    const auto pos = msg.rfind(needle);
    if (pos != std::string::npos) msg = msg.substr(0, pos) + " at offset " + std::to_string(cp);
    off = cp;
  }
  throw ParseError(msg, off);
}

PyExpr parse_expr(const py::handle& obj, const std::string& syntax) {
  const Text text = as_text(obj, "parse_expr", "text");
  const expr::Syntax syn = parse_syntax(syntax);
  auto ast = std::make_shared<Ast>();
  try {
    py::gil_scoped_release release;
    *ast = expr::parse(text.utf8, syn);
  } catch (const ParseError& e) {
    rethrow_in_caller_units(e, text);
  }
  return PyExpr{std::move(ast)};
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kNumber: return "num";
    case Kind::kSymbol: return "sym";
    case Kind::kConst: return "const";
    case Kind::kAdd: return "add";
    case Kind::kMul: return "mul";
    case Kind::kNeg: return "neg";
    case Kind::kDiv: return "div";
    case Kind::kPow: return "pow";
    case Kind::kFunc: return "func";
    case Kind::kFactorial: return "factorial";
    case Kind::kAbs: return "abs";
    case Kind::kPercent: return "percent";
    case Kind::kDegree: return "degree";
    case Kind::kPlusMinus: return "pm";
    case Kind::kTuple: return "tuple";
    case Kind::kSet: return "set";
    case Kind::kInterval: return "interval";
    case Kind::kUnion: return "union";
    case Kind::kMatrix: return "matrix";
    case Kind::kRelation: return "rel";
    case Kind::kText: return "text";
  }
  return "?";
}

// Recursion bounded by the tree depth (<= kMaxAstDepth).
py::tuple tree(const Ast& ast, std::uint32_t i) {
  const Node& n = ast.at(i);
  py::list items;
  items.append(kind_name(n.kind));
  switch (n.kind) {
    case Kind::kNumber:
    case Kind::kSymbol:
    case Kind::kConst:
    case Kind::kText:
    case Kind::kFunc: items.append(to_str(n.text)); break;
    case Kind::kRelation: {
      std::string ops;
      py::list names;
      for (char c : n.text) {
        names.append(c == 'l' ? "<=" : c == 'g' ? ">=" : c == 'n' ? "!=" : std::string(1, c));
      }
      items.append(py::tuple(names));
      break;
    }
    case Kind::kInterval:
      items.append(py::bool_((n.flags & expr::kLeftOpen) != 0));
      items.append(py::bool_((n.flags & expr::kRightOpen) != 0));
      break;
    case Kind::kMatrix: {
      const std::size_t cols = n.extra == 0 ? 1 : n.extra;
      items.append(n.kids.size() / cols);
      items.append(cols);
      break;
    }
    default: break;
  }
  for (std::uint32_t k : n.kids) items.append(tree(ast, k));
  return py::tuple(items);
}

py::frozenset free_symbols(const PyExpr& e) {
  py::set out;
  for (const auto& s : expr::free_symbols(*e.ast)) out.add(to_str(s));
  return py::frozenset(out);
}

py::object evaluate(const PyExpr& e, const py::kwargs& values) {
  const expr::Program prog = expr::compile(*e.ast, e.ast->root);
  if (!prog.evaluable) {
    throw py::value_error("evaluate: '" + std::string(to_str(expr::to_string(*e.ast))) +
                          "' is not a numeric expression (structure, relation, text or unknown function)");
  }
  for (auto item : values) {
    const std::string name = py::str(item.first);
    if (std::find(prog.vars.begin(), prog.vars.end(), name) == prog.vars.end()) {
      throw py::type_error("evaluate: unexpected keyword '" + name + "' (not a free symbol)");
    }
  }
  const std::size_t nv = prog.vars.size();
  bool complex_mode = prog.complex_constants;
  bool any_array = false;
  std::vector<py::object> raw(nv);
  for (std::size_t v = 0; v < nv; ++v) {
    const std::string name_text(prog.vars[v]);
    const char* name = name_text.c_str();
    if (!values.contains(name)) throw py::type_error(std::string("evaluate: missing value for symbol '") + name + "'");
    raw[v] = values[name];
    py::object o = raw[v];
    if (PyComplex_Check(o.ptr())) complex_mode = true;
    if (py::isinstance<py::array>(o)) {
      any_array = true;
      auto arr = py::reinterpret_borrow<py::array>(o);
      if (arr.dtype().kind() == 'c') complex_mode = true;
    } else if (!PyFloat_Check(o.ptr()) && !PyLong_Check(o.ptr()) && !PyComplex_Check(o.ptr())) {
      if (PySequence_Check(o.ptr()) && !PyUnicode_Check(o.ptr())) {
        any_array = true;
        py::array arr = py::array::ensure(o);
        if (!arr) throw py::type_error(std::string("evaluate: value of '") + name + "' is not numeric");
        if (arr.dtype().kind() == 'c') complex_mode = true;
      } else if (!py::hasattr(o, "__float__") && !py::hasattr(o, "__complex__")) {
        throw py::type_error(std::string("evaluate: value of '") + name + "' is not a number or array");
      }
    }
  }
  auto run_typed = [&](auto tag) -> py::object {
    using T = decltype(tag);
    using Arr = py::array_t<T, py::array::c_style | py::array::forcecast>;
    std::vector<Arr> arrays;
    std::vector<py::ssize_t> shape;
    std::size_t n = 1;
    for (std::size_t v = 0; v < nv; ++v) {
      Arr a = Arr::ensure(raw[v]);
      if (!a) throw py::type_error("evaluate: value of '" + std::string(prog.vars[v]) + "' cannot be converted");
      if (a.size() != 1 || a.ndim() > 0) {
        std::vector<py::ssize_t> s(a.shape(), a.shape() + a.ndim());
        if (a.size() == 1 && a.ndim() > 0 && shape.empty()) {
          // broadcasts like a scalar, but keeps the array shape if nothing larger comes
        }
        if (a.size() != 1) {
          if (!shape.empty() && s != shape) {
            throw py::value_error("evaluate: arrays of different shapes (only equal shapes and scalars broadcast)");
          }
          shape = s;
          n = static_cast<std::size_t>(a.size());
        } else if (shape.empty()) {
          shape = s;
        }
      }
      arrays.push_back(std::move(a));
    }
    std::vector<const T*> ptrs(nv);
    std::vector<std::size_t> strides(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      ptrs[v] = arrays[v].data();
      strides[v] = static_cast<std::size_t>(arrays[v].size()) == 1 ? 0 : 1;
    }
    Arr out(shape);
    T* dst = out.mutable_data();
    // Chunks of points on the batch runner: the GIL released while they run, Ctrl-C checked
    // between blocks of chunks.
    constexpr std::size_t kChunk = 1 << 15;
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    const unsigned threads = n >= (1u << 17) ? default_threads() : 1u;
    run_pipelined(
        chunks, threads,
        [&](std::size_t first, std::size_t last) {
          std::vector<const T*> p(nv);
          for (std::size_t c = first; c < last; ++c) {
            const std::size_t begin = c * kChunk;
            const std::size_t m = std::min(kChunk, n - begin);
            for (std::size_t v = 0; v < nv; ++v) p[v] = ptrs[v] + (strides[v] ? begin : 0);
            expr::run(prog, p, strides, m, dst + begin);
          }
        },
        [](std::size_t) {});
    if (!any_array) {
      const T value = dst[0];
      return py::cast(value);
    }
    return std::move(out);
  };
  if (complex_mode) return run_typed(std::complex<double>{});
  return run_typed(double{});
}

/// An argument of equivalent(): an Expr (shared) or a string (parsed; a parse error -> null).
struct Operand {
  std::shared_ptr<const Ast> ast;
  std::string text;
  bool parsed = false;
};

Operand operand(const py::handle& obj, const char* fn, const char* arg) {
  Operand op;
  if (py::isinstance<PyExpr>(obj)) {
    op.ast = obj.cast<const PyExpr&>().ast;
    op.parsed = true;
    return op;
  }
  const Text t = as_text(obj, fn, arg);
  op.text = std::string(t.utf8);
  return op;
}

int compare(Operand& a, Operand& b, const equiv::Options& o) {
  for (Operand* x : {&a, &b}) {
    if (!x->parsed) {
      x->parsed = true;
      std::optional<Ast> tree = expr::try_parse(x->text);
      if (tree)
        x->ast = std::make_shared<Ast>(std::move(*tree));
      else
        x->ast.reset();
    }
  }
  if (!a.ast || !b.ast) return static_cast<int>(equiv::Tri::kUnknown);
  return static_cast<int>(equiv::equivalent(*a.ast, *b.ast, o));
}

int equivalent(const py::handle& a, const py::handle& b, const py::object& rel_tol, const py::object& abs_tol,
               const py::object& float_rounding) {
  const equiv::Options o = equiv_options(rel_tol, abs_tol, float_rounding, "equivalent");
  Operand x = operand(a, "equivalent", "a"), y = operand(b, "equivalent", "b");
  py::gil_scoped_release release;
  return compare(x, y, o);
}

std::vector<int> equivalent_many(const py::handle& pairs_obj, const py::object& rel_tol, const py::object& abs_tol,
                                 const py::object& float_rounding, const py::object& threads) {
  const equiv::Options o = equiv_options(rel_tol, abs_tol, float_rounding, "equivalent_many");
  const unsigned n_threads = resolve_threads(threads, "equivalent_many");
  if (PyUnicode_Check(pairs_obj.ptr()) || !PySequence_Check(pairs_obj.ptr())) {
    throw py::type_error("equivalent_many: pairs must be a sequence of (a, b) pairs");
  }
  const auto seq = py::reinterpret_borrow<py::sequence>(pairs_obj);
  const std::size_t n = py::len(seq);
  std::vector<Operand> xs(n), ys(n);
  for (std::size_t i = 0; i < n; ++i) {
    py::object item = seq[i];
    if (!PySequence_Check(item.ptr()) || PyUnicode_Check(item.ptr()) || py::len(item) != 2) {
      throw py::type_error("equivalent_many: pairs[" + std::to_string(i) + "] is not an (a, b) pair");
    }
    auto pair = py::reinterpret_borrow<py::sequence>(item);
    const std::string where = "pairs[" + std::to_string(i) + "]";
    xs[i] = operand(pair[0], "equivalent_many", where.c_str());
    ys[i] = operand(pair[1], "equivalent_many", where.c_str());
  }
  std::vector<int> out(n, 2);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) out[i] = compare(xs[i], ys[i], o);
      },
      [](std::size_t) {});
  return out;
}

/// The function table (functions.hpp) as tuples, for the SymPy bridge and the tests:
/// (name, sympy, latex, words (space-separated), rpn, min_args, max_args or None, evaluable).
py::list function_table() {
  py::list out;
  for (const auto& f : rapidgrade::detail::kFunctionTable) {
    py::object max_args = f.max_args == rapidgrade::detail::kVariadic ? py::object(py::none()) : py::int_(f.max_args);
    const bool evaluable = f.op1 != expr::Op::kNan || f.op2 != expr::Op::kNan ||
                           (f.flags & rapidgrade::detail::kFalling) != 0;  // ff(x, 3) = x(x-1)(x-2)
    std::string words;
    for (std::string_view w : f.words) {
      if (w.empty()) continue;
      if (!words.empty()) words += ' ';
      words += w;
    }
    out.append(py::make_tuple(std::string(f.name), std::string(f.sympy), std::string(f.latex), words,
                              std::string(f.rpn), f.min_args, max_args, evaluable));
  }
  return out;
}

/// The text-wrapper commands (latex_vocab.hpp) as (name, content) with content "text", "math"
/// or "operator".
py::list text_wrappers() {
  py::list out;
  for (const auto& w : rapidgrade::detail::kTextWrappers) {
    const char* content = w.content == rapidgrade::detail::WrapperContent::kText   ? "text"
                          : w.content == rapidgrade::detail::WrapperContent::kMath ? "math"
                                                                                   : "operator";
    out.append(py::make_tuple(std::string(w.name), content));
  }
  return out;
}

/// The spacing commands (latex_vocab.hpp) as (name, "thin" or "wide"), without the backslash.
py::list spacing_commands() {
  py::list out;
  for (const auto& c : rapidgrade::detail::kSpacingCommands)
    out.append(py::make_tuple(std::string(c.name), c.width == rapidgrade::detail::Spacing::kThin ? "thin" : "wide"));
  return out;
}

/// The joiner words of a list answer (latex_vocab.hpp) as (word, alternative).
py::list joiner_words() {
  py::list out;
  for (const auto& j : rapidgrade::detail::kJoinerWords) out.append(py::make_tuple(std::string(j.word), j.alternative));
  return out;
}

/// The fraction commands (latex_vocab.hpp), without the backslash.
py::list fraction_commands() {
  py::list out;
  for (const std::string_view f : rapidgrade::detail::kFractionCommands) out.append(std::string(f));
  return out;
}

}  // namespace

void bind_expr(py::module_& m) {
  py::class_<PyExpr>(m, "Expr", "A parsed answer; owns its AST. Build with parse_expr().")
      .def("__str__", [](const PyExpr& e) { return to_str(expr::to_string(*e.ast)); })
      .def("__repr__", [](const PyExpr& e) { return to_str("Expr('" + expr::to_string(*e.ast) + "')"); })
      .def_property_readonly("free_symbols", &free_symbols, "Names of the free symbols, as a frozenset of str.")
      .def(
          "tree", [](const PyExpr& e) { return tree(*e.ast, e.ast->root); },
          "The AST as nested tuples: (kind, payload..., children...).")
      .def("evaluate", &evaluate,
           "Numeric value at the given symbol values (floats, complex numbers or NumPy arrays).");
  // Expr.to_sympy is defined in Python (rapidgrade/expr.py): the core never imports the package.
  m.def("expr_function_table", &function_table,
        "The function table of the expression engine: (name, sympy, latex, words, rpn, min_args, max_args, "
        "evaluable) tuples.");
  m.def("expr_text_wrappers", &text_wrappers, "The LaTeX text-wrapper commands: (name, content) tuples.");
  m.def("expr_fraction_commands", &fraction_commands, "The LaTeX fraction commands, without the backslash.");
  m.def("latex_spacing_commands", &spacing_commands,
        "The LaTeX spacing commands: (name without the backslash, 'thin' or 'wide') tuples.");
  m.def("latex_joiner_words", &joiner_words,
        "The words that join the parts of a list answer: (word, whether the parts are alternatives) tuples.");
  m.def("parse_expr", &parse_expr, py::arg("text"), py::kw_only(), py::arg("syntax") = "auto",
        "Parses LaTeX, infix or RPN text into an Expr.");
  m.def("equivalent", &equivalent, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("rel_tol") = 1e-9,
        py::arg("abs_tol") = 1e-12, py::arg("float_rounding") = py::none(),
        "0 (false), 1 (true) or 2 (unknown): whether a and b denote the same answer.");
  m.def("equivalent_many", &equivalent_many, py::arg("pairs"), py::kw_only(), py::arg("rel_tol") = 1e-9,
        py::arg("abs_tol") = 1e-12, py::arg("float_rounding") = py::none(), py::arg("threads") = py::none(),
        "equivalent() over a sequence of pairs, with the GIL released.");
}

}  // namespace rapidgrade::bindings
