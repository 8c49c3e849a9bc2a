"""The comparisons behind the fredholm evaluation: reading a solution or ground truth as a
side (:class:`_Side`), numeric sampling through the C++ core and the error measures, the SymPy
comparison the worker pool runs, the family check (free constants), the term-wise checks of
``series`` and ``approx_coef`` answers, the point-wise check of ``discrete_points`` answers,
the verdicts decided by type alone (``none``, ``regularized``) and the interpretations by which
sampling proves two expressions differ. :mod:`rapidgrade.tasks.fredholm._evaluate` drives them
row by row.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade._core import Expr
from rapidgrade.tasks.fredholm._symbols import is_sympy, sympy_text

__all__ = ["evaluate_discrete_points"]

_INF = float("inf")
_STANDARD_VARS = frozenset({"x", "t"})
#: The constant values the family check substitutes (the reference's constant_samples).
_CONSTANT_SAMPLES = (-1.0, 1.0, 2.0)


def _as_float(v: Any) -> float:
    if isinstance(v, str):
        return float(v)  # "inf", "nan" as the corpus stores them
    return float(v)


# -- parsing -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Side:
    expr: Expr
    text: str
    syntax: str
    symbols: frozenset[str]


#: In SymPy's printed text "e" is a symbol (SymPy prints Euler's number as "E").
_SYMPY_E = {"e": ("symbol", "e")}


def _read(value: Any, symbols: Mapping[str, tuple[str, str]], printed: bool = False) -> _Side | None:
    """A solution or ground truth as a side: text (LaTeX, infix, RPN) or a SymPy object (its
    printed text, read as infix); *printed*: the text is SymPy's printing (``solution_sympy``)."""
    if is_sympy(value):
        value, printed = sympy_text(value), True
    if not value or not isinstance(value, str):
        return None
    if printed:
        r = _core.fredholm_read_solution(value, syntax="infix", symbols={**_SYMPY_E, **symbols})
    else:
        r = _core.fredholm_read_solution(value, symbols=symbols)
    if r is None:
        return None
    _, expr_text, syntax = r
    e = _core.parse_expr(expr_text, syntax=syntax)
    return _Side(e, expr_text, syntax, e.free_symbols)


def _present(value: Any) -> bool:
    """A ground truth or solution is given: non-empty text or a SymPy object."""
    return is_sympy(value) or bool(value)


# -- numeric ---------------------------------------------------------------------------------------


def _errors(y_pred: np.ndarray, y_true: np.ndarray) -> dict[str, float]:
    err = np.abs(y_pred - y_true)
    with np.errstate(invalid="ignore", over="ignore"):
        max_error = float(np.max(err)) if err.size else _INF
        mean_error = float(np.mean(err)) if err.size else _INF
        rmse = float(np.sqrt(np.mean(err**2))) if err.size else _INF
        norm = float(np.sqrt(np.sum(y_true**2)))
        rel_l2 = float(np.sqrt(np.sum(err**2))) / norm if norm > 0 else (0.0 if rmse == 0.0 else _INF)
    return {"max_error": max_error, "mean_error": mean_error, "mae": mean_error, "rmse": rmse, "rel_l2": rel_l2}


def _failed_numeric(error: str) -> dict[str, Any]:
    return {
        "match": False,
        "max_error": _INF,
        "mean_error": _INF,
        "mae": _INF,
        "rmse": _INF,
        "rel_l2": _INF,
        "error": error,
    }


def _sample(
    sides: Sequence[_Side], xs: Sequence[np.ndarray], constants: Mapping[str, float], threads: int | None
) -> list[np.ndarray]:
    if not sides:
        return []
    out: list[np.ndarray] = _core.fredholm_sample_many(
        [(s.text, s.syntax) for s in sides], list(xs), constants=dict(constants), threads=threads
    )
    return out


