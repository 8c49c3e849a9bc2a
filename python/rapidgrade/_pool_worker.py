"""One worker process of :mod:`rapidgrade._pool`, seen from both ends.

The parent's end is :class:`_Worker`: the process, the parent's ends of its two pipes, the
operations on them that are safe to repeat and race (kill and reap, signal, ask to stop, say how
the process died), and the fields the pool keeps about the worker (its state, the batch that
holds it, its warm-up steps). The worker's end is :func:`_worker_main`, the entry point of every
worker process: it takes the parent's ``sys.path``, then runs warm-up steps and tasks on its main
thread until told to stop, turns the cancel signal into an exception inside a task past its
deadline, and exits when the parent process disappears. Scheduling, deadlines and the supervisor
thread are the pool's (:mod:`rapidgrade._pool`, whose docstring describes the whole design).
The records the pool hands its callers, :class:`TaskResult` and :class:`PoolStats`, are defined
here and re-exported by :mod:`rapidgrade._pool`.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, Literal

#: A warm-up step: the name of a module to import, or a module-level function (importable by
#: name in the workers) to call once with no arguments.
WarmupStep = str | Callable[[], object]

#: Longest error text kept in a result (messages of SymPy errors can be huge).
_MAX_ERROR_CHARS = 500
#: The signal that asks a worker to abandon its task (handled only inside workers).
_CANCEL_SIGNAL = signal.SIGUSR1

TaskStatus = Literal["ok", "timeout", "error", "memory"]

_State = Literal["starting", "idle", "busy", "cancelling", "stopping", "dying"]


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _MAX_ERROR_CHARS:
        text = text[: _MAX_ERROR_CHARS - 3] + "..."
    return text


def _describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception as err:
        message = f"<message unavailable: {type(err).__name__}>"
    return _one_line(f"{type(exc).__name__}: {message}" if message else type(exc).__name__)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """What became of one task.

    ``status`` is ``"ok"`` (``value`` holds the return value), ``"timeout"`` (the task's
    timeout or its batch's deadline passed and the worker was asked to stop, or killed;
    ``error`` says which, a batch deadline's starting with ``"deadline: "``), ``"memory"`` (the
    task ran out of its memory limit, see :meth:`WorkerPool.run_many`; its worker was replaced)
    or ``"error"`` (``error`` says what went wrong: the exception raised by the task as
    ``"TypeName: message"``, a worker that died, an argument or result that could not be
    pickled).

    ``seconds`` is how long the task ran: from the moment it was handed to a warm worker to its
    result (or to its deadline). ``waited`` is how long it waited before that, from the start of
    its batch. Both are measurements, left out of comparisons.
    """

    status: TaskStatus
    value: Any = None
    error: str = ""
    seconds: float = field(default=0.0, compare=False, repr=False)
    waited: float = field(default=0.0, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """``True`` when the task returned normally."""
        return self.status == "ok"


@dataclass(frozen=True, slots=True)
class PoolStats:
    """Counters of a pool's life so far (see :meth:`WorkerPool.stats`).

    ``started``: workers that became ready (warm). ``killed``: workers killed because a task
    ran out of time and did not stop when asked, its batch was interrupted, or it died.
    ``cancelled``: tasks past their deadline that stopped when asked (their workers were kept).
    ``start_seconds_max`` and ``start_seconds_last``: time from launching a worker to its being
    warm.
    """

    started: int = 0
    killed: int = 0
    cancelled: int = 0
    start_seconds_max: float = 0.0
    start_seconds_last: float = 0.0


class WorkerStartError(RuntimeError):
    """A worker process failed to start (or to run its warm-up steps) in time."""


class _Batch:
    """Marks the workers one ``run_many`` call holds (compared by identity)."""

    __slots__ = ("demand", "unsent")

    def __init__(self) -> None:
        self.demand = 0  # tasks of the batch
        self.unsent = 0  # of those, not yet handed to a worker


class _Worker:
    """One worker process, the parent's ends of its two pipes and its place in the pool.

    ``state``, ``owner``, ``steps`` and the ``warm_*`` fields belong to the pool and change only
    under the pool's lock; the process and pipes are guarded by the worker's own lock.
    """

    __slots__ = (
        "_closed", "_lock", "from_worker", "launched", "owner", "pid", "process", "signalled",
        "since", "state", "steps", "tasks", "to_worker", "warm_sent", "warm_target", "warmed",
    )  # fmt: skip

    def __init__(self, process: subprocess.Popen[bytes], to_worker: Connection, from_worker: Connection) -> None:
        self.process = process
        self.to_worker = to_worker
        self.from_worker = from_worker
        self.pid = process.pid
        self.tasks = 0
        self.state: _State = "starting"
        self.owner: _Batch | None = None
        self.steps = 0  # how many of the pool's warm-up steps this worker has run
        self.warm_target = 0  # how many it will have run once its pending warm-up is done
        self.warm_sent = False  # a warm-up request is on its way; waiting for "ready"
        self.warmed = False  # has been ready once
        self.since = time.monotonic()  # when the current state (or warm-up) began
        self.launched = self.since
        self.signalled = False
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
            if self.process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
            # stuck in uninterruptible sleep: the OS reaps it once the parent exits
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5.0)
            self._close_pipes()

    def reap(self) -> bool:
        """Close the pipes once the process has exited; ``True`` when done. Never blocks."""
        with self._lock:
            if self._closed:
                return True
            if self.process.poll() is None:
                return False
            self._closed = True
            self._close_pipes()
            return True

    def abandon(self) -> None:
        """Close the pipes without waiting (a killed process stuck in uninterruptible sleep)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._close_pipes()

    def _close_pipes(self) -> None:
        self.to_worker.close()
        self.from_worker.close()

    def send_signal(self, signum: int) -> None:
        with self._lock:
            if not self._closed and self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.process.send_signal(signum)

    def signal_kill(self) -> None:
        """Send SIGKILL only (never blocks). Whoever retires the worker reaps it."""
        with self._lock:
            if self._closed or self.process.returncode is not None:
                return
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    def ask_to_stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.to_worker.send(None)

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


