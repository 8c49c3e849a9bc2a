"""rapidgrade's worker pool against Pebble and loky, on the pool's guarantees (issue 44).

The fallback runs SymPy and math-verify in :class:`rapidgrade._pool.WorkerPool`, 1,200 lines
written for guarantees that ``multiprocessing.Pool`` and ``ProcessPoolExecutor`` do not give
(see the module's docstring and benchmarks/bench_adversarial.py). This script asks whether a
well-kept library gives them instead. Each library runs behind one small adapter (a batch in,
one outcome per task out: ``ok``, ``timeout`` or ``error``), used the way its documentation
says, and every adapter goes through the same scenarios, each in a fresh process:

* ``cold``: 8 easy fallback pairs on a cold pool of 2 whose workers run the fallback's real
  warm-up (math-verify's and SymPy's parsers, about 3 s): how many time out at 2 s (the target
  is none: a pair's clock starts on a warm worker).
* ``deadline``: a task stuck in C code (every catchable signal blocked, as a long SymPy/GMP
  call would be) among 4 quick ones, timeout 1 s, 2 warm workers: when the caller gets the
  timeout, when the stuck process is dead (target: timeout + 0.25 s), the quick tasks' results.
* ``spare``: 2 workers with the real warm-up; a stuck task is killed at 0.5 s, then 2 tasks of
  1 s are sent at once: how long the later one waits to start (target: no task waits for a
  restart, nor for another task).
* ``ctrl-c start`` / ``ctrl-c batch``: SIGINT to the process group (what a terminal's Ctrl-C
  does) 0.3 s into a cold pool's start-up, or 0.5 s into a batch of 4 sleeping tasks: how soon
  the caller gets ``KeyboardInterrupt``, interrupted tasks still running 2 s later, whether the
  pool then runs 4 tasks, and processes and zombies left after ``close``.
* ``throughput``: 2,000 tasks of a microsecond each on 2 warm workers.

Libraries: ``rapidgrade`` (``WorkerPool``, one warm spare), ``pebble-spawn`` and ``pebble-fork``
(``pebble.ProcessPool`` with its ``timeout=``, an ``initializer`` for the warm-up, in a fresh
interpreter or forked), ``loky`` (``loky.ProcessPoolExecutor``; it has no per-task timeout, so
its adapter emulates one the only way loky allows: ``shutdown(kill_workers=True)`` and a new
executor, the other unfinished tasks sent again). ``pip install pebble loky`` first.

    PYTHONPATH=python python -m benchmarks.bench_pool_libraries [--libraries rapidgrade,loky]
        [--scenarios cold,deadline]

The machine's load shows in the seconds (2 cores shared with other work here); the counts
(timeouts, tasks left running, processes left) do not depend on it.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

LIBRARIES = ("rapidgrade", "pebble-spawn", "pebble-fork", "loky")
SCENARIOS = ("cold", "deadline", "spare", "ctrl-c start", "ctrl-c batch", "throughput")
WORKERS = 2
#: The fallback's timeout in benchmarks/bench_adversarial.py.
COLD_TIMEOUT = 2.0
DEADLINE = 1.0
SLACK = 0.25
#: A pair math-verify decides in milliseconds once warm (undecided by the fast path).
EASY = ("\\sum_{k=1}^{10} k", "55")


# -- tasks (module level: the workers import them by name) --------------------------------------


def square(x: int) -> int:
    return x * x


def sleep_then_return(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value


def record_and_sleep(folder: str, seconds: float) -> int:
    """Write this process's pid into *folder*, then sleep (an interruptible Python task)."""
    Path(folder, f"{os.getpid()}-{time.monotonic_ns()}").write_text(str(os.getpid()))
    time.sleep(seconds)
    return os.getpid()


def stuck_in_c(path: str) -> None:
    """Stand-in for C code that does not return (a huge SymPy/GMP computation): every signal a
    pool may send to stop it is blocked, so only SIGKILL ends it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGUSR1, signal.SIGINT, signal.SIGALRM})
    Path(path).write_text(str(os.getpid()))
    while True:
        time.sleep(1.0)


def easy_pair() -> tuple[bool, str, str]:
    from rapidgrade.fallback import run_cascade

    return run_cascade(*EASY)


def fallback_warm_up() -> None:
    """The fallback's warm-up steps (an ``initializer`` for Pebble and loky)."""
    from rapidgrade.fallback import WARMUP

    for step in WARMUP:
        step()


