r"""Reward functions for verl: ``compute_score`` and, for the batched reward manager, ``compute_score_batch``.

verl calls a custom reward function (``custom_reward_function.path`` / ``.name`` in its config)
as ``fn(data_source=..., solution_str=..., ground_truth=..., extra_info=...)``, with the config's
``custom_reward_function.reward_kwargs`` merged in as keyword arguments, and uses the float it
returns, or the ``"score"`` of a dict (whose other keys it logs). Its batched reward manager calls
``fn(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=..., **reward_kwargs)``
once per batch and expects one such result per row. Point verl at this file and either function::

    custom_reward_function:
      path: <site-packages>/rapidgrade/integrations/verl.py
      name: compute_score          # or compute_score_batch with reward_model.reward_manager=batch
      reward_kwargs: {last_number: false, format_score: 0.1}

Options (:class:`~rapidgrade.integrations.rewards.RewardConfig`: ``last_number``, ``fallback``,
``timeout``, ``correct_score``, ``format_score``, ``incorrect_score``, ``form``,
``return_dict``) come from keyword arguments (``reward_kwargs``, ``functools.partial``, or
:func:`make_compute_score`) or per row from ``extra_info["rapidgrade"]`` (a dict; it wins over the
keywords). Other keywords verl passes are ignored.

Nothing here arms a signal, so it runs in Ray actors and threads; the SymPy fallback runs in the
worker pool of the calling process (one per actor, started on first use and restarted with it).

>>> compute_score("openai/gsm8k", r"... so the answer is \boxed{18}.", "18")
1.0
>>> compute_score("math", "x = 18", "18", return_dict=True)["decided_by"]
'fast'
>>> compute_score_batch(["math", "math"], [r"\boxed{1/2}", r"\boxed{2}"], ["0.5", "3"])
[1.0, 0.0]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rapidgrade.integrations.rewards import (
    RewardConfig,
    completion_text,
    grade_rewards,
    reward_config,
    scores_of,
)
from rapidgrade.verdict import GradeResults

__all__ = ["compute_score", "compute_score_batch", "make_compute_score"]

#: The key of ``extra_info`` that holds per-row options.
EXTRA_INFO_KEY = "rapidgrade"


def _row_config(extra_info: Any, base: RewardConfig) -> RewardConfig:
    if isinstance(extra_info, Mapping):
        options = extra_info.get(EXTRA_INFO_KEY)
        if isinstance(options, Mapping):
            return reward_config(options, base)
    return base


def _result(results: GradeResults, i: int, score: float, config: RewardConfig) -> float | dict[str, Any]:
    if not config.return_dict:
        return score
    verdict = results[i]
    return {
        "score": score,
        "correct": bool(verdict.correct),
        "extracted": verdict.extracted,
        "decided_by": verdict.decided_by,
        "reason": verdict.reason,
    }


def compute_score(
    data_source: Any,
    solution_str: Any,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    r"""The reward of *solution_str* against *ground_truth*, as verl's custom reward function.

    *data_source* is not looked at (one grader for every math source). Returns a float, or with
    ``return_dict=True`` a dict with ``score``, ``correct``, ``extracted``, ``decided_by`` and
    ``reason`` (verl logs the keys other than ``score``).

    >>> compute_score("math", "It is 3", "3")   # the last number is not a stated answer
    0.0
    >>> compute_score("math", "It is 3", "3", last_number=True)
    1.0
    >>> compute_score("math", "It is 3", "3", extra_info={"rapidgrade": {"last_number": True}})
    1.0
    """
    config = _row_config(extra_info, reward_config(kwargs))
    results = grade_rewards([ground_truth], [completion_text(solution_str)], config)
    return _result(results, 0, scores_of(results, config)[0], config)


def compute_score_batch(
    data_sources: Sequence[Any],
    solution_strs: Sequence[Any],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    **kwargs: Any,
) -> list[float | dict[str, Any]]:
    r""":func:`compute_score` for a whole batch (verl's ``BatchRewardManager``), in one
    ``grade_many`` call per distinct set of options (one, unless ``extra_info`` varies them).

    >>> info = [{"rapidgrade": {"return_dict": True}}]
    >>> compute_score_batch(["a"], ["It is 3"], ["3"], info)[0]["reason"]
    'no explicit final answer (only a last number; last_number=False)'
    """
    n = len(solution_strs)
    if len(ground_truths) != n or len(data_sources) != n:
        raise ValueError("compute_score_batch: data_sources, solution_strs and ground_truths differ in length")
    infos: Sequence[Mapping[str, Any] | None] = [None] * n if extra_infos is None else extra_infos
    if len(infos) != n:
        raise ValueError("compute_score_batch: extra_infos differs in length from solution_strs")
    base = reward_config(kwargs)
    groups: dict[RewardConfig, list[int]] = {}
    for i, info in enumerate(infos):
        groups.setdefault(_row_config(info, base), []).append(i)
    out: list[float | dict[str, Any]] = [0.0] * n
    for config, rows in groups.items():
        results = grade_rewards(
            [ground_truths[i] for i in rows], [completion_text(solution_strs[i]) for i in rows], config
        )
        for j, (i, score) in enumerate(zip(rows, scores_of(results, config))):
            out[i] = _result(results, j, score, config)
    return out


def make_compute_score(**options: Any) -> Callable[..., float | dict[str, Any]]:
    r""":func:`compute_score` with *options* bound (checked now, not at the first call); a
    ``functools.partial``, so it pickles into Ray workers.

    >>> strict = make_compute_score(format_score=0.1)
    >>> strict("math", r"\boxed{4}", "5")
    0.1
    """
    reward_config(options)  # raises on a bad value
    unknown = set(options) - set(RewardConfig.__dataclass_fields__)
    if unknown:
        raise TypeError(f"make_compute_score: unknown option(s) {sorted(unknown)}")
    return functools.partial(compute_score, **options)
