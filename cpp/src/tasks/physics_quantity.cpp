// The physics task's number-and-unit grammar (physics.hpp: read_quantity, parse_unit; what the
// normalize_answer flow of physics.cpp reads with is declared in physics_internal.hpp): numbers
// with a sign, comma groups, an exponent, "\times 10^{k}", a power or a fraction ("-1,234.50",
// "1.6 \times 10^{-19}", "\frac{3}{4}", "500/11"), and units as products and quotients of
// prefixed symbols of the unit table detail/units.hpp, with powers and parentheses ("kJ\,mol^{-1}",
// "m/s^2", "\mu C"). UTF-8 input; linear scanners (O(n)), never throw.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "physics_internal.hpp"
#include "rapidgrade/detail/latex_vocab.hpp"
#include "rapidgrade/detail/number.hpp"
#include "rapidgrade/detail/spaces.hpp"
#include "rapidgrade/detail/text.hpp"
#include "rapidgrade/detail/units.hpp"
#include "rapidgrade/tasks/physics.hpp"

namespace rapidgrade::physics {

using detail::is_digit;
using detail::is_letter;
using detail::is_space;
using detail::kNpos;
using detail::starts_with;
using namespace internal;

namespace {

/// Largest power or exponent a number may carry ("10^{400}" is not read as a number).
constexpr int kMaxExponent = 400;
/// Largest unit power ("m^{13}" is not a unit).
constexpr int kMaxUnitPower = 12;
/// Deepest nesting of parentheses in a unit.
constexpr std::size_t kMaxUnitDepth = 8;

}  // namespace

namespace internal {

std::string unicode_spaces_to_ascii(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t k = detail::unicode_space_length(s, i);
    if (k != 0) {
      out += ' ';
      i += k;
    } else {
      out += s[i++];
    }
  }
  return out;
}

std::string collapse_spaces(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool pending = false;
  for (char c : s) {
    if (is_space(c)) {
      pending = !out.empty();
    } else {
      if (pending) out += ' ';
      pending = false;
      out += c;
    }
  }
  return out;
}

}  // namespace internal

namespace {

// ---- numbers ---------------------------------------------------------------------------------

double to_double(const std::string& digits) {
  double v = 0.0;
  const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (r.ec != std::errc()) return std::nan("");
  return v;
}

// A sign at s[i]: '+', '-' or U+2212. Returns its length (0: none); neg set for a minus.
std::size_t sign_length(std::string_view s, std::size_t i, bool& neg) {
  neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    return 1;
  }
  if (starts_with(s, i, "\xE2\x88\x92")) {
    neg = true;
    return 3;
  }
  return 0;
}

struct Mantissa {
  bool ok = false;
  std::size_t end = 0;
  double value = 0.0;  // signed
  int sig_figs = 0;
};

// Digits a mantissa may have (more: not a number we read).
constexpr std::size_t kMaxMantissaDigits = 400;

// [sign] digits [with comma groups] [. digits] | [sign] . digits, at s[i]. e.g. "-1,234.50".
// The digits are gathered in a buffer on the stack (no allocation) and read by from_chars.
Mantissa read_mantissa(std::string_view s, std::size_t i, bool allow_groups) {
  Mantissa m;
  bool neg = false;
  std::size_t k = i + sign_length(s, i, neg);
  const std::size_t int_start = k;
  std::size_t int_end = detail::digits_end(s, k);
  if (allow_groups) int_end = detail::thousands_end(s, int_start, int_end, detail::GroupSeparators::kComma);
  k = int_end;
  std::size_t f_start = k, f_end = k;
  if (k + 1 < s.size() && s[k] == '.' && is_digit(s[k + 1])) {
    f_start = k + 1;
    f_end = detail::digits_end(s, k + 1);
    k = f_end;
  }
  const std::size_t n_frac = f_end - f_start;
  // "{integer digits, group separators dropped}.{fraction}", the integer part "0" when empty
  char buf[kMaxMantissaDigits + 4];
  std::size_t n_int = 0;
  for (std::size_t q = int_start; q < int_end; ++q) {
    if (!is_digit(s[q])) continue;
    if (n_int + n_frac >= kMaxMantissaDigits) return m;  // bounded: not a number we read
    buf[n_int++] = s[q];
  }
  if (n_int == 0 && n_frac == 0) return m;
  if (n_int + n_frac > kMaxMantissaDigits) return m;
  // significant figures: leading zeros never count; trailing zeros of an integer do not either
  const std::string_view int_digits(buf, n_int);
  const std::string_view frac = s.substr(f_start, n_frac);
  const std::size_t int_first = int_digits.find_first_not_of('0');
  const std::size_t frac_first = frac.find_first_not_of('0');
  if (int_first == std::string_view::npos && frac_first == std::string_view::npos) {
    m.sig_figs = n_frac == 0 ? 1 : static_cast<int>(n_frac);
  } else if (n_frac != 0) {
    const std::size_t first = int_first != std::string_view::npos ? int_first : n_int + frac_first;
    m.sig_figs = static_cast<int>(n_int + n_frac - first);
  } else {
    m.sig_figs = static_cast<int>(int_digits.find_last_not_of('0') - int_first + 1);
  }
  std::size_t len = n_int;
  if (len == 0) buf[len++] = '0';
  if (n_frac != 0) {
    buf[len++] = '.';
    for (std::size_t q = 0; q < n_frac; ++q) buf[len++] = frac[q];
  }
  double v = 0.0;
  const auto r = std::from_chars(buf, buf + len, v);
  if (r.ec != std::errc()) return m;
  m.ok = true;
  m.end = k;
  m.value = neg ? -v : v;
  return m;
}

