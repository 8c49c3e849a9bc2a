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
