"""rapidgrade's reward functions in TRL's GRPOTrainer (TRL 1.x, the real library).

One GRPO step on a tiny randomly initialised model built here (no download) calls the reward
functions exactly as the trainer does; TRL's own ``accuracy_reward`` (math-verify) is the
reference on conversational completions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rapidgrade.integrations.trl import accuracy_reward, format_reward, make_accuracy_reward

pytestmark = pytest.mark.trl  # needs the trl extra (and torch): `pytest -m trl`

CONVERSATIONS = [
    [{"role": "assistant", "content": r"My answer is \boxed{\frac{1}{3}}"}],
    [{"role": "assistant", "content": r"My answer is \boxed{\frac{1}{2}}"}],
    [{"role": "assistant", "content": r"so $\boxed{0.5}$"}],
    [{"role": "assistant", "content": r"The roots are $\boxed{2, 3}$"}],
]
SOLUTIONS = [r"\frac{1}{3}", r"\frac{1}{3}", r"$\frac{1}{2}$", r"$\{3, 2\}$"]


def test_same_as_trl_accuracy_reward_on_conversations() -> None:
    from trl.rewards import accuracy_reward as trl_accuracy_reward

    ours = accuracy_reward(CONVERSATIONS, solution=SOLUTIONS)
    assert ours == [1.0, 0.0, 1.0, 1.0]
    assert ours == trl_accuracy_reward(CONVERSATIONS, SOLUTIONS)


def test_plain_completions_none_and_column() -> None:
    assert accuracy_reward([r"\boxed{7}", r"\boxed{7}", r"\boxed{7}"], solution=["7", None, " "]) == [1.0, None, None]
    reward = make_accuracy_reward("answer", last_number=True, format_score=0.25)
    assert reward.__name__ == "accuracy_reward"
    assert reward(["so 7", r"\boxed{8}", "nothing"], answer=["7", "7", "7"]) == [1.0, 0.25, 0.0]
    with pytest.raises(KeyError, match="'solution'"):
        accuracy_reward(["x"], answer=["1"])
    with pytest.raises(ValueError, match="answers"):
        accuracy_reward(["x", "y"], solution=["1"])
    with pytest.raises(TypeError, match="unknown option"):
        make_accuracy_reward(lenient=True)


def _tiny_trainer(tmp_path: Path, reward_funcs: list[Any]) -> Any:
    import datasets
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
    from trl import GRPOConfig, GRPOTrainer

    words = ["[UNK]", "[PAD]", "[EOS]", "what", "is", "one", "plus", "two", "?", "\\boxed{3}", "3", "4"]
    tokenizer_core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer_core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer_core, unk_token="[UNK]", pad_token="[PAD]", eos_token="[EOS]"
    )
    config = LlamaConfig(
        vocab_size=len(words), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
        pad_token_id=1, eos_token_id=2, bos_token_id=2,
    )  # fmt: skip
    model = LlamaForCausalLM(config)
    train = datasets.Dataset.from_dict(
        {"prompt": ["what is one plus two ?"] * 4, "solution": ["3", "3", "4", "3"], "level": [1, 2, 3, 4]}
    )
    args = GRPOConfig(
        output_dir=str(tmp_path), per_device_train_batch_size=4, num_generations=2, max_completion_length=4,
        max_steps=1, report_to=[], use_cpu=True, logging_steps=1, save_strategy="no", seed=0,
    )  # fmt: skip
    return GRPOTrainer(
        model=model, reward_funcs=reward_funcs, args=args, train_dataset=train, processing_class=tokenizer
    )


def test_one_grpo_step_calls_the_rewards(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    def recorded(completions: list[Any], **kwargs: Any) -> list[float | None]:
        rewards = accuracy_reward(completions, **kwargs)
        calls.append({"completions": list(completions), "kwargs": kwargs, "rewards": rewards})
        return rewards

    trainer = _tiny_trainer(tmp_path, [recorded, format_reward])
    trainer.train()
    assert calls, "GRPOTrainer did not call the reward function"
    call = calls[0]
    n = len(call["completions"])
    assert n == 4 and all(isinstance(c, str) for c in call["completions"])
    assert len(call["kwargs"]["solution"]) == n and len(call["kwargs"]["level"]) == n
    assert "trainer_state" in call["kwargs"] and callable(call["kwargs"]["log_extra"])
    # the rows are the dataset's, repeated per generation, in the order of the completions
    assert set(call["kwargs"]["solution"]) <= {"3", "4"} and set(call["kwargs"]["level"]) <= {1, 2, 3, 4}
    assert all(isinstance(r, float) for r in call["rewards"])
    assert trainer.state.global_step == 1
