r"""Grading Hugging Face ``datasets``: :func:`grade_dataset` and :func:`map_fn` for ``Dataset.map``.

Both add the columns ``correct`` (bool), ``extracted`` (the answer found, or ``None``) and
``decided_by`` (which path decided), and with ``reason=True`` a ``reason`` column, by handing each
batch of the ``map`` straight to :func:`rapidgrade.grade_many` (C++ threads, the GIL released).
Nothing here imports ``datasets``: any object with its ``map(fn, batched=True, ...)`` works.

>>> fn = map_fn(gold="answer", response="output")
>>> fn({"answer": ["1/2", "3"], "output": [r"\boxed{0.5}", "The answer is 4."]})
{'correct': [True, False], 'extracted': ['0.5', '4'], 'decided_by': ['fast', 'fast']}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidgrade.grade import grade_many
from rapidgrade.integrations._text import completion_text

__all__ = ["BatchGrader", "grade_dataset", "map_fn"]


@dataclass(frozen=True, slots=True)
class BatchGrader:
    """The function :func:`map_fn` returns: a picklable callable from a batch (a dict of column
    lists, as ``Dataset.map(batched=True)`` passes it) to the new columns."""

    gold: str = "gold"
    response: str = "response"
    reason: bool = False
    options: tuple[tuple[str, Any], ...] = field(default=())

    def __call__(self, batch: Mapping[str, Sequence[Any]]) -> dict[str, list[Any]]:
        for name in (self.gold, self.response):
            if name not in batch:
                raise KeyError(f"rapidgrade.map_fn: the dataset has no column {name!r} (columns: {sorted(batch)})")
        responses = [completion_text(r) for r in batch[self.response]]
        results = grade_many(list(batch[self.gold]), responses, **dict(self.options))
        out: dict[str, list[Any]] = {
            "correct": results.correct.tolist(),
            "extracted": results.extracted,
            "decided_by": results.decided_by.tolist(),
        }
        if self.reason:
            out["reason"] = results.reason
        return out


def map_fn(gold: str = "gold", response: str = "response", *, reason: bool = False, **options: Any) -> BatchGrader:
    r"""A function for ``ds.map(fn, batched=True)`` that grades column *response* against column
    *gold*; *options* are :func:`rapidgrade.grade_many`'s (``last_number``, ``timeout``,
    ``fallback``, ``threads``, ``task``, ...). Responses may be strings or conversations (the
    last message's content is graded).

    >>> map_fn(reason=True)({"gold": ["2"], "response": ["The answer is 3."]})["reason"]
    ['not equivalent']
    """
    return BatchGrader(gold, response, reason, tuple(sorted(options.items())))


def grade_dataset(
    ds: Any,
    gold: str = "gold",
    response: str = "response",
    *,
    num_proc: int | None = None,
    batch_size: int = 1000,
    reason: bool = False,
    **options: Any,
) -> Any:
    r"""*ds* with the columns ``correct``, ``extracted`` and ``decided_by`` added (see
    :func:`map_fn`): ``ds.map(map_fn(...), batched=True, batch_size=batch_size, num_proc=num_proc)``.
    A ``DatasetDict`` is graded split by split. Each of *num_proc* processes grades its batches
    on all cores and keeps its own fallback workers, so ``num_proc`` above 1 helps only when the
    fallback dominates.

    Raises:
        KeyError: a column is missing (raised by ``datasets`` from the first batch).
    """
    fn = map_fn(gold, response, reason=reason, **options)
    return ds.map(fn, batched=True, batch_size=batch_size, num_proc=num_proc, desc="rapidgrade")
