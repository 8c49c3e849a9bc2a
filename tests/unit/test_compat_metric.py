"""``rapidgrade.compat.metric.math_metric`` against math-verify 0.9.0's own ``math_metric``.

The same scores and the same extracted strings (or the same exception) on the demo set's real
responses grouped by problem, under math-verify's default targets and the LaTeX targets lighteval
passes; the arguments (aggregation, precision, several golds) and the failure cases; and what
differs on purpose: no signal is used, so the metric works from threads.
"""

from __future__ import annotations

import inspect
import json
import statistics
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

import math_verify
import pytest
import sympy
from math_verify import ExprExtractionConfig, LatexExtractionConfig
from math_verify.metric import math_metric as mv_math_metric

import rapidgrade
from rapidgrade import _pool
from rapidgrade.compat import _workers
from rapidgrade.compat import metric as rg_metric
from rapidgrade.compat.metric import math_metric

CORPUS = Path(rapidgrade.__file__).resolve().parent / "data" / "qwen25_math_cot_800.jsonl"

# (name, keyword arguments, how a gold is written) as math-verify's users call it: its defaults
# (plain expressions, a bare gold), and lighteval's LaTeX golds with either target order.
CONFIGS = [
    ("default", {}, "{}"),
    (
        "latex_gold_expr_first",
        {
            "gold_extraction_target": (LatexExtractionConfig(),),
            "pred_extraction_target": (ExprExtractionConfig(), LatexExtractionConfig()),
        },
        "${}$",
    ),
    (
        "latex_gold_latex_first",
        {
            "gold_extraction_target": [LatexExtractionConfig()],
            "pred_extraction_target": [LatexExtractionConfig(), ExprExtractionConfig()],
        },
        "${}$",
    ),
]


def _groups() -> list[tuple[str, list[str]]]:
    """The demo set as metric calls: one gold, four of its problem's sampled responses."""
    groups: dict[str, list[str]] = defaultdict(list)
    with CORPUS.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            groups[row["gold"]].append(row["response"])
    return [(gold, responses[:4]) for gold, responses in groups.items()]


def _outcome(fn: Any, golds: list[str], predictions: list[str]) -> Any:
    try:
        return fn(golds, predictions)
    except ValueError as err:  # no gold extracted: the message names the inputs
        return ("ValueError", str(err))


def test_signature_is_math_verify_own() -> None:
    ours, theirs = inspect.signature(math_metric), inspect.signature(mv_math_metric)
    assert list(ours.parameters) == list(theirs.parameters)
    for name, parameter in theirs.parameters.items():
        assert ours.parameters[name].default == parameter.default, name
        assert ours.parameters[name].kind == parameter.kind, name
    assert rapidgrade.math_metric is math_metric
    assert rapidgrade.compat.math_metric is math_metric
    assert "math_metric" in rapidgrade.__all__ and "math_metric" in rapidgrade.compat.__all__


@pytest.mark.parametrize(("name", "kwargs", "gold_form"), CONFIGS, ids=[c[0] for c in CONFIGS])
def test_demo_set_scores_and_strings_are_math_verify_own(name: str, kwargs: dict[str, Any], gold_form: str) -> None:
    ours, theirs = math_metric(**kwargs), mv_math_metric(**kwargs)
    differences = []
    for gold, responses in _groups():
        golds = [gold_form.format(gold)]
        expected, got = _outcome(theirs, golds, responses), _outcome(ours, golds, responses)
        if got != expected:
            differences.append((gold, expected, got))
    assert differences == []


def test_several_golds_aggregation_and_precision() -> None:
    cases: list[tuple[dict[str, Any], list[str], list[str]]] = [
        ({}, ["1", "2"], ["The answer is 2", "It is 3", "1"]),
        ({"aggregation_function": statistics.mean}, ["1", "2"], ["The answer is 2", "It is 3", "1"]),
        ({"aggregation_function": min}, ["7"], ["7", "8"]),
        ({"precision": 2}, ["0.333"], ["1/3"]),
        ({"precision": 6}, ["0.333"], ["1/3"]),
        (
            {"gold_extraction_target": [LatexExtractionConfig()], "pred_extraction_target": [LatexExtractionConfig()]},
            ["$\\frac{1}{2}$", "$x^2$"],
            ["so \\boxed{0.5}", "\\boxed{x \\cdot x}", "\\boxed{y}"],
        ),
    ]
    for kwargs, golds, predictions in cases:
        assert math_metric(**kwargs)(golds, predictions) == mv_math_metric(**kwargs)(golds, predictions), (
            kwargs,
            golds,
            predictions,
        )


def test_failures_are_math_verify_own(caplog: pytest.LogCaptureFixture) -> None:
    # No gold extracted: the same ValueError; no prediction at all: max() of nothing.
    for golds, predictions in ((["no number here"], ["42"]), (["42"], [])):
        with pytest.raises(ValueError) as theirs:
            mv_math_metric()(golds, predictions)
        with pytest.raises(ValueError) as ours:
            math_metric()(golds, predictions)
        assert str(ours.value) == str(theirs.value)
    # No prediction extracted: a warning, and a score of 0.
    with caplog.at_level("WARNING", logger="rapidgrade.compat"):
        assert math_metric()(["42"], ["nothing", "at all"]) == (0.0, (["42", "42"], []))
    assert "did not manage to extract a prediction" in caplog.text


def test_fast_path_needs_no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool() -> None:
        raise AssertionError("the fast path should not need a worker")

    monkeypatch.setattr(_workers, "default_pool", no_pool)
    metric = math_metric([LatexExtractionConfig()], [LatexExtractionConfig(), ExprExtractionConfig()])
    score, strings = metric(["$\\frac{1}{2}$"], ["so $\\boxed{0.5}$", "\\boxed{\\dfrac{1}{3}}", "\\boxed{A}"])
    assert score == 1.0
    assert strings == (["1/2", "\\frac{1}{2}"], ["1/2", "\\frac{1}{2}", "1/3", "\\frac{1}{3}", "a", "A"])


def test_works_from_a_thread_where_math_verify_cannot() -> None:
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            mv_math_metric()(["42"], ["The answer is 42"])
        except ValueError as err:
            outcome["math_verify"] = str(err)
        outcome["rapidgrade"] = math_metric()(["42"], ["The answer is 42"])

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert "threaded environment" in outcome["math_verify"]
    assert outcome["rapidgrade"] == (1.0, (["42", "42"], ["42", "42"]))


def test_strings_of_large_objects_come_from_a_worker_within_two_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    x = sympy.Symbol("x")
    large = sympy.Add(*[x**k for k in range(100)])
    assert rg_metric._prints_quickly(sympy.Rational(1, 3)) and rg_metric._prints_quickly("x")
    assert not rg_metric._prints_quickly(large)
    assert not rg_metric._prints_quickly(sympy.Integer(10) ** 2000)
    assert rg_metric._strings([large], ["s"]) == ([str(large)], ["s"])  # printed in a worker

    # Past the limit, math-verify logs a warning and returns None for the strings.
    monkeypatch.setattr(_workers, "run", lambda fn, args, timeout: _pool.TaskResult("timeout"))
    assert rg_metric._strings([large], ["s"]) is None


def test_doctest_example_is_math_verify_own() -> None:
    golds, predictions = ["42"], ["The answer is 42", "I think 41"]
    assert math_metric()(golds, predictions) == mv_math_metric()(golds, predictions)
    assert math_verify.parse("42") == rapidgrade.parse("42")
