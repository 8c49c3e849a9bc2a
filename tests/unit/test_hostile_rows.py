"""One row never loses a batch: hostile rows of every task, at every entry point, are error
verdicts of their own while the good rows of their batch keep their verdicts."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from rapidgrade import GradeConfig, grade_many
from rapidgrade._io import InputRow
from rapidgrade.tasks import physics
from rapidgrade.tasks._isolate import describe_exception, isolate
from rapidgrade.tasks.fredholm import TASK as FREDHOLM
from rapidgrade.tasks.fredholm import _diagnostics, evaluate_solutions, row_problem
from rapidgrade.tasks.physics import TASK as PHYSICS

# -- physics --------------------------------------------------------------------------------------

#: 13 x Ym is 10**312 m: pint's conversion overflows.
OVERFLOW = "$5 " + "Ym " * 13 + "$"
#: A 2 KB unit of a thousand factors: pint's parser recursion limit.
RECURSION = "$5 " + "m " * 1000 + "$"


@pytest.mark.parametrize("response", [OVERFLOW, RECURSION], ids=["overflow", "recursion"])
def test_physics_unit_pint_cannot_evaluate_is_one_wrong_verdict(response: str) -> None:
    verdicts = grade_many(["5 m", "5 m", "3 s"], ["5 m", response, "3 s"], task="physics")
    assert [v.correct for v in verdicts] == [True, False, True]
    assert "unit not understood" in verdicts[1].reason


def test_physics_batch_that_raises_is_graded_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair whose reading raises (here: a unit resolver that fails for one unit) is an error
    verdict naming the exception; the others are graded as without it."""
    real = physics._unit_resolver

    def resolver() -> Any:
        resolve = real()

        def hostile(expression: str) -> Any:
            if "second" in expression:
                raise ZeroDivisionError("hostile unit")
            return resolve(expression)

        return hostile

    monkeypatch.setattr(physics, "_unit_resolver", resolver)
    golds = ["5 m", "5 m", "2 kg", "7 m"]
    responses = ["5 m", "3 s", "2 kg", "7 m"]
    verdicts = grade_many(golds, responses, task="physics")
    assert [v.correct for v in verdicts] == [True, False, True, True]
    assert verdicts[1].decided_by == "error"
    assert verdicts[1].reason == "could not be graded: ZeroDivisionError: hostile unit"
    assert [v.decided_by for v in verdicts] == ["fast", "error", "fast", "fast"]


def test_physics_integer_gold_beyond_str_limit() -> None:
    verdicts = grade_many([10**5000, "5 m"], ["5", "5 m"], task="physics")
    assert verdicts[0].decided_by == "error" and "too large" in verdicts[0].reason
    assert verdicts[1].correct


def test_physics_scoring_task_keeps_every_row() -> None:
    run = PHYSICS.start(PHYSICS.configure())
    responses = ["5 m", OVERFLOW, RECURSION, "5 m"]
    rows = [InputRow("in.jsonl", k + 1, {"gold": "5 m", "response": r}) for k, r in enumerate(responses)]
    records = run.grade(rows)
    assert len(records) == 4
    assert [r["correct"] for r in records] == [True, False, False, True]


# -- fredholm -------------------------------------------------------------------------------------

GOOD = {
    "ground_truth": "x^2 + 1",
    "ground_truth_solution_type": "exact_symbolic",
    "ground_truth_domain": [0, 1],
    "solution_str": "x^2+1",
    "has_solution": True,
    "solution_type": "exact_symbolic",
}

#: The row shapes that aborted a fredholm job, each with what its reason says.
HOSTILE_FREDHOLM = [
    ({"ground_truth_domain": {"a": 0, "b": 1}}, "ground_truth_domain must be a list"),
    ({"evaluation_points": {"x_values": [None, None], "u_values": [1, 2]}}, "evaluation_points.x_values"),
    ({"evaluation_points": {"x_values": "abc"}}, "evaluation_points.x_values must be a list"),
    ({"evaluation_points": {"x_values": [[1]]}}, "evaluation_points.x_values must hold numbers"),
    ({"ground_truth": "x\ud800"}, "ground_truth holds a lone surrogate"),
    ({"solution_str": "\ud800"}, "solution_str holds a lone surrogate"),
    ({"solution_str": 1}, "solution_str must be a string, not int"),
    ({"evaluation_points": [1, 2]}, "evaluation_points must be an object"),
    ({"ground_truth_domain": [0, float("nan")]}, "two finite numbers"),
]


@pytest.mark.parametrize(("change", "reason"), HOSTILE_FREDHOLM)
def test_fredholm_hostile_row_is_an_input_error_of_its_own(change: dict[str, Any], reason: str) -> None:
    run = FREDHOLM.start(FREDHOLM.configure(sympy=False))
    rows = [InputRow("p.jsonl", k, GOOD | (change if k == 2 else {})) for k in (1, 2, 3)]
    out = run.grade(rows)
    assert len(out) == 3
    assert out[0]["evaluation"]["correct"] is True and out[2]["evaluation"]["correct"] is True
    bad = out[1]["evaluation"]
    assert bad["correct"] is False and reason in bad["error"] and bad["error"].startswith("line 2: ")
    metrics = run.finish(1.0)
    assert metrics.summary["input_errors"] == 1 and metrics.summary["rows"] == 3


