// Bindings of rapidgrade::fredholm: the post-processing of integral-equation answers, one
// response or a batch (GIL released, Ctrl-C checked between blocks), and the vectorized
// sampling of many solutions over their domains. Conversion only; the rules are in the core.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "convert.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/tasks/fredholm.hpp"

namespace rapidgrade::bindings {
namespace {

using fredholm::Parsed;

expr::Syntax syntax_of(const std::string& s, const char* function) {
  if (s == "auto") return expr::Syntax::kAuto;
  if (s == "latex") return expr::Syntax::kLatex;
  if (s == "infix") return expr::Syntax::kInfix;
  if (s == "rpn") return expr::Syntax::kRpn;
  throw py::value_error(std::string(function) + ": syntax must be 'auto', 'latex', 'infix' or 'rpn', not '" + s + "'");
}

const char* syntax_name(expr::Syntax s) {
  switch (s) {
    case expr::Syntax::kInfix: return "infix";
    case expr::Syntax::kRpn: return "rpn";
    default: return "latex";
  }
}

py::object opt_bool(const std::optional<bool>& b) { return b ? py::object(py::bool_(*b)) : py::object(py::none()); }
py::object opt_str(const std::optional<std::string>& s) { return s ? py::object(to_str(*s)) : py::object(py::none()); }

// (solution, expr_text, expr_syntax, method, parsed, says_no_solution, has_solution,
//  solution_type, reasoning, points, confidence)
py::tuple build(const Parsed& p) {
  py::list points(p.points.size());
  for (std::size_t i = 0; i < p.points.size(); ++i) points[i] = py::make_tuple(p.points[i].first, p.points[i].second);
  return py::make_tuple(p.solution.empty() ? py::object(py::none()) : py::object(to_str(p.solution)),
                        p.parsed ? py::object(to_str(p.expr_text)) : py::object(py::none()),
                        py::str(syntax_name(p.expr_syntax)),
                        py::str(std::string(fredholm::kMethodNames[static_cast<int>(p.method)])), py::bool_(p.parsed),
                        py::bool_(p.says_no_solution), opt_bool(p.has_solution), opt_str(p.solution_type),
                        opt_str(p.reasoning), points, py::float_(p.confidence));
}

using SymbolSpec = std::map<std::string, std::pair<std::string, std::string>>;

// The symbol table from {name: (kind, text)}: kind "symbol" (text: a name), "const" (pi, E, I,
// oo) or "number" (a decimal literal, maybe negative). ValueError for anything else.
fredholm::SymbolTable table_of(const SymbolSpec& spec, const char* function) {
  auto bad = [&](const std::string& name, const std::string& why) {
    return py::value_error(std::string(function) + ": symbols[" + name + "]: " + why);
  };
  auto is_name = [](const std::string& w) {
    if (w.empty() || w.size() > 64 || !std::isalpha(static_cast<unsigned char>(w[0]))) return false;
    for (char c : w) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
    return true;
  };
  fredholm::SymbolTable table;
  for (const auto& [name, rule] : spec) {
    if (!is_name(name)) throw bad(name, "a name is a letter, then letters, digits or '_'");
    const auto& [kind, text] = rule;
    fredholm::SymbolRule r;
    r.text = text;
    if (kind == "symbol") {
      if (!is_name(text)) throw bad(name, "the symbol '" + text + "' is not a name");
      r.kind = fredholm::SymbolRule::Kind::kSymbol;
    } else if (kind == "const") {
      if (text != "pi" && text != "E" && text != "I" && text != "oo") throw bad(name, "the constants are pi, E, I, oo");
      r.kind = fredholm::SymbolRule::Kind::kConst;
    } else if (kind == "number") {
      const std::string digits = !text.empty() && text[0] == '-' ? text.substr(1) : text;
      const std::optional<expr::Ast> ast = expr::try_parse(digits, expr::Syntax::kInfix);
      if (!ast || ast->at(ast->root).kind != expr::Kind::kNumber)
        throw bad(name, "'" + text + "' is not a decimal number");
      r.text = (digits.size() < text.size() ? "-" : "") + expr::to_string(*ast);
      r.kind = fredholm::SymbolRule::Kind::kNumber;
    } else {
      throw bad(name, "the kind is 'symbol', 'const' or 'number', not '" + kind + "'");
    }
    table.emplace(name, std::move(r));
  }
  return table;
}

fredholm::Options options_of(bool extract_solution, bool validate, const std::string& syntax, const SymbolSpec& symbols,
                             const char* function) {
  fredholm::Options o;
  o.extract_solution = extract_solution;
  o.validate = validate;
  o.syntax = syntax_of(syntax, function);
  o.symbols = table_of(symbols, function);
  return o;
}

py::tuple fredholm_parse(const py::handle& text_obj, bool extract_solution, bool validate, const std::string& syntax,
                         const SymbolSpec& symbols) {
  const fredholm::Options o = options_of(extract_solution, validate, syntax, symbols, "fredholm_parse");
  const Text text = as_text(text_obj, "fredholm_parse", "response");
  Parsed p;
  {
    py::gil_scoped_release release;
    p = fredholm::parse_output(text.utf8, o);
  }
  return build(p);
}

py::list fredholm_parse_many(const py::handle& texts_obj, bool extract_solution, bool validate,
                             const std::string& syntax, const SymbolSpec& symbols, const py::object& threads) {
  const fredholm::Options o = options_of(extract_solution, validate, syntax, symbols, "fredholm_parse_many");
  const unsigned n_threads = resolve_threads(threads, "fredholm_parse_many");
  const std::vector<Text> texts = texts_of(texts_obj, "fredholm_parse_many", "responses");
  const std::size_t n = texts.size();
  std::vector<Parsed> results(n);
  py::list out(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) results[i] = fredholm::parse_output(texts[i].utf8, o);
      },
      [&](std::size_t i) {
        set_item(out, i, build(results[i]));
        results[i] = Parsed{};
      });
  return out;
}

