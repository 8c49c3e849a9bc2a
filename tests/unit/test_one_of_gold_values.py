r"""An unmarked reading that is one member of a gold list or union is no certain FALSE (grade.cpp,
``one_of_gold_values``).

Against a gold that lists several values ("19, 0, 1", "(27,20,13), (18,20,22)") or unites several
sets ("(-\sqrt{11},-2) \cup (\sqrt{11},9)"), a response that marks no answer and whose last math
gives one of them ("Thus $x=19$ and $y=0$. ... so $z=1$.", "... and those $x$ with
$\sqrt{11}<x<9$.") may state the others elsewhere: which of its values answer, the reading cannot
tell. When the reading is one member of the gold at any depth (a value of the list, one of its
tuples or a value of one, one set of the union), a FALSE is UNKNOWN with its own reason, kept by
the fast path. A marked answer that gives one member of several is an incomplete answer: FALSE as
before.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

ONE_OF = (
    "undecided: no marked answer, and the reading is one member of the gold (a value or a tuple of its list, a set "
    "of its union); the response may state the others elsewhere"
)


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        ("19,0,1", r"Since $x$ is at least 19, $y = 0$. Therefore, $z=1$.", (False, "fast", ONE_OF)),
        ("(27,20,13), (18,20,22)", r"If $d=2$, then $a=18$, $b=20$ and $c=22$.", (False, "fast", ONE_OF)),
        ("(3,2)", "Hence the first coordinate is 3.", (False, "fast", ONE_OF)),
        # a tuple of a list of tuples, a set of a union
        ("(4,2,3,1),(1,3,2,4),(2,4,1,3)", r"and its reverse, $(2,4,1,3)$", (False, "fast", ONE_OF)),
        (r"(-\sqrt{11},-2)\cup (\sqrt{11},9)", r"and those $x$ with $\sqrt{11}<x<9$.", (False, "fast", ONE_OF)),
        (r"(-\infty,2)\cup(3,\infty)", r"In the first case, $x<2$.", (False, "fast", ONE_OF)),
        # a set that is no member of the union: FALSE as before
        (r"(-\infty,2)\cup(3,\infty)", r"In the first case, $x<1$.", (False, "fast", "not equivalent")),
        (r"(-\infty,2)\cup(3,\infty)", r"The answer is $x<2$.", (False, "fast", "not equivalent")),
        # ... unless the final sentence states as many numbers as the gold: its list, which differs
        ("(2, 3)", "So x is 3 and y is 2.", (False, "fast", "not equivalent")),
        # a value that is none of the gold's: FALSE as before
        ("19,0,1", r"Therefore, $z=7$.", (False, "fast", "not equivalent")),
        # a marked answer with one value of several: an incomplete answer
        ("19,0,1", r"The answer is $z=1$.", (False, "fast", "not equivalent")),
        # a gold of one value, or a list read against a list: as before
        ("1", r"Therefore, $z=7$.", (False, "fast", "not equivalent")),
        ("1, 2", r"So $m=2$ or $m=10$.", (False, "fast", "not equivalent")),
    ],
)
def test_one_of_the_gold_values(gold: str, response: str, expected: tuple[bool, str, str]) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == expected


@given(
    values=st.lists(st.integers(-1000, 1000), min_size=2, max_size=6, unique=True),
    pick=st.integers(0, 5),
    other=st.integers(-1000, 1000),
)
def test_a_value_of_the_list_is_never_a_certain_false(values: list[int], pick: int, other: int) -> None:
    gold = ", ".join(map(str, values))
    value = values[pick % len(values)]
    v = grade(gold, f"Hence $x = {value}$.", fallback=False)
    assert (v.correct, v.reason) == (False, ONE_OF)
    w = grade(gold, f"Hence $x = {other}$.", fallback=False)
    assert (w.correct, w.reason) == (False, ONE_OF if other in values else "not equivalent")
