"""The math-verify compatible parse/verify: same signatures, same answers, no signals touched."""

from __future__ import annotations

import inspect
import pickle
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import math_verify
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import rapidgrade
from rapidgrade._transport import dumps, loads
from rapidgrade.compat import ParseResult, _workers
from rapidgrade.compat._fast_parse import fast_parse
from rapidgrade.compat._fast_verify import fast_verify


def test_signatures_match_math_verify() -> None:
    for ours, theirs in ((rapidgrade.parse, math_verify.parse), (rapidgrade.verify, math_verify.verify)):
        a = inspect.signature(ours).parameters
        b = inspect.signature(theirs).parameters
        assert list(a) == list(b)
        for name in a:
            assert a[name].kind == b[name].kind
            default_a, default_b = a[name].default, b[name].default
            if isinstance(default_b, list):  # math-verify's mutable default; ours is a tuple
                default_a = list(default_a)
            assert default_a == default_b, name


def test_config_classes_are_math_verifys_own() -> None:
    from latex2sympy2_extended.latex2sympy2 import NormalizationConfig

    assert rapidgrade.LatexExtractionConfig is math_verify.LatexExtractionConfig
    assert rapidgrade.ExprExtractionConfig is math_verify.ExprExtractionConfig
    assert rapidgrade.StringExtractionConfig is math_verify.StringExtractionConfig
    assert rapidgrade.NormalizationConfig is NormalizationConfig
    assert rapidgrade.LatexNormalizationConfig is math_verify.LatexNormalizationConfig
    assert "parse" in dir(rapidgrade)
    with pytest.raises(AttributeError):
        rapidgrade.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    ("text", "kwargs"),
    [
        ("The answer is $\\frac{1}{2}$", {}),
        ("so \\boxed{x^2 + 1} is it", {}),
        ("The final answer is B", {"extraction_config": [math_verify.StringExtractionConfig()]}),
        ("Answer: 7,425,000", {"extraction_config": [math_verify.ExprExtractionConfig()]}),
        ("no math here", {}),
        ("$\\frac{1}{$", {"fallback_mode": "no_fallback"}),
        ("$1 < x < 2$", {}),
        ("$\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}$", {}),
        ("42", {}),
    ],
)
def test_parse_equals_math_verify(text: str, kwargs: dict[str, Any]) -> None:
    ours = rapidgrade.parse(text, **kwargs)
    theirs = math_verify.parse(text, **kwargs)
    assert isinstance(ours, ParseResult)
    assert isinstance(ours, list)
    assert [sympy.srepr(x) if isinstance(x, sympy.Basic) else x for x in ours] == [
        sympy.srepr(x) if isinstance(x, sympy.Basic) else x for x in theirs
    ]
    assert ours.source == text
    assert ours.unchanged()


def test_parse_result_remembers_its_input_and_notices_edits() -> None:
    result = rapidgrade.parse("$x+1$", fallback_mode="no_fallback")
    assert result.source == "$x+1$"
    assert result.options["fallback_mode"] == "no_fallback"
    assert result.unchanged()
    result.append("extra")
    assert not result.unchanged()
    copy = pickle.loads(pickle.dumps(rapidgrade.parse("7")))
    assert copy == [sympy.Integer(7), "7"]
    assert copy.source == "7"


def test_verify_with_bare_sympy_objects() -> None:
    # math-verify's own docstring examples.
    assert rapidgrade.verify(sympy.Rational(1, 3), sympy.Float(0.333333))
    x, y = sympy.symbols("x y")
    assert rapidgrade.verify(x + 1, y + 1, strict=False)
    assert not rapidgrade.verify(x + 1, y + 1)
    assert rapidgrade.verify(sympy.FiniteSet(1, 2), sympy.Tuple(1, 2), strict=False)


def test_verify_strings_and_objects_math_verify_cannot_compare() -> None:
    assert rapidgrade.verify("abc", " abc ")
    assert not rapidgrade.verify("", "")
    assert not rapidgrade.verify([], [])
    assert not rapidgrade.verify(object(), object())
    assert not rapidgrade.verify(sympy.Integer(2), "2")


def test_raise_on_error_raises_what_math_verify_raises() -> None:
    with pytest.raises(TypeError):
        math_verify.parse(None, raise_on_error=True)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        rapidgrade.parse(None, raise_on_error=True)  # type: ignore[arg-type]
    assert rapidgrade.parse(None) == math_verify.parse(None) == []  # type: ignore[arg-type]


