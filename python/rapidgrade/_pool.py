"""Killable worker processes for work whose run time has no bound (SymPy, math-verify).

A :class:`WorkerPool` runs module-level functions in separate Python processes. Every task has a
deadline; when it passes, the task's result is a *timeout marker*
(``TaskResult(status="timeout")``), not an exception, and its worker is asked to abandon the task
(``SIGUSR1``, handled inside the worker: the task gets an exception at its next Python
instruction), then killed (``SIGKILL``) if it has not stopped within half a second. A worker that
dies (segfault, out of memory, ``os._exit``) yields an error result for its task; the pool goes
on. Results of a batch come back in input order.

>>> pool = WorkerPool(workers=2)
>>> pool.run_many(math.factorial, [(5,), (6,)], timeout=5.0)
[TaskResult(status='ok', value=120, error=''), TaskResult(status='ok', value=720, error='')]
>>> pool.close()

Why not ``multiprocessing.Pool`` or ``ProcessPoolExecutor``: neither can kill one task that hangs
(SymPy's ``simplify`` can run for hours) without tearing down the whole pool.

How workers are started. Each worker is a fresh interpreter (``sys.executable -c ...``, the
equivalent of the ``"spawn"`` start method), talking to the parent over two pipes wrapped in
:class:`multiprocessing.connection.Connection` (pickled messages). It never forks the caller,
which is unsafe once threads exist. Unlike ``multiprocessing``'s own spawn and forkserver
methods it also does not re-import the caller's ``__main__``, so it works from scripts without an
``if __name__ == "__main__":`` guard, from notebooks, and from inside the daemonic workers of
``multiprocessing.Pool`` (which may not start ``multiprocessing`` children). Tasks must therefore
be functions importable by name (defined at module level); the worker gets the parent's
``sys.path`` so it finds the same modules. POSIX only (Linux, macOS): pipes are handed over with
``pass_fds``.

Warm-up. A fresh interpreter pays for imports and for every parser or cache its libraries build
lazily (math-verify's LaTeX grammar, SymPy's simplification tables: seconds). The pool does not
know its clients; each batch names the *warm-up steps* its tasks need (module names to import,
module-level functions to call once, for example a function that parses a few small inputs) and
the pool runs them in every worker before the worker takes one of its tasks. A task's clock
starts only when it is handed to a warm worker, so its deadline measures its own work, never an
import or a restart.

How many. A start-up costs seconds of CPU, more than most batches of fallback pairs need, so the
pool starts one worker for a batch, another only when the tasks waiting would take longer than
its start-up, and a spare only once a task comes near its deadline (the rules are
:mod:`rapidgrade._pool_policy`); :meth:`WorkerPool.start` starts them all at once.

Supervision. Starting, warming, stopping and reaping workers happen in one background thread
per pool (the *supervisor*), never in the caller's thread: a worker killed at a deadline is
replaced at once, in the background, so the next task does not pay for the restart outside its
deadline, and a ``KeyboardInterrupt`` in the caller cannot interrupt the bookkeeping. The
caller's thread only takes idle warm workers, sends tasks, waits for results and hands workers
back; every worker it holds is marked with its batch, and when the batch ends for any reason
(Ctrl-C at any moment included) the workers still marked are killed and replaced, so an
interrupt never leaks a slot, a process or a zombie.

Signals. The pool never installs a signal handler or arms an alarm in the calling process, so it
works from any thread, from event loops and from other pools. Inside a worker, tasks run on the
worker's main thread, where math-verify's ``signal.alarm`` is allowed and where the pool's own
cancel signal (``SIGUSR1``) raises in a task past its deadline; workers ignore
``SIGINT`` (Ctrl-C belongs to the caller, who then gets ``KeyboardInterrupt``; the workers busy
with that batch are killed) and exit on their own when the parent process disappears.

Threads. One pool may be used from several threads at once: each batch checks idle workers out,
uses them exclusively and returns them, so results never cross between callers. Callers waiting
for a worker are served first come, first served, and a batch that already has tasks running
leaves free workers to batches that have none, so no caller starves.

One worker process, from both ends (the parent's handle of it and the entry point the process
runs), is in :mod:`rapidgrade._pool_worker`; this module holds the pool.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import math  # noqa: F401 (the module docstring's example runs math.factorial in the pool)
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.connection import wait as _supervisor_wait
from typing import Any

from rapidgrade._pool_checks import check_deadline, check_memory_limit, check_steps, check_timeout
from rapidgrade._pool_policy import another_worker_pays, spare_due, updated_mean, work_ahead
from rapidgrade._pool_worker import (
    _CANCEL_SIGNAL,
    PoolStats,
    TaskResult,
    WarmupStep,
    WorkerStartError,
    _Batch,
    _describe,
    _Worker,
)

__all__ = [
    "PoolStats",
    "TaskResult",
    "WarmupStep",
    "WorkerPool",
    "WorkerStartError",
    "add_default_warmup",
    "check_deadline",
    "check_memory_limit",
    "check_timeout",
    "default_pool",
    "in_worker",
]

#: Seconds a new worker may take to start and run its warm-up steps.
_START_TIMEOUT = 120.0
#: Set in the environment of worker processes (see :func:`in_worker`).
_WORKER_ENV = "RAPIDGRADE_WORKER"
#: Longest single wait, in seconds (``select``/``poll`` refuse huge timeouts; waits are looped).
_MAX_WAIT = 60.0
#: How often a batch with tasks left looks for workers that became free meanwhile, in seconds.
_POLL_FREE = 0.05
#: Seconds an idle worker gets to exit when asked before it is killed.
_STOP_GRACE = 1.0
#: Seconds a killed worker may take to exit before the supervisor stops waiting for it (a
#: process in uninterruptible sleep; the OS reaps it once the parent exits).
_REAP_PATIENCE = 5.0

#: Seconds a worker gets to stop a task past its deadline (see :meth:`WorkerPool._cancel`)
#: before it is killed.
_CANCEL_GRACE = 0.5

_SERVING = ("starting", "idle", "busy", "cancelling")


class _PoolClosed(RuntimeError):
    pass


def _wait_seconds(seconds: float | None) -> float:
    """A timeout ``select`` accepts: at most :data:`_MAX_WAIT` (callers wait in a loop)."""
    return _MAX_WAIT if seconds is None else max(0.0, min(seconds, _MAX_WAIT))


def in_worker() -> bool:
    """Whether this process is a rapidgrade worker (where arming ``signal.alarm`` is allowed)."""
    return os.environ.get(_WORKER_ENV) == "1"


def _default_size() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


class WorkerPool:
    """A pool of killable worker processes with per-task deadlines.

    Args:
        workers: Most tasks running at once, each in its own process (default: the number of
            usable cores). Workers are started when batches need them: one at first, another
            whenever the tasks waiting would take longer than its start-up (up to *workers*;
            :mod:`rapidgrade._pool_policy`), or all at once by :meth:`start`. Once started they
            are kept: a worker that is killed or retired is replaced in the background.
        warmup: Warm-up steps every worker runs before taking tasks (module names to import,
            module-level functions to call once); batches may add their own (see
            :meth:`run_many`).
        max_tasks_per_worker: Replace a worker after this many tasks (bounds memory growth of
            long-lived workers; ``None``: never).
        spares: Warm workers kept in reserve beyond those in use, started once a task comes
            within two start-ups of its deadline (and the others are warm): when a task's worker
            is killed at its deadline, a spare takes the next task at once while the replacement
            starts in the background, so no task waits for a restart. At most *workers* tasks
            run at once; the processes alive are at most ``workers + spares`` (plus killed ones
            being reaped).

    >>> with WorkerPool(workers=1) as pool:
    ...     pool.run(time.sleep, (60,), timeout=1.0).status
    'timeout'
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        warmup: Sequence[WarmupStep] = (),
        max_tasks_per_worker: int | None = None,
        spares: int = 1,
    ) -> None:
        if workers is not None and workers < 1:
            raise ValueError("WorkerPool: workers must be at least 1")
        if max_tasks_per_worker is not None and max_tasks_per_worker < 1:
            raise ValueError("WorkerPool: max_tasks_per_worker must be at least 1")
        if spares < 0:
            raise ValueError("WorkerPool: spares must be at least 0")
        self._spares = spares
        self._size = workers if workers is not None else _default_size()
        self._steps: tuple[WarmupStep, ...] = check_steps(warmup, "WorkerPool")
        self._max_tasks = max_tasks_per_worker
        # The pool's lock is entered as itself (`with self._lock`), never through the Condition:
        # Condition.__exit__ is a Python function, and a Ctrl-C that lands as it starts leaves the
        # lock held (a retry of the cleanup then waits on it forever); a C lock's own __exit__
        # releases before any signal handler runs. The Condition waits and notifies on it.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._workers: set[_Worker] = set()  # every process not yet reaped, in any state
        self._idle: list[_Worker] = []  # warm, waiting for a task (state "idle")
        self._queue: collections.deque[_Batch] = collections.deque()  # batches waiting, in order
        self._failure: str | None = None  # why the last start failed (until one succeeds)
        self._retry_at = 0.0  # when the supervisor may try again after a failed start
        self._backoff = 0.0
        self._demand = 0  # tasks of the batches running now
        self._waiting = 0  # of those, not yet handed to a worker
        self._target = 0  # workers to keep alive besides spares (grows as it pays, up to _size)
        self._task_mean = 0.0  # running mean of task times in seconds (0: none finished yet)
        self._spare_wanted = False  # a task came near its deadline: keep spares from now on
        self._closed = False
        self._pid = os.getpid()
        self._supervisor: threading.Thread | None = None  # registered by the thread itself
        # Written to wake the supervisor from its wait (created here, not where Ctrl-C can land).
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._started = 0
        self._killed = 0
        self._cancelled = 0
        self._start_max = 0.0
        self._start_last = 0.0

    # -- public API ---------------------------------------------------------------------------

    @property
    def workers(self) -> int:
        """Most tasks running at once (each in its own worker process)."""
        return self._size

    def worker_pids(self) -> list[int]:
        """Process ids of the workers in service now (warming up, idle or busy)."""
        with self._lock:
            return sorted(w.pid for w in self._workers if w.state in _SERVING)

    def stats(self) -> PoolStats:
        """Counters of this pool's workers so far (starts, kills, start-up times)."""
        with self._lock:
            return PoolStats(self._started, self._killed, self._cancelled, self._start_max, self._start_last)

    def start(self, *, warmup: Sequence[WarmupStep] = (), timeout: float | None = _START_TIMEOUT) -> None:
        """Start every worker now, spares included, and return once they are warm.

        Batches otherwise start workers only as their work pays for it, and a spare only once a
        task comes near its deadline (see :mod:`rapidgrade._pool_policy`). A server calls this
        at start-up, so that its first requests find every worker warm. *warmup* adds the
        warm-up steps its batches will ask for (as :meth:`run_many`'s), so that the workers run
        them now rather than before their first task; e.g. ``rapidgrade.fallback.WARMUP``.

        Raises:
            WorkerStartError: a worker failed to start (the pool retries later).
            TimeoutError: the workers were not all warm within *timeout* seconds.
            RuntimeError: the pool is closed, or used in a forked child of its creator.
        """
        ends = None if timeout is None else time.monotonic() + timeout
        steps = check_steps(warmup, "WorkerPool.start")
        with self._lock:
            if self._closed or os.getpid() != self._pid:
                raise RuntimeError("WorkerPool: the pool is closed or belongs to another process")
            self._add_steps_locked(steps)
            self._fresh_attempt_locked()
            self._target = self._size
            self._spare_wanted = self._spare_wanted or self._spares > 0
            self._supervise_locked()
            # idle: warm with every step; busy: was so when a batch took it
            while sum(1 for w in self._workers if w.state in ("idle", "busy")) < self._size + self._spares:
                if self._failure is not None:
                    raise WorkerStartError(self._failure)
                if self._closed:
                    raise RuntimeError("WorkerPool: the pool was closed")
                left = None if ends is None else ends - time.monotonic()
                if left is not None and left <= 0:
                    raise TimeoutError(f"WorkerPool.start: the workers were not warm within {timeout:g} s")
                self._cond.wait(timeout=_wait_seconds(left))

    def run(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...] = (),
        *,
        timeout: float | None,
        warmup: Sequence[WarmupStep] = (),
        memory_limit: int | None = None,
        deadline: float | None = None,
    ) -> TaskResult:
        """Run ``fn(*args)`` in a worker; *timeout* seconds (``None``: no limit); see
        :meth:`run_many` for the other options."""
        results = self.run_many(
            fn, [args], timeout=timeout, warmup=warmup, memory_limit=memory_limit, deadline=deadline
        )
        return results[0]

    def run_many(
        self,
        fn: Callable[..., Any],
        args: Iterable[tuple[Any, ...]],
        *,
        timeout: float | None,
        progress: bool = False,
        description: str | None = None,
        warmup: Sequence[WarmupStep] = (),
        memory_limit: int | None = None,
        deadline: float | None = None,
    ) -> list[TaskResult]:
        """Run ``fn(*a)`` for every tuple ``a`` in *args*, spread over the workers.

        Each task may take *timeout* seconds from the moment a warm worker receives it
        (``None`` or ``math.inf``: no limit); past that its result is ``TaskResult("timeout")``
        at once, and its worker is asked to stop the task (or killed and replaced in the
        background if it does not within half a second). *warmup* names the warm-up
        steps these tasks need; they join the pool's steps, and every worker runs them before
        taking a task. Returns one :class:`TaskResult` per task, in input order.
        ``progress=True`` shows a tqdm progress bar (tasks per second) labelled *description*.

        *fn* and the warm-up functions must be importable by name in the workers (module-level
        functions).

        *memory_limit* caps the address space (bytes, ``RLIMIT_AS``) of the worker process while
        it runs one of these tasks: an allocation past it raises ``MemoryError`` inside the task
        instead of growing the process until the OS kills something, and a task that lets that
        ``MemoryError`` escape gets ``TaskResult("memory")``, its worker replaced by a fresh one
        (``None``: no limit; Linux; where the limit cannot be set, tasks run without it).

        A task's *timeout* counts only its own run; the time it waits for a worker is not
        bounded by it. With *workers* workers, a batch whose tasks all run to their timeout
        takes up to ``timeout * ceil(tasks / workers)``, and from several threads the batches
        also wait for each other's tasks (8 threads with one slow task each on 2 workers: up to
        ``4 * timeout``). *deadline* bounds the whole call instead: seconds of wall time from
        the call, the wait for a worker (and its start) included. A task not finished by then
        is ``TaskResult("timeout")`` with an error starting ``"deadline: "`` (one still waiting
        is never sent; a running one's worker is asked to stop, or killed, as at a timeout),
        and the call returns at the deadline plus a few milliseconds. ``None``: no deadline.

        Raises:
            TypeError: *timeout*, *deadline* or *memory_limit* is of the wrong type, or a
                warm-up step is neither a module name nor an importable function.
            ValueError: *timeout* or *deadline* is NaN, zero or negative, or *memory_limit*
                is below 64 MiB.
            RuntimeError: the pool is closed, or used in a forked child of its creator.
        """
        begun = time.monotonic()
        limit = check_timeout(timeout, "WorkerPool.run_many")
        call_limit = check_deadline(deadline, "WorkerPool.run_many")
        memory = check_memory_limit(memory_limit, "WorkerPool.run_many")
        ends = None if call_limit is None else begun + call_limit
        steps = check_steps(warmup, "WorkerPool.run_many")
        if self._closed:
            raise RuntimeError("WorkerPool: the pool is closed")
        if os.getpid() != self._pid:
            raise RuntimeError("WorkerPool: a pool cannot be used in a forked child; create a new one")
        tasks = list(args)
        if not tasks:
            return []
        results: list[TaskResult | None] = [None] * len(tasks)
        # Tasks whose worker died under them, to run once more on a fresh worker (a worker
        # killed from outside, e.g. by the OOM killer, costs no task its verdict).
        retry: list[int] = []
        retried: set[int] = set()
        batch = _Batch()
        in_flight: dict[Connection, tuple[_Worker, int, float]] = {}
        bar: Any = _NoBar()
        try:
            self._enter(batch, len(tasks), steps)
            bar = _progress_bar(len(tasks), progress, description)
            next_task = 0
            while next_task < len(tasks) or in_flight or retry:
                # Hand out tasks to every worker this batch can get; block only when it has
                # nothing running (otherwise it would sit on workers while waiting for more).
                while retry or next_task < len(tasks):
                    if ends is not None and time.monotonic() >= ends:
                        # the call's deadline passed before these tasks got a worker
                        waiting = (*retry, *range(next_task, len(tasks)))
                        for index in waiting:
                            results[index] = TaskResult(
                                "timeout",
                                error=_deadline_error("before a worker took it"),
                                waited=time.monotonic() - begun,
                            )
                        bar.update(len(waiting))
                        retry.clear()
                        next_task = len(tasks)
                        break
                    try:
                        worker = self._checkout(batch, block=not in_flight, until=ends)
                    except WorkerStartError as err:
                        index = retry.pop() if retry else next_task
                        next_task += index == next_task
                        results[index] = TaskResult("error", error=_describe(err))
                        bar.update(1)
                        continue
                    except _PoolClosed:  # closed by another thread in the middle of the batch
                        for index in (*retry, *range(next_task, len(tasks))):
                            results[index] = TaskResult("error", error="the pool was closed")
                        bar.update(len(retry) + len(tasks) - next_task)
                        retry.clear()
                        next_task = len(tasks)
                        break
                    if worker is None:
                        break
                    if retry:
                        index = retry.pop()
                    else:
                        index = next_task
                        next_task += 1
                    started = time.monotonic()
                    sent = self._send(worker, fn, tasks[index], memory)
                    if sent is not None:
                        if _died(sent) and index not in retried and not self._closed:
                            retried.add(index)
                            retry.append(index)
                            continue
                        results[index] = sent
                        bar.update(1)
                        continue
                    in_flight[worker.from_worker] = (worker, index, started)
                if not in_flight:
                    continue
                now = time.monotonic()
                # The first moment a task in flight may be stopped; a spare should be warm by then.
                first_sent = min(s for _, _, s in in_flight.values())
                stop_at = None if limit is None else first_sent + limit
                if ends is not None:
                    stop_at = ends if stop_at is None else min(stop_at, ends)
                wait_for = None if stop_at is None else stop_at - now
                if stop_at is not None and self._spares and not self._spare_wanted:
                    spare_in = spare_due(stop_at, self._start_last, first_sent) - now
                    if spare_in <= 0:
                        self._want_spare()
                    else:
                        wait_for = min(stop_at - now, spare_in)
                if next_task < len(tasks):  # look again soon for workers freed meanwhile
                    wait_for = _POLL_FREE if wait_for is None else min(wait_for, _POLL_FREE)
                ready = wait(list(in_flight), timeout=_wait_seconds(wait_for))
                # A deadline counts from the moment the task was sent and is checked before its
                # result is read: a result that is only found once its deadline has passed does
                # not count (so the verdict does not depend on the order of the two checks), but
                # its worker is healthy and goes back to the pool instead of being killed.
                now = time.monotonic()
                overdue = ends is not None and now >= ends
                for conn, (worker, index, started) in list(in_flight.items()):
                    late = limit is not None and now - started >= limit
                    if conn not in ready and not late and not overdue:
                        continue
                    del in_flight[conn]
                    if conn in ready:
                        outcome = self._receive(worker)
                    else:
                        self._cancel(worker)
                    if late:
                        outcome = TaskResult("timeout", error=f"no result within {limit:g} s")
                    elif overdue and conn not in ready:
                        late = True
                        outcome = TaskResult("timeout", error=_deadline_error("while it ran"))
                    elif _died(outcome) and index not in retried and not self._closed:
                        retried.add(index)
                        retry.append(index)
                        continue
                    seconds = (now if late else time.monotonic()) - started
                    self._record(seconds)
                    results[index] = TaskResult(
                        outcome.status, outcome.value, outcome.error, seconds=seconds, waited=started - begun
                    )
                    bar.update(1)
        finally:
            # Whatever ended the batch (a KeyboardInterrupt at any point included), every worker
            # still marked with it is stale: killed and replaced; the rest go back to the pool.
            _shielded(self._leave, batch)
            bar.close()
        return [r if r is not None else TaskResult("error", error="not run") for r in results]

    def close(self) -> None:
        """Stop every worker. Idle workers exit cleanly; busy ones are killed.

        Batches still running in other threads get error results for their unfinished tasks.
        Closing twice is harmless; a closed pool refuses new batches (``RuntimeError``).
        """
        with self._lock:
            self._closed = True
            supervisor = self._supervisor
            self._cond.notify_all()
            self._wake()
        if os.getpid() != self._pid:
            return  # a forked child: these workers belong to the parent
        if supervisor is not None and supervisor is not threading.current_thread():
            supervisor.join(timeout=10.0)
        with self._lock:
            busy = [w for w in self._workers if w.state == "busy"]
            rest = [w for w in self._workers if w.state != "busy"]
            self._workers.difference_update(rest)
            self._idle.clear()
            wake_fds = (self._wake_r, self._wake_w)
            self._wake_r = self._wake_w = -1
        for worker in busy:
            worker.signal_kill()  # its batch sees the pipe close and retires it
        idle = [w for w in rest if w.state == "idle"]
        for worker in idle:
            worker.ask_to_stop()
        deadline = time.monotonic() + _STOP_GRACE
        for worker in idle:
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        for worker in rest:
            worker.kill()
        for fd in wake_fds:
            if fd >= 0:
                os.close(fd)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the caller's side: batches take and return workers -----------------------------------

    def _enter(self, batch: _Batch, tasks: int, steps: tuple[WarmupStep, ...]) -> None:
        """Register a batch: its demand for workers and its warm-up steps."""
        with self._lock:
            if self._closed:
                raise _PoolClosed("WorkerPool: the pool is closed")
            self._add_steps_locked(steps)
            self._fresh_attempt_locked()
            batch.demand = batch.unsent = tasks
            self._demand += tasks
            self._waiting += tasks
            self._target = max(self._target, 1)
            self._grow_locked()
            self._supervise_locked()

    def _fresh_attempt_locked(self) -> None:
        """Forget a failed start: a new batch, or start(), gets a fresh attempt at starting workers."""
        self._failure = None
        self._retry_at = 0.0

    def _supervise_locked(self) -> None:
        """Start the supervisor if none runs yet, and wake it."""
        if self._supervisor is None:
            # Started until one registers (an interrupt may land after start() but before any
            # assignment in _supervise); extra ones see the registered one and return at once.
            threading.Thread(target=self._supervise, name="rapidgrade-pool-supervisor", daemon=True).start()
        self._wake()

    def _grow_locked(self) -> None:
        """Keep one more worker when it pays for its start-up (:mod:`rapidgrade._pool_policy`)."""
        if self._target >= self._size:
            return
        serving = [w for w in self._workers if w.state in _SERVING]
        if len(serving) < self._target:
            return  # a start is on its way
        now = time.monotonic()
        work = work_ahead(self._waiting, self._task_mean, (now - w.since for w in serving if w.state == "busy"))
        if another_worker_pays(self._waiting, len(serving), work, self._start_last):
            self._target += 1
            self._wake()

    def _want_spare(self) -> None:
        """A task may be stopped at its deadline soon: keep spares from now on."""
        with self._lock:
            if not self._spare_wanted:
                self._spare_wanted = True
                self._wake()

    def _record(self, seconds: float) -> None:
        """A task ran *seconds* (its result came, or its deadline passed)."""
        with self._lock:
            self._task_mean = updated_mean(self._task_mean, seconds)

    def _add_steps_locked(self, steps: tuple[WarmupStep, ...]) -> None:
        new_steps = tuple(s for s in steps if s not in self._steps)
        if new_steps:
            # Idle workers lack the new steps: they warm up again before their next task (busy
            # ones when they come back).
            self._steps += new_steps
            for worker in list(self._idle):
                self._rewarm_locked(worker)  # state first: _checkout skips non-idle entries
                self._idle.remove(worker)

    def _add_steps(self, steps: tuple[WarmupStep, ...]) -> None:
        with self._lock:
            self._add_steps_locked(steps)

    def _leave(self, batch: _Batch) -> None:
        """Unregister a batch; kill the workers it still holds (it was interrupted)."""
        stale: list[_Worker] = []
        with self._lock:
            while batch in self._queue:
                self._queue.remove(batch)
            self._demand = max(0, self._demand - batch.demand)
            self._waiting = max(0, self._waiting - batch.unsent)
            batch.demand = batch.unsent = 0
            for worker in self._workers:
                if worker.owner is not batch:
                    continue
                # Every step of a hand-over sets the owner last, so a worker still marked was
                # interrupted half-way: back to idle if it is still in the list, else stale.
                worker.owner = None
                if worker in self._idle:
                    worker.state = "idle"
                elif worker.state in ("busy", "idle"):
                    stale.append(worker)
            for worker in stale:
                self._retire_locked(worker)
            self._cond.notify_all()
        for worker in stale:
            worker.signal_kill()
        if stale and self._closed:
            self._reap_inline(stale)

    def _checkout(self, batch: _Batch, *, block: bool, until: float | None = None) -> _Worker | None:
        """An idle warm worker for *batch*, or ``None`` (when not blocking and none is free, or
        when blocking past the monotonic time *until*).

        Raises :class:`WorkerStartError` to report a worker that failed to start (one failure
        per call), :class:`_PoolClosed` when the pool is closed.
        """
        with self._lock:
            queued = False
            try:
                while True:
                    if self._closed:
                        raise _PoolClosed("WorkerPool: the pool is closed")
                    first = not self._queue or self._queue[0] is batch
                    while self._idle and self._idle[-1].state != "idle":
                        self._idle.pop()  # left by an interrupted hand-over; not ours to take
                    if first and self._idle and self._busy_locked() < self._size:
                        worker = self._idle[-1]
                        if worker.process.poll() is not None:
                            # Died while idle (the OOM killer, a stray signal): never handed a
                            # task; a replacement starts at once.
                            self._idle.pop()
                            self._retire_locked(worker)
                            continue
                        # Mark before taking: an interrupt between the two leaves a marked idle
                        # worker, which _leave simply hands back.
                        worker.owner = batch
                        worker.state = "busy"
                        worker.since = time.monotonic()
                        self._idle.pop()
                        if batch.unsent:
                            batch.unsent -= 1
                            self._waiting -= 1
                        return worker
                    if first and self._failure is not None and not self._serving_locked():
                        # No worker can serve this batch: report why instead of waiting.
                        raise WorkerStartError(self._failure)
                    self._grow_locked()
                    if not block:
                        return None
                    wait_for = 1.0
                    if until is not None:
                        wait_for = min(wait_for, until - time.monotonic())
                        if wait_for <= 0:
                            return None
                    if not queued:
                        self._queue.append(batch)
                        queued = True
                    self._cond.wait(timeout=wait_for)
            finally:
                if queued:
                    while batch in self._queue:
                        self._queue.remove(batch)
                    self._cond.notify_all()

    def _serving_locked(self) -> bool:
        return any(w.state in _SERVING for w in self._workers)

    def _failed_locked(self, message: str) -> None:
        """Record a failed start; the supervisor retries later (sooner for a new batch)."""
        self._failure = message
        self._backoff = min(60.0, max(1.0, 2 * self._backoff))
        self._retry_at = time.monotonic() + self._backoff
        self._cond.notify_all()

    def _busy_locked(self) -> int:
        return sum(1 for w in self._workers if w.state == "busy")

    def _checkin(self, worker: _Worker) -> None:
        """Hand a worker back after a task: to the idle list, a warm-up, or retirement."""
        worker.tasks += 1
        # The owner is cleared last in every branch (see _leave).
        with self._lock:
            retired = self._closed
            if retired:
                pass
            elif self._max_tasks is not None and worker.tasks >= self._max_tasks:
                worker.since = time.monotonic()
                worker.state = "stopping"
                self._wake()
            elif worker.steps < len(self._steps):
                self._rewarm_locked(worker)
            else:
                self._idle.append(worker)
                worker.state = "idle"
                self._cond.notify_all()
            worker.owner = None
        if retired:
            self._reap_inline([worker])

    def _cancel(self, worker: _Worker) -> None:
        """Past the deadline: ask the worker to abandon its task; the supervisor takes it back.

        The worker raises an exception in the task at the next Python instruction (SymPy is
        Python, so usually at once) and answers; it then serves again, with no restart. One that
        does not answer within :data:`_CANCEL_GRACE` (stuck in C code, say a huge power) is
        killed and replaced. The signal is sent while this batch still holds the worker, so it
        cannot reach a later task.
        """
        worker.send_signal(_CANCEL_SIGNAL)
        with self._lock:
            worker.since = time.monotonic()
            worker.state = "cancelling"
            worker.owner = None
            self._wake()

    def _retire(self, worker: _Worker) -> None:
        """Kill *worker* and take it out of service; a replacement starts at once."""
        worker.signal_kill()
        with self._lock:
            self._retire_locked(worker)
            worker.owner = None
            closed = self._closed
        if closed:
            self._reap_inline([worker])

    def _retire_locked(self, worker: _Worker) -> None:
        if worker in self._idle:
            self._idle.remove(worker)
        if worker.state != "dying":
            self._killed += 1
        worker.since = time.monotonic()
        worker.state = "dying"
        self._wake()
        self._cond.notify_all()

    def _reap_inline(self, workers: list[_Worker]) -> None:
        """Kill and reap in this thread (after close, when no supervisor is left to do it)."""
        for worker in workers:
            worker.kill()
        with self._lock:
            self._workers.difference_update(workers)

    def _rewarm_locked(self, worker: _Worker) -> None:
        worker.warm_sent = False
        worker.since = time.monotonic()
        worker.state = "starting"
        self._wake()

    def _send(
        self, worker: _Worker, fn: Callable[..., Any], args: tuple[Any, ...], memory: int | None = None
    ) -> TaskResult | None:
        """Send a task; ``None`` on success, an error result otherwise (worker handled)."""
        try:
            payload = pickle.dumps(("task", fn, tuple(args), memory), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as err:
            worker.tasks -= 1  # _checkin counts a task; this one never ran
            self._checkin(worker)
            return TaskResult("error", error=f"task could not be pickled: {_describe(err)}")
        try:
            worker.to_worker.send_bytes(payload)
        except OSError:
            description = worker.exit_description()
            self._retire(worker)
            return TaskResult("error", error=description)
        return None

    def _receive(self, worker: _Worker) -> TaskResult:
        try:
            message = worker.from_worker.recv()
        except (EOFError, OSError):
            description = worker.exit_description()
            self._retire(worker)
            return TaskResult("error", error=description)
        except (pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError) as err:
            self._checkin(worker)
            return TaskResult("error", error=f"result could not be unpickled: {_describe(err)}")
        status, payload = message
        if status == "exit":  # the task raised SystemExit/KeyboardInterrupt; the worker quits
            self._retire(worker)
            return TaskResult("error", error=str(payload))
        if status == "memory":  # past its memory limit; the worker quits and a fresh one starts
            self._retire(worker)
            return TaskResult("memory", error=str(payload))
        self._checkin(worker)
        if status == "ok":
            return TaskResult("ok", value=payload)
        return TaskResult("error", error=str(payload))

    # -- the supervisor: starts, warms, stops and reaps workers in the background -------------

    def _wake(self) -> None:
        """Wake the supervisor (call with the lock held)."""
        if self._wake_w >= 0:
            with contextlib.suppress(OSError):  # the pipe is full: the supervisor is awake anyway
                os.write(self._wake_w, b"\0")

    def _supervise(self) -> None:
        with self._lock:
            if self._supervisor is not None or self._closed:
                return
            self._supervisor = threading.current_thread()
        while True:
            try:
                if not self._supervise_once():
                    return
            except Exception as err:
                with self._lock:
                    self._failed_locked(f"worker supervisor failed: {_describe(err)}")
                time.sleep(0.1)

    def _supervise_once(self) -> bool:
        """One round: launch, warm, stop, reap; wait for news. ``False`` once closed."""
        with self._lock:
            if self._closed:
                return False
            in_service = sum(1 for w in self._workers if w.state in _SERVING)
            launch = max(0, self._target - in_service)
            starting = any(w.state == "starting" for w in self._workers)
            if self._spare_wanted and self._target and not launch and not starting:
                # Spares start once a task came near its deadline, and once the workers the
                # batches need are warm (not competing with them for the CPU); they take over
                # from a killed worker at once.
                launch = max(0, self._target + self._spares - in_service)
            retry_in = None
            if launch and self._failure is not None:
                # After a failed start, retry only while batches wait, and not too often.
                if not self._demand:
                    launch = 0
                elif time.monotonic() < self._retry_at:
                    launch = 0
                    retry_in = self._retry_at - time.monotonic()
            to_warm = [w for w in self._workers if w.state == "starting" and not w.warm_sent]
            for worker in to_warm:
                worker.warm_sent = True
                worker.warm_target = len(self._steps)
                worker.since = time.monotonic()
            warm_requests = [(w, self._steps[w.steps :]) for w in to_warm]
            warming = [w for w in self._workers if w.state == "starting" and w.warm_sent]
            cancelling = [w for w in self._workers if w.state == "cancelling"]
            stopping = [w for w in self._workers if w.state == "stopping"]
            dying = [w for w in self._workers if w.state == "dying"]
            wake_fd = self._wake_r
        for _ in range(launch):
            self._launch()
        for worker, steps in warm_requests:
            try:
                worker.to_worker.send(("warm", steps))
            except (OSError, ValueError):
                self._start_failed(worker, f"worker exited at start: {worker.exit_description()}")
        now = time.monotonic()
        for worker in stopping:
            if not worker.signalled:
                worker.signalled = True
                worker.since = now
                worker.ask_to_stop()
            if worker.process.poll() is not None or now - worker.since > _STOP_GRACE:
                with self._lock:
                    worker.state = "dying"
        for worker in dying:
            worker.signal_kill()
            if worker.reap() or now - worker.since > _REAP_PATIENCE:
                worker.abandon()
                with self._lock:
                    self._workers.discard(worker)
        deadlines = [w.since + _START_TIMEOUT for w in warming]
        deadlines += [w.since + _CANCEL_GRACE for w in cancelling]
        timeout = min(deadlines) - now if deadlines else None
        if stopping or dying:
            timeout = 0.02 if timeout is None else min(timeout, 0.02)
        if launch:
            timeout = 0.0  # next round sends the new workers their warm-up request
        elif retry_in is not None:
            timeout = retry_in if timeout is None else min(timeout, retry_in)
        watched: list[Any] = [w.from_worker for w in (*warming, *cancelling)]
        ready = _supervisor_wait([*watched, wake_fd], timeout=_wait_seconds(timeout))
        if wake_fd in ready:
            with contextlib.suppress(OSError):
                os.read(wake_fd, 4096)
        for worker in warming:
            if worker.from_worker in ready:
                self._warm_reply(worker)
            elif time.monotonic() - worker.since > _START_TIMEOUT:
                self._start_failed(worker, f"worker not ready within {_START_TIMEOUT:g} s")
        for worker in cancelling:
            if worker.from_worker in ready:
                self._cancel_reply(worker)
            elif time.monotonic() - worker.since > _CANCEL_GRACE:
                worker.signal_kill()
                with self._lock:
                    self._retire_locked(worker)
        return True

    def _cancel_reply(self, worker: _Worker) -> None:
        """The abandoned task answered (cancelled, or finished just then): back into service."""
        try:
            status = worker.from_worker.recv()[0]
        except Exception:
            status = "exit"
        with self._lock:
            if worker.state != "cancelling":
                return
            if status == "exit" or self._closed:
                worker.signal_kill()
                self._retire_locked(worker)
                return
            self._cancelled += 1
            if worker.steps < len(self._steps):
                self._rewarm_locked(worker)
            else:
                self._idle.append(worker)
                worker.state = "idle"
                self._cond.notify_all()

    def _launch(self) -> None:
        """Start one worker process (it then waits for its warm-up request)."""
        try:
            worker = self._spawn()
        except OSError as err:
            with self._lock:
                self._failed_locked(f"could not start a worker: {_describe(err)}")
            return
        with self._lock:
            self._workers.add(worker)
            if self._closed:
                worker.state = "dying"

    def _warm_reply(self, worker: _Worker) -> None:
        try:
            message = worker.from_worker.recv()
        except (EOFError, OSError):
            self._start_failed(worker, f"worker failed to start: {worker.exit_description()}")
            return
        except Exception as err:
            self._start_failed(worker, f"worker failed to start: {_describe(err)}")
            return
        if not (isinstance(message, tuple) and message and message[0] == "ready"):
            detail = message[1] if isinstance(message, tuple) and len(message) > 1 else message
            self._start_failed(worker, f"worker failed to start: {detail}")
            return
        with self._lock:
            if worker.state != "starting":
                return
            worker.steps = worker.warm_target
            worker.warm_sent = False
            if worker.steps < len(self._steps):
                self._wake()  # steps were added meanwhile: warm up again
                return
            self._failure = None
            self._backoff = 0.0
            if not worker.warmed:
                worker.warmed = True
                seconds = time.monotonic() - worker.launched
                self._started += 1
                self._start_last = seconds
                self._start_max = max(self._start_max, seconds)
            worker.state = "idle"
            self._idle.insert(0, worker)  # taken last: workers that have served are preferred
            self._cond.notify_all()

    def _start_failed(self, worker: _Worker, message: str) -> None:
        worker.signal_kill()
        with self._lock:
            worker.state = "dying"
            worker.since = time.monotonic()
            self._failed_locked(message)

    def _spawn(self) -> _Worker:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        # The cancel signal is blocked before any import, so that threads started by libraries
        # (OpenBLAS, ...) inherit the block and it always reaches the main thread, which
        # unblocks it in _worker_main.
        code = (
            f"import signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {{signal.{_CANCEL_SIGNAL.name}}}); "
            f"sys.path.insert(0, {package_parent!r}); "
            f"from rapidgrade._pool_worker import _worker_main; _worker_main({to_child_r}, {from_child_w})"
        )
        try:
            process = subprocess.Popen(
                [sys.executable, "-c", code],
                pass_fds=(to_child_r, from_child_w),
                stdin=subprocess.DEVNULL,
                close_fds=True,
                env={**os.environ, _WORKER_ENV: "1"},
            )
        except BaseException:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            raise
        os.close(to_child_r)
        os.close(from_child_w)
        worker = _Worker(process, Connection(to_child_w, readable=False), Connection(from_child_r, writable=False))
        with contextlib.suppress(OSError):  # it died at once; the warm-up request fails and says why
            worker.to_worker.send(list(sys.path))
        return worker


def _deadline_error(when: str) -> str:
    return f"deadline: passed {when}"


def _died(result: TaskResult) -> bool:
    """Whether *result* says the task's worker died (or stopped answering) under it."""
    return result.status == "error" and result.error.startswith(("worker process died", "worker process stopped"))


def _shielded(cleanup: Callable[[_Batch], None], batch: _Batch) -> None:
    """Run *cleanup* to the end even if Ctrl-C arrives during it; then re-raise the interrupt."""
    interrupted: KeyboardInterrupt | None = None
    while True:
        try:
            cleanup(batch)
            break
        except KeyboardInterrupt as err:
            interrupted = err
    if interrupted is not None:
        raise interrupted


def _progress_bar(total: int, enabled: bool, description: str | None) -> Any:
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, unit="task", dynamic_ncols=True)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


