#include "rapidgrade/detail/delimiters.hpp"

#include "rapidgrade/scan.hpp"

namespace rapidgrade::detail {
namespace {

constexpr bool has(Wrappers set, Wrappers w) noexcept {
  return (static_cast<std::uint8_t>(set) & static_cast<std::uint8_t>(w)) != 0;
}

// True when t holds a '$' that no backslash escapes ("a\$b" -> false, "a$b" -> true).
bool has_unescaped_dollar(std::string_view t) noexcept {
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] == '\\') {
      ++k;
    } else if (t[k] == '$') {
      return true;
    }
  }
  return false;
}

// The inside of math delimiters that enclose all of t (trimmed), or false.
bool math_inner(std::string_view t, std::string_view& inner) noexcept {
  const std::size_t len = t.size();
  if (len >= 4 && starts_with(t, 0, "$$") && ends_with(t, "$$") && !has_unescaped_dollar(t.substr(2, len - 4))) {
    inner = t.substr(2, len - 4);
    return true;
  }
  if (len >= 2 && t.front() == '$' && t.back() == '$' && (len < 3 || t[len - 2] != '\\') &&
      !has_unescaped_dollar(t.substr(1, len - 2))) {
    inner = t.substr(1, len - 2);
    return true;
  }
  if (len >= 4 && t[0] == '\\' && (t[1] == '(' || t[1] == '[')) {
    const std::string_view close = t[1] == '(' ? "\\)" : "\\]";
    if (ends_with(t, close) && t.substr(2, len - 4).find(close) == std::string_view::npos) {
      inner = t.substr(2, len - 4);
      return true;
    }
  }
  return false;
}

// The argument of a \boxed or \fbox that encloses all of t (trimmed), or false.
bool box_inner(std::string_view t, std::string_view& inner) noexcept {
  const std::size_t n = t.size();
  if (n < 2 || t[0] != '\\') return false;
  const std::size_t name_end = letters_end(t, 1);
  const std::string_view name = t.substr(1, name_end - 1);
  const bool boxed = name == "boxed";
  if (!boxed && name != "fbox") return false;
  std::size_t k = name_end;
  while (k < n && is_space(t[k])) ++k;
  if (k < n && t[k] == '{') {
    if (scan::match_brace(t, k) != n - 1) return false;
    inner = t.substr(k + 1, n - 1 - (k + 1));
    return true;
  }
  if (boxed && k < n && bare_box_argument_end(t, k) == n) {
    inner = t.substr(k);
    return true;
  }
  return false;
}

}  // namespace

std::string_view unwrap(std::string_view s, Wrappers which, int max_layers) noexcept {
  s = trim(s);
  for (int layer = 0; layer < max_layers; ++layer) {
    std::string_view inner;
    if (!(has(which, Wrappers::kMath) && math_inner(s, inner)) &&
        !(has(which, Wrappers::kBoxes) && box_inner(s, inner))) {
      break;
    }
    s = trim(inner);
  }
  return s;
}

}  // namespace rapidgrade::detail
