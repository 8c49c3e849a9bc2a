"""The implementation of :mod:`rapidgrade.compat`'s ``parse`` and ``verify`` (the package
re-exports it; :mod:`rapidgrade.compat.metric` builds math-verify's metric on its helpers)."""

from __future__ import annotations

import contextlib
import pickle
from collections.abc import Sequence
from typing import Any, Literal

try:
    import math_verify as _math_verify  # noqa: F401  (only checked here: the extra is installed)
except ImportError as _err:
    raise ImportError(
        "rapidgrade's math-verify compatible API (rapidgrade.parse, rapidgrade.verify, "
        "rapidgrade.compat) needs math-verify 0.9.0, which is not installed: "
        "pip install 'rapidgrade[math-verify]' (grade, grade_many and the SymPy fallback work without it)"
    ) from _err

from latex2sympy2_extended.latex2sympy2 import NormalizationConfig
from math_verify import ExprExtractionConfig, LatexExtractionConfig, StringExtractionConfig

from rapidgrade import _transport
from rapidgrade._pool import TaskResult
from rapidgrade.compat import _workers
from rapidgrade.compat._fast_parse import (
    DEFAULT_EXTRACTION_CONFIG,
    ExtractionTarget,
    fast_parse,
)
from rapidgrade.compat._fast_parse import clear_caches as clear_caches
from rapidgrade.compat._fast_verify import fast_verify
from rapidgrade.compat._workers import (
    TimeoutException,
    _backstop,
    _handle_failure,
    _load_exception,
    _remote_parse,
    _remote_verify,
)

__all__ = [
    "ExprExtractionConfig",
    "ExtractionTarget",
    "LatexExtractionConfig",
    "LatexNormalizationConfig",
    "NormalizationConfig",
    "ParseResult",
    "StringExtractionConfig",
    "TimeoutException",
    "parse",
    "verify",
]

#: math-verify's name for the normalization config (``from math_verify import
#: LatexNormalizationConfig``); the same class as :class:`NormalizationConfig`.
LatexNormalizationConfig = NormalizationConfig


class ParseResult(list):  # type: ignore[type-arg]
    """What :func:`parse` returns: math-verify's list, plus the input it was parsed from.

    It *is* a ``list`` (SymPy objects, then the matched string), equal to math-verify's result.
    ``source`` and ``options`` record the input string and the parse options, so that a later
    fast path can answer ``verify`` from the text without touching the SymPy objects.
    """

    source: str
    options: dict[str, Any]

    def __init__(self, items: Sequence[Any] = (), *, source: str = "", options: dict[str, Any] | None = None) -> None:
        super().__init__(items)
        self.source = source
        self.options = dict(options or {})
        self._snapshot = tuple(items)

    def unchanged(self) -> bool:
        """``True`` while the list still holds exactly the objects ``parse`` put in it."""
        return len(self) == len(self._snapshot) and all(a is b for a, b in zip(self, self._snapshot))


# -- parse --------------------------------------------------------------------------------------


def parse(
    pred: str,
    extraction_config: Sequence[ExtractionTarget] = DEFAULT_EXTRACTION_CONFIG,
    fallback_mode: Literal["no_fallback", "first_match"] = "first_match",
    extraction_mode: Literal["first_match", "any_match"] = "any_match",
    parsing_timeout: int = 5,
    raise_on_error: bool = False,
) -> ParseResult:
    r"""Extract and parse the answer in *pred*, exactly as ``math_verify.parse`` does.

    Args:
        pred: The text to parse (a model response, or a gold answer such as ``"$\frac{1}{2}$"``).
        extraction_config: What to look for, in priority order: :class:`LatexExtractionConfig`,
            :class:`ExprExtractionConfig`, :class:`StringExtractionConfig` instances.
        fallback_mode: ``"first_match"`` appends the first matched string even when it did not
            parse; ``"no_fallback"`` returns parsed objects only.
        extraction_mode: ``"any_match"`` tries every match until one parses; ``"first_match"``
            stops after the first match.
        parsing_timeout: Seconds math-verify may spend (``None`` or ``<= 0``: no limit). The
            worker doing the parse is killed if it overruns by more than a few seconds.
        raise_on_error: Raise parse errors (and ``TimeoutException``) instead of returning ``[]``.

    Returns:
        A :class:`ParseResult` (a ``list``): SymPy object(s), then the matched string; empty when
        nothing was found.

    >>> parse("The answer is $\\frac{1}{2}$")
    [1/2, '\\frac{1}{2}']
    >>> parse("The final answer is B", [StringExtractionConfig()])
    ['b', 'B']
    """
    planned = _plan_parse(pred, extraction_config, fallback_mode, extraction_mode, parsing_timeout, raise_on_error)
    if isinstance(planned, ParseResult):
        return planned
    outcome = _workers.run(_remote_parse, planned.args, timeout=planned.deadline)
    return _finish_parse(planned, outcome)


