r"""prkit's answer normalization under its own names, on rapidgrade's physics core.

Code written against the physical reasoning toolkit (prkit) switches by changing its import::

    from prkit.prkit_evaluation.utils import (                      # before
        AnswerCategory, classify_expression, normalize_answer,
        normalize_expression, normalize_number, normalize_text,
    )
    from rapidgrade.tasks.physics_prkit import (                    # after
        AnswerCategory, classify_expression, normalize_answer,
        normalize_expression, normalize_number, normalize_text,
    )

The functions take prkit's arguments and return prkit's shapes: ``normalize_answer`` gives
``(AnswerCategory, float | str)``, ``normalize_number`` a ``float`` (NaN when the answer is not a
number), ``normalize_expression`` ``(value, success, category)``, ``classify_expression`` one of
``"equation"``, ``"physical_quantity"``, ``"formula"``. :class:`AnswerCategory` is a ``str``
enum, so its members compare equal to prkit's category strings (``AnswerCategory.NUMBER ==
"number"``), hash like them and serialize to JSON as them.

The string work is rapidgrade's C++ flow (:func:`rapidgrade.tasks.physics.normalize_answer`,
microseconds per answer); the SymPy conversion of equations and formulas runs, as prkit's does,
through latex2sympy2_extended, here in worker processes with a time limit (*timeout*).

**Which prkit.** prkit's code (``prkit_evaluation/utils/normalization.py``) and its document
("Answer Normalization Workflow") disagree on some inputs. By default this module follows the
document; ``config=PRKIT_CODE`` (``PrkitConfig(follow="code")``) gives the code's results:

* ``"9.8 m/s^2"`` and other quantities written without LaTeX: the document's gate makes them
  text; the code reads them as physical quantities.
* Several ``=`` (``$a=0, b=1$``): an equation for the document ("contains ``=``"), a formula for
  the code (exactly one ``=``).
* A number written as Python's ``float`` reads it (``1e5``, ``1,000``, ``2 3``, ``inf``): the
  document lists integers, decimals and fractions; the code calls ``float``.
* An equation or formula that latex2sympy cannot convert: the document's expression step keeps
  its category with the whitespace-collapsed math; the code returns it as text (and
  ``normalize_expression`` reports ``success=False``). A conversion that runs past *timeout*
  counts as one that failed.
* Symbol case: the code converts with latex2sympy's defaults, which lower-case symbols
  (``Eq(f, a*m)``); by default rapidgrade keeps case (``Eq(F, a*m)``).

Both settings share rapidgrade's readings where they differ from prkit's (each listed, with its
reason, in docs/tasks/physics.md and pinned by tests/unit/test_prkit_compat.py): a quantity's
unit must be a unit of the core's table (``$2x$`` is a formula), units are kept as written
(``12 kg m^2``; prkit removes the spaces), a power of ten or ``e`` notation is read as part of
the number, ``\ `` and ``~`` are spaces, a bare ``\frac`` counts as LaTeX, empty math is text,
and a stray closer before a gate is skipped (``\]\boxed{5}`` is the number 5).

>>> normalize_answer("500/11")
(<AnswerCategory.NUMBER: 'number'>, 45.45454545454545)
>>> normalize_answer("9.8 m/s^2")
(<AnswerCategory.TEXT: 'text'>, '9.8 m/s^2')
>>> normalize_answer("9.8 m/s^2", config=PRKIT_CODE)
(<AnswerCategory.PHYSICAL_QUANTITY: 'physical_quantity'>, '9.8 m/s^2')
>>> normalize_answer(r"$-10^{4} \mathrm{A}/\mathrm{s}$")[0] == "physical_quantity"
True
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rapidgrade import _core

__all__ = [
    "PRKIT_CODE",
    "AnswerCategory",
    "PrkitConfig",
    "classify_expression",
    "normalize_answer",
    "normalize_expression",
    "normalize_number",
    "normalize_text",
]

Follow = Literal["document", "code"]


class AnswerCategory(str, enum.Enum):
    """prkit's answer categories, as ``str`` values.

    A member equals its string (``AnswerCategory.FORMULA == "formula"``) and ``str()`` or an
    f-string gives that string on every Python version. ``OPTION`` (multiple choice) is prkit's
    too; :func:`normalize_answer` never returns it.

    >>> AnswerCategory.PHYSICAL_QUANTITY == "physical_quantity"
    True
    >>> AnswerCategory("text") is AnswerCategory.TEXT
    True
    >>> f"{AnswerCategory.NUMBER}"
    'number'
    """

    NUMBER = "number"
    EQUATION = "equation"
    PHYSICAL_QUANTITY = "physical_quantity"
    FORMULA = "formula"
    TEXT = "text"
    OPTION = "option"

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, format_spec: str) -> str:
        return format(str(self.value), format_spec)


@dataclass(frozen=True, slots=True)
class PrkitConfig:
    """Which prkit to follow, and the SymPy step.

    Attributes:
        follow: ``"document"`` (default): prkit's "Answer Normalization Workflow";
            ``"code"``: prkit's ``normalization.py`` where the two disagree (see the module
            documentation).
        sympy: Convert equations and formulas with LaTeX patterns to SymPy text (prkit always
            does). Off, their value is the whitespace-collapsed math content.
        timeout: Seconds one conversion may take (``None``: no limit); past it the conversion
            counts as failed.
    """

    follow: Follow = "document"
    sympy: bool = True
    timeout: float | None = 5.0

    def __post_init__(self) -> None:
        if self.follow not in ("document", "code"):
            raise ValueError(f"PrkitConfig: follow must be 'document' or 'code', not {self.follow!r}")
        if not isinstance(self.sympy, bool):
            raise TypeError("PrkitConfig: sympy must be a bool")
        if self.timeout is not None:
            if isinstance(self.timeout, bool) or not isinstance(self.timeout, (int, float)):
                raise TypeError("PrkitConfig: timeout must be a number or None")
            if not self.timeout > 0:
                raise ValueError("PrkitConfig: timeout must be > 0")


#: prkit's code where it disagrees with its document.
PRKIT_CODE = PrkitConfig(follow="code")
_DOCUMENT = PrkitConfig()

# -- the SymPy step ---------------------------------------------------------------------------

# What prkit's LaTeX preprocessing does before latex2sympy (the document names the step): the
# physics symbols latex2sympy cannot read become plain names, e.g. "\hbar \omega" -> "hbar*omega".
_PROTECTED = (
    ("\\hbar", "hbar"),
    ("\\mu_0", "mu0"),
    ("\\epsilon_0", "eps0"),
    ("\\ell", "ell"),
    ("\\square", "dalembert"),
    ("\\angstrom", "angstrom"),
    ("\\degree", "deg"),
)
_SPACING = ("\\qquad", "\\quad", "\\,", "\\:", "\\;", "\\!")


def _strip_decoration(text: str, command: str) -> str:
    r"""``\vec{F}`` -> ``F`` (the braces hold no braces), for every occurrence of *command*."""
    head = command + "{"
    out: list[str] = []
    i = 0
    while True:
        j = text.find(head, i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        k = text.find("}", j + len(head))
        inner = text[j + len(head) : k] if k >= 0 else None
        if inner is None or "{" in inner:
            out.append(text[i : j + len(head)])
            i = j + len(head)
            continue
        out.append(text[i:j])
        out.append(inner)
        i = k + 1


def _prepare_latex(clean: str) -> str:
    r"""The math handed to latex2sympy: spacing commands as spaces, the protected physics
    symbols as names, ``\vec``/``\hat`` dropped, ``\mathrm{d}``/``\text{d}`` as ``d``."""
    text = clean
    for space in _SPACING:
        text = text.replace(space, " ")
    for command, name in _PROTECTED:
        text = text.replace(command, "\\mathrm{" + name + "}")
    text = _strip_decoration(_strip_decoration(text, "\\vec"), "\\hat")
    text = text.replace("\\mathrm{d}", " d ").replace("\\text{d}", " d ")
    return " ".join(text.split())


def _to_sympy_text(clean: str, lowercase: bool) -> str | None:
    """``str(latex2sympy(...))`` of the prepared math, whitespace collapsed, or ``None`` when it
    cannot be converted. Runs in a worker process (unbounded SymPy time)."""
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    try:
        expr = latex2sympy(_prepare_latex(clean), conversion_config=ConversionConfig(lowercase_symbols=lowercase))
        text = " ".join(str(expr).split())
    except Exception:  # latex2sympy raises bare Exception (and others) on what it cannot read
        return None
    return text or None


def _convert(cleans: Sequence[str], config: PrkitConfig) -> dict[str, str | None]:
    """The SymPy text of each distinct clean math string (``None``: failed or timed out)."""
    from rapidgrade._pool import default_pool
    from rapidgrade.tasks.physics import _warm_up_sympy

    distinct = list(dict.fromkeys(cleans))
    if not distinct:
        return {}
    lowercase = config.follow == "code"
    outcomes = default_pool().run_many(
        _to_sympy_text, [(c, lowercase) for c in distinct], timeout=config.timeout, warmup=(_warm_up_sympy,)
    )
    return {c: (o.value if o.status == "ok" else None) for c, o in zip(distinct, outcomes)}


# -- the flow ---------------------------------------------------------------------------------


def _check(answer_str: object, function: str) -> str:
    if not isinstance(answer_str, str):
        raise TypeError(f"{function}: answer_str must be a str, not {type(answer_str).__name__}")
    return answer_str


def _float_like(text: str) -> float | None:
    """A number as prkit's code reads one: spaces and commas removed, then ``p/q`` (one slash)
    or whatever Python's ``float`` accepts (``1e5``, ``inf``, ``1_000``); NaN is no number."""
    cleaned = text.strip().replace(" ", "").replace(",", "")
    value: float | None = None
    if cleaned.count("/") == 1:
        num, _, den = cleaned.partition("/")
        try:
            numerator, denominator = float(num), float(den)
        except ValueError:
            return None
        value = None if denominator == 0 else numerator / denominator
    else:
        try:
            value = float(cleaned)
        except ValueError:
            return None
    return None if value is None or math.isnan(value) else value


