r"""``evaluate_solutions``: per-row evaluation of integral-equation answers and their aggregates.

The branch is chosen by the ground-truth type, as in the fred-llm reference
(``AdaptivePipeline._evaluate`` with ``SolutionEvaluator``):

* ``none``: correct iff the response's ``has_solution`` is false;
* ``regularized``: correct iff the response's ``solution_type`` is ``regularized``;
* ``family``: ``family_match`` (the response divided by the ground truth with its free constants
  set to 1 is free of x, or their difference is) or the symbolic or the numeric match, where the
  numeric check compares over the constant samples −1, 1, 2;
* every other type: ``symbolic.equivalent`` or ``numeric.match``.

How each part is decided here (the differences from the reference are listed in
``tests/data/fredholm/README.md``):

* **symbolic**: the C++ equivalence first (TRUE/FALSE only when certain). When it is unsure and
  the two functions differ at a sample point of the domain by more than the tolerance, they
  are not equal (a certain FALSE, no SymPy). Otherwise SymPy (``simplify``, ``equals``,
  ``expand``, ``trigsimp`` of the difference) runs in the killable worker pool with a deadline
  (``symbolic_timeout``, 8 s as the reference); a timeout leaves ``equivalent`` false with
  ``error: "symbolic_timeout"``, and the numeric check, which is deterministic, still applies.
* **numeric**: both sides sampled by the C++ core at 100 uniform points of the domain (or the
  row's ``evaluation_points``); ``max_error < tolerance`` (1e-6; 1e-2 for ``series``; 1e-3 for
  ``approx_coef``). A free symbol other than x fails it with ``error``.
* **family_match** is decided by sampling the ratio (or the difference) at 16 points of the
  domain with the response's own constants set to two sets of values: constant in x (relative
  1e-9) means x-free.

Non-finite numbers are written as the strings ``"inf"``, ``"-inf"``, ``"nan"`` (strict JSON, as
the corpus stores the reference's values).

This module holds the options (:class:`EvalConfig`), the check of a row's fields
(:func:`row_problem`) and the row-by-row evaluation; the comparisons it applies are in
:mod:`rapidgrade.tasks.fredholm._compare`, the aggregates (:func:`summarize`,
:class:`FredholmMetrics`, :func:`counted`) in :mod:`rapidgrade.tasks.fredholm._metrics`, both
importable from here as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade._pool import WorkerPool, default_pool
from rapidgrade.tasks._isolate import describe_exception, isolate
from rapidgrade.tasks.fredholm._compare import (
    _CONSTANT_SAMPLES,
    _INF,
    _STANDARD_VARS,
    _approx_coef_eval,
    _as_float,
    _by_type,
    _differs_anyhow,
    _domain_of,
    _failed_numeric,
    _family_match,
    _numeric_block,
    _param_eval,
    _points,
    _present,
    _read,
    _read_points,
    _sample,
    _series_terms,
    _Side,
    _substituted_tree,
    _sympy_compare,
    _top_terms,
)
from rapidgrade.tasks.fredholm._compare import (
    evaluate_discrete_points as evaluate_discrete_points,
)
from rapidgrade.tasks.fredholm._metrics import (
    DENOMINATORS,
    FredholmMetrics,
    counted,
    summarize,
)
from rapidgrade.tasks.fredholm._metrics import (
    _jsonable as _jsonable,
)
from rapidgrade.tasks.fredholm._symbols import Symbols, is_sympy, symbol_table

__all__ = [
    "DENOMINATORS",
    "EvalConfig",
    "FredholmMetrics",
    "counted",
    "evaluate_rows",
    "evaluate_solution",
    "evaluate_solutions",
    "row_problem",
    "summarize",
]


@dataclass(frozen=True, slots=True)
class EvalConfig:
    """Options of the evaluation.

    ``tolerances`` overrides ``numeric_tolerance`` per ground-truth type (the reference's
    ``type_tolerances``). ``symbolic_timeout`` bounds each SymPy comparison (seconds; ``None``:
    no limit); ``sympy=False`` never starts SymPy (an undecided symbolic comparison stays false).
    ``include_points`` keeps the sampled arrays in each row. ``diagnostics`` adds operator F1,
    BLEU and ROUGE-L.

    ``denominator`` is the accuracy's (:data:`DENOMINATORS`; ``reference``: fred-llm's).
    ``default_domain`` is sampled for a row without ``ground_truth_domain`` (fred-llm's code
    uses [0, 1]). ``symbols`` is the normalized symbol table the solutions are read with
    (:func:`~rapidgrade.tasks.fredholm._symbols.symbol_table`, as sorted pairs).
    """

    n_points: int = 100
    numeric_tolerance: float = 1e-6
    tolerances: tuple[tuple[str, float], ...] = (("series", 1e-2), ("approx_coef", 1e-3))
    symbolic_timeout: float | None = 8.0
    sympy: bool = True
    include_points: bool = True
    diagnostics: bool = True
    threads: int | None = None
    denominator: str = "reference"
    default_domain: tuple[float, float] = (0.0, 1.0)
    symbols: tuple[tuple[str, tuple[str, str]], ...] = ()

    def __post_init__(self) -> None:
        if self.denominator not in DENOMINATORS:
            raise ValueError(f"EvalConfig: denominator must be one of {DENOMINATORS}, not {self.denominator!r}")
        a, b = self.default_domain
        if not (math.isfinite(a) and math.isfinite(b)):
            raise ValueError(f"EvalConfig: default_domain must be two finite numbers, not {self.default_domain!r}")

    @staticmethod
    def table(symbols: Symbols) -> tuple[tuple[str, tuple[str, str]], ...]:
        """The ``symbols`` field for a table given as ``symbols=`` accepts it."""
        return tuple(sorted(symbol_table(symbols).items()))

    def tolerance(self, solution_type: str | None) -> float:
        """The numeric tolerance for a ground-truth type."""
        for name, tol in self.tolerances:
            if name == solution_type:
                return tol
        return self.numeric_tolerance


#: The fields of a predictions row that are text (or absent, or null).
TEXT_FIELDS = ("ground_truth", "solution_str", "raw_response", "ground_truth_solution_type", "solution_type")
#: Of those, the ones that may be SymPy objects instead (and ``solution_sympy``).
SYMPY_FIELDS = frozenset({"ground_truth", "solution_str", "solution_sympy"})


def _text_problem(name: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        return f"{name} must be a string, not {type(value).__name__}"
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"{name} holds a lone surrogate ({value[exc.start]!r}), which is not text"
    return None


def _number_problem(value: Any) -> bool:
    """Whether *value* is not a number the evaluation reads (a number, or a number's text
    such as ``"inf"`` as the corpus stores them)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return True
    try:
        _as_float(value)
    except (ValueError, OverflowError):
        return True
    return False


