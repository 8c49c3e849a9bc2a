"""Unmarked answers: ``bench_wild`` on ``unmarked_dev.jsonl``, plus the fast path's FALSE verdicts
on the 800 boxed pairs.

    python -m benchmarks.bench_unmarked [--repeats 3] [--skip-math-verify] [other bench_wild options]

The measurement is :mod:`benchmarks.bench_wild`'s (see its docstring): on the labelled pairs of
``unmarked_dev.jsonl`` (human solutions ending in prose, multiple-choice rationales, perturbed
finals, negatives), errors against the labels per source and by class (source/kind/FP|FN) for the
fast path alone, for ``grade_many`` with its defaults and for math-verify 0.9.0, the fallback's
share, the fast path's wrong certain verdicts, and CPU and wall time with the ratios. This entry
point keeps the command the earlier figures were printed by, passes its options to bench_wild,
writes its report as ``bench_unmarked.json``, and adds the one line bench_wild does not print
here: the fast path's certain FALSE verdicts on the 800-pair boxed demo corpus that Qwen's grader
calls correct (``bench_wild --corpus qwen25_math_cot_800.jsonl --label-key qwen_grader`` shows
that corpus in full).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import rapidgrade
from benchmarks import bench_wild
from tests.datasets import DEMO_CORPUS


def boxed_false_line() -> str:
    """The fast path's certain FALSE verdicts on the packaged 800-pair corpus, and how many of them
    Qwen's grader calls correct."""
    rows, _ = bench_wild.read_rows(
        DEMO_CORPUS.read_text(encoding="utf-8").splitlines(), bench_wild.Keys(label="qwen_grader"), str(DEMO_CORPUS)
    )
    verdicts = rapidgrade.grade_many([r.gold for r in rows], [r.response for r in rows], fallback=False)
    certain_false = [r for r, v in zip(rows, verdicts) if not v.correct and not v.reason.startswith("undecided")]
    wrong = sum(1 for r in certain_false if r.label)
    return (
        f"800 boxed corpus: fast FALSE verdicts that Qwen's grader calls correct {wrong}/{len(certain_false)} "
        f"({wrong / max(len(certain_false), 1):.2%})"
    )


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    bench_wild.main(["--corpus", "unmarked_dev.jsonl", *args], stem="bench_unmarked")
    print(boxed_false_line())


if __name__ == "__main__":
    main()
