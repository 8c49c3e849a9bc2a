r"""Families of solutions with an integer parameter are sets of reals (``equiv_periodic.cpp``).

A trigonometric equation's solutions are written as families ``c + p k`` (``k``, ``n`` or ``m`` an
integer, ``detail::kIntegerParameters``) with a period ``p`` that is a rational multiple of pi, and
the same set has many writings: ``\frac{5\pi}{6}+k\pi`` is ``-\frac{\pi}{6}+k\pi`` (one period
apart), ``\frac{\pi}{6}+k\pi`` is ``\frac{\pi}{6}+2k\pi, \frac{7\pi}{6}+2k\pi`` (a period split in
two), ``2k\pi \pm \frac{\pi}{3}`` is ``\frac{\pi}{3}+2k\pi, \frac{5\pi}{3}+2k\pi``. Equivalence
compares two lists of families by their residues modulo a common multiple of their periods:
TRUE when they are one set, FALSE when not. A linear term in ``n`` with no pi (``2n+1``, the
general term of a sequence) is no family, and is compared as an expression, as before.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade
from rapidgrade.equiv import Tri, equivalent


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (r"\frac{5\pi}{6}+k\pi", r"-\frac{\pi}{6}+k\pi"),
        (r"x=\frac{\pi}{6}+k\pi", r"x=\frac{\pi}{6}+2k\pi, \frac{7\pi}{6}+2k\pi"),
        (r"\frac{k\pi}{2}", r"k\pi, \frac{\pi}{2}+k\pi"),
        (r"x=2k\pi \pm \frac{\pi}{3}", r"x=\frac{\pi}{3}+2k\pi, \frac{5\pi}{3}+2k\pi"),
        (r"\frac{\pi}{6}+\frac{2k\pi}{3}", r"\frac{\pi}{6}+2k\pi,\frac{5\pi}{6}+2k\pi,\frac{3\pi}{2}+2k\pi"),
        (r"\frac{n\pi}{3}", r"\frac{(n+3)\pi}{3}"),
        (r"\frac{\pi}{4}+m\pi", r"\frac{5\pi}{4}-k\pi"),  # another name, the other direction
        (
            r"x=\frac{1}{6} \pi+\pi k, \frac{1}{3} \pi+\pi k, \frac{2}{3} \pi+\pi k, \frac{5}{6} \pi+\pi k",
            r"x=\frac{1}{6} \pi+2 \pi k, \frac{5}{6} \pi+2 \pi k, \frac{7}{6} \pi+2 \pi k, \frac{11}{6} \pi+2 \pi k, "
            r"\frac{1}{3} \pi+2 \pi k, \frac{2}{3} \pi+2 \pi k, \frac{4}{3} \pi+2 \pi k, \frac{5}{3} \pi+2 \pi k",
        ),
    ],
)
def test_one_set_of_solutions_written_two_ways_is_true(gold: str, answer: str) -> None:
    v = grade(gold, rf"The solutions are $\boxed{{{answer}}}$, $k \in \mathbb{{Z}}$.", fallback=False)
    assert (v.correct, v.decided_by) == (True, "fast"), v


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (r"\frac{\pi}{6}+k\pi", r"\frac{\pi}{6}+2k\pi"),  # half of the set
        (r"\frac{\pi}{6}+2k\pi", r"\frac{\pi}{6}+k\pi"),  # twice the set
        (r"x=2k\pi \pm \frac{\pi}{3}", r"x=\frac{\pi}{3}+k\pi"),
        (r"\frac{\pi}{4}+k\pi", r"-\frac{\pi}{4}+k\pi"),
    ],
)
def test_different_sets_of_solutions_are_false(gold: str, answer: str) -> None:
    v = grade(gold, rf"\boxed{{{answer}}}", fallback=False)
    assert (v.correct, v.reason) == (False, "not equivalent"), v


def test_only_families_with_a_period_of_pi_are_sets() -> None:
    # the general term of a sequence: its index is no family's parameter
    assert equivalent("2n+1", "2n+3") is Tri.FALSE
    assert equivalent("2n+1", "2n-1") is Tri.FALSE
    # another symbol, a value with no parameter, a parameter that is not linear
    assert equivalent(r"k\pi", r"k\pi + x") is not Tri.TRUE
    assert equivalent(r"k\pi", r"\pi") is Tri.FALSE
    assert equivalent(r"k\pi + (-1)^{k} \frac{\pi}{6}", r"k\pi - (-1)^{k} \frac{\pi}{6}") is not Tri.TRUE


def _family(c: Fraction, p: Fraction, name: str) -> str:
    """c*pi + p*pi*name in LaTeX."""
    return rf"\frac{{{c.numerator}\pi}}{{{c.denominator}}}+\frac{{{p.numerator}{name}\pi}}{{{p.denominator}}}"


_FRACTIONS = st.builds(Fraction, st.integers(-12, 12), st.integers(1, 6))


@given(
    c=_FRACTIONS,
    p=st.builds(Fraction, st.integers(1, 4), st.integers(1, 4)),
    split=st.integers(1, 4),
    shifts=st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    name=st.sampled_from(["k", "n", "m"]),
    drop=st.booleans(),
)
def test_a_family_split_into_shifted_representatives_is_the_same_set(
    c: Fraction, p: Fraction, split: int, shifts: list[int], name: str, drop: bool
) -> None:
    # c + p k is the union of c + j p + split p k over j < split, each shifted by whole periods
    parts = [_family(c + j * p + shifts[j] * split * p, split * p, name) for j in range(split)]
    if drop and split > 1:
        parts.pop()  # a residue missing: another set
    expected = Tri.FALSE if drop and split > 1 else Tri.TRUE
    assert equivalent(_family(c, p, "k"), ", ".join(parts)) is expected, parts
