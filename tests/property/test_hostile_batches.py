"""A generic property of every task's scoring job: random hostile rows (huge, deep, wrong types,
lone surrogates, NaN/Infinity, nulls) mixed into a batch of good rows never lose the batch:
N rows in, N rows out, the good rows' verdicts as without the hostile ones, and each hostile
row a verdict of its own with a reason (an error verdict when its graded fields are not text)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from rapidgrade.score import score_file


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


#: Values of a graded field that are not text: the row is an error verdict.
NOT_TEXT: list[Any] = [None, 7, 1.5, float("nan"), float("inf"), True, [], {}, {"a": 1}, [1, 2], _deep(300), 10**30]
#: Text that is hostile but text: the row gets a verdict and a reason.
TEXT: list[str] = ["", "\ud800", "x" * 200_000, "$5 " + "Ym " * 13 + "$", "{" * 5000, "\\frac{" * 2000, "\x00"]

GOOD: dict[str, list[dict[str, Any]]] = {
    "math": [
        {"gold": "1/2", "response": "\\boxed{0.5}"},
        {"gold": "3", "response": "the answer is 4"},
        {"gold": "x^2", "response": "$x^{2}$"},
    ],
    "physics": [
        {"gold": "5 m", "response": "5 m"},
        {"gold": "2 kg", "response": "3 kg"},
        {"gold": "9.8 m/s^2", "response": "9.8"},
    ],
    "fredholm": [
        {"ground_truth": "x^2 + 1", "ground_truth_solution_type": "exact_symbolic", "ground_truth_domain": [0, 1],
         "solution_str": "x^2+1", "has_solution": True, "solution_type": "exact_symbolic"},
        {"ground_truth": "\\sin(x)", "ground_truth_solution_type": "exact_symbolic", "ground_truth_domain": [0, 1],
         "solution_str": "\\cos(x)", "has_solution": True, "solution_type": "exact_symbolic"},
    ],
}  # fmt: skip
FIELDS = {
    "math": ("gold", "response"),
    "physics": ("gold", "response"),
    "fredholm": ("ground_truth", "solution_str", "ground_truth_domain", "evaluation_points"),
}
OPTIONS: dict[str, dict[str, Any]] = {"math": {"fallback": False}, "physics": {}, "fredholm": {"sympy": False}}


def _verdict(task: str, row: dict[str, Any]) -> Any:
    if task == "fredholm":
        ev = row["evaluation"]
        return ev.get("correct"), ev.get("error")
    return row["correct"], row["decided_by"], row["reason"]


#: Values of the fredholm task's structured fields that are not of their shape.
BAD_SHAPES: dict[str, list[Any]] = {
    "ground_truth_domain": [7, "abc", {"a": 1}, [None, 1], [1], _deep(300), True, [float("nan"), 1]],
    "evaluation_points": [7, "abc", [1, 2], {"x_values": [None]}, {"x_values": "abc"}, _deep(300), True],
}


def _hostile(task: str, rng: random.Random) -> tuple[dict[str, Any], bool]:
    """A hostile row and whether it must be an error verdict (a graded field holds a value
    of a type or shape the task cannot read)."""
    row = dict(rng.choice(GOOD[task]))
    field = rng.choice(FIELDS[task])
    if field in BAD_SHAPES:
        row[field] = rng.choice(BAD_SHAPES[field])
        return row, True
    if rng.random() < 0.5:
        value: Any = rng.choice(NOT_TEXT)
        row[field] = value
        # A number is a gold the math and physics tasks read, and the math task reads a list
        # as several golds or samples: a verdict, not necessarily an error.
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        readable = (number and field == "gold") or (task == "math" and isinstance(value, list))
        return row, not readable
    row[field] = rng.choice(TEXT)
    return row, False


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    # json.dumps writes NaN / Infinity and lone surrogates as escapes: the job's lenient reader.
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("task", ["math", "physics", "fredholm"])
def test_hostile_rows_never_lose_the_batch(tmp_path: Path, task: str, seed: int) -> None:
    rng = random.Random(f"{task}-{seed}")
    good = [dict(rng.choice(GOOD[task])) for _ in range(12)]
    mixed: list[dict[str, Any]] = []
    kinds: list[bool | None] = []  # None: good; else whether the hostile value is not text
    for row in good:
        mixed.append(row)
        kinds.append(None)
        if rng.random() < 0.5:
            bad, not_text = _hostile(task, rng)
            mixed.append(bad)
            kinds.append(not_text)
    _write(tmp_path / "good.jsonl", good)
    _write(tmp_path / "mixed.jsonl", mixed)
    options = OPTIONS[task]
    score_file(tmp_path / "good.jsonl", task=task, out=tmp_path / "g", chunk_size=5, **options)
    score_file(tmp_path / "mixed.jsonl", task=task, out=tmp_path / "m", chunk_size=5, **options)
    alone = [json.loads(x) for x in (tmp_path / "g" / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()]
    out = [json.loads(x) for x in (tmp_path / "m" / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(out) == len(mixed)  # N in = N out
    good_out = [row for row, kind in zip(out, kinds) if kind is None]
    assert [_verdict(task, r) for r in good_out] == [_verdict(task, r) for r in alone]
    for row, kind in zip(out, kinds):
        if kind is None:
            continue
        if task == "fredholm":
            ev = row["evaluation"]
            assert isinstance(ev.get("correct"), bool)
            if kind:
                assert ev["correct"] is False and isinstance(ev.get("error"), str) and ev["error"]
        else:
            assert isinstance(row["reason"], (str, list)) and row["reason"]
            if kind:
                assert row["correct"] is False and row["decided_by"] == "error"
