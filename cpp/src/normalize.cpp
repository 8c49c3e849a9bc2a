#include "rapidgrade/normalize.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "normalize_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/number_words.hpp"
#include "rapidgrade/detail/parts.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/detail/units.hpp"
#include "rapidgrade/unicode.hpp"
#include "rapidgrade/utf8.hpp"

namespace rapidgrade::normalize {

const std::string_view kUnitWords[] = {
    "units",       "unit",       "sq",          "square",     "cubic",   "mm",     "cm",     "m",     "km",
    "millimeters", "millimeter", "centimeters", "centimeter", "meters",  "meter",  "metres", "metre", "kilometers",
    "kilometer",   "inches",     "inch",        "in",         "feet",    "foot",   "ft",     "yards", "yard",
    "yd",          "miles",      "mile",        "mph",        "dollars", "dollar", "cents",  "cent",  "degrees",
    "degree",      "seconds",    "second",      "sec",        "minutes", "minute", "min",    "hours", "hour",
    "hrs",         "hr",         "days",        "day",        "weeks",   "week",   "months", "month", "years",
    "year",        "grams",      "gram",        "kg",         "pounds",  "pound",  "lbs",    "lb",    "ounces",
    "ounce",       "oz",         "liters",      "liter",      "litres",  "litre",  "ml",     "mL",    "percent",
};
const std::size_t kUnitWordCount = sizeof(kUnitWords) / sizeof(kUnitWords[0]);

namespace {

using detail::ByteSet;
using detail::digits_end;
using detail::ends_with;
using detail::find_byte;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::kSpaceBytes;
using detail::letters_end;
using detail::starts_with;
using internal::strip_units;

// The bytes each pass acts on; the runs of other bytes between them are copied whole. Rule 1's
// are the lead bytes of its two-byte and three-byte signs (U+00B0, U+2212) and its ASCII ones.
constexpr ByteSet kCommandBytes("\\{}$%~^\xC2\xE2");
constexpr ByteSet kSpaceOrCommand(" \\");
constexpr ByteSet kGroupBytes("\\{}");

// A stack of bits, one per open brace, that keeps its first 256 in place: an answer nests a
// few braces deep and allocates nothing for them.
class BitStack {
 public:
  void push_back(bool bit) {
    const std::size_t w = size_ / 64;
    if (w >= kInlineWords && w - kInlineWords == more_.size()) more_.push_back(0);
    std::uint64_t& word = word_at(w);
    const std::uint64_t mask = std::uint64_t{1} << (size_ % 64);
    word = bit ? (word | mask) : (word & ~mask);
    ++size_;
  }
  bool empty() const noexcept { return size_ == 0; }
  bool back() const noexcept {
    const std::size_t k = size_ - 1;
    const std::size_t w = k / 64;
    return ((w < kInlineWords ? inline_[w] : more_[w - kInlineWords]) >> (k % 64)) & 1;
  }
  void pop_back() noexcept { --size_; }