// An integer exponent at s[i]: "4", "-4", "{4}", "{ -4 }". Returns the end, or kNpos.
std::size_t read_exponent(std::string_view s, std::size_t i, int limit, int& out) {
  std::size_t k = i;
  const bool braced = k < s.size() && s[k] == '{';
  if (braced) {
    ++k;
    while (k < s.size() && is_space(s[k])) ++k;
  }
  bool neg = false;
  k += sign_length(s, k, neg);
  if (braced) {
    while (k < s.size() && is_space(s[k])) ++k;
  }
  const std::size_t d_end = detail::digits_end(s, k);
  if (d_end == k || d_end - k > 4) return kNpos;
  int v = 0;
  for (std::size_t q = k; q < d_end; ++q) v = v * 10 + (s[q] - '0');
  if (v > limit) return kNpos;
  k = d_end;
  if (braced) {
    while (k < s.size() && is_space(s[k])) ++k;
    if (k >= s.size() || s[k] != '}') return kNpos;
    ++k;
  }
  out = neg ? -v : v;
  return k;
}

std::size_t superscript_at(std::string_view s, std::size_t i, int& digit);

// A Unicode superscript integer at s[i] ("⁻¹⁹", "²"), at most `limit` in magnitude: its end,
// i when there is none, kNpos when malformed.
std::size_t read_superscript_integer(std::string_view s, std::size_t i, int limit, int& out) {
  int digit = 0;
  std::size_t k = i;
  bool neg = false;
  int value = 0;
  bool any = false;
  while (k < s.size()) {
    const std::size_t len = superscript_at(s, k, digit);
    if (len == 0) break;
    if (digit < 0) {
      if (any || neg) return kNpos;
      neg = true;
    } else {
      value = value * 10 + digit;
      any = true;
      if (value > limit) return kNpos;
    }
    k += len;
  }
  if (k == i) return i;
  if (!any) return kNpos;
  out = neg ? -value : value;
  return k;
}

// "\times 10^{k}" and its spellings after a mantissa at s[i]; returns the end and the exponent.
std::size_t read_times_ten(std::string_view s, std::size_t i, int& exponent) {
  std::size_t k = i;
  while (k < s.size() && is_space(s[k])) ++k;
  std::size_t op = 0;
  for (std::string_view p : {"\\times", "\\cdot", "\xC3\x97" /* × */, "\xC2\xB7" /* · */, "*", "x"}) {
    if (starts_with(s, k, p)) {
      op = p.size();
      break;
    }
  }
  if (op == 0) return kNpos;
  k += op;
  while (k < s.size() && is_space(s[k])) ++k;
  if (!starts_with(s, k, "10")) return kNpos;
  k += 2;
  if (const std::size_t sup = read_superscript_integer(s, k, kMaxExponent, exponent); sup != k && sup != kNpos) {
    return sup;  // "× 10⁸"
  }
  while (k < s.size() && is_space(s[k])) ++k;
  if (starts_with(s, k, "^")) {
    ++k;
  } else if (starts_with(s, k, "**")) {
    k += 2;
  } else {
    return kNpos;
  }
  return read_exponent(s, k, kMaxExponent, exponent);
}

