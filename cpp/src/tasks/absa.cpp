#include "rapidgrade/tasks/absa.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>
#include <string_view>
#include <thread>

#include "rapidgrade/detail/spaces.hpp"
#include "rapidgrade/distance.hpp"
#include "rapidgrade/parallel.hpp"
#include "rapidgrade/utf8.hpp"

namespace rapidgrade::absa {
namespace detail {

using ::rapidgrade::utf8::append_utf8;

constexpr char32_t ascii_lower(char32_t c) noexcept { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

// Code points outside ASCII whose str.lower() is themselves, by block (checked against Python
// for every code point of each range in tests/unit/test_absa.py via normalize_for_eval parity).
constexpr std::array<std::pair<char32_t, char32_t>, 21> kCaseless = {{
    {0x0080, 0x00BF},    // Latin-1 punctuation and symbols (ª µ º are already lower case)
    {0x00D7, 0x00D7},    // ×
    {0x00DF, 0x00FF},    // Latin-1 lower-case letters, ÷
    {0x1100, 0x11FF},    // Hangul Jamo
    {0x2000, 0x206F},    // general punctuation
    {0x2190, 0x23FF},    // arrows, mathematical operators, technical
    {0x2500, 0x2BFF},    // box drawing ... miscellaneous symbols and arrows
    {0x3000, 0x303F},    // CJK symbols and punctuation
    {0x3040, 0x30FF},    // hiragana, katakana
    {0x3130, 0x318F},    // Hangul compatibility Jamo
    {0x3400, 0x4DBF},    // CJK extension A
    {0x4E00, 0x9FFF},    // CJK unified ideographs
    {0xA960, 0xA97F},    // Hangul Jamo extended-A
    {0xAC00, 0xD7A3},    // Hangul syllables
    {0xD7B0, 0xDFFF},    // Hangul Jamo extended-B, surrogates
    {0xFE10, 0xFE1F},    // vertical forms
    {0xFE30, 0xFE6F},    // CJK compatibility forms, small form variants
    {0xFF00, 0xFF20},    // full-width punctuation and digits
    {0xFF3B, 0xFFEF},    // full-width lower case, half-width forms (not Ａ-Ｚ)
    {0x1F000, 0x1FAFF},  // emoji and pictographs
    {0x20000, 0x2FFFF},  // CJK extensions B-F
}};

bool caseless(char32_t c) noexcept {
  if (c >= 0xAC00 && c <= 0xD7A3) return true;  // Hangul syllables, the common case
  for (const auto& [lo, hi] : kCaseless) {
    if (c < lo) return false;  // ranges are sorted
    if (c <= hi) return true;
  }
  return false;
}

// Sorted list of the non-ASCII edge punctuation.
constexpr std::array<char32_t, 54> kEdgePunct = {
    0x00A1,                                                          // ¡
    0x00AB,                                                          // «
    0x00BB,                                                          // »
    0x00BF,                                                          // ¿
    0x037E,                                                          // ; Greek question mark
    0x0387,                                                          // · Greek ano teleia
    0x060C,                                                          // ، Arabic comma
    0x061B,                                                          // ؛ Arabic semicolon
    0x061F,                                                          // ؟ Arabic question mark
    0x2018, 0x2019, 0x201A, 0x201B, 0x201C, 0x201D, 0x201E, 0x201F,  // ‘ ’ ‚ ‛ “ ” „ ‟
    0x2026,                                                          // …
    0x2039, 0x203A,                                                  // ‹ ›
    0x203C, 0x203D,                                                  // ‼ ‽
    0x2047, 0x2048, 0x2049,                                          // ⁇ ⁈ ⁉
    0x3001, 0x3002,                                                  // 、 。
    0x301D, 0x301E, 0x301F,                                          // 〝 〞 〟
    0xFE10, 0xFE11, 0xFE12, 0xFE13, 0xFE14, 0xFE15, 0xFE16,          // vertical ︐ ︑ ︒ ︓ ︔ ︕ ︖
    0xFE50, 0xFE51, 0xFE52, 0xFE54, 0xFE55, 0xFE56, 0xFE57,          // small ﹐ ﹑ ﹒ ﹔ ﹕ ﹖ ﹗
    0xFF01, 0xFF02, 0xFF07, 0xFF0C, 0xFF0E,                          // full-width ！ ＂ ＇ ， ．
    0xFF1A, 0xFF1B, 0xFF1F,                                          // full-width ： ； ？
    0xFF61, 0xFF64,                                                  // half-width ｡ ､
};

constexpr bool sorted_strictly(const std::array<char32_t, kEdgePunct.size()>& a) {
  for (std::size_t i = 1; i < a.size(); ++i) {
    if (!(a[i - 1] < a[i])) return false;
  }
  return true;
}
static_assert(sorted_strictly(kEdgePunct), "kEdgePunct must be sorted for binary search");

}  // namespace detail

namespace detail {

inline bool space(char32_t c) noexcept {
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
  return rapidgrade::detail::is_unicode_space(c);  // detail/spaces.hpp
}

inline bool edge_punct(char32_t c) noexcept {
  if (c < 0x80) {
    return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == '"' || c == '\'';
  }
  if (c < kEdgePunct.front() || c > kEdgePunct.back()) return false;
  return std::binary_search(kEdgePunct.begin(), kEdgePunct.end(), c);
}

}  // namespace detail

bool is_space(char32_t c) noexcept { return detail::space(c); }

bool needs_unicode_lower(CodePoints s) noexcept {
  if (s.width == 1) {
    for (std::size_t i = 0; i < s.size; ++i) {
      const char32_t c = static_cast<const std::uint8_t*>(s.data)[i];
      if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return true;
    }
    return false;
  }
  for (std::size_t i = 0; i < s.size; ++i) {
    const char32_t c = s.at(i);
    if (c >= 0x80 && !detail::caseless(c)) return true;
  }
  return false;
}

namespace detail {

template <typename C>
void normalize_for_eval(const C* s, std::size_t n, std::string& out) {
  std::size_t begin = 0;
  std::size_t end = n;
  while (begin < end && (space(s[begin]) || edge_punct(s[begin]))) ++begin;
  while (end > begin && (space(s[end - 1]) || edge_punct(s[end - 1]))) --end;
  out.reserve(end - begin);
  bool in_space = false;
  for (std::size_t i = begin; i < end; ++i) {
    const char32_t c = s[i];
    if (c < 0x80) {
      if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20)) {
        in_space = true;
        continue;
      }
      if (in_space) {
        out.push_back(' ');
        in_space = false;
      }
      out.push_back(static_cast<char>(ascii_lower(c)));
      continue;
    }
    if (space(c)) {
      in_space = true;
      continue;
    }
    if (in_space) {
      out.push_back(' ');
      in_space = false;
    }
    append_utf8(out, c);
  }
}

}  // namespace detail

