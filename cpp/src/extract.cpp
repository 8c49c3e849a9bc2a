#include "rapidgrade/extract.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "rapidgrade/detail/delimiters.hpp"
#include "rapidgrade/detail/functions.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/expr.hpp"
#include "rapidgrade/scan.hpp"

namespace rapidgrade::extract {
namespace {

using detail::digits_end;
using detail::ends_with;
using detail::find_byte;
using detail::find_digit_or;
using detail::find_str;
using detail::is_blank;
using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::istarts_with;
using detail::kNpos;
using detail::rfind_pair_icase;
using detail::rfind_str;
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
// anchors

// What the rules of the auto strategy after the box search look for, read in one pass over
// s[from, n) once no box is found (find_anchors): a rule whose anchor is absent cannot match and
// is skipped, and the backward searches start at their last anchor. Each rule alone (a named
// strategy) gets Anchors{}, which lets it search the whole region as before. The box
// search runs first on its own: most responses end with a box, and it needs no other anchor.
// The anchors are bytes, or pairs of bytes rarer than either alone, that every match holds:
// - "sw" in either case: "answer";
// - "r>": "</answer>"; '#': "####"; '`': a "```" fence;
// - "n{": "\begin{", the math environments.
struct Anchors {
  std::size_t sw_end = kNpos;   // the backward search for "sw" starts before sw_end (0: none)
  bool close_tag = true;
  bool hash = true;
  bool fence = true;
  std::size_t begin_from = 0;   // the search for "\begin{" starts at max(from, begin_from)
};

#if defined(__SSE2__)  // (x86-64, where the AVX2 form also builds)
// The positional anchors of find_anchors' vector loops in the block of positions from i: bit k
// of sw (of nb) set when position i + k holds "sw" (the first "n{" sought). Moves last_sw to the
// block's last "sw" and sets first_nb to its first "n{"; true when it found one.
bool note_positions(std::size_t i, unsigned sw, unsigned nb, std::size_t& last_sw, std::size_t& first_nb) noexcept {
  if (sw != 0) last_sw = i + (31 - static_cast<std::size_t>(__builtin_clz(sw)));
  if (nb == 0) return false;
  first_nb = i + static_cast<std::size_t>(__builtin_ctz(nb));
  return true;
}
#endif

#if RAPIDGRADE_AVX2_DISPATCH
// find_anchors' vector loop 32 positions at a time, on CPUs with AVX2 (the same comparisons as
// the SSE2 loop below): from i while i + 33 <= n; returns where it stopped. The existence anchors
// are or-ed into the flags, "sw" and "n{" update last_sw and first_nb.
__attribute__((target("avx2"))) std::size_t anchors_avx2(std::string_view s, std::size_t i, Anchors& a,
                                                         std::size_t& last_sw, std::size_t& first_nb) noexcept {
  const std::size_t n = s.size();
  const __m256i fold = _mm256_set1_epi8(0x20);
  const __m256i sl = _mm256_set1_epi8('s'), wl = _mm256_set1_epi8('w'), r = _mm256_set1_epi8('r');
  const __m256i gt = _mm256_set1_epi8('>'), hash = _mm256_set1_epi8('#'), tick = _mm256_set1_epi8('`');
  const __m256i en = _mm256_set1_epi8('n'), brace = _mm256_set1_epi8('{');
  __m256i any_tag = _mm256_setzero_si256(), any_hash = any_tag, any_fence = any_tag;
  __m256i want_begin = first_nb == kNpos ? _mm256_set1_epi8(-1) : _mm256_setzero_si256();
  for (; i + 33 <= n; i += 32) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i));
    const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s.data() + i + 1));
    any_tag = _mm256_or_si256(any_tag, _mm256_and_si256(_mm256_cmpeq_epi8(w, r), _mm256_cmpeq_epi8(next, gt)));
    any_hash = _mm256_or_si256(any_hash, _mm256_cmpeq_epi8(w, hash));
    any_fence = _mm256_or_si256(any_fence, _mm256_cmpeq_epi8(w, tick));
    const __m256i sw = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(w, fold), sl),
                                        _mm256_cmpeq_epi8(_mm256_or_si256(next, fold), wl));
    const __m256i nb = _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi8(w, en), _mm256_cmpeq_epi8(next, brace)),
                                        want_begin);
    if (_mm256_movemask_epi8(_mm256_or_si256(sw, nb)) != 0 &&
        note_positions(i, static_cast<unsigned>(_mm256_movemask_epi8(sw)), static_cast<unsigned>(_mm256_movemask_epi8(nb)),
                       last_sw, first_nb)) {
      want_begin = _mm256_setzero_si256();
    }
  }
  a.close_tag = a.close_tag || _mm256_movemask_epi8(any_tag) != 0;
  a.hash = a.hash || _mm256_movemask_epi8(any_hash) != 0;
  a.fence = a.fence || _mm256_movemask_epi8(any_fence) != 0;
  return i;
}
#endif

