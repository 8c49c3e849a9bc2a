r"""Units for the physics task: the core's unit grammar, given meaning by pint.

The C++ core reads a unit text (``"kJ mol^{-1}"``, ``"\mu C"``, ``"^{\circ}C"``) into a pint
expression (``"kilojoule * mole ** -1"``) using its one table of unit symbols and prefixes
(``cpp/include/rapidgrade/detail/units.hpp``). This module asks pint what such an expression
means, once per distinct expression (:func:`unit_info` is cached), so a million rows with a
hundred distinct units cost a hundred pint look-ups.

>>> parse_unit("kJ mol^{-1}")
'kilojoule * mole ** -1'
>>> info = unit_info("kilopascal")
>>> round(convert(101.325, info, unit_info("standard_atmosphere")), 12)
1.0
>>> convert(25.0, unit_info("degree_Celsius"), unit_info("kelvin"))
298.15

:func:`read_quantity` reads a whole quantity as the physics task reads a gold, with a power of
ten in the number or in the unit:

>>> q = read_quantity(r"1.6 $10^{-19} \mathrm{~C}$")
>>> q.value, q.unit
(1.6e-19, 'coulomb')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rapidgrade import _core

if TYPE_CHECKING:
    import pint

__all__ = ["QuantityReading", "UnitInfo", "convert", "parse_unit", "read_quantity", "unit_info"]


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """What a unit means: ``value_in_base = scale * value + offset`` in SI base units, and its
    dimension (a sorted tuple of ``(dimension, power)``; ``()`` for a dimensionless unit).
    ``offset`` is non-zero only for the affine temperatures (degree Celsius, Fahrenheit)."""

    dimension: tuple[tuple[str, float], ...]
    scale: float
    offset: float

    def dimension_text(self) -> str:
        """The dimension as pint writes it, e.g. ``"[length] / [time] ** 2"``."""
        if not self.dimension:
            return "dimensionless"
        return " * ".join(f"{d} ** {p:g}" if p != 1 else d for d, p in self.dimension)


def parse_unit(text: str, *, greedy: bool = False) -> str | None:
    r"""The pint expression of a unit text read by the core's unit grammar, or ``None`` when
    *text* is not a unit (``greedy=True``: the longest unit at its start).

    >>> parse_unit("m/s^2"), parse_unit(r"\mu C"), parse_unit("2x")
    ('meter * second ** -2', 'microcoulomb', None)
    """
    read = _core.physics_parse_unit(text, greedy=greedy)
    return None if read is None else read[0]


@dataclass(frozen=True, slots=True)
class QuantityReading:
    r"""A number and its unit as the core reads them.

    Attributes:
        value: The number, with its power of ten applied (``1.6 \times 10^{-19}`` -> ``1.6e-19``).
        sig_figs: Significant figures of the number as written (0 for a fraction).
        unit: The unit as a pint expression (``"kilojoule * mole ** -1"``), ``None`` when none
            was read.
        shown: The unit text read, whitespace collapsed (``"kJ mol^{-1}"``), or ``None``.
        complete: Nothing but the unit follows the number: the text is read whole.
    """

    value: float
    sig_figs: int
    unit: str | None
    shown: str | None
    complete: bool


def read_quantity(text: str) -> QuantityReading | None:
    r"""*text* read as the physics task reads a gold (math delimiters and ``\mathrm``-like
    wrappers removed, LaTeX spacing commands read as spaces), or ``None`` when it does not start
    with a number.

    >>> read_quantity(r"9.8\ \mathrm{m\,s^{-2}}").unit
    'meter * second ** -2'
    >>> read_quantity(r"$500/11 \mathrm{m}$").value
    45.45454545454545
    >>> read_quantity("x") is None
    True
    """
    if not isinstance(text, str):
        raise TypeError(f"read_quantity: text must be a str, not {type(text).__name__}")
    read = _core.physics_read_quantity(text)
    if read is None:
        return None
    value, sig_figs, unit, shown, complete = read
    return QuantityReading(value, sig_figs, unit, shown, complete)


@functools.lru_cache(maxsize=1)
def _registry() -> pint.UnitRegistry[float]:
    import pint

    return pint.UnitRegistry()


@functools.lru_cache(maxsize=4096)
def unit_info(expression: str) -> UnitInfo | None:
    """What pint says the unit *expression* (as :func:`parse_unit` writes it) means, or
    ``None`` when pint does not know it or cannot convert it (an affine temperature inside a
    compound unit). Cached per distinct expression.

    >>> unit_info("meter * second ** -1").dimension
    (('[length]', 1.0), ('[time]', -1.0))
    """
    import pint

    registry = _registry()
    try:
        one = registry.Quantity(1.0, expression).to_base_units()
        zero = registry.Quantity(0.0, expression).to_base_units()
    except (pint.errors.PintError, AttributeError, TypeError, ValueError, AssertionError):
        return None
    offset = float(zero.magnitude)
    scale = float(one.magnitude) - offset
    if scale == 0.0:
        return None
    dimension = tuple(sorted((str(d), float(p)) for d, p in one.dimensionality.items()))  # type: ignore[arg-type]
    return UnitInfo(dimension, scale, offset)


def convert(value: float, source: UnitInfo, target: UnitInfo) -> float:
    """*value* in the unit *source* expressed in the unit *target* (same dimension assumed)."""
    return (source.scale * value + source.offset - target.offset) / target.scale
