"""The fallback on the pairs the fast path leaves undecided: its verdicts against the labels and
its CPU time.

    python -m benchmarks.bench_fallback [--save PAIRS.jsonl | --pairs PAIRS.jsonl] [--symengine]

For each corpus (the packaged 800-pair demo set against its adjudicated verdicts,
``../shared/corpora/unmarked_dev.jsonl``'s labelled rows and ``wild_dev.jsonl``, with their
labels), the fast path runs first (``grade_many``'s defaults); the pairs it leaves UNKNOWN are
sent to the fallback exactly as ``grade_many`` sends them (the unwrapped gold and the extracted
answer), on two worker processes at the default 5 s per pair. Printed per corpus: how many pairs
reach the fallback (and their share), the fallback's errors and false positives against the
labels, its verdicts by decider and by whether a FALSE was a disproof or only "not proven
equal", and its CPU time (the sum over pairs of each worker's process time for the pair; a
timeout counts its whole deadline).

``--save`` writes the undecided pairs (with their labels) to a file and ``--pairs`` reads them
back instead of running the fast path, so that a change of the fallback is measured on the same
pairs while the fast path changes too. ``--symengine`` also times SymEngine against SymPy on the
expressions of those pairs (SymEngine's Python bindings must be importable).

Measured when the fallback learned to tell disproofs from "not proven equal" (2 cores shared
with other work, so CPU seconds are rough; each version in its own process on the same pairs):
with the core of that time, 0 of the demo set's and of unmarked_dev's pairs reach the fallback
and 9 of wild_dev's 3,316 (0.27%): fallback errors 2 -> 1, no false positive, 0.9 s CPU. With
``--every`` (all distinct pairs with an answer: 113, 1,215 and 1,946): errors 3 -> 3 (the one
false positive is a label), 1 -> 1 and 8 -> 3, no new false positive; CPU 0.8 -> 0.5 s,
29.5 -> 24.8 s and 12.0 -> 12.5 s; of the FALSE verdicts 32, 188 and 1,695 are disproofs and none
of them is wrong (every wrong FALSE says "not proven equal"). SymEngine 0.15 was not adopted: its zero test (expand)
agreed with SymPy's simplify on every expression pair here and was faster on them (0.26 s ->
0.007 s on the demo set's), but the fallback's CPU goes to math-verify's parse and verify (about
85% in a profile on unmarked_dev) and SymEngine has no simplify or trigsimp to take over the
proofs that remain.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade._pool import WorkerPool
from rapidgrade.fallback import WARMUP, run_cascade
from tests.datasets import load_data, load_demo_corpus, load_shared

TIMEOUT = 5.0
_UNKNOWN = 2


def timed_cascade(gold: str, answer: str) -> tuple[tuple[bool, str, str], float]:
    """run_cascade's verdict and the process time it took (run in a worker)."""
    start = time.process_time()
    verdict = run_cascade(gold, answer)
    return verdict, time.process_time() - start


def corpora() -> dict[str, list[tuple[str, str, bool]]]:
    """(gold, response, label) of each corpus."""
    adjudicated = {row["id"]: row["verdict"] for row in load_data("corpus_adjudications.jsonl")}
    demo = [(r["gold"], r["response"], bool(adjudicated.get(r["id"], r["qwen_grader"]))) for r in load_demo_corpus()]
    out = {"demo_800": demo}
    for name in ("unmarked_dev", "wild_dev"):
        rows = [r for r in load_shared(f"{name}.jsonl") if r["label"] is not None]
        out[name] = [(r["gold"], r["response"], bool(r["label"])) for r in rows]
    return out


def undecided_pairs(rows: list[tuple[str, str, bool]], *, every: bool = False) -> list[dict[str, Any]]:
    """The pairs the fast path leaves UNKNOWN, as grade_many hands them to the fallback (with
    *every*: every pair with an answer, each with the fast path's verdict, ``None`` for UNKNOWN)."""
    golds = [g for g, _, _ in rows]
    responses = [r for _, r, _ in rows]
    columns = _core.grade_fast_many(golds, responses)
    tri, meth, ext_off, ext_data = columns.tri, columns.method, columns.extracted_offsets, columns.extracted_data
    raw_index, raw_table = columns.raw_index, columns.raw_table
    codes = np.frombuffer(bytes(tri), dtype=np.int8)
    unknown = np.flatnonzero(codes == _UNKNOWN).tolist()
    offsets = np.frombuffer(ext_off, dtype=np.int64)
    found = np.frombuffer(meth, dtype=np.uint8) != 255
    # the unwrapped golds come only for the UNKNOWN pairs: the others send the gold as given
    raw = dict(zip(unknown, (raw_table[k] for k in np.frombuffer(raw_index, dtype=np.int32).tolist())))
    chosen = [i for i in range(len(rows)) if found[i]] if every else unknown
    out = []
    seen: set[tuple[str, str]] = set()
    for i in chosen:
        answer = ext_data[int(offsets[i]) : int(offsets[i + 1])].decode("utf-8", "surrogatepass") if found[i] else ""
        gold = raw.get(i, rows[i][0])
        if every and (gold, answer) in seen:
            continue
        seen.add((gold, answer))
        fast = None if codes[i] == _UNKNOWN else bool(codes[i] == 1)
        out.append({"row": i, "gold": gold, "answer": answer, "label": rows[i][2], "fast": fast})
    return out


