#include "rapidgrade/tasks/fields.hpp"

#include <vector>

#include "rapidgrade/detail/text.hpp"

namespace rapidgrade::fields {
namespace {

using detail::find_byte;
using detail::is_blank;
using detail::istarts_with;
using detail::kNpos;
using detail::starts_with;

Range trim(std::string_view s, Range r) noexcept {
  detail::trim_bounds(s, r.start, r.end);
  return r;
}

struct Line {
  std::size_t start, end;  // without the newline (and a trailing '\r')
};

std::vector<Line> split_lines(std::string_view s) {
  std::vector<Line> lines;
  const std::size_t n = s.size();
  for (std::size_t i = 0; i <= n;) {
    std::size_t eol = find_byte(s, i, '\n');
    std::size_t end = eol;
    if (end > i && s[end - 1] == '\r') --end;
    lines.push_back(Line{i, end});
    if (eol >= n) break;
    i = eol + 1;
  }
  return lines;
}

// Skips markdown emphasis/list decoration at a line start: blanks, '*', '-', '#', '>'.
std::size_t skip_decoration(std::string_view s, std::size_t i, std::size_t end) noexcept {
  while (i < end && (is_blank(s[i]) || s[i] == '*' || s[i] == '#' || s[i] == '>' || s[i] == '-')) ++i;
  return i;
}

// "KEY:" (case-insensitive when `exact_case` is false) at i, followed by optional "**" and
// blanks; the position after it, or kNpos.
std::size_t after_key(std::string_view s, std::size_t i, std::size_t end, std::string_view key,
                      bool exact_case) noexcept {
  const std::string_view line = s.substr(0, end);
  if (exact_case ? !starts_with(line, i, key) : !istarts_with(line, i, key)) return kNpos;
  std::size_t j = i + key.size();
  if (starts_with(line, j, "**")) j += 2;
  while (j < end && is_blank(s[j])) ++j;
  if (j >= end || s[j] != ':') return kNpos;
  ++j;
  if (starts_with(line, j, "**")) j += 2;
  while (j < end && is_blank(s[j])) ++j;
  return j;
}

// "u(x) =" at i (blanks allowed around the parentheses and before '='): position after '=' or
// kNpos.
std::size_t after_function(std::string_view s, std::size_t i, std::size_t end, std::string_view function,
                           std::string_view variable) noexcept {
  const std::string_view line = s.substr(0, end);
  if (function.empty() || !starts_with(line, i, function)) return kNpos;
  std::size_t j = i + function.size();
  while (j < end && is_blank(s[j])) ++j;
  if (j >= end || s[j] != '(') return kNpos;
  ++j;
  while (j < end && is_blank(s[j])) ++j;
  if (!starts_with(line, j, variable)) return kNpos;
  j += variable.size();
  while (j < end && is_blank(s[j])) ++j;
  if (j >= end || s[j] != ')') return kNpos;
  ++j;
  while (j < end && is_blank(s[j])) ++j;
  if (j >= end || s[j] != '=') return kNpos;
  return j + 1;
}

Range clean_rhs(std::string_view s, Range r) noexcept {
  for (bool changed = true; changed;) {
    changed = false;
    r = trim(s, r);
    if (r.end > r.start && s[r.end - 1] == '.') {
      --r.end;
      changed = true;
    } else if (r.end > r.start && s[r.end - 1] == '$') {
      --r.end;
      changed = true;
    } else if (r.end - r.start >= 2 && s[r.end - 2] == '\\' && (s[r.end - 1] == ')' || s[r.end - 1] == ']')) {
      r.end -= 2;
      changed = true;
    }
  }
  return r;
}

std::size_t skip_math_opener(std::string_view s, std::size_t i, std::size_t end) noexcept {
  const std::string_view line = s.substr(0, end);
  if (starts_with(line, i, "$$"))
    i += 2;
  else if (starts_with(line, i, "$"))
    i += 1;
  else if (starts_with(line, i, "\\(") || starts_with(line, i, "\\["))
    i += 2;
  while (i < end && is_blank(s[i])) ++i;
  return i;
}

bool parse_yes_no(std::string_view s, Range r, bool& out) noexcept {
  r = trim(s, r);
  while (r.end > r.start && (s[r.end - 1] == '.' || s[r.end - 1] == '*')) --r.end;
  const std::string_view v = s.substr(r.start, r.end - r.start);
  auto is = [&](std::string_view w) { return v.size() == w.size() && istarts_with(v, 0, w); };
  if (is("yes") || is("true")) {
    out = true;
    return true;
  }
  if (is("no") || is("false")) {
    out = false;
    return true;
  }
  return false;
}

}  // namespace

Fields extract_fields(std::string_view text, std::string_view function, std::string_view variable) {
  Fields f;
  const std::vector<Line> lines = split_lines(text);
  std::optional<Range> solution[3];
  std::optional<bool> explicit_has;
  std::optional<std::size_t> reasoning_line;
  auto is_key_line = [&](const Line& l) {
    const std::size_t i = skip_decoration(text, l.start, l.end);
    for (std::string_view key : {"SOLUTION", "HAS_SOLUTION", "SOLUTION_TYPE", "SOLUTION_EXISTS", "REASONING"}) {
      if (after_key(text, i, l.end, key, false) != kNpos) return true;
    }
    return false;
  };
  for (std::size_t li = 0; li < lines.size(); ++li) {
    const Line& l = lines[li];
    const std::size_t i = skip_decoration(text, l.start, l.end);
    std::size_t j = kNpos;
    if ((j = after_key(text, i, l.end, "SOLUTION", false)) != kNpos) {
      const bool exact = starts_with(text, i, "SOLUTION");
      const std::size_t k = after_function(text, skip_math_opener(text, j, l.end), l.end, function, variable);
      if (k != kNpos) {
        const Range r = clean_rhs(text, Range{k, l.end});
        if (r.end > r.start) solution[exact ? 0 : 1] = r;
      }
    } else if ((j = after_key(text, i, l.end, "HAS_SOLUTION", false)) != kNpos ||
               (j = after_key(text, i, l.end, "SOLUTION_EXISTS", false)) != kNpos) {
      bool v = false;
      if (parse_yes_no(text, Range{j, l.end}, v)) explicit_has = v;
    } else if ((j = after_key(text, i, l.end, "SOLUTION_TYPE", false)) != kNpos) {
      Range r = trim(text, Range{j, l.end});
      while (r.end > r.start && (text[r.end - 1] == '.' || text[r.end - 1] == '*' || text[r.end - 1] == '`')) --r.end;
      while (r.start < r.end && text[r.start] == '`') ++r.start;
      const std::string_view v = text.substr(r.start, r.end - r.start);
      for (std::string_view t : kSolutionTypes) {
        if (v.size() == t.size() && istarts_with(v, 0, t)) f.solution_type = std::string(t);
      }
    } else if ((j = after_key(text, i, l.end, "REASONING", false)) != kNpos) {
      reasoning_line = li;
    } else {
      const std::size_t k = after_function(text, skip_math_opener(text, i, l.end), l.end, function, variable);
      if (k != kNpos) {
        const Range r = clean_rhs(text, Range{k, l.end});
        if (r.end > r.start) solution[2] = r;
      }
    }
  }
  for (const auto& s : solution) {
    if (s) {
      f.solution = s;
      break;
    }
  }
  if (explicit_has) {
    f.has_solution = explicit_has;
  } else {
    for (std::size_t i = 0; i + 17 <= text.size(); ++i) {
      if ((text[i] | 0x20) == 'n' && istarts_with(text, i, "no solution exists")) {
        f.has_solution = false;
        break;
      }
    }
  }
  if (reasoning_line) {
    const Line& l = lines[*reasoning_line];
    const std::size_t start = after_key(text, skip_decoration(text, l.start, l.end), l.end, "REASONING", false);
    std::size_t end = text.size();
    for (std::size_t li = *reasoning_line + 1; li < lines.size(); ++li) {
      if (is_key_line(lines[li])) {
        end = lines[li].start;
        break;
      }
    }
    const Range r = trim(text, Range{start, end});
    if (r.end > r.start) f.reasoning = r;
  }
  return f;
}

}  // namespace rapidgrade::fields
