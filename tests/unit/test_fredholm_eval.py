"""evaluate_solution / evaluate_solutions: the per-type rules, the numeric metrics and the
aggregates, on small hand-made rows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from rapidgrade.tasks.fredholm import EvalConfig, evaluate_discrete_points, evaluate_solution, evaluate_solutions
from tests.datasets import fredholm_row as _row


def test_symbolic_equivalent_by_cpp() -> None:
    r = evaluate_solution(r"x^{2} + \sin(x)", "x**2 + sin(x)")
    assert r["correct"] and r["symbolic"]["equivalent"] and r["numeric"]["match"]
    assert r["numeric"]["points_source"] == "generated" and r["numeric"]["evaluation_points_used"] == 100
    assert len(r["numeric"]["x_values"]) == 100


def test_symbolic_needs_sympy() -> None:
    # sqrt(x)*sqrt(x) vs x is left UNKNOWN by the core (branches); SymPy proves it on x >= 0? No:
    # it is not an identity over the complex numbers, but the numeric check on [0, 1] matches.
    r = evaluate_solution(r"\sqrt{x}\sqrt{x}", "x")
    assert r["numeric"]["match"] and r["correct"]
    r = evaluate_solution(r"\sin^{2}(x) + \cos^{2}(x)", "1")
    assert r["symbolic"]["equivalent"] and r["correct"]


def test_different_functions() -> None:
    r = evaluate_solution("x^3", "x^2")
    assert not r["correct"] and not r["symbolic"]["equivalent"]
    assert r["numeric"]["max_error"] == pytest.approx(4 / 27, rel=1e-2)
    assert r["symbolic"]["difference"] is not None


def test_numeric_metrics() -> None:
    r = evaluate_solution("x + 0.5", "x", domain=(0.0, 2.0))
    n = r["numeric"]
    assert n["max_error"] == pytest.approx(0.5) and n["mean_error"] == pytest.approx(0.5)
    assert n["mae"] == n["mean_error"] and n["rmse"] == pytest.approx(0.5)
    xs = np.linspace(0, 2, 100)
    assert n["rel_l2"] == pytest.approx(0.5 * math.sqrt(100) / math.sqrt(float(np.sum(xs**2))))


@pytest.mark.parametrize(("gt_type", "tol"), [("exact_symbolic", 1e-6), ("series", 1e-2), ("approx_coef", 1e-3)])
def test_tolerance_by_type(gt_type: str, tol: float) -> None:
    close = evaluate_solution(f"x + {tol / 2}", "x", solution_type=gt_type)
    far = evaluate_solution(f"x + {tol * 2}", "x", solution_type=gt_type)
    assert close["numeric"]["match"] and not far["numeric"]["match"]
    custom = EvalConfig(numeric_tolerance=1.0, tolerances=())
    assert evaluate_solution("x + 0.5", "x", solution_type=gt_type, config=custom)["numeric"]["match"]


def test_evaluation_points_are_used() -> None:
    ep = {"x_values": [0.0, 0.5, 1.0], "u_values": [0.0, 0.25, 1.0], "n_points": 3}
    r = evaluate_solution("x^2", "x^2", evaluation_points=ep)
    assert r["numeric"]["points_source"] == "evaluation_points" and r["numeric"]["evaluation_points_used"] == 3
    assert r["numeric"]["y_true"] == [0.0, 0.25, 1.0]


def test_free_symbol_fails_numeric() -> None:
    r = evaluate_solution(r"x + \lambda", "x")
    assert not r["numeric"]["match"] and "non-numeric symbols" in r["numeric"]["error"]
    assert r["numeric"]["max_error"] == math.inf


def test_none_type() -> None:
    ok = evaluate_solution("x", "0", solution_type="none", has_solution=False)
    bad = evaluate_solution("x", "0", solution_type="none", has_solution=True)
    assert ok["correct"] and not bad["correct"]
    assert bad["numeric"]["max_error"] == math.inf and ok["numeric"]["max_error"] == 0.0


def test_regularized_type() -> None:
    assert evaluate_solution("x", "0", solution_type="regularized", predicted_type="regularized")["correct"]
    assert not evaluate_solution("x", "0", solution_type="regularized", predicted_type="exact_symbolic")["correct"]


def test_family() -> None:
    r = evaluate_solution(r"c_1 \sin(\pi x)", r"C \sin{\left(\pi x \right)}", solution_type="family")
    assert r["family_match"] and r["correct"]
    assert r["family_param_eval"]["param_count_match"] and r["family_param_eval"]["param_naming_valid"]
    assert r["numeric"]["constant_samples"] == [-1.0, 1.0, 2.0]
    wrong = evaluate_solution(r"C \cos(\pi x)", r"C \sin{\left(\pi x \right)}", solution_type="family")
    assert not wrong["family_match"] and not wrong["correct"]
    # a member of the family with a concrete constant is in the family
    member = evaluate_solution(r"3\sin(\pi x)", r"C \sin{\left(\pi x \right)}", solution_type="family")
    assert member["family_match"] and member["correct"]
    assert member["family_param_eval"]["param_naming_valid"] is False


def test_series_extras() -> None:
    r = evaluate_solution("1 + x + x^2/2 + x^3/6", "exp(x)", solution_type="series")
    assert r["series_term_count"] == 4 and r["series_term_match"] and r["series_term_target"] == 4
    assert r["series_term_eval"]["terms_compared"] == 1
    assert not r["correct"]  # max error e - 8/3 > 1e-2


def test_approx_coef_extras() -> None:
    r = evaluate_solution(r"1.05\sin(x) + 2x", r"\sin(x) + 2 x", solution_type="approx_coef")
    ev = r["approx_coef_eval"]
    assert ev["terms_compared"] == 2 and ev["match_rate"] == 1.0 and ev["match"]
    assert not r["correct"]


def test_discrete_points() -> None:
    ok = evaluate_discrete_points([(0.0, 1.0), (0.5, 2.0)], [(0.0, 1.0), (0.5, 2.0005)])
    assert ok["match"] and ok["matched_points"] == 2 and ok["accuracy"] == 1.0
    bad = evaluate_discrete_points([(0.0, 1.0), (0.5, 2.1)], [(0.0, 1.0), (0.5, 2.0)])
    assert not bad["match"] and bad["matched_points"] == 1 and bad["max_error"] == pytest.approx(0.1)
    empty = evaluate_discrete_points([], [(0.0, 1.0)])
    assert not empty["match"] and empty["rmse"] == math.inf
    ep = {"x_values": [0.0, 0.5], "u_values": [1.0, 2.0], "n_points": 2}
    r = evaluate_solution("[(0.0, 1.0), (0.5, 2.0)]", "0", solution_type="discrete_points", evaluation_points=ep)
    assert r["correct"] and r["numeric"]["pred_points"] == [(0.0, 1.0), (0.5, 2.0)]


def test_errors() -> None:
    rows = [
        _row("x", "x", "exact_symbolic", api_error=True),
        _row(None, "x", "exact_symbolic", has_solution=None),
        _row(None, "x", "exact_symbolic", has_solution=False),
        _row(r"\frac{", "x", "exact_symbolic"),
        _row("x", "x", "exact_symbolic"),
    ]
    m = evaluate_solutions(rows)
    errors = [r["evaluation"].get("error") for r in m.rows]
    assert errors == ["api_error", "missing_ground_truth_or_solution", "says_no_solution", "parse_failed", None]
    # fred-llm's denominator: the unparsable solution and the "no solution" answer are wrong answers
    assert (m["total"], m["correct"], m["accuracy"]) == (3, 1, 1 / 3)
    assert m["per_type"]["exact_symbolic"] == {"total": 3, "correct": 1, "accuracy": 1 / 3}
    assert m["api_errors"] == 1 and m["parse_errors"] == 0
    parsed = evaluate_solutions(rows, denominator="parsed")
    assert (parsed["total"], parsed["accuracy"]) == (1, 1.0)
    assert parsed["api_errors"] == 1 and parsed["parse_errors"] == 2


def test_aggregates() -> None:
    rows = [
        _row("x^2", "x^{2}", "exact_symbolic"),
        _row("x^3", "x^{2}", "exact_symbolic", solution_type="series"),
        _row(None, "0", "none", has_solution=False),
        _row("x", "0", "none", has_solution=True, solution_type="exact_symbolic"),
        _row("x", "0", "regularized", solution_type="regularized", has_solution=True),
    ]
    s = evaluate_solutions(rows).summary
    assert (s["total"], s["correct"]) == (5, 3)
    assert s["per_type"]["exact_symbolic"] == {"total": 2, "correct": 1, "accuracy": 0.5}
    assert s["per_type"]["none"]["correct"] == 1
    assert s["confusion_matrix"] == {"exact_symbolic_predicted_as_series": 1, "none_predicted_as_exact_symbolic": 1}
    assert s["solution_type_accuracy"] == pytest.approx(3 / 5)
    assert s["none_detection"] == {
        "precision": 1.0,
        "recall": 0.5,
        "f1": pytest.approx(2 / 3),
        "tp": 1,
        "fp": 0,
        "fn": 1,
    }
    assert s["has_solution_accuracy"] == pytest.approx(4 / 5)
    assert 0 <= s["mean_operator_f1"] <= 1 and 0 <= s["mean_bleu"] <= 1 and "mean_rouge_l" in s
    d = evaluate_solutions(rows).to_dict()
    assert all(not isinstance(v, float) or math.isfinite(v) for v in d.values())


def test_domains_override() -> None:
    rows = [_row("x", "x + 0.0000001*x**30", "exact_symbolic")]
    near = evaluate_solutions(rows).rows[0]["evaluation"]
    far = evaluate_solutions(rows, domains=[(0.0, 3.0)]).rows[0]["evaluation"]
    assert near["numeric"]["match"] and not far["numeric"]["match"]


def test_score_command_reads_predictions_files(tmp_path: Any) -> None:
    import json

    from rapidgrade.__main__ import main
    from rapidgrade.tasks.fredholm import write_outputs

    rows = [
        _row("x^{2}", "x^{2}", "exact_symbolic"),
        _row(None, "0", "none", has_solution=False),
        {
            k: v
            for k, v in _row(None, "x", "exact_symbolic").items()
            if k not in ("solution_str", "has_solution", "solution_type")
        }
        | {"raw_response": "SOLUTION: u(x) = x\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic"},
    ]
    src = tmp_path / "predictions.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["score", "--task", "fredholm", str(src), "--out", str(out), "--quiet"]) == 0
    evaluated = [json.loads(line) for line in (out / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["evaluation"]["correct"] for r in evaluated] == [True, True, True]
    assert evaluated[2]["solution_str"] == "x"  # parsed from raw_response
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["accuracy"] == 1.0 and metrics["per_type"]["none"]["total"] == 1
    assert "By ground-truth type" in (out / "report.html").read_text(encoding="utf-8")
    m = evaluate_solutions(rows[:2])
    write_outputs(m, tmp_path / "api")
    assert len((tmp_path / "api" / "predictions_evaluated.jsonl").read_text(encoding="utf-8").splitlines()) == 2
    assert json.loads((tmp_path / "api" / "metrics.json").read_text(encoding="utf-8"))["total"] == 2
