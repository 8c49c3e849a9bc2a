r"""A response that argues a proof states no answer in its last math (grade.cpp, ``closes_a_proof``,
``argues_a_proof``).

Olympiad write-ups state their answer first, in words, and end with the proof: "..., as required.",
"This contradicts the minimality of $m$.", "Thereby the solution is complete."; on the way they
argue it: "We show that ...", "Lemma 2.", "by induction on $n$". With no marked answer, the
unmarked readers read the last math of such a text, which may be a step of the proof. A reading
that matches the gold is still TRUE; one that does not, or that the core cannot read, is no
certain FALSE but UNKNOWN, kept with the fast path (the fallback would read the same step). A text
that ends by stating a contradiction ("Then $k = 4$, a contradiction.") is the exception: its last
math is the case it refutes, so a reading that matches is UNKNOWN too. The phrases are three
tables in markers.hpp: ``detail::kProofCloses`` and ``detail::kContradictions``, matched ignoring
case in the final sentence, and ``detail::kProofArguments``, matched ignoring case anywhere, where
a word starts.

The same holds for a last math that states a condition against a gold value ("so $k \le 3$"
against 3): a bound on the way to the answer, or another question's answer; it is UNKNOWN with the
reason of a condition against a value.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

PROOF_CLOSE = (
    "undecided: no marked answer, and the response argues a proof (we show, a lemma, by induction) or ends "
    "by closing one (as required, a contradiction); its last math may be a step, not a stated answer"
)
CONDITION = (
    "undecided: one answer states a condition (an inequality), the other a value, a list of values or an equation"
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
        # a check of a result by another way
        r"Summing again, we get $100(67)(199)$, which equals $199(200) \frac{67}{2}$, as expected.",
        # a proof argued earlier: "we show", a lemma, induction, "it remains to"
        "We show that $n = 17$ works.\n\nThen $a_2 = 5$.",
        "Lemma 1. Every $k$ is odd.\n\nHence $k+1 = 6$.",
        r"By induction on $n$ we get $a_n \ge 2$. So $x = 4$.",
        r"It remains to check $m = 3$. Then $f(3) = 9$.",
        r"Without loss of generality $a = 1$. Then $b = 2$.",
        # a step the core cannot read at all: the fallback would read the same step
        r"We show that $n$ is odd. Taking square roots we get $\mathcal{I}(2 N, x)$.",
        r"It remains to note that $6 \mid n+1$, a contradiction.",
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
        # ... except in a final sentence that states a contradiction: the case it refutes
        ("4", r"Then $k = 4$, a contradiction.", (False, PROOF_CLOSE)),
        (
            "4",
            "So 195 is divisible by 4, which is false. This contradiction completes our solution.",
            (False, PROOF_CLOSE),
        ),
        ("3", r"This contradicts $n > 3$, so the answer is $n = 3$.", (True, "equivalent")),
        # a marked answer is read as before: the marker states it
        ("17", r"The answer is $5$. Suppose $k = 4$; a contradiction.", (False, "not equivalent")),
        # no proof close: a certain FALSE as before
        ("17", r"Hence $a = 5$.", (False, "not equivalent")),
        # a closing phrase in an earlier sentence only
        ("17", r"This is a contradiction. So the value is $a = 5$.", (False, "not equivalent")),
        # an argument phrase inside a longer word is none ("dilemma", "reclaim")
        ("17", r"A dilemma: we reclaim $a = 5$.", (False, "not equivalent")),
        # a last condition against a gold value: UNKNOWN ...
        ("3", r"Dividing by $-3$, we get $x \le 2$.", (False, CONDITION)),
        ("17", r"Hence $m \neq 2$.", (False, CONDITION)),
        # ... and TRUE where it states the gold's condition; a marked condition is read as stated
        (r"x \le 2", r"Dividing by $-3$, we get $x \le 2$.", (True, "same answer after normalization")),
        ("3", r"The answer is $x \le 2$.", (False, "not equivalent")),
    ],
)
def test_other_readings_are_as_before(gold: str, response: str, expected: tuple[bool, str]) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.reason) == expected


def _assert_no_certain_false(gold: int, value: int, response: str) -> None:
    """The response's last math states *value*: TRUE against it (UNKNOWN where the text ends by
    stating a contradiction, whose math it refutes), UNKNOWN with the proof reason against any
    other gold."""
    v = grade(str(gold), response, fallback=False)
    if gold == value and "contradict" not in response:
        assert v.correct
    else:
        assert (v.correct, v.reason) == (False, PROOF_CLOSE)


_CLOSES = st.sampled_from(
    [
        ", as required",
        ", as desired",
        ", as expected",
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
    _assert_no_certain_false(gold, value, f"Assume the contrary. Then ${var} = {value}${close}.")


@given(
    value=st.integers(min_value=-1000, max_value=1000),
    gold=st.integers(min_value=-1000, max_value=1000),
    lead=st.sampled_from(["We show that", "We will prove that", "Lemma 2.", "Claim:", "By induction,", "WLOG"]),
    var=st.sampled_from(["k", "m", "x_1", r"\alpha"]),
)
def test_an_argued_proof_never_gives_a_certain_false(value: int, gold: int, lead: str, var: str) -> None:
    _assert_no_certain_false(gold, value, f"{lead} the set is finite.\n\nTherefore ${var} = {value}$.")


@given(
    bound=st.integers(min_value=-1000, max_value=1000),
    gold=st.integers(min_value=-1000, max_value=1000),
    rel=st.sampled_from(["<", ">", r"\le", r"\geq", r"\leqslant", r"\neq"]),
)
def test_a_last_condition_against_a_value_is_no_certain_false(bound: int, gold: int, rel: str) -> None:
    v = grade(str(gold), f"Hence $k {rel} {bound}$.", fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", CONDITION)


def test_a_step_the_core_cannot_read_goes_to_the_fallback_without_a_proof() -> None:
    # the same unread reading with no proof argued is the fallback's to try
    v = grade("17", r"Taking square roots we get $\mathcal{I}(2 N, x)$.")
    assert v.decided_by != "fast"
