"""The async reward functions (rapidgrade.integrations.aio) give what the sync ones give, called
the way each trainer calls them."""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from rapidgrade.aio import BatchConfig, Batcher
from rapidgrade.integrations.aio import (
    aaccuracy_reward,
    acompute_score,
    custom_rm,
    make_aaccuracy_reward,
    make_acompute_score,
    make_custom_rm,
    score_async,
)
from rapidgrade.integrations.rewards import score_many
from rapidgrade.integrations.trl import accuracy_reward, make_accuracy_reward
from rapidgrade.integrations.verl import compute_score
from tests.lazy import imported


async def _gather(coroutines: list[Any]) -> list[Any]:
    return list(await asyncio.gather(*coroutines))


def run_all(coroutines: list[Any]) -> list[Any]:
    return asyncio.run(_gather(coroutines))


# -- verl -------------------------------------------------------------------------------------


def verl_rows(demo_corpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keyword arguments as verl's Reward Loop passes them (NaiveRewardManager.run_single,
    verl/experimental/reward_loop/reward_manager/naive.py): the row's data_source, the decoded
    response, reward_model.ground_truth and extra_info with the keys verl adds to it."""
    rows = []
    for i, row in enumerate(demo_corpus[:200]):
        gold: Any = str(row["gold"])
        if i % 7 == 0 and gold.lstrip("-").isdigit():
            gold = np.int64(gold)  # a Parquet integer column read by pandas
        elif i % 5 == 0:
            gold = np.array([gold, "not it"], dtype=object)  # a Parquet list column
        extra_info: dict[str, Any] = {"index": i, "num_turns": None, "rollout_reward_scores": {}}
        if i % 3 == 0:
            extra_info["rapidgrade"] = {"last_number": True, "return_dict": True}
        rows.append(
            {"data_source": "math", "solution_str": row["response"], "ground_truth": gold, "extra_info": extra_info}
        )
    return rows


def test_acompute_score_matches_compute_score(demo_corpus: list[dict[str, Any]]) -> None:
    rows = verl_rows(demo_corpus)
    expected = [compute_score(**row, format_score=0.1) for row in rows]
    got = run_all([acompute_score(**row, format_score=0.1) for row in rows])
    assert got == expected
    assert any(isinstance(x, dict) for x in got) and any(isinstance(x, float) for x in got)
    assert 0 < sum(x["score"] if isinstance(x, dict) else x for x in got) < len(rows)


def test_verl_sees_a_coroutine_function() -> None:
    # verl's reward managers await compute_score when inspect.iscoroutinefunction says so
    # (naive.py: self.is_async_reward_score), and bind reward_kwargs with functools.partial.
    assert inspect.iscoroutinefunction(acompute_score)
    bound = make_acompute_score(format_score=0.5)
    assert inspect.iscoroutinefunction(bound)
    keywords = {"reward_router_address": "127.0.0.1:1", "reward_model_tokenizer": None}
    assert asyncio.run(bound(data_source="x", solution_str="\\boxed{2}", ground_truth="3", **keywords)) == 0.5


def test_acompute_score_errors_are_the_callers() -> None:
    with pytest.raises(ValueError, match="ground_truth is empty"):
        asyncio.run(acompute_score("math", "\\boxed{1}", ""))
    with pytest.raises(TypeError, match="unknown option"):
        asyncio.run(acompute_score("math", "\\boxed{1}", "1", format_scor=0.1))
    with pytest.raises(TypeError, match="ground_truth"):
        asyncio.run(acompute_score("math", "\\boxed{1}", {"a": 1}))
    with pytest.raises(TypeError, match="unknown option"):
        make_acompute_score(lastnumber=True)


def test_concurrent_verl_calls_share_batches(demo_corpus: list[dict[str, Any]]) -> None:
    rows = verl_rows(demo_corpus)

    async def main() -> Batcher:
        batcher = Batcher(BatchConfig(window=0.05))
        await asyncio.gather(*(acompute_score(**row, batcher=batcher) for row in rows))
        await batcher.aclose()
        return batcher

    batcher = asyncio.run(main())
    assert batcher.items == len(rows)
    assert batcher.batches <= 4  # two option sets (extra_info varies them), each one or two batches


# -- TRL --------------------------------------------------------------------------------------


def test_aaccuracy_reward_matches_accuracy_reward(demo_corpus: list[dict[str, Any]]) -> None:
    rows = demo_corpus[:100]
    completions = [[{"role": "assistant", "content": r["response"]}] for r in rows]
    solutions: list[Any] = [str(r["gold"]) for r in rows]
    solutions[3] = None  # not judged here: None
    solutions[4] = [solutions[4], "other"]
    logged: dict[str, Any] = {}
    # the keywords GRPOTrainer._calculate_rewards passes (trl/trainer/grpo_trainer.py)
    kwargs = {
        "prompts": [[{"role": "user", "content": "?"}]] * len(rows),
        "completion_ids": [[1, 2]] * len(rows),
        "solution": solutions,
        "trainer_state": None,
        "log_extra": lambda name, values: logged.__setitem__(name, values),
        "log_metric": lambda name, value: None,
    }
    expected = accuracy_reward(completions, **kwargs)
    expected_log = dict(logged)
    logged.clear()
    got = asyncio.run(aaccuracy_reward(completions, **kwargs))
    assert got == expected and got[3] is None
    assert logged == expected_log and set(logged) == {"extracted", "decided_by"}
    sync = make_accuracy_reward("answer", format_score=0.1)
    reward = make_aaccuracy_reward("answer", format_score=0.1)
    assert reward.__name__ == "accuracy_reward" and inspect.iscoroutinefunction(reward)
    texts = [r["response"] for r in rows]
    assert asyncio.run(reward(texts, answer=solutions)) == sync(texts, answer=solutions)
    with pytest.raises(KeyError, match="'solution'"):
        asyncio.run(aaccuracy_reward(texts, answer=solutions))


@pytest.mark.trl
def test_trl_sees_async_reward_functions() -> None:
    # GRPOTrainer gathers the reward functions for which trl.trainer.utils.is_async_callable holds
    trl = imported(is_async_callable="trl.trainer.utils:is_async_callable")
    assert trl.is_async_callable(aaccuracy_reward)
    assert trl.is_async_callable(make_aaccuracy_reward("answer"))
    assert not trl.is_async_callable(accuracy_reward)


# -- slime ------------------------------------------------------------------------------------


@dataclass
class Sample:
    """The fields of slime's Sample (slime/utils/types.py) that a reward function reads."""

    index: int | None = None
    prompt: str | list[dict[str, str]] = ""
    response: str = ""
    label: str | None = None
    reward: float | dict[str, Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def test_custom_rm_one_sample_and_a_group(demo_corpus: list[dict[str, Any]]) -> None:
    rows = demo_corpus[:64]
    samples = [Sample(index=i, prompt="Q", response=r["response"], label=str(r["gold"])) for i, r in enumerate(rows)]
    expected = score_many([s.label for s in samples], [s.response for s in samples])
    # slime's generate_and_rm awaits async_rm(args, sample) per sample, concurrently
    assert run_all([custom_rm(None, s) for s in samples]) == expected
    # with --group-rm, batched_async_rm awaits custom_rm(args, samples) once for the group
    assert asyncio.run(custom_rm(None, samples)) == expected


def test_custom_rm_options() -> None:
    sample = Sample(index=7, response="It is 3", label="3", metadata={"rapidgrade": {"last_number": True}})
    assert asyncio.run(custom_rm(None, sample)) == 1.0
    rm = make_custom_rm(return_dict=True, format_score=0.2)
    result = asyncio.run(rm(None, Sample(response="\\boxed{4}", label="3")))
    assert isinstance(result, dict) and result["score"] == 0.2 and result["decided_by"] == "fast"
    with pytest.raises(ValueError, match=r"sample\.label \(sample 9\) is empty"):
        asyncio.run(custom_rm(None, Sample(index=9, response="\\boxed{4}", label=None)))
    with pytest.raises(TypeError, match="unknown option"):
        make_custom_rm(format=1)


def test_score_async() -> None:
    score, verdict = asyncio.run(score_async(["1/3", "0.5"], "\\boxed{1/2}"))
    assert score == 1.0 and verdict.correct
