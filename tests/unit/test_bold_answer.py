r"""The bolded answer of a competition write-up (extract_bold.cpp, ``bold_answer``).

ARML's and many olympiad solutions set the numbers of the final answer in math bold, often with
spaced digits: ``$N=125+8-1=\mathbf{1 3 2}$``, ``$\frac{\mathbf{7 9}}{\mathbf{1 2 8}}$``,
``$T=36,[A R M L]=\mathbf{7 4}$``. Where a text bolds numbers and nothing else, final_span reads
the span holding the last bold number, from the top-level comma before the span's first bold
number, whatever follows it ("... $=\mathbf{4 7}$ when divided by 100" is 47, not 100; the 100 is
its rival, so a gold of 100 is UNKNOWN, not a certain FALSE). A bold letter or word anywhere (a
vector ``\mathbf{v}``, a heading ``\textbf{Step 1}``) turns the rule off: bold is then no mark
of the answer. The reference extractor states the rule again (tests/oracles/reference_bold_span.py,
with generated parity tests).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("47", "Thus $N$ leaves a remainder of $48-1=\\mathbf{4 7}$ when divided by 100 ."),
        ("74", "With $T=36,[A R M L]=\\mathbf{7 4}$."),
        (r"\frac{79}{128}", "is $$1-\\frac{49}{128}=\\frac{\\mathbf{7 9}}{\\mathbf{1 2 8}}$$"),
        ("132", "it follows that $N=125+8-1=\\mathbf{1 3 2}$.\n\nRemark: show that $x = 5$ works."),
        (r"2\sqrt{2}", "With $T=1, O E=\\mathbf{2} \\sqrt{\\mathbf{2}}$."),
        (r"\frac{27}{2}", "With $T=114, h=108 / 8=\\mathbf{2 7} / \\mathbf{2}$."),
        ("5762", "Hence $\\mathbf{5 7 6 2}$ is the maximum possible value of $N$ when $x = 3$."),
        ("10", "With $T=1$, they can mow $5 \\cdot 2=\\mathbf{1 0}$ lawns in 2 hours."),
        ("1000", "So $N = \\mathbf{1,000}$ in all, as $y = 2$."),
    ],
)
def test_the_bolded_number_is_the_answer(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct, v
    assert v.method == "final_span"


def test_a_number_after_the_bold_answer_is_its_rival() -> None:
    response = "Thus $N$ leaves a remainder of $48-1=\\mathbf{4 7}$ when divided by 100 ."
    v = grade("100", response, fallback=False)
    assert (v.correct, v.reason) == (
        False,
        "undecided: the unmarked answer differs, but another reading of the final statement matches",
    )
    assert grade("46", response, fallback=False).reason == "not equivalent"


@pytest.mark.parametrize(
    ("response", "read"),
    [
        # a bold vector: bold marks no answer here, the last span is read as before
        ("Let $\\mathbf{v} = (1, 2)$. Then $|\\mathbf{v}|^2 = \\mathbf{5}$, and $x = 7$.", "x = 7"),
        # a bold heading
        ("\\textbf{Step 1} gives $a = \\mathbf{3}$. Then $b = 4$.", "b = 4"),
        # no bold at all
        ("We get $a = 3$. Then $b = 4$.", "b = 4"),
    ],
)
def test_bold_letters_or_words_turn_the_rule_off(response: str, read: str) -> None:
    e = extract_answer(response)
    assert e is not None
    assert e.text == read


def _spaced(n: int) -> str:
    return " ".join(str(n))


@given(
    value=st.integers(min_value=0, max_value=10**7),
    given_value=st.integers(min_value=1, max_value=99),
    prose=st.sampled_from(["", " when divided by 100", " lawns in 2 hours", ", as $y = 3$ shows"]),
    spaced=st.booleans(),
    closing=st.sampled_from([".", "", ".\n\nRemark: the case $k = 4$ is similar."]),
)
def test_any_bolded_answer_is_read(value: int, given_value: int, prose: str, spaced: bool, closing: str) -> None:
    digits = _spaced(value) if spaced else str(value)
    response = f"With $T={given_value}, K=2 T+15=\\mathbf{{{digits}}}${prose}{closing}"
    v = grade(str(value), response, fallback=False)
    assert v.correct, v
    other = grade(str(value + 1), response, fallback=False)
    assert other.correct is False


# A bold number after a marked answer (extract_bold.cpp, read_bold_after_marker): the value the
# marked answer comes to, when it lies in a later math span than the one the answer was read from.


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (
            "-8",
            "The two solutions are $-m$ and $-n$, so the answer is $\\min \\{-m,-n\\}$. With $T=\\frac{7}{8}, m=7, "
            "n=8$, and $\\min \\{-7,-8\\}$ is $\\mathbf{- 8}$.",
        ),
        (
            "109890",
            "The answer is therefore $(T+1) T^{4}-(T+1) T$, and with $T=10$, this expression is equal to "
            "$110000-110=\\mathbf{1 0 9 8 9 0}$.",
        ),
        (
            r"\frac{79}{128}",
            "Hence the answer is $$\\frac{[M Q R T]}{[P Q R]}=1-\\frac{(A-2)^{2}}{16(B-1)}$$ Using the answers from "
            "positions 7 and 9, $A=9$ and $B=9$, so the probability is $$1-\\frac{49}{128}=\\frac{\\mathbf{7 9}}"
            "{\\mathbf{1 2 8}}$$",
        ),
    ],
)
def test_a_bold_number_after_a_marked_answer_is_its_value(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True and v.method == "final_span", v


@pytest.mark.parametrize(
    ("response", "read", "method"),
    [
        # the bold number in the marked answer's own span: that answer, as before
        ("So the answer is $\\mathbf{9}$.", "\\mathbf{9}", "answer_is"),
        ("The answer is $11+6=\\mathbf{1 7}$. Note that $x = 5$.", "\\mathbf{1 7}", "answer_is"),
        # a bold number before the marker only, or a bold letter after it: no bold answer after it
        ("We get $\\mathbf{4}$ here, so the answer is $x = 5$.", "x = 5", "answer_is"),
        ("The answer is $m+n$, with $\\mathbf{v} = (1, 2)$ and $\\mathbf{3}$.", "m+n", "answer_is"),
    ],
)
def test_a_marked_answer_keeps_its_reading_otherwise(response: str, read: str, method: str) -> None:
    e = extract_answer(response)
    assert e is not None
    assert (e.text, e.method) == (read, method)


def test_the_marked_answer_is_the_rival_of_the_bold_one() -> None:
    response = "The answer is $m+n$. With $m=2$ and $n=5$, it is $\\mathbf{7}$."
    assert grade("7", response, fallback=False).correct is True
    # the marked answer, the bold one's rival: a pair that matches neither is no certain FALSE
    assert grade("8", response, fallback=False).reason.startswith("undecided")


@given(
    value=st.integers(min_value=-(10**6), max_value=10**6),
    spaced=st.booleans(),
    symbolic=st.sampled_from(["m+n", "\\frac{T}{2}", "2 T-1"]),
)
def test_any_bold_value_after_a_marked_answer_is_read(value: int, spaced: bool, symbolic: str) -> None:
    digits = ("- " if value < 0 else "") + (_spaced(abs(value)) if spaced else str(abs(value)))
    response = f"So the answer is ${symbolic}$. With $T = 3$, this is $\\mathbf{{{digits}}}$."
    assert grade(str(value), response, fallback=False).correct is True
    assert grade(str(value + 1), response, fallback=False).correct is not True
