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
* Residual check (``verify_residual_many``) against fred-llm's own ``verify_solution``
  (``src/evaluation/types/verify.py``) as its agentic selection calls it (``symbolic=False``,
  12 random points, free constants set to 1), on the same cases: every row of
  ``fredholm_dev.jsonl`` whose prompt states the equation, with the response's recorded solution
  and the ground truth as candidates (distinct pairs). The peer is fred-llm's module itself,
  imported from a snapshot of its repository (``RAPIDGRADE_FREDLLM_GIT``: a git directory of
  ammahmoudi/fred-llm; its ``src/`` is extracted to a temporary directory) and SciPy (installed,
  or in ``RAPIDGRADE_PEER_SITE``); it runs in a killable worker with a deadline per case
  (``--residual-deadline``, 10 s). Prints the verdict agreement and the ratio of time per case;
  then the same on 40 evenly spaced cases with ``verify_solution``'s defaults (``symbolic=True``,
  SymPy integration first, 50 points), as fred-llm's ``evaluate_solutions`` calls it.
  ``--record PATH`` writes the peer's verdicts (the reference of
  ``tests/unit/test_fredholm_residual.py``'s corpus test).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade._pool import WorkerPool
from rapidgrade.tasks.fredholm import EvalConfig, evaluate_solutions, parse_llm_outputs_many
from tests.unit.test_fredholm_corpus import corpus, prediction_row
from tests.unit.test_fredholm_residual import ours_residual, residual_cases

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


# -- residual check vs fred-llm's verify_solution ---------------------------------------------

_DEFAULT_FREDLLM_GIT = "/work/.mirror/ammahmoudi+fred-llm/repo"


def extract_peer(git_dir: str, into: str) -> None:
    """fred-llm's ``src/`` from a snapshot of its repository into *into* (no other files)."""
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "HEAD", "src"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", into], input=archive.stdout, check=True)


def _import_peer(src_root: str, site: str | None) -> tuple[Any, Any]:
    """fred-llm's verify_solution and parse_latex_to_sympy, importing only their modules: the
    package __init__ files (which pull in plotting and API clients) are stood in for by empty
    packages."""
    import types

    for p in (site, src_root):
        if p and p not in sys.path:
            sys.path.insert(0, p)
    for name in ("src", "src.utils", "src.evaluation", "src.evaluation.types", "src.llm", "src.postprocessing"):
        if name not in sys.modules:
            mod = types.ModuleType(name)
            mod.__path__ = [os.path.join(src_root, *name.split("."))]
            sys.modules[name] = mod
    from src.evaluation.types.verify import verify_solution  # type: ignore[import-not-found]
    from src.llm.math_verify_adapter import parse_latex_to_sympy  # type: ignore[import-not-found]

    return verify_solution, parse_latex_to_sympy


def peer_verify(case: dict[str, Any], src_root: str, site: str | None) -> dict[str, Any]:
    """One case as fred-llm's AgenticModelRunner._verify checks a candidate (runs in a worker):
    the equation and the candidate parsed by fred-llm's parse_latex_to_sympy, free symbols
    other than x set to 1, verify_solution(symbolic=False) at the case's points; with the case's
    ``symbolic`` set, verify_solution's default (SymPy integration first), as its
    evaluate_solutions calls it."""
    import logging
    import warnings

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")  # SciPy's IntegrationWarning on hard integrands
    verify_solution, parse = _import_peer(src_root, site)
    try:
        kernel = parse(case["kernel"])
        f = parse(case["f"])
    except Exception as e:  # fred-llm's _parse_equation: any failure -> no equation
        return {"status": "unverifiable", "residual_max": None, "error": f"equation: {type(e).__name__}"}
    try:
        expr = parse(case["candidate"])
        for sym in expr.free_symbols:
            if sym.name != "x":
                expr = expr.subs(sym, 1)
        res = verify_solution(
            expr,
            kernel,
            f,
            case["lambda_val"],
            domain=tuple(case["domain"]),
            x_values=case["x_values"],
            tolerance=1e-6,
            symbolic=bool(case.get("symbolic", False)),
            n_points=len(case["x_values"]),
        )
    except Exception as e:  # fred-llm's _verify: any failure -> unverifiable
        return {"status": "unverifiable", "residual_max": None, "error": f"{type(e).__name__}"}
    rmax = float(res["residual_max"])
    return {
        "status": "verified" if res["verified"] else "failed",
        "residual_max": rmax if np.isfinite(rmax) else str(rmax),
        "error": res.get("error"),
    }


def _run_peer(git_dir: str, site: str | None, cases: list[dict[str, Any]], deadline: float) -> tuple[list[Any], float]:
    """fred-llm's verdicts of the cases (one worker, a deadline per case) and the seconds taken."""
    from benchmarks.bench_fredholm import peer_verify as peer

    with tempfile.TemporaryDirectory(prefix="fredllm-peer-") as tmp:
        extract_peer(git_dir, tmp)
        pool = WorkerPool(workers=1)
        try:
            pool.run_many(peer, [(cases[0], tmp, site)], timeout=120.0)  # imports SymPy, SciPy, math-verify
            t = time.perf_counter()
            res = pool.run_many(peer, [(c, tmp, site) for c in cases], timeout=deadline)
            elapsed = time.perf_counter() - t
        finally:
            pool.close()
    errors = [r.error for r in res if r.status == "error"]
    assert not errors, errors[:3]
    return res, elapsed


