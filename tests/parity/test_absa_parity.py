"""Parity of rapidgrade.tasks.absa with the plain-Python oracle (tests/oracles/absa_oracle.py).

The oracle writes each rule the obvious way with str methods (str.lower, str.split, str.strip),
so these tests pin the core's whitespace set, punctuation set and case folding to Python's.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade.tasks import absa
from tests.oracles import absa_data, absa_oracle

# Characters that exercise every branch: ASCII, Hangul, Greek (final sigma), Cyrillic, Latin-1,
# full-width letters and punctuation, typographic quotes, whitespace of several kinds, '#'.
ALPHABET = st.sampled_from(
    list("aAzZ09 #.,;:!?\"'-_()")
    + list("배터리화면가격")
    + list("ΣσςΑΟΔЭКРАНéÉßİ")
    + list("ＡＳｓ，。、！？：；＂＇．“”‘’…«»")
    + ["\t", "\n", "\u3000", "\u00a0", "\u2003", "\u200b", "\u0307"]
)
TEXT = st.text(ALPHABET, max_size=20)


def test_normalize_for_eval_every_code_point() -> None:
    mismatches = []
    for cp in range(0x110000):
        ch = chr(cp)
        for s in (ch, f"ΑΣ{ch}", f" {ch}x{ch} "):
            if absa.normalize_for_eval(s) != absa_oracle.normalize_for_eval(s):
                mismatches.append((hex(cp), s))
        if len(mismatches) > 10:
            break
    assert mismatches == []


def test_normalize_ref_and_polarity_every_code_point() -> None:
    mismatches = []
    for cp in range(0x110000):
        s = f" a {chr(cp)} # b{chr(cp)}"
        if absa.normalize_ref_for_eval(s) != absa_oracle.normalize_ref_for_eval(s):
            mismatches.append(("ref", hex(cp)))
        p = f"{chr(cp)}pos{chr(cp)}"
        if absa.normalize_polarity(p) != absa_oracle.normalize_polarity(p):
            mismatches.append(("polarity", hex(cp)))
        if len(mismatches) > 10:
            break
    assert mismatches == []


@settings(deadline=None)
@given(TEXT)
def test_normalize_for_eval_parity_and_idempotence(s: str) -> None:
    out = absa.normalize_for_eval(s)
    assert out == absa_oracle.normalize_for_eval(s)
    assert absa.normalize_for_eval(out) == out


@settings(deadline=None)
@given(st.text(max_size=30))
def test_normalize_for_eval_parity_any_text(s: str) -> None:
    assert absa.normalize_for_eval(s) == absa_oracle.normalize_for_eval(s)


@settings(deadline=None)
@given(TEXT)
def test_normalize_ref_for_eval_parity_and_idempotence(s: str) -> None:
    out = absa.normalize_ref_for_eval(s)
    assert out == absa_oracle.normalize_ref_for_eval(s)
    assert absa.normalize_ref_for_eval(out) == out
    assert out.count("#") == s.count("#")


POLARITY_TEXT = st.one_of(
    st.sampled_from(["pos", "neg", "neu", "positive", "negative", "neutral", "mixed"]).map(
        lambda w: w.upper() if len(w) % 2 else w.title()
    ),
    st.text(st.sampled_from([*"positvenga lurmxd", "Σ", "é", "\u3000"]), max_size=12),
    st.text(max_size=12),
)


@settings(deadline=None)
@given(POLARITY_TEXT)
def test_polarity_rules_parity(s: str) -> None:
    assert absa.normalize_polarity(s) == absa_oracle.normalize_polarity(s)
    assert absa.canonicalize_polarity_with_repair(s) == absa_oracle.canonicalize_polarity_with_repair(s)


GOLD_FIELD = st.one_of(st.none(), TEXT)


@settings(deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "aspect_term": GOLD_FIELD,
            "aspect_ref": GOLD_FIELD,
            "term": GOLD_FIELD,
            "opinion_term": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"term": GOLD_FIELD})),
        },
    )
)
def test_gold_aspect_term_parity(row: dict[str, Any]) -> None:
    assert absa.gold_aspect_term(row) == absa_oracle.gold_term(row, "row")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("repair", [False, True])
def test_score_parity_generated(seed: int, repair: bool) -> None:
    records = absa_data.generate(2500, seed, bad_fraction=0.03)
    allow = ["제품 전체#품질", "배송 # 일반", "PRODUCT#QUALITY"] if seed % 2 else None
    ours = absa.score(records, repair=repair, ref_allowlist=allow).to_dict()
    assert ours == absa_oracle.score(records, repair=repair, ref_allowlist=allow)
    assert ours["records"]["bad"] > 0 and ours["stages"]["final"]["matched"] > 0


def test_score_parity_across_chunks_and_stage_orders() -> None:
    records = absa_data.generate(9000, 99, bad_fraction=0.01)
    for stages in (("stage1", "final"), ("final", "stage1"), ("stage1",), ("stage1", "final", "stage1x")):
        ours = absa.score(records, stages=stages, threads=2).to_dict()
        assert ours == absa_oracle.score(records, stages=stages)


TUPLE = st.fixed_dictionaries(
    {},
    optional={
        "aspect_term": st.one_of(st.none(), TEXT, st.integers()),
        "aspect_ref": st.one_of(st.none(), TEXT),
        "polarity": st.one_of(st.none(), POLARITY_TEXT),
        "opinion_term": st.one_of(st.none(), st.fixed_dictionaries({"term": TEXT})),
    },
)
RECORD = st.one_of(
    st.fixed_dictionaries(
        {
            "gold": st.lists(TUPLE, max_size=4),
            "stage1": st.lists(TUPLE, max_size=4),
            "final": st.lists(TUPLE, max_size=4),
        }
    ),
    st.fixed_dictionaries(
        {
            "gold": st.lists(TUPLE, max_size=4),
            "stages": st.fixed_dictionaries(
                {"stage1": st.lists(TUPLE, max_size=4)}, optional={"final": st.lists(TUPLE, max_size=4)}
            ),
        }
    ),
    st.just([1]),
)


@settings(deadline=None)
@given(st.lists(RECORD, max_size=8), st.booleans())
def test_score_parity_hypothesis(records: list[Any], repair: bool) -> None:
    assert absa.score(records, repair=repair).to_dict() == absa_oracle.score(records, repair=repair)