def row_problem(row: Any) -> str | None:
    """Why a predictions row cannot be evaluated as it is (a field of the wrong type or shape),
    or ``None`` when it can: text fields are strings (or absent or null) holding no lone
    surrogate; ``ground_truth_domain`` is absent, null or two finite numbers ``[a, b]``;
    ``evaluation_points`` is absent, null or an object whose ``x_values`` and ``u_values``
    are absent, null or lists of numbers.

    >>> row_problem({"ground_truth": "x", "ground_truth_domain": {"a": 0, "b": 1}})
    'ground_truth_domain must be a list [a, b] of two numbers, not dict'
    """
    if not isinstance(row, Mapping):
        return f"a row must be an object, not {type(row).__name__}"
    for name in (*TEXT_FIELDS, "solution_sympy"):
        value = row.get(name)
        if name in SYMPY_FIELDS and is_sympy(value):
            continue
        problem = _text_problem(name, value)
        if problem is not None:
            return problem
    domain = row.get("ground_truth_domain")
    if domain is not None:
        if not isinstance(domain, (list, tuple)):
            return f"ground_truth_domain must be a list [a, b] of two numbers, not {type(domain).__name__}"
        if len(domain) != 2 or any(_number_problem(v) or not math.isfinite(_as_float(v)) for v in domain):
            return "ground_truth_domain must be a list [a, b] of two finite numbers"
    points = row.get("evaluation_points")
    if points is not None:
        if not isinstance(points, Mapping):
            return f"evaluation_points must be an object with x_values and u_values, not {type(points).__name__}"
        for name in ("x_values", "u_values"):
            values = points.get(name)
            if values is None:
                continue
            if not isinstance(values, (list, tuple)):
                return f"evaluation_points.{name} must be a list of numbers, not {type(values).__name__}"
            bad = next((v for v in values if _number_problem(v)), _NO_PROBLEM)
            if bad is not _NO_PROBLEM:
                return f"evaluation_points.{name} must hold numbers only, not {type(bad).__name__}"
    return None