def test_worker_timeout_follows_math_verify_conventions(monkeypatch: pytest.MonkeyPatch) -> None:
    timeout = rapidgrade._pool.TaskResult("timeout")
    crash = rapidgrade._pool.TaskResult("error", error="worker process died (SIGSEGV)")
    # Objects and a text the in-process fast path does not decide (two different sums, a sum).
    x_plus_1, y_plus_1 = sympy.Symbol("x") + 1, sympy.Symbol("y") + 1

    class FakePool:
        def __init__(self, outcome: rapidgrade._pool.TaskResult) -> None:
            self.outcome = outcome

        def run(self, fn: Any, args: Any, *, timeout: float | None) -> Any:
            return self.outcome

    for outcome in (timeout, crash):
        monkeypatch.setattr(_workers, "default_pool", lambda o=outcome: FakePool(o))
        rapidgrade.compat.clear_caches()  # x+1 converted by an earlier test must not be reused
        assert rapidgrade.parse("$x+1$") == []
        assert rapidgrade.verify(x_plus_1, y_plus_1) is False
    monkeypatch.setattr(_workers, "default_pool", lambda: FakePool(timeout))
    rapidgrade.compat.clear_caches()
    with pytest.raises(math_verify.errors.TimeoutException):
        rapidgrade.parse("$x+1$", raise_on_error=True)
    with pytest.raises(math_verify.errors.TimeoutException) as raised:
        rapidgrade.verify(x_plus_1, y_plus_1, raise_on_error=True)
    # caught by code written for math-verify, and still an Exception (not a bare BaseException)
    assert isinstance(raised.value, Exception) and isinstance(raised.value, TimeoutError)
    monkeypatch.setattr(_workers, "default_pool", lambda: FakePool(crash))
    with pytest.raises(RuntimeError, match="SIGSEGV"):
        rapidgrade.verify(x_plus_1, y_plus_1, raise_on_error=True)


def test_backstop_deadline() -> None:
    assert _workers._backstop(5, 1) == 5 + _workers._GRACE_SECONDS
    assert _workers._backstop(5, 4) == 20 + _workers._GRACE_SECONDS
    assert _workers._backstop(None, 3) is None
    assert _workers._backstop(0, 3) is None
    assert _workers._backstop("5", 3) is None


# -- the fast path ------------------------------------------------------------------------------

DEFAULT = [math_verify.LatexExtractionConfig(), math_verify.ExprExtractionConfig()]


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(min_value=-(10**18) + 1, max_value=10**18 - 1),
    config=st.sampled_from([None, [math_verify.ExprExtractionConfig()]]),
    fallback=st.sampled_from(["first_match", "no_fallback"]),
)
def test_fast_parse_agrees_with_math_verify(n: int, config: Any, fallback: str) -> None:
    text = str(n)
    kwargs: dict[str, Any] = {"fallback_mode": fallback}
    if config is not None:
        kwargs["extraction_config"] = config
    fast = fast_parse(text, config if config is not None else DEFAULT, fallback, "any_match")
    assert fast is not None
    reference = math_verify.parse(text, **kwargs)
    assert [type(x) for x in fast] == [type(x) for x in reference]
    assert fast == reference


@pytest.mark.parametrize(
    ("text", "config"),
    [
        # "007", "-0", "1,000", " 5", "1.5" ... are decided by the last-number path
        # (tests/unit/test_compat_unboxed.py checks them against math-verify).
        ("12", [math_verify.LatexExtractionConfig()]),
        ("12", [math_verify.StringExtractionConfig()]),
        ("12", [math_verify.ExprExtractionConfig(try_extract_without_anchor=False)]),
        ("12", iter(DEFAULT)),
    ],
)
def test_fast_parse_declines_what_it_cannot_prove(text: str, config: Any) -> None:
    assert fast_parse(text, config, "first_match", "any_match") is None


_simple_item = st.one_of(
    st.integers(min_value=-50, max_value=50).map(sympy.Integer),
    st.sampled_from(["1", " 1", "", "  ", "a", "2 "]),
)


@settings(max_examples=150, deadline=None)
@given(
    gold=st.one_of(_simple_item, st.lists(_simple_item, max_size=3)),
    target=st.one_of(_simple_item, st.lists(_simple_item, max_size=3)),
    strict=st.booleans(),
    float_rounding=st.integers(min_value=0, max_value=8),
)
def test_fast_verify_agrees_with_math_verify(gold: Any, target: Any, strict: bool, float_rounding: int) -> None:
    kwargs = {"strict": strict, "float_rounding": float_rounding}
    fast = fast_verify(
        gold,
        target,
        numeric_precision=15,
        allow_set_relation_comp=False,
        timeout_seconds=5,
        raise_on_error=False,
        **kwargs,
    )
    assert fast is not None
    assert fast == math_verify.verify(gold, target, **kwargs)


