"""Metrics of a scoring job: accuracy, who decided, pass@k, majority vote, per-group figures.

:class:`MetricsAccumulator` is fed one graded row at a time and can be saved to and restored
from JSON, so that an interrupted job resumes with its counts intact.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DECIDERS", "GROUP_KEYS", "Metrics", "MetricsAccumulator", "pass_at_k", "pass_at_k_curve"]

#: Row fields that, when present, give a per-group breakdown (``group_by`` adds others).
GROUP_KEYS = ("type", "subject", "level")
_SCALARS = frozenset((str, int, float, bool))
_STR = frozenset((str,))
#: The paths that can decide a verdict.
DECIDERS = ("fast", "sympy", "math_verify", "timeout", "error")
#: How many notable rows (disagreements, timeouts, errors) are kept for the report.
MAX_NOTABLE = 500


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one problem with *n* samples of which *c* are correct:
    ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021). Requires ``1 <= k <= n``.

    >>> pass_at_k(8, 2, 1)
    0.25
    >>> round(pass_at_k(8, 2, 4), 4)
    0.7857
    """
    if not 1 <= k <= n:
        raise ValueError(f"pass_at_k: k must be in [1, n={n}], got {k}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_at_k_curve(histogram: Mapping[tuple[int, int], int]) -> dict[str, float]:
    """pass@k of a set of problems, given as ``{(n samples, c correct): number of problems}``:
    the mean over **every** problem of :func:`pass_at_k`, for each k that is a power of two up
    to the fewest samples any problem has, and that fewest number itself. This is the one
    computation behind the report's cards and chart and ``metrics.json``.

    A k above some problem's sample count is not reported: that problem has no unbiased
    estimate of it, and averaging only over the problems that reach k would compare another
    set of problems (so pass@4 could fall below pass@2). This is the convention of the
    HumanEval evaluation (Chen et al., 2021), which reports pass@k only where every problem
    has at least k samples. With every problem counted in every k, the curve never decreases
    in k (each problem's estimate does not).

    >>> pass_at_k_curve({(4, 1): 1, (3, 0): 1})
    {'1': 0.125, '2': 0.25, '3': 0.375}
    >>> pass_at_k_curve({})
    {}
    """
    problems = sum(count for count in histogram.values() if count > 0)
    if not problems:
        return {}
    fewest = min(n for (n, _), count in histogram.items() if count > 0)
    if fewest < 1:
        raise ValueError(f"pass_at_k_curve: every problem needs a sample, got n={fewest}")
    ks = sorted({k for k in (2**i for i in range(fewest.bit_length())) if k <= fewest} | {fewest})
    return {
        str(k): sum(pass_at_k(n, c, k) * count for (n, c), count in histogram.items() if count > 0) / problems
        for k in ks
    }


def _field(row: Mapping[str, Any], key: str) -> Any:
    """The field *key* of *row* (``None`` when missing); a dotted key names a nested field when
    the row has no field of that exact name."""
    value = row.get(key)
    if value is not None or "." not in key or key in row:
        return value
    node: Any = row
    for part in key.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _histogram(counts: Mapping[str, int]) -> dict[tuple[int, int], int]:
    """A histogram kept with ``"n,c"`` keys (JSON-friendly) as ``(n, c)`` pairs."""
    out: dict[tuple[int, int], int] = {}
    for key, count in counts.items():
        n, c = key.split(",")
        out[(int(n), int(c))] = int(count)
    return out


@dataclass(frozen=True)
class Metrics:
    """Summary of a scoring job (also written as ``metrics.json``).

    ``total`` counts graded pairs (a row with a list of n responses counts n; a row that could
    not be graded, one of the ``input_errors``, counts none: ``accuracy`` is ``correct /
    total`` over graded pairs only), ``rows`` input rows. ``decided_by`` counts graded pairs by
    the path that decided them, plus the ``input_errors`` under ``"error"``; ``errors`` is
    that ``"error"`` count (pairs the grader failed on, counted wrong, and rows that could not
    be graded). ``pass_at_k`` (see :func:`pass_at_k_curve`), ``samples`` (``{"problems",
    "min", "max"}``: the list-response rows and their fewest and most samples) and
    ``majority_accuracy`` are present when some rows had lists of responses. ``groups`` maps a
    group field (``type``, ``subject``, ``level`` and the ``group_by`` fields) to per-value
    ``{"total", "correct", "accuracy"}``, plus ``"problems"`` and ``"pass_at_k"`` (computed
    over that group's problems) when the group has list-response rows. ``reference`` compares
    with a verdict column of the input, when one was named.
    """

    rows: int
    total: int
    correct: int
    accuracy: float
    decided_by: dict[str, int]
    timeouts: int
    errors: int
    input_errors: int
    elapsed_s: float
    pairs_per_s: float
    pass_at_k: dict[str, float] = field(default_factory=dict)
    majority_accuracy: float | None = None
    groups: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    reference: dict[str, Any] | None = None
    group_by: tuple[str, ...] = ()
    samples: dict[str, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The metrics as JSON-ready values (``metrics.json``)."""
        out = {
            "rows": self.rows,
            "total": self.total,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "decided_by": dict(self.decided_by),
            "timeouts": self.timeouts,
            "errors": self.errors,
            "input_errors": self.input_errors,
            "elapsed_s": self.elapsed_s,
            "pairs_per_s": self.pairs_per_s,
            "groups": self.groups,
            "group_by": list(self.group_by),
        }
        if self.pass_at_k:
            out["pass_at_k"] = dict(self.pass_at_k)
            out["samples"] = dict(self.samples or {})
            out["majority_accuracy"] = self.majority_accuracy
        if self.reference is not None:
            out["reference"] = self.reference
        return out


class MetricsAccumulator:
    """Running counts of a scoring job; JSON round-trip with :meth:`state` / :meth:`from_state`.
    *group_by* names row fields (a dotted name: a nested field) to break the metrics down by,
    besides :data:`GROUP_KEYS`."""

    def __init__(self, group_by: Sequence[str] = ()) -> None:
        self.group_by = tuple(dict.fromkeys(group_by))
        #: Every field the metrics are broken down by: GROUP_KEYS, then group_by.
        self.group_keys = tuple(dict.fromkeys((*GROUP_KEYS, *self.group_by)))
        self.rows = 0
        self.total = 0
        self.correct = 0
        self.input_errors = 0
        self.decided_by: Counter[str] = Counter()
        self.groups: dict[str, dict[str, list[int]]] = {}
        # "n,c" (n samples, c correct) -> number of problems, for pass@k of list-response rows
        self.samples_histogram: Counter[str] = Counter()
        # the same per group: field -> value -> "n,c" -> number of problems
        self.group_samples: dict[str, dict[str, Counter[str]]] = {}
        self.majority = [0, 0]  # [problems voted, majority correct]
        self.reference = [0, 0]  # [rows compared, agreements]
        self.notable: list[dict[str, Any]] = []
        self.elapsed_s = 0.0

    def add_row(
        self,
        row: Mapping[str, Any] | None,
        verdicts: Sequence[Mapping[str, Any]],
        *,
        is_list: bool,
        input_error: bool,
        majority_correct: bool | None = None,
        reference: bool | None = None,
        label: str = "",
    ) -> None:
        """Count one input row graded into *verdicts* (one per response sample)."""
        self.add_columns(
            row,
            [bool(v["correct"]) for v in verdicts],
            [str(v["decided_by"]) for v in verdicts],
            verdicts.__getitem__,
            is_list=is_list,
            input_error=input_error,
            majority_correct=majority_correct,
            reference=reference,
            label=label,
        )

    def add_columns(
        self,
        row: Mapping[str, Any] | None,
        correct: list[bool],
        decided_by: list[str],
        verdict: Callable[[int], Mapping[str, Any]],
        *,
        is_list: bool,
        input_error: bool = False,
        majority_correct: bool | None = None,
        reference: bool | None = None,
        label: str = "",
    ) -> None:
        """Count one input row from its columns (one entry per response sample).
        ``verdict(i)`` gives sample *i* as a record (``correct``, ``decided_by``, ``gold``,
        ``extracted``, ``reason``); it is called only for the report's notable rows."""
        self.rows += 1
        if input_error:
            # A row that could not be graded: counted as an error, not in the accuracy.
            self.input_errors += 1
            for d in decided_by:
                self.decided_by[d] += 1
            for i, d in enumerate(decided_by):
                if d == "timeout" or d == "error":
                    self._note(d, f"{label} #{i}" if is_list else label, verdict(i))
            return
        n = len(correct)
        c = correct.count(True)
        self.total += n
        self.correct += c
        for d in decided_by:
            self.decided_by[d] += 1
        if row is not None:
            for key in self.group_keys:
                value = _field(row, key)
                if value is not None and not isinstance(value, (list, dict)):
                    bucket = self.groups.setdefault(key, {}).setdefault(str(value), [0, 0])
                    bucket[0] += n
                    bucket[1] += c
                    if is_list and n > 0:
                        self.group_samples.setdefault(key, {}).setdefault(str(value), Counter())[f"{n},{c}"] += 1
        if is_list and n > 0:
            self.samples_histogram[f"{n},{c}"] += 1
            if majority_correct is not None:
                self.majority[0] += 1
                self.majority[1] += int(majority_correct)
        disagreement = False
        if reference is not None and n == 1:
            self.reference[0] += 1
            agree = reference == correct[0]
            self.reference[1] += int(agree)
            disagreement = not agree
        # One entry per sample: a disagreement that timed out or failed is one row of the
        # report, of kind "disagreement, timeout"; the samples of a list row are "label #i".
        for i, d in enumerate(decided_by):
            kinds = ["disagreement"] if disagreement and i == 0 else []
            if d == "timeout" or d == "error":
                kinds.append(d)
            if kinds:
                extra = {"reference": reference} if "disagreement" in kinds else {}
                self._note(", ".join(kinds), f"{label} #{i}" if is_list else label, verdict(i), **extra)

    def add_single_rows(
        self,
        rows: Sequence[Mapping[str, Any] | None],
        correct: Sequence[bool],
        decided_by: Sequence[str],
        *,
        reference_agreements: int = 0,
        group_values: Mapping[str, Sequence[Any]] | None = None,
    ) -> None:
        """Count rows of one response each, graded, with nothing for the report's notable rows
        (no timeout or error, no disagreement with a reference verdict): the columnar form of
        :meth:`add_columns`. *reference_agreements* of them had a reference verdict (agreeing).
        The group fields are read from *rows*, or given as columns by *group_values* (a value
        per row for each key of :attr:`group_keys`; *rows* is not read then).

        >>> acc = MetricsAccumulator()
        >>> acc.add_single_rows([{"level": "1"}, {"level": "2"}, None], [True, False, True], ["fast"] * 3)
        >>> m = acc.finish()
        >>> (m.rows, m.total, m.correct, m.groups["level"]["1"]["accuracy"])
        (3, 3, 2, 1.0)
        """
        n = len(correct)
        self.rows += n
        self.total += n
        c = sum(correct)
        self.correct += c
        self.decided_by.update(decided_by)
        self.reference[0] += reference_agreements
        self.reference[1] += reference_agreements
        for key in self.group_keys:
            if group_values is not None:
                values = group_values[key]
            else:
                values = [_field(row, key) if row is not None else None for row in rows]
            if values.count(None) == len(values):
                continue
            counts: Counter[tuple[str, bool]]
            kinds = set(map(type, values))
            if kinds <= _SCALARS:
                # every value a scalar: counted at C speed
                counts = Counter(zip(values if kinds == _STR else map(str, values), correct))
            else:
                counts = Counter(
                    (str(value), ok)
                    for value, ok in zip(values, correct)
                    if value is not None and not isinstance(value, (list, dict))
                )
            for (value, ok), count in counts.items():
                bucket = self.groups.setdefault(key, {}).setdefault(value, [0, 0])
                bucket[0] += count
                bucket[1] += count if ok else 0

    def _note(self, kind: str, label: str, verdict: Mapping[str, Any], **extra: Any) -> None:
        if len(self.notable) >= MAX_NOTABLE:
            return
        self.notable.append(
            {
                "kind": kind,
                "row": label,
                "gold": verdict.get("gold"),
                "extracted": verdict.get("extracted"),
                "correct": bool(verdict["correct"]),
                "decided_by": verdict["decided_by"],
                "reason": verdict.get("reason", ""),
                **extra,
            }
        )

    def finish(self) -> Metrics:
        """The metrics so far."""
        histogram = _histogram(self.samples_histogram)
        pass_k = pass_at_k_curve(histogram)
        samples = None
        if histogram:
            sizes = [n for n, _ in histogram]
            samples = {"problems": sum(histogram.values()), "min": min(sizes), "max": max(sizes)}
        groups: dict[str, dict[str, dict[str, Any]]] = {}
        for key, values in self.groups.items():
            per_value: dict[str, dict[str, Any]] = {}
            for value, (t, c) in sorted(values.items()):
                entry: dict[str, Any] = {"total": t, "correct": c, "accuracy": c / t if t else 0.0}
                group_histogram = _histogram(self.group_samples.get(key, {}).get(value, {}))
                if group_histogram:
                    entry["problems"] = sum(group_histogram.values())
                    entry["pass_at_k"] = pass_at_k_curve(group_histogram)
                per_value[value] = entry
            groups[key] = per_value
        reference = None
        if self.reference[0]:
            reference = {
                "compared": self.reference[0],
                "agree": self.reference[1],
                "agreement": self.reference[1] / self.reference[0],
            }
        return Metrics(
            rows=self.rows,
            total=self.total,
            correct=self.correct,
            accuracy=self.correct / self.total if self.total else 0.0,
            decided_by={name: self.decided_by.get(name, 0) for name in DECIDERS}
            | {k: v for k, v in self.decided_by.items() if k not in DECIDERS},
            timeouts=self.decided_by.get("timeout", 0),
            errors=self.decided_by.get("error", 0),
            input_errors=self.input_errors,
            elapsed_s=self.elapsed_s,
            pairs_per_s=self.total / self.elapsed_s if self.elapsed_s > 0 else 0.0,
            pass_at_k=pass_k,
            majority_accuracy=self.majority[1] / self.majority[0] if self.majority[0] else None,
            groups=groups,
            reference=reference,
            group_by=self.group_by,
            samples=samples,
        )

    def state(self) -> dict[str, Any]:
        """JSON-serializable state, for resuming: counts only (the states of two parts of a job
        add up key by key); ``group_by`` is the job's option, given again to :meth:`from_state`."""
        return {
            "rows": self.rows,
            "total": self.total,
            "correct": self.correct,
            "input_errors": self.input_errors,
            "decided_by": dict(self.decided_by),
            "groups": self.groups,
            "group_samples": {k: {v: dict(h) for v, h in values.items()} for k, values in self.group_samples.items()},
            "samples_histogram": dict(self.samples_histogram),
            "majority": self.majority,
            "reference": self.reference,
            "notable": self.notable,
            "elapsed_s": self.elapsed_s,
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any], group_by: Sequence[str] = ()) -> MetricsAccumulator:
        """The accumulator whose :meth:`state` was *state*, made with *group_by*."""
        acc = cls(group_by)
        acc.rows = int(state["rows"])
        acc.total = int(state["total"])
        acc.correct = int(state["correct"])
        acc.input_errors = int(state["input_errors"])
        acc.decided_by = Counter({str(k): int(v) for k, v in state["decided_by"].items()})
        acc.groups = {k: {g: [int(x) for x in tc] for g, tc in v.items()} for k, v in state["groups"].items()}
        acc.samples_histogram = Counter({str(k): int(v) for k, v in state["samples_histogram"].items()})
        acc.group_samples = {
            str(k): {str(v): Counter({str(nc): int(x) for nc, x in h.items()}) for v, h in values.items()}
            for k, values in state.get("group_samples", {}).items()
        }
        acc.majority = [int(x) for x in state["majority"]]
        acc.reference = [int(x) for x in state["reference"]]
        acc.notable = list(state["notable"])
        acc.elapsed_s = float(state["elapsed_s"])
        return acc