Anchors find_anchors(std::string_view s, std::size_t from) noexcept {
  const std::size_t n = s.size();
  Anchors a;
  a.close_tag = a.hash = a.fence = false;
  std::size_t last_sw = kNpos, first_nb = kNpos;  // the last "sw" (its 's'), the first "n{"
  std::size_t i = from;
#if RAPIDGRADE_AVX2_DISPATCH
  if (detail::has_avx2()) i = anchors_avx2(s, i, a, last_sw, first_nb);
#endif
#if defined(__SSE2__)
  const __m128i fold = _mm_set1_epi8(0x20);
  const auto byte = [](char c) { return _mm_set1_epi8(c); };
  const auto eq = [](__m128i u, __m128i v) { return _mm_cmpeq_epi8(u, v); };
  const __m128i sl = byte('s'), wl = byte('w'), r = byte('r'), gt = byte('>');
  const __m128i hash = byte('#'), tick = byte('`'), en = byte('n'), brace = byte('{');
  // The existence anchors are or-ed into one vector each and read once at the end; the two
  // whose position matters ("sw", "n{") share one movemask, decoded only where it is set.
  __m128i any_tag = _mm_setzero_si128(), any_hash = any_tag, any_fence = any_tag;
  const __m128i no_begin = _mm_setzero_si128();
  __m128i want_begin = first_nb == kNpos ? _mm_set1_epi8(-1) : no_begin;  // all ones until the first "n{"
  // positions i..i+15, each with the byte after it (up to i + 16) in s
  for (; i + 17 <= n; i += 16) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i + 1));
    any_tag = _mm_or_si128(any_tag, _mm_and_si128(eq(w, r), eq(next, gt)));
    any_hash = _mm_or_si128(any_hash, eq(w, hash));
    any_fence = _mm_or_si128(any_fence, eq(w, tick));
    const __m128i sw = _mm_and_si128(eq(_mm_or_si128(w, fold), sl), eq(_mm_or_si128(next, fold), wl));
    const __m128i nb = _mm_and_si128(_mm_and_si128(eq(w, en), eq(next, brace)), want_begin);
    if (_mm_movemask_epi8(_mm_or_si128(sw, nb)) != 0 &&
        note_positions(i, static_cast<unsigned>(_mm_movemask_epi8(sw)), static_cast<unsigned>(_mm_movemask_epi8(nb)),
                       last_sw, first_nb)) {
      want_begin = no_begin;
    }
  }
  a.close_tag = a.close_tag || _mm_movemask_epi8(any_tag) != 0;
  a.hash = a.hash || _mm_movemask_epi8(any_hash) != 0;
  a.fence = a.fence || _mm_movemask_epi8(any_fence) != 0;
#endif
  for (; i < n; ++i) {
    const char c = s[i];
    const char d = i + 1 < n ? s[i + 1] : '\0';
    a.close_tag |= c == 'r' && d == '>';
    a.hash |= c == '#';
    a.fence |= c == '`';
    if (detail::to_lower(c) == 's' && detail::to_lower(d) == 'w') last_sw = i;
    if (first_nb == kNpos && c == 'n' && d == '{') first_nb = i;
  }
  a.sw_end = last_sw == kNpos ? 0 : last_sw + 2;
  // "\begin{" holds its "n{" five bytes after its start
  a.begin_from = first_nb == kNpos ? kNpos : (first_nb >= 5 ? first_nb - 5 : 0);
  return a;
}

// ---------------------------------------------------------------------------------------------
// boxed

// The command at a \boxed or \fbox found by next_box_command: the position after its name and
// whether it is \boxed.
struct Command {
  std::size_t name_end = kNpos;
  bool boxed = false;
};

// The first x >= max(i, 1) with s[x - 1] == 'o' and s[x] == 'x' (the "ox" of both \boxed and
// \fbox), or s.size(). find_str reads the pair sixteen positions at a time, so the speed does not
// depend on how many 'o' or 'x' the text holds.
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
  return strip_answer_delimiters(s, Range{j, sentence_end(s, j)});
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

