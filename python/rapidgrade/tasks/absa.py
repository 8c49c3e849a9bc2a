"""Sentiment-tuple evaluation: normalization, polarity repair and tuple F1 across stages.

Aspect-based sentiment analysis (ABSA) pipelines extract ``(aspect_term, polarity)`` tuples from
reviews (Korean and English), often in stages (a first extraction, a review stage, a final
stage). This module gives them one normalization, applied identically when loading gold, when
parsing model output and when evaluating, and one scorer.

Policies
--------
* **P0**: the evaluation key is ``(aspect_term, polarity)`` only. ``aspect_ref`` (a category
  reference such as ``"제품 전체#품질"``) is metadata: it is never used for F1, ``changed``,
  ``break`` or ``fix``. One key, built by one implementation, serves every metric, so a stage
  can never report ``changed == 0`` while its F1 moves.
* **P1**: nothing here overwrites the caller's data. :func:`finalize_refs` returns new tuples and
  keeps the original reference in ``aspect_ref_original``.
* **P2**: strict normalization (a whitelist of polarity labels plus surface clean-up of terms)
  is the same everywhere. Edit-distance repair of polarities is off by default and applies only
  where asked for (``repair=True``: parsing repair of *predicted* polarities; gold is never
  repaired).

The rules are implemented once, in the C++ core (``rapidgrade._core.absa_*``); the functions
of :mod:`rapidgrade.tasks._absa_rules` (re-exported here) and the batch scorer both call that
implementation. Lower-casing is Unicode-aware: ASCII is lower-cased by the core, and strings
with other cased letters (Latin, Greek with its final sigma, Cyrillic, full-width ``Ａ``...) by
Python's :meth:`str.lower` first. Hangul has no case.

Record shape (one JSON object per line in a ``.jsonl`` file)
------------------------------------------------------------
.. code-block:: json

    {"id": "review-17",
     "gold": [{"aspect_term": "배터리", "aspect_ref": "제품 전체#품질", "polarity": "positive",
               "span": [0, 3], "opinion_term": {"term": "오래 가요"}}],
     "stages": {"stage1": [{"aspect_term": "배터리", "polarity": "pos"}],
                "final":  [{"aspect_term": "배터리.", "aspect_ref": "제품 전체 # 품질",
                            "polarity": "positive"}]}}

* ``gold`` (required): a list of tuple objects. Each gold tuple's term is
  :func:`gold_aspect_term` of it.
* The predicted tuples of stage ``name`` are ``record["stages"][name]`` when the record has a
  ``stages`` object, else ``record[name]``. Every requested stage must be present (an empty list
  is fine).
* Tuple fields: ``aspect_term``, ``aspect_ref``, ``polarity`` and ``term`` are strings or null;
  ``opinion_term`` is an object with a string-or-null ``term``, or null. Predicted tuples use
  ``aspect_term`` only (missing or null: the empty term); ``span`` and any other field are
  ignored by the scorer. A missing, null or empty polarity takes ``default_missing``.
* ``id`` (optional, any JSON value) is echoed in the report of a bad record.

A record that breaks this shape (not an object, no ``gold``, a missing stage, a tuple that is
not an object, a field of the wrong type) is *bad*: it is reported with its index and a reason,
counted, and left out of every metric; the other records are scored as usual.

Scoring
-------
Per record, gold and each stage become *sets* of keys ``(normalize_for_eval(term), polarity)``
(a repeated key counts once). A predicted polarity outside the whitelist (after repair, if
enabled) stays in the set under its folded text, so it changes ``changed``, but it never matches
gold; the same holds for an invalid gold polarity. Micro precision = matched / predicted keys,
recall = matched / gold keys, F1 their harmonic mean (0.0 where a denominator is 0). A stage is
*exactly right* on a record when its set equals gold with every polarity valid. For consecutive
stages (and, with more than two stages, the first against the last): ``changed`` counts records
whose two sets differ, ``break`` records exactly right in the earlier stage but not the later,
``fix`` the reverse; rates divide by the number of scored records.

Scorecard JSON (``Scorecard.to_dict()``, what the command line writes)
----------------------------------------------------------------------
.. code-block:: text

    {"task": "absa",
     "options": {"stages": ["stage1", "final"], "repair": false, "default_missing": "neutral",
                 "ref_allowlist": null},            # allowlist size when one was given
     "records": {"total": 3, "scored": 2, "bad": 1},
     "bad_records": [{"index": 2, "id": "r3", "reason": "missing stage 'final'"}],
     "gold": {"tuples": 4, "unique": 4, "invalid_polarity": 0, "missing_polarity": 0},
     "stages": {"stage1": {"precision": 0.75, "recall": 0.75, "f1": 0.75, "matched": 3,
                           "predicted": 4, "gold": 4, "tuples": 5, "exact": 1,
                           "invalid_polarity": 1, "repaired_polarity": 0,
                           "missing_polarity": 0, "invalid_ref": null},
                "final": {...}},
     "transitions": [{"from": "stage1", "to": "final", "changed": 1, "changed_rate": 0.5,
                      "break": 0, "break_rate": 0.0, "fix": 1, "fix_rate": 0.5}]}

Command line: the shared scoring job, ``rapidgrade score --task absa FILE... [--out DIR]
[--stages stage1,final] [--repair] [--default-missing neutral] [--ref-allowlist refs.txt]
[--threads N]``. Inputs are read by the shared readers (JSONL, JSONL.gz, JSON arrays, CSV,
Parquet); ``DIR/metrics.json`` is the scorecard JSON above, ``DIR/evaluated.jsonl`` every
record with ``scored`` and ``reason`` (why a bad record was left out), and ``DIR/report.html``
the report. ``--resume`` continues an interrupted run.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rapidgrade import _core
from rapidgrade._io import InputRow, UsageError, iter_rows
from rapidgrade.report import bar_chart, cards_html, table_html
from rapidgrade.tasks._absa_rules import (
    POLARITIES,
    EvalKey,
    EvalPair,
    EvalTuple,
    canonicalize_polarity_with_repair,
    eval_key,
    finalize_refs,
    gold_aspect_term,
    gold_row_to_tuples,
    gold_tuple_set_from_record,
    normalize_for_eval,
    normalize_polarity,
    normalize_polarity_distribution,
    normalize_ref_for_eval,
    normalize_span,
    tuples_to_attr_pairs,
    tuples_to_ref_pairs,
)
from rapidgrade.tasks._base import error_record, positive_int

__all__ = [
    "POLARITIES",
    "RESULT_KEYS",
    "TASK",
    "AbsaConfig",
    "AbsaTask",
    "BadRecord",
    "EvalKey",
    "EvalPair",
    "EvalTuple",
    "GoldSummary",
    "Scorecard",
    "StageScore",
    "TransitionScore",
    "canonicalize_polarity_with_repair",
    "eval_key",
    "finalize_refs",
    "gold_aspect_term",
    "gold_row_to_tuples",
    "gold_tuple_set_from_record",
    "normalize_for_eval",
    "normalize_polarity",
    "normalize_polarity_distribution",
    "normalize_ref_for_eval",
    "normalize_span",
    "render_absa_report",
    "score",
    "score_file",
    "tuples_to_attr_pairs",
    "tuples_to_ref_pairs",
]


# ---------------------------------------------------------------------------------------------
# Scorecard


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A record left out of the scores: its position, its ``id`` (if any) and why."""

    index: int
    id: Any
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "id": self.id, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class GoldSummary:
    """Gold tuples of the scored records: given, distinct keys, polarity diagnostics."""

    tuples: int
    unique: int
    invalid_polarity: int
    missing_polarity: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "tuples": self.tuples,
            "unique": self.unique,
            "invalid_polarity": self.invalid_polarity,
            "missing_polarity": self.missing_polarity,
        }


