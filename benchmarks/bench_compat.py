"""The math-verify compatible API against math-verify itself, one pair at a time, same run, same pairs.

    python -m benchmarks.bench_compat [--repeats 3] [--cold-runs 3] [--corpus PATH] [--limit N]

What a user gets who changes one import line (``from math_verify import parse, verify`` to
``from rapidgrade import parse, verify``) and keeps calling ``verify(parse(gold), parse(response))``
for each pair of the demo set (golds wrapped in ``$``, as the recorded verdicts were computed):

* **per call, warm**: every pair is timed on its own (both parses and the verify), in a pass of
  math-verify and a pass of rapidgrade per repeat, in this process, after one untimed pass of each (so the
  worker processes are started and warm). Both libraries' memos of LaTeX conversions are emptied
  before each repeat. Printed: the median, mean and 90th percentile of the time per pair over all
  pairs and repeats, and the ratios;
* **cold start**: a fresh interpreter per library and run that imports it (the import line
  above), then does the first pass over the pairs: the import, the first call (for rapidgrade
  including the start of any worker it needs) and the whole first pass, medians over runs;
* **throughput from four threads** (rapidgrade only; math-verify's ``signal.alarm`` refuses
  threads), median over repeats.

Every verdict of rapidgrade must equal math-verify's (exit status 1 otherwise).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import rapidgrade
from tests.datasets import DEMO_CORPUS as DEFAULT_CORPUS

# Run in a fresh interpreter for the cold-start line: argv[1] is "math_verify" or "rapidgrade",
# argv[2] a JSON file of [gold, response] pairs. The clock starts before the import, as a user's
# script's would.
_COLD_CHILD = r"""
import time
start = time.perf_counter()
import json, sys
library, corpus = sys.argv[1], sys.argv[2]
if library == "math_verify":
    from math_verify import parse, verify
else:
    from rapidgrade import parse, verify
imported = time.perf_counter()
with open(corpus, encoding="utf-8") as f:
    pairs = json.load(f)
times, verdicts = [], []
for gold, response in pairs:
    t = time.perf_counter()
    verdicts.append(bool(verify(parse(gold), parse(response))))
    times.append(time.perf_counter() - t)