# -- one adapter per library ----------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """One task's end: ``status`` (``ok``, ``timeout``, ``error``), value or error, and the
    seconds from the start of its batch to its result."""

    status: str
    value: Any = None
    at: float = 0.0


class Adapter:
    """A pool of *workers* processes that run *warm* (or nothing) once before their first task."""

    def __init__(self, workers: int, warm: Callable[[], None] | None) -> None:
        self.workers = workers
        self.warm = warm

    def run_batch(self, fn: Callable[..., Any], args: Sequence[tuple[Any, ...]], timeout: float) -> list[Outcome]:
        raise NotImplementedError

    def ready(self) -> None:
        """Block until the pool is in its steady state (every process warm)."""

    def close(self) -> None:
        raise NotImplementedError


class RapidgradeAdapter(Adapter):
    def __init__(self, workers: int, warm: Callable[[], None] | None) -> None:
        super().__init__(workers, warm)
        from rapidgrade._pool import WorkerPool

        self.pool = WorkerPool(workers, warmup=() if warm is None else (warm,), spares=1)

    def run_batch(self, fn: Callable[..., Any], args: Sequence[tuple[Any, ...]], timeout: float) -> list[Outcome]:
        return [Outcome(r.status, r.value if r.ok else r.error, r.waited + r.seconds)
                for r in self.pool.run_many(fn, args, timeout=timeout)]  # fmt: skip

    def ready(self) -> None:
        self.pool.start()  # every worker and the spare (batches start them only as they pay)

    def close(self) -> None:
        self.pool.close()


def _mark_done(done_at: dict[int, float], index: int, _: object) -> None:
    done_at.setdefault(index, time.monotonic())


def _collect(futures: list[concurrent.futures.Future[Any]], done_at: dict[int, float], t0: float) -> list[Outcome]:
    out = []
    for i, future in enumerate(futures):
        try:
            value = future.result()
            status = "ok"
        except TimeoutError as err:  # concurrent.futures.TimeoutError is TimeoutError since 3.11
            status, value = "timeout", repr(err)
        except concurrent.futures.CancelledError as err:
            status, value = "error", repr(err)
        except Exception as err:
            status, value = "error", repr(err)
        out.append(Outcome(status, value, done_at.get(i, time.monotonic()) - t0))
    return out


class PebbleAdapter(Adapter):
    def __init__(self, workers: int, warm: Callable[[], None] | None, method: str) -> None:
        super().__init__(workers, warm)
        import pebble

        self.pool = pebble.ProcessPool(
            max_workers=workers, initializer=warm, context=multiprocessing.get_context(method)
        )

    def run_batch(self, fn: Callable[..., Any], args: Sequence[tuple[Any, ...]], timeout: float) -> list[Outcome]:
        t0 = time.monotonic()
        done_at: dict[int, float] = {}
        futures: list[concurrent.futures.Future[Any]] = []
        try:
            for i, a in enumerate(args):
                future = self.pool.schedule(fn, args=a, timeout=timeout)
                future.add_done_callback(functools.partial(_mark_done, done_at, i))
                futures.append(future)
            return _collect(futures, done_at, t0)
        except BaseException:
            for future in futures:
                future.cancel()  # Pebble stops the worker of a running task it cancels
            raise

    def close(self) -> None:
        self.pool.stop()
        self.pool.join(timeout=30)


class LokyAdapter(Adapter):
    """loky has no per-task timeout and cannot stop one running task: a task past its deadline
    (or a batch interrupted with tasks running) costs every worker (``kill_workers=True``) and
    a new executor; the batch's other unfinished tasks are sent again."""

    def __init__(self, workers: int, warm: Callable[[], None] | None) -> None:
        super().__init__(workers, warm)
        import loky

        self._loky = loky
        self.executor = self._new()

    def _new(self) -> Any:
        return self._loky.ProcessPoolExecutor(max_workers=self.workers, initializer=self.warm)

    def _kill_all(self) -> None:
        self.executor.shutdown(wait=False, kill_workers=True)
        self.executor = self._new()

    def run_batch(self, fn: Callable[..., Any], args: Sequence[tuple[Any, ...]], timeout: float) -> list[Outcome]:
        t0 = time.monotonic()
        results: dict[int, Outcome] = {}
        futures: dict[int, concurrent.futures.Future[Any]] = {}
        running_since: dict[int, float] = {}
        try:
            for i, a in enumerate(args):
                futures[i] = self.executor.submit(fn, *a)
            while len(results) < len(args):
                concurrent.futures.wait(
                    [f for i, f in futures.items() if i not in results],
                    timeout=0.02,
                    return_when=concurrent.futures.FIRST_COMPLETED,
                )
                now = time.monotonic()
                late = []
                for i, future in futures.items():
                    if i in results:
                        continue
                    if future.done():
                        error = future.exception()
                        results[i] = (
                            Outcome("ok", future.result(), now - t0)
                            if error is None
                            else Outcome("error", repr(error), now - t0)
                        )
                    elif future.running():
                        since = running_since.setdefault(i, now)
                        if now - since >= timeout:
                            late.append(i)
                if late:
                    for i in late:
                        results[i] = Outcome("timeout", "no result in time", now - t0)
                    self._kill_all()
                    for i in range(len(args)):
                        if i not in results:
                            futures[i] = self.executor.submit(fn, *args[i])
                            running_since.pop(i, None)
            return [results[i] for i in range(len(args))]
        except BaseException:
            for future in futures.values():
                future.cancel()
            if any(f.running() for f in futures.values()):
                self._kill_all()
            raise

    def close(self) -> None:
        self.executor.shutdown(wait=True, kill_workers=True)


