#include "rapidgrade/extract.hpp"

#include <string_view>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::extract {
namespace {

using detail::digits_end;
using detail::find_byte;
using detail::find_str;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;
using detail::starts_with;

constexpr std::string_view kUnicodeMinus = "\xE2\x88\x92";  // U+2212

Range trim(std::string_view s, Range r) noexcept {
  detail::trim_bounds(s, r.start, r.end);
  return r;
}

// The range of `part`, a view into s.
Range range_of(std::string_view s, std::string_view part) noexcept {
  const std::size_t start = detail::offset_in(s, part);
  return Range{start, start + part.size()};
}

// ---------------------------------------------------------------------------------------------
// boxed

struct Box {
  std::size_t outer_start, start, end, outer_end;
};

// The command at a \boxed or \fbox found by next_box_command: the position after its name and
// whether it is \boxed.
struct Command {
  std::size_t name_end = kNpos;
  bool boxed = false;
};

// The next \boxed or \fbox command starting at or after `pos`: the position of its backslash,
// or kNpos. Searches for the byte 'x' (far rarer than '\\' in LaTeX-heavy text) with memchr and
// looks back for the command around it. A backslash starts a command when it is preceded by an
// even number of backslashes (a run of backslashes always starts at a token boundary, and
// "\\\\" pairs are escapes), so the check is local.
std::size_t next_box_command(std::string_view s, std::size_t pos, Command& cmd) noexcept {
  const std::size_t n = s.size();
  std::size_t i = pos;
  while (true) {
    const std::size_t x = find_byte(s, i, 'x');
    if (x >= n) return kNpos;
    i = x + 1;
    std::size_t c = kNpos;
    // Cheap byte tests first: most 'x' are variables, not part of a box command.
    if (x >= pos + 3 && s[x - 3] == '\\' && s[x - 2] == 'b' && s[x - 1] == 'o' && x + 2 < n && s[x + 1] == 'e' &&
        s[x + 2] == 'd' && (x + 3 >= n || !is_letter(s[x + 3]))) {
      c = x - 3;
      cmd = Command{x + 3, true};
    } else if (x >= pos + 4 && s[x - 4] == '\\' && s[x - 3] == 'f' && s[x - 2] == 'b' && s[x - 1] == 'o' &&
               (x + 1 >= n || !is_letter(s[x + 1]))) {
      c = x - 4;
      cmd = Command{x + 1, false};
    } else {
      continue;
    }
    std::size_t k = c;
    while (k > 0 && s[k - 1] == '\\') --k;
    if ((c - k) % 2 == 0) return c;
  }
}

// Every top-level box (one not inside another box) in s[from, n), in order. Finds box commands
// with next_box_command, matches the braces of each box once and continues after it, so the
// text inside a box is read once and the text outside is only searched with memchr.
// An unclosed box hands the rest of the text to scan::find_boxed (one more linear pass), which
// finds the closed boxes inside it, as a full scan would.
std::vector<Box> top_level_boxes(std::string_view s, std::size_t from) {
  std::vector<Box> out;
  const std::size_t n = s.size();
  std::size_t i = from;
  while (true) {
    Command cmd;
    i = next_box_command(s, i, cmd);
    if (i == kNpos) break;
    std::size_t k = cmd.name_end;
    while (k < n && is_space(s[k])) ++k;
    if (k < n && s[k] == '{') {
      const std::size_t close = scan::match_brace(s, k);
      if (close == kNpos) {
        const std::size_t base = k + 1;
        const std::vector<scan::Span> spans = scan::find_boxed(s.substr(base));
        std::size_t last_end = 0;
        bool any = false;
        for (const scan::Span& sp : spans) {
          if (any && sp.outer_start < last_end) continue;
          out.push_back(Box{base + sp.outer_start, base + sp.start, base + sp.end, base + sp.outer_end});
          last_end = sp.outer_end;
          any = true;
        }
        break;
      }
      out.push_back(Box{i, k + 1, close, close + 1});
      i = close + 1;
    } else if (cmd.boxed) {
      const std::size_t end = detail::bare_box_argument_end(s, k);
      if (end > k) {
        out.push_back(Box{i, k, end, end});
        i = end;
      } else {
        i = k;
      }
    } else {
      i = k;
    }
  }
  return out;
}

// \boxed{\boxed{x}} -> x: while the whole (trimmed) content is itself one box, take its content.
// The result is trimmed of whitespace: \boxed{ 42 } -> "42".
Range unwrap_box(std::string_view s, Range r) noexcept {
  return range_of(s, detail::unwrap(s.substr(r.start, r.end - r.start), detail::Wrappers::kBoxes,
                                    detail::kMaxWrapperLayers));
}

// True when the text between two boxes ends a sentence: '.', '!' or '?' followed by
// whitespace, '$', a backslash or the end of the gap; or a blank line.
bool ends_sentence(std::string_view s, std::size_t from, std::size_t to) noexcept {
  for (std::size_t k = from; k < to; ++k) {
    const char c = s[k];
    if (c == '.' || c == '!' || c == '?') {
      if (k + 1 == to || is_space(s[k + 1]) || s[k + 1] == '$' || s[k + 1] == '\\') return true;
    } else if (c == '\n') {
      std::size_t m = k + 1;
      while (m < to && (s[m] == ' ' || s[m] == '\t' || s[m] == '\r')) ++m;
      if (m < to && s[m] == '\n') return true;
    }
  }
  return false;
}

std::optional<Extraction> find_boxed_answer(std::string_view s, std::size_t from) {
  const std::vector<Box> boxes = top_level_boxes(s, from);
  if (boxes.empty()) return std::nullopt;
  std::size_t first = boxes.size() - 1;
  while (first > 0 && !ends_sentence(s, boxes[first - 1].outer_end, boxes[first].outer_start)) --first;
  Extraction e;
  if (first == boxes.size() - 1) {
    const Range r = unwrap_box(s, Range{boxes.back().start, boxes.back().end});
    e.method = Method::kBoxed;
    e.start = r.start;
    e.end = r.end;
    return e;
  }
  e.method = Method::kBoxedMulti;
  for (std::size_t k = first; k < boxes.size(); ++k) {
    e.parts.push_back(unwrap_box(s, Range{boxes[k].start, boxes[k].end}));
  }
  e.start = e.parts.front().start;
  e.end = e.parts.back().end;
  return e;
}

// ---------------------------------------------------------------------------------------------
// answer_is

// Removes one pair of surrounding markdown "**", then one layer of math delimiters around the
// whole value (detail::unwrap; one layer, so "$\(x\)$" keeps "\(x\)", as extraction always has).
Range strip_answer_delimiters(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  if (r.end - r.start >= 4 && starts_with(s, r.start, "**") && s.compare(r.end - 2, 2, "**") == 0) {
    r = Range{r.start + 2, r.end - 2};
  }
  return range_of(s, detail::unwrap(s.substr(r.start, r.end - r.start), detail::Wrappers::kMath, 1));
}

// The answer after a marker, starting at j: whitespace (newlines too) skipped, then a display
// block ($$...$$ or \[...\]) or the rest of the sentence/line.
Range answer_value(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  while (j < n && is_space(s[j])) ++j;
  if (j == n) return Range{j, j};
  if (starts_with(s, j, "$$") || starts_with(s, j, "\\[")) {
    const bool dollars = s[j] == '$';
    const std::size_t close = detail::find_math_closer(s, j + 2, dollars ? "$$" : "\\]");
    if (close != kNpos) return strip_answer_delimiters(s, Range{j, close + 2});
  }
  bool in_dollar = false;
  bool in_paren = false;
  std::size_t depth = 0;
  std::size_t k = j;
  while (k < n) {
    const char c = s[k];
    if (c == '\n' || c == '\r') break;
    if (c == '\\') {
      if (k + 1 < n && (s[k + 1] == '\n' || s[k + 1] == '\r')) break;
      if (k + 1 < n) {
        if (s[k + 1] == '(') in_paren = true;
        else if (s[k + 1] == ')') in_paren = false;
      }
      k += 2;
      continue;
    }
    if (c == '$') {
      in_dollar = !in_dollar;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth > 0) --depth;
    } else if ((c == '.' || c == '!' || c == '?') && !in_dollar && !in_paren && depth == 0 &&
               (k + 1 >= n || is_space(s[k + 1]))) {
      break;
    }
    ++k;
  }
  if (k > n) k = n;
  return strip_answer_delimiters(s, Range{j, k});
}