done = time.perf_counter()
print(json.dumps({"import": imported - start, "first_call": times[0], "first_pass": done - imported,
                  "total": done - start, "median": sorted(times)[len(times) // 2], "verdicts": verdicts}))
"""


def load(path: Path) -> list[tuple[str, str]]:
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    # The gold is given to parse() in dollars, as the recorded reference verdicts were computed
    # (tests/data/corpus_math_verify_0.9.0.jsonl): verify(parse("$"+gold+"$"), parse(response)).
    return [("$" + row["gold"] + "$", row["response"]) for row in rows]


def cold_run(library: str, pairs_file: Path) -> dict[str, Any]:
    """One fresh interpreter: import *library*, then the first pass over the pairs in *pairs_file*."""
    env = dict(os.environ)
    python_dir = str(Path(rapidgrade.__file__).resolve().parents[1])  # the rapidgrade measured here
    env["PYTHONPATH"] = os.pathsep.join(p for p in (python_dir, env.get("PYTHONPATH", "")) if p)
    out = subprocess.run(
        [sys.executable, "-c", _COLD_CHILD, library, str(pairs_file)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


def per_call(
    data: list[tuple[str, str]],
    repeats: int,
    peer: Callable[[str, str], bool],
    ours: Callable[[str, str], bool],
    clear: Callable[[], None],
) -> tuple[list[float], list[float], list[bool], list[bool]]:
    """Each pair timed on its own, in a pass of math-verify and a pass of rapidgrade per repeat
    (which goes first alternates), so that a change in the machine's load affects both alike.

    Passes rather than pair-by-pair alternation: a user's loop runs one library, and math-verify's
    work between two calls of rapidgrade would evict what rapidgrade's calls keep in the CPU's
    caches (it doubles rapidgrade's median here).
    """
    times: tuple[list[float], list[float]] = ([], [])
    verdicts: tuple[list[bool], list[bool]] = ([], [])
    clock = time.perf_counter
    for repeat in range(repeats):
        for side in (0, 1) if repeat % 2 == 0 else (1, 0):
            clear()
            grade = (peer, ours)[side]
            out: list[bool] = []
            for gold, response in data:
                t = clock()
                out.append(grade(gold, response))
                times[side].append(clock() - t)
            verdicts[side][:] = out
    return times[0], times[1], verdicts[0], verdicts[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cold-runs", type=int, default=3, help="fresh interpreters per library (0: skip)")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="JSON lines with gold and response")
    parser.add_argument("--limit", type=int, default=0, help="an evenly spaced sample of this many pairs (0: all)")
    args = parser.parse_args()
    data = load(args.corpus)
    if args.limit and args.limit < len(data):
        data = data[:: len(data) // args.limit][: args.limit]

    # Cold first, while no worker of this process competes for the cores.
    cold: dict[str, list[dict[str, Any]]] = {"math_verify": [], "rapidgrade": []}
    with tempfile.TemporaryDirectory() as tmp:
        pairs_file = Path(tmp) / "pairs.json"
        pairs_file.write_text(json.dumps(data), encoding="utf-8")
        for _ in range(args.cold_runs):
            for library in cold:
                cold[library].append(cold_run(library, pairs_file))

    import math_verify
    from math_verify.parser import parse_expr_cached, parse_latex_cached

    from rapidgrade import compat

    def peer(gold: str, response: str) -> bool:
        return bool(math_verify.verify(math_verify.parse(gold), math_verify.parse(response)))

    def ours(gold: str, response: str) -> bool:
        return rapidgrade.verify(rapidgrade.parse(gold), rapidgrade.parse(response))

    def clear() -> None:
        # Each repeat starts with empty memos on both sides: no repeat reuses an earlier one.
        parse_latex_cached.cache_clear()
        parse_expr_cached.cache_clear()
        compat.clear_caches()

    for gold, response in data:  # untimed: start and warm the worker processes
        ours(gold, response)
    peer_times, ours_times, peer_verdicts, ours_verdicts = per_call(data, args.repeats, peer, ours, clear)

    def ours_on(chunk: list[tuple[str, str]]) -> list[bool]:
        return [ours(g, r) for g, r in chunk]

    thread_times: list[float] = []
    thread_verdicts: list[bool] = []
    for _ in range(args.repeats):
        clear()
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=4) as executor:
            parts = list(executor.map(ours_on, [data[i::4] for i in range(4)]))
        thread_times.append(time.perf_counter() - start)
        thread_verdicts = [False] * len(data)
        for i, part in enumerate(parts):
            thread_verdicts[i::4] = part

    disagreements = sum(a != b for a, b in zip(peer_verdicts, ours_verdicts))
    disagreements += sum(a != b for a, b in zip(peer_verdicts, thread_verdicts))
    for runs in cold.values():
        for run in runs:
            disagreements += sum(a != b for a, b in zip(peer_verdicts, run["verdicts"]))

    us = 1e6
    print(f"corpus: {args.corpus.name}, {len(data)} pairs; per call: verify(parse(gold), parse(response))")
    print(f"per call, warm, {args.repeats} repeats x {len(data)} pairs, one pass of each per repeat:")
    for name, times in (("math-verify 0.9.0", peer_times), ("rapidgrade       ", ours_times)):
        print(
            f"  {name}  median {statistics.median(times) * us:8.1f} us  mean {statistics.fmean(times) * us:8.1f} us"
            f"  p90 {percentile(times, 0.9) * us:8.1f} us"
        )
    median_ratio = statistics.median(peer_times) / statistics.median(ours_times)
    mean_ratio = statistics.fmean(peer_times) / statistics.fmean(ours_times)
    print(f"  ratio (math-verify / rapidgrade): median {median_ratio:.1f}x, mean {mean_ratio:.1f}x")
    if args.cold_runs:
        print(f"cold start, fresh interpreter: import, then the first pass (median of {args.cold_runs} runs):")
        totals = {}
        for library, runs in cold.items():

            def med(key: str, runs: list[dict[str, Any]] = runs) -> float:
                return float(statistics.median(r[key] for r in runs))

            totals[library] = med("total")
            print(
                f"  {library:<11}  import {med('import'):6.3f} s  first call {med('first_call') * 1e3:7.1f} ms"
                f"  first pass {med('first_pass'):6.3f} s ({med('first_pass') / len(data) * 1e3:.3f} ms/pair,"
                f" median {med('median') * us:.1f} us)  total {med('total'):6.3f} s"
            )
        print(f"  ratio of totals (math-verify / rapidgrade): {totals['math_verify'] / totals['rapidgrade']:.2f}x")
    workers = rapidgrade._pool.default_pool().workers
    rate = len(data) / statistics.median(thread_times)
    print(
        f"rapidgrade from 4 threads, {workers} workers: {rate:.1f} pairs/s (math-verify, 1 thread: "
        f"{len(data) / (sum(peer_times) / args.repeats):.1f} pairs/s)"
    )
    print(
        f"verdicts: math-verify {sum(peer_verdicts)}/{len(data)} correct; "
        f"rapidgrade disagrees on {disagreements} (must be 0)"
    )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
