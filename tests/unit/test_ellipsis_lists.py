r"""An answer written with an ellipsis: a list's term (``1, 2, \ldots, n``, ``\{1, 2, \ldots\}``) or
inside a term (``1+2+\cdots+n``, ``d(d-1) \cdots (d-k+1)``).

- Against an answer with no ellipsis anywhere, the fallback's sequence rule compares such answers
  only term by term, ellipsis against ellipsis, so it can never prove the pair (nor disprove it:
  a term that holds an ellipsis is compared only with one that holds one too). The fast path
  keeps it UNKNOWN with its own reason instead of sending it to a worker; the tests compare with
  the fallback's rule itself.
- The ellipsis characters ``…`` and ``⋯``, and three dots or more, are math in an answer phrase as
  an element of a list, after a comma (``1, 2, …, n``, ``1, 2, 3, ...``), and trailing dots
  otherwise (``18…`` and ``18...`` are 18); a span's trailing dots after a comma are its last
  term, and so are they for normalization's rule 3; a gold list that goes on with an ellipsis is
  read whole.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade, normalize_answer
from rapidgrade.fallback import run_cascade

ELLIPSIS_REASON = (
    "undecided: an answer with an ellipsis (\\ldots) against one without; such answers are equal only term by term"
)


def _fast(gold: str, response: str) -> tuple[bool, str]:
    v = grade(gold, response, fallback=False)
    return v.correct, v.reason


# -- lists with an ellipsis ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("n", r"So the numbers are $1, 2, \ldots, n$."),
        ("3", r"$\{1,4,5, \ldots, n\},\{2,4,5, \ldots, n\},\{3,4,5, \ldots, n\}$."),
        ("2,3,4", r"$2, 3, \ldots$"),
        (r"\{1,2,3\}", r"$\{1, 2, \dots\}$"),
        ("k=2 n-1", r"$a_{1}, \ldots, a_{d}$"),
        (r"1, 2, \cdots, n", "$1, 2, 3$"),
        ("1,2,…,n", "$n$"),
        # an ellipsis inside a term
        ("5050", r"Thus the sum is $1+2+\cdots+100$."),
        ("n!", r"The product is $n(n-1)\cdots 1$."),
        (r"\frac{n(n+1)}{2}", r"So $S=1+2+\ldots+n$."),
        (r"\frac{d !}{2 k(d-k) !}", r"$\frac{d(d-1) \cdots(d-k+1)}{2 k}$ or $\frac{d !}{2 k(d-k) !}$"),
    ],
)
def test_an_ellipsis_list_against_no_ellipsis_stays_with_the_fast_path(gold: str, response: str) -> None:
    v = grade(gold, response)  # fallback on: the pair never reaches it
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", ELLIPSIS_REASON)
    assert run_cascade(gold, v.extracted or "")[0] is False  # the fallback's own verdict


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (r"1,2,\ldots,n", r"$1, 2, \ldots, n$", True),  # both sides written alike
        ("5050", r"$1+2+\cdots+100 = 5050$", True),  # no ellipsis term: a chain's last member
        ("9", r"$x = 9$ (the terms $1, 3, \ldots$ do not matter)", True),  # the ellipsis is not the answer
    ],
)
def test_other_ellipses_are_read_as_before(gold: str, response: str, correct: bool) -> None:
    ok, reason = _fast(gold, response)
    assert ok is correct
    assert reason != ELLIPSIS_REASON


_TERM = st.one_of(st.integers(-50, 50).map(str), st.sampled_from(["n", "2n-1", "a_{k}", r"\frac{1}{2}"]))
_DOTS = st.sampled_from([r"\ldots", r"\cdots", r"\dots", "...", "…", "⋯"])


@given(
    head=st.lists(_TERM, min_size=1, max_size=4),
    dots=_DOTS,
    tail=st.lists(_TERM, min_size=1, max_size=2),  # a list that ends in "..." ends a sentence there
    brace=st.booleans(),
    gold=st.lists(_TERM, min_size=1, max_size=5),
)
def test_any_ellipsis_list_against_a_plain_gold_agrees_with_the_fallback(
    head: list[str], dots: str, tail: list[str], brace: bool, gold: list[str]
) -> None:
    items = ", ".join([*head, dots, *tail])
    answer = rf"\{{{items}\}}" if brace else items
    v = grade(", ".join(gold), f"The answer is ${answer}$.", fallback=False)
    assert v.correct is False
    assert v.reason == ELLIPSIS_REASON
    assert run_cascade(", ".join(gold), v.extracted or "")[0] is False


@pytest.mark.parametrize(
    ("response", "read"),
    [
        ("The answer is 1, 2, …, n.", "1, 2, …, n"),
        ("The answer is $1, 2, ⋯, n$.", "1, 2, ⋯, n"),
        ("The answer is 18…", "18"),  # trailing dots, not a list's element
        ("The answer is 18 eggs… wait, no.", "18"),
    ],
)
def test_the_answer_phrase_reads_an_ellipsis_as_a_list_element(response: str, read: str) -> None:
    extraction = extract_answer(response)
    assert extraction is not None
    assert extraction.text == read


def test_a_gold_list_with_an_ellipsis_is_read_whole() -> None:
    # the gold phrase reader no longer cuts "1,2,…,n" after "1,2"
    assert grade("1,2,…,n", "$1,2,…,n$", fallback=False).correct
    assert grade("1,2,…,n", "$1, 2$", fallback=False).correct is False


@pytest.mark.parametrize(
    ("response", "read"),
    [
        ("The answer is $1, 2, 3, ...$", "1, 2, 3, ..."),  # the ellipsis is the list's last term
        ("The answer is 1, 2, ..., n.", "1, 2, ..., n"),
        ("So $x = 5, ...$.", "x = 5, ..."),
        ("The answer is 18...", "18"),  # trailing dots after no comma end the sentence
        ("The answer is 5, ... wait", "5"),
    ],
)
def test_three_dots_after_a_comma_are_a_term(response: str, read: str) -> None:
    extraction = extract_answer(response)
    assert extraction is not None
    assert extraction.text == read


@pytest.mark.parametrize(
    ("text", "normalized"),
    [("1, 2, 3, ...", "1,2,3,..."), ("2, 4, 6, ....", "2,4,6,..."), ("5...", "5"), ("x = 5. ...", "5")],
)
def test_normalization_keeps_an_ellipsis_after_a_comma(text: str, normalized: str) -> None:
    assert normalize_answer(text).text == normalized
