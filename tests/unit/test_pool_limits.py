"""WorkerPool: a call's deadline covers the wait for a worker; a task's memory limit ends the
task, not the batch."""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor

import _pool_tasks as tasks
import pytest

from rapidgrade._pool import TaskResult, WorkerPool, check_timeout

# Slack over a deadline: the scheduler of a machine shared by several test processes.
_SLACK = 0.5


def test_eight_threads_with_one_slow_task_each_return_by_the_deadline() -> None:
    """Without a deadline, 8 slow tasks on 2 workers take 4 rounds of their timeout; with one,
    every call returns at the deadline, the tasks still queued never sent."""
    with WorkerPool(workers=2) as p:
        p.run_many(tasks.square, [(1,), (2,)], timeout=60.0)  # both warm

        def one_call(_: int) -> tuple[float, TaskResult]:
            t0 = time.perf_counter()
            (result,) = p.run_many(tasks.sleep_then_return, [(1, 30.0)], timeout=5.0, deadline=2.0)
            return time.perf_counter() - t0, result

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=8) as executor:
            calls = list(executor.map(one_call, range(8)))
        elapsed = time.perf_counter() - t0
        assert elapsed < 2.0 + _SLACK, elapsed  # up to 4 x 5 s without the deadline
        for seconds, result in calls:
            assert 2.0 - 0.05 <= seconds < 2.0 + _SLACK
            assert result.status == "timeout" and result.error.startswith("deadline: passed ")
        # two tasks had a worker from the start; as each call ended and its worker was freed, a
        # later call may have started its task in the milliseconds left before its own deadline
        whens = [r.error for _, r in calls]
        ran = whens.count("deadline: passed while it ran")
        assert ran >= 2 and whens.count("deadline: passed before a worker took it") == 8 - ran
        # the two running tasks were stopped: the pool serves at once, as after a timeout
        t0 = time.perf_counter()
        assert [r.value for r in p.run_many(tasks.square, [(3,), (4,)], timeout=30.0)] == [9, 16]
        assert time.perf_counter() - t0 < 5.0


def test_a_deadline_longer_than_needed_changes_nothing() -> None:
    args = [(i, 0.05) for i in range(6)]
    with WorkerPool(workers=2) as p:
        plain = p.run_many(tasks.sleep_then_return, args, timeout=10.0)
        bounded = p.run_many(tasks.sleep_then_return, args, timeout=10.0, deadline=60.0)
        mixed = p.run_many(tasks.raise_value_error, [()], timeout=10.0, deadline=60.0)
    assert bounded == plain == [TaskResult("ok", i) for i in range(6)]
    assert mixed == [TaskResult("error", error="ValueError: bad input 7")]


def test_the_deadline_bounds_a_batch_of_many_tasks() -> None:
    with WorkerPool(workers=2) as p:
        p.run_many(tasks.square, [(1,), (2,)], timeout=60.0)
        t0 = time.perf_counter()
        results = p.run_many(tasks.sleep_then_return, [(i, 0.4) for i in range(20)], timeout=5.0, deadline=1.0)
        elapsed = time.perf_counter() - t0
    assert elapsed < 1.0 + _SLACK
    done = [r for r in results if r.ok]
    assert 2 <= len(done) <= 6  # 2 workers, 0.4 s each, 1 s
    assert all(r.status == "timeout" and r.error.startswith("deadline: ") for r in results if not r.ok)
    assert [r.value for r in results[: len(done)]] == list(range(len(done)))  # handed out in order


@pytest.mark.parametrize("bad", [0, -1, -0.5, float("nan"), float("-inf"), -(10**400)])
def test_invalid_deadlines_are_refused_before_any_work(bad: float) -> None:
    with WorkerPool(workers=1) as p:
        with pytest.raises(ValueError, match="deadline"):
            p.run_many(tasks.square, [(1,)], timeout=5.0, deadline=bad)
        assert p.worker_pids() == []


@pytest.mark.parametrize("bad", [0, -1, -0.5, float("nan"), float("-inf"), -(10**400)])
def test_invalid_timeouts_are_refused_as_deadlines_are(bad: float) -> None:
    # one check reads both (a negative integer beyond any float was read as no limit)
    with pytest.raises(ValueError, match="timeout must be > 0 seconds"):
        check_timeout(bad, "f")


@pytest.mark.parametrize("wrong", ["5", True, [5], 1j])
def test_deadlines_of_the_wrong_type_are_refused(wrong: object) -> None:
    with WorkerPool(workers=1) as p, pytest.raises(TypeError, match="deadline"):
        p.run_many(tasks.square, [(1,)], timeout=5.0, deadline=wrong)  # type: ignore[arg-type]


def test_no_deadline_and_huge_deadlines() -> None:
    with WorkerPool(workers=1) as p:
        for deadline in (None, math.inf, 1e12, 10**400):
            result = p.run(tasks.sleep_then_return, (7, 0.05), timeout=5.0, deadline=deadline)  # type: ignore[arg-type]
            assert result == TaskResult("ok", 7)


def test_a_task_past_its_memory_limit_costs_its_worker_not_the_batch() -> None:
    limit = 512 << 20
    with WorkerPool(workers=1) as p:
        first = p.run(tasks.pid, timeout=30.0).value
        results = p.run_many(tasks.allocate_mib, [(32,), (4096,), (64,)], timeout=60.0, memory_limit=limit)
        assert [r.status for r in results] == ["ok", "memory", "ok"]
        assert results[0].value == 32 and results[2].value == 64
        assert results[1].error.startswith("MemoryError")
        after = p.run(tasks.pid, timeout=30.0).value
        assert after != first  # the worker that ran out was replaced
        assert p.stats().killed >= 1
        # the limit was for those tasks only: the next task may use more
        assert p.run(tasks.allocate_mib, (768,), timeout=60.0).value == 768


def test_without_a_memory_limit_the_same_task_succeeds() -> None:
    with WorkerPool(workers=1) as p:
        assert p.run(tasks.allocate_mib, (1024,), timeout=60.0) == TaskResult("ok", 1024)


@pytest.mark.parametrize(
    ("bad", "error"), [(1000, ValueError), (-1, ValueError), (1.5e9, TypeError), (True, TypeError)]
)
def test_invalid_memory_limits_are_refused(bad: object, error: type[Exception]) -> None:
    with WorkerPool(workers=1) as p:
        with pytest.raises(error, match="memory_limit"):
            p.run_many(tasks.square, [(1,)], timeout=5.0, memory_limit=bad)  # type: ignore[arg-type]
        assert p.worker_pids() == []
