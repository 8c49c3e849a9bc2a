// The physics task's normalize_answer flow (physics.hpp): number, gate, math content, then
// equation, quantity or formula; the formatting of numbers; and the reading of a gold and of a
// response into a Side (extraction, then the quantity of its answer, looked for around the
// last number). The number-and-unit grammar it reads with is physics_quantity.cpp's
// (physics_internal.hpp). UTF-8 input; linear scanners (O(n)), never throw.
#include "rapidgrade/tasks/physics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "physics_internal.hpp"
#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/extract.hpp"

namespace rapidgrade::physics {

using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::kNpos;
using detail::starts_with;
using namespace internal;

namespace {

/// Most bytes after a last-number answer searched for its unit.
constexpr std::size_t kUnitLookahead = 200;
/// Most bytes before a last-number answer searched for the start of its quantity.
constexpr std::size_t kLookBehind = 120;

bool has_non_ascii(std::string_view s) noexcept {
  for (const char c : s)
    if (static_cast<unsigned char>(c) >= 0x80) return true;
  return false;
}

// Matching '}' of every '{' (escaped braces "\{" "\}" are not braces), one O(n) pass with an
// explicit stack; kNpos for an unclosed brace.
std::vector<std::size_t> brace_matches(std::string_view s) {
  // one allocation: while a '{' is open, its entry holds the previous open '{' (the stack)
  std::vector<std::size_t> match(s.size(), kNpos);
  std::size_t top = kNpos;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '{') {
      match[i] = top;
      top = i;
    } else if (s[i] == '}' && top != kNpos) {
      const std::size_t previous = match[top];
      match[top] = i;
      top = previous;
    }
  }
  while (top != kNpos) {  // unclosed
    const std::size_t previous = match[top];
    match[top] = kNpos;
    top = previous;
  }
  return match;
}

// A command at s[i] ('\\') whose brace group is unwrapped: \boxed, \fbox and the kText/kMath
// wrappers of latex_vocab. Returns the offset of its '{' (after optional spaces), or kNpos.
std::size_t wrapper_brace(std::string_view s, std::size_t i) {
  const std::size_t name_end = detail::letters_end(s, i + 1);
  if (name_end == i + 1) return kNpos;
  const std::string_view name = s.substr(i + 1, name_end - i - 1);
  bool wrapper = name == "boxed" || name == "fbox";
  if (!wrapper) {
    const detail::TextWrapper* w = detail::find_text_wrapper(name);
    wrapper = w != nullptr && w->content != detail::WrapperContent::kOperator;
  }
  if (!wrapper) return kNpos;
  std::size_t k = name_end;
  while (k < s.size() && is_space(s[k])) ++k;
  return k < s.size() && s[k] == '{' ? k : kNpos;
}

bool is_gate(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  for (std::string_view p : {"$", "\\[", "\\(", "\\boxed{", "\\frac{", "\\text{", "\\mathrm{"})
    if (starts_with(s, i, p)) return true;
  return false;
}

// `out` trimmed in place.
void trim_in_place(std::string& out) {
  const std::string_view t = detail::trim(out);
  const std::size_t lead = static_cast<std::size_t>(t.data() - out.data());
  out.resize(lead + t.size());
  out.erase(0, lead);
}

// "from $B$ to $A$" -> "from B to A": math delimiters removed, the rest kept, trimmed. The
// bytes kept are copied by runs.
std::string strip_inline_math(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t run = 0;  // start of the bytes kept since the last removal
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '$') {
      out.append(s.data() + run, i - run);
      run = ++i;
    } else if (s[i] == '\\' && i + 1 < s.size() &&
               (s[i + 1] == '(' || s[i + 1] == ')' || s[i + 1] == '[' || s[i + 1] == ']')) {
      out.append(s.data() + run, i - run);
      i += 2;
      run = i;
    } else if (s[i] == '\\' && i + 1 < s.size()) {
      i += 2;  // kept: an escaped '$' ("\\$") is not a delimiter
    } else {
      ++i;
    }
  }
  out.append(s.data() + run, s.size() - run);
  trim_in_place(out);
  return out;
}

}  // namespace

