"""The fast path's batch machinery (issue 18): golds prepared once by value however the rows are
ordered, the last </think> found from the end, the results stored as packed columns, and a
non-ASCII str's UTF-8 copy not kept beyond the batch."""

from __future__ import annotations

import ctypes
import random
import sys
import tracemalloc

import numpy as np
import pytest

import rapidgrade
from rapidgrade import GradeResults, Verdict, _core
from rapidgrade.verdict import DECIDERS
from tests.datasets import load_demo_corpus


def one_by_one(golds: list[str], responses: list[str]) -> list[Verdict]:
    return [rapidgrade.grade(g, r, fallback=False) for g, r in zip(golds, responses)]


def test_shuffled_rows_grade_as_each_pair_alone() -> None:
    # 5,000 distinct golds (past the per-thread cache's 4,096 entries, so it is emptied and
    # refilled) in shuffled order, each asked several times, right and wrong answers mixed.
    rng = random.Random(7)
    rows = [(f"\\frac{{{k}}}{{2}}", f"so \\boxed{{{k / 2 if rng.random() < 0.5 else k + 1}}}") for k in range(5000)]
    rows = rows * 2 + rows[:1000]
    rng.shuffle(rows)
    golds = [g for g, _ in rows]
    responses = [r for _, r in rows]
    for threads in (1, 2):
        batch = rapidgrade.grade_many(golds, responses, fallback=False, threads=threads)
        sample = rng.sample(range(len(rows)), 300)
        alone = one_by_one([golds[i] for i in sample], [responses[i] for i in sample])
        assert [batch[i] for i in sample] == alone
        expected = [float(r.split("{")[1].rstrip("}")) == int(g[6:].split("}")[0]) / 2 for g, r in rows]
        assert batch.correct.tolist() == expected


def test_a_gold_against_many_answers_decides_each_as_alone() -> None:
    # A prepared gold keeps what equiv works out about it alone (equiv::TreeFacts): its
    # constants' values and its subtrees sampled for each list of variables. Answers in other
    # variables (t, z), equations (proportional sides), percents, degrees, and a matrix of
    # functions with more entries than a tree keeps sides for, each gold asked many times in
    # shuffled order: every verdict is the one of the pair graded alone.
    golds = [
        "x^2+y",
        "2x+4y-3=0",
        "x^2/4 + y^2/3 = 1",
        "\\frac{x+2}{7}",
        "50\\%",
        "90^\\circ",
        "\\sqrt[3]{x}^2",
        "\\begin{pmatrix}x&x^2&x^3\\\\\\sin(x)&\\cos(x)&e^x\\\\x+1&2x&\\ln(x)\\end{pmatrix}",
        "(1,2),(3,4)",
        "y=2x+1",
    ]
    answers = [
        "x^2+y",
        "y+x^2",
        "t^2+y",
        "x^2+z",
        "y=-\\frac{1}{2}x+\\frac{3}{4}",
        "-2x-4y+3=0",
        "x^2/16 + y^2/12 = 1/4",
        "\\frac{x}{7}+\\frac{2}{7}",
        "\\frac{t}{7}+\\frac{2}{7}",
        "0.5",
        "50",
        "\\frac{\\pi}{2}",
        "90",
        "x^{2/3}",
        "t^{2/3}",
        "\\begin{pmatrix}x&x^2&x^3\\\\\\sin(x)&\\cos(x)&e^x\\\\x+1&2x&\\ln(x)\\end{pmatrix}",
        "\\begin{pmatrix}t&t^2&t^3\\\\\\sin(t)&\\cos(t)&e^t\\\\t+1&2t&\\ln(t)\\end{pmatrix}",
        "\\begin{pmatrix}x&x^2&x^3\\\\\\sin(x)&\\cos(x)&e^x\\\\x+1&2x&\\ln(2x)\\end{pmatrix}",
        "(3,4),(1,2)",
        "(1,2),(4,3)",
        "y=1+2x",
        "2x-y+1=0",
        "x=2y+1",
    ]
    rng = random.Random(5)
    rows = [(g, f"The answer is ${a}$.") for g in golds for a in answers] * 3
    rng.shuffle(rows)
    golds_in = [g for g, _ in rows]
    responses = [r for _, r in rows]
    batch = rapidgrade.grade_many(golds_in, responses, fallback=False)
    assert list(batch) == one_by_one(golds_in, responses)
    assert 0 < int(batch.correct.sum()) < len(rows)


