"""Plain-Python reference of rapidgrade.tasks.absa: the same rules, written the obvious way.

Used as the parity oracle (tests/parity/test_absa_parity.py) and as the baseline that
benchmarks/bench_absa.py times rapidgrade against. ``score`` returns the same JSON form as
``rapidgrade.tasks.absa.Scorecard.to_dict()``. Nothing here calls rapidgrade.
"""

from __future__ import annotations

from typing import Any

LABELS = ("positive", "negative", "neutral", "mixed")
WHITELIST = {
    "pos": "positive",
    "neg": "negative",
    "neu": "neutral",
    "positive": "positive",
    "negative": "negative",
    "neutral": "neutral",
    "mixed": "mixed",
}
REPAIR_TARGETS = ("positive", "negative", "neutral")
EDGE_PUNCT = (
    ".,;:!?\"'"
    "\u00a1\u00ab\u00bb\u00bf\u037e\u0387\u060c\u061b\u061f"
    "\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u201f\u2026\u2039\u203a\u203c\u203d\u2047\u2048\u2049"
    "\u3001\u3002\u301d\u301e\u301f"
    "\ufe10\ufe11\ufe12\ufe13\ufe14\ufe15\ufe16"
    "\ufe50\ufe51\ufe52\ufe54\ufe55\ufe56\ufe57"
    "\uff01\uff02\uff07\uff0c\uff0e\uff1a\uff1b\uff1f\uff61\uff64"
)


def normalize_for_eval(s: str | None) -> str:
    if s is None:
        return ""
    s = " ".join(s.strip().lower().split())
    return s.strip(EDGE_PUNCT + " ")


def normalize_ref_for_eval(s: str | None) -> str:
    if s is None:
        return ""
    s = " ".join(s.split())
    return s.replace(" #", "#").replace("# ", "#")


def normalize_polarity(s: str | None, default_missing: str = "neutral") -> str:
    if s is None:
        return default_missing
    t = s.strip().lower()
    if not t:
        return default_missing
    return WHITELIST.get(t, t)


def levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def canonicalize_polarity_with_repair(s: str | None, default_missing: str = "neutral") -> tuple[str | None, bool]:
    if s is None:
        return default_missing, False
    t = s.strip().lower()
    if not t:
        return default_missing, False
    if t in WHITELIST:
        return WHITELIST[t], False
    hits = [label for label in REPAIR_TARGETS if 1 <= levenshtein(t, label) <= 2]
    if len(hits) == 1:
        return hits[0], True
    return None, False


class Bad(Exception):
    """A record that breaks the documented shape; the message is the reason."""


def _string_field(t: dict[str, Any], field: str, where: str) -> str | None:
    v = t.get(field)
    if v is not None and not isinstance(v, str):
        raise Bad(f"{where}.{field}: expected a string or null, got {type(v).__name__}")
    return v


def gold_term(t: dict[str, Any], where: str) -> str:
    aspect_term = _string_field(t, "aspect_term", where)
    aspect_ref = _string_field(t, "aspect_ref", where)
    term = _string_field(t, "term", where)
    opinion_term = None
    opinion = t.get("opinion_term")
    if opinion is not None:
        if not isinstance(opinion, dict):
            raise Bad(f"{where}.opinion_term: expected an object or null, got {type(opinion).__name__}")
        opinion_term = _string_field(opinion, "term", where + ".opinion_term")
    if aspect_term is not None:
        return aspect_term.strip()
    for candidate in (opinion_term, aspect_ref, term):
        if candidate is not None and candidate.strip():
            return candidate.strip()
    return ""


def _key(
    t: dict[str, Any],
    where: str,
    gold: bool,
    repair: bool,
    default_missing: str,
    stats: dict[str, int],
    allow: set[str] | None,
) -> tuple[str, str]:
    if not isinstance(t, dict):
        raise Bad(f"{where}: not an object (got {type(t).__name__})")
    if gold:
        term = gold_term(t, where)
    else:
        term = _string_field(t, "aspect_term", where) or ""
        ref = _string_field(t, "aspect_ref", where)
    polarity = _string_field(t, "polarity", where)
    if polarity is None or not polarity.strip():
        label = default_missing
        stats["missing_polarity"] += 1
    elif repair and not gold:
        repaired, was_repaired = canonicalize_polarity_with_repair(polarity, default_missing)
        if repaired is None:
            label = polarity.strip().lower()
            stats["invalid_polarity"] += 1
        else:
            label = repaired
            stats["repaired_polarity"] += was_repaired
    else:
        label = normalize_polarity(polarity, default_missing)
        if label not in LABELS:
            stats["invalid_polarity"] += 1
    if not gold and allow is not None and ref is not None:
        r = normalize_ref_for_eval(ref)
        if r and r not in allow:
            stats["invalid_ref"] += 1
    return (normalize_for_eval(term), label)


def _empty_stats() -> dict[str, int]:
    return {
        "tuples": 0,
        "unique": 0,
        "matched": 0,
        "exact": 0,
        "invalid_polarity": 0,
        "repaired_polarity": 0,
        "missing_polarity": 0,
        "invalid_ref": 0,
    }


