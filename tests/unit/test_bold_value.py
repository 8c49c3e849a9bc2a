"""The bold value (``extract_phrase.cpp``'s ``read_bold_value``). A response with no marked answer
whose bold spans all state one and the same number answers with it: a model that answers in its
first sentence and then explains, or prints a table, bolds the answer ("The total value of the
bar is **52**." then rows of other numbers). The reading it replaces (the last number, or a count
sentence's count) becomes its rival: a bold value that does not match while the rival does is
UNKNOWN, never a certain FALSE.

No reading when any bold span states no number ("**Total:** 35"), two numbers, a label ("**Step
1:**"), more than four words or a line break, when two spans state different numbers, when the
markup is unbalanced ("x**2"), or past 16 spans. The Hypothesis tests build responses from random
values, phrases around them and tables after them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade

_TABLE = "\n\nYear | Value\n2018 | 13\n2019 | 2968\n\nI hope this answers your question."


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The total value of the More bar is **52**." + _TABLE, "52"),
        ("Sure.\n\nThe highest Elo score is **1578**. The online agent reached 2968 Elo.", "1578"),
        ("The cumulative increase is highest in **week 3**." + _TABLE, "3"),
        ("It was lower than 0.2% in **1970**.\n\nIt was 0.1% in 1970 and 0.3% in 1980.", "1970"),
        ("The median is **5**, so half of the towns have 6 or more.", "5"),
        ("So **12** apples. Indeed **12** is 3 * 4.", "12"),
        ("The difference is **-7.5**, since 2.5 - 10 = -7.5 and 3 > 1.", "-7.5"),
    ],
)
def test_the_number_every_bold_span_states_is_the_answer(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer
    assert found.method == "last_number"
    assert grade(answer, text, fallback=False).correct is True


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("**Step 1:** add 2 and 3.\n**Step 2:** the sum is 5.", "5"),  # labels
        ("**Total:** 35", "35"),  # a span with no number
        ("The values are **3** and **4**, so 7.", "7"),  # two numbers in bold
        ("The pair **3 and 4** sums to 7.", "7"),  # two numbers in one span
        ("Use x**2 here: 8", "8"),  # unbalanced markup
        ("The **largest value of the whole chart is 9** here, or 10.", "10"),  # five words and more
        ("In **2019**\n**2019 and 2020** the value was 9.", "9"),
        ("**1**" * 17 + " and 4", "4"),  # past 16 spans
        ("The total is **158 + LK**, not 160.", "160"),  # an expression
        (r"It is **$\frac{1}{2}$** or 7.", "7"),  # a command
    ],
)
def test_no_bold_value_keeps_the_last_number(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer


def test_a_marked_answer_beats_the_bold_value() -> None:
    assert grade("40", "The mean is **52**.\nThe answer is 40.", fallback=False).correct is True
    assert grade("40", r"It is **52**, so $\boxed{40}$", fallback=False).correct is True


def test_a_bold_value_against_the_gold_of_its_rival_is_not_certain() -> None:
    text = "The year with the highest share was **2012**, with 80% of schools.\n\nThe line peaks in 2016."
    v = grade("2016", text, fallback=False)
    assert v.correct is False
    assert v.reason.startswith("undecided")
    assert grade("2012", text, fallback=False).correct is True
    # a reading with a rival is never a certain FALSE, as a count sentence's is not
    assert grade("1999", text, fallback=False).correct is False


_PHRASES = [
    "The answer is probably {v} units",
    "The value of the largest bar is {v}",
    "It peaks in year {v}",
    "{v}",
    "about {v}%",
    "week {v}",
]


@given(
    value=st.integers(-(10**6), 10**6),
    phrase=st.sampled_from(_PHRASES),
    where=st.sampled_from(["The result: ", "Sure!\n\nThe result is ", "So it is "]),
    later=st.lists(st.integers(-(10**4), 10**4), max_size=6),
    again=st.booleans(),
)
def test_a_bold_number_before_a_table_is_read_back(
    value: int, phrase: str, where: str, later: list[int], again: bool
) -> None:
    stated = phrase.format(v=value)
    if len(stated.split()) > 4:
        stated = str(value)
    text = f"{where}**{stated}**." + "".join(f"\nRow {k} | {n}" for k, n in enumerate(later))
    if again:
        text += f"\n\nSo the value is **{value}**."
    found = extract_answer(text)
    assert found is not None and found.text == str(value)
    assert grade(str(value), text, fallback=False).correct is True


@given(first=st.integers(0, 500), second=st.integers(0, 500))
def test_two_bold_numbers_are_no_bold_value(first: int, second: int) -> None:
    text = f"It is **{first}** or **{second}**, then 7777."
    found = extract_answer(text)
    assert found is not None
    assert found.text == (str(first) if first == second else "7777")
