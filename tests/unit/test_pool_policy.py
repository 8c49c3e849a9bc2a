"""The worker pool's rules for starting workers and spares (rapidgrade._pool_policy)."""

from __future__ import annotations

import doctest

from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import _pool_policy
from rapidgrade._pool_policy import (
    SPARE_AFTER_SHARE,
    SPARE_MARGIN,
    another_worker_pays,
    spare_due,
    updated_mean,
    work_ahead,
)

_seconds = st.floats(min_value=1e-4, max_value=1e4, allow_nan=False)
_counts = st.integers(min_value=0, max_value=10_000)


def test_examples() -> None:
    assert doctest.testmod(_pool_policy).failed == 0
    # Three fallback pairs of 70 ms do not pay for a second start-up of 2 s; sixty do.
    assert not another_worker_pays(3, 1, work_ahead(3, 0.07, []), 2.0)
    assert another_worker_pays(60, 1, work_ahead(60, 0.07, []), 2.0)
    # With two workers in service the same sixty keep each busy 2.1 s: a third barely pays.
    assert another_worker_pays(60, 2, work_ahead(60, 0.07, []), 2.0)
    assert not another_worker_pays(50, 2, work_ahead(50, 0.07, []), 2.0)
    # One slow task in flight does not make the quick ones behind it slow ...
    assert not another_worker_pays(20, 1, work_ahead(20, 0.01, [0.15]), 1.6)
    # ... but a task that hangs past a start-up gets them another worker, known mean or not.
    assert another_worker_pays(20, 1, work_ahead(20, 0.01, [1.5]), 1.6)
    assert another_worker_pays(1, 1, work_ahead(1, 0.0, [2.0]), 1.6)
    # Nothing known, or nothing waiting: no new worker.
    assert not another_worker_pays(1_000, 1, work_ahead(1_000, 0.0, []), 2.0)
    assert not another_worker_pays(0, 1, work_ahead(0, 0.5, [100.0]), 0.1)


_runs = st.lists(_seconds, max_size=8)


@given(_counts, _seconds, _runs)
def test_work_ahead_adds_the_waiting_and_the_running(waiting: int, mean: float, running: list[float]) -> None:
    work = work_ahead(waiting, mean, running)
    assert work == waiting * mean + sum(running)
    assert work_ahead(waiting + 1, mean, running) >= work
    assert work_ahead(waiting, mean, [*running, 1.0]) > work
    assert work_ahead(waiting, 0.0, []) == 0.0


@given(_counts, st.integers(min_value=1, max_value=64), _seconds, _seconds)
def test_another_worker_pays_exactly_when_the_work_ahead_outlasts_a_start(
    waiting: int, workers: int, work: float, start: float
) -> None:
    assert another_worker_pays(waiting, workers, work, start) == (waiting > 0 and work > workers * start)


@given(st.integers(min_value=1, max_value=10_000), st.integers(min_value=1, max_value=64), _seconds, _seconds)
def test_another_worker_pays_is_monotone(waiting: int, workers: int, work: float, start: float) -> None:
    if another_worker_pays(waiting, workers, work, start):
        # more work ahead, fewer workers or quicker starts pay too
        assert another_worker_pays(waiting, workers, work * 2, start)
        assert another_worker_pays(waiting, max(1, workers - 1), work, start)
        assert another_worker_pays(waiting, workers, work, start / 2)
    else:
        assert not another_worker_pays(waiting, workers + 1, work, start)
        assert not another_worker_pays(waiting, workers, work / 2, start)


@given(_seconds, _seconds, st.floats(min_value=0.0, max_value=1.0))
def test_a_spare_started_when_due_is_warm_at_the_deadline(stop_at: float, start: float, slower: float) -> None:
    # Started at the due moment, a spare whose start-up is up to SPARE_MARGIN times the last one
    # measured is warm by the time the task may be stopped.
    due = spare_due(stop_at, start)
    assert due <= stop_at
    assert due + start * (1.0 + slower * (SPARE_MARGIN - 1.0)) <= stop_at + 1e-9 * max(1.0, stop_at)


@given(_seconds, _seconds, _seconds)
def test_a_spare_is_not_due_before_a_task_has_run_a_while(sent_at: float, limit: float, start: float) -> None:
    stop_at = sent_at + limit
    due = spare_due(stop_at, start, sent_at)
    # never earlier than without the floor, nor before the task has run its share of the limit
    assert due >= spare_due(stop_at, start)
    assert due >= sent_at + SPARE_AFTER_SHARE * limit - 1e-9 * max(1.0, stop_at)
    # where a spare started SPARE_MARGIN start-ups ahead fits after that share, it is due then,
    # and warm by the deadline as before
    if SPARE_MARGIN * start <= (1.0 - SPARE_AFTER_SHARE) * limit:
        assert due == spare_due(stop_at, start)


def test_a_short_limit_does_not_make_quick_tasks_pay_for_a_spare() -> None:
    # a 5 s limit and start-ups of 2.6 s: before, the spare was due at once, before the first
    # task had run; now only after half a second of it
    assert spare_due(5.0, 2.6) < 0.0
    assert spare_due(5.0, 2.6, sent_at=0.0) == 0.5


@given(st.lists(_seconds, min_size=1, max_size=50))
def test_the_running_mean_stays_within_the_times_seen(times: list[float]) -> None:
    mean = 0.0
    for seconds in times:
        mean = updated_mean(mean, seconds)
        assert min(times) * (1 - 1e-12) <= mean <= max(times) * (1 + 1e-12)
    assert updated_mean(0.0, times[0]) == times[0]


def test_the_running_mean_follows_a_change_of_workload() -> None:
    mean = 0.0
    for _ in range(10):
        mean = updated_mean(mean, 0.05)
    for _ in range(20):
        mean = updated_mean(mean, 2.0)
    assert 1.9 < mean <= 2.0  # after a score of slow tasks it estimates them, not the quick ones
