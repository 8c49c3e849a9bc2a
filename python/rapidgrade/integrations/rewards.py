r"""Reward shaping on top of :func:`rapidgrade.grade_many`: scores, format reward, pass@k, majority.

What the RL integrations (:mod:`~rapidgrade.integrations.verl`, :mod:`~rapidgrade.integrations.trl`)
share. :class:`RewardConfig` holds the options; :func:`score_many` turns a batch of (gold,
response) pairs into rewards with one ``grade_many`` call; :func:`format_reward` checks that the
answer is given in the expected form; :func:`majority_vote` and :func:`pass_at_k` (the unbiased
estimator of :mod:`rapidgrade.metrics`) score a group of samples of one problem.

Rewards grade under the reward preset by default (``policy="reward"``, :mod:`rapidgrade.policy`):
no answer found only as the last number of the response (``last_number=False``), no answer
longer than ``max_answer_bytes`` (256), no credit for an unfinished ``<think>``, for several
different final answers or for a hedge ("1 or 2", a list, an interval or an inequality) against
a single-valued gold. ``policy="plain"`` scores the grader's verdict as it is.

A gold answer may be a string, a number (NumPy's too, as a Parquet column read with pandas gives
them) or a list of acceptable answers (a list, tuple or NumPy array of those; any of them counts,
as in ``rapidgrade score``); see :func:`gold_answers`. Anything else is refused with an error,
never graded 0.

>>> score_many(["3", "3"], [r"so \boxed{3}", "It is 3"])
[1.0, 0.0]
>>> format_reward([r"so \boxed{3}", "It is 3", "The answer is 4."])
[1.0, 0.0, 1.0]
>>> majority_vote("4", ["\\boxed{4}", "\\boxed{5}", "so \\boxed{4}"])
MajorityVote(answer='4', correct=True, votes=2, samples=3)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from rapidgrade.config import GradeConfig, check_flag, check_timeout
from rapidgrade.extract import extract_many
from rapidgrade.grade import grade_many
from rapidgrade.integrations._text import completion_text
from rapidgrade.metrics import pass_at_k
from rapidgrade.policy import POLICIES, apply_reward_policy, refused_mask
from rapidgrade.verdict import GradeResults

__all__ = [
    "FORMS",
    "MajorityVote",
    "RewardConfig",
    "completion_text",
    "format_reward",
    "gold_answers",
    "majority_vote",
    "pass_at_k",
    "reward_config",
    "score_many",
]

#: Extraction methods that count as "the answer given in the expected form", by form name:
#: ``"boxed"`` (``\boxed{...}``), ``"answer"`` (boxed, "the answer is ...", ``<answer>`` tags).
FORMS: Mapping[str, frozenset[str]] = {
    "boxed": frozenset({"boxed", "boxed_multi"}),
    "answer": frozenset({"boxed", "boxed_multi", "answer_is", "tagged"}),
}


@dataclass(frozen=True, slots=True)
class RewardConfig:
    """Options of the reward functions (every one also a keyword of theirs).

    Attributes:
        last_number: Accept an answer found only as the last number of the response (default
            ``False``: strict, the answer must be stated).
        fallback: Send what the fast path cannot decide to the SymPy fallback.
        timeout: Seconds per fallback pair (``None``: no limit).
        correct_score: Reward of a correct answer.
        format_score: Reward of a wrong answer given in the expected *form* (0 by default).
        incorrect_score: Reward of any other response.
        form: ``"boxed"`` or ``"answer"`` (see :data:`FORMS`), for *format_score* and
            :func:`format_reward`.
        return_dict: verl: return ``{"score", "correct", "extracted", "decided_by", "reason"}``
            instead of the score alone.
        policy: ``"reward"`` (default): the reward preset of :mod:`rapidgrade.policy` (an
            unfinished ``<think>``, several different final answers and hedges against a
            single-valued gold score *incorrect_score*, never *format_score*); ``"plain"``: the
            grader's verdict as it is, with *last_number* as given and the grader's own answer
            limit (64 KiB).
        max_answer_bytes: Under the preset, the longest extracted answer (bytes of UTF-8) that
            can earn a reward; a longer one is ``decided_by="limit"``. ``None``: no cap.
    """

    last_number: bool = False
    fallback: bool = True
    timeout: float | None = 5.0
    correct_score: float = 1.0
    format_score: float = 0.0
    incorrect_score: float = 0.0
    form: str = "answer"
    return_dict: bool = False
    policy: str = "reward"
    max_answer_bytes: int | None = 256

    def __post_init__(self) -> None:
        where = "RewardConfig"
        check_flag(where, "last_number", self.last_number)
        check_flag(where, "fallback", self.fallback)
        check_flag(where, "return_dict", self.return_dict)
        check_timeout(where, self.timeout)
        for name in ("correct_score", "format_score", "incorrect_score"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{where}: {name} must be a number, got {type(value).__name__}")
        if self.form not in FORMS:
            raise ValueError(f"{where}: form must be one of {sorted(FORMS)}, got {self.form!r}")
        if self.policy not in POLICIES:
            raise ValueError(f"{where}: policy must be one of {list(POLICIES)}, got {self.policy!r}")
        cap = self.max_answer_bytes
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int)):
            raise TypeError(f"{where}: max_answer_bytes must be an int or None, got {type(cap).__name__}")
        if cap is not None and cap < 1:
            raise ValueError(f"{where}: max_answer_bytes must be >= 1 or None, got {cap!r}")

    def grade_config(self) -> GradeConfig:
        """The :class:`~rapidgrade.GradeConfig` this config grades with (``config=`` of
        ``grade_many``): its *last_number*, *fallback* and *timeout*, and under the preset its
        *max_answer_bytes*."""
        options: dict[str, Any] = {"last_number": self.last_number, "fallback": self.fallback, "timeout": self.timeout}
        if self.policy == "reward":
            options["max_answer_bytes"] = self.max_answer_bytes
        return GradeConfig.build("RewardConfig", **options)


_FIELDS = frozenset(f.name for f in dataclasses.fields(RewardConfig))

#: The defaults (a frozen config, built once: a per-sample reward call does not rebuild it).
DEFAULT_REWARD_CONFIG = RewardConfig()


def reward_config(options: Mapping[str, Any], base: RewardConfig | None = None) -> RewardConfig:
    """*base* (default: the defaults) with the fields named in *options*; other keys are ignored.

    >>> reward_config({"last_number": True, "index": 7}).last_number
    True
    """
    chosen = {key: value for key, value in options.items() if key in _FIELDS} if options else {}
    base = DEFAULT_REWARD_CONFIG if base is None else base
    return dataclasses.replace(base, **chosen) if chosen else base


def check_options(where: str, options: Mapping[str, Any], allowed: frozenset[str] = frozenset()) -> None:
    """Raise ``TypeError`` naming the keys of *options* that are neither :class:`RewardConfig`
    fields nor in *allowed* (a misspelt option must not be ignored).

    >>> check_options("f", {"format_scor": 0.1})
    Traceback (most recent call last):
    ...
    TypeError: f: unknown option(s) ['format_scor']; the options are correct_score, fallback, ...
    """
    unknown = sorted(str(key) for key in options if key not in _FIELDS and key not in allowed)
    if unknown:
        raise TypeError(f"{where}: unknown option(s) {unknown}; the options are {', '.join(sorted(_FIELDS))}")


_NOT_AN_ANSWER = "must be a string, a number or a list of those"


def _answer(value: Any, what: str) -> str:
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} {_NOT_AN_ANSWER}, got {type(value).__name__}")
    return str(value)


def gold_answers(gold: Any, what: str = "gold") -> list[str]:
    """The acceptable answers of one gold, as strings: a string, a number (Python's or NumPy's:
    ``np.int64(3)`` is ``"3"``), or a list, tuple or one-dimensional NumPy array of those (as a
    Parquet list column reads back), whose empty strings are dropped. ``[]`` for ``None``, an
    empty or blank string and an empty list (nothing to grade against).

    >>> gold_answers(np.array(["42", "42.0"], dtype=object)), gold_answers(np.int64(7)), gold_answers(None)
    (['42', '42.0'], ['7'], [])

    Raises:
        TypeError: anything else (a bool, a dict, a list inside the list...), named in the
            message with *what*.
    """
    if isinstance(gold, str):
        return [gold] if gold.strip() else []
    if gold is None:
        return []
    if isinstance(gold, np.ndarray) and gold.ndim > 1:
        raise TypeError(f"{what} {_NOT_AN_ANSWER}, got a {gold.ndim}-dimensional array")
    if isinstance(gold, (list, tuple)) or (isinstance(gold, np.ndarray) and gold.ndim == 1):
        answers = []
        for item in gold:
            if isinstance(item, (list, tuple, np.ndarray)) and not (isinstance(item, np.ndarray) and item.ndim == 0):
                raise TypeError(f"{what} {_NOT_AN_ANSWER}, got a list with a {type(item).__name__} item")
            text = _answer(item, f"{what} (an item of the list)")
            if text.strip():
                answers.append(text)
        return answers
    return [_answer(gold, what)]


def _row_what(what: str, i: int, n: int) -> str:
    return what if n == 1 else f"{what}[{i}]"


def grade_rewards(
    golds: Sequence[Any], responses: Sequence[str], config: RewardConfig, what: str = "gold"
) -> GradeResults:
    """``grade_many`` with the grading options of *config*, one verdict per row, where a gold may
    be anything :func:`gold_answers` reads: a row with several acceptable answers is graded
    against each, and its verdict is that of the first answer it matches, else of the first
    answer (as ``rapidgrade score`` does).

    Raises:
        TypeError: a gold of another type.
        ValueError: a gold with nothing to grade against (``None``, empty); *what* names it.
    """
    n = len(golds)
    answers = [gold_answers(gold, _row_what(what, i, n)) for i, gold in enumerate(golds)]
    for i, row in enumerate(answers):
        if not row:
            raise ValueError(f"{_row_what(what, i, n)} is empty ({golds[i]!r}): there is nothing to grade against")
    return grade_answers(answers, responses, config)


def grade_answers(answers: Sequence[Sequence[str]], responses: Sequence[str], config: RewardConfig) -> GradeResults:
    """:func:`grade_rewards` on golds already read by :func:`gold_answers` (none empty)."""

    def graded(golds: list[str], texts: Sequence[str]) -> GradeResults:
        results = grade_many(golds, texts, config=config.grade_config())
        if config.policy == "reward":
            results = apply_reward_policy(results, golds, texts, box_grader(config))
        return results

    if all(len(row) == 1 for row in answers):
        return graded([row[0] for row in answers], responses)
    flat_golds = [answer for row in answers for answer in row]
    flat_responses = [response for row, response in zip(answers, responses) for _ in row]
    flat = graded(flat_golds, flat_responses)
    correct = flat.correct.tolist()
    picks: list[int] = []
    start = 0
    for row in answers:
        pairs = range(start, start + len(row))
        picks.append(next((k for k in pairs if correct[k]), start))
        start += len(row)
    decided, gold = flat.decided_by.tolist(), flat.gold
    extracted, method, reason, normalized = flat.extracted, flat.method, flat.reason, flat.normalized
    return GradeResults.from_columns(
        correct=[correct[k] for k in picks],
        decided_by=[decided[k] for k in picks],
        gold=[gold[k] for k in picks],
        extracted=[extracted[k] for k in picks],
        method=[method[k] for k in picks],
        reason=[reason[k] for k in picks],
        normalized=[normalized[k] for k in picks],
    )


def box_grader(config: RewardConfig) -> Any:
    """The preset's grader of the boxes of a response that holds several: *config*'s options."""

    def grade_boxes(golds: list[str], boxes: list[str]) -> Any:
        return grade_many(golds, boxes, config=config.grade_config()).correct

    return grade_boxes


def scores_of(results: GradeResults, config: RewardConfig) -> list[float]:
    """One reward per verdict of *results* (see :class:`RewardConfig`); a verdict the reward
    preset refused earns *incorrect_score*, not *format_score*."""
    allowed = FORMS[config.form]
    refused = refused_mask(results).tolist()
    scores: list[float] = []
    for correct, method, hack in zip(results.correct.tolist(), results.method, refused):
        if correct:
            scores.append(float(config.correct_score))
        elif method in allowed and not hack:
            scores.append(float(config.format_score))
        else:
            scores.append(float(config.incorrect_score))
    return scores


def score_many(
    golds: Sequence[Any], responses: Sequence[Any], config: RewardConfig | None = None, **options: Any
) -> list[float]:
    r"""The reward of every ``responses[i]`` (a string or a conversation) against ``golds[i]``
    (anything :func:`gold_answers` reads; a list means any of its answers).

    *options* override fields of *config* (:class:`RewardConfig`).

    >>> score_many(["1/2"], ["\\boxed{0.4}"], format_score=0.1)
    [0.1]
    """
    check_options("score_many", options)
    config = reward_config(options, config)
    texts = [completion_text(r) for r in responses]
    return scores_of(grade_rewards(golds, texts, config), config)


def format_reward(completions: Sequence[Any], *, form: str = "answer", **kwargs: Any) -> list[float]:
    r"""1.0 for each completion that gives its answer in the expected *form*, else 0.0.

    *form* is ``"answer"`` (``\boxed{...}``, "the answer is ...", ``<answer>...</answer>``) or
    ``"boxed"``. Whether the answer is right is not looked at. Usable as a TRL reward function
    as it is (other keyword arguments, the dataset columns TRL passes, are ignored).

    >>> format_reward(["<answer>7</answer>", r"\boxed{7}", "7"], form="boxed")
    [0.0, 1.0, 0.0]
    """
    if form not in FORMS:
        raise ValueError(f"format_reward: form must be one of {sorted(FORMS)}, got {form!r}")
    allowed = FORMS[form]
    found = extract_many([completion_text(c) for c in completions])
    return [1.0 if e is not None and e.method in allowed else 0.0 for e in found]


class MajorityVote(NamedTuple):
    """The answer most samples of one problem gave, and whether it is correct."""

    answer: str | None
    correct: bool
    votes: int
    samples: int


def majority_vote(gold: Any, responses: Sequence[Any], **options: Any) -> MajorityVote:
    r"""Grade every sample of one problem and vote: answers are grouped by the normalized form
    the grader compared (``GradeResults.normalized``, as ``rapidgrade score`` groups them), and
    the first answer to reach the top count wins a tie. *options* are :class:`RewardConfig`'s
    grading fields (``last_number``, ``fallback``, ``timeout``, ``policy``, ``max_answer_bytes``).

    >>> majority_vote("2", ["\\boxed{3}", "\\boxed{2}", "nothing"])
    MajorityVote(answer='3', correct=False, votes=1, samples=3)
    """
    check_options("majority_vote", options)
    config = reward_config(options)
    answers = gold_answers(gold, "majority_vote: gold")
    if not answers:
        raise ValueError(f"majority_vote: gold is empty ({gold!r}): there is nothing to grade against")
    texts = [completion_text(r) for r in responses]
    results = grade_answers([answers] * len(texts), texts, config)
    votes: dict[str, list[int]] = {}
    for i, key in enumerate(results.normalized):
        if key is not None:
            votes.setdefault(key, []).append(i)
    if not votes:
        return MajorityVote(None, False, 0, len(texts))
    winner = max(votes.values(), key=len)
    first = results[winner[0]]
    return MajorityVote(first.extracted, bool(first.correct), len(winner), len(texts))
