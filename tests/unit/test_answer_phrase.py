r"""The answer phrase: after a marker ("the answer is", "Answer:", "A:", "#### ", "【答案】"), the
answer is the math object at the start of the phrase, read by a small grammar, not the rest of
the sentence (``extract::read_answer_phrase``). The same reader reads golds written as a phrase
("18 eggs"). A reading that skipped words before its number, or that another marker disagrees
with, is weak: when it does not match, the fast path says UNKNOWN, never a certain FALSE.

Examples are the issue's and the styles of ``../shared/corpora/wild_dev.jsonl`` (GSM8K-style
"The answer is 18 eggs.", MR-GSM8K's "#### 8 / The answer is: 8", GAOKAO's ``【答案】…<eoa>``);
a Hypothesis test wraps random answers in random marker phrases with random trailing words and
units and reads the answer back."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade

# ---------------------------------------------------------------------------------------------
# what the reader keeps of a phrase


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # numbers: sign, thousands separators, decimals, fractions, mixed numbers, percent,
        # scientific notation
        ("The answer is 18 eggs.", "18"),
        ("The answer is -7 degrees.", "-7"),
        ("The answer is 1,000 dollars.", "1,000"),
        ("The answer is 1 000 people.", "1 000"),
        ("The answer is 3.25 liters of water.", "3.25"),
        ("The answer is 3/4 of the cake.", "3/4"),
        ("The answer is 1 1/2 cups.", "1 1/2"),
        ("The answer is 25% of them.", "25%"),
        ("The answer is 1.5e-3 seconds.", "1.5e-3"),
        # currency around the number
        ("The answer is $18 per week.", "18"),
        (r"The answer is \$18.00 in total.", r"\$18.00"),
        ("The answer is 18 dollars.", "18"),
        ("The answer is ¥12 in change.", "12"),
        ("The answer is €3 each.", "3"),
        # where it ends: a word, a unit (attached or apart), a remark in parentheses
        ("Therefore, the answer is 200 GB.", "200"),
        ("The answer is 48g.", "48"),
        ("Final Answer: 5 km/h", "5"),
        ("The answer is 3 bolts per minute.", "3"),
        ("The answer is 12 (since 3 * 4 = 12).", "12"),
        # a closer that no group of the phrase opened closes a group around the phrase
        ("(the special case $n=100$, then the answer is $n$ ). Next", "n"),
        ("(so the answer is 5) and more", "5"),
        ("The answer is [0, 1) for t.", "[0, 1)"),
        ("The answer is 2nd place.", "2"),
        # math spans, expressions, tuples, intervals, relations, lists
        ("The answer is $18$ eggs.", "18"),
        (r"The answer is $\frac{1}{2}$ of the pie.", r"\frac{1}{2}"),
        ("The answer is (8, -2) on the plane.", "(8, -2)"),
        ("The answer is [0, 1) for t.", "[0, 1)"),
        ("**Answer:** x = 5.", "x = 5"),
        ("The answer is x = 5 and y = 3 here.", "x = 5 and y = 3"),
        ("The answer is 8 x ^ 2 - 3 xy + y ^ 2 .", "8 x ^ 2 - 3 xy + y ^ 2"),
        ("The answer is 5 : 1 in all.", "5 : 1"),
        # a computation or a chain states its last member
        ("The answer is 9 * 2 = 18 eggs.", "18"),
        # a choice letter, a text answer
        ("So the answer is B", "B"),
        ("So the answer is C: 5 meters.", "C"),
        ("The correct answer is D) $12$", "D"),
        ("The answer is B because the rest are odd.", "B"),
        ("The answer is no solution.", "no solution"),
        ("The answer is Yes", "Yes"),
        # a restating sentence: its one number is the answer
        ("The answer is Melanie started with 18 vacuum cleaners.", "18"),
        ("The answer is a total of 18 eggs.", "18"),
        # markdown bold ends the math ("**" before a blank or punctuation is no power)
        ("The answer is **18** eggs.", "18"),
        ("Therefore, the answer is: **42 apples**", "42"),
        ("The answer is 2**3.", "2**3"),
        ("The answer is **x** = 5", "x** = 5"),  # the equation goes on: the reading is unchanged
        # a list's last member after ", and" / ", or"
        ("The answer is 1, 2, and 3.", "1, 2, and 3"),
        ("The answer is 4, 5, or 6 here.", "4, 5, or 6"),
        ("The answer is 5, and that is all.", "5"),
        # a number in words before other words
        ("The answer is seven apples.", "seven"),
        ("The answer is negative five degrees.", "negative five"),
        ("The answer is twenty-one marbles.", "twenty-one"),
    ],
)
def test_answer_phrase_reads_the_math_at_its_start(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert found.text == answer
    assert found.method == "answer_is"


def test_a_display_block_after_a_marker_is_read_whole() -> None:
    found = extract_answer("The answer is\n$$x^2 + 1$$\nwhich is positive.")
    assert found is not None and found.text == "x^2 + 1"


# ---------------------------------------------------------------------------------------------
# grading: the issue's examples, golds read by the same reader


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("18", "She sells 9 * 2 = 18.\nThe answer is 18 eggs."),
        ("200", "Therefore, the answer is 200 GB."),
        ("40", "The answer is 40 songs. #### 40"),
        ("B", "So the answer is B"),
        ("1000", "The answer is 1,000 dollars."),
        ("1.5", "The answer is 1 1/2 cups."),
        ("5", "Final Answer: 5 km/h"),
        ("18", "The answer is Melanie started with 18 vacuum cleaners."),
        # golds written as a phrase read as their number
        ("18 eggs", "The answer is 18."),
        (r"\$18.00", "A: 18"),
        ("2 (any value in (1, 5] will do)", "The answer is 2."),
        # a gold number broken apart by a blank (OCR) is read whole, not cut at its point
        ("0. 98.", "【答案】0.98<eoa>"),
        ("3. 5 cm", "The answer is 3.5 cm."),
    ],
)
def test_issue_examples_grade_true_on_the_fast_path(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True, v
    assert v.decided_by == "fast"


def test_a_trailing_noun_or_unit_is_a_clean_reading_and_a_mismatch_is_certain() -> None:
    # "200 GB" is read cleanly: a wrong number there is a certain FALSE, not a fallback job
    v = grade("300", "Therefore, the answer is 200 GB.", fallback=False)
    assert v.correct is False
    assert v.reason == "not equivalent"
    v = grade("6", "The answer is 5 km/h.", fallback=False)
    assert v.correct is False and v.reason == "not equivalent"


def test_a_restating_sentence_that_does_not_match_is_not_certain() -> None:
    # the reader skipped words before the number: a mismatch is UNKNOWN
    v = grade("20", "The answer is Melanie started with 18 vacuum cleaners.", fallback=False)
    assert v.correct is False
    assert v.reason.startswith("undecided")


@pytest.mark.parametrize("title", ["Mr", "Mrs", "Ms", "Dr", "Prof"])
def test_a_title_before_a_name_ends_no_sentence(title: str) -> None:
    # markers.hpp's kAbbreviations: "Mr." is no sentence end, the restating sentence goes on
    text = f"The answer is {title}. Jackson wants to give each student 2 glue sticks."
    e = extract_answer(text)
    assert e is not None and e.text == "2", e
    assert grade("2", text, fallback=False).correct is True
    assert grade("8", text, fallback=False).reason.startswith("undecided")


def test_an_abbreviation_ends_a_sentence_at_the_end_of_the_text() -> None:
    assert grade("7", "So the total is 7 for Mr.", fallback=False).correct is True


def test_a_phrase_of_several_numbers_and_no_math_span_is_weak() -> None:
    v = grade("7", "The answer is she has 3 apples and 4 pears left.", fallback=False)
    assert v.reason.startswith("undecided")


@given(
    value=st.integers(0, 10**4),
    op=st.sampled_from(["+", " + ", "/", " ^ "]),
    name=st.sampled_from(["John", "Mary", "Sam", "Kelly", "Grandma"]),
    mark=st.sampled_from(["'", "\u2019"]),
    noun=st.sampled_from(["age", "share", "apples", "score"]),
    marker=st.sampled_from(["A: ", "The answer is ", "Final Answer: ", "**Answer:** "]),
)
def test_math_cut_before_its_operand_states_no_answer(
    value: int, op: str, name: str, mark: str, noun: str, marker: str
) -> None:
    # "A: 10+John's age": a possessive or a contraction is a word, never an operand of the math
    # before it; the math stops at its dangling operator and states no answer of its own. The
    # phrase is read whole, a weak reading: no certain FALSE, and nothing for the fallback.
    text = f"Peter is older.\n{marker}{value}{op}{name}{mark}s {noun}"
    found = extract_answer(text)
    assert found is not None and found.text.endswith(f"s {noun}"), found
    v = grade(str(value + 40), text, fallback=False)
    assert v.correct is False and v.reason.startswith("undecided: the answer was read from a phrase")


def test_an_operand_word_and_a_prime_stay_math() -> None:
    assert grade("3 + ab", "The answer is 3 + ab", fallback=False).correct is True
    assert grade("f'(x)", "The answer is f'(x).", fallback=False).correct is True
    assert extract_answer("The answer is 10 + x.").text == "10 + x"  # type: ignore[union-attr]


@given(
    name=st.sampled_from(["n", "ABCDEFGH", "f(x)", r"\triangle ABC", "x_i", r"\overline{AB}"]),
    subject=st.sampled_from(["The largest", "The volume of", "the maximum number of points in the domain of"]),
    value=st.integers(-(10**6), 10**6),
    end=st.sampled_from([".", "", ".\n"]),
)
def test_math_that_only_names_is_no_second_number(name: str, subject: str, value: int, end: str) -> None:
    # "The largest $n$ is 34": a span with no digit names what the sentence is about; the value
    # that closes the phrase is the answer (a restating sentence: weak, so a mismatch is UNKNOWN)
    text = f"The answer is: {subject} ${name}$ is {value}{end}"
    found = extract_answer(text)
    assert found is not None and found.text == str(value)
    assert grade(str(value), text, fallback=False).correct is True
    miss = grade(str(value + 1), text, fallback=False)
    assert miss.correct is False and miss.reason.startswith("undecided")


def test_a_value_before_the_names_or_two_values_keep_the_phrase() -> None:
    # the value must close the phrase, and be the only math that holds a digit
    for text in ("The answer is: the value 34 belongs to $f(x)$", "The answer is: the area of $ABC$ is $2$ or 3"):
        found = extract_answer(text)
        assert found is not None and found.method == "answer_is" and found.text.count(" ") > 2, found


def test_a_gold_that_is_an_expression_is_not_cut() -> None:
    # only a number is read out of a gold phrase: expressions and relations stay whole
    assert grade("x = 5", "The answer is x = 5.", fallback=False).correct is True
    assert grade("5", "The answer is x = 5.", fallback=False).correct is True
    v = grade("2 x + 1", "The answer is 2.", fallback=False)
    assert v.correct is not True


# ---------------------------------------------------------------------------------------------
# Hypothesis: random answers in random marker phrases with random trailing words and units

_MARKERS = [
    "The answer is {}",
    "So the answer is {}",
    "Therefore, the final answer is: {}",
    "Answer: {}",
    "**Answer:** {}",
    "Final Answer: {}",
    "# Answer\n\n{}",
    "A: {}",
    "答案是{}",
    "故答案为：{}",
    "【答案】{}<eoa>",
]
_TRAILING = [
    "",
    ".",
    " eggs.",
    " GB.",
    " km/h",
    " dollars",
    " bolts per minute.",
    " cm",
    " kg.",
    " songs. That is all.",
    " (see above)",
    "。",
]
_PREAMBLE = st.sampled_from(
    ["", "She sells 9 * 2 = 18 eggs.\n", "Step 1: 3 + 4 = 7.\nStep 2: 7 * 2 = 14.\n", "我们计算得 3+4=7。\n"]
)


@st.composite
def answers(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "thousands", "decimal", "fraction", "negative", "tuple"]))
    n = draw(st.integers(min_value=0, max_value=999_999))
    if kind == "int":
        return str(n)
    if kind == "thousands":
        return f"{n + 1000:,}"
    if kind == "decimal":
        return f"{n}.{draw(st.integers(min_value=1, max_value=99))}"
    if kind == "fraction":
        return f"{n + 1}/{draw(st.integers(min_value=2, max_value=97))}"
    if kind == "negative":
        return f"-{n + 1}"
    return f"({n}, {draw(st.integers(min_value=-50, max_value=50))})"


@given(
    answer=answers(),
    marker=st.sampled_from(_MARKERS),
    trailing=st.sampled_from(_TRAILING),
    preamble=_PREAMBLE,
    bold=st.booleans(),
)
def test_answer_in_a_random_marker_phrase_reads_back(
    answer: str, marker: str, trailing: str, preamble: str, bold: bool
) -> None:
    if bold and not marker.endswith("<eoa>"):
        # markdown bold around the answer ("**18** eggs"), or around the answer and its noun
        text = preamble + marker.format(f"**{answer}**") + trailing
        found = extract_answer(text)
        assert found is not None and found.text == answer, text
        assert grade(answer, text, fallback=False).correct is True, text
        text = preamble + marker.format(f"**{answer}{trailing.rstrip('.。')}**")
        found = extract_answer(text)
        assert found is not None and found.text == answer, text
        return
    if marker.endswith("<eoa>"):
        text = preamble + marker.format(answer + trailing.rstrip("。"))
    else:
        text = preamble + marker.format(answer) + trailing
    found = extract_answer(text)
    assert found is not None, text
    assert found.text == answer, text
    v = grade(answer, text, fallback=False)
    assert v.correct is True, (text, v)
    assert v.decided_by == "fast"


@given(
    value=st.integers(min_value=-99, max_value=99),
    noun=st.sampled_from(["apples", "marbles", "students in the class", "degrees", "dollars"]),
    marker=st.sampled_from(["The answer is {}", "Answer: {}", "So the answer is {}."]),
)
def test_a_number_in_words_before_a_noun_is_read(value: int, noun: str, marker: str) -> None:
    units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    units += ["eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    n = abs(value)
    words = units[n] if n < 20 else tens[n // 10 - 2] + ("" if n % 10 == 0 else "-" + units[n % 10])
    if value < 0:
        words = "negative " + words
    text = marker.format(f"{words} {noun}")
    assert grade(str(value), text, fallback=False).correct is True, text
    # another number is no certain match, and never TRUE
    assert grade(str(value + 1), text, fallback=False).correct is False, text


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("\\{1, 2, 3\\}", "The answer is 1, 2, and 3."),
        ("\\frac{3}{4}", "The answer is 3/4 or 0.75."),  # one value written twice: {a, a} is {a}
        ("21, 16, 11", "The answer is $21, 16$ or $11$."),
    ],
)
def test_lists_joined_by_and_or_compare_as_lists(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True, v


def _half_up(num: int, den: int) -> str:
    return str((Decimal(num) / Decimal(den)).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


@given(
    num=st.integers(min_value=1, max_value=99),
    den=st.integers(min_value=2, max_value=97),
    sign=st.sampled_from(["≈", r"\approx", r"\simeq"]),
    form=st.sampled_from(
        ["The answer is {exact} {sign} {approx}.", "So $p = {exact} {sign} {approx}$.", "$${exact} {sign} {approx}$$"]
    ),
)
def test_the_exact_member_before_an_approximation_is_stated_too(num: int, den: int, sign: str, form: str) -> None:
    # "1/3 ≈ 0.333": the exact value and its rounding are both the response's; either matches
    assume(math.gcd(num, den) == 1)
    exact = f"\\frac{{{num}}}{{{den}}}" if "$" in form else f"{num}/{den}"
    approx = _half_up(num, den)  # rounded half up, as people round (format() gives 0.062 for 1/16)
    if sign == "≈" and "$" in form:
        sign = r"\approx"
    text = form.format(exact=exact, sign=sign, approx=approx)
    assert grade(f"\\frac{{{num}}}{{{den}}}", text, fallback=False).correct is True, text
    assert grade(approx, text, fallback=False).correct is True, text
    assert grade(f"\\frac{{{num + den}}}{{{den}}}", text, fallback=False).correct is False, text