def _number(answer_str: str, core: tuple[str, float | str, bool], follow: Follow) -> float | None:
    category, value, _ = core
    if category == "number":
        return float(value)
    if follow == "code" and category in ("text", "equation", "formula"):
        return _float_like(str(value))
    return None


def _math_reading(answer_str: str) -> tuple[str, str, bool]:
    r"""The core's expression step on the whole answer, without the number step and the gate:
    ``(category, value, has_latex)`` of its math content (``"text"``: the content is empty).

    The core reads the answer behind an empty ``\text{}``, which opens the gate and adds nothing
    to the content; whether the answer has LaTeX patterns is then decided from the answer
    itself (a delimiter or wrapper removed, or a backslash command left)."""
    category, value, needs = _core.physics_normalize(answer_str)
    if category not in ("number", "text"):
        return category, str(value), needs
    category, value, _ = _core.physics_normalize("\\text{}" + answer_str)
    text = str(value)
    if category == "number":  # not reached by the core's flow today; kept as the written math
        return "formula", " ".join(answer_str.split()), False
    has_latex = "\\" in text or text != " ".join(answer_str.split())
    return category, text, has_latex and category in ("equation", "formula")


def normalize_number(answer_str: str, *, config: PrkitConfig | None = None) -> float:
    r"""The number an answer is, or NaN.

    Math delimiters and ``\boxed{}`` are removed first; then an integer, a decimal, ``p/q`` or
    ``\frac{p}{q}``. With ``config=PRKIT_CODE`` also whatever Python's ``float`` reads once spaces
    and commas are gone (``1e5``, ``1,000``, ``inf``), as prkit's code does.

    >>> normalize_number(r"\boxed{\frac{2}{3}}")
    0.6666666666666666
    >>> normalize_number("1e5"), normalize_number("1e5", config=PRKIT_CODE)
    (nan, 100000.0)
    """
    s = _check(answer_str, "normalize_number")
    follow = (config or _DOCUMENT).follow
    value = _number(s, _core.physics_normalize(s), follow)
    return math.nan if value is None else value


