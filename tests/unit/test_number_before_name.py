r"""The number of the final sentence, when its last math only names what it counts.

"Thus there are 41 such integers $n$.", "... giving 5 integral values for $A C$.", "In total,
there are 138+139+140=417 possible quadruples $(a, b, c, d)$." With no marked answer the final
span is the last math of the text, here a name: letters, blanks, commas, parentheses and
subscripts, no digit, no operator. When the last number of the text comes before it in the same
sentence and is the gold, the verdict is TRUE: the span states no value of its own. Not when the
number is a label ("By Lemma 3, the board holds at most $s$ numbers."; ``detail::kStepLabels``),
nor when the text ends by closing a proof, nor with ``last_number=False``, which takes no number of
prose for an answer.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

NAMED = "the number of the final sentence is its answer (no marked answer; the math after it only names what it counts)"


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("41", "Therefore $4<3 n<128$, and $2 \\leq n \\leq 42$. Thus there are 41 such integers $n$."),
        ("222", "Thus, there are 222 positive integers $n$ for which the length of $B C$ is an integer."),
        ("5", "Since $T=12$, we have that $6<A C<12$, giving 5 integral values for $A C$."),
        ("417", "In total, there are $138+139+140=417$ possible quadruples $(a, b, c, d)$."),
        ("631", "So there are $1024-393=631$ strings that do not include the substring $A B B A$."),
        # a capital letter names a point here, not a choice
        ("45", "Since his speed is $\\frac{d}{45}$, it takes him 45 minutes to paddle from $A$ to $B$."),
        ("45", "Thus it would take him $\\frac{3}{4}$ of an hour, or 45 minutes, to paddle from $A$ to $B$."),
    ],
)
def test_a_name_after_the_number_is_no_answer(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True and v.reason == NAMED, v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("3", "By Lemma 3, when the game terminates, the board contains at most $s$ numbers."),
        ("2", "As shown in Figure 2, the point lies on $A B$."),
        ("41", "Thus there are 41 such integers $n$, a contradiction."),  # a proof's step
        ("41", "Thus there are 41 such integers.\n\nLet $n$ be one."),  # another sentence
        ("41", "Thus there are 41 values of $x^{2}$."),  # the span is math, not a name
    ],
)
def test_a_label_another_sentence_or_math_is_not_this_reading(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.reason != NAMED, v


def test_last_number_false_refuses_the_number_before_a_name() -> None:
    # the number is a number of prose, which last_number=False does not take for an answer
    text = "Thus there are 41 such integers $n$."
    assert grade("41", text, fallback=False, last_number=False).correct is not True


@given(
    count=st.integers(0, 10**6),
    noun=st.sampled_from(["such integers", "positive integers", "ways to choose", "pairs"]),
    name=st.sampled_from(["n", "k", "(a, b)", "A B", "x_{i}", "(a, b, c, d)"]),
    lead=st.sampled_from(["Thus there are", "So we get", "Hence, there are exactly", "This gives"]),
)
def test_any_count_before_a_name_reads_back(count: int, noun: str, name: str, lead: str) -> None:
    text = f"We have $x^2 = 4$.\n\n{lead} {count} {noun} ${name}$."
    assert grade(str(count), text, fallback=False).correct is True, text
    assert grade(str(count + 1), text, fallback=False).correct is False, text


@pytest.mark.parametrize(
    "response",
    [
        "The correct option is $B$.",  # no number before it: perhaps a choice
        "So it takes 40 minutes to go from $A$ to $B$.",  # another number
    ],
)
def test_a_capital_letter_otherwise_stays_a_choice_that_names_no_value(response: str) -> None:
    v = grade("45", response, fallback=False)
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("undecided: a multiple-choice letter against an answer that names no choice"), v