_NO_PROBLEM = object()


def evaluate_rows(
    rows: Sequence[Mapping[str, Any]],
    *,
    config: EvalConfig | None = None,
    domains: Sequence[tuple[float, float] | None] | None = None,
    pool: WorkerPool | None = None,
) -> list[dict[str, Any]]:
    """The ``evaluation`` dict of every prediction row, in order (see the module documentation).

    A row has the reference's predictions fields: ``ground_truth``,
    ``ground_truth_solution_type``, ``ground_truth_domain``, ``evaluation_points``,
    ``solution_str``, ``has_solution``, ``solution_type``, ``api_error``.

    No row loses the others: a row with a field of the wrong type or shape
    (:func:`row_problem`) is ``{"error": "invalid_row", "reason": ..., "correct": False}``, and
    a row whose evaluation raises is ``{"error": "internal", "reason": ..., "correct": False}``
    (the batch is evaluated again in halves to find it).
    """
    cfg = config or EvalConfig()
    if domains is not None and len(domains) != len(rows):
        raise ValueError("evaluate_rows: domains and rows differ in length")
    out: list[dict[str, Any] | None] = [None] * len(rows)
    todo: list[int] = []
    for i, row in enumerate(rows):
        problem = row_problem(row)
        if problem is not None:
            out[i] = {"error": "invalid_row", "reason": problem, "correct": False}
        else:
            todo.append(i)

    def evaluate(indices: Sequence[int]) -> list[dict[str, Any]]:
        sub_domains = None if domains is None else [domains[i] for i in indices]
        return _evaluate_rows([rows[i] for i in indices], cfg, sub_domains, pool)

    def failed(i: int, exc: Exception) -> dict[str, Any]:
        return {"error": "internal", "reason": describe_exception(exc), "correct": False}

    for i, ev in zip(todo, isolate(evaluate, todo, failed)):
        out[i] = ev
    return [o if o is not None else {"error": "internal", "correct": False} for o in out]


def _evaluate_rows(
    rows: Sequence[Mapping[str, Any]],
    cfg: EvalConfig,
    domains: Sequence[tuple[float, float] | None] | None,
    pool: WorkerPool | None,
) -> list[dict[str, Any]]:
    """:func:`evaluate_rows` for rows whose fields have the right types (one batch: an
    exception loses it, which :func:`evaluate_rows` handles)."""
    n = len(rows)
    out: list[dict[str, Any] | None] = [None] * n
    pending: list[tuple[int, _Side, _Side, str, tuple[float, float]]] = []
    symbols = dict(cfg.symbols)
    for i, row in enumerate(rows):
        gt_type = row.get("ground_truth_solution_type")
        if row.get("api_error"):
            out[i] = {"error": "api_error", "correct": False}
            continue
        if gt_type == "none":
            out[i] = _by_type(row.get("has_solution") is False, "none")
            continue
        if gt_type == "regularized":
            out[i] = _by_type(row.get("solution_type") == "regularized", "regularized")
            continue
        gt_value, sol_value = row.get("ground_truth"), row.get("solution_str")
        printed = False
        if not _present(sol_value) and _present(row.get("solution_sympy")):
            # a solution given as SymPy (fred-llm's documented example): its expression or its text
            sol_value, printed = row.get("solution_sympy"), True
        if not _present(gt_value) or not _present(sol_value):
            # A response that says there is no solution, to an equation that has one, is an
            # answer (wrong), not a missing one.
            says_none = _present(gt_value) and row.get("has_solution") is False
            out[i] = (
                {"error": "says_no_solution", "correct": False}
                if says_none
                else {"error": "missing_ground_truth_or_solution", "correct": False}
            )
            continue
        domain = _domain_of(row, cfg.default_domain)
        if domains is not None and domains[i] is not None:
            d = domains[i]
            assert d is not None
            domain = (float(d[0]), float(d[1]))
        sol_str = sol_value if isinstance(sol_value, str) else None
        pts = _read_points(sol_str) if sol_str is not None and sol_str.lstrip().startswith("[(") else None
        if pts is not None:
            ep = row.get("evaluation_points") or {}
            gt_pts = list(zip(map(_as_float, ep.get("x_values") or []), map(_as_float, ep.get("u_values") or [])))
            num = evaluate_discrete_points(pts, gt_pts, x_tolerance=1e-3, y_tolerance=cfg.tolerance("discrete_points"))
            num["pred_points"], num["gt_points"] = pts, gt_pts
            out[i] = {
                "symbolic": {"equivalent": False},
                "numeric": num,
                "symbolic_match": False,
                "numeric_match": num["match"],
                "correct": num["match"],
                "solution_type": gt_type,
            }
            continue
        gt, pred = _read(gt_value, symbols), _read(sol_value, symbols, printed)
        if gt is None or pred is None:
            out[i] = {"error": "parse_failed", "correct": False}
            continue
        pending.append((i, pred, gt, gt_type or "", domain))

    _evaluate_parsed(rows, pending, out, cfg, pool)
    return [o if o is not None else {"error": "internal", "correct": False} for o in out]