@dataclass(frozen=True, slots=True)
class StageScore:
    """Micro precision/recall/F1 of one stage and its diagnostics.

    ``matched``, ``predicted`` and ``gold`` count distinct keys per record, summed; ``tuples``
    counts the predicted tuples as given; ``exact`` the records where the stage is exactly right.
    ``invalid_ref`` is ``None`` when no reference allowlist was given.
    """

    precision: float
    recall: float
    f1: float
    matched: int
    predicted: int
    gold: int
    tuples: int
    exact: int
    invalid_polarity: int
    repaired_polarity: int
    missing_polarity: int
    invalid_ref: int | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "matched": self.matched,
            "predicted": self.predicted,
            "gold": self.gold,
            "tuples": self.tuples,
            "exact": self.exact,
            "invalid_polarity": self.invalid_polarity,
            "repaired_polarity": self.repaired_polarity,
            "missing_polarity": self.missing_polarity,
            "invalid_ref": self.invalid_ref,
        }


@dataclass(frozen=True, slots=True)
class TransitionScore:
    """Changes from stage ``source`` to stage ``target`` over the scored records."""

    source: str
    target: str
    changed: int
    changed_rate: float
    breaks: int
    break_rate: float
    fixes: int
    fix_rate: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.source,
            "to": self.target,
            "changed": self.changed,
            "changed_rate": self.changed_rate,
            "break": self.breaks,
            "break_rate": self.break_rate,
            "fix": self.fixes,
            "fix_rate": self.fix_rate,
        }


