"""Corpus parity: rapidgrade's compatible ``verify(parse(gold), parse(response))`` gives math-verify
0.9.0's recorded verdict on all 800 real responses.

The reference (``tests/data/corpus_math_verify_0.9.0.jsonl``) was computed with math-verify as
``verify(parse("$" + gold + "$"), parse(response))``; rapidgrade must reproduce every verdict and
the printed parse results, whether an answer comes from the in-process fast path or from
math-verify in a worker. Most pairs take the fast path, which keeps this test quick; the share
that does is checked too, so that a regression to the slow path is noticed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rapidgrade
from rapidgrade import compat

DATA = Path(__file__).resolve().parent.parent / "data"
CORPUS = Path(rapidgrade.__file__).resolve().parent / "data" / "qwen25_math_cot_800.jsonl"
REFERENCE = DATA / "corpus_math_verify_0.9.0.jsonl"


def _load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.fixture(scope="module")
def pairs() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    rows, reference = _load(CORPUS), _load(REFERENCE)
    assert len(rows) == len(reference) == 800
    assert [r["id"] for r in rows] == [r["id"] for r in reference]
    return list(zip(rows, reference))


def test_every_verdict_and_parse_matches_math_verify(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    mismatches = []
    for row, ref in pairs:
        gold = rapidgrade.parse("$" + row["gold"] + "$")
        pred = rapidgrade.parse(row["response"])
        verdict = rapidgrade.verify(gold, pred)
        if (
            verdict is not ref["math_verify"]
            or [str(x) for x in gold] != ref["gold_parsed"]
            or [str(x) for x in pred] != ref["pred_parsed"]
        ):
            mismatches.append((row["id"], verdict, [str(x) for x in gold], [str(x) for x in pred]))
    assert mismatches == []


def test_most_pairs_need_no_worker(
    pairs: list[tuple[dict[str, Any], dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []
    pool = compat._workers.default_pool()

    class CountingPool:
        def run(self, fn: Any, args: Any, *, timeout: float | None) -> Any:
            calls.append(fn.__name__)
            return pool.run(fn, args, timeout=timeout)

    monkeypatch.setattr(compat._workers, "default_pool", lambda: CountingPool())
    compat.clear_caches()
    for row, ref in pairs:
        verdict = rapidgrade.verify(rapidgrade.parse("$" + row["gold"] + "$"), rapidgrade.parse(row["response"]))
        assert verdict is ref["math_verify"], row["id"]
    # 800 pairs are 2,400 calls; today about 10 reach a worker (a chained environment, the
    # distinct non-numeric LaTeX answers such as 4a-2, symbolic comparisons that differ).
    assert len(calls) <= 30, calls


def test_parse_results_equal_math_verify_own(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> None:
    """The objects themselves (type, tree, precision), against math-verify run here."""
    import math_verify
    import sympy

    texts = sorted({"$" + row["gold"] + "$" for row, _ in pairs}) + [row["response"] for row, _ in pairs]
    for text in texts:
        ours, reference = rapidgrade.parse(text), math_verify.parse(text)
        assert ours == reference, text
        assert [type(x) for x in ours] == [type(x) for x in reference], text
        assert [x if isinstance(x, str) else sympy.srepr(x) for x in ours] == [
            x if isinstance(x, str) else sympy.srepr(x) for x in reference
        ], text
