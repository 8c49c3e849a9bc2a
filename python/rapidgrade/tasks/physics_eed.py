r"""Partial credit for physics expressions: the EED score of PHYBench, computed in C++.

PHYBench's expression edit distance (EED) score compares a model's expression with the gold's:
both are canonicalized (PHYBench: SymPy's ``posify`` + ``simplify``), turned into trees of four
node kinds (number, symbol, operator, function), and a Zhang-Shasha tree edit distance with
per-kind costs and a discount for inserting or deleting whole subtrees is computed. The score is
100 for equal expressions, else ``max(0, 60 - 100 * distance / gold_tree_size)``.

Here the canonical form is built in the core, without SymPy: SymPy's automatic evaluation (like
terms and powers collected, numeric powers normalized, a number times a sum distributed), its
ordering of arguments, the powers of positive symbols split as ``posify`` leaves them, sums
brought over a common denominator and their common factors taken out as ``simplify`` leaves
them. Equality is decided on the canonical trees and, failing that, by the core's numeric
equivalence (sample points). A pair costs microseconds, never a 30 s simplify timeout.

>>> from rapidgrade.tasks.physics_eed import eed_score
>>> r = eed_score(r"\frac{m g}{2}\sin\theta_0", r"\frac{m g}{3}\sin\theta_0")
>>> round(r.score, 3), r.distance, r.tree_size
(43.333, 1.0, 6.0)
>>> eed_score(r"2\pi\sqrt{\frac{L}{g}}", r"\frac{2\pi\sqrt{L}}{\sqrt{g}}").score
100.0

Units: a unit written after either side (``\frac{mg}{2}\,\mathrm{N}``, ``9.8 m/s^2``) is taken
off before the expressions are compared, as the physics task reads quantities; when both sides
have one, pint decides: units of different dimensions score 0 (status ``unit_mismatch``), units
of the same dimension convert the answer into the gold's unit before the comparison
(``980\,\mathrm{cm/s^2}`` against ``9.8\,\mathrm{m/s^2}`` is equal). A unit only on one side is
ignored (the bare expression is read in the other side's unit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from rapidgrade import _core
from rapidgrade.units import unit_info

__all__ = ["EEDConfig", "EEDResult", "EEDStatus", "eed_score", "eed_score_many"]

EEDStatus = Literal["scored", "equal", "empty", "unsupported", "too_long", "parse_failed", "too_large", "unit_mismatch"]

_Costs = tuple[float, float, float, float]


@dataclass(frozen=True)
class EEDConfig:
    """Costs and score map of the EED score; the defaults are PHYBench's (EvaluationEEDSettings).

    Costs are per node kind, in the order (number, symbol, operator, function). ``max_cells``
    bounds the distance tables (answer nodes x gold nodes): a larger pair is not computed and
    scores 0 with status ``too_large`` (each tree is also capped at 2000 nodes).
    """

    initial_score: float = 60.0
    scoring_slope: float = 100.0
    insert_cost: _Costs = (1.0, 1.0, 1.0, 1.0)
    delete_cost: _Costs = (1.0, 1.0, 1.0, 1.0)
    update_cost: _Costs = (1.0, 1.0, 1.0, 1.0)
    change_type_cost: float = 1.0
    bar_size: float = 5.0
    discount_slope: float = 0.6
    max_cells: int = 1 << 20
    units: bool = field(default=True)

    def __post_init__(self) -> None:
        for name in ("insert_cost", "delete_cost", "update_cost"):
            costs = getattr(self, name)
            if len(costs) != 4 or any(not (c >= 0) for c in costs):
                raise ValueError(f"EEDConfig.{name} must be 4 costs >= 0 (number, symbol, operator, function)")
        if self.max_cells < 1:
            raise ValueError("EEDConfig.max_cells must be >= 1")
        if self.scoring_slope < 0 or self.discount_slope < 0:
            raise ValueError("EEDConfig: slopes must be >= 0")

    def score(self, gold: str, answer: str, scale: float = 1.0) -> tuple[float, float, float, float, str, str, str]:
        """The core's score of one pair with these settings (no unit resolution)."""
        return _core.eed_score(
            gold,
            answer,
            answer_scale=scale,
            initial_score=self.initial_score,
            scoring_slope=self.scoring_slope,
            insert_cost=self.insert_cost,
            delete_cost=self.delete_cost,
            update_cost=self.update_cost,
            change_type_cost=self.change_type_cost,
            bar_size=self.bar_size,
            discount_slope=self.discount_slope,
            max_cells=self.max_cells,
        )

    def score_many(
        self, golds: Sequence[str], answers: Sequence[str], scales: Sequence[float] | None, threads: int | None
    ) -> list[EEDResult]:
        """The core's scores of a batch with these settings (no unit resolution)."""
        score, rel, size, dist, status, gunit, aunit = _core.eed_score_many(
            golds,
            answers,
            scales=scales,
            threads=threads,
            initial_score=self.initial_score,
            scoring_slope=self.scoring_slope,
            insert_cost=self.insert_cost,
            delete_cost=self.delete_cost,
            update_cost=self.update_cost,
            change_type_cost=self.change_type_cost,
            bar_size=self.bar_size,
            discount_slope=self.discount_slope,
            max_cells=self.max_cells,
        )
        return [
            EEDResult(
                float(score[i]), float(rel[i]), float(size[i]), float(dist[i]), _status(status[i]), gunit[i], aunit[i]
            )
            for i in range(len(status))
        ]