// After "answer" at i: the position where the answer starts, or kNpos when no marker follows.
// Accepted: "answer is", "answer is:", "answer:", "answer**:", "answer:**", "answer** is".
std::size_t after_marker(std::string_view s, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t j = i + 6;
  if (starts_with(s, j, "**")) j += 2;
  while (j < n && is_blank(s[j])) ++j;
  if (j < n && s[j] == ':') {
    ++j;
    if (starts_with(s, j, "**")) j += 2;
    return j;
  }
  if (istarts_with(s, j, "is") && (j + 2 >= n || !is_letter(s[j + 2]))) {
    j += 2;
    while (j < n && is_blank(s[j])) ++j;
    if (j < n && s[j] == ':') ++j;
    return j;
  }
  return kNpos;
}

std::optional<Extraction> find_answer_is(std::string_view s, std::size_t from) {
  const std::size_t n = s.size();
  // Candidates are found by the 'w'/'W' of "answer" (memchr), the rarest letter of the word.
  std::size_t last = kNpos;
  for (const char w : {'w', 'W'}) {
    for (std::size_t p = find_byte(s, from + 3, w); p < n; p = find_byte(s, p + 1, w)) {
      const std::size_t i = p - 3;
      if (!istarts_with(s, i, "answer")) continue;
      if (i > from && is_letter(s[i - 1])) continue;
      const std::size_t j = after_marker(s, i);
      if (j != kNpos && (last == kNpos || j > last)) last = j;
    }
  }
  if (last == kNpos) return std::nullopt;
  const Range r = answer_value(s, last);
  if (r.end <= r.start) return std::nullopt;
  Extraction e;
  e.method = Method::kAnswerIs;
  e.start = r.start;
  e.end = r.end;
  return e;
}