std::optional<Extraction> find_answer_is(std::string_view s, std::size_t from, const Anchors& anchors) {
  const std::size_t n = s.size();
  // Candidates are found by the "sw" of "answer" in either case (rfind_pair_icase), from the
  // end backwards: the last marker wins, and its answer starts after every earlier marker's
  // (between "answer" and where after_marker's answer starts there are only '*', blanks, ':'
  // and "is", so no other "answer" begins there), so the search stops at the first marker found.
  std::size_t last = kNpos;
  for (std::size_t p = rfind_pair_icase(s, from + 2, anchors.sw_end, 's', 'w'); p != kNpos;
       p = rfind_pair_icase(s, from + 2, p + 1, 's', 'w')) {
    const std::size_t i = p - 2;
    if (!istarts_with(s, i, "answer")) continue;
    if (i > from && is_letter(s[i - 1])) continue;
    last = after_marker(s, i);
    if (last != kNpos) break;
  }
  if (last == kNpos) return std::nullopt;
  const Range r = answer_value(s, last);
  if (r.end <= r.start) return std::nullopt;
  Extraction e;
  e.method = Method::kAnswerIs;
  e.start = r.start;
  e.end = r.end;
  // The answer stopped at a sentence end with more of its line after it ("Yes. $F(x,y)=...$"):
  // the whole line is the other reading, for a gold of several sentences.
  std::size_t line_end = r.end;
  while (line_end < n && s[line_end] != '\n' && s[line_end] != '\r') ++line_end;
  const Range whole = trim(s, Range{r.start, line_end});
  if (whole.end > r.end + 1) e.others.push_back(whole);
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

std::optional<Extraction> find_tagged(std::string_view s, std::size_t from, const Anchors& anchors) {
  // <answer>X</answer>: the last closing tag and the last opening tag before it, searched for
  // from the end.
  const std::size_t base = std::min(from, s.size());
  std::size_t close = anchors.close_tag ? rfind_str(s.substr(base), "</answer>") : kNpos;
  if (close != kNpos) {
    close += base;
    std::size_t open = rfind_str(s.substr(base, close - base), "<answer>");
    if (open != kNpos) {
      open += base;
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
  if (!anchors.hash) return std::nullopt;
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

std::optional<Extraction> find_code_output(std::string_view s, std::size_t from, const Anchors& anchors) {
  if (!anchors.fence) return std::nullopt;
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
// choice

bool is_choice_letter(char c) noexcept { return c >= 'A' && c <= 'J'; }

// End of the run of ASCII letters starting at `i`, at most `end`.
std::size_t letters_end_in(std::string_view s, std::size_t i, std::size_t end) noexcept {
  return detail::letters_end(s.substr(0, end), i);
}

// True when one of the words that announce a multiple-choice letter ("answer", "option",
// "choice", any case) ends at `end`, as a whole word.
bool choice_word_ends_at(std::string_view s, std::size_t from, std::size_t end) noexcept {
  for (const std::string_view w : {std::string_view("answer"), std::string_view("option"), std::string_view("choice")}) {
    if (end < from + w.size()) continue;
    const std::size_t b = end - w.size();
    if (istarts_with(s, b, w) && (b == from || !is_letter(s[b - 1]))) return true;
  }
  return false;
}

// A letter A-J that closes the text, announced by "answer"/"option"/"choice" ("Answer B",
// "correct answer A", "(ANSWER E)", "the correct option is C", "answer D.") or alone on the
// last line ("C", "(B)"). Decoration around the letter: "(", ")", ":", "**", "is", a period.
std::optional<Extraction> find_choice(std::string_view s, std::size_t from) {
  std::size_t e = s.size();
  while (e > from && (is_space(s[e - 1]) || s[e - 1] == '.' || s[e - 1] == ')' || s[e - 1] == ']' || s[e - 1] == '*')) {
    --e;
  }
  if (e == from || !is_choice_letter(s[e - 1])) return std::nullopt;
  const std::size_t letter = e - 1;
  if (letter > from && (is_letter(s[letter - 1]) || is_digit(s[letter - 1]) || s[letter - 1] == '\\')) {
    return std::nullopt;
  }
  std::size_t b = letter;
  auto skip_decoration = [&] {
    while (b > from && (is_blank(s[b - 1]) || s[b - 1] == '(' || s[b - 1] == '[' || s[b - 1] == ':' || s[b - 1] == '*')) {
      --b;
    }
  };
  skip_decoration();
  if (b >= from + 2 && istarts_with(s, b - 2, "is") && (b - 2 == from || !is_letter(s[b - 3]))) {
    b -= 2;
    skip_decoration();
  }
  const bool lone = b == from || s[b - 1] == '\n';
  if (!lone && !choice_word_ends_at(s, from, b)) return std::nullopt;
  Extraction e_out;
  e_out.method = Method::kChoice;
  e_out.start = letter;
  e_out.end = letter + 1;
  return e_out;
}

// ---------------------------------------------------------------------------------------------
// bare

constexpr std::size_t kMaxBare = 200;      // bytes of a response that may be read whole as math
constexpr std::size_t kMaxBareText = 40;   // ... and as a short text answer ("Yes", "no solution")
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

// ---------------------------------------------------------------------------------------------
// final_span

// The display environments read as math spans (with or without '*').
constexpr std::string_view kMathEnvironments[] = {"equation", "align", "gather", "multline", "displaymath",
                                                  "eqnarray", "math"};

bool is_math_environment(std::string_view name) noexcept {
  if (!name.empty() && name.back() == '*') name.remove_suffix(1);
  for (const std::string_view env : kMathEnvironments) {
    if (env == name) return true;
  }
  return false;
}

// Spans math_spans reserves room for at the first one: a worked solution has tens of them.
constexpr std::size_t kReservedBoxes = 32;

// Every math span of s[from, n) in order: scan::find_math_spans's $..$, $$..$$, \(..\), \[..\],
// and \begin{equation}..\end{equation} and the other kMathEnvironments; a span inside an
// environment is part of it. O(n).
std::vector<Box> math_spans(std::string_view s, std::size_t from, const Anchors& anchors) {
  std::vector<Box> envs;
  std::size_t at = find_str(s, std::max(from, anchors.begin_from), "\\begin{");  // kNpos: none
  while (at != kNpos) {
    const std::size_t name_start = at + 7;
    const std::size_t close = find_byte(s, name_start, '}');
    if (close >= s.size()) break;
    const std::string_view name = s.substr(name_start, close - name_start);
    std::size_t next = close + 1;
    if (is_math_environment(name)) {
      std::string end_tag = "\\end{";
      end_tag.append(name);
      end_tag += '}';
      const std::size_t end = find_str(s, close + 1, end_tag);
      if (end == kNpos) break;
      envs.push_back(Box{at, close + 1, end, end + end_tag.size()});
      next = end + end_tag.size();
    }
    at = find_str(s, next, "\\begin{");
  }
  std::vector<Box> out;
  std::size_t e = 0;
  // each span as the scanner finds it, merged with the environments (no list of its own)
  scan::for_each_math_span(s.substr(from), [&](std::size_t outer_start, std::size_t start, std::size_t end,
                                               std::size_t outer_end, scan::SpanKind) {
    const Box b{from + outer_start, from + start, from + end, from + outer_end};
    while (e < envs.size() && envs[e].outer_end <= b.outer_start) out.push_back(envs[e++]);
    if (e < envs.size() && envs[e].outer_start < b.outer_end) return;  // inside (or across) an environment
    if (out.empty()) out.reserve(kReservedBoxes);
    out.push_back(b);
  });
  while (e < envs.size()) out.push_back(envs[e++]);
  return out;
}

// The last byte of the command whose backslash is at k (the loop's ++k then goes on after it):
// the end of a command name ("\quad5" -> the 'd'), or the one byte of a control symbol ("\\x"
// is a line break, then x).
std::size_t skip_command(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const std::size_t e = letters_end_in(s, k + 1, end);
  return e > k + 1 ? e - 1 : k + 1;
}

// True when s[r) holds a digit or a letter outside command names: "x", "- 1", "\frac{1}{2}";
// "\therefore", "\quad" and "," hold none.
bool has_content(std::string_view s, Range r) noexcept {
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '\\') {
      k = skip_command(s, k, r.end);
      continue;
    }
    if (is_digit(c) || is_letter(c)) return true;
  }
  return false;
}

// The content of a span without what is not part of the answer: \tag{..}, \label{..},
// \nonumber, \notag, and trailing '.', ',', ';', "\\", \quad, \qquad and whitespace.
Range span_content(std::string_view s, Range r) noexcept {
  r = trim(s, r);
  for (const std::string_view cmd : {std::string_view("\\tag"), std::string_view("\\label")}) {
    const std::size_t at = find_str(s.substr(0, r.end), r.start, cmd);
    if (at != kNpos) r.end = at;  // \tag and \label end a line of an equation
  }
  bool changed = true;
  while (changed && r.end > r.start) {
    changed = false;
    r = trim(s, r);
    for (const std::string_view tail : {std::string_view("\\nonumber"), std::string_view("\\notag"),
                                        std::string_view("\\qquad"), std::string_view("\\quad"),
                                        std::string_view("\\\\"), std::string_view("."), std::string_view(","),
                                        std::string_view(";")}) {
      // the last byte first: most spans end in none of them
      if (r.end - r.start >= tail.size() && s[r.end - 1] == tail.back() &&
          s.compare(r.end - tail.size(), tail.size(), tail) == 0) {
        r.end -= tail.size();
        changed = true;
        break;
      }
    }
  }
  return r;
}

// A relation operator at s[k] (outside braces): its length and whether it is an equality
// ('=', \approx, U+2248); 0 when there is none. '<=', '>=', '!=', "\le", "\leq", "\ge", "\geq",
// "\neq", "\ne", "\lt", "\gt", "\leqslant", "\geqslant" and U+2264/2265/2260 are inequalities.
struct RelationAt {
  std::size_t length = 0;
  bool equality = false;
};

RelationAt relation_at(std::string_view s, std::size_t k, std::size_t end) noexcept {
  const char c = s[k];
  if (c == '=') {
    if (k + 1 < end && s[k + 1] == '=') return {2, true};
    return {1, true};
  }
  if (c == '<' || c == '>' || c == '!') {
    if (k + 1 < end && s[k + 1] == '=') return {2, false};
    if (c == '!') return {};
    return {1, false};
  }
  if (c == '\\') {
    const std::size_t e = letters_end_in(s, k + 1, end);
    const std::string_view name = s.substr(k + 1, e - k - 1);
    if (name == "approx") return {e - k, true};
    if (name == "le" || name == "leq" || name == "ge" || name == "geq" || name == "neq" || name == "ne" ||
        name == "lt" || name == "gt" || name == "leqslant" || name == "geqslant") {
      return {e - k, false};
    }
    return {};
  }
  if (c == '\xE2' && k + 2 < end && s[k + 1] == '\x89') {
    const char d = s[k + 2];
    if (d == '\x88') return {3, true};                             // U+2248 almost equal
    if (d == '\xA4' || d == '\xA5' || d == '\xA0') return {3, false};  // U+2264, U+2265, U+2260
  }
  return {};
}

// True when s[r) holds a letter outside command names (a symbol): "x", "f(2)"; not "1 - 2",
// "\frac{3}{4}".
bool has_symbol(std::string_view s, Range r) noexcept {
  for (std::size_t k = r.start; k < r.end; ++k) {
    if (s[k] == '\\') {
      k = skip_command(s, k, r.end);
      continue;
    }
    if (is_letter(s[k])) return true;
  }
  return false;
}

// Commands and words that introduce what a statement concludes: "$\therefore$ $x = 2$",
// "... so $m = -3$", "the value is $8$", "solving gives: $a = -2$". One table for the commands
// (span_answer reads a span from the last of them) and one for the words.
constexpr std::string_view kConclusionCommands[] = {"therefore", "Rightarrow", "Longrightarrow", "implies"};
constexpr std::string_view kConclusionWords[] = {
    "is",   "are",   "was",   "be",       "equals",  "becomes", "get",  "gets",  "got",   "obtain",
    "obtains", "obtained", "gives", "give", "yields", "yield", "so", "thus", "therefore", "hence", "then"};

bool is_conclusion_command(std::string_view name) noexcept {
  for (const std::string_view c : kConclusionCommands)
    if (name == c) return true;
  return false;
}

// True when s[from, to), the text before a math span, ends with a conclusion word or command
// (blanks, ':' and ',' may follow it): "we get: ", "so ", "\therefore ". O(to - from).
bool introduced_as_conclusion(std::string_view s, std::size_t from, std::size_t to) noexcept {
  std::size_t k = to;
  while (k > from && (is_space(s[k - 1]) || s[k - 1] == ':' || s[k - 1] == ',')) --k;
  std::size_t b = k;
  while (b > from && is_letter(s[b - 1])) --b;
  if (b == k) return false;
  const std::string_view word = s.substr(b, k - b);
  if (b > from && s[b - 1] == '\\') return is_conclusion_command(word);
  if (b > from && is_letter(s[b - 1])) return false;
  if (word.size() > 9) return false;
  char lower[10];
  for (std::size_t i = 0; i < word.size(); ++i) lower[i] = static_cast<char>(word[i] | 0x20);
  const std::string_view w(lower, word.size());
  for (const std::string_view c : kConclusionWords)
    if (w == c) return true;
  return false;
}

// A span that holds only a conclusion command: "$\therefore$ when $x = -1$, ...".
bool conclusion_command_span(std::string_view s, Range content) noexcept {
  const Range r = trim(s, content);
  if (r.end - r.start < 2 || s[r.start] != '\\') return false;
  const std::size_t e = letters_end_in(s, r.start + 1, r.end);
  return e == r.end && is_conclusion_command(s.substr(r.start + 1, e - r.start - 1));
}

// The answer a math span states: "a = b = c" -> "c"; "1 - 2 = - 1" -> "- 1" (an arithmetic
// left side is a computation); "x = 5", "f(x) = x + 2", "x < - 2", "1 < x < 3" stay whole (the
// relation is the answer; equivalence knows that "x = 5" matches 5). After the last top-level
// \Rightarrow, \implies or \therefore only. A span listing several parts (a top-level ',' or ';'
// that is not a thousands separator, "\text{ or }", \quad) is kept whole. O(length).
Range span_answer(std::string_view s, Range r) {
  r = span_content(s, r);
  struct Op {
    std::size_t at, length;
    bool equality;
  };
  std::vector<Op> ops;
  bool parts = false;
  int depth = 0;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
      continue;
    }
    if (c == '}' || c == ')' || c == ']') {
      if (depth > 0) --depth;
      continue;
    }
    if (c == '\\') {
      const std::size_t e = letters_end_in(s, k + 1, r.end);
      if (e == k + 1) {  // a control symbol: "\{" and "\}" are braces, "\," and "\\" are not
        if (k + 1 < r.end && s[k + 1] == '{') ++depth;
        if (k + 1 < r.end && s[k + 1] == '}' && depth > 0) --depth;
        ++k;
        continue;
      }
      const std::string_view name = s.substr(k + 1, e - k - 1);
      if (depth == 0) {
        if (is_conclusion_command(name)) {
          ops.clear();
          parts = false;
          r.start = e;
        } else if (name == "quad" || name == "qquad") {
          parts = true;
        } else if ((name == "text" || name == "mbox" || name == "textrm") && e < r.end && s[e] == '{') {
          const std::size_t close = find_byte(s.substr(0, std::min(r.end, e + 16)), e, '}');
          if (close < r.end) {
            const std::string_view word = detail::trim(s.substr(e + 1, close - e - 1));
            if (word == "or" || word == "and") parts = true;
          }
        } else {
          const RelationAt rel = relation_at(s, k, r.end);
          if (rel.length > 0) ops.push_back(Op{k, rel.length, rel.equality});
        }
      }
      k = e - 1;
      continue;
    }
    if (depth != 0) continue;
    if (c == ',' || c == ';') {
      const bool thousands = c == ',' && k > r.start && is_digit(s[k - 1]) && k + 3 < r.end + 1 &&
                             digits_end(s.substr(0, r.end), k + 1) == k + 4;
      if (!thousands) parts = true;
      continue;
    }
    const RelationAt rel = relation_at(s, k, r.end);
    if (rel.length > 0) {
      ops.push_back(Op{k, rel.length, rel.equality});
      k += rel.length - 1;
    }
  }
  r = trim(s, r);
  if (parts || ops.empty()) return r;
  bool all_equalities = true;
  for (const Op& op : ops) all_equalities = all_equalities && op.equality;
  if (!all_equalities) return r;
  const Op& last = ops.back();
  const Range rhs = trim(s, Range{last.at + last.length, r.end});
  if (rhs.end == rhs.start) return r;
  if (ops.size() >= 2) return rhs;
  const Range lhs = trim(s, Range{r.start, last.at});
  if (!has_symbol(s, lhs)) return rhs;
  return r;
}

// Text after the final math span that may still hold the answer: a digit outside "<...>" tags
// ("<img_3939>"), references in parentheses ("(see Figure 2)", "(3)") and words ("2nd" counts).
bool digit_after(std::string_view s, std::size_t from) noexcept {
  const std::size_t n = s.size();
  for (std::size_t k = from; k < n; ++k) {
    const char c = s[k];
    if (c == '<') {
      std::size_t m = k + 1;
      while (m < n && m - k < 80 && s[m] != '>' && s[m] != '\n' && s[m] != ' ') ++m;
      if (m < n && s[m] == '>') {
        k = m;
        continue;
      }
    } else if (c == '(') {
      std::size_t m = k + 1;
      while (m < n && m - k < 80 && s[m] != ')' && s[m] != '\n') ++m;
      if (m < n && s[m] == ')') {
        const std::string_view inside = detail::trim(s.substr(k + 1, m - k - 1));
        bool reference = !inside.empty();
        for (const char d : inside) reference = reference && (is_digit(d) || d == '.');
        for (const std::string_view w : {std::string_view("see"), std::string_view("cf"), std::string_view("fig"),
                                         std::string_view("table"), std::string_view("eq"), std::string_view("step")}) {
          reference = reference || istarts_with(inside, 0, w);
        }
        if (reference) {
          k = m;
          continue;
        }
      }
    } else if (is_digit(c)) {
      return true;
    }
  }
  return false;
}

// The gap between two parts of one answer: only ',', ';', "and", "or", blanks
// ("$(-6,6)$ and $(2,6)$", "$x=-1$ or $x=2$", "$90^{\circ}$, $60^{\circ}$").
bool joins_parts(std::string_view s, std::size_t from, std::size_t to) noexcept {
  if (to - from > 16) return false;
  std::size_t k = from;
  bool connector = false;
  while (k < to) {
    const char c = s[k];
    if (is_space(c)) {
      ++k;
    } else if (c == ',' || c == ';') {
      connector = true;
      ++k;
    } else if (is_letter(c)) {
      const std::size_t e = letters_end_in(s, k, to);
      const std::string_view w = s.substr(k, e - k);
      if (w != "and" && w != "or") return false;
      connector = true;
      k = e;
    } else {
      return false;
    }
  }
  return connector;
}

// True when s[from, to) ends a sentence: '.', '!' or '?' before whitespace or the end, or a
// line break.
bool sentence_break(std::string_view s, std::size_t from, std::size_t to) noexcept {
  for (std::size_t k = from; k < to; ++k) {
    const char c = s[k];
    if (c == '\n') return true;
    if ((c == '.' || c == '!' || c == '?') && (k + 1 == to || is_space(s[k + 1]))) return true;
  }
  return false;
}

std::optional<Extraction> find_last_number(std::string_view s, std::size_t from);

// A variable name alone: letters (one command such as \alpha, or up to two letters) with an
// optional subscript "_1" / "_{12}": "m", "x _ 1", "\alpha".
bool is_lone_symbol(std::string_view s, Range r) noexcept {
  std::size_t k = r.start;
  if (k < r.end && s[k] == '\\') ++k;
  const std::size_t e = letters_end_in(s, k, r.end);
  if (e == k || (s[r.start] != '\\' && e - k > 2)) return false;
  k = e;
  while (k < r.end && is_blank(s[k])) ++k;
  if (k < r.end && s[k] == '_') {
    ++k;
    while (k < r.end && (is_blank(s[k]) || is_digit(s[k]) || is_letter(s[k]) || s[k] == '{' || s[k] == '}')) ++k;
  }
  return k == r.end;
}

// The left side of the relation that s[r) states ("x = 5" -> "x", "a + 2 \ge 0" -> "a + 2"),
// trimmed: the text before its first top-level relation operator (relation_at); an empty range
// when it holds none (a value).
Range relation_lhs(std::string_view s, Range r) noexcept {
  int depth = 0;
  for (std::size_t k = r.start; k < r.end; ++k) {
    const char c = s[k];
    if (c == '{' || c == '(' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ')' || c == ']') && depth > 0) {
      --depth;
    } else if (depth == 0 && relation_at(s, k, r.end).length > 0) {
      return trim(s, Range{r.start, k});
    } else if (c == '\\') {
      k = skip_command(s, k, r.end);
    }
  }
  return Range{r.start, r.start};
}

