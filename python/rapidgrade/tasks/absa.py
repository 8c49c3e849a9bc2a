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
below and the batch scorer both call that implementation. Lower-casing is Unicode-aware: ASCII
is lower-cased by the core, and strings with other cased letters (Latin, Greek with its final
sigma, Cyrillic, full-width ``Ａ``...) by Python's :meth:`str.lower` first. Hangul has no case.

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
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from rapidgrade import _core
from rapidgrade._io import InputRow, UsageError, iter_rows
from rapidgrade.report import bar_chart, cards_html, table_html
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

#: The canonical polarity labels (the whitelist's targets).
POLARITIES: tuple[str, ...] = ("positive", "negative", "neutral", "mixed")


# ---------------------------------------------------------------------------------------------
# Rules


def normalize_for_eval(s: str | None) -> str:
    """The evaluation form of an aspect term.

    ``None`` gives ``""``; otherwise: strip, lower-case (Unicode-aware), collapse runs of
    whitespace to one space, and strip leading and trailing punctuation (``.,;:!?"'`` and their
    full-width and typographic forms: ``，。、．！？：；＂＇“”‘’…`` ...) together with any
    whitespace this exposes.

    >>> normalize_for_eval("  The   Battery Life!! ")
    'the battery life'
    >>> normalize_for_eval("“배터리  수명”。")
    '배터리 수명'
    >>> normalize_for_eval("ＳＣＲＥＥＮ！")
    'ｓｃｒｅｅｎ'
    >>> normalize_for_eval(None)
    ''

    Raises:
        TypeError: *s* is neither ``str`` nor ``None``.
    """
    return _core.absa_normalize_for_eval(s)


def normalize_ref_for_eval(s: str | None) -> str:
    """The evaluation form of an aspect reference (category) such as ``"제품 전체#품질"``.

    ``None`` gives ``""``; otherwise: strip, collapse whitespace to one space and remove the
    spaces around ``#``. Case and every symbol are kept: ``#`` is never removed or replaced.

    >>> normalize_ref_for_eval(" 제품 전체 # 품질 ")
    '제품 전체#품질'
    >>> normalize_ref_for_eval("FOOD  #QUALITY")
    'FOOD#QUALITY'
    >>> normalize_ref_for_eval("a#b#c")
    'a#b#c'

    Raises:
        TypeError: *s* is neither ``str`` nor ``None``.
    """
    return _core.absa_normalize_ref_for_eval(s)


def normalize_polarity(s: str | None, default_missing: str = "neutral") -> str:
    """The whitelisted polarity label of *s*.

    Case-insensitive, surrounding whitespace ignored: ``pos``/``neg``/``neu`` become
    ``positive``/``negative``/``neutral``; ``positive``, ``negative``, ``neutral`` and ``mixed``
    stay. ``None``, ``""`` or whitespace give *default_missing* (returned as given). Anything
    else is returned stripped and lower-cased, which is not in :data:`POLARITIES`: the caller
    sees it is invalid. No repair (see :func:`canonicalize_polarity_with_repair`).

    >>> normalize_polarity("POS")
    'positive'
    >>> normalize_polarity(" Mixed ")
    'mixed'
    >>> normalize_polarity(None)
    'neutral'
    >>> normalize_polarity("", default_missing="positive")
    'positive'
    >>> normalize_polarity("Positve")
    'positve'
    >>> normalize_polarity("긍정")
    '긍정'

    Raises:
        TypeError: *s* is neither ``str`` nor ``None``.
    """
    return _core.absa_normalize_polarity(s, default_missing)


def canonicalize_polarity_with_repair(
    s: str | None, *, default_missing: str = "neutral"
) -> tuple[str | None, bool]:
    """``(label, was_repaired)``: the whitelist first, then edit-distance repair.

    A whitelisted value (see :func:`normalize_polarity`) gives ``(label, False)``. Otherwise, if
    the stripped, lower-cased value is at edit distance 1 or 2 (:func:`rapidgrade.edit_distance`,
    in the core) from exactly one of ``positive``/``negative``/``neutral``, it gives
    ``(that label, True)``. A value farther away, or as near to two labels, gives
    ``(None, False)``. ``None`` or empty gives ``(default_missing, False)``, as in
    :func:`normalize_polarity`.

    >>> canonicalize_polarity_with_repair("neg")
    ('negative', False)
    >>> canonicalize_polarity_with_repair("positve")
    ('positive', True)
    >>> canonicalize_polarity_with_repair("NEGATVE")
    ('negative', True)
    >>> canonicalize_polarity_with_repair("positiveitive")
    (None, False)
    >>> canonicalize_polarity_with_repair("긍정")
    (None, False)

    Raises:
        TypeError: *s* is neither ``str`` nor ``None``.
    """
    return _core.absa_canonicalize_polarity_with_repair(s, default_missing)


