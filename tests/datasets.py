"""Where the test data lives and how to read it: the one place tests and benchmarks find it.

Everything is inside the repository or the installed package, so a clean clone (or a wheel under
test) has all of it:

- the demo corpus, ``qwen25_math_cot_800.jsonl``, shipped in the package (``rapidgrade/data``):
  800 real model responses to 100 MATH problems with gold answers (see its README there);
- ``tests/data/*.jsonl``: recorded conformance cases and reference verdicts (see its README).

Fixtures over these are in ``tests/conftest.py``; module-level code (parametrize lists) calls the
functions here directly.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import rapidgrade

#: ``tests/data``: recorded cases and verdicts.
DATA_DIR = Path(__file__).resolve().parent / "data"
#: The project's shared corpora of real model responses (``../shared/corpora`` beside the
#: repository, as on every development and CI machine; see the README there).
SHARED_CORPORA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpora"
#: The packaged demo corpus (the copy of the rapidgrade under test, installed or from the tree).
DEMO_CORPUS = Path(rapidgrade.__file__).resolve().parent / "data" / "qwen25_math_cot_800.jsonl"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file (blank lines skipped)."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


@cache
def _demo_corpus() -> tuple[dict[str, Any], ...]:
    return tuple(read_jsonl(DEMO_CORPUS))


def load_demo_corpus() -> list[dict[str, Any]]:
    """The 800 rows of the packaged demo corpus (``id``, ``gold``, ``response``, ...), read once;
    each call returns a new list of copies, so a test may modify what it gets."""
    return [dict(row) for row in _demo_corpus()]


def load_data(name: str) -> list[dict[str, Any]]:
    """The rows of ``tests/data/<name>``, e.g. ``load_data("math_verify_0.9.0_cases.jsonl")``."""
    return read_jsonl(DATA_DIR / name)


def load_shared(name: str) -> list[dict[str, Any]]:
    """The rows of ``../shared/corpora/<name>``, e.g. ``load_shared("unmarked_dev.jsonl")``.
    Raises FileNotFoundError naming the expected place when the shared corpora are absent."""
    path = SHARED_CORPORA / name
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the shared corpora are expected beside the repository (../shared)")
    return read_jsonl(path)


def fredholm_row(sol: str | None, gt: str, gt_type: str, **kw: Any) -> dict[str, Any]:
    """A fredholm evaluation row (the reference pipeline's fields) with solution *sol* (``None``:
    none given), ground truth *gt* of solution type *gt_type* on [0, 1]; *kw* overrides fields."""
    row: dict[str, Any] = {
        "ground_truth": gt,
        "ground_truth_solution_type": gt_type,
        "ground_truth_has_solution": gt_type != "none",
        "ground_truth_domain": [0.0, 1.0],
        "evaluation_points": None,
        "solution_str": sol,
        "has_solution": sol is not None,
        "solution_type": gt_type,
        "api_error": False,
    }
    row.update(kw)
    return row
