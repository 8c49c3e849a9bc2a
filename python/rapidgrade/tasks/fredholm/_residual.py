r"""The residual check of integral equations: is ``u`` a solution, without a ground truth?

For a Fredholm equation of the second kind, ``u(x) - λ ∫_a^b K(x,t) u(t) dt = f(x)``, a candidate
``u`` is judged by the residual ``r(x) = u(x) - λ ∫_a^b K(x,t) u(t) dt - f(x)`` at sample points
of ``[a, b]`` (for the first kind, ``λ ∫_a^b K(x,t) u(t) dt = f(x)``, by
``r(x) = λ ∫ K u dt - f(x)``), as fred-llm's ``verify_solution`` (``src/evaluation/types/verify.py``)
does with SymPy and SciPy. Here everything runs in the C++ core: the texts are parsed and
compiled once, the integral is composite Gauss-Legendre quadrature refined adaptively, and every
check is bounded by caps on the candidate's size, the sample points, the quadrature nodes and the
total work, so none needs a deadline.

* :func:`verify_residual`: one candidate, fred-llm's ``verify_solution`` arguments; a
  :class:`ResidualVerdict` (``verified``, the residual norms, the points, a reason) that also
  reads as fred-llm's result dict (``verdict["residual_max"]``).
* :func:`verify_residual_many`, :func:`residual_rewards`, :func:`select_by_residual`: many
  candidates (one equation or one each) in one batch with the GIL released: verdicts, rewards
  for candidate selection without a ground truth, fred-llm's agentic selection rule.
* :func:`residual_column`, :func:`residual_verification`: the evaluation column over
  predictions rows and fred-llm's ``metrics["residual_verification"]`` aggregate.

>>> v = verify_residual("6*x/5", "x*t", "x", 0.5, domain=(0, 1))
>>> v.verified, v.status, v.residual_max < 1e-12
(True, 'verified', True)
>>> verify_residual("x", "x*t", "x", 0.5, domain=(0, 1)).status
'failed'
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from rapidgrade import _core
from rapidgrade.config import check_threads

__all__ = [
    "IntegralEquation",
    "ResidualConfig",
    "ResidualVerdict",
    "residual_column",
    "residual_rewards",
    "residual_verification",
    "select_by_residual",
    "verify_residual",
    "verify_residual_many",
]

EquationKind = Literal["second", "first"]
_SYNTAXES = ("auto", "latex", "infix", "rpn")


def _text(value: Any, name: str) -> str:
    """A str as is; another object (a SymPy expression, a number) by its ``str()``, read as infix."""
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        raise TypeError(f"verify_residual: {name} must be a str or a SymPy expression, not bytes")
    if value is None:
        raise TypeError(f"verify_residual: {name} is required")
    return str(value)


def _float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        try:
            return float(value)  # a SymPy number
        except (TypeError, ValueError):
            raise TypeError(f"verify_residual: {name} must be a number, got {type(value).__name__}") from None
    return float(value)


@dataclass(frozen=True, slots=True)
class IntegralEquation:
    r"""A Fredholm integral equation: the kernel ``K(x, t)``, the right-hand side ``f(x)``, λ, the
    domain ``[a, b]`` and the kind (``"second"``: ``u - λ ∫K u = f``; ``"first"``:
    ``λ ∫K u = f``). ``kernel`` and ``f`` are LaTeX, infix or RPN texts (read in ``syntax``) or
    SymPy expressions (read by their ``str()``). ``x_values``: the sample points (``None``:
    ``n_points`` midpoints of equal cells of the domain).

    >>> IntegralEquation("x t", "x", 0.5, (0, 1)).domain
    (0.0, 1.0)
    """

    kernel: str
    f: str
    lambda_val: float
    domain: tuple[float, float] = (0.0, 1.0)
    kind: EquationKind = "second"
    x_values: tuple[float, ...] | None = None
    syntax: str = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "kernel", _text(self.kernel, "kernel"))
        object.__setattr__(self, "f", _text(self.f, "f"))
        object.__setattr__(self, "lambda_val", _float(self.lambda_val, "lambda_val"))
        try:
            a, b = self.domain
        except (TypeError, ValueError):
            raise ValueError(f"IntegralEquation: domain must be a pair (a, b), got {self.domain!r}") from None
        object.__setattr__(self, "domain", (_float(a, "domain"), _float(b, "domain")))
        if self.kind not in ("second", "first"):
            raise ValueError(f"IntegralEquation: kind must be 'second' or 'first', got {self.kind!r}")
        if self.syntax not in _SYNTAXES:
            raise ValueError(f"IntegralEquation: syntax must be one of {_SYNTAXES}, got {self.syntax!r}")
        if self.x_values is not None:
            xs = tuple(float(v) for v in self.x_values)
            if not xs:
                raise ValueError("IntegralEquation: x_values must not be empty (None: sample the domain)")
            object.__setattr__(self, "x_values", xs)

    @classmethod
    def from_prompt(cls, prompt: str) -> IntegralEquation | None:
        r"""The equation of a fred-llm prompt (its ``format_equation_line``:
        ``u(x) - λ * ∫_a^b K * u(t) dt = f``, or ``∫_a^b K * u(t) dt = f`` for the first kind),
        or ``None`` when the prompt has no such line. The line is read literally: a prompt
        rendered before fred-llm's first-kind form (``u(x) - 0.0 * ∫…``) is a second-kind
        equation with λ = 0.

        >>> eq = IntegralEquation.from_prompt("Solve:\nu(x) - 0.5 * ∫_0^1 x t * u(t) dt = x\nDomain: [0, 1]")
        >>> eq.kernel, eq.f, eq.lambda_val, eq.domain, eq.kind
        ('x t', 'x', 0.5, (0.0, 1.0), 'second')
        """
        for line in prompt.splitlines():
            m = _PROMPT_LINE.match(line.strip())
            if m is None:
                continue
            try:
                a, b = float(m["a"]), float(m["b"])
                lam = 1.0 if m["lam"] is None else float(m["lam"])
            except ValueError:
                continue
            kind: EquationKind = "second" if m["lam"] is not None else "first"
            return cls(m["kernel"].strip(), m["f"].strip(), lam, (a, b), kind)
        return None


# fred-llm's format_equation_line, e.g. "u(x) - -0.07 * ∫_-3.7^2.4 t + x + 1 * u(t) dt = \sin{x}"
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PROMPT_LINE = re.compile(
    rf"(?:u\(x\)\s*-\s*(?P<lam>{_NUMBER})\s*\*\s*)?∫_(?P<a>{_NUMBER})\^(?P<b>{_NUMBER})\s+"
    r"(?P<kernel>.+?)\s*\*\s*u\(t\)\s*dt\s*=\s*(?P<f>.+)$"
)


@dataclass(frozen=True, slots=True)
class ResidualConfig:
    """Options of the residual check.

    * ``tolerance``: a candidate is verified when ``max |r(x_i)| < tolerance`` (absolute, as
      fred-llm's ``verify_solution``; default 1e-6) and the quadrature's error bound does not
      cross it.
    * ``n_points``: sample points when the equation gives none (midpoints of equal cells).
    * ``syntax``: of the candidates; ``constants``: values of named symbols (in the candidate,
      the kernel or f); ``free_constants``: a value for every other symbol of a candidate (1.0
      is fred-llm's agentic rule for family answers; ``None``: such a candidate is
      unverifiable).
    * The caps: ``max_ops`` (the candidate's operations, SymPy's ``count_ops`` scale: fred-llm's
      800), ``max_points``, ``max_nodes`` (quadrature nodes over the domain) and ``max_work``
      (points × nodes × kernel instructions).
    * ``threads``: for the batch forms (``None``: all cores).
    """

    tolerance: float = 1e-6
    n_points: int = 50
    syntax: str = "auto"
    constants: tuple[tuple[str, float], ...] = ()
    free_constants: float | None = None
    max_ops: int = 800
    max_points: int = 1024
    max_nodes: int = 4096
    max_work: int = 1 << 25
    threads: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, (int, float)) or not self.tolerance > 0:
            raise ValueError(f"ResidualConfig: tolerance must be > 0, got {self.tolerance!r}")
        for name in ("n_points", "max_ops", "max_points", "max_nodes", "max_work"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"ResidualConfig: {name} must be an int >= 1, got {v!r}")
        if self.syntax not in _SYNTAXES:
            raise ValueError(f"ResidualConfig: syntax must be one of {_SYNTAXES}, got {self.syntax!r}")
        consts = self.constants.items() if isinstance(self.constants, Mapping) else self.constants
        object.__setattr__(self, "constants", tuple(sorted((str(k), float(v)) for k, v in consts)))
        if self.free_constants is not None:
            object.__setattr__(self, "free_constants", _float(self.free_constants, "free_constants"))
        check_threads("ResidualConfig", self.threads)


_DEFAULT = ResidualConfig()

#: The reasons of an unverifiable candidate that leave nothing measured (fred-llm's ``error``).
_NOT_MEASURED = "residual not measured"


@dataclass(frozen=True, slots=True, eq=False)
class ResidualVerdict:
    """The verdict of the residual check of one candidate.

    * ``verified``: ``status == "verified"``.
    * ``status``: ``"verified"`` (max |r| < tolerance), ``"failed"`` (max |r| ≥ tolerance, or
      r not finite at some point), ``"unverifiable"`` (nothing to check, or the quadrature could
      not resolve the residual on one side of the tolerance) — fred-llm's agentic statuses.
    * ``reason``: ``""`` when verified; else a code: ``residual_above_tolerance``,
      ``non_finite``, ``quadrature_unresolved``, ``no_solution``, ``parse_failed``,
      ``not_numeric``, ``candidate_too_large`` (fred-llm's code), ``free_symbol: C``, or what
      is wrong with the equation (``kernel_parse_failed``, ``f_free_symbol: y``, ``bad_domain``…).
    * ``residual_max``, ``residual_mean``, ``residual_rmse``: of ``|r(x_i)|`` (``inf`` when not
      measured, ``nan`` when not finite); ``quadrature_error``: a bound on what the quadrature
      adds to them; ``nodes``: quadrature nodes used.
    * ``x_values``, ``residuals``: the points and ``r`` there (empty when not measured).

    Reads as fred-llm's result dict (``verdict["residual_max"]``, ``dict(verdict)``).
    """

    verified: bool
    status: str
    reason: str
    residual_max: float
    residual_mean: float
    residual_rmse: float
    quadrature_error: float
    nodes: int
    x_values: np.ndarray = field(repr=False)
    residuals: np.ndarray = field(repr=False)

    @property
    def measured(self) -> bool:
        """The residual was computed (the candidate and the equation could be evaluated)."""
        return self.residuals.size > 0

    def to_dict(self) -> dict[str, Any]:
        """fred-llm's ``verify_solution`` result: ``verified``, ``residual_max``,
        ``residual_mean``, ``residual_mae``, ``residual_rmse``, and ``error`` (the reason) when
        the residual was not measured."""
        out: dict[str, Any] = {
            "verified": self.verified,
            "residual_max": self.residual_max,
            "residual_mean": self.residual_mean,
            "residual_mae": self.residual_mean,
            "residual_rmse": self.residual_rmse,
        }
        if not self.measured:
            out["error"] = self.reason
        return out

    def keys(self) -> list[str]:
        return list(self.to_dict())

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def __contains__(self, key: object) -> bool:
        return key in self.to_dict()


def _equation_tuple(eq: IntegralEquation) -> tuple[str, str, float, float, float, str, Any]:
    xs = None if eq.x_values is None else np.asarray(eq.x_values, dtype=np.float64)
    return (eq.kernel, eq.f, eq.lambda_val, eq.domain[0], eq.domain[1], eq.kind, xs)


def _run(
    candidates: Sequence[str], equations: Sequence[IntegralEquation], index: Sequence[int], config: ResidualConfig
) -> list[ResidualVerdict]:
    syntaxes = {eq.syntax for eq in equations}
    out: list[ResidualVerdict] = []
    # The core reads all equations of one call in one syntax: group them by syntax (usually one).
    by_syntax: dict[str, list[int]] = {}
    for i, k in enumerate(index):
        by_syntax.setdefault(equations[k].syntax, []).append(i)
    results: list[ResidualVerdict | None] = [None] * len(candidates)
    for syntax in sorted(syntaxes):
        items = by_syntax.get(syntax, [])
        if not items:
            continue
        raw = _core.fredholm_residual_many(
            [candidates[i] for i in items],
            [_equation_tuple(eq) for eq in equations],
            [index[i] for i in items],
            syntax=config.syntax,
            equation_syntax=syntax,
            tolerance=float(config.tolerance),
            n_points=config.n_points,
            constants=dict(config.constants),
            free_constants=config.free_constants,
            max_ops=config.max_ops,
            max_points=config.max_points,
            max_nodes=config.max_nodes,
            max_work=config.max_work,
            threads=config.threads,
        )
        for i, (status, reason, mx, mean, rmse, qerr, nodes, xs, res) in zip(items, raw):
            results[i] = ResidualVerdict(status == "verified", status, reason, mx, mean, rmse, qerr, nodes, xs, res)
    for r in results:
        assert r is not None
        out.append(r)
    return out


def _candidates(candidates: Sequence[Any]) -> list[str]:
    if isinstance(candidates, (str, bytes)):
        raise TypeError("verify_residual_many: candidates must be a sequence of solutions, not one str")
    return [_text(c, f"candidates[{i}]") for i, c in enumerate(candidates)]


def _equations(
    equation: IntegralEquation | Sequence[IntegralEquation], n: int
) -> tuple[list[IntegralEquation], list[int]]:
    if isinstance(equation, IntegralEquation):
        return [equation], [0] * n
    eqs = list(equation)
    if len(eqs) != n:
        raise ValueError(f"verify_residual_many: {len(eqs)} equations for {n} candidates (give one, or one each)")
    for i, eq in enumerate(eqs):
        if not isinstance(eq, IntegralEquation):
            raise TypeError(f"verify_residual_many: equations[{i}] must be an IntegralEquation")
    return eqs, list(range(n))


def verify_residual(
    solution: Any,
    kernel: Any = None,
    f: Any = None,
    lambda_val: Any = None,
    domain: tuple[float, float] = (0.0, 1.0),
    x_values: Sequence[float] | None = None,
    tolerance: float | None = None,
    symbolic: bool = True,
    n_points: int | None = None,
    *,
    kind: EquationKind = "second",
    equation: IntegralEquation | None = None,
    config: ResidualConfig = _DEFAULT,
) -> ResidualVerdict:
    r"""Checks that ``solution`` satisfies the integral equation, by its residual at sample points.

    The arguments are fred-llm's ``verify_solution(solution, kernel, f, lambda_val, domain,
    x_values, tolerance, symbolic, n_points)``; texts (LaTeX, infix, RPN; a leading
    ``u(x) =`` and math delimiters are removed) or SymPy expressions. ``symbolic`` is accepted
    and ignored: the check is always numeric and bounded (fred-llm's symbolic integration has
    no time limit). Or give ``equation=`` (an :class:`IntegralEquation`) instead of
    ``kernel, f, lambda_val, domain, kind``. ``tolerance``, ``n_points`` (when given) override
    ``config``'s.

    >>> verify_residual("u(x) = \\frac{3x}{2}", "x t", "x", 1.0).to_dict()["verified"]
    True
    >>> verify_residual("No solution", "x t", "x", 1.0).reason
    'no_solution'
    """
    del symbolic
    if equation is None:
        if lambda_val is None:
            raise TypeError("verify_residual: give kernel, f and lambda_val, or equation=")
        equation = IntegralEquation(kernel, f, lambda_val, domain, kind)
    elif kernel is not None or f is not None or lambda_val is not None:
        raise TypeError("verify_residual: give either kernel, f, lambda_val or equation=, not both")
    if x_values is not None and len(x_values) > 0:
        equation = replace(equation, x_values=tuple(float(v) for v in x_values))
    if tolerance is not None or n_points is not None:
        config = replace(
            config,
            tolerance=config.tolerance if tolerance is None else tolerance,
            n_points=config.n_points if n_points is None else n_points,
        )
    return _run([_text(solution, "solution")], [equation], [0], replace(config, threads=1))[0]


def verify_residual_many(
    candidates: Sequence[Any],
    equation: IntegralEquation | Sequence[IntegralEquation],
    *,
    config: ResidualConfig = _DEFAULT,
) -> list[ResidualVerdict]:
    """:func:`verify_residual` of many candidates: of one equation (candidate selection) or one
    equation each (an evaluation column). One batch in the core, with the GIL released and
    Ctrl-C honoured between blocks; each equation is parsed and compiled once.

    >>> eq = IntegralEquation("x*t", "x", 0.5, (0, 1))
    >>> [v.status for v in verify_residual_many(["x", "6*x/5", "No solution"], eq)]
    ['failed', 'verified', 'unverifiable']
    """
    texts = _candidates(candidates)
    eqs, index = _equations(equation, len(texts))
    if not texts:
        return []
    return _run(texts, eqs, index, config)


def residual_rewards(
    candidates: Sequence[Any],
    equation: IntegralEquation | Sequence[IntegralEquation],
    *,
    shaped: bool = False,
    config: ResidualConfig = _DEFAULT,
) -> list[float]:
    """Rewards from the residual alone (no ground truth), one per candidate: 1.0 when verified,
    else 0.0; with ``shaped=True`` a failed candidate gets ``tolerance / residual_max`` (in
    (0, 1): the nearer to a solution, the higher), an unverifiable or non-finite one 0.0.

    >>> residual_rewards(["x", "6*x/5"], IntegralEquation("x*t", "x", 0.5, (0, 1)))
    [0.0, 1.0]
    """
    out: list[float] = []
    for v in verify_residual_many(candidates, equation, config=config):
        if v.verified:
            out.append(1.0)
        elif shaped and v.status == "failed" and math.isfinite(v.residual_max) and v.residual_max > 0:
            out.append(min(1.0, config.tolerance / v.residual_max))
        else:
            out.append(0.0)
    return out


def select_by_residual(
    candidates: Sequence[Any], equation: IntegralEquation, *, config: ResidualConfig = _DEFAULT
) -> tuple[int | None, list[ResidualVerdict]]:
    """fred-llm's agentic selection by verification: the index of the verified candidate with
    the smallest ``residual_max`` (the first of equals), or ``None`` when none is verified
    (fred-llm then falls back to a majority vote); and every candidate's verdict.

    >>> select_by_residual(["x", "1.2*x", "6*x/5"], IntegralEquation("x*t", "x", 0.5, (0, 1)))[0]
    1
    """
    verdicts = verify_residual_many(candidates, equation, config=config)
    best: int | None = None
    for i, v in enumerate(verdicts):
        if v.verified and (best is None or v.residual_max < verdicts[best].residual_max):
            best = i
    return best, verdicts


# -- the evaluation column ---------------------------------------------------------------------


def _row_equation(row: Mapping[str, Any], use_prompt: bool) -> IntegralEquation | None:
    """The equation of a predictions row: fred-llm's ``ground_truth_kernel``, ``ground_truth_f``,
    ``ground_truth_lambda`` (with ``ground_truth_domain``, default [0, 1] as fred-llm's, and
    ``evaluation_points.x_values``), else the row's ``prompt``."""
    domain = row.get("ground_truth_domain") or (0.0, 1.0)
    points = row.get("evaluation_points")
    xs = points.get("x_values") if isinstance(points, Mapping) else None
    kernel, f, lam = row.get("ground_truth_kernel"), row.get("ground_truth_f"), row.get("ground_truth_lambda")
    try:
        if kernel and f and lam is not None:
            eq = IntegralEquation(kernel, f, lam, tuple(domain))
        elif use_prompt and isinstance(row.get("prompt"), str):
            found = IntegralEquation.from_prompt(row["prompt"])
            if found is None:
                return None
            eq = found
        else:
            return None
        if xs:
            eq = replace(eq, x_values=tuple(float(v) for v in xs))
    except (TypeError, ValueError):
        return None
    return eq


def _row_candidate(row: Mapping[str, Any]) -> str | None:
    s = row.get("solution_str")
    if isinstance(s, str) and s.strip():
        return s
    return None


def residual_column(
    rows: Sequence[Mapping[str, Any]], *, use_prompt: bool = True, config: ResidualConfig = _DEFAULT
) -> list[dict[str, Any] | None]:
    """The residual check of every predictions row, as an evaluation column: fred-llm's
    ``verify_solution`` dict plus ``status``, ``reason``, ``quadrature_error`` for each row that
    has a ``solution_str`` and an equation (:meth:`IntegralEquation.from_prompt` of its
    ``prompt`` when it lacks fred-llm's ``ground_truth_kernel``/``_f``/``_lambda`` fields and
    ``use_prompt``), else ``None``. One batch; rows in order.

    >>> rows = [{"solution_str": "6x/5", "ground_truth_kernel": "x t", "ground_truth_f": "x",
    ...          "ground_truth_lambda": 0.5, "ground_truth_domain": [0, 1]}, {"solution_str": "x"}]
    >>> [r and r["verified"] for r in residual_column(rows)]
    [True, None]
    """
    eqs: list[IntegralEquation] = []
    texts: list[str] = []
    where: list[int] = []
    for i, row in enumerate(rows):
        cand = _row_candidate(row)
        eq = _row_equation(row, use_prompt) if cand is not None else None
        if cand is None or eq is None:
            continue
        eqs.append(eq)
        texts.append(cand)
        where.append(i)
    out: list[dict[str, Any] | None] = [None] * len(rows)
    if texts:
        for i, v in zip(where, _run(texts, eqs, list(range(len(eqs))), config)):
            d = v.to_dict()
            d.update(status=v.status, reason=v.reason, quadrature_error=v.quadrature_error)
            out[i] = d
    return out


def residual_verification(column: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """fred-llm's ``metrics["residual_verification"]`` over a :func:`residual_column`: over the
    rows whose residual was measured (no ``error``), ``verified_count``, ``total``,
    ``verified_rate`` and the means of ``residual_max``, ``residual_mean``, ``residual_mae``,
    ``residual_rmse``; ``None`` when there is none (fred-llm then leaves the key out).

    >>> residual_verification([{"verified": True, "residual_max": 0.0, "residual_mean": 0.0,
    ...     "residual_mae": 0.0, "residual_rmse": 0.0}, None])["verified_rate"]
    1.0
    """
    valid = [r for r in column if r is not None and "error" not in r]
    if not valid:
        return None
    verified = sum(1 for r in valid if r.get("verified", False))
    return {
        "verified_count": verified,
        "total": len(valid),
        "verified_rate": verified / len(valid),
        **{
            f"mean_{k}": float(np.mean([r[k] for r in valid]))
            for k in ("residual_max", "residual_mean", "residual_mae", "residual_rmse")
        },
    }