def test_fast_verify_declines_other_objects() -> None:
    options = {
        "float_rounding": 6,
        "numeric_precision": 15,
        "strict": True,
        "allow_set_relation_comp": False,
        "raise_on_error": False,
    }
    x, y = sympy.Symbol("x"), sympy.Symbol("y")
    assert fast_verify([x + 1], [y + 1], timeout_seconds=5, **options) is None
    assert fast_verify([sympy.pi], [sympy.E], timeout_seconds=5, **options) is None
    assert fast_verify([x + 1], [y + 1], timeout_seconds=5, **{**options, "strict": False}) is None
    assert fast_verify([sympy.zoo], [sympy.zoo], timeout_seconds=5, **options) is None
    assert fast_verify([sympy.Float(2)], [2], timeout_seconds=5, **options) is None
    assert fast_verify([sympy.Integer(2)], [2], timeout_seconds=5, **options) is None  # int
    # A float time limit makes math-verify's signal.alarm fail: left to math-verify.
    assert fast_verify(["a"], ["a"], timeout_seconds=2.5, **options) is None
    assert fast_verify(["a"], ["a"], timeout_seconds=None, **options) is True


def test_plain_integers_need_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool() -> None:
        raise AssertionError("the fast path should not need a worker")

    monkeypatch.setattr(_workers, "default_pool", no_pool)
    assert rapidgrade.verify(rapidgrade.parse("42"), rapidgrade.parse("42"))
    assert not rapidgrade.verify(rapidgrade.parse("42"), rapidgrade.parse("-42"))
    assert rapidgrade.parse("42") == [sympy.Integer(42), "42"]


# -- processes, threads and signals ------------------------------------------------------------

CASES = [
    ("$\\frac{1}{2}$", "The answer is 0.5", True),
    ("$x^2+2x+1$", "\\boxed{(x+1)^2}", True),
    ("$[0, 1)$", "$(0, 1]$", False),
    ("$3$", "I think it's 4", False),
    ("$\\sqrt{2}$", "$\\frac{2}{\\sqrt{2}}$", True),
]


def _grade_all() -> list[bool]:
    return [rapidgrade.verify(rapidgrade.parse(g), rapidgrade.parse(p)) for g, p, _ in CASES]


def test_four_threads_get_the_sequential_results() -> None:
    sequential = _grade_all()
    assert sequential == [expected for _, _, expected in CASES]
    with ThreadPoolExecutor(max_workers=4) as executor:
        futures = [executor.submit(_grade_all) for _ in range(4)]
        assert [f.result() for f in futures] == [sequential] * 4


def test_callers_alarm_and_handler_are_untouched() -> None:
    def handler(signum: int, frame: object) -> None:  # pragma: no cover - must never fire
        raise AssertionError("alarm fired")

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.alarm(1000)
        assert _grade_all() == [expected for _, _, expected in CASES]
        assert signal.getsignal(signal.SIGALRM) is handler
        assert signal.alarm(0) > 990
        # And with no alarm pending, none is left pending.
        _grade_all()
        assert signal.alarm(0) == 0
        assert signal.getsignal(signal.SIGALRM) is handler
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_works_outside_the_main_thread_where_math_verify_cannot() -> None:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            math_verify.parse("$x$")
        except ValueError as err:
            outcome["math_verify"] = str(err)
        outcome["rapidgrade"] = rapidgrade.verify(rapidgrade.parse("$x$"), rapidgrade.parse("$x$"))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert "threaded environment" in outcome["math_verify"]
    assert outcome["rapidgrade"] is True


# -- transport ----------------------------------------------------------------------------------


def test_transport_keeps_unevaluated_objects() -> None:
    d = sympy.Symbol("d", real=True)
    eq = sympy.Eq(d, sympy.Interval.open(0, 1), evaluate=False)
    assert loads(dumps(eq)) == eq
    unevaluated = sympy.Add(1, 1, evaluate=False)
    assert sympy.srepr(loads(dumps(unevaluated))) == sympy.srepr(unevaluated)
    matrix = sympy.Matrix([[1, sympy.Symbol("x")], [3, 4]])
    assert loads(dumps(matrix)) == matrix
    parsed = math_verify.parse("$1 < x < 2$")
    again = loads(dumps(parsed))
    assert [sympy.srepr(x) if isinstance(x, sympy.Basic) else x for x in again] == [
        sympy.srepr(x) if isinstance(x, sympy.Basic) else x for x in parsed
    ]
    assert math_verify.verify(again, parsed)


def test_import_rapidgrade_does_not_load_math_verify() -> None:
    import os
    import subprocess
    import sys

    code = "import sys, rapidgrade; print('math_verify' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == "False"
