// The Unicode spaces: one table for every reader. Normalization (unicode::fold_math, rule 0) and
// the physics task read each as ' '; ABSA's Python-parity whitespace is this set plus ASCII's.
// tests/unit/test_vocab.py walks the set through every reader.
#pragma once

#include <cstddef>
#include <string_view>

#include "rapidgrade/utf8.hpp"

namespace rapidgrade::detail {

/// The code points beyond ASCII with Unicode's White_Space property (also Python's
/// str.isspace() beyond ASCII): NEL U+0085, no-break space U+00A0, Ogham space U+1680, the
/// U+2000 block (en/em quads and spaces, thin and hair spaces), line and paragraph separators
/// U+2028/U+2029, narrow no-break space U+202F, medium mathematical space U+205F and the
/// ideographic space U+3000. Zero-width characters (U+200B, U+FEFF) are not spaces.
inline constexpr char32_t kUnicodeSpaces[] = {0x0085, 0x00A0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
                                              0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
                                              0x2028, 0x2029, 0x202F, 0x205F, 0x3000};

/// Whether `c` is one of kUnicodeSpaces. O(1).
constexpr bool is_unicode_space(char32_t c) noexcept {
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

namespace spaces_check {
// The table and the predicate name the same code points.
constexpr bool table_matches_predicate() noexcept {
  std::size_t in_table = 0;
  for (const char32_t c : kUnicodeSpaces) {
    if (!is_unicode_space(c)) return false;
    ++in_table;
  }
  std::size_t found = 0;
  for (char32_t c = 0x80; c <= 0x3000; ++c) found += is_unicode_space(c) ? 1 : 0;
  return found == in_table;
}
static_assert(table_matches_predicate(), "kUnicodeSpaces and is_unicode_space disagree");
}  // namespace spaces_check

/// The length in bytes of the Unicode space whose UTF-8 starts at s[i], or 0 (also for ASCII
/// and for i >= s.size()). O(1).
inline std::size_t unicode_space_length(std::string_view s, std::size_t i) noexcept {
  if (i >= s.size() || static_cast<unsigned char>(s[i]) < 0x80) return 0;
  std::size_t next = i;
  const char32_t c = utf8::decode(s, next);
  return is_unicode_space(c) ? next - i : 0;
}

}  // namespace rapidgrade::detail
