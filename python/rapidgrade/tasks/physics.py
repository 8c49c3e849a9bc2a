r"""The ``physics`` task: physical-reasoning answers, normalized and graded with their units.

Two parts:

**The normalize_answer flow.** :func:`normalize_answer` classifies an answer string and gives
its canonical form, as a physics or chemistry evaluation pipeline does before comparing:
``(category, value)`` with *category* one of ``"number"``, ``"equation"``,
``"physical_quantity"``, ``"formula"``, ``"text"`` and *value* a ``float`` for numbers, a ``str``
otherwise. (:func:`rapidgrade.normalize_answer` is another function: the math grader's
normalization, which returns the normalized text and a percent flag and *deletes* unit words.)
The steps, the first that succeeds wins:

1. **Number.** Without math delimiters and ``\boxed{}``, the answer is ``\frac{a}{b}``, an
   integer (``500``, ``-10``), a decimal (``9.8``) or a fraction of integers (``500/11``).
2. **LaTeX gate.** Only answers that start (after whitespace) with ``$``, ``$$``, ``\[``,
   ``\(``, ``\boxed{``, ``\frac{``, ``\text{`` or ``\mathrm{`` go on; anything else is
   ``("text", s)`` with the inline math delimiters removed, stripped. When that removal
   uncovers a gate (a stray closer before a box: ``\]\boxed{5}`` -> ``\boxed{5}``), the flow
   goes on from the uncovered text (here the number 5), so that every output of the flow
   normalizes to itself; the flow as written would return ``("text", "\boxed{5}")``.
3. **Expression path.** The math content (delimiters removed, ``\boxed``/``\text``/``\mathrm``
   and the other text wrappers unwrapped, ``\; \, \: \!`` dropped) is an *equation* when it has
   ``=``; a *physical quantity* when it is a number (optionally with a power ``^4``, ``**4``,
   ``^{4}``, or ``\times 10^{k}``) followed by a unit of the core's unit table, written
   ``"{number} {unit}"``; else a *formula*. Equations and formulas with LaTeX patterns are
   converted to SymPy (latex2sympy2_extended, symbol case kept) and written as ``str(expr)``;
   on failure, or without LaTeX patterns, the whitespace-collapsed math content.
4. **Text** when the math content is empty.

The ambiguous points, decided here (each has a test in ``tests/unit/test_physics.py``):

- ``-10^{4}`` is ``-(10^4) = -10000``: the sign is outside the power, as in written math.
- ``$2x$``, ``$2\pi$`` and ``$5\times10^{3}$`` are formulas: a quantity's unit must be a unit
  symbol of the core's table (``x`` and ``\pi`` are not, and ``5\times10^{3}`` has no unit).
- "Had LaTeX patterns" means: a delimiter, a wrapper or a spacing command was removed, or a
  backslash command is left. A bare ``\frac{a}{b}`` has LaTeX patterns, so it is converted
  (``"a/b"``).
- Symbol case is kept in the SymPy conversion: ``$F = ma$`` is ``Eq(F, a*m)``, not
  ``Eq(f, a*m)`` (latex2sympy2_extended lower-cases symbols unless told not to).
- ``\boxed{5}`` is the number 5 (step 1 strips boxes as well as delimiters); ``\ `` and ``~``
  are spaces in the math content.
- Beyond the flow as written, a quantity's number may be written ``5.07 \times 10^{1}``,
  ``1.5e3``, ``1.6 10^{-19}`` (a power of ten apart, as SciBench's unit fields hold it) or
  ``500/11``, and its unit ``^{\circ}C``, ``\mu C``, ``\mu\mathrm{C}``, ``\AA``,
  ``kJ\,mol^{-1}`` (LaTeX's ``\, \; \:`` are spaces when a quantity is read, so
  ``m\,s^{-2}`` is metres per second squared), ``N\cdot m``, ``J/(mol\cdot K)``, ``\%``.
  The flow reads no unit that is also a common word (``in``, ``mi``): ``$2in$`` is a formula;
  grading reads them when nothing else follows the number (``29.36 \mathrm{in}``).

**Unit-aware grading.** :func:`grade_physics_many` (and ``rapidgrade.grade_many(...,
task="physics")``) extracts the response's final answer with the math grader's cascade, reads
the number and unit of both sides in C++, asks pint (:mod:`rapidgrade.units`, once per distinct
unit) what the units mean, and compares magnitudes in the gold's unit within ``rel_tol``
(default 1%), with significant-figure awareness and affine temperatures. Equations and formulas
go to the math grader's symbolic equivalence; text is compared normalized.

>>> normalize_answer(r"$-10^{4} \mathrm{A}/\mathrm{s}$")
('physical_quantity', '-10000 A/s')
>>> grade_physics("50.7", r"$\boxed{5.14 \times 10^{6}\ \mathrm{Pa}}$", unit="atm").reason
'quantity: within 0.055% after Pa→atm'
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import html
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import numpy.typing as npt

from rapidgrade import _core
from rapidgrade._io import InputRow, UsageError
from rapidgrade.config import GradeConfig
from rapidgrade.report import bar_chart, cards_html, fmt_number, table_html
from rapidgrade.tasks._base import error_record, positive_float, positive_int
from rapidgrade.tasks._isolate import describe_exception, isolate
from rapidgrade.units import read_quantity, unit_info
from rapidgrade.verdict import GradeResults

__all__ = [
    "CATEGORIES",
    "TASK",
    "Category",
    "PhysicsConfig",
    "PhysicsMetrics",
    "PhysicsResults",
    "PhysicsRun",
    "PhysicsTask",
    "PhysicsTaskConfig",
    "PhysicsVerdict",
    "grade_physics",
    "grade_physics_many",
    "normalize_answer",
    "normalize_answers_many",
]

Category = Literal["number", "equation", "physical_quantity", "formula", "text"]
#: Every category, in the order the flow tries them.
CATEGORIES: tuple[str, ...] = ("number", "equation", "physical_quantity", "formula", "text")

Path_ = Literal["quantity", "symbolic", "text", "error"]

# -- normalization ----------------------------------------------------------------------------


def _latex_to_text(clean: str) -> str | None:
    """``str(latex2sympy(clean))`` with whitespace collapsed and symbol case kept, or ``None``
    when it cannot be converted. Runs in a worker process (unbounded SymPy time)."""
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    try:
        expr = latex2sympy(clean, conversion_config=ConversionConfig(lowercase_symbols=False))
        text = " ".join(str(expr).split())
    except Exception:
        return None
    return text or None


def _warm_up_sympy() -> None:
    """Build latex2sympy's parser once in a fresh worker (seconds on first use)."""
    _latex_to_text("F = ma")
    _latex_to_text(r"\frac{a}{b} + x^2")