@dataclass(frozen=True, slots=True)
class Scorecard:
    """The result of :func:`score`; :meth:`to_dict` gives the JSON form."""

    stage_names: tuple[str, ...]
    repair: bool
    default_missing: str
    ref_allowlist_size: int | None
    records: int
    scored: int
    bad_records: tuple[BadRecord, ...]
    gold: GoldSummary
    stages: dict[str, StageScore]
    transitions: tuple[TransitionScore, ...]

    @property
    def bad(self) -> int:
        """Number of bad records."""
        return len(self.bad_records)

    def f1(self, stage: str) -> float:
        """Micro F1 of *stage*."""
        return self.stages[stage].f1

    def transition(self, source: str, target: str) -> TransitionScore:
        """The :class:`TransitionScore` from *source* to *target* (KeyError if not computed)."""
        for t in self.transitions:
            if t.source == source and t.target == target:
                return t
        raise KeyError((source, target))

    def to_dict(self) -> dict[str, Any]:
        """The scorecard as plain JSON-able values (``metrics.json`` of ``--task absa``); a
        record id that is a non-finite float is written as its text."""
        return {
            "task": "absa",
            "options": {
                "stages": list(self.stage_names),
                "repair": self.repair,
                "default_missing": self.default_missing,
                "ref_allowlist": self.ref_allowlist_size,
            },
            "records": {"total": self.records, "scored": self.scored, "bad": self.bad},
            "bad_records": [b.to_dict() | {"id": _json_safe(b.id)} for b in self.bad_records],
            "gold": self.gold.to_dict(),
            "stages": {name: s.to_dict() for name, s in self.stages.items()},
            "transitions": [t.to_dict() for t in self.transitions],
        }


def _json_safe(value: Any) -> Any:
    # NaN cannot appear in a scorecard (rates use 0.0 for empty denominators); this guards the
    # echoed record ids, which come from the input and may be any JSON value.
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _transition_pairs(n: int) -> list[tuple[int, int]]:
    pairs = [(k, k + 1) for k in range(n - 1)]
    if n > 2:
        pairs.append((0, n - 1))
    return pairs


def _stage_score(c: Mapping[str, int], gold_unique: int, check_refs: bool) -> StageScore:
    precision = _ratio(c["matched"], c["unique"])
    recall = _ratio(c["matched"], gold_unique)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return StageScore(
        precision=precision,
        recall=recall,
        f1=f1,
        matched=c["matched"],
        predicted=c["unique"],
        gold=gold_unique,
        tuples=c["tuples"],
        exact=c["exact"],
        invalid_polarity=c["invalid_polarity"],
        repaired_polarity=c["repaired_polarity"],
        missing_polarity=c["missing_polarity"],
        invalid_ref=c["invalid_ref"] if check_refs else None,
    )