def normalize_text(answer_str: str) -> str:
    """Text as prkit normalizes it: surrounding whitespace stripped.

    >>> normalize_text("  hello world  ")
    'hello world'
    """
    return _check(answer_str, "normalize_text").strip()


def classify_expression(clean_str: str, *, config: PrkitConfig | None = None) -> str:
    r"""``"equation"``, ``"physical_quantity"`` or ``"formula"`` of a math content (delimiters
    already removed, as ``normalize_expression`` passes it).

    An equation has ``=`` (exactly one with ``config=PRKIT_CODE``); a physical quantity is a
    number followed by a unit of the core's unit table; anything else is a formula.

    >>> classify_expression("F = ma"), classify_expression("9.8 m/s^2"), classify_expression("x^2 + y^2")
    ('equation', 'physical_quantity', 'formula')
    >>> classify_expression("a=0, b=1"), classify_expression("a=0, b=1", config=PRKIT_CODE)
    ('equation', 'formula')
    """
    s = _check(clean_str, "classify_expression")
    follow = (config or _DOCUMENT).follow
    if "=" in s:
        return "equation" if follow == "document" or s.count("=") == 1 else "formula"
    category = _core.physics_normalize("\\text{}" + s)[0]
    return "physical_quantity" if category == "physical_quantity" else "formula"


