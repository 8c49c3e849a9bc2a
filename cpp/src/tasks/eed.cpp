// The EED score (see rapidgrade/eed.hpp): PHYBench's LaTeX preprocessing stages, the expressions
// (put into SymPy's form by eed_sympy.cpp, see eed_internal.hpp) as flat trees, Zhang-Shasha tree
// edit distance with PHYBench's costs, strip_unit, the score map and canonical_tree.
#include "rapidgrade/tasks/eed.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "eed_internal.hpp"
#include "rapidgrade/equiv.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/tasks/physics.hpp"

namespace rapidgrade::eed {

const char* status_name(Status status) noexcept {
  switch (status) {
    case Status::kScored: return "scored";
    case Status::kEqual: return "equal";
    case Status::kEmpty: return "empty";
    case Status::kUnsupported: return "unsupported";
    case Status::kTooLong: return "too_long";
    case Status::kParseFailed: return "parse_failed";
    case Status::kTooLarge: return "too_large";
    case Status::kUnitMismatch: return "unit_mismatch";
  }
  return "scored";
}

using namespace internal;

namespace {

// -- the distance ------------------------------------------------------------------------------------

struct Flat {  // a tree in post-order
  std::vector<std::uint8_t> kind;
  std::vector<std::uint32_t> label;  // interned label id
  std::vector<std::uint32_t> lmd;    // leftmost leaf descendant
  std::vector<std::uint32_t> nkids;
  std::vector<double> size;  // subtree insertion cost
  std::vector<std::uint32_t> keyroots;
};

std::string label_of(const Pool& p, std::uint32_t i) {
  const Term& x = p.at(i);
  switch (x.c) {
    case C::kNum: return "number_" + int_str(x.q.n) + (x.q.d == 1 ? "" : "/" + int_str(x.q.d));
    case C::kFloat: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "number_%.15g",
                    static_cast<double>(static_cast<long double>(x.q.n) / static_cast<long double>(x.q.d)));
      return buf;
    }
    case C::kPi: return "number_pi";
    case C::kE: return "number_E";
    case C::kI: return "number_I";
    case C::kInf: return "number_oo";
    case C::kNegInf: return "number_-oo";
    case C::kZoo: return "number_zoo";
    case C::kSymbol: return "symbol_" + x.name;
    case C::kPow: return "operator_Pow";
    case C::kMul: return "operator_Mul";
    case C::kAdd: return "operator_Add";
    case C::kFunc: return "function_" + x.name;
  }
  return "";
}

NodeKind kind_of(const Pool& p, std::uint32_t i) {
  switch (p.at(i).c) {
    case C::kSymbol: return NodeKind::kSymbol;
    case C::kPow:
    case C::kMul:
    case C::kAdd: return NodeKind::kOperator;
    case C::kFunc: return NodeKind::kFunction;
    default: return NodeKind::kNumber;
  }
}

// A negative number under Mul/Add prints "-1" etc.; SymPy's tree holds it as one number node.
std::size_t count_nodes(const Pool& p, std::uint32_t i, std::size_t cap) {
  std::size_t n = 1;
  for (std::uint32_t k : p.at(i).k) {
    n += count_nodes(p, k, cap);
    if (n > cap) return n;
  }
  return n;
}

