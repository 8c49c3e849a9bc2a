r"""Words against an expression in unknowns.

An answer of words with no digit ("obtained in the same way as above", "any k works") against a
gold that is an expression in unknowns (``\binom{2n}{n}``, ``x^2 + 1``), or the other way round.
Words may say such an expression ("n squared"), so the fast path does not call the pair FALSE as
it does words against a number; but neither reader of the fallback reads words as math:
math-verify parses nothing from them, SymPy reads them as a product of letters, and a proof about
that product proves nothing (the fallback says so itself: "the answers hold words"). The fast path
keeps the pair UNKNOWN with its own reason instead of sending it to a worker, where one such pair
of the olympiad solutions took 3.3 s of SymPy's simplification. The tests compare with the
fallback's own verdict.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import grade
from rapidgrade.fallback import run_cascade

WORDS_REASON = (
    "undecided: one answer is words, the other an expression in unknowns; no reader of the fallback reads words as math"
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (r"\binom{2n}{n}", "Thus, the answer is obtained in the same way as above."),
        ("k", "The answer is any k works."),
        ("x", "The answer is all of them."),
        ("n^2 + 1", "Final Answer: the same as before"),
    ],
)
def test_words_against_an_expression_stay_with_the_fast_path(gold: str, response: str) -> None:
    v = grade(gold, response)  # fallback on: the pair never reaches it
    assert v.correct is False and v.decided_by == "fast" and v.reason == WORDS_REASON, v
    assert run_cascade(gold, v.extracted or "")[0] is False  # the fallback's own verdict


def test_words_against_a_number_or_a_list_of_numbers_stay_false() -> None:
    for gold in ("12", "(1, 2)", r"\{3, 4\}"):
        v = grade(gold, "The answer is the same as before.", fallback=False)
        assert v.correct is False and v.reason == "not equivalent", v


def test_words_with_digits_or_against_a_relation_go_on_as_before() -> None:
    # text with digits may be math read as words; a relation is compared as a relation
    v = grade("n + 1", "The answer is twelve more than n.", fallback=False)
    assert v.reason != WORDS_REASON
    v = grade("x > 2", "The answer is all of them.", fallback=False)
    assert v.reason != WORDS_REASON


_PROSE = st.lists(
    st.sampled_from(["the", "same", "way", "as", "above", "obtained", "any", "works", "value", "shown", "before"]),
    min_size=2,
    max_size=6,
).map(" ".join)
_SYMBOL = st.sampled_from(["n", "x", "k", "m", "t"])
_EXPRESSION = st.one_of(
    _SYMBOL,
    st.builds(lambda s, c: f"{c}{s}^{{2}} + 1", _SYMBOL, st.integers(2, 9)),
    st.builds(lambda s: rf"\binom{{2{s}}}{{{s}}}", _SYMBOL),
    st.builds(lambda s, c: rf"\frac{{{s}}}{{{c}}}", _SYMBOL, st.integers(2, 9)),
)


@settings(max_examples=30, deadline=None)
@given(words=_PROSE, expression=_EXPRESSION, swap=st.booleans())
def test_any_words_against_any_expression_agree_with_the_fallback(words: str, expression: str, swap: bool) -> None:
    gold, answer = (words, f"${expression}$") if swap else (expression, words)
    v = grade(gold, f"The answer is {answer}.", fallback=False)
    assert v.correct is False and v.reason == WORDS_REASON, (gold, answer, v)
    assert run_cascade(gold, v.extracted or "")[0] is False
