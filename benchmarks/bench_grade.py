"""Grading throughput: rapidgrade.grade_many vs math-verify and vs a Hendrycks-style grader.

    python -m benchmarks.bench_grade [--pairs 100000] [--mv-sample 800] [--memory-pairs 1000000]

In one run, on the same data:
- the headline: the 800-pair demo corpus as --pairs DISTINCT pairs in shuffled order (each
  response made distinct by a "(copy <letters>)" line before it, so no string repeats and nothing
  stays in cache by accident), grade_many threads=1 vs the plain-Python Hendrycks grader
  (tests/oracles/hendrycks_grader.py) and vs math-verify's verify(parse("$gold$"), parse(response))
  (timed on --mv-sample pairs: at about 1,000 pairs/s the full set would take minutes; the
  figures are pairs/s, so the ratio is fair), and threads=2 vs threads=1, beside the ceiling
  of that ratio on this machine: half the pairs graded by two processes at once against one
  process alone (two cores share caches, memory bandwidth and, on a shared host, tenants);
- beside it, labelled as such, the same 800 strings repeated in corpus order (the friendlier
  figure older versions of this benchmark printed);
- the same distinct pairs with a non-ASCII character (an em dash) in each response, against the
  ASCII pairs and against the Hendrycks-style grader: what one typographic character costs;
- long responses (20 KB of real reasoning, taken from other responses with their boxes removed,
  before each response);
- memory, measured in a child process: the peak RSS of grade_many on --memory-pairs distinct
  pairs (and how much of it the call added to the inputs), and the bytes the results keep per
  pair (tracemalloc, which NumPy reports to).
Prints medians of interleaved rounds and ratios; saves benchmarks/results/bench_grade.json.
The hard-data benchmark (unboxed solutions, short answer pairs) is benchmarks/bench_hard.py.
"""

from __future__ import annotations

import argparse
import random
import statistics
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


def _tag(k: int) -> str:
    """k in lower-case letters (no digit, no choice letter): 0 -> "a", 27 -> "bb"."""
    out = ""
    while True:
        k, d = divmod(k, 26)
        out = chr(97 + d) + out
        if k == 0:
            return out


