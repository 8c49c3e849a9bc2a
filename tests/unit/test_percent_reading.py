"""A number written as a percentage is read with its sign, last in the text or after words an
answer phrase skips: "The probability is 50%." states 50%, which grading reads as 50 and as 0.5,
so neither gold is a certain FALSE against it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        ("0.5", "The probability is 50%.", True),
        ("50", "The probability is 50%.", True),
        (r"\frac{1}{2}", r"So the probability is $50\%$.", True),
        ("50\\%", "The probability is 50%.", True),
        ("0.5", "The probability is 0.5, or 50%.", True),
        (r"\frac{1}{2}", r"So the probability is $\frac{1}{2}$, or 50%.", True),
        ("0.25", "The probability is 0.25 (25%).", True),
        ("5", "The probability is 50%.", False),
        ("0.05", "The probability is 50%.", False),
        ("50", "So 50% of the students passed.", True),
        # the answer phrase reads the number after words it skips with its sign too
        ("0.5", "The answer is about 50%.", True),
        ("0.5", r"The answer is approximately 50\%.", True),
    ],
)
def test_a_percentage_read_last(gold: str, response: str, correct: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is correct, v
    assert v.decided_by == "fast"


@given(
    hundredths=st.integers(1, 99_99),
    escaped=st.booleans(),
    lead=st.sampled_from(["The probability is ", "So the chance is about ", "Answer: roughly "]),
)
def test_a_percentage_against_its_fraction_and_its_number(hundredths: int, escaped: bool, lead: str) -> None:
    percent = Decimal(hundredths) / 100  # 0.01 .. 99.99
    sign = r"\%" if escaped else "%"
    response = f"{lead}{percent:f}{sign}."
    assert grade(f"{percent / 100:f}", response, fallback=False).correct, response
    assert grade(f"{percent:f}", response, fallback=False).correct, response
    other = percent / 100 + Decimal("0.3")
    assert not grade(f"{other:f}", response, fallback=False).correct, response
