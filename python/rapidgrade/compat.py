r"""A drop-in replacement for math-verify 0.9.0's ``parse`` and ``verify``.

Switch by changing one import line::

    from math_verify import parse, verify, LatexExtractionConfig     # before
    from rapidgrade import parse, verify, LatexExtractionConfig      # after

The functions have math-verify 0.9.0's signatures and give its answers, *known bugs included*
(published numbers must not move when users switch; the native :func:`rapidgrade.grade` is the
API that is right where math-verify is wrong). To guarantee that, everything rapidgrade cannot
answer with certainty is computed by math-verify itself, in worker processes
(:mod:`rapidgrade._pool`), which brings two improvements and no change of result:

* No signal handler or alarm of the caller's process is touched (math-verify arms
  ``signal.alarm``, which fails outside the main thread and clobbers the caller's own alarm);
  ``parse``/``verify`` work from threads, notebooks and other libraries' worker pools.
* A comparison that hangs is killed: past its time limit (plus a margin) the worker is replaced,
  and the call returns what math-verify returns on a timeout (``[]`` / ``False``, or
  ``TimeoutException`` with ``raise_on_error=True``).

``parse`` returns a :class:`ParseResult`: a ``list`` holding real SymPy objects then the matched
string, like math-verify's, which also remembers the input and options. The config classes are
math-verify's own (re-exported), so ``isinstance``, equality and hashing are unchanged, and configs
built with either import work with either library.

>>> gold = parse("$\\frac{1}{2}$")           # doctest: +SKIP
>>> verify(gold, parse("The answer is 0.5"))  # doctest: +SKIP
True

The fast path. ``verify`` first asks :func:`_fast_verify` and ``parse`` asks :func:`_fast_parse`;
each answers only where it is *proven* to agree with math-verify and returns ``None`` otherwise.
Today they cover plain integers under the default configs (``parse("42")``, and ``verify`` on
lists of SymPy integers and strings); the native expression engine will widen them later.
"""

from __future__ import annotations

import logging
import math
import pickle
import re
import sys
from collections.abc import Sequence
from itertools import product
from typing import Any, Literal, Union

from latex2sympy2_extended.latex2sympy2 import NormalizationConfig
from math_verify import ExprExtractionConfig, LatexExtractionConfig, StringExtractionConfig
from math_verify.errors import TimeoutException

from rapidgrade import _transport
from rapidgrade._pool import TaskResult, default_pool

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

logger = logging.getLogger(__name__)

#: math-verify's name for the normalization config (``from math_verify import
#: LatexNormalizationConfig``); the same class as :class:`NormalizationConfig`.
LatexNormalizationConfig = NormalizationConfig

ExtractionTarget = Union[LatexExtractionConfig, ExprExtractionConfig, StringExtractionConfig]

#: math-verify's default ``extraction_config`` (a tuple here: no mutable default argument).
DEFAULT_EXTRACTION_CONFIG: tuple[ExtractionTarget, ...] = (
    LatexExtractionConfig(),
    ExprExtractionConfig(),
)

