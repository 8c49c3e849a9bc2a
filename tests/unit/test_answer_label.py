r"""A label that names what an answer gives values to: "(x, y): (0,2), (0,-2)".

Solutions list their answers after the names they solve for: "Thus we have the complete list of
solutions $(x, y):(0,2),(0,-2),(4,23),(4,-23)$." The label is no part of the value: the grader
reads an answer (and a gold) without a leading name, or names in parentheses, followed by ':'
(not ":="). A ratio of numbers ("3:1") has no such label; a ratio of names written as an
equation ("A:B=1") reads as its equation's value, as math-verify reads it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (
            "(0,2),(0,-2),(4,23),(4,-23)",
            "Thus we have the complete list of solutions $(x, y):(0,2),(0,-2),(4,23),(4,-23)$.",
            True,
        ),
        (r"(-\frac{1}{2}, \frac{7}{2})", "Thus the solutions are $(x, y):(0,2),(0,-2)$.", False),
        ("5", "The answer is n: 5.", True),
        ("(1, 2)", "So $(a_1, a_2): (1, 2)$.", True),
        # no label: a ratio, a definition
        ("3:1", "The ratio is $3:1$.", True),
        ("5", "So $x := 5$.", True),
        # math-verify's own cases (mv-202, mv-246): a ratio of names as an equation
        ("$S_{MBCN}:S=7:32$", r"$\boxed{7:32}$", True),
        ("$$A:B=1$$", "$$1$$", True),
    ],
)
def test_a_label_of_names_is_no_part_of_the_answer(gold: str, response: str, correct: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is correct, v


@given(
    names=st.lists(st.sampled_from(["x", "y", "z", "a", "b", "n", "x_1", "y_{2}"]), min_size=1, max_size=3),
    points=st.lists(st.tuples(st.integers(-50, 50), st.integers(-50, 50)), min_size=1, max_size=3, unique=True),
)
def test_any_labelled_list_of_points_reads_back(names: list[str], points: list[tuple[int, int]]) -> None:
    label = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
    values = ",".join(f"({a},{b})" for a, b in points)
    text = f"The solutions are ${label}: {values}$."
    assert grade(values, text, fallback=False).correct is True
    other = ",".join(f"({a + 100},{b})" for a, b in points)
    assert grade(other, text, fallback=False).correct is False
