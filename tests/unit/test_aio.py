"""grade_async and the micro-batcher: batching, cancellation, errors, the loop kept free."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import pytest

import rapidgrade
from rapidgrade.aio import BatchConfig, Batcher, GradeJob, Job, get_batcher, grade_async


def test_grade_async_matches_grade_many_in_few_batches(demo_corpus: list[dict[str, Any]]) -> None:
    golds = [str(r["gold"]) for r in demo_corpus]
    responses = [r["response"] for r in demo_corpus]

    async def main() -> tuple[list[rapidgrade.Verdict], Batcher]:
        batcher = Batcher(BatchConfig(window=0.05, max_batch=300))
        try:
            verdicts = await asyncio.gather(*(grade_async(g, r, batcher=batcher) for g, r in zip(golds, responses)))
            return list(verdicts), batcher
        finally:
            await batcher.aclose()

    verdicts, batcher = asyncio.run(main())
    assert verdicts == list(rapidgrade.grade_many(golds, responses))
    assert batcher.items == len(golds)
    assert 3 <= batcher.batches <= 10  # 800 pairs in batches of at most 300


def test_grade_async_options_and_errors() -> None:
    async def main() -> list[rapidgrade.Verdict]:
        return list(
            await asyncio.gather(
                grade_async("2", "It is 2", last_number=False),
                grade_async("2", "It is 2"),
                grade_async("2", 2),  # not a str: an error verdict, as in a batch
                grade_async("9.8 m/s^2", "980 cm/s^2", task="physics"),
            )
        )

    no_number, number, error, physics = asyncio.run(main())
    assert (no_number.correct, number.correct) == (False, True)
    assert error.decided_by == "error" and "response must be a str" in error.reason
    assert physics.correct
    with pytest.raises(ValueError, match="unknown task 'chess'"):
        asyncio.run(grade_async("1", "1", task="chess"))
    with pytest.raises(TypeError, match="grade_async"):
        asyncio.run(grade_async("1", "1", last_number=1))  # type: ignore[arg-type]


def test_one_batcher_per_event_loop() -> None:
    async def batcher() -> Batcher:
        first = get_batcher()
        assert get_batcher() is first
        await grade_async("1", "1")
        return first

    one, two = asyncio.run(batcher()), asyncio.run(batcher())
    assert one is not two
    assert one.batches == 1 and two.batches == 1

    async def elsewhere() -> None:
        await one.submit(GradeJob(), ("1", "1"))

    with pytest.raises(RuntimeError, match="another event loop"):
        asyncio.run(elsewhere())


def test_max_batch_splits_bursts() -> None:
    async def main() -> Batcher:
        batcher = Batcher(BatchConfig(window=10.0, max_batch=10))  # the window never elapses here
        verdicts = await asyncio.gather(*batcher.submit_many(GradeJob(), [(str(i), f"so {i}") for i in range(35)]))
        assert all(v.correct for v in verdicts)
        await batcher.aclose()
        return batcher

    batcher = asyncio.run(main())
    assert batcher.batches == 4 and batcher.items == 35  # 10 + 10 + 10 started at once, 5 by drain


class _Slow(Job[str]):
    """A job that blocks its worker thread (as a batch of hard pairs does)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def run(self, items: list[Any], threads: int | None = None) -> list[str]:
        time.sleep(self.seconds)
        return [f"done {item}" for item in items]


class _Failing(Job[str]):
    """Fails for the item "bad" (and so for any batch holding it)."""

    def run(self, items: list[Any], threads: int | None = None) -> list[str]:
        if "bad" in items:
            raise ValueError("cannot grade 'bad'")
        return [item.upper() for item in items]


def test_grading_runs_off_the_event_loop() -> None:
    async def main() -> tuple[int, list[str], set[str]]:
        batcher = Batcher(BatchConfig(window=0.001))
        ticks = 0
        done = False

        async def ticker() -> None:
            nonlocal ticks
            while not done:
                await asyncio.sleep(0.005)
                ticks += 1

        task = asyncio.create_task(ticker())
        loop_thread = threading.current_thread().name
        results = await asyncio.gather(*batcher.submit_many(_Slow(0.5), ["a", "b"]))
        done = True
        await task
        await batcher.aclose()
        return ticks, list(results), {loop_thread}

    ticks, results, _ = asyncio.run(main())
    assert results == ["done a", "done b"]
    assert ticks >= 20  # the loop ran its ticker all the while the batch was graded (0.5 s)


def test_an_exception_in_one_item_fails_only_that_item() -> None:
    async def main() -> list[Any]:
        batcher = Batcher(BatchConfig(window=0.01))
        futures = batcher.submit_many(_Failing(), ["a", "bad", "c"])
        results = await asyncio.gather(*futures, return_exceptions=True)
        await batcher.aclose()
        return list(results)

    a, bad, c = asyncio.run(main())
    assert (a, c) == ("A", "C")
    assert isinstance(bad, ValueError) and "cannot grade 'bad'" in str(bad)


