"""Killable worker processes for work whose run time has no bound (SymPy, math-verify).

A :class:`WorkerPool` runs module-level functions in separate Python processes. Every task has a
deadline; when it passes, the worker running the task is killed (``SIGKILL``) and a fresh one
takes its place on demand, and the task's result is a *timeout marker*
(``TaskResult(status="timeout")``), not an exception. A worker that dies (segfault, out of memory,
``os._exit``) yields an error result for its task; the pool goes on. Results of a batch come back
in input order.

>>> pool = WorkerPool(workers=2)                      # doctest: +SKIP
>>> pool.run_many(math.factorial, [(5,), (6,)], timeout=5.0)   # doctest: +SKIP
[TaskResult(status='ok', value=120, error=''), TaskResult(status='ok', value=720, error='')]
>>> pool.close()                                      # doctest: +SKIP

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

Signals. The pool never installs a signal handler or arms an alarm in the calling process, so it
works from any thread. Inside a worker, tasks run on the worker's main thread, where
math-verify's ``signal.alarm`` is allowed; workers ignore ``SIGINT`` (Ctrl-C belongs to the
caller, who then gets ``KeyboardInterrupt``; the workers busy with that batch are killed) and
exit on their own when the parent process disappears.

Threads. One pool may be used from several threads at once: each batch checks idle workers out,
uses them exclusively and returns them, so results never cross between callers.
"""

from __future__ import annotations

import atexit
import importlib
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Literal, cast

__all__ = ["TaskResult", "WorkerPool", "WorkerStartError", "default_pool", "in_worker"]

TaskStatus = Literal["ok", "timeout", "error"]

