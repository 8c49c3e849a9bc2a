r"""RL reward functions with short golds and with whole-solution golds, beside math-verify, same run.

    python -m benchmarks.bench_rewards [--repeats 5] [--peer-pairs 200]

The 800 responses of the demo set, graded against three forms of the same golds:

* **short**: the gold answers as the demo set holds them (``"\frac{1}{2}"``);
* **MATH solution**: each gold as the last sentence of a solution, in a box (``"... The answer is
  $\boxed{\frac{1}{2}}$."``), the form lighteval's MATH tasks (and datasets that keep the
  reference solution) pass as the gold;
* **GSM8K answer**: each integer gold after a worked line and ``#### `` (GSM8K's reference answers).

Timed, medians over ``--repeats``: TRL's reward call (:func:`rapidgrade.integrations.trl.accuracy_reward`
on the whole batch, as GRPOTrainer calls it), verl's per-sample call (``compute_score`` once per
row, as verl's naive reward manager calls it) and verl's batch call (``compute_score_batch``). The
peer is math-verify (``verify(parse(gold), parse(response))``, what TRL's own ``accuracy_reward`` and
most custom reward functions call) on the first ``--peer-pairs`` pairs of each set. Printed:
completions per second and the ratio to math-verify, and the share of pairs the fast path decided.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import rapidgrade
from benchmarks._common import Report, load_corpus
from rapidgrade.integrations.trl import accuracy_reward
from rapidgrade.integrations.verl import compute_score, compute_score_batch


def gold_sets(rows: list[dict[str, Any]]) -> dict[str, tuple[list[str], list[str]]]:
    """(golds, responses) of each form of the golds."""
    golds = [str(r["gold"]) for r in rows]
    responses = [r["response"] for r in rows]
    solutions = [f"We work through the problem step by step.\nThe answer is $\\boxed{{{g}}}$." for g in golds]
    integers = [k for k, g in enumerate(golds) if g.lstrip("-").isdigit()]
    gsm8k = [f"First, 2 * 3 = <<2*3=6>>6.\nSo the total is {golds[k]}.\n#### {golds[k]}" for k in integers]
    return {
        "short": (golds, responses),
        "MATH solution": (solutions, responses),
        "GSM8K answer": (gsm8k, [responses[k] for k in integers]),
    }


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm-up: worker pools, gold caches
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def math_verify_seconds(golds: list[str], responses: list[str]) -> float:
    """Seconds per pair of math-verify's parse + parse + verify (one pass: it is slow)."""
    from math_verify import parse, verify

    start = time.perf_counter()
    for gold, response in zip(golds, responses):
        verify(parse(gold), parse(response))
    return (time.perf_counter() - start) / max(len(golds), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer-pairs", type=int, default=200)
    args = parser.parse_args()
    report = Report("RL reward functions: short and whole-solution golds")
    for name, (golds, responses) in gold_sets(load_corpus()).items():
        n = len(golds)
        fast = rapidgrade.grade_many(golds, responses)
        share = float((fast.decided_by == "fast").mean())
        peer = math_verify_seconds(golds[: args.peer_pairs], responses[: args.peer_pairs]) * n
        trl = median_seconds(lambda g=golds, r=responses: accuracy_reward(r, solution=g), args.repeats)
        per_call = median_seconds(
            lambda g=golds, r=responses: [compute_score("math", s, t) for s, t in zip(r, g)], args.repeats
        )
        batch = median_seconds(lambda g=golds, r=responses: compute_score_batch(["math"] * len(r), r, g), args.repeats)
        print(f"-- {name} golds: {n} pairs, fast path decided {share:.1%}", flush=True)
        report.add(f"{name}: TRL accuracy_reward (one batch)", trl, peer, "math-verify", "completions", n)
        report.add(f"{name}: verl compute_score (per sample)", per_call, peer, "math-verify", "completions", n)
        report.add(f"{name}: verl compute_score_batch", batch, peer, "math-verify", "completions", n)
    print(f"results: {report.save('bench_rewards')}")


if __name__ == "__main__":
    main()