def score(
    records: Iterable[Any],
    *,
    stages: Sequence[str] = ("stage1", "final"),
    repair: bool = False,
    default_missing: str = "neutral",
    ref_allowlist: Iterable[str] | None = None,
    threads: int | None = None,
) -> Scorecard:
    """Score records (see the module docstring for their shape) for every stage in *stages*.

    *repair* enables edit-distance repair of predicted polarities. *default_missing* (one of
    :data:`POLARITIES`) replaces missing or empty polarities. With *ref_allowlist*, predicted
    non-empty ``aspect_ref`` values whose :func:`normalize_ref_for_eval` form is not in the
    (likewise normalized) allowlist are counted as ``invalid_ref``: a diagnostic only; gold refs
    are never checked. Bad records are reported in ``bad_records`` and skipped.

    Records are walked in chunks with the GIL held (field look-ups, type checks), and each chunk
    is normalized and matched in the core with the GIL released. With *threads* = 1 (the
    default, ``None`` too) a small chunk is scored right after its walk, while its objects are
    still in cache: the least CPU time. With *threads* >= 2 a worker scores each chunk on
    ``threads - 1`` threads while the next chunk is walked: less wall time when cores are free.

    >>> card = score([{"id": 1,
    ...     "gold": [{"aspect_term": "배터리", "polarity": "positive"}],
    ...     "stages": {"stage1": [{"aspect_term": "배터리.", "polarity": "pos"}],
    ...                "final": [{"aspect_term": "화면", "polarity": "negative"}]}}])
    >>> card.f1("stage1"), card.f1("final")
    (1.0, 0.0)
    >>> t = card.transition("stage1", "final")
    >>> t.changed, t.breaks, t.fixes
    (1, 1, 0)

    Raises:
        TypeError: *records* is not an iterable of records (a ``str`` or a single mapping is
            not), or an option has the wrong type.
        ValueError: *stages* is empty or repeats a name, *default_missing* is not a label, or
            *threads* < 1.
    """
    names = _check_options("score", stages, default_missing)
    if isinstance(records, (str, bytes, Mapping)):
        raise TypeError(f"score: records must be an iterable of records, not {type(records).__name__}")
    if not isinstance(records, (list, tuple)):
        records = list(records)
    allow = None if ref_allowlist is None else list(ref_allowlist)
    raw = _raw_score(
        records, names, repair=bool(repair), default_missing=default_missing, ref_allowlist=allow, threads=threads
    )
    return _scorecard(
        raw,
        names,
        repair=bool(repair),
        default_missing=default_missing,
        ref_allowlist_size=None if allow is None else len(allow),
    )


def _check_options(where: str, stages: Sequence[str], default_missing: str) -> tuple[str, ...]:
    """The stage names, checked with the default label (TypeError/ValueError naming *where*)."""
    names = tuple(stages) if not isinstance(stages, str) else (stages,)
    if not names:
        raise ValueError(f"{where}: stages must name at least one stage")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{where}: stage names must be str, not {type(name).__name__}")
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: stage names must be distinct, got {list(names)}")
    if default_missing not in POLARITIES:
        raise ValueError(f"{where}: default_missing must be one of {', '.join(POLARITIES)}, got {default_missing!r}")
    return names


def _raw_score(
    records: Sequence[Any],
    names: Sequence[str],
    *,
    repair: bool,
    default_missing: str,
    ref_allowlist: list[str] | None,
    threads: int | None,
) -> dict[str, Any]:
    """The counts of the core's scorer: ``records``, ``scored``, ``bad`` ((index, id, reason)
    triples), ``gold`` (counts), ``stages`` (one dict of counts per stage) and
    ``transitions`` ((changed, break, fix) per pair of :func:`_transition_pairs`). Counts of
    disjoint sets of records add up."""
    return dict(
        _core.absa_score(
            records,
            list(names),
            repair=repair,
            default_missing=default_missing,
            ref_allowlist=ref_allowlist,
            transitions=_transition_pairs(len(names)),
            threads=threads,
        )
    )