const char* category_name(Category category) noexcept {
  switch (category) {
    case Category::kNumber: return "number";
    case Category::kEquation: return "equation";
    case Category::kPhysicalQuantity: return "physical_quantity";
    case Category::kFormula: return "formula";
    case Category::kText: return "text";
  }
  return "text";
}

namespace {

// printf's "%.{p}g" of `value` with p the fewest digits that read back to it: the loop over p.
std::string shortest_g_checked(double value) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, precision);
    double back = 0.0;
    const auto read = std::from_chars(buf, r.ptr, back);
    if ((read.ec == std::errc() && back == value) || precision == 17) return std::string(buf, r.ptr);
  }
  return std::string(buf);
}

}  // namespace

std::string format_number(double value) {
  // The output is printf's "%.0f" for integral values below 1e16, else "%.{p}g" with p the
  // fewest digits that read back to `value`. Those p digits are the shortest round-trip digits
  // of std::to_chars: printf's p digits (the p-digit decimal nearest to `value`) read back when
  // any p-digit decimal does, since the values that read back to `value` lie symmetrically
  // around it; ties round to even in both. The one exception, an exact power of two (its lower
  // neighbour is nearer than its upper), takes the loop over p, as do infinities and NaN.
  if (value == 0.0) return "0";
  char buf[64];
  if (std::fabs(value) < 1e16 && std::nearbyint(value) == value) {
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(value));
    return std::string(buf, r.ptr);
  }
  if (!std::isfinite(value)) {
    std::snprintf(buf, sizeof buf, "%g", value);
    return buf;
  }
  int binary_exponent = 0;
  if (std::frexp(std::fabs(value), &binary_exponent) == 0.5) return shortest_g_checked(value);
  // "-d.ddde+XX" -> sign, digits, decimal exponent
  const auto r = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  const std::string_view sci(buf, static_cast<std::size_t>(r.ptr - buf));
  const bool neg = sci[0] == '-';
  char digits[24];
  int n = 0;
  std::size_t k = neg ? 1 : 0;
  for (; k < sci.size() && sci[k] != 'e'; ++k)
    if (is_digit(sci[k]) && n < 20) digits[n++] = sci[k];
  int exponent = 0;
  std::from_chars(sci.data() + k + (sci[k + 1] == '+' ? 2 : 1), sci.data() + sci.size(), exponent);
  // at most 1 + 2 + 4 zeros + 17 digits, or 1 + 17 digits + 1 + 5 for the exponent
  char out[48];
  std::size_t len = 0;
  if (neg) out[len++] = '-';
  if (exponent < -4 || exponent >= n) {
    out[len++] = digits[0];
    if (n > 1) {
      out[len++] = '.';
      for (int q = 1; q < n; ++q) out[len++] = digits[q];
    }
    out[len++] = 'e';
    out[len++] = exponent < 0 ? '-' : '+';
    const int e = exponent < 0 ? -exponent : exponent;
    if (e < 10) out[len++] = '0';
    len = static_cast<std::size_t>(std::to_chars(out + len, out + sizeof out, e).ptr - out);
  } else if (exponent >= 0) {
    for (int q = 0; q <= exponent; ++q) out[len++] = digits[q];
    if (n > exponent + 1) {
      out[len++] = '.';
      for (int q = exponent + 1; q < n; ++q) out[len++] = digits[q];
    }
  } else {
    out[len++] = '0';
    out[len++] = '.';
    for (int q = 0; q < -exponent - 1; ++q) out[len++] = '0';
    for (int q = 0; q < n; ++q) out[len++] = digits[q];
  }
  return std::string(out, len);
}

