"""A peer grader in its own process, one pair at a time, so that the parent can kill it at a deadline.

Started by :func:`benchmarks.bench_wild.run_peer` as a script (not as part of the ``benchmarks``
package, so it imports nothing but the standard library and the peer)::

    python benchmarks/_peer_worker.py PAIRS START GRADER

PAIRS is a JSON-lines file of ``[gold, response]`` pairs; the worker grades the pairs from index
START on with GRADER (``module:function``, called as ``function(gold, response) -> bool``;
``math_verify`` is this module's :func:`grade_math_verify`). It first imports the grader and grades
one small pair (the peer's lazy start-up: imports, grammars), then writes ``ready CPU`` (its own CPU
seconds so far) and, per pair, ``INDEX 1`` (true), ``INDEX 0`` (false) or ``INDEX E`` (the grader
raised: counted false), one line each, flushed at once.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import resource
import sys
from collections.abc import Callable


def grade_math_verify(gold: str, response: str) -> bool:
    """math-verify's ``verify(parse(gold), parse(response))`` with its own defaults, time limits
    included (``parse(parsing_timeout=5)``, ``verify(timeout_seconds=5)``: ``signal.alarm`` in this
    process's main thread). The gold is given as the caller prepared it (see
    ``bench_wild.peer_gold``)."""
    from math_verify import parse, verify

    return bool(verify(parse(gold), parse(response)))


def load_grader(spec: str) -> Callable[[str, str], bool]:
    """The grading function named by *spec*: ``math_verify`` or ``module:function``."""
    if spec == "math_verify":
        return grade_math_verify
    module, _, name = spec.partition(":")
    if not name:
        raise ValueError(f"grader must be 'math_verify' or 'module:function', got {spec!r}")
    fn: Callable[[str, str], bool] = getattr(importlib.import_module(module), name)
    return fn


def cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> None:
    pairs_path, start, spec = argv[0], int(argv[1]), argv[2]
    grade = load_grader(spec)
    # the peer's lazy start-up, counted as such; how it grades this pair does not matter
    with contextlib.suppress(Exception):
        grade("1", "1")
    out = sys.stdout
    out.write(f"ready {cpu_seconds():.6f}\n")
    out.flush()
    with open(pairs_path, encoding="utf-8") as f:
        for index, line in enumerate(f):
            if index < start:
                continue
            gold, response = json.loads(line)
            try:
                code = "1" if grade(gold, response) else "0"
            except Exception:  # any failure of the peer is its verdict "false"
                code = "E"
            out.write(f"{index} {code}\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
