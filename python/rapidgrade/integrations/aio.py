r"""Async reward functions that batch themselves: verl's Reward Loop, slime and TRL.

The trainers' async paths await one reward at a time (verl's Reward Loop awaits an ``async``
``compute_score`` per sample, slime awaits ``custom_rm(args, sample)`` per sample) or several
reward functions at once (TRL's GRPOTrainer gathers its async reward functions). The functions
here submit their pairs to the event loop's :class:`~rapidgrade.aio.Batcher`, which grades the
pairs of all concurrent calls with one ``grade_many`` call in a worker thread, so that a loop
awaiting a thousand samples gets batch speed and stays responsive. The rewards are those of the
synchronous functions (the same :class:`~rapidgrade.integrations.rewards.RewardConfig` options,
the same scores and dicts: :mod:`rapidgrade.integrations.verl`,
:mod:`rapidgrade.integrations.trl`).

* **verl** (Reward Loop, ``reward_manager`` naive/dapo/limited): verl awaits
  ``compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...)`` when it
  is a coroutine function (``inspect.iscoroutinefunction``, which sees through
  ``functools.partial``)::

      custom_reward_function:
        path: pkg://rapidgrade.integrations.aio
        name: acompute_score
        reward_kwargs: {format_score: 0.1}

* **slime**: ``--custom-rm-path rapidgrade.integrations.aio.custom_rm``; slime awaits
  ``custom_rm(args, sample)`` (with ``--group-rm``, ``custom_rm(args, samples)`` for a group)
  and reads ``sample.response`` and ``sample.label`` (options: ``sample.metadata["rapidgrade"]``).
* **TRL**: ``GRPOTrainer(reward_funcs=[aaccuracy_reward])`` or :func:`make_aaccuracy_reward`;
  TRL runs async reward functions on its own event loop thread.

verl < 0.7 loads the function by file path (``path: <site-packages>/rapidgrade/integrations/aio.py``),
which works: the module defines no dataclass (a module loaded that way runs outside
``sys.modules``, where dataclasses look up their module).

State: the event loop's shared batcher (:func:`rapidgrade.aio.get_batcher`), as for
:func:`rapidgrade.grade_async`; every function also takes ``batcher=`` (a keyword of the
factory functions, bound once).

>>> import asyncio
>>> asyncio.run(acompute_score("math", r"so \boxed{18}", "18"))
1.0
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any

from rapidgrade.aio import Batcher, Job, get_batcher, verdicts_of
from rapidgrade.config import GradeConfig
from rapidgrade.grade import grade_many
from rapidgrade.integrations.rewards import (
    DEFAULT_REWARD_CONFIG,
    RewardConfig,
    box_grader,
    check_options,
    completion_text,
    gold_answers,
    grade_answers,
    reward_config,
    scores_of,
)
from rapidgrade.integrations.verl import VERL_KEYWORDS, _results, _row_config
from rapidgrade.policy import apply_reward_policy
from rapidgrade.verdict import GradeResults, Verdict

__all__ = [
    "RewardJob",
    "Scored",
    "aaccuracy_reward",
    "acompute_score",
    "custom_rm",
    "make_aaccuracy_reward",
    "make_acompute_score",
    "make_custom_rm",
    "score_async",
]

#: One graded reward: the score and the verdict it comes from.
Scored = tuple[float, Verdict]


class RewardJob(Job[Any]):
    """Grades ``(answers, text)`` items (*answers*: a tuple of acceptable golds, as
    :func:`~rapidgrade.integrations.rewards.gold_answers` reads them) with the grading options of
    *config*; each result is verl's (*form* ``"verl"``: the score, or with ``return_dict`` the
    dict of :func:`rapidgrade.integrations.verl.compute_score`) or a :data:`Scored` pair (*form*
    ``"scored"``). A *task* other than ``"math"`` grades one answer per item. Jobs with equal
    options are equal (they share batches). Not a dataclass: see the module's description."""

    __slots__ = ("_grading", "_key", "config", "form", "task")

    def __init__(self, config: RewardConfig | None = None, form: str = "scored", task: str = "math") -> None:
        self.config = DEFAULT_REWARD_CONFIG if config is None else config
        self.form = form
        self.task = task
        self._key = (self.config, form, task)
        self._grading: GradeConfig | None = None  # config.grade_config(), built at the first batch

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RewardJob) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"RewardJob(config={self.config!r}, form={self.form!r}, task={self.task!r})"

    def run(self, items: list[Any], threads: int | None = None) -> Sequence[Any]:
        results = self.grade(items, threads)
        if self.form == "verl":
            return _results(results, self.config)
        return list(zip(scores_of(results, self.config), verdicts_of(results)))

    def grade(self, items: list[Any], threads: int | None = None) -> GradeResults:
        """The verdicts of *items* (the reward preset applied), before they are scored: what
        :meth:`run` scores, for a caller that reads the columns (``rapidgrade serve``)."""
        config = self.config
        texts = [text for _, text in items]
        if all(len(answers) == 1 for answers, _ in items):
            golds = [answers[0] for answers, _ in items]
            if self._grading is None:
                self._grading = config.grade_config()
            results: GradeResults = grade_many(golds, texts, config=self._grading, threads=threads, task=self.task)
            if config.policy == "reward":  # the preset's rules (grade_answers applies them below)
                results = apply_reward_policy(results, golds, texts, box_grader(config), math=self.task == "math")
        elif self.task != "math":
            raise ValueError(f"RewardJob: lists of answers are graded with task 'math' only, not {self.task!r}")
        else:  # several acceptable answers: the first that matches decides (rewards.grade_answers)
            results = grade_answers([list(answers) for answers, _ in items], texts, config)
        return results