namespace {

// Whether `out` ends with a command name ("... \mu"): the letters after its last backslash, at
// most 32 of them looked at. Text appended to it must start apart ("\mu" + "C" is "\mu C").
bool ends_with_command(std::string_view out) noexcept {
  std::size_t k = out.size();
  const std::size_t stop = k > 33 ? k - 33 : 0;
  while (k > stop && is_letter(out[k - 1])) --k;
  return k < out.size() && k > 0 && out[k - 1] == '\\';
}

}  // namespace

MathContent extract_math_content(std::string_view s, bool spacing_as_space) {
  MathContent r;
  std::vector<std::size_t> match;  // brace_matches(s), computed at the first wrapper
  // closing braces of unwrapped wrappers still ahead: the braces balance, so the nearest is last
  std::vector<std::size_t> drop;
  std::string& out = r.text;
  out.reserve(s.size());
  std::size_t run = 0;  // start of the bytes kept as they are since the last change
  auto flush = [&](std::size_t upto) { out.append(s.data() + run, upto - run); };
  for (std::size_t i = 0; i < s.size();) {
    // bytes that are kept as they are: skipped in one go
    while (i < s.size() && s[i] != '$' && s[i] != '~' && s[i] != '\\' && s[i] != '}') ++i;
    if (i >= s.size()) break;
    const char c = s[i];
    while (!drop.empty() && drop.back() < i) drop.pop_back();  // never left behind; kept safe
    if (!drop.empty() && drop.back() == i) {
      drop.pop_back();
      flush(i);
      run = ++i;
      continue;
    }
    if (c == '$') {
      r.had_latex = true;
      flush(i);
      run = ++i;
      continue;
    }
    if (c == '~') {
      flush(i);
      out += ' ';
      run = ++i;
      continue;
    }
    if (c != '\\' || i + 1 >= s.size()) {
      ++i;
      continue;
    }
    const char d = s[i + 1];
    if (d == '(' || d == ')' || d == '[' || d == ']' || d == ';' || d == ',' || d == ':' || d == '!') {
      r.had_latex = true;
      flush(i);
      const bool spacing = d == ';' || d == ',' || d == ':';
      const bool next_letter = i + 2 < s.size() && is_letter(s[i + 2]);
      if (spacing && spacing_as_space) {
        // a space, but none inside a number written in groups ("1\,000")
        const bool in_number = !out.empty() && is_digit(out.back()) && i + 2 < s.size() && is_digit(s[i + 2]);
        if (!in_number) out += ' ';
      } else if (next_letter && ends_with_command(out)) {
        out += ' ';  // "\mu\,C": the command ends where the spacing was
      }
      i += 2;
      run = i;
      continue;
    }
    if (d == ' ') {
      r.had_latex = true;
      flush(i);
      out += ' ';
      i += 2;
      run = i;
      continue;
    }
    if (is_letter(d)) {
      r.had_latex = true;  // a wrapper, or any other command ("\frac{a}{b}")
      const std::size_t brace = wrapper_brace(s, i);
      if (brace != kNpos && match.empty()) match = brace_matches(s);
      if (brace != kNpos && match[brace] != kNpos) {
        flush(i);
        // "\mu\mathrm{C}": the command before the wrapper ends there ("\mu C", not "\muC")
        if (brace + 1 < s.size() && is_letter(s[brace + 1]) && ends_with_command(out)) out += ' ';
        drop.push_back(match[brace]);
        i = brace + 1;
        run = i;
        continue;
      }
      i = detail::letters_end(s, i + 1);  // the command is kept
      continue;
    }
    i += 2;  // kept
  }
  flush(s.size());
  trim_in_place(out);
  return r;
}

namespace {

// Whether `s` has a spacing command "\,", "\;" or "\:".
bool has_spacing_command(std::string_view s) noexcept {
  for (std::size_t i = s.find('\\'); i != std::string_view::npos && i + 1 < s.size(); i = s.find('\\', i + 2)) {
    const char d = s[i + 1];
    if (d == ',' || d == ';' || d == ':') return true;
  }
  return false;
}

}  // namespace

