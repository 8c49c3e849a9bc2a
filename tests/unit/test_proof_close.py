r"""A response that ends by closing a proof states no answer there (grade.cpp, ``closes_a_proof``).

Olympiad write-ups state their answer first and end with the proof: "..., as required.", "This
contradicts the minimality of $m$.", "Thereby the solution is complete." With no marked answer,
the unmarked readers read the last math of such a text, a step of the proof. A reading that
matches the gold is still TRUE; one that does not is no certain FALSE but UNKNOWN, kept with the
fast path (the fallback would compare the same reading). The phrases are one table,
``detail::kProofCloses`` (markers.hpp), matched ignoring case in the final sentence.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

PROOF_CLOSE = (
    "undecided: no marked answer, and the response ends by closing a proof (as required, a contradiction); "
    "its last math is a step, not a stated answer"
)


@pytest.mark.parametrize(
    "response",
    [
        r"The required maximum is $n=2$. Suppose not. Then $k = 4$, a contradiction.",
        r"Hence $b_i$ can be chosen pairwise distinct, as required.",
        r"This contradicts the minimality of $m$.",
        r"Considering the special case $a=n-2, b=1$ now completes the proof.",
        "Then $f(y)=-1$.\n\nThereby the solution is complete.",
        r"So $m = 2 n-2$, as we wanted to show.",
    ],
)
def test_a_reading_from_a_proof_close_is_no_certain_false(response: str) -> None:
    v = grade("17", response)  # the fallback is on: the pair never reaches it
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", PROOF_CLOSE)


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # a reading that matches stays TRUE
        ("1", r"Hence $a=b=1$, as required.", (True, "same answer after normalization")),
        # a marked answer is read as before: the marker states it
        ("17", r"The answer is $5$. Suppose $k = 4$; a contradiction.", (False, "not equivalent")),
        # no proof close: a certain FALSE as before
        ("17", r"Hence $a = 5$.", (False, "not equivalent")),
        # the phrase is in an earlier sentence only
        ("17", r"This is a contradiction. So the value is $a = 5$.", (False, "not equivalent")),
    ],
)
def test_other_readings_are_as_before(gold: str, response: str, expected: tuple[bool, str]) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.reason) == expected


_CLOSES = st.sampled_from(
    [
        ", as required",
        ", as desired",
        ", a contradiction",
        ", which contradicts our assumption",
        ". This completes the proof",
        ". We are done",
        ". The problem is solved",
        r" $\blacksquare$",
    ]
)


@given(
    value=st.integers(min_value=-1000, max_value=1000),
    gold=st.integers(min_value=-1000, max_value=1000),
    close=_CLOSES,
    var=st.sampled_from(["k", "m", "x_1", r"\alpha"]),
)
def test_any_proof_close_never_gives_a_certain_false(value: int, gold: int, close: str, var: str) -> None:
    response = f"Assume the contrary. Then ${var} = {value}${close}."
    v = grade(str(gold), response, fallback=False)
    if gold == value:
        assert v.correct
    else:
        assert (v.correct, v.reason) == (False, PROOF_CLOSE)