class _Pending:
    """A call the fast path could not answer: its task for math-verify in a worker."""

    __slots__ = ("args", "deadline", "options", "source")

    def __init__(self, args: tuple[Any, ...], deadline: float | None, source: Any, options: dict[str, Any]) -> None:
        self.args = args
        self.deadline = deadline
        self.source = source
        self.options = options


def _plan_parse(
    pred: Any,
    extraction_config: Any,
    fallback_mode: Any,
    extraction_mode: Any,
    parsing_timeout: Any,
    raise_on_error: Any,
) -> ParseResult | _Pending:
    """:func:`parse` answered by the fast path, or the task that answers it in a worker."""
    options = {
        "extraction_config": extraction_config,
        "fallback_mode": fallback_mode,
        "extraction_mode": extraction_mode,
        "parsing_timeout": parsing_timeout,
        "raise_on_error": raise_on_error,
    }
    fast = fast_parse(pred, extraction_config, fallback_mode, extraction_mode, parsing_timeout)
    if fast is not None:
        return ParseResult(fast, source=pred, options=options)

    config: Any = extraction_config
    if not isinstance(config, (list, tuple)):
        # A TypeError (not iterable): math-verify fails on it, and so will the worker.
        with contextlib.suppress(TypeError):
            config = list(config)  # a generator cannot be pickled; math-verify iterates it once
    return _Pending(
        (pred, config, fallback_mode, extraction_mode, parsing_timeout, raise_on_error),
        _backstop(parsing_timeout, 1),
        pred,
        options,
    )


def _finish_parse(planned: _Pending, outcome: TaskResult) -> ParseResult:
    """:func:`parse`'s result from its worker task's outcome."""
    if outcome.status == "ok":
        status, payload = outcome.value
        if status == "ok":
            return ParseResult(_transport.loads(payload), source=planned.source, options=planned.options)
        raise _load_exception(payload)
    _handle_failure(outcome, planned.options["raise_on_error"], f"Timeout during parsing: {planned.source}")
    return ParseResult([], source=planned.source, options=planned.options)


def _parse_many(texts: Sequence[str], extraction_config: Sequence[ExtractionTarget]) -> list[ParseResult]:
    """``[parse(text, extraction_config) for text in texts]``, what the fast path cannot answer
    sent to the workers together (in parallel)."""
    planned = [_plan_parse(text, extraction_config, "first_match", "any_match", 5, False) for text in texts]
    pending = [p for p in planned if isinstance(p, _Pending)]
    outcomes = iter(_workers.run_many(_remote_parse, [p.args for p in pending], timeout=_backstop(5, 1)))
    return [p if isinstance(p, ParseResult) else _finish_parse(p, next(outcomes)) for p in planned]


# -- verify -------------------------------------------------------------------------------------


