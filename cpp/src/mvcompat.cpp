// See mvcompat.hpp. The regular expressions emulated here are math-verify 0.9.0's
// `make_latex_env_pattern(context="boxed")` (pattern A) and `\\boxed{.+}` (pattern B), both
// compiled with re.DOTALL. Each environment alternative of A, tried at a start position s in
// the order $$, \[, $, \(, \s[, has a content class that cannot cross one terminator, so its
// lazy quantifiers can only close at the first terminator after s:
//   $$  content (?:[^$]|\$(?!\$))   closes at the first "$$", which must not follow a backslash
//   \[  content (?:[^\\]|\\(?!\]))  closes at the first "\]", which must not follow a backslash
//   $   content (?:\\[$]|[^\n$])    closes at the first "$" not after a backslash, no newline
//   \(  content (?:[^\\\n]|\\(?!\))) closes at the first "\)", not after a backslash, no newline
//   \s[ content [^\n\]\[]           closes at the first "]" (then a whitespace character)
// and the content must hold "\boxed{" followed, at least one character later, by a "}".
// Everything after the environment is optional, so the first alternative that closes wins.
#include "rapidgrade/mvcompat.hpp"

#include <string_view>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::mvcompat {
namespace detail {

constexpr std::size_t kNpos = std::string_view::npos;

// Python's \s on ASCII: [ \t\n\r\f\v] and the separators \x1c-\x1f (str.isspace()). Deliberately
// wider than detail::is_space: this file emulates math-verify's regular expressions.
inline bool is_python_space(unsigned char c) noexcept {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

inline bool is_ascii_digit(unsigned char c) noexcept { return c >= '0' && c <= '9'; }

// First position >= k where `hit(text, pos)` holds. Queries are answered from the previous
// result when k has not moved past it, so a sequence of non-decreasing queries scans the text
// once in total; a smaller k than before is answered correctly by a fresh search.
template <typename Hit>
class NextFinder {
 public:
  NextFinder(std::string_view text, Hit hit) noexcept : text_(text), hit_(hit) {}

  std::size_t query(std::size_t k) noexcept {
    if (valid_ && k >= from_ && (pos_ == kNpos || pos_ >= k)) return pos_;
    pos_ = kNpos;
    for (std::size_t p = k; p < text_.size(); ++p) {
      if (hit_(text_, p)) {
        pos_ = p;
        break;
      }
    }
    from_ = k;
    valid_ = true;
    return pos_;
  }

 private:
  std::string_view text_;
  Hit hit_;
  std::size_t pos_ = kNpos;
  std::size_t from_ = 0;
  bool valid_ = false;
};

template <typename Hit>
NextFinder<Hit> make_finder(std::string_view text, Hit hit) noexcept {
  return NextFinder<Hit>(text, hit);
}

using ::rapidgrade::detail::starts_with;

// After an environment and its trailing whitespace: could math-verify's optional percent group
// or one of the "and"/"or"/"," continuations start here? e.g. "\(\boxed{5}\)\%" or
// "\(\boxed{1}\), \(\boxed{2}\)".
inline bool continuation_possible(std::string_view text, std::size_t w) noexcept {
  if (w >= text.size()) return false;
  const unsigned char c = static_cast<unsigned char>(text[w]);
  if (c == '%' || c == ',' || c >= 0x80) return true;
  return starts_with(text, w, "\\%") || starts_with(text, w, "percent") ||
         starts_with(text, w, "Percent") || starts_with(text, w, "pct") ||
         starts_with(text, w, "Pct") || starts_with(text, w, "and") || starts_with(text, w, "or");
}

}  // namespace detail

BoxedWinner boxed_winner(std::string_view text) noexcept {
  using detail::is_python_space;
  using detail::kNpos;
  BoxedWinner out;
  const std::size_t n = text.size();
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };

  const std::size_t first_boxed = text.find("\\boxed{");
  if (first_boxed == kNpos) return out;  // neither A nor B can match without "\boxed{"
  const std::size_t last_brace = text.rfind('}');
  const bool has_plain = last_brace != kNpos && last_brace >= first_boxed + 8;

