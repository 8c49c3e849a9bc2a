"""The count sentence (``extract_phrase.cpp``'s ``read_count_sentence``; word lists ``kThereBe``
and ``kReferenceWords`` in ``detail/markers.hpp``). A response with no marked answer whose final
statement counts answers with the count, not with a later number that describes what is counted:
"There are 3 bars with values below 40." answers 3, and so does a count that opens the
sentence's subject: "Thus, 8 of the positive divisors of 900 are perfect squares." answers 8. A
later number that is a second count ("There are 9 chickens and 10 rabbits.") keeps the
last-number reading. The last number becomes the count's rival: a count that does not match while
the last number does is UNKNOWN, never a certain FALSE.

The style is that of visual question answering output (counting objects in charts and scenes).
The Hypothesis tests build count sentences from random counts (digits and words), nouns,
reference words and later numbers, forms no corpus of the project holds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("There are 3 bars with values below 40.", "3"),
        ("So, there are 25 racks that have at least 0 ties.", "25"),
        ("There are three people in the image who were born after 1945.", "three"),
        ("there are three objects left after subtracting all the red balls.</s>", "three"),
        ("We remove 2 of the 5 balls.\nThere are three balls left.", "three"),
        ("There's 2 cats above 3 dogs.", "2"),
        ("In total there were twenty-one schools between 2000 and 2005.", "twenty-one"),
        ("There will be 4 groups with more than 10 members.", "4"),
        ("Therefore, there are **3** groups of bars with at least one bar smaller than 40.", "3"),
        ("So, there is only one block that has exactly 36 houses.", "one"),
        ("There are exactly 7 rows with values above 12.", "7"),
        ("There are a total of 12 boxes heavier than 5 kg.", "12"),
        # an olympiad solution's count: what it counts is described by a bound and by divisors
        (
            "We then obtain that there are 100 positive integers less than or equal to 300 which are "
            "multiples of 3 or 5 , but not of 10 or 15 .",
            "100",
        ),
        ("There are 6 multiples of 7 below 45.", "6"),
        # a count that opens the sentence's subject, "N of the ..."
        ("Of these, $1,4,9,25$, and 36 are squares.\n\nThus, 8 of the positive divisors of 900 are squares.", "8"),
        ("So 12 of the 30 integers are even.", "30"),  # a second count: no reference word before 30
        ("We remove 2 of the 5 balls.", "5"),
    ],
)
def test_a_final_count_sentence_answers_with_its_count(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert (found.text, found.method) == (answer, "last_number")


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("There are 9 chickens and 10 rabbits.", "10"),  # a second count: no reference word before 10
        ("There are 4 green balls and 4 shiny things left", "4"),
        ("The ratio is 1:2, which means there is one male for every two females.", "1:2"),  # count after the number
        ("There are 3 bars. Their values add up to 40.", "40"),  # the count is not the final statement
    ],
)
def test_a_later_count_or_a_later_statement_keeps_the_last_number(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert found.text == answer


def test_no_count_sentence_and_no_number_is_no_answer() -> None:
    assert extract_answer("There are many red balls and one cube.") is None
    assert extract_answer("I cannot tell how many there are.") is None


def test_a_count_against_the_gold_of_its_reference_value_is_not_certain() -> None:
    # "two bars ... smaller than 0" against 0: the count differs, its rival (the last number) matches
    v = grade("0", "There are two bars with values smaller than 0.", fallback=False)
    assert v.correct is False
    assert v.reason.startswith("undecided")
    assert v.decided_by == "fast"
    # a clean count that matches is TRUE; one that matches neither is not TRUE
    assert grade("3", "There are 3 bars with values below 40.", fallback=False).correct is True
    assert grade("5", "There are 3 bars with values below 40.", fallback=False).correct is False


def test_a_marked_answer_beats_the_count_sentence() -> None:
    assert grade("40", "The answer is 40.\nThere are 3 bars with values below 40.", fallback=False).correct is True


_WORDS = ["zero", "one", "two", "three", "seven", "eleven", "twenty", "forty-two", "ninety nine", "a hundred"]
_WORD_VALUES = [0, 1, 2, 3, 7, 11, 20, 42, 99, 100]
_NOUNS = ["bars", "objects", "people", "racks", "cubes left", "red balls", "students"]
_REFERENCES = [
    "with values below",
    "that have at least",
    "larger than",
    "born after",
    "with more than",
    "in",
    "less than or equal to",
    "that are multiples of",
]


@st.composite
def counts(draw: st.DrawFn) -> tuple[str, int]:
    if draw(st.booleans()):
        k = draw(st.integers(0, len(_WORDS) - 1))
        word = _WORDS[k]
        return (word.capitalize() if draw(st.booleans()) else word), _WORD_VALUES[k]
    n = draw(st.integers(0, 10**6))
    return str(n), n


@given(
    count=counts(),
    opener=st.sampled_from(["There are", "there are", "So, there are", "Therefore there were", "There is", "There's"]),
    noun=st.sampled_from(_NOUNS),
    reference=st.sampled_from(_REFERENCES),
    later=st.integers(-50, 3000),
    end=st.sampled_from([".", "", ".</s>", ".\n", "!"]),
)
def test_a_count_with_a_reference_value_reads_the_count(
    count: tuple[str, int], opener: str, noun: str, reference: str, later: int, end: str
) -> None:
    written, value = count
    text = f"{opener} {written} {noun} {reference} {later}{end}"
    found = extract_answer(text)
    assert found is not None and found.text == written
    assert grade(str(value), text, fallback=False).correct is True
    if later != value:
        v = grade(str(later), text, fallback=False)
        assert v.correct is False and v.reason.startswith("undecided")  # the rival matches: not certain


@given(
    first=st.integers(0, 500),
    second=st.integers(0, 500),
    nouns=st.sampled_from([("chickens", "rabbits"), ("red balls", "blue cubes"), ("boys", "girls")]),
    joiner=st.sampled_from([" and ", ", ", " plus "]),
)
def test_two_counts_keep_the_last_number(first: int, second: int, nouns: tuple[str, str], joiner: str) -> None:
    text = f"There are {first} {nouns[0]}{joiner}{second} {nouns[1]}."
    found = extract_answer(text)
    assert found is not None and found.text == str(second)


@given(
    count=st.integers(0, 10**6),
    opener=st.sampled_from(["", "Thus, ", "In total, ", "So ", "Hence exactly "]),
    noun=st.sampled_from(_NOUNS),
    reference=st.sampled_from(["less than or equal to", "that are multiples of", "above", "larger than"]),
    later=st.integers(0, 3000),
    end=st.sampled_from([".", "", ".\n"]),
)
def test_a_count_that_opens_the_subject_reads_the_count(
    count: int, opener: str, noun: str, reference: str, later: int, end: str
) -> None:
    text = f"{opener}{count} of the {noun} {reference} {later} are odd{end}"
    found = extract_answer(text)
    assert found is not None and found.text == str(count)
    # with no reference word before it, the later number is a second count: the last number stays
    plain = f"{opener}{count} of the {later} {noun} are odd{end}"
    found = extract_answer(plain)
    assert found is not None and found.text == str(later)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        # an argument, an index or a power after the count names what is counted, no value
        ("202", "In total, 202 of the integers $f(1), f(2), \\ldots, f(2014)$ have a units digit of 1 ."),
        ("3", "So 3 of the terms $a_1, a_2, a_{10}$ are at least 5."),
        ("4", "Thus 4 of the values $f(2), f(5), g^{2}$ are less than 7."),
    ],
)
def test_what_names_the_counted_is_no_reference_value(gold: str, response: str) -> None:
    assert grade(gold, response, fallback=False).correct is True
    # a plain number after the count still makes the sentence no count sentence
    assert grade(gold, response.replace("$ ", "$ and 9 more ", 1), fallback=False).correct is not True