# -- the worker side ------------------------------------------------------------------------


def _watch_parent(parent: int) -> None:
    """Exit when the parent is gone (re-parented), even in the middle of a task."""
    # The cancel signal must reach the main thread (interrupting its system calls), not this one.
    signal.pthread_sigmask(signal.SIG_BLOCK, {_CANCEL_SIGNAL})
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


class _Cancelled(BaseException):
    """Raised inside a task whose deadline passed (a BaseException: ``except Exception`` in the
    task does not swallow it)."""


def _checkpoint() -> None:
    """A Python call: pending signal handlers run at its entry (before a task starts)."""


def _run_steps(steps: Sequence[WarmupStep]) -> None:
    for step in steps:
        if isinstance(step, str):
            importlib.import_module(step)
        else:
            step()


def _limit_memory(limit: int | None) -> tuple[int, int] | None:
    """Cap this process's address space at *limit* bytes for one task; the limits to restore
    after it (``None``: nothing was changed, no limit asked or none can be set here).

    Allocations past the cap fail with ``MemoryError`` in the task, instead of growing the worker
    until the OS kills something. The cap is lowered only (never above the hard limit).
    """
    if limit is None:
        return None
    try:
        before = resource.getrlimit(resource.RLIMIT_AS)
        hard = before[1]
        soft = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ValueError, OSError):  # a platform without RLIMIT_AS (macOS refuses some values)
        return None
    return before


def _restore_memory(before: tuple[int, int] | None) -> None:
    if before is not None:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, before)


def _worker_main(read_fd: int, write_fd: int) -> None:
    """Entry point of a worker process: run warm-ups and tasks until told to stop.

    Messages in: the parent's ``sys.path`` (first), ``("warm", steps)``, ``("task", fn, args,
    memory_limit)``, ``None`` (exit). Out: ``("ready", pid)`` after a warm-up, ``(status,
    payload)`` per task. A task run under a memory limit that raises ``MemoryError`` answers
    ``("memory", message)`` and the worker exits (the pool starts a fresh one): whatever the
    task's libraries were doing when an allocation failed is not trusted with the next task.
    """
    # Ctrl-C in a terminal reaches the whole process group; the parent decides what to do.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    running = [False]  # a task is running: the cancel signal may interrupt it

    def cancel(signum: int, frame: object) -> None:
        if running[0]:
            running[0] = False
            raise _Cancelled

    signal.signal(_CANCEL_SIGNAL, cancel)
    inbox = Connection(read_fd, writable=False)
    outbox = Connection(write_fd, readable=False)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {_CANCEL_SIGNAL})  # this thread only
    try:
        sys.path[:] = inbox.recv()
    except (EOFError, OSError):
        return
    while True:
        try:
            message = inbox.recv()
        except (EOFError, OSError):
            return
        except Exception as err:
            outbox.send(("error", f"task could not be unpickled: {_describe(err)}"))
            continue
        if message is None:
            return
        if message[0] == "warm":
            try:
                _run_steps(message[1])
            except BaseException as err:
                outbox.send(("error", f"warm-up failed: {_describe(err)}"))
                return
            outbox.send(("ready", os.getpid()))
            continue
        fn, args = message[1], message[2]
        memory_limit = message[3] if len(message) > 3 else None
        stop = False
        _checkpoint()  # a cancel signal meant for the previous task is handled (ignored) here
        limits = _limit_memory(memory_limit)
        try:
            running[0] = True
            value = fn(*args)
            running[0] = False
            reply: tuple[str, Any] = ("ok", value)
        except _Cancelled:
            reply = ("cancelled", "")
        except (KeyboardInterrupt, SystemExit) as err:
            reply = ("exit", _describe(err))
            stop = True
        except MemoryError as err:
            _restore_memory(limits)  # room to describe the error and answer
            if limits is not None:
                reply = ("memory", _describe(err))
                stop = True
            else:  # no cap was set: an allocation too large to try (bytes(1 << 62)), nothing held
                reply = ("error", _describe(err))
        except BaseException as err:
            reply = ("error", _describe(err))
        finally:
            running[0] = False
            _restore_memory(limits)
        try:
            outbox.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as err:
            outbox.send(("error", f"result could not be pickled: {_describe(err)}"))
        if stop:
            return
