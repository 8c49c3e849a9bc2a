"""Task functions for the worker-pool tests (module level, so worker processes can import them)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path


def square(x: int) -> int:
    return x * x


def sleep_then_return(value: int, seconds: float) -> int:
    time.sleep(seconds)
    return value


def pid() -> int:
    return os.getpid()


def sleep_then_pid(seconds: float) -> tuple[int, float, float]:
    """Sleep; return the pid and the wall-clock start and end (comparable across processes)."""
    start = time.time()
    time.sleep(seconds)
    return os.getpid(), start, time.time()


def record_pid_and_hang(path: str) -> None:
    Path(path).write_text(str(os.getpid()))
    while True:
        time.sleep(1.0)


def segfault() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)
    time.sleep(10.0)


def raise_value_error() -> None:
    raise ValueError("bad input 7")


def raise_memory_error() -> bytes:
    return bytes(1 << 62)  # MemoryError at once, nothing allocated


def exit_worker() -> None:
    raise SystemExit(3)


def return_unpicklable() -> object:
    return lambda: None


def alarm_state() -> tuple[str, int]:
    """What a task sees of SIGALRM in its worker: handler name and pending alarm."""
    handler = signal.getsignal(signal.SIGALRM)
    remaining = signal.alarm(0)
    return getattr(handler, "__name__", str(handler)), remaining


def use_pool_from_daemonic_worker(x: int) -> tuple[bool, int]:
    """Run inside a multiprocessing.Pool worker (daemonic): start a rapidgrade pool there."""
    import multiprocessing

    from rapidgrade._pool import WorkerPool

    daemonic = multiprocessing.current_process().daemon
    with WorkerPool(workers=1) as pool:
        result = pool.run(square, (x,), timeout=30.0)
    return daemonic, result.value


def slow_warm_up() -> None:
    """A warm-up step that takes a while (stands in for real parses in a fresh interpreter)."""
    time.sleep(1.5)


def record_warm_up() -> None:
    """A warm-up step that leaves a trace the tasks can see."""
    os.environ["POOL_TEST_WARMED"] = os.environ.get("POOL_TEST_WARMED", "") + "x"


def warmed() -> str:
    return os.environ.get("POOL_TEST_WARMED", "")


def failing_warm_up() -> None:
    raise RuntimeError("warm-up broke on purpose")


def fail_once_warm_up() -> None:
    """Fails the first time it runs in any worker (a marker file at $POOL_TEST_FAIL_ONCE)."""
    path = os.environ["POOL_TEST_FAIL_ONCE"]
    if not os.path.exists(path):
        with open(path, "w"):
            pass
        raise RuntimeError("the first warm-up fails on purpose")


def hang_ignoring_cancel(path: str) -> None:
    """Hang and swallow the pool's request to stop (as C code that never returns would)."""
    Path(path).write_text(str(os.getpid()))
    while True:
        with contextlib.suppress(BaseException):
            time.sleep(1.0)


def allocate_mib(mib: int) -> int:
    """Hold *mib* MiB at once, 16 MiB at a time (a task whose memory grows), and return it."""
    held = [bytearray(16 << 20) for _ in range(max(1, mib // 16))]
    return sum(len(block) for block in held) >> 20
