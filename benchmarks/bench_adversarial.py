"""Measured guarantees under adversarial load (issue 14).

Grades the fixed adversarial corpus of tests/data/adversarial/corpus.json (deep nesting, huge
numbers, 1 MiB answers, scanner-pathological repeats, slow symbolic forms, junk bytes; each
response is built from a short spec of repeated parts, so no megabytes are committed) from one
thread, from 8 threads and from asyncio, with the fallback on (timeout TIMEOUT seconds), and
prints per-pair wall time (p50 / p99 / max), worker restarts, peak RSS, and the zombies and
file descriptors left after.

Targets (issue 14): max per pair <= timeout + 0.25 s from the moment work on the pair starts (with
one thread a pair's wall time is that, once the pool is warm; from 8 threads on 2 workers a pair
also waits for a worker, so its wall time includes the queue), zero hangs, peak RSS < 1 GB, zero
leaked processes.

    PYTHONPATH=python python -m benchmarks.bench_adversarial
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import rapidgrade
from rapidgrade._pool import default_pool

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "adversarial" / "corpus.json"
TIMEOUT = 2.0


def load_adversarial() -> list[dict[str, Any]]:
    """The corpus: one dict per pair (id, kind, gold, response), responses built from the spec."""
    rows = json.loads(CORPUS.read_text(encoding="utf-8"))
    out = []
    for row in rows:
        response = "".join(text * repeat for text, repeat in row["parts"])
        out.append({"id": row["id"], "kind": row["kind"], "gold": row["gold"], "response": response})
    return out


def _grade_timed(row: dict[str, Any]) -> tuple[float, str]:
    t0 = time.perf_counter()
    v = rapidgrade.grade(row["gold"], row["response"], timeout=TIMEOUT)
    return time.perf_counter() - t0, v.decided_by


def _one_thread(rows: list[dict[str, Any]]) -> list[tuple[float, str]]:
    return [_grade_timed(r) for r in rows]


def _eight_threads(rows: list[dict[str, Any]]) -> list[tuple[float, str]]:
    with ThreadPoolExecutor(max_workers=8) as executor:
        return list(executor.map(_grade_timed, rows))


def _asyncio(rows: list[dict[str, Any]]) -> list[tuple[float, str]]:
    async def main() -> list[tuple[float, str]]:
        return list(await asyncio.gather(*(asyncio.to_thread(_grade_timed, r) for r in rows)))

    return asyncio.run(main())


def _children() -> tuple[int, int]:
    """(live child processes, zombie child processes) of this process, from /proc."""
    me = str(os.getpid())
    live = zombies = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[1] == me:
            if fields[0] == "Z":
                zombies += 1
            else:
                live += 1
    return live, zombies


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    rows = load_adversarial()
    size = sum(len(r["response"]) for r in rows)
    print(f"adversarial corpus: {len(rows)} pairs, {size / 1e6:.1f} MB of responses, timeout={TIMEOUT} s")
    # warm the shared pool (its start is not a pair's cost: the clock starts on a warm worker)
    rapidgrade.grade("\\sum_{k=1}^{10} k", "\\boxed{55}", timeout=60)
    fds_before = _fds()
    modes: list[tuple[str, Callable[[list[dict[str, Any]]], list[tuple[float, str]]]]] = [
        ("1 thread", _one_thread),
        ("8 threads", _eight_threads),
        ("asyncio", _asyncio),
    ]
    header = f"{'mode':<10} {'p50 s':>8} {'p99 s':>8} {'max s':>8} {'slowest':<16} {'restarts':>8} {'wall s':>8}"
    lines = [header, "-" * len(header)]
    worst_by_id: dict[str, float] = {}
    for name, run in modes:
        before = default_pool().stats()
        t0 = time.perf_counter()
        results = run(rows)
        wall = time.perf_counter() - t0
        after = default_pool().stats()
        times = [t for t, _ in results]
        slowest = max(range(len(rows)), key=lambda i: times[i])
        for row, (t, _) in zip(rows, results):
            worst_by_id[row["id"]] = max(worst_by_id.get(row["id"], 0.0), t)
        restarts = after.started - before.started
        lines.append(
            f"{name:<10} {statistics.median(times):8.3f} {_percentile(times, 0.99):8.3f} {max(times):8.3f} "
            f"{rows[slowest]['id']:<16} {restarts:8d} {wall:8.2f}"
        )
    stats = default_pool().stats()
    rapidgrade._pool._close_default_pool()
    time.sleep(0.5)
    live, zombies = _children()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    peak_children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("\n".join(lines))
    print(
        f"\npool: started {stats.started}, killed {stats.killed}, cancelled {stats.cancelled}; "
        f"peak RSS {peak_mb:.0f} MB (largest worker {peak_children_mb:.0f} MB); "
        f"after close: {live} child processes, {zombies} zombies, fds {fds_before} -> {_fds()}"
    )
    print("\nguarantees:")
    print(f"  {'guarantee':<44} {'measured':<40} check")
    print(f"  {'hacking success rate, reward preset':<44} {hacking_row():<40} pytest tests/unit/test_reward_policy.py")
    _row("8 threads x 1 slow pair, 2 workers, deadline", deadline_row(), "pytest tests/unit/test_grade_deadline.py")
    main_before, main_after = main_memory_row()
    worker_before, worker_after = worker_memory_row()
    _row(
        "peak memory per 1,000 long-polynomial pairs",
        f"main +{main_before:.0f} -> +{main_after:.0f} MB",
        "python -m benchmarks.bench_adversarial",
    )
    _row(
        "largest fallback worker, hostile polynomials",
        f"{worker_before:.0f} -> {worker_after:.0f} MB (cap 1 GiB)",
        "pytest tests/unit/test_grade_deadline.py -k memory",
    )
    decided = {r["id"]: by for r, (_, by) in zip(rows, _one_thread_cached(rows))}
    print("\nper pair (worst wall time over the three modes, decided_by):")
    for row in rows:
        print(f"  {row['id']:<16} {row['kind']:<16} {worst_by_id[row['id']]:7.3f} s  {decided[row['id']]}")


def hacking_row() -> str:
    """The success rate of benchmarks/hacking.py's responses over the demo golds, under the reward
    preset (``policy="reward"``, the rewards' default) and under the plain grader."""
    from benchmarks._common import load_corpus
    from benchmarks.hacking import hacks, success_rates
    from rapidgrade.integrations.rewards import score_many

    suite = hacks(str(row["gold"]) for row in load_corpus())
    golds, responses = [h.gold for h in suite], [h.response for h in suite]
    won, total = success_rates(suite, score_many(golds, responses))["all"]
    plain, _ = success_rates(suite, score_many(golds, responses, policy="plain"))["all"]
    return f"{won}/{total} = {100 * won / total:.1f}% (plain: {100 * plain / total:.1f}%)"


def _row(guarantee: str, measured: str, check: str) -> None:
    print(f"  {guarantee:<44} {measured:<40} {check}")


def deadline_row() -> str:
    """8 threads each grading one slow pair (timeout 5 s) on 2 workers: the slowest call without a
    deadline and with ``deadline=2``."""
    from rapidgrade._pool import WorkerPool
    from rapidgrade.fallback import WARMUP

    slow = ("\\int e^{x^2}\\sin(x^3)\\cos(x^4) dx", "so \\boxed{0}")
    pool = WorkerPool(workers=2, warmup=WARMUP)
    saved = rapidgrade._pool._default_pool
    rapidgrade._pool._default_pool = pool
    try:
        rapidgrade.grade("\\sum_{k=1}^{10} k", "\\boxed{55}", timeout=120)
        time.sleep(2.0)  # the second worker and the spare warm up

        def slowest(deadline: float | None) -> float:
            def one(_: int) -> float:
                t0 = time.perf_counter()
                rapidgrade.grade(*slow, timeout=5.0, deadline=deadline)
                return time.perf_counter() - t0

            with ThreadPoolExecutor(max_workers=8) as executor:
                return max(executor.map(one, range(8)))

        without, with_deadline = slowest(None), slowest(2.0)
    finally:
        rapidgrade._pool._default_pool = saved
        pool.close()
    return f"{without:.1f} s -> {with_deadline:.2f} s (deadline=2)"


#: 1,000 distinct long polynomial golds: (x+1)^n expanded, n = 300 .. 1,299 (162 MB of golds),
#: against the answer written as a power; graded in a fresh process (its peak RSS is its own).
_MAIN_MEMORY = """
import resource, sys
from math import comb
import rapidgrade
grade_module = sys.modules["rapidgrade.grade"]  # the module (rapidgrade.grade is the function)
if sys.argv[1] == "before":
    grade_module._CHUNK_CHARS = 1 << 60  # one call to the core for the whole batch, as before
def expanded(n):
    return "+".join(f"{comb(n, k)}x^{{{k}}}" if k > 1 else (f"{n}x" if k else "1") for k in range(n, -1, -1))
golds = [expanded(300 + i) for i in range(1000)]
responses = [f"\\boxed{{(x+1)^{{{300 + i}}}}}" for i in range(1000)]
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
rapidgrade.grade_many(golds, responses, fallback=False)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
"""


def main_memory_row() -> tuple[float, float]:
    """Peak RSS the main process adds grading 1,000 long-polynomial pairs (MB): the whole batch in
    one call to the core (before) and in chunks of bounded size (now)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    figures = []
    for mode in ("before", "after"):
        done = subprocess.run(
            [sys.executable, "-c", _MAIN_MEMORY, mode], capture_output=True, text=True, check=True, env=env
        )
        figures.append(float(done.stdout.split()[-1]))
    return figures[0], figures[1]


#: Pairs the fast path leaves to the fallback whose SymPy work grows its worker: long expanded
#: polynomials against powers, and a power of 2^(10^10) beside a variable.
_WORKER_MEMORY_PAIRS = (
    ("(x+1)^{100000}", "(1+x)^{100000}+1"),
    ("2^{10^{10}}+x", "x+2^{10^{10}}+1"),
    ("2^{10^{10}}\\sin x", "\\sin x \\cdot 2^{10^{10}}+1"),
)
_WORKER_MEMORY_TIMEOUT = 20.0


def worker_memory_row() -> tuple[float, float]:
    """The largest RSS of a fallback worker (MB) deciding :data:`_WORKER_MEMORY_PAIRS` (timeout
    20 s each) without a memory limit (before) and with the default one (1 GiB)."""
    from rapidgrade._pool import WorkerPool
    from rapidgrade.config import DEFAULT_MEMORY_LIMIT
    from rapidgrade.fallback import WARMUP, fallback_many

    figures = []
    for limit in (None, DEFAULT_MEMORY_LIMIT):
        with WorkerPool(workers=1, spares=0, warmup=WARMUP) as pool:
            fallback_many(["1"], ["1"], pool=pool, timeout=120.0)
            peak = [0.0]
            stop = threading.Event()

            def sample(pool: WorkerPool = pool, peak: list[float] = peak, stop: threading.Event = stop) -> None:
                while not stop.is_set():
                    for pid in pool.worker_pids():
                        peak[0] = max(peak[0], _rss_mb(pid))
                    time.sleep(0.01)

            sampler = threading.Thread(target=sample, daemon=True)
            sampler.start()
            golds, answers = zip(*_WORKER_MEMORY_PAIRS)
            fallback_many(list(golds), list(answers), pool=pool, timeout=_WORKER_MEMORY_TIMEOUT, memory_limit=limit)
            stop.set()
            sampler.join()
        figures.append(peak[0])
    return figures[0], figures[1]


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _one_thread_cached(rows: list[dict[str, Any]]) -> list[tuple[float, str]]:
    """The verdicts once more, fast path only (what decided each pair, without the fallback)."""
    out = []
    for r in rows:
        v = rapidgrade.grade(r["gold"], r["response"], fallback=False)
        out.append((0.0, v.decided_by if v.decided_by != "fast" or "undecided" not in v.reason else "fallback"))
    return out


if __name__ == "__main__":
    main()