def distinct_pairs(
    golds: list[str], responses: list[str], pairs: int, seed: int = 0, label: str = "copy"
) -> tuple[list[str], list[str]]:
    """`pairs` distinct (gold, response) pairs of the corpus in shuffled order: copy k of a
    response starts with its own "(<label> <letters>)" line, without a digit, so that no
    extraction rule reads it (main() checks that every copy keeps the original's verdict). A
    non-ASCII label makes every response a non-ASCII str, as one typographic character does."""
    copies = -(-pairs // len(golds))
    rows = [(g, f"({label} {_tag(k)})\n\n" + r) for k in range(copies) for g, r in zip(golds, responses)][:pairs]
    random.Random(seed).shuffle(rows)
    return [g for g, _ in rows], [r for _, r in rows]


def compare_with_hendrycks(report: Report, name: str, golds: list[str], responses: list[str]) -> float:
    """Times grade_many's fast path (threads=1) and the Hendrycks-style grader on the same pairs,
    alternated (medians of 7), adds the row `name` to `report` and returns rapidgrade's time."""
    ours, hendrycks = paired_median_times(
        lambda: rapidgrade.grade_many(golds, responses, threads=1, fallback=False),
        lambda: [hendrycks_grade(g, r) for g, r in zip(golds, responses)],
        repeats=7,
    )
    report.add(name, ours, hendrycks, "Hendrycks-style plain Python", "pairs", len(golds))
    return ours


_MEMORY_CHILD = """
import json, random, resource, sys, tracemalloc
sys.path[:0] = {path!r}
import rapidgrade
from benchmarks.bench_grade import distinct_pairs
rows = [json.loads(line) for line in open({corpus!r}, encoding="utf-8")]
golds, responses = distinct_pairs([r["gold"] for r in rows], [r["response"] for r in rows], {pairs})
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if {trace}:
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
results = rapidgrade.grade_many(golds, responses, threads=2, fallback=False)
assert len(results) == len(golds)
kept = tracemalloc.get_traced_memory()[0] - start if {trace} else 0
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, kept / len(golds))
"""


_CEILING_CHILD = """
import json, statistics, sys, time
sys.path[:0] = {path!r}
import rapidgrade
from benchmarks.bench_grade import distinct_pairs
rows = [json.loads(line) for line in open({corpus!r}, encoding="utf-8")]
golds, responses = distinct_pairs([r["gold"] for r in rows], [r["response"] for r in rows], {pairs})
rapidgrade.grade_many(golds, responses, threads=1, fallback=False)
print("ready", flush=True)
sys.stdin.readline()
times = []
for _ in range({repeats}):
    start = time.perf_counter()
    rapidgrade.grade_many(golds, responses, threads=1, fallback=False)
    times.append(time.perf_counter() - start)
print(statistics.median(times), flush=True)
"""


def two_process_ceiling(pairs: int, rounds: int = 3, repeats: int = 5) -> tuple[float, float]:
    """(median time of one process grading `pairs` distinct pairs alone, median of the slower of
    two processes grading them at the same time), alternated over `rounds`. Two processes share
    nothing but the machine (cores, caches, memory bandwidth, other tenants), so 2 * alone /
    together is the most that threads=2 can gain here: the ceiling its ratio is read against."""

    def run(copies: int) -> float:
        code = _CEILING_CHILD.format(path=sys.path, corpus=str(DEMO_CORPUS), pairs=pairs, repeats=repeats)
        children = [
            subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for _ in range(copies)
        ]
        for child in children:  # each has made its data and graded it once
            assert child.stdout is not None
            if child.stdout.readline().strip() != "ready":
                raise SystemExit("the ceiling child failed before its timing started")
        for child in children:  # released together: their timed calls overlap
            assert child.stdin is not None
            child.stdin.write("go\n")
            child.stdin.flush()
        times = []
        for child in children:
            out, _ = child.communicate()
            if child.returncode != 0:
                raise SystemExit(f"the ceiling child exited with {child.returncode}")
            times.append(float(out.split()[-1]))
        return max(times)

    alone: list[float] = []
    together: list[float] = []
    for _ in range(rounds):
        alone.append(run(1))
        together.append(run(2))
    return statistics.median(alone), statistics.median(together)


def memory_figures(pairs: int) -> tuple[float, float, float]:
    """(max RSS before the call, peak RSS, bytes kept by the results per pair) of grade_many on
    `pairs` distinct pairs, each measured in its own child process (tracemalloc slows the call
    and adds its own memory, so the peak is taken without it)."""

    def child(trace: bool) -> list[float]:
        code = _MEMORY_CHILD.format(path=sys.path, corpus=str(DEMO_CORPUS), pairs=pairs, trace=trace)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        return [float(x) for x in out.stdout.split()]

    before, peak, _ = child(False)
    kept = child(True)[2]
    return before, peak, kept


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
    print(
        f"agreement with math-verify on the 800 pairs: rapidgrade {agree_ours}/800, "
        f"Hendrycks-style {agree_hendrycks}/800; fast path decided {fast}/800\n"
    )

    n = len(golds)
    fast_only = rapidgrade.grade_many(golds800, responses800, fallback=False).correct.tolist()
    by_response = dict(zip(responses800, fast_only))

    def check_copies(copy_golds: list[str], copy_responses: list[str]) -> None:
        """The copies keep the verdicts: their first 5,000 grade as the 800 originals do."""
        check = rapidgrade.grade_many(copy_golds[:5000], copy_responses[:5000], fallback=False)
        if check.correct.tolist() != [by_response[r.split("\n\n", 1)[1]] for r in copy_responses[:5000]]:
            raise SystemExit("the distinct copies do not grade as the originals: the benchmark data is wrong")

    dg, dr = distinct_pairs(golds800, responses800, n)
    check_copies(dg, dr)
    one_h = compare_with_hendrycks(report, f"fast path threads=1, {n:,} distinct shuffled pairs", dg, dr)
    sample = args.mv_sample
    mv_rate = mv_pairs_per_s(dg[:sample], dr[:sample])
    report.add(
        f"fast path threads=1, {n:,} distinct shuffled pairs",
        one_h,
        n / mv_rate,
        f"math-verify ({sample} pairs timed)",
        "pairs",
        n,
    )
    one, two = paired_median_times(
        lambda: rapidgrade.grade_many(dg, dr, threads=1, fallback=False),
        lambda: rapidgrade.grade_many(dg, dr, threads=2, fallback=False),
        repeats=7,
    )
    report.add(f"fast path threads=2 vs threads=1, {n:,} distinct pairs", two, one, "grade_many threads=1", "pairs", n)
    # What two cores give here at all: the same work in two processes at once against one.
    alone, together = two_process_ceiling(n // 2)
    report.add(
        f"ceiling of threads=2: two processes at once vs one, {n // 2:,} pairs each",
        together / 2,
        alone,
        "one process",
        "pairs",
        n // 2,
    )

    compare_with_hendrycks(report, f"(repeated strings) fast path threads=1, 800 x{reps} in order", golds, responses)

    # The same pairs with an em dash in each copy line: every response a non-ASCII str (two bytes
    # a character in Python), which the core encodes to UTF-8 itself.
    wg, wr = distinct_pairs(golds800, responses800, n, label="copy \N{EM DASH}")
    check_copies(wg, wr)
    wide, one_w = paired_median_times(
        lambda: rapidgrade.grade_many(wg, wr, threads=1, fallback=False),
        lambda: rapidgrade.grade_many(dg, dr, threads=1, fallback=False),
        repeats=7,
    )
    report.add(
        f"non-ASCII responses (an em dash each) vs ASCII, {n:,} pairs",
        wide,
        one_w,
        "the same pairs in ASCII",
        "pairs",
        n,
    )
    compare_with_hendrycks(report, f"fast path threads=1, {n:,} non-ASCII distinct pairs", wg, wr)

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
        f"grade_many threads=1, {m} long responses (20 KB)",
        one_lh,
        hend_long,
        "Hendrycks-style plain Python",
        "pairs",
        m,
    )
    report.add(
        "grade_many threads=2 vs threads=1, long responses", two_long, one_long, "grade_many threads=1", "pairs", m
    )

    if args.memory_pairs:
        before, peak, kept = memory_figures(args.memory_pairs)
        print(
            f"memory of grade_many on {args.memory_pairs:,} distinct pairs (threads=2): peak RSS {peak:,.0f} MB, "
            f"of which {peak - before:,.0f} MB added by the call to the {before:,.0f} MB of inputs; "
            f"results keep {kept:,.1f} bytes per pair"
        )
        report.rows.append(
            {
                "name": "memory",
                "pairs": args.memory_pairs,
                "max_rss_mb": peak,
                "rss_before_mb": before,
                "kept_bytes_per_pair": kept,
            }
        )
    print(f"\nsaved {report.save('bench_grade')}")


if __name__ == "__main__":
    main()
