"""The labelled physics dev set (tests/data/physics/dev.jsonl, built by make_dev_set.py):
>= 99% agreement with its labels, and every miss is one of the listed ones, with its reason."""

from __future__ import annotations

import json
from pathlib import Path

from rapidgrade.tasks.physics import grade_physics_many

DATA = Path(__file__).resolve().parents[1] / "data" / "physics"


def _load(name: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_dev_set_agreement() -> None:
    rows = _load("dev.jsonl")
    assert len(rows) >= 500
    verdicts = grade_physics_many(
        [str(r["gold"]) for r in rows],
        [str(r["response"]) for r in rows],
        units=[str(r["unit"]) for r in rows],
    )
    misses = {str(r["id"]) for r, v in zip(rows, verdicts) if v.correct != r["expected"]}
    known = {str(m["id"]): str(m["reason"]) for m in _load("known_misses.jsonl")}
    assert misses == set(known), "every miss must be listed with its reason in known_misses.jsonl"
    assert all(known.values())
    assert (len(rows) - len(misses)) / len(rows) >= 0.99


def test_dev_set_is_what_the_script_builds() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_dev_set", DATA / "make_dev_set.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.rows() == _load("dev.jsonl")
