"""Property: one key serves every metric, so ``changed == 0`` implies equal F1 for the two stages.

The final stage is built from stage 1 by edits that keep every key (case, spacing, edge
punctuation, polarity abbreviations, another aspect_ref, repeated tuples, another order) and,
sometimes, by edits that do not. Whenever the scorer reports no change, F1 (and precision,
recall, exactness) must be equal; and a reported change must be a real change of key sets.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade.tasks import absa

TERMS = ["배터리", "배터리 수명", "화면", "battery", "Battery Life", "screen", "ΟΔΟΣ", "Экран", "ＳＣＲＥＥＮ", ""]
POLARITIES = ["positive", "negative", "neutral", "mixed", "pos", "neg", "neu", "positve", "good", "", None]
SAME_POLARITY = {
    "positive": "POS",
    "negative": " neg ",
    "neutral": "Neutral",
    "mixed": "MIXED",
    "pos": "positive",
    "neg": "NEGATIVE",
    "neu": "neu",
    "positve": " POSITVE",
    "good": "GOOD",
    "": "  ",
    None: None,
}
PUNCT = ["", ".", "!!", "，", "。", "“", "”", "?", " "]


def surface(draw: st.DrawFn, term: str) -> str:
    """The same term after a key-preserving edit."""
    if draw(st.booleans()):
        term = term.upper()
    if draw(st.booleans()):
        term = term.replace(" ", "   ")
    return draw(st.sampled_from(PUNCT)) + term + draw(st.sampled_from(PUNCT))


@st.composite
def record(draw: st.DrawFn) -> dict[str, Any]:
    gold = [
        {"aspect_term": draw(st.sampled_from(TERMS)), "polarity": draw(st.sampled_from(POLARITIES))}
        for _ in range(draw(st.integers(0, 3)))
    ]
    stage1 = [
        {
            "aspect_term": draw(st.sampled_from(TERMS)),
            "polarity": draw(st.sampled_from(POLARITIES)),
            "aspect_ref": draw(st.sampled_from(["제품 전체#품질", "A#B", None])),
        }
        for _ in range(draw(st.integers(0, 3)))
    ]
    if draw(st.booleans()):
        stage1 += [dict(t) for t in gold]  # often right
    final = []
    for t in stage1:
        new = dict(t)
        new["aspect_term"] = surface(draw, t["aspect_term"])
        new["polarity"] = SAME_POLARITY[t["polarity"]]
        new["aspect_ref"] = draw(st.sampled_from(["다른#것", None, t.get("aspect_ref")]))
        final.append(new)
        if draw(st.integers(0, 4)) == 0:
            final.append(dict(new))  # a repeated tuple is the same key
    final = draw(st.permutations(final))
    if draw(st.integers(0, 3)) == 0:  # sometimes a real change
        extra = {"aspect_term": draw(st.sampled_from(TERMS)), "polarity": draw(st.sampled_from(POLARITIES))}
        final = [*final, extra]
    return {"gold": gold, "stages": {"stage1": stage1, "final": list(final)}}


def assert_same_scores(card: absa.Scorecard) -> None:
    a, b = card.stages["stage1"], card.stages["final"]
    assert (a.f1, a.precision, a.recall, a.exact) == (b.f1, b.precision, b.recall, b.exact)


@settings(deadline=None)
@given(st.lists(record(), min_size=1, max_size=6), st.booleans())
def test_unchanged_implies_equal_f1(records: list[dict[str, Any]], repair: bool) -> None:
    card = absa.score(records, repair=repair)
    t = card.transition("stage1", "final")
    if t.changed == 0:
        assert_same_scores(card)
        assert t.breaks == t.fixes == 0
    for r in records:  # record by record, too
        one = absa.score([r], repair=repair)
        if one.transition("stage1", "final").changed == 0:
            assert_same_scores(one)


@settings(deadline=None)
@given(record(), st.booleans())
def test_changed_flag_is_the_key_set_difference(r: dict[str, Any], repair: bool) -> None:
    def keys(tuples: list[dict[str, Any]]) -> set[absa.EvalKey]:
        return {absa.eval_key(t, repair=repair) for t in tuples}

    changed = absa.score([r], repair=repair).transition("stage1", "final").changed
    assert changed == int(keys(r["stages"]["stage1"]) != keys(r["stages"]["final"]))