def _answers(gold: Any, what: str) -> tuple[str, ...]:
    answers = gold_answers(gold, what)
    if not answers:
        raise ValueError(f"{what} is empty ({gold!r}): there is nothing to grade against")
    return tuple(answers)


async def score_async(
    gold: Any, response: Any, config: RewardConfig | None = None, *, batcher: Batcher | None = None
) -> Scored:
    r"""The reward of *response* (a string or a conversation) against *gold* (a string, a number
    or a list of acceptable answers), with the verdict it comes from, graded in the loop's
    batches.

    >>> import asyncio
    >>> score, verdict = asyncio.run(score_async("1/2", r"\boxed{0.5}"))
    >>> score, verdict.decided_by
    (1.0, 'fast')

    Raises:
        TypeError, ValueError: a gold that is not an answer, or an empty one.
    """
    job = RewardJob(DEFAULT_REWARD_CONFIG if config is None else config)
    result: Scored = await (batcher or get_batcher()).submit(job, (_answers(gold, "gold"), completion_text(response)))
    return result


# -- verl -------------------------------------------------------------------------------------


async def acompute_score(
    data_source: Any,
    solution_str: Any,
    ground_truth: Any,
    extra_info: Mapping[str, Any] | None = None,
    *,
    batcher: Batcher | None = None,
    **kwargs: Any,
) -> float | dict[str, Any]:
    r""":func:`rapidgrade.integrations.verl.compute_score` as a coroutine for verl's Reward Loop:
    the same options (keywords, ``reward_kwargs``, ``extra_info["rapidgrade"]``), the same float
    or dict; concurrent calls are graded together.

    >>> import asyncio
    >>> asyncio.run(acompute_score("math", "It is 3", "3", return_dict=True))["reason"]
    'no explicit final answer (only a last number; last_number=False)'

    Raises:
        TypeError: a keyword that is not an option (nor one verl passes itself), or a ground
            truth of another type.
        ValueError: an empty ground truth, or an option out of range.
    """
    check_options("acompute_score", kwargs, VERL_KEYWORDS)
    config = _row_config(extra_info, reward_config(kwargs))
    item = (_answers(ground_truth, "acompute_score: ground_truth"), completion_text(solution_str))
    result: float | dict[str, Any] = await (batcher or get_batcher()).submit(RewardJob(config, "verl"), item)
    return result


