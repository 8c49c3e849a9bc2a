"""Shared helpers of the benchmark scripts: corpus loading, timing, reporting."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.datasets import load_demo_corpus

ROOT = Path(__file__).resolve().parent.parent


def load_corpus() -> list[dict[str, Any]]:
    """The 800 real model responses (gold, response, ...) of the packaged demo set
    (``DEMO_CORPUS``, rapidgrade/data/qwen25_math_cot_800.jsonl)."""
    return load_demo_corpus()


def sample_time(fn: Callable[[], object], min_time: float) -> float:
    """Wall time of one call of fn, calling it in a loop until min_time has passed (at least
    once), so that a call of a few microseconds is not timed alone."""
    loops = 0
    start = time.perf_counter()
    while True:
        fn()
        loops += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return elapsed / loops


def median_time(fn: Callable[[], object], *, repeats: int = 7, min_time: float = 0.05) -> float:
    """Median wall time of one call of fn over `repeats` samples (see sample_time)."""
    fn()  # warm-up
    return statistics.median(sample_time(fn, min_time) for _ in range(repeats))


def paired_median_times(
    fn_a: Callable[[], object], fn_b: Callable[[], object], *, repeats: int = 7, min_time: float = 0.0
) -> tuple[float, float]:
    """Median wall times of one call of fn_a and of fn_b, sampled alternately (a, b, a, b, ...),
    so that a change of machine load during the run hits both sides alike (see sample_time)."""
    fn_a()
    fn_b()
    times_a: list[float] = []
    times_b: list[float] = []
    for _ in range(repeats):
        times_a.append(sample_time(fn_a, min_time))
        times_b.append(sample_time(fn_b, min_time))
    return statistics.median(times_a), statistics.median(times_b)


def machine_info() -> dict[str, Any]:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpus": os.cpu_count(),
        "commit": commit,
    }


class Report:
    """Collects rows of (name, rapidgrade time, peer time) and prints them with ratios."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.rows: list[dict[str, Any]] = []

    def add(self, name: str, ours: float, peer: float, peer_name: str, unit: str = "call", items: int = 1) -> None:
        self.rows.append(
            {
                "name": name,
                "rapidgrade_s": ours,
                "peer_s": peer,
                "peer": peer_name,
                "unit": unit,
                "items": items,
                "ratio": peer / ours,
            }
        )
        per = f"{items / ours:,.0f} {unit}/s vs {items / peer:,.0f} {unit}/s"
        print(f"{name:<58} {per:<42} ratio {peer / ours:8.2f}x  (vs {peer_name})", flush=True)

    def save(self, stem: str) -> Path:
        """Write the rows to ``benchmarks/results/STEM.json`` (or to the folder named by
        ``RAPIDGRADE_BENCH_RESULTS``, as ``scripts/ab_bench.py`` sets it for each run)."""
        out_dir = Path(os.environ.get("RAPIDGRADE_BENCH_RESULTS") or ROOT / "benchmarks" / "results")
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / f"{stem}.json"
        path.write_text(json.dumps({"title": self.title, "machine": machine_info(), "rows": self.rows}, indent=2))
        return path
