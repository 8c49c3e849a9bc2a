// Shared definitions of the rapidgrade core: limits and the two exception types.
//
// The core throws only ParseError and LimitError. Everything else that can go wrong with an
// input is reported as a value ("no span", "UNKNOWN"), never as a crash.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace rapidgrade {

/// Maximum nesting depth any parser in the core accepts (braces in expressions, parentheses).
/// Scanners that only count braces do not recurse and have no depth limit.
constexpr std::size_t kMaxDepth = 256;

/// Malformed input where a well-formed one is required (expression syntax, RPN stack errors).
/// Message format: "<function>: <problem> at offset <n>".
class ParseError : public std::invalid_argument {
 public:
  ParseError(const std::string& message, std::size_t offset) : std::invalid_argument(message), offset_(offset) {}
  std::size_t offset() const noexcept { return offset_; }

 private:
  std::size_t offset_;
};

/// An input exceeded a documented bound (length, depth, token count, integer size).
class LimitError : public std::length_error {
 public:
  explicit LimitError(const std::string& message) : std::length_error(message) {}
};

}  // namespace rapidgrade
