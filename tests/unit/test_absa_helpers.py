"""The original ABSA pipeline's evaluation helpers in rapidgrade.tasks.absa: gold_row_to_tuples,
tuples_to_ref_pairs, tuples_to_attr_pairs and gold_tuple_set_from_record.

The oracle below restates the original pipeline's rules (tuple order, which list wins, what is
counted as invalid) with rapidgrade's normalizers, so the differences that come from those
normalizers (listed in docs/tasks/absa.md) are not differences here; they have their own tests.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade.tasks.absa import (
    EvalTuple,
    eval_key,
    gold_aspect_term,
    gold_row_to_tuples,
    gold_tuple_set_from_record,
    normalize_for_eval,
    normalize_polarity,
    normalize_ref_for_eval,
    score,
    tuples_to_attr_pairs,
    tuples_to_ref_pairs,
)

# -- oracle -----------------------------------------------------------------------------------


def oracle_ref_pairs(tuples: set[EvalTuple]) -> tuple[set[tuple[str, str]], int]:
    pairs, invalid = set(), 0
    for ref, _, pol in tuples:
        key = normalize_ref_for_eval(ref) if ref else ""
        if key == "":
            invalid += 1
        else:
            pairs.add((key, normalize_polarity(pol)))
    return pairs, invalid


def oracle_attr_pairs(tuples: set[EvalTuple]) -> tuple[set[tuple[str, str]], int, int]:
    pairs, invalid, missing_hash = set(), 0, 0
    for ref, _, pol in tuples:
        key = normalize_ref_for_eval(ref or "")
        if not key:
            invalid += 1
        elif "#" not in key:
            missing_hash += 1
            invalid += 1
        elif not key.split("#", 1)[1].strip():
            invalid += 1
        else:
            pairs.add((normalize_for_eval(key.split("#", 1)[1].strip()), normalize_polarity(pol)))
    return pairs, invalid, missing_hash


# -- examples ---------------------------------------------------------------------------------


def test_gold_row_prefers_gold_tuples() -> None:
    row = {
        "gold_tuples": [{"aspect_ref": "제품 전체#품질", "aspect_term": "배터리", "polarity": "POS"}],
        "gold_triplets": [{"aspect_ref": "서비스#일반", "opinion_term": {"term": "친절"}, "polarity": "neg"}],
    }
    assert gold_row_to_tuples(row) == (
        [{"aspect_ref": "제품 전체#품질", "aspect_term": "배터리", "polarity": "positive"}],
        False,
    )
    # an empty gold_tuples list falls back to gold_triplets (opinion_term.term is the term)
    row["gold_tuples"] = []
    assert gold_row_to_tuples(row) == (
        [{"aspect_ref": "서비스#일반", "aspect_term": "친절", "polarity": "negative"}],
        False,
    )


def test_gold_row_terms_refs_and_polarities() -> None:
    rows = [
        {"term": " screen ", "label": "neg"},  # term is the ref and the term; label is the polarity
        {"aspect_ref": "A#B", "aspect_term": ""},  # explicit empty term stays empty; no polarity
        "not a tuple",
        {"aspect_ref": None, "aspect_term": "battery", "polarity": "Mixed"},
    ]
    assert gold_row_to_tuples({"gold_triplets": rows}) == (
        [
            {"aspect_ref": "screen", "aspect_term": "screen", "polarity": "negative"},
            {"aspect_ref": "A#B", "aspect_term": "", "polarity": "neutral"},
            {"aspect_ref": "", "aspect_term": "battery", "polarity": "mixed"},
        ],
        False,
    )
    assert gold_row_to_tuples({"gold_triplets": rows}, default_missing_polarity=None) == (
        [
            {"aspect_ref": "screen", "aspect_term": "screen", "polarity": "negative"},
            {"aspect_ref": "", "aspect_term": "battery", "polarity": "mixed"},
        ],
        True,
    )
    assert gold_row_to_tuples({}) == ([], False)
    assert gold_row_to_tuples({"gold_tuples": None, "gold_triplets": "x"}) == ([], False)


def test_gold_row_errors() -> None:
    with pytest.raises(TypeError, match="row must be a mapping"):
        gold_row_to_tuples([])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="polarity"):
        gold_row_to_tuples({"gold_tuples": [{"polarity": 1}]})


def test_ref_and_attr_pairs() -> None:
    tuples = {
        ("제품 전체 # 품질", "배터리", "pos"),
        ("제품 전체#품질", "", "positive"),  # the same pair once normalized
        ("", "화면", "neg"),  # no reference: invalid
        ("서비스", "직원", "neg"),  # no '#': invalid for attributes only
        ("가격#", "", "neu"),  # nothing after '#': invalid for attributes only
        ("A#B#C", "", "mixed"),
    }
    assert tuples_to_ref_pairs(tuples) == (
        {("제품 전체#품질", "positive"), ("서비스", "negative"), ("가격#", "neutral"), ("A#B#C", "mixed")},
        1,
    )
    counters: dict[str, int] = {"other": 7}
    assert tuples_to_attr_pairs(tuples, counters) == ({("품질", "positive"), ("b#c", "mixed")}, 3)
    assert counters == {"other": 7, "attr_split_missing_hash": 1}
    assert tuples_to_ref_pairs(set()) == (set(), 0)
    assert tuples_to_attr_pairs([]) == (set(), 0)


def test_gold_set_from_record() -> None:
    gold = [
        {"aspect_ref": "제품 전체 # 품질", "aspect_term": "배터리!", "polarity": "pos"},
        {"aspect_ref": "서비스#일반", "aspect_term": "", "polarity": "neg"},
        {"aspect_ref": "서비스#일반", "aspect_term": "", "polarity": "negative"},  # the same key
    ]
    expected = {("제품 전체#품질", "배터리", "positive"), ("서비스#일반", "", "negative")}
    assert gold_tuple_set_from_record({"gold_tuples": gold}) == expected
    assert gold_tuple_set_from_record({"inputs": {"gold_tuples": gold}}) == expected
    assert gold_tuple_set_from_record({"gold_triplets": gold}) == expected
    assert gold_tuple_set_from_record({"gold_tuples": [], "inputs": {"gold_triplets": gold}}) == expected
    assert gold_tuple_set_from_record({}) is None
    assert gold_tuple_set_from_record({"gold_tuples": ["x"]}) is None  # nothing usable
    without = [*gold, {"aspect_term": "화면"}]
    assert gold_tuple_set_from_record({"gold_tuples": without}) == expected | {("", "화면", "neutral")}
    # no default for a missing polarity: the record is excluded
    assert gold_tuple_set_from_record({"gold_tuples": without}, default_missing_polarity=None) is None
    with pytest.raises(TypeError, match="inputs must be a mapping"):
        gold_tuple_set_from_record({"inputs": ["x"]})


def test_invalid_polarity_stays_invalid() -> None:
    # the original pipeline maps an unknown label to the default ("neutral"); here it is kept,
    # folded, and never matches a valid label (the scorer's rule, policy P2)
    got = gold_row_to_tuples({"gold_tuples": [{"aspect_ref": "A#B", "polarity": "Good"}]})
    assert got == ([{"aspect_ref": "A#B", "aspect_term": "A#B", "polarity": "good"}], False)
    assert tuples_to_ref_pairs({("A#B", "", "Good")}) == ({("A#B", "good")}, 0)


def test_helpers_use_the_one_normalization() -> None:
    # the normalizers' own differences from the original pipeline (docs/tasks/absa.md)
    assert normalize_for_eval("(battery)") == "(battery)"  # the original strips ()[]{}`
    assert normalize_ref_for_eval("패키지/구성품#품질") == "패키지/구성품#품질"  # the original rewrites /
    # an empty opinion_term.term falls through to aspect_ref (the original keeps "")
    assert gold_aspect_term({"opinion_term": {"term": ""}, "aspect_ref": "A#B"}) == "A#B"


# -- properties -------------------------------------------------------------------------------

texts = st.one_of(st.none(), st.text(alphabet=st.sampled_from(" #!.Aa가나/:"), max_size=8))
polarities = st.one_of(st.none(), st.sampled_from(["pos", "NEG", "neutral", "mixed", "", "good", " Neu "]))
eval_tuples = st.tuples(
    st.text(alphabet=st.sampled_from(" #!.Aa가나"), max_size=8),
    st.text(max_size=4),
    st.sampled_from(["pos", "negative", "neu", "mixed", "bad"]),
)
gold_dicts = st.fixed_dictionaries(
    {},
    optional={
        "aspect_ref": texts,
        "aspect_term": texts,
        "term": texts,
        "polarity": polarities,
        "label": polarities,
        "opinion_term": st.one_of(st.none(), st.fixed_dictionaries({"term": texts})),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.sets(eval_tuples, max_size=8))
def test_pairs_match_the_oracle(tuples: set[EvalTuple]) -> None:
    assert tuples_to_ref_pairs(tuples) == oracle_ref_pairs(tuples)
    counters: dict[str, int] = {}
    pairs, invalid = tuples_to_attr_pairs(tuples, counters)
    o_pairs, o_invalid, o_missing = oracle_attr_pairs(tuples)
    assert (pairs, invalid) == (o_pairs, o_invalid)
    assert counters.get("attr_split_missing_hash", 0) == o_missing
    # every tuple is a pair or an invalid one (pairs may merge)
    assert len(tuples_to_ref_pairs(tuples)[0]) + tuples_to_ref_pairs(tuples)[1] <= len(tuples)


@settings(max_examples=300, deadline=None)
@given(st.lists(gold_dicts, max_size=6), st.sampled_from(["neutral", None]))
def test_gold_rows(gold: list[dict[str, Any]], default: str | None) -> None:
    row = {"gold_tuples": gold}
    before = copy.deepcopy(row)
    tuples, has_missing = gold_row_to_tuples(row, default)
    assert row == before  # nothing is written to the caller's data
    lacking = [t for t in gold if not (t.get("polarity") or "").strip() and not (t.get("label") or "").strip()]
    if default is None:
        assert has_missing == bool(lacking) and len(tuples) == len(gold) - len(lacking)
    else:
        assert not has_missing and len(tuples) == len(gold)
    for t in tuples:
        assert set(t) == {"aspect_ref", "aspect_term", "polarity"}
        assert t["aspect_ref"] == t["aspect_ref"].strip() and t["aspect_term"] == t["aspect_term"].strip()


@settings(max_examples=200, deadline=None)
@given(st.lists(gold_dicts, min_size=1, max_size=6))
def test_gold_set_agrees_with_the_scorer(gold: list[dict[str, Any]]) -> None:
    """Projected on (term, polarity), the gold set is the scorer's gold key set (policy P0). The
    scorer reads ``polarity`` only, so the original pipeline's ``label`` is left out here."""
    gold = [{k: v for k, v in t.items() if k != "label"} for t in gold]
    record: Mapping[str, Any] = {"gold_tuples": gold}
    got = gold_tuple_set_from_record(record)
    assert got is not None
    keys = {(k.term, k.polarity) for k in (eval_key(t, gold=True) for t in gold)}
    assert {(term, pol) for _, term, pol in got} == keys
    card = score(
        [{"gold": gold, "final": [{"aspect_term": term, "polarity": pol} for term, pol in keys]}], stages=("final",)
    )
    assert card.gold.unique == len(keys)