def test_corpus_shuffled_equals_corpus_in_order() -> None:
    rows = load_demo_corpus()
    golds = [r["gold"] for r in rows]
    responses = [r["response"] for r in rows]
    in_order = rapidgrade.grade_many(golds, responses, fallback=False)
    order = list(range(len(rows)))
    random.Random(3).shuffle(order)
    shuffled = rapidgrade.grade_many([golds[i] for i in order], [responses[i] for i in order], fallback=False)
    assert list(shuffled) == [in_order[i] for i in order]
    assert shuffled.normalized == [in_order.normalized[i] for i in order]


def test_shuffled_golds_past_the_gold_cache_bound() -> None:
    # 5,000 distinct golds in shuffled order overflow a thread's 4,096-entry gold cache in the
    # middle of the batch. A row's gold is found by its serial: the block that prepared a gold
    # sends its text, and the calling thread maps the cache's serial to the batch's table (so
    # with several threads a cache must serve its blocks in row order). Equal golds as other
    # objects, and unequal golds of one length, must not be confused.
    golds = [f"{k:05d}" for k in range(5_000)]
    rng = random.Random(5)
    rows = [rng.randrange(5_000) for _ in range(30_000)]
    gold_column = [golds[k] if k % 2 else "".join(golds[k]) for k in rows]  # half as new objects
    responses = [f"\\boxed{{{k if (i % 3) else k + 1}}}" for i, k in enumerate(rows)]
    for threads in (1, 2, 4):
        results = rapidgrade.grade_many(gold_column, responses, fallback=False, threads=threads)
        assert results.correct.tolist() == [i % 3 != 0 for i in range(len(rows))]
        assert results.gold == [golds[k] for k in rows]


def test_a_batch_longer_than_a_slice_of_the_core() -> None:
    # grade_fast_many reads its inputs 65,536 rows at a time; the rows of every slice land in
    # their place, with golds shared across slices in one table.
    n = 70_000
    golds = [str(k % 997) for k in range(n)]
    responses = [f"so \\boxed{{{k % 997 if k % 3 else k % 997 + 1}}}" for k in range(n)]
    results = rapidgrade.grade_many(golds, responses, fallback=False, threads=2)
    assert results.correct.tolist() == [k % 3 != 0 for k in range(n)]
    assert results.gold == golds
    assert results[65_536].extracted == str(65_536 % 997 + (0 if 65_536 % 3 else 1))


def test_progress_chunks_join_to_the_whole_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    # With a progress bar the fast path runs in chunks whose columns are joined (indices into the
    # gold tables and offsets shifted); without one it is one call. The joined columns are the
    # whole call's, the undecided rows' golds for the fallback and missing answers included.
    grade_module = sys.modules["rapidgrade.grade"]
    rows = load_demo_corpus()[:300]
    golds = [r["gold"] for r in rows] + ["x", "7", "y", "$y$", "y"]
    unread = ["\\boxed{\\sum_{k=1}^{n} k}", "\\boxed{7}"] + [
        "\\boxed{\\sum_{i=1}^{n} a_i}"
    ] * 3  # the core cannot read them
    responses = [r["response"] for r in rows] + unread
    config = rapidgrade.GradeConfig(fallback=False)
    whole = grade_module._fast_columns(golds, responses, None, config, 1)
    assert whole.raw_index  # undecided rows, with their gold for the fallback
    monkeypatch.setattr(grade_module, "_CHUNK", 7)
    with grade_module._progress_bar(len(golds), True, "test") as bar:
        chunked = grade_module._fast_columns(golds, responses, bar, config, 1)

    def golds_of(index: bytes, table: list[str]) -> list[str]:  # each chunk has tables of its own
        return [table[k] for k in np.frombuffer(index, dtype=np.int32)]

    assert golds_of(chunked.gold_index, chunked.gold_table) == golds_of(whole.gold_index, whole.gold_table)
    # the undecided rows' golds, unwrapped, one per row ("y" and "$y$" share a table entry)
    assert np.flatnonzero(np.frombuffer(whole.tri, dtype=np.int8) == 2).tolist() == [300, 302, 303, 304]
    assert golds_of(whole.raw_index, whole.raw_table) == ["x", "y", "y", "y"] and whole.raw_table == ["x", "y"]
    assert golds_of(chunked.raw_index, chunked.raw_table) == golds_of(whole.raw_index, whole.raw_table)
    same = ("tri", "reason", "method", "extracted_offsets", "extracted_data", "normalized_offsets", "normalized_data")
    for name in same:
        assert getattr(chunked, name) == getattr(whole, name), name
    assert list(rapidgrade.grade_many(golds, responses, fallback=False, progress=True)) == list(
        rapidgrade.grade_many(golds, responses, fallback=False)
    )


