# ruff: noqa: E501  (the table of bases reads best one quantity a line)
r"""Builds dev.jsonl, the labelled dev set of the physics task (deterministic; no network).

    python tests/data/physics/make_dev_set.py

Each *base* is a public physical or chemical quantity with its unit: CODATA 2018 values of
physical constants (NIST; the SI defining constants are exact), as pint's own constants file
lists them (pint is BSD-3-Clause), and textbook quantities with their well-known values
(boiling point of water, standard enthalpy of formation of liquid water, ...). For every base
the script writes response variants with labels that follow from how the variant is made, not
from any grader: the quantity written plainly, in LaTeX, in scientific notation, converted to
another unit (the conversion factor written here by hand), as a bare number, inside prose,
rounded to 3 significant figures (correct), rounded to 2 (correct: significant-figure
awareness is on by default), in e notation, with Unicode superscripts, inside a sentence, with a wrong unit of another dimension, with a
wrong magnitude (x10) and 5% off (wrong, at the 1% tolerance).
"""

from __future__ import annotations

import json
from pathlib import Path

# (id, source, value, plain unit, LaTeX unit, alternative unit, value in the alternative unit per
# unit of the gold, a unit of another dimension)
BASES: list[tuple[str, str, float, str, str, str, float, str]] = [
    (
        "c",
        "CODATA 2018 speed of light in vacuum",
        299792458.0,
        "m/s",
        r"\mathrm{m} \mathrm{~s}^{-1}",
        "km/s",
        1e-3,
        "m",
    ),
    (
        "h",
        "CODATA 2018 Planck constant",
        6.62607015e-34,
        "J s",
        r"\mathrm{J} \cdot \mathrm{s}",
        "eV s",
        1 / 1.602176634e-19,
        "J",
    ),
    ("e", "CODATA 2018 elementary charge", 1.602176634e-19, "C", r"\mathrm{C}", "nC", 1e9, "V"),
    (
        "k_B",
        "CODATA 2018 Boltzmann constant",
        1.380649e-23,
        "J/K",
        r"\mathrm{J} \mathrm{~K}^{-1}",
        "eV/K",
        1 / 1.602176634e-19,
        "J",
    ),
    ("N_A", "CODATA 2018 Avogadro constant", 6.02214076e23, "mol^-1", r"\mathrm{mol}^{-1}", "mmol^-1", 1e-3, "mol"),
    (
        "R",
        "CODATA 2018 molar gas constant",
        8.314462618,
        "J K^-1 mol^-1",
        r"\mathrm{J} \mathrm{K}^{-1} \mathrm{~mol}^{-1}",
        "kJ K^-1 mol^-1",
        1e-3,
        "J mol^-1",
    ),
    ("m_e", "CODATA 2018 electron mass", 9.1093837015e-31, "kg", r"\mathrm{kg}", "g", 1e3, "N"),
    ("m_p", "CODATA 2018 proton mass", 1.67262192369e-27, "kg", r"\mathrm{~kg}", "u", 1 / 1.66053906660e-27, "J"),
    (
        "g_n",
        "CGPM standard acceleration of gravity",
        9.80665,
        "m/s^2",
        r"\mathrm{m} / \mathrm{s}^{2}",
        "cm/s^2",
        100.0,
        "m/s",
    ),
    (
        "G",
        "CODATA 2018 Newtonian constant of gravitation",
        6.67430e-11,
        "m^3 kg^-1 s^-2",
        r"\mathrm{m}^{3} \mathrm{~kg}^{-1} \mathrm{~s}^{-2}",
        "cm^3 g^-1 s^-2",
        1e3,
        "m^3 kg^-1",
    ),
    ("Ry", "CODATA 2018 Rydberg constant times hc", 13.605693122994, "eV", r"\mathrm{eV}", "J", 1.602176634e-19, "V"),
    ("a_0", "CODATA 2018 Bohr radius", 52.9177210903, "pm", r"\mathrm{pm}", "\\AA", 1e-2, "ps"),
    ("F", "CODATA 2018 Faraday constant", 96485.33212, "C/mol", r"\mathrm{C} \mathrm{~mol}^{-1}", "kC/mol", 1e-3, "C"),
    ("atm", "definition of the standard atmosphere", 101325.0, "Pa", r"\mathrm{Pa}", "atm", 1 / 101325.0, "N"),
    ("atm_kpa", "definition of the standard atmosphere", 101.325, "kPa", r"\mathrm{kPa}", "mmHg", 760 / 101.325, "kJ"),
    ("bp_water", "boiling point of water at 1 atm", 100.0, "°C", r"{ }^{\circ} \mathrm{C}", "K", None, "J"),  # type: ignore[list-item]
    ("body_temp", "normal human body temperature", 37.0, "°C", r"^{\circ}\mathrm{C}", "°F", None, "m"),  # type: ignore[list-item]
    (
        "dHf_water",
        "standard enthalpy of formation of liquid water",
        -285.8,
        "kJ/mol",
        r"\mathrm{~kJ} \mathrm{~mol}^{-1}",
        "J/mol",
        1e3,
        "kJ",
    ),
    (
        "V_m",
        "molar volume of an ideal gas at 0 °C and 1 atm",
        22.414,
        "L/mol",
        r"\mathrm{L} \mathrm{~mol}^{-1}",
        "dm^3/mol",
        1.0,
        "L",
    ),
    (
        "rho_water",
        "density of water near 4 °C",
        1000.0,
        "kg/m^3",
        r"\mathrm{kg} / \mathrm{m}^{3}",
        "g/cm^3",
        1e-3,
        "kg",
    ),
    ("E_field", "textbook: field of 2 nC at 30 cm", 199.7, "N/C", r"\mathrm{~N} / \mathrm{C}", "V/m", 1.0, "N"),
    ("charge", "textbook: charge on a capacitor", 3.6, "\\mu C", r"\mu \mathrm{C}", "nC", 1e3, "\\mu A"),
    ("volume", "textbook: gas volume", 2.45, "dm^3", r"\mathrm{dm}^3", "mL", 1e3, "dm^2"),
    ("speed", "textbook: car speed", 25.0, "m/s", r"\mathrm{m}/\mathrm{s}", "km/h", 3.6, "m/s^2"),
    ("power", "textbook: power of a kettle", 2.2, "kW", r"\mathrm{kW}", "W", 1e3, "kJ"),
    ("wavelength", "textbook: sodium D line", 589.0, "nm", r"\mathrm{nm}", "\\AA", 10.0, "ns"),
    ("energy_kcal", "textbook: food energy", 250.0, "kcal", r"\mathrm{kcal}", "kJ", 4.184, "kW"),
    ("pressure_bar", "textbook: tyre pressure", 2.2, "bar", r"\mathrm{bar}", "kPa", 100.0, "kN"),
    ("current", "textbook: current in a resistor", 0.25, "A", r"\mathrm{A}", "mA", 1e3, "V"),
    ("resistance", "textbook: resistor", 4.7, "kΩ", r"\mathrm{k}\Omega", "Ω", 1e3, "kV"),
    ("freq", "textbook: A4 pitch", 440.0, "Hz", r"\mathrm{Hz}", "kHz", 1e-3, "s"),
    ("period", "textbook: pendulum period", 2.01, "s", r"\mathrm{s}", "ms", 1e3, "Hz"),
    ("field_T", "textbook: MRI magnet", 1.5, "T", r"\mathrm{T}", "mT", 1e3, "Wb"),
    ("distance_au", "IAU astronomical unit", 149597870700.0, "m", r"\mathrm{m}", "km", 1e-3, "m^2"),
    ("conc", "textbook: solution concentration", 0.15, "mol/L", r"\mathrm{mol} \mathrm{~L}^{-1}", "mmol/L", 1e3, "mol"),
    ("work", "textbook: work done lifting a box", 490.0, "J", r"\mathrm{J}", "kJ", 1e-3, "N"),
    ("force", "textbook: weight of 10 kg at g_n", 98.1, "N", r"\mathrm{N}", "kN", 1e-3, "J"),
    (
        "heat_cap",
        "specific heat capacity of water",
        4.18,
        "J g^-1 K^-1",
        r"\mathrm{J} \mathrm{~g}^{-1} \mathrm{~K}^{-1}",
        "kJ kg^-1 K^-1",
        1.0,
        "J/g",
    ),
    (
        "ionization",
        "first ionization energy of hydrogen",
        1312.0,
        "kJ/mol",
        r"\mathrm{kJ} / \mathrm{mol}",
        "J/mol",
        1e3,
        "kJ",
    ),
    ("bond", "C-C bond length", 154.0, "pm", r"\mathrm{pm}", "nm", 1e-3, "pm^2"),
]