void flatten(const Pool& p, std::uint32_t root, const Config& cfg, std::map<std::string, std::uint32_t>& labels,
             Flat& f) {
  // iterative post-order
  struct Frame {
    std::uint32_t node;
    std::size_t next;
    std::uint32_t first_leaf;
  };
  std::vector<Frame> stack{{root, 0, 0}};
  std::vector<double> child_sizes;  // running sums per frame
  std::vector<double> sums{0.0};
  while (!stack.empty()) {
    Frame& fr = stack.back();
    const Term& x = p.at(fr.node);
    if (fr.next < x.k.size()) {
      std::uint32_t child = x.k[fr.next++];
      stack.push_back({child, 0, 0});
      sums.push_back(0.0);
      continue;
    }
    const std::uint32_t idx = static_cast<std::uint32_t>(f.kind.size());
    const NodeKind k = kind_of(p, fr.node);
    f.kind.push_back(static_cast<std::uint8_t>(k));
    auto [it, inserted] = labels.emplace(label_of(p, fr.node), static_cast<std::uint32_t>(labels.size()));
    (void)inserted;
    f.label.push_back(it->second);
    f.nkids.push_back(static_cast<std::uint32_t>(x.k.size()));
    const double own = cfg.insert_cost[static_cast<int>(k)];
    const double total = own + sums.back();
    f.size.push_back(total);
    // leftmost leaf: the first node of this subtree in post-order
    const std::uint32_t lmd = x.k.empty() ? idx : fr.first_leaf;
    f.lmd.push_back(lmd);
    stack.pop_back();
    sums.pop_back();
    if (!stack.empty()) {
      sums.back() += total;
      if (stack.back().next == 1) stack.back().first_leaf = lmd;
    }
  }
  // keyroots: for each leftmost leaf, the highest node having it
  std::vector<std::int64_t> highest(f.kind.size(), -1);
  for (std::uint32_t i = 0; i < f.kind.size(); ++i) highest[f.lmd[i]] = i;
  for (std::uint32_t i = 0; i < f.kind.size(); ++i)
    if (highest[i] >= 0) f.keyroots.push_back(static_cast<std::uint32_t>(highest[i]));
  std::sort(f.keyroots.begin(), f.keyroots.end());
}

double tree_cost(const Flat& f, std::uint32_t i, const Config& cfg, bool remove) {
  if (f.nkids[i] == 0) return remove ? cfg.delete_cost[f.kind[i]] : cfg.delete_cost[f.kind[i]];
  const double s = f.size[i];
  return std::min(s, cfg.discount_slope * (s - cfg.bar_size) + cfg.bar_size);
}

// PHYBench's extended Zhang-Shasha (tree_distance.ext_distance): single-node and whole-subtree
// insertions and removals, relabelling by kind.
double ext_distance(const Flat& a, const Flat& b, const Config& cfg) {
  const std::size_t na = a.kind.size(), nb = b.kind.size();
  std::vector<double> treedists(na * nb, 0.0);
  std::vector<double> fd((na + 1) * (nb + 1), 1000.0);
  auto FD = [&](std::size_t i, std::size_t j) -> double& { return fd[i * (nb + 1) + j]; };
  auto TD = [&](std::size_t i, std::size_t j) -> double& { return treedists[i * nb + j]; };
  auto update = [&](std::uint32_t i, std::uint32_t j) -> double {
    if (a.label[i] == b.label[j]) return 0.0;
    if (a.kind[i] == b.kind[j]) return cfg.update_cost[a.kind[i]];
    return cfg.change_type_cost;
  };
  for (std::uint32_t x : a.keyroots) {
    for (std::uint32_t y : b.keyroots) {
      const std::uint32_t ax = a.lmd[x], by = b.lmd[y];
      FD(ax, by) = 0;
      for (std::uint32_t i = ax; i <= x; ++i) FD(i + 1, by) = FD(a.lmd[i], by) + tree_cost(a, i, cfg, true);
      for (std::uint32_t j = by; j <= y; ++j) FD(ax, j + 1) = FD(ax, b.lmd[j]) + tree_cost(b, j, cfg, false);
      for (std::uint32_t i = ax; i <= x; ++i) {
        for (std::uint32_t j = by; j <= y; ++j) {
          double m = FD(i, j + 1) + cfg.delete_cost[a.kind[i]];
          m = std::min(m, FD(i + 1, j) + cfg.insert_cost[b.kind[j]]);
          m = std::min(m, FD(a.lmd[i], j + 1) + tree_cost(a, i, cfg, true));
          m = std::min(m, FD(i + 1, b.lmd[j]) + tree_cost(b, j, cfg, false));
          if (a.lmd[i] == ax && b.lmd[j] == by) {
            TD(i, j) = std::min(m, FD(i, j) + update(i, j));
            FD(i + 1, j + 1) = TD(i, j);
          } else {
            FD(i + 1, j + 1) = std::min(m, FD(a.lmd[i], b.lmd[j]) + TD(i, j));
          }
        }
      }
    }
  }
  return TD(na - 1, nb - 1);
}

