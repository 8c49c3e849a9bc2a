r"""Grading results: :class:`Verdict` for one pair, :class:`GradeResults` for a batch.

A :class:`GradeResults` is a ``Sequence[Verdict]`` in input order, but it stores columns, not
objects: a NumPy bool array ``correct``, a NumPy string array ``decided_by`` and lists of strings
for the rest. A :class:`Verdict` is built only for the rows that are accessed, so scoring a million
pairs costs a million booleans, not a million Python objects.

>>> results = GradeResults.from_columns(
...     correct=[True, False],
...     decided_by=["fast", "timeout"],
...     gold=["1/2", "3"],
...     extracted=["0.5", None],
...     method=["boxed", None],
...     reason=["equal values", "no decision within 5 s"],
... )
>>> results.accuracy
0.5
>>> results[1].decided_by
'timeout'
>>> results.correct.tolist()
[True, False]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["DECIDERS", "DecidedBy", "GradeResults", "Verdict"]

DecidedBy = Literal["fast", "sympy", "math_verify", "timeout", "error", "limit"]

#: Every value ``Verdict.decided_by`` can take.
DECIDERS: tuple[str, ...] = ("fast", "sympy", "math_verify", "timeout", "error", "limit")

_DECIDED_BY_DTYPE = np.dtype(f"<U{max(len(d) for d in DECIDERS)}")
_DECIDER_ARRAY = np.array(DECIDERS, dtype=_DECIDED_BY_DTYPE)
_DECIDER_ARRAY.flags.writeable = False


@dataclass(frozen=True, slots=True)
class Verdict:
    r"""Whether one response matches its gold answer, and why.

    Attributes:
        correct: The answer matches the gold.
        decided_by: Which path decided: ``"fast"`` (the C++ core), ``"sympy"``,
            ``"math_verify"``, ``"timeout"`` (the fallback ran out of time: counted wrong) or
            ``"error"`` (something failed: counted wrong, ``reason`` says what) or ``"limit"``
            (the answer is too costly to compare: longer than ``max_answer_bytes``, past the
            fast path's work budget, or a value too large to compare; counted wrong and never
            sent to the fallback, ``reason`` says which).
        gold: The gold answer, normalized.
        extracted: The answer found in the response (``None``: none found).
        method: How it was found (for example ``"boxed"``), ``None`` when nothing was.
        reason: One line: why it is or is not correct.

    >>> Verdict(True, "fast", "\\frac{1}{2}", "0.5", "boxed", "equal values").correct
    True
    """

    correct: bool
    decided_by: DecidedBy
    gold: str
    extracted: str | None
    method: str | None
    reason: str


class GradeResults(Sequence[Verdict]):
    """The verdicts of a batch, in input order, with column access.

    Indexing gives a :class:`Verdict` (a slice gives a ``GradeResults``); ``correct`` and
    ``decided_by`` are NumPy arrays (read-only views); ``accuracy`` is the fraction correct;
    :meth:`to_pandas` and :meth:`to_arrow` build a table when pandas / pyarrow are installed.
    Build one with :meth:`from_columns` or :meth:`from_verdicts`.
    """

    __slots__ = ("_correct", "_decided_by", "_extracted", "_gold", "_method", "_normalized", "_reason")

    _correct: npt.NDArray[np.bool_]
    _decided_by: npt.NDArray[np.str_]
    _gold: list[str]
    _extracted: list[str | None]
    _method: list[str | None]
    _reason: list[str]
    _normalized: list[str | None]

    def __init__(self) -> None:
        self._correct = np.zeros(0, dtype=bool)
        self._decided_by = np.zeros(0, dtype=_DECIDED_BY_DTYPE)
        self._gold = []
        self._extracted = []
        self._method = []
        self._reason = []
        self._normalized = []
        self._freeze()

    @classmethod
    def from_columns(
        cls,
        *,
        correct: Sequence[bool] | npt.NDArray[np.bool_],
        decided_by: Sequence[str] | npt.NDArray[np.str_],
        gold: Sequence[str],
        extracted: Sequence[str | None],
        method: Sequence[str | None],
        reason: Sequence[str],
        normalized: Sequence[str | None] | None = None,
    ) -> GradeResults:
        """Build from one sequence per field (all of the same length); *normalized* (the
        :attr:`normalized` column) defaults to ``None`` for every row.

        Raises ``ValueError`` when lengths differ or a ``decided_by`` value is unknown.
        """
        correct_array = np.array(correct, dtype=bool).reshape(-1)
        decided_raw = np.asarray(decided_by, dtype=str).reshape(-1)
        normalized_list: list[str | None] = [None] * len(correct_array) if normalized is None else list(normalized)
        columns = (list(gold), list(extracted), list(method), list(reason), normalized_list)
        lengths = {len(correct_array), len(decided_raw), *(len(c) for c in columns)}
        if len(lengths) != 1:
            raise ValueError("GradeResults.from_columns: columns have different lengths")
        unknown = set(np.unique(decided_raw).tolist()) - set(DECIDERS)
        if unknown:
            raise ValueError(
                f"GradeResults.from_columns: unknown decided_by value(s) {sorted(unknown)}"
            )
        results = cls.__new__(cls)
        results._correct = correct_array
        results._decided_by = decided_raw.astype(_DECIDED_BY_DTYPE)
        results._gold, results._extracted, results._method, results._reason, results._normalized = columns
        results._freeze()
        return results

    @classmethod
    def _from_codes(
        cls,
        correct: npt.NDArray[np.bool_],
        decided_codes: npt.NDArray[np.int8],
        gold: list[str],
        extracted: list[str | None],
        method: list[str | None],
        reason: list[str],
        normalized: list[str | None],
    ) -> GradeResults:
        """Internal constructor for the grader, which owns the lists it passes and encodes
        ``decided_by`` as indices into :data:`DECIDERS`: no copies, no validation pass."""
        results = cls.__new__(cls)
        results._correct = correct
        results._decided_by = _DECIDER_ARRAY[decided_codes]
        results._gold, results._extracted, results._method, results._reason = gold, extracted, method, reason
        results._normalized = normalized
        results._freeze()
        return results

    @classmethod
    def from_verdicts(cls, verdicts: Iterable[Verdict]) -> GradeResults:
        """Build from :class:`Verdict` objects."""
        rows = list(verdicts)
        return cls.from_columns(
            correct=[v.correct for v in rows],
            decided_by=[v.decided_by for v in rows],
            gold=[v.gold for v in rows],
            extracted=[v.extracted for v in rows],
            method=[v.method for v in rows],
            reason=[v.reason for v in rows],
        )

    def _freeze(self) -> None:
        self._correct.flags.writeable = False
        self._decided_by.flags.writeable = False

    # -- Sequence --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._correct)

    @overload
    def __getitem__(self, index: int) -> Verdict: ...

    @overload
    def __getitem__(self, index: slice) -> GradeResults: ...

    def __getitem__(self, index: int | slice) -> Verdict | GradeResults:
        if isinstance(index, slice):
            return GradeResults.from_columns(
                correct=self._correct[index],
                decided_by=self._decided_by[index],
                gold=self._gold[index],
                extracted=self._extracted[index],
                method=self._method[index],
                reason=self._reason[index],
                normalized=self._normalized[index],
            )
        i = range(len(self))[index]  # normalizes negatives, raises IndexError when out of range
        return Verdict(
            correct=bool(self._correct[i]),
            decided_by=str(self._decided_by[i]),  # type: ignore[arg-type]
            gold=self._gold[i],
            extracted=self._extracted[i],
            method=self._method[i],
            reason=self._reason[i],
        )

    def __iter__(self) -> Iterator[Verdict]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GradeResults):
            return (
                len(self) == len(other)
                and bool(np.array_equal(self._correct, other._correct))
                and bool(np.array_equal(self._decided_by, other._decided_by))
                and self._gold == other._gold
                and self._extracted == other._extracted
                and self._method == other._method
                and self._reason == other._reason
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not len(self):
            return "GradeResults(0 verdicts)"
        counts = ", ".join(f"{d}={int(np.count_nonzero(self._decided_by == d))}" for d in DECIDERS)
        return f"GradeResults({len(self)} verdicts, accuracy={self.accuracy:.4f}, {counts})"

    # -- columns ---------------------------------------------------------------------------------

    @property
    def correct(self) -> npt.NDArray[np.bool_]:
        """``correct`` of every verdict, as a read-only NumPy bool array."""
        return self._correct

    @property
    def decided_by(self) -> npt.NDArray[np.str_]:
        """``decided_by`` of every verdict, as a read-only NumPy string array."""
        return self._decided_by

    @property
    def gold(self) -> list[str]:
        """``gold`` of every verdict (a copy)."""
        return list(self._gold)

    @property
    def extracted(self) -> list[str | None]:
        """``extracted`` of every verdict (a copy)."""
        return list(self._extracted)

    @property
    def method(self) -> list[str | None]:
        """``method`` of every verdict (a copy)."""
        return list(self._method)

    @property
    def reason(self) -> list[str]:
        """``reason`` of every verdict (a copy)."""
        return list(self._reason)

    @property
    def normalized(self) -> list[str | None]:
        """The extracted answer of every verdict as the grader compared it (unwrapped and
        normalized; ``None`` where no answer was found), a copy: the key to group answers by
        (majority vote) with the grader's own reading. Not a :class:`Verdict` field: results
        built without it (:meth:`from_verdicts`) hold ``None``."""
        return list(self._normalized)

    @property
    def accuracy(self) -> float:
        """Fraction of verdicts that are correct (``nan`` for an empty batch)."""
        if not len(self):
            return float("nan")
        return float(np.count_nonzero(self._correct)) / len(self)

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` with one row per verdict and one column per field.

        Raises ``ImportError`` naming pandas when it is not installed.
        """
        try:
            import pandas as pd
        except ImportError as err:
            raise ImportError(
                "GradeResults.to_pandas needs pandas: pip install pandas"
            ) from err
        # String columns stay object columns of str/None (pandas would otherwise turn None
        # into NaN under its inferred string dtype).
        columns: dict[str, Any] = {"correct": self._correct.copy()}
        columns["decided_by"] = pd.Series(self._decided_by.tolist(), dtype=object)
        for name in ("gold", "extracted", "method", "reason"):
            columns[name] = pd.Series(getattr(self, "_" + name), dtype=object)
        return pd.DataFrame(columns)

    def to_arrow(self) -> Any:
        """A ``pyarrow.Table`` with one row per verdict and one column per field.

        Raises ``ImportError`` naming pyarrow when it is not installed.
        """
        try:
            import pyarrow as pa
        except ImportError as err:
            raise ImportError(
                "GradeResults.to_arrow needs pyarrow: pip install pyarrow"
            ) from err
        return pa.table(
            {
                "correct": pa.array(self._correct, type=pa.bool_()),
                "decided_by": pa.array(self._decided_by.tolist(), type=pa.string()),
                "gold": pa.array(self._gold, type=pa.string()),
                "extracted": pa.array(self._extracted, type=pa.string()),
                "method": pa.array(self._method, type=pa.string()),
                "reason": pa.array(self._reason, type=pa.string()),
            }
        )