def make(library: str, warm: Callable[[], None] | None = None) -> Adapter:
    if library == "rapidgrade":
        return RapidgradeAdapter(WORKERS, warm)
    if library.startswith("pebble-"):
        return PebbleAdapter(WORKERS, warm, library.split("-", 1)[1])
    if library == "loky":
        return LokyAdapter(WORKERS, warm)
    raise ValueError(f"unknown library {library!r}; one of {', '.join(LIBRARIES)}")


# -- process bookkeeping --------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _descendants() -> dict[int, tuple[str, str]]:
    """Every process below this one: pid -> (state, command line)."""
    parents: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            parents[int(entry)] = (int(fields[1]), fields[0])
    found: dict[int, tuple[str, str]] = {}
    frontier = [os.getpid()]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, state) in parents.items():
            if ppid == parent and pid not in found:
                try:
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    cmd = ""
                found[pid] = (state, cmd)
                frontier.append(pid)
    return found


def _left_after_close() -> tuple[int, int, int]:
    """(processes, of which helpers such as resource trackers, zombies) below this process,
    once they have had 5 s to go."""
    deadline = time.monotonic() + 5.0
    while True:
        found = _descendants()
        if not found or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    zombies = sum(1 for state, _ in found.values() if state == "Z")
    helpers = sum(1 for state, cmd in found.values() if state != "Z" and "resource_tracker" in cmd)
    return len(found) - zombies, helpers, zombies


# -- the scenarios (each run in a fresh process) --------------------------------------------------


def scenario_cold(library: str) -> dict[str, Any]:
    pool = make(library, fallback_warm_up)
    t0 = time.monotonic()
    try:
        outcomes = pool.run_batch(easy_pair, [()] * 8, COLD_TIMEOUT)
    finally:
        wall = time.monotonic() - t0
        pool.close()
    return {
        "timeouts": sum(o.status == "timeout" for o in outcomes),
        "errors": sum(o.status == "error" for o in outcomes),
        "tasks": len(outcomes),
        "wall": wall,
    }


def _watch_death(pid_file: Path, t0: float, seen: dict[str, float]) -> None:
    while not pid_file.exists() or not pid_file.read_text():
        time.sleep(0.005)
    pid = int(pid_file.read_text())
    seen["started"] = time.monotonic() - t0
    while _alive(pid) and time.monotonic() - t0 < 60:
        time.sleep(0.005)
    seen["dead"] = time.monotonic() - t0


