"""Verdict and GradeResults: record semantics, column access, tables."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

import rapidgrade
from rapidgrade import GradeResults, Verdict
from rapidgrade import verdict as verdict_module

ROWS = [
    Verdict(True, "fast", "\\frac{1}{2}", "0.5", "boxed", "equal values"),
    Verdict(False, "timeout", "x^2", "x*x*x", "boxed", "no decision within 5 s"),
    Verdict(False, "error", "3", None, None, "no answer found"),
    Verdict(True, "math_verify", "[0, 1)", "[0,1)", "last_math", "math-verify: equivalent"),
    Verdict(True, "sympy", "\\pi/2", "pi/2", "answer_is", "sympy: simplify(a - b) == 0"),
]


def make(rows: list[Verdict] = ROWS) -> GradeResults:
    return GradeResults.from_columns(
        correct=[r.correct for r in rows],
        decided_by=[r.decided_by for r in rows],
        gold=[r.gold for r in rows],
        extracted=[r.extracted for r in rows],
        method=[r.method for r in rows],
        reason=[r.reason for r in rows],
    )


def test_verdict_is_a_frozen_slotted_record() -> None:
    v = ROWS[0]
    assert [f.name for f in dataclasses.fields(Verdict)] == [
        "correct",
        "decided_by",
        "gold",
        "extracted",
        "method",
        "reason",
    ]
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.correct = False  # type: ignore[misc]
    assert not hasattr(v, "__dict__")
    assert v == Verdict(True, "fast", "\\frac{1}{2}", "0.5", "boxed", "equal values")
    assert hash(v) == hash(dataclasses.replace(v))
    assert rapidgrade.Verdict is Verdict


def test_sequence_in_input_order() -> None:
    results = make()
    assert len(results) == 5
    assert list(results) == ROWS
    assert results[0] == ROWS[0]
    assert results[-1] == ROWS[-1]
    assert results[2].extracted is None
    with pytest.raises(IndexError):
        results[5]
    with pytest.raises(IndexError):
        results[-6]
    assert ROWS[3] in results
    assert results.index(ROWS[4]) == 4
    assert list(reversed(results)) == ROWS[::-1]


def test_slices_are_grade_results() -> None:
    part = make()[1:4]
    assert isinstance(part, GradeResults)
    assert list(part) == ROWS[1:4]
    assert part.correct.tolist() == [False, False, True]
    assert make()[::-2] == make([ROWS[4], ROWS[2], ROWS[0]])


def test_columns_are_numpy_arrays() -> None:
    results = make()
    assert results.correct.dtype == np.bool_
    assert results.correct.tolist() == [True, False, False, True, True]
    assert results.decided_by.dtype.kind == "U"
    assert results.decided_by.tolist() == ["fast", "timeout", "error", "math_verify", "sympy"]
    assert (results.decided_by == "fast").sum() == 1
    with pytest.raises(ValueError):
        results.correct[0] = False  # read-only: the results cannot be edited through a view
    assert results.gold == [r.gold for r in ROWS]
    assert results.extracted == [r.extracted for r in ROWS]
    assert results.method == [r.method for r in ROWS]
    assert results.reason == [r.reason for r in ROWS]


def test_accuracy() -> None:
    assert make().accuracy == pytest.approx(3 / 5)
    assert GradeResults().accuracy != GradeResults().accuracy  # nan for an empty batch
    assert len(GradeResults()) == 0
    assert list(GradeResults()) == []


def test_from_verdicts_round_trip_and_equality() -> None:
    assert GradeResults.from_verdicts(ROWS) == make()
    assert GradeResults.from_verdicts(ROWS[:2]) != make()
    assert make() != ROWS  # a GradeResults is not equal to a list


def test_rows_are_built_only_when_accessed(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []

    class CountingVerdict(Verdict):
        __slots__ = ()

        def __init__(self, *args: object, **kwargs: object) -> None:
            built.append(1)
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(verdict_module, "Verdict", CountingVerdict)
    n = 100_000
    results = GradeResults.from_columns(
        correct=np.ones(n, dtype=bool),
        decided_by=["fast"] * n,
        gold=["1"] * n,
        extracted=["1"] * n,
        method=["boxed"] * n,
        reason=["equal"] * n,
    )
    assert results.accuracy == 1.0
    assert int(results.correct.sum()) == n
    assert built == []
    assert results[12_345].gold == "1"
    assert built == [1]


def test_validation() -> None:
    with pytest.raises(ValueError, match="different lengths"):
        GradeResults.from_columns(
            correct=[True], decided_by=["fast"], gold=[], extracted=[None], method=[None], reason=[""]
        )
    with pytest.raises(ValueError, match="unknown decided_by"):
        GradeResults.from_columns(
            correct=[True],
            decided_by=["math_verifyX"],
            gold=["1"],
            extracted=["1"],
            method=[None],
            reason=[""],
        )


def test_to_pandas() -> None:
    frame = make().to_pandas()
    assert list(frame.columns) == ["correct", "decided_by", "gold", "extracted", "method", "reason"]
    assert frame["correct"].dtype == bool
    assert frame["correct"].tolist() == [r.correct for r in ROWS]
    assert frame["decided_by"].tolist() == [r.decided_by for r in ROWS]
    assert frame["extracted"].tolist()[2] is None
    assert frame["reason"].tolist() == [r.reason for r in ROWS]


def test_to_arrow() -> None:
    import pyarrow as pa

    table = make().to_arrow()
    assert table.num_rows == 5
    assert table.schema.field("correct").type == pa.bool_()
    assert table.schema.field("decided_by").type == pa.string()
    assert table.column("extracted").to_pylist() == [r.extracted for r in ROWS]
    assert table.column("decided_by").to_pylist() == [r.decided_by for r in ROWS]


@pytest.mark.parametrize(("method", "package"), [("to_pandas", "pandas"), ("to_arrow", "pyarrow")])
def test_missing_table_library_names_the_package(monkeypatch: pytest.MonkeyPatch, method: str, package: str) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # makes "import <package>" fail
    with pytest.raises(ImportError, match=package):
        getattr(make(), method)()


def test_repr_summarizes() -> None:
    text = repr(make())
    assert "5 verdicts" in text
    assert "accuracy=0.6000" in text
    assert "timeout=1" in text