// ---------------------------------------------------------------------------------------------
// tagged

std::size_t line_end(std::string_view s, std::size_t i) noexcept { return find_byte(s, i, '\n'); }

// The position of the next `marker` at or after pos that begins a line of s[from, n) (only
// blanks before it on its line), or kNpos; `line_start` is set to the start of that line.
// Searches for the marker's first byte with memchr ('#' and '`' are rare in prose and LaTeX).
std::size_t next_marker_line(std::string_view s, std::size_t from, std::size_t pos, std::string_view marker,
                             std::size_t& line_start) noexcept {
  const std::size_t n = s.size();
  for (std::size_t p = find_byte(s, pos, marker[0]); p < n; p = find_byte(s, p + 1, marker[0])) {
    if (!starts_with(s, p, marker)) continue;
    std::size_t b = p;
    while (b > from && is_blank(s[b - 1])) --b;
    if (b == from || s[b - 1] == '\n') {
      line_start = b;
      return p;
    }
  }
  return kNpos;
}

// "#### X": X is a plain number, possibly with '$', separators, sign, '/' and spaces.
bool gsm8k_value(std::string_view s, Range r) noexcept {
  bool digit = false;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (is_digit(c)) {
      digit = true;
    } else if (starts_with(s.substr(0, r.end), k, kUnicodeMinus)) {
      k += 2;
    } else if (!(c == ',' || c == '.' || c == '-' || c == '+' || c == '/' || c == ' ' || c == '$')) {
      return false;
    }
  }
  return digit;
}

std::optional<Extraction> find_tagged(std::string_view s, std::size_t from) {
  // <answer>X</answer>: the last closing tag and the last opening tag before it.
  std::size_t close = kNpos;
  for (std::size_t at = find_str(s, from, "</answer>"); at != kNpos; at = find_str(s, at + 9, "</answer>")) close = at;
  if (close != kNpos) {
    std::size_t open = kNpos;
    const std::string_view head = s.substr(0, close);
    for (std::size_t at = find_str(head, from, "<answer>"); at != kNpos; at = find_str(head, at + 8, "<answer>")) open = at;
    if (open != kNpos) {
      const Range r = trim(s, Range{open + 8, close});
      if (r.end > r.start) {
        Extraction e;
        e.method = Method::kTagged;
        e.start = r.start;
        e.end = r.end;
        return e;
      }
    }
  }
  // #### X at the start of a line (after blanks), the last valid one.
  std::optional<Range> best;
  std::size_t line_start = 0;
  for (std::size_t k = next_marker_line(s, from, from, "####", line_start); k != kNpos;) {
    const std::size_t eol = line_end(s, k);
    Range r = trim(s, Range{k + 4, eol});
    while (r.end > r.start && s[r.end - 1] == '.') --r.end;
    r = trim(s, r);
    if (r.end > r.start && gsm8k_value(s, r)) best = r;
    k = eol < s.size() ? next_marker_line(s, from, eol + 1, "####", line_start) : kNpos;
  }
  if (!best) return std::nullopt;
  Extraction e;
  e.method = Method::kTagged;
  e.start = best->start;
  e.end = best->end;
  return e;
}