// "/q" after an integer mantissa s[i, m_end) (no decimal point, no group separator): the end of
// q (1 to 6 digits, not followed by a digit, '.' or ','), or kNpos.
std::size_t integer_fraction_end(std::string_view s, std::size_t i, std::size_t m_end) {
  if (m_end >= s.size() || s[m_end] != '/') return kNpos;
  for (std::size_t q = i; q < m_end; ++q)
    if (s[q] == '.' || s[q] == ',') return kNpos;
  const std::size_t d_end = detail::digits_end(s, m_end + 1);
  if (d_end == m_end + 1 || d_end - (m_end + 1) > 6) return kNpos;
  if (d_end < s.size() && (s[d_end] == '.' || s[d_end] == ',')) return kNpos;
  return d_end;
}

// A power of ten after a blank at s[i]: " 10^{-19}", " 10^5", " 10**5", " 10⁻⁵" (the "10" not
// part of a longer number). Returns its end and the exponent, or kNpos.
std::size_t apart_power_of_ten(std::string_view s, std::size_t i, int& exponent) {
  std::size_t k = i;
  while (k < s.size() && is_space(s[k])) ++k;
  if (k == i || !starts_with(s, k, "10")) return kNpos;
  k += 2;
  if (const std::size_t sup = read_superscript_integer(s, k, kMaxExponent, exponent); sup != k && sup != kNpos) {
    return sup;
  }
  if (starts_with(s, k, "^")) {
    ++k;
  } else if (starts_with(s, k, "**")) {
    k += 2;
  } else {
    return kNpos;
  }
  return read_exponent(s, k, kMaxExponent, exponent);
}

// value * 10^exponent as the decimal "{value}e{exponent}" reads: the shortest digits of `value`
// (the mantissa as written, up to 17 digits) with the exponent, read by from_chars, so that
// "1.6e-19" and "1.6 \times 10^{-19}" are the double nearest 1.6e-19.
double scale10(double value, int exponent) {
  char buf[64];
  auto r = std::to_chars(buf, buf + 40, value);
  if (r.ec != std::errc()) return value * std::pow(10.0, exponent);
  char* p = r.ptr;
  *p++ = 'e';
  r = std::to_chars(p, buf + sizeof buf, exponent);
  if (r.ec != std::errc()) return value * std::pow(10.0, exponent);
  double out = 0.0;
  const auto read = std::from_chars(buf, r.ptr, out);
  // out of range, or the digits were written with an exponent of their own ("1e+20"): plain
  if (read.ec != std::errc() || read.ptr != r.ptr) return value * std::pow(10.0, exponent);
  return out;
}

}  // namespace

