r"""The last of alternatives that "or" joins is another reading of an unmarked answer.

Contest solutions often state a value and then restate it in a simpler form after "or": "the
surface area of the prism is equal to $2(27 \mathrm{~cm}^{2}+32 \mathrm{~cm}^{2}+24
\mathrm{~cm}^{2})$ or $166 \mathrm{~cm}^{2}$." With no marked answer, the final span reads both
as a list of alternatives. When the grader cannot show the list equal to the gold (here units
inside a sum keep the first member symbolic), the last alternative is another reading
(``extract.other_readings``): a gold that matches it makes the FALSE UNKNOWN, not certain. A gold
that matches neither stays a certain FALSE, and a marked answer has no other readings.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

OTHER = "undecided: the unmarked answer differs, but another reading of the final statement matches"

PRISM = (
    "Thus, since the prism has two faces of each type, the surface area of the prism is equal to "
    "$2\\left(27 \\mathrm{~cm}^{2}+32 \\mathrm{~cm}^{2}+24 \\mathrm{~cm}^{2}\\right)$ or $166 \\mathrm{~cm}^{2}$."
)


def test_the_restated_value_is_another_reading() -> None:
    v = grade("166", PRISM, fallback=False)
    assert (v.correct, v.decided_by, v.method, v.reason) == (False, "fast", "final_span", OTHER), v
    assert grade("83", PRISM, fallback=False).reason == "not equivalent"


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # the alternatives as a whole still decide where they can
        ("166", "So the area is $2(27+32+24)$ or $166$.", (True, "equivalent")),
        ("12", "Hence $x=2$ or $x=12$.", (False, OTHER)),
        # a marked answer: no other readings
        ("166", "The answer is $2(27 \\mathrm{~cm}^{2}+56 \\mathrm{~cm}^{2})$ or $166 \\mathrm{~cm}^{2}$.", None),
    ],
)
def test_other_alternatives(gold: str, response: str, expected: tuple[bool, str] | None) -> None:
    v = grade(gold, response, fallback=False)
    if expected is None:
        assert v.method == "answer_is" and v.reason != OTHER, v
    else:
        assert (v.correct, v.reason) == expected, v


@given(
    terms=st.lists(st.integers(1, 999), min_size=2, max_size=4),
    factor=st.integers(2, 9),
    unit=st.sampled_from(["cm", "m", "km", "in"]),
    other=st.integers(1, 10**5),
)
def test_any_value_restated_after_or(terms: list[int], factor: int, unit: str, other: int) -> None:
    total = factor * sum(terms)
    sum_with_units = "+".join(f"{t} \\mathrm{{~{unit}}}^{{2}}" for t in terms)
    text = (
        "We first find the faces.\n\n"
        f"So the area is ${factor}\\left({sum_with_units}\\right)$ or ${total} \\mathrm{{~{unit}}}^{{2}}$."
    )
    v = grade(str(total), text, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", OTHER), text
    if other != total:
        assert grade(str(other), text, fallback=False).reason == "not equivalent", text