// -- text before parsing -------------------------------------------------------------------------------

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// the end of the brace group opening at `open` (index of '{'), or npos
std::size_t group_end(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      ++i;
      continue;
    }
    if (s[i] == '{') ++depth;
    if (s[i] == '}' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\n' || s[b - 1] == '\r')) --b;
  return std::string(s.substr(a, b - a));
}

std::string replace_all(std::string s, std::string_view from, std::string_view to) {
  std::size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

// \cmd{...} -> {...} (the command dropped, its group kept), for every occurrence
std::string unwrap_command(std::string s, std::string_view cmd) {
  std::size_t pos = 0;
  while ((pos = s.find(cmd, pos)) != std::string::npos) {
    const std::size_t after = pos + cmd.size();
    if (after < s.size() && is_alpha(s[after])) {
      pos = after;
      continue;
    }
    std::size_t open = after;
    while (open < s.size() && s[open] == ' ') ++open;
    if (open < s.size() && s[open] == '{') {
      s.erase(pos, open - pos);
    } else {
      s.erase(pos, cmd.size());
    }
  }
  return s;
}

// PHYBench's first stage: the boxed content, outer braces, the part before \quad, the part after
// the last relation.
std::string first_stage(std::string s) {
  s = replace_all(std::move(s), "\\{", "(");
  s = replace_all(std::move(s), "\\}", ")");
  s = unwrap_command(std::move(s), "\\boxed");
  auto strip_braces = [](std::string x) {
    for (int k = 0; k < 10; ++k) {
      std::string t = trim(x);
      if (t.size() >= 2 && t.front() == '{' && group_end(t, 0) == t.size() - 1) {
        x = t.substr(1, t.size() - 2);
      } else {
        return t;
      }
    }
    return trim(x);
  };
  s = strip_braces(std::move(s));
  if (std::size_t q = s.find("\\quad"); q != std::string::npos) s = s.substr(0, q);
  // after the last relation (top level)
  static constexpr std::string_view kRel[] = {"\\approx", "\\simeq", "\\sim", "\\propto", "\\equiv",
                                              "\\cong",   "\\geq",   "\\leq", "\\ge",     "\\le",
                                              "\\neq",    "\\ne",    "=",     "<",        ">"};
  std::size_t cut = std::string::npos, cut_len = 0;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '{' || c == '(' || c == '[') ++depth;
    if (c == '}' || c == ')' || c == ']') --depth;
    if (depth != 0) continue;
    for (std::string_view r : kRel) {
      if (s.compare(i, r.size(), r) == 0 && (r[0] != '\\' || i + r.size() >= s.size() || !is_alpha(s[i + r.size()]))) {
        cut = i;
        cut_len = r.size();
        break;
      }
    }
  }
  if (cut != std::string::npos) s = s.substr(cut + cut_len);
  return strip_braces(std::move(s));
}

bool known_command(std::string_view c) {
  static constexpr std::string_view kKnown[] = {
      "frac",    "dfrac",        "tfrac",  "cfrac",    "sqrt",   "pi",      "infty",      "left",   "right",
      "cdot",    "times",        "div",    "ln",       "log",    "exp",     "sin",        "cos",    "tan",
      "sec",     "csc",          "cot",    "arcsin",   "arccos", "arctan",  "sinh",       "cosh",   "tanh",
      "coth",    "operatorname", "mathrm", "text",     "textrm", "mathbf",  "mathit",     "rm",     "binom",
      "circ",    "alpha",        "beta",   "gamma",    "delta",  "epsilon", "varepsilon", "zeta",   "eta",
      "theta",   "vartheta",     "iota",   "kappa",    "lambda", "mu",      "nu",         "xi",     "omicron",
      "rho",     "varrho",       "sigma",  "varsigma", "tau",    "upsilon", "phi",        "varphi", "chi",
      "psi",     "omega",        "Gamma",  "Delta",    "Theta",  "Lambda",  "Xi",         "Pi",     "Sigma",
      "Upsilon", "Phi",          "Psi",    "Omega",    "cdotp",  "pm",      "mp",         "lfloor", "rfloor",
      "lceil",   "rceil",        "Big",    "big",      "Bigg",   "bigg",    "quad",       "qquad",  "partial",
      "ell",     "hbar_unused"};
  for (std::string_view k : kKnown)
    if (k == c) return true;
  return false;
}

