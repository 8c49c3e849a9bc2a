r"""Reward functions for verl: ``compute_score`` and, for the batched reward manager, ``compute_score_batch``.

verl calls a custom reward function (``custom_reward_function.path`` / ``.name`` in its config)
as ``fn(data_source=..., solution_str=..., ground_truth=..., extra_info=...)``, with the config's
``custom_reward_function.reward_kwargs`` merged in as keyword arguments, and uses the float it
returns, or the ``"score"`` of a dict (whose other keys it collects into ``reward_extra_info``:
``acc`` is the accuracy its validation metrics report, ``pred`` the answer its majority-vote
metrics group by). Its batched reward manager calls
``fn(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=..., **reward_kwargs)``
once per batch and expects one such result per row. Point verl at this module and either
function::

    custom_reward_function:
      path: pkg://rapidgrade.integrations.verl   # verl >= 0.7; older: <site-packages>/rapidgrade/integrations/verl.py
      name: compute_score          # or compute_score_batch with reward_model.reward_manager=batch
      reward_kwargs: {last_number: false, format_score: 0.1}

The ground truth comes from the dataset's ``reward_model.ground_truth``: a string, a number
(NumPy's too: pandas reads a Parquet integer column as ``np.int64``) or a list of acceptable
answers (a list or a NumPy array, as Parquet list columns read back), any of which counts. Any
other value (``None``, an empty string or list, a dict, a bool) raises an error naming it rather
than scoring 0.

Options (:class:`~rapidgrade.integrations.rewards.RewardConfig`: ``last_number``, ``fallback``,
``timeout``, ``correct_score``, ``format_score``, ``incorrect_score``, ``form``,
``return_dict``) come from keyword arguments (``reward_kwargs``, ``functools.partial``, or
:func:`make_compute_score`) or per row from ``extra_info["rapidgrade"]`` (a dict; it wins over the
keywords). Any other keyword raises ``TypeError`` naming it (a misspelt ``reward_kwargs`` key must
not be ignored), except those verl's reward loop passes itself (:data:`VERL_KEYWORDS`), which
are ignored.

Nothing here arms a signal, so it runs in Ray actors and threads; the SymPy fallback runs in the
worker pool of the calling process (one per actor, started on first use and restarted with it).

>>> compute_score("openai/gsm8k", r"... so the answer is \boxed{18}.", "18")
1.0
>>> compute_score("math", "x = 18", "18", return_dict=True)["decided_by"]
'fast'
>>> compute_score_batch(["math", "math"], [r"\boxed{1/2}", r"\boxed{2}"], ["0.5", ["3", "2"]])
[1.0, 1.0]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rapidgrade.integrations.rewards import (
    RewardConfig,
    check_options,
    completion_text,
    grade_rewards,
    reward_config,
    scores_of,
)
from rapidgrade.verdict import GradeResults

__all__ = ["compute_score", "compute_score_batch", "make_compute_score"]

#: The key of ``extra_info`` that holds per-row options.
EXTRA_INFO_KEY = "rapidgrade"

#: Keywords verl's reward managers pass to the function besides the row (the reward loop's, when
#: a reward model serves beside it: verl/experimental/reward_loop/reward_manager/naive.py); they
#: are ignored. Any other keyword that is not an option is an error.
VERL_KEYWORDS = frozenset({"reward_router_address", "reward_model_tokenizer"})


def _row_config(extra_info: Any, base: RewardConfig) -> RewardConfig:
    if isinstance(extra_info, Mapping):
        options = extra_info.get(EXTRA_INFO_KEY)
        if isinstance(options, Mapping):
            check_options(f"extra_info[{EXTRA_INFO_KEY!r}]", options)
            return reward_config(options, base)
        if options is not None:
            raise TypeError(f"extra_info[{EXTRA_INFO_KEY!r}] must be a dict of options, got {type(options).__name__}")
    return base


def _results(results: GradeResults, config: RewardConfig) -> list[float | dict[str, Any]]:
    """The result of every row of *results*: its score, or with ``return_dict`` the dict verl
    collects (``acc``: 1.0 or 0.0, for verl's accuracy metrics; ``pred``: the answer as the
    grader compared it, ``""`` when none was found, for its majority-vote metrics)."""
    scores = scores_of(results, config)
    if not config.return_dict:
        return list(scores)
    normalized = results.normalized
    out: list[float | dict[str, Any]] = []
    for score, verdict, pred in zip(scores, results, normalized):
        out.append(
            {
                "score": score,
                "acc": 1.0 if verdict.correct else 0.0,
                "pred": pred or verdict.extracted or "",
                "correct": bool(verdict.correct),
                "extracted": verdict.extracted,
                "decided_by": verdict.decided_by,
                "reason": verdict.reason,
            }
        )
    return out


def compute_score(
    data_source: Any,
    solution_str: Any,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    r"""The reward of *solution_str* against *ground_truth*, as verl's custom reward function.

    *data_source* is not looked at (one grader for every math source). *ground_truth* is a
    string, a number or a list of acceptable answers (see the module's description). Returns
    a float, or with ``return_dict=True`` a dict with ``score``, ``acc``, ``pred``,
    ``correct``, ``extracted``, ``decided_by`` and ``reason`` (verl logs the keys other than
    ``score``).

    >>> compute_score("math", "It is 3", "3")   # the last number is not a stated answer
    0.0
    >>> compute_score("math", "It is 3", "3", last_number=True)
    1.0
    >>> compute_score("math", "It is 3", "3", extra_info={"rapidgrade": {"last_number": True}})
    1.0
    >>> compute_score("math", r"\boxed{3.0}", ["3", "three"], return_dict=True)["pred"]
    '3.0'

    Raises:
        TypeError: a keyword that is not an option (nor one of :data:`VERL_KEYWORDS`), or a
            ground truth of another type.
        ValueError: an empty ground truth, or an option out of range.
    """
    check_options("compute_score", kwargs, VERL_KEYWORDS)
    config = _row_config(extra_info, reward_config(kwargs))
    results = grade_rewards([ground_truth], [completion_text(solution_str)], config, "compute_score: ground_truth")
    return _results(results, config)[0]


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
    check_options("compute_score_batch", kwargs, VERL_KEYWORDS)
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
            [ground_truths[i] for i in rows],
            [completion_text(solution_strs[i]) for i in rows],
            config,
            "compute_score_batch: ground_truths",
        )
        for i, result in zip(rows, _results(results, config)):
            out[i] = result
    return out


def make_compute_score(**options: Any) -> Callable[..., float | dict[str, Any]]:
    r""":func:`compute_score` with *options* bound (checked now, not at the first call); a
    ``functools.partial``, so it pickles into Ray workers and process pools.

    >>> strict = make_compute_score(format_score=0.1)
    >>> strict("math", r"\boxed{4}", "5")
    0.1
    """
    check_options("make_compute_score", options)
    reward_config(options)  # raises on a bad value
    return functools.partial(compute_score, **options)
