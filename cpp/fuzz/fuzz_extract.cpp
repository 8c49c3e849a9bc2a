// Fuzz harness for rapidgrade::extract and rapidgrade::normalize.
//
// libFuzzer:   clang++ -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -Icpp/include \
//                cpp/fuzz/fuzz_extract.cpp cpp/src/*.cpp -o fuzz_extract && ./fuzz_extract
// Without libFuzzer (random token soups, any compiler):
//              g++ -std=c++17 -g -O1 -fsanitize=address,undefined -DRAPIDGRADE_FUZZ_MAIN -Icpp/include \
//                cpp/fuzz/fuzz_extract.cpp cpp/src/*.cpp -o fuzz_extract && ./fuzz_extract 300000
//
// Checks, for every input: no crash or undefined behaviour; every span lies inside the input and
// every strategy's answer is what its span holds; normalization is idempotent.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/extract.hpp"
#include "rapidgrade/normalize.hpp"

namespace {

void check(std::string_view s) {
  using rapidgrade::extract::Method;
  for (Method m : {Method::kAuto, Method::kBoxed, Method::kAnswerIs, Method::kTagged, Method::kCodeOutput,
                   Method::kLastNumber}) {
    const auto e = rapidgrade::extract::extract_answer(s, m);
    if (!e) continue;
    if (e->start > e->end || e->end > s.size()) std::abort();
    const std::string text = rapidgrade::extract::answer_text(s, *e);
    if (e->parts.empty() && text != s.substr(e->start, e->end - e->start)) std::abort();
  }
  (void)rapidgrade::extract::extract_fields(s);
  const auto once = rapidgrade::normalize::normalize(s);
  if (rapidgrade::normalize::normalize(once.text).text != once.text) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

#ifdef RAPIDGRADE_FUZZ_MAIN
int main(int argc, char** argv) {
  const long iterations = argc > 1 ? std::atol(argv[1]) : 100000;
  static const char* const kPieces[] = {
      "\\boxed", "\\fbox", "{", "}", "\\", "\\{", "$", "$$", "\\(", "\\)", "\\[", "\\]", " ", "\n", ".", "answer",
      " is ", ":", "**", "<answer>", "</answer>", "####", "```", "```output\n", "```py\n", "\n```\n", "-",
      "\xE2\x88\x92", "\xE2\x88", "1", "23", "4,567", ",", "/", "e", "e-", "\\frac", "\\dfrac", "\\sqrt", "[", "]",
      "\\text", "\\left", "^\\circ", "^{\\circ}", "\xC2\xB0", "\xC2", "%", "cm", "m^2", "=", "x_1", "</think>",
      "{,}", "~", "\xFF", "\x80", "SOLUTION: u(x) = ", "HAS_SOLUTION: no\n", "REASONING:", "SOLUTION_TYPE: series\n"};
  constexpr int kCount = static_cast<int>(sizeof(kPieces) / sizeof(kPieces[0]));
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> length(0, 40), pick(0, kCount - 1), byte(0, 255), coin(0, 9);
  for (long it = 0; it < iterations; ++it) {
    std::string s;
    const int n = length(rng);
    for (int k = 0; k < n; ++k) {
      if (coin(rng) == 0) s += static_cast<char>(byte(rng));
      else s += kPieces[pick(rng)];
    }
    check(s);
  }
  std::printf("%ld inputs checked\n", iterations);
  return 0;
}
#endif
