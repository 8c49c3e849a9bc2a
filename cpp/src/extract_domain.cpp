// Quantifier domains (extract_internal.hpp, quantifier_domain): a math span that only names the
// set of numbers its variables range over, after the answer it qualifies ("$f(x) = 2x$ for all
// $x \\in \\mathbb{R}^{+}$"), which final_span does not read as the answer.
#include <string_view>

#include "extract_internal.hpp"
#include "rapidgrade/detail/markers.hpp"

namespace rapidgrade::extract::internal {

using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::istarts_with;
using detail::starts_with;

namespace {

// Whether the math span s[r) only states the domain of its variables, a set of numbers: "x \\in
// \\mathbb{R}^{+}", "k \\in \\mathbb{Z}", "\\forall x, y \\in \\mathbb{R}", "n \\in \\mathbb{N}_{>0}",
// the quantifier of a statement ("$f(x) = 2x$ for all $x \\in \\mathbb{R}^{+}$"), not its answer.
bool domain_only(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  std::size_t k = r.start;
  bool variable = false, in = false;
  // the variables: letters, digits, subscripts, commas and commands (\\forall, \\alpha) before \\in
  while (k < r.end && !in) {
    const char c = s[k];
    if (c == '\\') {
      const std::size_t e = letters_end_in(s, k + 1, r.end);
      if (e == k + 1) return false;  // a control symbol
      in = s.substr(k + 1, e - k - 1) == "in";
      k = e;
      continue;
    }
    if (is_letter(c)) {
      variable = true;
    } else if (!(is_digit(c) || is_blank(c) || c == '_' || c == '{' || c == '}' || c == ',')) {
      return false;
    }
    ++k;
  }
  while (k < r.end && is_blank(s[k])) ++k;
  if (!variable || !in || !starts_with(s.substr(0, r.end), k, "\\mathbb")) return false;
  k += 7;
  while (k < r.end && (is_blank(s[k]) || s[k] == '{')) ++k;
  if (k >= r.end || !is_letter(s[k])) return false;  // the set's letter
  ++k;
  // then only scripts and their signs ("^{+}", "_{>0}", "\\setminus\\{0\\}"): no more letters
  for (; k < r.end; ++k) {
    const char c = s[k];
    if (c == '\\') {
      k = letters_end_in(s, k + 1, r.end);
      if (k >= r.end) break;
      --k;
      continue;
    }
    if (is_letter(c)) return false;
  }
  return true;
}

// Whether the math span `b` is a quantifier's domain (domain_only) after the answer it qualifies:
// it opens with \\forall, or a comma or a quantifier word (detail::kQuantifierWords) is right
// before it. "So $x \\in \\mathbb{R}$." is an answer.
}  // namespace

bool quantifier_domain(std::string_view s, const Box& b) noexcept {
  if (!domain_only(s, Range{b.start, b.end})) return false;
  if (starts_with(s.substr(0, b.end), trim(s, Range{b.start, b.end}).start, "\\forall")) return true;
  std::size_t e = b.outer_start;
  while (e > 0 && is_blank(s[e - 1])) --e;
  if (e > 0 && s[e - 1] == ',') return true;
  for (const std::string_view w : detail::kQuantifierWords) {
    if (e >= w.size() && istarts_with(s, e - w.size(), w) && (e == w.size() || !is_letter(s[e - w.size() - 1]))) {
      return true;
    }
  }
  return false;
}

}  // namespace rapidgrade::extract::internal
