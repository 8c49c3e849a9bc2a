"""grade() on the 800 real responses of the demo corpus, against math-verify's recorded verdicts.

Every pair where grade() and math-verify differ must be listed in
``tests/data/corpus_adjudications.jsonl`` with the verdict that is right and why; rapidgrade must
give the adjudicated verdict. The fast path alone must decide at least 95% of the pairs.
"""

from __future__ import annotations

import json
from pathlib import Path

import rapidgrade

DATA = Path(__file__).resolve().parent.parent / "data"
CORPUS = Path(rapidgrade.__file__).resolve().parent / "data" / "qwen25_math_cot_800.jsonl"


def load(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_agreement_with_math_verify() -> None:
    rows = load(CORPUS)
    reference = {r["id"]: r["math_verify"] for r in load(DATA / "corpus_math_verify_0.9.0.jsonl")}
    adjudicated = {r["id"]: r for r in load(DATA / "corpus_adjudications.jsonl")}
    results = rapidgrade.grade_many([str(r["gold"]) for r in rows], [str(r["response"]) for r in rows])
    assert len(results) == 800

    disagreements = set()
    for row, verdict in zip(rows, results):
        rid = str(row["id"])
        if verdict.correct != reference[rid]:
            disagreements.add(rid)
            assert rid in adjudicated, f"{rid}: grade={verdict.correct} math_verify={reference[rid]} is not adjudicated"
        if rid in adjudicated:
            entry = adjudicated[rid]
            assert entry["right"] in ("rapidgrade", "math_verify") and entry["why"]
            assert verdict.correct is entry["verdict"], rid
    # every adjudication is still needed (a fixed disagreement must leave the list)
    assert disagreements == set(adjudicated)
    # only pairs where math-verify is demonstrably wrong may differ
    assert all(adjudicated[rid]["right"] == "rapidgrade" for rid in disagreements)
    agreement = 1 - len(disagreements) / len(rows)
    print(f"agreement with math-verify: {agreement:.4f} ({len(rows) - len(disagreements)}/{len(rows)})")
    fast = sum(1 for v in results if v.decided_by == "fast")
    assert fast / len(rows) >= 0.95, f"fast path decided {fast}/800"
