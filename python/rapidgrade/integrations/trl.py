r"""Reward functions for TRL's ``GRPOTrainer(reward_funcs=[...])``.

TRL (1.x) calls every reward function as ``fn(prompts=..., completions=..., completion_ids=...,
**columns)``: ``completions`` are strings, or conversations (a list of messages per completion)
for a conversational dataset, and every other column of the dataset comes as a keyword argument
holding one value per completion, plus ``trainer_state``, ``log_extra`` and ``log_metric``. It
takes a ``list[float]`` back, where ``None`` means "this function does not judge this row" (the
row's other reward functions decide it).

A row's gold answer is a string, a number (NumPy's too) or a list of acceptable answers (a list,
tuple or NumPy array, as a dataset's list column gives it; any of them counts). ``None``, an
empty string and an empty list give ``None`` (not judged here); any other value raises an error
naming its row, rather than scoring 0.

>>> accuracy_reward([r"so \boxed{\frac{1}{3}}", [{"role": "assistant", "content": r"\boxed{1/2}"}]],
...                 solution=["1/3", "1/3"])
[1.0, 0.0]
>>> reward = make_accuracy_reward(column="answer", format_score=0.1)
>>> reward.__name__, reward(["\\boxed{5}", "\\boxed{6}"], answer=["5", "7"])
('accuracy_reward', [1.0, 0.1])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rapidgrade.integrations.rewards import (
    DEFAULT_REWARD_CONFIG,
    RewardConfig,
    check_options,
    completion_text,
    gold_answers,
    grade_answers,
    reward_config,
    scores_of,
)
from rapidgrade.integrations.rewards import format_reward as format_reward

__all__ = ["accuracy_reward", "format_reward", "make_accuracy_reward"]

#: The dataset column that holds the gold answer, unless told otherwise.
DEFAULT_COLUMN = "solution"

RewardFunc = Callable[..., list[float | None]]


def _accuracy(
    completions: Sequence[Any], golds: Sequence[Any], column: str, config: RewardConfig, log_extra: Any
) -> list[float | None]:
    if len(golds) != len(completions):
        raise ValueError(f"accuracy_reward: {len(completions)} completions but {len(golds)} answers")
    answers = [gold_answers(gold, f"accuracy_reward: {column}[{i}]") for i, gold in enumerate(golds)]
    judged = [i for i, row in enumerate(answers) if row]
    texts = [completion_text(completions[i]) for i in judged]
    results = grade_answers([answers[i] for i in judged], texts, config)
    rewards: list[float | None] = [None] * len(completions)
    for i, score in zip(judged, scores_of(results, config)):
        rewards[i] = score
    if callable(log_extra):
        extracted: list[str | None] = [None] * len(completions)
        decided: list[str | None] = [None] * len(completions)
        for j, i in enumerate(judged):
            extracted[i] = results[j].extracted
            decided[i] = results[j].decided_by
        log_extra("extracted", extracted)
        log_extra("decided_by", decided)
    return rewards


def accuracy_reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
    r"""1.0 for each completion whose answer equals the row's ``solution`` column, else 0.0.

    The answer may be a list of acceptable answers (any of them counts). A row whose answer is
    ``None`` or empty gets ``None`` (TRL leaves it to the other reward functions). The keyword
    arguments are the dataset's columns (and TRL's own), never options: for another answer
    column or other options use :func:`make_accuracy_reward`. The extracted answer and the
    deciding path are logged to TRL's completions table when TRL passes ``log_extra``.

    >>> accuracy_reward(["\\boxed{2}", "\\boxed{2}"], solution=["2", None])
    [1.0, None]

    >>> accuracy_reward(["\\boxed{0.5}"], solution=[["1/3", "1/2"]])
    [1.0]

    Raises:
        KeyError: the dataset has no ``solution`` column.
        TypeError: an answer that is not a string, a number or a list of those.
    """
    if DEFAULT_COLUMN not in kwargs:
        raise KeyError(
            f"accuracy_reward: no {DEFAULT_COLUMN!r} column among the reward function's keyword arguments "
            f"({sorted(kwargs)}); use make_accuracy_reward(column=...)"
        )
    golds = kwargs[DEFAULT_COLUMN]
    return _accuracy(completions, golds, DEFAULT_COLUMN, DEFAULT_REWARD_CONFIG, kwargs.get("log_extra"))


def make_accuracy_reward(column: str = DEFAULT_COLUMN, **options: Any) -> RewardFunc:
    r""":func:`accuracy_reward` reading the gold answer from *column*, with *options* bound
    (checked now). The function is named ``accuracy_reward`` (TRL logs rewards by name).

    >>> make_accuracy_reward("gold", last_number=True)(["It is 2"], gold=["2"])
    [1.0]
    """
    check_options("make_accuracy_reward", options)
    base = reward_config(options)

    def accuracy_reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        if column not in kwargs:
            raise KeyError(
                f"accuracy_reward: no {column!r} column among the reward function's keyword arguments "
                f"({sorted(kwargs)})"
            )
        return _accuracy(completions, kwargs[column], column, base, kwargs.get("log_extra"))

    return accuracy_reward
