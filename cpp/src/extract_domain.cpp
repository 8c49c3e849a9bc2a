// Quantifier domains (extract_internal.hpp, quantifier_domain): a math span that only names the
// set of numbers its variables range over, after the answer it qualifies ("$f(x) = 2x$ for all
// $x \in \mathbb{R}^{+}$"), which final_span does not read as the answer.
#include <string_view>

#include "extract_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"

namespace rapidgrade::extract::internal {

using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::kNpos;
using detail::starts_with;

namespace {

// Whether the math span s[r) only states the domain of its variables, a set of numbers: "x \in
// \mathbb{R}^{+}", "k \in \mathbb{Z}", "\forall x, y \in \mathbb{R}", "n \in \mathbb{N}_{>0}",
// the quantifier of a statement ("$f(x) = 2x$ for all $x \in \mathbb{R}^{+}$"), not its answer.
bool domain_only(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  std::size_t k = r.start;
  bool variable = false, in = false;
  // the variables: letters, digits, subscripts, commas and commands (\forall, \alpha) before \in
  while (k < r.end && !in) {
    const char c = s[k];
    if (c == '\\') {
      const std::size_t e = letters_end_in(s, k + 1, r.end);
      if (e == k + 1) {  // a control symbol: spacing ("\\ ", "\\,") and nothing else
        if (k + 1 < r.end && (s[k + 1] == ' ' || s[k + 1] == ',' || s[k + 1] == ';' || s[k + 1] == ':')) {
          k += 2;
          continue;
        }
        return false;
      }
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
  // then only scripts and their signs ("^{+}", "_{>0}", "\setminus\{0\}"): no more letters
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

}  // namespace

// A quantifier's domain (domain_only) after the answer it qualifies: it opens with \forall, or a
// comma or a quantifier word (detail::kQuantifierWords) is right before it. "So $x \in
// \mathbb{R}$." is an answer.
bool quantifier_domain(std::string_view s, const Box& b) noexcept {
  if (!domain_only(s, Range{b.start, b.end})) return false;
  if (starts_with(s.substr(0, b.end), trim(s, Range{b.start, b.end}).start, "\\forall")) return true;
  std::size_t e = b.outer_start;
  while (e > 0 && is_blank(s[e - 1])) --e;
  if (e > 0 && s[e - 1] == ',') return true;
  for (const std::string_view w : detail::kQuantifierWords) {
    if (detail::word_ends_at(s, 0, e, w)) return true;
  }
  return false;
}

}  // namespace rapidgrade::extract::internal

namespace rapidgrade::extract {

namespace {

// `cut` moved back over the blanks and spacing commands before it ("k\pi \ (k \in ...)").
std::size_t before_spacing(std::string_view s, std::size_t start, std::size_t cut) noexcept {
  while (cut > start) {
    const char c = s[cut - 1];
    if (detail::is_space(c) || c == '\\') {  // blanks, and the backslash of "\ " with its blank gone
      --cut;
      continue;
    }
    if (cut >= start + 2 && s[cut - 2] == '\\' && (c == ',' || c == ';' || c == ':')) {  // "\," "\;" "\:"
      cut -= 2;
      continue;
    }
    std::size_t w = cut;  // "\quad", "\qquad"
    while (w > start && detail::is_letter(s[w - 1])) --w;
    if (w == cut || w == start || s[w - 1] != '\\' || !detail::is_wide_spacing(s.substr(w, cut - w))) break;
    cut = w - 1;
  }
  return cut;
}

}  // namespace

std::size_t domain_tail(std::string_view s) noexcept {
  const Range r = internal::trim(s, Range{0, s.size()});
  if (r.end <= r.start) return s.size();
  // a trailing group in parentheses: "x = \frac{\pi}{4} + k\pi \ (k \in \mathbb{Z})"
  if (s[r.end - 1] == ')') {
    std::size_t depth = 0, open = r.end;
    while (open > r.start) {
      const char c = s[--open];
      if (c == ')') ++depth;
      if (c == '(' && --depth == 0) break;
    }
    if (depth == 0 && open > r.start && s[open] == '(' && internal::domain_only(s, Range{open + 1, r.end - 1})) {
      return before_spacing(s, r.start, open);
    }
  }
  // the part after the last comma at the top level: "x = \frac{\pi}{4} + k\pi, k \in \mathbb{Z}"
  std::size_t depth = 0, comma = detail::kNpos;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      comma = k;
    }
  }
  if (comma != detail::kNpos && comma > r.start && internal::domain_only(s, Range{comma + 1, r.end})) {
    return before_spacing(s, r.start, comma);
  }
  return s.size();
}

}  // namespace rapidgrade::extract
