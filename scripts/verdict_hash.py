"""Hash every column of ``grade_many``'s output on each corpus, so that a refactoring can show it
changed no verdict: run it before and after, and compare the lines.

    python -m scripts.verdict_hash [--shared DIR] [--fallback]

Corpora: the bundled demo set, math-verify's recorded test cases (tests/data), the
physics dev set (``task="physics"``), and, where ``--shared`` (default: ``../shared/corpora``
beside the checkout, or ``RAPIDGRADE_SHARED_CORPORA``) exists, the tuning corpora. The fast path
alone by default (deterministic and quick); ``--fallback`` adds the fallback's verdicts, which
depend on timing only for pairs near their deadline.

Each line: corpus name, rows, accuracy, and the SHA-256 (first 16 hex digits) of the columns
correct, decided_by, extracted, method, reason and normalized, row by row.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _rows(path: Path) -> Iterator[dict[str, object]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _pairs(path: Path, gold_key: str = "gold", response_key: str = "response") -> tuple[list[str], list[str]]:
    golds: list[str] = []
    responses: list[str] = []
    for row in _rows(path):
        gold, response = row.get(gold_key), row.get(response_key)
        if isinstance(gold, (str, int, float)) and isinstance(response, str):
            golds.append(str(gold))
            responses.append(response)
    return golds, responses


def corpora(shared: Path | None) -> list[tuple[str, Path, str, str, str]]:
    """(name, path, task, gold key, response key) of every corpus found."""
    found = [
        ("demo", ROOT / "python" / "rapidgrade" / "data" / "qwen25_math_cot_800.jsonl", "math", "gold", "response"),
        ("math_verify_cases", ROOT / "tests" / "data" / "math_verify_0.9.0_cases.jsonl", "math", "gold", "pred"),
        ("physics_dev", ROOT / "tests" / "data" / "physics" / "dev.jsonl", "physics", "gold", "response"),
    ]
    if shared is not None:
        for name in ("qwen25_math_cot_800", "unmarked_dev", "wild_dev"):
            found.append((name, shared / f"{name}.jsonl", "math", "gold", "response"))
    return [c for c in found if c[1].is_file()]


def digest(results: object) -> str:
    h = hashlib.sha256()
    for column in ("correct", "decided_by", "extracted", "method", "reason", "normalized"):
        values = getattr(results, column)
        h.update(column.encode())
        for value in values:
            h.update(repr(value).encode("utf-8", "surrogatepass"))
            h.update(b"\0")
    return h.hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_shared = os.environ.get("RAPIDGRADE_SHARED_CORPORA") or str(ROOT.parent / "shared" / "corpora")
    parser.add_argument("--shared", default=default_shared, help="the tuning corpora (default: %(default)s)")
    parser.add_argument("--fallback", action="store_true", help="let undecided pairs reach the fallback")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "python"))
    import rapidgrade

    shared = Path(args.shared)
    for name, path, task, gold_key, response_key in corpora(shared if shared.is_dir() else None):
        golds, responses = _pairs(path, gold_key, response_key)
        if not golds:
            continue
        results = rapidgrade.grade_many(golds, responses, fallback=args.fallback, task=task)
        print(f"{name:<22} {len(golds):>6} rows  accuracy {results.accuracy:.4f}  {digest(results)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