def _points(row: Mapping[str, Any], domain: tuple[float, float], n_points: int) -> tuple[np.ndarray, np.ndarray | None]:
    ep = row.get("evaluation_points")
    if isinstance(ep, Mapping) and ep.get("x_values"):
        xs = np.asarray([_as_float(v) for v in ep["x_values"]], dtype=float)
        u = ep.get("u_values")
        ys = np.asarray([_as_float(v) for v in u], dtype=float) if u else None
        return xs, ys
    return np.linspace(domain[0], domain[1], n_points), None


def _numeric_block(
    x: np.ndarray, y_pred: np.ndarray, y_true: np.ndarray, tol: float, source: str, include: bool
) -> dict[str, Any]:
    n = min(len(y_pred), len(y_true))
    y_pred, y_true, x = y_pred[:n], y_true[:n], x[:n]
    result: dict[str, Any] = {"match": False, **_errors(y_pred, y_true)}
    result["match"] = bool(result["max_error"] < tol)
    result["evaluation_points_used"] = len(x)
    result["points_source"] = source
    if include:
        result["x_values"] = x.tolist()
        result["y_pred"] = y_pred.tolist()
        result["y_true"] = y_true.tolist()
    return result


# -- SymPy (in the workers) -----------------------------------------------------------------------------


def _sympy_compare(gt_tree: tuple[Any, ...], pred_tree: tuple[Any, ...]) -> tuple[bool, bool, str | None]:
    """(equivalent, simplified_match, difference) by the reference's SymPy steps. Runs in a
    worker process (unbounded time: the pool's deadline bounds it)."""
    import sympy

    from rapidgrade._sympy import tree_to_sympy

    gt = tree_to_sympy(gt_tree)
    sol = tree_to_sympy(pred_tree)
    diff = sympy.simplify(sol - gt)
    if diff == 0:
        return True, True, None
    equivalent = simplified = False
    if diff.equals(sympy.Integer(0)):
        equivalent = simplified = True
    if not equivalent and sympy.expand(sol - gt) == 0:
        equivalent = True
    if not equivalent and sympy.trigsimp(sol - gt) == 0:
        equivalent = True
    text = str(diff)
    return equivalent, simplified, text if len(text) <= 2000 else text[:2000] + "..."


# -- family -----------------------------------------------------------------------------------------


def _constants(side: _Side) -> list[str]:
    return sorted(side.symbols - _STANDARD_VARS)


def _x_free(values: np.ndarray) -> bool:
    v = values[np.isfinite(values)]
    if v.size < 4:
        return False
    scale = max(1.0, float(np.max(np.abs(v))))
    return bool(float(np.max(v) - np.min(v)) <= 1e-9 * scale)


def _family_match(pred: _Side, gt: _Side, domain: tuple[float, float], threads: int | None) -> bool:
    consts = _constants(gt)
    if not consts:
        return False
    xs = np.linspace(domain[0], domain[1], 16) * 0.97 + 0.015 * (domain[1] + domain[0])
    structural = _sample([gt], [xs], dict.fromkeys(consts, 1.0), threads)[0]
    if np.all(structural == 0):
        return False
    others = sorted(pred.symbols - {"x"})
    for values in ((1.0,), (0.7, 1.3)):
        env = {name: values[i % len(values)] for i, name in enumerate(others)}
        y = _sample([pred], [xs], env, threads)[0]
        if not np.any(np.isfinite(y)):
            return False
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = y / structural
        if not (_x_free(ratio) or _x_free(y - structural)):
            return False
    return True


def _param_eval(pred: _Side, gt: _Side) -> dict[str, Any]:
    pp, gp = _constants(pred), _constants(gt)
    return {
        "param_count_pred": len(pp),
        "param_count_gt": len(gp),
        "param_count_match": len(pp) == len(gp),
        "param_names_pred": pp,
        "param_names_gt": gp,
        "param_naming_valid": bool(pp) and all(n == "C" or n.startswith("c_") for n in pp),
    }