def make_acompute_score(
    *, batcher: Batcher | None = None, **options: Any
) -> Callable[..., Coroutine[Any, Any, float | dict[str, Any]]]:
    r""":func:`acompute_score` with *options* (and *batcher*) bound, checked now; a
    ``functools.partial``, which verl still sees as a coroutine function.

    >>> import asyncio, inspect
    >>> fn = make_acompute_score(format_score=0.1)
    >>> inspect.iscoroutinefunction(fn), asyncio.run(fn("math", r"\boxed{4}", "5"))
    (True, 0.1)
    """
    check_options("make_acompute_score", options)
    reward_config(options)  # raises on a bad value
    return functools.partial(acompute_score, batcher=batcher, **options)


# -- TRL --------------------------------------------------------------------------------------

#: The dataset column that holds the gold answer, unless told otherwise (as in the TRL module).
DEFAULT_COLUMN = "solution"


async def _accuracy(
    completions: Sequence[Any],
    kwargs: Mapping[str, Any],
    column: str,
    config: RewardConfig,
    batcher: Batcher | None,
) -> list[float | None]:
    if column not in kwargs:
        raise KeyError(
            f"accuracy_reward: no {column!r} column among the reward function's keyword arguments ({sorted(kwargs)})"
        )
    golds = kwargs[column]
    if len(golds) != len(completions):
        raise ValueError(f"accuracy_reward: {len(completions)} completions but {len(golds)} answers")
    answers = [gold_answers(gold, f"accuracy_reward: {column}[{i}]") for i, gold in enumerate(golds)]
    judged = [i for i, row in enumerate(answers) if row]
    items = [(tuple(answers[i]), completion_text(completions[i])) for i in judged]
    futures = (batcher or get_batcher()).submit_many(RewardJob(config), items)
    scored: list[Scored] = list(await asyncio.gather(*futures))
    rewards: list[float | None] = [None] * len(completions)
    for i, (score, _) in zip(judged, scored):
        rewards[i] = score
    log_extra = kwargs.get("log_extra")
    if callable(log_extra):
        extracted: list[str | None] = [None] * len(completions)
        decided: list[str | None] = [None] * len(completions)
        for i, (_, verdict) in zip(judged, scored):
            extracted[i] = verdict.extracted
            decided[i] = verdict.decided_by
        log_extra("extracted", extracted)
        log_extra("decided_by", decided)
    return rewards


async def aaccuracy_reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
    r""":func:`rapidgrade.integrations.trl.accuracy_reward` as a coroutine (TRL awaits async
    reward functions on its event loop thread): 1.0 for each completion whose answer equals the
    row's ``solution`` column, else 0.0; ``None`` for a row without an answer.

    >>> import asyncio
    >>> asyncio.run(aaccuracy_reward([r"\boxed{2}", r"\boxed{3}", "x"], solution=["2", "2", None]))
    [1.0, 0.0, None]

    Raises:
        KeyError: the dataset has no ``solution`` column.
        TypeError: an answer that is not a string, a number or a list of those.
    """
    return await _accuracy(completions, kwargs, DEFAULT_COLUMN, DEFAULT_REWARD_CONFIG, None)


