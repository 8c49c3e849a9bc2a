"""Hard data for the fast path: unboxed solutions and short answer pairs, vs a Hendrycks-style grader.

    python -m benchmarks.bench_hard [--pairs 20000]

The boxed corpus is the easy case (one box at the end of each response). Here, from data the
repository ships, in one run and on the same data:
- unboxed solutions: the 800 demo-corpus responses with every ``\\boxed{X}`` written as ``X``
  (the final answer stated in prose and math, as human solutions state it), --pairs distinct
  copies in shuffled order, so extraction goes through the answer-is / final-statement /
  last-number rules;
- long unboxed solutions: the same with about 5 KB of other unboxed solutions before each;
- short answer pairs: the 270 (gold, prediction) pairs of math-verify's own test cases
  (tests/data/math_verify_0.9.0_cases.jsonl: short, unboxed, many needing equivalence rather
  than equal strings), repeated to --pairs pairs.
grade_many's fast path (threads=1, fallback=False) vs the plain-Python Hendrycks grader
(tests/oracles/hendrycks_grader.py), which finds no box in most of these and so is both fast and
wrong: the point is that the fast path is never the slow part. Prints medians of interleaved
rounds and ratios; saves benchmarks/results/bench_hard.json.
"""

from __future__ import annotations

import argparse

import rapidgrade
from benchmarks._common import Report, load_corpus
from benchmarks.bench_grade import compare_with_hendrycks, distinct_pairs
from tests.datasets import load_data
from tests.oracles.hendrycks_grader import hendrycks_grade


def unbox(text: str) -> str:
    """`text` with every \\boxed{X} / \\fbox{X} written as X (braces matched; an unclosed box is
    left as it is)."""
    out: list[str] = []
    i = 0
    while True:
        at = min((p for p in (text.find("\\boxed{", i), text.find("\\fbox{", i)) if p >= 0), default=-1)
        if at < 0:
            out.append(text[i:])
            return "".join(out)
        open_at = text.index("{", at)
        depth = 0
        for j in range(open_at, len(text)):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            if depth == 0:
                out.append(text[i:at])
                out.append(text[open_at + 1 : j])
                i = j + 1
                break
        else:
            out.append(text[i:])
            return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=20_000)
    args = parser.parse_args()
    report = Report("hard")
    print("ratio = peer time / rapidgrade time (medians); > 1 means rapidgrade is faster\n")

    rows = load_corpus()
    golds800 = [r["gold"] for r in rows]
    unboxed = [unbox(r["response"]) for r in rows]
    fast = rapidgrade.grade_many(golds800, unboxed, fallback=False)
    print(
        f"unboxed solutions: fast path correct on {int(fast.correct.sum())}/800, "
        f"Hendrycks-style on {sum(hendrycks_grade(g, r) for g, r in zip(golds800, unboxed))}/800"
    )
    g, r = distinct_pairs(golds800, unboxed, args.pairs)
    compare_with_hendrycks(report, f"fast path threads=1, {len(g):,} unboxed solutions", g, r)

    before = " ".join(unboxed[-60:])[:5_000]
    long_unboxed = [before + "\n\n" + text for text in unboxed]
    g, r = distinct_pairs(golds800, long_unboxed, args.pairs // 4)
    compare_with_hendrycks(report, f"fast path threads=1, {len(g):,} long unboxed (5 KB)", g, r)

    cases = load_data("math_verify_0.9.0_cases.jsonl")
    golds = [c["gold"] for c in cases]
    preds = [c["pred"] for c in cases]
    reps = max(1, args.pairs // len(cases))
    compare_with_hendrycks(report, f"fast path threads=1, {len(cases)} short pairs x{reps}", golds * reps, preds * reps)
    print(f"\nsaved {report.save('bench_hard')}")


if __name__ == "__main__":
    main()