// Samples each (text, syntax) expression of the variable `variable` at its own points
// xs[i] (a float64 array); other free symbols take `constants` values (name -> value) when
// given, else the row is nan. Returns one float64 array per row (nan where undefined or
// complex, or for every point when the text does not parse or is not numeric).
py::list fredholm_sample_many(const std::vector<std::pair<std::string, std::string>>& exprs,
                              const std::vector<py::array_t<double, py::array::c_style | py::array::forcecast>>& xs,
                              const std::string& variable, const std::map<std::string, double>& constants,
                              const py::object& threads) {
  if (exprs.size() != xs.size()) throw py::value_error("fredholm_sample_many: exprs and xs differ in length");
  const unsigned n_threads = resolve_threads(threads, "fredholm_sample_many");
  const std::size_t n = exprs.size();
  std::vector<expr::Syntax> syn(n);
  for (std::size_t i = 0; i < n; ++i) syn[i] = syntax_of(exprs[i].second, "fredholm_sample_many");
  std::vector<std::vector<double>> in(n), res(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& a = xs[i];
    in[i].assign(a.data(), a.data() + a.size());
  }
  py::list out(n);
  run_pipelined(
      n, n_threads,
      [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
          res[i] = fredholm::sample(exprs[i].first, syn[i], variable, constants, in[i]);
      },
      [&](std::size_t i) {
        py::array_t<double> arr(static_cast<py::ssize_t>(res[i].size()));
        std::copy(res[i].begin(), res[i].end(), arr.mutable_data());
        set_item(out, i, std::move(arr));
        res[i] = {};
        in[i] = {};
      });
  return out;
}

// A recorded solution string read as parse_llm_output reads a candidate: (cleaned text,
// expr_text, syntax) or None when it does not parse to an expression.
py::object fredholm_read_solution(const std::string& text, const std::string& syntax, const SymbolSpec& symbols) {
  const expr::Syntax syn = syntax_of(syntax, "fredholm_read_solution");
  const fredholm::SymbolTable table = table_of(symbols, "fredholm_read_solution");
  Parsed p;
  bool ok = false;
  {
    py::gil_scoped_release release;
    ok = fredholm::read_solution(text, syn, table, p);
  }
  if (!ok) return py::none();
  return py::make_tuple(to_str(p.solution), to_str(p.expr_text), py::str(syntax_name(p.expr_syntax)));
}

}  // namespace

void bind_fredholm(py::module_& m) {
  m.def("fredholm_parse", &fredholm_parse, py::arg("response"), py::kw_only(), py::arg("extract_solution") = true,
        py::arg("validate") = true, py::arg("syntax") = "auto", py::arg("symbols") = SymbolSpec{},
        "Post-processes one integral-equation answer (see rapidgrade.tasks.fredholm).");
  m.def("fredholm_parse_many", &fredholm_parse_many, py::arg("responses"), py::kw_only(),
        py::arg("extract_solution") = true, py::arg("validate") = true, py::arg("syntax") = "auto",
        py::arg("symbols") = SymbolSpec{}, py::arg("threads") = py::none(),
        "fredholm_parse over many responses, GIL released.");
  m.def("fredholm_read_solution", &fredholm_read_solution, py::arg("text"), py::kw_only(), py::arg("syntax") = "auto",
        py::arg("symbols") = SymbolSpec{},
        "Cleans and parses one solution string: (cleaned, expr_text, syntax) or None. symbols: "
        "{name: (kind, text)}, kind 'symbol', 'const' or 'number'.");
  m.def("fredholm_sample_many", &fredholm_sample_many, py::arg("exprs"), py::arg("xs"), py::kw_only(),
        py::arg("variable") = "x", py::arg("constants") = std::map<std::string, double>{},
        py::arg("threads") = py::none(), "Samples many expressions at their own points, GIL released.");
}

}  // namespace rapidgrade::bindings