def _group(
    tuples: list[Any],
    where: str,
    gold: bool,
    repair: bool,
    default_missing: str,
    stats: dict[str, int],
    allow: set[str] | None,
) -> set[tuple[str, str]]:
    keys = set()
    for i, t in enumerate(tuples):
        keys.add(_key(t, f"{where}[{i}]", gold, repair, default_missing, stats, allow))
    stats["tuples"] += len(tuples)
    return keys


def _record(record: Any, stages: list[str], repair: bool, default_missing: str, allow: set[str] | None):
    if not isinstance(record, dict):
        raise Bad(f"record is not an object (got {type(record).__name__})")
    gold_stats = _empty_stats()
    stage_stats = [_empty_stats() for _ in stages]
    gold = record.get("gold")
    if gold is None:
        raise Bad("missing 'gold'")
    if not isinstance(gold, list):
        raise Bad(f"'gold' is not a list (got {type(gold).__name__})")
    gold_keys = _group(gold, "gold", True, repair, default_missing, gold_stats, allow)
    source, prefix = record, ""
    if "stages" in record:
        source, prefix = record["stages"], "stages."
        if not isinstance(source, dict):
            raise Bad(f"'stages' is not an object (got {type(source).__name__})")
    stage_keys = []
    for name, stats in zip(stages, stage_stats):
        lst = source.get(name)
        where = prefix + name
        if lst is None:
            raise Bad(f"missing stage '{where}'")
        if not isinstance(lst, list):
            raise Bad(f"'{where}' is not a list (got {type(lst).__name__})")
        stage_keys.append(_group(lst, where, False, repair, default_missing, stats, allow))
    return gold_keys, gold_stats, stage_keys, stage_stats


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def transition_pairs(n: int) -> list[tuple[int, int]]:
    pairs = [(k, k + 1) for k in range(n - 1)]
    if n > 2:
        pairs.append((0, n - 1))
    return pairs


def score(
    records: list[Any],
    stages: tuple[str, ...] = ("stage1", "final"),
    repair: bool = False,
    default_missing: str = "neutral",
    ref_allowlist: list[str] | None = None,
) -> dict[str, Any]:
    stages = list(stages)
    allow = None if ref_allowlist is None else {normalize_ref_for_eval(r) for r in ref_allowlist}
    pairs = transition_pairs(len(stages))
    gold_total = _empty_stats()
    stage_total = [_empty_stats() for _ in stages]
    changed = [0] * len(pairs)
    broke = [0] * len(pairs)
    fixed = [0] * len(pairs)
    bad = []
    scored = 0
    for index, record in enumerate(records):
        try:
            gold_keys, gold_stats, stage_keys, stage_stats = _record(record, stages, repair, default_missing, allow)
        except Bad as e:
            rid = record.get("id") if isinstance(record, dict) else None
            bad.append({"index": index, "id": rid, "reason": str(e)})
            continue
        scored += 1
        for k in gold_total:
            gold_total[k] += gold_stats[k]
        gold_total["unique"] += len(gold_keys)
        exact = []
        for keys, stats, total in zip(stage_keys, stage_stats, stage_total):
            matched = sum(1 for key in keys & gold_keys if key[1] in LABELS)
            stats["unique"] = len(keys)
            stats["matched"] = matched
            stats["exact"] = int(matched == len(gold_keys) == len(keys))
            exact.append(bool(stats["exact"]))
            for k in total:
                total[k] += stats[k]
        for p, (a, b) in enumerate(pairs):
            changed[p] += stage_keys[a] != stage_keys[b]
            broke[p] += exact[a] and not exact[b]
            fixed[p] += exact[b] and not exact[a]
    stage_out = {}
    for name, c in zip(stages, stage_total):
        precision = _ratio(c["matched"], c["unique"])
        recall = _ratio(c["matched"], gold_total["unique"])
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        stage_out[name] = {
            "precision": precision,
            "recall": recall,
            "f1": f1,
            "matched": c["matched"],
            "predicted": c["unique"],
            "gold": gold_total["unique"],
            "tuples": c["tuples"],
            "exact": c["exact"],
            "invalid_polarity": c["invalid_polarity"],
            "repaired_polarity": c["repaired_polarity"],
            "missing_polarity": c["missing_polarity"],
            "invalid_ref": c["invalid_ref"] if allow is not None else None,
        }
    return {
        "task": "absa",
        "options": {
            "stages": stages,
            "repair": repair,
            "default_missing": default_missing,
            "ref_allowlist": None if ref_allowlist is None else len(ref_allowlist),
        },
        "records": {"total": len(records), "scored": scored, "bad": len(bad)},
        "bad_records": bad,
        "gold": {
            "tuples": gold_total["tuples"],
            "unique": gold_total["unique"],
            "invalid_polarity": gold_total["invalid_polarity"],
            "missing_polarity": gold_total["missing_polarity"],
        },
        "stages": stage_out,
        "transitions": [
            {
                "from": stages[a],
                "to": stages[b],
                "changed": changed[p],
                "changed_rate": _ratio(changed[p], scored),
                "break": broke[p],
                "break_rate": _ratio(broke[p], scored),
                "fix": fixed[p],
                "fix_rate": _ratio(fixed[p], scored),
            }
            for p, (a, b) in enumerate(pairs)
        ],
    }
