r"""Equivalence of answers in three-valued logic.

:func:`equivalent` answers :attr:`Tri.TRUE` or :attr:`Tri.FALSE` only when it is certain, and
:attr:`Tri.UNKNOWN` otherwise (the grader then falls back to SymPy). ``bool(Tri.TRUE)`` is
``True``; ``bool(Tri.FALSE)`` and ``bool(Tri.UNKNOWN)`` are ``False``, so ``if equivalent(a, b):``
means "known to be equal".

Rules:

* **Numbers** compare exactly as rationals (128-bit; past that, UNKNOWN). ``0.5`` equals
  ``\frac12``. When either side is a decimal literal, both are rounded to *float_rounding*
  decimals and compared; with ``float_rounding=None`` the precision rule applies: the gold's own
  number of decimals (``0.33`` matches ``\frac13``), or 6 when only the prediction is a decimal
  (math-verify's default).
* **Percentages**: ``p\%`` matches both ``p/100`` and the bare ``p`` (``50\%`` = ``0.5`` =
  ``50``); two percentages compare their numbers.
* **Degrees**: ``x^\circ`` matches the bare number ``x`` and ``x\pi/180`` radians; a plain
  number is never read as degrees.
* **Binomials and arrangements**: ``\binom{n}{k}`` (also ``C_n^k``, ``{n \choose k}``) and the
  falling factorial ``ff(n, k)`` = n!/(n-k)! (also ``A_n^k``, ``P_n^k``) with an integer ``k`` are
  polynomials in ``n``: ``C_n^3`` matches ``\frac{n(n-1)(n-2)}{6}``, ``A_5^2`` matches 20. With a
  symbolic ``k`` their values at sample points decide nothing (they mean integer ``k``): UNKNOWN
  unless both sides are the same expression.
* **Expressions with free symbols**: both sides are evaluated at 32 seeded points (8 real, 24
  complex, magnitudes from 1/20 to 20), with a bound on the rounding error of every value. A
  difference far beyond that bound at any point gives FALSE. TRUE needs agreement (within
  *rel_tol*/*abs_tol*) at 16 points or more, only analytic operations (``+ - * /``, powers,
  roots, exp, log, trigonometric and hyperbolic functions and their inverses), and the same
  branches on both sides: every multivalued function (sqrt, roots, log, non-integer powers,
  inverse trigonometric functions) applied to an expression of the symbols on one side is
  applied to an equivalent expression on the other. So ``(\sqrt{x}+1)^2`` vs
  ``x + 2\sqrt{x} + 1`` is TRUE, while ``\sqrt{x}\sqrt{x}`` vs ``x`` is UNKNOWN (SymPy decides).
  Non-analytic functions (``|x|``, floor, factorial), points where either side is undefined or
  overflows, and points within rounding error of a branch cut never give TRUE.
* **Structures**: tuples are ordered, sets unordered with duplicates ignored, intervals compare
  ends and brackets (an infinite end is always open), unions as sets of parts, matrices by shape
  and entries, ``a \pm b`` as the set ``{a+b, a-b}``. Equations are equal up to a nonzero factor
  (``y = 2x + 1`` vs ``2x - y + 1 = 0``), inequalities up to a positive factor in either
  direction (``x > 2`` vs ``2 < x``), and ``x = 5`` matches ``5``.
* **Text** answers are equal after normalization (case, spaces, ``\text{}``), otherwise FALSE.
* An unparsable side gives UNKNOWN.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from rapidgrade import _core
from rapidgrade._core import Expr
from rapidgrade.config import UNSET, EquivConfig, Unset, check_threads

__all__ = ["Tri", "equivalent", "equivalent_many"]


class Tri(enum.Enum):
    """A three-valued verdict. ``bool()`` is ``True`` only for :attr:`TRUE`."""

    FALSE = 0
    TRUE = 1
    UNKNOWN = 2

    def __bool__(self) -> bool:
        return self is Tri.TRUE


_TRI = (Tri.FALSE, Tri.TRUE, Tri.UNKNOWN)


def equivalent(
    a: str | bytes | Expr,
    b: str | bytes | Expr,
    *,
    config: EquivConfig | None = None,
    rel_tol: float | Unset = UNSET,
    abs_tol: float | Unset = UNSET,
    float_rounding: int | Unset | None = UNSET,
) -> Tri:
    r"""Whether *a* (the gold answer) and *b* (the prediction) denote the same answer.

    >>> equivalent(r"\frac{1}{2}", "0.5")
    <Tri.TRUE: 1>
    >>> equivalent(r"(x+1)^2", "x^2 + 2x + 1")
    <Tri.TRUE: 1>
    >>> equivalent("x^2", "x^3")
    <Tri.FALSE: 0>
    >>> equivalent("|x|", "x")
    <Tri.FALSE: 0>
    >>> equivalent("|x|", "|-x|")  # not analytic: left to SymPy
    <Tri.UNKNOWN: 2>
    >>> equivalent("|x|", "|x|")  # the same expression, whatever it is
    <Tri.TRUE: 1>

    The options come from *config* (an :class:`~rapidgrade.EquivConfig`; default: its
    defaults); *rel_tol*, *abs_tol* and *float_rounding*, when given, override its fields.

    Raises:
        TypeError: an argument is not ``str``, ``bytes`` or :class:`Expr`, or an option has
            the wrong type (``float_rounding=2.7``, ``float_rounding=True``).
        ValueError: a negative or non-finite tolerance, or *float_rounding* outside [0, 15].
    """
    if rel_tol is UNSET and abs_tol is UNSET and float_rounding is UNSET and config is None:
        # The common call: the defaults, which are the core's too (tests/unit/test_signatures.py).
        return _TRI[_core.equivalent(a, b)]
    cfg = EquivConfig.build("equivalent", config, rel_tol=rel_tol, abs_tol=abs_tol, float_rounding=float_rounding)
    return _TRI[_core.equivalent(a, b, rel_tol=cfg.rel_tol, abs_tol=cfg.abs_tol, float_rounding=cfg.float_rounding)]


def equivalent_many(
    pairs: Sequence[tuple[str | bytes | Expr, str | bytes | Expr]],
    *,
    config: EquivConfig | None = None,
    rel_tol: float | Unset = UNSET,
    abs_tol: float | Unset = UNSET,
    float_rounding: int | Unset | None = UNSET,
    threads: int | None = None,
) -> list[Tri]:
    """:func:`equivalent` over many ``(gold, prediction)`` pairs, in order.

    Parsing and comparison run on *threads* threads (default: all cores) with the GIL released.
    A pair that does not parse yields :attr:`Tri.UNKNOWN`. Options as for :func:`equivalent`.
    """
    cfg = EquivConfig.build("equivalent_many", config, rel_tol=rel_tol, abs_tol=abs_tol, float_rounding=float_rounding)
    check_threads("equivalent_many", threads)
    codes = _core.equivalent_many(
        pairs, rel_tol=cfg.rel_tol, abs_tol=cfg.abs_tol, float_rounding=cfg.float_rounding, threads=threads
    )
    return [_TRI[c] for c in codes]
