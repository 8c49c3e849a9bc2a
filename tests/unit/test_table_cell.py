r"""A last value read from a cell of a table is no certain answer (grade.cpp, ``in_table_row``).

A response that marks no answer and ends with a table ("| a | b | Root |", one row per case)
has its last number in the table's last cell. When that reading matches the gold it is TRUE as
before; when it does not, the table may hold the answer in another cell, so the verdict is
UNKNOWN, kept with the fast path (the fallback would compare the same cell).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

TABLE_CELL = (
    "undecided: no marked answer, and the last value stands in a cell of a table; which cell answers, the table "
    "does not say"
)
HEADER = "| a | b | Root |\n| ---: | ---: | ---: |\n"


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # the last cell differs: UNKNOWN, kept by the fast path
        ("8", HEADER + "| 1 | 0 | 0 |\n| -15 | 240 | 16 |", (False, "fast", TABLE_CELL)),
        ("10", "| $(x, y)$ | $(u, v)$ |\n|---|---|\n| $(-10,15)$ | $(1,20)$ |", (False, "fast", TABLE_CELL)),
        # the last cell matches: TRUE
        ("16", HEADER + "| -15 | 240 | 16 |", (True, "fast", "same answer after normalization")),
        # a sentence after the table states the answer: read as before
        ("42", HEADER + "| 1 | 2 | 40 |\n\nSo the total is 40.", (False, "fast", "not equivalent")),
        # a marked answer before the table is read as marked
        ("42", "The answer is 40.\n\n" + HEADER + "| 1 | 2 | 40 |", (False, "fast", "not equivalent")),
        # a bar that is no table (an absolute value) changes nothing
        ("3", r"Hence $|x-1| = 5$.", (False, "fast", "not equivalent")),
    ],
)
def test_table_cells(gold: str, response: str, expected: tuple[bool, str, str]) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == expected


@given(
    cells=st.lists(st.integers(min_value=-10_000, max_value=10_000), min_size=2, max_size=5),
    gold=st.integers(min_value=-10_000, max_value=10_000),
    rows=st.integers(min_value=1, max_value=4),
)
def test_a_table_never_gives_a_certain_false(cells: list[int], gold: int, rows: int) -> None:
    head = "| " + " | ".join(f"c{k}" for k in range(len(cells))) + " |\n|" + "---|" * len(cells) + "\n"
    body = "".join("| " + " | ".join(str(c + r) for c in cells) + " |\n" for r in range(rows))
    v = grade(str(gold), "The values are:\n\n" + head + body, fallback=False)
    last = cells[-1] + rows - 1
    if gold == last:
        assert v.correct
    else:
        assert (v.correct, v.decided_by, v.reason) == (False, "fast", TABLE_CELL)
