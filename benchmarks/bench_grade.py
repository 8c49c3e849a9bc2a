"""Grading throughput: rapidgrade.grade_many vs math-verify and vs a Hendrycks-style grader.

    python -m benchmarks.bench_grade [--pairs 100000] [--mv-sample 800]

In one run, on the same data:
- the 800-pair demo corpus replicated to --pairs pairs, and long responses (20 KB of real
  reasoning, taken from other responses with their boxes removed, before each response);
- grade_many with threads=1 vs math-verify's verify(parse("$gold$"), parse(response)) in one
  process (math-verify is timed on --mv-sample pairs of the same data: at about 1,000 pairs/s
  the full set would take minutes; the figures are pairs/s, so the ratio is fair);
- grade_many threads=1 vs the plain-Python Hendrycks grader (tests/oracles/hendrycks_grader.py), with each
  grader's agreement with math-verify's recorded verdicts on the 800 pairs;
- grade_many threads=2 vs threads=1;
- peak memory (max RSS) of grade_many on 1,000,000 pairs, measured in a child process.
Prints medians and ratios; saves benchmarks/results/bench_grade.json.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import rapidgrade
from benchmarks._common import Report, load_corpus, paired_median_times
from tests.datasets import DEMO_CORPUS, load_data
from tests.oracles.hendrycks_grader import hendrycks_grade


def mv_pairs_per_s(golds: list[str], responses: list[str]) -> float:
    from math_verify import parse, verify

    start = time.perf_counter()
    for g, r in zip(golds, responses):
        verify(parse("$" + g + "$"), parse(r))
    return len(golds) / (time.perf_counter() - start)


def peak_memory_mb(pairs: int) -> float:
    code = f"""
import json, resource, rapidgrade
rows = [json.loads(l) for l in open({str(DEMO_CORPUS)!r}, encoding='utf-8')]
golds = [r['gold'] for r in rows] * ({pairs} // 800)
responses = [r['response'] for r in rows] * ({pairs} // 800)
results = rapidgrade.grade_many(golds, responses, threads=2)
assert len(results) == len(golds)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--mv-sample", type=int, default=800)
    parser.add_argument("--memory-pairs", type=int, default=1_000_000)
    args = parser.parse_args()

    rows = load_corpus()
    golds800 = [r["gold"] for r in rows]
    responses800 = [r["response"] for r in rows]
    reps = max(1, args.pairs // len(rows))
    golds = golds800 * reps
    responses = responses800 * reps
    # 20 KB of real reasoning (other responses of the corpus, their boxes removed) before each
    # response, so the answer is at the end of a long chain of thought.
    reasoning = " ".join(r.replace("\\boxed", "").replace("\\fbox", "") for r in responses800[:40])[:20_000]
    long_responses = [reasoning + "\n\n" + r for r in responses800]
    report = Report("grade")
    print("ratio = peer time / rapidgrade time (medians); > 1 means rapidgrade is faster\n")

    reference = {r["id"]: r["math_verify"] for r in load_data("corpus_math_verify_0.9.0.jsonl")}
    ours800 = rapidgrade.grade_many(golds800, responses800, threads=1)
    agree_ours = sum(v.correct == reference[r["id"]] for r, v in zip(rows, ours800))
    agree_hendrycks = sum(hendrycks_grade(r["gold"], r["response"]) == reference[r["id"]] for r in rows)
    fast = sum(v.decided_by == "fast" for v in ours800)
    print(f"agreement with math-verify on the 800 pairs: rapidgrade {agree_ours}/800, "
          f"Hendrycks-style {agree_hendrycks}/800; fast path decided {fast}/800\n")

    n = len(golds)
    one, two = paired_median_times(
        lambda: rapidgrade.grade_many(golds, responses, threads=1),
        lambda: rapidgrade.grade_many(golds, responses, threads=2),
        repeats=9,
    )
    sample = args.mv_sample
    mv_rate = mv_pairs_per_s(golds[:sample], responses[:sample])
    report.add(
        f"grade_many threads=1, {n:,} corpus pairs", one, n / mv_rate, f"math-verify ({sample} pairs timed)", "pairs", n
    )
    one_h, hend = paired_median_times(
        lambda: rapidgrade.grade_many(golds, responses, threads=1),
        lambda: [hendrycks_grade(g, r) for g, r in zip(golds, responses)],
        repeats=9,
    )
    report.add(f"grade_many threads=1, {n:,} corpus pairs", one_h, hend, "Hendrycks-style plain Python", "pairs", n)
    report.add(f"grade_many threads=2 vs threads=1, {n:,} pairs", two, one, "grade_many threads=1", "pairs", n)

    long_golds = golds800
    m = len(long_responses)
    one_long, two_long = paired_median_times(
        lambda: rapidgrade.grade_many(long_golds, long_responses, threads=1),
        lambda: rapidgrade.grade_many(long_golds, long_responses, threads=2),
        repeats=15,
        min_time=0.05,  # a call takes a few ms: loop it, so that each sample is not one call
    )
    mv_long = mv_pairs_per_s(long_golds[: min(sample, m)], long_responses[: min(sample, m)])
    report.add(f"grade_many threads=1, {m} long responses (20 KB)", one_long, m / mv_long, "math-verify", "pairs", m)
    one_lh, hend_long = paired_median_times(
        lambda: rapidgrade.grade_many(long_golds, long_responses, threads=1),
        lambda: [hendrycks_grade(g, r) for g, r in zip(long_golds, long_responses)],
        repeats=15,
        min_time=0.05,
    )
    report.add(
        f"grade_many threads=1, {m} long responses (20 KB)", one_lh, hend_long, "Hendrycks-style plain Python",
        "pairs", m,
    )
    report.add(
        "grade_many threads=2 vs threads=1, long responses", two_long, one_long, "grade_many threads=1", "pairs", m
    )

    if args.memory_pairs:
        mb = peak_memory_mb(args.memory_pairs)
        print(f"peak memory (max RSS) of grade_many on {args.memory_pairs:,} pairs: {mb:,.0f} MB")
        report.rows.append({"name": "peak memory MB", "pairs": args.memory_pairs, "max_rss_mb": mb})
    print(f"\nsaved {report.save('bench_grade')}")


if __name__ == "__main__":
    main()
