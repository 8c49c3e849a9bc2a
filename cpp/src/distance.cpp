#include "rapidgrade/distance.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <vector>

namespace rapidgrade::distance {
namespace {

using Word = std::uint64_t;
constexpr std::size_t kWordBits = 64;

// Match vectors of a pattern of at most 64 code points: bit i of get(c) is set when
// pattern[i] == c. Code points below 256 use a table; others a small open-addressing map
// (at most 64 distinct keys in 128 slots, so probing always terminates).
class SingleWordPM {
 public:
  template <typename C>
  SingleWordPM(const C* p, std::size_t m) {
    ascii_.fill(0);
    for (std::size_t i = 0; i < m; ++i) insert(static_cast<std::uint32_t>(p[i]), Word{1} << i);
  }
  Word get(std::uint32_t c) const noexcept {
    if (c < 256) return ascii_[c];
    if (!has_extended_) return 0;
    std::size_t slot = hash(c);
    while (used_[slot]) {
      if (keys_[slot] == c) return values_[slot];
      slot = (slot + 1) & (kSlots - 1);
    }
    return 0;
  }

 private:
  static constexpr std::size_t kSlots = 128;
  static std::size_t hash(std::uint32_t c) noexcept { return (c * 2654435761u >> 7) & (kSlots - 1); }
  void insert(std::uint32_t c, Word bit) noexcept {
    if (c < 256) {
      ascii_[c] |= bit;
      return;
    }
    if (!has_extended_) {
      used_.fill(false);
      has_extended_ = true;
    }
    std::size_t slot = hash(c);
    while (used_[slot] && keys_[slot] != c) slot = (slot + 1) & (kSlots - 1);
    if (!used_[slot]) {
      used_[slot] = true;
      keys_[slot] = c;
      values_[slot] = 0;
    }
    values_[slot] |= bit;
  }
  std::array<Word, 256> ascii_;
  bool has_extended_ = false;
  // Only initialized (used_) or written before being read (keys_, values_) once a code point
  // of 256 or above occurs, so ASCII patterns pay for the table alone.
  std::array<bool, kSlots> used_;
  std::array<std::uint32_t, kSlots> keys_;
  std::array<Word, kSlots> values_;
};

// Match vectors of a longer pattern: `words` words per code point.
class BlockPM {
 public:
  template <typename C>
  BlockPM(const C* p, std::size_t m) : words_((m + kWordBits - 1) / kWordBits), ascii_(256 * words_, 0) {
    for (std::size_t i = 0; i < m; ++i) {
      const auto c = static_cast<std::uint32_t>(p[i]);
      Word* row = nullptr;
      if (c < 256) {
        row = &ascii_[c * words_];
      } else {
        auto it = extended_.find(c);
        if (it == extended_.end()) it = extended_.emplace(c, std::vector<Word>(words_, 0)).first;
        row = it->second.data();
      }
      row[i / kWordBits] |= Word{1} << (i % kWordBits);
    }
  }
  std::size_t words() const noexcept { return words_; }
  // Pointer to `words()` match words for c, or nullptr when c does not occur in the pattern.
  const Word* get(std::uint32_t c) const noexcept {
    if (c < 256) return &ascii_[c * words_];
    auto it = extended_.find(c);
    return it == extended_.end() ? nullptr : it->second.data();
  }