namespace internal {

NumberRead read_number(std::string_view s, std::size_t i) {
  NumberRead r;
  // \frac{a}{b} with decimal a, b
  for (const std::string_view name : detail::kFractionCommands) {  // latex_vocab.hpp
    bool neg = false;
    const std::size_t sl = sign_length(s, i, neg);
    const std::size_t at = i + sl;
    if (at >= s.size() || s[at] != '\\' || !starts_with(s, at + 1, name) ||
        (at + 1 + name.size() < s.size() && is_letter(s[at + 1 + name.size()])))
      continue;
    std::size_t k = at + 1 + name.size();
    if (k >= s.size() || s[k] != '{') return r;
    const Mantissa a = read_mantissa(s, k + 1, false);
    if (!a.ok || a.end >= s.size() || s[a.end] != '}' || a.end + 1 >= s.size() || s[a.end + 1] != '{') return r;
    const Mantissa b = read_mantissa(s, a.end + 2, false);
    if (!b.ok || b.end >= s.size() || s[b.end] != '}' || b.value == 0.0) return r;
    r.ok = true;
    r.end = b.end + 1;
    r.value = (neg ? -1.0 : 1.0) * a.value / b.value;
    r.sig_figs = 0;
    return r;
  }
  const Mantissa m = read_mantissa(s, i, true);
  if (!m.ok) return r;
  std::size_t k = m.end;
  double value = m.value;
  int exponent = 0;
  // 1.5e3, 1.5E-3
  if (k < s.size() && (s[k] == 'e' || s[k] == 'E')) {
    bool neg = false;
    const std::size_t sl = sign_length(s, k + 1, neg);
    const std::size_t d_end = detail::digits_end(s, k + 1 + sl);
    if (d_end > k + 1 + sl && d_end - (k + 1 + sl) <= 3) {
      const std::size_t e_end = read_exponent(s, k + 1, kMaxExponent, exponent);
      if (e_end != kNpos) {
        value = scale10(m.value, exponent);
        k = e_end;
      }
    }
  } else if (const std::size_t t_end = read_times_ten(s, k, exponent); t_end != kNpos) {
    value = scale10(m.value, exponent);
    k = t_end;
  } else if (k < s.size() && (s[k] == '^' || starts_with(s, k, "**"))) {
    // a power of the number: -10^{4} is -(10^4), the sign outside the power
    // ("25^{\circ}C": not a power; the number ends before the '^')
    int power = 0;
    const std::size_t p_end = read_exponent(s, k + (s[k] == '^' ? 1 : 2), kMaxExponent, power);
    if (p_end != kNpos) {
      value = std::copysign(std::pow(std::fabs(m.value), power), m.value);
      k = p_end;
    }
  } else if (const std::size_t f_end = integer_fraction_end(s, i, m.end); f_end != kNpos) {
    // "500/11 m": a fraction of integers, as step 1 reads a bare "500/11"
    int q = 0;
    for (std::size_t d = m.end + 1; d < f_end; ++d) q = q * 10 + (s[d] - '0');
    if (q != 0) {
      r.ok = true;
      r.end = f_end;
      r.value = m.value / q;
      r.sig_figs = 0;
      return r;
    }
  }
  // a power of ten written apart from the number, as SciBench writes its unit fields:
  // "1.6 10^{-19} C" (gold "1.6", unit "$10^{-19} \mathrm{C}$"), "2 \mathrm{10^{5}\,Pa}"
  if (k == m.end) {
    int ten = 0;
    if (const std::size_t t_end = apart_power_of_ten(s, k, ten); t_end != kNpos) {
      value = scale10(m.value, ten);
      k = t_end;
    }
  }
  if (!std::isfinite(value)) return r;
  r.ok = true;
  r.end = k;
  r.value = value;
  r.sig_figs = m.sig_figs;
  return r;
}

std::optional<double> plain_number(std::string_view t) {
  t = detail::trim(t);
  if (t.empty()) return std::nullopt;
  if (starts_with(t, 0, "\\frac{")) {
    const Mantissa a = read_mantissa(t, 6, false);
    if (!a.ok || !starts_with(t, a.end, "}{")) return std::nullopt;
    const Mantissa b = read_mantissa(t, a.end + 2, false);
    if (!b.ok || b.end + 1 != t.size() || t[b.end] != '}' || b.value == 0.0) return std::nullopt;
    return a.value / b.value;
  }
  // only signs, digits, '.' and '/' can make a plain number: anything else is not one
  for (const char c : t) {
    if (!is_digit(c) && c != '-' && c != '+' && c != '.' && c != '/' && c != '\xE2' && c != '\x88' && c != '\x92')
      return std::nullopt;
  }
  const Mantissa a = read_mantissa(t, 0, false);
  if (!a.ok) return std::nullopt;
  if (a.end == t.size()) return a.value;
  if (t[a.end] != '/') return std::nullopt;
  // p/q: integers on both sides ("500/11", "1/3")
  bool neg = false;
  const std::size_t q_start = a.end + 1 + sign_length(t, a.end + 1, neg);
  const std::size_t q_end = detail::digits_end(t, q_start);
  if (q_end != t.size() || q_end == q_start) return std::nullopt;
  if (t.substr(0, a.end).find('.') != std::string_view::npos) return std::nullopt;
  const double q = to_double(std::string(t.substr(q_start, q_end - q_start)));
  if (q == 0.0 || std::isnan(q)) return std::nullopt;
  return a.value / (neg ? -q : q);
}

}  // namespace internal

namespace {

// ---- units -----------------------------------------------------------------------------------

// Look-ups in the unit table (detail/units.hpp) through an index built once (immutable after
// its thread-safe initialization): a hash of the spellings, the first row of each spelling as
// detail::find_unit_symbol / find_unit_prefix return it; and the rows whose spelling does not
// start with an ASCII letter, with the set of their first bytes.
struct UnitIndex {
  std::unordered_map<std::string_view, const detail::UnitSymbol*> symbols;
  std::unordered_map<std::string_view, const detail::UnitPrefix*> prefixes;
  std::vector<const detail::UnitSymbol*> non_letter;
  bool non_letter_first[256] = {};

