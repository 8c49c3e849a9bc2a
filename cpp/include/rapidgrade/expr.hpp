// The expression engine: one AST for LaTeX, infix (Python/SymPy style) and RPN answers, a
// canonical printer, exact rational evaluation and vectorized numeric evaluation.
//
// Every routine here is bounded: the parsers reject nesting deeper than kMaxAstDepth (no
// unbounded recursion, since every recursive walk is bounded by the tree depth), inputs longer
// than kMaxExprBytes, and exact arithmetic reports overflow instead of growing without bound.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/common.hpp"

namespace rapidgrade::expr {

/// Depth bound of every AST (parser nesting and left-nested chains such as a/b/c/...).
constexpr std::size_t kMaxAstDepth = kMaxDepth;
/// Longest accepted expression, in bytes (longer input: LimitError).
constexpr std::size_t kMaxExprBytes = 1u << 20;

enum class Kind : std::uint8_t {
  kNumber,     // text: decimal literal "12", "1.5", "15e-4" (digits, optional '.', optional e[+-]n)
  kSymbol,     // text: name, e.g. "x", "x_1", "alpha"
  kConst,      // text: "pi", "E", "I", "oo"
  kAdd,        // n-ary sum; subtraction is Add(a, Neg(b))
  kMul,        // n-ary product
  kNeg,        // unary minus
  kDiv,        // a / b
  kPow,        // a ^ b
  kFunc,       // text: function name (a row of detail/functions.hpp, or any name: opaque); kids: arguments
  kFactorial,  // n!
  kAbs,        // |x|
  kPercent,    // x%  (value x/100)
  kDegree,     // x^\circ (value x*pi/180)
  kPlusMinus,  // a \pm b (the pair {a+b, a-b}); a unary \pm b has a = 0
  kTuple,      // (a, b, ...)
  kSet,        // {a, b, ...}; also a bare top-level list "1, 2"
  kInterval,   // flags: kLeftOpen | kRightOpen; kids: lo, hi
  kUnion,      // A \cup B \cup ...
  kMatrix,     // extra: column count; kids: entries row-major
  kRelation,   // text: one operator per gap: '=' '<' 'l'(<=) '>' 'g'(>=) 'n'(!=); kids: operands
  kText,       // text: the normalized words of a plain-text answer
};

constexpr std::uint8_t kLeftOpen = 1;
constexpr std::uint8_t kRightOpen = 2;

/// A node's children (indices into the tree's pool): up to kInline of them held in the node
/// itself, more on the heap. Most nodes have one to three, and a parse makes and drops many
/// nodes: each with a list of its own on the heap would cost an allocation.
class KidList {
 public:
  using value_type = std::uint32_t;
  static constexpr std::uint32_t kInline = 4;