def _scorecard(
    raw: Mapping[str, Any],
    names: tuple[str, ...],
    *,
    repair: bool,
    default_missing: str,
    ref_allowlist_size: int | None,
) -> Scorecard:
    scored: int = raw["scored"]
    gold = raw["gold"]
    stage_scores = {
        name: _stage_score(c, gold["unique"], ref_allowlist_size is not None) for name, c in zip(names, raw["stages"])
    }
    transitions = tuple(
        TransitionScore(
            source=names[a],
            target=names[b],
            changed=changed,
            changed_rate=_ratio(changed, scored),
            breaks=broke,
            break_rate=_ratio(broke, scored),
            fixes=fixed,
            fix_rate=_ratio(fixed, scored),
        )
        for (a, b), (changed, broke, fixed) in zip(_transition_pairs(len(names)), raw["transitions"])
    )
    return Scorecard(
        stage_names=names,
        repair=repair,
        default_missing=default_missing,
        ref_allowlist_size=ref_allowlist_size,
        records=raw["records"],
        scored=scored,
        bad_records=tuple(BadRecord(i, rid, reason) for i, rid, reason in raw["bad"]),
        gold=GoldSummary(gold["tuples"], gold["unique"], gold["invalid_polarity"], gold["missing_polarity"]),
        stages=stage_scores,
        transitions=transitions,
    )


# ---------------------------------------------------------------------------------------------
# The absa task: files and the command line go through the shared scoring job


#: The result fields of an evaluated record: whether it was scored, why not, and for a scored
#: record what each stage got right (``stage_results``: per stage ``matched``, ``predicted``
#: and ``gold`` keys and ``exact``, from the same scorer as the metrics).
RESULT_KEYS = ("scored", "reason", "stage_results")


@dataclass(frozen=True, slots=True)
class AbsaConfig:
    """Options of the absa task (see :func:`score`)."""

    stages: tuple[str, ...] = ("stage1", "final")
    repair: bool = False
    default_missing: str = "neutral"
    ref_allowlist: tuple[str, ...] | None = None
    threads: int | None = None


def _merge_counts(total: dict[str, Any], part: Mapping[str, Any]) -> None:
    """Adds the integer counts of *part* into *total* (same shape)."""
    for key, value in part.items():
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        total[key] = total.get(key, 0) + value