// PHYBench's second stage where it changes meaning, and commands the parser does not know made
// into symbols named as latex2sympy names them (\hbar -> hbar, \vec{F} -> vec{F}).
std::string second_stage(std::string s, Names& names) {
  static constexpr std::string_view kDrop[] = {
      "\\displaystyle", "\\left",  "\\right", "\\Bigr", "\\Bigl", "\\bigl", "\\bigr",
      "\\biggl",        "\\biggr", "\\Big",   "\\,",    "\\;",    "\\!",    "$"};
  for (std::string_view d : kDrop) {
    std::size_t pos = 0;
    while ((pos = s.find(d, pos)) != std::string::npos) {
      if (d[0] == '\\' && is_alpha(d[1]) && pos + d.size() < s.size() && is_alpha(s[pos + d.size()]) && d != "\\left" &&
          d != "\\right") {
        pos += d.size();
        continue;
      }
      if ((d == "\\left" || d == "\\right") && pos + d.size() < s.size() && is_alpha(s[pos + d.size()])) {
        pos += d.size();
        continue;
      }
      s.erase(pos, d.size());
      if (d == "\\left" || d == "\\right") {
        // "\left." and "\right." are invisible delimiters
        if (pos < s.size() && s[pos] == '.') s.erase(pos, 1);
      }
    }
  }
  for (std::string_view w : {"\\hat", "\\overline", "\\boldsymbol", "\\mathbb", "\\mathcal", "\\mathfrak", "\\pmb"})
    s = unwrap_command(std::move(s), w);
  s = replace_all(std::move(s), "\\pm", "+");
  s = replace_all(std::move(s), "\\mp", "-");
  s = replace_all(std::move(s), "\\varOmega", "\\Omega");
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (is_alpha(s[i])) {
      // a run of letters is a product of one-letter symbols, as latex2sympy reads it ("GMm"),
      // except a name in a wrapper or a subscript, or a function name before "("
      std::size_t j = i;
      while (j < s.size() && is_alpha(s[j])) ++j;
      bool wrapped = false;
      for (std::string_view w : {"_{", "\\mathrm{", "\\text{", "\\textrm{", "\\operatorname{", "\\mathbf{", "\\mathit{",
                                 "\\rm{", "\\begin{", "\\end{"})
        wrapped = wrapped || (out.size() >= w.size() && out.compare(out.size() - w.size(), w.size(), w) == 0);
      const bool call = j < s.size() && s[j] == '(';
      if (j - i >= 3 && !wrapped && !call) {
        for (std::size_t k = i; k < j; ++k) {
          out += s[k];
          if (k + 1 < j) out += ' ';
        }
      } else {
        out.append(s, i, j - i);
      }
      i = j;
      continue;
    }
    if (s[i] != '\\' || i + 1 >= s.size() || !is_alpha(s[i + 1])) {
      out += s[i++];
      continue;
    }
    std::size_t j = i + 1;
    while (j < s.size() && is_alpha(s[j])) ++j;
    std::string_view cmd(s.data() + i + 1, j - i - 1);
    if (known_command(cmd)) {
      out.append(s, i, j - i);
      i = j;
      continue;
    }
    std::string real(cmd);
    std::size_t end = j;
    if (cmd == "vec" || cmd == "bar" || cmd == "dot" || cmd == "ddot" || cmd == "tilde" || cmd == "widetilde") {
      std::size_t open = j;
      while (open < s.size() && s[open] == ' ') ++open;
      if (open < s.size() && s[open] == '{') {
        std::size_t close = group_end(s, open);
        if (close != std::string::npos) {
          real += s.substr(open, close - open + 1);
          end = close + 1;
        }
      } else if (open < s.size()) {
        real += "{" + std::string(1, s[open]) + "}";
        end = open + 1;
      }
    }
    const std::string ph = "upsilon_Q" + std::to_string(names.placeholders.size());
    names.placeholders.emplace_back(ph, real);
    out += "{\\upsilon_{Q" + std::to_string(names.placeholders.size() - 1) + "}}";
    i = end;
  }
  while (!out.empty() && (out.back() == '.' || out.back() == ' ')) out.pop_back();
  return out;
}

struct Side {
  Pool pool;
  std::uint32_t root = 0;
  std::optional<expr::Ast> ast;
  bool ok = false;
  bool unsupported = false;
  bool too_big = false;
};

