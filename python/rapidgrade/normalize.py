r"""Canonical form of LaTeX/plain-text answers, so that equal answers compare equal as strings.

The rules, in the order applied (each a linear pass in the C++ core; rule 0 runs once, and the
sequence of rules 1-12 is repeated until the text stops changing, at most 4 rounds, so
normalization is idempotent). They are the
normative rules of ``cpp/include/rapidgrade/normalize.hpp``. Every example written as two
literals joined by an arrow holds with the default options (the first normalizes to the
second; checked by ``tests/unit/test_normalize_examples.py``, like the examples in the header).

0. Unicode math is folded to LaTeX: ``½`` -> ``\frac{1}{2}``, ``2½`` -> ``2\frac{1}{2}``,
   ``√2`` -> ``\sqrt{2}``, ``√(x+1)`` -> ``\sqrt{x+1}``, full-width digits ``１２`` -> ``12``,
   ``x²`` -> ``x^{2}``, ``3×4`` -> ``3\times4``, the minus sign ``−5`` -> ``-5``;
   an answer that is a number in English words is that number: ``two`` -> ``2``,
   ``Twenty-one`` -> ``21``, ``three hundred and five`` -> ``305``, ``negative five`` -> ``-5``;
   the Chinese math words (a table of the core's): ``根号`` is the root sign, ``根号3`` ->
   ``\sqrt{3}``; ``无穷大`` is infinity, ``无穷大`` -> ``\infty``, ``负无穷`` -> ``-\infty``.

1. Commands and signs:

   * ``\dfrac``, ``\tfrac``, ``\cfrac`` become ``\frac``: ``\dfrac{1}{2}`` -> ``\frac{1}{2}``;
   * ``\left``, ``\right`` (with a following ``.``) and ``\displaystyle`` are removed:
     ``\left( 1, 2 \right)`` -> ``(1,2)``, ``\left. x \right|`` -> ``x|``; other commands stay:
     ``x \rightarrow 0`` -> ``x\rightarrow0``;
   * the thin spacing commands ``\!``, ``\,``, ``\;``, ``\:``, ``\thinspace`` are removed:
     ``3,\!250`` -> ``3250``; a backslash-space and ``~`` become a space: ``\pi~r`` -> ``\pi r``;
     the other wide ones are written ``\quad``: ``x=1\qquad y=2`` -> ``x=1\quad y=2``;
   * the text wrappers of the core's table (``detail/latex_vocab.hpp``: ``\text{..}``,
     ``\textbf{..}``, ``\textit{..}``, ``\textrm{..}``, ``\textnormal{..}``, ``\mathrm{..}``,
     ``\mathbf{..}``, ``\mathit{..}``, ``\mathsf{..}``, ``\boldsymbol{..}``, ``\mbox{..}``, ...)
     are unwrapped: ``\text{(A)}`` -> ``(A)``, ``\mathrm{B}`` -> ``B``, ``\mathbf{5}`` -> ``5``;
   * every ``$`` and ``\$`` is removed: ``$x$`` -> ``x``, ``\$6`` -> ``6``,
     ``$5$ and $6$`` -> ``5 and 6``; the other math delimiters stay: ``\(x\)`` -> ``\(x\)``
     (grading removes delimiters that enclose the whole answer before normalizing);
   * the degree marks ``^\circ``, ``^{\circ}``, ``\degree`` and ``°`` are removed and the answer is
     flagged as an angle in degrees: ``120^\circ`` -> ``120``, ``90°`` -> ``90`` (``degrees=True``
     in :func:`normalize_answer`; grading reads it as the number or as that many times pi/180);
   * ``\%`` and ``%`` are removed and the answer is flagged as a percentage:
     ``25\%`` -> ``25`` (``percent=True`` in :func:`normalize_answer`);
   * ``{,}`` between digits is a thousands separator before exactly three digits and a decimal
     comma otherwise: ``10{,}000`` -> ``10000``, ``0{,}5`` -> ``0.5``.

2. Whitespace runs become one space; leading and trailing whitespace is removed:
   ``\pi   r`` -> ``\pi r`` (rule 5 keeps that one space).
3. Trailing ``.`` is removed: ``5.`` -> ``5``.
4. (``units=True``) Unit words after a number (or after ``}`` or ``\pi``) are removed, several
   in a row and each optionally with an integer power (``^2``, ``^{3}``, ``^{-1}``):
   ``5 cm`` -> ``5``, ``100 square units`` -> ``100``, ``12 cm^2`` -> ``12``. The list is
   :data:`UNIT_WORDS` (matched case-sensitively, never after a backslash); two of its words of
   two letters or more run together count as one (``5 sqft`` -> ``5``); ``percent`` also sets
   the percentage flag: ``12 percent`` -> ``12``; ``degrees`` and ``degree`` the degrees flag.
   The units of the units table go too, as symbols with an SI prefix and an integer power,
   joined by blanks, ``/``, ``*`` or ``\cdot``: ``540 \mathrm{~nm}`` -> ``540``,
   ``3.0 \mathrm{~m} / \mathrm{s}`` -> ``3.0``, ``146 J mol^{-1} K^{-1}`` -> ``146``; a
   one-letter unit only apart from its number (``6 K`` -> ``6``, ``6K`` stays).
   Unit words in braces of their own, where a ``\text`` was lost, go too, when the braces are
   no command's argument and hold no one-letter word: ``69{degrees}`` -> ``69`` (degrees),
   ``8\sqrt{3}{squareinches}`` -> ``8\sqrt{3}``; ``\frac{1}{cm}`` and ``5{m}`` stay.
5. A mixed number that is the whole answer keeps its whole part: ``1 1/4`` ->
   ``1\frac{1}{4}`` (5/4, as the LaTeX ``1\frac{1}{4}`` is), ``-2 3/8`` -> ``-2\frac{3}{8}``;
   only with a numerator below the denominator. Then spaces are removed, except one between a
   control word and a following letter, one on each side of a joiner word ``and`` or ``or``
   alone between math (after a digit, a closing bracket, ``!``, a prime, a control word or a lone
   letter; before a digit, a sign, an opening bracket, a control word or a lone letter), which
   the parser reads as a joiner rather than letters of the names beside it, and one after a comma
   between a digit and exactly three digits in a bare list of numbers, where the comma separates
   the list's parts (a thousands separator is never followed by a space): ``1 + 2`` -> ``1+2``,
   ``2\pi r`` -> ``2\pi r``, ``x = 1 or x = 2`` -> ``x=1 or x=2``, ``yes or no`` -> ``yesorno``,
   ``45, 135`` -> ``45, 135``, ``(12, 102)`` -> ``(12,102)``.
6. ``\frac`` and ``\sqrt`` arguments get braces: ``\frac12`` -> ``\frac{1}{2}``,
   ``\frac1b`` -> ``\frac{1}{b}``, ``\frac{1}2`` -> ``\frac{1}{2}``, ``\sqrt3`` -> ``\sqrt{3}``,
   ``\frac\pi2`` -> ``\frac{\pi}{2}``.
7. (``equations=True``) An equation with a single-symbol left side gives its right side:
   ``x = 5`` -> ``5``, ``\theta=\pi`` -> ``\pi``, ``x_1=2`` -> ``2``, ``y = 2x`` -> ``2x``; other
   equations stay: ``x+y=5`` -> ``x+y=5``, ``x=y=5`` -> ``x=y=5``.
8. A number starting with ``.`` gets a ``0``: ``.5`` -> ``0.5``, ``-.5`` -> ``-0.5``,
   ``0.5`` -> ``0.5``.
9. Thousands separators are removed when the whole answer is one number:
   ``1,234,567`` -> ``1234567``; tuples keep their commas: ``(1,2)`` -> ``(1,2)``,
   ``(100,200)`` -> ``(100,200)``. A bare list keeps the space after its comma (rule 5), and
   stays a list: ``1, 234`` -> ``1, 234``, as math-verify reads it; ``3,\! 250`` -> ``3250``.
10. An integer fraction ``a/b`` that is the whole answer becomes ``\frac{a}{b}``:
    ``3/4`` -> ``\frac{3}{4}``, ``-3/4`` -> ``-\frac{3}{4}``.
11. A Chinese list joiner (``和``, ``或``) between two math characters is a comma:
    ``1和3`` -> ``1,3``, ``$x$或$2$`` -> ``x,2``.
12. The root word of rule 0 again, where other rules brought its characters together:
    ``根$$号3`` -> ``\sqrt{3}``.
13. (Run after rule 4.) An answer of enumerated parts is the list of its parts: label 1 of a
    style (``(1)``, ``(i)``, ``(I)``, ``(Ⅰ)``, ``(a)``, ``①``, ``⑴``, full-width parentheses
    too) at the start, the next labels in order, each after a blank or a separator and outside
    any bracket: ``(1) 3; (2) 5`` -> ``3,5``, ``① 3 ② 5`` -> ``3,5``, ``（1）5 cm；（2）7 cm`` -> ``5,7``
    (each part loses its units, as rule 4 removes them). Parts that are no answers (an empty
    one, a list, an operator at either end) leave the text: ``(1) 1; 2 (2) 3`` -> ``(1)1;2(2)3``.
    Lists compare as sets, so parts do too: ``(1) 7 (2) 5`` matches ``(1) 5 (2) 7``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Union, overload

from rapidgrade import _core

__all__ = [
    "UNIT_WORDS",
    "Normalized",
    "normalize_answer",
    "normalize_answer_many",
    "normalize_latex",
    "normalize_many",
]

#: Unit words removed after a number by rule 4 (case-sensitive).
UNIT_WORDS: frozenset[str] = frozenset(_core.UNIT_WORDS)


class Normalized(NamedTuple):
    """A normalized answer: its canonical ``text``, whether a percent sign was removed, and whether
    a degree mark (or the unit word ``degrees``) was."""

    text: Union[str, bytes]  # noqa: UP007 (NamedTuple field annotations are evaluated on 3.10)
    percent: bool
    degrees: bool = False


@overload
def normalize_latex(s: str, *, units: bool = True, equations: bool = True) -> str: ...
@overload
def normalize_latex(s: bytes, *, units: bool = True, equations: bool = True) -> bytes: ...
@overload
def normalize_latex(s: str | bytes, *, units: bool = True, equations: bool = True) -> str | bytes: ...
def normalize_latex(s: str | bytes, *, units: bool = True, equations: bool = True) -> str | bytes:
    r"""Canonical form of the answer *s* (rules in the module documentation).

    Returns ``str`` for ``str`` input and ``bytes`` for ``bytes`` input. A lone surrogate (which
    has no UTF-8 form) comes back as ``?``.

    >>> normalize_latex(r"\dfrac12")
    '\\frac{1}{2}'
    >>> normalize_latex(r"\left( 1, 2 \right)")
    '(1,2)'
    >>> normalize_latex(r"\$1,234.50")
    '1234.50'
    >>> normalize_latex(r"x = .5 \text{ cm}.")
    '0.5'
    >>> normalize_latex("5 cm", units=False)
    '5cm'
    >>> normalize_latex(r"\text{4:30 p.m.}")
    '4:30p.m'

    Raises:
        TypeError: *s* is not ``str`` or ``bytes``.
    """
    if units and equations:  # keyword arguments cost more than normalizing a typical answer
        return _core.normalize_latex(s)
    return _core.normalize_latex(s, units=units, equations=equations)


def normalize_answer(s: str | bytes, *, units: bool = True, equations: bool = True) -> Normalized:
    r""":func:`normalize_latex`, also saying whether *s* was a percentage or an angle in degrees.

    The grading layer uses the flags to accept ``25\%`` against ``0.25`` as well as ``25``, and
    ``45^\circ`` against ``\frac{\pi}{4}`` as well as ``45``.
    This is the math normalization (a canonical string for comparing final answers); the physics
    task's :func:`rapidgrade.tasks.physics.normalize_answer` is another function: it classifies an
    answer (number, equation, physical quantity, formula, text) and keeps its unit.

    >>> normalize_answer(r"25\%")
    Normalized(text='25', percent=True, degrees=False)
    >>> normalize_answer("12 percent")
    Normalized(text='12', percent=True, degrees=False)
    >>> normalize_answer("0.25")
    Normalized(text='0.25', percent=False, degrees=False)
    >>> normalize_answer(r"45^\circ")
    Normalized(text='45', percent=False, degrees=True)
    """
    if units and equations:
        return _core.normalize_answer(s, Normalized)
    return _core.normalize_answer(s, Normalized, units=units, equations=equations)


@overload
def normalize_many(
    strings: Sequence[str], *, units: bool = True, equations: bool = True, threads: int | None = None
) -> list[str]: ...
@overload
def normalize_many(
    strings: Sequence[bytes], *, units: bool = True, equations: bool = True, threads: int | None = None
) -> list[bytes]: ...
@overload
def normalize_many(
    strings: Sequence[str | bytes], *, units: bool = True, equations: bool = True, threads: int | None = None
) -> list[str | bytes]: ...
def normalize_many(
    strings: Sequence[str | bytes] | Sequence[str] | Sequence[bytes],
    *,
    units: bool = True,
    equations: bool = True,
    threads: int | None = None,
) -> list[str] | list[bytes] | list[str | bytes]:
    """:func:`normalize_latex` over many strings on *threads* threads with the GIL released.

    Raises:
        TypeError: *strings* is not a sequence, or an item is not ``str``/``bytes``.
        ValueError: *threads* < 1.
    """
    return _core.normalize_many(strings, units=units, equations=equations, threads=threads)


def normalize_answer_many(
    strings: Sequence[str | bytes], *, units: bool = True, equations: bool = True, threads: int | None = None
) -> list[Normalized]:
    """:func:`normalize_answer` over many strings on *threads* threads with the GIL released."""
    return _core.normalize_answer_many(strings, Normalized, units=units, equations=equations, threads=threads)
