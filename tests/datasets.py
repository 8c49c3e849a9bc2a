"""Where the test data lives and how to read it: the one place tests and benchmarks find it.

Everything is inside the repository or the installed package, so a clean clone (or a wheel under
test) has all of it:

- the demo corpus, ``qwen25_math_cot_800.jsonl``, shipped in the package (``rapidgrade/data``):
  800 real model responses to 100 MATH problems with gold answers (see its README there);
- ``tests/data/*.jsonl``: recorded conformance cases and reference verdicts (see its README).

The project's tuning corpora (real responses with labels, ``unmarked_dev.jsonl``,
``fredholm_dev.jsonl``, ...) are not in the repository: they live in ``../shared/corpora`` beside it
on the development and CI machines, or where ``RAPIDGRADE_SHARED_CORPORA`` points. Tests that read
them carry the ``shared`` marker: plain ``pytest`` deselects them, ``pytest -m shared`` runs them.

Fixtures over these are in ``tests/conftest.py``; module-level code (parametrize lists) calls the
functions here directly.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import rapidgrade

#: ``tests/data``: recorded cases and verdicts.
DATA_DIR = Path(__file__).resolve().parent / "data"
#: The variable that names the folder of the shared corpora, where it is not ``../shared/corpora``.
SHARED_CORPORA_VARIABLE = "RAPIDGRADE_SHARED_CORPORA"
#: Where the shared corpora are looked for when the variable is not set: ``shared/corpora`` beside
#: the repository or beside any folder above it (a git worktree inside the repository finds it too).
SHARED_CORPORA_DEFAULTS = tuple(p / "shared" / "corpora" for p in Path(__file__).resolve().parents[1].parents)
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


def shared_path(name: str) -> Path:
    """The path of the shared corpus *name* (e.g. ``"unmarked_dev.jsonl"``): in the folder that
    ``RAPIDGRADE_SHARED_CORPORA`` names when it is set, else in ``shared/corpora`` beside the
    repository. Raises FileNotFoundError naming the places looked in and the variable to set."""
    env = os.environ.get(SHARED_CORPORA_VARIABLE)
    candidates = [Path(env) / name] if env else [d / name for d in SHARED_CORPORA_DEFAULTS]
    for path in candidates:
        if path.is_file():
            return path
    looked = ", ".join(str(p) for p in candidates)
    raise FileNotFoundError(
        f"shared corpus {name!r} not found (looked in {looked}); set {SHARED_CORPORA_VARIABLE} to the folder "
        "that holds the project's shared corpora, or run plain `pytest`, which deselects the tests marked "
        "`shared` that need them"
    )


def shared_available(name: str) -> bool:
    """Whether :func:`shared_path` finds the shared corpus *name*."""
    try:
        shared_path(name)
    except FileNotFoundError:
        return False
    return True


def load_shared(name: str) -> list[dict[str, Any]]:
    """The rows of the shared corpus *name* (see :func:`shared_path`), e.g.
    ``load_shared("unmarked_dev.jsonl")``. Only tests marked ``shared`` call it."""
    return read_jsonl(shared_path(name))


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
