"""Conversion of rapidgrade ASTs (``Expr.tree()``) to SymPy objects.

This is the SymPy bridge of :meth:`rapidgrade.Expr.to_sympy`. The tree is bounded in depth by
the parser (256 levels), so the recursion here is bounded too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from rapidgrade import _core

__all__ = ["tree_to_sympy"]


def _function_map() -> dict[str, Callable[..., Any]]:
    """AST function name -> SymPy callable, from the core's function table (functions.hpp).

    >>> _function_map()["asin"] is sympy.asin
    True
    """
    table: dict[str, Callable[..., Any]] = {
        name: getattr(sympy, sympy_name) for name, sympy_name, *_ in _core.expr_function_table() if sympy_name
    }
    # opaque calls that SymPy knows by name ("det" of a matrix is handled in _func)
    table.update({"Integral": sympy.Integral})
    return table


_FUNCTIONS: dict[str, Callable[..., Any]] = _function_map()

_RELATIONS: dict[str, Callable[..., Any]] = {
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


def _as_set(value: Any) -> Any:
    """A union's part as a SymPy set: a pair (a, b) is the open interval, a number a singleton, a
    condition in one variable ("x < 2" of "x < 2 or x > 3") the set where it holds."""
    if isinstance(value, sympy.Set):
        return value
    if isinstance(value, (sympy.core.relational.Relational, sympy.And)) and len(value.free_symbols) == 1:
        return value.as_set()
    if isinstance(value, sympy.Tuple) and len(value) == 2:
        return sympy.Interval.open(value[0], value[1])
    return sympy.FiniteSet(value)


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
        parts = [_RELATIONS[op](operands[i], operands[i + 1], evaluate=False) for i, op in enumerate(ops)]
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
        # the degree mark is dropped, as math-verify reads "90^\circ" (the number 90)
        return kids[0]
    if kind == "pm":
        return sympy.FiniteSet(kids[0] + kids[1], kids[0] - kids[1])
    if kind == "tuple":
        return sympy.Tuple(*kids)
    if kind == "set":
        # "\{1 \pm \sqrt{5}, -2\}": the two values of a \pm element are elements of the set
        items: list[Any] = []
        for k, child in zip(kids, node[1:]):
            items.extend(k.args if child[0] == "pm" else [k])
        return sympy.FiniteSet(*items)
    if kind == "union":
        return sympy.Union(*[_as_set(k) for k in kids])
    raise ValueError(f"tree_to_sympy: unknown node kind {kind!r}")