def scenario_deadline(library: str) -> dict[str, Any]:
    pool = make(library)
    try:
        pool.run_batch(square, [(i,) for i in range(WORKERS * 2)], 30.0)
        pool.ready()
        with tempfile.TemporaryDirectory() as tmp:
            pid_file = Path(tmp, "pid")
            seen: dict[str, float] = {}
            t0 = time.monotonic()
            watcher = threading.Thread(target=_watch_death, args=(pid_file, t0, seen), daemon=True)
            watcher.start()
            outcomes = pool.run_batch(
                _deadline_task, [(str(pid_file), -1)] + [(str(pid_file), i) for i in range(4)], DEADLINE
            )
            watcher.join(timeout=60)
        after = pool.run_batch(square, [(7,)], 30.0)[0]
    finally:
        pool.close()
    stuck = outcomes[0]
    return {
        "status": stuck.status,
        "reported": stuck.at - seen.get("started", 0.0),
        "dead": seen.get("dead", float("nan")) - seen.get("started", 0.0),
        "quick_ok": sum(o.status == "ok" for o in outcomes[1:]),
        "after_ok": after.status == "ok",
    }


def _deadline_task(path: str, index: int) -> int:
    if index < 0:
        stuck_in_c(path)
    time.sleep(0.05)
    return index


def started_at(seconds: float) -> float:
    """Return when the task started (wall clock, comparable across processes), after *seconds*."""
    start = time.time()
    time.sleep(seconds)
    return start


def scenario_spare(library: str) -> dict[str, Any]:
    pool = make(library, fallback_warm_up)
    try:
        pool.run_batch(easy_pair, [()] * WORKERS, 60.0)
        pool.ready()
        with tempfile.TemporaryDirectory() as tmp:
            stuck = pool.run_batch(stuck_in_c, [(str(Path(tmp, "pid")),)], 0.5)[0]
        # as many 1-second tasks as workers, sent at once: each should start at once
        sent = time.time()
        outcomes = pool.run_batch(started_at, [(1.0,)] * WORKERS, 60.0)
    finally:
        pool.close()
    waits = [o.value - sent for o in outcomes if o.status == "ok"]
    return {"stuck": stuck.status, "wait": max(waits) if waits else float("nan"), "ok": len(waits)}


def scenario_ctrl_c(library: str, moment: str) -> dict[str, Any]:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    cold = moment == "start"
    pool = make(library, fallback_warm_up if cold else None)
    with tempfile.TemporaryDirectory() as tmp:
        if not cold:
            pool.run_batch(square, [(i,) for i in range(WORKERS * 2)], 30.0)
            pool.ready()
        delay = 0.3 if cold else 0.5
        sent: list[float] = []

        def interrupt() -> None:
            sent.append(time.monotonic())
            os.killpg(os.getpgrp(), signal.SIGINT)  # the whole group, as a terminal's Ctrl-C

        timer = threading.Timer(delay, interrupt)
        interrupted = False
        try:
            timer.start()
            pool.run_batch(record_and_sleep, [(tmp, 30.0)] * 4, 60.0)
            timer.join()
        except KeyboardInterrupt:
            interrupted = True
        caught = time.monotonic()
        timer.cancel()
        time.sleep(2.0)
        pids = {int(p.read_text()) for p in Path(tmp).iterdir()}
        running = sum(_alive(pid) for pid in pids)
        t0 = time.monotonic()
        try:
            after = pool.run_batch(square, [(i,) for i in range(4)], 60.0)
            usable = sum(o.status == "ok" for o in after)
        except Exception as err:
            usable = 0
            print(f"{library}: pool unusable after Ctrl-C: {err!r}", file=sys.stderr)
        usable_seconds = time.monotonic() - t0
        pool.close()
    left, helpers, zombies = _left_after_close()
    return {
        "interrupted": interrupted,
        "latency": caught - sent[0] if sent and interrupted else float("nan"),
        "running": running,
        "started": len(pids),
        "usable": usable,
        "usable_seconds": usable_seconds,
        "left": left,
        "helpers": helpers,
        "zombies": zombies,
    }


def scenario_throughput(library: str) -> dict[str, Any]:
    pool = make(library)
    try:
        pool.run_batch(square, [(i,) for i in range(WORKERS * 2)], 30.0)
        pool.ready()
        n = 2_000
        t0 = time.monotonic()
        outcomes = pool.run_batch(square, [(i,) for i in range(n)], 30.0)
        wall = time.monotonic() - t0
    finally:
        pool.close()
    assert [o.value for o in outcomes] == [i * i for i in range(n)]
    return {"per_second": n / wall}