# -- terms (series, approx_coef, family_term_eval) ---------------------------------------------------


def _top_terms(tree: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return list(tree[1:]) if tree[0] == "add" else [tree]


def _term_text(tree: tuple[Any, ...]) -> str:
    from rapidgrade.tasks.fredholm._terms import tree_to_infix

    return tree_to_infix(tree)


def _series_terms(
    pred: _Side,
    gt: _Side,
    domain: tuple[float, float],
    n_points: int,
    tol: float,
    constants: Mapping[str, float],
    threads: int | None,
) -> dict[str, Any]:
    from rapidgrade.tasks.fredholm._terms import tree_to_infix

    result: dict[str, Any] = {
        "match": False,
        "terms_compared": 0,
        "pred_terms": 0,
        "gt_terms": 0,
        "mean_rmse": _INF,
        "max_rmse": _INF,
        "term_match_rate": 0.0,
        "per_term_rmse": [],
    }
    pt, gtt = _top_terms(pred.expr.tree()), _top_terms(gt.expr.tree())
    result["pred_terms"], result["gt_terms"] = len(pt), len(gtt)
    n = min(len(pt), len(gtt))
    if n == 0:
        result["error"] = "No terms available for comparison"
        return result
    sides = []
    for a, b in zip(pt[:n], gtt[:n]):
        for t in (a, b):
            try:
                text = tree_to_infix(t)
            except ValueError:  # a structure (tuple, set, relation) as a term: no function to sample
                result["error"] = "A term is not a function of x"
                return result
            e = _core.parse_expr(text, syntax="infix")
            extra = e.free_symbols - {"x"} - set(constants)
            if extra:
                result["error"] = f"Series terms contain non-numeric symbols: {set(sorted(extra))}"
                return result
            sides.append(_Side(e, text, "infix", e.free_symbols))
    xs = np.linspace(domain[0], domain[1], n_points)
    ys = _sample(sides, [xs] * len(sides), constants, threads)
    rmses = []
    for k in range(n):
        with np.errstate(invalid="ignore", over="ignore"):
            rmses.append(float(np.sqrt(np.mean((ys[2 * k] - ys[2 * k + 1]) ** 2))))
    matches = sum(1 for r in rmses if r < tol)
    result.update(
        terms_compared=n,
        per_term_rmse=rmses,
        mean_rmse=float(np.mean(rmses)),
        max_rmse=float(np.max(rmses)),
        term_match_rate=matches / n,
        match=matches == n,
    )
    return result


def _approx_coef_eval(pred: _Side, gt: _Side, tol: float, rel_tol: float = 0.1) -> dict[str, Any]:
    from rapidgrade.tasks.fredholm._terms import term_coefficients

    result: dict[str, Any] = {
        "match": False,
        "terms_compared": 0,
        "match_rate": 0.0,
        "mean_abs_error": _INF,
        "max_abs_error": _INF,
        "mean_rel_error": _INF,
        "max_rel_error": _INF,
        "per_term_errors": [],
    }
    try:
        pc, gc = term_coefficients(pred.expr.tree()), term_coefficients(gt.expr.tree())
    except ValueError:  # a structure (tuple, set, relation) as a term: no coefficient to read
        result["error"] = "A term is not a function of x"
        return result
    if not gc:
        result["error"] = "No ground truth coefficients available"
        return result
    abs_errors: list[float] = []
    rel_errors: list[float] = []
    per_term = []
    matches = 0
    for base, gv in gc.items():
        pv = pc.get(base, 0.0)
        ae = abs(pv - gv)
        re_ = ae / abs(gv) if abs(gv) > tol else _INF
        ok = ae <= tol or re_ <= rel_tol
        abs_errors.append(ae)
        if re_ != _INF:
            rel_errors.append(re_)
        per_term.append(
            {"term": base, "pred_coeff": pv, "gt_coeff": gv, "abs_error": ae, "rel_error": re_, "match": ok}
        )
        matches += ok
    n = len(gc)
    result.update(
        terms_compared=n,
        match_rate=matches / n,
        mean_abs_error=float(np.mean(abs_errors)),
        max_abs_error=float(np.max(abs_errors)),
        mean_rel_error=float(np.mean(rel_errors)) if rel_errors else _INF,
        max_rel_error=float(np.max(rel_errors)) if rel_errors else _INF,
        per_term_errors=per_term,
        match=matches == n and n > 0,
    )
    return result


def evaluate_discrete_points(
    pred_points: Sequence[tuple[float, float]],
    gt_points: Sequence[tuple[float, float]],
    *,
    x_tolerance: float = 1e-3,
    y_tolerance: float = 1e-3,
) -> dict[str, Any]:
    """Point-wise comparison: each predicted point is matched to the ground-truth point of
    nearest x (within *x_tolerance*), its y compared (within *y_tolerance*); a match needs 80 %
    of the predicted points.

    >>> evaluate_discrete_points([(0.0, 1.0), (0.5, 2.0)], [(0.0, 1.0), (0.5, 2.0001)])["accuracy"]
    1.0
    """
    if not pred_points or not gt_points:
        return {
            "match": False,
            "matched_points": 0,
            "total_points_pred": len(pred_points),
            "total_points_gt": len(gt_points),
            "accuracy": 0.0,
            "max_error": _INF,
            "mean_error": _INF,
            "mae": _INF,
            "rmse": _INF,
        }
    gx = np.asarray([p[0] for p in gt_points], dtype=float)
    gy = np.asarray([p[1] for p in gt_points], dtype=float)
    matched = 0
    errors: list[float] = []
    for xp, yp in pred_points:
        k = int(np.argmin(np.abs(gx - xp)))
        if abs(xp - gx[k]) < x_tolerance:
            d = float(abs(yp - gy[k]))
            errors.append(d)
            matched += int(d < y_tolerance)
    return {
        "match": bool(matched > 0 and matched >= len(pred_points) * 0.8),
        "matched_points": matched,
        "total_points_pred": len(pred_points),
        "total_points_gt": len(gt_points),
        "accuracy": matched / len(pred_points),
        "max_error": float(np.max(errors)) if errors else _INF,
        "mean_error": float(np.mean(errors)) if errors else _INF,
        "mae": float(np.mean(errors)) if errors else _INF,
        "rmse": float(np.sqrt(np.mean(np.asarray(errors) ** 2))) if errors else _INF,
    }


def _by_type(correct: bool, solution_type: str) -> dict[str, Any]:
    return {
        "symbolic": {"equivalent": correct, "difference": None, "simplified_match": correct},
        "numeric": {
            "match": correct,
            "max_error": 0.0 if correct else _INF,
            "mean_error": 0.0 if correct else _INF,
            "rmse": 0.0 if correct else _INF,
        },
        "symbolic_match": correct,
        "numeric_match": correct,
        "correct": correct,
        "solution_type": solution_type,
    }


def _domain_of(row: Mapping[str, Any], default: tuple[float, float]) -> tuple[float, float]:
    d = row.get("ground_truth_domain")
    if not d:
        return default
    try:
        a, b = (_as_float(d[0]), _as_float(d[1]))
    except (TypeError, ValueError, IndexError):
        return default
    return (a, b)


def _read_points(text: str) -> list[tuple[float, float]] | None:
    r = _core.fredholm_parse("SOLUTION: " + text + "\nSOLUTION_TYPE: discrete_points")
    pts = r[9]
    return [(float(x), float(y)) for x, y in pts] if r[3] == "discrete_points" else None


# -- interpretations (sampling that proves a difference) ----------------------------------------------


@cache
def _evaluable_functions() -> frozenset[str]:
    return frozenset(row[0] for row in _core.expr_function_table() if row[7])


def _interpret(tree: tuple[Any, ...], values: Mapping[str, float], variant: int) -> tuple[Any, ...]:
    """The tree under one interpretation: every symbol but x takes its value from *values*, and
    every function the core cannot evaluate (``f(x)``, ``A(x)``) becomes a concrete one (variant
    0: ``sin(1.3 a + 0.2)``, 1: ``a**2 + 0.5``). Equal expressions stay equal under every
    interpretation, so a difference here proves they differ."""
    kind = tree[0]
    if kind == "sym":
        if tree[1] == "x":
            return tree
        v = values[tree[1]]
        return ("neg", ("num", repr(-v))) if v < 0 else ("num", repr(v))
    if kind in ("num", "const", "text"):
        return tree
    if kind == "func":
        args = tuple(_interpret(k, values, variant) for k in tree[2:])
        if tree[1] in _evaluable_functions() or not args:
            return ("func", tree[1], *args)
        a = args[0]
        if variant == 0:
            return ("func", "sin", ("add", ("mul", ("num", "1.3"), a), ("num", "0.2")))
        return ("add", ("pow", a, ("num", "2")), ("num", "0.5"))
    head = tree[:2] if kind == "rel" else tree[:1]
    return head + tuple(_interpret(k, values, variant) if isinstance(k, tuple) else k for k in tree[len(head) :])


def _symbol_values(names: Sequence[str], variant: int) -> dict[str, float]:
    return {n: (0.7 + 0.13 * k) if variant == 0 else (1.9 - 0.17 * k) for k, n in enumerate(sorted(names))}


def _differs_anyhow(pairs: Sequence[tuple[_Side, _Side, np.ndarray]], threads: int | None) -> list[bool]:
    """For each (pred, gt, xs): whether the two differ at some point of xs under one of two
    interpretations of their other symbols and undefined functions (a proof that they are not
    equal); False when that cannot be shown (then they may be equal)."""
    from rapidgrade.tasks.fredholm._terms import tree_to_infix

    out = [False] * len(pairs)
    for variant in (0, 1):
        sides: list[_Side] = []
        xs_list: list[np.ndarray] = []
        index: list[int] = []
        for k, (pred, gt, xs) in enumerate(pairs):
            if out[k]:
                continue
            names = sorted((pred.symbols | gt.symbols) - {"x"})
            values = _symbol_values(names, variant)
            try:
                tp = tree_to_infix(_interpret(pred.expr.tree(), values, variant))
                tg = tree_to_infix(_interpret(gt.expr.tree(), values, variant))
            except ValueError:  # a structure (tuple, set, relation): no interpretation
                continue
            sides += [_Side(pred.expr, tp, "infix", frozenset()), _Side(gt.expr, tg, "infix", frozenset())]
            xs_list += [xs, xs]
            index.append(k)
        ys = _sample(sides, xs_list, {}, threads)
        for j, k in enumerate(index):
            out[k] = _differs(ys[2 * j], ys[2 * j + 1])
    return out


def _differs(y_pred: np.ndarray, y_true: np.ndarray) -> bool:
    """Sampling shows the two functions differ: finite values far apart at some point (then
    they are not symbolically equal, whatever SymPy would take to say so)."""
    n = min(len(y_pred), len(y_true))
    yp, yt = y_pred[:n], y_true[:n]
    ok = np.isfinite(yp) & np.isfinite(yt)
    if not np.any(ok):
        return False
    d = np.abs(yp[ok] - yt[ok])
    scale = np.maximum(1.0, np.maximum(np.abs(yp[ok]), np.abs(yt[ok])))
    return bool(np.any(d > 1e-6 * scale))


def _substituted_tree(side: _Side, value: float) -> tuple[Any, ...]:
    from rapidgrade.tasks.fredholm._terms import substitute

    return substitute(side.expr.tree(), dict.fromkeys(_constants(side), value))
