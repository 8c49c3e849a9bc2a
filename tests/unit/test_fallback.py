"""The fallback cascade (math-verify, then SymPy) and its batch runner with deadlines."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import _pool_tasks as tasks
import pytest

from rapidgrade._pool import TaskResult, WorkerPool
from rapidgrade.fallback import _is_plain_text, fallback_many, run_cascade


@pytest.mark.parametrize(
    ("gold", "answer", "correct", "decided_by"),
    [
        ("\\frac{1}{2}", "0.5", True, "math_verify"),
        ("\\sin^2 x", "1 - \\cos^2 x", True, "math_verify"),
        ("(x+1)^2", "x^2+2x+1", True, "math_verify"),
        ("2\\pi", "2", False, "sympy"),  # the bare gold is read whole, not as "2"
        ("(0, 1]", "1", False, "sympy"),
        ("[0, 1)", "(0, 1]", False, "sympy"),
        # math-verify reads plain text "pi/2" as p*i/2; SymPy reads it as pi/2.
        ("\\frac{\\pi}{2}", "pi/2", True, "sympy"),
        ("100000", "1e5", True, "sympy"),
        ("e^2", "exp(2)", True, "sympy"),
        ("2", "3", False, "sympy"),
        ("x", "y", False, "sympy"),
    ],
)
def test_cascade_verdicts(gold: str, answer: str, correct: bool, decided_by: str) -> None:
    result = run_cascade(gold, answer)
    assert result[:2] == (correct, decided_by)
    assert "\n" not in result[2]
    assert result[2]


def test_unreadable_input_is_an_error_with_a_reason() -> None:
    correct, decided_by, reason = run_cascade("@@@", "###")
    assert (correct, decided_by) == (False, "error")
    assert "could not parse gold or answer" in reason


def test_reasons_name_the_deciding_step() -> None:
    assert run_cascade("\\frac{\\pi}{2}", "pi/2")[2].startswith("sympy: ")
    assert run_cascade("0.5", "1/2")[2] == "math-verify: equivalent"
    assert run_cascade("2", "3")[2].startswith("disproved: sympy: ")
    assert run_cascade("x + 1", "y + 1")[2].startswith("not proven equal: sympy: a - b does not reduce to 0")


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "x.__class__",
        "().__class__",
        "lambda: 1",
        "open('f')",
        "x[0]",
        "a_b",
        "1;2",
        "\\frac{1}{2}",
        "x" * 600,
    ],
)
def test_plain_text_reader_refuses_anything_but_plain_math(text: str) -> None:
    assert not _is_plain_text(text)


@pytest.mark.parametrize("text", ["pi/2", "2*sqrt(3)", "exp(16)", "1.5e3", "x^2 + 1", "sin(x)"])
def test_plain_text_reader_accepts_plain_math(text: str) -> None:
    assert _is_plain_text(text)


def test_answers_are_never_evaluated_as_python(tmp_path: Path) -> None:
    marker = tmp_path / "touched"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    assert run_cascade("1", payload)[0] is False
    assert not marker.exists()


def test_fallback_many_in_order_with_a_timeout() -> None:
    golds = ["1/2", "9^{9^{9^{9}}}", "\\sqrt{2}", "3"]
    answers = ["0.5", "9^{9^{9^{9}}} + 1", "2^{1/2}", "4"]
    with WorkerPool(workers=2, warmup=("math_verify", "rapidgrade.fallback")) as pool:
        verdicts = fallback_many(golds, answers, pool=pool, timeout=2.0)
    assert [v[:2] for v in verdicts] == [
        (True, "math_verify"),
        (False, "timeout"),
        (True, "math_verify"),
        (False, "sympy"),
    ]
    assert verdicts[1][2] == "no decision within 2 s (worker killed)"


def test_fallback_many_turns_worker_failures_into_error_verdicts() -> None:
    class CrashingPool:
        def run_many(self, fn: Any, args: Any, **kwargs: Any) -> list[TaskResult]:
            return [TaskResult("error", error="worker process died (SIGSEGV)") for _ in args]

    verdicts = fallback_many(["1"], ["1"], pool=CrashingPool())  # type: ignore[arg-type]
    assert verdicts == [(False, "error", "fallback failed: worker process died (SIGSEGV)")]


def test_fallback_many_checks_lengths() -> None:
    with pytest.raises(ValueError, match="same length"):
        fallback_many(["1"], [])


def test_in_process_cascade_leaves_the_callers_alarm_alone() -> None:
    import signal

    def handler(signum: int, frame: object) -> None:  # pragma: no cover - must never fire
        raise AssertionError("alarm fired")

    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.alarm(1000)
        assert run_cascade("\\frac{1}{2}", "0.5")[0] is True
        assert signal.getsignal(signal.SIGALRM) is handler
        assert signal.alarm(0) > 990
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_workers_know_they_are_workers() -> None:
    from rapidgrade._pool import in_worker

    assert not in_worker()
    with WorkerPool(workers=1) as pool:
        assert pool.run(in_worker, timeout=30.0).value is True


def _easy_pairs() -> list[tuple[str, str]]:
    # Easy correct pairs, each text new to the worker (nothing cached from the warm-up).
    pairs = [(f"\\frac{{{k}}}{{4}}", str(k / 4)) for k in range(1, 21)]
    pairs += [(f"\\frac{{{k}}}{{8}}", f"{k}/8") for k in range(21, 41)]
    return pairs


def test_easy_pairs_never_time_out_after_a_restart() -> None:
    # Issue #14: the first task on a fresh worker took 2.6-3.9 s (math-verify builds its parsers
    # lazily), so after a timeout killed the workers, easy pairs at timeout=1 came back as
    # "timeout". Workers now run real parses before taking work, and a task's clock starts only
    # then, so the verdicts are those of the in-process cascade, whatever the pool's history.
    pairs = _easy_pairs()
    expected = [run_cascade(g, a)[:2] for g, a in pairs]
    assert all(correct for correct, _ in expected)
    with WorkerPool(workers=2, spares=0) as pool:
        assert fallback_many(["1"], ["1.0"], pool=pool, timeout=60.0)[0][0]
        # Two tasks that ignore the request to stop at their deadline: workers are killed (two
        # on an idle machine; one in a CI run with both cores busy, the second worker's start
        # taking 4 s: the count depends on that timing, a restart is what matters here).
        hung = pool.run_many(tasks.hang_ignoring_cancel, [(os.devnull,)] * 2, timeout=0.5)
        assert [r.status for r in hung] == ["timeout", "timeout"]
        verdicts = fallback_many([g for g, _ in pairs], [a for _, a in pairs], pool=pool, timeout=1.0)
        assert pool.stats().killed >= 1
        assert pool.stats().started >= 3  # at least one replacement served
    assert [v[:2] for v in verdicts] == expected


def test_fallback_timeout_none_means_no_limit_and_garbage_is_refused() -> None:
    with WorkerPool(workers=1, spares=0) as pool:
        for limit in (None, float("inf")):
            assert fallback_many(["1/2"], ["0.5"], pool=pool, timeout=limit)[0][:2] == (True, "math_verify")
    for bad in (float("nan"), 0, -5.0):
        with pytest.raises(ValueError, match="fallback_many: timeout"):
            fallback_many(["1"], ["1"], timeout=bad)
    with pytest.raises(TypeError, match="fallback_many: timeout"):
        fallback_many(["1"], ["1"], timeout="5")  # type: ignore[arg-type]
