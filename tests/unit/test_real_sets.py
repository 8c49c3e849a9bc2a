"""Sets of reals: intervals, points and unions with constant ends, compared as sets.

A union is merged into its largest disjoint intervals before it is compared, so two ways of
writing one set match and a union of two pieces never matches one interval. The generated test
compares every verdict with the sets' membership on a grid fine enough for integer ends.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import Tri, equivalent, grade

T, F, U = Tri.TRUE, Tri.FALSE, Tri.UNKNOWN


@pytest.mark.parametrize(
    ("gold", "answer", "expected"),
    [
        # one set written two ways
        (r"(1,2)\cup[2,3]", "(1,3]", T),
        (r"(0,1]\cup(1,2)", r"(0,1)\cup[1,2)", T),
        (r"[0,1]\cup\{1\}", "[0,1]", T),
        (r"(0,1)\cup\{1\}", "(0,1]", T),
        (r"(\frac{1}{2},1)\cup[1,2)", "(0.5,2)", T),
        (r"(1,2)\cup(3,4)", r"(3,4)\cup(1,2)", T),
        (r"(-\infty,\sqrt{2})\cup(\sqrt{2},\infty)", r"(-\infty,1.41421356)\cup(1.41421356,\infty)", T),
        # a point left out, a piece missing, two pieces against one interval
        (r"(0,1)\cup(1,2)", "(0,2)", F),
        (r"(1,2)\cup(3,4)", "(1,4)", F),
        (r"(1,2)\cup(3,4)", "(1,2)", F),
        (r"(-\sqrt{11},-2)\cup(\sqrt{11},9)", r"(\sqrt{11}, 9)", F),
        (r"(-\infty,1)\cup(1,\infty)", r"(-\infty,2)\cup(2,\infty)", F),
        # a condition in one variable is the interval it states
        (r"(-\sqrt{11},-2)\cup(\sqrt{11},9)", r"\sqrt{11}<x<9", F),  # an olympiad solution's reading
        (r"(-\infty, 0) \cup\{1\}", "k<-5", F),
        ("x<1", r"(-\infty,1)\cup(1,2)", F),
        # symbolic ends: no order, the sets' pieces compared as written
        (r"(-\infty,a)\cup(a,\infty)", r"(-\infty,a)\cup(a,\infty)", T),
        (r"(-\infty,a)\cup(b,\infty)", r"(-\infty,b)\cup(a,\infty)", U),
    ],
)
def test_sets_of_reals(gold: str, answer: str, expected: Tri) -> None:
    assert equivalent(gold, answer) is expected
    assert equivalent(answer, gold) is expected


def test_a_union_against_an_interval_is_decided_by_the_fast_path() -> None:
    v = grade(r"(-\sqrt{11},-2)\cup (\sqrt{11},9)", r"so $\boxed{(\sqrt{11}, 9)}$")
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", "not equivalent"), v


_END = st.integers(-4, 4)


@st.composite
def _pieces(draw: st.DrawFn) -> list[tuple[int, int, bool, bool]]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        lo, hi = sorted((draw(_END), draw(_END)))
        if lo == hi:
            out.append((lo, lo, False, False))  # a point
        else:
            out.append((lo, hi, draw(st.booleans()), draw(st.booleans())))
    return out


def _latex(pieces: list[tuple[int, int, bool, bool]]) -> str:
    parts = []
    for lo, hi, lo_open, hi_open in pieces:
        if lo == hi:
            parts.append(rf"\{{{lo}\}}")
        else:
            parts.append(("(" if lo_open else "[") + f"{lo},{hi}" + (")" if hi_open else "]"))
    return r" \cup ".join(parts)


def _members(pieces: list[tuple[int, int, bool, bool]]) -> frozenset[int]:
    # membership on the grid of quarters: enough to tell sets with integer ends apart
    grid = range(-20, 21)
    return frozenset(
        q
        for q in grid
        if any(
            (lo * 4 < q < hi * 4) or (q == lo * 4 and not lo_open) or (q == hi * 4 and not hi_open)
            for lo, hi, lo_open, hi_open in pieces
        )
    )


@settings(max_examples=300, deadline=None)
@given(a=_pieces(), b=_pieces())
def test_unions_of_integer_pieces_match_exactly_when_the_sets_do(
    a: list[tuple[int, int, bool, bool]], b: list[tuple[int, int, bool, bool]]
) -> None:
    if len(a) == 1 and len(b) == 1:
        b = [*b, b[0]]  # a union on one side at least: two single pieces are compared as before
    got = equivalent(_latex(a), _latex(b))
    assert got is (T if _members(a) == _members(b) else F), (_latex(a), _latex(b))
