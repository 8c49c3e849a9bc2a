"""A gold that is a list of values against a response with no marked answer: the numbers of the
response's final sentence are read as that list ("There are 9 chickens and 10 rabbits." against
``\\{9, 10\\}``), a set in any order, a tuple in order, and only when the sentence holds exactly as
many numbers as the gold has values. A sentence that concludes after a computation ("...,
and so Thurka buys 7 goats and 4 helicopters.") is read from its concluding clause."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade, grade_many

SENTENCE_NUMBERS = "the numbers of the final sentence are the gold's values (no marked answer; read as the gold's list)"


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (r"\{9, 10\}", "There are 9 chickens and 10 rabbits."),
        (r"\{9, 10\}", "There are 10 rabbits and 9 chickens."),  # a set: any order
        ("9, 10", "There are 10 rabbits and 9 chickens."),  # a bare list is a set
        ("(2, 3)", "So x is 2 and y is 3."),  # a tuple: in order
        (r"\{-1, \frac{1}{2}\}", "The roots are -1 and 1/2."),
        ("(0.5, -2.25)", "The point is at x = 0.5 and y = -2.25."),
        (r"\{1000, 2500\}", "She paid 2,500 dollars and he paid 1,000 dollars."),
        (r"\{-1, \frac{1}{2}\}", r"One root is $-1$, the other one is $\frac{1}{2}$."),  # final_span
        (r"\{9, 10\}", "We have 35 heads and 94 legs in all.\nSo there are 9 chickens and 10 rabbits"),
        (r"\{9, 10\}", "Let c + r = 19. Then 2c + 4r = 58 gives r = 10. There are 9 chickens and 10 rabbits."),
    ],
)
def test_the_final_sentence_numbers_are_the_gold_list(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (True, "fast", SENTENCE_NUMBERS), v
    assert v.method in ("last_number", "final_span")


def test_the_verdict_shows_the_numbers_read() -> None:
    v = grade(r"\{9, 10\}", "There are 9 chickens and 10 rabbits.", fallback=False)
    assert (v.extracted, v.method) == ("9, 10", "last_number")
    batch = grade_many([r"\{9, 10\}"], ["There are 9 chickens and 10 rabbits."], fallback=False)
    assert (batch[0].correct, batch[0].reason, batch[0].extracted) == (True, SENTENCE_NUMBERS, "9, 10")


def test_a_tuple_in_the_other_order_stays_a_certain_false() -> None:
    # A tuple is ordered and the prose's order is the only one the response gives: read in another
    # order it would be a guess. The verdict is the one of the last number, as without this reading.
    v = grade("(2, 3)", "So x is 3 and y is 2.", fallback=False)
    assert (v.correct, v.decided_by, v.reason, v.extracted) == (False, "fast", "not equivalent", "2")


@pytest.mark.parametrize(
    "response",
    [
        "There are 9 chickens, 10 rabbits and 3 ducks.",  # three numbers against two values
        "There are 9 chickens. There are 10 rabbits.",  # one number in the final sentence
        "We have 2x = 9 and 10.",  # a coefficient: the sentence states no list
        "So x^9 = 10.",  # a power
        "The answer is 10.",  # a marked answer is read as marked
        "There are 9 chickens and 10 rabbits. The answer is 10.",
        "There are 9 chickens and 11 rabbits.",  # another number
    ],
)
def test_other_sentences_are_not_read_as_the_list(response: str) -> None:
    v = grade(r"\{9, 10\}", response, fallback=False)
    assert v.correct is False, v
    assert v.reason != SENTENCE_NUMBERS


def test_marked_answers_are_unaffected() -> None:
    v = grade(r"\{9, 10\}", "The answer is 10.")
    assert (v.correct, v.decided_by, v.method, v.reason) == (False, "fast", "answer_is", "not equivalent")


def test_a_single_value_gold_is_unaffected() -> None:
    v = grade("10", "There are 9 chickens and 10 rabbits.", fallback=False)
    expected = (True, "last_number", "same answer after normalization", "10")
    assert (v.correct, v.method, v.reason, v.extracted) == expected
    # the other number of the sentence is another reading: which one answers, it does not say
    v = grade("9", "There are 9 chickens and 10 rabbits.", fallback=False)
    assert (v.correct, v.reason) == (
        False,
        "undecided: the unmarked answer differs, but another reading of the final statement matches",
    )
    v = grade("8", "There are 9 chickens and 10 rabbits.", fallback=False)
    assert (v.correct, v.reason) == (False, "not equivalent")


def test_last_number_false_reads_no_list_in_prose() -> None:
    # last_number=False refuses a bare last number; a bare list of numbers in prose earns no more.
    v = grade(r"\{9, 10\}", "There are 9 chickens and 10 rabbits.", last_number=False, fallback=False)
    assert (v.correct, v.reason) == (False, "no explicit final answer (only a last number; last_number=False)")
    v = grade(r"\{9, 10\}", "There are $9$ chickens and $10$ rabbits.", last_number=False, fallback=False)
    assert v.method == "final_span"
    assert v.correct is False and v.reason != SENTENCE_NUMBERS
    # with the default, the same response is read as the list
    assert grade(r"\{9, 10\}", "There are $9$ chickens and $10$ rabbits.", fallback=False).correct is True
    # a marked list is read as marked either way
    assert grade(r"\{9, 10\}", "The answer is 9 and 10.", last_number=False, fallback=False).correct is True


_NOUNS = ("chickens", "rabbits", "ducks", "geese")


@given(
    values=st.lists(st.integers(min_value=-50, max_value=500), min_size=2, max_size=4, unique=True),
    order=st.randoms(use_true_random=False),
    changed=st.integers(min_value=0, max_value=3),
    offset=st.integers(min_value=1, max_value=1000),
)
def test_a_random_list_in_a_sentence(values: list[int], order: random.Random, changed: int, offset: int) -> None:
    gold = r"\{" + ", ".join(str(x) for x in values) + r"\}"
    shuffled = list(values)
    order.shuffle(shuffled)

    def sentence(numbers: list[int]) -> str:
        parts = [f"{x} {noun}" for x, noun in zip(numbers, _NOUNS)]
        return "We counted 35 heads and 94 legs. There are " + ", ".join(parts[:-1]) + " and " + parts[-1] + "."

    v = grade(gold, sentence(shuffled), fallback=False)
    assert (v.correct, v.reason) == (True, SENTENCE_NUMBERS), v
    wrong = list(shuffled)
    k = changed % len(wrong)
    wrong[k] = max(values) + offset  # a value not in the gold
    v = grade(gold, sentence(wrong), fallback=False)
    assert v.correct is False, v


# The clause that concludes the sentence: after a conclusion lead ("so", "hence", "thus",
# "therefore", ...) that follows a comma or a semicolon, or ", and", the numbers are its own.
@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        ("7, 4", "Therefore, $19(7)+17(4)=201$, and so Thurka buys 7 goats and 4 helicopters.", True),
        ("(7, 4)", "We check 19 + 17 = 36; hence there are 7 goats and 4 helicopters.", True),
        (r"\{2, 3\}", "Since 5 = 2 + 3, so the parts are 2 and 3.", True),
        # no comma before the lead, or no number after it: the whole sentence, as before
        ("7, 4", "We buy 19 so that 7 goats and 4 helicopters fit.", False),
        ("1, 2, 3", "The values are 1, 2, 3, and so on.", True),
    ],
)
def test_the_concluding_clause_holds_the_list(gold: str, response: str, correct: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is correct, v
    if correct:
        assert v.reason == SENTENCE_NUMBERS, v


@given(
    values=st.lists(st.integers(min_value=-50, max_value=500), min_size=2, max_size=3, unique=True),
    given_numbers=st.lists(st.integers(min_value=600, max_value=999), min_size=1, max_size=3),
    lead=st.sampled_from([", and so", ", so", "; hence", ", therefore", ", thus"]),
)
def test_any_concluding_clause_after_a_computation(values: list[int], given_numbers: list[int], lead: str) -> None:
    computation = " + ".join(map(str, given_numbers))
    text = f"We add {computation} = {sum(given_numbers)}{lead} the counts are " + " and ".join(map(str, values)) + "."
    gold = r"\{" + ", ".join(map(str, values)) + r"\}"
    assert grade(gold, text, fallback=False).correct is True
    assert grade(r"\{" + ", ".join(map(str, [*values[:-1], 1000])) + r"\}", text, fallback=False).correct is False
