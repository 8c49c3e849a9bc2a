"""How many workers :class:`rapidgrade._pool.WorkerPool` keeps, and when it starts a spare.

A worker costs its start-up once: a fresh interpreter that imports SymPy and math-verify and
builds their parsers spends about 2 CPU seconds before its first task, more than a few dozen
typical fallback pairs take together. Starting every worker a batch could use, and a spare beside
them, made a batch of three fallback pairs cost three start-ups. The pool therefore starts workers
the way a ski renter buys skis:

* **Another worker** starts only when the work ahead would keep the workers already in service
  busy for longer than one start-up takes (:func:`another_worker_pays`). The work ahead is
  estimated from the tasks seen so far (:func:`work_ahead`): the waiting tasks at the running
  mean of finished tasks' times, and each task in flight for as long again as it has already run.
  Before any task has finished or run for a while there is no estimate, and a batch starts with
  one worker. A batch of many slow tasks gets every worker within one start-up and a task's time;
  a task that hangs gets the tasks behind it another worker within one start-up.
* **A spare** starts once a task in flight may be stopped at its deadline before a replacement
  could be warm (:func:`spare_due`): from then on the pool keeps one in reserve, and the next
  task after a kill does not wait for a restart. A task is not near its deadline before it has
  run for a share of its time limit (:data:`SPARE_AFTER_SHARE`), even where two start-ups
  outlast the limit (a 5 s limit, start-ups of 2.5 s on a loaded machine): batches of quick
  tasks never pay for a spare.

The rules are pure functions of the pool's figures, so that they can be tested apart from the
processes.
"""

from __future__ import annotations

from collections.abc import Iterable

#: A spare is asked for this many start-up times before a task's deadline (the margin covers a
#: start-up that is slower than the last one measured, on a loaded machine).
SPARE_MARGIN = 2.0

#: The share of its time limit a task runs before a spare may be due: quick tasks (the fallback's
#: take milliseconds) end before it, and a spare started then is still warm by the deadline unless
#: a start-up takes most of the limit.
SPARE_AFTER_SHARE = 0.1

#: Weight of the newest task's time in the running mean of task times.
MEAN_WEIGHT = 0.2


def work_ahead(waiting: int, task_mean: float, running: Iterable[float]) -> float:
    """Seconds of work before the last waiting task ends, all workers together: *waiting* tasks
    at *task_mean* seconds each, and each task in flight for as long again as it has *running*.

    >>> work_ahead(20, 0.01, [0.15])
    0.35
    """
    return max(0, waiting) * max(0.0, task_mean) + sum(max(0.0, r) for r in running)


def another_worker_pays(waiting: int, workers: int, work_seconds: float, start_seconds: float) -> bool:
    """Whether starting one more worker saves more time than it costs.

    Args:
        waiting: Tasks not yet handed to a worker (with none, a new worker would have nothing
            to take).
        workers: Workers in service (starting, idle or busy).
        work_seconds: The work ahead (:func:`work_ahead`).
        start_seconds: The time one worker takes to start and warm up.

    The work ahead spread over the workers in service must exceed one start-up: then the new
    worker is warm while tasks still wait, and it takes a share of them.

    >>> another_worker_pays(3, 1, work_ahead(3, 0.07, []), 2.0)
    False
    >>> another_worker_pays(60, 1, work_ahead(60, 0.07, []), 2.0)
    True
    """
    return waiting > 0 and work_seconds > max(1, workers) * start_seconds


def spare_due(stop_at: float, start_seconds: float, sent_at: float | None = None) -> float:
    """The moment (same clock as *stop_at*) from which a spare should be starting.

    *stop_at* is the earliest moment a task in flight may be stopped at its deadline, and
    *sent_at* the moment that task was sent. A spare started :data:`SPARE_MARGIN` start-ups
    before *stop_at* is warm when the task's worker is killed; it is not due before the task has
    run for :data:`SPARE_AFTER_SHARE` of its time (*sent_at* ``None``: no such floor).

    >>> spare_due(10.0, 2.0)
    6.0
    >>> spare_due(5.0, 2.5, sent_at=0.0)  # two start-ups outlast the limit: due after 0.5 s
    0.5
    """
    due = stop_at - SPARE_MARGIN * start_seconds
    if sent_at is not None and stop_at > sent_at:
        due = max(due, sent_at + SPARE_AFTER_SHARE * (stop_at - sent_at))
    return due


def updated_mean(mean: float, seconds: float) -> float:
    """The running mean of task times after one more task took *seconds* (*mean* 0: none yet).

    >>> updated_mean(0.0, 1.0), updated_mean(1.0, 2.0)
    (1.0, 1.2)
    """
    if mean <= 0.0:
        return seconds
    return mean + MEAN_WEIGHT * (seconds - mean)
