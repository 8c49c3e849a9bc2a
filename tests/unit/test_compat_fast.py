"""The fast path of the compatible API against math-verify 0.9.0 itself, step by step.

* ``_core.mv_boxed_winner`` against math-verify's own compiled boxed patterns and sort;
* ``number_value`` against latex2sympy as math-verify calls it, ``_number`` against
  ``normalize_latex`` followed by it;
* ``rapidgrade.parse``/``verify`` against ``math_verify.parse``/``verify`` on generated
  number-ish answers in the shapes models write them (math-verify runs here, in the main thread);
* ``fast_verify`` against ``math_verify.verify`` on numbers, percentages and symbols.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import math_verify
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from latex2sympy2_extended.latex2sympy2 import convert_to_pct, normalize_latex
from math_verify.parser import lazy_latex_regex, parse_latex_cached

import rapidgrade
from rapidgrade import _core
from rapidgrade.compat import _fast_parse
from rapidgrade.compat._fast_verify import fast_verify

CORPUS = Path(rapidgrade.__file__).resolve().parent / "data" / "qwen25_math_cot_800.jsonl"

# -- the boxed patterns -------------------------------------------------------------------------

_BOXED_PATTERNS = [
    p
    for p, priority in lazy_latex_regex(math_verify.LatexExtractionConfig())
    if priority == 50 and "final answer" not in p.pattern
]


def _reference_winner(text: str) -> tuple[Any, ...]:
    """math-verify's first boxed candidate: its sort of every match of both patterns."""
    matches = [(m, m.start(), m.end(), k) for k, p in enumerate(_BOXED_PATTERNS) for m in p.finditer(text)]
    if not matches:
        return ("none",)
    m, start, end, k = sorted(matches, key=lambda x: (x[2], -x[1]), reverse=True)[0]
    groups = m.groupdict()
    latex = next(v for name, v in groups.items() if name.startswith("first_latex") and v)
    extra = groups.get("first_percent") or any(v for n, v in groups.items() if n.startswith("next") and v)
    return ("found", k == 1, latex, start, end, bool(extra))


def _check_winner(text: str) -> str:
    ours = _core.mv_boxed_winner(text)
    if ours[0] == "unknown":
        return "unknown"
    ref = _reference_winner(text)
    if ref[0] == "none":
        assert ours[0] == "none", (text, ours)
        return "none"
    assert ours[0] == "found", (text, ours, ref)
    assert not ref[5], (text, ref)  # percent or chained environments must be "unknown"
    assert (ours[1], ours[2], ours[3], ours[4]) == ref[1:5], (text, ours, ref)
    return "found"


