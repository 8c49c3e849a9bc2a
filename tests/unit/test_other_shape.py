r"""An unmarked reading of another shape than the gold is no certain FALSE (grade.cpp,
``other_shape``).

A response that marks no answer is read at its last math. When that reading differs from the gold
and has another shape, it is more likely not the answer than a wrong one, and the FALSE is
UNKNOWN with its own reason, kept by the fast path (the fallback would compare the same reading):

* a list of two or more values against one constant value: a listing of what the gold counts
  ("so is $1,2,3,4,5$" against 12);
* an equation that gives a constant to a name of the gold's formula: an instance of it ("given
  for $n=5$" against 2n^{2}-2n+1);
* against a gold that is no equation and no constant, an equation that sets names against a
  constant, with no name alone on a side and no function's value there: a step still to solve
  ("we obtain $1+r^{4}=5$"); not a simplification ("$-(a+3)=-a-3$"), whose last member is its
  result.

A matching reading stays TRUE, and a marked answer of another shape stays a certain FALSE: the
marker says it is the answer.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

OTHER_SHAPE = (
    "undecided: no marked answer, and the reading has another shape than the gold (a list against one value, a value "
    "for a name of the gold's formula, an equation to solve): a listing, an instance or a step, not the answer"
)
NOT_EQUIVALENT = (False, "fast", "not equivalent")


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # a listing against a count
        ("12", r"Such a sequence of length 5 must use every element, so is $1,2,3,4,5$.", (False, "fast", OTHER_SHAPE)),
        ("12", r"These values yield the quadruples $(3,2,20,6),(-3,-2,20,-6)$.", (False, "fast", OTHER_SHAPE)),
        # an instance of the gold's formula
        ("2n^2-2n+1", r"The constructions are given for $n=5$.", (False, "fast", OTHER_SHAPE)),
        (r"\frac{k(k+1)}{2}", r"For example, with $k=3$.", (False, "fast", OTHER_SHAPE)),
        # an equation still to solve
        ("a=2, a=-6-4\\sqrt{2}", r"Since the factors cancel, we obtain $1+r^{4}=5$.", (False, "fast", OTHER_SHAPE)),
        ("x^2+1", r"Thus $2x+3y=7$.", (False, "fast", OTHER_SHAPE)),
        # a simplification (names on both sides): its last member is its result, compared as before
        ("-3x+15", r"So $-(a+3)=-a-3$.", NOT_EQUIVALENT),
        ("b^2-9a^2", r"Hence $-a^{6} \div a^{2}=-a^{4}$.", NOT_EQUIVALENT),
        # the gold's shape: certain as before
        ("12", r"Therefore the count is $13$.", NOT_EQUIVALENT),
        ("(1, 2)", r"Hence the pair is $(2, 1)$.", NOT_EQUIVALENT),
        ("y=2x+1", r"Thus the line is $y=3x+1$.", NOT_EQUIVALENT),
        ("2n+1", r"Thus $a_n=2n-1$.", NOT_EQUIVALENT),
        ("5", r"Hence $x=4$.", NOT_EQUIVALENT),
        ("2n+1", r"So $f(n)=3n$.", NOT_EQUIVALENT),
        # a value for a name the gold's formula does not hold: a wrong answer
        ("2n^2-2n+1", r"Thus $m=5$.", NOT_EQUIVALENT),
        # a matching reading stays TRUE
        ("12", r"Hence the number of sequences is $12$.", (True, "fast", "same answer after normalization")),
        ("2n^2-2n+1", r"So the answer for all $n$ is $2n^2-2n+1$.", (True, "fast", "same answer after normalization")),
        # a marked answer of another shape: the marker says it is the answer
        ("12", r"The answer is $1,2,3,4,5$.", NOT_EQUIVALENT),
        ("2n^2-2n+1", r"Final answer: $\boxed{n=5}$", NOT_EQUIVALENT),
    ],
)
def test_a_reading_of_another_shape(gold: str, response: str, expected: tuple[bool, str, str]) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == expected, v


names = st.sampled_from(["n", "k", "m", "t"])
small = st.integers(1, 40)


@given(name=names, a=small, b=small, value=small)
def test_an_instance_of_the_gold_formula_is_never_a_certain_false(name: str, a: int, b: int, value: int) -> None:
    gold = f"{a}{name}^2+{b}"
    v = grade(gold, f"The figure shows the case ${name}={value}$.", fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", OTHER_SHAPE)
    # the same value, marked as the answer: a certain FALSE
    w = grade(gold, f"The answer is ${name}={value}$.", fallback=False)
    assert (w.correct, w.reason) == (False, "not equivalent")


@given(values=st.lists(st.integers(-500, 500), min_size=2, max_size=8, unique=True), count=st.integers(0, 1000))
def test_a_listing_against_a_count_is_never_a_certain_false(values: list[int], count: int) -> None:
    listing = ", ".join(map(str, values))
    v = grade(str(count), f"The possible values are therefore ${listing}$.", fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", OTHER_SHAPE)
