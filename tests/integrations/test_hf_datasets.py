"""rapidgrade.grade_dataset / rapidgrade.map_fn on real Hugging Face datasets."""

from __future__ import annotations

import datasets
import pytest

import rapidgrade

GOLDS = ["1/2", "3", r"\sqrt{2}", "7", "x^2"]
RESPONSES = [r"so \boxed{0.5}", "The answer is 4.", r"$\boxed{2^{1/2}}$", "I cannot tell", r"\boxed{x \cdot x}"]


def _dataset() -> datasets.Dataset:
    return datasets.Dataset.from_dict({"answer": GOLDS, "output": RESPONSES, "id": list(range(len(GOLDS)))})


def _expected() -> rapidgrade.GradeResults:
    return rapidgrade.grade_many(GOLDS, RESPONSES)


def test_grade_dataset_adds_the_columns() -> None:
    graded = rapidgrade.grade_dataset(_dataset(), gold="answer", response="output")
    expected = _expected()
    assert graded.column_names == ["answer", "output", "id", "correct", "extracted", "decided_by"]
    assert graded["correct"] == expected.correct.tolist() == [True, False, True, False, True]
    assert graded["extracted"] == expected.extracted
    assert graded["decided_by"] == expected.decided_by.tolist()
    assert graded["id"] == list(range(len(GOLDS)))


def test_map_fn_small_batches_two_processes_and_reason() -> None:
    fn = rapidgrade.map_fn("answer", "output", reason=True, last_number=False)
    graded = _dataset().map(fn, batched=True, batch_size=2, num_proc=2)
    expected = rapidgrade.grade_many(GOLDS, RESPONSES, last_number=False)
    assert graded["correct"] == expected.correct.tolist()
    assert graded["reason"] == expected.reason


def test_dataset_dict_and_conversations() -> None:
    conv = [[{"role": "assistant", "content": r"\boxed{5}"}], [{"role": "assistant", "content": r"\boxed{6}"}]]
    dd = datasets.DatasetDict(
        {"train": datasets.Dataset.from_dict({"gold": ["5", "5"], "response": conv}),
         "test": datasets.Dataset.from_dict({"gold": ["1"], "response": [r"\boxed{1}"]})}
    )  # fmt: skip
    graded = rapidgrade.grade_dataset(dd)
    assert graded["train"]["correct"] == [True, False]
    assert graded["test"]["correct"] == [True]


def test_missing_column_is_named() -> None:
    with pytest.raises(KeyError, match="'gold'"):
        rapidgrade.grade_dataset(_dataset())
