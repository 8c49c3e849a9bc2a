r"""Async grading that batches itself: :func:`grade_async` and the :class:`Batcher` behind it.

An RL trainer's event loop awaits one sample at a time (verl's Reward Loop, slime, a reward
server's requests). Graded one by one, each pair pays the whole per-call cost of
:func:`~rapidgrade.grade`; graded together, a batch runs at :func:`~rapidgrade.grade_many`'s
speed. A :class:`Batcher` collects the pairs that concurrent awaits submit within a short
*window* (default 1 ms), or until *max_batch* are pending, and grades them with one
``grade_many`` call in a worker thread, off the event loop; each awaiting caller gets its own
result.

* The event loop is never blocked by grading: the C++ core runs with the GIL released in the
  worker thread, and the loop only appends to a list per call and sets one future per result.
* Cancelling one awaiting task cancels its future only: the batch it joined is graded for the
  others, and a batch whose callers were all cancelled is not graded at all.
* An exception in one pair does not fail its batch: the batch is graded again pair by pair, and
  only the pair that fails gets the failure (for :func:`grade_async`, a verdict with
  ``decided_by="error"`` whose reason names the exception).
* Under load, batches grow by themselves: at most *max_in_flight* batches are graded at once,
  and pairs that arrive meanwhile wait for the next one.

State: :func:`grade_async` and the async reward functions
(:mod:`rapidgrade.integrations.aio`) share **one batcher per event loop**, created on first use
with the default :class:`BatchConfig` and kept in a ``WeakKeyDictionary`` keyed by the loop (it
goes when its loop goes). That is the only module-level mutable state; pass ``batcher=`` to use
one of your own (another window, another batch size) instead.

>>> import asyncio
>>> async def main():
...     golds, responses = ["2", "1/2", "3"], [r"so \boxed{2}", "It is 0.5.", r"\boxed{4}"]
...     verdicts = await asyncio.gather(*(grade_async(g, r) for g, r in zip(golds, responses)))
...     return [v.correct for v in verdicts]
>>> asyncio.run(main())
[True, True, False]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import weakref
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from rapidgrade.config import UNSET, GradeConfig, Unset, check_threads
from rapidgrade.grade import grade_many
from rapidgrade.verdict import DECIDERS, GradeResults, Verdict

__all__ = ["BatchConfig", "Batched", "Batcher", "GradeJob", "Job", "get_batcher", "grade_async", "verdicts_of"]

_T = TypeVar("_T")

_running_loop = asyncio.get_running_loop

#: Results handed out per loop callback (see Batcher._hand_out).
_SLICE = 256

#: The tasks :func:`grade_async` grades (those of :func:`~rapidgrade.grade_many`).
TASKS = ("math", "physics")

#: Verdict's fields, each with the setter of its slot (see :func:`verdicts_of`).
_VERDICT_FIELDS = tuple(f.name for f in dataclasses.fields(Verdict))
_VERDICT_SETTERS = tuple(getattr(Verdict, name).__set__ for name in _VERDICT_FIELDS)
# A Verdict is built by filling its slots when its constructor only stores its fields (no
# __post_init__, the slots are exactly the fields); otherwise by its constructor.
_FILL_SLOTS = not hasattr(Verdict, "__post_init__") and tuple(getattr(Verdict, "__slots__", ())) == _VERDICT_FIELDS


def verdicts_of(results: GradeResults) -> list[Verdict]:
    """The verdicts of *results* as a list, built from its columns (each column decoded once,
    then one object per row with its slots filled): what ``list(results)`` gives, at a third less
    Python time per verdict, and without ``GradeResults.__iter__``'s per-block slicing (about
    20 us for a batch of one). It runs in the batcher's worker thread, holding the GIL: the less
    it takes, the less the event loop waits."""
    columns = (
        results.correct.tolist(),
        [DECIDERS[code] for code in results.decided_by_codes.tolist()],
        [gold or "" for gold in results.gold],
        results.extracted,
        results.method,
        [reason or "" for reason in results.reason],
    )
    if not _FILL_SLOTS:
        return list(map(Verdict, *columns))
    new = object.__new__
    set_correct, set_decided, set_gold, set_extracted, set_method, set_reason = _VERDICT_SETTERS
    out: list[Verdict] = []
    append = out.append
    for correct, decided, gold, extracted, method, reason in zip(*columns):
        verdict = new(Verdict)
        set_correct(verdict, correct)
        set_decided(verdict, decided)
        set_gold(verdict, gold)
        set_extracted(verdict, extracted)
        set_method(verdict, method)
        set_reason(verdict, reason)
        append(verdict)
    return out


@dataclass(frozen=True, slots=True)
class BatchConfig:
    """How a :class:`Batcher` forms batches.

    Attributes:
        window: Seconds a batch waits for more pairs after its first one (default 1 ms). A pair
            never waits longer than this before its batch starts (unless *max_in_flight*
            batches are being graded, and then it joins the next one).
        max_batch: A batch starts at once when this many pairs are pending; larger bursts are
            graded in batches of this size.
        max_in_flight: Batches graded at the same time (each in its own worker thread).
        threads: C++ threads of each ``grade_many`` call (default 1: batches of a few thousand
            pairs take less time than starting threads; ``max_in_flight`` batches run in
            parallel; ``None``: all cores).
    """

    window: float = 0.001
    max_batch: int = 2048
    max_in_flight: int = 4
    threads: int | None = 1

    def __post_init__(self) -> None:
        where = "BatchConfig"
        if isinstance(self.window, bool) or not isinstance(self.window, (int, float)):
            raise TypeError(f"{where}: window must be a number of seconds, got {type(self.window).__name__}")
        if not 0 <= self.window <= 60:
            raise ValueError(f"{where}: window must be in [0, 60] seconds, got {self.window!r}")
        for name in ("max_batch", "max_in_flight"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__}")
            if value < 1:
                raise ValueError(f"{where}: {name} must be >= 1, got {value!r}")
        check_threads(where, self.threads)


class Job(Generic[_T]):
    """What a batch of items is graded with: equal jobs share batches, so a job must be hashable
    and compare equal to the jobs whose items it can grade in the same call (a frozen dataclass
    of its options). Subclasses define :meth:`run` and may define :meth:`failed`; a job whose
    items hold several pairs each sets :attr:`sized` and defines :meth:`size`."""

    __slots__ = ()

    #: Whether items differ in size (then ``max_batch`` counts :meth:`size`, not items).
    sized: ClassVar[bool] = False

    def size(self, item: Any) -> int:
        """The pairs in *item* (for a :attr:`sized` job)."""
        return 1

    def run(self, items: list[Any], threads: int | None = None) -> Sequence[_T]:
        """The results of *items*, one each, in order (called in a worker thread, with the
        batcher's C++ *threads*)."""
        raise NotImplementedError

    def failed(self, item: Any, error: BaseException) -> _T:
        """The result of an *item* whose own grading raised *error* (default: raise it to the
        item's caller)."""
        raise error


@dataclass(frozen=True, slots=True)
class GradeJob(Job[Verdict]):
    """:func:`~rapidgrade.grade_many` with *config* and *task* on ``(gold, response)`` items."""

    config: GradeConfig = field(default_factory=GradeConfig)
    task: str = "math"

    def run(self, items: list[Any], threads: int | None = None) -> Sequence[Verdict]:
        golds = [gold for gold, _ in items]
        responses = [response for _, response in items]
        return verdicts_of(grade_many(golds, responses, config=self.config, task=self.task, threads=threads))

    def failed(self, item: Any, error: BaseException) -> Verdict:
        gold = item[0] if isinstance(item[0], str) else repr(item[0])[:200]
        return Verdict(False, "error", gold, None, None, f"{type(error).__name__}: {error}")


@dataclass(frozen=True, slots=True)
class Batched(Job[list[Any]]):
    """Items that are lists of *job*'s items (the pairs of one request): the lists submitted
    together are graded in one call of *job*, and each item's result is the list of its pairs'
    results. ``max_batch`` counts pairs.

    >>> import asyncio
    >>> async def main():
    ...     batcher = Batcher()
    ...     try:
    ...         job = Batched(GradeJob())
    ...         first, second = batcher.submit_many(job, [[("1", "so 1"), ("2", "so 3")], [("4", "It is 4")]])
    ...         return [[v.correct for v in await f] for f in (first, second)], batcher.batches
    ...     finally:
    ...         await batcher.aclose()
    >>> asyncio.run(main())
    ([[True, False], [True]], 1)
    """

    job: Job[Any]
    sized: ClassVar[bool] = True

    def size(self, item: Any) -> int:
        return len(item)

    def run(self, items: list[Any], threads: int | None = None) -> Sequence[list[Any]]:
        flat = [pair for item in items for pair in item]
        results = list(self.job.run(flat, threads))
        if len(results) != len(flat):
            raise RuntimeError(f"{type(self.job).__name__}.run returned {len(results)} results for {len(flat)} items")
        out: list[list[Any]] = []
        start = 0
        for item in items:
            out.append(results[start : start + len(item)])
            start += len(item)
        return out


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


def _run(job: Job[Any], items: list[Any], threads: int | None) -> list[Any]:
    """The results of *items* (in a worker thread): one call for all, else one per item, where
    an item that fails by itself gets ``job.failed`` (or its exception, to raise to its caller)."""
    try:
        results = list(job.run(items, threads))
        if len(results) != len(items):
            raise RuntimeError(f"{type(job).__name__}.run returned {len(results)} results for {len(items)} items")
        return results
    except Exception:
        if len(items) == 1:
            return _run_one(job, items[0], threads)
        out: list[Any] = []
        for item in items:
            out.extend(_run_one(job, item, threads))
        return out


def _run_one(job: Job[Any], item: Any, threads: int | None) -> list[Any]:
    try:
        results = list(job.run([item], threads))
        if len(results) != 1:
            raise RuntimeError(f"{type(job).__name__}.run returned {len(results)} results for 1 item")
        return results
    except Exception as error:
        try:
            return [job.failed(item, error)]
        except Exception as raised:
            return [_Failure(raised)]


@dataclass(slots=True)
class _Queue:
    items: list[Any] = field(default_factory=list)
    futures: list[asyncio.Future[Any]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # of a sized job's items
    weight: int = 0  # pairs pending
    timer: asyncio.TimerHandle | None = None
    due: bool = False


class Batcher:
    """Collects items submitted on one event loop and grades them in batches, off the loop.

    >>> import asyncio
    >>> async def main():
    ...     batcher = Batcher(BatchConfig(window=0.002))
    ...     try:
    ...         futures = batcher.submit_many(GradeJob(), [("2", "so 2"), ("3", "so 4")])
    ...         return [v.correct for v in await asyncio.gather(*futures)], batcher.batches
    ...     finally:
    ...         await batcher.aclose()
    >>> asyncio.run(main())
    ([True, False], 1)

    A batcher belongs to the loop that first submits to it; the worker threads are its own
    (:meth:`aclose` stops them).
    """

    def __init__(self, config: BatchConfig | None = None) -> None:
        self.config = BatchConfig() if config is None else config
        if not isinstance(self.config, BatchConfig):
            raise TypeError(f"Batcher: config must be a BatchConfig, got {type(self.config).__name__}")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queues: dict[Hashable, _Queue] = {}
        self._last_job: Any = None  # the job of the last submit and its queue
        self._last_queue: Any = None
        self._in_flight = 0
        self._delivering = 0  # batches whose results are being handed out
        self._idle: asyncio.Event | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._closed = False
        #: Batches graded so far, and items in them (for monitoring and tests).
        self.batches = 0
        self.items = 0

    # -- submitting -------------------------------------------------------------------------

    def submit(self, job: Job[_T], item: Any) -> asyncio.Future[_T]:
        """A future of *item*'s result; the item joins the pending batch of *job*. Must be
        called from the batcher's event loop."""
        # The hot path of grade_async, once per pair: the checks of _bind inline, and _schedule
        # only when a timer is to be started or a batch is full.
        loop = self._loop
        if loop is None or self._closed or loop is not _running_loop():
            loop = self._bind()
        future: asyncio.Future[_T] = loop.create_future()
        if job is self._last_job:  # the same job object as the last call: no hashing
            queue = self._last_queue
        else:
            queue = self._queues.get(job)
            if queue is None:
                queue = self._queues[job] = _Queue()
            self._last_job, self._last_queue = job, queue
        queue.items.append(item)
        queue.futures.append(future)
        if job.sized:
            size = job.size(item)
            queue.sizes.append(size)
            queue.weight += size
        else:
            queue.weight += 1
        if queue.timer is None or queue.weight >= self.config.max_batch:
            self._schedule(job, queue, loop)
        return future

    def submit_many(self, job: Job[_T], items: Sequence[Any]) -> list[asyncio.Future[_T]]:
        """:meth:`submit` for each of *items* (they may be split over batches)."""
        loop = self._bind()
        futures: list[asyncio.Future[_T]] = [loop.create_future() for _ in items]
        if not futures:
            return futures
        queue = self._queues.get(job)
        if queue is None:
            queue = self._queues[job] = _Queue()
        queue.items.extend(items)
        queue.futures.extend(futures)
        if job.sized:
            sizes = [job.size(item) for item in items]
            queue.sizes.extend(sizes)
            queue.weight += sum(sizes)
        else:
            queue.weight += len(items)
        self._schedule(job, queue, loop)
        return futures

    def _bind(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop = loop
        elif self._loop is not loop:
            raise RuntimeError("Batcher: used from another event loop than the one it belongs to")
        if self._closed:
            raise RuntimeError("Batcher: closed")
        return loop

    def _schedule(self, job: Hashable, queue: _Queue, loop: asyncio.AbstractEventLoop) -> None:
        if queue.weight >= self.config.max_batch:
            queue.due = True
            if queue.timer is not None:
                queue.timer.cancel()
                queue.timer = None
            self._pump()
        elif queue.timer is None and not queue.due:
            queue.timer = loop.call_later(self.config.window, self._on_timer, job)

    def _on_timer(self, job: Hashable) -> None:
        queue = self._queues.get(job)
        if queue is not None:
            queue.timer = None
            queue.due = True
            self._pump()

    # -- grading ----------------------------------------------------------------------------

    def _pump(self) -> None:
        """Start the batches that are due, while fewer than max_in_flight are running."""
        for job in list(self._queues):
            if self._in_flight >= self.config.max_in_flight:
                return
            queue = self._queues[job]
            while queue.due and queue.items and self._in_flight < self.config.max_in_flight:
                self._launch(job, queue)
            if not queue.items:
                if queue.timer is not None:
                    queue.timer.cancel()
                del self._queues[job]
                if job is self._last_job:
                    self._last_job = self._last_queue = None

    def _launch(self, job: Any, queue: _Queue) -> None:
        size = self.config.max_batch
        if job.sized:  # as many items as fit in max_batch pairs, at least one
            total, count = 0, 0
            while count < len(queue.sizes) and total < size:
                total += queue.sizes[count]
                count += 1
            size = max(1, count)
            queue.weight -= sum(queue.sizes[:size])
            del queue.sizes[:size]
        else:
            queue.weight -= min(size, len(queue.items))
        items, futures = queue.items[:size], queue.futures[:size]
        del queue.items[:size], queue.futures[:size]
        live = [k for k, f in enumerate(futures) if not f.done()]  # skip cancelled callers
        if not live:
            return
        if len(live) < len(futures):
            items, futures = [items[k] for k in live], [futures[k] for k in live]
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=self.config.max_in_flight, thread_name_prefix="rapidgrade-batch"
            )
        assert self._loop is not None
        self._in_flight += 1
        self.batches += 1
        self.items += len(items)
        done = asyncio.wrap_future(self._executor.submit(_run, job, items, self.config.threads), loop=self._loop)
        done.add_done_callback(lambda d: self._deliver(futures, d))

    def _deliver(self, futures: list[asyncio.Future[Any]], done: asyncio.Future[list[Any]]) -> None:
        self._in_flight -= 1
        if done.cancelled():
            results: list[Any] = [_Failure(asyncio.CancelledError())] * len(futures)
        elif done.exception() is not None:
            error = done.exception()
            assert error is not None
            results = [_Failure(error)] * len(futures)
        else:
            results = done.result()
        self._pump()  # the next batch is graded while this one's results are handed out
        self._delivering += 1
        self._hand_out(futures, results, 0)

    def _hand_out(self, futures: list[asyncio.Future[Any]], results: list[Any], start: int) -> None:
        """Set the results of futures[start:start + _SLICE], then schedule the rest: each slice
        wakes its callers in the next loop iteration, so that other callbacks run in between."""
        end = min(len(futures), start + _SLICE)
        for k in range(start, end):
            future, result = futures[k], results[k]
            if future.done():
                continue
            if isinstance(result, _Failure):
                future.set_exception(result.error)
            else:
                future.set_result(result)
        if end < len(futures):
            assert self._loop is not None
            self._loop.call_soon(self._hand_out, futures, results, end)
            return
        self._delivering -= 1
        if self._idle is not None and not (self._in_flight or self._queues or self._delivering):
            self._idle.set()

    # -- draining ---------------------------------------------------------------------------

    async def drain(self) -> None:
        """Wait until every submitted item is graded (pending batches start now)."""
        if self._loop is None:
            return
        for queue in self._queues.values():
            queue.due = True
        self._pump()
        while self._in_flight or self._queues or self._delivering:
            if self._idle is None:
                self._idle = asyncio.Event()
            self._idle.clear()
            await self._idle.wait()

    async def aclose(self) -> None:
        """:meth:`drain`, then stop the worker threads; the batcher accepts nothing more."""
        await self.drain()
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None

    @property
    def pending(self) -> int:
        """Items submitted and not yet started."""
        return sum(len(q.items) for q in self._queues.values())

    @property
    def in_flight(self) -> int:
        """Batches being graded now."""
        return self._in_flight


# One batcher per event loop (the module's only mutable state; see the module's description).
_BATCHERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Batcher] = weakref.WeakKeyDictionary()


def get_batcher() -> Batcher:
    """The running event loop's shared :class:`Batcher` (created on first use, with the default
    :class:`BatchConfig`)."""
    loop = asyncio.get_running_loop()
    batcher = _BATCHERS.get(loop)
    if batcher is None or batcher._closed:
        batcher = _BATCHERS[loop] = Batcher()
    return batcher


_DEFAULT_JOB = GradeJob()


def grade_job(
    where: str,
    config: GradeConfig | None,
    task: str,
    options: dict[str, Any],
) -> GradeJob:
    """The :class:`GradeJob` of a call's options (checked now, so that a bad option raises in the
    caller, not in the batch)."""
    if task not in TASKS:
        raise ValueError(f"{where}: unknown task {task!r} (expected one of {', '.join(TASKS)})")
    if config is None and task == "math" and all(v is UNSET for v in options.values()):
        return _DEFAULT_JOB
    return GradeJob(GradeConfig.build(where, config, **options), task)


async def grade_async(
    gold: Any,
    response: Any,
    *,
    config: GradeConfig | None = None,
    timeout: float | Unset | None = UNSET,
    fallback: bool | Unset = UNSET,
    last_number: bool | Unset = UNSET,
    rel_tol: float | Unset = UNSET,
    abs_tol: float | Unset = UNSET,
    float_rounding: int | Unset | None = UNSET,
    task: str = "math",
    batcher: Batcher | None = None,
) -> Verdict:
    r""":func:`~rapidgrade.grade` for an event loop: the pairs that concurrent calls submit are
    graded together in one :func:`~rapidgrade.grade_many` call, in a worker thread (see the
    module's description). The options are :func:`~rapidgrade.grade_many`'s; *batcher*
    (default: the loop's shared one, :func:`get_batcher`) says how batches are formed.

    An input ``grade_many`` refuses (a response that is not a string) gives a verdict with
    ``decided_by="error"``, as in a batch.

    >>> import asyncio
    >>> asyncio.run(grade_async("\\frac{1}{2}", "Thus the probability is $\\boxed{0.5}$.")).correct
    True

    Raises:
        ValueError, TypeError: an option out of range or of the wrong type, an unknown task.
    """
    if (
        config is None
        and task == "math"
        and timeout is UNSET
        and fallback is UNSET
        and last_number is UNSET
        and rel_tol is UNSET
        and abs_tol is UNSET
        and float_rounding is UNSET
    ):
        job = _DEFAULT_JOB  # the common call, without building a config
    else:
        options = {
            "timeout": timeout,
            "fallback": fallback,
            "last_number": last_number,
            "rel_tol": rel_tol,
            "abs_tol": abs_tol,
            "float_rounding": float_rounding,
        }
        job = grade_job("grade_async", config, task, options)
    return await (batcher or get_batcher()).submit(job, (gold, response))