#: Seconds allowed on top of math-verify's own time limit before a worker is killed: process
#: start-up is not counted (workers are warm), so this only covers pickling and scheduling.
_GRACE_SECONDS = 10.0


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
        return len(self) == len(self._snapshot) and all(
            a is b for a, b in zip(self, self._snapshot)
        )


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

    >>> parse("The answer is $\\frac{1}{2}$")                       # doctest: +SKIP
    [1/2, '\\frac{1}{2}']
    >>> parse("The final answer is B", [StringExtractionConfig()])  # doctest: +SKIP
    ['b', 'B']
    """
    options = {
        "extraction_config": extraction_config,
        "fallback_mode": fallback_mode,
        "extraction_mode": extraction_mode,
        "parsing_timeout": parsing_timeout,
        "raise_on_error": raise_on_error,
    }
    fast = _fast_parse(pred, extraction_config, fallback_mode, extraction_mode)
    if fast is not None:
        return ParseResult(fast, source=pred, options=options)

    config: Any = extraction_config
    if not isinstance(config, (list, tuple)):
        try:
            config = list(config)  # a generator cannot be pickled; math-verify iterates it once
        except TypeError:
            pass  # not iterable: math-verify fails on it, and so will the worker
    outcome = default_pool().run(
        _remote_parse,
        (pred, config, fallback_mode, extraction_mode, parsing_timeout, raise_on_error),
        timeout=_backstop(parsing_timeout, 1),
    )
    if outcome.status == "ok":
        status, payload = outcome.value
        if status == "ok":
            return ParseResult(_transport.loads(payload), source=pred, options=options)
        raise _load_exception(payload)
    _handle_failure(outcome, raise_on_error, f"Timeout during parsing: {pred}")
    return ParseResult([], source=pred, options=options)


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
    except BaseException as err:  # noqa: BLE001 - re-raised in the caller's process
        return "raise", _dump_exception(err)
    return "ok", _transport.dumps(list(result))


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

    >>> verify(parse("$2$"), parse("The answer is 2."))  # doctest: +SKIP
    True
    """
    fast = _fast_verify(
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
    outcome = default_pool().run(
        _remote_verify, (payload, kwargs), timeout=_backstop(timeout_seconds, pairs)
    )
    if outcome.status == "ok":
        status, value = outcome.value
        if status == "ok":
            return bool(value)
        raise _load_exception(value)
    _handle_failure(outcome, raise_on_error, "Timeout during comparison")
    return False


def _remote_verify(payload: bytes, kwargs: dict[str, Any]) -> tuple[str, Any]:
    """Worker side of :func:`verify`."""
    import math_verify

    gold, target = _transport.loads(payload)
    try:
        return "ok", bool(math_verify.verify(gold, target, **kwargs))
    except BaseException as err:  # noqa: BLE001 - re-raised in the caller's process
        return "raise", _dump_exception(err)


# -- the fast path ------------------------------------------------------------------------------

# A plain integer as math-verify's number regex reads it without changing the text: no sign on
# zero, no leading zeros, no separators, few enough digits for any int/str conversion limit.
# e.g. "42", "-7", "0"
_PLAIN_INTEGER = re.compile(r"-?[1-9][0-9]{0,17}|0")


def _fast_parse(
    pred: Any, extraction_config: Any, fallback_mode: Any, extraction_mode: Any
) -> list[Any] | None:
    """``math_verify.parse(pred, ...)`` where it is certain without math-verify, else ``None``.

    Covered: *pred* is a plain integer (``"42"``, ``"-7"``) and the config is the default
    ``[LatexExtractionConfig(), ExprExtractionConfig()]`` or ``[ExprExtractionConfig()]``.
    No LaTeX pattern can match such a string (every one needs ``$``, ``\\(``, ``\\[`` or
    ``\\boxed``), and math-verify's number pattern takes it whole, so math-verify returns
    ``[Number(pred), pred]`` (``[Number(pred)]`` without fallback). ``tests/unit/test_compat.py``
    checks this against math-verify itself.
    """
    if type(pred) is not str or _PLAIN_INTEGER.fullmatch(pred) is None:
        return None
    if fallback_mode not in ("first_match", "no_fallback") or extraction_mode not in (
        "first_match",
        "any_match",
    ):
        return None
    if not isinstance(extraction_config, (list, tuple)):
        return None
    configs = list(extraction_config)
    if configs != list(DEFAULT_EXTRACTION_CONFIG) and configs != [ExprExtractionConfig()]:
        return None
    if any(type(c) not in (LatexExtractionConfig, ExprExtractionConfig) for c in configs):
        return None  # subclasses may change behaviour
    from sympy import Number

    number = Number(pred)
    return [number, pred] if fallback_mode == "first_match" else [number]


def _fast_verify(
    gold: Any,
    target: Any,
    *,
    float_rounding: Any,
    numeric_precision: Any,
    strict: Any,
    allow_set_relation_comp: Any,
    timeout_seconds: Any,
    raise_on_error: Any,
) -> bool | None:
    """``math_verify.verify(gold, target, ...)`` where it is certain, else ``None``.

    Covered: every element on both sides (after math-verify's wrapping of a non-list in a list)
    is a ``str`` or a SymPy ``Integer``. math-verify then decides each pair as follows, and any
    pair that matches makes the answer ``True``:

    * integer and integer: ``sympy_expr_eq`` finds them equal by ``a == b`` (then its numeric
      comparison of two integers is again ``a == b``, and ``simplify(a - b)`` is a nonzero integer
      when they differ), whatever ``float_rounding``, ``numeric_precision`` or ``strict`` say;
    * string and string: equal after ``strip()`` and not empty;
    * string and integer: never equal.

    The time limit only matters when math-verify cannot arm it: ``signal.alarm`` accepts only an
    ``int``, so any other positive limit makes every comparison fail, and that case is left to
    math-verify.
    """
    if timeout_seconds is not None:
        if isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds, (int, float)):
            return None
        if timeout_seconds > 0 and not isinstance(timeout_seconds, int):
            return None
        if isinstance(timeout_seconds, float) and math.isnan(timeout_seconds):
            return None
    golds = list(gold) if isinstance(gold, list) else [gold]
    targets = list(target) if isinstance(target, list) else [target]
    sympy = sys.modules.get("sympy")  # a SymPy integer cannot exist unless SymPy is loaded
    integer_type = sympy.Integer if sympy is not None else None

    def simple(x: Any) -> bool:
        return type(x) is str or (integer_type is not None and isinstance(x, integer_type))

    if not all(simple(x) for x in golds) or not all(simple(x) for x in targets):
        return None
    for g, t in product(golds, targets):
        if type(g) is str and type(t) is str:
            g_text, t_text = g.strip(), t.strip()
            if g_text and t_text and g_text == t_text:
                return True
        elif type(g) is not str and type(t) is not str:
            if g == t:
                return True
    return False


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