// ---------------------------------------------------------------------------------------------
// code_output

std::optional<Extraction> find_code_output(std::string_view s, std::size_t from) {
  const std::size_t n = s.size();
  bool in_block = false;
  bool block_is_output = false;
  bool seen_code = false;
  std::size_t content_start = 0;
  std::optional<Range> best;
  std::size_t i = 0;  // start of the fence line
  for (std::size_t k = next_marker_line(s, from, from, "```", i); k != kNpos;) {
    const std::size_t eol = line_end(s, k);
    {
      const Range info = trim(s, Range{k + 3, eol});
      if (!in_block) {
        std::size_t w = info.start;
        while (w < info.end && !is_space(s[w])) ++w;
        const std::string_view lang = s.substr(info.start, w - info.start);
        auto ieq = [&](std::string_view word) {
          return lang.size() == word.size() && istarts_with(lang, 0, word);
        };
        block_is_output = ieq("output") || ieq("text");
        in_block = true;
        content_start = eol < n ? eol + 1 : n;
      } else if (info.end == info.start) {
        if (block_is_output && seen_code) {
          const Range r = trim(s, Range{content_start, i});
          if (r.end > r.start) best = r;
        }
        if (!block_is_output) seen_code = true;
        in_block = false;
      }
    }
    k = eol < n ? next_marker_line(s, from, eol + 1, "```", i) : kNpos;
  }
  if (!best) return std::nullopt;
  Extraction e;
  e.method = Method::kCodeOutput;
  e.start = best->start;
  e.end = best->end;
  return e;
}

// ---------------------------------------------------------------------------------------------
// last_number

bool sign_context(char c) noexcept {
  return is_space(c) || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' ||
         c == ';' || c == '$';
}

// Start of the number at i including a '-' or U+2212 sign right before it, when that sign
// follows the region start, whitespace or one of ( [ { = , : ; $ (so "3-5" is 3 and 5, while
// "x = -5" is -5).
std::size_t with_sign(std::string_view s, std::size_t from, std::size_t i) noexcept {
  std::size_t p = i;
  if (i >= from + 1 && s[i - 1] == '-') {
    p = i - 1;
  } else if (i >= from + 3 && s.compare(i - 3, 3, kUnicodeMinus) == 0) {
    p = i - 3;
  } else {
    return i;
  }
  if (p == from || sign_context(s[p - 1])) return p;
  return i;
}

// End of the number starting at i (a digit, or '.' followed by a digit).
// Grammar: 1,234,567 (groups of exactly three digits after a first run of one to three),
// decimals 3.25 and .5, exponents 1.5e-3, integer fractions 3/4.
std::size_t number_end(std::string_view s, std::size_t i) noexcept {
  const std::size_t n = s.size();
  std::size_t k = i;
  bool plain = true;
  if (s[k] == '.') {
    k = digits_end(s, k + 1);
    plain = false;
  } else {
    k = digits_end(s, k);
    const std::size_t groups_end =
        rapidgrade::detail::thousands_end(s, i, k, rapidgrade::detail::GroupSeparators::kComma);
    if (groups_end != k) plain = false;
    k = groups_end;
    if (k + 1 < n && s[k] == '.' && is_digit(s[k + 1])) {
      k = digits_end(s, k + 1);
      plain = false;
    }
  }
  if (k < n && (s[k] == 'e' || s[k] == 'E')) {
    std::size_t m = k + 1;
    if (m < n && (s[m] == '+' || s[m] == '-')) ++m;
    if (m < n && is_digit(s[m])) {
      k = digits_end(s, m);
      plain = false;
    }
  }
  if (plain && k + 1 < n && s[k] == '/' && is_digit(s[k + 1])) k = digits_end(s, k + 1);
  return k;
}

// "{3}{4}" or "{-3}{4}" right after \frac: the end of the arguments, or kNpos.
std::size_t numeric_frac_end(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  if (j >= n || s[j] != '{') return kNpos;
  std::size_t k = j + 1;
  if (k < n && s[k] == '-') ++k;
  std::size_t d = digits_end(s, k);
  if (d == k || d + 1 >= n || s[d] != '}' || s[d + 1] != '{') return kNpos;
  k = d + 2;
  d = digits_end(s, k);
  if (d == k || d >= n || s[d] != '}') return kNpos;
  return d + 1;
}