def normalize_polarity_distribution(d: Mapping[str, float] | None) -> dict[str, float]:
    """A polarity distribution with full label names; values of merged keys are summed.

    Keys go through :func:`normalize_polarity` (an empty key stays ``""``), so ``pos``, ``POS``
    and ``positive`` merge. Key order is that of first occurrence. ``None`` gives ``{}``.

    >>> normalize_polarity_distribution({"pos": 0.5, "Positive": 0.25, "neg": 0.25})
    {'positive': 0.75, 'negative': 0.25}
    >>> normalize_polarity_distribution({"neu": 3, "mixed": 1})
    {'neutral': 3, 'mixed': 1}

    Raises:
        TypeError: a key is not ``str`` or a value is not a real number.
    """
    out: dict[str, float] = {}
    if d is None:
        return out
    for key, value in d.items():
        if not isinstance(key, str):
            raise TypeError(f"normalize_polarity_distribution: keys must be str, not {type(key).__name__}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(
                f"normalize_polarity_distribution: value of {key!r} must be a number, not {type(value).__name__}"
            )
        label = normalize_polarity(key, default_missing="")
        out[label] = out[label] + value if label in out else value
    return out


def _optional_str(t: Mapping[str, Any], field: str, function: str) -> str | None:
    value = t.get(field)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{function}: {field} must be str or None, not {type(value).__name__}")
    return value