def _evaluate_parsed(
    rows: Sequence[Mapping[str, Any]],
    pending: list[tuple[int, _Side, _Side, str, tuple[float, float]]],
    out: list[dict[str, Any] | None],
    cfg: EvalConfig,
    pool: WorkerPool | None,
) -> None:
    threads = cfg.threads
    # 1. C++ equivalence (with family constants as they are: a certain TRUE stays TRUE).
    tri = _core.equivalent_many([(gt.expr, pred.expr) for _, pred, gt, _, _ in pending], threads=threads)
    # 2. numeric sampling, vectorized over all rows at once.
    std = [k for k, p in enumerate(pending) if p[3] != "family"]
    fam = [k for k, p in enumerate(pending) if p[3] == "family"]
    blocks: dict[int, dict[str, Any]] = {}
    differs: dict[int, bool] = {}
    pred_sides: list[tuple[int, _Side]] = []
    gt_sides: list[_Side] = []
    xs_list: list[np.ndarray] = []
    stored: list[np.ndarray | None] = []
    for k in std:
        i, pred, gt, gt_type, domain = pending[k]
        xs, ys = _points(rows[i], domain, cfg.n_points)
        extra = pred.symbols - {"x"}
        if ys is None:
            extra = extra | (gt.symbols - {"x"})
        if extra:
            blocks[k] = _failed_numeric(f"Expressions contain non-numeric symbols: {set(sorted(extra))}")
            continue
        pred_sides.append((k, pred))
        gt_sides.append(gt)
        xs_list.append(xs)
        stored.append(ys)
    y_pred = _sample([s for _, s in pred_sides], xs_list, {}, threads)
    y_gt = _sample(gt_sides, xs_list, {}, threads)
    for j, (k, _) in enumerate(pred_sides):
        i, pred, gt, gt_type, domain = pending[k]
        ys = stored[j]
        source = "evaluation_points"
        if ys is None:
            ys = y_gt[j]
            source = "generated"
        if not np.any(np.isfinite(y_pred[j])):
            blocks[k] = _failed_numeric("the solution could not be evaluated numerically")
            continue
        blocks[k] = _numeric_block(xs_list[j], y_pred[j], ys, cfg.tolerance(gt_type), source, cfg.include_points)
    # 3. symbolic: certain answers from C++; FALSE when sampling shows a difference (under an
    # interpretation of the other symbols and undefined functions); TRUE for the same canonical
    # form; else SymPy.
    undecided = [k for k in std if tri[k] == 2]
    proofs = _differs_anyhow(
        [(pending[k][1], pending[k][2], np.linspace(pending[k][4][0], pending[k][4][1], 25)) for k in undecided],
        threads,
    )
    differs.update(zip(undecided, proofs))
    symbolic: dict[int, dict[str, Any]] = {}
    sympy_jobs: list[int] = []
    for k in std:
        i, pred, gt, gt_type, domain = pending[k]
        t = tri[k]
        diff_text = f"{pred.expr} - ({gt.expr})"
        if t == 1 or (t == 2 and not differs.get(k, False) and str(pred.expr) == str(gt.expr)):
            symbolic[k] = {"equivalent": True, "difference": None, "simplified_match": True}
        elif t == 0 or differs.get(k, False):
            symbolic[k] = {"equivalent": False, "difference": diff_text, "simplified_match": False}
        else:
            symbolic[k] = {"equivalent": False, "difference": diff_text, "simplified_match": False}
            sympy_jobs.append(k)
    # family rows: symbolic check on constants set to 1 is part of their own block below
    fam_results = {k: _family_row(rows, pending[k], tri[k], cfg) for k in fam}
    for k in fam:
        if fam_results[k].pop("_needs_sympy", False):
            sympy_jobs.append(k)
    if sympy_jobs and cfg.sympy:
        runner = pool if pool is not None else default_pool()
        args = []
        for k in sympy_jobs:
            i, pred, gt, gt_type, domain = pending[k]
            if k in fam_results:
                args.append((_substituted_tree(gt, 1.0), _substituted_tree(pred, 1.0)))
            else:
                args.append((gt.expr.tree(), pred.expr.tree()))
        results = runner.run_many(_sympy_compare, args, timeout=cfg.symbolic_timeout, description="fredholm sympy")
        for k, res in zip(sympy_jobs, results):
            target = fam_results[k]["symbolic"] if k in fam_results else symbolic[k]
            if res.status == "ok":
                eq, simp, diff = res.value
                target.update(equivalent=bool(eq), simplified_match=bool(simp), difference=diff)
            elif res.status == "timeout":
                target["error"] = "symbolic_timeout"
            else:
                target["error"] = res.error
            if k in fam_results:
                fr = fam_results[k]
                fr["symbolic_match"] = fr["symbolic"]["equivalent"]
                fr["correct"] = bool(fr["family_match"] or fr["symbolic_match"] or fr["numeric_match"])
    for k in fam:
        out[pending[k][0]] = fam_results[k]
    for k in std:
        i, pred, gt, gt_type, domain = pending[k]
        num = blocks[k]
        sym = symbolic[k]
        result: dict[str, Any] = {
            "symbolic": sym,
            "numeric": num,
            "symbolic_match": sym["equivalent"],
            "numeric_match": num["match"],
            "correct": bool(sym["equivalent"] or num["match"]),
            "solution_type": gt_type or None,
        }
        row = rows[i]
        if cfg.diagnostics:
            from rapidgrade.tasks.fredholm._diagnostics import bleu_score, operator_f1, rouge_l

            result["operator_f1"] = operator_f1(pred.expr.tree(), gt.expr.tree())
        if gt_type == "series":
            count = len(_top_terms(pred.expr.tree()))
            result["series_term_count"] = count
            result["series_term_target"] = 4
            result["series_term_match"] = count == 4
            result["series_term_eval"] = _series_terms(
                pred, gt, domain, cfg.n_points, cfg.tolerance(gt_type), {}, cfg.threads
            )
        if gt_type == "approx_coef":
            result["approx_coef_eval"] = _approx_coef_eval(pred, gt, cfg.tolerance(gt_type))
        if cfg.diagnostics:
            bleu = bleu_score(str(row.get("solution_str")), str(row.get("ground_truth")))
            rouge = rouge_l(str(row.get("solution_str")), str(row.get("ground_truth")))
            if bleu is not None:
                result["bleu"] = bleu
            if rouge is not None:
                result["rouge_l"] = rouge
        out[i] = result