def _convert_all(cleans: Sequence[str], timeout: float | None, workers: int | None) -> dict[str, str]:
    """The SymPy text of each distinct clean math string that converts, in killable workers."""
    from rapidgrade._pool import WorkerPool, default_pool

    distinct = list(dict.fromkeys(cleans))
    if not distinct:
        return {}
    pool = WorkerPool(workers) if workers is not None else default_pool()
    try:
        outcomes = pool.run_many(_latex_to_text, [(c,) for c in distinct], timeout=timeout, warmup=(_warm_up_sympy,))
    finally:
        if workers is not None:
            pool.close()
    return {c: o.value for c, o in zip(distinct, outcomes) if o.status == "ok" and o.value is not None}


def normalize_answer(answer_str: str, *, sympy: bool = True, timeout: float | None = 5.0) -> tuple[str, float | str]:
    r"""The physics flow's ``(category, normalized value)`` of one answer string.

    Not :func:`rapidgrade.normalize_answer` (the math grader's normalization, which returns
    ``(text, percent)``); see the module documentation for the steps and the choices made
    where the flow is ambiguous. With *sympy* (the default here) equations and formulas with
    LaTeX patterns are converted by latex2sympy2_extended in a worker process, *timeout*
    seconds at most (past that, or on failure, the clean math text is kept).

    >>> normalize_answer(r"\frac{2}{3}")
    ('number', 0.6666666666666666)
    >>> normalize_answer("from $B$ to $A$")
    ('text', 'from B to A')
    >>> normalize_answer("$F = ma$")
    ('equation', 'Eq(F, a*m)')
    >>> normalize_answer("$a + b$", sympy=False)
    ('formula', 'a + b')
    """
    if not isinstance(answer_str, str):
        raise TypeError(f"normalize_answer: answer_str must be a str, not {type(answer_str).__name__}")
    category, value, needs_sympy = _core.physics_normalize(answer_str)
    if sympy and needs_sympy:
        assert isinstance(value, str)
        value = _convert_all([value], timeout, None).get(value, value)
    return category, value


def normalize_answers_many(
    answers: Sequence[str],
    *,
    sympy: bool = False,
    timeout: float | None = 5.0,
    threads: int | None = None,
    workers: int | None = None,
) -> list[tuple[str, float | str]]:
    r""":func:`normalize_answer` over a batch: the string work on *threads* C++ threads with
    the GIL released; with ``sympy=True`` the distinct equations and formulas with LaTeX
    patterns are converted once each in worker processes (*workers*, default the shared pool),
    *timeout* seconds each.

    *sympy* is off by default here: one latex2sympy conversion costs about 30 ms, the C++ flow
    about a microsecond, so conversion would dominate a batch by four orders of magnitude
    (``benchmarks/bench_physics.py`` measures both).

    >>> normalize_answers_many(["500/11", "9.8 m/s^2", r"$\mathrm{dm}^3$", "$x^2$"])
    [('number', 45.45454545454545), ('text', '9.8 m/s^2'), ('formula', 'dm^3'), ('formula', 'x^2')]
    """
    out, needs = _core.physics_normalize_many(answers, threads=threads)
    if sympy and needs:
        converted = _convert_all([str(out[i][1]) for i in needs], timeout, workers)
        for i in needs:
            category, value = out[i]
            out[i] = (category, converted.get(str(value), value))
    return out


# -- grading ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PhysicsConfig:
    """Options of unit-aware grading.

    Attributes:
        rel_tol: Relative tolerance of magnitudes, compared in the gold's unit (1% by default;
            SciBench-style evaluations use 0.05).
        sig_figs: A response written with n >= 2 significant figures (fewer than the gold's)
            also matches when it equals the gold rounded to n figures (``51`` for ``50.7``).
        unit_required: A response without a unit against a gold with one is wrong; by default
            its number is compared in the gold's unit.
        grade: Options of the math grader, used for equations and formulas (timeout,
            fallback; its ``rel_tol`` is not used for quantities).
    """

    rel_tol: float = 1e-2
    sig_figs: bool = True
    unit_required: bool = False
    grade: GradeConfig = dataclasses.field(default_factory=GradeConfig)

    def __post_init__(self) -> None:
        if isinstance(self.rel_tol, bool) or not isinstance(self.rel_tol, (int, float)):
            raise TypeError("PhysicsConfig: rel_tol must be a number")
        if not (0 <= self.rel_tol < 1):
            raise ValueError("PhysicsConfig: rel_tol must be in [0, 1)")
        for name in ("sig_figs", "unit_required"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"PhysicsConfig: {name} must be a bool")