@pytest.mark.parametrize(
    ("response", "extracted"),
    [
        ("\\boxed{1} </think> so \\boxed{2}", "2"),
        ("\\boxed{1} </think> a </think> so \\boxed{3}", "3"),
        ("</think></think>\\boxed{4}", "4"),
        ("\\boxed{5} </think", "5"),  # not a closed tag: the whole text is read
        ("\\boxed{6} <think>", "6"),
        ("\\boxed{7} </think>", None),  # nothing after the last </think>
        ("</think>>\\boxed{8}", "8"),
    ],
)
def test_answer_is_read_after_the_last_think_tag(response: str, extracted: str | None) -> None:
    assert rapidgrade.grade("1", response, fallback=False).extracted == extracted


def test_text_after_the_last_think_tag_decides() -> None:
    rng = random.Random(11)
    pieces = ["</think>", "</think", "think>", ">", "<", "\\boxed{1}", "\\boxed{2}", " x ", "The answer is 3. "]
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randrange(1, 12))) for _ in range(400)]
    tails = [t[t.rfind("</think>") + 8 :] if "</think>" in t else t for t in texts]
    whole = rapidgrade.grade_many(["1"] * len(texts), texts, fallback=False)
    tail = rapidgrade.grade_many(["1"] * len(texts), tails, fallback=False)
    assert whole.extracted == tail.extracted
    assert whole.correct.tolist() == tail.correct.tolist()


def test_packed_columns_round_trip() -> None:
    golds = ["1", "é", "\\frac{1}{2}", "3", "x^2"]
    responses = ["\\boxed{1}", "the answer is $é$", "so \\boxed{0.5}", "", "\\boxed{x·x}"]
    r = rapidgrade.grade_many(golds, responses, fallback=False)
    assert r.extracted == ["1", "é", "0.5", None, "x·x"]
    assert r.method[3] is None and r.method[0] == "boxed"
    assert r.gold == ["1", "é", "\\frac{1}{2}", "3", "x^2"]
    assert r.decided_by_codes.dtype == np.int8
    assert [DECIDERS[c] for c in r.decided_by_codes] == r.decided_by.tolist()
    with pytest.raises(ValueError):
        r.decided_by_codes[0] = 1  # read-only
    for index in (slice(1, 4), slice(None, None, 2), slice(None, None, -1), slice(4, 1), slice(-2, None)):
        part = r[index]
        assert list(part) == list(r)[index]
        assert part.normalized == r.normalized[index]
        assert part == GradeResults.from_verdicts(list(r)[index])
    assert r[1:3][1] == r[2]


def test_from_columns_keeps_any_text() -> None:
    odd = ["\ud800 lone surrogate", "", "é" * 3, None]
    r = GradeResults.from_columns(
        correct=[True, False, True, False],
        decided_by=["fast", "error", "sympy", "limit"],
        gold=["a", "", "é", "\ud800"],
        extracted=odd,
        method=["boxed", None, "x" * 300, None],
        reason=[str(k) for k in range(4)],
        normalized=odd[::-1],
    )
    assert r.extracted == odd
    assert r.normalized == odd[::-1]
    assert r[0].extracted == odd[0] and r[3].extracted is None
    assert r.gold[3] == "\ud800" and r.method[2] == "x" * 300
    assert [v.decided_by for v in r] == ["fast", "error", "sympy", "limit"]
    assert r[::-1][0] == r[3]


def test_to_arrow_from_the_packed_columns() -> None:
    pa = pytest.importorskip("pyarrow")
    rows = load_demo_corpus()[:200]
    r = rapidgrade.grade_many(
        [x["gold"] for x in rows] + ["1"], [x["response"] for x in rows] + ["none"], fallback=False
    )
    table = r.to_arrow()
    assert table.schema.field("extracted").type == pa.string()
    assert table.column("extracted").to_pylist() == r.extracted
    assert table.column("gold").to_pylist() == r.gold
    assert table.column("method").to_pylist() == r.method
    assert table.column("reason").to_pylist() == r.reason
    assert table.column("decided_by").to_pylist() == r.decided_by.tolist()
    assert table.column("correct").to_pylist() == r.correct.tolist()
    assert r[50:120].to_arrow().column("extracted").to_pylist() == r.extracted[50:120]