def _family_row(
    rows: Sequence[Mapping[str, Any]],
    item: tuple[int, _Side, _Side, str, tuple[float, float]],
    tri: int,
    cfg: EvalConfig,
) -> dict[str, Any]:
    from rapidgrade.tasks.fredholm._terms import tree_to_infix

    i, pred, gt, _, domain = item
    row = rows[i]
    family_match = _family_match(pred, gt, domain, cfg.threads)
    # numeric over the constant samples
    consts = sorted((pred.symbols | gt.symbols) - _STANDARD_VARS)
    ep = row.get("evaluation_points")
    tol = cfg.numeric_tolerance
    numeric: dict[str, Any]
    samples: list[dict[str, Any]] = []
    if isinstance(ep, Mapping) and ep.get("x_values") and consts:
        xs = np.asarray([_as_float(v) for v in ep["x_values"]], dtype=float)
        if "u_values_samples" in ep:
            gt_samples = ep["u_values_samples"]
            values = list(ep.get("constant_samples", _CONSTANT_SAMPLES))
        else:
            gt_samples = [ep.get("u_values", [])]
            values = list(_CONSTANT_SAMPLES[:1])
        values = values[: len(gt_samples)]
        for c, yt in zip(values, gt_samples):
            extra = pred.symbols - {"x"} - set(consts)
            y = _sample([pred], [xs], dict.fromkeys(consts, float(c)), cfg.threads)[0]
            if extra or not np.any(np.isfinite(y)):
                samples.append(
                    {
                        "match": False,
                        "max_error": _INF,
                        "mean_error": _INF,
                        "rmse": _INF,
                        "error": "non-numeric solution",
                    }
                )
                continue
            yt_arr = np.asarray([_as_float(v) for v in yt], dtype=float)
            blk = _numeric_block(xs, y, yt_arr, tol, "evaluation_points", cfg.include_points)
            samples.append({k: blk[k] for k in blk if k not in ("rel_l2", "evaluation_points_used")})
    elif consts:
        xs = np.linspace(domain[0], domain[1], cfg.n_points)
        values = list(_CONSTANT_SAMPLES)
        for c in values:
            env = dict.fromkeys(consts, float(c))
            yp, yt = _sample([pred, gt], [xs, xs], env, cfg.threads)
            if not np.any(np.isfinite(yp)):
                samples.append(_failed_numeric("the solution could not be evaluated numerically"))
                continue
            samples.append(_numeric_block(xs, yp, yt, tol, "generated", False))
    if consts:
        max_errors = [s["max_error"] for s in samples]
        mean_errors = [s["mean_error"] for s in samples]
        rmses = [s["rmse"] for s in samples]
        with np.errstate(invalid="ignore"):
            numeric = {
                "match": all(s["match"] for s in samples) and bool(samples),
                "max_error": max(max_errors) if max_errors else _INF,
                "mean_error": float(np.mean(mean_errors)) if mean_errors else _INF,
                "mae": float(np.mean(mean_errors)) if mean_errors else _INF,
                "rmse": float(np.mean(rmses)) if rmses else _INF,
                "max_error_std": float(np.std(max_errors)) if max_errors else 0.0,
                "mean_error_std": float(np.std(mean_errors)) if mean_errors else 0.0,
                "rmse_std": float(np.std(rmses)) if rmses else 0.0,
                "sample_results": samples,
                "constant_samples": values,
            }
    else:
        xs, ys = _points(row, domain, cfg.n_points)
        extra = pred.symbols - {"x"}
        if ys is None:
            extra |= gt.symbols - {"x"}
        if extra:
            numeric = _failed_numeric(f"Expressions contain non-numeric symbols: {set(sorted(extra))}")
        else:
            if ys is None:
                yp, ys = _sample([pred, gt], [xs, xs], {}, cfg.threads)
                source = "generated"
            else:
                yp = _sample([pred], [xs], {}, cfg.threads)[0]
                source = "evaluation_points"
            numeric = _numeric_block(xs, yp, ys, tol, source, cfg.include_points)
    # symbolic on the constants set to 1
    g1 = _substituted_tree(gt, 1.0)
    p1 = _substituted_tree(pred, 1.0)
    g1e = _core.parse_expr(tree_to_infix(g1), syntax="infix")
    p1e = _core.parse_expr(tree_to_infix(p1), syntax="infix")
    t1 = _core.equivalent(g1e, p1e) if tri != 1 else 1
    symbolic = {
        "equivalent": t1 == 1,
        "difference": None if t1 == 1 else f"{p1e} - ({g1e})",
        "simplified_match": t1 == 1,
    }
    needs_sympy = t1 == 2 and not (family_match or numeric["match"])
    gt1 = _Side(g1e, str(g1e), "infix", g1e.free_symbols)
    pr1 = _Side(p1e, str(p1e), "infix", p1e.free_symbols)
    result: dict[str, Any] = {
        "symbolic": symbolic,
        "numeric": numeric,
        "symbolic_match": symbolic["equivalent"],
        "numeric_match": numeric["match"],
        "family_match": family_match,
        "family_term_eval": _series_terms(pr1, gt1, domain, cfg.n_points, tol, {}, cfg.threads),
        "family_param_eval": _param_eval(pred, gt),
        "correct": bool(family_match or symbolic["equivalent"] or numeric["match"]),
        "solution_type": "family",
        "_needs_sympy": needs_sympy,
    }
    return result


