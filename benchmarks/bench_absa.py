"""Benchmark: rapidgrade.tasks.absa.score vs a plain-Python implementation of the same rules.

Scores about 1,000,000 tuples (gold + stage 1 + final, Korean and English, with surface noise,
polarity typos and a few bad records) with both, checks that the scorecards are identical, and
prints the median times and the ratio. The plain-Python implementation is the parity oracle in
tests/oracles/absa_oracle.py.

    python benchmarks/bench_absa.py [--tuples 1000000] [--repeats 5] [--threads N]
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracles"))

import absa_data  # noqa: E402
import absa_oracle  # noqa: E402

from rapidgrade.tasks import absa  # noqa: E402


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


def median_time(f, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tuples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1, help="rapidgrade threads (default 1, as the peer)")
    args = parser.parse_args()

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
        t_rg = median_time(lambda: absa.score(records, repair=repair, threads=args.threads), args.repeats)
        t_py = median_time(lambda: absa_oracle.score(records, repair=repair), max(1, args.repeats // 2 + 1))
        print(
            f"repair={repair!s:5}  rapidgrade {t_rg:.3f} s ({n_tuples / t_rg / 1e6:.2f} M tuples/s)   "
            f"plain Python {t_py:.3f} s ({n_tuples / t_py / 1e6:.2f} M tuples/s)   ratio {t_py / t_rg:.1f}x"
        )
    print(f"final F1 {ours['stages']['final']['f1']:.4f}, stage1 F1 {ours['stages']['stage1']['f1']:.4f}, "
          f"bad records {ours['records']['bad']}")


if __name__ == "__main__":
    main()