def _median_time(cases: list[dict[str, Any]]) -> tuple[list[Any], float]:
    ours_residual(cases[:20])  # warm
    times = []
    for _ in range(5):
        t = time.perf_counter()
        ours = ours_residual(cases)
        times.append(time.perf_counter() - t)
    return ours, sorted(times)[2]


def bench_residual(deadline: float, record: str | None, symbolic_n: int = 40) -> None:
    git_dir = os.environ.get("RAPIDGRADE_FREDLLM_GIT", _DEFAULT_FREDLLM_GIT)
    site = os.environ.get("RAPIDGRADE_PEER_SITE")
    if not Path(git_dir).is_dir():
        print(f"residual check: fred-llm's snapshot not found ({git_dir}; set RAPIDGRADE_FREDLLM_GIT): skipped")
        return
    cases = residual_cases(corpus())
    ours, t_ours_total = _median_time(cases)
    t_ours = t_ours_total / len(cases)
    res, t_peer_total = _run_peer(git_dir, site, cases, deadline)
    peer_status = [r.value["status"] if r.status == "ok" else "timeout" for r in res]
    agree = sum(1 for o, p in zip(ours, peer_status) if o.verified == (p == "verified"))
    timeouts = peer_status.count("timeout")
    finished = [o for o, p in zip(ours, peer_status) if p != "timeout"]
    agree_finished = sum(1 for o, p in zip(ours, peer_status) if p != "timeout" and o.verified == (p == "verified"))
    t_peer = t_peer_total / len(cases)
    n_ver = sum(o.verified for o in ours)
    p_ver = peer_status.count("verified")
    print(
        f"residual check, {len(cases)} cases (distinct equation x candidate pairs of fredholm_dev.jsonl;"
        f" fred-llm's agentic settings: 12 points, tolerance 1e-6):"
    )
    print(f"  rapidgrade  {1e3 * t_ours:8.3f} ms/case  verified {n_ver}  (median of 5 runs, one thread)")
    print(f"  fred-llm    {1e3 * t_peer:8.3f} ms/case  verified {p_ver}  ({timeouts} hit the {deadline:g} s deadline)")
    print(f"  verdicts    {agree}/{len(cases)} agree ({agree_finished}/{len(finished)} where fred-llm finished)")
    print(f"  ratio       {t_peer / t_ours:8.1f}x")
    if record:
        import json

        # the explained differences (written by hand) are kept for the cases that still have them
        notes: dict[tuple[str, str], str] = {}
        if Path(record).exists():
            for line in Path(record).read_text(encoding="utf-8").splitlines():
                old = json.loads(line)
                if old.get("difference"):
                    notes[(old["id"], old["which"])] = old["difference"]
        with open(record, "w", encoding="utf-8") as fh:
            for c, r in zip(cases, res):
                v = r.value if r.status == "ok" else {"status": "timeout", "residual_max": None, "error": None}
                row = {"id": c["id"], "which": c["which"], **v}
                if (c["id"], c["which"]) in notes:
                    row["difference"] = notes[(c["id"], c["which"])]
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"  recorded fred-llm's verdicts in {record}")
    if symbolic_n > 0:
        # verify_solution's defaults, as fred-llm's evaluate_solutions calls it: SymPy's
        # integrate + simplify first, then 50 random points
        sample = cases[:: max(1, len(cases) // symbolic_n)][:symbolic_n]
        sym_cases = []
        for c in sample:
            a, b = c["domain"]
            xs = np.random.default_rng(0).uniform(a, b, 50).tolist()
            sym_cases.append({**c, "x_values": xs, "symbolic": True})
        ours_s, t_ours_s = _median_time(sym_cases)
        res_s, t_peer_s = _run_peer(git_dir, site, sym_cases, deadline)
        status_s = [r.value["status"] if r.status == "ok" else "timeout" for r in res_s]
        done = [(o, p) for o, p in zip(ours_s, status_s) if p != "timeout"]
        agree_s = sum(1 for o, p in done if o.verified == (p == "verified"))
        slowest = max(r.seconds for r in res_s)
        print(
            f"residual check, {len(sym_cases)} evenly spaced cases, verify_solution's defaults"
            f" (symbolic=True: SymPy integrate + simplify first; 50 points):"
        )
        print(f"  rapidgrade  {1e3 * t_ours_s / len(sym_cases):8.3f} ms/case  (median of 5 runs, one thread)")
        print(
            f"  fred-llm    {1e3 * t_peer_s / len(sym_cases):8.1f} ms/case  ({status_s.count('timeout')} hit the"
            f" {deadline:g} s deadline; slowest {slowest:.1f} s)"
        )
        print(f"  verdicts    {agree_s}/{len(done)} agree where fred-llm finished")
        print(f"  ratio       {t_peer_s / t_ours_s:8.1f}x  (a lower bound: the deadline cut fred-llm's slowest)")


def main() -> None:
    args = sys.argv[1:]
    if "--residual-only" in args or "--record" in args or "--residual-deadline" in args:
        deadline = float(args[args.index("--residual-deadline") + 1]) if "--residual-deadline" in args else 10.0
        record = args[args.index("--record") + 1] if "--record" in args else None
        bench_residual(deadline, record)
        return
    n = int(args[0]) if args else 40
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

    bench_residual(10.0, None)


if __name__ == "__main__":
    main()