def evaluate_solutions(
    predictions: Sequence[Mapping[str, Any]],
    *,
    domains: Sequence[tuple[float, float] | None] | None = None,
    n_points: int = 100,
    numeric_tolerance: float = 1e-6,
    symbolic_timeout: float | None = 8.0,
    denominator: str = "reference",
    default_domain: tuple[float, float] = (0.0, 1.0),
    symbols: Symbols = None,
    config: EvalConfig | None = None,
    pool: WorkerPool | None = None,
) -> FredholmMetrics:
    r"""Evaluates the reference's prediction rows and aggregates the metrics; the result reads
    as fred-llm's metrics dict (``metrics["accuracy"]``, ``dict(metrics)``).

    A row's ``ground_truth`` and ``solution_str`` may be strings or SymPy expressions; a row
    without ``solution_str`` is read from its ``solution_sympy`` (a SymPy expression, or the
    text SymPy prints), as in fred-llm's documented example. *domains*, when given, overrides
    each row's ``ground_truth_domain`` (``None`` entries keep it); a row with neither is sampled
    on *default_domain*. *denominator* is the accuracy's (:data:`DENOMINATORS`: ``reference``,
    fred-llm's, by default; ``parsed``, only the rows whose solution parsed). *symbols* extends
    the symbol table the solutions are read with (see :func:`parse_llm_output`). These options
    build an :class:`EvalConfig` unless *config* is given.

    >>> rows = [{"ground_truth": "x^{2}", "ground_truth_solution_type": "exact_symbolic",
    ...          "ground_truth_domain": [0, 1], "solution_str": "x**2", "has_solution": True,
    ...          "solution_type": "exact_symbolic", "ground_truth_has_solution": True}]
    >>> m = evaluate_solutions(rows)
    >>> m["accuracy"], m.rows[0]["evaluation"]["symbolic"]["equivalent"]
    (1.0, True)
    """
    cfg = config or EvalConfig(
        n_points=n_points,
        numeric_tolerance=numeric_tolerance,
        symbolic_timeout=symbolic_timeout,
        denominator=denominator,
        default_domain=(float(default_domain[0]), float(default_domain[1])),
        symbols=EvalConfig.table(symbols),
    )
    if domains is not None and len(domains) != len(predictions):
        raise ValueError("evaluate_solutions: domains and predictions differ in length")
    evaluations = evaluate_rows(predictions, config=cfg, domains=domains, pool=pool)
    out_rows = []
    for row, ev in zip(predictions, evaluations):
        r = dict(row)
        r["evaluation"] = ev
        out_rows.append(r)
    return FredholmMetrics(summarize(predictions, evaluations, cfg.denominator), out_rows)


