"""rapidgrade's fredholm task vs the same pipeline written plainly in Python with SymPy per row.

Run from the repository root: ``PYTHONPATH=python python -m benchmarks.bench_fredholm [N]``.

* End to end on the 426 evaluated rows of ``../shared/corpora/fredholm_dev.jsonl``:
  ``parse_llm_outputs_many`` + ``evaluate_solutions`` (threads=1) against a plain per-row
  pipeline as the reference runs it (regex extraction, math-verify's parse into SymPy,
  ``simplify`` of the difference, ``lambdify`` over 100 points), on N evenly spaced rows (default
  40: the plain pipeline takes seconds per row). The plain pipeline runs in one worker
  process with the reference's 8 s limit per row, so a hang cannot stop the benchmark; the
  ratio compares time per row.
* Numeric sampling: 100 points for 10,000 solutions (one C++ batch, one core).
"""

from __future__ import annotations

import re
import sys
import time
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade._pool import WorkerPool
from rapidgrade.tasks.fredholm import EvalConfig, evaluate_solutions, parse_llm_outputs_many
from tests.unit.test_fredholm_corpus import corpus, prediction_row

_UX = re.compile(r"u\s*\(\s*x\s*\)\s*=\s*(.+)")


def plain_row(row: dict[str, Any]) -> bool:
    """One row the plain way (runs in a worker); an error is a wrong answer, as the reference
    counts it."""
    import sympy

    try:
        return _plain_row(row)
    except (ValueError, TypeError, NameError, AttributeError, ZeroDivisionError, RecursionError, sympy.SympifyError):
        return False


def _plain_row(row: dict[str, Any]) -> bool:
    import math_verify
    import sympy

    resp = row["raw_response"]
    sol = None
    for line in reversed(resp.strip().split("\n")):
        m = _UX.search(line)
        if m:
            sol = m.group(1).strip().rstrip(".").replace("\\(", "").replace("\\)", "")
            break
    gt_type = row["ground_truth_solution_type"]
    if gt_type in ("none", "regularized") or sol is None:
        return False
    gt = math_verify.parse("$" + row["ground_truth"] + "$")
    pred = math_verify.parse("$" + sol + "$")
    if not gt or not pred:
        return False
    g, p = gt[0], pred[0]
    if not isinstance(g, sympy.Expr) or not isinstance(p, sympy.Expr):
        return False
    if sympy.simplify(p - g) == 0:
        return True
    x = sympy.Symbol("x", real=True)
    if (p.free_symbols | g.free_symbols) - {x}:
        return False
    a, b = row["ground_truth_domain"] or (0, 1)
    xs = np.linspace(a, b, 100)
    fp, fg = sympy.lambdify(x, p, "numpy"), sympy.lambdify(x, g, "numpy")
    err = np.abs(np.array([fp(v) for v in xs], dtype=complex) - np.array([fg(v) for v in xs], dtype=complex))
    return bool(np.max(err) < 1e-6)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rows = [r for r in corpus() if r["reference"].get("evaluation")]
    preds = [prediction_row(r) for r in rows]
    cfg = EvalConfig(threads=1)

    def ours(part: list[dict[str, Any]]) -> float:
        t = time.perf_counter()
        parsed = parse_llm_outputs_many([p["raw_response"] for p in part], threads=1)
        assert len(parsed) == len(part)
        evaluate_solutions(part, config=cfg)
        return time.perf_counter() - t

    ours(preds)  # warm the SymPy workers
    times = sorted(ours(preds) for _ in range(5))
    t_ours = times[len(times) // 2] / len(preds)

    # by its module's name: under "python -m" this module is __main__, which the worker lacks
    from benchmarks.bench_fredholm import plain_row as plain

    pool = WorkerPool(workers=1)
    try:
        pool.run_many(plain, [(preds[0],)], timeout=60.0)  # imports
        t = time.perf_counter()
        sample = preds[:: max(1, len(preds) // n)][:n]
        res = pool.run_many(plain, [(p,) for p in sample], timeout=8.0)
        t_plain = (time.perf_counter() - t) / n
    finally:
        pool.close()
    timeouts = sum(1 for r in res if r.status == "timeout")
    plain_correct = sum(1 for r in res if r.status == "ok" and r.value)
    assert not [r for r in res if r.status == "error"], [r.error for r in res if r.status == "error"][:3]
    print(
        f"end to end, {len(preds)} rows (ours) / {n} evenly spaced rows"
        f" (plain: {plain_correct} correct, {timeouts} hit 8 s):"
    )
    print(f"  rapidgrade  {1e3 * t_ours:8.2f} ms/row  (median of 5 runs over all rows)")
    print(f"  plain       {1e3 * t_plain:8.2f} ms/row")
    print(f"  ratio       {t_plain / t_ours:8.1f}x")

    xs = np.linspace(-3.0, 3.0, 100)
    exprs = [(f"{k % 7 + 1}*sin({k % 5 + 1}*x) + x**2/{k % 3 + 2} + exp(-x)", "infix") for k in range(10_000)]
    _core.fredholm_sample_many(exprs[:10], [xs] * 10, threads=1)
    t = time.perf_counter()
    out = _core.fredholm_sample_many(exprs, [xs] * len(exprs), threads=1)
    dt = time.perf_counter() - t
    assert len(out) == 10_000 and all(np.isfinite(y).all() for y in out[:5])
    print(f"numeric sampling: 10,000 solutions x 100 points in {dt:.3f} s on one thread")


if __name__ == "__main__":
    main()
