r"""A sum over a set that a condition names, against an answer with no sum.

``\sum_{i=1}^{n} i`` assigns its index a first value: SymPy evaluates it, and the fallback can
prove it equal to ``n(n+1)/2``. A sum whose subscript is a condition instead (``\sum_{x \in R}``,
``\sum_{1 \le i < j \le 2k}``, ``\sum_{i \text{ is good}}``, ``\sum_{\substack{...}}``,
``\sum_{d \mid n}``, ``\sum_p``) runs over a set that no reader enumerates: against an answer with
no sum, the fallback only ever answered "not proven equal" (eight olympiad pairs, 0.19 s of
SymPy). The fast path keeps such a pair UNKNOWN with its own reason
(``grade_text.cpp``'s ``sums_over_a_condition``; the big operators are one table,
``kBigOperators``). The tests compare with the fallback's own verdict.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import grade
from rapidgrade.fallback import run_cascade

SUM_REASON = (
    "undecided: one answer sums over a set that a condition names (\\sum_{x \\in R}, \\sum_{i<j}), the other holds "
    "no sum; no reader of the fallback enumerates such a set"
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (r"k\left(4 k^{2}+k-1\right) / 2", r"So it is $\sum_{1 \leqslant i<j \leqslant 2 k} \min (j, 2 k+1-i)$."),
        ("2^{k}", r"Hence $w(S)=\sum_{x \in R} 2^{-r(x)}+\sum_{x \in O} 2^{-r(x)}$."),
        ("-(n-1) / 2", r"We have $L=\sum_{\substack{i+j \equiv 0 \\ i \neq j}} z_{i} z_{j}$."),
        ("7", r"The answer is $\sum_{d \mid n} d$."),
        ("3", r"The answer is $\prod_{p} (1 - p^{-2})$."),
        # a condition on such a sum against a pair (the fallback: "Tuple against Integer")
        ("(1, 2)", r"$\sum_i x_i < 3$"),
    ],
)
def test_a_sum_over_a_set_stays_with_the_fast_path(gold: str, response: str) -> None:
    v = grade(gold, response)  # fallback on: the pair never reaches it
    assert v.correct is False and v.decided_by == "fast" and v.reason == SUM_REASON, v
    assert run_cascade(gold, v.extracted or "")[0] is not True  # the fallback's own verdict


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        # a sum from a first value: SymPy may evaluate it
        ("n(n+1)/2", r"The answer is $\sum_{i=1}^{n} i$."),
        ("2^n", r"The answer is $\sum_{k = 0}^{n} \binom{n}{k}$."),
        # a sum on both sides: the fallback compares them
        (r"\sum_{x \in R} x^2", r"The answer is $\sum_{y \in R} y^2$."),
    ],
)
def test_other_sums_go_on_as_before(gold: str, response: str) -> None:
    assert grade(gold, response, fallback=False).reason != SUM_REASON


def test_a_sum_from_a_first_value_reaches_the_fallback_that_proves_it() -> None:
    v = grade("n(n+1)/2", r"The answer is $\sum_{i=1}^{n} i$.")
    assert v.correct is True and v.decided_by == "sympy", v


_CONDITIONS = st.sampled_from(
    [
        "x \\in R",
        "1 \\le i < j \\le n",
        "1 \\leqslant i<j \\leqslant 2 k",
        "d \\mid n",
        "d | n",
        "\\substack{i + j = n \\\\ i \\ne j}",
        "p \\notin S",
        "a \\subseteq S",
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    condition=_CONDITIONS,
    big=st.sampled_from(["\\sum", "\\prod", "\\sum\\limits"]),
    summand=st.sampled_from(["x", "2^{-r(x)}", "\\min (j, i)", "a_i"]),
    gold=st.sampled_from(["5", "2^{k}", "n^2 + 1", "\\frac{n}{2}"]),
)
def test_any_sum_over_a_condition_against_no_sum_is_kept(condition: str, big: str, summand: str, gold: str) -> None:
    v = grade(gold, f"The answer is ${big}_{{{condition}}} {summand}$.", fallback=False)
    assert v.correct is False and v.reason == SUM_REASON, v
