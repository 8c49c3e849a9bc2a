"""rapidgrade's async reward function run by verl's Reward Loop (verl 0.9, the real library).

verl's ``get_custom_reward_fn`` loads the function by file path and name and, for a coroutine
function, wraps it in a coroutine that merges ``reward_kwargs`` (verl/trainer/ppo/reward.py);
the reward loop's ``NaiveRewardManager`` awaits it per sample when
``inspect.iscoroutinefunction`` holds (verl/experimental/reward_loop/reward_manager/naive.py).
The batch, tokenizer and config are those of test_verl_library.py. Marked ``verl`` (see there).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rapidgrade.aio import get_batcher
from rapidgrade.integrations import aio as rg_aio
from tests.integrations.test_verl_library import _ROWS, _batch, _config, tokenizer, vl  # noqa: F401

pytestmark = pytest.mark.verl


def test_reward_loop_awaits_acompute_score_and_batches_the_samples(vl: Any, tokenizer: Any) -> None:  # noqa: F811
    rows = _ROWS * 8
    batch = _batch(vl, rows)
    config = _config(vl, "acompute_score", {"format_score": 0.1}, path=rg_aio.__file__)

    async def score_all() -> tuple[list[float], int]:
        manager = vl.load_reward_manager(config, tokenizer)
        assert isinstance(manager, vl.LoopRewardManager)
        assert manager.is_async_reward_score  # verl saw a coroutine function
        # every sample at once, as the reward loop's workers gather run_single over a batch
        results = await asyncio.gather(*(manager.run_single(batch[i : i + 1]) for i in range(len(batch))))
        return [float(r["reward_score"]) for r in results], get_batcher().batches

    scores, batches = asyncio.run(score_all())
    assert scores == [1.0, 0.1, 0.0, 1.0] * 8
    assert batches < len(rows)  # the samples were graded together, not one call each


def test_reward_loop_collects_the_dict_of_return_dict(vl: Any, tokenizer: Any) -> None:  # noqa: F811
    batch = _batch(vl, _ROWS)
    config = _config(vl, "acompute_score", {"return_dict": True}, path=rg_aio.__file__)

    async def first() -> dict[str, Any]:
        manager = vl.load_reward_manager(config, tokenizer)
        result: dict[str, Any] = await manager.run_single(batch[0:1])
        return result

    result = asyncio.run(first())
    assert result["reward_score"] == 1.0
    info = result["reward_extra_info"]
    assert info["decided_by"] == "fast" and info["acc"] == 1.0 and info["pred"] == "\\frac{1}{2}"
