r"""What a math span concludes, and approximate equalities.

- A ``\text{}`` that holds one conclusion word (``so``, ``thus``, ``hence``, ``therefore``, ``is``,
  ``gives`` ...: extraction's one table of them) starts the span's answer, as ``\therefore`` does:
  ``R^2 = \frac{19}{576}, \quad \text { so } \quad R \cong 0.18162 \mathrm{ft}`` states
  ``R \cong 0.18162 \mathrm{ft}``. Blanks may stand between ``\text`` and its brace, as LaTeX
  allows (``\text { or }`` still separates two parts).
- ``\approx``, ``\simeq`` and ``\cong`` are approximate equalities (latex_vocab.hpp's
  ``kApproximationCommands``): a chain's last member after them is its answer, and the parser
  reads them as ``=``. Textbooks write ``\cong`` for "about" (``T=(\ln 50) / 0.03 \cong
  130.400766848 (\mathrm{~min})``).

Textbook solutions end this way (SciBench's, from Boyce and DiPrima and Atkins)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            r"$$R^2=\frac{1}{36}+\frac{1}{192}=\frac{19}{576}, \quad \text { so } \quad R \cong 0.18162 \mathrm{ft}$$",
            r"R \cong 0.18162 \mathrm{ft}",
        ),
        (r"We find $a = 2 \text{thus} b = 5$", "b = 5"),
        (r"We find $x^2 = 4 \text{ Hence } x = 2$", "x = 2"),
        (r"We find $a = 2 \therefore \quad b = 5$", "b = 5"),
        # not a conclusion: two parts; several words (the chain's last member is read as ever)
        (r"We find $x = 1 \text { or } x = 2$", r"x = 1 \text { or } x = 2"),
        (r"We find $a = 2 \text{ so that } b = 5$", "5"),
    ],
)
def test_a_conclusion_word_in_a_span_starts_its_answer(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None and found.text == answer, text


@pytest.mark.parametrize(
    ("gold", "answer", "correct"),
    [
        ("0.18162", r"$$R^2=\frac{19}{576}, \quad \text { so } \quad R \cong 0.18162 \mathrm{ft}$$", True),
        ("0.17", r"$$R^2=\frac{19}{576}, \quad \text { so } \quad R \cong 0.18162 \mathrm{ft}$$", False),
        (r"$(\ln 50) / 0.03$", r"$$T=(\ln 50) / 0.03 \cong 130.400766848(\mathrm{~min})$$", True),
        (r"$(\ln 40) / 0.03$", r"$$T=(\ln 50) / 0.03 \cong 130.400766848(\mathrm{~min})$$", False),
        ("0.333", r"$x = \frac{1}{3} \simeq 0.333$", True),
        ("0.25", r"$x = \frac{1}{3} \simeq 0.333$", False),
        (r"\triangle ABC \cong \triangle DEF", r"So $\triangle ABC \cong \triangle DEF$.", True),
    ],
)
def test_approximate_equalities_state_their_last_member(gold: str, answer: str, correct: bool) -> None:
    verdict = grade(gold, answer)
    assert verdict.correct is correct, verdict
    assert verdict.decided_by == "fast"


@given(
    word=st.sampled_from(["so", "thus", "hence", "therefore", "So", "THUS", "gives", "is"]),
    inside=st.sampled_from(["{{{}}}", "{{ {} }}", " {{ {} }}"]),
    spacing=st.sampled_from(["", " ", " \\quad ", "\\qquad ", " \\enspace "]),
    before=st.sampled_from(["a = 2", "R^2 = \\frac{19}{576}, \\quad", "y = 3 + 4 = 7"]),
    value=st.integers(min_value=-999, max_value=999),
    relation=st.sampled_from(["=", "\\approx", "\\simeq", "\\cong"]),
    command=st.sampled_from(["\\text", "\\mbox", "\\textrm"]),
)
def test_any_conclusion_word_starts_the_answer(
    word: str, inside: str, spacing: str, before: str, value: int, relation: str, command: str
) -> None:
    text = f"We find $${before} {command}{inside.format(word)}{spacing}R {relation} {value}$$"
    found = extract_answer(text)
    assert found is not None and found.text == f"R {relation} {value}", text
    assert grade(str(value), text).correct, text
    assert not grade(str(value + 1), text).correct, text