def finalize_refs(tuples: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Unify ``aspect_ref`` within groups of tuples that share an aspect term.

    Tuples are grouped by ``normalize_for_eval(aspect_term)``, or by
    ``normalize_ref_for_eval(aspect_ref)`` when the term is empty. Every member's ``aspect_ref``
    becomes the first member's ``aspect_term`` (stripped) or, when that is empty, its
    ``aspect_ref``. Returns new dicts (the input is not modified, policy P1); each keeps its
    original reference in ``aspect_ref_original`` (an existing ``aspect_ref_original`` is kept,
    so finalizing twice does not lose it). The evaluation key never uses ``aspect_ref`` (P0), so
    this changes no metric.

    >>> out = finalize_refs([
    ...     {"aspect_term": "배터리", "aspect_ref": "제품 전체#품질", "polarity": "positive"},
    ...     {"aspect_term": "배터리!", "aspect_ref": "배터리#일반", "polarity": "negative"},
    ...     {"aspect_term": "", "aspect_ref": "서비스#일반", "polarity": "neutral"},
    ... ])
    >>> [(t["aspect_ref"], t["aspect_ref_original"]) for t in out]
    [('배터리', '제품 전체#품질'), ('배터리', '배터리#일반'), ('서비스#일반', '서비스#일반')]

    Raises:
        TypeError: a tuple is not a mapping, or its ``aspect_term``/``aspect_ref`` is neither
            ``str`` nor ``None``.
    """
    first: dict[tuple[str, str], str | None] = {}
    out: list[dict[str, Any]] = []
    for t in tuples:
        if not isinstance(t, Mapping):
            raise TypeError(f"finalize_refs: tuples must be mappings, not {type(t).__name__}")
        term = _optional_str(t, "aspect_term", "finalize_refs")
        ref = _optional_str(t, "aspect_ref", "finalize_refs")
        norm_term = normalize_for_eval(term)
        key = ("term", norm_term) if norm_term else ("ref", normalize_ref_for_eval(ref))
        if key not in first:
            stripped = term.strip() if term is not None else ""
            first[key] = stripped or ref
        new = dict(t)
        if "aspect_ref_original" not in new:
            new["aspect_ref_original"] = ref
        new["aspect_ref"] = first[key]
        out.append(new)
    return out


def gold_aspect_term(row: Mapping[str, Any]) -> str:
    """The aspect term of a gold tuple, as gold loading and the scorer take it.

    An explicit empty ``aspect_term`` (present, a string, empty after stripping) stays ``""``:
    it is *not* filled from ``aspect_ref`` (implicit aspects stay implicit). Otherwise the first
    non-empty of ``aspect_term``, ``opinion_term["term"]``, ``aspect_ref``, ``term``, stripped;
    ``""`` when there is none. A null field counts as missing.

    >>> gold_aspect_term({"aspect_term": " 배터리 ", "aspect_ref": "제품 전체#품질"})
    '배터리'
    >>> gold_aspect_term({"aspect_term": "", "aspect_ref": "제품 전체#품질"})
    ''
    >>> gold_aspect_term({"opinion_term": {"term": "fast"}, "aspect_ref": "SPEED"})
    'fast'
    >>> gold_aspect_term({"aspect_term": None, "aspect_ref": "제품 전체#품질"})
    '제품 전체#품질'
    >>> gold_aspect_term({"term": "screen"})
    'screen'

    Raises:
        TypeError: *row* is not a mapping, or a field has the wrong type (a string field that is
            not ``str``/``None``, an ``opinion_term`` that is not a mapping/``None``).
    """
    if not isinstance(row, dict):
        if not isinstance(row, Mapping):
            raise TypeError(f"gold_aspect_term: row must be a mapping, not {type(row).__name__}")
        row = dict(row)
    if isinstance(row.get("opinion_term"), Mapping) and not isinstance(row["opinion_term"], dict):
        row = {**row, "opinion_term": dict(row["opinion_term"])}
    return _core.absa_gold_aspect_term(row)


_SPAN_TEXT = re.compile(r"\s*(\d{1,18})\s*[,:\-]\s*(\d{1,18})\s*", re.ASCII)


def _span(start: object, end: object) -> dict[str, int] | None:
    if isinstance(start, bool) or isinstance(end, bool):
        return None
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    if not 0 <= start <= end:
        return None
    return {"start": start, "end": end}


def normalize_span(v: object) -> dict[str, int] | None:
    """A character span as ``{"start": s, "end": e}``, or ``None`` when *v* is not one.

    Accepted: a mapping with integer ``start`` and ``end``; a list or tuple ``[start, end]``; a
    string ``"12,18"``, ``"12-18"`` or ``"12:18"`` (ASCII digits, spaces allowed). In every case
    ``0 <= start <= end``. Booleans, floats, negative or reversed bounds, and anything else give
    ``None``.

    >>> normalize_span({"start": 3, "end": 7})
    {'start': 3, 'end': 7}
    >>> normalize_span([0, 3])
    {'start': 0, 'end': 3}
    >>> normalize_span("12-18")
    {'start': 12, 'end': 18}
    >>> normalize_span(" 12 : 18 ")
    {'start': 12, 'end': 18}
    >>> normalize_span([5, 2]) is None
    True
    >>> normalize_span("12~18") is None
    True
    """
    if isinstance(v, Mapping):
        return _span(v.get("start"), v.get("end"))
    if isinstance(v, (list, tuple)):
        return _span(v[0], v[1]) if len(v) == 2 else None
    if isinstance(v, str):
        m = _SPAN_TEXT.fullmatch(v) if len(v) <= 64 else None
        return _span(int(m.group(1)), int(m.group(2))) if m else None
    return None


class EvalKey(NamedTuple):
    """The evaluation key of one tuple (policy P0): ``(term, polarity)``.

    ``polarity`` is a label from :data:`POLARITIES`, or the folded text of an invalid polarity,
    in which case ``valid`` is false and the key never matches.
    """

    term: str
    polarity: str
    valid: bool


def eval_key(
    t: Mapping[str, Any], *, gold: bool = False, repair: bool = False, default_missing: str = "neutral"
) -> EvalKey:
    """The key :func:`score` uses for tuple *t*, for inspecting single tuples.

    The term is :func:`gold_aspect_term` for gold tuples and ``aspect_term`` for predicted ones
    (``aspect_ref`` is never used), through :func:`normalize_for_eval`. The polarity goes
    through :func:`normalize_polarity`, or, for predicted tuples with *repair*, through
    :func:`canonicalize_polarity_with_repair`.

    >>> eval_key({"aspect_term": "Battery!", "aspect_ref": "X#Y", "polarity": "POS"})
    EvalKey(term='battery', polarity='positive', valid=True)
    >>> eval_key({"aspect_term": "화면", "polarity": "negatve"}, repair=True)
    EvalKey(term='화면', polarity='negative', valid=True)
    >>> eval_key({"aspect_term": "", "aspect_ref": "제품 전체#품질", "polarity": "good"}, gold=True)
    EvalKey(term='', polarity='good', valid=False)
    """
    term = gold_aspect_term(t) if gold else (_optional_str(t, "aspect_term", "eval_key") or "")
    polarity = _optional_str(t, "polarity", "eval_key")
    label = normalize_polarity(polarity, default_missing)
    if label not in POLARITIES and repair and not gold:
        repaired, _ = canonicalize_polarity_with_repair(polarity, default_missing=default_missing)
        if repaired is not None:
            label = repaired
    return EvalKey(normalize_for_eval(term), label, label in POLARITIES)


# ---------------------------------------------------------------------------------------------
# The original pipeline's evaluation helpers

#: ``(aspect_ref, aspect_term, polarity)``: a tuple as the original pipeline's evaluation holds it.
EvalTuple = tuple[str, str, str]
#: ``(key, polarity)``: what ref-level and attribute-level F1 match.
EvalPair = tuple[str, str]


def _polarity_or_none(t: Mapping[str, Any], default_missing: str | None, function: str) -> str | None:
    """The polarity of *t* (``polarity``, else ``label``) by :func:`normalize_polarity`; a missing
    one takes *default_missing*, which may be ``None``."""
    value = _optional_str(t, "polarity", function) or _optional_str(t, "label", function)
    return _core.absa_normalize_polarity(value, default_missing)


def gold_row_to_tuples(
    row: Mapping[str, Any], default_missing_polarity: str | None = "neutral"
) -> tuple[list[dict[str, str]], bool]:
    """A gold row as ``([{"aspect_ref", "aspect_term", "polarity"}, ...], has_missing)``.

    The tuples are the row's non-empty ``gold_tuples`` list, else its ``gold_triplets`` list;
    entries that are not mappings are skipped. Per tuple: ``aspect_ref`` is ``aspect_ref`` (else
    ``term``) stripped, ``aspect_term`` is :func:`gold_aspect_term`, ``polarity`` is
    :func:`normalize_polarity` of ``polarity`` (else ``label``). A tuple without a polarity takes
    *default_missing_polarity*; when that is ``None`` the tuple is left out and *has_missing* is
    true (the original pipeline then excludes the row from F1). Returns new dicts.

    >>> tuples, has_missing = gold_row_to_tuples({"gold_tuples": [
    ...     {"aspect_ref": " 제품 전체#품질 ", "aspect_term": " 배터리 ", "polarity": "pos"},
    ...     {"aspect_ref": "서비스#일반", "aspect_term": "", "label": "neg"}]})
    >>> tuples[0], tuples[1]["polarity"], has_missing
    ({'aspect_ref': '제품 전체#품질', 'aspect_term': '배터리', 'polarity': 'positive'}, 'negative', False)
    >>> gold_row_to_tuples({"gold_triplets": [{"term": "screen"}]}, default_missing_polarity=None)
    ([], True)

    Raises:
        TypeError: *row* is not a mapping, or a tuple's string field is neither ``str`` nor
            ``None``.
    """
    if not isinstance(row, Mapping):
        raise TypeError(f"gold_row_to_tuples: row must be a mapping, not {type(row).__name__}")
    items = row.get("gold_tuples")
    if not isinstance(items, list) or not items:
        items = row.get("gold_triplets")
        if not isinstance(items, list):
            return [], False
    out: list[dict[str, str]] = []
    has_missing = False
    for t in items:
        if not isinstance(t, Mapping):
            continue
        polarity = _polarity_or_none(t, default_missing_polarity, "gold_row_to_tuples")
        if polarity is None:
            has_missing = True
            continue
        ref = _optional_str(t, "aspect_ref", "gold_row_to_tuples") or _optional_str(t, "term", "gold_row_to_tuples")
        out.append({"aspect_ref": (ref or "").strip(), "aspect_term": gold_aspect_term(t), "polarity": polarity})
    return out, has_missing


def tuples_to_ref_pairs(tuples: Iterable[EvalTuple]) -> tuple[set[EvalPair], int]:
    """``(pairs, invalid_ref_count)`` for reference-level F1: each tuple's
    ``(normalize_ref_for_eval(aspect_ref), normalize_polarity(polarity))``; a tuple whose
    reference is empty is left out and counted.

    >>> sorted(tuples_to_ref_pairs({("제품 전체 # 품질", "배터리", "pos"), ("", "화면", "neg")})[0])
    [('제품 전체#품질', 'positive')]
    >>> tuples_to_ref_pairs({("", "화면", "neg")})[1]
    1
    """
    pairs: set[EvalPair] = set()
    invalid = 0
    for ref, _, polarity in tuples:
        key = normalize_ref_for_eval(ref)
        if not key:
            invalid += 1
            continue
        pairs.add((key, normalize_polarity(polarity)))
    return pairs, invalid


def tuples_to_attr_pairs(
    tuples: Iterable[EvalTuple], debug_counters: dict[str, int] | None = None
) -> tuple[set[EvalPair], int]:
    """``(pairs, invalid_ref_count)`` for attribute-level F1: the attribute of each tuple's
    reference (what follows its first ``#``, through :func:`normalize_for_eval`) with its
    polarity. A tuple whose reference is empty, has no ``#`` or only spaces after it is left out
    and counted; those without ``#`` are also counted in ``debug_counters["attr_split_missing_hash"]``
    when a dict is given (the only thing written to).

    >>> tuples_to_attr_pairs({("제품 전체#품질", "배터리", "positive")})
    ({('품질', 'positive')}, 0)
    >>> counters: dict[str, int] = {}
    >>> tuples_to_attr_pairs({("품질", "", "neg"), ("A#", "", "pos")}, counters), counters
    ((set(), 2), {'attr_split_missing_hash': 1})
    """
    pairs: set[EvalPair] = set()
    invalid = 0
    for ref, _, polarity in tuples:
        key = normalize_ref_for_eval(ref)
        if "#" not in key:
            if key and debug_counters is not None:
                debug_counters["attr_split_missing_hash"] = debug_counters.get("attr_split_missing_hash", 0) + 1
            invalid += 1
            continue
        attr = key.split("#", 1)[1].strip()
        if not attr:
            invalid += 1
            continue
        pairs.add((normalize_for_eval(attr), normalize_polarity(polarity)))
    return pairs, invalid


def gold_tuple_set_from_record(
    record: Mapping[str, Any], default_missing_polarity: str | None = "neutral"
) -> set[EvalTuple] | None:
    """The gold of a scorecard record as a set of :data:`EvalTuple`, or ``None``.

    The gold list is the record's ``gold_tuples`` (else ``inputs.gold_tuples``), else its
    ``gold_triplets`` (else ``inputs.gold_triplets``), read by :func:`gold_row_to_tuples`. Each
    tuple becomes ``(normalize_ref_for_eval(aspect_ref), normalize_for_eval(aspect_term),
    polarity)``; tuples that are empty in all three are dropped. ``None`` when the record has no
    gold, or when *default_missing_polarity* is ``None`` and a gold tuple has no polarity (the
    record is excluded from F1).

    >>> gold_tuple_set_from_record({"inputs": {"gold_tuples": [
    ...     {"aspect_ref": "제품 전체 # 품질", "aspect_term": "배터리!", "polarity": "pos"}]}})
    {('제품 전체#품질', '배터리', 'positive')}
    >>> gold_tuple_set_from_record({"gold_tuples": []}) is None
    True

    Raises:
        TypeError: *record* (or its ``inputs``) is not a mapping, or a tuple's string field is
            neither ``str`` nor ``None``.
    """
    if not isinstance(record, Mapping):
        raise TypeError(f"gold_tuple_set_from_record: record must be a mapping, not {type(record).__name__}")
    inputs = record.get("inputs") or {}
    if not isinstance(inputs, Mapping):
        raise TypeError(f"gold_tuple_set_from_record: inputs must be a mapping, not {type(inputs).__name__}")
    row = {key: record.get(key) or inputs.get(key) for key in ("gold_tuples", "gold_triplets")}
    if not row["gold_tuples"] and not row["gold_triplets"]:
        return None
    gold, has_missing = gold_row_to_tuples(row, default_missing_polarity)
    if (has_missing and default_missing_polarity is None) or not gold:
        return None
    keys = [
        (normalize_ref_for_eval(t["aspect_ref"]), normalize_for_eval(t["aspect_term"]), t["polarity"]) for t in gold
    ]
    return {key for key in keys if any(key)}


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