// The last of `spans` (math_spans of s from `from`) of the final statement, when no number
// follows it in prose: read by span_answer; several spans joined by "and"/"or"/"," are one
// answer with several parts. Sets readings.first_span (the first span of the answer), from
// which other_readings() reads the other spans of the final sentence.
std::optional<Extraction> find_final_span(std::string_view s, const std::vector<Box>& spans) {
  std::size_t last = spans.size();
  while (last > 0 && !has_content(s, Range{spans[last - 1].start, spans[last - 1].end})) --last;
  if (last == 0) return std::nullopt;
  // "... gives $m = 2$ after solving for $m$": a span that only names a variable of an earlier
  // span of its sentence is not the answer
  if (last >= 2) {
    std::size_t prev = last - 1;
    while (prev > 0 && !has_content(s, Range{spans[prev - 1].start, spans[prev - 1].end})) --prev;
    if (prev > 0) {
      const Range name = span_content(s, Range{spans[last - 1].start, spans[last - 1].end});
      if (is_lone_symbol(s, name) && !sentence_break(s, spans[prev - 1].outer_end, spans[last - 1].outer_start)) {
        const Range before = span_content(s, Range{spans[prev - 1].start, spans[prev - 1].end});
        if (starts_with(s.substr(0, before.end), before.start, s.substr(name.start, name.end - name.start))) last = prev;
      }
    }
  }
  const Box& final_box = spans[last - 1];
  if (digit_after(s, final_box.outer_end)) return std::nullopt;
  std::size_t first = last - 1;
  const Range final_answer = span_answer(s, Range{final_box.start, final_box.end});
  std::optional<Range> final_lhs;  // read when a span before it joins it
  while (first > 0 && has_content(s, Range{spans[first - 1].start, spans[first - 1].end}) &&
         joins_parts(s, spans[first - 1].outer_end, spans[first].outer_start)) {
    if (!final_lhs) final_lhs = relation_lhs(s, final_answer);
    // parts of one answer have one shape: values ("$(-6,6)$ and $(2,6)$"), or relations of one
    // left side ("$x=-1$ or $x=2$"); "$3x = 12$ and $x = 4$" states two things, the last counts
    const Range part = span_answer(s, Range{spans[first - 1].start, spans[first - 1].end});
    const Range lhs = relation_lhs(s, part);
    if ((lhs.end == lhs.start) != (final_lhs->end == final_lhs->start)) break;
    if (lhs.end != lhs.start && s.substr(lhs.start, lhs.end - lhs.start) !=
                                    s.substr(final_lhs->start, final_lhs->end - final_lhs->start)) {
      break;
    }
    --first;
  }
  Extraction e;
  e.method = Method::kFinalSpan;
  if (first + 1 == last) {
    e.start = final_answer.start;
    e.end = final_answer.end;
  } else {
    for (std::size_t k = first; k < last; ++k) e.parts.push_back(span_answer(s, Range{spans[k].start, spans[k].end}));
    e.start = e.parts.front().start;
    e.end = e.parts.back().end;
  }
  if (e.end <= e.start) return std::nullopt;
  e.readings.first_span = first;
  return e;
}

