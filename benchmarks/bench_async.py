r"""100,000 single-sample awaits of ``grade_async`` beside one ``grade_many`` call and beside the
synchronous function in verl's thread-pool pattern, same pairs, same run.

    python -m benchmarks.bench_async [--pairs 100000] [--loops asyncio,uvloop]

The pairs are the 800 responses of the demo set, repeated. Timed, each once per event loop (or
``--repeats`` times, grade_async and the floor in turn, medians printed):

* **grade_many**: all pairs in one call (the batch speed);
* **grade_async**: one task per pair (as verl's Reward Loop makes one per sample), every task
  awaiting ``rapidgrade.grade_async(gold, response)``, all of them outstanding at once; the
  loop's batcher grades them in ``grade_many`` batches in worker threads;
* **asyncio floor**: the same tasks awaiting a future that the loop resolves at once, with no
  grading: what one task per pair costs the event loop by itself;
* **thread pool**: ``loop.run_in_executor(None, grade, gold, response)`` per pair, what verl's
  reward managers do with a synchronous ``compute_score``.

The tasks are created 256 per loop iteration and their end is counted, not gathered, so
that the loop's lag, measured by a ticker coroutine that sleeps 1 ms and records how late it
wakes, is the lag of grading and of the awaits themselves (``asyncio.gather`` of 100,000 tasks
blocks the loop while it registers its callbacks, whatever the tasks do). Printed: pairs per
second, the ratio to ``grade_many``, the ticker's lag percentiles, grade_async's rate as a share
of the floor's and the lag it adds to the floor's, and whether the targets are met (>= 50% of
``grade_many``'s pairs/s, loop lag p99 < 5 ms): one task per pair costs the event loop about
10 us by itself, so the floor's own rate is a few percent of ``grade_many``'s, and its lag is
that of creating and waking 100,000 tasks (and of the collector's passes over them): grade_async
can come near the floor, not past it. ``--no-gc`` pauses the cyclic garbage collector during the
runs, to show how much of the lag its full passes over the live tasks make; ``--gc-tuned`` tunes
it as ``rapidgrade serve`` does (what a trainer's process can do for itself).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import rapidgrade
from benchmarks._common import load_corpus, machine_info
from rapidgrade.aio import Batcher

CHUNK = 256  # tasks created per loop iteration

#: The issue's targets: grade_async's share of grade_many's pairs/s, and the loop lag p99 (ms).
TARGET_SHARE = 0.5
TARGET_LAG_MS = 5.0

#: --gc-tuned's youngest-generation threshold (rapidgrade.serve.GC_GEN0_THRESHOLD's value).
GC_GEN0_THRESHOLD = 50_000


def pairs(n: int) -> tuple[list[str], list[str]]:
    rows = load_corpus()
    golds = [str(r["gold"]) for r in rows]
    responses = [r["response"] for r in rows]
    reps = n // len(rows) + 1
    return (golds * reps)[:n], (responses * reps)[:n]


class Ticker:
    """How late a coroutine that sleeps 1 ms wakes, while it runs."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self._stop = False
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while not self._stop:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            self.lags.append(time.perf_counter() - start - 0.001)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> dict[str, float]:
        self._stop = True
        assert self._task is not None
        await self._task
        lags = sorted(self.lags) or [0.0]
        return {
            "p50": lags[len(lags) // 2] * 1e3,
            "p99": lags[min(len(lags) - 1, int(len(lags) * 0.99))] * 1e3,
            "max": lags[-1] * 1e3,
            "ticks": float(len(lags)),
        }


async def issue(n: int, one: Callable[[int], Coroutine[Any, Any, Any]]) -> tuple[float, dict[str, float]]:
    """Seconds for n tasks ``one(i)`` created CHUNK per loop iteration and all outstanding at once,
    and the ticker's lag meanwhile."""
    loop = asyncio.get_running_loop()
    finished = loop.create_future()
    remaining = n
    tasks: list[asyncio.Task[Any]] = []

    async def task(i: int) -> None:
        nonlocal remaining
        await one(i)
        remaining -= 1
        if remaining == 0:
            finished.set_result(None)

    ticker = Ticker()
    ticker.start()
    await asyncio.sleep(0.01)
    start = time.perf_counter()
    for first in range(0, n, CHUNK):
        tasks.extend(loop.create_task(task(i)) for i in range(first, min(n, first + CHUNK)))
        await asyncio.sleep(0)
    await finished
    seconds = time.perf_counter() - start
    lag = await ticker.stop()
    for t in tasks:  # all done: collect any exception
        t.result()
    return seconds, lag


async def run_async(golds: list[str], responses: list[str]) -> tuple[float, dict[str, float], int]:
    batcher = Batcher()
    verdicts: list[Any] = [None] * len(golds)

    async def one(i: int) -> None:
        verdicts[i] = await rapidgrade.grade_async(golds[i], responses[i], batcher=batcher)

    seconds, lag = await issue(len(golds), one)
    batches = batcher.batches
    await batcher.aclose()
    expected = rapidgrade.grade_many(golds, responses).correct.tolist()
    assert [v.correct for v in verdicts] == expected, "grade_async disagrees with grade_many"
    return seconds, lag, batches


async def run_floor(n: int) -> tuple[float, dict[str, float]]:
    loop = asyncio.get_running_loop()

    def resolved() -> Awaitable[None]:
        future = loop.create_future()
        loop.call_soon(future.set_result, None)
        return future

    async def one(i: int) -> None:
        await resolved()

    return await issue(n, one)


async def run_pool(golds: list[str], responses: list[str]) -> tuple[float, dict[str, float]]:
    loop = asyncio.get_running_loop()

    async def one(i: int) -> None:
        await loop.run_in_executor(None, rapidgrade.grade, golds[i], responses[i])

    return await issue(len(golds), one)


async def run_idle(seconds: float) -> dict[str, float]:
    """The ticker's lag on an idle loop: the machine's own scheduling noise."""
    ticker = Ticker()
    ticker.start()
    await asyncio.sleep(seconds)
    return await ticker.stop()


def loop_runner(name: str) -> Callable[[Coroutine[Any, Any, Any]], Any] | None:
    if name == "asyncio":
        return asyncio.run
    try:
        import uvloop
    except ImportError:
        return None
    runner: Callable[[Coroutine[Any, Any, Any]], Any] = uvloop.run
    return runner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--pool-pairs", type=int, default=None, help="pairs of the thread-pool run (default: --pairs)")
    parser.add_argument("--loops", default="asyncio,uvloop", help="event loops to run on (uvloop if installed)")
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="runs of grade_async and of the floor, in turn (medians printed; the thread pool runs once)",
    )
    parser.add_argument(
        "--no-gc",
        action="store_true",
        help="pause the cyclic garbage collector during the runs (its full passes over 100,000 live tasks "
        "stall the loop; this shows what is left without them)",
    )
    parser.add_argument(
        "--gc-tuned",
        action="store_true",
        help="tune the collector as rapidgrade serve does (gc.freeze() after start-up, the youngest generation "
        "collected every 50,000 allocations instead of 700)",
    )
    args = parser.parse_args()
    golds, responses = pairs(args.pairs)
    pool_n = args.pool_pairs or args.pairs
    info = machine_info()
    collector = "; collector paused" if args.no_gc else "; collector tuned as the server's" if args.gc_tuned else ""
    print(
        f"bench_async: {args.pairs:,} pairs (the demo set repeated); python {info['python']}, {info['cpus']} cpus,"
        f" load average {os.getloadavg()[0]:.1f} at the start{collector};"
        f" {args.repeats} run(s) of grade_async and of the floor (medians)"
    )
    if args.no_gc:
        gc.collect()
        gc.freeze()
        gc.disable()
    elif args.gc_tuned:
        gc.collect()
        gc.freeze()
        gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])
    rapidgrade.grade_many(golds[:2000], responses[:2000])  # warm-up: the core's tables, the gold cache
    times = []
    for _ in range(3):
        start = time.perf_counter()
        rapidgrade.grade_many(golds, responses)
        times.append(time.perf_counter() - start)
    many = statistics.median(times)
    many_rate = args.pairs / many
    print(f"  grade_many, one call            {many_rate:>12,.0f} pairs/s   (median of 3: {many * 1e3:.0f} ms)")
    for name in args.loops.split(","):
        run = loop_runner(name.strip())
        if run is None:
            print(f"  [{name}] not installed")
            continue
        idle = run(run_idle(1.0))
        print(
            f"  [{name}] idle loop (machine noise)                       loop lag p50 {idle['p50']:.2f} ms,"
            f" p99 {idle['p99']:.2f} ms, max {idle['max']:.1f} ms"
        )
        async_runs: list[tuple[float, dict[str, float], int]] = []
        floor_runs: list[tuple[float, dict[str, float]]] = []
        for _ in range(args.repeats):  # in turn, so that a change of load hits both
            async_runs.append(run(run_async(golds, responses)))
            floor_runs.append(run(run_floor(args.pairs)))
        seconds = statistics.median(r[0] for r in async_runs)
        lag = {key: statistics.median(r[1][key] for r in async_runs) for key in ("p50", "p99", "max")}
        batches = int(statistics.median(r[2] for r in async_runs))
        rate = args.pairs / seconds
        print(
            f"  [{name}] grade_async, 1 task/pair {rate:>12,.0f} pairs/s   {rate / many_rate:5.1%} of grade_many;"
            f" {batches} batches; loop lag p50 {lag['p50']:.2f} ms, p99 {lag['p99']:.2f} ms, max {lag['max']:.1f} ms"
        )
        floor_seconds = statistics.median(r[0] for r in floor_runs)
        floor_lag = {key: statistics.median(r[1][key] for r in floor_runs) for key in ("p50", "p99")}
        floor_rate = args.pairs / floor_seconds
        print(
            f"  [{name}] asyncio floor, no grading {floor_rate:>11,.0f} tasks/s   {floor_rate / many_rate:5.1%} of"
            f" grade_many; loop lag p50 {floor_lag['p50']:.2f} ms, p99 {floor_lag['p99']:.2f} ms"
        )
        print(
            f"  [{name}]   grade_async is {rate / floor_rate:.1%} of the floor's rate; it adds"
            f" {lag['p50'] - floor_lag['p50']:+.2f} ms to the floor's loop lag p50 and"
            f" {lag['p99'] - floor_lag['p99']:+.2f} ms to its p99"
        )
        pool_seconds, pool_lag = run(run_pool(golds[:pool_n], responses[:pool_n]))
        pool_rate = pool_n / pool_seconds
        print(
            f"  [{name}] grade in a thread pool   {pool_rate:>12,.0f} pairs/s   {pool_rate / many_rate:5.1%} of"
            f" grade_many; grade_async is {rate / pool_rate:.1f}x it; loop lag p99 {pool_lag['p99']:.2f} ms"
        )
        share = rate / many_rate
        print(
            f"  [{name}] targets: >= {TARGET_SHARE:.0%} of grade_many {verdict(share >= TARGET_SHARE)} ({share:.1%};"
            f" the floor itself reaches {floor_rate / many_rate:.1%}), loop lag p99 < {TARGET_LAG_MS:g} ms"
            f" {verdict(lag['p99'] < TARGET_LAG_MS)} ({lag['p99']:.2f} ms; the floor's {floor_lag['p99']:.2f} ms)"
        )


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


if __name__ == "__main__":
    main()
