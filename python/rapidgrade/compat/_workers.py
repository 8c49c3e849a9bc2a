"""What runs in, or talks to, the worker processes of the math-verify compatible API.

Everything ``parse``/``verify`` cannot answer in process is computed by math-verify itself in the
shared worker pool (:mod:`rapidgrade._pool`): the functions sent there (``_remote_parse``,
``_remote_verify``, ``_remote_latex``, and the warm-up ``_warm_up``) are module-level here, so a
worker finds them by their module path. Exceptions raised in a worker are pickled back
(``_dump_exception``/``_load_exception``); a worker that times out or dies is handled as
math-verify handles its own failures (``_handle_failure``), against a deadline of math-verify's
own limit plus a margin (``_backstop``).
"""

from __future__ import annotations

import logging
import pickle
from collections.abc import Callable
from typing import Any

from math_verify.errors import TimeoutException as _MathVerifyTimeout

from rapidgrade import _transport
from rapidgrade._pool import TaskResult, add_default_warmup, default_pool

# The facade's logger: the messages are those of ``rapidgrade.compat`` wherever they come from.
logger = logging.getLogger("rapidgrade.compat")


class TimeoutException(TimeoutError, _MathVerifyTimeout):  # type: ignore[misc]  # untyped base
    """Raised by ``parse``/``verify`` with ``raise_on_error=True`` when the time limit passes.

    It is a ``math_verify.errors.TimeoutException`` (so code written for math-verify catches it)
    and, unlike that one, an ``Exception`` (a ``TimeoutError``), so that only
    ``KeyboardInterrupt`` and ``SystemExit`` leave rapidgrade outside ``except Exception``.
    """


# Defined here (where it is raised) and re-exported by the facade, under whose name it is shown.
TimeoutException.__module__ = "rapidgrade.compat"

#: Seconds allowed on top of math-verify's own time limit before a worker is killed: process
#: start-up is not counted (workers are warm), so this only covers pickling and scheduling.
_GRACE_SECONDS = 10.0


def run(fn: Callable[..., Any], args: tuple[Any, ...], timeout: float | None) -> TaskResult:
    """Run ``fn(*args)`` in the shared worker pool (the one way the compatible API reaches it,
    with :func:`run_many`)."""
    return default_pool().run(fn, args, timeout=timeout)


def run_many(fn: Callable[..., Any], args: list[tuple[Any, ...]], timeout: float | None) -> list[TaskResult]:
    """Run ``fn(*a)`` for every ``a`` in *args*, spread over the shared pool's workers (none
    started when *args* is empty)."""
    if not args:
        return []
    return default_pool().run_many(fn, args, timeout=timeout)


def _warm_up() -> None:
    """Worker warm-up for ``parse``/``verify``: math-verify's parsers and comparison, once.

    math-verify builds its LaTeX grammar and extraction patterns on first use (seconds in a
    fresh process); a worker runs this before its first task so that time is never charged to a
    caller's deadline (see :mod:`rapidgrade._pool`).
    """
    import math_verify

    gold = math_verify.parse("$\\frac{1}{2}$")
    math_verify.verify(gold, math_verify.parse("The answer is \\boxed{0.5}"))
    math_verify.verify(math_verify.parse("$x^2 + 1$"), math_verify.parse("$(x+1)^2 - 2x$"))
    math_verify.verify(math_verify.parse("$[0, 1)$"), math_verify.parse("$\\{1, 2\\}$"))


# The functions here run in the shared pool, which knows none of its clients: register ours.
add_default_warmup(_warm_up)


def _remote_parse(
    pred: Any,
    extraction_config: Any,
    fallback_mode: Any,
    extraction_mode: Any,
    parsing_timeout: Any,
    raise_on_error: Any,
) -> tuple[str, bytes]:
    """Worker side of :func:`parse`: math-verify's ``parse``, result in transport form."""
    import math_verify

    try:
        result = math_verify.parse(
            pred,
            extraction_config=extraction_config,
            fallback_mode=fallback_mode,
            extraction_mode=extraction_mode,
            parsing_timeout=parsing_timeout,
            raise_on_error=raise_on_error,
        )
    except BaseException as err:  # re-raised in the caller's process
        return "raise", _dump_exception(err)
    return "ok", _transport.dumps(list(result))


def _remote_verify(payload: bytes, kwargs: dict[str, Any]) -> tuple[str, Any]:
    """Worker side of :func:`verify`."""
    import math_verify

    gold, target = _transport.loads(payload)
    try:
        return "ok", bool(math_verify.verify(gold, target, **kwargs))
    except BaseException as err:  # re-raised in the caller's process
        return "raise", _dump_exception(err)


def _remote_latex(latex: str, parsing_timeout: Any) -> tuple[str, bytes]:
    """Worker side of :func:`rapidgrade.compat._fast_parse._latex_value`, under math-verify's own time limit."""
    from math_verify.parser import parse_latex_cached
    from math_verify.utils import timeout

    try:
        value = timeout(timeout_seconds=parsing_timeout)(parse_latex_cached)(latex)
    except BaseException as err:  # any failure sends the caller to math-verify
        return "fail", type(err).__name__.encode()
    if value is None:
        return "fail", b"None"
    return "ok", _transport.dumps([value])


def _remote_strings(payload: bytes, seconds: int) -> tuple[str, Any]:
    """Worker side of :func:`rapidgrade.compat.metric.math_metric`'s printing of the extracted
    objects, under math-verify's own time limit: ``("ok", (golds, predictions))``,
    ``("timeout", None)`` or ``("raise", exception)``."""
    from math_verify.utils import timeout

    golds, predictions = _transport.loads(payload)

    def strings() -> tuple[list[str], list[str]]:
        return [str(x) for x in golds], [str(x) for x in predictions]

    try:
        return "ok", timeout(timeout_seconds=seconds)(strings)()
    except _MathVerifyTimeout:
        return "timeout", None
    except BaseException as err:  # re-raised in the caller's process, as math-verify lets it out
        return "raise", _dump_exception(err)


# -- failures -----------------------------------------------------------------------------------


def _backstop(limit: Any, pairs: int) -> float | None:
    """Deadline for the worker: math-verify's own limit per comparison, plus a margin."""
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0:
        return None  # no limit in math-verify either
    return float(limit) * max(1, pairs) + _GRACE_SECONDS


def _handle_failure(outcome: TaskResult, raise_on_error: bool, timeout_message: str) -> None:
    """A worker timed out or died: raise (``raise_on_error``) or log, as math-verify does."""
    if outcome.status == "timeout":
        if raise_on_error:
            raise TimeoutException(timeout_message)
        logger.warning(timeout_message)
        return
    if raise_on_error:
        raise RuntimeError(f"math-verify failed in a worker process: {outcome.error}")
    logger.debug("math-verify failed in a worker process: %s", outcome.error)


def _dump_exception(err: BaseException) -> bytes:
    try:
        return pickle.dumps(err)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return pickle.dumps(RuntimeError(f"{type(err).__name__} (not picklable)"))


def _load_exception(data: bytes) -> BaseException:
    try:
        err = pickle.loads(data)
    except (pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError) as load_err:
        return RuntimeError(f"an error in the worker could not be loaded: {type(load_err).__name__}")
    if isinstance(err, BaseException):
        return err
    return RuntimeError("an error in the worker could not be loaded")
