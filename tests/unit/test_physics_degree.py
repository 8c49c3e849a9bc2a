r"""A degree sign raised on an empty group (``{ }^{\circ}C``, as LaTeX writes a sign with nothing
before it, and as SciBench-style answers write temperatures) is read as the sign alone."""

from __future__ import annotations

import pytest

import rapidgrade
from rapidgrade.units import parse_unit


@pytest.mark.parametrize("unit", ["{ }^{\\circ} C", "{}^{\\circ}C", "{ }^\\circ C", "^{\\circ} C", "°C"])
def test_degree_celsius_after_an_empty_group(unit: str) -> None:
    assert parse_unit(unit) == "degree_Celsius"


@pytest.mark.parametrize("text", ["{ }", "{ } C", "{ }^{2} C", "{x}^{\\circ} C"])
def test_an_empty_group_alone_or_before_another_power_is_no_degree(text: str) -> None:
    assert parse_unit(text) != "degree_Celsius"


@pytest.mark.parametrize(
    "response",
    [
        "The answer is $1.000 \\times 10^{2}\\ { }^{\\circ} \\mathrm{C}$.",
        "$\\boxed{100 \\, { }^{\\circ} \\mathrm{C}}$",
        "$\\boxed{373.15 \\mathrm{~K}}$",
    ],
)
def test_the_quantity_is_read_with_its_unit(response: str) -> None:
    v = rapidgrade.grade("100 °C", response, task="physics")
    assert v.correct is True, v
    assert rapidgrade.grade("50 °C", response, task="physics").correct is False
