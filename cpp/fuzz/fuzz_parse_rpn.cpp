// Expression parsing, rpn syntax: parse_rpn, then everything the core does with a tree
// (fuzz_expr_common.hpp). Only ParseError and LimitError may be thrown.
#include <cstddef>
#include <cstdint>

#include "fuzz_common.hpp"
#include "fuzz_expr_common.hpp"
#include "rapidgrade/common.hpp"
#include "rapidgrade/expr.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = rapidgrade::fuzz::as_text(data, size);
  try {
    rapidgrade::fuzz::exercise_tree(rapidgrade::expr::parse_rpn(text));
  } catch (const rapidgrade::ParseError&) {
  } catch (const rapidgrade::LimitError&) {
  }
  return 0;
}