void build(std::string_view text, Side& side, double scale) {
  Names names;
  std::string s = second_stage(first_stage(std::string(text)), names);
  side.ast = expr::try_parse(s, expr::Syntax::kAuto);
  if (!side.ast) return;
  try {
    Pool& p = side.pool;
    std::uint32_t r = convert(p, *side.ast, side.ast->root, names);
    if (scale != 1.0) {
      // a unit conversion factor: exact when it is a power of ten or a small fraction
      double ip;
      std::uint32_t f;
      if (std::modf(scale, &ip) == 0.0 && std::fabs(scale) < 1e18) {
        f = p.num(static_cast<Int>(scale));
      } else if (std::modf(1.0 / scale, &ip) == 0.0 && std::fabs(1.0 / scale) < 1e18) {
        f = p.num(Q{1, static_cast<Int>(1.0 / scale)});
      } else {
        f = p.make(Term{
            C::kFloat, qmake(static_cast<Int>(std::llround(scale * 1e12)), static_cast<Int>(1000000000000LL)), {}, {}});
        p.had_float = true;
      }
      r = p.mul({f, r});
      p.had_float = true;  // a converted magnitude is a float, as the gold's decimal is
    }
    r = normal(p, r, true);
    r = factor_terms(p, r);
    if (p.had_float) r = restore_floats(p, r);
    side.root = r;
    side.ok = true;
  } catch (const Overflow&) {
    side.ok = false;
  } catch (const Unsupported&) {
    side.unsupported = true;
  } catch (const TooBig&) {
    side.too_big = true;
  }
}

void write_tree(const Pool& p, std::uint32_t i, std::string& out) {
  out += label_of(p, i);
  const Term& x = p.at(i);
  if (x.k.empty()) return;
  out += '(';
  for (std::size_t k = 0; k < x.k.size(); ++k) {
    if (k) out += ", ";
    write_tree(p, x.k[k], out);
  }
  out += ')';
}

}  // namespace

Stripped strip_unit(std::string_view text) {
  std::string s = trim(text);
  // a trailing \mathrm{...} / \text{...} group (with an optional power) reading as a unit
  static constexpr std::string_view kWrappers[] = {"\\mathrm", "\\text", "\\textrm", "\\rm", "\\mathrm "};
  std::size_t best = std::string::npos;
  for (std::string_view w : kWrappers) {
    std::size_t pos = s.rfind(w);
    if (pos == std::string::npos || pos == 0) continue;
    std::size_t open = pos + w.size();
    while (open < s.size() && s[open] == ' ') ++open;
    if (open >= s.size() || s[open] != '{') continue;
    std::size_t close = group_end(s, open);
    if (close == std::string::npos) continue;
    std::size_t end = close + 1;
    if (end < s.size() && s[end] == '^') {  // \mathrm{m}^{2}
      ++end;
      if (end < s.size() && s[end] == '{') {
        std::size_t c2 = group_end(s, end);
        end = c2 == std::string::npos ? s.size() : c2 + 1;
      } else if (end < s.size()) {
        ++end;
      }
    }
    if (trim(std::string_view(s).substr(end)).empty() && (best == std::string::npos || pos < best)) best = pos;
  }
  if (best != std::string::npos) {
    // the unit may span several groups: "\mathrm{kg}\,\mathrm{m}^{2}"; take from the first
    // wrapper of the trailing run
    std::string unit_text = s.substr(best);
    physics::MathContent mc = physics::extract_math_content(unit_text);
    physics::Unit u = physics::parse_unit(mc.text, false);
    if (u.ok) {
      std::string rest = s.substr(0, best);
      while (!rest.empty()) {
        std::string t = trim(rest);
        bool changed = false;
        if (!t.empty() && t.back() == '\\' && (t.size() < 2 || t[t.size() - 2] != '\\')) {  // "\ " trimmed
          t.pop_back();
          changed = true;
        }
        for (std::string_view sp : {"\\,", "\\;", "\\ ", "\\!", "~", "\\quad"}) {
          if (t.size() >= sp.size() && t.compare(t.size() - sp.size(), sp.size(), sp) == 0) {
            t.erase(t.size() - sp.size());
            changed = true;
          }
        }
        rest = t;
        if (!changed) break;
      }
      if (!trim(rest).empty()) return {trim(rest), u.pint};
    }
  }
  // a plain number followed by a unit: "9.8 m/s^2"
  physics::MathContent mc = physics::extract_math_content(s);
  physics::Quantity q = physics::read_quantity(mc.text);
  std::size_t letters = 0;
  for (char c : q.unit.shown) letters += is_alpha(c) ? 1 : 0;
  const bool clear_unit = letters >= 2 || q.unit.shown.find('/') != std::string::npos;
  if (q.has_number && q.unit.ok && q.rest_is_unit && clear_unit && mc.text.find("\\frac") == std::string::npos) {
    return {physics::format_number(q.value), q.unit.pint};
  }
  return {s, ""};
}