_PIECES = [
    "$",
    "$$",
    "\\[",
    "\\]",
    "\\(",
    "\\)",
    "\\boxed{",
    "}",
    "{",
    "\\",
    " ",
    "\n",
    "[",
    "]",
    "5",
    "x",
    ",",
    "and",
    "or",
    "%",
    "\\%",
    "percent",
    "\t",
    "\u00a0",
    "\u0661",
    "é",
    "\x1c",
    "\\$",
    "-",
]
_ENVS = [("$", "$"), ("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), (" [", "] "), ("", "")]
_soup = st.lists(st.sampled_from(_PIECES), max_size=8).map("".join)


@st.composite
def _boxed_texts(draw: st.DrawFn) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        opener, closer = draw(st.sampled_from(_ENVS))
        parts.append(draw(_soup))
        parts.append(opener + draw(_soup) + "\\boxed{" + draw(_soup) + "}" + draw(_soup) + closer)
    parts.append(draw(_soup))
    return "".join(parts)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(_boxed_texts(), _soup))
def test_boxed_winner_equals_math_verify_patterns(text: str) -> None:
    _check_winner(text)


def test_boxed_winner_on_the_corpus() -> None:
    with CORPUS.open(encoding="utf-8") as f:
        texts = [json.loads(line)["response"] for line in f]
    outcomes = [_check_winner(t) for t in texts]
    assert outcomes.count("found") >= 790


def test_boxed_winner_on_junk_and_huge_inputs() -> None:
    assert _core.mv_boxed_winner(b"\xff\xfe\\boxed{\x00}")[0] in ("found", "unknown")
    assert _core.mv_boxed_winner("{" * 100_000 + "\\boxed{1}" + "}" * 100_000)[0] == "found"
    many = "\\(" * 200_000 + "$" * 200_000 + "\\boxed{" * 50_000
    assert _core.mv_boxed_winner(many)[0] in ("none", "found", "unknown")
    assert _check_winner("x \\[ \\boxed{1} \\] " * 20_000) == "found"
    with pytest.raises(TypeError):
        _core.mv_boxed_winner(42)  # type: ignore[arg-type]


# -- numbers ------------------------------------------------------------------------------------

_digits = st.from_regex(r"[0-9]{1,25}", fullmatch=True)
_sign = st.sampled_from(["", "-"])
_lead = st.from_regex(r"[0-9]{1,4}", fullmatch=True)  # may start with 0: not a grouped number
_unsigned = st.from_regex(r"[0-9]{1,6}(\.[0-9]{1,4})?", fullmatch=True)
_grouped = st.lists(st.from_regex(r"[0-9]{3}", fullmatch=True), min_size=1, max_size=4).map(",".join)
_normalized_numbers = st.one_of(
    st.builds(lambda s, d: s + d, _sign, _digits),
    st.builds(lambda s, d, c: s + d + c, _sign, _digits, st.sampled_from(["^\\circ", "^{\\circ}"])),
    st.builds(lambda s, d, g: f"{s}{d},{g}", _sign, _lead, _grouped),
    st.builds(lambda s, d, u: f"{s}{d}{u}", _sign, _unsigned, st.sampled_from(["\\%", "\\pi", " \\%"])),
    st.builds(lambda s, a, b: f"{s}{a}.{b}", _sign, _digits, _digits),
    st.builds(lambda s, a, b: f"{s}\\frac{{{a}}}{{{b}}}", _sign, _digits, _digits),
    st.builds(
        lambda s, w, sp, a, b: f"{s}{w}{sp}\\frac{{{a}}}{{{b}}}",
        _sign,
        _digits,
        st.sampled_from(["", " "]),
        _digits,
        _digits,
    ),
)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and sympy.srepr(a) == sympy.srepr(b) and str(a) == str(b)


@settings(max_examples=400, deadline=None)
@given(latex=_normalized_numbers)
def test_number_value_is_latex2sympy(latex: str) -> None:
    ours = _fast_parse.number_value(latex)
    try:
        reference = parse_latex_cached(latex)
    except Exception:
        assert ours is None
        return
    if ours is not None:
        assert _same(ours, reference), (latex, ours, reference)


@settings(max_examples=300, deadline=None)
@given(
    latex=st.one_of(
        _normalized_numbers,
        st.builds(lambda s, f, a, b: f"{s}\\{f}frac{{{a}}}{{{b}}}", _sign, st.sampled_from("dtc"), _digits, _digits),
        st.sampled_from(["0.5", "-0.5", "0.50", "00.5", "0.0", "-0"]),
    )
)
def test_number_is_normalize_then_latex2sympy(latex: str) -> None:
    ours = _fast_parse._number(latex)
    normalized = normalize_latex(latex, config=math_verify.LatexExtractionConfig().normalization_config)
    if ours is None:
        return
    assert ours[1] == normalized
    assert _same(ours[0], parse_latex_cached(normalized))


# -- whole parse and verify ---------------------------------------------------------------------

_nonzero = st.from_regex(r"[1-9][0-9]{0,6}", fullmatch=True)
_answer = st.one_of(
    st.builds(lambda s, d: s + d, _sign, _nonzero),
    st.builds(lambda s, a, b: f"{s}{a}.{b}", _sign, _nonzero, _nonzero),
    st.builds(lambda s, a, b: f"{s}\\frac{{{a}}}{{{b}}}", _sign, _nonzero, _nonzero),
    st.sampled_from(
        [
            "0.5",
            "\\dfrac{1}{9}",
            "1 \\frac{1}{4}",
            "25\\%",
            "1,000",
            "10{,}000",
            "3,\\!250",
            "\\$6",
            "48^\\circ",
            "7\\pi",
            "x+1",
            "\\sqrt{2}",
            "A",
            "0.25",
            "007",
            "-0",
            "12 \\text{ cm}",
            "x = 3",
        ]
    ),
)
_SHAPES = [
    "${}$",
    "\\boxed{{{}}}",
    "The answer is \\(\\boxed{{{}}}\\).",
    "So we get\n\\[\n\\boxed{{{}}}\n\\]",
    "Therefore the final answer is $\\boxed{{{}}}$. I hope it is correct.",
    "The final answer is \\(\\boxed{{{}}}\\)",
    "Thus $x = \\boxed{{{}}}$ and more text.",
    "First \\(\\boxed{{1}}\\), then \\[\\boxed{{{}}}\\]",
    "$$\\boxed{{{}}}$$ so {}",
    "{}",
]


def _mv_parse(text: str) -> list[Any]:
    return math_verify.parse(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(_SHAPES), answer=_answer, gold=_answer, latex_only=st.booleans())
def test_parse_and_verify_equal_math_verify(shape: str, answer: str, gold: str, latex_only: bool) -> None:
    text = shape.format(answer, answer)
    if latex_only:
        config = [math_verify.LatexExtractionConfig()]
        ours_latex, reference_latex = rapidgrade.parse(text, config), math_verify.parse(text, config)
        assert len(ours_latex) == len(reference_latex)
        assert all(_same(a, b) if not isinstance(a, str) else a == b for a, b in zip(ours_latex, reference_latex))
    ours, reference = rapidgrade.parse(text), _mv_parse(text)
    assert len(ours) == len(reference)
    assert all(_same(a, b) if not isinstance(a, str) else a == b for a, b in zip(ours, reference))
    gold_text = "$" + gold + "$"
    ours_gold, reference_gold = rapidgrade.parse(gold_text), _mv_parse(gold_text)
    assert [str(x) for x in ours_gold] == [str(x) for x in reference_gold]
    assert rapidgrade.verify(ours_gold, ours) is math_verify.verify(reference_gold, reference)


_number_item = st.one_of(
    st.integers(-300, 300).map(sympy.Integer),
    st.tuples(st.integers(-50, 50), st.integers(1, 12)).map(lambda t: sympy.Rational(*t)),
    st.decimals(min_value=-300, max_value=300, places=4, allow_nan=False).map(lambda d: sympy.Float(str(d))),
    st.integers(0, 300).map(lambda n: convert_to_pct(sympy.Integer(n))),
    st.sampled_from([sympy.Symbol("a"), sympy.Symbol("A"), sympy.Symbol("ab"), sympy.Symbol("e", real=True)]),
    st.sampled_from(
        [
            sympy.Mul(7, sympy.pi, evaluate=False),
            7 * sympy.pi,
            sympy.Symbol("x") + 1,
            sympy.Symbol("y") + 1,
            sympy.Eq(sympy.Symbol("x"), 1),
            sympy.FiniteSet(1, 2),
            sympy.Interval(0, 1),
            sympy.nan,
            sympy.zoo,
            sympy.oo,
            sympy.E,
            sympy.Float("1e400"),
            sympy.Mul(0, sympy.nan, evaluate=False),
        ]
    ),
    st.sampled_from(["1", " 1", "", "a", "25\\%", "0.5"]),
)


@settings(max_examples=400, deadline=None)
@given(
    gold=st.one_of(_number_item, st.lists(_number_item, max_size=2)),
    target=st.one_of(_number_item, st.lists(_number_item, max_size=2)),
    strict=st.booleans(),
    float_rounding=st.integers(min_value=0, max_value=8),
)
def test_fast_verify_on_numbers_equals_math_verify(gold: Any, target: Any, strict: bool, float_rounding: int) -> None:
    fast = fast_verify(
        gold,
        target,
        float_rounding=float_rounding,
        numeric_precision=15,
        strict=strict,
        allow_set_relation_comp=False,
        timeout_seconds=5,
        raise_on_error=False,
    )
    if fast is not None:
        assert fast is math_verify.verify(gold, target, float_rounding=float_rounding, strict=strict)


def test_fast_verify_known_percentage_bug_is_kept() -> None:
    pct = convert_to_pct(sympy.Integer(25))
    options: dict[str, Any] = {
        "float_rounding": 6,
        "numeric_precision": 15,
        "strict": True,
        "allow_set_relation_comp": False,
        "timeout_seconds": 5,
        "raise_on_error": False,
    }
    assert fast_verify([pct], [sympy.Integer(25)], **options) is True  # 25% == 25 in math-verify
    assert math_verify.verify([pct], [sympy.Integer(25)]) is True
    assert fast_verify([pct], [sympy.Rational(1, 4)], **options) is True
    assert fast_verify([pct], [sympy.Integer(13)], **options) is False
    # 100% against 1 is decided by simplify in math-verify: left to it.
    assert fast_verify([convert_to_pct(sympy.Integer(100))], [sympy.Integer(1)], **options) is None


# -- single letters -----------------------------------------------------------------------------


@pytest.mark.parametrize("letter", list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
def test_single_letters_are_math_verify_own(letter: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A choice letter or a variable, as a gold and boxed: math-verify's objects and verdicts; the
    letters predicted in process (all but e, i and I) need no worker."""
    from rapidgrade.compat import _workers

    texts = [f"${letter}$", f"The answer is $\\boxed{{{letter}}}$.", f"\\[ \\boxed{{{letter}}} \\]"]
    predicted = _fast_parse.number_value(letter)
    assert (predicted is None) == (letter in "eiI")
    if predicted is not None:
        assert _same(predicted, parse_latex_cached(letter))

        def no_pool() -> None:
            raise AssertionError(f"{letter}: the fast path should not need a worker")

        monkeypatch.setattr(_workers, "default_pool", no_pool)
    for text in texts:
        ours, reference = rapidgrade.parse(text), math_verify.parse(text)
        assert ours == reference and [type(x) for x in ours] == [type(x) for x in reference], text
        assert [x if isinstance(x, str) else sympy.srepr(x) for x in ours] == [
            x if isinstance(x, str) else sympy.srepr(x) for x in reference
        ], text
    others = ["$B$", "$x$", "$2$", "$0.5$"]
    for gold_text in [texts[0], *others]:
        for pred_text in [texts[1], *others]:
            expected = math_verify.verify(math_verify.parse(gold_text), math_verify.parse(pred_text))
            assert rapidgrade.verify(rapidgrade.parse(gold_text), rapidgrade.parse(pred_text)) is expected, (
                gold_text,
                pred_text,
            )


# -- the expression config first (math-verify's README metric: pred targets Expr, then LaTeX) ----

_EXPRESSION_FIRST = [math_verify.ExprExtractionConfig(), math_verify.LatexExtractionConfig()]
_EXPRESSION_FIRST_SHAPES = [
    *_SHAPES,
    "The final answer is {}",
    "The final answer is $\\boxed{{{}}}$",
    "My final answer is: \\boxed{{{}}}",
    "final answer is \\({}\\) and \\boxed{{{}}}",
    "The FINAL ANSWER is {} so \\boxed{{{}}}",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=st.sampled_from(_EXPRESSION_FIRST_SHAPES), answer=_answer)
def test_expression_first_parse_equals_math_verify(shape: str, answer: str) -> None:
    text = shape.format(answer, answer)
    ours, reference = rapidgrade.parse(text, _EXPRESSION_FIRST), math_verify.parse(text, _EXPRESSION_FIRST)
    assert len(ours) == len(reference), text
    assert all(_same(a, b) if not isinstance(a, str) else a == b for a, b in zip(ours, reference)), text


def test_expression_first_on_the_demo_set() -> None:
    """Every response of the demo set, and how many the fast path answers."""
    with CORPUS.open(encoding="utf-8") as f:
        responses = [json.loads(line)["response"] for line in f]
    decided = 0
    for text in responses:
        fast = _fast_parse.extract_default(text, expression_first=True)
        decided += fast is not None
        ours, reference = rapidgrade.parse(text, _EXPRESSION_FIRST), math_verify.parse(text, _EXPRESSION_FIRST)
        assert len(ours) == len(reference), text
        assert all(_same(a, b) if not isinstance(a, str) else a == b for a, b in zip(ours, reference)), text
    assert decided >= 0.9 * len(responses)
