// The one table of physical units the core knows: unit symbols and SI prefixes.
//
// The unit grammar of the physics task (physics.hpp, split_quantity / parse_unit) reads a unit
// text such as "kJ mol^{-1}", "m/s^2" or "\mu C" into factors, each a prefix and a symbol of
// these tables with an integer power, and writes them as a pint expression ("kilojoule * mole **
// -1"). What a unit *means* (its dimension and conversion factor) is pint's business, in Python;
// this table only says which spellings are units, so that "2x" or "2\pi" are not quantities.
// tests/unit/test_physics_units.py checks that pint understands every row.
//
// Spellings are matched exactly (case matters: "mm" is a millimetre, "Mm" a megametre). A whole
// word is looked up first, then a prefix followed by a prefixable symbol, so "Pa" is a pascal
// (not a peta-year), "min" a minute, "mol" a mole and "cd" a candela.
#pragma once

#include <cstddef>
#include <string_view>

namespace rapidgrade::detail {

struct UnitSymbol {
  std::string_view symbol;  // as written: "m", "atm", "\\AA" (with the backslash), "°C" (UTF-8)
  std::string_view pint;    // pint's name: "meter", "standard_atmosphere", "angstrom"
  bool prefixable;          // takes an SI prefix: "km", "kJ", "\\mu C"
  /// Read only when the whole text is a unit ("5 in" is five inches, "5 in total" is the number
  /// 5 and a text): a spelling that is also a common word.
  bool whole_only = false;
};

struct UnitPrefix {
  std::string_view symbol;  // "k", "da", "u", "µ" (U+00B5), "μ" (U+03BC), "\\mu"
  std::string_view pint;    // pint's prefix name: "kilo", "deca", "micro"
};

/// SI prefixes; "u", "µ", "μ" and "\mu" all mean micro.
inline constexpr UnitPrefix kUnitPrefixes[] = {
    {"Y", "yotta"}, {"Z", "zetta"}, {"E", "exa"},          {"P", "peta"},         {"T", "tera"},     {"G", "giga"},
    {"M", "mega"},  {"k", "kilo"},  {"h", "hecto"},        {"da", "deca"},        {"d", "deci"},     {"c", "centi"},
    {"m", "milli"}, {"u", "micro"}, {"\xC2\xB5", "micro"}, {"\xCE\xBC", "micro"}, {"\\mu", "micro"}, {"n", "nano"},
    {"p", "pico"},  {"f", "femto"}, {"a", "atto"},         {"z", "zepto"},        {"y", "yocto"},
};

/// Unit symbols and unit words. Not here on purpose: "at" (technical atmosphere), "a" (year),
/// "G" (gauss), "d" (day), "e" and "c": they are common words or variables, and a unit table
/// that knows them would read "2c" or "5 e" as quantities. "in" (inch) and "mi" (mile) are here
/// but whole_only: read only when nothing else follows the number ("29.36 in").
///
/// The math normalizer's unit words (normalize.cpp kUnitWords, Python UNIT_WORDS) are checked
/// against this table by tests/unit/test_physics_units.py: each one that names a physical unit
/// is a row here.
inline constexpr UnitSymbol kUnitSymbols[] = {
    // SI base and derived units
    {"m", "meter", true},
    {"g", "gram", true},
    {"s", "second", true},
    {"A", "ampere", true},
    {"K", "kelvin", true},
    {"mol", "mole", true},
    {"cd", "candela", true},
    {"N", "newton", true},
    {"J", "joule", true},
    {"W", "watt", true},
    {"Pa", "pascal", true},
    {"Hz", "hertz", true},
    {"C", "coulomb", true},
    {"D", "debye", false, true},  // dipole moments; whole only: "3 D" is 3 debye, not "3 D-shapes"
    {"V", "volt", true},
    {"\\Omega", "ohm", true},
    {"\xCE\xA9", "ohm", true},  // Ω U+03A9
    {"F", "farad", true},
    {"H", "henry", true},
    {"T", "tesla", true},
    {"Wb", "weber", true},
    {"S", "siemens", true},
    {"Gy", "gray", true},
    {"Sv", "sievert", true},
    {"Bq", "becquerel", true},
    {"rad", "radian", false},
    {"sr", "steradian", false},
    {"lm", "lumen", true},
    {"lx", "lux", true},
    // accepted with the SI, and common in chemistry and physics problems
    {"L", "liter", true},
    {"l", "liter", true},
    {"eV", "electron_volt", true},
    {"Da", "dalton", true},
    {"u", "unified_atomic_mass_unit", false},
    {"amu", "unified_atomic_mass_unit", false},
    {"M", "molar", true},
    {"atm", "standard_atmosphere", false},
    {"bar", "bar", true},
    {"Torr", "torr", false},
    {"torr", "torr", false},
    {"mmHg", "millimeter_Hg", false},
    {"psi", "psi", false},
    {"cal", "calorie", true},
    {"Cal", "kilocalorie", false},
    {"min", "minute", false},
    {"h", "hour", false},
    {"hr", "hour", false},
    {"day", "day", false},
    {"yr", "year", false},
    {"year", "year", false},
    {"ly", "light_year", false},
    {"AU", "astronomical_unit", false},
    {"au", "astronomical_unit", false},
    {"pc", "parsec", true},
    {"\\AA", "angstrom", false},
    {"\xC3\x85", "angstrom", false},      // Å U+00C5
    {"\xE2\x84\xAB", "angstrom", false},  // Å U+212B ANGSTROM SIGN
    {"ft", "foot", false},
    {"lb", "pound", false},
    {"mph", "mile_per_hour", false},
    {"deg", "degree", false},
    {"degC", "degree_Celsius", false},
    {"degF", "degree_Fahrenheit", false},
    {"%", "percent", false},
    {"\\%", "percent", false},
    {"percent", "percent", false},
    {"Wh", "watt_hour", true},
    {"lbf", "force_pound", false},
    {"ft-lb", "foot_pound", false},  // foot-pound (energy): "ft-lb" is never foot times pound-mass
    {"ft-lbf", "foot_pound", false},
    {"slug", "slug", false},
    {"slugs", "slug", false},
    {"in", "inch", false, true},
    {"mi", "mile", false, true},
    {"yd", "yard", false},
    {"oz", "ounce", false},
    {"lbs", "pound", false},
    {"sec", "second", false},
    {"hrs", "hour", false},
    // unit words (singular and plural), as plain-text answers write them
    {"meter", "meter", false},
    {"meters", "meter", false},
    {"metre", "meter", false},
    {"metres", "meter", false},
    {"second", "second", false},
    {"seconds", "second", false},
    {"gram", "gram", false},
    {"grams", "gram", false},
    {"kilogram", "kilogram", false},
    {"kilograms", "kilogram", false},
    {"newton", "newton", false},
    {"newtons", "newton", false},
    {"joule", "joule", false},
    {"joules", "joule", false},
    {"watt", "watt", false},
    {"watts", "watt", false},
    {"volt", "volt", false},
    {"volts", "volt", false},
    {"kelvin", "kelvin", false},
    {"hour", "hour", false},
    {"hours", "hour", false},
    {"minute", "minute", false},
    {"minutes", "minute", false},
    {"liter", "liter", false},
    {"liters", "liter", false},
    {"litre", "liter", false},
    {"litres", "liter", false},
    {"mole", "mole", false},
    {"moles", "mole", false},
    {"days", "day", false},
    {"years", "year", false},
    {"week", "week", false},
    {"weeks", "week", false},
    {"month", "month", false},
    {"months", "month", false},
    {"millimeter", "millimeter", false},
    {"millimeters", "millimeter", false},
    {"centimeter", "centimeter", false},
    {"centimeters", "centimeter", false},
    {"kilometer", "kilometer", false},
    {"kilometers", "kilometer", false},
    {"inch", "inch", false},
    {"inches", "inch", false},
    {"foot", "foot", false},
    {"feet", "foot", false},
    {"yard", "yard", false},
    {"yards", "yard", false},
    {"mile", "mile", false},
    {"miles", "mile", false},
    {"pound", "pound", false},
    {"pounds", "pound", false},
    {"ounce", "ounce", false},
    {"ounces", "ounce", false},
    {"degree", "degree", false},
    {"degrees", "degree", false},
    {"angstrom", "angstrom", false},
    {"angstroms", "angstrom", false},
    {"ohm", "ohm", false},
    {"ohms", "ohm", false},
    // counted things: a number of them is a dimensionless count ("1.07 \times 10^{16} photons")
    {"photon", "count", false},
    {"photons", "count", false},
    {"electron", "count", false},
    {"electrons", "count", false},
    {"particle", "count", false},
    {"particles", "count", false},
    {"atom", "count", false},
    {"atoms", "count", false},
    {"molecule", "count", false},
    {"molecules", "count", false},
};

/// A unit word written with a capital first letter ("Year", "Seconds", at least 3 letters) is read
/// as the row of its lower-case spelling when no row is spelled that way ("Torr", "Cal" are).
///
/// The row spelled exactly `symbol`, or nullptr. O(table size).
inline const UnitSymbol* find_unit_symbol(std::string_view symbol) noexcept {
  for (const UnitSymbol& u : kUnitSymbols)
    if (u.symbol == symbol) return &u;
  return nullptr;
}

/// The prefix spelled exactly `symbol`, or nullptr. O(table size).
inline const UnitPrefix* find_unit_prefix(std::string_view symbol) noexcept {
  for (const UnitPrefix& p : kUnitPrefixes)
    if (p.symbol == symbol) return &p;
  return nullptr;
}

/// The row that `w` spells: a symbol of the table, or an SI prefix (of one or two bytes) and a
/// prefixable symbol ("km", "kPa", "µm"); nullptr when it spells none. Case matters.
inline const UnitSymbol* find_unit(std::string_view w) noexcept {
  if (const UnitSymbol* u = find_unit_symbol(w)) return u;
  for (std::size_t p = 1; p <= 2 && p < w.size(); ++p) {
    if (find_unit_prefix(w.substr(0, p)) == nullptr) continue;
    const UnitSymbol* u = find_unit_symbol(w.substr(p));
    if (u != nullptr && u->prefixable) return u;
  }
  return nullptr;
}

}  // namespace rapidgrade::detail