def verify(
    gold: Any,
    target: Any,
    float_rounding: int = 6,
    numeric_precision: int = 15,
    strict: bool = True,
    allow_set_relation_comp: bool = False,
    timeout_seconds: int | None = 5,
    raise_on_error: bool = False,
) -> bool:
    """Whether *target* matches *gold*, exactly as ``math_verify.verify`` decides.

    Args:
        gold: The reference: what :func:`parse` returned for the gold answer (a list), or a
            single SymPy object or string.
        target: The prediction, in the same forms.
        float_rounding: Decimal places floats are rounded to before comparing.
        numeric_precision: Significant digits of numeric evaluation.
        strict: ``False`` matches variables by position and lets sets equal tuples.
        allow_set_relation_comp: Compare sets with relations (``(1, 2)`` with ``1 < x < 2``)
            whichever side is the set.
        timeout_seconds: Seconds per comparison (``None`` or ``<= 0``: no limit). The worker is
            killed if the whole call overruns its limits by more than a few seconds.
        raise_on_error: Raise comparison errors (and ``TimeoutException``) instead of
            returning ``False``.

    Returns:
        ``True`` if any parsed gold matches any parsed prediction.

    >>> verify(parse("$2$"), parse("The answer is 2."))
    True
    """
    planned = _plan_verify(
        gold,
        target,
        float_rounding,
        numeric_precision,
        strict,
        allow_set_relation_comp,
        timeout_seconds,
        raise_on_error,
    )
    if isinstance(planned, bool):
        return planned
    return _finish_verify(planned, _workers.run(_remote_verify, planned.args, timeout=planned.deadline))


def _plan_verify(
    gold: Any,
    target: Any,
    float_rounding: Any,
    numeric_precision: Any,
    strict: Any,
    allow_set_relation_comp: Any,
    timeout_seconds: Any,
    raise_on_error: Any,
) -> bool | _Pending:
    """:func:`verify` answered by the fast path, or the task that answers it in a worker."""
    fast = fast_verify(
        gold,
        target,
        float_rounding=float_rounding,
        numeric_precision=numeric_precision,
        strict=strict,
        allow_set_relation_comp=allow_set_relation_comp,
        timeout_seconds=timeout_seconds,
        raise_on_error=raise_on_error,
    )
    if fast is not None:
        return fast
    gold_items = list(gold) if isinstance(gold, list) else gold
    target_items = list(target) if isinstance(target, list) else target
    try:
        payload = _transport.dumps((gold_items, target_items))
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError) as err:
        # Only objects that are neither SymPy nor strings fail to pickle, and math-verify
        # compares those as unequal.
        if raise_on_error:
            raise TypeError(f"verify: cannot compare these objects ({type(err).__name__})") from err
        return False
    pairs = (len(gold_items) if isinstance(gold_items, list) else 1) * (
        len(target_items) if isinstance(target_items, list) else 1
    )
    kwargs = {
        "float_rounding": float_rounding,
        "numeric_precision": numeric_precision,
        "strict": strict,
        "allow_set_relation_comp": allow_set_relation_comp,
        "timeout_seconds": timeout_seconds,
        "raise_on_error": raise_on_error,
    }
    return _Pending((payload, kwargs), _backstop(timeout_seconds, pairs), None, kwargs)


def _finish_verify(planned: _Pending, outcome: TaskResult) -> bool:
    """:func:`verify`'s result from its worker task's outcome."""
    if outcome.status == "ok":
        status, value = outcome.value
        if status == "ok":
            return bool(value)
        raise _load_exception(value)
    _handle_failure(outcome, planned.options["raise_on_error"], "Timeout during comparison")
    return False


def _verify_many(pairs: Sequence[tuple[Any, Any]], float_rounding: Any) -> list[bool]:
    """``[verify(gold, target, float_rounding) for gold, target in pairs]``, what the fast path
    cannot answer sent to the workers together (in parallel)."""
    planned = [_plan_verify(g, t, float_rounding, 15, True, False, 5, False) for g, t in pairs]
    pending = [p for p in planned if isinstance(p, _Pending)]
    deadlines = [p.deadline for p in pending]
    deadline = None if not deadlines or None in deadlines else max(d for d in deadlines if d is not None)
    outcomes = iter(_workers.run_many(_remote_verify, [p.args for p in pending], timeout=deadline))
    return [p if isinstance(p, bool) else _finish_verify(p, next(outcomes)) for p in planned]