  UnitIndex() {
    for (const detail::UnitSymbol& u : detail::kUnitSymbols) {
      symbols.emplace(u.symbol, &u);
      if (!is_letter(u.symbol[0])) {
        non_letter.push_back(&u);
        non_letter_first[static_cast<unsigned char>(u.symbol[0])] = true;
      }
    }
    for (const detail::UnitPrefix& p : detail::kUnitPrefixes) prefixes.emplace(p.symbol, &p);
  }
};

const UnitIndex& unit_index() {
  static const UnitIndex index;
  return index;
}

const detail::UnitSymbol* unit_symbol(std::string_view symbol) {
  const auto& m = unit_index().symbols;
  const auto it = m.find(symbol);
  return it == m.end() ? nullptr : it->second;
}

const detail::UnitPrefix* unit_prefix(std::string_view symbol) {
  const auto& m = unit_index().prefixes;
  const auto it = m.find(symbol);
  return it == m.end() ? nullptr : it->second;
}

struct Factor {
  const detail::UnitPrefix* prefix;
  const detail::UnitSymbol* symbol;
  int power;
};

// A unit row whose spelling does not start with an ASCII letter ("\Omega", "Ω", "%", "\AA",
// "Å") at s[i]: the longest such spelling, or nullptr.
const detail::UnitSymbol* symbol_at(std::string_view s, std::size_t i) {
  const UnitIndex& index = unit_index();
  if (i >= s.size() || !index.non_letter_first[static_cast<unsigned char>(s[i])]) return nullptr;
  const detail::UnitSymbol* best = nullptr;
  for (const detail::UnitSymbol* u : index.non_letter) {
    if (!starts_with(s, i, u->symbol)) continue;
    // "\AA" must not continue as a longer command ("\AAx"); "\%" ends with no letter
    if (u->symbol[0] == '\\' && is_letter(u->symbol.back()) && i + u->symbol.size() < s.size() &&
        is_letter(s[i + u->symbol.size()]))
      continue;
    if (best == nullptr || u->symbol.size() > best->symbol.size()) best = u;
  }
  return best;
}

const detail::UnitPrefix* micro_at(std::string_view s, std::size_t i, std::size_t& len) {
  if (i >= s.size() || (s[i] != '\\' && s[i] != '\xC2' && s[i] != '\xCE')) return nullptr;
  for (std::string_view p : {"\\mu", "\xC2\xB5", "\xCE\xBC"}) {
    if (starts_with(s, i, p) && !(p[0] == '\\' && i + 3 < s.size() && is_letter(s[i + 3]))) {
      len = p.size();
      return unit_prefix(p);
    }
  }
  return nullptr;
}

// A degree sign: "^{\circ}", "^\circ", "\circ", "°", "\degree", and each of the first two after an
// empty group ("{ }^{\circ}", LaTeX's way to raise a sign on nothing). Returns its length (0: none).
std::size_t degree_length(std::string_view s, std::size_t i) {
  if (starts_with(s, i, "{\\circ}")) return 7;
  if (i < s.size() && s[i] == '{') {  // "{}" or "{ }": blanks only, then the raised sign
    std::size_t j = i + 1;
    while (j < s.size() && detail::is_blank(s[j])) ++j;
    if (j >= s.size() || s[j] != '}' || j + 1 >= s.size() || s[j + 1] != '^') return 0;
    const std::size_t d = degree_length(s, j + 1);  // starts at '^': no second empty group
    return d == 0 ? 0 : j + 1 - i + d;
  }
  if (i >= s.size() || (s[i] != '^' && s[i] != '\\' && s[i] != '\xC2')) return 0;
  for (std::string_view p : {"^{\\circ}", "^\\circ", "\\circ", "\xC2\xB0", "\\degree"}) {
    if (starts_with(s, i, p)) {
      if (p.back() != '}' && p[0] != '\xC2' && i + p.size() < s.size() && is_letter(s[i + p.size()]) &&
          (p == "\\circ" || p == "^\\circ" || p == "\\degree"))
        continue;  // "\circle"
      return p.size();
    }
  }
  return 0;
}

// Unicode superscript digit or minus at s[i]: its length, and the digit (-1 for minus).
std::size_t superscript_at(std::string_view s, std::size_t i, int& digit) {
  if (starts_with(s, i, "\xE2\x81\xBB")) {
    digit = -1;
    return 3;
  }
  if (starts_with(s, i, "\xC2\xB9")) return digit = 1, 2;
  if (starts_with(s, i, "\xC2\xB2")) return digit = 2, 2;
  if (starts_with(s, i, "\xC2\xB3")) return digit = 3, 2;
  if (starts_with(s, i, "\xE2\x81\xB0")) return digit = 0, 3;
  if (i + 2 < s.size() && s[i] == '\xE2' && s[i + 1] == '\x81' && static_cast<unsigned char>(s[i + 2]) >= 0xB4 &&
      static_cast<unsigned char>(s[i + 2]) <= 0xB9) {
    digit = 4 + (static_cast<unsigned char>(s[i + 2]) - 0xB4);
    return 3;
  }
  return 0;
}

// A power after a unit atom at s[i]: "^2", "^{-1}", "**2", "²", "⁻¹". Returns the end (i when
// there is none, kNpos when malformed).
std::size_t read_unit_power(std::string_view s, std::size_t i, int& power) {
  power = 1;
  if (i < s.size() && s[i] == '^' && degree_length(s, i) != 0) return i;  // "J^{\circ}C^{-1}": the next atom
  if (i < s.size() && s[i] == '^') return read_exponent(s, i + 1, kMaxUnitPower, power);
  if (starts_with(s, i, "**")) return read_exponent(s, i + 2, kMaxUnitPower, power);
  return read_superscript_integer(s, i, kMaxUnitPower, power);
}

// The temperature scale named after a degree sign or word at s[i] (blanks skipped): "C",
// "Celsius", "F", "Fahrenheit", "K", "Kelvin" as a whole word. Returns its end and the row
// ("degC", "degF", "K"), or nullptr.
const detail::UnitSymbol* temperature_scale(std::string_view s, std::size_t i, std::size_t& end) {
  std::size_t k = i;
  while (k < s.size() && is_space(s[k])) ++k;
  const std::size_t e = detail::letters_end(s, k);
  const std::string_view word = s.substr(k, e - k);
  const char* row = nullptr;
  if (word == "C" || word == "Celsius" || word == "celsius") row = "degC";
  if (word == "F" || word == "Fahrenheit" || word == "fahrenheit") row = "degF";
  if (word == "K" || word == "Kelvin" || word == "kelvin") row = "K";
  if (row == nullptr) return nullptr;
  end = e;
  return unit_symbol(row);
}

struct UnitParser {
  std::string_view s;
  std::vector<Factor> factors;
  bool allow_whole_only = false;  // rows read only when the whole text is one unit ("in")