#: Seconds a new worker may take to start and import its warm-up modules.
_START_TIMEOUT = 120.0
#: Longest error text kept in a result (messages of SymPy errors can be huge).
_MAX_ERROR_CHARS = 500
#: Set in the environment of worker processes (see :func:`in_worker`).
_WORKER_ENV = "RAPIDGRADE_WORKER"


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What became of one task.

    ``status`` is ``"ok"`` (``value`` holds the return value), ``"timeout"`` (the deadline
    passed and the worker was killed) or ``"error"`` (``error`` says what went wrong: the
    exception raised by the task as ``"TypeName: message"``, a worker that died, an argument or
    result that could not be pickled).
    """

    status: TaskStatus
    value: Any = None
    error: str = ""

    @property
    def ok(self) -> bool:
        """``True`` when the task returned normally."""
        return self.status == "ok"


class WorkerStartError(RuntimeError):
    """A worker process failed to start (or to import its warm-up modules) in time."""


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_ERROR_CHARS:
        text = text[: _MAX_ERROR_CHARS - 3] + "..."
    return text


def _describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception as err:  # noqa: BLE001 - a broken __str__ must not lose the result
        message = f"<message unavailable: {type(err).__name__}>"
    return _one_line(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)


class _Worker:
    """One worker process and the parent's ends of its two pipes."""

    __slots__ = ("process", "to_worker", "from_worker", "pid", "tasks", "_lock", "_closed")

    def __init__(
        self, process: subprocess.Popen[bytes], to_worker: Connection, from_worker: Connection
    ) -> None:
        self.process = process
        self.to_worker = to_worker
        self.from_worker = from_worker
        self.pid = process.pid
        self.tasks = 0
        # kill() may race between a batch and close() in another thread; closing a pipe twice
        # could close an unrelated file that reused the descriptor number.
        self._lock = threading.Lock()
        self._closed = False

    def kill(self) -> None:
        """Kill the process (if still running), reap it and close the pipes. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._kill_locked()

    def _kill_locked(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.kill()
            except ProcessLookupError:
                pass
        try:
            self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            pass  # stuck in uninterruptible sleep; the OS reaps it once the parent exits
        self.to_worker.close()
        self.from_worker.close()

    def signal_kill(self) -> None:
        """Send SIGKILL only. For workers another thread is using: that thread sees the pipe
        close, then reaps the process and closes its pipes itself (see :meth:`kill`)."""
        with self._lock:
            if self._closed:
                return
            try:
                self.process.kill()
            except ProcessLookupError:
                pass

    def stop(self, grace: float) -> None:
        """Ask the worker to exit, give it *grace* seconds, then kill it."""
        try:
            self.to_worker.send(None)
        except (OSError, ValueError):
            pass
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def exit_description(self) -> str:
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "worker process stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"worker process died ({name})"
        return f"worker process died (exit code {code})"


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
        workers: Most processes alive at once (default: the number of usable cores). They are
            started lazily, when a batch needs them.
        warmup: Modules every worker imports once before taking tasks (for example
            ``("sympy", "math_verify")``), so the first task does not pay for the import and its
            deadline measures only its own work.
        max_tasks_per_worker: Replace a worker after this many tasks (bounds memory growth of
            long-lived workers; ``None``: never).

    >>> with WorkerPool(workers=1) as pool:                            # doctest: +SKIP
    ...     pool.run(time.sleep, (60,), timeout=1.0).status
    'timeout'
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        warmup: Sequence[str] = (),
        max_tasks_per_worker: int | None = None,
    ) -> None:
        if workers is not None and workers < 1:
            raise ValueError("WorkerPool: workers must be at least 1")
        if max_tasks_per_worker is not None and max_tasks_per_worker < 1:
            raise ValueError("WorkerPool: max_tasks_per_worker must be at least 1")
        self._size = workers if workers is not None else _default_size()
        self._warmup = tuple(warmup)
        self._max_tasks = max_tasks_per_worker
        self._cond = threading.Condition(threading.Lock())
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._slots_used = 0  # workers alive or starting
        self._waiting = 0  # threads blocked in _checkout, waiting for a worker
        self._closed = False
        self._pid = os.getpid()

    # -- public API ---------------------------------------------------------------------------

    @property
    def workers(self) -> int:
        """Most worker processes alive at once."""
        return self._size

    def worker_pids(self) -> list[int]:
        """Process ids of the workers alive now (idle or busy)."""
        with self._cond:
            return sorted(w.pid for w in self._all)

    def run(
        self, fn: Callable[..., Any], args: tuple[Any, ...] = (), *, timeout: float | None
    ) -> TaskResult:
        """Run ``fn(*args)`` in a worker; *timeout* seconds (``None``: no limit)."""
        return self.run_many(fn, [args], timeout=timeout)[0]

    def run_many(
        self,
        fn: Callable[..., Any],
        args: Iterable[tuple[Any, ...]],
        *,
        timeout: float | None,
        progress: bool = False,
        description: str | None = None,
    ) -> list[TaskResult]:
        """Run ``fn(*a)`` for every tuple ``a`` in *args*, spread over the workers.

        Each task may take *timeout* seconds from the moment a worker receives it (``None``: no
        limit); past that its worker is killed and its result is ``TaskResult("timeout")``.
        Returns one :class:`TaskResult` per task, in input order. ``progress=True`` shows a tqdm
        progress bar (tasks per second) labelled *description*.

        *fn* must be importable by name in the workers (a module-level function).
        """
        if timeout is not None and not timeout > 0:
            raise ValueError("WorkerPool.run_many: timeout must be positive or None")
        if self._closed:
            raise RuntimeError("WorkerPool: the pool is closed")
        tasks = list(args)
        results: list[TaskResult | None] = [None] * len(tasks)
        bar = _progress_bar(len(tasks), progress, description)
        in_flight: dict[Connection, tuple[_Worker, int, float | None]] = {}
        next_task = 0
        try:
            if tasks:
                self._prestart(len(tasks))
            while next_task < len(tasks) or in_flight:
                # Hand out tasks to every worker this batch can get; block only when it has
                # nothing running (otherwise it would sit on workers while waiting for more).
                while next_task < len(tasks):
                    try:
                        worker = self._checkout(block=not in_flight)
                    except WorkerStartError as err:
                        results[next_task] = TaskResult("error", error=_describe(err))
                        next_task += 1
                        bar.update(1)
                        continue
                    except RuntimeError:  # closed by another thread in the middle of the batch
                        for index in range(next_task, len(tasks)):
                            results[index] = TaskResult("error", error="the pool was closed")
                        bar.update(len(tasks) - next_task)
                        next_task = len(tasks)
                        break
                    if worker is None:
                        break
                    index = next_task
                    next_task += 1
                    sent = self._send(worker, fn, tasks[index])
                    if sent is not None:
                        results[index] = sent
                        bar.update(1)
                        continue
                    deadline = None if timeout is None else time.monotonic() + timeout
                    in_flight[worker.from_worker] = (worker, index, deadline)
                if not in_flight:
                    continue
                deadlines = [d for _, _, d in in_flight.values() if d is not None]
                wait_for = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
                for ready in wait(list(in_flight), timeout=wait_for):
                    worker, index, _ = in_flight.pop(cast(Connection, ready))
                    results[index] = self._receive(worker)
                    bar.update(1)
                now = time.monotonic()
                for conn, (worker, index, deadline) in list(in_flight.items()):
                    if deadline is not None and now >= deadline:
                        del in_flight[conn]
                        self._discard(worker)
                        results[index] = TaskResult("timeout", error=f"no result within {timeout} s")
                        bar.update(1)
        finally:
            # Only reached with tasks in flight when the caller is interrupted (Ctrl-C) or the
            # pool was closed under us: their answers would be stale, so kill those workers.
            for worker, _, _ in in_flight.values():
                self._discard(worker)
            bar.close()
        return [r if r is not None else TaskResult("error", error="not run") for r in results]

    def close(self) -> None:
        """Stop every worker. Idle workers exit cleanly; busy ones are killed.

        Batches still running in other threads get error results for their unfinished tasks.
        Closing twice is harmless; a closed pool refuses new batches (``RuntimeError``).
        """
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            busy = [w for w in self._all if w not in idle]
            self._all.clear()
            self._cond.notify_all()
        if os.getpid() != self._pid:
            return  # a forked child: these workers belong to the parent
        for worker in busy:
            worker.signal_kill()
        for worker in idle:
            worker.stop(grace=1.0)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- worker bookkeeping -------------------------------------------------------------------

    def _reserve(self, count: int) -> int:
        """Reserve up to *count* slots for new workers; returns how many were reserved."""
        with self._cond:
            if self._closed:
                raise RuntimeError("WorkerPool: the pool is closed")
            free = max(0, self._size - self._slots_used)
            wanted = max(0, min(free, count - len(self._idle)))
            self._slots_used += wanted
            return wanted

    def _release_slots(self, count: int) -> None:
        with self._cond:
            self._slots_used -= count
            self._cond.notify_all()

    def _prestart(self, tasks: int) -> None:
        """Start the workers a batch of *tasks* can use, concurrently rather than one by one."""
        count = self._reserve(tasks)
        if count <= 1:
            self._release_slots(count)
            return  # a single worker is started by _checkout when needed
        pending: list[tuple[_Worker, Connection]] = []
        failures = 0
        for _ in range(count):
            try:
                pending.append(self._spawn())
            except (OSError, WorkerStartError):
                failures += 1
        for worker, _conn in pending:
            try:
                self._await_ready(worker)
            except WorkerStartError:
                failures += 1
                continue
            with self._cond:
                if self._closed:
                    worker.kill()
                    self._slots_used -= 1
                else:
                    self._all.add(worker)
                    self._idle.append(worker)
                self._cond.notify_all()
        self._release_slots(failures)

    def _checkout(self, *, block: bool) -> _Worker | None:
        """An idle worker, a newly started one, or ``None`` (when not blocking and none free)."""
        with self._cond:
            while True:
                if self._closed:
                    raise RuntimeError("WorkerPool: the pool is closed")
                if not block and self._waiting:
                    # This caller already has tasks running and another thread has none:
                    # leave the free worker to the other thread, so no batch starves.
                    return None
                if self._idle:
                    return self._idle.pop()
                if self._slots_used < self._size:
                    self._slots_used += 1
                    break
                if not block:
                    return None
                self._waiting += 1
                try:
                    self._cond.wait()
                finally:
                    self._waiting -= 1
        try:
            worker, _ = self._spawn()
            self._await_ready(worker)
        except (OSError, WorkerStartError) as err:
            self._release_slots(1)
            if isinstance(err, WorkerStartError):
                raise
            raise WorkerStartError(f"could not start a worker: {_describe(err)}") from err
        with self._cond:
            if self._closed:
                self._slots_used -= 1
                worker.kill()
                raise RuntimeError("WorkerPool: the pool is closed")
            self._all.add(worker)
        return worker

    def _checkin(self, worker: _Worker) -> None:
        worker.tasks += 1
        if self._max_tasks is not None and worker.tasks >= self._max_tasks:
            self._discard(worker, graceful=True)
            return
        with self._cond:
            if self._closed or worker not in self._all:
                closed = True
            else:
                closed = False
                self._idle.append(worker)
                self._cond.notify_all()
        if closed:
            worker.kill()

    def _discard(self, worker: _Worker, *, graceful: bool = False) -> None:
        """Kill *worker* and free its slot (a replacement starts when next needed)."""
        if graceful:
            worker.stop(grace=1.0)
        else:
            worker.kill()
        with self._cond:
            if worker in self._all:
                self._all.discard(worker)
                self._slots_used -= 1
            self._cond.notify_all()

    def _spawn(self) -> tuple[_Worker, Connection]:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        code = (
            "import sys; sys.path.insert(0, {!r}); "
            "from rapidgrade._pool import _worker_main; _worker_main({}, {})"
        ).format(package_parent, to_child_r, from_child_w)
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
        worker = _Worker(
            process, Connection(to_child_w, readable=False), Connection(from_child_r, writable=False)
        )
        try:
            worker.to_worker.send((list(sys.path), self._warmup))
        except OSError as err:
            worker.kill()
            raise WorkerStartError(f"worker exited at start: {_describe(err)}") from err
        return worker, worker.from_worker

    def _await_ready(self, worker: _Worker) -> None:
        try:
            if not worker.from_worker.poll(_START_TIMEOUT):
                worker.kill()
                raise WorkerStartError(f"worker not ready within {_START_TIMEOUT:g} s")
            message = worker.from_worker.recv()
        except (EOFError, OSError) as err:
            description = worker.exit_description()
            worker.kill()
            raise WorkerStartError(f"worker failed to start: {description}") from err
        if not (isinstance(message, tuple) and message and message[0] == "ready"):
            worker.kill()
            detail = message[1] if isinstance(message, tuple) and len(message) > 1 else message
            raise WorkerStartError(f"worker failed to start: {detail}")

    def _send(self, worker: _Worker, fn: Callable[..., Any], args: tuple[Any, ...]) -> TaskResult | None:
        """Send a task; ``None`` on success, an error result otherwise (worker handled)."""
        try:
            payload = pickle.dumps((fn, tuple(args)), protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as err:
            self._checkin_unused(worker)
            return TaskResult("error", error=f"task could not be pickled: {_describe(err)}")
        try:
            worker.to_worker.send_bytes(payload)
        except OSError:
            description = worker.exit_description()
            self._discard(worker)
            return TaskResult("error", error=description)
        return None

    def _checkin_unused(self, worker: _Worker) -> None:
        worker.tasks -= 1  # _checkin counts a task; this one never ran
        self._checkin(worker)

    def _receive(self, worker: _Worker) -> TaskResult:
        try:
            message = worker.from_worker.recv()
        except (EOFError, OSError):
            description = worker.exit_description()
            self._discard(worker)
            return TaskResult("error", error=description)
        except (pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError) as err:
            self._checkin(worker)
            return TaskResult("error", error=f"result could not be unpickled: {_describe(err)}")
        status, payload = message
        if status == "exit":  # the task raised SystemExit/KeyboardInterrupt; the worker quits
            self._discard(worker)
            return TaskResult("error", error=str(payload))
        self._checkin(worker)
        if status == "ok":
            return TaskResult("ok", value=payload)
        return TaskResult("error", error=str(payload))


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


# -- the worker side ------------------------------------------------------------------------


def _watch_parent(parent: int) -> None:
    """Exit when the parent is gone (re-parented), even in the middle of a task."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _worker_main(read_fd: int, write_fd: int) -> None:
    """Entry point of a worker process: warm up, then run tasks until told to stop."""
    # Ctrl-C in a terminal reaches the whole process group; the parent decides what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    inbox = Connection(read_fd, writable=False)
    outbox = Connection(write_fd, readable=False)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        path, warmup = inbox.recv()
    except (EOFError, OSError):
        return
    sys.path[:] = path
    try:
        for name in warmup:
            importlib.import_module(name)
    except Exception as err:  # noqa: BLE001 - reported to the parent, which refuses the worker
        outbox.send(("error", f"warm-up import failed: {_describe(err)}"))
        return
    outbox.send(("ready", os.getpid()))
    while True:
        try:
            message = inbox.recv()
        except (EOFError, OSError):
            return
        except Exception as err:  # noqa: BLE001 - the task itself could not be unpickled
            outbox.send(("error", f"task could not be unpickled: {_describe(err)}"))
            continue
        if message is None:
            return
        fn, args = message
        stop = False
        try:
            reply: tuple[str, Any] = ("ok", fn(*args))
        except (KeyboardInterrupt, SystemExit) as err:
            reply = ("exit", _describe(err))
            stop = True
        except BaseException as err:  # noqa: BLE001 - every failure becomes the task's result
            reply = ("error", _describe(err))
        try:
            outbox.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as err:
            outbox.send(("error", f"result could not be pickled: {_describe(err)}"))
        if stop:
            return


# -- the process-wide default pool ------------------------------------------------------------
#
# This is the one piece of process-wide mutable state in rapidgrade, on purpose: the
# math-verify compatible ``parse``/``verify`` (and ``grade``) are free functions whose callers
# pass no pool, yet starting worker processes per call would cost about a second each. So each
# process lazily creates one pool on first use and reuses it. It is guarded by a lock (callers
# may be threads), tagged with the pid that created it (a forked child must not talk to its
# parent's workers through inherited pipes, so it builds its own), and closed at interpreter
# exit. Code that wants its own lifetime or size passes an explicit WorkerPool instead.

_default_lock = threading.Lock()
_default_pool: WorkerPool | None = None

#: Modules the default pool's workers import before taking tasks.
DEFAULT_WARMUP = ("sympy", "math_verify", "rapidgrade.fallback", "rapidgrade.compat")


def default_pool() -> WorkerPool:
    """This process's shared pool (created on first use; one worker per core)."""
    global _default_pool
    with _default_lock:
        pool = _default_pool
        if pool is None or pool._pid != os.getpid() or pool._closed:
            pool = WorkerPool(warmup=DEFAULT_WARMUP)
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
