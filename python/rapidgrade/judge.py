r"""A judge for what the grader cannot decide: ``GradeConfig(judge=...)``.

The fast path and the fallback decide almost every pair with certainty. What they leave open
goes to the judge when one is configured, in one batched call per ``grade_many`` call:

* a pair the fast path left undecided (a reason that starts "undecided"): with
  ``fallback=False``, or one the fallback cannot help with (a weak reading the core disproved, a
  multiple-choice letter against an answer that names no choice, a constant with no value such as
  ``f(0)`` against a number or a function with no definition on one side only, an equation whose
  last member differs while an earlier one may be the answer, a gold equation against a value, a
  condition against values, an answer with an ellipsis against one without, a disproved reading of
  a response that argues or closes a proof, of a table cell, of one member of a gold list or
  union, of a last number that a label or another sentence follows, or of another shape than
  the gold,
  words against an expression in unknowns),
  which a judge that reads the whole response may still decide;
* a pair the fallback could not prove equal (reason ``"not proven equal: ..."``), or that ran
  out of time (``decided_by="timeout"``) or failed in the fallback (``decided_by="error"`` on
  string inputs).

A certain verdict is never judged again: a TRUE, a FALSE the grader disproved ("not
equivalent"), an input that is not a string, an answer over a limit (``decided_by="limit"``).

A judge is a callable ``judge(golds, responses) -> [True | False | None, ...]`` (one per pair;
``None`` leaves the verdict as it is), sync or ``async``. A pair it decides gets
``decided_by="judge"`` and the reason ``"judge: equivalent"`` or ``"judge: not equivalent"``; if
the judge raises, the verdicts stay as they are and their reason says so. :class:`OpenAIJudge`
asks a model behind an OpenAI-compatible ``chat/completions`` endpoint (an LLM verifier).

>>> def integrals_are_half(golds, responses):   # a stand-in for an LLM verifier
...     return [True if g.startswith("\\int") else None for g in golds]
>>> import rapidgrade
>>> config = rapidgrade.GradeConfig(fallback=False, judge=integrals_are_half)
>>> [(v.correct, v.decided_by, v.reason) for v in rapidgrade.grade_many(
...     ["\\int_0^1 x\\,dx", "2"], [r"so $\boxed{1/2}$", r"so $\boxed{3}$"], config=config)]
[(True, 'judge', 'judge: equivalent'), (False, 'fast', 'not equivalent')]
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from rapidgrade.verdict import GradeResults

__all__ = ["DEFAULT_PROMPT", "Judge", "OpenAIJudge", "apply_judge", "to_judge"]

#: ``judge(golds, responses) -> one bool (or None: undecided) per pair``, or an awaitable of that.
Judge = Callable[[list[str], list[str]], "Sequence[bool | None] | Awaitable[Sequence[bool | None]]"]

_UNDECIDED = "undecided"  # the start of every reason of a pair the fast path left open
_NOT_PROVEN = "not proven equal: "


def to_judge(golds: Sequence[Any], responses: Sequence[Any], results: GradeResults) -> list[int]:
    """The rows of *results* the judge gets (see the module's description)."""
    rows = []
    decided = results.decided_by.tolist()
    reasons = results.reason
    correct = results.correct.tolist()
    for i, (by, reason, ok) in enumerate(zip(decided, reasons, correct)):
        if ok or not isinstance(golds[i], str) or not isinstance(responses[i], str):
            continue
        if (
            (by == "fast" and reason.startswith(_UNDECIDED))
            or (by in ("sympy", "math_verify") and reason.startswith(_NOT_PROVEN))
            or by in ("timeout", "error")
        ):
            rows.append(i)
    return rows


def _call(judge: Judge, golds: list[str], responses: list[str]) -> Sequence[bool | None]:
    """*judge*'s answers, awaited when it is async (in a fresh event loop; in a thread of its own
    when this thread already runs one)."""
    out = judge(golds, responses)
    if not inspect.isawaitable(out):
        return out
    awaitable = out

    async def wait() -> Sequence[bool | None]:
        return await awaitable

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, wait()).result()


