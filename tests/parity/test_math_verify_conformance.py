"""Conformance: rapidgrade's ``parse`` + ``verify`` give math-verify 0.9.0's recorded answers.

Every case in ``math_verify_0.9.0_cases.jsonl`` (recorded from math-verify's own test suite) is run
through rapidgrade's compatible API with the recorded configs and keyword arguments. The answers
come from math-verify running in rapidgrade's worker processes (or from the fast path where it is
certain), so this also checks that parse results survive the trip between processes: the parsed
objects must print as math-verify printed them, and ``verify`` must give ``expected``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rapidgrade
from rapidgrade import (
    ExprExtractionConfig,
    LatexExtractionConfig,
    NormalizationConfig,
    StringExtractionConfig,
    parse,
    verify,
)

CASES_FILE = Path(__file__).resolve().parent.parent / "data" / "math_verify_0.9.0_cases.jsonl"

_CONFIG_TYPES: dict[str, Any] = {
    "LatexExtractionConfig": LatexExtractionConfig,
    "ExprExtractionConfig": ExprExtractionConfig,
    "StringExtractionConfig": StringExtractionConfig,
    "NormalizationConfig": NormalizationConfig,
}


def _build(value: Any) -> Any:
    """A recorded config dict (``{"type": ..., field: value}``) back as the config object."""
    if isinstance(value, dict) and "type" in value:
        fields = {k: _build(v) for k, v in value.items() if k != "type"}
        if "strings" in fields:
            fields["strings"] = tuple(fields["strings"])
        return _CONFIG_TYPES[value["type"]](**fields)
    if isinstance(value, list):
        return [_build(v) for v in value]
    return value


def _load_cases() -> list[dict[str, Any]]:
    with CASES_FILE.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


CASES = _load_cases()


def _parse(text: str, config: Any, kwargs: dict[str, Any]) -> list[Any]:
    if config is None:
        return parse(text, **kwargs)
    return parse(text, extraction_config=_build(config), **kwargs)


def test_all_cases_present() -> None:
    assert len(CASES) == 270
    assert len({c["id"] for c in CASES}) == 270


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    gold = _parse(case["gold"], case["gold_config"], case["gold_parse_kwargs"])
    pred = _parse(case["pred"], case["pred_config"], case["pred_parse_kwargs"])
    assert [str(x) for x in gold] == case["gold_parsed"]
    assert [str(x) for x in pred] == case["pred_parsed"]
    assert verify(gold, pred, **case["verify_kwargs"]) is case["expected"]


def test_results_are_plain_lists_of_sympy_objects() -> None:
    import sympy

    gold = parse("$x \\in [1, 2]$")
    assert isinstance(gold, list)
    assert isinstance(gold[0], sympy.Basic)
    assert gold[0] == sympy.Eq(sympy.Symbol("x", real=True), sympy.Interval(1, 2), evaluate=False)
    assert rapidgrade.verify(gold, parse("$x \\in [1, 2]$"))