Normalized normalize_answer(std::string_view answer) {
  Normalized r;
  // 1. number and 2. gate, in at most two rounds: a text whose removed delimiters uncover a
  // gate ("\]\boxed{5}" -> "\boxed{5}") is read again from that text, so that the flow's outputs
  // are its fixed points. The uncovered text passes the gate, so the second round ends the loop.
  std::string uncovered;
  for (int round = 0; round < 2; ++round) {
    const std::string_view bare = detail::unwrap(answer, detail::Wrappers::kAll, detail::kMaxWrapperLayers);
    if (const std::optional<double> v = plain_number(bare); v.has_value()) {
      r.category = Category::kNumber;
      r.number = *v;
      return r;
    }
    if (is_gate(answer)) break;
    uncovered = strip_inline_math(answer);
    if (!is_gate(uncovered)) {
      r.category = Category::kText;
      r.value = std::move(uncovered);
      return r;
    }
    answer = uncovered;
  }
  // 3. expression path
  MathContent math = extract_math_content(answer);
  if (math.text.empty()) {
    r.category = Category::kText;
    return r;
  }
  if (math.text.find('=') != std::string::npos) {
    r.category = Category::kEquation;
    r.value = collapse_spaces(math.text);
    r.needs_sympy = math.had_latex;
    return r;
  }
  // the quantity is read with LaTeX's spacing commands as spaces ("m\,s^{-2}" is two units)
  if (has_spacing_command(answer)) math = extract_math_content(answer, true);
  // the copies of unicode_spaces_to_ascii and unit_fracs only when they change something
  std::string spaced_copy;
  std::string_view spaced = math.text;
  if (has_non_ascii(spaced)) {
    spaced_copy = unicode_spaces_to_ascii(math.text);
    spaced = spaced_copy;
  }
  const NumberRead num = read_number(spaced, 0);
  if (num.ok) {
    std::string unit_copy;
    std::string_view unit_text = spaced.substr(num.end);
    if (unit_text.find("\\frac{") != std::string_view::npos) {
      unit_copy = unit_fracs(unit_text);
      unit_text = unit_copy;
    }
    const Unit unit = read_shown_unit(unit_text);  // the flow reads no whole_only row: "$2in$" is a formula
    if (unit.ok) {
      r.category = Category::kPhysicalQuantity;
      r.value = format_number(num.value);
      r.value.reserve(r.value.size() + 1 + unit.shown.size());
      r.value += ' ';
      r.value += unit.shown;
      return r;
    }
  }
  r.category = Category::kFormula;
  r.value = collapse_spaces(math.text);
  r.needs_sympy = math.had_latex;
  return r;
}

Side read_gold(std::string_view gold) {
  Side side;
  side.found = true;
  side.text = std::string(detail::trim(gold));
  side.category = normalize_answer(gold).category;
  const MathContent math = extract_math_content(gold, true);
  side.quantity = read_quantity(math.text);
  return side;
}

namespace {

// `s` with a '}' appended for every '{' it leaves open (escaped braces are not braces).
std::string braces_closed(std::string_view s) {
  std::size_t open = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '{') {
      ++open;
    } else if (s[i] == '}' && open > 0) {
      --open;
    }
  }
  std::string out(s);
  out.append(open, '}');
  return out;
}

// Whether the '{' at s[brace] is the brace of a wrapper command (\mathrm{, \text{, \boxed{):
// the command name before it is looked for at most 32 letters back.
bool opens_wrapper(std::string_view s, std::size_t brace) {
  std::size_t k = brace;
  const std::size_t stop = k > 33 ? k - 33 : 0;
  while (k > stop && is_letter(s[k - 1])) --k;
  if (k == brace || k == 0 || s[k - 1] != '\\') return false;
  return wrapper_brace(s, k - 1) == brace;
}

}  // namespace