 private:
  std::size_t words_;
  std::vector<Word> ascii_;
  std::unordered_map<std::uint32_t, std::vector<Word>> extended_;
};

// Vertical delta vectors of one 64-row block: bit i of pv (mv) is set when the score rises
// (falls) by one from row i-1 to row i of the current column.
struct Block {
  Word pv = ~Word{0};
  Word mv = 0;
};

// One column step of Myers' algorithm on one block (Myers 1999, "advance block"), branch-free:
// hp/hn carry the horizontal delta (+1 / -1 as a bit) into the block's bottom row and return
// the delta leaving its row `out_bit`.
inline void advance_block(Block& b, Word eq, Word& hp, Word& hn, unsigned out_bit) noexcept {
  const Word xv = eq | b.mv;
  eq |= hn;
  const Word xh = (((eq & b.pv) + b.pv) ^ b.pv) | eq;
  Word ph = b.mv | ~(xh | b.pv);
  Word mh = b.pv & xh;
  const Word hp_out = (ph >> out_bit) & 1;
  const Word hn_out = (mh >> out_bit) & 1;
  ph = (ph << 1) | hp;
  mh = (mh << 1) | hn;
  b.pv = mh | ~(xv | ph);
  b.mv = ph & xv;
  hp = hp_out;
  hn = hn_out;
}

// Distance between pattern p (m >= 1 code points) and text t (n code points). With a limit,
// stops as soon as the score minus the remaining columns exceeds it (each column lowers the
// score by at most one).
// Columns between two looks at the cancel flag (of a pattern longer than one word: a few
// microseconds of work per look at the shortest).
constexpr std::size_t kCancelColumns = 4096;

template <bool kLimited, typename C1, typename C2>
std::size_t myers(const C1* p, std::size_t m, const C2* t, std::size_t n, std::size_t max,
                  const std::atomic<bool>* cancel) {
  std::size_t score = m;
  if (m <= kWordBits) {
    const SingleWordPM pm(p, m);
    Block b;
    const auto out_bit = static_cast<unsigned>(m - 1);
    for (std::size_t j = 0; j < n; ++j) {
      Word hp = 1;
      Word hn = 0;
      advance_block(b, pm.get(static_cast<std::uint32_t>(t[j])), hp, hn, out_bit);
      score = score + hp - hn;
      if (kLimited) {
        const std::size_t remaining = n - j - 1;
        if (score > remaining && score - remaining > max) return max + 1;
      }
    }
    return score;
  }
  const BlockPM pm(p, m);
  const std::size_t words = pm.words();
  std::vector<Block> blocks(words);
  const auto last_bit = static_cast<unsigned>((m - 1) % kWordBits);
  for (std::size_t j = 0; j < n; ++j) {
    if (cancel != nullptr && j % kCancelColumns == 0 && cancel->load(std::memory_order_relaxed)) return score;
    const Word* eq = pm.get(static_cast<std::uint32_t>(t[j]));
    Word hp = 1;
    Word hn = 0;
    if (eq != nullptr) {
      for (std::size_t w = 0; w + 1 < words; ++w) advance_block(blocks[w], eq[w], hp, hn, kWordBits - 1);
      advance_block(blocks[words - 1], eq[words - 1], hp, hn, last_bit);
    } else {
      for (std::size_t w = 0; w + 1 < words; ++w) advance_block(blocks[w], 0, hp, hn, kWordBits - 1);
      advance_block(blocks[words - 1], 0, hp, hn, last_bit);
    }
    score = score + hp - hn;
    if (kLimited) {
      const std::size_t remaining = n - j - 1;
      if (score > remaining && score - remaining > max) return max + 1;
    }
  }
  return score;
}

}  // namespace

template <typename C1, typename C2>
std::size_t levenshtein(const C1* a, std::size_t na, const C2* b, std::size_t nb, std::size_t max_distance,
                        const std::atomic<bool>* cancel) {
  // Common prefix and suffix never change the distance.
  while (na > 0 && nb > 0 && static_cast<std::uint32_t>(*a) == static_cast<std::uint32_t>(*b)) {
    ++a, ++b, --na, --nb;
  }
  while (na > 0 && nb > 0 && static_cast<std::uint32_t>(a[na - 1]) == static_cast<std::uint32_t>(b[nb - 1])) {
    --na, --nb;
  }
  const std::size_t lower = na > nb ? na - nb : nb - na;
  const std::size_t limit = max_distance;
  if (lower > limit) return limit + 1;
  if (na == 0 || nb == 0) return lower;
  std::size_t d = 0;
  if (limit == kNoLimit) {
    d = na <= nb ? myers<false>(a, na, b, nb, limit, cancel) : myers<false>(b, nb, a, na, limit, cancel);
  } else {
    d = na <= nb ? myers<true>(a, na, b, nb, limit, cancel) : myers<true>(b, nb, a, na, limit, cancel);
  }
  return d > limit ? limit + 1 : d;
}

#define RAPIDGRADE_INSTANTIATE(C1, C2)                                                                  \
  template std::size_t levenshtein<C1, C2>(const C1*, std::size_t, const C2*, std::size_t, std::size_t, \
                                           const std::atomic<bool>*);
RAPIDGRADE_INSTANTIATE(std::uint8_t, std::uint8_t)
RAPIDGRADE_INSTANTIATE(std::uint8_t, std::uint16_t)
RAPIDGRADE_INSTANTIATE(std::uint8_t, std::uint32_t)
RAPIDGRADE_INSTANTIATE(std::uint16_t, std::uint8_t)
RAPIDGRADE_INSTANTIATE(std::uint16_t, std::uint16_t)
RAPIDGRADE_INSTANTIATE(std::uint16_t, std::uint32_t)
RAPIDGRADE_INSTANTIATE(std::uint32_t, std::uint8_t)
RAPIDGRADE_INSTANTIATE(std::uint32_t, std::uint16_t)
RAPIDGRADE_INSTANTIATE(std::uint32_t, std::uint32_t)
#undef RAPIDGRADE_INSTANTIATE

}  // namespace rapidgrade::distance
