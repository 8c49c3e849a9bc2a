r"""A quantifier's domain after the answer is not the answer (extract_math.cpp, ``quantifier_domain``).

"$f(x)=2x$ for all $x \in \mathbb{R}^{+}$", "$x=\frac{\pi}{6}+\pi k$, where $k \in \mathbb{Z}$",
"$x = 2$ for $n \in \mathbb{N} \setminus \{0\}$": the last math span only names the set of numbers
the variables range over. final_span reads the span before it, and a digit in the domain
("\mathbb{R}_{>0}") does not make the last number the answer. A domain span counts so only
after a quantifier word (markers.hpp's ``kQuantifierWords``: "for all", "where", "for", ...), a
comma or with ``\forall``, and only when a span comes before it: "So $x \in \mathbb{R}$." is an
answer. A membership in an interval (``x \in [0, 1]``) is an answer as before. The reference
extractor states the rule again, with generated parity tests.

Inside an answer, a trailing domain after a comma or in parentheses (``x = \frac{\pi}{4} + k\pi, k
\in \mathbb{Z}``, ``f(x) = x - 1 \ (x \in \mathbb{R})``) is not compared: the grader reads the answer
and the gold without it (``extract::domain_tail``).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade


@pytest.mark.parametrize(
    ("response", "read"),
    [
        (r"Therefore $f(x)=g(x)+x=2 x$ for all $x \in \mathbb{R}^{+}$.", "2 x"),
        (r"Thus $f(x)=\frac{1}{x}$ for all $x \in \mathbb{R}_{>0}$.", r"f(x)=\frac{1}{x}"),
        (r"So $x=\frac{\pi}{6}+\pi k$, where $k \in \mathbb{Z}$.", r"x=\frac{\pi}{6}+\pi k"),
        (r"Then $x = 2$ for $n \in \mathbb{N} \setminus \{0\}$.", "x = 2"),
        (r"Hence $f(n) = n$, $\forall n \in \mathbb{N}$.", "f(n) = n"),
        # answers, not domains
        (r"So $x \in \mathbb{R}$.", r"x \in \mathbb{R}"),
        (r"Since $a = 1$, so $x \in \mathbb{R}$.", r"x \in \mathbb{R}"),
        (r"We get $a = 1$ for all $x \in [0, 1]$.", r"x \in [0, 1]"),
    ],
)
def test_the_answer_before_its_domain_is_read(response: str, read: str) -> None:
    e = extract_answer(response)
    assert e is not None
    assert e.text == read


@given(
    value=st.integers(min_value=-1000, max_value=1000),
    word=st.sampled_from(["for all", "for every", "for", "where", "with", "For all"]),
    var=st.sampled_from(["x", "n", "k", "x, y"]),
    numbers=st.sampled_from([r"\mathbb{R}", r"\mathbb{R}^{+}", r"\mathbb{N}_{>0}", r"\mathbb{Z}", r"\mathbb{Q}^{*}"]),
)
def test_any_domain_after_the_answer_is_skipped(value: int, word: str, var: str, numbers: str) -> None:
    response = f"Hence $f(x) = {value}$ {word} ${var} \\in {numbers}$."
    assert grade(f"f(x) = {value}", response, fallback=False).correct
    assert grade(str(value), response, fallback=False).correct
    assert grade(f"f(x) = {value + 1}", response, fallback=False).correct is False


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        # a domain inside the answer's own span, after a comma or in parentheses
        (r"x=\frac{\pi}{4}+k\pi", r"So $x = \frac{\pi}{4} + k\pi, k \in \mathbb{Z}$.", True),
        (r"x=\frac{\pi}{4}+k\pi", r"So $x = \frac{\pi}{4} + k\pi \ (k \in \mathbb{Z})$.", True),
        (r"x=\frac{\pi}{4}+k\pi", r"So $x = \frac{\pi}{4} + k\pi,\ k \in \mathbb{Z}$.", True),
        (r"x=\frac{\pi}{4}+k\pi", r"\boxed{x = \frac{\pi}{4} + k\pi \, (k \in \mathbb{Z})}", True),
        ("f(x)=x-1", r"Thus $f(x)=x-1, x \in \mathbb{R}$.", True),
        # the gold's domain too
        (r"x=\frac{\pi}{4}+k\pi, k\in\mathbb{Z}", r"So $x = \frac{\pi}{4} + k\pi$.", True),
        (r"x=\frac{\pi}{3}+k\pi", r"So $x = \frac{\pi}{4} + k\pi, k \in \mathbb{Z}$.", False),
        # a membership that is the answer stays whole
        (r"x \in \mathbb{Z}", r"So $x \in \mathbb{Z}$.", True),
        ("1, 2", "So $a = 1, b = 2$.", True),
    ],
)
def test_an_answer_is_compared_without_its_domain(gold: str, response: str, correct: bool) -> None:
    assert grade(gold, response, fallback=False).correct is correct


@given(
    a=st.integers(min_value=1, max_value=12),
    b=st.integers(min_value=2, max_value=12),
    tail=st.sampled_from(
        [
            r", k \in \mathbb{Z}",
            r" \ (k \in \mathbb{Z})",
            r" \quad (k \in \mathbb{Z})",
            r",\ k \in \mathbb{Z}",
            r" (k \in \mathbb{Z})",
            r", \forall k \in \mathbb{Z}",
        ]
    ),
    boxed=st.booleans(),
)
def test_any_answer_with_a_domain_reads_as_the_answer(a: int, b: int, tail: str, boxed: bool) -> None:
    answer = f"x = \\frac{{{a}\\pi}}{{{b}}} + 2k\\pi{tail}"
    response = f"\\boxed{{{answer}}}" if boxed else f"Hence ${answer}$."
    assert grade(f"x=\\frac{{{a}\\pi}}{{{b}}}+2k\\pi", response, fallback=False).correct
    # another family: one set only when the two values are a whole number of periods (2 pi) apart
    same_set = (Fraction(a, b) - Fraction(a, b + 1)) % 2 == 0
    assert grade(f"x=\\frac{{{a}\\pi}}{{{b + 1}}}+2k\\pi", response, fallback=False).correct is same_set
    assert grade(f"x=\\frac{{{a}\\pi}}{{{b}}}+\\pi+2k\\pi", response, fallback=False).correct is False
