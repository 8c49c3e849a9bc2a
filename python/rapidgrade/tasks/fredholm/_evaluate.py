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
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade._core import Expr
from rapidgrade._pool import WorkerPool, default_pool
from rapidgrade.tasks._isolate import describe_exception, isolate
from rapidgrade.tasks.fredholm._symbols import Symbols, is_sympy, symbol_table, sympy_text

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

_INF = float("inf")
_STANDARD_VARS = frozenset({"x", "t"})
#: The constant values the family check substitutes (the reference's constant_samples).
_CONSTANT_SAMPLES = (-1.0, 1.0, 2.0)
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
