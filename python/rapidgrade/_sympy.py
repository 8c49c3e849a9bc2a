"""Conversion of rapidgrade ASTs (``Expr.tree()``) to SymPy objects.

This is the SymPy bridge of :meth:`rapidgrade.Expr.to_sympy`. The tree is bounded in depth by
the parser (256 levels), so the recursion here is bounded too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

__all__ = ["tree_to_sympy"]

_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "sec": sympy.sec,
    "csc": sympy.csc,
    "cot": sympy.cot,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "asec": sympy.asec,
    "acsc": sympy.acsc,
    "acot": sympy.acot,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "asinh": sympy.asinh,
    "acosh": sympy.acosh,
    "atanh": sympy.atanh,
    "exp": sympy.exp,
    "log": sympy.log,
    "sqrt": sympy.sqrt,
    "root": sympy.root,
    "floor": sympy.floor,
    "ceiling": sympy.ceiling,
    "binomial": sympy.binomial,
    "Abs": sympy.Abs,
    "sign": sympy.sign,
    "max": sympy.Max,
    "min": sympy.Min,
    "gcd": sympy.gcd,
    "lcm": sympy.lcm,
    "factorial": sympy.factorial,
    "Integral": sympy.Integral,
}

_RELATIONS: dict[str, Callable[[Any, Any], Any]] = {
    "=": sympy.Eq,
    "<": sympy.Lt,
    "<=": sympy.Le,
    ">": sympy.Gt,
    ">=": sympy.Ge,
    "!=": sympy.Ne,
}


def _number(literal: str) -> sympy.Expr:
    if "." in literal or "e" in literal:
        return sympy.Float(literal)
    return sympy.Integer(literal)


def _const(name: str) -> sympy.Expr:
    return {"pi": sympy.pi, "E": sympy.E, "I": sympy.I, "oo": sympy.oo}[name]


def _func(name: str, args: list[Any]) -> Any:
    if name == "det" and len(args) == 1 and isinstance(args[0], sympy.MatrixBase):
        return args[0].det()
    fn = _FUNCTIONS.get(name)
    if fn is not None:
        return fn(*args)
    return sympy.Function(name)(*args)


def tree_to_sympy(node: tuple[Any, ...]) -> Any:
    """SymPy object for a node of :meth:`rapidgrade.Expr.tree`.

    >>> tree_to_sympy(("add", ("sym", "x"), ("num", "1")))
    x + 1
    """
    kind = node[0]
    if kind == "num":
        return _number(node[1])
    if kind == "sym":
        return sympy.Symbol(node[1])
    if kind == "const":
        return _const(node[1])
    if kind == "text":
        return sympy.Symbol(node[1])
    if kind == "func":
        return _func(node[1], [tree_to_sympy(k) for k in node[2:]])
    if kind == "rel":
        ops = node[1]
        operands = [tree_to_sympy(k) for k in node[2:]]
        parts = [_RELATIONS[op](operands[i], operands[i + 1]) for i, op in enumerate(ops)]
        return parts[0] if len(parts) == 1 else sympy.And(*parts)
    if kind == "interval":
        lo, hi = tree_to_sympy(node[3]), tree_to_sympy(node[4])
        return sympy.Interval(lo, hi, left_open=node[1], right_open=node[2])
    if kind == "matrix":
        rows, cols = node[1], node[2]
        return sympy.Matrix(rows, cols, [tree_to_sympy(k) for k in node[3:]])
    kids = [tree_to_sympy(k) for k in node[1:]]
    if kind == "add":
        return sympy.Add(*kids)
    if kind == "mul":
        return sympy.Mul(*kids)
    if kind == "neg":
        return -kids[0]
    if kind == "div":
        return kids[0] / kids[1]
    if kind == "pow":
        return sympy.Pow(kids[0], kids[1])
    if kind == "factorial":
        return sympy.factorial(kids[0])
    if kind == "abs":
        return sympy.Abs(kids[0])
    if kind == "percent":
        return kids[0] * sympy.Rational(1, 100)
    if kind == "degree":
        return kids[0] * sympy.pi / 180
    if kind == "pm":
        return sympy.FiniteSet(kids[0] + kids[1], kids[0] - kids[1])
    if kind == "tuple":
        return sympy.Tuple(*kids)
    if kind == "set":
        return sympy.FiniteSet(*kids)
    if kind == "union":
        return sympy.Union(*kids)
    raise ValueError(f"tree_to_sympy: unknown node kind {kind!r}")
