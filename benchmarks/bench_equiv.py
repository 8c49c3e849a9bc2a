"""Benchmark of the expression engine against the math-verify path, in one run on the same data.

1. Equivalence of answer pairs from the corpus (gold answer vs the last ``\\boxed{}`` of each
   response): ``rapidgrade.equivalent`` (and ``equivalent_many``) vs latex2sympy2_extended parse +
   math-verify's SymPy comparison (``verify``), which is what math-verify does after extraction.
2. Numeric sampling: ``Expr.evaluate`` on 10^6 points vs ``sympy.lambdify`` + NumPy.

Prints medians over repeats and the ratios. Usage: ``python -m benchmarks.bench_equiv [--quick]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import sympy
from latex2sympy2_extended import latex2sympy
from math_verify import verify

import rapidgrade
from tests.datasets import load_demo_corpus


def load_pairs() -> list[tuple[str, str]]:
    pairs = []
    for row in load_demo_corpus():
        boxes = rapidgrade.find_boxed(row["response"])
        if boxes:
            pairs.append((row["gold"], boxes[-1].content))
    return pairs


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def math_verify_path(pairs: list[tuple[str, str]]) -> list[bool | None]:
    out: list[bool | None] = []
    for gold, pred in pairs:
        try:
            g = latex2sympy(gold)
            p = latex2sympy(pred)
        except Exception:
            out.append(None)
            continue
        out.append(verify([g, gold], [p, pred], timeout_seconds=None))
    return out


def bench_equivalence(repeats: int, peer_repeats: int) -> None:
    pairs = load_pairs()
    n = len(pairs)
    t_rg, verdicts = median_time(lambda: [rapidgrade.equivalent(a, b) for a, b in pairs], repeats)
    t_many1, many = median_time(lambda: rapidgrade.equivalent_many(pairs, threads=1), repeats)
    t_many, _ = median_time(lambda: rapidgrade.equivalent_many(pairs), repeats)
    assert many == verdicts
    t_mv, mv = median_time(lambda: math_verify_path(pairs), peer_repeats)

    decided = [(v, m) for v, m in zip(verdicts, mv) if v is not rapidgrade.Tri.UNKNOWN and m is not None]
    agree = sum(bool(v) == m for v, m in decided)
    unknown = sum(v is rapidgrade.Tri.UNKNOWN for v in verdicts)
    print(f"equivalence on {n} corpus pairs (gold vs last \\boxed{{}}):")
    print(f"  rapidgrade.equivalent (loop)         {t_rg * 1e3:9.2f} ms  {t_rg / n * 1e6:8.2f} us/pair")
    print(f"  rapidgrade.equivalent_many threads=1 {t_many1 * 1e3:9.2f} ms  {t_many1 / n * 1e6:8.2f} us/pair")
    print(f"  rapidgrade.equivalent_many (all)     {t_many * 1e3:9.2f} ms  {t_many / n * 1e6:8.2f} us/pair")
    print(f"  latex2sympy + math_verify.verify     {t_mv * 1e3:9.2f} ms  {t_mv / n * 1e6:8.2f} us/pair")
    print(
        f"  speed-up: {t_mv / t_rg:.0f}x (loop), {t_mv / t_many1:.0f}x (batch, 1 thread), {t_mv / t_many:.0f}x (batch)"
    )
    print(
        f"  rapidgrade UNKNOWN: {unknown}/{n} ({unknown / n:.1%}); agreement with math-verify where both decide: "
        f"{agree}/{len(decided)}"
    )
    # the full cost of the fast path including the fallback for UNKNOWN pairs
    unknown_pairs = [p for p, v in zip(pairs, verdicts) if v is rapidgrade.Tri.UNKNOWN]
    t_fb, _ = median_time(lambda: math_verify_path(unknown_pairs), peer_repeats)
    total = t_many1 + t_fb
    print(f"  fast path + math-verify on the UNKNOWN pairs: {total * 1e3:.2f} ms -> {t_mv / total:.1f}x end to end")


def bench_sampling(repeats: int) -> None:
    n = 1_000_000
    x = np.random.default_rng(0).uniform(-4.0, 4.0, n)
    cases = [
        ("x**2 + sin(x)", "polynomial + sin"),
        ("x**3 - 2*x**2 + x/3 - 7", "polynomial"),
        ("exp(-x**2/2)*cos(3*x) + sqrt(x**2 + 1)/(1 + x**2)", "mixed"),
    ]
    sx = sympy.Symbol("x")
    print(f"\nnumeric sampling on {n:,} points (float64):")
    for text, label in cases:
        e = rapidgrade.parse_expr(text, syntax="infix")
        f = sympy.lambdify(sx, sympy.sympify(text), "numpy")
        t_rg, got = median_time(lambda: e.evaluate(x=x), repeats)
        t_np, want = median_time(lambda: f(x), repeats)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        print(
            f"  {label:18s} rapidgrade {t_rg * 1e3:7.2f} ms   lambdify+NumPy {t_np * 1e3:7.2f} ms   "
            f"ratio {t_rg / t_np:.2f} (rapidgrade/NumPy; <= 2 is the target)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats, peer_repeats = (3, 1) if args.quick else (7, 3)
    bench_equivalence(repeats, peer_repeats)
    bench_sampling(repeats)


if __name__ == "__main__":
    main()