class AbsaRun:
    """One absa scoring job: each chunk is scored by the core, and its counts are added."""

    __slots__ = ("bad", "config", "counts", "gold", "rows", "stages", "transitions")

    def __init__(self, config: AbsaConfig) -> None:
        self.config = config
        self.rows = 0
        self.counts: dict[str, Any] = {"records": 0, "scored": 0}
        self.gold: dict[str, Any] = {}
        self.stages: list[dict[str, Any]] = [{} for _ in config.stages]
        self.transitions: list[list[int]] = [[0, 0, 0] for _ in _transition_pairs(len(config.stages))]
        self.bad: list[list[Any]] = []

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        config = self.config
        records = [row.data for row in rows if row.data is not None and row.error is None]
        positions = [i for i, row in enumerate(rows) if row.data is not None and row.error is None]
        bad: dict[int, tuple[Any, str]] = {}
        if records:
            allow = None if config.ref_allowlist is None else list(config.ref_allowlist)
            raw = _raw_score(
                records,
                config.stages,
                repair=config.repair,
                default_missing=config.default_missing,
                ref_allowlist=allow,
                threads=config.threads,
            )
            self.counts["scored"] += raw["scored"]
            _merge_counts(self.gold, raw["gold"])
            for total, part in zip(self.stages, raw["stages"]):
                _merge_counts(total, part)
            for total_t, part_t in zip(self.transitions, raw["transitions"]):
                for k in range(3):
                    total_t[k] += part_t[k]
            for i, rid, reason in raw["bad"]:
                row = rows[positions[i]]
                bad[positions[i]] = (rid, f"line {row.line}: {reason}")
        out: list[dict[str, Any]] = []
        for i, row in enumerate(rows):
            if row.data is None or row.error is not None:
                reason = row.error or f"line {row.line}: unreadable row"
                self.bad.append([self.rows + i, None, reason])
                out.append(error_record(row, {"scored": False, "reason": reason}))
                continue
            record = dict(row.data)
            for key in RESULT_KEYS:
                if key in record:
                    record[f"input_{key}"] = record.pop(key)
            if i in bad:
                rid, reason = bad[i]
                self.bad.append([self.rows + i, rid, reason])
                record.update({"scored": False, "reason": reason})
            else:
                record.update({"scored": True, "reason": None, "stage_results": self._stage_results(row.data)})
            out.append(record)
        self.rows += len(rows)
        self.counts["records"] += len(rows)
        return out

    def _stage_results(self, data: Any) -> dict[str, dict[str, Any]]:
        """What each stage got right on one (scored) record, by the core's scorer."""
        config = self.config
        allow = None if config.ref_allowlist is None else list(config.ref_allowlist)
        raw = _raw_score(
            [data],
            config.stages,
            repair=config.repair,
            default_missing=config.default_missing,
            ref_allowlist=allow,
            threads=1,
        )
        gold = int(raw["gold"]["unique"])
        return {
            name: {"matched": c["matched"], "predicted": c["unique"], "gold": gold, "exact": bool(c["exact"])}
            for name, c in zip(config.stages, raw["stages"])
        }

    def _raw(self) -> dict[str, Any]:
        return {
            "records": self.counts["records"],
            "scored": self.counts["scored"],
            "bad": self.bad,
            "gold": {k: self.gold.get(k, 0) for k in ("tuples", "unique", "invalid_polarity", "missing_polarity")},
            "stages": [dict(_EMPTY_STAGE, **c) for c in self.stages],
            "transitions": self.transitions,
        }

    def state(self) -> dict[str, Any]:
        return {"rows": self.rows, **self._raw()}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.rows = int(state["rows"])
        self.counts = {"records": int(state["records"]), "scored": int(state["scored"])}
        self.gold = dict(state["gold"])
        self.stages = [dict(c) for c in state["stages"]]
        self.transitions = [list(t) for t in state["transitions"]]
        self.bad = [list(b) for b in state["bad"]]

    def finish(self, elapsed_s: float) -> Scorecard:
        config = self.config
        size = None if config.ref_allowlist is None else len(config.ref_allowlist)
        return _scorecard(
            self._raw(),
            config.stages,
            repair=config.repair,
            default_missing=config.default_missing,
            ref_allowlist_size=size,
        )

    def progress_note(self, elapsed_s: float) -> str:
        return f"{self.rows / elapsed_s:,.0f} records/s" if elapsed_s > 0 else "-"

    def report_html(self, metrics: Scorecard) -> str:
        return render_absa_report(metrics)


_EMPTY_STAGE = {
    "matched": 0,
    "unique": 0,
    "tuples": 0,
    "exact": 0,
    "invalid_polarity": 0,
    "repaired_polarity": 0,
    "missing_polarity": 0,
    "invalid_ref": 0,
}


def _stage_words(name: str, r: Mapping[str, Any]) -> str:
    if r.get("exact"):
        return f"{name}: exact ({r.get('matched')} of {r.get('gold')} gold tuples)"
    extra = int(r.get("predicted", 0)) - int(r.get("matched", 0))
    return f"{name}: {r.get('matched')} of {r.get('gold')} gold tuples matched, {extra} predicted not in gold"