// ---------------------------------------------------------------------------------------------
// last_number

bool sign_context(char c) noexcept {
  return is_space(c) || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' ||
         c == ';' || c == '$';
}

// Commands after which a '-' is a sign: operators and relations ("\times - 2", "\le -3").
bool operator_command(std::string_view name) noexcept {
  for (const std::string_view op : {"times", "cdot", "div", "pm", "mp", "le", "leq", "ge", "geq", "neq", "ne",
                                    "approx", "to", "quad", "qquad", "Rightarrow", "implies", "therefore",
                                    "because", "left", "lt", "gt"}) {
    if (op == name) return true;
  }
  return false;
}

// True when a '-' at p, written apart from its number ("= - 2", "is - 5"), is a sign: what
// precedes it (blanks skipped) is the region start, a line break, one of ( [ { = , : ; $, a
// word of two or more letters, or an operator command. "3 - 5", "x - 5", "\pi - 5" stay
// subtractions.
bool spaced_sign(std::string_view s, std::size_t from, std::size_t p) noexcept {
  std::size_t q = p;
  while (q > from && is_blank(s[q - 1])) --q;
  if (q == from) return true;
  const char c = s[q - 1];
  if (c == '\n' || c == '\r' || c == '(' || c == '[' || c == '{' || c == '=' || c == ',' || c == ':' || c == ';' ||
      c == '$') {
    return true;
  }
  if (!is_letter(c)) return false;
  std::size_t w = q;
  while (w > from && is_letter(s[w - 1])) --w;
  if (w > from && s[w - 1] == '\\') return operator_command(s.substr(w, q - w));
  return q - w >= 2;
}