@dataclass(frozen=True, slots=True)
class PhysicsVerdict:
    r"""Whether one response matches its gold quantity, and why.

    The fields shared with :class:`~rapidgrade.verdict.Verdict` mean the same; besides them:
    ``path`` is what decided (``"quantity"``: number and unit; ``"symbolic"``: the math
    grader's equivalence, for equations and formulas; ``"text"``: normalized text; ``"error"``),
    ``category`` the gold's category in the normalize_answer flow, ``value`` the response's
    magnitude in the gold's unit (``None`` when none was compared) and ``unit`` the response's
    unit as read.
    """

    correct: bool
    decided_by: str
    gold: str
    extracted: str | None
    method: str | None
    reason: str
    path: Path_
    category: str
    value: float | None
    unit: str | None


_TEXT_PUNCT = re.compile(r"[\s.;:!]+$")


def _text_key(text: str) -> str:
    """Text answers compare without math delimiters, case and trailing punctuation."""
    category, value = normalize_answer(text, sympy=False)
    shown = str(value) if category == "text" else text.replace("$", "")
    return _TEXT_PUNCT.sub("", " ".join(shown.split()).casefold())


#: The deciding paths, by the core's path codes (physics_grade_columns), and "error".
_PATHS: tuple[Path_, ...] = ("quantity", "symbolic", "text", "error")
_PATH_SYMBOLIC, _PATH_TEXT, _PATH_ERROR = 1, 2, 3


