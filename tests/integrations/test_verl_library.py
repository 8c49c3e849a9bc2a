"""rapidgrade's verl reward functions run by verl itself (verl 0.9, the real library).

verl loads a custom reward function with ``get_custom_reward_fn`` (a file path and a function
name in its config, ``reward_kwargs`` merged over every call) and calls it from its reward
managers, which decode the response tokens of a ``DataProto`` and write the score at the last
response token. These tests build that config and that ``DataProto`` (with a character-level
tokenizer made in memory: no download) and let verl's own ``NaiveRewardManager`` (one call per
row), ``BatchRewardManager`` (one call for the batch) and the reward loop's asynchronous
``NaiveRewardManager`` do the calling. test_verl_rewards.py covers the options row by row.

verl's hydra-core needs ANTLR 4.9, under which math-verify reads LaTeX differently (``28\\%`` is
28), so verl is not in the `test` extra, whose math-verify answers are the recorded ones. These
tests are marked ``verl``: plain ``pytest`` deselects them (pyproject's addopts), and ``.ci/run``
runs them with ``pytest -m verl`` in an environment with the `verl` and `math-verify` extras
(docs/integrations.md). Selected without verl installed, they fail on the import.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

import rapidgrade
from rapidgrade.integrations import verl as rg_verl
from tests.lazy import imported

pytestmark = pytest.mark.verl

_CHARS = [chr(c) for c in range(32, 127)] + ["\n"]
_VOCAB = {"[PAD]": 0, "[UNK]": 1, **{ch: i + 2 for i, ch in enumerate(_CHARS)}}

# (data_source, response, ground truth, score with the default options)
_ROWS = [
    ("lighteval/MATH", r"We get $\boxed{\frac{1}{2}}$.", "0.5", 1.0),
    ("gsm8k", "The answer is 41.", "42", 0.0),
    ("gsm8k", "I think it is 42", "42", 0.0),  # only a last number: strict by default
    ("aime", r"So the sum is \boxed{0.25 \cdot 4}", "1", 1.0),
]


@pytest.fixture(scope="module")
def vl() -> Any:
    """verl's classes (and torch, OmegaConf), imported only when these tests run."""
    return imported(
        torch="torch",
        OmegaConf="omegaconf:OmegaConf",
        DataProto="verl:DataProto",
        LoopRewardManager="verl.experimental.reward_loop.reward_manager.naive:NaiveRewardManager",
        get_custom_reward_fn="verl.trainer.ppo.reward:get_custom_reward_fn",
        load_reward_manager="verl.trainer.ppo.reward:load_reward_manager",
        BatchRewardManager="verl.workers.reward_manager:BatchRewardManager",
        NaiveRewardManager="verl.workers.reward_manager:NaiveRewardManager",
    )


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """A character-level tokenizer: one token per character, pad 0, decoded by joining."""
    from tokenizers import Tokenizer, decoders, models
    from transformers import PreTrainedTokenizerFast

    model = Tokenizer(models.WordLevel(_VOCAB, unk_token="[UNK]"))
    model.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=model, pad_token="[PAD]", unk_token="[UNK]")


def _batch(vl: Any, rows: list[tuple[str, str, str, float]]) -> Any:
    """verl's rollout layout: left-padded prompts, right-padded responses, one attention mask."""
    torch = vl.torch
    prompt = [_VOCAB[c] for c in "Solve: "]
    width = max(len(r[1]) for r in rows) + 3
    responses = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros((len(rows), len(prompt) + width), dtype=torch.long)
    for i, (_, text, _, _) in enumerate(rows):
        responses[i, : len(text)] = torch.tensor([_VOCAB[c] for c in text])
        mask[i, : len(prompt) + len(text)] = 1
    prompts = torch.tensor([prompt] * len(rows), dtype=torch.long)
    return vl.DataProto.from_dict(
        tensors={
            "prompts": prompts,
            "responses": responses,
            "input_ids": torch.cat([prompts, responses], dim=1),
            "attention_mask": mask,
        },
        non_tensors={
            "data_source": np.array([r[0] for r in rows], dtype=object),
            "reward_model": np.array([{"ground_truth": r[2]} for r in rows], dtype=object),
            "extra_info": np.array([{"index": i} for i in range(len(rows))], dtype=object),
        },
    )


def _config(vl: Any, name: str, reward_kwargs: dict[str, Any] | None = None) -> Any:
    """verl 0.9's reward section (verl/trainer/config/reward/reward.yaml), as docs/integrations.md
    shows it."""
    return vl.OmegaConf.create(
        {"reward": {"custom_reward_function": {"path": rg_verl.__file__, "name": name,
                                                "reward_kwargs": reward_kwargs or {}},
                    "reward_manager": {"source": "register", "name": "naive"}}}
    )  # fmt: skip