// Start of the number at i including a '-' or U+2212 sign before it: right before it when that
// sign follows the region start, whitespace or one of ( [ { = , : ; $ (so "3-5" is 3 and 5,
// while "x = -5" is -5), or apart from it by blanks when spaced_sign says so ("= - 2" is -2).
std::size_t with_sign(std::string_view s, std::size_t from, std::size_t i) noexcept {
  std::size_t q = i;
  while (q > from && is_blank(s[q - 1])) --q;
  const bool apart = q != i;
  std::size_t p = i;
  if (q >= from + 1 && s[q - 1] == '-') {
    p = q - 1;
  } else if (q >= from + 3 && s.compare(q - 3, 3, kUnicodeMinus) == 0) {
    p = q - 3;
  } else {
    return i;
  }
  if (apart) return spaced_sign(s, from, p) ? p : i;
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

// "{3}{4}" or "{-3}{4}" right after \frac, or two single digits "12" (\dfrac12 is 1/2): the
// end of the arguments, or kNpos.
std::size_t numeric_frac_end(std::string_view s, std::size_t j) noexcept {
  const std::size_t n = s.size();
  if (j + 1 < n && is_digit(s[j]) && is_digit(s[j + 1])) return j + 2;
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

// The last number that the forward scan of s from `from` reads among the tokens starting in
// [begin, stop), where begin is `from` or a token boundary (see token_boundary_before) and stop
// is s.size() or such a boundary: the scan reads commands, escapes, \frac{3}{4} and numbers as
// tokens, and a number never runs past such a boundary.
std::optional<Range> last_number_in(std::string_view s, std::size_t from, std::size_t begin, std::size_t stop) {
  const std::size_t n = s.size();
  std::optional<Range> best;
  std::size_t i = begin;
  while (i < stop) {
    i = find_digit_or(s, i, stop, '.', '\\');
    if (i >= stop) break;
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
  return best;
}

// A position in [from, at] where the forward scan of last_number_in from `from` is inside no
// number: a whitespace byte, or `from`. No number holds whitespace (numbers are digits and
// , . / e, \frac's arguments digits and braces), and whitespace starts no token, so a scan
// started there reads the same numbers after it as the scan from `from`. (An escape "\ " is the
// one token holding whitespace; both scans go on right after it.)
std::size_t token_boundary_before(std::string_view s, std::size_t from, std::size_t at) noexcept {
  for (std::size_t b = at; b > from; --b) {
    if (is_space(s[b])) return b;
  }
  return from;
}

// Bytes of text scanned at a time by find_last_number, from the end backwards.
constexpr std::size_t kLastNumberChunk = 64;

// The last number of s from `from`, as a forward scan of the whole region reads it, found from
// the end: the region is cut at token boundaries into chunks of about kLastNumberChunk bytes,
// and the chunks are scanned from the last until one holds a number. A number near the end is
// found without reading the text before it; a byte is read at most twice (by the search for a
// cut, then by the scan of its chunk), so a text with no number costs O(n).
std::optional<Extraction> find_last_number(std::string_view s, std::size_t from) {
  std::size_t stop = s.size();
  while (stop > from) {
    const std::size_t begin =
        stop - from > kLastNumberChunk ? token_boundary_before(s, from, stop - kLastNumberChunk) : from;
    if (const std::optional<Range> best = last_number_in(s, from, begin, stop)) {
      Extraction e;
      e.method = Method::kLastNumber;
      e.start = best->start;
      e.end = best->end;
      return e;
    }
    stop = begin;
  }
  return std::nullopt;
}

// Spaced bold digits, a competition write-up convention: "**6 2 4 8**", "\mathbf{1 7}" and
// "\textbf{1 7}" are one number. When the last number [e.start, e.end) is a digit run inside
// such a group of digit runs apart by single spaces, closed by the bold markup on both sides,
// the answer becomes the whole group (normalization then reads "6 2 4 8" as 6248).
void widen_bold_digits(std::string_view s, std::size_t from, Extraction& e) noexcept {
  const std::size_t n = s.size();
  for (std::size_t k = e.start; k < e.end; ++k) {
    if (!is_digit(s[k])) return;
  }
  std::size_t lo = e.start, hi = e.end;
  while (lo >= from + 2 && s[lo - 1] == ' ' && is_digit(s[lo - 2])) {
    lo -= 2;
    while (lo > from && is_digit(s[lo - 1])) --lo;
  }
  while (hi + 1 < n && s[hi] == ' ' && is_digit(s[hi + 1])) hi = digits_end(s, hi + 1);
  if (lo == e.start && hi == e.end) return;
  const std::string_view before = s.substr(from, lo - from);
  bool closed = false;
  if (ends_with(before, "**")) {
    closed = starts_with(s, hi, "**");
  } else if (ends_with(before, "{")) {
    const std::string_view head = before.substr(0, before.size() - 1);
    closed = (ends_with(head, "\\mathbf") || ends_with(head, "\\textbf") || ends_with(head, "\\boldsymbol") ||
              ends_with(head, "\\bm")) &&
             hi < n && s[hi] == '}';
  }
  if (!closed) return;
  e.start = lo;
  e.end = hi;
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
    case Method::kChoice: return "choice";
    case Method::kBare: return "bare";
    case Method::kFinalSpan: return "final_span";
    case Method::kLastNumber: return "last_number";
  }
  return "?";
}

bool parse_strategy(std::string_view name, Method& out) noexcept {
  static constexpr Method kStrategies[] = {Method::kAuto,       Method::kBoxed,  Method::kAnswerIs,
                                           Method::kTagged,     Method::kCodeOutput, Method::kChoice,
                                           Method::kBare,       Method::kFinalSpan, Method::kLastNumber};
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

std::optional<Extraction> extract_answer(std::string_view text, Method strategy) {
  const std::size_t from = search_start(text);
  switch (strategy) {
    case Method::kBoxed:
    case Method::kBoxedMulti: return find_boxed_answer(text, from);
    case Method::kAnswerIs: return find_answer_is(text, from, Anchors{});
    case Method::kTagged: return find_tagged(text, from, Anchors{});
    case Method::kCodeOutput: return find_code_output(text, from, Anchors{});
    case Method::kChoice: return find_choice(text, from);
    case Method::kBare: return find_bare(text, from);
    case Method::kFinalSpan: return find_final_span(text, math_spans(text, from, Anchors{}));
    case Method::kLastNumber: {
      auto e = find_last_number(text, from);
      if (e) widen_bold_digits(text, from, *e);
      return e;
    }
    case Method::kAuto: break;
  }
  if (auto e = find_boxed_answer(text, from)) return e;
  const Anchors anchors = find_anchors(text, from);
  if (auto e = find_answer_is(text, from, anchors)) return e;
  if (auto e = find_tagged(text, from, anchors)) return e;
  if (auto e = find_code_output(text, from, anchors)) return e;
  if (auto e = find_choice(text, from)) return e;
  if (auto e = find_bare(text, from)) return e;
  std::vector<Box> spans = math_spans(text, from, anchors);
  std::optional<Extraction> e = find_final_span(text, spans);
  if (!e) {
    e = find_last_number(text, from);
    if (e) widen_bold_digits(text, from, *e);
  }
  if (e) {  // what other_readings() reads, kept rather than computed: most answers match
    e->readings.spans = std::move(spans);
    e->readings.from = from;
  }
  return e;
}

std::vector<Range> other_readings(std::string_view s, const Extraction& e) {
  std::vector<Range> out;
  const std::vector<Box>& spans = e.readings.spans;
  // no spans kept: a method run alone, or a last number in a text without math spans (a
  // final-span answer found by the cascade always has its spans)
  if (spans.empty()) return out;
  if (e.method == Method::kFinalSpan) {
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
    if (const auto num = find_last_number(s, e.readings.from)) {
      if (num->start < e.start || num->end > e.end) out.push_back(Range{num->start, num->end});
    }
  } else if (e.method == Method::kLastNumber) {
    // the last math span of the text, though a number follows it
    for (std::size_t k = spans.size(); k > 0; --k) {
      const Box& b = spans[k - 1];
      if (!has_content(s, Range{b.start, b.end})) continue;
      if (b.end <= e.start || b.start >= e.end) out.push_back(span_answer(s, Range{b.start, b.end}));
      break;
    }
  }
  return out;
}

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
  return k > n ? n : k;
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