def test_grade_job_turns_a_failing_pair_into_an_error_verdict() -> None:
    class Broken(GradeJob):
        def run(self, items: list[Any], threads: int | None = None) -> Any:
            if any(gold == "boom" for gold, _ in items):
                raise RuntimeError("boom")
            return super().run(items, threads)

    async def main() -> list[rapidgrade.Verdict]:
        batcher = Batcher(BatchConfig(window=0.01))
        verdicts = await asyncio.gather(*batcher.submit_many(Broken(), [("1", "so 1"), ("boom", "x"), ("2", "so 3")]))
        await batcher.aclose()
        return list(verdicts)

    one, boom, two = asyncio.run(main())
    assert one.correct and not two.correct and two.decided_by == "fast"
    assert boom.decided_by == "error" and boom.reason == "RuntimeError: boom" and not boom.correct


def test_cancelling_one_caller_leaves_the_others() -> None:
    async def main() -> tuple[list[str], Batcher]:
        batcher = Batcher(BatchConfig(window=0.05))
        futures = batcher.submit_many(_Slow(0.01), ["a", "b", "c"])
        futures[1].cancel()
        results = await asyncio.gather(futures[0], futures[2])
        # a batch whose callers were all cancelled is not graded at all
        lone = batcher.submit(_Slow(0.01), "z")
        lone.cancel()
        await batcher.drain()
        await batcher.aclose()
        return list(results), batcher

    results, batcher = asyncio.run(main())
    assert results == ["done a", "done c"]
    assert batcher.batches == 1 and batcher.items == 2


def test_cancelling_an_awaiting_task_mid_batch() -> None:
    async def main() -> list[Any]:
        batcher = Batcher(BatchConfig(window=0.001))

        async def one(item: str) -> str:
            result: str = await batcher.submit(_Slow(0.2), item)
            return result

        tasks = [asyncio.create_task(one(x)) for x in "abc"]
        await asyncio.sleep(0.05)  # the batch is being graded now
        tasks[0].cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        await batcher.aclose()
        return list(results)

    a, b, c = asyncio.run(main())
    assert isinstance(a, asyncio.CancelledError)
    assert (b, c) == ("done b", "done c")


def test_closed_batcher_refuses_work() -> None:
    async def main() -> None:
        batcher = Batcher()
        await batcher.aclose()
        batcher.submit(GradeJob(), ("1", "1"))

    with pytest.raises(RuntimeError, match="closed"):
        asyncio.run(main())


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"window": -1}, ValueError),
        ({"window": "1"}, TypeError),
        ({"max_batch": 0}, ValueError),
        ({"max_in_flight": 1.5}, TypeError),
        ({"threads": 0}, ValueError),
    ],
)
def test_batch_config_is_checked(options: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error, match="BatchConfig"):
        BatchConfig(**options)


def test_batched_items_count_their_pairs_toward_max_batch() -> None:
    from rapidgrade.aio import Batched

    async def main() -> tuple[list[list[bool]], Batcher]:
        batcher = Batcher(BatchConfig(window=10.0, max_batch=5))  # the window never elapses here
        requests = [[(str(i), f"so {i}")] * size for i, size in enumerate([3, 1, 4, 2])]
        futures = batcher.submit_many(Batched(GradeJob()), requests)
        results = [[v.correct for v in verdicts] for verdicts in await asyncio.gather(*futures)]
        await batcher.aclose()
        return results, batcher

    results, batcher = asyncio.run(main())
    assert results == [[True] * 3, [True], [True] * 4, [True] * 2]
    # 3 + 1 + 4 = 8 pairs reach max_batch=5 only with the third request: one batch of three
    # requests, then the last one by itself
    assert batcher.batches == 2 and batcher.items == 4


@pytest.mark.parametrize("fill_slots", [True, False])
def test_verdicts_of_builds_what_iterating_the_results_gives(
    demo_corpus: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch, fill_slots: bool
) -> None:
    # Both ways of building a Verdict (its slots filled, or its constructor when it grows a
    # __post_init__): the demo set, a response that is not a str (an error verdict), an answer
    # over max_answer_bytes (a limit verdict), an empty response (extracted and method None).
    import rapidgrade.aio as aio

    monkeypatch.setattr(aio, "_FILL_SLOTS", fill_slots)
    golds = [str(r["gold"]) for r in demo_corpus] + ["1", "2", "3"]
    responses: list[Any] = [r["response"] for r in demo_corpus] + [7, "\\boxed{" + "1" * 400 + "}", ""]
    results = rapidgrade.grade_many(golds, responses, config=rapidgrade.GradeConfig(max_answer_bytes=256))
    verdicts = aio.verdicts_of(results)
    assert verdicts == list(results)
    assert all(type(v) is rapidgrade.Verdict for v in verdicts)
    assert {v.decided_by for v in verdicts[-3:-1]} == {"error", "limit"}
    assert verdicts[-1].extracted is None and verdicts[-1].method is None
    assert aio.verdicts_of(results[:0]) == []


def test_verdicts_of_takes_the_fast_path_for_verdict() -> None:
    # Verdict stores its six fields and nothing else (no __post_init__): its slots are filled
    # directly; a Verdict that grew a check or a field would turn this off (and the test above
    # keeps both paths equal to iterating the results).
    import rapidgrade.aio as aio

    assert aio._FILL_SLOTS
    assert len(aio._VERDICT_SETTERS) == len(rapidgrade.Verdict.__slots__) == 6
