// Internals shared by the LaTeX lexer (expr_latex_lex.cpp) and the LaTeX parser (expr_latex.cpp)
// of the expression engine: the tokens, the texts a parse makes for them, and the lexer's entry
// point. Private to cpp/src; not installed. Offsets are bytes of the parsed text.
#pragma once

#include <cstddef>
#include <forward_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr_build.hpp"

namespace rapidgrade::expr::detail {

enum class T { kEnd, kNum, kWord, kCmd, kPunct };

struct Tok {
  T type = T::kEnd;
  // a view of the parsed text, of a literal, or of a string the parser keeps (Texts): a token
  // is read while the parse runs, never after
  std::string_view text;
  std::size_t pos = 0;
  bool space_before = false;
  // a list comma that stands for "or" ("x<2 or x>3", "\\lor"): the parts are alternatives
  bool alternative = false;
};

// Tokens (and tree nodes) reserved up front for a short answer's parse: at most one per byte.
constexpr std::size_t kReservedTokens = 64;

// The token texts a parse makes rather than finds in its input (a number written
// canonically, a number split by a script): kept until the parse ends, where they do not move.
class Texts {
 public:
  std::string_view keep(std::string text) { return kept_.emplace_front(std::move(text)); }
  /// canonical_number(mant, exp): a view of `mant` (part of the parsed text) when that is
  /// already canonical, as nearly every literal is.
  std::string_view number(std::string_view mant, std::string_view exp) {
    std::string c = canonical_number(mant, exp);
    if (c == mant) return mant;
    return keep(std::move(c));
  }

 private:
  std::forward_list<std::string> kept_;  // (allocates nothing while empty)
};

/// Writes the tokens of `s` into `out` (emptied first), ending with a kEnd token; the number
/// texts it rewrites ("7,425,000" -> "7425000") are kept in `texts`. At an unexpected character
/// the tokens stop there (the kEnd token follows them) and it returns false with `failure` set;
/// it never throws for malformed input. O(n) for n bytes: every byte is read once.
bool lex_latex(std::string_view s, std::vector<Tok>& out, Texts& texts, Failure& failure);

}  // namespace rapidgrade::expr::detail
