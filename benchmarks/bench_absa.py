"""Benchmark: rapidgrade.tasks.absa.score vs a plain-Python implementation of the same rules.

Scores about 1,000,000 tuples (gold + stage 1 + final, Korean and English, with surface noise,
polarity typos and a few bad records) with both, checks that the scorecards are identical, and
prints the median times and the ratio. The plain-Python implementation is the parity oracle in
tests/oracles/absa_oracle.py.

    python -m benchmarks.bench_absa [--tuples 1000000] [--repeats 5] [--threads N] [--save]

With --save, the figures go to benchmarks/results/bench_absa.json with the machine, the Python
version and the commit.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import subprocess
import time
from pathlib import Path

from rapidgrade.tasks import absa
from tests.oracles import absa_data, absa_oracle

ROOT = Path(__file__).resolve().parents[1]


def count_tuples(records: list[object]) -> int:
    total = 0
    for r in records:
        if not isinstance(r, dict):
            continue
        groups = [r.get("gold")]
        source = r.get("stages", r)
        if isinstance(source, dict):
            groups += [source.get("stage1"), source.get("final")]
        total += sum(len(g) for g in groups if isinstance(g, list))
    return total


def timed(f) -> tuple[float, float]:
    """Wall-clock and process CPU time (all threads) of one call of *f*."""
    w, c = time.perf_counter(), time.process_time()
    f()
    return time.perf_counter() - w, time.process_time() - c


def median_times(f, g, repeats: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Median (wall, CPU) times of *f* and of *g*, run alternately so that both see the same
    machine load (the CPU time is the steadier figure on a shared machine)."""
    fs, gs = [], []
    for _ in range(repeats):
        fs.append(timed(f))
        gs.append(timed(g))
    med = statistics.median
    return (med(t for t, _ in fs), med(c for _, c in fs)), (med(t for t, _ in gs), med(c for _, c in gs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tuples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="rapidgrade scoring threads (default 1)")
    parser.add_argument("--save", action="store_true", help="write benchmarks/results/bench_absa.json")
    args = parser.parse_args()
    results: list[dict[str, object]] = []

    n_records = max(1, args.tuples // 9)  # about 3 tuples per group, 3 groups per record
    records = absa_data.generate(n_records, seed=12345, bad_fraction=0.005)
    gc.collect()
    gc.freeze()  # the records are long-lived; keep collections from rescanning them
    n_tuples = count_tuples(records)
    print(f"python {platform.python_version()} on {platform.machine()}, {len(records):,} records, {n_tuples:,} tuples")

    for repair in (False, True):
        ours = absa.score(records, repair=repair, threads=args.threads).to_dict()
        peer = absa_oracle.score(records, repair=repair)
        if ours != peer:
            raise SystemExit(f"scorecards differ (repair={repair})")
        (t_rg, c_rg), (t_py, c_py) = median_times(
            lambda: absa.score(records, repair=repair, threads=args.threads),
            lambda: absa_oracle.score(records, repair=repair),
            args.repeats,
        )
        results.append(
            {
                "repair": repair,
                "rapidgrade_s": t_rg,
                "plain_python_s": t_py,
                "ratio": t_py / t_rg,
                "rapidgrade_cpu_s": c_rg,
                "plain_python_cpu_s": c_py,
                "cpu_ratio": c_py / c_rg,
            }
        )
        print(
            f"repair={repair!s:5}  rapidgrade {t_rg:.3f} s ({n_tuples / t_rg / 1e6:.2f} M tuples/s)   "
            f"plain Python {t_py:.3f} s ({n_tuples / t_py / 1e6:.2f} M tuples/s)   ratio {t_py / t_rg:.1f}x   "
            f"(CPU time {c_rg:.3f} s vs {c_py:.3f} s: {c_py / c_rg:.1f}x)"
        )
    print(
        f"final F1 {ours['stages']['final']['f1']:.4f}, stage1 F1 {ours['stages']['stage1']['f1']:.4f}, "
        f"bad records {ours['records']['bad']}"
    )
    if args.save:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        out = ROOT / "benchmarks" / "results" / "bench_absa.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "machine": platform.machine(),
            "processor": platform.processor(),
            "python": platform.python_version(),
            "commit": commit,
            "tuples": n_tuples,
            "records": len(records),
            "threads": args.threads,
        }
        out.write_text(json.dumps({**meta, "results": results}, indent=2) + "\n", encoding="utf-8")
        print(f"saved {out}")


if __name__ == "__main__":
    main()