// Bytes at which a number or a command can start: digits, '.', '\\'.
struct NumberStartTable {
  bool at[256] = {};
  constexpr NumberStartTable() {
    for (char c = '0'; c <= '9'; ++c) at[static_cast<unsigned char>(c)] = true;
    at[static_cast<unsigned char>('.')] = true;
    at[static_cast<unsigned char>('\\')] = true;
  }
};
constexpr NumberStartTable kNumberStart{};

std::optional<Extraction> find_last_number(std::string_view s, std::size_t from) {
  const std::size_t n = s.size();
  std::optional<Range> best;
  std::size_t i = from;
  while (i < n) {
    while (i < n && !kNumberStart.at[static_cast<unsigned char>(s[i])]) ++i;
    if (i >= n) break;
    const char c = s[i];
    if (c == '\\') {
      if (i + 1 < n && is_letter(s[i + 1])) {
        std::size_t j = i + 1;
        while (j < n && is_letter(s[j])) ++j;
        const std::string_view name = s.substr(i + 1, j - i - 1);
        if (name == "frac" || name == "dfrac" || name == "tfrac") {
          const std::size_t end = numeric_frac_end(s, j);
          if (end != kNpos) {
            best = Range{with_sign(s, from, i), end};
            i = end;
            continue;
          }
        }
        i = j;
      } else {
        i += 2;
      }
      continue;
    }
    if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(s[i + 1]) && (i == from || !is_digit(s[i - 1])))) {
      const std::size_t end = number_end(s, i);
      best = Range{with_sign(s, from, i), end};
      i = end;
      continue;
    }
    ++i;
  }
  if (!best) return std::nullopt;
  Extraction e;
  e.method = Method::kLastNumber;
  e.start = best->start;
  e.end = best->end;
  return e;
}

}  // namespace

const char* method_name(Method method) noexcept {
  switch (method) {
    case Method::kAuto: return "auto";
    case Method::kBoxed: return "boxed";
    case Method::kBoxedMulti: return "boxed_multi";
    case Method::kAnswerIs: return "answer_is";
    case Method::kTagged: return "tagged";
    case Method::kCodeOutput: return "code_output";
    case Method::kLastNumber: return "last_number";
  }
  return "?";
}

bool parse_strategy(std::string_view name, Method& out) noexcept {
  static constexpr Method kStrategies[] = {Method::kAuto, Method::kBoxed, Method::kAnswerIs, Method::kTagged,
                                           Method::kCodeOutput, Method::kLastNumber};
  for (Method m : kStrategies) {
    if (name == method_name(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

std::size_t search_start(std::string_view text) noexcept {
  std::size_t last = kNpos;
  for (std::size_t at = find_str(text, 0, "</think>"); at != kNpos; at = find_str(text, at + 8, "</think>")) last = at;
  return last == kNpos ? 0 : last + 8;
}

std::optional<Extraction> extract_answer(std::string_view text, Method strategy) {
  const std::size_t from = search_start(text);
  switch (strategy) {
    case Method::kBoxed:
    case Method::kBoxedMulti: return find_boxed_answer(text, from);
    case Method::kAnswerIs: return find_answer_is(text, from);
    case Method::kTagged: return find_tagged(text, from);
    case Method::kCodeOutput: return find_code_output(text, from);
    case Method::kLastNumber: return find_last_number(text, from);
    case Method::kAuto: break;
  }
  if (auto e = find_boxed_answer(text, from)) return e;
  if (auto e = find_answer_is(text, from)) return e;
  if (auto e = find_tagged(text, from)) return e;
  if (auto e = find_code_output(text, from)) return e;
  return find_last_number(text, from);
}

std::string answer_text(std::string_view text, const Extraction& e) {
  if (e.parts.empty()) return std::string(text.substr(e.start, e.end - e.start));
  std::string out;
  for (std::size_t k = 0; k < e.parts.size(); ++k) {
    if (k > 0) out += ", ";
    out.append(text.substr(e.parts[k].start, e.parts[k].end - e.parts[k].start));
  }
  return out;
}

}  // namespace rapidgrade::extract
