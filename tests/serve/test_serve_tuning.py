"""``rapidgrade serve``'s own costs: the collector tuned while it runs, one timer for every
request's deadline, and the reward endpoints' columns (no Verdict per pair) sliced per request
out of shared batches."""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

import httpx
import pytest

from rapidgrade.aio import BatchConfig
from rapidgrade.integrations.aio import RewardJob
from rapidgrade.serve import (
    GC_GEN0_THRESHOLD,
    ServeConfig,
    _DeadlineExceeded,
    _Deadlines,
    build_parser,
    config_from_args,
)
from tests.serve.conftest import running


def test_collector_tuned_while_serving_and_restored_after() -> None:
    # No other server of this process runs during this module's tests (conftest's module fixture
    # belongs to test_server.py), so the interpreter's own settings are what is seen before.
    before, frozen = gc.get_threshold(), gc.get_freeze_count()
    assert before[0] < GC_GEN0_THRESHOLD
    with running(ServeConfig()):
        assert gc.get_threshold() == (GC_GEN0_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > frozen  # start-up's objects left out of the passes
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == frozen
    with running(ServeConfig(tune_gc=False)):
        assert gc.get_threshold() == before and gc.get_freeze_count() == frozen


def test_tune_gc_option() -> None:
    assert config_from_args(build_parser().parse_args([])).tune_gc is True
    config = config_from_args(build_parser().parse_args(["--no-gc-tuning"]))
    assert config.tune_gc is False
    assert ServeConfig.from_json(config.to_json()) == config
    with pytest.raises(TypeError, match="tune_gc"):
        ServeConfig(tune_gc="no")  # type: ignore[arg-type]


def test_deadlines_fail_only_the_futures_still_pending() -> None:
    async def main() -> list[Any]:
        loop = asyncio.get_running_loop()
        deadlines = _Deadlines(0.1)
        futures = [loop.create_future() for _ in range(4)]
        for future in futures:
            deadlines.add(future)
        futures[1].set_result("graded in time")
        futures[2].cancel()  # its caller went away
        await asyncio.sleep(0.3)
        state = [f.exception() if not f.cancelled() else "cancelled" for f in futures]
        late = loop.create_future()
        deadlines.add(late)  # the timer, idle since the first four, starts again
        state.append(late.done())
        try:
            await asyncio.wait_for(late, 5)
        except _DeadlineExceeded as error:
            state.append(error)
        deadlines.close()
        return state

    first, second, third, fourth, late_done_at_once, late_error = asyncio.run(main())
    assert isinstance(first, _DeadlineExceeded) and isinstance(fourth, _DeadlineExceeded)
    assert second is None and third == "cancelled"
    assert late_done_at_once is False and isinstance(late_error, _DeadlineExceeded)


def test_deadlines_do_not_hold_the_futures_done_behind_a_slow_one() -> None:
    # A slow request at the head keeps later ones, graded meanwhile, in the queue until it
    # expires: the queue is compacted when it grows, so those are dropped.
    async def main() -> int:
        loop = asyncio.get_running_loop()
        deadlines = _Deadlines(60.0)
        slow = loop.create_future()
        deadlines.add(slow)
        for _ in range(20_000):
            future = loop.create_future()
            deadlines.add(future)
            future.set_result(None)
        size = len(deadlines._queue)
        deadlines.close()
        return size

    assert asyncio.run(main()) <= _Deadlines._COMPACT + 1


def test_a_request_past_its_deadline_is_not_graded() -> None:
    # The batch window (1 s) is longer than the deadline (0.1 s): the request gets 504, and its
    # pair is dropped from the batch instead of graded for nobody.
    with running(ServeConfig(deadline=0.1, batch=BatchConfig(window=1.0))) as server:
        start = time.monotonic()
        reply = httpx.post(server.url + "/slime", json={"prompt": "", "response": "1", "label": "1"}, timeout=30)
        assert reply.status_code == 504 and time.monotonic() - start < 0.9
        time.sleep(1.3)  # the window has passed: the batch would have started
        health = httpx.get(server.url + "/health", timeout=30).json()
        assert (health["batches"], health["graded"], health["pending"]) == (0, 0, 0)


def verify_body(row: dict[str, Any]) -> dict[str, Any]:
    """NeMo-Gym's verify request for a demo row (the shape test_server.py's body follows)."""
    message = {"type": "message", "content": [{"type": "output_text", "text": row["response"]}]}
    return {
        "responses_create_params": {"input": []},
        "response": {"output": [message]},
        "expected_answer": str(row["gold"]),
    }


def test_reward_endpoints_slice_shared_batches_per_request(demo_corpus: list[dict[str, Any]]) -> None:
    # Requests of different sizes, sent at once, share batches (a 50 ms window); each gets its own
    # rows, equal to what the async reward functions' job gives for its pairs alone.
    singles = demo_corpus[:60]
    sizes = [1, 2, 3, 4, 5, 6, 7, 8, 9, 5]
    groups, first = [], 60
    for size in sizes:
        groups.append(demo_corpus[first : first + size])
        first += size
    job = RewardJob()
    with running(ServeConfig(batch=BatchConfig(window=0.05))) as server:

        async def send() -> list[Any]:
            async with httpx.AsyncClient(base_url=server.url, timeout=60) as client:
                verify = [client.post("/verify", json=verify_body(row)) for row in singles]
                reward = [
                    client.post(
                        "/get_reward",
                        json={"query": [r["response"] for r in group], "labels": [str(r["gold"]) for r in group]},
                    )
                    for group in groups
                ]
                replies = await asyncio.gather(*verify, *reward)
            assert all(reply.status_code == 200 for reply in replies)
            return [reply.json() for reply in replies]

        answers = asyncio.run(send())
        assert server.batcher.batches < len(answers)  # shared
    for row, data in zip(singles, answers[: len(singles)]):
        [(score, verdict)] = job.run([((str(row["gold"]),), row["response"])])
        got = (data["reward"], data["extracted_answer"], data["decided_by"], data["reason"])
        assert got == (score, verdict.extracted, verdict.decided_by, verdict.reason)
    for group, data in zip(groups, answers[len(singles) :]):
        scored = job.run([((str(r["gold"]),), r["response"]) for r in group])
        assert data["rewards"] == [score for score, _ in scored] == data["scores"]
        assert data["extra_logs"]["correct"] == [1.0 if v.correct else 0.0 for _, v in scored]
        assert data["extra_logs"]["fast"] == [1.0 if v.decided_by == "fast" else 0.0 for _, v in scored]
