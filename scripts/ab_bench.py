"""Before and after in one run: a benchmark of ``benchmarks/`` run alternately against two builds
of rapidgrade, with the figures of each side and their ratio.

A refactoring must change no benchmark figure beyond noise. On a shared machine the same figure
moves by tens of percent from one run to the next, so two runs taken minutes apart say little.
This script runs the benchmark against the *before* tree and the *after* tree in turns (before,
after, after, before, ... so that neither side always runs first), several rounds, each run in a
fresh interpreter, and prints per row of the benchmark's report the median time of each side,
after/before, and the median ratio against the peer on each side.

Each tree is a checkout whose ``python/`` holds a built extension (``scripts/dev_build.sh``).
The benchmark code is the *after* tree's for both sides (the same benchmark on the same data);
a benchmark that uses an API the *before* tree lacks fails on that side and says so.

    python scripts/ab_bench.py --before /tmp/old --after . --rounds 3 bench_grade --pairs 50000

Only benchmarks that write a report (``benchmarks._common.Report``: bench_grade, bench_hard,
bench_primitives, bench_rewards, bench_wild) can be compared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


def run_side(tree: Path, bench_tree: Path, bench: str, args: list[str], out_dir: Path) -> list[dict[str, Any]]:
    """One run of ``benchmarks.BENCH`` with *tree*'s rapidgrade; the rows of its report."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree / "python"), str(bench_tree)])
    env["RAPIDGRADE_BENCH_RESULTS"] = str(out_dir)
    done = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{bench}", *args],
        cwd=bench_tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{bench} failed against {tree}:\n{done.stderr[-2000:]}")
    reports = list(out_dir.glob("*.json"))
    if len(reports) != 1:
        raise SystemExit(f"{bench} wrote {len(reports)} reports to {out_dir}; expected one")
    rows: list[dict[str, Any]] = json.loads(reports[0].read_text())["rows"]
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", type=Path, required=True, help="the tree before the change")
    parser.add_argument("--after", type=Path, default=Path("."), help="the tree after the change (default: .)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each side (default 3)")
    parser.add_argument("bench", help="a benchmark module of benchmarks/, e.g. bench_grade")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the benchmark's own arguments")
    opts = parser.parse_args()
    if opts.rounds < 1:
        parser.error("--rounds must be >= 1")
    before, after = opts.before.resolve(), opts.after.resolve()
    for tree in (before, after):
        if not any((tree / "python" / "rapidgrade").glob("_core*.so")):
            parser.error(f"{tree}/python/rapidgrade has no built extension (run scripts/dev_build.sh there)")
    runs: dict[str, list[list[dict[str, Any]]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as scratch:
        for k in range(opts.rounds):
            order = [("before", before), ("after", after)]
            for side, tree in order if k % 2 == 0 else order[::-1]:
                out_dir = Path(scratch) / f"{side}-{k}"
                out_dir.mkdir()
                runs[side].append(run_side(tree, after, opts.bench, opts.args, out_dir))
                print(f"round {k + 1}/{opts.rounds}: {side} done", file=sys.stderr, flush=True)
    # a row is its name and its peer (one figure may be set beside two peers), once each, in order
    names = list(dict.fromkeys((row["name"], row.get("peer", "")) for row in runs["after"][0]))
    print(f"{opts.bench} {' '.join(opts.args)}: {opts.rounds} runs per side, alternated; medians")
    print(f"{'row':<58} {'before':>11} {'after':>11} {'speed a/b':>13} {'vs peer before':>15} {'after':>9}")
    for name, peer in names:

        def figures(side: str, key: str, name: str = name, peer: str = peer) -> list[float]:
            return [
                float(row[key])
                for rows in runs[side]
                for row in rows
                if row["name"] == name and row.get("peer", "") == peer and key in row
            ]

        label = f"{name} (vs {peer})" if peer else name
        b, a = figures("before", "rapidgrade_s"), figures("after", "rapidgrade_s")
        if not b or not a:  # a row of other figures (memory): each number's medians
            row = next(r for r in runs["after"][0] if r["name"] == name and r.get("peer", "") == peer)
            numbers = [k for k, v in row.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
            shown = ", ".join(
                f"{k} {statistics.median(figures('before', k)):.4g} -> {statistics.median(figures('after', k)):.4g}"
                for k in numbers
                if figures("before", k)
            )
            print(f"{label:<58} {shown or '(on one side only)'}")
            continue
        tb, ta = statistics.median(b), statistics.median(a)
        rb, ra = statistics.median(figures("before", "ratio")), statistics.median(figures("after", "ratio"))
        print(f"{label[:58]:<58} {tb * 1e3:9.2f}ms {ta * 1e3:9.2f}ms {tb / ta:12.2f}x {rb:14.1f}x {ra:8.1f}x")
    print("speed a/b = before time / after time: > 1 means the after tree is faster")


if __name__ == "__main__":
    main()
