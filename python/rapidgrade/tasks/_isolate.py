"""One row never loses a batch: a batch that raises is graded again in halves, down to the
rows that raise on their own, which get an error result of their own.

Batches are graded whole on the hot path (the core reads every row of a batch at once, with
the GIL released), so an exception raised by one hostile row (an overflow, a recursion limit,
a type the code did not expect) would otherwise lose every row of its batch. Bisection costs
nothing while no row raises and ``O(k log n)`` batch calls for *k* rows that raise among *n*.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["describe_exception", "isolate"]

T = TypeVar("T")
R = TypeVar("R")

#: Characters of an exception's message kept in a reason.
_MESSAGE_CHARS = 200


def describe_exception(exc: BaseException) -> str:
    """``"TypeName: message"`` for a reason, the message cut to a few hundred characters."""
    message = str(exc)
    if len(message) > _MESSAGE_CHARS:
        message = message[:_MESSAGE_CHARS] + "…"
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def isolate(
    grade: Callable[[Sequence[T]], Sequence[R]],
    items: Sequence[T],
    on_error: Callable[[T, Exception], R],
) -> list[R]:
    """``grade(items)`` as a list; when it raises an :class:`Exception`, each half of *items*
    is graded the same way, and an item that raises alone gets ``on_error(item, exc)``.
    ``grade`` must return one result per item, in order (else :class:`RuntimeError`).
    ``KeyboardInterrupt`` and ``SystemExit`` are never caught."""
    if not items:
        return []
    try:
        results = list(grade(items))
    except Exception as exc:
        if len(items) == 1:
            return [on_error(items[0], exc)]
        middle = len(items) // 2
        return isolate(grade, items[:middle], on_error) + isolate(grade, items[middle:], on_error)
    if len(results) != len(items):
        raise RuntimeError(f"isolate: {len(results)} results for {len(items)} items")
    return results