def test_fredholm_row_whose_evaluation_raises_is_internal_error() -> None:
    """A discrete-points text as a family ground truth has no infix form: the evaluation
    raises for that row alone (found by fuzzing); the batch keeps its other rows."""
    rows = [GOOD, GOOD | {"ground_truth": "[(0, 1)]", "ground_truth_solution_type": "family"}, GOOD]
    metrics = evaluate_solutions(rows, config=FREDHOLM.configure(sympy=False).evaluation)
    evaluations = [r["evaluation"] for r in metrics.rows]
    assert [e["correct"] for e in evaluations] == [True, False, True]
    assert evaluations[1]["error"] == "internal" and "ValueError" in evaluations[1]["reason"]


def test_row_problem_accepts_the_reference_shapes() -> None:
    assert row_problem(GOOD) is None
    assert row_problem(GOOD | {"ground_truth_domain": ["0", "1"]}) is None
    assert row_problem(GOOD | {"evaluation_points": {"x_values": [0, "0.5"], "u_values": ["inf", 1.0]}}) is None
    assert row_problem(GOOD | {"evaluation_points": None, "ground_truth_domain": None}) is None


def test_rouge_l_matches_rouge_score_and_is_bounded() -> None:
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=_diagnostics._Tokenizer())
    pairs = [("x + 1", "x + 2"), ("\\sin(x)^2", "\\sin(x) * \\sin(x)"), ("", "x"), ("a b c d", "d c b a"), ("x", "x")]
    for pred, gt in pairs:
        assert _diagnostics.rouge_l(pred, gt) == pytest.approx(scorer.score(gt, pred)["rougeL"].fmeasure, abs=1e-12)
    # 46 KB a side took 89 s and 2.6 GB with rouge-score's table; bounded now.
    big = "x + " * 11_500
    started = time.perf_counter()
    assert _diagnostics.rouge_l(big, big + "1") == pytest.approx(1.0, abs=1e-3)
    huge = "x + " * 30_000  # 60,000 tokens, beyond the cap: not measured
    assert _diagnostics.rouge_l(huge, huge) is None
    assert time.perf_counter() - started < 5.0


def test_fredholm_diagnostics_switch() -> None:
    on = FREDHOLM.configure(sympy=False)
    off = FREDHOLM.configure(sympy=False, diagnostics=False)
    assert on.evaluation.diagnostics and not off.evaluation.diagnostics
    assert FREDHOLM.fingerprint(on) != FREDHOLM.fingerprint(off)
    run = FREDHOLM.start(off)
    (record,) = run.grade([InputRow("p.jsonl", 1, dict(GOOD))])
    assert record["evaluation"]["correct"] is True
    assert not {"rouge_l", "bleu", "operator_f1"} & set(record["evaluation"])
    (record,) = FREDHOLM.start(on).grade([InputRow("p.jsonl", 1, dict(GOOD))])
    assert "operator_f1" in record["evaluation"]


def test_fredholm_no_diagnostics_flag() -> None:
    import argparse

    parser = argparse.ArgumentParser()
    FREDHOLM.add_arguments(parser)
    assert FREDHOLM.options_from_args(parser.parse_args(["--no-diagnostics"]))["diagnostics"] is False
    assert FREDHOLM.options_from_args(parser.parse_args([]))["diagnostics"] is True


# -- timeouts -------------------------------------------------------------------------------------


def test_timeout_beyond_any_float_is_no_limit() -> None:
    assert GradeConfig(timeout=10**400).timeout is None
    assert grade_many(["1"], ["1"], timeout=10**400)[0].correct
    assert grade_many(["5 m"], ["5 m"], timeout=10**400, task="physics")[0].correct


def test_negative_timeout_beyond_any_float_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number or None, got a negative number"):
        GradeConfig(timeout=-(10**5000))
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        GradeConfig(timeout=-math.inf)


# -- the isolation helper -------------------------------------------------------------------------


def test_isolate_finds_each_raising_item() -> None:
    calls: list[int] = []

    def grade(items: Any) -> list[int]:
        calls.append(len(items))
        if 3 in items or 6 in items:
            raise OverflowError("boom")
        return [x * 10 for x in items]

    out = isolate(grade, list(range(8)), lambda item, exc: -item)
    assert out == [0, 10, 20, -3, 40, 50, -6, 70]
    assert describe_exception(OverflowError("x" * 500)).endswith("…")


def test_isolate_does_not_catch_interrupts() -> None:
    def grade(items: Any) -> list[int]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        isolate(grade, [1, 2], lambda item, exc: 0)
