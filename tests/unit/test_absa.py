"""rapidgrade.tasks.absa: every normalization rule, the scorer, bad records, files and the CLI."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import rapidgrade
from rapidgrade.__main__ import main as cli_main
from rapidgrade.tasks import _absa_rules, absa
from rapidgrade.tasks.absa import (
    canonicalize_polarity_with_repair,
    eval_key,
    finalize_refs,
    gold_aspect_term,
    normalize_for_eval,
    normalize_polarity,
    normalize_polarity_distribution,
    normalize_ref_for_eval,
    normalize_span,
    score,
    score_file,
)


def test_docstring_examples() -> None:
    attempted = 0
    for module in (absa, _absa_rules):  # the rules' examples are in the module that defines them
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0
        attempted += result.attempted
    assert attempted >= 40


# ---------------------------------------------------------------------------------------------
# normalize_for_eval


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Battery", "battery"),
        ("  The   Battery\tLife\n", "the battery life"),
        ("battery life!!", "battery life"),
        ('"screen"', "screen"),
        ("'screen';", "screen"),
        ("...price?", "price"),
        ("battery .", "battery"),  # whitespace exposed by the stripped punctuation goes too
        ("U.S.A.", "u.s.a"),  # inner punctuation stays
        ("don't", "don't"),
        ("배터리", "배터리"),
        ("  배터리   수명  ", "배터리 수명"),
        ("배터리 수명이 좋아요!", "배터리 수명이 좋아요"),
        ("“배터리”", "배터리"),
        ("‘화면’", "화면"),
        ("배송，", "배송"),
        ("배송。", "배송"),
        ("배송、", "배송"),
        ("가격！", "가격"),
        ("가격？", "가격"),
        ("가격：", "가격"),
        ("가격；", "가격"),
        ("＂디자인＂", "디자인"),
        ("＇디자인＇", "디자인"),
        ("디자인．", "디자인"),
        ("음질…", "음질"),
        ("음질‼", "음질"),
        ("«prix»", "prix"),
        ("¿precio?", "precio"),
        ("배터리\u3000수명", "배터리 수명"),  # ideographic space
        ("battery\u00a0life", "battery life"),  # no-break space
        ("화면 (디스플레이)", "화면 (디스플레이)"),  # brackets are not edge punctuation
        ("#1 feature", "#1 feature"),
    ],
)
def test_normalize_for_eval_examples(raw: str, expected: str) -> None:
    assert normalize_for_eval(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("CAFÉ", "café"),
        ("ÜBER", "über"),
        ("ΟΔΟΣ", "οδος"),  # final sigma, as str.lower()
        ("ΣΟΦΙΑ", "σοφια"),
        ("ЭКРАН!", "экран"),
        ("ＳＣＲＥＥＮ", "ｓｃｒｅｅｎ"),  # full-width letters lower-case to full-width
        ("İstanbul", "i̇stanbul"),
        ("Straße", "straße"),
        ("배터리 BATTERY", "배터리 battery"),
    ],
)
def test_normalize_for_eval_unicode_lowercase_matches_str_lower(raw: str, expected: str) -> None:
    assert normalize_for_eval(raw) == expected
    assert normalize_for_eval(raw) == " ".join(raw.lower().split()).strip(".,;:!?\"' ")


@pytest.mark.parametrize("raw", [None, "", "   ", "...", "!!!", "。", "“”", " . , ! "])
def test_normalize_for_eval_empty(raw: str | None) -> None:
    assert normalize_for_eval(raw) == ""


def test_normalize_for_eval_types_and_junk() -> None:
    with pytest.raises(TypeError, match="normalize_for_eval"):
        normalize_for_eval(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        normalize_for_eval(b"bytes")  # type: ignore[arg-type]
    assert normalize_for_eval("\ud800X") == "\ud800x"  # lone surrogates survive
    assert normalize_for_eval("a\x00b") == "a\x00b"
    big = "  " + "Ab  " * 500_000 + "!!"
    assert normalize_for_eval(big) == " ".join(["ab"] * 500_000)
    assert normalize_for_eval("!" * 1_000_000) == ""


def test_normalize_for_eval_is_idempotent_on_examples() -> None:
    for raw in ["  The Battery!! ", "“배터리”。", "ΟΔΟΣ .", "ＳＣＲＥＥＮ！", "a . b"]:
        once = normalize_for_eval(raw)
        assert normalize_for_eval(once) == once


# ---------------------------------------------------------------------------------------------
# normalize_ref_for_eval


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("제품 전체 # 품질", "제품 전체#품질"),
        ("  제품  전체#품질 ", "제품 전체#품질"),
        ("제품 전체 #품질", "제품 전체#품질"),
        ("제품 전체#  품질", "제품 전체#품질"),
        ("FOOD # QUALITY", "FOOD#QUALITY"),  # case kept
        ("a # b # c", "a#b#c"),
        ("a ## b", "a##b"),
        ("#", "#"),
        (" # ", "#"),
        ("제품/전체 & 품질!", "제품/전체 & 품질!"),  # other symbols kept
        ("배송\t#\n일반", "배송#일반"),
        (None, ""),
        ("", ""),
    ],
)
def test_normalize_ref_for_eval(raw: str | None, expected: str) -> None:
    assert normalize_ref_for_eval(raw) == expected


def test_normalize_ref_for_eval_never_drops_hash() -> None:
    for raw in ["a#b", "a # b", "#a", "a#", "##", "a#b#c#d"]:
        assert normalize_ref_for_eval(raw).count("#") == raw.count("#")
    with pytest.raises(TypeError):
        normalize_ref_for_eval(1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# normalize_polarity and canonicalize_polarity_with_repair


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("pos", "positive"),
        ("NEG", "negative"),
        ("Neu", "neutral"),
        (" positive ", "positive"),
        ("Negative", "negative"),
        ("NEUTRAL", "neutral"),
        ("mixed", "mixed"),
        ("MIXED", "mixed"),
        ("positve", "positve"),  # no repair here
        ("Good", "good"),
        ("긍정", "긍정"),
        ("ＰＯＳ", "ｐｏｓ"),  # full-width is not whitelisted
    ],
)
def test_normalize_polarity(raw: str, expected: str) -> None:
    assert normalize_polarity(raw) == expected


@pytest.mark.parametrize("raw", [None, "", "   ", "\u3000"])
def test_normalize_polarity_missing(raw: str | None) -> None:
    assert normalize_polarity(raw) == "neutral"
    assert normalize_polarity(raw, default_missing="positive") == "positive"
    assert normalize_polarity(raw, "mixed") == "mixed"


def test_normalize_polarity_type_error() -> None:
    with pytest.raises(TypeError, match="normalize_polarity"):
        normalize_polarity(1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("positive", ("positive", False)),
        ("pos", ("positive", False)),
        ("MIXED", ("mixed", False)),
        ("positve", ("positive", True)),
        ("negatve", ("negative", True)),
        ("neutrl", ("neutral", True)),
        ("Positiv", ("positive", True)),
        ("posittive", ("positive", True)),
        ("psitve", ("positive", True)),  # distance 2
        ("positive.", ("positive", True)),
        (" NEGATIVEE ", ("negative", True)),
        ("neutrall", ("neutral", True)),
        ("positiveitive", (None, False)),  # distance 5
        ("nesitive", (None, False)),  # distance 2 from both positive and negative: ambiguous
        ("good", (None, False)),
        ("긍정", (None, False)),
        ("mixd", (None, False)),  # only positive/negative/neutral are repair targets
        ("ｐｏｓｉｔｉｖｅ", (None, False)),
    ],
)
def test_canonicalize_polarity_with_repair(raw: str, expected: tuple[str | None, bool]) -> None:
    assert canonicalize_polarity_with_repair(raw) == expected


def test_canonicalize_polarity_missing_and_types() -> None:
    assert canonicalize_polarity_with_repair(None) == ("neutral", False)
    assert canonicalize_polarity_with_repair(" ", default_missing="negative") == ("negative", False)
    with pytest.raises(TypeError):
        canonicalize_polarity_with_repair(["pos"])  # type: ignore[arg-type]


def test_repair_agrees_with_edit_distance() -> None:
    targets = ("positive", "negative", "neutral")
    words = [
        "positve",
        "nesitive",
        "negtive",
        "nuetral",
        "neutal",
        "postive",
        "poitive",
        "pos1tive",
        "negativ",
        "ngative",
        "xyz",
        "neutralize",
        "positivity",
        "negatives",
        "neural",
        "netral",
    ]
    for w in words:
        near = [t for t in targets if 1 <= rapidgrade.edit_distance(w, t) <= 2]
        expected = (near[0], True) if len(near) == 1 else (None, False)
        if normalize_polarity(w) in absa.POLARITIES:
            expected = (normalize_polarity(w), False)
        assert canonicalize_polarity_with_repair(w) == expected, w


# ---------------------------------------------------------------------------------------------
# normalize_polarity_distribution


def test_normalize_polarity_distribution() -> None:
    assert normalize_polarity_distribution({"pos": 0.5, "neg": 0.3, "neu": 0.2}) == {
        "positive": 0.5,
        "negative": 0.3,
        "neutral": 0.2,
    }
    merged = normalize_polarity_distribution({"pos": 2, "positive": 3, "POS": 1, "mixed": 4})
    assert merged == {"positive": 6, "mixed": 4}
    assert list(merged) == ["positive", "mixed"]
    assert normalize_polarity_distribution(None) == {}
    assert normalize_polarity_distribution({}) == {}
    assert normalize_polarity_distribution({"긍정": 1.0, "": 2.0}) == {"긍정": 1.0, "": 2.0}


def test_normalize_polarity_distribution_errors() -> None:
    with pytest.raises(TypeError):
        normalize_polarity_distribution({"pos": "0.5"})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        normalize_polarity_distribution({"pos": True})
    with pytest.raises(TypeError):
        normalize_polarity_distribution({1: 0.5})  # type: ignore[dict-item]


# ---------------------------------------------------------------------------------------------
# finalize_refs


def test_finalize_refs_groups_by_term_and_keeps_originals() -> None:
    tuples = [
        {"aspect_term": "Battery", "aspect_ref": "PRODUCT#QUALITY", "polarity": "positive"},
        {"aspect_term": "battery!", "aspect_ref": "BATTERY#GENERAL", "polarity": "negative"},
        {"aspect_term": "배터리", "aspect_ref": "제품 전체#품질", "polarity": "positive"},
        {"aspect_term": "", "aspect_ref": "서비스 # 일반", "polarity": "neutral"},
        {"aspect_term": None, "aspect_ref": "서비스#일반", "polarity": "neutral"},
        {"aspect_ref": "배송#일반", "polarity": "neutral"},
    ]
    snapshot = json.loads(json.dumps(tuples))
    out = finalize_refs(tuples)
    assert tuples == snapshot  # P1: the input is untouched
    assert [t["aspect_ref"] for t in out] == [
        "Battery",
        "Battery",
        "배터리",
        "서비스 # 일반",
        "서비스 # 일반",
        "배송#일반",
    ]
    assert [t["aspect_ref_original"] for t in out] == [t.get("aspect_ref") for t in tuples]
    assert all(o is not t for o, t in zip(out, tuples))
    assert out[0]["polarity"] == "positive"


def test_finalize_refs_twice_keeps_the_first_original() -> None:
    once = finalize_refs([{"aspect_term": " 화면 ", "aspect_ref": "디스플레이#일반"}])
    twice = finalize_refs(once)
    assert twice[0]["aspect_ref"] == "화면"
    assert twice[0]["aspect_ref_original"] == "디스플레이#일반"


def test_finalize_refs_does_not_change_scores() -> None:
    gold = [{"aspect_term": "화면", "aspect_ref": "A#B", "polarity": "pos"}]
    pred = [{"aspect_term": "화면", "aspect_ref": "C#D", "polarity": "positive"}]
    before = score([{"gold": gold, "stage1": pred, "final": pred}])
    after = score([{"gold": gold, "stage1": pred, "final": finalize_refs(pred)}])
    assert before.to_dict() == after.to_dict()
    assert after.transition("stage1", "final").changed == 0


def test_finalize_refs_errors() -> None:
    with pytest.raises(TypeError):
        finalize_refs(["not a mapping"])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        finalize_refs([{"aspect_term": 3}])
    assert finalize_refs([]) == []


# ---------------------------------------------------------------------------------------------
# gold_aspect_term


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"aspect_term": "배터리", "aspect_ref": "제품 전체#품질"}, "배터리"),
        ({"aspect_term": "  battery life "}, "battery life"),
        ({"aspect_term": "", "aspect_ref": "제품 전체#품질"}, ""),  # explicit empty stays empty
        ({"aspect_term": "   ", "aspect_ref": "제품 전체#품질", "term": "x"}, ""),
        ({"aspect_term": None, "aspect_ref": "제품 전체#품질"}, "제품 전체#품질"),
        ({"opinion_term": {"term": " 빨라요 "}, "aspect_ref": "속도#일반"}, "빨라요"),
        ({"opinion_term": {"term": ""}, "aspect_ref": " 속도#일반 "}, "속도#일반"),
        ({"opinion_term": None, "term": "screen"}, "screen"),
        ({"aspect_ref": "", "term": "Screen"}, "Screen"),  # stripped, not lower-cased
        ({}, ""),
        ({"polarity": "positive"}, ""),
    ],
)
def test_gold_aspect_term(row: dict[str, object], expected: str) -> None:
    assert gold_aspect_term(row) == expected


def test_gold_aspect_term_mappings_and_errors() -> None:
    assert gold_aspect_term(types.MappingProxyType({"aspect_term": "a"})) == "a"
    assert gold_aspect_term({"opinion_term": types.MappingProxyType({"term": "b"})}) == "b"
    with pytest.raises(TypeError):
        gold_aspect_term(["aspect_term"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="aspect_term"):
        gold_aspect_term({"aspect_term": 1})
    with pytest.raises(TypeError, match="opinion_term"):
        gold_aspect_term({"opinion_term": "맛"})
    with pytest.raises(TypeError, match="term"):
        gold_aspect_term({"opinion_term": {"term": 5}})


# ---------------------------------------------------------------------------------------------
# normalize_span


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"start": 12, "end": 18}, {"start": 12, "end": 18}),
        ({"start": 0, "end": 0}, {"start": 0, "end": 0}),
        ({"start": 1, "end": 2, "text": "x"}, {"start": 1, "end": 2}),
        ([12, 18], {"start": 12, "end": 18}),
        ((3, 4), {"start": 3, "end": 4}),
        ("12,18", {"start": 12, "end": 18}),
        ("12-18", {"start": 12, "end": 18}),
        ("12:18", {"start": 12, "end": 18}),
        (" 12 , 18 ", {"start": 12, "end": 18}),
    ],
)
def test_normalize_span_valid(value: object, expected: dict[str, int]) -> None:
    assert normalize_span(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        None,
        12,
        12.5,
        True,
        "",
        "12",
        "12-",
        "-1-5",
        "a-b",
        "12--18",
        "12~18",
        "12,18,20",
        "１２-１８",  # full-width digits
        "18-12",
        "1" * 30 + "-" + "2" * 30,
        "1-2" + " " * 100,
        [18, 12],
        [-1, 5],
        [1],
        [1, 2, 3],
        [1.0, 2.0],
        [True, 2],
        ["1", "2"],
        {"start": 5},
        {"start": "1", "end": "2"},
        {"start": -1, "end": 2},
        {"start": 3, "end": 2},
        {"start": False, "end": 1},
        {"begin": 1, "end": 2},
        object(),
    ],
)
def test_normalize_span_malformed(value: object) -> None:
    assert normalize_span(value) is None


# ---------------------------------------------------------------------------------------------
# eval_key (P0)


def test_eval_key_ignores_aspect_ref() -> None:
    a = eval_key({"aspect_term": "배터리", "aspect_ref": "제품 전체#품질", "polarity": "pos"})
    b = eval_key({"aspect_term": "배터리!", "aspect_ref": "다른#것", "polarity": "positive"})
    assert a == b == ("배터리", "positive", True)
    # a predicted tuple without aspect_term does not borrow its ref
    assert eval_key({"aspect_ref": "제품 전체#품질", "polarity": "pos"}).term == ""
    assert eval_key({"aspect_ref": "제품 전체#품질", "polarity": "pos"}, gold=True).term == "제품 전체#품질"
    assert eval_key({"aspect_term": "x", "polarity": "positve"}) == ("x", "positve", False)
    assert eval_key({"aspect_term": "x", "polarity": "positve"}, repair=True) == ("x", "positive", True)
    assert eval_key({"aspect_term": "x", "polarity": "positve"}, gold=True, repair=True).valid is False


# ---------------------------------------------------------------------------------------------
# score


def rec(
    gold: list[dict[str, object]], stage1: list[dict[str, object]], final: list[dict[str, object]], **extra: object
) -> dict[str, object]:
    return {"gold": gold, "stages": {"stage1": stage1, "final": final}, **extra}


def T(term: str | None, polarity: str | None = "positive", ref: str | None = None) -> dict[str, object]:
    t: dict[str, object] = {"aspect_term": term, "polarity": polarity}
    if ref is not None:
        t["aspect_ref"] = ref
    return t


def test_score_micro_prf_by_hand() -> None:
    records = [
        rec(
            [T("배터리"), T("화면", "negative")], [T("배터리"), T("화면", "positive")], [T("배터리"), T("화면", "neg")]
        ),
        rec([T("price", "neutral")], [T("Price.", "neu"), T("design")], [T("price", "neutral")]),
    ]
    card = score(records)
    s1, fin = card.stages["stage1"], card.stages["final"]
    assert (s1.matched, s1.predicted, s1.gold) == (2, 4, 3)
    assert s1.precision == 0.5 and s1.recall == pytest.approx(2 / 3)
    assert s1.f1 == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert (fin.matched, fin.predicted, fin.precision, fin.recall, fin.f1) == (3, 3, 1.0, 1.0, 1.0)
    t = card.transition("stage1", "final")
    assert (t.changed, t.breaks, t.fixes) == (2, 0, 2)
    assert (t.changed_rate, t.break_rate, t.fix_rate) == (1.0, 0.0, 1.0)
    assert s1.exact == 0 and fin.exact == 2
    assert card.records == card.scored == 2 and card.bad == 0


def test_score_p0_aspect_ref_never_counts() -> None:
    gold = [T("배터리", "positive", ref="제품 전체#품질")]
    s1 = [T("배터리", "pos", ref="제품 전체#품질")]
    final = [T("배터리", "positive", ref="배터리#일반")]  # only the ref differs
    card = score([rec(gold, s1, final)])
    assert card.f1("stage1") == card.f1("final") == 1.0
    assert card.transition("stage1", "final").changed == 0
    # and a prediction whose term is missing is not rescued by its ref
    card = score([rec(gold, [{"aspect_ref": "배터리", "polarity": "positive"}], s1)])
    assert card.f1("stage1") == 0.0 and card.f1("final") == 1.0


def test_score_surface_variants_match() -> None:
    gold = [T("Battery Life"), T("배터리 수명", "negative"), T("ΟΔΟΣ", "neutral")]
    pred = [T("  battery   life!! "), T("“배터리 수명”。", "NEG"), T("οδος", " Neutral ")]
    card = score([rec(gold, pred, pred)])
    assert card.f1("stage1") == 1.0


def test_score_invalid_polarity_never_matches() -> None:
    card = score([rec([T("x", "good")], [T("x", "good")], [T("x", "positive")])])
    assert card.gold.invalid_polarity == 1
    assert card.stages["stage1"].invalid_polarity == 1
    assert card.stages["stage1"].matched == 0 and card.stages["stage1"].exact == 0
    assert card.transition("stage1", "final").changed == 1


def test_score_repair_only_when_enabled() -> None:
    records = [rec([T("화면", "positive")], [T("화면", "positve")], [T("화면", "positive")])]
    off = score(records)
    on = score(records, repair=True)
    assert off.f1("stage1") == 0.0 and off.stages["stage1"].invalid_polarity == 1
    assert off.stages["stage1"].repaired_polarity == 0
    assert on.f1("stage1") == 1.0 and on.stages["stage1"].repaired_polarity == 1
    assert on.stages["stage1"].invalid_polarity == 0
    assert on.transition("stage1", "final").changed == 0
    # gold is never repaired
    gold_typo = score([rec([T("화면", "positve")], [T("화면")], [T("화면")])], repair=True)
    assert gold_typo.gold.invalid_polarity == 1 and gold_typo.f1("final") == 0.0


def test_score_missing_polarity_uses_default() -> None:
    records = [rec([T("a", None)], [{"aspect_term": "a"}], [T("a", "")])]
    card = score(records)
    assert card.f1("stage1") == card.f1("final") == 1.0
    assert card.gold.missing_polarity == 1 and card.stages["final"].missing_polarity == 1
    assert score(records, default_missing="positive").f1("stage1") == 1.0
    mixed_gold = [rec([T("a", "neutral")], [{"aspect_term": "a"}], [T("a", "neutral")])]
    assert score(mixed_gold, default_missing="positive").f1("stage1") == 0.0


def test_score_duplicates_count_once() -> None:
    card = score([rec([T("a"), T("A!")], [T("a"), T("a"), T("a.")], [T("a")])])
    s1 = card.stages["stage1"]
    assert (s1.tuples, s1.predicted, s1.matched, s1.precision) == (3, 1, 1, 1.0)
    assert card.gold.tuples == 2 and card.gold.unique == 1
    assert card.transition("stage1", "final").changed == 0


def test_score_empty_sets() -> None:
    card = score([rec([], [], [])])
    assert card.stages["final"].exact == 1 and card.f1("final") == 0.0
    card = score([])
    assert card.records == card.scored == 0
    assert card.transition("stage1", "final").changed_rate == 0.0


def test_score_break_and_fix() -> None:
    good, bad_ = [T("a")], [T("b")]
    records = [
        rec(good, good, bad_),  # break
        rec(good, bad_, good),  # fix
        rec(good, good, good),  # stays right
        rec(good, bad_, [T("c")]),  # stays wrong, changed
    ]
    t = score(records).transition("stage1", "final")
    assert (t.changed, t.breaks, t.fixes) == (3, 1, 1)
    assert t.break_rate == t.fix_rate == 0.25 and t.changed_rate == 0.75


def test_score_three_stages_and_top_level_shape() -> None:
    g = [T("a")]
    record = {"id": 7, "gold": g, "stage1": [T("b")], "review": g, "final": g}
    card = score([record], stages=("stage1", "review", "final"))
    pairs = [(t.source, t.target) for t in card.transitions]
    assert pairs == [("stage1", "review"), ("review", "final"), ("stage1", "final")]
    assert card.transition("stage1", "review").fixes == 1
    assert card.transition("review", "final").changed == 0
    assert card.transition("stage1", "final").fixes == 1
    single = score([record], stages=["final"])
    assert single.transitions == () and single.f1("final") == 1.0


def test_score_ref_allowlist_is_a_diagnostic_for_predictions_only() -> None:
    records = [
        rec(
            [T("a", ref="NOT#ALLOWED")],
            [T("a", ref="제품 전체 # 품질"), T("b", ref="엉뚱한#것"), T("c", ref=""), T("d")],
            [T("a", ref="엉뚱한#것")],
        )
    ]
    card = score(records, ref_allowlist=["제품 전체#품질 "])
    assert card.stages["stage1"].invalid_ref == 1
    assert card.stages["final"].invalid_ref == 1
    assert card.f1("final") == 1.0  # refs never affect F1
    assert score(records).stages["stage1"].invalid_ref is None
    assert card.to_dict()["options"]["ref_allowlist"] == 1


def test_score_options_validation() -> None:
    with pytest.raises(ValueError):
        score([], stages=())
    with pytest.raises(ValueError):
        score([], stages=("a", "a"))
    with pytest.raises(TypeError):
        score([], stages=("a", 1))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        score([], default_missing="pos")
    with pytest.raises(ValueError):
        score([], threads=0)
    with pytest.raises(TypeError):
        score([], ref_allowlist=[1])  # type: ignore[list-item]
    assert score(iter([rec([], [], [])])).scored == 1  # any iterable of records


# ---------------------------------------------------------------------------------------------
# bad records


BAD_CASES = [
    (["a list"], "record is not an object (got list)"),
    ("a string", "record is not an object (got str)"),
    (None, "record is not an object (got NoneType)"),
    ({"stages": {"stage1": [], "final": []}}, "missing 'gold'"),
    ({"gold": None, "stage1": [], "final": []}, "missing 'gold'"),
    ({"gold": {"aspect_term": "a"}, "stage1": [], "final": []}, "'gold' is not a list (got dict)"),
    ({"gold": [], "stages": {"stage1": []}}, "missing stage 'stages.final'"),
    ({"gold": [], "stage1": []}, "missing stage 'final'"),
    ({"gold": [], "stage1": [], "final": "배터리"}, "'final' is not a list (got str)"),
    ({"gold": [], "stages": [[], []]}, "'stages' is not an object (got list)"),
    ({"gold": ["배터리"], "stage1": [], "final": []}, "gold[0]: not an object (got str)"),
    (
        {"gold": [T("a"), {"aspect_term": 3}], "stage1": [], "final": []},
        "gold[1].aspect_term: expected a string or null, got int",
    ),
    (
        {"gold": [{"aspect_ref": ["x"]}], "stage1": [], "final": []},
        "gold[0].aspect_ref: expected a string or null, got list",
    ),
    ({"gold": [{"term": 1.5}], "stage1": [], "final": []}, "gold[0].term: expected a string or null, got float"),
    (
        {"gold": [{"opinion_term": "맛"}], "stage1": [], "final": []},
        "gold[0].opinion_term: expected an object or null, got str",
    ),
    (
        {"gold": [{"opinion_term": {"term": 2}}], "stage1": [], "final": []},
        "gold[0].opinion_term.term: expected a string or null, got int",
    ),
    (
        {"gold": [{"aspect_term": "a", "polarity": 1}], "stage1": [], "final": []},
        "gold[0].polarity: expected a string or null, got int",
    ),
    ({"gold": [], "stage1": [T("a"), ("a", "pos")], "final": []}, "stage1[1]: not an object (got tuple)"),
    (
        {"gold": [], "stages": {"stage1": [], "final": [{"polarity": True}]}},
        "stages.final[0].polarity: expected a string or null, got bool",
    ),
    (
        {"gold": [], "stages": {"stage1": [{"aspect_ref": 0}], "final": []}},
        "stages.stage1[0].aspect_ref: expected a string or null, got int",
    ),
    (
        {"gold": [], "stages": {"stage1": [], "final": [{"aspect_term": {"t": 1}}]}},
        "stages.final[0].aspect_term: expected a string or null, got dict",
    ),
]


@pytest.mark.parametrize(("record", "reason"), BAD_CASES)
def test_bad_record_reason(record: object, reason: str) -> None:
    card = score([record])
    assert card.bad == 1 and card.scored == 0
    (b,) = card.bad_records
    assert (b.index, b.reason) == (0, reason)


def test_bad_records_never_abort_the_rest() -> None:
    good = [
        rec([T("배터리")], [T("배터리")], [T("화면")], id="g1"),
        rec([T("price", "neg")], [T("price", "negative")], [T("price", "negative")], id="g2"),
    ]
    mixed: list[object] = []
    for i, (bad_record, _) in enumerate(BAD_CASES):
        mixed.append(bad_record)
        mixed.append(good[i % 2])
    card = score(mixed)
    assert card.records == len(mixed) and card.bad == len(BAD_CASES)
    assert [b.index for b in card.bad_records] == list(range(0, len(mixed), 2))
    assert [b.reason for b in card.bad_records] == [reason for _, reason in BAD_CASES]
    clean = score([good[i % 2] for i in range(len(BAD_CASES))]).to_dict()
    dirty = card.to_dict()
    for key in ("gold", "stages", "transitions"):
        assert dirty[key] == clean[key]


def test_bad_record_ids_are_echoed() -> None:
    card = score([{"id": "r-1", "gold": 3}, {"id": {"k": 1}, "gold": []}, {"gold": "x"}])
    assert [b.id for b in card.bad_records] == ["r-1", {"k": 1}, None]
    assert card.to_dict()["bad_records"][0] == {"index": 0, "id": "r-1", "reason": "'gold' is not a list (got int)"}


@pytest.mark.parametrize("threads", [1, 2])
def test_bad_records_across_chunks(threads: int) -> None:
    # the scorer works in chunks (256 records in turn, 4096 with a worker); bad records anywhere
    # keep their index
    records: list[object] = [rec([T("a")], [T("a")], [T("b")]) for _ in range(10_000)]
    bad_at = [0, 255, 256, 4095, 4096, 8191, 9999]
    for i in bad_at:
        records[i] = {"gold": 1}
    card = score(records, threads=threads)
    assert [b.index for b in card.bad_records] == bad_at
    assert card.scored == 10_000 - len(bad_at)
    assert card.stages["stage1"].matched == card.scored == card.transition("stage1", "final").breaks


def test_threads_do_not_change_results() -> None:
    records = [
        rec([T(f"t{i % 7}"), T("공통", "neg")], [T(f"T{i % 5}!"), T("공통", "neg")], [T(f"t{i % 7}")])
        for i in range(9000)
    ]
    one = score(records, threads=1).to_dict()
    assert score(records, threads=3).to_dict() == one
    assert score(records).to_dict() == one


# ---------------------------------------------------------------------------------------------
# files and the command line


def write_jsonl(path: Path, lines: list[object | bytes]) -> None:
    with open(path, "wb") as f:
        for line in lines:
            f.write(line if isinstance(line, bytes) else json.dumps(line, ensure_ascii=False).encode())
            f.write(b"\n")


def sample_file(tmp_path: Path) -> Path:
    path = tmp_path / "records.jsonl"
    write_jsonl(
        path,
        [
            rec([T("배터리")], [T("배터리")], [T("배터리!")], id="a"),
            b"",
            b"{not json",
            rec([T("화면", "neg")], [T("화면", "positive")], [T("화면", "NEG")], id="b"),
            b"\xff\xfe broken utf-8",
            {"id": "c", "gold": []},
            [1, 2],
        ],
    )
    return path


def test_score_file(tmp_path: Path) -> None:
    # Read by the shared readers (rapidgrade._io): a line that is not UTF-8 is decoded with
    # replacement characters (and is then not JSON), a JSON value that is not an object is the
    # reader's error, as in the math task.
    card = score_file(sample_file(tmp_path))
    assert card.records == 6 and card.scored == 2 and card.bad == 4
    reasons = [b.reason for b in card.bad_records]
    assert reasons[0].startswith("line 3: invalid JSON")
    assert reasons[1].startswith("line 5: invalid JSON")
    assert reasons[2] == "line 6: missing stage 'stage1'"
    assert reasons[3] == "line 7: expected a JSON object, got list"
    assert [b.index for b in card.bad_records] == [1, 3, 4, 5]
    assert card.bad_records[2].id == "c"
    assert card.f1("final") == 1.0 and card.f1("stage1") == 0.5
    assert card.transition("stage1", "final").fixes == 1


def test_score_file_in_chunks_equals_score(tmp_path: Path) -> None:
    # the file is scored in chunks of rows whose counts add up to the score of all records
    records: list[object] = [
        rec([T(f"t{i % 7}")], [T(f"T{i % 5}!")], [T(f"t{i % 7}", "neg")], id=i) for i in range(9000)
    ]
    for i in (0, 4095, 4096, 8999):
        records[i] = {"id": i, "gold": 1}
    path = tmp_path / "many.jsonl"
    write_jsonl(path, records)
    from_file = score_file(path, repair=True).to_dict()
    direct = score(records, repair=True).to_dict()
    assert [b["reason"] for b in from_file["bad_records"]] == [
        f"line {i + 1}: {b['reason']}" for i, b in zip((0, 4095, 4096, 8999), direct["bad_records"])
    ]
    from_file.pop("bad_records")
    bad = direct.pop("bad_records")
    assert [b["index"] for b in bad] == [0, 4095, 4096, 8999]
    assert from_file == direct


def test_cli_writes_scorecard(tmp_path: Path) -> None:
    # `rapidgrade score --task absa` (the shared job) writes the scorecard as metrics.json
    src = sample_file(tmp_path)
    # the sample has bad records: the command fails (exit 1), as for every task, outputs written
    assert cli_main(["score", "--task", "absa", str(src), "--out", str(tmp_path / "out")]) == 1
    written = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    assert written == score_file(src).to_dict()
    assert written["task"] == "absa" and written["records"]["bad"] == 4
    allow = tmp_path / "refs.txt"
    allow.write_text("제품 전체#품질\n\n", encoding="utf-8")
    out2 = tmp_path / "s2"
    args = [
        "score",
        "--task",
        "absa",
        str(src),
        "-o",
        str(out2),
        "--repair",
        "--stages",
        "stage1, final",
        "--ref-allowlist",
        str(allow),
    ]
    assert cli_main(args) == 1  # the same bad records
    second = json.loads((out2 / "metrics.json").read_text(encoding="utf-8"))
    assert second["options"] == {
        "stages": ["stage1", "final"],
        "repair": True,
        "default_missing": "neutral",
        "ref_allowlist": 1,
    }


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["score", "--task", "absa", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "o")]) == 1
    assert "error" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        cli_main(["score", "--task", "absa", "--out", str(tmp_path / "o")])  # no input: no demo set
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        cli_main(["score", "--task", "absa", str(tmp_path / "x.jsonl"), "--stages", "a,a"])
    assert e.value.code == 2


@pytest.mark.slow
def test_python_dash_m(tmp_path: Path) -> None:
    src = sample_file(tmp_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(rapidgrade.__file__).resolve().parents[1])  # where this rapidgrade lives
    proc = subprocess.run(
        [sys.executable, "-m", "rapidgrade", "score", "--task", "absa", str(src), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    # the sample has bad records: exit 1 (as for every task), the outputs written
    assert proc.returncode == 1, proc.stderr
    assert "RuntimeWarning" not in proc.stderr
    assert json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8")) == score_file(src).to_dict()
    # the module's own command line is gone: it says where it went instead of doing nothing
    old = subprocess.run(
        [sys.executable, "-m", "rapidgrade.tasks.absa", str(src)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert old.returncode == 2 and "rapidgrade score --task absa" in old.stderr


# ---------------------------------------------------------------------------------------------
# junk and size


def test_score_junk_and_huge_inputs() -> None:
    big_term = "배터리 " * 1_000_000 + "!"
    junk = "".join(chr(c) for c in range(0, 0x3000, 7)) + "\ud800\udfff"
    records = [
        rec([T(big_term)], [T(big_term.upper())], [T(junk)]),
        rec([T(junk, junk)], [T(junk, junk)], [T("\x00", "\x00")]),
        rec([T(f"t{i}") for i in range(50_000)], [T(f"T{i}.") for i in range(50_000)], []),
    ]
    card = score(records, repair=True)
    assert card.scored == 3
    assert card.stages["stage1"].matched == 1 + 50_000
    assert card.stages["stage1"].invalid_polarity == 1 and card.gold.invalid_polarity == 1
    assert card.stages["final"].matched == 0
    with pytest.raises(TypeError):
        score("not records")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        score(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        score({"gold": [], "stage1": [], "final": []})  # type: ignore[arg-type]


def test_score_survives_records_mutated_afterwards() -> None:
    records = [rec([T("a")], [T("a")], [T("a")]) for _ in range(10)]
    card = score(records)
    records.clear()
    assert card.scored == 10 and card.f1("final") == 1.0