def apply_judge(judge: Judge, golds: Sequence[Any], responses: Sequence[Any], results: GradeResults) -> GradeResults:
    """*results* with the verdicts the grader left open decided by *judge* (one batched call)."""
    rows = to_judge(golds, responses, results)
    if not rows:
        return results
    correct = results.correct.tolist()
    decided: list[str] = results.decided_by.tolist()
    reason = list(results.reason)
    try:
        answers = list(_call(judge, [golds[i] for i in rows], [responses[i] for i in rows]))
        if len(answers) != len(rows):
            raise ValueError(f"the judge returned {len(answers)} answers for {len(rows)} pairs")
    except Exception as error:  # the batch keeps its verdicts; each says the judge failed
        for i in rows:
            reason[i] = f"{reason[i]}; judge failed: {type(error).__name__}: {error}"
        return _rebuilt(results, correct, decided, reason)
    for i, answer in zip(rows, answers):
        if answer is None:
            continue
        if not isinstance(answer, (bool, np.bool_)):
            reason[i] = f"{reason[i]}; judge answered {answer!r}, not a bool or None"
            continue
        correct[i] = bool(answer)
        decided[i] = "judge"
        reason[i] = "judge: equivalent" if answer else "judge: not equivalent"
    return _rebuilt(results, correct, decided, reason)


def _rebuilt(results: GradeResults, correct: list[bool], decided: list[str], reason: list[str]) -> GradeResults:
    return GradeResults.from_columns(
        correct=correct,
        decided_by=decided,
        gold=results.gold,
        extracted=results.extracted,
        method=results.method,
        reason=reason,
        normalized=results.normalized,
    )


#: The instructions :class:`OpenAIJudge` sends as the system message.
DEFAULT_PROMPT = (
    "You check answers to math problems. You are given a reference answer and a response that "
    "ends with a final answer. Decide whether the response's final answer is mathematically "
    "equivalent to the reference answer: the same value, set, interval or expression, whatever "
    "its notation (fractions or decimals, LaTeX or plain text, units written or not when the "
    "number agrees). Ignore the reasoning; judge only the final answer. Reply with exactly one "
    "word: YES if equivalent, NO if not."
)


@dataclass(frozen=True, slots=True)
class OpenAIJudge:
    """A judge that asks a model behind an OpenAI-compatible ``POST {base_url}/chat/completions``
    (vLLM, SGLang, llama.cpp's server, a hosted API), one request per pair, *concurrency* at a
    time. The system message is *prompt* (:data:`DEFAULT_PROMPT`); the user message holds the
    reference answer and the response; the reply's first word decides (``YES``: equivalent,
    ``NO``: not; anything else, or a failed request: ``None``, undecided).

    Attributes:
        base_url: The API's base, e.g. ``"http://127.0.0.1:8001/v1"``.
        model: The model name the endpoint serves.
        api_key: Sent as ``Authorization: Bearer ...`` when given.
        timeout: Seconds per request.
        concurrency: Requests in flight at once.
        max_tokens: Tokens the reply may take (a reasoning model needs more).
        prompt: The system message.
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 60.0
    concurrency: int = 8
    max_tokens: int = 8
    prompt: str = DEFAULT_PROMPT

    def messages(self, gold: str, response: str) -> list[dict[str, str]]:
        """The chat messages of one pair."""
        return [
            {"role": "system", "content": self.prompt},
            {"role": "user", "content": f"Reference answer: {gold}\n\nResponse:\n{response}"},
        ]

    def ask(self, gold: str, response: str) -> bool | None:
        """The model's decision on one pair (``None``: no clear answer, or the request failed)."""
        body = {
            "model": self.model,
            "messages": self.messages(gold, response),
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.base_url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(), headers=headers
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                data = json.loads(reply.read())
            text = str(data["choices"][0]["message"]["content"] or "")
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            return None
        words = text.strip().split()
        first = words[0].strip(".,:;!*\"'").upper() if words else ""
        return True if first == "YES" else False if first == "NO" else None

    def __call__(self, golds: list[str], responses: list[str]) -> list[bool | None]:
        with concurrent.futures.ThreadPoolExecutor(max(1, self.concurrency)) as pool:
            return list(pool.map(self.ask, golds, responses))