  KidList() noexcept : inline_{} {}
  KidList(std::initializer_list<std::uint32_t> kids) : KidList() { append(kids.begin(), kids.end()); }
  // implicit: a list built as a std::vector becomes a node's children where it is given
  KidList(const std::vector<std::uint32_t>& kids) : KidList() { append(kids.data(), kids.data() + kids.size()); }
  KidList(const KidList& other) : KidList() { append(other.begin(), other.end()); }
  KidList(KidList&& other) noexcept : KidList() { take(other); }
  KidList& operator=(const KidList& other) {
    if (this != &other) {
      size_ = 0;
      append(other.begin(), other.end());
    }
    return *this;
  }
  KidList& operator=(KidList&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  KidList& operator=(std::initializer_list<std::uint32_t> kids) {
    size_ = 0;
    append(kids.begin(), kids.end());
    return *this;
  }
  ~KidList() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const std::uint32_t* data() const noexcept { return cap_ > kInline ? heap_ : inline_; }
  std::uint32_t* data() noexcept { return cap_ > kInline ? heap_ : inline_; }
  const std::uint32_t* begin() const noexcept { return data(); }
  const std::uint32_t* end() const noexcept { return data() + size_; }
  std::uint32_t* begin() noexcept { return data(); }
  std::uint32_t* end() noexcept { return data() + size_; }
  std::uint32_t operator[](std::size_t k) const noexcept { return data()[k]; }
  std::uint32_t& operator[](std::size_t k) noexcept { return data()[k]; }
  std::uint32_t front() const noexcept { return data()[0]; }
  std::uint32_t back() const noexcept { return data()[size_ - 1]; }
  void push_back(std::uint32_t k) { append(&k, &k + 1); }
  /// Adds [first, last) at the end (not from this list itself).
  void append(const std::uint32_t* first, const std::uint32_t* last) {
    const std::size_t n = static_cast<std::size_t>(last - first);
    if (size_ + n > cap_) grow(size_ + n);
    std::uint32_t* at = data() + size_;
    for (std::size_t k = 0; k < n; ++k) at[k] = first[k];
    size_ += static_cast<std::uint32_t>(n);
  }

 private:
  void grow(std::size_t need) {
    if (need > 0xFFFFFFFFu / 2) throw std::length_error("KidList: too many children");
    std::uint32_t cap = cap_;
    while (cap < need) cap *= 2;
    std::unique_ptr<std::uint32_t[]> bigger(new std::uint32_t[cap]);
    const std::uint32_t* old = data();
    for (std::uint32_t k = 0; k < size_; ++k) bigger[k] = old[k];
    release();
    heap_ = bigger.release();
    cap_ = cap;
  }
  void release() noexcept {
    if (cap_ > kInline) delete[] heap_;
    cap_ = kInline;
  }
  // Moves other's children here (this list empty and inline) and leaves other empty.
  void take(KidList& other) noexcept {
    size_ = other.size_;
    cap_ = other.cap_;
    if (other.cap_ > kInline) {
      heap_ = other.heap_;
    } else {
      for (std::uint32_t k = 0; k < other.size_; ++k) inline_[k] = other.inline_[k];
    }
    other.size_ = 0;
    other.cap_ = kInline;
  }

  std::uint32_t size_ = 0;
  std::uint32_t cap_ = kInline;  // > kInline: the children are in heap_
  union {
    std::uint32_t inline_[kInline];
    std::uint32_t* heap_;
  };
};

struct Node {
  Kind kind = Kind::kNumber;
  std::uint8_t flags = 0;
  std::uint16_t depth = 1;
  std::uint32_t extra = 0;
  std::string text;
  KidList kids;
};

/// An immutable tree: nodes in a pool, children before parents, `root` last.
struct Ast {
  std::vector<Node> nodes;
  std::uint32_t root = 0;

