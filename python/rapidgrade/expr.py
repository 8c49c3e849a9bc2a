r"""Parsing answers into expressions: LaTeX, infix (Python/SymPy style) and RPN, one AST.

:func:`parse_expr` returns an :class:`Expr`, a handle on a C++ syntax tree:

* ``str(expr)`` is a canonical, SymPy-like form (``x**2 + sin(x)``);
* ``expr.free_symbols`` is the frozenset of symbol names;
* ``expr.evaluate(**values)`` evaluates numerically, vectorized over NumPy arrays;
* ``expr.to_sympy()`` converts to an equivalent SymPy object (built in Python from
  ``expr.tree()``, the AST as nested tuples).

LaTeX conventions (those of latex2sympy, as math-verify reads answers): ``e`` is Euler's number,
``i`` the imaginary unit, ``\log x`` is base 10 (``\ln x`` natural, ``\log_b x`` base *b*),
``\sin^2 x`` is ``sin(x)**2`` and ``\sin^{-1} x`` is ``asin(x)``, ``x^23`` is ``x**2*3`` (a
script without braces takes one character), ``a_{n}`` is the symbol ``a_n``, a run of letters
``xy`` is a product, but a word of three or more letters that is not a function name makes the
whole answer plain text (``"Yes"``). ``(a, b)`` is a tuple (an open interval if an end is
infinite), ``[a, b]``, ``[a, b)``, ``(a, b]`` are intervals, a bare list ``1, 2`` is a set.
``7,425,000`` outside brackets is one number. Scientific notation ``1.5e-3`` needs a decimal
point in LaTeX (``2e-3`` is ``2e - 3``).

Infix: ``**`` or ``^`` power, ``pi E I oo``, ``log(x)`` natural, ``log(x, b)``, unknown calls
such as ``Integral(x, x)`` are kept as opaque function nodes.

RPN (postfix, whitespace-separated): operands are numbers and identifiers; operators:

======================  ==============================================================
binary                  ``+ - * / ^``, ``besselj`` (``n x besselj`` is J_n(x))
unary                   ``neg sin cos tan sinh cosh tanh exp log ln sqrt abs erf erfc Si Ci Ei gamma``
                        (``log`` is natural)
constants               ``pi e``
======================  ==============================================================

The function names of all three syntaxes come from one table in the core
(``cpp/include/rapidgrade/detail/functions.hpp``): ``\Gamma(x)``, ``\operatorname{erf}(x)``,
``\mathrm{Si}(x)`` in LaTeX, ``gamma(x)``, ``besselj(0, x)`` in infix.

``syntax="auto"`` picks RPN when the last token is an RPN operator and the first is an operand,
infix when the text has ``**``, ``oo`` or a call like ``Integral(``, and LaTeX otherwise.

``Expr.evaluate(**values)`` takes one value per free symbol (all of them, no others): Python
numbers, NumPy arrays (or lists) of one common shape, or scalars broadcast against them. It
computes in float64 when every value is real and the expression has no ``i``, following NumPy's
real semantics (``sqrt(-1)`` is nan, ``1/0`` is inf); otherwise in complex128 with principal
branches (as SymPy). NaN and inf propagate. It returns a float/complex for scalar values, an
array otherwise. The expression is compiled to a register program run over blocks of points,
with the GIL released and on all cores from 131072 points. Structures, relations, text and
unknown functions raise ``ValueError``.

Limits: at most 1 MiB of text (:class:`~rapidgrade.LimitError`) and 256 levels of nesting
(:class:`~rapidgrade.ParseError`).
"""

from __future__ import annotations

from typing import Any, Literal

from rapidgrade import _core
from rapidgrade._core import Expr

__all__ = ["Expr", "Syntax", "parse_expr"]

Syntax = Literal["auto", "latex", "infix", "rpn"]


def parse_expr(text: str | bytes, *, syntax: Syntax = "auto") -> Expr:
    r"""Parses *text* into an :class:`Expr`.

    >>> str(parse_expr(r"\frac{1}{2}x^2 + \sin x"))
    '1/2*x**2 + sin(x)'
    >>> str(parse_expr("x 2 ^ x sin +", syntax="rpn"))
    'x**2 + sin(x)'
    >>> parse_expr(r"\frac{1}{2}x^2", syntax="latex").evaluate(x=2.0)
    2.0

    Raises:
        ParseError: malformed input; the message ends with ``at offset <n>`` (code points for
            ``str``, bytes for ``bytes``), e.g. ``parse_expr: unclosed '(' at offset 0``; for
            RPN, stack underflow or leftover operands, naming the token.
        LimitError: input longer than 1 MiB.
        TypeError: *text* is not ``str`` or ``bytes``.
        ValueError: unknown *syntax*.
    """
    return _core.parse_expr(text, syntax=syntax)


def _to_sympy(self: Expr) -> Any:
    r"""An equivalent SymPy object, built from :meth:`Expr.tree` (imports SymPy on first use).

    >>> parse_expr(r"\frac{1}{2}x^2").to_sympy()
    x**2/2
    """
    from rapidgrade._sympy import tree_to_sympy

    return tree_to_sympy(self.tree())


# Expr.to_sympy lives here, not in the compiled core: the core never imports the package. The
# method is attached when rapidgrade.expr is imported, which importing rapidgrade (and so
# rapidgrade._core) always does first.
_to_sympy.__name__ = _to_sympy.__qualname__ = "to_sympy"
setattr(Expr, "to_sympy", _to_sympy)  # noqa: B010 (mypy refuses assigning to a method)
