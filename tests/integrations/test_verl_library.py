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
        PrimeRewardManager="verl.workers.reward_manager:PrimeRewardManager",
        process_validation_metrics="verl.trainer.ppo.metric_utils:process_validation_metrics",
    )


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """A character-level tokenizer: one token per character, pad 0, decoded by joining."""
    from tokenizers import Tokenizer, decoders, models
    from transformers import PreTrainedTokenizerFast

    model = Tokenizer(models.WordLevel(_VOCAB, unk_token="[UNK]"))
    model.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=model, pad_token="[PAD]", unk_token="[UNK]")


def _batch(vl: Any, rows: list[tuple[str, str, Any, float]]) -> Any:
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


def _config(vl: Any, name: str, reward_kwargs: dict[str, Any] | None = None, path: str | None = None) -> Any:
    """verl 0.9's reward section (verl/trainer/config/reward/reward.yaml), as docs/integrations.md
    shows it (the function loaded from the module's file unless *path* says otherwise)."""
    return vl.OmegaConf.create(
        {"reward": {"custom_reward_function": {"path": path or rg_verl.__file__, "name": name,
                                                "reward_kwargs": reward_kwargs or {}},
                    "reward_manager": {"source": "register", "name": "naive"}}}
    )  # fmt: skip


def _custom_fn(vl: Any, name: str, reward_kwargs: dict[str, Any] | None = None, path: str | None = None) -> Any:
    fn = vl.get_custom_reward_fn(_config(vl, name, reward_kwargs, path))
    assert fn is not None
    return fn


def _rewards_at_last_token(vl: Any, rows: list[tuple[str, str, Any, float]], tensor: Any) -> list[float]:
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


def test_list_and_numpy_ground_truths_in_a_data_proto(vl: Any, tokenizer: Any) -> None:
    # reward_model.ground_truth as verl's datasets give it: a list of acceptable answers (Hugging
    # Face datasets), a NumPy array (pandas), a NumPy integer
    rows: list[tuple[str, str, Any, float]] = [
        ("math", r"so $\boxed{0.75}$", ["3/4", "75\\%"], 1.0),
        ("math", r"so $\boxed{72}$", np.array(["70", "72"], dtype=object), 1.0),
        ("gsm8k", "The answer is 18.", np.int64(18), 1.0),
        ("gsm8k", "The answer is 17.", np.array(["18", "eighteen"]), 0.0),
    ]
    batch = _batch(vl, rows)
    naive = vl.NaiveRewardManager(tokenizer, num_examine=0, compute_score=_custom_fn(vl, "compute_score"))
    assert _rewards_at_last_token(vl, rows, naive(batch)) == [r[3] for r in rows]
    batched = vl.BatchRewardManager(tokenizer, num_examine=0, compute_score=_custom_fn(vl, "compute_score_batch"))
    assert _rewards_at_last_token(vl, rows, batched(_batch(vl, rows))) == [r[3] for r in rows]


def test_acc_and_pred_feed_verls_validation_metrics(vl: Any, tokenizer: Any) -> None:
    # Four samples of one prompt: verl's validation reads "acc" as the core metric and votes on
    # "pred" (maj@N); equal answers written differently vote together.
    rows = [
        ("math", r"\boxed{\frac{1}{2}}", "0.5", 1.0),
        ("math", r"\boxed{1/2}", "0.5", 1.0),
        ("math", r"\boxed{0.3}", "0.5", 0.0),
        ("math", "I give up", "0.5", 0.0),
    ]
    fn = _custom_fn(vl, "compute_score", {"return_dict": True})
    out = vl.NaiveRewardManager(tokenizer, num_examine=0, compute_score=fn)(_batch(vl, rows), return_dict=True)
    info = out["reward_extra_info"]
    assert info["acc"] == [1.0, 1.0, 0.0, 0.0]
    assert info["pred"][0] == info["pred"][1] and info["pred"][2] == "0.3"
    metrics = vl.process_validation_metrics(["math"] * 4, ["p0"] * 4, dict(info))["math"]
    assert metrics["acc"]["mean@4"] == 0.5
    assert 0.5 < metrics["acc"]["maj@4/mean"] <= 1.0  # bootstrapped; the two halves vote together
    assert "pred" not in metrics and "reason" not in metrics  # text columns are not averaged
    without_pred = {key: value for key, value in info.items() if key != "pred"}
    assert "maj@4/mean" not in vl.process_validation_metrics(["math"] * 4, ["p0"] * 4, without_pred)["math"]["acc"]


def test_prime_reward_manager_needs_an_importable_function(vl: Any, tokenizer: Any, tmp_path: Any) -> None:
    # verl's PrimeRewardManager sends the function to a process pool, which pickles it by module
    # and name. Loaded from its file path, the function lives in a module that cannot be
    # imported (custom_module_<hash>), the pickling fails row by row and verl scores every row
    # 0.0 (docs/integrations.md). Loaded as pkg://rapidgrade.integrations.verl, or from a file
    # that imports it, it pickles and scores.
    rows = _ROWS[:2]
    expected = [r[3] for r in rows]
    by_file = vl.PrimeRewardManager(tokenizer, num_examine=0, compute_score=_custom_fn(vl, "compute_score"))
    assert _rewards_at_last_token(vl, rows, by_file(_batch(vl, rows))) == [0.0] * len(rows) != expected
    shim = tmp_path / "my_reward.py"
    shim.write_text("from rapidgrade.integrations.verl import compute_score\n", encoding="utf-8")
    for path in ("pkg://rapidgrade.integrations.verl", str(shim)):
        fn = _custom_fn(vl, "compute_score", {"format_score": 0.0}, path=path)
        manager = vl.PrimeRewardManager(tokenizer, num_examine=0, compute_score=fn)
        assert _rewards_at_last_token(vl, rows, manager(_batch(vl, rows))) == expected, path
    # prime takes a number from each result: a dict result (return_dict) scores every row 0.0
    fn = _custom_fn(vl, "compute_score", {"return_dict": True}, path="pkg://rapidgrade.integrations.verl")
    manager = vl.PrimeRewardManager(tokenizer, num_examine=0, compute_score=fn)
    assert vl.torch.count_nonzero(manager(_batch(vl, rows))) == 0


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