def celsius_alt(unit: str, value: float) -> float:
    return value + 273.15 if unit == "K" else value * 9 / 5 + 32


def sci(value: float, digits: int = 4) -> tuple[str, int]:
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return mantissa, int(exponent)


def superscript(n: int) -> str:
    return str(n).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))


def fmt(value: float) -> str:
    return f"{value:.6g}"


def rows() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for key, source, value, plain, latex, alt, factor, wrong in BASES:
        alt_value = celsius_alt(alt, value) if factor is None else value * factor
        mantissa, exponent = sci(value)
        off = value * 1.05
        variants = [
            ("plain", f"{fmt(value)} {plain}", True, "the quantity as written"),
            ("latex", rf"$\boxed{{{fmt(value)} \, {latex}}}$", True, "LaTeX, boxed"),
            ("sci", rf"The answer is ${mantissa} \times 10^{{{exponent}}}\ {latex}$.", True, "scientific notation"),
            ("convert", f"Converting, we get {fmt(alt_value)} {alt}.", True, f"converted to {alt}"),
            ("bare", f"Final answer: {fmt(value)}", True, "a bare number, compared in the gold's unit"),
            (
                "round3",
                f"So the result is about {float(f'{value:.3g}'):g} {plain}.",
                True,
                "rounded to 3 significant figures",
            ),
            ("e_notation", f"{value:.4e} {plain}", True, "e notation"),
            ("unicode", f"{mantissa} × 10{superscript(exponent)} {plain}", True, "Unicode times sign and superscripts"),
            ("round2", f"{float(f'{value:.2g}'):g} {plain}", True, "rounded to 2 significant figures"),
            ("prose", f"Therefore the value is {fmt(value)} {plain}, as expected.", True, "unit inside a sentence"),
            ("wrong_unit", f"{fmt(value)} {wrong}", False, f"unit of another dimension ({wrong})"),
            ("x10", rf"$\boxed{{{fmt(value * 10)}\ \text{{{plain}}}}}$", False, "wrong magnitude (x10)"),
            ("off5", f"The answer is {fmt(off)} {plain}.", False, "5% off"),
        ]
        for name, response, expected, note in variants:
            out.append(
                {
                    "id": f"{key}-{name}",
                    "source": source,
                    "gold": fmt(value),
                    "unit": plain,
                    "response": response,
                    "expected": expected,
                    "note": note,
                }
            )
    return out


def main() -> None:
    path = Path(__file__).with_name("dev.jsonl")
    with path.open("w", encoding="utf-8") as f:
        for row in rows():
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