  const detail::UnitSymbol* usable(const detail::UnitSymbol* sym) const {
    return sym != nullptr && (!sym->whole_only || allow_whole_only) ? sym : nullptr;
  }

  // One atom (prefix + symbol) at i, or false.
  bool atom(std::size_t i, std::size_t& end, Factor& f) {
    f = Factor{nullptr, nullptr, 1};
    if (const std::size_t d = degree_length(s, i); d != 0) {
      // "^{\circ}C", "° F", "\circ": a temperature scale, or a degree of angle
      f.symbol = temperature_scale(s, i + d, end);
      if (f.symbol == nullptr) {
        f.symbol = unit_symbol("deg");
        end = i + d;
      }
      return f.symbol != nullptr;
    }
    std::size_t k = i;
    std::size_t micro_len = 0;
    if (const detail::UnitPrefix* micro = micro_at(s, k, micro_len); micro != nullptr) {
      k += micro_len;
      while (k < s.size() && is_space(s[k])) ++k;
      const detail::UnitSymbol* sym = nullptr;
      std::size_t e = k;
      if (k < s.size() && is_letter(s[k])) {
        e = detail::letters_end(s, k);
        sym = usable(unit_symbol(s.substr(k, e - k)));
      } else {
        sym = symbol_at(s, k);
        if (sym != nullptr) e = k + sym->symbol.size();
      }
      if (sym == nullptr || !sym->prefixable) return false;
      f.prefix = micro;
      f.symbol = sym;
      end = e;
      return true;
    }
    if (k < s.size() && is_letter(s[k])) {
      const std::size_t e = detail::letters_end(s, k);
      const std::string_view word = s.substr(k, e - k);
      // k\Omega, MΩ: a prefix glued to a non-letter symbol
      if (const detail::UnitSymbol* after = symbol_at(s, e); after != nullptr && after->prefixable) {
        if (const detail::UnitPrefix* p = unit_prefix(word); p != nullptr) {
          f.prefix = p;
          f.symbol = after;
          end = e + after->symbol.size();
          return true;
        }
      }
      // a hyphenated spelling of the table ("ft-lb")
      if (e + 1 < s.size() && s[e] == '-' && is_letter(s[e + 1])) {
        const std::size_t e2 = detail::letters_end(s, e + 1);
        if (const detail::UnitSymbol* sym = usable(unit_symbol(s.substr(k, e2 - k))); sym != nullptr) {
          f.symbol = sym;
          end = e2;
          return true;
        }
      }
      if (const detail::UnitSymbol* sym = usable(unit_symbol(word)); sym != nullptr) {
        f.symbol = sym;
        end = e;
        // "degrees Celsius", "deg F": the word names a degree, the next word its scale
        if (sym->pint == "degree") {
          std::size_t t_end = e;
          if (const detail::UnitSymbol* t = temperature_scale(s, e, t_end); t != nullptr && t_end > e) {
            f.symbol = t;
            end = t_end;
          }
        }
        return true;
      }
      // "Year", "Seconds": a unit word at the start of a sentence (table: detail/units.hpp)
      if (word.size() >= 3 && word.size() <= 16 && word[0] >= 'A' && word[0] <= 'Z') {
        bool rest_lower = true;
        for (std::size_t q = 1; q < word.size(); ++q) rest_lower = rest_lower && word[q] >= 'a' && word[q] <= 'z';
        char lower[16];
        for (std::size_t q = 0; q < word.size(); ++q) lower[q] = word[q];
        lower[0] = static_cast<char>(word[0] - 'A' + 'a');
        const detail::UnitSymbol* sym =
            rest_lower ? usable(unit_symbol(std::string_view(lower, word.size()))) : nullptr;
        if (sym != nullptr && !sym->prefixable) {
          f.symbol = sym;
          end = e;
          return true;
        }
      }
      for (std::size_t plen : {std::size_t{1}, std::size_t{2}}) {
        if (word.size() <= plen) continue;
        const detail::UnitPrefix* p = unit_prefix(word.substr(0, plen));
        const detail::UnitSymbol* sym = usable(unit_symbol(word.substr(plen)));
        if (p != nullptr && sym != nullptr && sym->prefixable) {
          f.prefix = p;
          f.symbol = sym;
          end = e;
          return true;
        }
      }
      return false;
    }
    if (const detail::UnitSymbol* sym = symbol_at(s, k); sym != nullptr) {
      f.symbol = sym;
      end = k + sym->symbol.size();
      return true;
    }
    return false;
  }

