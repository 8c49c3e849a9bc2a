"""Unmarked answers: rapidgrade against math-verify on ``../shared/corpora/unmarked_dev.jsonl``.

    python -m benchmarks.bench_unmarked [--repeats 3]

On the 2,195 labelled pairs (human solutions ending in prose, multiple-choice rationales,
perturbed finals, negatives), in one run on the same data:

- errors against the labels by class (source/kind/FP|FN) for rapidgrade's fast path, for
  ``grade_many`` with its defaults (fallback on) and for math-verify 0.9.0
  ``verify(parse(gold), parse(response))``;
- the fast path's share of certain verdicts and its wrong-FALSE rate, here and on the 800-pair
  boxed corpus (against Qwen's grader's verdicts);
- wall time: math-verify once (it takes about a minute), rapidgrade's fast path and its default
  end-to-end run (median of ``--repeats``; the first end-to-end run includes starting the
  fallback's worker processes), and the ratios.
"""

from __future__ import annotations

import argparse
import collections
import statistics
import time
from typing import Any

import rapidgrade
from tests.datasets import load_shared


def error_classes(rows: list[dict[str, Any]], verdicts: list[bool]) -> collections.Counter[str]:
    out: collections.Counter[str] = collections.Counter()
    for row, ok in zip(rows, verdicts):
        if ok != row["label"]:
            kind = str(row["kind"]).split(":")[0]
            out[f"{row['source']}/{kind}/{'FP' if ok else 'FN'}"] += 1
    return out


def show(name: str, errors: collections.Counter[str]) -> None:
    by_class = ", ".join(f"{k} {v}" for k, v in sorted(errors.items())) or "none"
    print(f"  {name:<28} {sum(errors.values()):>4} errors  ({by_class})")


def math_verify_verdicts(rows: list[dict[str, Any]]) -> tuple[float, list[bool]]:
    from math_verify import parse, verify

    start = time.perf_counter()
    out = []
    for row in rows:
        try:
            out.append(bool(verify(parse("$" + row["gold"] + "$"), parse(row["response"]))))
        except Exception:
            out.append(False)
    return time.perf_counter() - start, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-math-verify", action="store_true", help="omit the minute-long peer run")
    args = parser.parse_args()
    rows = [row for row in load_shared("unmarked_dev.jsonl") if row["label"] is not None]
    golds = [str(r["gold"]) for r in rows]
    responses = [str(r["response"]) for r in rows]
    print(f"unmarked_dev: {len(rows)} labelled pairs")

    fast_times, full_times = [], []
    fast = full = None
    for _ in range(args.repeats):
        start = time.perf_counter()
        fast = rapidgrade.grade_many(golds, responses, fallback=False)
        fast_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        full = rapidgrade.grade_many(golds, responses, timeout=5.0)
        full_times.append(time.perf_counter() - start)
    assert fast is not None and full is not None
    fast_list, full_list = list(fast), list(full)
    certain = [v for v in fast_list if not v.reason.startswith("undecided")]
    certain_false = [(v, r) for v, r in zip(fast_list, rows) if not v.reason.startswith("undecided") and not v.correct]
    wrong_false = sum(1 for _, r in certain_false if r["label"])
    fallback_pairs = sum(1 for v in full_list if v.decided_by != "fast")

    print("errors against the labels:")
    show("rapidgrade fast path", error_classes(rows, [bool(v.correct) for v in fast_list]))
    show("rapidgrade (fallback on)", error_classes(rows, [bool(v.correct) for v in full_list]))
    mv_time = None
    if not args.skip_math_verify:
        mv_time, mv = math_verify_verdicts(rows)
        show("math-verify 0.9.0", error_classes(rows, mv))
    print(
        f"fast path: {len(certain)}/{len(rows)} certain ({len(certain) / len(rows):.2%}); "
        f"wrong FALSE {wrong_false}/{len(certain_false)} ({wrong_false / max(len(certain_false), 1):.2%}); "
        f"{fallback_pairs} pairs go to the fallback"
    )
    boxed = load_shared("qwen25_math_cot_800.jsonl")
    boxed_verdicts = rapidgrade.grade_many([r["gold"] for r in boxed], [r["response"] for r in boxed], fallback=False)
    boxed_false = [
        r for r, v in zip(boxed, boxed_verdicts) if v.correct is False and not v.reason.startswith("undecided")
    ]
    boxed_wrong = sum(1 for r in boxed_false if r["qwen_grader"])
    print(
        f"800 boxed corpus: fast FALSE verdicts that Qwen's grader calls correct {boxed_wrong}/{len(boxed_false)} "
        f"({boxed_wrong / max(len(boxed_false), 1):.2%})"
    )
    fast_med, full_med = statistics.median(fast_times), statistics.median(full_times)
    print("time (median of repeats):")
    print(f"  rapidgrade fast path        {fast_med * 1e3:9.1f} ms")
    print(f"  rapidgrade (fallback on)    {full_med * 1e3:9.1f} ms  (first run {full_times[0] * 1e3:.0f} ms)")
    if mv_time is not None:
        print(f"  math-verify 0.9.0           {mv_time * 1e3:9.1f} ms  (one run)")
        print(f"ratio fast path / math-verify:     {mv_time / fast_med:8.0f}x")
        print(f"ratio end to end / math-verify:    {mv_time / full_med:8.0f}x")


if __name__ == "__main__":
    main()