Result score(std::string_view gold, std::string_view answer, const Config& config, double answer_scale) {
  Result r;
  Stripped g = strip_unit(gold);
  Stripped a = strip_unit(answer);
  r.gold_unit = g.unit;
  r.answer_unit = a.unit;
  // PHYBench's checks on the raw strings
  if (trim(answer).empty()) {
    r.status = Status::kEmpty;
    return r;
  }
  if (gold.find("\\int") != std::string_view::npos || answer.find("\\int") != std::string_view::npos ||
      gold.find("\\sum") != std::string_view::npos || answer.find("\\sum") != std::string_view::npos) {
    r.status = Status::kUnsupported;
    return r;
  }
  if (gold == answer && answer_scale == 1.0) {
    r.score = 100;
    r.relative_distance = 0;
    r.distance = 0;
    r.status = Status::kEqual;
    return r;
  }
  if (answer.size() > 3 * gold.size()) {
    r.status = Status::kTooLong;
    return r;
  }
  Side gs, as;
  build(g.text, gs, 1.0);
  build(a.text, as, answer_scale);
  if (gs.unsupported || as.unsupported) {
    r.status = Status::kUnsupported;
    return r;
  }
  if (gs.too_big || as.too_big) {
    r.status = Status::kTooLarge;
    return r;
  }
  if (!gs.ok || !as.ok) {
    r.status = Status::kParseFailed;
    return r;
  }
  const std::size_t ng = count_nodes(gs.pool, gs.root, kMaxEedNodes);
  const std::size_t na = count_nodes(as.pool, as.root, kMaxEedNodes);
  if (ng > kMaxEedNodes || na > kMaxEedNodes || ng * na > config.max_cells) {
    r.status = Status::kTooLarge;
    return r;
  }
  std::map<std::string, std::uint32_t> labels;
  Flat fg, fa;
  flatten(gs.pool, gs.root, config, labels, fg);
  flatten(as.pool, as.root, config, labels, fa);
  r.tree_size = fg.size.back();
  // equal: the same tree, or the same values (the core's equivalence at sample points)
  bool equal = fg.label == fa.label && fg.lmd == fa.lmd && fg.nkids == fa.nkids;
  // the core's numeric equivalence, for sides with the same symbols only (with others, a term
  // small beside the rest could pass for equal at the sample points)
  if (!equal && answer_scale == 1.0 && expr::free_symbols(*gs.ast) == expr::free_symbols(*as.ast)) {
    equiv::Limit limit = equiv::Limit::kNone;
    equal = equiv::equivalent(*gs.ast, *as.ast, equiv::Options{}, &limit) == equiv::Tri::kTrue;
  }
  if (equal) {
    r.score = 100;
    r.relative_distance = 0;
    r.distance = 0;
    r.status = Status::kEqual;
    return r;
  }
  const double d = ext_distance(fa, fg, config);
  r.distance = d;
  r.relative_distance = d / r.tree_size;
  r.score = d == 0.0 ? 100.0 : std::max(0.0, config.initial_score - config.scoring_slope * d / r.tree_size);
  r.status = d == 0.0 ? Status::kEqual : Status::kScored;
  return r;
}

std::string canonical_tree(std::string_view text) {
  Side s;
  build(strip_unit(text).text, s, 1.0);
  if (!s.ok) return "";
  std::string out;
  write_tree(s.pool, s.root, out);
  return out;
}

}  // namespace rapidgrade::eed