def normalize_expression(answer_str: str, *, config: PrkitConfig | None = None) -> tuple[str, bool, str]:
    r"""``(value, success, category)`` of an answer read as an expression, LaTeX or plain.

    The math content is classified (:func:`classify_expression`); a physical quantity becomes
    ``"{number} {unit}"``; an equation or formula with LaTeX patterns is converted to SymPy text,
    one without is the whitespace-collapsed content. When the conversion fails, the value is the
    content and *success* is true (document) or false (``config=PRKIT_CODE``).

    >>> normalize_expression("9.8 m/s^2")
    ('9.8 m/s^2', True, 'physical_quantity')
    >>> normalize_expression(r"$-10^{4} \mathrm{A}/\mathrm{s}$")
    ('-10000 A/s', True, 'physical_quantity')
    >>> normalize_expression("F = ma")
    ('F = ma', True, 'equation')
    """
    s = _check(answer_str, "normalize_expression")
    cfg = config or _DOCUMENT
    category, value, has_latex = _math_reading(s)
    if category == "text":  # empty math content: nothing for SymPy to read
        return "", cfg.follow == "document", "formula"
    if category == "equation" and cfg.follow == "code" and value.count("=") != 1:
        category = "formula"
    if category == "physical_quantity" or not (has_latex and cfg.sympy):
        return value, True, category
    converted = _convert([value], cfg)[value]
    if converted is None:
        return value, cfg.follow == "document", category
    return converted, True, category


def normalize_answer(answer_str: str, *, config: PrkitConfig | None = None) -> tuple[AnswerCategory, float | str]:
    r"""``(category, normalized value)`` of an answer, by prkit's flow.

    1. A number (:func:`normalize_number`): ``(NUMBER, float)``.
    2. An answer that does not start with ``$``, ``$$``, ``\[``, ``\(``, ``\boxed{``, ``\frac{``,
       ``\text{`` or ``\mathrm{`` is text, its inline math delimiters removed (with
       ``config=PRKIT_CODE``, a physical quantity when it reads as one: ``"9.8 m/s^2"``).
    3. Otherwise the expression step (:func:`normalize_expression`); with ``config=PRKIT_CODE`` a
       failed SymPy conversion makes the answer text.

    >>> normalize_answer("from $B$ to $A$")
    (<AnswerCategory.TEXT: 'text'>, 'from B to A')
    >>> normalize_answer("$a + b$", config=PrkitConfig(sympy=False))
    (<AnswerCategory.FORMULA: 'formula'>, 'a + b')
    """
    s = _check(answer_str, "normalize_answer")
    cfg = config or _DOCUMENT
    core = _core.physics_normalize(s)
    number = _number(s, core, cfg.follow)
    if number is not None:
        return AnswerCategory.NUMBER, number
    category, value, needs_sympy = core[0], str(core[1]), core[2]
    if cfg.follow == "code":
        if category == "text":
            quantity = _core.physics_normalize("\\text{}" + s)
            if quantity[0] == "physical_quantity":
                return AnswerCategory.PHYSICAL_QUANTITY, str(quantity[1])
        if category == "equation" and value.count("=") != 1:
            category = "formula"
    if category in ("equation", "formula") and needs_sympy and cfg.sympy:
        converted = _convert([value], cfg)[value]
        if converted is not None:
            value = converted
        elif cfg.follow == "code":
            return AnswerCategory.TEXT, value
    return AnswerCategory(category), value
