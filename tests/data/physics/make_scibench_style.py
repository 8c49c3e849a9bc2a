r"""Builds scibench_style.jsonl: golds with units written as SciBench writes them (deterministic).

    python tests/data/physics/make_scibench_style.py

SciBench (Wang et al., 2023) keeps a problem's answer as a bare number (``answer_number``) and its
unit apart (``unit``), the unit a LaTeX fragment with its own conventions: each symbol in its own
``\mathrm{}`` with a ``~`` before it (``$\mathrm{~kJ} \mathrm{~mol}^{-1}$``), powers outside the
braces, a power of ten in front of the unit (``$10^{-19} \mathrm{~J}$``, ``$\mathrm{10^7} \mathrm{~km}$``,
a bare ``$10^{6}$``), products with ``\cdot`` or a space, quotients with ``/``, ``\mu`` as a
command, degree signs raised on nothing (``${ }^{\circ} \mathrm{C}$``), ``\%``. This script
writes no SciBench row: it combines numbers, units and the ways of writing them listed here, so
the set holds every form in known proportions. Each row: ``id``, ``gold`` (the number),
``unit`` (the unit field), ``value`` (the quantity's magnitude in ``pint``, the power of ten
applied), ``pint`` (the unit as a pint expression, written here by hand, not by the core) and
``plain`` (the unit in plain symbols, for a response that any reader of units reads).

A gold is read correctly when its number and its whole unit are read with that value and a
unit of the same dimension and scale as ``pint`` (tests/unit/test_physics_units.py).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).with_name("scibench_style.jsonl")

# A unit: factors (symbol as LaTeX writes it, its plain spelling, pint name, power).
Factor = tuple[str, str, str, int]

UNITS: list[list[Factor]] = [
    [("J", "J", "joule", 1)],
    [("kJ", "kJ", "kilojoule", 1)],
    [("eV", "eV", "electron_volt", 1)],
    [("MeV", "MeV", "megaelectron_volt", 1)],
    [("K", "K", "kelvin", 1)],
    [("atm", "atm", "standard_atmosphere", 1)],
    [("bar", "bar", "bar", 1)],
    [("Pa", "Pa", "pascal", 1)],
    [("kPa", "kPa", "kilopascal", 1)],
    [("Torr", "Torr", "torr", 1)],
    [("m", "m", "meter", 1)],
    [("km", "km", "kilometer", 1)],
    [("cm", "cm", "centimeter", 1)],
    [("mm", "mm", "millimeter", 1)],
    [("nm", "nm", "nanometer", 1)],
    [("pm", "pm", "picometer", 1)],
    [("s", "s", "second", 1)],
    [("N", "N", "newton", 1)],
    [("C", "C", "coulomb", 1)],
    [("nC", "nC", "nanocoulomb", 1)],
    [("pC", "pC", "picocoulomb", 1)],
    [("V", "V", "volt", 1)],
    [("T", "T", "tesla", 1)],
    [("Hz", "Hz", "hertz", 1)],
    [("GHz", "GHz", "gigahertz", 1)],
    [("g", "g", "gram", 1)],
    [("kg", "kg", "kilogram", 1)],
    [("mg", "mg", "milligram", 1)],
    [("L", "L", "liter", 1)],
    [("mA", "mA", "milliampere", 1)],
    [("mJ", "mJ", "millijoule", 1)],
    [("W", "W", "watt", 1)],
    [("\\Omega", "\\Omega", "ohm", 1)],
    [("min", "min", "minute", 1)],
    [("yr", "yr", "year", 1)],
    [("\\mu \\mathrm{C}", "uC", "microcoulomb", 1)],
    [("\\mu\\mathrm{C}", "uC", "microcoulomb", 1)],
    [("\\mu \\mathrm{m}", "um", "micrometer", 1)],
    [("\\mu \\mathrm{T}", "uT", "microtesla", 1)],
    [("μC", "uC", "microcoulomb", 1)],
    [("µC", "uC", "microcoulomb", 1)],
    [("kJ", "kJ", "kilojoule", 1), ("mol", "mol", "mole", -1)],
    [("J", "J", "joule", 1), ("mol", "mol", "mole", -1)],
    [("J", "J", "joule", 1), ("K", "K", "kelvin", -1)],
    [("J", "J", "joule", 1), ("K", "K", "kelvin", -1), ("mol", "mol", "mole", -1)],
    [("J", "J", "joule", 1), ("mol", "mol", "mole", -1), ("K", "K", "kelvin", -1)],
    [("g", "g", "gram", 1), ("mol", "mol", "mole", -1)],
    [("dm", "dm", "decimeter", 3), ("mol", "mol", "mole", -1)],
    [("m", "m", "meter", 3), ("mol", "mol", "mole", -1)],
    [("g", "g", "gram", 1), ("cm", "cm", "centimeter", -3)],
    [("mol", "mol", "mole", 1), ("kg", "kg", "kilogram", -1)],
    [("m", "m", "meter", 1), ("s", "s", "second", -1)],
    [("m", "m", "meter", 1), ("s", "s", "second", -2)],
    [("km", "km", "kilometer", 1), ("s", "s", "second", -1)],
    [("N", "N", "newton", 1), ("C", "C", "coulomb", -1)],
    [("N", "N", "newton", 1), ("m", "m", "meter", 2), ("C", "C", "coulomb", -1)],
    [("N", "N", "newton", 1), ("m", "m", "meter", 1)],
    [("N", "N", "newton", 1), ("m", "m", "meter", -1)],
    [("kg", "kg", "kilogram", 1), ("m", "m", "meter", 1), ("s", "s", "second", -1)],
    [("kg", "kg", "kilogram", 1), ("m", "m", "meter", 2), ("s", "s", "second", -1)],
    [("C", "C", "coulomb", 1), ("m", "m", "meter", 1)],
    [("C", "C", "coulomb", 1), ("m", "m", "meter", -2)],
    [("J", "J", "joule", 1), ("T", "T", "tesla", -1)],
    [("J", "J", "joule", 1), ("s", "s", "second", 1)],
    [("J", "J", "joule", 1), ("s", "s", "second", -1)],
    [("s", "s", "second", -1)],
    [("cm", "cm", "centimeter", -1)],
    [("m", "m", "meter", -1)],
    [("m", "m", "meter", 2), ("s", "s", "second", -1)],
    [("m", "m", "meter", -3), ("s", "s", "second", -1)],
    [("cm", "cm", "centimeter", 3), ("s", "s", "second", -1)],
    [("kcal", "kcal", "kilocalorie", 1), ("mol", "mol", "mole", -1)],
    [("L", "L", "liter", 1), ("min", "min", "minute", -1)],
    [("rad", "rad", "radian", 1), ("s", "s", "second", -1)],
    [("K", "K", "kelvin", 1), ("MPa", "MPa", "megapascal", -1)],
    [("K", "K", "kelvin", 1), ("atm", "atm", "standard_atmosphere", -1)],
    [("kg", "kg", "kilogram", 1), ("m", "m", "meter", -3)],
    [("m", "m", "meter", 2)],
    [("cm", "cm", "centimeter", 3)],
    [("nm", "nm", "nanometer", 2)],
    [("K", "K", "kelvin", -1)],
    [("mol", "mol", "mole", -1)],
]

# Unit fields written without \mathrm, as some SciBench books do: (unit field, plain, pint).
PLAIN: list[tuple[str, str, str, int]] = [
    ("m", "m", "meter", 0),
    ("km", "km", "kilometer", 0),
    ("km / s", "km/s", "kilometer / second", 0),
    ("m/s", "m/s", "meter / second", 0),
    ("$m/s^2$", "m/s^2", "meter / second ** 2", 0),
    ("$MeV$", "MeV", "megaelectron_volt", 0),
    ("$\\text{kJ}$", "kJ", "kilojoule", 0),
    ("$\\text{m}^3$", "m^3", "meter ** 3", 0),
    ("$\\text { days }$", "days", "day", 0),
    ("$ \\mathrm{~K}$", "K", "kelvin", 0),
    ("$\\mathrm{~kJ}   \\mathrm{~mol}^{-1}$", "kJ/mol", "kilojoule / mole", 0),
    ("$10^{-6} \\mathrm{C} $", "C", "coulomb", -6),
    ("$\r\n10^{15} \\mathrm{~s}^{-1}\r\n$", "s^-1", "1 / second", 15),
    ("$\\mathrm{cm^2}$", "cm^2", "centimeter ** 2", 0),
    ("$\\mathrm{m} / \\mathrm{s}^2$", "m/s^2", "meter / second ** 2", 0),
    ("$\\mathrm{~m} \\cdot \\mathrm{s}^{-1}$", "m/s", "meter / second", 0),
    ("$\\mathrm{\\AA}$", "\\AA", "angstrom", 0),
    ("$Å$", "\\AA", "angstrom", 0),
    ("min", "min", "minute", 0),
    ("seconds", "s", "second", 0),
    ("years", "yr", "year", 0),
    ("hour", "h", "hour", 0),
    ("$\\mathrm{kJ} / \\mathrm{mol}$", "kJ/mol", "kilojoule / mole", 0),
    ("$\\mathrm{L}/\\mathrm{min}$", "L/min", "liter / minute", 0),
    ("$\\mathrm{ft} / \\mathrm{s}$", "ft/s", "foot / second", 0),
    ("$\\mathrm{ft}^3$", "ft^3", "foot ** 3", 0),
    ("$\\mathrm{mi}/\\mathrm{h}$", "mph", "mile / hour", 0),
    ("$\\mathrm{in}$", "in", "inch", 0),
    ("$\\mathrm{lb} \\cdot \\mathrm{s} / \\mathrm{ft}$", "lb s/ft", "pound * second / foot", 0),
    ("$\\mathrm{ft-lb}$", "ft-lb", "foot_pound", 0),
    (
        "$\\mathrm{kg} \\mathrm{~m}^5 \\mathrm{~s}^{-2} \\mathrm{~mol}^{-2}$",
        "kg m^5 s^-2 mol^-2",
        "kilogram * meter ** 5 / second ** 2 / mole ** 2",
        0,
    ),
    ("$\\text{day}^{-1}$", "day^-1", "1 / day", 0),
    ("$\\mathrm{~N} / \\mathrm{C}$", "N/C", "newton / coulomb", 0),
    ("$10^{16}$ photons", "", "count", 16),
    ("Year", "yr", "year", 0),
]

# Temperatures, angles and percentages: (unit field, plain, pint).
SPECIAL: list[tuple[str, str, str]] = [
    ("$^{\\circ} \\mathrm{C}$", "°C", "degree_Celsius"),
    ("${ }^{\\circ} \\mathrm{C}$", "°C", "degree_Celsius"),
    ("$^{\\circ}\\mathrm{C}$", "°C", "degree_Celsius"),
    ("°C", "°C", "degree_Celsius"),
    ("$^\\circ$", "deg", "degree"),
    ("$^{\\circ}$", "deg", "degree"),
    ("%", "%", "percent"),
    ("$\\%$", "%", "percent"),
    ("$\\mathrm{J} \\mathrm{g}^{-1} {}^{\\circ} \\mathrm{C}^{-1}$", "J g^-1 K^-1", "joule / gram / kelvin"),
]

NUMBERS = [
    "1.6",
    "-41",
    "0.829",
    "2.534324263",
    "3.00",
    "9.8",
    "4.16",
    "-1.49",
    "56",
    "0.245",
    "122",
    "7.0",
    "2.19",
    "0.0032",
    "13.2",
    "-0.16",
]

# How the power of ten before the unit is written: (format with {n}, None for no power); the
# unbraced form only for one digit.
TENS = [None, "10^{{{n}}}", "10^{n}", "\\mathrm{{10^{{{n}}}}}"]


def _atom(symbol: str, power: int, style: str) -> str:
    """One factor of a unit field in a style: "tilde" (\\mathrm{~kJ}), "plain" (\\mathrm{kJ}),
    "text" (\\text{kJ})."""
    raised = "" if power == 1 else f"^{{{power}}}"
    if symbol.startswith("\\mu") or not symbol.isascii() or symbol.startswith("\\Omega"):
        return symbol + raised
    if style == "tilde":
        return f"\\mathrm{{~{symbol}}}{raised}"
    if style == "text":
        return f"\\text{{{symbol}}}{raised}"
    return f"\\mathrm{{{symbol}}}{raised}"


def _unit_field(factors: list[Factor], style: str, joiner: str) -> str:
    """The LaTeX of a unit in one of SciBench's ways: separate wrapped atoms joined by a space or
    \\cdot; a quotient for one negative power at the end; or one \\mathrm with thin spaces."""
    if style == "thin":
        inner = "\\,".join(f[0] + ("" if f[3] == 1 else f"^{{{f[3]}}}") for f in factors)
        return f"\\mathrm{{{inner}}}" if all(f[0].isascii() and not f[0].startswith("\\") for f in factors) else inner
    sep = " " if joiner.isspace() else f" {joiner} "
    if style == "slash" and len(factors) >= 2 and factors[-1][3] < 0 and all(f[3] > 0 for f in factors[:-1]):
        head = sep.join(_atom(f[0], f[3], "tilde") for f in factors[:-1])
        return f"{head} / {_atom(factors[-1][0], -factors[-1][3], 'tilde')}"
    return sep.join(_atom(f[0], f[3], style if style != "slash" else "tilde") for f in factors)


def _plain(factors: list[Factor]) -> str:
    return " ".join(f[1] + ("" if f[3] == 1 else f"^{f[3]}") for f in factors)


def _pint(factors: list[Factor]) -> str:
    return " * ".join(f[2] + ("" if f[3] == 1 else f" ** {f[3]}") for f in factors)


def rows() -> list[dict[str, object]]:
    rng = random.Random(46)
    out: list[dict[str, object]] = []
    styles = ["tilde", "plain", "text", "thin", "slash"]
    for u, factors in enumerate(UNITS):
        for style in styles:
            for _ in range(2):
                number = rng.choice(NUMBERS)
                ten = rng.choice(TENS)
                n = rng.choice([-19, -10, -6, -3, 3, 5, 7, 13, 23])
                joiner = rng.choice(["", "\\cdot"]) if style in ("tilde", "slash") else ""
                field = _unit_field(factors, style, joiner or " ")
                if ten == "10^{n}" and not 0 < n < 10:
                    ten = "10^{{{n}}}"  # LaTeX raises one character: 10^13 is 10^1 3
                prefix = "" if ten is None else ten.format(n=n) + " "
                unit = f"${prefix}{field}$"
                power = 0 if ten is None else n
                out.append(
                    {
                        "id": f"u{u}-{style}-{len(out)}",
                        "gold": number,
                        "unit": unit,
                        "value": float(f"{number}e{power}"),
                        "pint": _pint(factors),
                        "plain": _plain(factors),
                    }
                )
    for s, (field, plain, pint) in enumerate(SPECIAL):
        for number in rng.sample(NUMBERS, 4):
            out.append(
                {
                    "id": f"t{s}-{len(out)}",
                    "gold": number,
                    "unit": field,
                    "value": float(number),
                    "pint": pint,
                    "plain": plain,
                }
            )
    for s, (field, plain, pint, power) in enumerate(PLAIN):
        for number in rng.sample(NUMBERS, 3):
            out.append(
                {
                    "id": f"w{s}-{len(out)}",
                    "gold": number,
                    "unit": field,
                    "value": float(f"{number}e{power}"),
                    "pint": pint,
                    "plain": plain,
                }
            )
    # a bare power of ten as the unit field ("$10^{6}$": a dimensionless count of it)
    for n in (-9, -4, 3, 6, 11, 21, 42):
        number = rng.choice(NUMBERS)
        out.append(
            {
                "id": f"p{n}-{len(out)}",
                "gold": number,
                "unit": f"$10^{{{n}}}$",
                "value": float(f"{number}e{n}"),
                "pint": "dimensionless",
                "plain": "",
            }
        )
    # the power of ten in the number, the unit after it
    for k, factors in enumerate(UNITS[::4]):
        number = rng.choice(NUMBERS)
        n = rng.choice([-19, -6, 3, 8])
        form = rng.choice(["{m} \\times 10^{{{n}}}", "{m}\\cdot10^{{{n}}}", "{m}e{n}", "{m} \\times 10^{{{n}}}"])
        gold = form.format(m=number, n=n)
        out.append(
            {
                "id": f"n{k}-{len(out)}",
                "gold": gold,
                "unit": f"${_unit_field(factors, 'thin', ' ')}$",
                "value": float(f"{number}e{n}"),
                "pint": _pint(factors),
                "plain": _plain(factors),
            }
        )
    return out


def main() -> None:
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows()), encoding="utf-8")


if __name__ == "__main__":
    main()
