"""``math_verify.verify`` decided in process, where it is certain: strings, numbers, integer
percentages, symbols against atoms, and equal expression trees, with math-verify's own comparison
steps (:func:`fast_verify`; ``None`` for every other pair, which goes to math-verify in a worker).
"""

from __future__ import annotations

import logging
import math
import sys
from itertools import product
from typing import Any

# The facade's logger: the messages are those of ``rapidgrade.compat`` wherever they come from.
logger = logging.getLogger("rapidgrade.compat")


def fast_verify(
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
        return _numbers_equal(g, t, float_rounding, numeric_precision, allow_set_relation_comp, strict, raise_on_error)
    atom = (sympy.Symbol, sympy.Number)
    if isinstance(g, atom) and isinstance(t, atom):
        # A symbol against a symbol or a number: sympy_compare_symbols compares names or
        # strings; with strict=False a lone symbol is renamed first. No simplify is reached.
        return _numbers_equal(g, t, float_rounding, numeric_precision, allow_set_relation_comp, strict, raise_on_error)
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
        if (
            isinstance(first, sympy.Integer)
            and type(second) is sympy.UnevaluatedExpr
            and second.args == (sympy.Rational(1, 100),)
        ):
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
        return bool(sympy_expr_eq(gold, target, float_rounding, numeric_precision, allow_set_relation_comp, strict))
    except Exception:
        # What math-verify's compare_single_extraction_wrapper does with any Exception.
        if raise_on_error:
            raise
        logger.debug("Error during comparison", exc_info=True)
        return False
