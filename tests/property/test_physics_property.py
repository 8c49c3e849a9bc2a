"""Properties of the physics task: normalization is idempotent on its own string outputs, unit
conversion round-trips, and a quantity equals itself written with any SI prefix."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import _core
from rapidgrade.tasks.physics import grade_physics, normalize_answers_many
from rapidgrade.units import convert, unit_info

PIECES = [
    "$",
    "$$",
    "\\boxed{",
    "\\text{",
    "\\mathrm{",
    "}",
    "{",
    "\\frac{",
    "=",
    "-",
    "10^{4}",
    "^",
    "2",
    "9.8",
    " ",
    "m/s^2",
    "kJ",
    "\\mu",
    "C",
    "x",
    "\\,",
    "\\[",
    "\\]",
    "a + b",
    "F",
    "ma",
    "atm",
    "\\AA",
    "/",
]


@settings(deadline=None, max_examples=300)
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join) | st.text(max_size=40))
def test_normalize_idempotent_on_string_values(answer: str) -> None:
    [(category, value)] = normalize_answers_many([answer])
    if isinstance(value, str):
        [(_, again)] = normalize_answers_many([value])
        assert again == value or (isinstance(again, float) and category in ("formula", "physical_quantity", "text"))
    else:
        assert isinstance(value, float) and category == "number"


UNITS = [
    "meter",
    "kilojoule * mole ** -1",
    "standard_atmosphere",
    "electron_volt",
    "degree_Celsius",
    "degree_Fahrenheit",
    "kelvin",
    "angstrom",
    "meter * second ** -2",
    "liter",
]


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(UNITS), st.sampled_from(UNITS), st.floats(-1e6, 1e6, allow_nan=False))
def test_conversion_round_trips(a: str, b: str, value: float) -> None:
    ia, ib = unit_info(a), unit_info(b)
    assert ia is not None and ib is not None
    if ia.dimension != ib.dimension:
        return
    back = convert(convert(value, ia, ib), ib, ia)
    assert math.isclose(back, value, rel_tol=1e-9, abs_tol=1e-6)


PREFIXES = [(sym, name) for sym, name in _core.PHYSICS_UNIT_PREFIXES if sym.isascii() and sym.isalpha()]
FACTORS = {
    "yotta": 24,
    "zetta": 21,
    "exa": 18,
    "peta": 15,
    "tera": 12,
    "giga": 9,
    "mega": 6,
    "kilo": 3,
    "hecto": 2,
    "deca": 1,
    "deci": -1,
    "centi": -2,
    "milli": -3,
    "micro": -6,
    "nano": -9,
    "pico": -12,
    "femto": -15,
    "atto": -18,
    "zepto": -21,
    "yocto": -24,
}


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(PREFIXES), st.sampled_from(["m", "J", "Pa", "C", "eV", "mol", "s"]), st.floats(0.001, 1000))
def test_quantity_equals_itself_in_any_prefix(prefix: tuple[str, str], symbol: str, value: float) -> None:
    sym, name = prefix
    written = value * 10.0 ** -FACTORS[name]
    verdict = grade_physics(repr(value), f"{written:.12e} {sym}{symbol}", unit=symbol)
    assert verdict.correct, verdict.reason


def _printf_number(value: float) -> str:
    """The quantity's number as the flow writes it, by its definition: "%.0f" for an integral
    value below 1e16, else "%.{p}g" with p the fewest digits that read back to the value."""
    if value == 0:
        return "0"
    if abs(value) < 1e16 and value == int(value):
        return f"{value:.0f}"
    for p in range(1, 18):
        text = f"{value:.{p}g}"
        if float(text) == value:
            return text
    return f"{value:.17g}"


@settings(deadline=None, max_examples=500)
@given(
    st.integers(-(10**18), 10**18),
    st.integers(0, 10**17),
    st.integers(0, 17),
)
def test_quantity_number_is_printf_shortest_g(whole: int, fraction: int, frac_digits: int) -> None:
    # a decimal written without an exponent, read exactly as Python reads it
    decimal = f"{whole}" if frac_digits == 0 else f"{whole}.{fraction % 10**frac_digits:0{frac_digits}d}"
    category, value = normalize_answers_many([f"${decimal} \\mathrm{{m}}$"])[0]
    assert category == "physical_quantity"
    assert value == f"{_printf_number(float(decimal))} m"