def test_non_ascii_input_keeps_no_utf8_copy() -> None:
    response = "é" * 100_000 + " so \\boxed{1}"
    gold = "1"
    size = sys.getsizeof(response)
    assert rapidgrade.grade_many([gold], [response], fallback=False).extracted == ["1"]
    assert sys.getsizeof(response) == size  # no UTF-8 form cached in the str


def _cache_utf8(text: str) -> str:
    """A new str equal to `text`, with its UTF-8 form cached in it, as some C extensions leave a str."""
    prototype = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object, ctypes.c_void_p)
    as_utf8 = prototype(("PyUnicode_AsUTF8AndSize", ctypes.pythonapi))  # ctypes.pythonapi left as it is
    text = "".join(list(text))  # a new str, not a code constant cached before
    size = sys.getsizeof(text)
    assert as_utf8(text, None) == text.encode()
    assert sys.getsizeof(text) > size  # now cached
    return text


@pytest.mark.parametrize("threads", [1, 2])
def test_every_str_storage_reads_as_its_utf8(threads: int) -> None:
    # A str stores 1, 2 or 4 bytes a character (or is ASCII, or has its UTF-8 form cached); the
    # workers encode the non-ASCII ones. 20,000 rows: several slices of the batch, the later
    # ones read while the earlier ones are graded.
    fillers = ["plain ", "café ", "x ≤ y ", "smile 😀 ", _cache_utf8("cached ∑ ")]
    answers = ["1", "½", "π/2", "😀", "∞"]
    golds, responses = [], []
    for k in range(20_000):
        answer = answers[k % 5]
        golds.append(answer if k % 3 else "2")
        responses.append(fillers[(k // 5) % 5] * (1 + k % 7) + f"so \\boxed{{{answer}}}")
    results = rapidgrade.grade_many(golds, responses, fallback=False, threads=threads)
    assert results.extracted == [answers[k % 5] for k in range(20_000)]
    assert list(results[:500]) == one_by_one(golds[:500], responses[:500])
    assert results.correct.tolist() == [k % 3 != 0 for k in range(20_000)]


@pytest.mark.parametrize("wide", ["é", "≤", "≤abcdefghijé", "😀", "😀abcdefghij≤abcdefghijé", "\ud800"])
def test_ascii_runs_and_wide_characters_at_every_offset(wide: str) -> None:
    # The workers encode a non-ASCII str a run of ASCII characters at a time and the rest one by
    # one: put wide characters (1, 2 or 4 bytes a character in the str, with characters of a
    # narrower range beside them; a lone surrogate reads as '?') at every offset of the text
    # before the box and of the box's content, around and across the runs' boundaries, and read
    # the content back.
    expected = wide.encode("utf-8", "replace").decode()
    golds, responses, answers = [], [], []
    for before in range(40):
        for inside in range(0, 20, 3):
            answer = "x" * inside + wide + "y" * (19 - inside)
            responses.append("a" * before + wide + "b" * (39 - before) + " so \\boxed{" + answer + "}")
            answers.append(answer.replace(wide, expected))
            golds.append(answers[-1])
    results = rapidgrade.grade_many(golds, responses, fallback=False)
    assert results.extracted == answers
    assert results.correct.all()


def test_lone_surrogates_read_as_question_marks() -> None:
    golds = ["?x", "?x"]
    responses = ["\ud800 so \\boxed{\udfffx}", "é \\boxed{\ud83dx}"]
    results = rapidgrade.grade_many(golds, responses, fallback=False)
    assert results.correct.tolist() == [True, True]
    assert list(results) == one_by_one(golds, responses)


def test_a_bad_item_in_a_later_slice_is_named() -> None:
    golds = ["1"] * 20_000
    responses: list[object] = ["\\boxed{1}"] * 20_000
    responses[15_000] = 5
    with pytest.raises(TypeError, match=r"responses\[15000\] must be str, not int"):
        _core.grade_fast_many(golds, responses, threads=2)
    # grade_many then grades the other rows and gives that one an error verdict
    results = rapidgrade.grade_many(golds, responses, fallback=False, threads=2)  # type: ignore[arg-type]
    assert results.decided_by[15_000] == "error" and results[15_000].reason == "response must be a str, not int"
    assert results.correct.sum() == 19_999


def test_results_keep_under_50_bytes_a_pair() -> None:
    rows = load_demo_corpus()
    golds = [r["gold"] for r in rows] * 25
    responses = [f"copy {k}\n\n" + r["response"] for k in range(25) for r in rows]
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        results = rapidgrade.grade_many(golds, responses, fallback=False)
        kept = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert len(results) == 20_000
    assert kept / len(results) < 50, kept / len(results)