@dataclass(frozen=True)
class EEDResult:
    """The EED score of one pair, with PHYBench's fields (``relative_distance``, ``tree_size``
    and ``distance`` are -1 where PHYBench reports -1: the distance was not computed)."""

    score: float
    relative_distance: float
    tree_size: float
    distance: float
    status: EEDStatus
    gold_unit: str = ""
    answer_unit: str = ""

    def as_tuple(self) -> tuple[float, float, float, float]:
        """PHYBench's return value: (score, relative_distance, tree_size, distance)."""
        return (self.score, self.relative_distance, self.tree_size, self.distance)


_DEFAULT = EEDConfig()


def _unit_scale(gold_unit: str, answer_unit: str) -> float | None:
    """The factor taking the answer's unit to the gold's, or None for different dimensions
    (1.0 when either unit is missing or unknown to pint)."""
    if not gold_unit or not answer_unit or gold_unit == answer_unit:
        return 1.0
    g, a = unit_info(gold_unit), unit_info(answer_unit)
    if g is None or a is None:
        return 1.0
    if g.dimension != a.dimension:
        return None
    if g.offset or a.offset:  # affine temperatures: not a factor
        return 1.0
    return a.scale / g.scale


_STATUSES: tuple[EEDStatus, ...] = get_args(EEDStatus)


def _status(name: str) -> EEDStatus:
    for s in _STATUSES:
        if s == name:
            return s
    raise ValueError(f"unknown EED status {name!r}")


def _result(row: tuple[float, float, float, float, str, str, str]) -> EEDResult:
    score, rel, size, dist, status, gu, au = row
    return EEDResult(score, rel, size, dist, _status(status), gu, au)


def eed_score(gold: str, answer: str, *, config: EEDConfig | None = None) -> EEDResult:
    """The EED score of *answer* against *gold* (LaTeX, or infix as latex2sympy reads it)."""
    cfg = config or _DEFAULT
    row = cfg.score(gold, answer)
    if not cfg.units:
        return _result(row)
    scale = _unit_scale(row[5], row[6])
    if scale is None:
        return EEDResult(0.0, -1.0, row[2], -1.0, "unit_mismatch", row[5], row[6])
    if scale != 1.0:
        row = cfg.score(gold, answer, scale)
    return _result(row)


def eed_score_many(
    golds: Sequence[str], answers: Sequence[str], *, config: EEDConfig | None = None, threads: int | None = None
) -> list[EEDResult]:
    """:func:`eed_score` of every pair, in the core on all cores (GIL released; Ctrl-C stops it
    between blocks). Pairs whose units differ by a factor are scored again with the factor."""
    cfg = config or _DEFAULT
    if len(golds) != len(answers):
        raise ValueError("eed_score_many: golds and answers must have the same length")
    out = cfg.score_many(golds, answers, None, threads)
    if not cfg.units:
        return out
    redo: list[int] = []
    scales: list[float] = []
    for i, r in enumerate(out):
        if r.gold_unit and r.answer_unit and r.gold_unit != r.answer_unit:
            s = _unit_scale(r.gold_unit, r.answer_unit)
            if s is None:
                out[i] = EEDResult(0.0, -1.0, r.tree_size, -1.0, "unit_mismatch", r.gold_unit, r.answer_unit)
            elif s != 1.0:
                redo.append(i)
                scales.append(s)
    if redo:
        again = cfg.score_many([golds[i] for i in redo], [answers[i] for i in redo], scales, threads)
        for k, i in enumerate(redo):
            out[i] = again[k]
    return out