def make_aaccuracy_reward(
    column: str = DEFAULT_COLUMN, *, batcher: Batcher | None = None, **options: Any
) -> Callable[..., Coroutine[Any, Any, list[float | None]]]:
    r""":func:`aaccuracy_reward` reading the gold answer from *column*, with *options* bound
    (checked now); named ``accuracy_reward``, as TRL logs rewards by name.

    >>> import asyncio
    >>> reward = make_aaccuracy_reward("answer", format_score=0.1)
    >>> reward.__name__, asyncio.run(reward([r"\boxed{5}", r"\boxed{6}"], answer=["5", "7"]))
    ('accuracy_reward', [1.0, 0.1])
    """
    check_options("make_aaccuracy_reward", options)
    base = reward_config(options)

    async def accuracy_reward(completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        return await _accuracy(completions, kwargs, column, base, batcher)

    return accuracy_reward


# -- slime ------------------------------------------------------------------------------------

#: The key of ``sample.metadata`` that holds per-sample options (as ``extra_info`` for verl).
METADATA_KEY = "rapidgrade"


def _sample_item(sample: Any, base: RewardConfig) -> tuple[RewardConfig, tuple[tuple[str, ...], str]]:
    metadata = getattr(sample, "metadata", None)
    config = _row_config({METADATA_KEY: metadata.get(METADATA_KEY)} if isinstance(metadata, Mapping) else None, base)
    index = getattr(sample, "index", None)
    what = "custom_rm: sample.label" if index is None else f"custom_rm: sample.label (sample {index})"
    return config, (_answers(getattr(sample, "label", None), what), completion_text(getattr(sample, "response", "")))


def _slime_reward(result: Scored, config: RewardConfig) -> float | dict[str, Any]:
    score, verdict = result
    if not config.return_dict:
        return score
    return {
        "score": score,
        "acc": 1.0 if verdict.correct else 0.0,
        "correct": bool(verdict.correct),
        "extracted": verdict.extracted,
        "decided_by": verdict.decided_by,
        "reason": verdict.reason,
    }


async def _custom_rm(
    sample: Any, base: RewardConfig, batcher: Batcher | None
) -> float | dict[str, Any] | list[float | dict[str, Any]]:
    batcher = batcher or get_batcher()
    if isinstance(sample, list):  # --group-rm: the samples of a group
        rows = [_sample_item(s, base) for s in sample]
        futures = [batcher.submit(RewardJob(config), item) for config, item in rows]
        results: list[Scored] = list(await asyncio.gather(*futures))
        return [_slime_reward(result, config) for result, (config, _) in zip(results, rows)]
    config, item = _sample_item(sample, base)
    result: Scored = await batcher.submit(RewardJob(config), item)
    return _slime_reward(result, config)


async def custom_rm(args: Any, sample: Any, **kwargs: Any) -> float | dict[str, Any] | list[float | dict[str, Any]]:
    r"""slime's custom reward function (``--custom-rm-path rapidgrade.integrations.aio.custom_rm``):
    the reward of ``sample.response`` against ``sample.label``; with slime's ``--group-rm``,
    *sample* is the list of a group's samples and the result one reward per sample.

    *args* (slime's arguments) is not read. Options come from ``sample.metadata["rapidgrade"]``
    (a dict of :class:`~rapidgrade.integrations.rewards.RewardConfig` fields) or from
    :func:`make_custom_rm`; with ``return_dict`` the reward is a dict whose ``"score"`` slime
    takes with ``--reward-key score``.

    >>> import asyncio
    >>> from types import SimpleNamespace as Sample
    >>> asyncio.run(custom_rm(None, Sample(response=r"so \boxed{7}", label="7", metadata={})))
    1.0

    Raises:
        TypeError, ValueError: a label that is not an answer, or an empty one (``None``), named
            with the sample's index.
    """
    return await _custom_rm(sample, DEFAULT_REWARD_CONFIG, None)


def make_custom_rm(
    *, batcher: Batcher | None = None, **options: Any
) -> Callable[..., Coroutine[Any, Any, float | dict[str, Any] | list[float | dict[str, Any]]]]:
    r""":func:`custom_rm` with *options* bound (checked now); point slime at a module-level
    name it is assigned to (``my_rm = make_custom_rm(format_score=0.1)``).

    >>> import asyncio
    >>> from types import SimpleNamespace as Sample
    >>> rm = make_custom_rm(return_dict=True)
    >>> asyncio.run(rm(None, Sample(response=r"\boxed{8}", label="7", metadata={})))["reason"]
    'not equivalent'
    """
    check_options("make_custom_rm", options)
    base = reward_config(options)

    async def custom_rm(args: Any, sample: Any, **kwargs: Any) -> float | dict[str, Any] | list[float | dict[str, Any]]:
        return await _custom_rm(sample, base, batcher)

    return custom_rm