void normalize_for_eval(CodePoints s, std::string& out) {
  out.clear();
  switch (s.width) {
    case 1: return detail::normalize_for_eval(static_cast<const std::uint8_t*>(s.data), s.size, out);
    case 2: return detail::normalize_for_eval(static_cast<const std::uint16_t*>(s.data), s.size, out);
    default: return detail::normalize_for_eval(static_cast<const std::uint32_t*>(s.data), s.size, out);
  }
}

void normalize_ref_for_eval(CodePoints s, std::string& out) {
  out.clear();
  const auto [begin, end] = strip_bounds(s);
  out.reserve(end - begin);
  bool in_space = false;
  for (std::size_t i = begin; i < end; ++i) {
    const char32_t c = s.at(i);
    if (is_space(c)) {
      in_space = true;
      continue;
    }
    // A space run is kept as one space unless it touches a '#', on either side.
    if (in_space && c != '#' && !(!out.empty() && out.back() == '#')) out.push_back(' ');
    in_space = false;
    detail::append_utf8(out, c);
  }
}

const char* polarity_name(Polarity p) noexcept {
  switch (p) {
    case Polarity::kPositive: return "positive";
    case Polarity::kNegative: return "negative";
    case Polarity::kNeutral: return "neutral";
    case Polarity::kMixed: return "mixed";
    default: return "";
  }
}

