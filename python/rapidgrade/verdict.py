r"""Grading results: :class:`Verdict` for one pair, :class:`GradeResults` for a batch.

A :class:`GradeResults` is a ``Sequence[Verdict]`` in input order, but it stores columns, not
objects: a NumPy bool array ``correct``, one-byte codes for ``decided_by`` (into
:data:`DECIDERS`), codes into tables of distinct strings for ``gold``, ``method`` and ``reason``
(the normalized golds of n samples of one problem are stored once), and the extracted and
normalized answers packed as Arrow packs strings (UTF-8 bytes and offsets). A :class:`Verdict`
and the Python ``str`` of a row are built only for the rows that are accessed, so a million
graded pairs cost well under 50 bytes each, not a million Python objects.

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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from rapidgrade import _core

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["DECIDERS", "DecidedBy", "GradeResults", "Verdict"]

DecidedBy = Literal["fast", "sympy", "math_verify", "timeout", "error", "limit", "judge"]

#: Every value ``Verdict.decided_by`` can take.
DECIDERS: tuple[str, ...] = ("fast", "sympy", "math_verify", "timeout", "error", "limit", "judge")

_DECIDED_BY_DTYPE = np.dtype(f"<U{max(len(d) for d in DECIDERS)}")
_DECIDER_ARRAY = np.array(DECIDERS, dtype=_DECIDED_BY_DTYPE)
_DECIDER_ARRAY.flags.writeable = False
_ITER_BLOCK = 4096


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
            sent to the fallback, ``reason`` says which) or ``"judge"`` (the configured judge
            decided a pair the grader left open: :mod:`rapidgrade.judge`).
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


def _freeze(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.flags.writeable = False
    return array


class _Coded:
    """A column of strings (or ``None``) stored as integer codes into a table of distinct
    strings; code -1 stands for ``None``."""

    __slots__ = ("codes", "table")

    def __init__(self, codes: npt.NDArray[np.signedinteger[Any]], table: list[str]) -> None:
        self.codes = _freeze(codes)
        self.table = table

    @classmethod
    def of(cls, values: Iterable[str | None]) -> _Coded:
        ids: dict[str | None, int] = {None: -1}
        table: list[str] = []
        codes = []
        for value in values:
            code = ids.get(value)
            if code is None:
                if not isinstance(value, str):
                    raise TypeError(f"GradeResults: expected str or None, not {type(value).__name__}")
                code = ids[value] = len(table)
                table.append(value)
            codes.append(code)
        dtype = np.int8 if len(table) < 127 else np.int32
        return cls(np.array(codes, dtype=dtype), table)

    def __len__(self) -> int:
        return len(self.codes)

    def get(self, i: int) -> str | None:
        code = int(self.codes[i])
        return None if code < 0 else self.table[code]

    def take(self, index: slice) -> _Coded:
        return _Coded(self.codes[index].copy(), self.table)

    def to_list(self) -> list[Any]:  # list[str | None]; list[str] for a column without None
        lookup = np.empty(len(self.table) + 1, dtype=object)  # the last entry (code -1) is None
        lookup[: len(self.table)] = self.table
        return lookup[self.codes].tolist()  # type: ignore[no-any-return]

    def to_arrow(self, pa: Any) -> Any:
        codes = self.codes.astype(np.int32)
        indices = pa.array(codes, mask=codes < 0)
        return pa.array(self.table, type=pa.string()).take(indices)


def _coded_with(codes: npt.NDArray[np.int32], table: list[str], values: Mapping[int, str]) -> _Coded:
    """A column of *codes* into *table* with the string at each row of *values* put in place,
    adding the strings *table* lacks; *codes* (int32, writable) and *table* are changed in place.
    The codes are one byte while the table has at most 128 strings."""
    ids = {text: code for code, text in enumerate(table)}
    for row, text in values.items():
        code = ids.get(text)
        if code is None:
            code = ids[text] = len(table)
            table.append(text)
        codes[row] = code
    return _Coded(codes if len(table) > 127 else codes.astype(np.int8), table)


class _Packed:
    """A column of strings (or ``None``) packed as Arrow packs them: the UTF-8 bytes of every
    row back to back, n + 1 int64 offsets, and a presence flag per row."""

    __slots__ = ("data", "offsets", "present")

    def __init__(self, data: bytes, offsets: npt.NDArray[np.int64], present: npt.NDArray[np.bool_]) -> None:
        self.data = data
        self.offsets = _freeze(offsets)
        self.present = _freeze(present)

    @classmethod
    def of(cls, values: Iterable[str | None]) -> _Packed:
        rows = list(values)
        for value in rows:
            if value is not None and not isinstance(value, str):
                raise TypeError(f"GradeResults: expected str or None, not {type(value).__name__}")
        encoded = [b"" if v is None else v.encode("utf-8", "surrogatepass") for v in rows]
        offsets = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(b) for b in encoded], out=offsets[1:])
        present = np.array([v is not None for v in rows], dtype=bool)
        return cls(b"".join(encoded), offsets, present)

    def __len__(self) -> int:
        return len(self.present)

    def get(self, i: int) -> str | None:
        if not self.present[i]:
            return None
        return self.data[int(self.offsets[i]) : int(self.offsets[i + 1])].decode("utf-8", "surrogatepass")

    def take(self, index: slice) -> _Packed:
        start, stop, step = index.indices(len(self))
        if step != 1:
            return _Packed.of(self.to_list()[index])
        stop = max(start, stop)
        begin, end = int(self.offsets[start]), int(self.offsets[stop])
        return _Packed(self.data[begin:end], self.offsets[start : stop + 1] - begin, self.present[start:stop].copy())

    def to_list(self) -> list[str | None]:
        return _core.unpack_strings(self.data, self.offsets, self.present.view(np.uint8))

    def to_arrow(self, pa: Any) -> Any:
        n = len(self)
        validity = pa.py_buffer(np.packbits(self.present, bitorder="little"))
        column = pa.LargeStringArray.from_buffers(n, pa.py_buffer(self.offsets), pa.py_buffer(self.data), validity)
        return column.cast(pa.string()) if len(self.data) < 2**31 else column


class GradeResults(Sequence[Verdict]):
    """The verdicts of a batch, in input order, with column access.

    Indexing gives a :class:`Verdict` (a slice gives a ``GradeResults``); ``correct`` and
    ``decided_by`` are NumPy arrays (read-only), ``decided_by_codes`` the same column as
    one-byte indices into :data:`DECIDERS`; ``gold``, ``extracted``, ``method``, ``reason`` and
    ``normalized`` build a new list of ``str`` (or ``None``) on each access (the results store
    them packed, not as Python objects); ``accuracy`` is the fraction correct; :meth:`to_pandas`
    and :meth:`to_arrow` build a table when pandas / pyarrow are installed (``to_arrow`` from the
    packed columns directly, without a Python object per row). Build one with
    :meth:`from_columns` or :meth:`from_verdicts`.
    """

    __slots__ = ("_correct", "_decided", "_extracted", "_gold", "_method", "_normalized", "_reason")

    _correct: npt.NDArray[np.bool_]
    _decided: npt.NDArray[np.int8]
    _gold: _Coded
    _extracted: _Packed
    _method: _Coded
    _reason: _Coded
    _normalized: _Packed

    def __init__(self) -> None:
        self._set(
            np.zeros(0, dtype=bool),
            np.zeros(0, dtype=np.int8),
            _Coded.of([]),
            _Packed.of([]),
            _Coded.of([]),
            _Coded.of([]),
            _Packed.of([]),
        )

    def _set(
        self,
        correct: npt.NDArray[np.bool_],
        decided: npt.NDArray[np.int8],
        gold: _Coded,
        extracted: _Packed,
        method: _Coded,
        reason: _Coded,
        normalized: _Packed,
    ) -> None:
        self._correct = _freeze(correct)
        self._decided = _freeze(decided)
        self._gold, self._extracted, self._method, self._reason = gold, extracted, method, reason
        self._normalized = normalized

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
        normalized_list: Sequence[str | None] = [None] * len(correct_array) if normalized is None else normalized
        columns = (gold, extracted, method, reason, normalized_list)
        lengths = {len(correct_array), len(decided_raw), *(len(c) for c in columns)}
        if len(lengths) != 1:
            raise ValueError("GradeResults.from_columns: columns have different lengths")
        names, inverse = np.unique(decided_raw, return_inverse=True)
        unknown = set(names.tolist()) - set(DECIDERS)
        if unknown:
            raise ValueError(f"GradeResults.from_columns: unknown decided_by value(s) {sorted(unknown)}")
        to_code = np.array([DECIDERS.index(name) for name in names.tolist()], dtype=np.int8)
        results = cls.__new__(cls)
        results._set(
            correct_array,
            to_code[inverse.reshape(-1)] if len(names) else np.zeros(0, dtype=np.int8),
            _Coded.of(gold),
            _Packed.of(extracted),
            _Coded.of(method),
            _Coded.of(reason),
            _Packed.of(normalized_list),
        )
        return results

    @classmethod
    def _from_parts(
        cls,
        correct: npt.NDArray[np.bool_],
        decided_codes: npt.NDArray[np.int8],
        gold: _Coded,
        extracted: _Packed,
        method: _Coded,
        reason: _Coded,
        normalized: _Packed,
    ) -> GradeResults:
        """Internal constructor for the grader, which owns the columns it passes and encodes
        ``decided_by`` as indices into :data:`DECIDERS`: no copies, no validation pass."""
        results = cls.__new__(cls)
        results._set(correct, decided_codes, gold, extracted, method, reason, normalized)
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

    # -- Sequence --------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._correct)

    @overload
    def __getitem__(self, index: int) -> Verdict: ...

    @overload
    def __getitem__(self, index: slice) -> GradeResults: ...

    def __getitem__(self, index: int | slice) -> Verdict | GradeResults:
        if isinstance(index, slice):
            return GradeResults._from_parts(
                self._correct[index].copy(),
                self._decided[index].copy(),
                self._gold.take(index),
                self._extracted.take(index),
                self._method.take(index),
                self._reason.take(index),
                self._normalized.take(index),
            )
        i = range(len(self))[index]  # normalizes negatives, raises IndexError when out of range
        return Verdict(
            correct=bool(self._correct[i]),
            decided_by=DECIDERS[self._decided[i]],
            gold=self._gold.get(i) or "",
            extracted=self._extracted.get(i),
            method=self._method.get(i),
            reason=self._reason.get(i) or "",
        )

    def __iter__(self) -> Iterator[Verdict]:
        # Rows are decoded a block at a time, column by column (not row by row).
        n = len(self)
        for begin in range(0, n, _ITER_BLOCK):
            part = self[begin : min(n, begin + _ITER_BLOCK)]
            make = Verdict
            for row in zip(
                part._correct.tolist(),
                [DECIDERS[c] for c in part._decided.tolist()],
                part._gold.to_list(),
                part._extracted.to_list(),
                part._method.to_list(),
                part._reason.to_list(),
            ):
                yield make(*row)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GradeResults):
            return (
                len(self) == len(other)
                and bool(np.array_equal(self._correct, other._correct))
                and bool(np.array_equal(self._decided, other._decided))
                and self.gold == other.gold
                and self.extracted == other.extracted
                and self.method == other.method
                and self.reason == other.reason
            )
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not len(self):
            return "GradeResults(0 verdicts)"
        counts = np.bincount(self._decided, minlength=len(DECIDERS))
        text = ", ".join(f"{d}={int(c)}" for d, c in zip(DECIDERS, counts))
        return f"GradeResults({len(self)} verdicts, accuracy={self.accuracy:.4f}, {text})"

    # -- columns ---------------------------------------------------------------------------------

    @property
    def correct(self) -> npt.NDArray[np.bool_]:
        """``correct`` of every verdict, as a read-only NumPy bool array."""
        return self._correct

    @property
    def decided_by(self) -> npt.NDArray[np.str_]:
        """``decided_by`` of every verdict, as a read-only NumPy string array (built from
        :attr:`decided_by_codes` on each access)."""
        return _freeze(_DECIDER_ARRAY[self._decided])

    @property
    def decided_by_codes(self) -> npt.NDArray[np.int8]:
        """``decided_by`` of every verdict as indices into :data:`DECIDERS`, a read-only NumPy
        int8 array: the cheap form for counting (``np.bincount``) and for tables.

        >>> r = GradeResults.from_columns(correct=[True], decided_by=["sympy"], gold=["1"],
        ...                               extracted=["1"], method=["boxed"], reason=["equal"])
        >>> DECIDERS[r.decided_by_codes[0]]
        'sympy'
        """
        return self._decided

    @property
    def gold(self) -> list[str]:
        """``gold`` of every verdict (a new list on each access)."""
        return self._gold.to_list()

    @property
    def extracted(self) -> list[str | None]:
        """``extracted`` of every verdict (a new list on each access)."""
        return self._extracted.to_list()

    @property
    def method(self) -> list[str | None]:
        """``method`` of every verdict (a new list on each access)."""
        return self._method.to_list()

    @property
    def reason(self) -> list[str]:
        """``reason`` of every verdict (a new list on each access)."""
        return self._reason.to_list()

    @property
    def normalized(self) -> list[str | None]:
        """The extracted answer of every verdict as the grader compared it (unwrapped and
        normalized; ``None`` where no answer was found), a new list on each access: the key to
        group answers by (majority vote) with the grader's own reading. Not a :class:`Verdict`
        field: results built without it (:meth:`from_verdicts`) hold ``None``."""
        return self._normalized.to_list()

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
            raise ImportError("GradeResults.to_pandas needs pandas: pip install pandas") from err
        # String columns stay object columns of str/None (pandas would otherwise turn None
        # into NaN under its inferred string dtype).
        columns: dict[str, Any] = {"correct": self._correct.copy()}
        columns["decided_by"] = pd.Series([DECIDERS[c] for c in self._decided.tolist()], dtype=object)
        for name in ("gold", "extracted", "method", "reason"):
            columns[name] = pd.Series(getattr(self, name), dtype=object)
        return pd.DataFrame(columns)

    def to_arrow(self) -> Any:
        """A ``pyarrow.Table`` with one row per verdict and one column per field (all ``string``
        but ``correct``), built from the stored columns without a Python object per row.

        Raises ``ImportError`` naming pyarrow when it is not installed.
        """
        try:
            import pyarrow as pa
        except ImportError as err:
            raise ImportError("GradeResults.to_arrow needs pyarrow: pip install pyarrow") from err
        deciders = pa.array(DECIDERS, type=pa.string())
        return pa.table(
            {
                "correct": pa.array(self._correct, type=pa.bool_()),
                "decided_by": deciders.take(pa.array(self._decided.astype(np.int32))),
                "gold": self._gold.to_arrow(pa),
                "extracted": self._extracted.to_arrow(pa),
                "method": self._method.to_arrow(pa),
                "reason": self._reason.to_arrow(pa),
            }
        )
