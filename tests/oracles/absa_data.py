"""Seeded generator of sentiment-tuple records for the parity tests and the benchmark.

Records look like a staged Korean/English ABSA pipeline's output: gold tuples, a first stage that
mostly agrees with gold, and a final stage derived from the first with some edits. Surface noise
(case, spacing, full-width and typographic punctuation), polarity abbreviations, typos and junk,
missing fields and, on request, malformed records are mixed in.
"""

from __future__ import annotations

import random
from typing import Any

TERMS = [
    "배터리",
    "배터리 수명",
    "화면",
    "디자인",
    "가격",
    "배송",
    "음질",
    "카메라",
    "충전 속도",
    "포장",
    "battery",
    "battery life",
    "screen",
    "price",
    "Sound Quality",
    "camera",
    "delivery",
    "design",
    "keyboard",
    "customer service",
    "Ünïcode Café",
    "ΟΔΟΣ",
    "Экран",
    "ＳＣＲＥＥＮ",
    "İstanbul",
    "",
]
REFS = ["제품 전체#품질", "제품 전체 # 가격", "배송#일반", "PRODUCT#QUALITY", "SERVICE # GENERAL", "디자인#일반", ""]
POLARITIES = [
    "positive",
    "negative",
    "neutral",
    "mixed",
    "pos",
    "neg",
    "neu",
    "POS",
    " Positive ",
    "positve",
    "negatve",
    "neutrl",
    "positiveitive",
    "good",
    "긍정",
    "",
    None,
]
PREFIX = ["", "", "", " ", "“", "'", "  "]
SUFFIX = ["", "", "", ".", "!", "，", "。", "！", "?", "”", "…", "  ", " ."]


def _surface(rng: random.Random, term: str) -> str:
    if rng.random() < 0.3:
        term = term.upper() if rng.random() < 0.5 else term.title()
    if rng.random() < 0.2:
        term = term.replace(" ", "  ")
    return rng.choice(PREFIX) + term + rng.choice(SUFFIX)


def _tuple(rng: random.Random, term: str, polarity: str | None, gold: bool) -> dict[str, Any]:
    t: dict[str, Any] = {"aspect_ref": rng.choice(REFS)}
    r = rng.random()
    if gold and r < 0.05:
        t["opinion_term"] = {"term": _surface(rng, term)}
    elif gold and r < 0.08:
        t["term"] = term
    elif not (r < 0.1 and not gold):
        t["aspect_term"] = _surface(rng, term) if rng.random() < 0.5 else term
    if polarity is not None or rng.random() < 0.5:
        t["polarity"] = polarity
    if rng.random() < 0.3:
        t["span"] = [rng.randrange(50), rng.randrange(50, 100)]
    return t


def _bad_record(rng: random.Random, index: int) -> Any:
    kind = rng.randrange(8)
    if kind == 0:
        return ["not", "an", "object"]
    if kind == 1:
        return {"id": index, "stages": {"stage1": [], "final": []}}
    if kind == 2:
        return {"id": index, "gold": "배터리", "stages": {"stage1": [], "final": []}}
    if kind == 3:
        return {"id": index, "gold": [], "stages": {"stage1": []}}
    if kind == 4:
        return {"id": index, "gold": [{"aspect_term": 5, "polarity": "positive"}], "stage1": [], "final": []}
    if kind == 5:
        return {"id": index, "gold": [], "stages": {"stage1": [["배터리", "positive"]], "final": []}}
    if kind == 6:
        return {"id": index, "gold": [{"aspect_term": "x", "polarity": 1}], "stages": {"stage1": [], "final": []}}
    return {"id": index, "gold": [{"opinion_term": "맛", "polarity": "pos"}], "stages": {"stage1": [], "final": []}}


def generate(n_records: int, seed: int = 0, *, bad_fraction: float = 0.02, tuples_per_record: int = 3) -> list[Any]:
    """*n_records* records with about *tuples_per_record* gold tuples each (and as many per stage)."""
    rng = random.Random(seed)
    records: list[Any] = []
    for index in range(n_records):
        if rng.random() < bad_fraction:
            records.append(_bad_record(rng, index))
            continue
        n_gold = max(0, tuples_per_record + rng.randrange(-2, 3))
        gold_pairs = [(rng.choice(TERMS), rng.choice(POLARITIES[:4])) for _ in range(n_gold)]
        gold = [_tuple(rng, term, pol, True) for term, pol in gold_pairs]
        stage1 = []
        for term, pol in gold_pairs:
            r = rng.random()
            if r < 0.1:
                continue  # missed
            if r < 0.25:
                pol = rng.choice(POLARITIES)
            elif r < 0.3:
                term = rng.choice(TERMS)
            stage1.append(_tuple(rng, term, pol, False))
        if rng.random() < 0.2:
            stage1.append(_tuple(rng, rng.choice(TERMS), rng.choice(POLARITIES), False))
        final = []
        for t in stage1:
            r = rng.random()
            if r < 0.05:
                continue
            t = dict(t)
            if r < 0.15:
                t["polarity"] = rng.choice(POLARITIES)
            elif r < 0.2:
                t["aspect_term"] = _surface(rng, rng.choice(TERMS))
            final.append(t)
        if rng.random() < 0.05:
            final.append(_tuple(rng, rng.choice(TERMS), rng.choice(POLARITIES), False))
        if rng.random() < 0.5:
            record: dict[str, Any] = {"id": f"r{index}", "gold": gold, "stages": {"stage1": stage1, "final": final}}
        else:
            record = {"id": index, "gold": gold, "stage1": stage1, "final": final}
        records.append(record)
    return records