def evaluate_solution(
    pred: Any,
    truth: Any,
    *,
    solution_type: str = "exact_symbolic",
    domain: tuple[float, float] = (0.0, 1.0),
    has_solution: bool | None = True,
    predicted_type: str | None = None,
    evaluation_points: Mapping[str, Any] | None = None,
    symbols: Symbols = None,
    config: EvalConfig | None = None,
    pool: WorkerPool | None = None,
) -> dict[str, Any]:
    r"""Evaluates one solution *pred* against the ground truth *truth* (each LaTeX, infix or RPN
    text, or a SymPy expression) for a ground-truth *solution_type*; returns the
    ``evaluation`` dict. *symbols* extends the symbol table (see :func:`parse_llm_output`)
    unless *config* is given.

    >>> evaluate_solution("e^{-x}", "\\exp(-x)")["correct"]
    True
    >>> evaluate_solution("lam*x + mu*sin(x)", "\\lambda x + \\mu \\sin(x)", symbols={"lam": "lambda"})["correct"]
    True
    >>> r = evaluate_solution("x + 0.001", "x", solution_type="approx_coef")
    >>> r["correct"], r["numeric"]["max_error"] < 0.0011
    (False, True)
    """
    row = {
        "ground_truth": truth,
        "ground_truth_solution_type": solution_type,
        "ground_truth_domain": list(domain),
        "evaluation_points": evaluation_points,
        "solution_str": pred,
        "has_solution": has_solution,
        "solution_type": predicted_type if predicted_type is not None else solution_type,
    }
    cfg = config if config is not None else EvalConfig(symbols=EvalConfig.table(symbols))
    return evaluate_rows([row], config=cfg, pool=pool)[0]