def report_item(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """An absa record of ``evaluated.jsonl`` as the report's items table lists it: right when
    its last stage is exactly right (its key set equals gold's), with what each stage matched;
    a bad record with its reason."""
    if "scored" not in record:
        return None
    results = record.get("stage_results")
    item: dict[str, Any] = {
        "id": record.get("id"),
        "gold": record.get("gold", record.get("_raw")),
        "response": None,
        "extracted": None,
    }
    if record.get("scored") is not True or not isinstance(results, dict) or not results:
        item.update(correct=False, decided_by="bad record", method=None, reason=record.get("reason"))
        return item
    last_name, last = list(results.items())[-1]
    stages = record.get("stages") if isinstance(record.get("stages"), dict) else record
    exact = bool(last.get("exact"))
    item.update(
        correct=exact,
        decided_by="scored",
        method="exact" if exact else ("partial" if last.get("matched") else "no match"),
        extracted=stages.get(last_name) if isinstance(stages, dict) else None,
        reason="; ".join(_stage_words(name, r) for name, r in results.items() if isinstance(r, dict)),
    )
    return item


def render_absa_report(card: Scorecard) -> str:
    """The absa task's part of the report: summary cards, F1 per stage, the per-stage and
    transition tables and the bad records (the first 500)."""
    cards = [
        ("records", f"{card.records:,}"),
        ("scored", f"{card.scored:,}"),
        ("bad records", f"{card.bad:,}"),
        ("gold tuples", f"{card.gold.tuples:,}"),
    ]
    cards += [(f"F1 {name}", f"{100 * s.f1:.2f}%") for name, s in card.stages.items()]
    body = cards_html(cards)
    body.append("<h2>F1 by stage</h2>")
    f1_bars = [(name, s.f1, "#3b6fb6") for name, s in card.stages.items()]
    body.append(bar_chart("F1 by stage", f1_bars, max_value=1.0, percent=True))
    body.append("<h2>Stages</h2>")
    headers = (
        "stage",
        "precision",
        "recall",
        "F1",
        "matched",
        "predicted",
        "gold",
        "tuples",
        "exact",
        "invalid polarity",
        "repaired polarity",
        "missing polarity",
        "invalid ref",
    )
    rows = [
        [
            name,
            f"{s.precision:.4f}",
            f"{s.recall:.4f}",
            f"{s.f1:.4f}",
            s.matched,
            s.predicted,
            s.gold,
            s.tuples,
            s.exact,
            s.invalid_polarity,
            s.repaired_polarity,
            s.missing_polarity,
            s.invalid_ref,
        ]
        for name, s in card.stages.items()
    ]
    body.append(table_html(headers, rows))
    if card.transitions:
        body.append("<h2>Stage to stage</h2>")
        rows = [
            [
                t.source,
                t.target,
                t.changed,
                f"{100 * t.changed_rate:.2f}%",
                t.breaks,
                f"{100 * t.break_rate:.2f}%",
                t.fixes,
                f"{100 * t.fix_rate:.2f}%",
            ]
            for t in card.transitions
        ]
        body.append(
            table_html(("from", "to", "changed", "changed rate", "break", "break rate", "fix", "fix rate"), rows)
        )
    shown = card.bad_records[:500]
    body.append(f"<h2>Bad records ({len(shown)} of {card.bad} shown)</h2>")
    if shown:
        bad_rows = [[b.index, b.id, b.reason] for b in shown]
        body.append(table_html(("index", "id", "reason"), bad_rows, code_columns=(1,)))
    else:
        body.append("<p>None.</p>")
    return "\n".join(body)


class AbsaTask:
    """The ``absa`` task: ``rapidgrade score --task absa FILE...``."""

    name = "absa"
    help = "aspect-sentiment tuples: tuple F1 per stage and stage-to-stage changes"
    #: The report's items table reads its records this way (an ItemViewer).
    report_item = staticmethod(report_item)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("absa task")
        group.add_argument(
            "--stages",
            default="stage1,final",
            help="comma-separated stage names, in pipeline order (default: stage1,final)",
        )
        group.add_argument("--repair", action="store_true", help="repair predicted polarities by edit distance")
        group.add_argument(
            "--default-missing",
            default="neutral",
            choices=POLARITIES,
            help="label for missing polarities (default: neutral)",
        )
        group.add_argument(
            "--ref-allowlist", default=None, help="file of allowed aspect refs, one per line (diagnostic only)"
        )
        group.add_argument(
            "--threads",
            type=positive_int,
            default=None,
            help="1 (default): walk and score in turn; >= 2: score on threads - 1 threads beside the walk",
        )

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        allowlist: list[str] | None = None
        if args.ref_allowlist is not None:
            with open(args.ref_allowlist, encoding="utf-8") as f:
                allowlist = [line.strip() for line in f if line.strip()]
        return {
            "stages": [s.strip() for s in args.stages.split(",") if s.strip()],
            "repair": args.repair,
            "default_missing": args.default_missing,
            "ref_allowlist": allowlist,
            "threads": args.threads,
        }

    def configure(
        self,
        *,
        stages: Sequence[str] = ("stage1", "final"),
        repair: bool = False,
        default_missing: str = "neutral",
        ref_allowlist: Iterable[str] | None = None,
        threads: int | None = None,
    ) -> AbsaConfig:
        try:
            names = _check_options("absa", stages, default_missing)
        except ValueError as e:
            raise UsageError(str(e)) from None
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise UsageError(f"absa: threads must be an int >= 1 or None, got {threads!r}")
        allow = None if ref_allowlist is None else tuple(ref_allowlist)
        return AbsaConfig(names, bool(repair), default_missing, allow, threads)

    def input_fields(self, config: AbsaConfig) -> tuple[str, ...]:
        return ("id", "gold", "stages", *config.stages)

    def fingerprint(self, config: AbsaConfig) -> str:
        return repr((config.stages, config.repair, config.default_missing, config.ref_allowlist))

    def demo(self, config: AbsaConfig) -> None:
        return None

    def start(self, config: AbsaConfig) -> AbsaRun:
        return AbsaRun(config)

    def summary(self, metrics: Scorecard) -> list[tuple[str, str]]:
        card = metrics
        rows = [("records", f"{card.records:,}"), ("scored", f"{card.scored:,}")]
        if card.bad:
            rows.append(("bad records", f"{card.bad:,}: not scored; their reason is in the report and evaluated.jsonl"))
        else:
            rows.append(("bad records", "none: every record was scored"))
        rows += [
            (f"F1 {name}", f"{100 * s.f1:.2f}% (precision {100 * s.precision:.2f}%, recall {100 * s.recall:.2f}%)")
            for name, s in card.stages.items()
        ]
        rows += [
            (f"{t.source} -> {t.target}", f"changed {t.changed:,}, break {t.breaks:,}, fix {t.fixes:,}")
            for t in card.transitions
        ]
        if card.bad:
            rows.append(("exit status", "1: some records could not be scored"))
        return rows

    def exit_code(self, metrics: Scorecard) -> int:
        return 1 if metrics.bad else 0  # like every task: rows that could not be scored fail the command


#: The registered absa task.
TASK = AbsaTask()


def score_file(path: str | Path, **options: Any) -> Scorecard:
    """:func:`score` of the records in the file *path*, read by the shared readers
    (:mod:`rapidgrade._io`: JSONL, JSONL.gz, JSON arrays, CSV, Parquet).

    Takes the keyword options of :func:`score`. Each bad record's reason starts with its line
    number (``"line 7: missing 'gold'"``); unreadable lines are bad records with the reader's
    reason. To write evaluated rows, ``metrics.json`` (the scorecard) and ``report.html``, use
    the shared job: ``rapidgrade.score.score_file(path, task="absa", ...)`` or
    ``rapidgrade score --task absa``.

    Raises:
        OSError: the file cannot be opened.
    """
    run = TASK.start(TASK.configure(**options))
    chunk: list[InputRow] = []
    for row in iter_rows(Path(path)):
        chunk.append(row)
        if len(chunk) >= 4096:
            run.grade(chunk)
            chunk = []
    if chunk:
        run.grade(chunk)
    return run.finish(0.0)


if __name__ == "__main__":
    # The absa command line is the shared one now; say so instead of silently doing nothing.
    import sys

    print(
        "python -m rapidgrade.tasks.absa is gone: run 'rapidgrade score --task absa FILE --out DIR' "
        "(DIR/metrics.json is the scorecard)",
        file=sys.stderr,
    )
    sys.exit(2)