std::pair<std::size_t, std::size_t> strip_bounds(CodePoints s) noexcept {
  std::size_t begin = 0;
  std::size_t end = s.size;
  while (begin < end && detail::space(s.at(begin))) ++begin;
  while (end > begin && detail::space(s.at(end - 1))) --end;
  return {begin, end};
}

PolarityResult canonicalize_polarity(CodePoints s, bool repair, std::string* folded) {
  PolarityResult result;
  const auto [begin, end] = strip_bounds(s);
  if (begin == end) {
    result.missing = true;
    return result;
  }
  // Whitelisted words are at most 8 ASCII letters; anything longer or non-ASCII cannot match.
  char word[9] = {};
  const std::size_t n = end - begin;
  bool ascii = n <= 8;
  for (std::size_t i = 0; ascii && i < n; ++i) {
    const char32_t c = detail::ascii_lower(s.at(begin + i));
    if (c >= 0x80)
      ascii = false;
    else
      word[i] = static_cast<char>(c);
  }
  if (ascii) {
    const std::string_view w(word, n);
    if (w == "positive" || w == "pos")
      result.label = Polarity::kPositive;
    else if (w == "negative" || w == "neg")
      result.label = Polarity::kNegative;
    else if (w == "neutral" || w == "neu")
      result.label = Polarity::kNeutral;
    else if (w == "mixed")
      result.label = Polarity::kMixed;
    if (result.label != Polarity::kInvalid) return result;
  }
  // Lower-cased code points of the stripped text, for repair and for the report.
  std::vector<std::uint32_t> text;
  text.reserve(n);
  for (std::size_t i = begin; i < end; ++i) text.push_back(detail::ascii_lower(s.at(i)));
  if (repair && n <= 10) {  // a distance of at most 2 from a word of 7 or 8 letters needs n <= 10
    static constexpr std::uint8_t kPositive[] = {'p', 'o', 's', 'i', 't', 'i', 'v', 'e'};
    static constexpr std::uint8_t kNegative[] = {'n', 'e', 'g', 'a', 't', 'i', 'v', 'e'};
    static constexpr std::uint8_t kNeutral[] = {'n', 'e', 'u', 't', 'r', 'a', 'l'};
    static constexpr std::array<std::pair<const std::uint8_t*, std::size_t>, 3> kTargets = {
        {{kPositive, sizeof kPositive}, {kNegative, sizeof kNegative}, {kNeutral, sizeof kNeutral}}};
    static constexpr std::array<Polarity, 3> kLabels = {Polarity::kPositive, Polarity::kNegative, Polarity::kNeutral};
    int hits = 0;
    Polarity hit = Polarity::kInvalid;
    for (std::size_t t = 0; t < kTargets.size(); ++t) {
      const std::size_t d = distance::levenshtein(text.data(), text.size(), kTargets[t].first, kTargets[t].second, 2);
      if (d >= 1 && d <= 2) {
        ++hits;
        hit = kLabels[t];
      }
    }
    if (hits == 1) {
      result.label = hit;
      result.repaired = true;
      return result;
    }
  }
  if (folded != nullptr) {
    folded->clear();
    for (const std::uint32_t c : text) detail::append_utf8(*folded, c);
  }
  return result;
}

