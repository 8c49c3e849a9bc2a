r"""The closing statement of a write-up (``extract::closing_statement``, ``extract::stated_answer``).

A solution that marks no answer often closes by stating it as the sought value, then goes on in
the same sentence: "Thus the least possible measure is $65^{\circ}$, and the hexagon has angles
$65^{\circ}, 87^{\circ}, \ldots$", "thus 79 is the largest two-digit integer $N$ for which $N$, $4N$
and $5N$ are reverse primes." The last math of such a sentence is not the answer. The grader reads
the last sentence with the grammar of the opening statement, in two forms, each opening a clause
(at the sentence start, or after "thus", "hence", "so", "that", "and", ...):

- "the <subject with an extremum word> <verb> <answer>" (the verb "is", "are", "equals", or "be"
  after "will", "must", ...);
- "<value> <verb> [indeed] the <extremum word> ...", the value one math span or one number, or
  several joined by ",", "and", "or" ("This proves $90^{\\circ}$ and $60^{\\circ}$ to be the only
  possible values").

When the answer so stated is the gold's, the verdict is TRUE with its own reason. After a marked
answer it is read only when that answer's phrase was weak and the statement comes after it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

CLOSING = (
    "the last sentence states the gold's answer as the sought value (no marked answer, or a weak one: \"Thus the "
    'least possible value is 65, and ...")'
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (
            "65",
            "So $a = 65$ and $d = 22$. Thus the least possible degree-measure of the smallest angle is $65^{\\circ}$, "
            "and the hexagon has angles with degree-measures $65^{\\circ}, 87^{\\circ}, 109^{\\circ}$, and "
            "$175^{\\circ}$.",
        ),
        (
            "79",
            "The reverses are 593, 613 and 97. All three of these numbers are prime, thus 79 is the largest "
            "two-digit integer $N$ for which $N$, $4 \\cdot N$, and $5 \\cdot N$ are all reverse primes.",
        ),
        (
            "\\frac{9}{32} \\sqrt{2}",
            "Hence $t = 2$. We see that $M=\\frac{9}{32} \\sqrt{2}$ is indeed the smallest constant satisfying the "
            "inequality, with equality for any triple proportional to $(1, 2, 3)$.",
        ),
        (
            "8, 32, 44, 68, 80",
            "| 92 | 15 | No |\nTherefore, the only even savage integers less than 100 are 8, 32, 44, 68 and 80.",
        ),
        ("81", "Let $k = 4$. The largest power of 3 less than 100 is $3^{4}=81$, so $d(81)=1 / 81$ is minimal."),
        ("k+1", "So $x = 3$. Hence the minimal possible value will be $k+1$, as $x \\geq 2$."),
        # several values before the verb, joined by ",", "and", "or", read whole
        (
            "$90^{\\circ}$,$60^{\\circ}$",
            "So this case does not occur. This proves $90^{\\circ}$ and $60^{\\circ}$ to be the only possible "
            "values for $\\angle B A C$.",
        ),
        ("-2,0,2", "Let $y=2$. We now show that $-2,0$, and 2 are the only good numbers, with $q = 7$."),
        # after a weak marked answer: a description, then the value stated later
        (
            "976",
            "The answer is therefore the remainder when $576^{603}$ is divided by 1000. Observing that "
            "$-24 \\equiv 0$, it follows that $576^{603} \\equiv-24(\\bmod 1000)$, hence the desired remainder "
            "is 976 .",
        ),
    ],
)
def test_a_closing_statement_of_the_sought_value_is_the_answer(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True and v.reason == CLOSING, v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        # a statement in a sentence that neither opens nor closes the text
        ("5", "Let $x=2$. Thus the largest value is 5. So $y = 7$ and we are done."),
        # no extremum word in the subject
        ("5", "Let $x=2$. Thus the value is 5 and so $y = 7$."),
        # not at a clause start: "plus the largest ...", "times 79 is the largest ..."
        ("5", "Let $x=2$. Then $x$ plus the largest value is 5, so $y = 7$."),
        ("79", "Let $x=2$. So $y=2$ and $x$ times 79 is the largest product, so $z = 7$."),
        # prose after the verb, or a value that is no number
        ("5", "Let $x=2$. Thus the largest value is attained at 5, so $y = 7$."),
        ("5", "Let $x=2$. So $n$ is the largest such integer, and $y = 7$."),
    ],
)
def test_other_closing_sentences_state_nothing(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is not True, v


def test_a_clean_marked_answer_is_not_overruled() -> None:
    v = grade("5", "The answer is $\\boxed{6}$. Thus the largest value is 5.", fallback=False)
    assert v.correct is False and v.reason == "not equivalent", v


def test_a_statement_before_a_weak_marked_answer_does_not_count() -> None:
    text = "Thus the largest value is 5. The answer is therefore the number of ways to pick $y = 7$ from it."
    assert grade("5", text, fallback=False).correct is not True


@given(
    opener=st.sampled_from(["Thus", "Hence,", "So", "Therefore", "It follows that", "We see that"]),
    subject=st.sampled_from(["the largest", "the least possible value of $n$", "the required maximum", "the only $k$"]),
    verb=st.sampled_from(["is", "equals", "will be", "must be"]),
    value=st.integers(-(10**6), 10**6),
    other=st.integers(-(10**6), 10**6),
    wrap=st.sampled_from(["{}", "${}$", "$n={}$"]),
)
def test_any_closing_statement_reads_back(
    opener: str, subject: str, verb: str, value: int, other: int, wrap: str
) -> None:
    text = f"Let $y = 2$. {opener} {subject} {verb} {wrap.format(value)}, and the examples are $x = {other}$."
    assert grade(str(value), text, fallback=False).correct is True
    if other != value + 1:
        assert grade(str(value + 1), text, fallback=False).correct is not True


@given(
    opener=st.sampled_from(["thus", "so", "hence", "We show that", "and"]),
    verb=st.sampled_from(["is", "is indeed", "must be"]),
    extremum=st.sampled_from(["largest", "smallest", "only", "least"]),
    value=st.integers(-(10**6), 10**6),
    other=st.integers(-(10**6), 10**6),
    wrap=st.sampled_from(["{}", "${}$"]),
)
def test_a_value_stated_as_the_extremum_reads_back(
    opener: str, verb: str, extremum: str, value: int, other: int, wrap: str
) -> None:
    text = f"Let $y = 2$. It works, {opener} {wrap.format(value)} {verb} the {extremum} integer $n$ with $n > {other}$."
    assert grade(str(value), text, fallback=False).correct is True
    if other != value + 1:
        assert grade(str(value + 1), text, fallback=False).correct is not True


@given(
    values=st.lists(st.integers(-500, 500), min_size=2, max_size=4, unique=True),
    other=st.integers(600, 999),
    joiner=st.sampled_from([", ", " and ", ", and ", " or "]),
    wrap=st.sampled_from(["{}", "${}$"]),
)
def test_a_list_stated_as_the_only_values_reads_back(values: list[int], other: int, joiner: str, wrap: str) -> None:
    stated = ", ".join(wrap.format(v) for v in values[:-1]) + joiner + wrap.format(values[-1])
    text = f"Let $y = 2$. It works, so {stated} are the only values of $n$ with $n < {other}$."
    gold = ", ".join(map(str, values))
    assert grade(gold, text, fallback=False).correct is True
    assert grade(", ".join(map(str, [*values[:-1], other + 1])), text, fallback=False).correct is not True