  // want_pint: also write the pint expression (normalize_answer shows only the unit text)
  Unit run(bool greedy, bool want_pint = true) {
    struct Group {
      std::size_t first;  // index of the group's first factor
      bool base;          // the denominator state outside the group
      bool local;
      char closer;
    };
    std::vector<Group> groups;
    bool base = false, local = false;
    std::size_t i = 0, good_end = 0, good_factors = 0;
    const std::size_t n = s.size();
    bool failed = false;
    while (i < n) {
      if (is_space(s[i])) {
        ++i;
        continue;
      }
      if (s[i] == '/') {
        local = true;
        ++i;
        continue;
      }
      if (starts_with(s, i, "per") && (i + 3 == n || !is_letter(s[i + 3])) && !factors.empty()) {
        local = true;
        i += 3;
        continue;
      }
      bool sep = false;
      const char c0 = s[i];
      const bool may_sep = c0 == '\\' || c0 == '*' || c0 == '\xC2' || c0 == '\xE2';
      for (std::string_view p : {"\\cdot", "\\times", "*", "\xC2\xB7", "\xE2\x8B\x85" /* ⋅ */}) {
        if (!may_sep) break;
        if (starts_with(s, i, p) && !(p[0] == '\\' && i + p.size() < n && is_letter(s[i + p.size()]))) {
          i += p.size();
          sep = true;
          break;
        }
      }
      // "N-m", "kW-h": a hyphen between two unit atoms is a product
      if (!sep && s[i] == '-' && !factors.empty() && i > 0 && !is_space(s[i - 1]) && i + 1 < n && is_letter(s[i + 1])) {
        ++i;
        sep = true;
      }
      if (sep) continue;
      // a brace group, unless it is the empty one a degree sign is raised on ("{ }^{\circ}C")
      if (s[i] == '(' || (s[i] == '{' && degree_length(s, i) == 0)) {
        if (groups.size() >= kMaxUnitDepth) {
          failed = true;
          break;
        }
        groups.push_back(Group{factors.size(), base, local, s[i] == '(' ? ')' : '}'});
        base = base != local;
        local = false;
        ++i;
        continue;
      }
      if (s[i] == ')' || s[i] == '}') {
        if (groups.empty() || groups.back().closer != s[i]) {
          failed = true;
          break;
        }
        const Group g = groups.back();
        groups.pop_back();
        int power = 1;
        const std::size_t p_end = read_unit_power(s, i + 1, power);
        if (p_end == kNpos) {
          failed = true;
          break;
        }
        for (std::size_t k = g.first; k < factors.size(); ++k) factors[k].power *= power;
        base = g.base;
        local = g.local;
        i = p_end;
        if (groups.empty() && factors.size() > g.first) {
          good_end = i;
          good_factors = factors.size();
        }
        continue;
      }
      Factor f{nullptr, nullptr, 1};
      std::size_t end = i;
      if (!atom(i, end, f)) {
        failed = true;
        break;
      }
      int power = 1;
      const std::size_t p_end = read_unit_power(s, end, power);
      if (p_end == kNpos) {
        failed = true;
        break;
      }
      f.power = ((base != local) ? -1 : 1) * power;
      factors.push_back(f);
      i = p_end;
      if (groups.empty()) {
        good_end = i;
        good_factors = factors.size();
      }
    }
    Unit u;
    if (!greedy && (failed || !groups.empty())) return u;
    if (!greedy) {
      good_end = i;
      good_factors = factors.size();
    }
    if (good_factors == 0) return u;
    factors.resize(good_factors);
    u.ok = true;
    u.end = good_end;
    u.shown = collapse_spaces(s.substr(0, good_end));
    for (std::size_t k = 0; k < factors.size(); ++k) {
      const Factor& f = factors[k];
      // a temperature scale alone is a temperature (with its offset: 25 °C is 298.15 K); in a
      // compound unit or with a power it is an interval ("J g^{-1} °C^{-1}": delta_degree_Celsius)
      const bool scale = f.symbol->pint == "degree_Celsius" || f.symbol->pint == "degree_Fahrenheit";
      const bool alone = factors.size() == 1 && f.power == 1;
      if (scale && alone) u.affine = true;
      if (!want_pint) continue;
      if (k > 0) u.pint += " * ";
      if (f.prefix != nullptr) u.pint += f.prefix->pint;
      if (scale && !alone) u.pint += "delta_";
      u.pint += f.symbol->pint;
      if (f.power != 1) u.pint += " ** " + std::to_string(f.power);
    }
    return u;
  }
};

}  // namespace

