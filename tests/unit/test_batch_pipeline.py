"""The batch entry points that build their Python results while the C++ work goes on
(extract_many, find_boxed_many, normalize_many, normalize_answer_many, grade_many): results in
input order across many blocks, on any number of threads, other Python threads keep running,
and Ctrl-C stops a batch promptly."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

import rapidgrade
from tests.datasets import load_demo_corpus

ROWS = load_demo_corpus()
# Not a multiple of any block size, with non-ASCII texts among ASCII ones (offsets in code points).
RESPONSES = [str(r["response"]) for r in ROWS] * 3 + ["é😀 \\boxed{½}", "", "no answer"] * 7
GOLDS = [str(r["gold"]) for r in ROWS] * 3 + ["\\frac12", "1", "x"] * 7


def test_shared_gold_gives_the_verdicts_of_separate_golds() -> None:
    # Consecutive pairs with the same gold share one normalization; equal strings that are
    # different objects, and a gold that changes back and forth, must grade alike.
    golds = ["\\frac{1}{2}", "".join(["\\frac{1}", "{2}"]), "3", "\\frac{1}{2}", "3", "3"]
    responses = ["\\boxed{0.5}", "\\boxed{1/2}", "\\boxed{0.5}", "\\boxed{3}", "\\boxed{3.0}", "\\boxed{4}"]
    got = rapidgrade.grade_many(golds, responses, fallback=False, threads=1).correct.tolist()
    assert got == [True, True, False, False, True, False]
    assert got == [rapidgrade.grade(g, r, fallback=False).correct for g, r in zip(golds, responses)]


def test_other_python_threads_run_during_a_batch() -> None:
    texts = [t + " " * 20_000 for t in RESPONSES[:400]] * 10
    ticks = 0
    stop = threading.Event()

    def count() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0)

    counter = threading.Thread(target=count)
    counter.start()
    try:
        time.sleep(0.01)
        before = ticks
        rapidgrade.extract_many(texts, threads=1)
        during = ticks - before
    finally:
        stop.set()
        counter.join()
    assert during > 0


def test_bytes_and_str_inputs_of_grade_many() -> None:
    results = rapidgrade.grade_many([b"1", "1"], ["\\boxed{1}", "\\boxed{1}"], fallback=False)  # type: ignore[list-item]
    assert [v.decided_by for v in results] == ["error", "fast"]
    assert results[0].reason == "gold must be a str, not bytes"
    assert results.correct.tolist() == [False, True]


def test_ctrl_c_stops_a_batch_promptly() -> None:
    # In a child process: a batch of several seconds (no box and no marker: the whole cascade
    # scans 12 GB down to the last number) is interrupted after 0.3 s by a simulated
    # Ctrl-C; KeyboardInterrupt must arrive within a block or two, and the interpreter must
    # stay usable (the worker threads were stopped and joined).
    script = textwrap.dedent(
        """
        import _thread, signal, threading, time, rapidgrade
        # Python leaves SIGINT ignored when it starts with it ignored (a shell's background job)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        texts = ["x = 1 " * 20_000] * 100_000
        threading.Timer(0.3, _thread.interrupt_main).start()
        start = time.perf_counter()
        try:
            rapidgrade.extract_many(texts, threads=2)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted", round(time.perf_counter() - start, 2))
        print(rapidgrade.extract_many(["\\\\boxed{7}"], threads=2)[0].text)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.split()
    assert lines[0] == "interrupted", out.stdout + out.stderr
    assert float(lines[1]) < 5.0
    assert lines[2] == "7"


def test_grade_many_past_one_core_call() -> None:
    # grade_many hands the core at most 65,536 pairs a call; the columns of several calls join up.
    golds = [str(r["gold"]) for r in ROWS]
    responses = [str(r["response"]) for r in ROWS]
    once = rapidgrade.grade_many(golds, responses, fallback=False)
    many = rapidgrade.grade_many(golds * 90, responses * 90, fallback=False)
    assert len(many) == 72_000
    assert many.correct.tolist() == once.correct.tolist() * 90
    assert many.extracted == once.extracted * 90 and many.reason == once.reason * 90


def test_ctrl_c_stops_expr_evaluate() -> None:
    # Expr.evaluate runs on the same batch runner as the *_many entry points, so a long
    # evaluation is interruptible too (it was not: its threads ran to the end).
    script = textwrap.dedent(
        """
        import _thread, signal, threading, time
        import numpy as np
        import rapidgrade
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in the test above
        e = rapidgrade.parse_expr("sin(x)**2 + cos(x)**2 + exp(sin(x)) * log(x + 2) + sqrt(x + 1)")
        x = np.linspace(0.0, 1.0, 4_000_000)
        e.evaluate(x=x[:1000])
        start = time.perf_counter()
        for _ in range(3):
            e.evaluate(x=x)
        per_call = (time.perf_counter() - start) / 3
        reps = max(1, int(8.0 / per_call))
        # one call over reps copies of x: several seconds in one evaluate (the copies are made
        # before the clock starts: on a loaded machine, np.tile alone took seconds)
        big = np.tile(x, reps)
        threading.Timer(0.3, _thread.interrupt_main).start()
        start = time.perf_counter()
        try:
            e.evaluate(x=big)
            print("finished", round(time.perf_counter() - start, 2))
        except KeyboardInterrupt:
            print("interrupted", round(time.perf_counter() - start, 2))
        print(e.evaluate(x=0.0))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    lines = out.stdout.split()
    assert lines[0] == "interrupted", out.stdout + out.stderr
    assert float(lines[1]) < 5.0
    assert abs(float(lines[2]) - (1.0 + 0.6931471805599453 + 1.0)) < 1e-9


def test_normalized_column_is_the_graders_reading() -> None:
    batch = rapidgrade.grade_many(GOLDS, RESPONSES, threads=2, fallback=False)
    normalized = batch.normalized
    assert len(normalized) == len(batch)
    for v, n in zip(batch, normalized):
        assert (n is None) == (v.extracted is None)
    # the prediction as compared: unwrapped and normalized with the grader's options (equations
    # are kept whole), so two spellings of one answer share their key
    r = rapidgrade.grade_many(
        ["2", "x=1", "5"],
        [r"so $\boxed{\dfrac{4}{2}}$", r"\boxed{x = 1}", "I have no answer for this one"],
        fallback=False,
    )
    assert r.normalized == [r"\frac{4}{2}", "x=1", None]
    assert r[1:].normalized == ["x=1", None]
    assert r.normalized is not r._normalized  # a copy
