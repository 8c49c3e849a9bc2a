// Post-processing of integral-equation answers (fredholm.hpp): parse_output with every option,
// read_solution, clean_candidate and sample.
//
// Built by CMake under RAPIDGRADE_FUZZ=ON (scripts/fuzz.sh). Without libFuzzer (random token
// soups, any compiler):
//   g++ -std=c++17 -g -O1 -fsanitize=address,undefined -DRAPIDGRADE_FUZZ_MAIN -Icpp/include \
//     cpp/fuzz/fuzz_fredholm.cpp cpp/src/*.cpp -o fuzz_fredholm && ./fuzz_fredholm 300000
//
// Checks, for every input (with and without a symbol table, infix names and Unicode subscripts
// among the pieces): no crash or undefined behaviour; confidence is one of 0, 0.3, 0.7, 0.8; a
// parsed solution's expr_text parses again in its syntax; a point list has >= 2 finite points;
// the solution type is one of the seven; cleaning never lengthens the text.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "rapidgrade/common.hpp"
#include "rapidgrade/tasks/fredholm.hpp"

namespace fh = rapidgrade::fredholm;

namespace {

// A symbol table with every kind of rule (a rename, constants, numbers, e kept a symbol).
fh::SymbolTable table() {
  using K = fh::SymbolRule::Kind;
  return {{"lam", {K::kSymbol, "lambda"}}, {"g", {K::kNumber, "9.81"}}, {"k", {K::kNumber, "-2"}},
          {"ee", {K::kConst, "E"}},        {"e", {K::kSymbol, "e"}},    {"a_0", {K::kConst, "pi"}}};
}

void check(std::string_view text) {
  static const fh::SymbolTable kTable = table();
  for (int variant = 0; variant < 5; ++variant) {
    fh::Options o;
    o.validate = variant != 1;
    o.syntax = variant == 2   ? rapidgrade::expr::Syntax::kLatex
               : variant == 4 ? rapidgrade::expr::Syntax::kInfix
                              : rapidgrade::expr::Syntax::kAuto;
    if (variant >= 3) o.symbols = kTable;
    const fh::Parsed p = fh::parse_output(text, o);
    const double c = p.confidence;
    RAPIDGRADE_FUZZ_CHECK(c == 0.0 || c == 0.3 || c == 0.7 || c == 0.8);
    if (p.parsed) {
      try {
        (void)rapidgrade::expr::parse(p.expr_text, p.expr_syntax);
      } catch (const rapidgrade::ParseError&) {
        RAPIDGRADE_FUZZ_CHECK(false);
      }
    }
    if (p.method == fh::Method::kPoints) {
      RAPIDGRADE_FUZZ_CHECK(p.points.size() >= 2);
      for (const auto& pt : p.points) RAPIDGRADE_FUZZ_CHECK(std::isfinite(pt.first) && std::isfinite(pt.second));
    }
    if (p.solution_type) {
      bool known = false;
      for (std::string_view t : fh::kSolutionTypes) known = known || *p.solution_type == t;
      RAPIDGRADE_FUZZ_CHECK(known);
    }
  }
  for (const fh::SymbolTable* symbols : {static_cast<const fh::SymbolTable*>(nullptr), &kTable}) {
    fh::Parsed r;
    const bool ok = symbols ? fh::read_solution(text, rapidgrade::expr::Syntax::kAuto, *symbols, r)
                            : fh::read_solution(text, rapidgrade::expr::Syntax::kAuto, r);
    if (ok) {
      RAPIDGRADE_FUZZ_CHECK(rapidgrade::expr::try_parse(r.expr_text, r.expr_syntax).has_value());
      const std::vector<double> ys = fh::sample(r.expr_text, r.expr_syntax, "x", {{"C", 1.0}}, {0.0, 0.5, 1.0});
      RAPIDGRADE_FUZZ_CHECK(ys.size() == 3);
    }
  }
  const std::string once = fh::clean_candidate(text);
  RAPIDGRADE_FUZZ_CHECK(once.size() <= text.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(rapidgrade::fuzz::as_text(data, size));
  return 0;
}

#ifdef RAPIDGRADE_FUZZ_MAIN
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 100000;
  static const char* const kPieces[] = {"u(x)",
                                        "u (x)",
                                        " = ",
                                        "=",
                                        "\\approx",
                                        "\xE2\x89\x88",
                                        "~=",
                                        "SOLUTION:",
                                        "Solution: ",
                                        "HAS_SOLUTION: ",
                                        "yes",
                                        "no",
                                        "SOLUTION_TYPE: ",
                                        "discrete_points",
                                        "family",
                                        "series",
                                        "\n",
                                        " ",
                                        "$",
                                        "$$",
                                        "\\(",
                                        "\\)",
                                        "\\[",
                                        "\\]",
                                        "\\left(",
                                        "\\right)",
                                        "\\Bigl",
                                        "where",
                                        " for ",
                                        ", where ",
                                        "x",
                                        "^",
                                        "{",
                                        "}",
                                        "2",
                                        "-",
                                        "+",
                                        "\\sin",
                                        "\\frac",
                                        "C",
                                        "c_1",
                                        "\xCF\x80",
                                        "\xC2\xB7",
                                        "[(",
                                        "(0.5, 1.2)",
                                        ", ",
                                        ")]",
                                        "Step 1:",
                                        "1. ",
                                        "REASONING:",
                                        "No solution",
                                        "\\text{No solution}",
                                        "neg",
                                        "sin",
                                        "\\;",
                                        "\\",
                                        ".",
                                        "e",
                                        "oo",
                                        "\xFF",
                                        "lam",
                                        "*",
                                        "/",
                                        "**",
                                        "mu",
                                        "lambda_1",
                                        "g",
                                        "k",
                                        "ee",
                                        "a_0",
                                        "\xE2\x82\x80",
                                        "\xE2\x82\x81",
                                        "\xE2\x82\x89",
                                        "\xE2\x82\x93",
                                        "\xE2\x82\x94",
                                        "\xE2\x82",
                                        "undefined",
                                        "(",
                                        ")"};
  constexpr int kCount = static_cast<int>(sizeof(kPieces) / sizeof(kPieces[0]));
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> length(0, 40), pick(0, kCount - 1), byte(0, 255), coin(0, 9);
  for (long it = 0; it < iterations; ++it) {
    std::string s;
    const int n = length(rng);
    for (int k = 0; k < n; ++k) {
      if (coin(rng) == 0)
        s += static_cast<char>(byte(rng));
      else
        s += kPieces[pick(rng)];
    }
    check(s);
  }
  std::printf("%ld inputs checked\n", iterations);
  return 0;
}
#endif
