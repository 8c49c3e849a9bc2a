r"""Physical quantities as they are written: powers of ten in the number or the unit, LaTeX
spacing inside units, prefixes, compound units, temperatures, angles, percentages; the one unit
table against pint and against the math normalizer's unit words; the SciBench-style golds."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import _core
from rapidgrade.normalize import UNIT_WORDS
from rapidgrade.tasks.physics import PhysicsConfig, grade_physics, grade_physics_many, normalize_answer
from rapidgrade.units import parse_unit, read_quantity, unit_info

DATA = Path(__file__).resolve().parents[1] / "data" / "physics"


def _same_unit(expression: str | None, expected: str) -> bool:
    """Two pint expressions mean the same unit: same dimension, same scale and offset (a unit is
    compared by what it means, never by its spelling)."""
    if expression is None:
        return False
    a, b = unit_info(expression), unit_info(expected)
    assert b is not None, expected
    return (
        a is not None
        and a.dimension == b.dimension
        and math.isclose(a.scale, b.scale, rel_tol=1e-12)
        and math.isclose(a.offset, b.offset, abs_tol=1e-9)
    )


# -- every form of the issue, read back --------------------------------------------------------

# (text, value, unit as a pint expression of the same meaning)
FORMS = [
    (r"$10^{-6} \mathrm{C}$", 1e-6, "coulomb"),
    (r"3.2 \times 10^{3}\,\mathrm{J}", 3200.0, "joule"),
    ("1.6e-19 C", 1.6e-19, "coulomb"),
    (r"$\mathrm{10^{5}\,Pa}$", 1e5, "pascal"),
    (r"2\cdot10^{5} Pa", 2e5, "pascal"),
    (r"2 \mathrm{10^{5}\,Pa}", 2e5, "pascal"),
    (r"1.6 $10^{-19} \mathrm{~C}$", 1.6e-19, "coulomb"),
    (r"1.6 \times 10^{-19}\,\mathrm{C}", 1.6e-19, "coulomb"),
    ("0.16 aC", 0.16, "attocoulomb"),
    (r"9.8\ \mathrm{m\,s^{-2}}", 9.8, "meter / second ** 2"),
    (r"9.8\;\mathrm{m\;s^{-2}}", 9.8, "meter / second ** 2"),
    (r"-41 \mathrm{kJ\,mol^{-1}}", -41.0, "kilojoule / mole"),
    (r"5 \mu\mathrm{C}", 5.0, "microcoulomb"),
    (r"5 \mu C", 5.0, "microcoulomb"),
    ("5 \u03bcC", 5.0, "microcoulomb"),  # GREEK SMALL LETTER MU
    ("5 \u00b5C", 5.0, "microcoulomb"),  # MICRO SIGN
    (r"$500/11 \mathrm{m}$", 500 / 11, "meter"),
    ("3 N·m", 3.0, "newton * meter"),
    (r"3 N\cdot m", 3.0, "newton * meter"),
    ("3 N-m", 3.0, "newton * meter"),
    ("3 kg m^2 s^{-1}", 3.0, "kilogram * meter ** 2 / second"),
    ("8.3 J/(mol·K)", 8.3, "joule / mole / kelvin"),
    (r"8.3 J/(mol\cdot K)", 8.3, "joule / mole / kelvin"),
    ("25 °C", 25.0, "degree_Celsius"),
    (r"25^{\circ}\mathrm{C}", 25.0, "degree_Celsius"),
    (r"25 { }^{\circ} \mathrm{C}", 25.0, "degree_Celsius"),
    ("77 degrees Fahrenheit", 77.0, "degree_Fahrenheit"),
    ("300 K", 300.0, "kelvin"),
    (r"30^\circ", 30.0, "degree"),
    (r"30^{\circ}", 30.0, "degree"),
    ("45%", 45.0, "percent"),
    (r"45\%", 45.0, "percent"),
    (r"1.25 $10^{-3} \%$", 1.25e-3, "percent"),
    (r"4.18 J g^{-1} {}^{\circ}C^{-1}", 4.18, "joule / gram / kelvin"),  # an interval in a compound
    (r"29.36 $\mathrm{in}$", 29.36, "inch"),
    (r"1838 $\mathrm{ft-lb}$", 1838.0, "foot_pound"),
    (r"1\,000 m", 1000.0, "meter"),
    ("672.4 Year", 672.4, "year"),
    (r"1.07 $10^{16}$ photons", 1.07e16, "count"),
]


@pytest.mark.parametrize(("text", "value", "unit"), FORMS)
def test_form_read_back(text: str, value: float, unit: str) -> None:
    q = read_quantity(text)
    assert q is not None and q.complete, text
    assert math.isclose(q.value, value, rel_tol=1e-12), (text, q.value)
    assert _same_unit(q.unit, unit), (text, q.unit)


@pytest.mark.parametrize(("text", "value", "unit"), FORMS)
def test_form_as_gold_and_as_response(text: str, value: float, unit: str) -> None:
    # as a gold against an equal quantity in another spelling, and as the response to it
    info = unit_info(unit)
    assert info is not None
    plain = f"{value!r} {unit}"  # pint's own spelling: the grammar does not read it, so:
    other = {"degree_Celsius": "°C", "degree_Fahrenheit": "°F", "degree": "deg", "percent": "%", "count": ""}.get(unit)
    if other is None:
        si = info.scale * value  # in SI base units, written out by pint's dimension
        base = " ".join(f"{_BASE[d]}^{int(p)}" for d, p in info.dimension) or ""
        plain = f"{si!r} {base}".strip()
    else:
        plain = f"{value!r} {other}".strip()
    v1 = grade_physics(text, rf"The answer is $\boxed{{{plain}}}$.")
    v2 = grade_physics(plain, rf"So the result is $\boxed{{{text.strip('$')}}}$.")
    v3 = grade_physics(plain, f"So the result is {text.replace('$', '')}")
    for v in (v1, v2, v3):
        assert v.correct and v.path == "quantity", (text, plain, v.reason)


_BASE = {
    "[length]": "m",
    "[mass]": "kg",
    "[time]": "s",
    "[current]": "A",
    "[temperature]": "K",
    "[substance]": "mol",
    "[luminosity]": "cd",
}


def test_normalize_answer_reads_the_forms_as_quantities() -> None:
    assert normalize_answer(r"$9.8\ \mathrm{m\,s^{-2}}$", sympy=False) == ("physical_quantity", "9.8 m s^{-2}")
    assert normalize_answer(r"$-41 \mathrm{kJ\,mol^{-1}}$", sympy=False) == ("physical_quantity", "-41 kJ mol^{-1}")
    assert normalize_answer(r"$5 \mu\mathrm{C}$", sympy=False) == ("physical_quantity", r"5 \mu C")
    assert normalize_answer(r"$500/11 \mathrm{m}$", sympy=False) == ("physical_quantity", "45.45454545454545 m")
    assert normalize_answer(r"$3.2 \times 10^{3}\,\mathrm{J}$", sympy=False) == ("physical_quantity", "3200 J")
    assert normalize_answer(r"$45\%$", sympy=False) == ("physical_quantity", r"45 \%")
    # equations and formulas keep the flow's dropped spacing; common words are no units there
    assert normalize_answer(r"$F = m\,a$", sympy=False) == ("equation", "F = ma")
    assert normalize_answer("$2in$", sympy=False) == ("formula", "2in")
    assert normalize_answer(r"$2\pi$", sympy=False) == ("formula", r"2\pi")


def test_the_issue_pair_grades_equal() -> None:
    v = grade_physics(r"1.6 \times 10^{-19}\,\mathrm{C}", "The charge is 0.16 aC.")
    assert v.correct and v.reason.startswith("quantity:") and v.reason.endswith("after aC→C")
    v = grade_physics("0.16 aC", r"$q = \boxed{1.6 \times 10^{-19}\,\mathrm{C}}$")
    assert v.correct
    # the SciBench layout: the number and its unit (with the power of ten) in separate fields
    v = grade_physics("1.6", r"$q = 1.6 \times 10^{-19}$ C", unit=r"$10^{-19} \mathrm{~C}$")
    assert v.correct, v.reason
    v = grade_physics("1.6", "q = 0.16 aC", unit=r"$10^{-19} \mathrm{~C}$")
    assert v.correct, v.reason
    v = grade_physics("1.6", "q = 1.6 C", unit=r"$10^{-19} \mathrm{~C}$")  # the power forgotten
    assert not v.correct


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (r"9.8\ \mathrm{m\,s^{-2}}", r"$\boxed{980\,\mathrm{cm\,s^{-2}}}$", True),
        (r"9.8\ \mathrm{m\,s^{-2}}", r"$\boxed{9.8\,\mathrm{m/s^2}}$", True),
        (r"9.8\ \mathrm{m\,s^{-2}}", r"$\boxed{9.8\,\mathrm{ms^{-2}}}$", False),  # ms is a millisecond (SI)
        (r"-41 \mathrm{kJ\,mol^{-1}}", r"$\Delta H = -41000\ \mathrm{J\,mol^{-1}}$", True),
        (r"-41 \mathrm{kJ\,mol^{-1}}", r"$\Delta H = -41\ \mathrm{kJ}$", False),
        (r"5 \mu\mathrm{C}", r"$\boxed{5 \times 10^{-6}\,\mathrm{C}}$", True),
        (r"5 \mu\mathrm{C}", r"The charge is $5\,\mathrm{mC}$.", False),
        ("3 N·m", r"$\boxed{3\,\mathrm{J}}$", True),
        ("3 N·m", r"$\boxed{3\,\mathrm{N}}$", False),
        ("8.314 J/(mol·K)", r"$R = 8.314\ \mathrm{J\,mol^{-1}\,K^{-1}}$", True),
        ("25 °C", "The final temperature is 298.15 K.", True),
        ("25 °C", "The final temperature is 77 °F.", True),
        ("298 K", r"The final temperature is $\boxed{25^{\circ}\mathrm{C}}$.", True),
        ("25 °C", "The final temperature is 25 K.", False),  # temperatures convert with their offsets
        (r"30^\circ", "The angle is 0.5236 rad", True),
        (r"30^\circ", "The angle is 30 m", False),
        ("45%", r"The efficiency is $45\%$", True),
        (r"$500/11 \mathrm{m}$", "The distance is 45.45 m.", True),
        (r"4.18 J g^{-1} {}^{\circ}C^{-1}", "c = 4.18 J/(g K)", True),
    ],
)
def test_pairs(gold: str, response: str, correct: bool) -> None:
    v = grade_physics(gold, response)
    assert v.correct is correct and v.path == "quantity", v.reason


def test_a_temperature_difference_is_read_as_a_temperature() -> None:
    # out of scope, and documented: "a rise of 10 °C" is read as the temperature 10 °C, so the
    # equal interval "10 K" is 283.15 °C away from it
    assert not grade_physics("10 °C", "The temperature rises by 10 K.").correct


def test_common_words_are_units_only_alone() -> None:
    assert read_quantity("5 in") == read_quantity(r"5 \mathrm{in}.")
    q = read_quantity("5 in total")
    assert q is not None and q.unit is None and not q.complete
    assert parse_unit("in") == "inch" and parse_unit("in", greedy=True) is None


def test_spacing_inside_numbers_and_commands() -> None:
    assert read_quantity(r"1\,000\,000 J") == read_quantity("1000000 J")
    q = read_quantity(r"5\,\mu\,C")
    assert q is not None and q.unit == "microcoulomb"


# -- the one table -----------------------------------------------------------------------------


def test_every_row_means_something_to_pint() -> None:
    for symbol, pint_name, prefixable in _core.PHYSICS_UNIT_SYMBOLS:
        assert unit_info(pint_name) is not None, symbol
        if prefixable:
            assert unit_info("kilo" + pint_name) is not None, symbol


# The math normalizer's unit words that name no physical unit (stripped there as words).
NOT_PHYSICAL = {"units", "unit", "sq", "square", "cubic", "dollars", "dollar", "cents", "cent"}


def test_math_unit_words_are_in_the_units_table() -> None:
    """Every unit word the math normalizer strips is a unit of the physics table (read alone,
    with a meaning pint gives): one table of what units are."""
    for word in sorted(UNIT_WORDS - NOT_PHYSICAL):
        expression = parse_unit(word)
        assert expression is not None, f"{word!r} is stripped as a unit by the math normalizer but not in units.hpp"
        assert unit_info(expression) is not None, word
    for word in NOT_PHYSICAL:
        assert word in UNIT_WORDS


# -- the SciBench-style golds ------------------------------------------------------------------


def _style_rows() -> list[dict[str, object]]:
    text = (DATA / "scibench_style.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_scibench_style_set_is_what_the_script_builds() -> None:
    spec = importlib.util.spec_from_file_location("make_scibench_style", DATA / "make_scibench_style.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.rows() == _style_rows()


def test_scibench_style_golds_are_read_as_quantities() -> None:
    """>= 99% of the golds (number + unit field) read whole, with the right value and a unit of
    the right dimension and scale; and each graded equal to its value in plain units."""
    rows = _style_rows()
    assert len(rows) >= 900
    read_ok = 0
    for r in rows:
        q = read_quantity(f"{r['gold']} {r['unit']}")
        value = float(r["value"])  # type: ignore[arg-type]
        if q is None or not q.complete or not math.isclose(q.value, value, rel_tol=1e-12):
            continue
        if (r["pint"] == "dimensionless" and q.unit is None) or _same_unit(q.unit, str(r["pint"])):
            read_ok += 1
    assert read_ok / len(rows) >= 0.99, f"{read_ok}/{len(rows)}"
    golds = [str(r["gold"]) for r in rows]
    units = [str(r["unit"]) for r in rows]
    responses = [rf"\boxed{{{r['value']!r} {r['plain']}}}" for r in rows]
    verdicts = grade_physics_many(golds, responses, units=units, config=PhysicsConfig(rel_tol=1e-9, sig_figs=False))
    graded = sum(v.correct and v.path == "quantity" for v in verdicts)
    assert graded / len(rows) >= 0.99, f"{graded}/{len(rows)}"


# -- properties over generated number x unit forms ---------------------------------------------

# (LaTeX spelling of a unit, the same unit with another prefix and the factor between them,
# the pint meaning, a unit of another dimension)
UNIT_FORMS = [
    (r"\mathrm{C}", r"\mathrm{nC}", 1e9, "coulomb", r"\mathrm{V}"),
    (r"\mu\mathrm{C}", r"\mathrm{pC}", 1e6, "microcoulomb", r"\mathrm{J}"),
    (r"\mathrm{kJ\,mol^{-1}}", r"\mathrm{J\,mol^{-1}}", 1e3, "kilojoule / mole", r"\mathrm{kJ}"),
    (r"\mathrm{~kJ} \mathrm{~mol}^{-1}", r"\mathrm{MJ} / \mathrm{mol}", 1e-3, "kilojoule / mole", r"\mathrm{~J}"),
    (r"\mathrm{m\,s^{-2}}", r"\mathrm{cm\,s^{-2}}", 1e2, "meter / second ** 2", r"\mathrm{m\,s^{-1}}"),
    (r"\mathrm{Pa}", r"\mathrm{kPa}", 1e-3, "pascal", r"\mathrm{N}"),
    (r"\mathrm{N} \cdot \mathrm{m}", r"\mathrm{kN\cdot m}", 1e-3, "newton * meter", r"\mathrm{N}"),
    (
        r"\mathrm{J}/(\mathrm{mol}\cdot\mathrm{K})",
        r"\mathrm{kJ}/(\mathrm{mol}\cdot\mathrm{K})",
        1e-3,
        "joule / mole / kelvin",
        r"\mathrm{J}/\mathrm{K}",
    ),
    (
        r"\mathrm{kg\,m^{2}\,s^{-1}}",
        r"\mathrm{g\,m^{2}\,s^{-1}}",
        1e3,
        "kilogram * meter ** 2 / second",
        r"\mathrm{kg\,m\,s^{-1}}",
    ),
    ("μC", "nC", 1e3, "microcoulomb", "mC s"),
    (r"\mathrm{eV}", r"\mathrm{meV}", 1e3, "electron_volt", r"\mathrm{V}"),
    (r"\mathrm{nm}", r"\mathrm{\AA}", 10.0, "nanometer", r"\mathrm{nm^{2}}"),
]

# How the number is written: (format of mantissa m and power n, the value it denotes)
NUMBER_FORMS = [
    "{m} \\times 10^{{{n}}}",
    "{m}\\cdot10^{{{n}}}",
    "{m}e{n}",
    "{m} \\mathrm{{10^{{{n}}}}}",
    "{m} $10^{{{n}}}$",
    "{m}\\times10^{{{n}}}",
]

mantissas = st.decimals(min_value=-999, max_value=999, places=3, allow_nan=False, allow_infinity=False).filter(
    lambda d: d != 0
)


@settings(deadline=None, max_examples=200)
@given(
    mantissa=mantissas,
    n=st.integers(min_value=-25, max_value=25),
    form=st.sampled_from(NUMBER_FORMS),
    unit=st.sampled_from(UNIT_FORMS),
    spacing=st.sampled_from([" ", r"\,", r"\ ", r"\;", "~", ""]),
    wrap=st.sampled_from(["{}", "${}$", r"\({}\)", r"$\boxed{{{}}}$"]),
)
def test_generated_forms_read_back_and_grade(
    mantissa: object, n: int, form: str, unit: tuple[str, str, float, str, str], spacing: str, wrap: str
) -> None:
    latex, other, factor, meaning, wrong = unit
    m = str(mantissa)
    value = float(f"{m}e{n}")
    number = form.format(m=m, n=n)
    if "$" in number and "$" in wrap:
        number = number.replace("$", "")
    gold = wrap.format(f"{number}{spacing or ' '}{latex}")
    q = read_quantity(gold)
    assert q is not None and q.complete, gold
    assert math.isclose(q.value, value, rel_tol=1e-12), (gold, q.value, value)
    assert _same_unit(q.unit, meaning), (gold, q.unit)
    # the same quantity with another prefix grades equal (as a response, and the other way)
    converted = f"{value * factor!r} {other}"
    for g, r in ((gold, f"The answer is ${converted}$."), (f"${converted}$", f"The answer is {gold}.")):
        v = grade_physics(g, r)
        assert v.correct and v.path == "quantity", (g, r, v.reason)
    # a unit of another dimension grades wrong, whatever the number
    v = grade_physics(gold, f"The answer is ${value!r}\\ {wrong}$.")
    assert not v.correct and "unit mismatch" in v.reason, (gold, v.reason)


def test_debye_is_a_unit_only_where_nothing_follows() -> None:
    # SciBench writes dipole moments in debye ("1.85 D"); "3 D shapes" is a number and a text
    assert grade_physics("6.17e-30 C m", r"$\boxed{1.85\ \mathrm{D}}$").correct
    assert grade_physics("1.85 D", r"The dipole moment is $\boxed{1.85\ \mathrm{D}}$").unit == "D"
    assert not grade_physics("1.85 D", r"$\boxed{1.85\ \mathrm{C}}$").correct  # another dimension
    assert grade_physics("3", "so there are 3 D shapes").unit is None