Side read_response(std::string_view response) {
  Side side;
  const std::optional<extract::Extraction> e = extract::extract_answer(response);
  if (!e.has_value()) return side;
  side.found = true;
  side.method = e->method;
  side.text = extract::answer_text(response, *e);
  // the unit that extraction keeps apart from its answer ("9.8 N" -> "9.8", unit "N") is the quantity's
  if (e->unit.end > e->unit.start && e->parts.empty())
    side.text = std::string(response.substr(e->start, e->unit.end - e->start));
  side.category = normalize_answer(side.text).category;
  const MathContent math = extract_math_content(side.text, true);
  side.quantity = read_quantity(math.text);
  if (!side.quantity.has_number) {
    // an answer stated as an assignment, "g = 9.8 N": the quantity is its right side
    const std::size_t eq = math.text.rfind('=');
    if (eq != std::string::npos) {
      Quantity q = read_quantity(detail::trim(std::string_view(math.text).substr(eq + 1)));
      if (q.has_number) side.quantity = std::move(q);
    }
  }
  if (e->method != extract::Method::kLastNumber) {
    // a number-only answer whose unit follows it in the response ("The answer is 2 \times 10^{3}
    // \mathrm{kJ\,mol^{-1}}."): the unit written right after it is the quantity's
    const Quantity& q0 = side.quantity;
    if (q0.has_number && !q0.unit.ok && e->end > e->start) {
      const std::size_t window = std::min(response.size() - e->start, (e->end - e->start) + kUnitLookahead);
      const MathContent text = extract_math_content(response.substr(e->start, window), true);
      Quantity q = read_quantity(text.text);
      if (q.has_number && q.unit.ok && q.value == q0.value) {
        side.text = std::string(detail::trim(std::string_view(text.text).substr(0, q.end)));
        side.quantity = std::move(q);
      }
    }
    return side;
  }
  // The last number may be the end of a quantity that starts earlier: the exponent of
  // "5.14 \times 10^{6} Pa", the power of "9.8 m/s^2". The earliest number start at most
  // kLookBehind bytes before it (on the same line) whose quantity reaches past it wins; the unit
  // written after the number is read too ("... is 51 atm." -> 51 atm).
  std::size_t from = e->start > kLookBehind ? e->start - kLookBehind : 0;
  for (std::size_t k = e->start; k > from; --k) {
    if (response[k - 1] == '\n') {
      from = k;
      break;
    }
  }
  for (std::size_t p = from; p <= e->start; ++p) {
    const char c = response[p];
    const bool starts =
        is_digit(c) || ((c == '-' || c == '+' || c == '.') && p + 1 < response.size() && is_digit(response[p + 1]));
    if (!starts) continue;
    if (p > 0) {
      const char b = response[p - 1];
      if (is_digit(b) || is_letter(b) || b == '.' || b == '^' || b == '_' || b == ',') continue;
      if (b == '{' && !opens_wrapper(response, p - 1)) continue;  // "^{5}"; but "\mathrm{10^{5}\,Pa}" starts
    }
    // the text up to the last number with its open groups closed, so that a wrapper it opens
    // ("9.8\,\mathrm{m\,s^{-2" of "...s^{-2}}") is unwrapped as in the text read after it
    const MathContent prefix = extract_math_content(braces_closed(response.substr(p, e->end - p)), true);
    const std::size_t window = std::min(response.size() - p, (e->end - p) + kUnitLookahead);
    const MathContent text = extract_math_content(response.substr(p, window), true);
    Quantity q = read_quantity(text.text);
    if (!q.has_number || q.end < prefix.text.size()) continue;
    side.quantity = std::move(q);
    side.text = std::string(detail::trim(std::string_view(text.text).substr(0, side.quantity.end)));
    side.category = normalize_answer(side.text).category;
    break;
  }
  return side;
}

}  // namespace rapidgrade::physics