  const Node& at(std::uint32_t i) const { return nodes[i]; }
  /// Appends a node (children must already be in the pool) and returns its index.
  /// Throws ParseError when the depth would exceed kMaxAstDepth (`offset` is reported).
  std::uint32_t add(Node node, std::size_t offset = 0);
  /// add() of a node without children (a number, a symbol, a constant), made in place.
  std::uint32_t add_leaf(Kind kind, std::string_view text) {
    Node& n = nodes.emplace_back();
    n.kind = kind;
    n.text.assign(text.data(), text.size());
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }
};

enum class Syntax { kAuto, kLatex, kInfix, kRpn };

/// True when `text` reads as words rather than math: it holds a word of three or more letters
/// that is not a function name of detail/functions.hpp ("Yes", "odd", "\text{east}",
/// "no solution"; not "sin(x)", "pi/2", "2x"). This is the rule by which parse() makes a kText
/// node, except for an equation that names the value of its left side in words or letters
/// ("abc = 60", "\text{Area} = 60"), which parse() reads as math when it can. O(n).
bool is_plain_text(std::string_view text);

/// Parses `text` (UTF-8). O(n) tokens, recursion bounded by kMaxAstDepth.
/// Throws ParseError ("parse_expr: <problem> at offset <n>", byte offset) on malformed input,
/// LimitError when the input is longer than kMaxExprBytes.
Ast parse(std::string_view text, Syntax syntax = Syntax::kAuto);

/// parse() for a caller to whom malformed or oversized input means "no expression": the tree, or
/// nullopt where parse() throws ParseError or LimitError.
std::optional<Ast> try_parse(std::string_view text, Syntax syntax = Syntax::kAuto);
Ast parse_latex(std::string_view text);
/// What the relations at the top level of `text` (LaTeX) say, read from its tokens only, so that
/// it answers for a text whose members the parser cannot read ("\cos\langle\vec{a},
/// \vec{b}\rangle = \frac{...}{...} = -\frac{\sqrt{2}}{10}", "S \le \sum_{i=1}^{50} x_i"). O(n).
struct TopLevelRelations {
  /// Where the last member of a chain of equalities starts: the byte offset after its last '='
  /// (or a command read as '=', detail::is_equals_command: \approx), when every relation at the
  /// top level is one and no ',' or ';' stands there (a list); std::string_view::npos otherwise.
  std::size_t last_equality_end = std::string_view::npos;
  /// Whether an inequality ('<', '\le', '\ne', ... : detail::kInequalityCommands) stands at the
  /// top level: the text states a condition.
  bool inequality = false;
};
/// The TopLevelRelations of `text`; both empty when it does not lex.
TopLevelRelations top_level_relations(std::string_view text);
Ast parse_infix(std::string_view text);
/// RPN operators: binary + - * / ^ and besselj; unary neg and the RPN column of the function
/// table (detail/functions.hpp: sin cos tan exp log ln sqrt abs erf erfc Si Ci Ei gamma);
/// constants pi e; numbers and identifiers are operands.
Ast parse_rpn(std::string_view text);
/// The syntax `parse(text, Syntax::kAuto)` would use.
Syntax detect_syntax(std::string_view text);

/// Canonical form (SymPy-like infix: `x**2 + sin(x)`). Linear in the tree size.
std::string to_string(const Ast& ast);
std::string to_string(const Ast& ast, std::uint32_t node);

/// Sorted, unique names of the symbols in the tree (constants excluded).
std::vector<std::string> free_symbols(const Ast& ast);
std::vector<std::string> free_symbols(const Ast& ast, std::uint32_t node);
/// The same names as views of the tree's symbol nodes (valid while the tree is).
std::vector<std::string_view> symbol_names(const Ast& ast, std::uint32_t node);

// ---------------------------------------------------------------------------------------------
// Exact rational arithmetic: checked 128-bit numerator/denominator; overflow -> std::nullopt.

#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 Int;
#else
typedef long long Int;
#endif

struct Rational {
  Int num = 0;
  Int den = 1;  // > 0, gcd(num, den) == 1
  bool operator==(const Rational& o) const { return num == o.num && den == o.den; }
  double to_double() const;
  std::string to_string() const;
};

/// Exact value of a constant subtree (numbers, + - * / integer powers, perfect roots,
/// factorials <= 33, binomials, percent, abs), or nullopt when the value is not rational,
/// the tree has symbols or functions, or an integer would overflow the 128-bit range.
/// Factorial/exponent caps make this O(tree size * 128).
std::optional<Rational> exact_value(const Ast& ast, std::uint32_t node);
/// a * b exactly (nullopt on overflow).
std::optional<Rational> rational_mul(const Rational& a, const Rational& b);
/// Parses a Number node's literal exactly (nullopt on overflow).
std::optional<Rational> parse_decimal(std::string_view literal);

// ---------------------------------------------------------------------------------------------
// Numeric evaluation: the tree is compiled to a flat register program and run over blocks of
// points, one instruction at a time (the hot loop of numeric comparison).

enum class Op : std::uint8_t {
  kConst,
  kVar,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kPow,
  kPowInt,
  kNeg,
  kSin,
  kCos,
  kTan,
  kSec,
  kCsc,
  kCot,
  kAsin,
  kAcos,
  kAtan,
  kAsec,
  kAcsc,
  kAcot,
  kSinh,
  kCosh,
  kTanh,
  kAsinh,
  kAcosh,
  kAtanh,
  kExp,
  kLog,
  kLogBase,
  kSqrt,
  kRoot,
  kAbs,
  kFactorial,
  kFloor,
  kCeil,
  kBinom,
  kErf,
  kErfc,
  kSi,
  kCi,
  kEi,
  kGamma,
  kBesselJ,
  kMax,  // the larger of two reals (nan off the real axis)
  kMin,  // the smaller of two reals (nan off the real axis)
  kNan,
};

struct Instr {
  Op op;
  std::uint32_t a = 0, b = 0;  // operand registers (register k holds instruction k's result)
  double re = 0, im = 0;       // Const value; PowInt exponent in re; Var index in a
};

struct Program {
  std::vector<Instr> code;
  std::vector<std::uint32_t> reg;  // physical register of each instruction's result (reused)
  std::uint32_t n_regs = 0;
  // variable order for Var instructions: the names, owned (a Program outlives the tree and
  // the names it was compiled from; names are short, so most fit the string's own buffer)
  std::vector<std::string> vars;
  bool complex_constants = false;  // uses I
  bool analytic = true;            // only + - * / pow roots exp log trig hyperbolic
  bool evaluable = true;           // no opaque functions, structures, relations or text
  bool continuous = true;          // no floor/ceiling (Abs is continuous but not analytic)
  // False when values at points say nothing of equality: binomial(n, k) with k a symbol means
  // its values at integers k; between them it is a quotient of gamma functions, which an
  // identity of integers need not keep ((-1)^{2k} binomial(n, k) is binomial(n, k) for every
  // integer k only). Equivalence leaves such a side to SymPy; evaluation computes it.
  bool sampling_decides = true;
};

/// Compiles a scalar subtree; variables are numbered in the order of `vars`
/// (names not in `vars` are appended). Linear in the tree size.
Program compile(const Ast& ast, std::uint32_t node, std::vector<std::string_view> vars = {});

/// Evaluates `prog` at n points. inputs[v] points to n values (or 1 value when strides[v]==0).
/// Real evaluation follows NumPy's real semantics (sqrt(-1) -> nan); complex uses principal
/// branches. NaN and inf propagate; nothing throws. O(n * program size).
void run(const Program& prog, const std::vector<const double*>& inputs, const std::vector<std::size_t>& strides,
         std::size_t n, double* out);
void run(const Program& prog, const std::vector<const std::complex<double>*>& inputs,
         const std::vector<std::size_t>& strides, std::size_t n, std::complex<double>* out);
/// Like run(complex), point by point, with a first-order bound on the rounding error of each
/// result (`error[j]`: every operation's own rounding plus the propagation of its operands'
/// errors through its derivative), and a flag for results that went through a multivalued
/// function (sqrt, log, non-integer powers, inverse trigonometric) whose argument was within
/// its error bound of the branch cut, where the computed branch is a coin toss
/// (`near_cut[j] = 1`). Exact inputs on a cut take SymPy's principal branch. O(n * program size).
void run_bounded(const Program& prog, const std::vector<const std::complex<double>*>& inputs, std::size_t n,
                 std::complex<double>* out, double* error, unsigned char* near_cut);
/// run_bounded's values alone, bit for bit, without the bounds and flags (about half the work):
/// for a caller that needs a point's bound only where two values differ.
void run_values(const Program& prog, const std::vector<const std::complex<double>*>& inputs, std::size_t n,
                std::complex<double>* out);
/// False when run_bounded flags no point of `prog` near_cut, whatever its inputs: it applies no
/// multivalued function (sqrt, log, non-integer powers, inverse trigonometric, Ci).
bool may_flag_near_cut(const Program& prog) noexcept;

}  // namespace rapidgrade::expr
