"""The checks of the worker pool's arguments (:mod:`rapidgrade._pool`): a task's *timeout*, a
call's *deadline* and a task's *memory_limit*, each read into seconds or bytes, and warm-up
steps; anything else is refused with an error naming the caller and the option. Re-exported by
:mod:`rapidgrade._pool`; the grading functions check their options with them before any work
starts."""

from __future__ import annotations

import math
import numbers
import pickle
from collections.abc import Iterable

from rapidgrade._pool_worker import WarmupStep, _describe

__all__ = ["MIN_MEMORY_LIMIT", "check_deadline", "check_memory_limit", "check_steps", "check_timeout"]


def check_timeout(timeout: object, where: str) -> float | None:
    """*timeout* as seconds, or ``None`` for no limit (``None`` or infinity).

    Raises ``TypeError`` (not a real number) or ``ValueError`` (NaN, zero, negative), naming
    *where* and the option.

    >>> check_timeout(2, "f"), check_timeout(float("inf"), "f"), check_timeout(None, "f")
    (2.0, None, None)
    >>> check_timeout(float("nan"), "f")
    Traceback (most recent call last):
    ValueError: f: timeout must be > 0 seconds (or None for no limit), got nan
    """
    return _seconds(timeout, where, "timeout", "no limit")


def check_deadline(deadline: object, where: str) -> float | None:
    """*deadline* (seconds of wall time for a whole call) as seconds, or ``None`` for none.

    The same rules as :func:`check_timeout`: ``None``, infinity and integers beyond any float
    mean no deadline; ``TypeError`` for what is not a real number, ``ValueError`` for NaN, zero
    or a negative number, naming *where* and the option.

    >>> check_deadline(2, "f"), check_deadline(None, "f")
    (2.0, None)
    >>> check_deadline(0, "f")
    Traceback (most recent call last):
    ValueError: f: deadline must be > 0 seconds (or None for no deadline), got 0
    """
    return _seconds(deadline, where, "deadline", "no deadline")


def _seconds(value: object, where: str, name: str, none_means: str) -> float | None:
    """*value* as seconds, or ``None`` (``None``, infinity, or an integer beyond any float and
    positive: *none_means*); the errors name *where* and the option *name*."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where}: {name} must be a number of seconds or None, not {type(value).__name__}")
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond float range: far past any wait, or far below zero
        if isinstance(value, int) and value > 0:
            return None
        seconds, value = -math.inf, "a negative number beyond any float"
    if math.isnan(seconds) or seconds <= 0:
        raise ValueError(f"{where}: {name} must be > 0 seconds (or None for {none_means}), got {value!r}")
    return None if math.isinf(seconds) else seconds


#: The smallest memory limit a task may be given (a warm worker alone uses a few hundred MiB of
#: address space; a smaller limit would fail every task).
MIN_MEMORY_LIMIT = 64 << 20


def check_memory_limit(limit: object, where: str, name: str = "memory_limit") -> int | None:
    """*limit* (bytes of address space per task) as an int, or ``None`` for no limit.

    >>> check_memory_limit(1 << 30, "f"), check_memory_limit(None, "f")
    (1073741824, None)
    >>> check_memory_limit(1000, "f")
    Traceback (most recent call last):
    ValueError: f: memory_limit must be at least 67108864 bytes (64 MiB) or None, got 1000
    """
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"{where}: {name} must be an int (bytes) or None, not {type(limit).__name__}")
    if limit < MIN_MEMORY_LIMIT:
        raise ValueError(
            f"{where}: {name} must be at least {MIN_MEMORY_LIMIT} bytes ({MIN_MEMORY_LIMIT >> 20} MiB) or None, "
            f"got {limit!r}"
        )
    return int(limit)


def check_steps(steps: Iterable[WarmupStep], where: str) -> tuple[WarmupStep, ...]:
    """*steps* as a tuple; ``TypeError`` for a step that is neither a module name nor a
    function importable by name (pickled to check), naming *where*."""
    checked: list[WarmupStep] = []
    for step in steps:
        if isinstance(step, str):
            checked.append(step)
            continue
        if not callable(step):
            raise TypeError(f"{where}: a warm-up step must be a module name or a function, not {step!r}")
        try:
            pickle.dumps(step, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as err:
            raise TypeError(f"{where}: warm-up function {step!r} is not importable by name ({_describe(err)})") from err
        checked.append(step)
    return tuple(checked)