GoldTermSource select_gold_term(const Field& aspect_term, const Field& opinion_term, const Field& aspect_ref,
                                const Field& term) noexcept {
  auto non_empty = [](const Field& f) {
    if (!f.present) return false;
    const auto [b, e] = strip_bounds(f.text);
    return b < e;
  };
  if (aspect_term.present) {
    // An explicit empty aspect term stays empty.
    return non_empty(aspect_term) ? GoldTermSource::kAspectTerm : GoldTermSource::kNone;
  }
  if (non_empty(opinion_term)) return GoldTermSource::kOpinionTerm;
  if (non_empty(aspect_ref)) return GoldTermSource::kAspectRef;
  if (non_empty(term)) return GoldTermSource::kTerm;
  return GoldTermSource::kNone;
}

// ---------------------------------------------------------------------------------------------
// Batch scoring

namespace detail {

struct Key {
  std::string term;
  Polarity label = Polarity::kInvalid;
  std::string invalid;  // folded polarity text when label is kInvalid

  bool operator<(const Key& o) const noexcept {
    if (label != o.label) return label < o.label;
    const int c = term.compare(o.term);
    if (c != 0) return c < 0;
    return invalid < o.invalid;
  }
  bool operator==(const Key& o) const noexcept { return label == o.label && term == o.term && invalid == o.invalid; }
};

struct Scratch {
  std::vector<std::vector<Key>> keys;  // one per group of a record
  std::string ref;
};

// Builds the sorted, de-duplicated key set of one group and counts its diagnostics.
void build_group(const BatchInput& in, const std::vector<std::string>& allowlist, std::size_t group, bool predicted,
                 std::vector<Key>& keys, GroupCounts& counts, std::string& ref_buffer) {
  keys.clear();
  const std::size_t first = in.groups[group];
  const std::size_t last = in.groups[group + 1];
  keys.resize(last - first);
  for (std::size_t i = first; i < last; ++i) {
    const TupleRow& row = in.rows[i];
    Key& key = keys[i - first];
    normalize_for_eval(row.term, key.term);
    key.invalid.clear();
    PolarityResult p;
    if (row.has_polarity)
      p = canonicalize_polarity(row.polarity, predicted && in.repair, &key.invalid);
    else
      p.missing = true;
    if (p.missing) {
      p.label = in.default_missing;
      ++counts.missing_polarity;
    } else if (p.label == Polarity::kInvalid) {
      ++counts.invalid_polarity;
    } else if (p.repaired) {
      ++counts.repaired_polarity;
    }
    key.label = p.label;
    if (predicted && in.check_refs && row.has_ref) {
      normalize_ref_for_eval(row.ref, ref_buffer);
      if (!ref_buffer.empty() && !std::binary_search(allowlist.begin(), allowlist.end(), ref_buffer)) {
        ++counts.invalid_ref;
      }
    }
  }
  counts.tuples += keys.size();
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  counts.unique += keys.size();
}

std::uint64_t count_matched(const std::vector<Key>& gold, const std::vector<Key>& pred) {
  std::uint64_t matched = 0;
  auto g = gold.begin();
  auto p = pred.begin();
  while (g != gold.end() && p != pred.end()) {
    if (*g < *p) {
      ++g;
    } else if (*p < *g) {
      ++p;
    } else {
      if (g->label != Polarity::kInvalid) ++matched;
      ++g;
      ++p;
    }
  }
  return matched;
}

void add(GroupCounts& into, const GroupCounts& c) {
  into.tuples += c.tuples;
  into.unique += c.unique;
  into.matched += c.matched;
  into.exact += c.exact;
  into.invalid_polarity += c.invalid_polarity;
  into.repaired_polarity += c.repaired_polarity;
  into.missing_polarity += c.missing_polarity;
  into.invalid_ref += c.invalid_ref;
}

}  // namespace detail

