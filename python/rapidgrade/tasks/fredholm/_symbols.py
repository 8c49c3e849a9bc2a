r"""The symbol table of the fredholm task (fred-llm's ``FREDHOLM_LOCAL_DICT``, by name) and the
reading of SymPy objects given instead of strings.

A table maps a name of the solution to what it reads as: another symbol, a constant (``pi``,
``E``, ``I``, ``oo``) or a finite number. In infix answers ``e`` is Euler's number, as in the
reference's table (LaTeX and RPN read it so already); naming ``"e"`` in the table overrides it.

>>> symbol_table({"lam": None, "g": 9.81, "e": "e"})
{'lam': ('symbol', 'lam'), 'g': ('number', '9.81'), 'e': ('symbol', 'e')}
>>> symbol_table(["kappa", "omega_0"])
{'kappa': ('symbol', 'kappa'), 'omega_0': ('symbol', 'omega_0')}
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SymbolTable", "Symbols", "is_sympy", "symbol_table", "sympy_text"]

#: What ``symbols=`` accepts: names (each a symbol), or names mapped to a value: ``None`` or the
#: name itself (a symbol), another name, ``"pi"``/``"E"``/``"I"``/``"oo"``, a finite number, a
#: SymPy symbol, constant or number, or a rule ``(kind, text)`` of a normalized table. Callables
#: (``sympy.Integral`` in fred-llm's table) are ignored: a call is read by its name.
Symbols = Mapping[str, Any] | Iterable[str] | None
#: The normalized table: {name: (kind, text)}, kind ``symbol``, ``const`` or ``number``.
SymbolTable = dict[str, tuple[str, str]]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,63}")
_CONSTANTS = {"pi": "pi", "E": "E", "I": "I", "oo": "oo"}


def is_sympy(value: object) -> bool:
    """Whether *value* is a SymPy object (checked without importing SymPy)."""
    sympy = sys.modules.get("sympy")
    return sympy is not None and isinstance(value, sympy.Basic)


def _number(name: str, value: float) -> tuple[str, str]:
    if not math.isfinite(value):
        raise ValueError(f"symbols[{name!r}]: a number must be finite, not {value!r}")
    return ("number", repr(float(value)))


_KINDS = ("symbol", "const", "number")


def _rule(name: str, value: Any) -> tuple[str, str] | None:
    if value is None:
        return ("symbol", name)
    if isinstance(value, tuple) and len(value) == 2 and value[0] in _KINDS and isinstance(value[1], str):
        return (value[0], value[1])  # already a rule of a normalized table
    if isinstance(value, bool):
        raise TypeError(f"symbols[{name!r}]: a bool is not a value (a name, a constant or a number)")
    if isinstance(value, str):
        if value in _CONSTANTS:
            return ("const", _CONSTANTS[value])
        if not _NAME.fullmatch(value):
            raise ValueError(f"symbols[{name!r}]: {value!r} is not a name, pi, E, I, oo or a number")
        return ("symbol", value)
    if isinstance(value, (int, float)):
        return _number(name, float(value))
    if is_sympy(value):
        import sympy

        if isinstance(value, sympy.Symbol):
            return _rule(name, value.name)
        for const, text in ((sympy.E, "E"), (sympy.pi, "pi"), (sympy.I, "I"), (sympy.oo, "oo")):
            if value == const:
                return ("const", text)
        if value.is_Number:
            return _number(name, float(value))
        raise ValueError(f"symbols[{name!r}]: a SymPy value must be a symbol, a constant or a number, not {value}")
    if callable(value):  # a function class of the reference's table (sympy.Integral): read by name
        return None
    raise TypeError(f"symbols[{name!r}]: {type(value).__name__} is not a value (a name, a constant or a number)")


def symbol_table(symbols: Symbols) -> SymbolTable:
    """The normalized table of *symbols* (see :data:`Symbols`); ``{}`` for ``None``.

    ``ValueError`` / ``TypeError`` name the entry that is not valid.
    """
    if symbols is None:
        return {}
    if isinstance(symbols, (str, bytes)):
        raise TypeError("symbols must be a mapping or an iterable of names, not a string")
    items: Iterable[tuple[Any, Any]] = symbols.items() if isinstance(symbols, Mapping) else ((n, None) for n in symbols)
    out: SymbolTable = {}
    for name, value in items:
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"symbols: {name!r} is not a name (a letter, then letters, digits or '_')")
        rule = _rule(name, value)
        if rule is not None:
            out[name] = rule
    return out


def sympy_text(value: Any) -> str:
    """A SymPy object as the infix text the fredholm parsers read (``sympy.sstr``).

    >>> import sympy
    >>> sympy_text(sympy.exp(-sympy.Symbol("x")) + sympy.Symbol("lambda_1"))
    'lambda_1 + exp(-x)'
    """
    import sympy

    return str(sympy.sstr(value))
