"""Conditions joined by "or": "x < 2 or x > 3" is the union of the sets where each holds.

The normalizer keeps the spaces around a joiner word alone between math ("x = 1 or x = 2"), so
that the parser reads the word as a joiner rather than letters of the names beside it
("x=1orx=2"); the lexer reads "or", "\\text{ or }", "\\lor" and "\\vee" as a list comma that says
"or"; a list of inequalities that only "or" joins is a union, compared with intervals and unions
as a set of reals.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st

from rapidgrade import Tri, equivalent, grade, normalize_answer, parse_expr
from rapidgrade._sympy import tree_to_sympy

T, F, U = Tri.TRUE, Tri.FALSE, Tri.UNKNOWN


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        ("x = 1 or x = 2", "x=1 or x=2"),
        (r"x<2 \text{ or } x>3", "x<2 or x>3"),
        (r"a=1 \text{ and } b=2", "a=1 and b=2"),
        ("$5$ and $6$", "5 and 6"),
        (r"\pi or 2\pi", r"\pi or 2\pi"),
        ("f(1) or -1", "f(1) or -1"),
        # words on either side: the joiner is not between math and goes as any space
        ("yes or no", "yesorno"),
        ("x or more", "xormore"),
        ("at most 3 or 4", "atmost3 or 4"),
        # a word that only starts with a joiner
        ("1 andy 2", "1andy2"),
        ("1, 100 and 0", "1, 100 and 0"),
    ],
)
def test_a_joiner_word_between_math_keeps_its_spaces(raw: str, out: str) -> None:
    assert normalize_answer(raw).text == out


@pytest.mark.parametrize(
    "text",
    [
        r"x<2 \text{ or } x>3",
        r"x<2 \mbox{or} x>3",
        "x<2 or x>3",
        "x<2, or x>3",
        r"x<2 \lor x>3",
        r"x<2 \vee x>3",
    ],
)
def test_inequalities_joined_by_or_are_a_union(text: str) -> None:
    tree = parse_expr(text).tree()
    assert tree[0] == "union"
    assert [kid[0] for kid in tree[1:]] == ["rel", "rel"]
    assert tree_to_sympy(tree) == sympy.Union(sympy.Interval.open(-sympy.oo, 2), sympy.Interval.open(3, sympy.oo))


@pytest.mark.parametrize(
    "text",
    [
        "x<2, x>3",  # a comma: "and" or "or" is not said
        r"x<2 \text{ and } x>3",
        r"x<2 \land x>3",
        "x<2 or x>3, x>5",  # a comma among the joiners
        "x=1 or x=2",  # equations: the values of x
        r"x<2 or x \ne 3",  # not every part an inequality
    ],
)
def test_other_lists_stay_lists(text: str) -> None:
    assert parse_expr(text).tree()[0] == "set"


@pytest.mark.parametrize(
    ("gold", "pred", "expected"),
    [
        (r"(-\infty,2)\cup(3,\infty)", r"x<2 \text{ or } x>3", T),
        (r"(-\infty,2)\cup(3,+\infty)", r"x < 2 \lor x > 3", T),
        (r"(-\infty,2]\cup(3,\infty)", r"x \le 2 \text{ or } x>3", T),
        (r"(-\infty,2)\cup(3,\infty)", r"x \le 2 \text{ or } x>3", F),  # a closed end
        (r"(-\infty,2)\cup(3,\infty)", r"x<2 \text{ or } x>4", F),
        (r"(-\infty,3)", r"x<2 \text{ or } x<3", T),  # one set: the parts overlap
        (r"(-\infty,1)\cup(1,\infty)", r"x<1 \text{ or } x>1", T),
        (r"x<1 \text{ or } 2<x\le 5", r"(-\infty,1)\cup(2,5]", T),
        (r"x<2 \text{ or } x>3", r"x<2 \text{ or } x>3", T),
        (r"x<2 \text{ or } x>3", r"x>3 \text{ or } x<2", T),
        (r"x<2 \text{ or } x>3", "x>3", F),
        (r"x<2 \text{ or } x>3", "3", F),
        # the list of the same conditions, whatever joins them
        (r"x<2 \text{ or } x>3", "x<2, x>3", T),
        (r"x<2 \text{ or } x>3", "x>3, x<2", T),
        (r"x<2 \text{ or } x>3", "x<2, x>4", F),
        # a list does not say whether its conditions hold together or apart: not a set of reals
        (r"(-\infty,2)\cup(3,\infty)", "x<2, x>3", U),
        (r"(-\infty,2)\cup(3,\infty)", r"x<2 \text{ and } x>3", U),
        # conditions on two names are not one set of reals
        (r"(-\infty,2)\cup(3,\infty)", r"x<2 \text{ or } y>3", U),
    ],
)
def test_a_union_of_conditions_is_a_set_of_reals(gold: str, pred: str, expected: Tri) -> None:
    assert equivalent(gold, pred) is expected
    assert equivalent(pred, gold) is expected


@pytest.mark.parametrize(
    "response",
    [
        r"So $x<2$ or $x>3$.",
        r"The solution set is $x<2 \text{ or } x>3$.",
        r"$\boxed{x<2 \text{ or } x>3}$",
        r"\boxed{x<2 \quad\text{or}\quad x>3}",
        "所以 $x<2$ 或 $x>3$。",
    ],
)
def test_graded_on_the_fast_path(response: str) -> None:
    v = grade(r"(-\infty,2)\cup(3,\infty)", response, fallback=False)
    assert v.correct, v


_END = st.fractions(min_value=-50, max_value=50, max_denominator=4)


def _latex(q: Fraction) -> str:
    sign = "-" if q < 0 else ""
    q = abs(q)
    return f"{sign}{q.numerator}" if q.denominator == 1 else rf"{sign}\frac{{{q.numerator}}}{{{q.denominator}}}"


@given(
    a=_END,
    b=_END,
    closed_a=st.booleans(),
    closed_b=st.booleans(),
    joiner=st.sampled_from([" or ", r" \text{ or } ", r" \lor ", r"\quad\text{or}\quad ", ", or "]),
    var=st.sampled_from(["x", "t", "k"]),
    swap=st.booleans(),
)
def test_two_rays_against_their_union(
    a: Fraction, b: Fraction, closed_a: bool, closed_b: bool, joiner: str, var: str, swap: bool
) -> None:
    # "x < a or x > b" (a < b) is (-oo, a) U (b, oo); a ray with the other bracket is another set
    assume(a < b)
    less, greater = (r"\le" if closed_a else "<"), (r"\ge" if closed_b else ">")
    parts = [f"{var} {less} {_latex(a)}", f"{var} {greater} {_latex(b)}"]
    condition = joiner.join(parts[::-1] if swap else parts)
    union = rf"(-\infty,{_latex(a)}{']' if closed_a else ')'}\cup{'[' if closed_b else '('}{_latex(b)},\infty)"
    assert equivalent(union, condition) is T, (union, condition)
    other = rf"(-\infty,{_latex(a)}{')' if closed_a else ']'}\cup{'[' if closed_b else '('}{_latex(b)},\infty)"
    assert equivalent(other, condition) is F, (other, condition)