def _custom_fn(vl: Any, name: str, reward_kwargs: dict[str, Any] | None = None) -> Any:
    fn = vl.get_custom_reward_fn(_config(vl, name, reward_kwargs))
    assert fn is not None
    return fn


def _rewards_at_last_token(vl: Any, rows: list[tuple[str, str, str, float]], tensor: Any) -> list[float]:
    """The reward of each row, checking that it sits on the row's last response token only."""
    out = []
    for i, (_, text, _, _) in enumerate(rows):
        assert vl.torch.count_nonzero(tensor[i, : len(text) - 1]) == 0
        assert vl.torch.count_nonzero(tensor[i, len(text) :]) == 0
        out.append(float(tensor[i, len(text) - 1]))
    return out


def test_naive_reward_manager(vl: Any, tokenizer: Any) -> None:
    manager = vl.NaiveRewardManager(tokenizer, num_examine=0, compute_score=_custom_fn(vl, "compute_score"))
    rewards = _rewards_at_last_token(vl, _ROWS, manager(_batch(vl, _ROWS)))
    assert rewards == [r[3] for r in _ROWS]


def test_batch_reward_manager(vl: Any, tokenizer: Any) -> None:
    manager = vl.BatchRewardManager(tokenizer, num_examine=0, compute_score=_custom_fn(vl, "compute_score_batch"))
    rewards = _rewards_at_last_token(vl, _ROWS, manager(_batch(vl, _ROWS)))
    assert rewards == [r[3] for r in _ROWS]


def test_reward_kwargs_reach_the_function_and_dicts_fill_reward_extra_info(
    vl: Any,
    tokenizer: Any,
) -> None:
    # reward_kwargs from verl's config: a format score for a wrong final answer, the last number
    # read, and a dict result whose keys verl collects into reward_extra_info
    fn = _custom_fn(vl, "compute_score", {"format_score": 0.1, "last_number": True, "return_dict": True})
    out = vl.NaiveRewardManager(tokenizer, num_examine=0, compute_score=fn)(_batch(vl, _ROWS), return_dict=True)
    rewards = _rewards_at_last_token(vl, _ROWS, out["reward_tensor"])
    info = out["reward_extra_info"]
    assert rewards == pytest.approx([1.0, 0.1, 1.0, 1.0])
    assert info["correct"] == [True, False, True, True]
    assert info["extracted"][:3] == [r"\frac{1}{2}", "41", "42"]
    assert set(info) >= {"score", "correct", "extracted", "decided_by", "reason"}
    # the batched form gives the same dicts
    batch_fn = _custom_fn(vl, "compute_score_batch", {"format_score": 0.1, "last_number": True, "return_dict": True})
    out_b = vl.BatchRewardManager(tokenizer, num_examine=0, compute_score=batch_fn)(_batch(vl, _ROWS), return_dict=True)
    assert vl.torch.equal(out_b["reward_tensor"], out["reward_tensor"])
    assert out_b["reward_extra_info"]["extracted"] == info["extracted"]


def test_reward_loop_manager(vl: Any, tokenizer: Any) -> None:
    # verl 0.9's trainer: load_reward_manager reads the config, loads the function, and the reward
    # loop's manager scores one row at a time in its event loop (run_single), the function in the
    # loop's executor; the manager takes the running loop when it is made
    batch = _batch(vl, _ROWS)

    async def score_all() -> list[float]:
        manager = vl.load_reward_manager(_config(vl, "compute_score", {"format_score": 0.1}), tokenizer)
        assert isinstance(manager, vl.LoopRewardManager)
        out = []
        for i in range(len(batch)):
            result = await manager.run_single(batch[i : i + 1])
            out.append(float(result["reward_score"]))
        return out

    assert asyncio.run(score_all()) == [1.0, 0.1, 0.0, 1.0]


def test_percentages_do_not_depend_on_the_antlr_runtime() -> None:
    # beside verl, ANTLR is 4.9 and math-verify reads 28\% as 28 (docs/integrations.md); the fast
    # path reads percentages itself, so grade's verdicts are those of every other environment
    from importlib.metadata import version

    assert version("antlr4-python3-runtime").startswith("4.9.")
    pairs = [("0.28", r"$28\%$", True), ("0.2", r"The answer is $\boxed{20\%}$", True), ("28", r"$28\%$", True),
             ("0.5", r"\boxed{28\%}", False), (r"20\%", "So it is 0.2", True)]  # fmt: skip
    for gold, response, expected in pairs:
        verdict = rapidgrade.grade(gold, response)
        assert (verdict.correct, verdict.decided_by) == (expected, "fast"), (gold, response)