namespace internal {

std::string unit_fracs(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (starts_with(s, i, "\\frac{")) {
      const std::size_t a_close = s.find_first_of("{}", i + 6);
      if (a_close != kNpos && s[a_close] == '}' && a_close + 1 < s.size() && s[a_close + 1] == '{') {
        const std::size_t b_close = s.find_first_of("{}", a_close + 2);
        if (b_close != kNpos && s[b_close] == '}') {
          out.append(s.substr(i + 6, a_close - i - 6));
          out += '/';
          out.append(s.substr(a_close + 2, b_close - a_close - 2));
          i = b_close + 1;
          continue;
        }
      }
    }
    out += s[i++];
  }
  return out;
}

Unit read_shown_unit(std::string_view text) {
  UnitParser parser{text, {}, false};
  return parser.run(false, false);
}

}  // namespace internal

Unit parse_unit(std::string_view text, bool greedy) {
  UnitParser parser{text, {}, !greedy};
  return parser.run(greedy);
}

Quantity read_quantity(std::string_view text) {
  Quantity q;
  const std::string spaced = unicode_spaces_to_ascii(text);
  std::size_t i = 0;
  while (i < spaced.size() && is_space(spaced[i])) ++i;
  const NumberRead num = read_number(spaced, i);
  if (!num.ok) return q;
  // a number glued to letters that are not a unit ("2x") is not a quantity
  q.has_number = true;
  q.value = num.value;
  q.sig_figs = num.sig_figs;
  q.end = num.end;
  const std::string rest = unit_fracs(std::string_view(spaced).substr(num.end));
  const std::string_view rest_view = detail::trim(rest);
  if (rest_view.empty()) return q;
  // the whole rest as one unit first (trailing punctuation aside), where the whole_only rows
  // are read too ("29.36 in"); else the longest unit at its start ("51 atm at sea level")
  std::string_view whole_view = rest_view;
  while (!whole_view.empty() && (whole_view.back() == '.' || whole_view.back() == ',' || whole_view.back() == ';' ||
                                 is_space(whole_view.back())))
    whole_view.remove_suffix(1);
  q.unit = parse_unit(whole_view, false);
  if (!q.unit.ok) q.unit = parse_unit(rest_view, true);
  std::size_t used = q.unit.ok ? q.unit.end : 0;
  q.end = num.end + static_cast<std::size_t>(rest_view.data() - rest.data()) + used;
  std::string_view tail = detail::trim(rest_view.substr(used));
  while (!tail.empty() && (tail.front() == '.' || tail.front() == ',' || tail.front() == ';')) tail.remove_prefix(1);
  q.rest_is_unit = detail::trim(tail).empty();
  return q;
}

}  // namespace rapidgrade::physics
