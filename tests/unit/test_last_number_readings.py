"""The other readings of a last number: the numbers of its sentence before it.

With no marked answer and no math span to read, the grader reads the last number of the text. In
a final sentence with several numbers ("In total, 18 students out of 30 passed the exam.") the
last is a guess: a gold that is another number of that sentence is no certain FALSE but UNKNOWN
(another reading matches), kept by the fast path. A gold that is none of them stays a certain
FALSE when the last number closes the text ("... passed the exam."); when a label, a caption or
another sentence follows it ("... the 25th are L-rows (see Fig. 4).", "... > 1$. Therefore, there
is no solution in Case 3."), the number is a step of the text, and a FALSE is UNKNOWN with a
reason of its own. So is a last number that ends a listing of numbers ("... the squares 100, 256,
289, 324 use each digit.", "so neither does 9 ! and 10 !."): one value of several, no more the
answer than the others. The last number itself stays TRUE, except where it is an operand ("After
possibly dividing by 5, we obtain infinitely many triples.", "one of them must be a multiple of
3."): the input of a step, which says nothing of the answer whether it equals the gold or not.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade

PROOF = (
    "undecided: no marked answer, and the response argues a proof (we show, a lemma, by induction) or ends by closing "
    "one (as required, a contradiction); its last math may be a step, not a stated answer"
)
OTHER = "undecided: the unmarked answer differs, but another reading of the final statement matches"
GUESS = (
    "undecided: no marked answer, and the answer read is the text's last number, which a label, a caption or another "
    'sentence follows or which ends a listing of numbers, or a last value that is an operand ("dividing by 5"): a '
    "step of the text, not its stated answer"
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("18", "In total, 18 students out of 30 passed the exam."),
        ("5", "It will take 5 hours to fill the tank at 3 gallons per hour."),
        ("5", "Janet has 5 apples left after giving 3 away."),
        ("3", "The remainder is 3 when 100 is divided by 7."),
        ("10", "Therefore, John walked 10 miles in 2 hours."),
        ("25", "So each friend gets 25 dollars, for a total of 100 dollars among 4 friends."),
        ("6", "She needs 6 more cups to make 10 cups in total."),
    ],
)
def test_an_earlier_number_of_the_final_sentence_is_no_certain_false(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", OTHER), v


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # the last number still reads TRUE
        ("30", "In total, 18 students out of 30 passed the exam.", (True, "same answer after normalization")),
        # a number of no reading that closes the text: a certain FALSE
        ("12", "In total, 18 students out of 30 passed the exam.", (False, "not equivalent")),
        ("12", "In total, 18 students out of 30 passed the exam.\n\n</s>", (False, "not equivalent")),
        ("12", "所以共有30名学生。<eoa>", (False, "not equivalent")),
        # ... and one that a label, a caption or another sentence follows: a step, UNKNOWN
        ("2", "The rows from the 1st to the 25th are L-rows (see Fig. 4).", (False, GUESS)),
        ("2", "If $p=5$ the left side is $2^{2}>1$. Therefore, there is no solution in Case 3.", (False, GUESS)),
        ("2", "Hence $B T=3 B M$.\n\n<img_3695>\n\nFigure 1", (False, GUESS)),
        ("12", "In total, 30 passed.\nSo the others failed.", (False, GUESS)),
        ("12", "所以共有30名学生。然后我们检查。", (False, GUESS)),
        # a number of an earlier sentence is no reading of the last one
        ("18", "There were 18 of them. In total, 30 passed the exam.", (False, "not equivalent")),
        # a power, an index or a percentage is no value of the sentence
        ("2", "The area is x^2 for 30 of them.", (False, "not equivalent")),
        # a marked answer that differs: a certain FALSE
        ("12", "In total, 18 students out of 30 passed. The answer is 30.", (False, "not equivalent")),
    ],
)
def test_other_verdicts_are_as_before(gold: str, response: str, expected: tuple[bool, str]) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.reason) == expected, v


def test_a_method_run_alone_has_no_other_readings() -> None:
    e = extract_answer("In total, 18 students out of 30 passed.", strategy="last_number")
    assert e is not None and e.text == "30"


_NOUNS = st.sampled_from(["apples", "students", "miles", "dollars", "hours", "cups"])


@given(
    a=st.integers(1, 10_000),
    b=st.integers(1, 10_000),
    c=st.integers(1, 10_000),
    first=_NOUNS,
    second=_NOUNS,
    link=st.sampled_from(["out of", "in", "for", "after", "at", "among"]),
)
def test_two_numbers_of_a_sentence(a: int, b: int, c: int, first: str, second: str, link: str) -> None:
    assume(len({a, b, c}) == 3)
    response = f"In total, {a} {first} {link} {b} {second} were used."
    assert grade(str(b), response, fallback=False).correct
    v = grade(str(a), response, fallback=False)
    assert (v.correct, v.reason) == (False, OTHER), response
    v = grade(str(c), response, fallback=False)
    assert (v.correct, v.reason) == (False, "not equivalent"), response


_WORDS = st.lists(st.sampled_from(["eggs", "apples", "in total", "left", "dollars", "per week"]), max_size=3)
_AFTER = st.sampled_from(
    [
        "So the others failed.",  # another sentence
        "(see Fig. 2)",  # a caption's number
        "\n\n<img_4019>\n\nFigure 3",  # a caption after an image tag
        "Case 2 is similar.",
        "所以答案不同。",
    ]
)


@given(
    value=st.integers(0, 10**6),
    gold=st.integers(0, 10**6),
    words=_WORDS,
    end=st.sampled_from([".", "!", "", ".\n\n</s>", "。<eoa>"]),
    after=_AFTER,
)
def test_a_last_number_is_certain_only_where_it_closes_the_text(
    value: int, gold: int, words: list[str], end: str, after: str
) -> None:
    assume(value != gold)
    sentence = f"Hence she has {value} {' '.join(words)}".rstrip()
    closing = sentence + end
    v = grade(str(gold), closing, fallback=False)
    assert (v.method, v.correct, v.reason) == ("last_number", False, "not equivalent"), closing
    followed = f"{sentence}. {after}"
    w = grade(str(gold), followed, fallback=False)
    assert (w.correct, w.decided_by, w.reason) == (False, "fast", GUESS), followed
    # a matching last number is TRUE either way
    assert grade(str(value), followed, fallback=False).correct, followed


@pytest.mark.parametrize(
    ("response", "last"),
    [
        ("Note that the perfect squares 100, 256, 289, 324 use each of the other digits.", "324"),
        ("but 8 ! does not divide it, so neither does 9 ! and 10 !.", "10"),
        ("The possible values are 3, 5, and 10.", "10"),
        ("It grew by 5\\% or 10\\%.", "10\\%"),
        ("The two numbers are 1,000 and 10.", "10"),
    ],
)
def test_the_last_number_of_a_listing_is_no_certain_false(response: str, last: str) -> None:
    v = grade("7", response, fallback=False)
    assert (v.method, v.correct, v.decided_by, v.reason) == ("last_number", False, "fast", GUESS), v
    # a matching last number stays TRUE
    assert grade(last, response, fallback=False).correct, response


@pytest.mark.parametrize(
    "response",
    [
        "Day 2, she has 10 eggs.",  # a label's number and a blank: no listing
        "So 3 + 10 = 10 eggs, and she keeps 10.",  # a clause, not a number, before "and"
        "In 2019 or so she had 10.",
    ],
)
def test_a_number_that_only_follows_a_connector_stays_certain(response: str) -> None:
    v = grade("7", response, fallback=False)
    assert (v.method, v.correct, v.reason) == ("last_number", False, "not equivalent"), v


@given(
    values=st.lists(st.integers(0, 10**6), min_size=2, max_size=6),
    gold=st.integers(0, 10**6),
    joiner=st.sampled_from([", ", ", and ", " and ", " or ", ", or "]),
    mark=st.sampled_from(["", " !", "\\%"]),
    lead=st.sampled_from(["The values are", "So we get", "Note that the squares", "Hence"]),
)
def test_a_listing_of_numbers(values: list[int], gold: int, joiner: str, mark: str, lead: str) -> None:
    assume(gold not in values)
    assume(mark != " !" or all(v < 10**4 for v in values))
    written = [f"{v}{mark}" for v in values]
    response = f"{lead} {', '.join(written[:-1])}{joiner}{written[-1]}."
    v = grade(str(gold), response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", GUESS), response
    assert grade(str(values[-1]), response, fallback=False).correct, response


@pytest.mark.parametrize(
    ("response", "last"),
    [
        ("After possibly dividing by 5 , we obtain infinitely many primitive pretty triples, as required.", "5"),
        ("At least one of these four odd elements must be a multiple of 3 .", "3"),
        ("Hence $n^2 - 1$ is divisible by 8.", "8"),
        ("Now reduce every term modulo $7$.", "7"),
        ("Multiplying by 4, we get the other side.", "4"),
        ("So the sum, when divided by 9, leaves the same remainder.", "9"),
    ],
)
def test_a_last_number_that_is_an_operand_is_no_verdict_either_way(response: str, last: str) -> None:
    for gold in (last, "11"):
        v = grade(gold, response, fallback=False)
        # a text that closes a proof ("as required") has a reason of its own for a differing value
        reasons = (GUESS, PROOF) if gold == "11" else (GUESS,)
        assert (v.correct, v.decided_by, v.reason in reasons) == (False, "fast", True), (gold, v)


@pytest.mark.parametrize(
    ("response", "last"),
    [
        ("So the price increased by 20.", "20"),  # by how much it changed is often the question
        ("She divided the 12 apples.", "12"),
        ("Tom had 12 marbles; Ann had a multiple of that, 36.", "36"),
        ("The number of modules is 6.", "6"),
    ],
)
def test_a_number_after_other_words_stays_the_reading(response: str, last: str) -> None:
    assert grade(last, response, fallback=False).correct, response
    v = grade("11", response, fallback=False)
    assert (v.method, v.correct, v.reason) == ("last_number", False, "not equivalent"), v


@given(
    n=st.integers(0, 10**6),
    gold=st.integers(0, 10**6),
    lead=st.sampled_from(["divided by", "dividing by", "multiplied by", "divisible by", "modulo", "a multiple of"]),
    dollar=st.booleans(),
    before=st.sampled_from(["", "We have $x = 4$. ", "Consider the 12 numbers. "]),
    after=st.sampled_from([".", " again.", ", and we go on."]),
)
def test_an_operand_read_last(n: int, gold: int, lead: str, dollar: bool, before: str, after: str) -> None:
    number = f"${n}$" if dollar else str(n)
    response = f"{before}The sum, {lead} {number}{after}"
    for g in (n, gold):
        v = grade(str(g), response, fallback=False)
        assert (v.correct, v.decided_by, v.reason) == (False, "fast", GUESS), (g, response, v)
