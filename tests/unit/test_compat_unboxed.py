r"""The last-number path of the compatible ``parse`` against math-verify 0.9.0 itself.

Responses without ``\boxed{`` and without ``answer`` are decided by math-verify's priority-300
group; ``extract_last_number`` (C++: ``_core.mv_last_number``) answers the ones whose last anchored
number ends after every LaTeX environment and operator expression could. Checked here, against
``math_verify.parse``/``verify`` run in this process:

* every response of the demo corpus, of the demo corpus with its boxes removed
  (``benchmarks.bench_hard.unbox``) and every gold and prediction of the recorded cases: the same
  parse (``str`` and type of every item) and the same verdict;
* generated texts built from answer phrases (``#### N``, ``A: N``, ``$x = N$``, prose with
  numbers, operators, brackets, non-ASCII characters);
* ``-m shared``: the same over the tuning corpora ``wild_dev.jsonl`` and ``unmarked_dev.jsonl``.
"""

from __future__ import annotations

from typing import Any

import math_verify
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rapidgrade
from benchmarks.bench_hard import unbox
from rapidgrade import _core
from rapidgrade.compat._fast_parse import _number_of, extract_last_number
from tests.datasets import load_data, load_demo_corpus, load_shared


def _shape(parsed: list[Any]) -> list[tuple[str, str]]:
    return [(type(x).__name__, str(x)) for x in parsed]


def _mv_parse(text: str) -> list[Any]:
    return list(math_verify.parse(text, parsing_timeout=None))


def _check_texts(texts: list[str], golds: list[str] | None = None) -> int:
    """Asserts rapidgrade.parse == math_verify.parse on every text (and the verdicts against
    *golds*); returns how many the last-number path decided."""
    decided = 0
    for k, text in enumerate(texts):
        fast = extract_last_number(text)
        reference = _mv_parse(text)
        if fast is not None:
            decided += 1
            assert _shape(list(fast)) == _shape(reference), text
        ours = rapidgrade.parse(text)
        assert _shape(list(ours)) == _shape(reference), text
        if golds is not None:
            gold = golds[k]
            expected = math_verify.verify(_mv_parse(gold), reference, timeout_seconds=None)
            assert rapidgrade.verify(rapidgrade.parse(gold), ours) == expected, (gold, text)
    return decided


# -- fixed cases ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "007",
        "-0",
        "1,000",
        " 5",
        "5\n",
        "1" * 19,
        "1.5",
        "It takes 2+1=<<2+1=3>>3 bolts\nA: 3",
        "He pays $5 and gets $3 back.\n#### 2",
        "#### 1,250",
        "#### 1 250 000",
        "So 12,5 kg",
        "That is 40 %",
        "That is 40 percentage points",
        "=.5",
        "x **12**",
        "Total: $1,234.50",
        "1,2345 apples",
        "答案：18",
        "The total is 18。",
        "There are\u00a018",  # NO-BREAK SPACE: Python's \s
        "There are ١٨",  # Arabic-Indic digits: Python's \d
        "Cost: €18",
        "pſ 18",
        "#### 18\nStep 6: The answer is: 18",
        "The Answer is -18.",
        "The answer is: 1,250\n",
        "the answer is 2.5",
        "The answer is 40%",
        "ſo the answer is: 18",
        "The answer is -007",  # sympy.Number("-007") fails: math-verify returns []
        "The answer is -0",
        "The answer is 00.50",
        "A: -3",  # the minus sign precedes the digits: no operator expression
        "wage - $320 = $<<300-320=-20>>-20.\nA: -20",
    ],
)
def test_last_number_agrees_or_declines(text: str) -> None:
    fast = extract_last_number(text)
    if fast is not None:
        assert _shape(list(fast)) == _shape(_mv_parse(text))
    assert _shape(list(rapidgrade.parse(text))) == _shape(_mv_parse(text))


@pytest.mark.parametrize(
    "text",
    [
        "#### 18\nFINAL ANSWER: 18",  # "final answer" (group 50)
        "The final answer is 18",
        "The answer: 18",  # "answer:" (group 100)
        "The answer is 18 or 19",  # only a number may follow the words
        "The answer is: 3 + 4",
        "The answer is: 18 = x",
        "The answer is 18; the answer is 19",  # one "answer" only
        "The answer is $18$",
        "so \\boxed{18}",
        "x = 3 + 4.",  # an expression ends after the last number
        "so it is $18$",  # a LaTeX environment ends after it
        "so it is \\(18\\) %",
        "so 7 - 4",  # the expression " 7 - 4" ends where " 4" does, and starts first
        "so (2+3)",
        "no number here",
        "x" + "1" * 100,
        " " + "1" * 61,  # longer than the number strings returned
    ],
)
def test_last_number_declines(text: str) -> None:
    assert extract_last_number(text) is None


def test_non_ascii_needs_the_callers_check() -> None:
    # Without non_ascii_inert, any non-ASCII byte declines: "\u3000" is a Python \s.
    assert _core.mv_last_number("x\u300018")[0] == "unknown"
    assert _core.mv_last_number("答 18", non_ascii_inert=True) == ("found", "18", False)
    assert extract_last_number("x\u300018") is None


