"""The rules of the absa task: what :mod:`rapidgrade.tasks.absa` normalizes and how it keys tuples.

Aspect terms, references, polarities (with optional edit-distance repair), polarity
distributions and character spans; the evaluation key of a tuple; and the original pipeline's
evaluation helpers (gold rows to tuples, reference- and attribute-level pairs). The string rules
run in the C++ core (``rapidgrade._core.absa_*``), one call per string, linear in its length.
:mod:`rapidgrade.tasks.absa` re-exports every public name here and states the policies (P0-P2)
these functions follow; import them from there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from rapidgrade import _core

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


def canonicalize_polarity_with_repair(s: str | None, *, default_missing: str = "neutral") -> tuple[str | None, bool]:
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
