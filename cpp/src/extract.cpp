// Answer extraction (extract.hpp): the cascade of rules that extract_answer runs, from the box
// search to the last number, and the other readings of its answer. The rules by file (see
// extract_internal.hpp): boxed, choice and bare here; the marker rules in extract_marked.cpp,
// with the answer phrase reader in extract_phrase.cpp; final_span and last_number in
// extract_math.cpp.
#include "extract_internal.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/markers.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::extract {

using namespace internal;
using detail::find_str;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;

namespace {

// ---------------------------------------------------------------------------------------------
// boxed

// The command at a \boxed or \fbox found by next_box_command: the position after its name and
// whether it is \boxed.
struct Command {
  std::size_t name_end = kNpos;
  bool boxed = false;
};

// The first x >= max(i, 1) with s[x - 1] == 'o' and s[x] == 'x' (the "ox" of both \boxed and
// \fbox), or s.size(). find_str reads the pair a vector of positions at a time, so the speed
// does not depend on how many 'o' or 'x' the text holds.
std::size_t next_ox(std::string_view s, std::size_t i) noexcept {
  const std::size_t o = find_str(s, i == 0 ? 0 : i - 1, "ox");
  return o == kNpos ? s.size() : o + 1;
}

// The next \boxed or \fbox command starting at or after `pos`: the position of its backslash,
// or kNpos. Searches for "ox" (next_ox) and looks back for the command around it. A backslash starts a command when it is preceded by an
// even number of backslashes (a run of backslashes always starts at a token boundary, and
// "\\\\" pairs are escapes), so the check is local.
std::size_t next_box_command(std::string_view s, std::size_t pos, Command& cmd) noexcept {
  const std::size_t n = s.size();
  std::size_t i = pos;
  while (true) {
    const std::size_t x = next_ox(s, i);
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
// text inside a box is read once and the text outside is only searched (find_str).
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
  return range_of(
      s, detail::unwrap(s.substr(r.start, r.end - r.start), detail::Wrappers::kBoxes, detail::kMaxWrapperLayers));
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
// choice

// True when one of the words that announce a multiple-choice letter (detail::kChoiceWords:
// "answer", "option", "choice" in any case, the CJK 选) ends at `end`, as a whole word.
bool choice_word_ends_at(std::string_view s, std::size_t from, std::size_t end) noexcept {
  for (const std::string_view w : detail::kChoiceWords) {
    if (end < from + w.size()) continue;
    const std::size_t b = end - w.size();
    if (istarts_with(s, b, w) && (b == from || !is_letter(s[b - 1]))) return true;
  }
  return false;
}

// The length of the decoration that ends at s[b - 1]: one of `chars`, as ASCII or in its
// full-width form ("：", "（"), or 0.
std::size_t decoration_before(std::string_view s, std::size_t from, std::size_t b, std::string_view chars) noexcept {
  if (b > from && chars.find(s[b - 1]) != std::string_view::npos) return 1;
  if (b >= from + 3) {
    const char c = detail::fullwidth_ascii(s, b - 3);
    if (c != 0 && chars.find(c) != std::string_view::npos) return 3;
  }
  return 0;
}

// A letter A-J that closes the text, announced by a choice word (choice_word_ends_at: "Answer
// B", "correct answer A", "(ANSWER E)", "the correct option is C", "answer D.", "故选：D.") or
// alone on the last line ("C", "(B)"), or in parentheses right after "is" ("The piece that fits
// is (D)."). Decoration around the letter, ASCII or full-width: "(", ")", ":", "**", "is", a
// period (also "。").
std::optional<Extraction> find_choice(std::string_view s, std::size_t from) {
  std::size_t e = s.size();
  while (e > from) {
    if (is_space(s[e - 1])) {
      --e;
    } else if (const std::size_t d = decoration_before(s, from, e, ".)]*")) {
      e -= d;
    } else if (e >= from + 3 && s.compare(e - 3, 3, detail::kIdeographicFullStop) == 0) {
      e -= 3;
    } else {
      break;
    }
  }
  if (e == from || !is_choice_letter(s[e - 1])) return std::nullopt;
  const std::size_t letter = e - 1;
  if (letter > from && (is_letter(s[letter - 1]) || is_digit(s[letter - 1]) || s[letter - 1] == '\\')) {
    return std::nullopt;
  }
  std::size_t b = letter;
  auto skip_decoration = [&] {
    while (b > from) {
      if (is_blank(s[b - 1])) {
        --b;
      } else if (const std::size_t d = decoration_before(s, from, b, "([:*")) {
        b -= d;
      } else {
        break;
      }
    }
  };
  const bool parenthesized = letter > from && s[letter - 1] == '(' && letter + 1 < s.size() && s[letter + 1] == ')';
  skip_decoration();
  bool after_is = false;
  if (b >= from + 2 && istarts_with(s, b - 2, "is") && (b - 2 == from || !is_letter(s[b - 3]))) {
    after_is = true;
    b -= 2;
    skip_decoration();
  }
  const bool lone = b == from || s[b - 1] == '\n';
  if (!lone && !choice_word_ends_at(s, from, b) && !(parenthesized && after_is)) return std::nullopt;
  Extraction e_out;
  e_out.method = Method::kChoice;
  e_out.start = letter;
  e_out.end = letter + 1;
  return e_out;
}

// ---------------------------------------------------------------------------------------------
// bare

constexpr std::size_t kMaxBare = 200;     // bytes of a response that may be read whole as math
constexpr std::size_t kMaxBareText = 40;  // ... and as a short text answer ("Yes", "no solution")
constexpr std::size_t kMaxBareWords = 4;

std::size_t word_count(std::string_view s) noexcept {
  std::size_t words = 0;
  bool in_word = false;
  for (const char c : s) {
    const bool space = is_space(c);
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  return words;
}

// True when `s` holds, among two or more whitespace-separated tokens, a word of two or more
// letters that is not a function name of detail/functions.hpp or a constant: "so it is 4",
// "x = 1 or 2"; not "pi/2", "2 x + 1", "sin x", "no solution" (words only: a text answer).
bool has_prose_word(std::string_view s) noexcept {
  bool several = false, word = false, only_words = true;
  std::size_t k = 0;
  const std::size_t n = s.size();
  while (k < n) {
    while (k < n && is_space(s[k])) ++k;
    if (k == n) break;
    const std::size_t start = k;
    while (k < n && !is_space(s[k])) ++k;
    if (start > 0) several = true;
    const std::string_view token = s.substr(start, k - start);
    const bool letters = letters_end_in(token, 0, token.size()) == token.size();
    only_words = only_words && letters;
    if (letters && token.size() >= 2 && token != "pi" && token != "oo" && token != "inf" &&
        rapidgrade::detail::find_function_word(token) == nullptr) {
      word = true;
    }
  }
  return several && word && !only_words;
}

// The whole response (after </think>) is one answer, on one line: math ("pi/2", "-2*pi",
// "14.0 + -1.0i", "$\frac{1}{\sqrt{n}}$", "1 1/4", "(1, 2)", "$45^\circ$"), or a short text
// answer without digits ("Yes", "no solution"). Prose with a number ("I think 5") is not bare.
std::optional<Extraction> find_bare(std::string_view s, std::size_t from) {
  const Range r = trim(s, Range{from, s.size()});
  if (r.end == r.start || r.end - r.start > kMaxBare) return std::nullopt;
  const std::string_view whole = s.substr(r.start, r.end - r.start);
  if (whole.find('\n') != std::string_view::npos) return std::nullopt;
  const std::string_view inner = detail::unwrap(whole, detail::Wrappers::kMath, 1);
  if (inner.empty()) return std::nullopt;
  // prose around math ("so $k = 2$.", "$a$ or $b$") is not one bare answer, nor is a display
  // environment (final_span reads it)
  if (inner.find('$') != std::string_view::npos || inner.find("\\(") != std::string_view::npos ||
      inner.find("\\[") != std::string_view::npos || inner.find("\\begin{") != std::string_view::npos) {
    return std::nullopt;
  }
  if (has_prose_word(inner)) return std::nullopt;
  if (expr::is_plain_text(inner)) {
    if (inner.size() > kMaxBareText || word_count(inner) > kMaxBareWords) return std::nullopt;
    for (const char c : inner) {
      if (is_digit(c) || c == '$') return std::nullopt;
    }
  }
  const Range a = range_of(s, inner);
  Extraction e;
  e.method = Method::kBare;
  e.start = a.start;
  e.end = a.end;
  return e;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// anchors

Anchors internal::find_anchors(std::string_view s, std::size_t from) noexcept {
  const std::size_t n = s.size();
  AnchorScan scan;
  std::size_t i = from;
  // the vector loops (anchors_vector), AVX2 first where the CPU has it, then the last bytes
#if RAPIDGRADE_AVX2_DISPATCH
  if (detail::has_avx2()) i = anchors_avx2(s.data(), n, i, scan);
#endif
  i = anchors_vector<detail::simd::Native>(s.data(), n, i, scan);
  for (; i < n; ++i) {
    const char c = s[i];
    const char d = i + 1 < n ? s[i + 1] : '\0';
    scan.close_tag |= c == 'r' && d == '>';
    scan.hash |= c == '#';
    scan.fence |= c == '`';
    scan.a_colon |= c == 'A' && d == ':';
    scan.non_ascii |= static_cast<unsigned char>(c) >= 0x80;
    if (detail::to_lower(c) == 's' && detail::to_lower(d) == 'w') scan.last_sw = i;
    if (scan.first_nb == kNpos && c == 'n' && d == '{') scan.first_nb = i;
  }
  Anchors a;
  a.close_tag = scan.close_tag;
  a.hash = scan.hash;
  a.fence = scan.fence;
  a.a_colon = scan.a_colon;
  a.non_ascii = scan.non_ascii;
  a.sw_end = scan.last_sw == kNpos ? 0 : scan.last_sw + 2;
  // "\begin{" holds its "n{" five bytes after its start
  a.begin_from = scan.first_nb == kNpos ? kNpos : (scan.first_nb >= 5 ? scan.first_nb - 5 : 0);
  return a;
}

const char* method_name(Method method) noexcept {
  switch (method) {
    case Method::kAuto: return "auto";
    case Method::kBoxed: return "boxed";
    case Method::kBoxedMulti: return "boxed_multi";
    case Method::kAnswerIs: return "answer_is";
    case Method::kTagged: return "tagged";
    case Method::kCodeOutput: return "code_output";
    case Method::kChoice: return "choice";
    case Method::kBare: return "bare";
    case Method::kFinalSpan: return "final_span";
    case Method::kLastNumber: return "last_number";
  }
  return "?";
}

bool parse_strategy(std::string_view name, Method& out) noexcept {
  static constexpr Method kStrategies[] = {Method::kAuto,   Method::kBoxed,      Method::kAnswerIs,
                                           Method::kTagged, Method::kCodeOutput, Method::kChoice,
                                           Method::kBare,   Method::kFinalSpan,  Method::kLastNumber};
  for (Method m : kStrategies) {
    if (name == method_name(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

std::size_t search_start(std::string_view text) noexcept {
  const std::size_t last = detail::rfind_str(text, "</think>");  // backward: a late </think> ends the scan early
  return last == kNpos ? 0 : last + 8;
}

namespace {

// The most remarks final_statement_end skips.
constexpr int kMaxRemarks = 2;

// The start of the remark in parentheses that ends text[from, end) (its last ')' before blanks
// and a '.'), or npos: a '(' after a blank, a line break or a sentence's end (not a function's,
// "f(x)"), then a word of two letters or more before a blank or a comma ("(We can check",
// "(Checking, ...", "(which occurs when"; not "(iii)", "(a)"), or a computation of the result
// ("15 balls (3 boxes × 5 balls)", "8 (20 - 12)").
std::size_t remark_before(std::string_view text, std::size_t from, std::size_t end) noexcept {
  std::size_t k = end;
  while (k > from && detail::is_space(text[k - 1])) --k;
  if (k > from && text[k - 1] == '.') --k;
  if (k == from || text[k - 1] != ')') return kNpos;
  std::size_t depth = 0;
  std::size_t open = k;
  do {
    --open;
    if (text[open] == ')') ++depth;
    if (text[open] == '(') --depth;
  } while (depth > 0 && open > from);
  if (depth > 0) return kNpos;
  std::size_t w = open + 1;
  while (w < k && detail::is_blank(text[w])) ++w;
  const std::size_t word_end = detail::letters_end(text, w);
  if ((word_end - w < 2 || word_end >= k || !(detail::is_blank(text[word_end]) || text[word_end] == ',')) &&
      !internal::computation(text, open + 1, k - 1)) {
    return kNpos;
  }
  std::size_t b = open;
  while (b > from && detail::is_blank(text[b - 1])) --b;
  if (b == from) return kNpos;  // the whole text
  const char before = text[b - 1];
  return b < open || before == '\n' || before == '.' || before == '!' || before == '?' ? open : kNpos;
}

// The row of `table` whose phrase opens text[b, end) as a whole word (ASCII, ignoring case), or
// nullptr.
template <typename T, std::size_t N, typename Phrase>
const T* line_opener(std::string_view text, std::size_t b, std::size_t end, const T (&table)[N],
                     Phrase phrase) noexcept {
  for (const T& row : table) {
    const std::string_view w = phrase(row);
    if (b + w.size() <= end && detail::istarts_with(text, b, w) &&
        (b + w.size() == end || !detail::is_letter(text[b + w.size()]))) {
      return &row;
    }
  }
  return nullptr;
}

// The projection of line_opener for a table of phrases.
constexpr auto same_phrase = [](std::string_view w) noexcept { return w; };

// Where the math that ends text[from, k) ends, when text[from, k) ends with math or a number
// before blanks and commas ("$x=3$", "3/4", "value 8 ,", "\frac{3}{4}", "25%"), else kNpos.
std::size_t math_end_before(std::string_view text, std::size_t from, std::size_t k) noexcept {
  while (k > from && (detail::is_blank(text[k - 1]) || text[k - 1] == ',')) --k;
  if (k == from) return kNpos;
  const char c = text[k - 1];
  return detail::is_digit(c) || c == '$' || c == '}' || c == ')' || c == ']' || c == '%' ? k : kNpos;
}

// Walks text[i, k) outside math: calls on_word(p) at each letter that starts a word after a blank
// outside math ($, $$, \( \), \[ \]) and braces, and on_break(p) at each ',' and ';' there;
// stops when one returns true, and returns where (k when none did).
template <typename OnWord, typename OnBreak>
std::size_t walk_prose(std::string_view text, std::size_t i, std::size_t k, OnWord on_word, OnBreak on_break) {
  bool in_math = false;
  std::size_t depth = 0;
  for (const std::size_t start = i; i < k; ++i) {
    const char c = text[i];
    if (c == '\\') {
      if (i + 1 < k && (text[i + 1] == '(' || text[i + 1] == '[')) in_math = true;
      if (i + 1 < k && (text[i + 1] == ')' || text[i + 1] == ']')) in_math = false;
      ++i;
    } else if (c == '$') {
      in_math = !in_math;
      if (i + 1 < k && text[i + 1] == '$') ++i;  // $$ opens or closes one display
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (depth > 0) --depth;
    } else if (!in_math && depth == 0) {
      if ((c == ',' || c == ';') && on_break(i)) return i;
      if (i > start && detail::is_blank(text[i - 1]) && detail::is_letter(c) && on_word(i)) return i;
    }
  }
  return k;
}

// The end of the math before a clause that closes the final sentence of text[from, end) with a
// reason for its value or an example of it (detail::kReasonClauses: "so $x=3$ since $x>0$.",
// "$S$ attains value 8, e.g., when $a=c=1$."), or kNpos: the first such phrase of the sentence
// outside math, at a word start after a blank, right after math or a number, whose clause closes
// the sentence: no ',' or ';' outside math after the phrase's own comma ("e.g., when ..."), and no
// word of detail::kConclusionLeads ("..., given that ..., we have ...", "because ..., therefore
// ...": that reason opens the clause that concludes). Two passes over the sentence.
std::size_t reason_before(std::string_view text, std::size_t from, std::size_t end) noexcept {
  std::size_t k = end;
  while (k > from && detail::is_space(text[k - 1])) --k;
  if (k > from && text[k - 1] == '.') --k;
  if (k == from) return kNpos;
  const std::size_t j = std::max(from, internal::sentence_at(text, from, k - 1).start);
  std::size_t block_end = j;  // just past the last ',', ';' or conclusion lead, outside math
  walk_prose(
      text, j, k,
      [&](std::size_t p) {
        if (line_opener(text, p, k, detail::kConclusionLeads, same_phrase) != nullptr) block_end = p + 1;
        return false;
      },
      [&](std::size_t p) {
        block_end = p + 1;
        return false;
      });
  std::size_t cut = kNpos;
  const auto reason = [&](std::size_t p) {
    const std::string_view* phrase = line_opener(text, p, k, detail::kReasonClauses, same_phrase);
    if (phrase == nullptr) return false;
    std::size_t q = p + phrase->size();  // the clause, after the phrase's own comma
    while (q < k && detail::is_blank(text[q])) ++q;
    if (q < k && text[q] == ',') ++q;
    if (block_end > q) return false;
    cut = math_end_before(text, j, p);
    return cut != kNpos;
  };
  walk_prose(text, j, k, reason, [](std::size_t) { return false; });
  return cut;
}

// Where the line that starts at k begins its words: after blanks and markdown's '*' and '#'.
std::size_t line_words(std::string_view text, std::size_t k, std::size_t end) noexcept {
  while (k < end && (detail::is_blank(text[k]) || text[k] == '*' || text[k] == '#')) ++k;
  return k;
}

// The last closing section of text[from, end) that checks or illustrates the answer: the last
// line that opens with one of detail::kAsideOpeners (kNpos: none), and what follows it.
struct Aside {
  std::size_t start = kNpos;
  bool example = false;
  bool paragraph_after = false;  // a paragraph opens after the aside's line
  bool concluded = false;        // ... with a conclusion (detail::kConclusionLeads)
};

// The last aside of text[from, end), kNpos when only blanks stand before it. One pass over the
// line breaks.
Aside last_aside(std::string_view text, std::size_t from, std::size_t end) noexcept {
  Aside a;
  bool blank_line = false;  // the line before was blank
  for (std::size_t k = text.find('\n', from); k < end; k = text.find('\n', k + 1)) {
    const std::size_t b = line_words(text, k + 1, end);
    if (b >= end || text[b] == '\n' || text[b] == '\r') {
      blank_line = true;
      continue;
    }
    const detail::AsideOpener* aside =
        line_opener(text, b, end, detail::kAsideOpeners, [](const detail::AsideOpener& o) { return o.phrase; });
    if (aside != nullptr) {
      a = Aside{k + 1, aside->example, false, false};
    } else if (a.start != kNpos && blank_line) {
      a.paragraph_after = true;
      a.concluded = a.concluded || line_opener(text, b, end, detail::kConclusionLeads, same_phrase) != nullptr;
    }
    blank_line = false;
  }
  if (a.start == kNpos) return a;
  for (std::size_t k = from; k < a.start; ++k) {
    if (detail::is_letter(text[k]) || detail::is_digit(text[k])) return a;
  }
  return Aside{};
}

// The start of a closing section of text[from, end) that checks or illustrates the answer
// (last_aside), or kNpos: none, an example with a paragraph after it, or one that a later
// paragraph opening with one of detail::kConclusionLeads follows.
std::size_t aside_before(std::string_view text, std::size_t from, std::size_t end) noexcept {
  const Aside a = last_aside(text, from, end);
  return a.concluded || (a.example && a.paragraph_after) ? kNpos : a.start;
}

// The last number of s[from, ...), widened to what it belongs to (bold digits, a number object),
// or the final statement's reading instead (a count sentence's count, the bold value): the
// last_number method, run alone or as the cascade's last resort.
std::optional<Extraction> last_number_reading(std::string_view s, std::size_t from) {
  std::optional<Extraction> e = find_last_number(s, from);
  if (e) widen_bold_digits(s, from, *e);
  if (e) widen_number_object(s, from, *e);
  read_count_sentence(s, from, e);
  read_bold_value(s, from, e);
  return e;
}

// With no marked answer read after it (e, a reading of the final statement): the reading of
// the text before a check that conclusions follow (last_aside: "We check these answers in the
// original equation.\n\nIf $x=10^{100}$, ...\n\nThus, ... $=10000$."), whose paragraphs may
// conclude the check rather than the solution; none otherwise. At most one element.
std::vector<Range> check_reading(std::string_view s, const Extraction& e) {
  if (e.readings.end == 0) return {};
  const Aside a = last_aside(s, e.readings.from, e.readings.end);
  if (a.start == kNpos || a.example || !a.concluded || a.start > e.start) return {};
  const std::string_view before = s.substr(0, a.start);
  std::optional<Extraction> r =
      final_span_reading(before, e.readings.from, math_spans(before, e.readings.from, Anchors{}));
  if (!r) r = last_number_reading(before, e.readings.from);
  if (!r || r->end <= r->start) return {};
  return {Range{r->start, r->end}};
}

}  // namespace

std::size_t final_statement_end(std::string_view text, std::size_t from) noexcept {
  std::size_t end = text.size();
  if (const std::size_t aside = aside_before(text, from, end); aside != kNpos) end = aside;
  for (int r = 0; r < kMaxRemarks; ++r) {
    const std::size_t open = remark_before(text, from, end);
    if (open == kNpos) break;
    end = open;
  }
  if (const std::size_t cut = reason_before(text, from, end); cut != kNpos) end = cut;
  return end;
}

std::optional<Extraction> extract_answer(std::string_view text, Method strategy) {
  const std::size_t from = search_start(text);
  // the unmarked readers read the text before the remarks and the check that close it
  const auto statement_of = [&] { return text.substr(0, final_statement_end(text, from)); };
  switch (strategy) {
    case Method::kBoxed:
    case Method::kBoxedMulti: return find_boxed_answer(text, from);
    case Method::kAnswerIs: return find_marked(text, from, Anchors{}, Method::kAnswerIs);
    case Method::kTagged: return find_marked(text, from, Anchors{}, Method::kTagged);
    case Method::kCodeOutput: return find_code_output(text, from, Anchors{});
    case Method::kChoice: return find_choice(text, from);
    case Method::kBare: return find_bare(text, from);
    case Method::kFinalSpan: {
      const std::string_view statement = statement_of();
      return final_span_reading(statement, from, math_spans(statement, from, Anchors{}));
    }
    case Method::kLastNumber: return last_number_reading(statement_of(), from);
    case Method::kAuto: break;
  }
  if (auto e = find_boxed_answer(text, from)) return e;
  const Anchors anchors = find_anchors(text, from);
  std::optional<Extraction> marked = find_marked(text, from, anchors, Method::kAuto);
  if (marked) {
    read_bold_after_marker(text, from, anchors, marked);
    return marked;
  }
  if (auto e = find_code_output(text, from, anchors)) return e;
  if (auto e = find_choice(text, from)) return e;
  if (auto e = find_bare(text, from)) return e;
  const std::string_view statement = statement_of();
  std::vector<Box> spans = math_spans(statement, from, anchors);
  std::optional<Extraction> e = final_span_reading(statement, from, spans);
  if (!e) e = last_number_reading(statement, from);
  if (e) {  // what other_readings() reads, kept rather than computed: most answers match
    e->readings.spans = std::move(spans);
    e->readings.from = from;
    e->readings.end = statement.size();
  }
  return e;
}

std::vector<Range> other_readings(std::string_view s, const Extraction& e) {
  std::vector<Range> out = check_reading(s, e);
  const std::vector<Box>& spans = e.readings.spans;
  if (e.method == Method::kLastNumber && e.readings.end > 0) {
    // the other numbers of its sentence, nearest first ("In total, 18 students out of 30
    // passed."), and the last math span of the text, though a number follows it
    out = internal::sentence_numbers_before(s.substr(0, e.readings.end), e.readings.from, e.start);
    for (std::size_t k = spans.size(); k > 0; --k) {
      const Box& b = spans[k - 1];
      if (!has_content(s, Range{b.start, b.end})) continue;
      if (b.end <= e.start || b.start >= e.end) out.push_back(span_answer(s, Range{b.start, b.end}));
      break;
    }
    return out;
  }
  // no spans kept: a method run alone (a final-span answer found by the cascade always has its
  // spans)
  if (spans.empty()) return out;
  if (e.method == Method::kFinalSpan) {
    // the last of alternatives that "or" joins, which may restate the others ("$2(27
    // \mathrm{~cm}^{2}+32 \mathrm{~cm}^{2})$ or $118 \mathrm{~cm}^{2}$")
    if (e.alternatives && e.parts.size() > 1) out.push_back(e.parts.back());
    // the other spans of the final sentence, back to the last sentence break or to the span
    // that the sentence concludes with ("..., solving for $a$ gives: $a = -2$", "Since $a^x = 3$,
    // therefore $a^{3x} = 27$"): the spans before a conclusion are the steps that led to it
    for (std::size_t k = e.readings.first_span; k > 0; --k) {
      const Box& b = spans[k - 1];
      if (sentence_break(s, b.outer_end, spans[k].outer_start)) break;
      if (introduced_as_conclusion(s, b.outer_end, spans[k].outer_start)) break;
      if (conclusion_command_span(s, Range{b.start, b.end})) break;
      if (has_content(s, Range{b.start, b.end})) out.push_back(span_answer(s, Range{b.start, b.end}));
    }
    if (const auto num = find_last_number(s.substr(0, e.readings.end), e.readings.from)) {
      if (num->start < e.start || num->end > e.end) out.push_back(Range{num->start, num->end});
    }
  }
  return out;
}

namespace {

// Whether the word that ends right before s[k] (a '.') is one of detail::kAbbreviations, as a
// whole word that starts after s[j]: "Mr." in "Mr. Jackson".
bool abbreviation_before(std::string_view s, std::size_t j, std::size_t k) noexcept {
  std::size_t b = k;
  while (b > j && detail::is_letter(s[b - 1])) --b;
  if (b == k || (b > j && s[b - 1] == '\\')) return false;
  const std::string_view word = s.substr(b, k - b);
  for (const std::string_view a : detail::kAbbreviations)
    if (word == a) return true;
  return false;
}

}  // namespace

std::size_t sentence_end(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
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
        if (s[k + 1] == '(')
          in_paren = true;
        else if (s[k + 1] == ')')
          in_paren = false;
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
               (k + 1 >= n || is_space(s[k + 1])) && !(c == '.' && k + 1 < n && abbreviation_before(s, j, k))) {
      break;
    }
    ++k;
  }
  return k > n ? n : k;
}

namespace internal {

// internal::computation: see extract_internal.hpp.
bool computation(std::string_view text, std::size_t b, std::size_t e) noexcept {
  while (b < e && detail::is_blank(text[b])) ++b;
  if (b >= e || !(detail::is_digit(text[b]) || text[b] == '$')) return false;
  bool op = false;
  // an operator counts after an operand (a digit or a word, blanks between): in "(1, -2)" the
  // '-' is a sign
  const auto binary = [&](std::size_t k) {
    while (k > b && detail::is_blank(text[k - 1])) --k;
    return k > b && (detail::is_digit(text[k - 1]) || detail::is_letter(text[k - 1]));
  };
  for (std::size_t k = b; k < e;) {
    const char c = text[k];
    if (detail::is_digit(c) || detail::is_blank(c) || c == '.' || c == ',' || c == '$') {
      ++k;
    } else if (c == '+' || c == '-' || c == '*' || c == '/' || c == '=') {
      op = op || binary(k);
      ++k;
    } else if (detail::starts_with(text, k, "\xC3\x97") || detail::starts_with(text, k, "\xC2\xB7")) {
      op = op || binary(k);  // U+00D7 ×, U+00B7 ·
      k += 2;
    } else if (c == '\\' && (detail::starts_with(text, k, "\\times") || detail::starts_with(text, k, "\\cdot"))) {
      op = op || binary(k);
      k = detail::letters_end(text, k + 1);
    } else if (detail::is_letter(c)) {
      const std::size_t w = detail::letters_end(text, k);
      if (w - k == 1) {  // a lone "x" between blanks is a times sign; any other letter a name
        if ((c != 'x' && c != 'X') || !detail::is_blank(text[k - 1]) || w >= e || !detail::is_blank(text[w]))
          return false;
        op = true;
      }
      k = w;
    } else {
      return false;
    }
  }
  return op;
}

Range sentence_at(std::string_view s, std::size_t from, std::size_t at) noexcept {
  std::size_t j = at;
  while (j > from && s[j - 1] != '\n' && s[j - 1] != '\r') --j;
  std::size_t k = sentence_end(s, j);
  while (k < at) {
    j = k + 1;
    k = sentence_end(s, j);
  }
  return Range{j, k};
}

}  // namespace internal

std::string answer_text(std::string_view text, const Extraction& e) {
  if (e.parts.empty()) return std::string(text.substr(e.start, e.end - e.start));
  std::string out;
  for (std::size_t k = 0; k < e.parts.size(); ++k) {
    if (k > 0) out += e.alternatives ? " or " : ", ";
    out.append(text.substr(e.parts[k].start, e.parts[k].end - e.parts[k].start));
  }
  return out;
}

}  // namespace rapidgrade::extract