@given(
    sign=st.sampled_from(["", "-"]),
    integer=st.one_of(st.integers(0, 10**30).map(str), st.from_regex(r"0[0-9]{0,5}", fullmatch=True)),
    decimal=st.one_of(st.just(""), st.from_regex(r"\.[0-9]{1,30}", fullmatch=True)),
)
def test_number_of_is_sympy_number(sign: str, integer: str, decimal: str) -> None:
    text = sign + integer + decimal
    try:
        expected = sympy.Number(text)
    except (sympy.SympifyError, ValueError, TypeError, SyntaxError):
        assert _number_of(text) is None
        return
    got = _number_of(text)
    assert type(got) is type(expected)
    assert sympy.srepr(got) == sympy.srepr(expected)
    assert getattr(got, "_prec", None) == getattr(expected, "_prec", None)


# -- corpora -------------------------------------------------------------------------------------


def test_demo_corpus_responses() -> None:
    rows = load_demo_corpus()
    _check_texts([r["response"] for r in rows], ["$" + r["gold"] + "$" for r in rows])


def test_unboxed_demo_corpus_responses() -> None:
    rows = load_demo_corpus()
    decided = _check_texts([unbox(r["response"]) for r in rows], ["$" + r["gold"] + "$" for r in rows])
    assert decided > 0


def test_answer_phrase_is_decided() -> None:
    text = "#### 18\nStep 6: The answer is: 18"
    assert extract_last_number(text) is not None
    assert _shape(list(rapidgrade.parse(text))) == _shape(_mv_parse(text)) == [("Integer", "18"), ("str", "18")]


def test_recorded_cases() -> None:
    rows = load_data("math_verify_0.9.0_cases.jsonl")
    texts = [r["pred"] for r in rows] + [r["gold"] for r in rows]
    _check_texts(texts)


@pytest.mark.shared
@pytest.mark.parametrize(
    ("name", "share"),
    # GSM8K-style "#### N" / "A: N" answers are mostly decided here; unmarked_dev's answers are
    # mostly LaTeX environments, which math-verify converts (a worker's job).
    [("wild_dev.jsonl", 0.5), ("unmarked_dev.jsonl", 0.0)],
)
def test_shared_corpora(name: str, share: float) -> None:
    rows = load_shared(name)
    decided = _check_texts([r["response"] for r in rows], ["$" + r["gold"] + "$" for r in rows])
    assert decided > share * len(rows)


# -- generated texts -----------------------------------------------------------------------------

_numbers = st.one_of(
    st.integers(min_value=-(10**7), max_value=10**7).map(str),
    st.integers(min_value=1, max_value=10**9).map(lambda n: f"{n:,}"),
    st.integers(min_value=1000, max_value=10**9).map(lambda n: f"{n:,}".replace(",", " ")),
    st.tuples(st.integers(0, 999), st.integers(0, 9999)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.tuples(st.integers(0, 99), st.integers(0, 99)).map(lambda t: f"{t[0]},{t[1]}"),
    st.integers(0, 99).map(lambda n: f".{n}"),
    st.sampled_from(["007", "0", "-0", "1,2345", "12.5.3", "1e5", "١٨", "３"]),
)
_phrase = st.one_of(
    _numbers.map(lambda n: f"#### {n}"),
    _numbers.map(lambda n: f"A: {n}"),
    _numbers.map(lambda n: f"The answer is: {n}"),
    _numbers.map(lambda n: f"$x = {n}$"),
    _numbers.map(lambda n: f"**{n}**"),
    _numbers.map(lambda n: f"= {n}"),
    _numbers.map(lambda n: f"${n}"),
    _numbers.map(lambda n: f"{n}%"),
    _numbers.map(lambda n: f"{n} percent"),
    _numbers.map(lambda n: f"\\({n}\\)"),
    _numbers.map(lambda n: f"[{n}]"),
    st.tuples(_numbers, _numbers).map(lambda t: f"{t[0]} + {t[1]} = "),
    st.tuples(_numbers, _numbers).map(lambda t: f"<<{t[0]}*{t[1]}={t[0]}>>"),
    st.sampled_from(
        [
            "So",
            "the",
            "total",
            "is",
            "apples",
            ".",
            ",",
            ":",
            "\n",
            " ",
            "(",
            ")",
            "/",
            "答案",
            "，",
            "\u00a0",
            "\u3000",
            "€",
            "ſ",
            "×",
            "\\frac{1}{2}",
            "final",
            "answer",
            "I hope",
            "\\boxed{3}",
        ]
    ),
    _numbers,
)
_texts = st.lists(_phrase, min_size=1, max_size=8).flatmap(
    lambda parts: st.lists(st.sampled_from([" ", "", "\n", ". "]), min_size=len(parts), max_size=len(parts)).map(
        lambda seps: "".join(p + s for p, s in zip(parts, seps))
    )
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(text=_texts, gold=_numbers)
def test_generated_texts(text: str, gold: str) -> None:
    fast = extract_last_number(text)
    reference = _mv_parse(text)
    if fast is not None:
        assert _shape(list(fast)) == _shape(reference)
    ours = rapidgrade.parse(text)
    assert _shape(list(ours)) == _shape(reference)
    expected = math_verify.verify(_mv_parse(f"${gold}$"), reference, timeout_seconds=None)
    assert rapidgrade.verify(rapidgrade.parse(f"${gold}$"), ours) == expected
