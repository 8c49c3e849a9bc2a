"""A fallback worker that dies while idle (the OOM killer, a stray SIGKILL) costs no task its
verdict: the pool notices it before handing it a task, and a task whose worker dies under it
runs once more on a fresh worker."""

from __future__ import annotations

import os
import signal
import threading
import time

from rapidgrade._pool import WorkerPool
from tests.unit import _pool_tasks as tasks


def test_worker_killed_while_idle_is_replaced_before_the_next_task() -> None:
    with WorkerPool(workers=1) as pool:
        (first,) = pool.run_many(tasks.pid, [()], timeout=10.0)
        assert first.status == "ok"
        os.kill(first.value, signal.SIGKILL)
        time.sleep(0.2)  # the worker is gone, still listed as idle
        results = pool.run_many(tasks.square, [(3,), (4,)], timeout=10.0)
        assert [(r.status, r.value) for r in results] == [("ok", 9), ("ok", 16)]
        (after,) = pool.run_many(tasks.pid, [()], timeout=10.0)
        assert after.value != first.value


def test_task_whose_worker_dies_under_it_runs_once_more() -> None:
    """The worker dies after taking the task (here: killed from outside while the task
    sleeps): the task is run again on a fresh worker, once."""
    with WorkerPool(workers=1) as pool:
        (warm,) = pool.run_many(tasks.pid, [()], timeout=10.0)
        killer = threading.Timer(0.5, os.kill, (warm.value, signal.SIGKILL))
        killer.start()
        results = pool.run_many(tasks.sleep_then_return, [(7, 1.0)], timeout=20.0)
        killer.join()
        assert [(r.status, r.value) for r in results] == [("ok", 7)]


def test_a_task_that_kills_every_worker_is_an_error_after_one_retry() -> None:
    with WorkerPool(workers=1) as pool:
        (result,) = pool.run_many(tasks.segfault, [()], timeout=10.0)
        assert result.status == "error" and "died" in result.error
        assert pool.stats().killed >= 2  # its first worker and the fresh one
        (after,) = pool.run_many(tasks.square, [(5,)], timeout=10.0)
        assert after.value == 25
