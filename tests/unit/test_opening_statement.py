r"""The opening statement of an answer-first write-up (``extract::opening_statement``).

Olympiad solutions state their answer first and then prove it: "The required maximum is
$2n-2$." Their last math is a step of the proof, so the unmarked reading of the final statement
misses the answer. When a response marks no answer, the grader also reads its opening sentence:
a statement whose subject opens with "the" (after "We claim (that)" and the like, or nothing)
and holds an extremum word (``detail::kExtremumWords``: required, largest, minimum, only, ...)
outside math, up to "is", "are" or "equals"; the answer is what the answer phrase reader reads
after the verb, when it reads math cleanly, or a number in words that is all the rest of the
sentence ("... is one."). An opening sentence that is one math span stating a
function's value at numbers ("$E(7,3)=3$.", as ARML's solutions open) states that value too.
When that answer is the gold's, the verdict is TRUE with its own reason. A marked answer is never
overruled, and a question states nothing.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

OPENING = (
    "the opening sentence states the gold's answer (no marked answer; a write-up that states its answer first, "
    "then proves it)"
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("2n-2", "The required maximum is $2 n-2$. \n\nWe first show that $|\\mathcal{B}| \\leq 2n-2$, so $x_k = 5$."),
        ("0", "The only possible value of $a_{2015} \\cdot a_{2016}$ is 0 . Suppose that $a_1 = 7$."),
        ("2", "The largest such is $k=2$. Indeed, take $m = 7$ and $n = 9$."),
        ("2^{k-1}", "We claim the minimum value of $m$ is $2^{k-1}$.\n\nLet $q = 5$."),
        ("10112369", "The largest fibbish number is 10112369. First, $A_{6} = 9$."),
        ("\\frac{1}{2n+2}", "The required maximum is $\\frac{1}{2 n+2}$. Put $x_i = 3$ for all $i$."),
        ("6", "The maximum number of such boxes is 6 . Color the board so that $17$ cells are blue."),
        # a number in words that is all the rest of the sentence
        ("1", "We will prove that the largest possible number $k$ of indices is one.\n\nSuppose $k = 5$."),
        ("21", "The least number of moves is twenty-one. Take $m = 7$ and $n = 9$."),
        # one span stating a function's value at numbers
        ("3", "$E(7,3)=3$. First, note that $E(7,3) \\geq 3$, as two minutes flip $2$ switches.\n\nSo $\\{1,6,7\\}$."),
        ("5", "$E(2001,501)=5$.\nFirst, note that three minutes is not enough, so $k = 4$ fails."),
        ("\\frac{3}{4}", "$p(2) = \\frac{3}{4}$.\nWe compute the values step by step, ending with $q=5$."),
        # the value an extremum names after "namely"
        ("2", "There is only one such integer, namely, $n=2$. In this case $P(c-1)=7$.\n\nSo $x = 9$."),
        ("5", "The largest one is unique, namely 5. Indeed $x = 9$."),
    ],
)
def test_an_answer_first_write_up_states_its_answer_in_its_opening(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True and v.reason == OPENING, v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        # a question, no extremum word, prose after the verb, a subject that does not open with "the"
        ("5", "The largest value is 5? Let us check: $x = 6$."),
        ("5", "The value is 5. Then $x = 6$."),
        ("5", "The maximum is achieved when $n = 5$. So $x = 6$."),
        ("5", "A maximum is 5. So $x = 6$."),
        # the first verb ends the subject, which holds no extremum word here
        ("5", "The value is the least number that is 5. So $x = 6$."),
        # the opening sentence is not the first one
        ("5", "Let $n = 3$. The maximum is 5. So $x = 6$."),
        # a span that is no value at numbers: an unknown, arguments with letters, words after it
        ("5", "$x=5$. So $y = 6$."),
        ("5", "$E(n, 3)=5$. So $y = 6$."),
        ("5", "$E(7,3)=5$ is what we show. So $y = 6$."),
        ("5", "$E(7,3)=2+n$. So $y = 6$."),
        # "namely" with no extremum before it, or prose after it
        ("2", "There are several such integers, namely $n=2$. So $y = 6$."),
        ("2", "There is only one such integer, namely the one with $n=2$. So $y = 6$."),
        # a number in words before more words is no value ("one of them")
        ("1", "The least number of moves is one of them. Take $m = 7$."),
    ],
)
def test_other_openings_state_nothing(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is not True, v


def test_a_marked_answer_is_not_overruled() -> None:
    v = grade("5", "The maximum is 5. Checking again, the final answer is $\\boxed{6}$.", fallback=False)
    assert v.correct is False and v.reason == "not equivalent"


def test_an_opening_that_differs_leaves_the_verdict_as_it_was() -> None:
    text = "The required maximum is $7$. So $x = 6$."
    assert grade("5", text, fallback=False).reason == grade("5", "So $x = 6$.", fallback=False).reason
    assert grade("6", text, fallback=False).reason == "equivalent"  # the final reading matches first


@given(
    lead=st.sampled_from(["", "We claim that ", "We claim ", "We will show that ", "we prove that "]),
    subject=st.sampled_from(
        ["the largest", "The required maximum", "the smallest possible value of $n$", "The only such $k$", "the least"]
    ),
    verb=st.sampled_from(["is", "equals", "are"]),
    value=st.integers(-(10**6), 10**6),
    step=st.integers(-(10**6), 10**6),
    wrap=st.sampled_from(["{}", "${}$", "$n={}$"]),
)
def test_any_opening_statement_reads_back(lead: str, subject: str, verb: str, value: int, step: int, wrap: str) -> None:
    text = f"{lead}{subject} {verb} {wrap.format(value)}.\n\nProof. Let $y = 2$; then $x = {step}$."
    assert grade(str(value), text, fallback=False).correct is True
    if step != value + 1:
        assert grade(str(value + 1), text, fallback=False).correct is not True


@given(
    name=st.sampled_from(["E", "T", "f", "N"]),
    args=st.lists(st.integers(0, 3000), min_size=1, max_size=3),
    value=st.integers(-(10**6), 10**6),
    step=st.integers(-(10**6), 10**6),
)
def test_a_value_at_numbers_opening_reads_back(name: str, args: list[int], value: int, step: int) -> None:
    text = f"${name}({', '.join(map(str, args))})={value}$.\n\nFirst, note that $x = {step}$."
    assert grade(str(value), text, fallback=False).correct is True
    if step != value + 1:
        assert grade(str(value + 1), text, fallback=False).correct is not True


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # a gold list: the numbers of the opening sentence, when it is not the final one
        ("1,2,3,4", "Such a sequence exists for $n=1,2,3,4$ and no other $n$. So $n=5$ fails: $a_5 = 7$.", True),
        ("1,3", "The minimum number is 1 and the maximum number is 3 . An example is $4,5,6$, where 7 is odd.", True),
        ("3,1", "The minimum number is 1 and the maximum number is 3 . Hence $x = 5$.", True),  # a set: any order
        ("(3,1)", "The minimum number is 1 and the maximum number is 3 . Hence $x = 5$.", False),  # a tuple: in order
        # other numbers, a question, more values than the sentence holds
        ("1,4", "The minimum number is 1 and the maximum number is 3 . Hence $x = 5$.", False),
        ("1,3", "Is the minimum 1 and the maximum 3? Hence $x = 5$.", False),
        ("1, 3, 5", "The minimum number is 1 and the maximum number is 3 . Hence $x = 7$.", False),
    ],
)
def test_the_numbers_of_an_opening_statement_against_a_gold_list(gold: str, response: str, expected: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is expected, v
    if expected:
        assert v.reason == OPENING, v


@given(
    values=st.lists(st.integers(-500, 500), min_size=2, max_size=5, unique=True),
    step=st.integers(1000, 2000),
)
def test_an_opening_list_reads_back(values: list[int], step: int) -> None:
    text = f"Such numbers exist exactly for $n = {', '.join(map(str, values))}$.\n\nProof. Let $y = {step}$."
    assert grade(", ".join(map(str, reversed(values))), text, fallback=False).correct is True
    other = [*values[:-1], values[-1] + 1000]
    assert grade(", ".join(map(str, other)), text, fallback=False).correct is not True