  auto boxed = detail::make_finder(text, [](std::string_view t, std::size_t p) {
    return t.compare(p, 7, "\\boxed{") == 0;
  });
  auto brace = detail::make_finder(text, [](std::string_view t, std::size_t p) { return t[p] == '}'; });
  auto double_dollar = detail::make_finder(text, [](std::string_view t, std::size_t p) {
    return t[p] == '$' && p + 1 < t.size() && t[p + 1] == '$';
  });
  auto close_bracket = detail::make_finder(text, [](std::string_view t, std::size_t p) {
    return t[p] == '\\' && p + 1 < t.size() && t[p + 1] == ']';
  });
  auto close_paren = detail::make_finder(text, [](std::string_view t, std::size_t p) {
    return t[p] == '\\' && p + 1 < t.size() && t[p + 1] == ')';
  });
  auto newline = detail::make_finder(text, [](std::string_view t, std::size_t p) { return t[p] == '\n'; });
  auto bare_dollar = detail::make_finder(text, [](std::string_view t, std::size_t p) {
    return t[p] == '$' && (p == 0 || t[p - 1] != '\\');
  });
  auto bracket_stop = detail::make_finder(text, [](std::string_view t, std::size_t p) {
    return t[p] == '\n' || t[p] == '[' || t[p] == ']';
  });
  // Does the content [a, q) hold "\boxed{", then at least one character, then "}"? The earliest
  // "\boxed{" is the most permissive choice, so it decides.
  const auto holds_boxed = [&](std::size_t a, std::size_t q) {
    const std::size_t i = boxed.query(a);
    if (i == kNpos || i >= q) return false;
    const std::size_t j = brace.query(i + 8);
    return j != kNpos && j < q;
  };

  bool have_env = false;
  std::size_t env_start = 0, env_end = 0, content_begin = 0, content_end = 0;
  std::size_t s = 0;
  while (s < n) {
    const unsigned char c = at(s);
    const bool after_backslash = s > 0 && at(s - 1) == '\\';
    std::size_t close = kNpos;  // end of the environment, when one matches at s
    std::size_t cb = 0, ce = 0;
    if (c == '$') {
      if (s + 1 < n && at(s + 1) == '$' && !after_backslash) {  // $$...$$
        const std::size_t q = double_dollar.query(s + 2);
        if (q != kNpos && at(q - 1) != '\\' && holds_boxed(s + 1, q)) {
          cb = s + 2, ce = q, close = q + 2;
        }
      }
      if (close == kNpos && !after_backslash && !(s > 0 && detail::is_ascii_digit(at(s - 1)))) {
        const std::size_t q = bare_dollar.query(s + 1);  // $...$
        if (q != kNpos) {
          const std::size_t nl = newline.query(s + 1);
          if ((nl == kNpos || nl > q) && holds_boxed(s + 1, q)) {
            if (s > 0 && at(s - 1) >= 0x80) {  // a Unicode digit would forbid the match
              out.status = BoxedStatus::kUnknown;
              return out;
            }
            cb = s + 1, ce = q, close = q + 1;
          }
        }
      }
    } else if (c == '\\' && s + 1 < n && !after_backslash && at(s + 1) == '[') {  // \[...\]
      const std::size_t q = close_bracket.query(s + 2);
      if (q != kNpos && at(q - 1) != '\\' && holds_boxed(s + 1, q)) cb = s + 2, ce = q, close = q + 2;
    } else if (c == '\\' && s + 1 < n && !after_backslash && at(s + 1) == '(') {  // \(...\)
      const std::size_t q = close_paren.query(s + 2);
      if (q != kNpos) {
        const std::size_t nl = newline.query(s + 2);
        if ((nl == kNpos || nl > q) && at(q - 1) != '\\' && holds_boxed(s + 1, q)) {
          cb = s + 2, ce = q, close = q + 2;
        }
      }
    } else if ((is_python_space(c) || c >= 0x80) && s + 1 < n && at(s + 1) == '[') {  // \s[...]\s
      const std::size_t k = bracket_stop.query(s + 2);
      if (k != kNpos && at(k) == ']' && k + 1 < n && holds_boxed(s + 1, k)) {
        const unsigned char after = at(k + 1);
        if (is_python_space(c) && is_python_space(after)) {
          cb = s + 2, ce = k, close = k + 2;
        } else if (after >= 0x80 || (c >= 0x80 && is_python_space(after))) {
          out.status = BoxedStatus::kUnknown;  // depends on Unicode whitespace
          return out;
        }
      }
    }
    if (close == kNpos) {
      ++s;
      continue;
    }
    std::size_t w = close;  // the optional groups' leading \s* always consume the whitespace
    while (w < n && is_python_space(at(w))) ++w;
    if (detail::continuation_possible(text, w)) {
      out.status = BoxedStatus::kUnknown;
      return out;
    }
    have_env = true;
    env_start = s, env_end = w, content_begin = cb, content_end = ce;
    s = w;  // re.finditer resumes at the end of the match
  }

  if (!have_env && !has_plain) return out;
  out.status = BoxedStatus::kFound;
  // Sorted by (end, -start), rightmost end first; A before B on a full tie (cannot happen:
  // A starts at a delimiter, B at "\boxed").
  const std::size_t plain_end = has_plain ? last_brace + 1 : 0;
  if (has_plain && (!have_env || plain_end > env_end || (plain_end == env_end && first_boxed < env_start))) {
    out.plain = true;
    out.begin = out.match_start = first_boxed;
    out.end = out.match_end = plain_end;
  } else {
    out.begin = content_begin;
    out.end = content_end;
    out.match_start = env_start;
    out.match_end = env_end;
  }
  return out;
}

}  // namespace rapidgrade::mvcompat
