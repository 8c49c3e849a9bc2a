// Answer extraction: every strategy of extract_answer, and the key/value field protocol.
//
// Built by CMake under RAPIDGRADE_FUZZ=ON (scripts/fuzz.sh). Without libFuzzer (random token
// soups, any compiler):
//   g++ -std=c++17 -g -O1 -fsanitize=address,undefined -DRAPIDGRADE_FUZZ_MAIN -Icpp/include \
//     cpp/fuzz/fuzz_extract.cpp cpp/src/*.cpp -o fuzz_extract && ./fuzz_extract 300000
//
// Checks, for every input: no crash or undefined behaviour; every span lies inside the input,
// start <= end, parts in order, and every strategy's answer is what its span holds; the other
// readings of a weak answer lie inside the input, and only the cascade has any; the auto
// strategy finds what the first named strategy that finds anything finds, in the order of its
// rules (so the anchors read before its rules never skip a rule that matches).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"
#include "rapidgrade/extract.hpp"
#include "rapidgrade/tasks/fields.hpp"

namespace ex = rapidgrade::extract;

namespace {

void check(std::string_view text) {
  using ex::Method;
  RAPIDGRADE_FUZZ_CHECK(ex::search_start(text) <= text.size());
  for (Method method :
       {Method::kAuto, Method::kBoxed, Method::kAnswerIs, Method::kTagged, Method::kCodeOutput, Method::kLastNumber}) {
    const auto found = ex::extract_answer(text, method);
    if (!found) continue;
    RAPIDGRADE_FUZZ_CHECK(found->start <= found->end && found->end <= text.size());
    std::size_t previous_end = found->start;
    for (const ex::Range& part : found->parts) {
      RAPIDGRADE_FUZZ_CHECK(part.start <= part.end && part.end <= text.size());
      RAPIDGRADE_FUZZ_CHECK(previous_end <= part.start);
      previous_end = part.end;
    }
    const std::string answer = ex::answer_text(text, *found);
    if (found->parts.empty()) RAPIDGRADE_FUZZ_CHECK(answer == text.substr(found->start, found->end - found->start));
  }
  const std::optional<ex::Extraction> automatic = ex::extract_answer(text, Method::kAuto);
  std::optional<ex::Extraction> first;
  for (Method method : {Method::kBoxed, Method::kAnswerIs, Method::kTagged, Method::kCodeOutput, Method::kChoice,
                        Method::kBare, Method::kFinalSpan, Method::kLastNumber}) {
    first = ex::extract_answer(text, method);
    if (first) break;
  }
  RAPIDGRADE_FUZZ_CHECK(automatic.has_value() == first.has_value());
  if (automatic) {
    // the other readings of a weak answer lie inside the input; there are none for another
    // method, nor for a weak method run alone
    for (const ex::Range& other : ex::other_readings(text, *automatic)) {
      RAPIDGRADE_FUZZ_CHECK(ex::is_weak(automatic->method));
      RAPIDGRADE_FUZZ_CHECK(other.start <= other.end && other.end <= text.size());
    }
  }
  if (first) RAPIDGRADE_FUZZ_CHECK(ex::other_readings(text, *first).empty());
  if (automatic && first) {
    // the markers are one family: the one nearest the end wins ("The answer is 5.\n#### 6" reads
    // 6), so where answer_is alone finds an answer the cascade may read tagged's, the same one
    if (first->method == Method::kAnswerIs && automatic->method == Method::kTagged) {
      first = ex::extract_answer(text, Method::kTagged);
      RAPIDGRADE_FUZZ_CHECK(first.has_value());
    }
    // and a bold number after the marked answer is the value it comes to (read_bold_after_marker):
    // the cascade reads that span as final_span does a bolded answer, after the marked answer
    if (first->method == Method::kAnswerIs && automatic->method == Method::kFinalSpan) {
      RAPIDGRADE_FUZZ_CHECK(automatic->start > first->start);
      first = automatic;
    }
    RAPIDGRADE_FUZZ_CHECK(automatic->method == first->method && automatic->start == first->start &&
                          automatic->end == first->end && automatic->parts.size() == first->parts.size());
    for (std::size_t k = 0; k < automatic->parts.size() && k < first->parts.size(); ++k) {
      RAPIDGRADE_FUZZ_CHECK(automatic->parts[k].start == first->parts[k].start &&
                            automatic->parts[k].end == first->parts[k].end);
    }
  }
  const rapidgrade::fields::Fields fields = rapidgrade::fields::extract_fields(text);
  if (fields.solution) {
    RAPIDGRADE_FUZZ_CHECK(fields.solution->start <= fields.solution->end && fields.solution->end <= text.size());
  }
  if (fields.reasoning) {
    RAPIDGRADE_FUZZ_CHECK(fields.reasoning->start <= fields.reasoning->end && fields.reasoning->end <= text.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(rapidgrade::fuzz::as_text(data, size));
  return 0;
}

#ifdef RAPIDGRADE_FUZZ_MAIN
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 100000;
  static const char* const kPieces[] = {"\\boxed",
                                        "\\fbox",
                                        "{",
                                        "}",
                                        "\\",
                                        "\\{",
                                        "$",
                                        "$$",
                                        "\\(",
                                        "\\)",
                                        "\\[",
                                        "\\]",
                                        " ",
                                        "\n",
                                        ".",
                                        "answer",
                                        " is ",
                                        ":",
                                        "**",
                                        "<answer>",
                                        "</answer>",
                                        "####",
                                        "```",
                                        "```output\n",
                                        "```py\n",
                                        "\n```\n",
                                        "-",
                                        "\xE2\x88\x92",
                                        "\xE2\x88",
                                        "1",
                                        "23",
                                        "4,567",
                                        ",",
                                        "/",
                                        "e",
                                        "e-",
                                        "\\frac",
                                        "\\dfrac",
                                        "\\sqrt",
                                        "[",
                                        "]",
                                        "\\text",
                                        "\\left",
                                        "^\\circ",
                                        "^{\\circ}",
                                        "\xC2\xB0",
                                        "\xC2",
                                        "%",
                                        "cm",
                                        "m^2",
                                        "=",
                                        "x_1",
                                        "</think>",
                                        "{,}",
                                        "~",
                                        "\xFF",
                                        "\x80",
                                        "SOLUTION: u(x) = ",
                                        "HAS_SOLUTION: no\n",
                                        "REASONING:",
                                        "SOLUTION_TYPE: series\n",
                                        "\\begin{",
                                        "equation}",
                                        "align*}",
                                        "\\end{",
                                        "Answer",
                                        "SW"};
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
