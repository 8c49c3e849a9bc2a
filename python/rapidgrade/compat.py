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
Under the default configs ``parse`` covers responses whose ``\boxed{...}`` (or LaTeX "final
answer ... is") decides, golds given as ``$X$``, and plain integers (:mod:`rapidgrade._compat_fast`
finds math-verify's match and normalizes it; plain numbers are built here, other LaTeX is
converted by math-verify's ``parse_latex_cached`` in a worker and memoized). ``verify`` decides
strings, numbers, integer percentages, symbols against atoms, and equal expression trees in
process, with math-verify's own comparison steps; every other pair goes to math-verify.
"""

from __future__ import annotations

import logging
import math
import pickle
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from itertools import product
from typing import Any, Literal, Union

from latex2sympy2_extended.latex2sympy2 import NormalizationConfig
from math_verify import ExprExtractionConfig, LatexExtractionConfig, StringExtractionConfig
from math_verify.errors import TimeoutException as _MathVerifyTimeout

from rapidgrade import _compat_fast, _transport
from rapidgrade._pool import TaskResult, add_default_warmup, default_pool


class TimeoutException(TimeoutError, _MathVerifyTimeout):  # type: ignore[misc]  # untyped base
    """Raised by ``parse``/``verify`` with ``raise_on_error=True`` when the time limit passes.

    It is a ``math_verify.errors.TimeoutException`` (so code written for math-verify catches it)
    and, unlike that one, an ``Exception`` (a ``TimeoutError``), so that only
    ``KeyboardInterrupt`` and ``SystemExit`` leave rapidgrade outside ``except Exception``.
    """

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
    fast = _fast_parse(pred, extraction_config, fallback_mode, extraction_mode, parsing_timeout)
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


# Every call above runs in the shared pool, which knows none of its clients: register ours.
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

_DEFAULT_CONFIG_LIST = list(DEFAULT_EXTRACTION_CONFIG)


def _fast_parse(
    pred: Any,
    extraction_config: Any,
    fallback_mode: Any,
    extraction_mode: Any,
    parsing_timeout: Any = 5,
) -> list[Any] | None:
    r"""``math_verify.parse(pred, ...)`` where it is certain without math-verify, else ``None``.

    Covered, with the default ``[LatexExtractionConfig(), ExprExtractionConfig()]`` (or
    ``[LatexExtractionConfig()]``): a response whose ``\boxed{...}`` (or LaTeX "final answer ...
    is") match decides, and a string that is exactly ``$X$`` (see :mod:`rapidgrade._compat_fast`);
    the value is built here for plain numbers, and otherwise is math-verify's
    ``parse_latex_cached`` of the normalized LaTeX, computed in a worker (:func:`_latex_value`;
    if it fails, ``None``: math-verify would go on to other matches). With the default config or
    ``[ExprExtractionConfig()]``, *pred* a plain integer (``"42"``, ``"-7"``): no LaTeX pattern can
    match such a string (every one needs ``$``, ``\(``, ``\[`` or ``\boxed``), and math-verify's
    number pattern takes it whole, so math-verify returns ``[Number(pred), pred]``
    (``[Number(pred)]`` without fallback). When the first match parses, ``extraction_mode`` makes
    no difference. ``parsing_timeout`` must be ``None`` or an ``int``: math-verify's
    ``signal.alarm`` rejects any other positive limit, and then ``parse`` returns ``[]``.
    ``tests/unit/test_compat.py`` and ``tests/unit/test_compat_fast.py`` check this against
    math-verify itself.
    """
    if type(pred) is not str:
        return None
    if fallback_mode not in ("first_match", "no_fallback") or extraction_mode not in (
        "first_match",
        "any_match",
    ):
        return None
    if parsing_timeout is not None and type(parsing_timeout) is not int:
        return None
    latex = expr = True  # which of the default configs are given (in the default order)
    if extraction_config is not DEFAULT_EXTRACTION_CONFIG:
        if not isinstance(extraction_config, (list, tuple)):
            return None
        configs = list(extraction_config)
        if any(type(c) not in (LatexExtractionConfig, ExprExtractionConfig) for c in configs):
            return None  # subclasses may change behaviour
        if configs == _DEFAULT_CONFIG_LIST:
            pass
        elif configs == [LatexExtractionConfig()]:
            expr = False
        elif configs == [ExprExtractionConfig()]:
            latex = False
        else:
            return None
    # Without the expression config, its patterns are absent: extract_default only relies on
    # them not winning (it declines when the expression "final answer" pattern would).
    found = _compat_fast.extract_default(pred) if latex else None
    if found is None:
        if not expr or _PLAIN_INTEGER.fullmatch(pred) is None:
            return None
        from sympy import Number

        found = (Number(pred), pred)
    value, matched = found
    if value is None:
        value = _latex_value(matched, parsing_timeout)
        if value is None:
            return None
    return [value, matched] if fallback_mode == "first_match" else [value]


class _ValueCache:
    """A small thread-safe LRU memo of ``parse_latex_cached(latex)`` results from the workers.

    The same role as math-verify's own ``lru_cache`` on that function: a gold answer is parsed
    once per sampled response, and models repeat their final answers. Only immutable SymPy
    objects (``Basic``) are kept, so a cached object can be shared by several parse results.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_LATEX_VALUES = _ValueCache(256)


def _latex_value(latex: str, parsing_timeout: Any) -> Any:
    """math-verify's ``parse_latex_cached(latex)``, computed in a worker, or ``None`` on failure.

    A failure (an exception, a timeout, ``None``) makes math-verify go on to its next match, so
    the caller then leaves the whole parse to math-verify.
    """
    cached = _LATEX_VALUES.get(latex)
    if cached is not None:
        return cached
    outcome = default_pool().run(
        _remote_latex, (latex, parsing_timeout), timeout=_backstop(parsing_timeout, 1)
    )
    if outcome.status != "ok" or outcome.value[0] != "ok":
        return None
    (value,) = _transport.loads(outcome.value[1])
    from sympy import Basic

    if isinstance(value, Basic):
        _LATEX_VALUES.put(latex, value)
        return value
    return None


def _remote_latex(latex: str, parsing_timeout: Any) -> tuple[str, bytes]:
    """Worker side of :func:`_latex_value`, under math-verify's own time limit."""
    from math_verify.parser import parse_latex_cached
    from math_verify.utils import timeout

    try:
        value = timeout(timeout_seconds=parsing_timeout)(parse_latex_cached)(latex)
    except BaseException as err:  # noqa: BLE001 - any failure sends the caller to math-verify
        return "fail", type(err).__name__.encode()
    if value is None:
        return "fail", b"None"
    return "ok", _transport.dumps([value])


def clear_caches() -> None:
    """Forget the memoized LaTeX normalizations and conversions (for benchmarks that must start
    cold)."""
    _LATEX_VALUES.clear()
    _compat_fast.clear_caches()


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
    is a ``str`` or a SymPy number of type ``Rational`` (``Integer`` included) or ``Float``.
    math-verify decides each pair in ``compare_single_extraction``, and any pair that matches
    makes the answer ``True``:

    * two rationals: ``sympy_expr_eq`` finds them equal by ``a == b``; when they differ, its
      numeric comparison of two rationals is again ``a == b`` and ``simplify(a - b)`` is a nonzero
      rational, so they are unequal, whatever ``float_rounding``, ``numeric_precision``,
      ``strict`` or ``allow_set_relation_comp`` say (no free symbols, no relations, no sets);
    * a float and a number: math-verify's own ``sympy_expr_eq`` is called here, in process (it
      rounds and compares numbers, which cannot hang; no alarm is needed); an exception counts as
      ``False``, or is raised with ``raise_on_error``, as in math-verify;
    * string and string: equal after ``strip()`` and not empty;
    * string and number: never equal.

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
    sympy = sys.modules.get("sympy")  # a SymPy object cannot exist unless SymPy is loaded
    if sympy is None:
        if all(type(x) is str for x in golds) and all(type(x) is str for x in targets):
            return any(_strings_equal(g, t) for g, t in product(golds, targets))
        return None
    basic = sympy.Basic
    for x in (*golds, *targets):
        if type(x) is not str and not isinstance(x, basic):
            return None  # other objects (Python numbers, matrices): left to math-verify
    for g, t in product(golds, targets):
        decided = _decide_pair(
            g, t, sympy, float_rounding, numeric_precision, allow_set_relation_comp, strict, raise_on_error
        )
        if decided is None:
            return None
        if decided:
            return True
    return False


def _strings_equal(g: str, t: str) -> bool:
    g_text, t_text = g.strip(), t.strip()
    return bool(g_text) and g_text == t_text


def _decide_pair(
    g: Any,
    t: Any,
    sympy: Any,
    float_rounding: Any,
    numeric_precision: Any,
    allow_set_relation_comp: Any,
    strict: Any,
    raise_on_error: Any,
) -> bool | None:
    """math-verify's ``compare_single_extraction(g, t)`` where it is certain, else ``None``."""
    g_str, t_str = type(g) is str, type(t) is str
    if g_str or t_str:
        return _strings_equal(g, t) if g_str and t_str else False
    rational, floating = sympy.Rational, sympy.Float
    if isinstance(g, rational) and isinstance(t, rational):
        return bool(g == t)
    if isinstance(g, (rational, floating)) and isinstance(t, (rational, floating)):
        if _finite(g, floating) and _finite(t, floating):
            return _floats_equal(g, t, float_rounding)
        return _numbers_equal(
            g, t, float_rounding, numeric_precision, allow_set_relation_comp, strict, raise_on_error
        )
    atom = (sympy.Symbol, sympy.Number)
    if isinstance(g, atom) and isinstance(t, atom):
        # A symbol against a symbol or a number: sympy_compare_symbols compares names or
        # strings; with strict=False a lone symbol is renamed first. No simplify is reached.
        return _numbers_equal(
            g, t, float_rounding, numeric_precision, allow_set_relation_comp, strict, raise_on_error
        )
    g_pct, t_pct = _integer_percent(g, sympy), _integer_percent(t, sympy)
    if g_pct is not None or t_pct is not None:
        other = t if g_pct is not None else g
        if isinstance(other, floating) and (g_pct is None or t_pct is None):
            pct = g_pct if g_pct is not None else t_pct
            return _percent_float_equal(pct, other, float_rounding) if _finite(other, floating) else None
        return _percent_equal(g, t, g_pct, t_pct, rational)
    if (
        isinstance(g, sympy.Expr)
        and not isinstance(g, sympy.MatrixExpr)
        and g is not sympy.nan
        and g is not sympy.zoo
        and g == t
        and (strict or not g.free_symbols)
    ):
        # Equal expression trees (no relation, set, tuple or matrix, so no unwrapping or
        # conversion applies): sympy_str_eq finds them equal; it rejects only nan and zoo.
        # Without strict, free symbols are substituted in set order: left to math-verify.
        return True
    return None


def _finite(x: Any, floating: Any) -> bool:
    """A rational, or a Float of finite value (sympy turns nan and infinities into singletons)."""
    return not isinstance(x, floating) or math.isfinite(float(x))


def _floats_equal(g: Any, t: Any, float_rounding: Any) -> bool:
    """math-verify's ``sympy_expr_eq`` on two finite numbers, at least one a ``Float``.

    The steps, in its order: ``sympy_str_eq`` (``g == t``); ``sympy_numeric_eq``, which for a
    Float rounds both (``doit`` leaves numbers alone) and returns that comparison, an exception
    counting as ``False``; ``sympy_symbolic_eq``, ``simplify(g - t).is_zero``, where ``g - t`` is
    a number, which ``simplify`` returns as it is (zero, or an atom), so ``(g - t).is_zero``.
    """
    if g == t:
        return True
    if _clearly_apart(g, t, float_rounding):
        return False  # both rounded values differ, and so does g - t
    try:
        if g.round(float_rounding) == t.round(float_rounding):
            return True
    except Exception:  # what sympy_numeric_eq does with any Exception
        logger.debug("rounding failed", exc_info=True)
    return bool((g - t).is_zero)


def _clearly_apart(a: Any, b: Any, float_rounding: Any) -> bool:
    """Whether rounding *a* and *b* to ``float_rounding`` decimals (sympy's ``round``) cannot
    make them equal: each moves by at most half a unit of the last place kept, so values more
    than two units apart (well above the floats' own precision) stay apart.
    """
    if type(float_rounding) is not int or not 0 <= float_rounding <= 12:
        return False
    fa, fb = float(a), float(b)
    if not (math.isfinite(fa) and math.isfinite(fb)):
        return False
    return abs(fa - fb) > 2 * 10.0**-float_rounding + 1e-12 * max(abs(fa), abs(fb))


def _percent_float_equal(pct: Any, other: Any, float_rounding: Any) -> bool | None:
    """math-verify on ``pct%`` (an integer percentage) against a finite ``Float``.

    ``sympy_numeric_eq`` rounds ``pct/100`` (``doit`` evaluates the percentage) and the float,
    and when that fails ``simplify`` of the unevaluated difference can only be zero if the
    values agree: a clear difference is ``False``, a near-tie is left to math-verify.
    """
    value = pct / 100
    if _clearly_apart(value, other, float_rounding):
        return False
    try:
        if value.round(float_rounding) == other.round(float_rounding):
            return True
    except Exception:  # what sympy_numeric_eq does with any Exception
        logger.debug("rounding failed", exc_info=True)
    difference = abs(float(value) - float(other))
    return False if difference > 1e-6 * max(1.0, abs(float(other))) else None


def _integer_percent(x: Any, sympy: Any) -> Any:
    """``p`` when *x* is latex2sympy's percentage ``p * UnevaluatedExpr(1/100)`` of an Integer."""
    if type(x) is sympy.Mul and len(x.args) == 2:
        first, second = x.args
        if isinstance(first, sympy.Integer) and type(second) is sympy.UnevaluatedExpr:
            if second.args == (sympy.Rational(1, 100),):
                return first
    return None


def _percent_equal(g: Any, t: Any, g_pct: Any, t_pct: Any, rational: Any) -> bool | None:
    """math-verify on a percentage ``p%`` of an integer against a rational or another such.

    ``sympy_numeric_eq`` compares ``p`` itself with an integer (so ``25%`` equals ``25``, a known
    bug kept here), ``p/100`` with another rational; two percentages by ``p``. When that fails,
    ``simplify(a - b).is_zero`` can only hold if the values are equal: ``p/100`` against an
    integer equal to it (``100%`` and ``1``) is left to math-verify.
    """
    if g_pct is not None and t_pct is not None:
        return bool(g_pct == t_pct)
    pct, other = (g_pct, t) if g_pct is not None else (t_pct, g)
    if not isinstance(other, rational):
        return None
    value = pct / 100
    if other.is_Integer:
        if pct == other:
            return True
        return None if value == other else False
    return bool(value == other)


def _numbers_equal(
    gold: Any,
    target: Any,
    float_rounding: Any,
    numeric_precision: Any,
    allow_set_relation_comp: Any,
    strict: Any,
    raise_on_error: Any,
) -> bool:
    """math-verify's ``sympy_expr_eq`` on two SymPy atoms, in process, without its alarm.

    Only called where it cannot take long: numbers with a ``Float`` (rounding, then at most
    ``simplify`` of a number), or symbols against symbols or numbers (name comparison).
    """
    from math_verify.grader import sympy_expr_eq

    try:
        return bool(
            sympy_expr_eq(gold, target, float_rounding, numeric_precision, allow_set_relation_comp, strict)
        )
    except Exception:
        # What math-verify's compare_single_extraction_wrapper does with any Exception.
        if raise_on_error:
            raise
        logger.debug("Error during comparison", exc_info=True)
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
