"""Benchmark: answer extraction + normalization, rapidgrade vs the plain-Python reference.

Run: ``PYTHONPATH=python python -m benchmarks.bench_extract [--repeats N] [--json out.json]``

In one run, on the same data:

1. the 800 real responses of ``qwen25_math_cot_800.jsonl``: ``extract_answer`` then
   ``normalize_latex`` of the answer, one call per response, for rapidgrade and for
   ``tests/oracles/reference_extract.py`` (same cascade, Hendrycks-style ``strip_string``); also the batch forms
   ``extract_many`` + ``normalize_many`` on one thread;
2. long synthetic responses (about 100 KB of real reasoning text with its boxes removed, the
   boxed answer at the end): single-thread scan speed in MB/s and the ratio to the reference;
3. ``extract_many`` on 2 threads vs 1 thread (long responses, and the real corpus).

Each sample loops a call until 50 ms have passed; the two sides of every ratio are sampled
alternately and the medians over the repeats compared, on the same inputs in the same process.
Single-thread figures use the CPU time of the calling thread (``time.thread_time``), so that
other processes on shared cores do not skew them; the thread comparison uses wall time, and is
only meaningful when two cores are free (the load average is printed).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import rapidgrade
from tests.datasets import DEMO_CORPUS
from tests.oracles import reference_extract as ref

#: The responses timed: the packaged demo set, or the JSON-lines file named by RAPIDGRADE_CORPUS.
CORPUS = Path(os.environ.get("RAPIDGRADE_CORPUS", DEMO_CORPUS))


def sample(fn: Callable[[], object], clock: Callable[[], float], min_time: float = 0.05) -> float:
    """Time of one call of fn on `clock`, looping until min_time has passed (as benchmarks/_common)."""
    loops = 0
    start = clock()
    while True:
        fn()
        loops += 1
        elapsed = clock() - start
        if elapsed >= min_time:
            return elapsed / loops


def median_time(fn: Callable[[], object], repeats: int, clock: Callable[[], float] = time.thread_time) -> float:
    fn()  # warm-up
    return statistics.median(sample(fn, clock) for _ in range(repeats))


def paired_medians(
    a: Callable[[], object], b: Callable[[], object], repeats: int, clock: Callable[[], float] = time.thread_time
) -> tuple[float, float]:
    """Medians of a and b, sampled alternately so that a change in the machine's load (the cores
    may be shared) affects both alike."""
    a()
    b()
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(sample(a, clock))
        tb.append(sample(b, clock))
    return statistics.median(ta), statistics.median(tb)


def load_corpus() -> list[str]:
    with CORPUS.open(encoding="utf-8") as f:
        return [json.loads(line)["response"] for line in f]


def long_responses(corpus: list[str], count: int, size: int) -> list[str]:
    """~size characters of real reasoning (boxes removed), then a boxed answer at the end."""
    body = "\n\n".join(r.replace("\\boxed", "\\mathbf").replace("\\fbox", "\\mathbf") for r in corpus)
    out = []
    for k in range(count):
        start = (k * 7919) % max(1, len(body) - size)
        chunk = body[start : start + size]
        out.append(chunk + f"\n\nTherefore, the final answer is $\\boxed{{\\frac{{{k + 1}}}{{7}}}}$.")
    return out


def rg_one(texts: list[str]) -> list[object]:
    out: list[object] = []
    for t in texts:
        e = rapidgrade.extract_answer(t)
        out.append(rapidgrade.normalize_latex(e.text) if e is not None else None)
    return out


def rg_batch(texts: list[str], threads: int) -> list[object]:
    found = rapidgrade.extract_many(texts, threads=threads)
    answers = [e.text for e in found if e is not None]
    return list(rapidgrade.normalize_many(answers, threads=threads))


def ref_one(texts: list[str]) -> list[object]:
    out: list[object] = []
    for t in texts:
        e = ref.extract_answer(t)
        out.append(ref.strip_string(e.text) if e is not None else None)
    return out


def commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--long-count", type=int, default=100)
    parser.add_argument("--long-size", type=int, default=100_000)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args()
    r = args.repeats
    results: dict[str, object] = {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "commit": commit(),
    }

    corpus = load_corpus()
    assert rg_one(corpus) == ref_one(corpus), "rapidgrade and the reference disagree on the corpus"
    n = len(corpus)
    mb = sum(len(t.encode()) for t in corpus) / 1e6
    t_ref, t_rg = paired_medians(lambda: ref_one(corpus), lambda: rg_one(corpus), r)
    t_ref2, t_batch = paired_medians(lambda: ref_one(corpus), lambda: rg_batch(corpus, 1), r)
    t_ref = (t_ref + t_ref2) / 2
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"({os.cpu_count()} CPUs, load average {load:.1f} at the start)")
    print(f"== real corpus: {n} responses, {mb:.2f} MB (extract_answer + normalize_latex per response)")
    print(f"reference (plain Python)        {n / t_ref:>12,.0f} responses/s")
    print(f"rapidgrade, one call each       {n / t_rg:>12,.0f} responses/s   ratio {t_ref / t_rg:6.1f}x")
    print(f"rapidgrade, batch, 1 thread     {n / t_batch:>12,.0f} responses/s   ratio {t_ref / t_batch:6.1f}x")
    results["corpus"] = {
        "n": n,
        "ref_per_s": n / t_ref,
        "rg_per_s": n / t_rg,
        "rg_batch_per_s": n / t_batch,
        "ratio": t_ref / t_rg,
        "ratio_batch": t_ref / t_batch,
    }

    longs = long_responses(corpus, args.long_count, args.long_size)
    for t in longs[:5]:
        assert tuple(rapidgrade.extract_answer(t) or ()) == tuple(ref.extract_answer(t) or ()), "disagree (long)"
    long_mb = sum(len(t.encode()) for t in longs) / 1e6
    sample = longs[:10]
    sample_mb = sum(len(t.encode()) for t in sample) / 1e6
    t_ref_long, t_rg_long_sample = paired_medians(
        lambda: [ref.extract_answer(t) for t in sample], lambda: [rapidgrade.extract_answer(t) for t in sample], r
    )
    t_rg_long = median_time(lambda: [rapidgrade.extract_answer(t) for t in longs], r)
    print(f"\n== long responses: {len(longs)} x {args.long_size // 1000} KB, answer at the end, single thread")
    print(f"reference (plain Python)        {sample_mb / t_ref_long:>12,.1f} MB/s")
    print(
        f"rapidgrade extract_answer       {long_mb / t_rg_long:>12,.1f} MB/s   "
        f"ratio {t_ref_long / t_rg_long_sample:6.1f}x"
    )
    # Worst case of the cascade: no box and no answer marker, so every strategy scans the text and
    # last_number decides.
    bare = [t[: t.rindex("\n\nTherefore")].replace("answer", "result") + " so it is 12." for t in longs]
    for t in bare[:3]:
        assert tuple(rapidgrade.extract_answer(t) or ()) == tuple(ref.extract_answer(t) or ()), "disagree (bare)"
    bare_mb = sum(len(t.encode()) for t in bare) / 1e6
    t_ref_bare, t_rg_bare_sample = paired_medians(
        lambda: [ref.extract_answer(t) for t in bare[:10]], lambda: [rapidgrade.extract_answer(t) for t in bare[:10]], r
    )
    t_rg_bare = median_time(lambda: [rapidgrade.extract_answer(t) for t in bare], r)
    print(
        f"rapidgrade, no box or marker    {bare_mb / t_rg_bare:>12,.1f} MB/s   "
        f"ratio {t_ref_bare / t_rg_bare_sample:6.1f}x   (whole cascade down to last_number)"
    )
    results["long"] = {
        "ref_mb_s": sample_mb / t_ref_long,
        "rg_mb_s": long_mb / t_rg_long,
        "ratio": t_ref_long / t_rg_long_sample,
        "rg_bare_mb_s": bare_mb / t_rg_bare,
        "ratio_bare": t_ref_bare / t_rg_bare_sample,
    }

    t1, t2 = paired_medians(
        lambda: rapidgrade.extract_many(longs, threads=1),
        lambda: rapidgrade.extract_many(longs, threads=2),
        2 * r,
        time.perf_counter,
    )
    big = corpus * 20
    c1, c2 = paired_medians(
        lambda: rapidgrade.extract_many(big, threads=1),
        lambda: rapidgrade.extract_many(big, threads=2),
        2 * r,
        time.perf_counter,
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n== extract_many, 2 threads vs 1 thread (load average {load:.1f})")
    print(
        f"long responses   1 thread {long_mb / t1:>9,.1f} MB/s   2 threads {long_mb / t2:>9,.1f} MB/s"
        f"   speed-up {t1 / t2:4.2f}x"
    )
    print(
        f"real corpus x20  1 thread {len(big) / c1:>9,.0f} /s     2 threads {len(big) / c2:>9,.0f} /s"
        f"     speed-up {c1 / c2:4.2f}x"
    )
    results["threads"] = {
        "long_speedup": t1 / t2,
        "corpus_speedup": c1 / c2,
        "long_mb_s_1": long_mb / t1,
        "long_mb_s_2": long_mb / t2,
    }
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
