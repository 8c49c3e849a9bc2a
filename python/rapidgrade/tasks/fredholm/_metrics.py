"""The aggregates of the fredholm evaluation: which rows count in the accuracy's denominator
(:data:`DENOMINATORS`, :func:`counted`), :func:`summarize` (fred-llm's metrics of evaluated
rows) and :class:`FredholmMetrics`, what :func:`~rapidgrade.tasks.fredholm.evaluate_solutions`
returns, with its JSON form (:func:`_jsonable`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rapidgrade.tasks.fredholm._compare import _INF, _as_float
from rapidgrade.tasks.fredholm._symbols import is_sympy, sympy_text

__all__ = ["DENOMINATORS", "FredholmMetrics", "counted", "summarize"]

#: The accuracy denominators: ``reference`` (fred-llm's: every row the evaluation reached, a
#: solution that does not parse or the words "no solution" counting as wrong) and ``parsed``
#: (only the rows whose solution parsed).
DENOMINATORS = ("reference", "parsed")
#: Rows the ``reference`` denominator counts although they have no comparison: a solution text
#: that does not parse (fred-llm parses nearly any text, "No solution" as a product of letters,
#: and scores it wrong) and a response that says there is no solution.
_COUNTED_ERRORS = frozenset({"parse_failed", "says_no_solution"})


def counted(evaluation: Mapping[str, Any], denominator: str = "reference") -> bool:
    """Whether a row's *evaluation* counts in the accuracy's denominator (see
    :data:`DENOMINATORS`); api errors, rows without a ground truth or a solution, invalid rows
    and internal errors never do.

    >>> counted({"error": "parse_failed", "correct": False}), counted({"error": "parse_failed"}, "parsed")
    (True, False)
    """
    if "error" not in evaluation or "symbolic" in evaluation:
        return True
    return denominator == "reference" and evaluation["error"] in _COUNTED_ERRORS


@dataclass(frozen=True, slots=True)
class FredholmMetrics(Mapping[str, Any]):
    """What :func:`evaluate_solutions` returns: the aggregates (``metrics.json``) and the
    evaluated rows (``predictions_evaluated.jsonl``: each input row with its ``evaluation``).

    As a read-only mapping it is fred-llm's metrics dict, the aggregates: ``metrics["accuracy"]``,
    ``dict(metrics)``, ``metrics.get("per_type")``.
    """

    summary: dict[str, Any]
    rows: list[dict[str, Any]] = field(repr=False)

    def __getitem__(self, key: str) -> Any:
        return self.summary[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.summary)

    def __len__(self) -> int:
        return len(self.summary)

    def __contains__(self, key: object) -> bool:
        return key in self.summary

    def to_dict(self) -> dict[str, Any]:
        """The aggregates as JSON-ready data (non-finite numbers as strings)."""
        out: dict[str, Any] = _jsonable(self.summary)
        return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if is_sympy(value):
        return sympy_text(value)
    return value


# -- aggregates ------------------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values))


def summarize(
    rows: Sequence[Mapping[str, Any]],
    evaluations: Sequence[Mapping[str, Any]],
    denominator: str = "reference",
) -> dict[str, Any]:
    """The reference's metrics (``metrics_<ts>.json``) of evaluated rows (*rows* and
    *evaluations* in the same order); the accuracy over the rows :func:`counted` by
    *denominator*. A counted row without a comparison (a solution that does not parse, the
    words "no solution") is wrong, of its row's ground-truth type.

    ``parse_errors`` counts the rows left out other than api errors and rows without a
    solution (fred-llm's: the rows whose evaluation raised).
    """
    if denominator not in DENOMINATORS:
        raise ValueError(f"summarize: denominator must be one of {DENOMINATORS}, not {denominator!r}")
    results: list[Mapping[str, Any]] = []
    for row, e in zip(rows, evaluations):
        if not counted(e, denominator):
            continue
        if "error" in e and "symbolic" not in e:
            e = {**e, "solution_type": row.get("ground_truth_solution_type")}
        results.append(e)
    api_errors = sum(1 for e in evaluations if e.get("error") == "api_error")
    missing = sum(1 for e in evaluations if e.get("error") == "missing_ground_truth_or_solution")
    left_out = sum(1 for e in evaluations if not counted(e, denominator))
    summary: dict[str, Any] = {"total": len(results)}
    if results:
        total = len(results)
        correct = sum(1 for r in results if r["correct"])
        summary.update(
            correct=correct,
            accuracy=correct / total,
            symbolic_accuracy=sum(1 for r in results if r.get("symbolic", {}).get("equivalent", False)) / total,
            numeric_accuracy=sum(1 for r in results if r.get("numeric", {}).get("match", False)) / total,
        )

        def finite(v: Any) -> bool:
            return v is not None and v != _INF

        nums = [r["numeric"] for r in results if isinstance(r.get("numeric"), dict)]
        for key, field_names in (
            ("mean_mae", ("mae", "mean_error")),
            ("mean_rmse", ("rmse",)),
            ("mean_max_error", ("max_error",)),
            ("mean_mean_error", ("mean_error",)),
        ):
            vals = []
            for n in nums:
                v = n.get(field_names[0], n.get(field_names[-1]))
                if finite(v):
                    vals.append(v)
            if vals:
                summary[key] = _mean(vals)
        series = [r for r in results if r.get("solution_type") == "series" and r.get("series_term_count") is not None]
        if series:
            counts = [r["series_term_count"] for r in series]
            m = sum(1 for r in series if r.get("series_term_match"))
            summary["series_term_stats"] = {
                "total": len(counts),
                "match": m,
                "match_rate": m / len(counts),
                "min": int(min(counts)),
                "max": int(max(counts)),
                "mean": _mean(counts),
                "target": 4,
            }
        approx = [
            r["approx_coef_eval"]
            for r in results
            if r.get("solution_type") == "approx_coef" and r.get("approx_coef_eval")
        ]
        if approx:
            summary["approx_coef_stats"] = {
                "total": len(approx),
                "mean_match_rate": _mean([e.get("match_rate", 0.0) for e in approx]),
                "mean_abs_error": _mean([e.get("mean_abs_error", _INF) for e in approx]),
                "mean_rel_error": _mean([e.get("mean_rel_error", _INF) for e in approx]),
            }
        # As fred-llm writes it: every discrete_points row, compared point-wise or not (a row
        # without points counts 0 matched, accuracy 0, rmse inf).
        discrete = [r.get("numeric") or {} for r in results if r.get("solution_type") == "discrete_points"]
        if discrete:
            total_gt = sum(e.get("total_points_gt", 0) for e in discrete)
            summary["discrete_points_stats"] = {
                "total": len(discrete),
                "matched_point_rate": sum(e.get("matched_points", 0) for e in discrete) / total_gt if total_gt else 0.0,
                "mean_accuracy": _mean([e.get("accuracy", 0.0) for e in discrete]),
                "mean_rmse": _mean([_as_float(e.get("rmse", _INF)) for e in discrete]),
            }
        fams = [
            r["family_param_eval"] for r in results if r.get("solution_type") == "family" and r.get("family_param_eval")
        ]
        if fams:
            summary["family_param_stats"] = {
                "total": len(fams),
                "naming_convention_rate": _mean([1.0 if e.get("param_naming_valid") else 0.0 for e in fams]),
                "param_count_match_rate": _mean([1.0 if e.get("param_count_match") else 0.0 for e in fams]),
            }
        ops = [r["operator_f1"] for r in results if "operator_f1" in r]
        if ops:
            summary["mean_operator_precision"] = _mean([o["precision"] for o in ops])
            summary["mean_operator_recall"] = _mean([o["recall"] for o in ops])
            summary["mean_operator_f1"] = _mean([o["f1"] for o in ops])
        rel = [
            r["numeric"]["rel_l2"]
            for r in results
            if finite(r.get("numeric", {}).get("rel_l2"))
            and not (isinstance(r["numeric"]["rel_l2"], float) and math.isnan(r["numeric"]["rel_l2"]))
        ]
        if rel:
            summary["mean_rel_l2"] = _mean(rel)
        bleus = [r["bleu"] for r in results if "bleu" in r]
        if bleus:
            summary["mean_bleu"] = _mean(bleus)
        rouges = [r["rouge_l"] for r in results if "rouge_l" in r]
        if rouges:
            summary["mean_rouge_l"] = _mean(rouges)
        per_type: dict[str, dict[str, Any]] = {}
        for r in results:
            st = r.get("solution_type") or "unknown"
            c = per_type.setdefault(st, {"total": 0, "correct": 0})
            c["total"] += 1
            c["correct"] += 1 if r["correct"] else 0
        for c in per_type.values():
            c["accuracy"] = c["correct"] / c["total"] if c["total"] else 0.0
        summary["per_type"] = per_type
    # edge-case metrics over all rows (as the pipeline computes them)
    hs_total = hs_ok = st_total = st_ok = 0
    confusion: dict[str, int] = {}
    tp = fp = fn = 0
    for row in rows:
        if row.get("api_error"):
            continue
        gh, ph = row.get("ground_truth_has_solution"), row.get("has_solution")
        if gh is not None and ph is not None:
            hs_total += 1
            hs_ok += gh == ph
        gs, ps = row.get("ground_truth_solution_type"), row.get("solution_type")
        if gs and ps:
            st_total += 1
            if gs == ps:
                st_ok += 1
            else:
                key = f"{gs}_predicted_as_{ps}"
                confusion[key] = confusion.get(key, 0) + 1
        if gs == "none":
            if ph is False:
                tp += 1
            else:
                fn += 1
        elif gs is not None and ph is False:
            fp += 1
    summary["evaluated_count"] = len(results)
    summary["total_predictions"] = len(rows)
    summary["api_errors"] = api_errors
    summary["parse_errors"] = left_out - api_errors - missing
    if hs_total:
        summary["has_solution_accuracy"] = hs_ok / hs_total
        summary["has_solution_total"] = hs_total
    if st_total:
        summary["solution_type_accuracy"] = st_ok / st_total
        summary["solution_type_total"] = st_total
    if confusion:
        summary["confusion_matrix"] = confusion
    if tp + fp + fn:
        p = tp / (tp + fp) if tp + fp else 0.0
        r_ = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r_ / (p + r_) if p + r_ else 0.0
        summary["none_detection"] = {"precision": p, "recall": r_, "f1": f1, "tp": tp, "fp": fp, "fn": fn}
    return summary