# -- the process-wide default pool ------------------------------------------------------------
#
# This is the one piece of process-wide mutable state in rapidgrade, on purpose: the
# math-verify compatible ``parse``/``verify`` (and ``grade``) are free functions whose callers
# pass no pool, yet starting worker processes per call would cost seconds each. So each
# process lazily creates one pool on first use and reuses it. It is guarded by a lock (callers
# may be threads), tagged with the pid that created it (a forked child must not talk to its
# parent's workers through inherited pipes, so it builds its own), and closed at interpreter
# exit. Code that wants its own lifetime or size passes an explicit WorkerPool instead.
# The pool knows nothing of its clients: each passes its warm-up steps with its batches.

_default_lock = threading.Lock()
_default_pool: WorkerPool | None = None

_default_warmup: tuple[WarmupStep, ...] = ()


def add_default_warmup(*steps: WarmupStep) -> None:
    """Add warm-up steps that every worker of the shared pool runs before taking tasks.

    For clients that use :func:`default_pool` (typically called once, when the client module is
    imported). Workers already running run the new steps before their next task.
    """
    global _default_warmup
    checked = check_steps(steps, "add_default_warmup")
    with _default_lock:
        _default_warmup += tuple(s for s in checked if s not in _default_warmup)
        pool = _default_pool
    if pool is not None:
        pool._add_steps(checked)


def default_pool() -> WorkerPool:
    """This process's shared pool (created on first use; one worker per core)."""
    global _default_pool
    with _default_lock:
        pool = _default_pool
        if pool is None or pool._pid != os.getpid() or pool._closed:
            pool = WorkerPool(warmup=_default_warmup)
            _default_pool = pool
        return pool


def _close_default_pool() -> None:
    global _default_pool
    with _default_lock:
        pool, _default_pool = _default_pool, None
    if pool is not None and pool._pid == os.getpid():
        pool.close()


def _reset_after_fork() -> None:
    global _default_lock, _default_pool
    _default_lock = threading.Lock()  # may have been held by another thread at fork time
    _default_pool = None


atexit.register(_close_default_pool)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)
