"""The math-verify compatible API against math-verify itself, on the same 800 real responses.

    python -m benchmarks.bench_compat [--repeats 3] [--corpus PATH]

Times ``verify(parse("$" + gold + "$"), parse(response))`` for every pair of the corpus with math-verify
0.9.0 in this process, and with ``rapidgrade.parse``/``rapidgrade.verify`` (math-verify in worker
processes, plus the in-process fast path where it is certain), from one thread and from four.
Checks that every verdict agrees, prints pairs/s (median over repeats) and the ratios.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.datasets import DEMO_CORPUS as DEFAULT_CORPUS


def load(path: Path) -> list[tuple[str, str]]:
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    # The gold is given to parse() in dollars, as the recorded reference verdicts were computed
    # (tests/data/corpus_math_verify_0.9.0.jsonl): verify(parse("$"+gold+"$"), parse(response)).
    return [("$" + row["gold"] + "$", row["response"]) for row in rows]


def timed(run: Callable[[], list[bool]], before: Callable[[], None] | None = None) -> tuple[float, list[bool]]:
    if before is not None:
        before()  # e.g. forget memoized results, so that every repeat does the same work
    start = time.perf_counter()
    verdicts = run()
    return time.perf_counter() - start, verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = parser.parse_args()
    data = load(args.corpus)

    import math_verify

    import rapidgrade

    def peer() -> list[bool]:
        return [math_verify.verify(math_verify.parse(g), math_verify.parse(r)) for g, r in data]

    def ours_on(chunk: list[tuple[str, str]]) -> list[bool]:
        return [rapidgrade.verify(rapidgrade.parse(g), rapidgrade.parse(r)) for g, r in chunk]

    def ours() -> list[bool]:
        return ours_on(data)

    def ours_threads() -> list[bool]:
        chunks = [data[i::4] for i in range(4)]
        with ThreadPoolExecutor(max_workers=4) as executor:
            parts = list(executor.map(ours_on, chunks))
        merged: list[bool] = [False] * len(data)
        for i, part in enumerate(parts):
            merged[i::4] = part
        return merged

    ours()  # start and warm the worker processes (not timed; a long-lived process pays it once)
    # rapidgrade memoizes LaTeX conversions as math-verify does (its lru_cache of 20 entries);
    # the memo is emptied before each timed repeat so that no repeat reuses an earlier one.
    cold = rapidgrade.compat.clear_caches
    # The runs are interleaved, one of each per repeat, so that a change in the machine's load
    # (other processes share its cores) affects both sides alike.
    times: dict[str, list[float]] = {"peer": [], "ours": [], "threads": []}
    for _ in range(args.repeats):
        seconds, peer_verdicts = timed(peer)
        times["peer"].append(seconds)
        seconds, ours_verdicts = timed(ours, cold)
        times["ours"].append(seconds)
        seconds, threads_verdicts = timed(ours_threads, cold)
        times["threads"].append(seconds)
    peer_rate, ours_rate, threads_rate = (
        len(data) / statistics.median(times[key]) for key in ("peer", "ours", "threads")
    )
    workers = rapidgrade._pool.default_pool().workers

    disagreements = sum(a != b for a, b in zip(peer_verdicts, ours_verdicts))
    disagreements += sum(a != b for a, b in zip(peer_verdicts, threads_verdicts))
    print(f"corpus: {args.corpus.name}, {len(data)} pairs, median of {args.repeats}")
    print(f"math-verify 0.9.0, in process, 1 thread:        {peer_rate:10.1f} pairs/s")
    print(f"rapidgrade.parse/verify, 1 thread:              {ours_rate:10.1f} pairs/s"
          f"  ratio {ours_rate / peer_rate:.2f}x")
    print(f"rapidgrade.parse/verify, 4 threads, {workers} workers:  {threads_rate:10.1f} pairs/s"
          f"  ratio {threads_rate / peer_rate:.2f}x")
    print(f"verdicts: math-verify {sum(peer_verdicts)}/{len(data)} correct; "
          f"rapidgrade disagrees on {disagreements} (must be 0)")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