def run_scenario(library: str, scenario: str) -> dict[str, Any]:
    if scenario == "cold":
        return scenario_cold(library)
    if scenario == "deadline":
        return scenario_deadline(library)
    if scenario == "spare":
        return scenario_spare(library)
    if scenario.startswith("ctrl-c "):
        return scenario_ctrl_c(library, scenario.split()[1])
    if scenario == "throughput":
        return scenario_throughput(library)
    raise ValueError(f"unknown scenario {scenario!r}; one of {', '.join(SCENARIOS)}")


# -- the parent: one process per (library, scenario), then the table ------------------------------


def _child(library: str, scenario: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_pool_libraries", "--child", library, scenario],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, start_new_session=True, check=False,
    )  # fmt: skip
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("{"):
            result: dict[str, Any] = json.loads(line)
            return result
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"failed": f"exit {done.returncode}: {tail[:80]}"}


def _row(label: str, cells: list[str]) -> str:
    return f"{label:<42}" + "".join(f"{c:>15}" for c in cells)


def _fmt(result: dict[str, Any], key: str, text: Callable[[Any], str]) -> str:
    if "failed" in result:
        return "failed"
    return text(result[key]) if key in result else "-"


def table(results: dict[tuple[str, str], dict[str, Any]], libraries: Sequence[str], scenarios: Sequence[str]) -> str:
    lines = [_row("guarantee (target)", list(libraries)), "-" * (42 + 15 * len(libraries))]

    def add(scenario: str, label: str, key: str, text: Callable[[Any], str]) -> None:
        if scenario in scenarios:
            lines.append(_row(label, [_fmt(results[(lib, scenario)], key, text) for lib in libraries]))

    seconds: Callable[[Any], str] = lambda v: f"{v:.2f} s"  # noqa: E731
    add("cold", f"cold start: timeouts of 8 easy at {COLD_TIMEOUT:g} s (0)", "timeouts", lambda v: f"{v}/8")
    add("cold", "cold start: wall time", "wall", seconds)
    add("deadline", "deadline: stuck task's status (timeout)", "status", str)
    add("deadline", f"deadline: caller has it after (<={DEADLINE + SLACK:g} s)", "reported", seconds)
    add("deadline", "deadline: stuck process dead after", "dead", seconds)
    add("deadline", "deadline: quick tasks beside it ok (4)", "quick_ok", str)
    add("deadline", "deadline: pool runs a task after (yes)", "after_ok", lambda v: "yes" if v else "no")
    add("spare", "spare: longest wait, 2 tasks after a kill (~0)", "wait", seconds)
    for moment in ("start", "batch"):
        name = f"ctrl-c {moment}"
        add(name, f"{name}: KeyboardInterrupt after", "latency", seconds)
        add(name, f"{name}: tasks running 2 s later (0)", "running",
            lambda v, n=name: str(v))  # fmt: skip
        add(name, f"{name}: pool runs 4 tasks after (4)", "usable", str)
        add(name, f"{name}: ... in", "usable_seconds", seconds)
        add(name, f"{name}: processes left after close (0)", "left", str)
        add(name, f"{name}: ... of which resource trackers", "helpers", str)
        add(name, f"{name}: zombies after close (0)", "zombies", str)
    add("throughput", "throughput: 2,000 tiny tasks, tasks/s", "per_second", lambda v: f"{v:,.0f}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--libraries", default=",".join(LIBRARIES))
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "SCENARIO"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        # the scenario's tasks are the importable module's functions, not this __main__'s
        # (rapidgrade's workers import a task by name and never re-import __main__)
        from benchmarks import bench_pool_libraries as module

        print(json.dumps(module.run_scenario(*args.child)), flush=True)
        return
    libraries = [lib for lib in args.libraries.split(",") if lib]
    scenarios = [s for s in args.scenarios.split(",") if s]
    versions = []
    for name in ("pebble", "loky"):
        try:
            from importlib.metadata import version

            versions.append(f"{name} {version(name)}")
        except Exception:
            versions.append(f"{name} not installed")
    python = sys.version.split()[0]
    print(f"workers={WORKERS}; {', '.join(versions)}; python {python}; {os.cpu_count()} cores", flush=True)
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for scenario in scenarios:
        for library in libraries:
            t0 = time.monotonic()
            results[(library, scenario)] = _child(library, scenario)
            print(f"  {scenario:<14} {library:<13} {time.monotonic() - t0:6.1f} s  {results[(library, scenario)]}",
                  file=sys.stderr, flush=True)  # fmt: skip
    print(table(results, libraries, scenarios))


if __name__ == "__main__":
    main()
