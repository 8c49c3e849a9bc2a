// Shared helpers of the libFuzzer harnesses (cpp/fuzz/fuzz_*.cpp, built under RAPIDGRADE_FUZZ=ON).
//
// Each harness calls one parser or entry point of the core on the fuzzer's bytes, catches the two
// errors the core may throw by contract (ParseError, LimitError), and checks invariants that hold
// for every input. Anything else (an AddressSanitizer or UBSan report, another exception, a broken
// invariant, a timeout) is a crash that libFuzzer records with its reproducer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace rapidgrade::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) noexcept {
  return {reinterpret_cast<const char*>(data), size};
}

/// Two inputs from one buffer: split at the first NUL byte (seeds are written "gold\0pred"), or in
/// the middle when there is none.
inline std::pair<std::string_view, std::string_view> split_pair(std::string_view text) noexcept {
  std::size_t cut = text.find('\0');
  if (cut == std::string_view::npos) {
    cut = text.size() / 2;
    return {text.substr(0, cut), text.substr(cut)};
  }
  return {text.substr(0, cut), text.substr(cut + 1)};
}

/// Aborts with a message: libFuzzer reports it as a crash and saves the input.
[[noreturn]] inline void invariant_failed(const char* what) noexcept {
  std::fprintf(stderr, "rapidgrade fuzz: invariant violated: %s\n", what);
  std::abort();
}

}  // namespace rapidgrade::fuzz

#define RAPIDGRADE_FUZZ_CHECK(cond)                           \
  do {                                                        \
    if (!(cond)) ::rapidgrade::fuzz::invariant_failed(#cond); \
  } while (0)
