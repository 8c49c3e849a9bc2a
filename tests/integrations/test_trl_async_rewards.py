"""rapidgrade's async reward function in TRL's GRPOTrainer (TRL 1.x, the real library): TRL runs
async reward functions on its own event loop thread and gathers them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from rapidgrade.integrations.aio import aaccuracy_reward
from rapidgrade.integrations.trl import accuracy_reward
from tests.integrations.test_trl_rewards import _tiny_trainer

pytestmark = pytest.mark.trl  # needs the trl extra (and torch): `pytest -m trl`


def test_one_grpo_step_awaits_the_async_reward(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    async def recorded(completions: list[Any], **kwargs: Any) -> list[float | None]:
        rewards = await aaccuracy_reward(completions, **kwargs)
        calls.append(
            {
                "completions": list(completions),
                "solution": list(kwargs["solution"]),
                "rewards": rewards,
                "thread": threading.current_thread(),
            }
        )
        return rewards

    trainer = _tiny_trainer(tmp_path, [recorded])
    trainer.train()
    assert calls, "GRPOTrainer did not await the async reward function"
    call = calls[0]
    assert call["thread"] is not threading.main_thread()  # TRL's daemon event loop
    assert len(call["rewards"]) == len(call["completions"]) == 4
    assert call["rewards"] == accuracy_reward(call["completions"], solution=call["solution"])
    assert trainer.state.global_step == 1