 private:
  static constexpr std::size_t kInlineWords = 4;
  std::uint64_t& word_at(std::size_t w) { return w < kInlineWords ? inline_[w] : more_[w - kInlineWords]; }
  std::uint64_t inline_[kInlineWords] = {};
  std::vector<std::uint64_t> more_;  // the words past the inline ones, once the stack is that deep
  std::size_t size_ = 0;
};

// Where a pass that rewrites the whole text writes it: a string made at least as long as
// expected and written through a pointer, so that appending a byte or a run is a copy and a
// bounds test (a string's append is a call that tests its capacity and length); it grows when
// a pass writes more. finish() cuts the string to what was written.
class Writer {
 public:
  Writer(std::string& into, std::size_t expected) : s_(into) {
    if (s_.size() < expected) s_.resize(expected);  // (what it holds is written over)
    w_ = s_.data();
    end_ = w_ + s_.size();
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void operator+=(char c) {
    if (w_ == end_) grow(1);
    *w_++ = c;
  }
  void append(const char* p, std::size_t n) {
    if (static_cast<std::size_t>(end_ - w_) < n) grow(n);
    if (n != 0) std::memcpy(w_, p, n);
    w_ += n;
  }
  void append(std::string_view v) { append(v.data(), v.size()); }
  void operator+=(std::string_view v) { append(v); }
  bool empty() const noexcept { return w_ == s_.data(); }
  char back() const noexcept { return w_[-1]; }
  std::string_view written() const noexcept { return {s_.data(), static_cast<std::size_t>(w_ - s_.data())}; }
  /// Cuts the string to the bytes written.
  void finish() { s_.erase(static_cast<std::size_t>(w_ - s_.data())); }  // (inline, unlike resize)

 private:
  void grow(std::size_t n) {
    const std::size_t used = static_cast<std::size_t>(w_ - s_.data());
    s_.resize(std::max(2 * s_.size(), used + n));
    w_ = s_.data() + used;
    end_ = s_.data() + s_.size();
  }
  std::string& s_;
  char* w_;
  char* end_;
};

// The passes that rewrite the whole text read it as `s` and write the result into `out`
// (normalize keeps both buffers, Buffers, from pass to pass).

// Rule 1: commands, delimiters, degree and percent signs, unicode minus, {,}.
void rewrite_commands(std::string_view s, bool& percent, bool& degrees, Writer& out) {
  BitStack drop_close;  // one entry per open '{': drop its matching '}'
  const std::size_t n = s.size();
  // A removed '$' or '%' does not join a command's name to the letters after it ("\\t$ext" is \\t
  // and "ext", not \\text, which a second pass would read): a blank keeps them apart.
  auto keep_apart = [&](std::size_t next) {
    if (next >= n || !is_letter(s[next])) return;
    const std::string_view w = out.written();
    std::size_t k = w.size();
    while (k > 0 && is_letter(w[k - 1])) --k;
    if (k < w.size() && k > 0 && w[k - 1] == '\\') out += ' ';
  };
  std::size_t i = 0;
  while (i < n) {
    const std::size_t plain = kCommandBytes.find(s, i);
    out.append(s.data() + i, plain - i);
    i = plain;
    if (i >= n) break;
    const char c = s[i];
    if (c == '^' || c == '\\' || c == '\xC2') {
      // the degree marks of latex_vocab.hpp: "120^\circ", "45^{\circ}", "30\degree", "90°"
      if (const std::size_t mark = rapidgrade::detail::degree_mark_at(s, i); mark != 0) {
        degrees = true;
        i += mark;
        continue;
      }
    }
    if (c == '\\') {
      if (i + 1 >= n) {
        out += c;
        break;
      }
      const char d = s[i + 1];
      if (is_letter(d)) {
        const std::size_t j = letters_end(s, i + 1);
        const std::string_view name = s.substr(i + 1, j - i - 1);
        if (name == "left" || name == "right") {
          i = (j < n && s[j] == '.') ? j + 1 : j;
        } else if (name == "displaystyle") {
          i = j;
        } else if (name != "frac" && rapidgrade::detail::is_fraction_command(name)) {
          out += "\\frac";
          i = j;
        } else if (const auto* sp = rapidgrade::detail::find_spacing_command(name); sp != nullptr) {
          // latex_vocab.hpp: "\thinspace" goes as "\," does; a wide one ("\qquad", "\enspace")
          // is written "\quad", which separates the parts of an answer for the readers after
          if (sp->width == rapidgrade::detail::Spacing::kWide) out += "\\quad";
          i = j;
          while (sp->width == rapidgrade::detail::Spacing::kThin && i < n && s[i] == ' ') ++i;
        } else if (const auto* w = rapidgrade::detail::find_text_wrapper(name);
                   w != nullptr && w->content != rapidgrade::detail::WrapperContent::kOperator) {
          // "\text{cm}", "\mathbf{5}": the wrapper goes, its content stays (latex_vocab.hpp);
          // right after a number its content is a word apart ("6\,\text{m}" is "6 m", a unit)
          std::size_t k = j;
          while (k < n && is_space(s[k])) ++k;
          if (k < n && s[k] == '{') {
            if (!out.empty() && is_digit(out.back())) out += ' ';
            drop_close.push_back(true);
            i = k + 1;
          } else {
            out.append(s.substr(i, j - i));
            i = j;
          }
        } else {
          out.append(s.substr(i, j - i));
          i = j;
        }
        continue;
      }
      if (const auto* sp = rapidgrade::detail::find_spacing_command(s.substr(i + 1, 1)); sp != nullptr) {
        if (sp->width == rapidgrade::detail::Spacing::kWide) out += ' ';  // "\ "
        i += 2;
        // a thin space and the spaces after it are one spacing: "32,\! 349" is "32,349" (a
        // thousands separator), not the list "32, 349" (rule 5)
        while (sp->width == rapidgrade::detail::Spacing::kThin && i < n && s[i] == ' ') ++i;
      } else if (d == '$') {
        i += 2;
        keep_apart(i);
      } else if (d == '%') {
        percent = true;
        i += 2;
        keep_apart(i);
      } else {
        out += c;
        out += d;
        i += 2;
      }
      continue;
    }
    if (c == '{') {
      if (starts_with(s, i, "{,}") && i > 0 && is_digit(s[i - 1]) && i + 3 < n && is_digit(s[i + 3])) {
        // "10{,}000": a thousands separator (exactly three digits follow); "0{,}5": a decimal
        // comma (European notation).
        std::size_t d = i + 3;
        while (d < n && is_digit(s[d])) ++d;
        out += d - (i + 3) == 3 ? ',' : '.';
        i += 3;
        continue;
      }
      drop_close.push_back(false);
      out += c;
      ++i;
      continue;
    }
    if (c == '}') {
      bool drop = false;
      if (!drop_close.empty()) {
        drop = drop_close.back();
        drop_close.pop_back();
      }
      if (!drop) out += c;
      ++i;
      continue;
    }
    if (c == '$') {
      ++i;
      keep_apart(i);
      continue;
    }
    if (c == '%') {
      percent = true;
      ++i;
      keep_apart(i);
      continue;
    }
    if (c == '~') {
      out += ' ';
      ++i;
      continue;
    }
    if (starts_with(s, i, "\xE2\x88\x92")) {  // U+2212 minus sign
      out += '-';
      i += 3;
      continue;
    }
    out += c;
    ++i;
  }
}

// Rule 2: whitespace runs -> one space; trimmed.
void collapse_spaces(std::string_view s, Writer& out) {
  bool pending = false;
  std::size_t i = 0;
  while (i < s.size()) {
    if (is_space(s[i])) {
      pending = !out.empty();
      ++i;
      continue;
    }
    if (pending) out += ' ';
    pending = false;
    const std::size_t word_end = kSpaceBytes.find(s, i);
    out.append(s.data() + i, word_end - i);
    i = word_end;
  }
}

// Whether rule 2 leaves s as it is: each whitespace run is one ' ' between two other bytes.
bool spaces_collapsed(std::string_view s) noexcept {
  const std::size_t n = s.size();
  for (std::size_t i = kSpaceBytes.find(s, 0); i < n; i = kSpaceBytes.find(s, i + 1)) {
    if (s[i] != ' ' || i == 0 || i + 1 == n || is_space(s[i + 1])) return false;
  }
  return true;
}

// Rule 3: trailing dots and whitespace; an ellipsis of three dots or more after a list's comma
// ("1, 2, 3, ...") is a term of the list, kept as "...", not a full stop.
void strip_trailing_dots(std::string& s) {
  std::size_t dots = 0, run = 0;
  while (!s.empty() && (s.back() == '.' || is_space(s.back()))) {
    run = s.back() == '.' ? run + 1 : 0;
    dots = std::max(dots, run);
    s.pop_back();
  }
  if (dots >= 3 && !s.empty() && s.back() == ',') s += "...";
}

// Rule 13: an answer of enumerated parts (detail/parts.hpp) is the list of its parts. A part is
// the text between its label and the next one, less the separators that end it (blanks, ',',
// ';', '.', ':', "、", "\quad", a last "and"), each part's trailing units removed as rule 4
// removes them from a whole text. The text stays as it is when a part is empty, is a list itself
// (a ',' or ';' at its top level), starts with a label or an operator, ends with an operator or
// opens a bracket it does not close. It runs before rule 5, while blanks still set the labels
// apart from what precedes them ("(1) 3 (2) 5", not "(1)3(2)5": "f(2)" holds no label).
bool part_is_answer(std::string_view p) noexcept {
  if (p.empty()) return false;
  static constexpr std::string_view kBadStart = "+*/^_=<>)]},;:";
  static constexpr std::string_view kBadEnd = "+-*/^_=<>([{\\,;:";
  if (kBadStart.find(p.front()) != std::string_view::npos || kBadEnd.find(p.back()) != std::string_view::npos) {
    return false;
  }
  std::size_t starts[detail::kMaxParts];
  std::size_t ends[detail::kMaxParts];
  if (detail::part_labels(p, 0, p.size(), starts, ends) > 0) return false;
  std::size_t depth = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    const char c = p[k];
    if (c == '\\') {
      ++k;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return false;
      --depth;
    } else if ((c == ',' || c == ';') && depth == 0) {
      return false;
    }
  }
  return depth == 0;
}

// Returns whether it rewrote s.
bool enumerated_parts(std::string& s, bool units, bool& percent, bool& degrees) {
  std::size_t starts[detail::kMaxParts];
  std::size_t ends[detail::kMaxParts];
  const int count = detail::part_labels(s, 0, s.size(), starts, ends);
  if (count < 2) return false;
  std::string out;
  bool part_percent = false;
  bool part_degrees = false;
  for (int i = 0; i < count; ++i) {
    const std::size_t stop = i + 1 < count ? starts[i + 1] : s.size();
    const auto [b, e] = detail::parts_trimmed(s, ends[i], stop);
    std::string part = s.substr(b, e - b);
    if (units) strip_units(part, part_percent, part_degrees);
    if (!part_is_answer(part)) return false;
    if (i > 0) out += ", ";  // rule 5 keeps the blank where the comma would read as thousands
    out += part;
  }
  s.swap(out);
  percent = percent || part_percent;
  degrees = degrees || part_degrees;
  return true;
}

bool may_hold_parts(std::string_view s) noexcept {
  if (s.empty()) return false;
  const auto c = static_cast<unsigned char>(s[0]);
  return c == '(' || c == 0xE2 || c == 0xEF;  // "(1)", "①", "⑴", "（1）"
}

// Rule 5, first part: "W N/D" (the whole text, N < D) -> "W\frac{N}{D}", a mixed number.
void mixed_number(std::string& s) {
  const std::size_t n = s.size();
  const std::size_t whole = (n > 0 && s[0] == '-') ? 1 : 0;
  const std::size_t space = digits_end(s, whole);
  if (space == whole || space >= n || s[space] != ' ') return;
  const std::size_t slash = digits_end(s, space + 1);
  if (slash == space + 1 || slash >= n || s[slash] != '/') return;
  const std::size_t end = digits_end(s, slash + 1);
  if (end != n || end == slash + 1) return;
  const std::string_view num = std::string_view(s).substr(space + 1, slash - space - 1);
  const std::string_view den = std::string_view(s).substr(slash + 1);
  // digit strings without leading zeros compare by length, then lexicographically
  const bool proper = num.size() < den.size() || (num.size() == den.size() && num < den);
  if (!proper || den.find_first_not_of('0') == std::string_view::npos) return;
  std::string out = s.substr(0, space) + "\\frac{" + std::string(num) + "}{" + std::string(den) + "}";
  s.swap(out);
}

// Whether the spaces s[i, k) follow a comma after a digit and come before exactly three digits,
// in a text of digits, commas, spaces, points and the joiners "and", "or" alone (a sign first, or
// after a comma: "0, -1, 100"; "1, 100 and 0"): "45, 135" is a list of
// two numbers, which without its space would read as one number with a thousands separator
// (rule 9: "45,135" -> "45135"; a separator is never followed by a space). Inside brackets
// ("(12, 102)") rule 9 reads no number, and the space goes as any other.
bool list_comma_space(std::string_view s, std::size_t i, std::size_t k) noexcept {
  const auto digit = [&](std::size_t q) { return q < s.size() && is_digit(s[q]); };
  if (!(i >= 2 && s[i - 1] == ',' && is_digit(s[i - 2]) && digit(k) && digit(k + 1) && digit(k + 2) && !digit(k + 3))) {
    return false;
  }
  for (std::size_t q = !s.empty() && s[0] == '-' ? 1 : 0; q < s.size(); ++q) {
    const char c = s[q];
    if (is_digit(c) || c == ',' || c == ' ' || c == '.') continue;
    if (is_letter(c)) {  // "and" or "or" joins the list's last number: "1, 100 and 0"
      const std::size_t w = letters_end(s, q);
      const std::string_view word = s.substr(q, w - q);
      if (detail::joiner_word(word) == nullptr) return false;
      q = w - 1;
      continue;
    }
    std::size_t b = q;
    while (b > 0 && s[b - 1] == ' ') --b;
    // a sign after a comma or a joiner: "0, -1, 100", "1, 100 and -1"
    std::size_t a = b;
    while (a > 0 && is_letter(s[a - 1])) --a;
    const bool joined = a < b && detail::joiner_word(s.substr(a, b - a)) != nullptr;
    if (c != '-' || b == 0 || (s[b - 1] != ',' && !joined)) return false;
  }
  return true;
}

// Where the joiner word after the spaces s[i, k) ends with the spaces after it, or 0: "and" or
// "or" alone between two parts of math ("x = 1 or x = 2", "x<2 or x>3", "1 and 2"), whose
// spaces rule 5 keeps, so that the word stays a word the parser reads as a joiner rather than
// letters glued to the names beside it ("x=1orx=2"). Math before: a digit, a closing bracket,
// '!', a prime, a control word or a lone letter; after: a digit, a sign, an opening bracket, a
// control word or a lone letter. Words on either side ("yes or no") keep the joiner as they are.
std::size_t joiner_word_end(std::string_view s, std::size_t i, std::size_t k) noexcept {
  const std::size_t n = s.size();
  if (i == 0 || k >= n || !is_letter(s[k])) return 0;
  const std::size_t w = letters_end(s, k);
  const std::string_view word = s.substr(k, w - k);
  if (detail::joiner_word(word) == nullptr || w >= n || s[w] != ' ') return 0;
  std::size_t e = w;
  while (e < n && s[e] == ' ') ++e;
  if (e >= n) return 0;
  // a lone letter or a control word's last letter (b: where its run of letters starts)
  const auto name = [&](std::size_t b, std::size_t end) { return end - b == 1 || (b > 0 && s[b - 1] == '\\'); };
  const char before = s[i - 1];
  if (is_letter(before)) {
    std::size_t b = i - 1;
    while (b > 0 && is_letter(s[b - 1])) --b;
    if (!name(b, i)) return 0;
  } else if (!(is_digit(before) || before == '}' || before == ')' || before == ']' || before == '|' || before == '!' ||
               before == '\'')) {
    return 0;
  }
  const char after = s[e];
  if (is_letter(after)) {
    if (letters_end(s, e) - e != 1) return 0;
  } else if (!(is_digit(after) || after == '-' || after == '+' || after == '\\' || after == '(' || after == '[' ||
               after == '{' || after == '|')) {
    return 0;
  }
  return e;
}

// Rule 5: spaces removed except between a control word and a letter, around a joiner word
// between math (joiner_word_end), and one kept after a comma that would otherwise read as a
// thousands separator ("45, 135").
void remove_spaces(std::string_view s, Writer& out) {
  const std::size_t n = s.size();
  bool after_command = false;  // the last emitted character ends a control word
  std::size_t i = 0;
  while (i < n) {
    const std::size_t plain = kSpaceOrCommand.find(s, i);
    if (plain > i) {
      out.append(s.data() + i, plain - i);
      after_command = false;
      i = plain;
      continue;
    }
    const char c = s[i];
    if (c == ' ') {
      std::size_t k = i;
      while (k < n && s[k] == ' ') ++k;
      if (const std::size_t e = joiner_word_end(s, i, k); e != 0) {
        out += ' ';
        out.append(s.substr(k, letters_end(s, k) - k));
        out += ' ';
        after_command = false;
        i = e;
        continue;
      }
      if ((after_command && k < n && is_letter(s[k])) || list_comma_space(s, i, k)) out += ' ';
      after_command = false;
      i = k;
      continue;
    }
    if (c == '\\' && i + 1 < n) {
      if (is_letter(s[i + 1])) {
        const std::size_t j = letters_end(s, i + 1);
        out.append(s.substr(i, j - i));
        after_command = true;
        i = j;
      } else {
        out += c;
        out += s[i + 1];
        after_command = false;
        i += 2;
      }
      continue;
    }
    out += c;
    after_command = false;
    ++i;
  }
}

// One argument token for \frac/\sqrt without braces at k: a control word or one character
// (a whole UTF-8 sequence). Returns the end, or k when there is none.
std::size_t bare_token_end(std::string_view s, std::size_t k) noexcept {
  const std::size_t n = s.size();
  if (k >= n) return k;
  const char c = s[k];
  if (c == '{' || c == '}' || c == ' ') return k;
  if (c == '\\') {
    if (k + 1 < n && is_letter(s[k + 1])) return letters_end(s, k + 1);
    return k;
  }
  std::size_t e = k + 1;
  if (static_cast<unsigned char>(c) >= 0xC0) {
    while (e < n && utf8::is_continuation(static_cast<unsigned char>(s[e]))) ++e;
  }
  return e;
}

// Rule 6: braces around \frac and \sqrt arguments.
void brace_arguments(std::string_view s, Writer& out) {
  BitStack frac_first;  // one entry per open '{': it is a \frac's first argument
  const std::size_t n = s.size();
  std::size_t i = 0;
  auto skip_spaces = [&](std::size_t k) {
    while (k < n && s[k] == ' ') ++k;
    return k;
  };
  // Emits "{tok}" for a bare token at k; returns the position after it (k when none).
  auto wrap = [&](std::size_t k) {
    const std::size_t e = bare_token_end(s, k);
    if (e == k) return k;
    out += '{';
    out.append(s.substr(k, e - k));
    out += '}';
    return e;
  };
  while (i < n) {
    const std::size_t plain = kGroupBytes.find(s, i);
    out.append(s.data() + i, plain - i);
    i = plain;
    if (i >= n) break;
    const char c = s[i];
    if (c == '\\' && i + 1 < n) {
      if (!is_letter(s[i + 1])) {
        out += c;
        out += s[i + 1];
        i += 2;
        continue;
      }
      const std::size_t j = letters_end(s, i + 1);
      const std::string_view name = s.substr(i + 1, j - i - 1);
      out.append(s.substr(i, j - i));
      i = j;
      if (name == "frac") {
        std::size_t k = skip_spaces(j);
        if (k < n && s[k] == '{') {
          frac_first.push_back(true);
          out += '{';
          i = k + 1;
          continue;
        }
        const std::size_t e1 = wrap(k);
        if (e1 == k) continue;
        k = skip_spaces(e1);
        if (k < n && s[k] == '{') {
          i = k;
          continue;
        }
        i = wrap(k);
        if (i == k) i = e1;
      } else if (name == "sqrt") {
        std::size_t k = skip_spaces(j);
        if (k < n && s[k] == '[') {
          std::size_t close = k;
          while (close < n && s[close] != ']') ++close;
          if (close >= n) continue;
          out.append(s.substr(k, close + 1 - k));
          k = skip_spaces(close + 1);
          i = k;
        }
        if (k < n && s[k] == '{') {
          i = k;
          continue;
        }
        const std::size_t e = wrap(k);
        if (e != k) i = e;
      }
      continue;
    }
    if (c == '{') {
      frac_first.push_back(false);
      out += c;
      ++i;
      continue;
    }
    if (c == '}') {
      bool first = false;
      if (!frac_first.empty()) {
        first = frac_first.back();
        frac_first.pop_back();
      }
      out += c;
      ++i;
      if (first) {
        const std::size_t k = skip_spaces(i);
        if (k < n && s[k] != '{') {
          const std::size_t e = wrap(k);
          if (e != k) i = e;
        }
      }
      continue;
    }
    out += c;
    ++i;
  }
}

// Rule 7: "x=5" -> "5" for a single-symbol left side.
bool single_symbol(std::string_view s) noexcept {
  const std::size_t n = s.size();
  std::size_t k = 0;
  if (n == 0) return false;
  if (is_letter(s[0])) {
    k = 1;
  } else if (s[0] == '\\' && n > 1 && is_letter(s[1])) {
    k = letters_end(s, 1);
  } else {
    return false;
  }
  if (k == n) return true;
  if (s[k] != '_' || k + 1 >= n) return false;
  ++k;
  if (s[k] == '{') {
    std::size_t m = k + 1;
    while (m < n && (is_letter(s[m]) || is_digit(s[m]))) ++m;
    return m > k + 1 && m + 1 == n && s[m] == '}';
  }
  return (is_letter(s[k]) || is_digit(s[k])) && k + 1 == n;
}

void strip_equation(std::string& s) {
  const std::size_t eq = find_byte(s, 0, '=');
  if (eq + 1 >= s.size() || find_byte(s, eq + 1, '=') < s.size()) return;  // no '=', or several
  if (!single_symbol(std::string_view(s).substr(0, eq))) return;
  s.erase(0, eq + 1);
}

// Rule 8: ".5" -> "0.5".
void leading_zero(std::string_view s, Writer& out) {
  static constexpr std::string_view kBefore = "{([,=+-*/^;:|<> ";
  std::size_t i = 0;
  while (true) {
    const std::size_t dot = find_byte(s, i, '.');
    out.append(s.data() + i, dot - i);
    if (dot >= s.size()) break;
    if (dot + 1 < s.size() && is_digit(s[dot + 1]) &&
        (dot == 0 || kBefore.find(s[dot - 1]) != std::string_view::npos)) {
      out += '0';
    }
    out += '.';
    i = dot + 1;
  }
}

// Rule 9: "1,234,567.5" -> "1234567.5" when the whole text is that number.
void strip_thousands(std::string& s) {
  const std::size_t n = s.size();
  std::size_t k = (n > 0 && s[0] == '-') ? 1 : 0;
  const std::size_t first = k;
  while (k < n && is_digit(s[k])) ++k;
  const std::size_t groups_end =
      rapidgrade::detail::thousands_end(s, first, k, rapidgrade::detail::GroupSeparators::kComma);
  if (groups_end == k) return;
  k = groups_end;
  if (k < n && s[k] == '.') {
    std::size_t m = k + 1;
    while (m < n && is_digit(s[m])) ++m;
    if (m == k + 1) return;
    k = m;
  }
  if (k != n) return;
  std::string out;
  out.reserve(n);
  for (const char c : s) {
    if (c != ',') out += c;
  }
  s.swap(out);
}

// Rule 10: "a/b" -> "\frac{a}{b}" when the whole text is an integer fraction.
void slash_to_frac(std::string& s) {
  const std::size_t n = s.size();
  const std::size_t sign = (n > 0 && s[0] == '-') ? 1 : 0;
  std::size_t k = sign;
  while (k < n && is_digit(s[k])) ++k;
  if (k == sign || k >= n || s[k] != '/') return;
  const std::size_t slash = k;
  ++k;
  while (k < n && is_digit(s[k])) ++k;
  if (k != n || k == slash + 1) return;
  std::string out = s.substr(0, sign) + "\\frac{" + s.substr(sign, slash - sign) + "}{" + s.substr(slash + 1) + "}";
  s.swap(out);
}

// The text being normalized and the buffer a pass writes into; both keep their capacity.
struct Buffers {
  std::string text;
  std::string scratch;
};

// Rewrites b.text with `pass` (through b.scratch) when `acts`; a pass is skipped when the text
// holds none of the bytes it acts on, since it would copy the text unchanged. Returns whether
// the text changed.
template <typename Pass>
bool run_pass(Buffers& b, bool acts, Pass&& pass) {
  if (!acts) return false;
  Writer out(b.scratch, b.text.size() + 16);
  pass(std::string_view(b.text), out);
  out.finish();
  if (b.scratch == b.text) return false;
  b.text.swap(b.scratch);
  return true;
}

// Runs an in-place pass; each of them changes the text's length whenever it changes the text
// (it deletes bytes, or rewrites "a/b" as the longer "\frac{a}{b}").
template <typename Pass>
bool run_in_place(std::string& t, Pass&& pass) {
  const std::size_t before = t.size();
  pass(t);
  return t.size() != before;
}

bool holds(std::string_view s, char c) noexcept { return find_byte(s, 0, c) < s.size(); }

// The CJK math words (detail/markers.hpp): "根号3" -> "√3", "负无穷大" -> "-∞" (then folded by
// rule 0). Returns false (out untouched) when s holds none. Rule 0 reads them first, and rule 12
// again in the rounds, where other rules can bring a word's characters together ("根$$号3" ->
// "根号3").
bool cjk_math_words(std::string_view s, std::string& out) {
  const auto word_at = [&](std::size_t k) -> const detail::CjkMathWord* {
    for (const detail::CjkMathWord& w : detail::kCjkMathWords)
      if (detail::starts_with(s, k, w.word)) return &w;
    return nullptr;
  };
  // every word is CJK: an ASCII text (most answers) holds none, and a word starts at a byte
  // past ASCII
  std::size_t k = utf8::ascii_end(s, 0, s.size());
  while (k < s.size() && word_at(k) == nullptr) k = utf8::ascii_end(s, k + 1, s.size());
  if (k >= s.size()) return false;
  out.assign(s.substr(0, k));
  while (k < s.size()) {
    if (const detail::CjkMathWord* w = word_at(k)) {
      out += w->symbol;
      k += w->word.size();
    } else {
      out += s[k++];
    }
  }
  return true;
}

// Rule 11: a CJK list joiner ("和", "或", detail/markers.hpp) between two math characters is a
// comma, "1 和 3" -> "1,3". It is a pass of the rounds, not part of rule 0, because the other
// passes can make a joiner stand between math characters ("$x^3$或 $2$" -> "x^3或2").
void cjk_joiners(std::string_view s, Writer& out) {
  const auto math_before = [&](std::size_t k) {
    while (k > 0 && s[k - 1] == ' ') --k;
    if (k == 0) return false;
    const char c = s[k - 1];
    return is_digit(c) || is_letter(c) || c == '}' || c == ')' || c == ']';
  };
  const auto math_after = [&](std::size_t k) {
    while (k < s.size() && s[k] == ' ') ++k;
    if (k >= s.size()) return false;
    const char c = s[k];
    return is_digit(c) || is_letter(c) || c == '-' || c == '\\' || c == '(' || c == '[' || c == '{';
  };
  std::size_t written = 0;  // s[written, k) is still to copy
  for (std::size_t k = 0; k < s.size(); ++k) {
    for (const std::string_view j : detail::kCjkListJoiners) {
      if (!detail::starts_with(s, k, j) || !math_before(k) || !math_after(k + j.size())) continue;
      std::size_t end = k;
      while (end > written && s[end - 1] == ' ') --end;
      out.append(s.substr(written, end - written));
      out += ',';
      k += j.size();
      while (k < s.size() && s[k] == ' ') ++k;
      written = k;
      --k;  // the loop's ++k
      break;
    }
  }
  out.append(s.substr(written));
}

bool holds_cjk_joiner(std::string_view s) noexcept {
  for (const std::string_view j : detail::kCjkListJoiners) {
    if (detail::find_str(s, 0, j) != detail::kNpos) return true;
  }
  return false;
}

// Rules 1-13, one pass each, in their order (rule 13 after rule 4). Rule 0 (unicode::fold_math)
// runs once, before them: its result holds only characters it leaves as they are (each invalid
// byte is U+FFFD, each character with a rule was rewritten in ASCII) and these passes delete or
// write ASCII bytes only, never part of a character (rule 11 replaces a whole CJK character by
// ',', rule 12 a whole CJK word by what rule 0 writes for "√", rule 13 deletes whole labels and
// separators), so folding again would change nothing.
constexpr int kPasses = 14;

// Applies pass `k` (0 <= k < kPasses) to b.text, setting the flags of `flags` (not its text)
// that rules 1 and 4 raise; returns whether the text changed.
bool apply_pass(int k, Buffers& b, const Options& options, Normalized& flags) {
  std::string& t = b.text;
  switch (k) {
    case 0:
      return run_pass(b, kCommandBytes.find(t, 0) < t.size(), [&flags](std::string_view s, Writer& out) {
        rewrite_commands(s, flags.percent, flags.degrees, out);
      });
    case 1: return run_pass(b, !spaces_collapsed(t), collapse_spaces);
    case 2: return run_in_place(t, strip_trailing_dots);
    case 3:
      return options.units &&
             run_in_place(t, [&flags](std::string& s) { strip_units(s, flags.percent, flags.degrees); });
    case 4: return may_hold_parts(t) && enumerated_parts(t, options.units, flags.percent, flags.degrees);
    case 5: return run_in_place(t, mixed_number);
    case 6: return run_pass(b, holds(t, ' '), remove_spaces);
    case 7: return run_pass(b, holds(t, '\\'), brace_arguments);
    case 8: return options.equations && run_in_place(t, strip_equation);
    case 9: return run_pass(b, holds(t, '.'), leading_zero);
    case 10: return run_in_place(t, strip_thousands);
    case 11: return run_in_place(t, slash_to_frac);
    case 12: return run_pass(b, holds_cjk_joiner(t), cjk_joiners);
    default: {
      std::string rooted;
      if (!cjk_math_words(t, rooted)) return false;
      t = unicode::fold_math(rooted);  // folding the folded rest again changes nothing
      return true;
    }
  }
}

// True when no rule can change s: only digits, letters and "+-*()[]|<>!'_", and not both a
// letter and a digit (a letter after a digit may be a unit word). E.g. "420", "-3", "(A)", "x".
bool already_canonical(std::string_view s) noexcept {
  bool letter = false;
  bool digit = false;
  for (const char c : s) {
    if (is_digit(c)) {
      digit = true;
    } else if (is_letter(c)) {
      letter = true;
    } else if (!(c == '+' || c == '-' || c == '*' || c == '(' || c == ')' || c == '[' || c == ']' || c == '|' ||
                 c == '<' || c == '>' || c == '!' || c == '\'' || c == '_')) {
      return false;
    }
  }
  return !(letter && digit);
}

}  // namespace

Normalized normalize(std::string_view s, const Options& options) {
  Normalized result;
  if (const std::string_view t = detail::trim(s); !t.empty() && is_letter(t.front())) {
    if (const std::optional<int> words = detail::read_number_words(t)) {  // "two" -> "2"
      result.text = std::to_string(*words);
      return result;
    }
  }
  if (already_canonical(s)) {
    result.text = std::string(s);
    return result;
  }
  Buffers b;
  std::string cjk;
  if (utf8::ascii_end(s, 0, s.size()) < s.size() && cjk_math_words(s, cjk)) s = cjk;
  b.text = unicode::fold_math(s);  // rule 0 (an ASCII text as it is)
  // The passes run in rounds, at most kMaxRounds, and stop once the text is a fixed point:
  // when kPasses passes in a row, wherever in a round they start, have left it as it is. Each
  // pass then leaves this text unchanged, so the rest of the round would too. A text that the
  // first round changes is thus not read a whole second time: only the passes up to the last
  // one that changed it run again.
  int unchanged = 0;
  for (int step = 0; step < kMaxRounds * kPasses && unchanged < kPasses; ++step) {
    const int pass = step % kPasses;
    if (pass == 0 && step > 0 && already_canonical(b.text)) break;  // "$5$" -> "5": no rule changes it
    unchanged = apply_pass(pass, b, options, result) ? 0 : unchanged + 1;
  }
  result.text = std::move(b.text);
  if (!result.text.empty() && is_letter(result.text.front())) {
    // words left once the rules ran: "\text{Three}" -> "Three" -> "3"
    if (const std::optional<int> words = detail::read_number_words(result.text)) result.text = std::to_string(*words);
  }
  return result;
}

}  // namespace rapidgrade::normalize