def run_fallback(pairs: list[dict[str, Any]], pool: WorkerPool) -> list[tuple[tuple[bool, str, str], float]]:
    # by its module's name, which the workers import (under ``python -m`` this module is __main__)
    from benchmarks.bench_fallback import timed_cascade as task

    outcomes = pool.run_many(task, [(p["gold"], p["answer"]) for p in pairs], timeout=TIMEOUT, warmup=WARMUP)
    results: list[tuple[tuple[bool, str, str], float]] = []
    for outcome in outcomes:
        if outcome.status == "ok":
            results.append(outcome.value)
        elif outcome.status == "timeout":
            results.append(((False, "timeout", "timeout"), TIMEOUT))
        else:
            results.append(((False, "error", outcome.error), 0.0))
    return results


def kind_of_false(reason: str) -> str:
    """A FALSE verdict's kind: its reason says whether the answers were disproved equal."""
    return "disproved" if reason.startswith("disproved") else "not proven"


def _pair(p: dict[str, Any]) -> str:
    return f"gold={p['gold'][:40]!r} answer={p['answer'][:60]!r}"


def report(name: str, total: int, pairs: list[dict[str, Any]], results: list[Any], show: int) -> None:
    cpu = sum(seconds for _, seconds in results)
    errors = [(p, v) for p, (v, _) in zip(pairs, results) if v[0] != p["label"]]
    false_positives = [(p, v) for p, v in errors if v[0]]
    deciders = collections.Counter(
        f"{v[1]}:{'TRUE' if v[0] else 'FALSE'}" + ("" if v[0] else f"({kind_of_false(v[2])})") for v, _ in results
    )
    wrong_false = collections.Counter(kind_of_false(v[2]) for p, v in errors if not v[0])
    share = len(pairs) / total if total else 0.0
    print(f"{name}: {total} pairs, {len(pairs)} reach the fallback ({share:.2%}); fast path decides {1 - share:.2%}")
    print(
        f"  fallback errors {len(errors)} (false positives {len(false_positives)}; "
        f"wrong FALSE by kind {dict(wrong_false)})"
    )
    print(f"  fallback CPU {cpu:.2f} s ({cpu / max(len(pairs), 1) * 1000:.1f} ms/pair)")
    print(f"  verdicts: {dict(sorted(deciders.items()))}")
    fast = [(p, v) for p, (v, _) in zip(pairs, results) if p.get("fast") is not None]
    if fast:
        fast_true_lost = sum(1 for p, v in fast if p["fast"] and not v[0])
        fast_false_made_true = [(p, v) for p, v in fast if not p["fast"] and v[0]]
        disproved_fast_true = sum(1 for p, v in fast if p["fast"] and not v[0] and kind_of_false(v[2]) == "disproved")
        print(
            f"  against the fast path's certain verdicts ({len(fast)}): its TRUE not proven {fast_true_lost} "
            f"(of them 'disproved' {disproved_fast_true}); its FALSE made TRUE {len(fast_false_made_true)}"
        )
        for p, v in fast_false_made_true[:show]:
            print(f"    fast FALSE, fallback TRUE label={p['label']!s:5} {_pair(p)} | {v[2][:80]}")
    for p, v in errors[:show]:
        print(f"    label={p['label']!s:5} got={v[0]!s:5} {v[1]:<11} {_pair(p)} | {v[2][:90]}")


def symengine_timing(pairs: list[dict[str, Any]]) -> None:
    """SymPy's and SymEngine's time to decide a - b == 0 on the pairs both sides of which parse."""
    import sympy

    symengine = importlib.import_module("symengine")  # an optional engine under test

    from rapidgrade.fallback import _core_reading

    exprs = []
    for p in pairs:
        a, b = _core_reading(p["gold"]), _core_reading(p["answer"])
        if isinstance(a, sympy.Expr) and isinstance(b, sympy.Expr):
            exprs.append((a, b))
    agree = converted = 0
    sympy_time = symengine_time = 0.0
    for a, b in exprs:
        start = time.process_time()
        try:
            sympy_zero = sympy.simplify(a - b) == 0
        except (TypeError, ValueError, NotImplementedError, RecursionError):
            sympy_zero = False
        sympy_time += time.process_time() - start
        start = time.process_time()
        try:
            diff = symengine.sympify(a) - symengine.sympify(b)
            engine_zero = symengine.expand(diff) == 0
            converted += 1
        except (TypeError, ValueError, NotImplementedError, RuntimeError):
            engine_zero = False
        symengine_time += time.process_time() - start
        agree += sympy_zero == engine_zero
    print(
        f"  SymEngine vs SymPy on {len(exprs)} expression pairs ({converted} converted): "
        f"simplify {sympy_time:.3f} s, symengine expand {symengine_time:.3f} s; same zero test on {agree}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--save", type=Path, help="write the undecided pairs here")
    parser.add_argument("--pairs", type=Path, help="read the undecided pairs from here (no fast path run)")
    parser.add_argument("--show", type=int, default=0, help="print this many errors per corpus")
    parser.add_argument("--symengine", action="store_true", help="also time SymEngine against SymPy")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--every",
        action="store_true",
        help="send every distinct (gold, answer) pair to the fallback, not only the undecided ones, and compare with "
        "the fast path's certain verdicts too (a stress test of the fallback's proofs and disproofs)",
    )
    args = parser.parse_args()
    if args.pairs is not None:
        saved = json.loads(args.pairs.read_text())
        totals, by_corpus = saved["totals"], saved["pairs"]
    else:
        data = corpora()
        totals = {name: len(rows) for name, rows in data.items()}
        by_corpus = {name: undecided_pairs(rows, every=args.every) for name, rows in data.items()}
        if args.save is not None:
            args.save.write_text(json.dumps({"totals": totals, "pairs": by_corpus}, ensure_ascii=False))
    with WorkerPool(args.workers) as pool:
        for name, pairs in by_corpus.items():
            results = run_fallback(pairs, pool)
            report(name, totals[name], pairs, results, args.show)
            if args.symengine:
                symengine_timing(pairs)


if __name__ == "__main__":
    main()