class PhysicsResults(Sequence[PhysicsVerdict]):
    """The verdicts of :func:`grade_physics_many`, in input order, held as columns (NumPy arrays
    and lists sharing their strings): each :class:`PhysicsVerdict` is built when it is read, and
    :func:`to_grade_results` reads the columns without building any."""

    __slots__ = (
        "_category",
        "_correct",
        "_decided_by",
        "_extracted",
        "_gold",
        "_has_value",
        "_method",
        "_normalized",
        "_path",
        "_reason",
        "_unit",
        "_value",
    )

    def __init__(
        self,
        path: npt.NDArray[np.int8],
        correct: npt.NDArray[np.bool_],
        value: npt.NDArray[np.float64],
        has_value: npt.NDArray[np.bool_],
        category: list[str],
        gold: list[str],
        extracted: list[str | None],
        method: list[str | None],
        reason: list[str],
        unit: list[str | None],
        normalized: list[str | None],
        decided_by: list[str],
    ) -> None:
        self._path, self._correct, self._value, self._has_value = path, correct, value, has_value
        self._category, self._gold, self._extracted, self._method = category, gold, extracted, method
        self._reason, self._unit, self._normalized, self._decided_by = reason, unit, normalized, decided_by

    def __len__(self) -> int:
        return len(self._gold)

    def _verdict(self, i: int) -> PhysicsVerdict:
        return PhysicsVerdict(
            bool(self._correct[i]),
            self._decided_by[i],
            self._gold[i],
            self._extracted[i],
            self._method[i],
            self._reason[i],
            _PATHS[int(self._path[i])],
            self._category[i],
            float(self._value[i]) if self._has_value[i] else None,
            self._unit[i],
        )

    @overload
    def __getitem__(self, index: int) -> PhysicsVerdict: ...
    @overload
    def __getitem__(self, index: slice) -> list[PhysicsVerdict]: ...
    def __getitem__(self, index: int | slice) -> PhysicsVerdict | list[PhysicsVerdict]:
        if isinstance(index, slice):
            return [self._verdict(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        i = operator.index(index)
        if not -n <= i < n:
            raise IndexError("PhysicsResults index out of range")
        return self._verdict(i % n if n else i)

    def __repr__(self) -> str:
        return f"<PhysicsResults: {len(self)} verdicts, {int(self._correct.sum())} correct>"

    def to_grade_results(self) -> GradeResults:
        """The verdicts as a :class:`~rapidgrade.verdict.GradeResults`, from the columns."""
        return GradeResults.from_columns(
            correct=self._correct,
            decided_by=self._decided_by,
            gold=self._gold,
            extracted=self._extracted,
            method=self._method,
            reason=self._reason,
            normalized=self._normalized,
        )


def _unit_resolver() -> Callable[[str], tuple[int, float, float] | None]:
    """What each unit (a pint expression) means, for the core: (dimension id, scale, offset),
    the dimension ids numbered within one batch (this resolver's own table)."""
    dimensions: dict[tuple[tuple[str, float], ...], int] = {}

    def resolve(expression: str) -> tuple[int, float, float] | None:
        # A unit pint cannot evaluate is a unit the batch cannot read, never a lost batch:
        # 13 x "Ym" is 10**312 (OverflowError), a thousand factors exceed pint's recursion
        # limit (RecursionError); a scale that is not finite cannot be compared either.
        try:
            info = unit_info(expression)
        except Exception:
            return None
        if info is None or not (math.isfinite(info.scale) and math.isfinite(info.offset)):
            return None
        return dimensions.setdefault(info.dimension, len(dimensions)), info.scale, info.offset

    return resolve


def grade_physics_many(
    golds: Sequence[Any],
    responses: Sequence[Any],
    *,
    units: Sequence[str | None] | None = None,
    config: PhysicsConfig | None = None,
    threads: int | None = None,
) -> PhysicsResults:
    r"""Grade each response against its gold quantity (with its unit, from the gold text or
    from *units*), in input order.

    The gold is read whole (``"50.7"``, ``"50.7 \mathrm{atm}"``, ``"9.8 m/s^2"``); the response
    is a model's full output, whose final answer the extraction cascade finds. Quantities:
    same dimension -> magnitudes compared in the gold's unit within ``rel_tol`` (or at the
    response's significant figures); different dimensions -> wrong; a bare number against a
    gold with a unit -> compared in the gold's unit unless ``unit_required``. Golds that are
    equations or formulas are decided by :func:`rapidgrade.grade_many` (symbolic equivalence),
    text golds by normalized text. Inputs that are not strings give an ``"error"`` verdict.

    The reading and the quantity comparison run in the core (threads, GIL released); pint is
    asked once per distinct unit of the batch. The result is a sequence of
    :class:`PhysicsVerdict` held as columns (:class:`PhysicsResults`).

    >>> verdicts = grade_physics_many(["50.7"] * 3, ["51 atm", "5.07e6 J", "$50.7$"], units=["atm"] * 3)
    >>> for v in verdicts:
    ...     print(v.correct, v.reason)
    True quantity: within 0.59%
    False quantity: unit mismatch: J vs atm
    True quantity: equal, no unit in the answer: compared in atm
    """
    cfg = config if config is not None else PhysicsConfig()
    golds = list(golds)
    responses = list(responses)
    n = len(golds)
    if n != len(responses):
        raise ValueError(f"grade_physics_many: {n} golds but {len(responses)} responses")
    unit_list: list[str | None] = [None] * n if units is None else list(units)
    if len(unit_list) != n:
        raise ValueError(f"grade_physics_many: {n} golds but {len(unit_list)} units")
    errors: dict[int, tuple[str, str]] = {}
    gold_texts: list[str] = []
    response_texts: list[str] = []
    for i in range(n):
        gold, response, unit = golds[i], responses[i], unit_list[i]
        if isinstance(gold, (int, float)) and not isinstance(gold, bool):
            try:
                gold = repr(gold) if isinstance(gold, float) else str(gold)
            except ValueError:  # an int beyond Python's digit limit for str()
                errors[i] = ("<int>", "gold is an integer too large to read")
                gold_texts.append("")
                response_texts.append("")
                continue
        if not isinstance(gold, str) or not isinstance(response, str) or not (unit is None or isinstance(unit, str)):
            what = "gold" if not isinstance(gold, str) else "response" if not isinstance(response, str) else "unit"
            bad = {"gold": gold, "response": response, "unit": unit}[what]
            errors[i] = (repr(gold)[:200], f"{what} must be a str, not {type(bad).__name__}")
            gold_texts.append("")
            response_texts.append("")
            continue
        gold_texts.append(f"{gold} {unit}" if unit else gold)
        response_texts.append(response)
    try:
        return _grade_batch(gold_texts, response_texts, errors, cfg, threads)
    except Exception:
        # A pair raised (no pair should): the batch is graded again in halves, and each pair
        # that raises on its own is an error verdict of its own.
        return _grade_apart(gold_texts, response_texts, errors, cfg, threads)


#: A row of PhysicsResults' columns (path, correct, value, has_value, category, gold, extracted,
#: method, reason, unit, normalized, decided_by).
_Row = tuple[int, bool, float, bool, str, str, "str | None", "str | None", str, "str | None", "str | None", str]


def _rows_of(results: PhysicsResults) -> list[_Row]:
    r = results
    return [
        (
            int(r._path[i]),
            bool(r._correct[i]),
            float(r._value[i]),
            bool(r._has_value[i]),
            r._category[i],
            r._gold[i],
            r._extracted[i],
            r._method[i],
            r._reason[i],
            r._unit[i],
            r._normalized[i],
            r._decided_by[i],
        )
        for i in range(len(r))
    ]


def _grade_apart(
    gold_texts: list[str],
    response_texts: list[str],
    errors: dict[int, tuple[str, str]],
    cfg: PhysicsConfig,
    threads: int | None,
) -> PhysicsResults:
    """The batch graded by :func:`isolate`: a pair that raises alone is an ``"error"`` verdict
    whose reason names the exception."""

    def grade(indices: Sequence[int]) -> list[_Row]:
        sub_errors = {k: errors[i] for k, i in enumerate(indices) if i in errors}
        golds, responses = [gold_texts[i] for i in indices], [response_texts[i] for i in indices]
        return _rows_of(_grade_batch(golds, responses, sub_errors, cfg, threads))

    def failed(i: int, exc: Exception) -> _Row:
        reason = f"could not be graded: {describe_exception(exc)}"
        return (_PATH_ERROR, False, 0.0, False, "text", gold_texts[i][:200], None, None, reason, None, None, "error")

    rows = isolate(grade, range(len(gold_texts)), failed)
    columns = list(zip(*rows)) if rows else [()] * 12
    return PhysicsResults(
        np.asarray(columns[0], dtype=np.int8),
        np.asarray(columns[1], dtype=np.bool_),
        np.asarray(columns[2], dtype=np.float64),
        np.asarray(columns[3], dtype=np.bool_),
        *(list(c) for c in columns[4:]),
    )


def _grade_batch(
    gold_texts: list[str],
    response_texts: list[str],
    errors: dict[int, tuple[str, str]],
    cfg: PhysicsConfig,
    threads: int | None,
) -> PhysicsResults:
    """The verdicts of the pairs (texts; *errors*: the pairs refused, by index, with the gold
    shown and why), read by the core, then the text and symbolic pairs decided here."""
    n = len(gold_texts)
    valid = [i for i in range(n) if i not in errors] if errors else None
    columns = _core.physics_grade_columns(
        gold_texts if valid is None else [gold_texts[i] for i in valid],
        response_texts if valid is None else [response_texts[i] for i in valid],
        _unit_resolver(),
        rel_tol=float(cfg.rel_tol),
        sig_figs=cfg.sig_figs,
        unit_required=cfg.unit_required,
        threads=threads,
    )
    path, correct, value, has_value = columns.path, columns.correct, columns.value, columns.has_value
    category, gold_col, extracted, method = columns.category, columns.gold, columns.extracted, columns.method
    reason_col, unit_col, normalized = columns.reason, columns.unit, columns.normalized
    decided_by = ["fast"] * n
    if valid is not None:  # the error rows take their places among the others
        path, correct = _spread(path, valid, n), _spread(correct, valid, n)
        value, has_value = _spread(value, valid, n), _spread(has_value, valid, n)
        category, gold_col, reason_col = (_spread_list(c, valid, n) for c in (category, gold_col, reason_col))
        extracted, method, unit_col, normalized = (
            _spread_list(c, valid, n) for c in (extracted, method, unit_col, normalized)
        )
        for i, (shown, why) in errors.items():
            path[i] = _PATH_ERROR
            category[i], gold_col[i], reason_col[i], decided_by[i] = "text", shown, why, "error"
    for i in np.flatnonzero(correct).tolist():  # "no unit" must mean none was written
        if "no unit in the answer" in reason_col[i] and extracted[i]:
            unread = _unread_unit(extracted[i], gold_texts[i])
            if unread is not None:
                correct[i], reason_col[i] = False, unread
    for i in np.flatnonzero(path == _PATH_TEXT).tolist():
        answer = extracted[i]
        if answer is None:
            ok, why = False, "no answer found in the response"
        else:
            ok = _text_key(gold_col[i]) == _text_key(answer)
            why = "equal after normalization" if ok else "different text"
        correct[i] = ok
        reason_col[i] = f"text: {why}"
    # every reason is set now but the symbolic rows', which _grade_symbolic sets
    reason: list[str] = reason_col  # type: ignore[assignment]
    results = PhysicsResults(
        path, correct, value, has_value, category, gold_col, extracted, method, reason, unit_col, normalized, decided_by
    )
    symbolic = np.flatnonzero(path == _PATH_SYMBOLIC).tolist()
    if symbolic:
        _grade_symbolic(symbolic, gold_texts, response_texts, cfg, threads, results)
    return results


# A number at the start of a quantity (with "\times 10^{k}" or an exponent) and what may wrap a unit.
_NUMBER_HEAD = re.compile(
    r"^[\s$]*[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:\s*(?:\\times|\\cdot|\*)\s*10\^\{?[-+]?\d+\}?|[eE][-+]?\d+)?"
)
_UNIT_WRAPPERS = re.compile(r"\\(?:mathrm|text|rm|operatorname|mathit)\{([^{}]*)\}|\\[,;:! ]|~|\$")
_MAX_UNIT_CHARS = 64


def _unread_unit(answer: str, gold: str) -> str | None:
    """The reason a quantity the core read as "no unit in the answer" is not correct after all:
    its text holds a unit the core's grammar did not read. A unit pint reads with another
    dimension than the gold's is a mismatch (FALSE); any other is unknown (never matched as if
    absent). ``None`` when nothing but the number is written."""
    head = _NUMBER_HEAD.match(answer)
    if head is None:
        return None
    residue = _UNIT_WRAPPERS.sub(lambda m: m.group(1) or " ", answer[head.end() :]).strip(" .")
    if not any(c.isalpha() for c in residue):
        return None
    shown = residue if len(residue) <= _MAX_UNIT_CHARS else residue[:_MAX_UNIT_CHARS] + "..."
    gold_read = read_quantity(gold)  # the core's reading: "1.6 $10^{-19} \mathrm{C}$" is in coulomb
    gold_unit = gold_read.unit if gold_read is not None else None
    gold_info = unit_info(gold_unit) if gold_unit else None
    info = None
    if len(residue) <= _MAX_UNIT_CHARS and gold_info is not None:
        expression = re.sub(r"\^\{?([-+]?\d+)\}?", r"**\1", residue)
        try:
            info = unit_info(expression)
        except Exception:  # a unit pint cannot evaluate is unknown, never a lost batch
            info = None
    if info is not None and gold_info is not None and info.dimension != gold_info.dimension:
        mine, theirs = info.dimension_text(), gold_info.dimension_text()
        return f"quantity: unit mismatch: {shown} ({mine}) vs {gold_unit} ({theirs})"
    return f"quantity: unknown: the answer's unit {shown!r} could not be read (counted wrong)"


def _spread(column: npt.NDArray[Any], valid: list[int], n: int) -> npt.NDArray[Any]:
    out = np.zeros(n, dtype=column.dtype)
    out[valid] = column
    return out


def _spread_list(column: list[Any], valid: list[int], n: int) -> list[Any]:
    out: list[Any] = [None] * n
    for i, x in zip(valid, column):
        out[i] = x
    return out


def _symbolic_equal(gold: str, answer: str) -> tuple[bool, str]:
    """Whether two equations or formulas are equal, symbols compared case-sensitively (``F``
    is not ``f``): both read by latex2sympy2_extended without lower-casing; equations compare
    ``lhs - rhs`` up to sign. Runs in a worker process (unbounded SymPy time)."""
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig
    from sympy import Eq, simplify

    config = ConversionConfig(lowercase_symbols=False)
    try:
        a = latex2sympy(gold, conversion_config=config)
        b = latex2sympy(answer, conversion_config=config)
    except Exception as err:
        return False, f"sympy could not read it ({type(err).__name__})"
    if isinstance(a, Eq) != isinstance(b, Eq):
        return False, "an equation against a formula"
    try:
        if isinstance(a, Eq) and isinstance(b, Eq):
            da, db = a.lhs - a.rhs, b.lhs - b.rhs
            if simplify(da - db) == 0 or simplify(da + db) == 0:
                return True, "sympy: equal equations"
            return False, "sympy: different equations"
        if simplify(a - b) == 0:
            return True, "sympy: a - b == 0"
    except Exception as err:
        return False, f"sympy failed ({type(err).__name__})"
    return False, "sympy: a - b does not reduce to 0"


def _grade_symbolic(
    symbolic: list[int],
    gold_texts: list[str],
    response_texts: list[str],
    cfg: PhysicsConfig,
    threads: int | None,
    results: PhysicsResults,
) -> None:
    """Equations and formulas (rows *symbolic* of *results*, set here): the math grader's fast
    path, then (for what it leaves undecided, when the config's fallback is on) a
    case-sensitive SymPy comparison in killable workers."""
    from rapidgrade._pool import default_pool
    from rapidgrade.grade import grade_many

    fast = grade_many(
        [gold_texts[i] for i in symbolic],
        [response_texts[i] for i in symbolic],
        config=dataclasses.replace(cfg.grade, fallback=False),
        threads=threads,
    )
    undecided: list[tuple[int, int]] = []
    for j, (i, verdict) in enumerate(zip(symbolic, fast)):
        results._correct[i] = verdict.correct
        results._decided_by[i] = verdict.decided_by
        results._gold[i] = gold_texts[i]
        results._extracted[i] = verdict.extracted
        results._method[i] = verdict.method
        results._reason[i] = f"symbolic: {verdict.reason}"
        if verdict.reason == _UNDECIDED and verdict.extracted is not None and cfg.grade.fallback:
            undecided.append((j, i))
    if not undecided:
        return
    outcomes = default_pool().run_many(
        _symbolic_equal,
        [(str(_core.physics_normalize(gold_texts[i])[1]), fast[j].extracted or "") for j, i in undecided],
        timeout=cfg.grade.timeout,
        warmup=(_warm_up_sympy,),
    )
    for (_, i), outcome in zip(undecided, outcomes):
        if outcome.status == "ok":
            ok, why = outcome.value
            results._correct[i], results._decided_by[i] = bool(ok), "sympy"
            results._reason[i] = f"symbolic: {why}"
        else:
            results._correct[i] = False
            results._decided_by[i] = "timeout" if outcome.status == "timeout" else "error"
            results._reason[i] = f"symbolic: {outcome.status}"


_UNDECIDED = "undecided by the fast path"


def grade_physics(
    gold: Any, response: Any, *, unit: str | None = None, config: PhysicsConfig | None = None
) -> PhysicsVerdict:
    r"""Grade one response against one gold quantity; see :func:`grade_physics_many`.

    >>> v = grade_physics(r"50.7 \mathrm{atm}", "so $p = 5.07 \\times 10^{1}\\,\\mathrm{atm}$")
    >>> v.correct, v.path, v.reason
    (True, 'quantity', 'quantity: equal')
    >>> grade_physics("25", "The final answer is 298.15 K.", unit=r"^{\circ}C").reason
    'quantity: equal after K→^{\\circ}C'
    """
    return grade_physics_many([gold], [response], units=[unit], config=config, threads=1)[0]


def to_grade_results(verdicts: Sequence[PhysicsVerdict]) -> GradeResults:
    """The verdicts as a :class:`~rapidgrade.verdict.GradeResults` (``normalized`` holds the
    response's magnitude in the gold's unit when one was compared); the columns of a
    :class:`PhysicsResults` are used as they are."""
    if isinstance(verdicts, PhysicsResults):
        return verdicts.to_grade_results()
    return GradeResults.from_columns(
        correct=[v.correct for v in verdicts],
        decided_by=[v.decided_by for v in verdicts],
        gold=[v.gold for v in verdicts],
        extracted=[v.extracted for v in verdicts],
        method=[v.method for v in verdicts],
        reason=[v.reason for v in verdicts],
        normalized=[None if v.value is None else f"{v.value:.12g}" for v in verdicts],
    )


# -- the scoring task -------------------------------------------------------------------------

#: The result fields of a graded row, in the order they are written. The unit read in the
#: answer is ``answer_unit``: ``unit`` is the input's own field (the gold's unit by default),
#: which is kept as it is. A row's own field of one of these names is kept as ``input_<name>``,
#: and the summary says how many rows had one.
RESULT_KEYS = ("category", "value", "answer_unit", "correct", "extracted", "decided_by", "path", "reason", "method")


@dataclass(frozen=True, slots=True)
class PhysicsTaskConfig:
    """Options of the physics task: which fields hold what, how to run, how to grade."""

    gold_key: str = "gold"
    unit_key: str = "unit"
    response_key: str = "response"
    threads: int | None = None
    grading: PhysicsConfig = dataclasses.field(default_factory=PhysicsConfig)


@dataclass(frozen=True, slots=True)
class PhysicsMetrics:
    """Counts of a physics job: overall, per gold category and per deciding path."""

    rows: int
    graded: int
    correct: int
    input_errors: int
    by_category: dict[str, dict[str, int]]
    by_path: dict[str, int]
    elapsed_s: float
    #: Result field name -> rows whose own field of that name was kept as ``input_<name>``.
    renamed_fields: dict[str, int] = dataclasses.field(default_factory=dict)

    @property
    def accuracy(self) -> float:
        """Correct over graded rows (0 when none was graded)."""
        return self.correct / self.graded if self.graded else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The metrics as JSON-ready values (``metrics.json``)."""
        per_category = {
            name: {**counts, "accuracy": counts["correct"] / counts["total"] if counts["total"] else 0.0}
            for name, counts in self.by_category.items()
        }
        return {
            "rows": self.rows,
            "graded": self.graded,
            "correct": self.correct,
            "accuracy": self.accuracy,
            "input_errors": self.input_errors,
            "by_category": per_category,
            "by_path": dict(self.by_path),
            "elapsed_s": self.elapsed_s,
            "renamed_fields": dict(self.renamed_fields),
        }


class PhysicsRun:
    """One physics scoring job: grades chunks of rows and counts them."""

    __slots__ = ("by_category", "by_path", "config", "correct", "graded", "input_errors", "renamed", "rows")

    def __init__(self, config: PhysicsTaskConfig) -> None:
        self.config = config
        self.rows = self.graded = self.correct = self.input_errors = 0
        self.by_category: dict[str, dict[str, int]] = {}
        self.by_path: dict[str, int] = {}
        self.renamed: dict[str, int] = {}

    def _row_inputs(self, row: InputRow) -> tuple[Any, Any, Any] | str:
        if row.error is not None or row.data is None:
            return row.error or f"line {row.line}: unreadable row"
        data, c = row.data, self.config
        for key in (c.gold_key, c.response_key):
            if key not in data:
                return f"line {row.line}: missing key {key!r}"
        return data[c.gold_key], data[c.response_key], data.get(c.unit_key)

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        inputs = [self._row_inputs(row) for row in rows]
        usable = [i for i, x in enumerate(inputs) if not isinstance(x, str)]
        triples = [inputs[i] for i in usable]
        verdicts = grade_physics_many(
            [t[0] for t in triples],
            [t[1] for t in triples],
            units=[t[2] if isinstance(t[2], str) or t[2] is None else str(t[2]) for t in triples],
            config=self.config.grading,
            threads=self.config.threads,
        )
        by_row = dict(zip(usable, verdicts))
        records: list[dict[str, Any]] = []
        for i, row in enumerate(rows):
            self.rows += 1
            verdict = by_row.get(i)
            if verdict is None:
                self.input_errors += 1
                reason = inputs[i]
                result = dict.fromkeys(RESULT_KEYS)
                result.update(correct=False, decided_by="error", path="error", reason=reason)
                records.append(error_record(row, result))
                continue
            out = dict(row.data or {})
            for key in RESULT_KEYS:
                if key in out:
                    out[f"input_{key}"] = out.pop(key)
                    self.renamed[key] = self.renamed.get(key, 0) + 1
            out.update(
                category=verdict.category,
                value=verdict.value,
                answer_unit=verdict.unit,
                correct=verdict.correct,
                extracted=verdict.extracted,
                decided_by=verdict.decided_by,
                path=verdict.path,
                reason=verdict.reason,
                method=verdict.method,
            )
            records.append(out)
            if verdict.path == "error":
                self.input_errors += 1
                continue
            self.graded += 1
            self.correct += verdict.correct
            counts = self.by_category.setdefault(verdict.category, {"total": 0, "correct": 0})
            counts["total"] += 1
            counts["correct"] += verdict.correct
            self.by_path[verdict.path] = self.by_path.get(verdict.path, 0) + 1
        return records

    def state(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "graded": self.graded,
            "correct": self.correct,
            "input_errors": self.input_errors,
            "by_category": self.by_category,
            "by_path": self.by_path,
            "renamed": self.renamed,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.rows, self.graded = int(state["rows"]), int(state["graded"])
        self.correct, self.input_errors = int(state["correct"]), int(state["input_errors"])
        self.by_category = {k: dict(v) for k, v in state["by_category"].items()}
        self.by_path = dict(state["by_path"])
        self.renamed = {str(k): int(v) for k, v in state.get("renamed", {}).items()}

    def finish(self, elapsed_s: float) -> PhysicsMetrics:
        return PhysicsMetrics(
            self.rows,
            self.graded,
            self.correct,
            self.input_errors,
            self.by_category,
            self.by_path,
            elapsed_s,
            dict(self.renamed),
        )

    def progress_note(self, elapsed_s: float) -> str:
        return f"{self.rows / elapsed_s:,.0f} rows/s" if elapsed_s > 0 else "-"

    def report_html(self, metrics: PhysicsMetrics) -> str:
        m = metrics
        body = cards_html(
            [
                ("rows", f"{m.rows:,}"),
                ("graded", f"{m.graded:,}"),
                ("correct", f"{m.correct:,}"),
                ("accuracy", f"{100 * m.accuracy:.2f}%"),
                ("input errors", f"{m.input_errors:,}"),
                ("rows/s", fmt_number(m.rows / m.elapsed_s if m.elapsed_s > 0 else 0.0)),
            ]
        )
        body.append("<h2>Accuracy by category</h2>")
        items = [
            (f"{html.escape(name)} (n={c['total']})", c["correct"] / c["total"] if c["total"] else 0.0, "#3b6fb6")
            for name, c in sorted(m.by_category.items())
        ]
        body.append(bar_chart("accuracy by gold category", items, max_value=1.0, percent=True))
        body.append("<h2>Deciding path</h2>")
        rows = [[name, count] for name, count in sorted(m.by_path.items())]
        body.append(table_html(("path", "rows"), rows))
        return "\n".join(body)


class PhysicsTask:
    """The ``physics`` task: rows with ``gold``, optional ``unit`` and ``response``."""

    name = "physics"
    help = "physical quantities with units (gold, optional unit, response)"

    def grade_pairs(
        self,
        golds: list[Any],
        responses: list[Any],
        *,
        config: GradeConfig,
        rel_tol: float | None,
        threads: int | None,
    ) -> GradeResults:
        """``rapidgrade.grade_many(..., task="physics")``: :func:`grade_physics_many` with
        *config* for the math grader's part, as :class:`~rapidgrade.GradeResults`."""
        physics = PhysicsConfig(grade=config) if rel_tol is None else PhysicsConfig(rel_tol=rel_tol, grade=config)
        return to_grade_results(grade_physics_many(golds, responses, config=physics, threads=threads))

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("physics task")
        group.add_argument("--gold-key", default="gold", help="field holding the gold quantity (default: gold)")
        group.add_argument("--response-key", default="response", help="field holding the response (default: response)")
        # The names are the ones every task uses for the same concept (--rel-tol, --threads);
        # the older --physics-* spellings stay as aliases.
        group.add_argument(
            "--unit-key",
            "--physics-unit-key",
            dest="unit_key",
            default="unit",
            help="field holding the gold's unit (default: unit)",
        )
        group.add_argument(
            "--rel-tol",
            "--physics-rel-tol",
            dest="rel_tol",
            type=positive_float,
            default=None,
            help="relative tolerance (default: 0.01)",
        )
        group.add_argument(
            "--no-sig-figs",
            "--physics-no-sig-figs",
            dest="no_sig_figs",
            action="store_true",
            help="no significant-figure matching",
        )
        group.add_argument(
            "--unit-required",
            "--physics-unit-required",
            dest="unit_required",
            action="store_true",
            help="a bare number against a gold with a unit is wrong",
        )
        group.add_argument(
            "--threads",
            "--physics-threads",
            dest="threads",
            type=positive_int,
            default=None,
            help="threads (default: all cores)",
        )

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        options: dict[str, Any] = {
            "gold_key": args.gold_key,
            "response_key": args.response_key,
            "unit_key": args.unit_key,
            "threads": args.threads,
            "sig_figs": not args.no_sig_figs,
            "unit_required": args.unit_required,
        }
        if args.rel_tol is not None:
            options["rel_tol"] = args.rel_tol
        return options

    def configure(
        self,
        *,
        gold_key: str = "gold",
        unit_key: str = "unit",
        response_key: str = "response",
        threads: int | None = None,
        rel_tol: float = 1e-2,
        sig_figs: bool = True,
        unit_required: bool = False,
    ) -> PhysicsTaskConfig:
        """The task's config; a bad value is a :class:`~rapidgrade._io.UsageError`."""
        try:
            grading = PhysicsConfig(rel_tol=rel_tol, sig_figs=sig_figs, unit_required=unit_required)
        except (TypeError, ValueError) as exc:
            raise UsageError(str(exc)) from None
        return PhysicsTaskConfig(gold_key, unit_key, response_key, threads, grading)

    def input_fields(self, config: PhysicsTaskConfig) -> tuple[str, ...]:
        return (config.gold_key, config.unit_key, config.response_key)

    def fingerprint(self, config: PhysicsTaskConfig) -> str:
        key = (config.gold_key, config.unit_key, config.response_key, config.grading)
        return hashlib.sha256(repr(key).encode()).hexdigest()

    def demo(self, config: PhysicsTaskConfig) -> tuple[list[Path], PhysicsTaskConfig] | None:
        return None

    def start(self, config: PhysicsTaskConfig) -> PhysicsRun:
        return PhysicsRun(config)

    def summary(self, metrics: PhysicsMetrics) -> list[tuple[str, str]]:
        m = metrics
        rows = [
            ("rows", f"{m.rows:,}"),
            ("graded", f"{m.graded:,}"),
            ("correct", f"{m.correct:,}"),
            ("accuracy", f"{100 * m.accuracy:.2f}%"),
        ]
        for name, c in sorted(m.by_category.items()):
            share = 100 * c["correct"] / c["total"] if c["total"] else 0.0
            rows.append((f"accuracy ({name})", f"{share:.2f}% of {c['total']:,}"))
        if m.input_errors:
            rows.append(
                (
                    "input errors",
                    f"{m.input_errors:,} rows could not be graded: not counted in the accuracy; their reason is "
                    "in evaluated.jsonl and the report",
                )
            )
        else:
            rows.append(("input errors", "none: every row was graded"))
        for key, count in sorted(m.renamed_fields.items()):
            rows.append(
                (
                    f"field {key}",
                    f"{count:,} {'row' if count == 1 else 'rows'} had {'its' if count == 1 else 'their'} own "
                    f"{key!r}: kept as 'input_{key}' in evaluated.jsonl",
                )
            )
        code = self.exit_code(m)
        if code:
            rows.append(("exit status", f"{code}: some rows could not be graded (see above)"))
        return rows

    def exit_code(self, metrics: PhysicsMetrics) -> int:
        """1 when some row could not be graded (unreadable, a missing field, a bad gold); else 0."""
        return 1 if metrics.input_errors else 0


#: The registered physics task.
TASK = PhysicsTask()
from rapidgrade.tasks.physics_eed import eed_score as eed_score, eed_score_many as eed_score_many  # noqa: E402, I001