void score_batch(const BatchInput& input, unsigned threads, BatchResult& total) {
  const BatchInput& data = input;
  const std::size_t per_record = data.n_stages + 1;
  const std::size_t n_records = data.groups.empty() ? 0 : (data.groups.size() - 1) / per_record;
  const std::vector<std::string>& allowlist = data.allowlist;

  constexpr std::size_t kBlock = 512;
  const std::size_t n_blocks = (n_records + kBlock - 1) / kBlock;
  std::vector<BatchResult> partial(n_blocks);
  parallel_for(n_blocks, threads, [&](std::size_t block) {
    BatchResult& r = partial[block];
    r.stages.assign(data.n_stages, GroupCounts{});
    r.transitions.assign(data.transitions.size(), TransitionCounts{});
    detail::Scratch scratch;
    scratch.keys.resize(per_record);
    std::vector<bool> exact(data.n_stages);
    const std::size_t first = block * kBlock;
    const std::size_t last = std::min(n_records, first + kBlock);
    for (std::size_t rec = first; rec < last; ++rec) {
      ++r.records;
      const std::size_t base = rec * per_record;
      detail::build_group(data, allowlist, base, false, scratch.keys[0], r.gold, scratch.ref);
      const auto& gold = scratch.keys[0];
      for (std::size_t k = 0; k < data.n_stages; ++k) {
        GroupCounts& c = r.stages[k];
        detail::build_group(data, allowlist, base + 1 + k, true, scratch.keys[k + 1], c, scratch.ref);
        const auto& pred = scratch.keys[k + 1];
        const std::uint64_t matched = detail::count_matched(gold, pred);
        c.matched += matched;
        exact[k] = matched == gold.size() && matched == pred.size();
        if (exact[k]) ++c.exact;
      }
      for (std::size_t t = 0; t < data.transitions.size(); ++t) {
        const auto [a, b] = data.transitions[t];
        TransitionCounts& tc = r.transitions[t];
        if (scratch.keys[a + 1] != scratch.keys[b + 1]) ++tc.changed;
        if (exact[a] && !exact[b]) ++tc.broke;
        if (!exact[a] && exact[b]) ++tc.fixed;
      }
    }
  });

  total.stages.resize(data.n_stages);
  total.transitions.resize(data.transitions.size());
  for (const BatchResult& r : partial) {
    total.records += r.records;
    detail::add(total.gold, r.gold);
    for (std::size_t k = 0; k < data.n_stages; ++k) detail::add(total.stages[k], r.stages[k]);
    for (std::size_t t = 0; t < data.transitions.size(); ++t) {
      total.transitions[t].changed += r.transitions[t].changed;
      total.transitions[t].broke += r.transitions[t].broke;
      total.transitions[t].fixed += r.transitions[t].fixed;
    }
  }
}

void score_chunks(const BatchInput& settings, ChunkSource& source, unsigned threads, BatchResult& total) {
  BatchInput buffers[2] = {settings, settings};
  if (threads <= 1) {
    for (;;) {
      buffers[0].clear_records();
      if (!source.next_chunk(buffers[0])) break;
      source.blocking([&]() { score_batch(buffers[0], 1, total); });
    }
  } else {
    std::thread scorer;
    std::exception_ptr error;
    struct Joiner {  // on every way out, so that the scorer never outlives what it reads
      std::thread& thread;
      ~Joiner() {
        if (thread.joinable()) thread.join();
      }
    } joiner{scorer};
    auto wait = [&]() {
      if (scorer.joinable()) source.blocking([&]() { scorer.join(); });
      if (error) std::rethrow_exception(error);
    };
    int current = 0;
    for (;;) {
      // Read into one buffer while the other is scored; a buffer is refilled only after the
      // scoring of its previous chunk was joined.
      buffers[current].clear_records();
      const bool more = source.next_chunk(buffers[current]);
      wait();
      if (!more) break;
      const BatchInput* chunk = &buffers[current];
      scorer = std::thread([chunk, threads, &total, &error]() {
        try {
          score_batch(*chunk, threads - 1, total);
        } catch (...) {
          error = std::current_exception();
        }
      });
      current ^= 1;
    }
  }
  total.stages.resize(settings.n_stages);
  total.transitions.resize(settings.transitions.size());
}

}  // namespace rapidgrade::absa
