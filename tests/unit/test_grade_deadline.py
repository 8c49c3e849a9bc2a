"""grade/grade_many with a per-call deadline, and the fallback's memory limit per pair, with the
real fallback (SymPy, math-verify) on a two-worker pool."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

import rapidgrade
from rapidgrade import _pool
from rapidgrade._pool import WorkerPool
from rapidgrade.fallback import WARMUP, fallback_many

# SymPy works on this one for minutes (no decision in 150 s); the fast path leaves it to the
# fallback. Without the cosine SymPy gave up within 3 s on a quick machine.
_SLOW = ("\\int e^{x^2}\\sin(x^3)\\cos(x^4) dx", "so \\boxed{0}")
# undecided by the fast path, decided in milliseconds by the fallback
_EASY = ("\\sum_{k=1}^{10} k", "\\boxed{55}")
# 2^(10^10) has 10^10 bits: the fast path leaves the pair open (a variable beside it), SymPy
# builds the number until its worker's memory runs out
_HUGE = ("2^{10^{10}}+x", "x+2^{10^{10}}+1")
_SLACK = 0.6


@pytest.fixture(scope="module")
def two_workers() -> Iterator[WorkerPool]:
    """A warm two-worker pool standing in for the process's shared pool."""
    pool = WorkerPool(workers=2, warmup=WARMUP)
    saved = _pool._default_pool
    _pool._default_pool = pool
    try:
        # both workers now, warm (a batch starts a second worker only when its work pays for it,
        # and a wait for one that never came took the fixture's two minutes)
        pool.start(warmup=WARMUP, timeout=120.0)
        assert pool.stats().started >= 2
        yield pool
    finally:
        _pool._default_pool = saved
        pool.close()


def test_eight_threads_with_one_slow_pair_each_return_by_the_deadline(two_workers: WorkerPool) -> None:
    """8 threads x one slow pair at timeout 5 on 2 workers take up to 4 x 5 s; with deadline=2
    every call returns at 2 s with a deadline verdict."""

    def one_call(_: int) -> tuple[float, rapidgrade.Verdict]:
        t0 = time.perf_counter()
        verdict = rapidgrade.grade(*_SLOW, timeout=5.0, deadline=2.0)
        return time.perf_counter() - t0, verdict

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=8) as executor:
        calls = list(executor.map(one_call, range(8)))
    elapsed = time.perf_counter() - t0
    assert elapsed < 2.0 + _SLACK, elapsed
    for seconds, verdict in calls:
        assert seconds < 2.0 + _SLACK
        assert verdict.correct is False and verdict.decided_by == "timeout"
        assert verdict.reason in (
            "deadline: no decision before the call's deadline (it passed while it ran)",
            "deadline: no decision before the call's deadline (it passed before a worker took it)",
        ), verdict.reason
    # the pool is whole afterwards: the easy pair is decided at once
    assert rapidgrade.grade(*_EASY, deadline=30.0).decided_by == "math_verify"


def test_a_deadline_longer_than_needed_changes_nothing(two_workers: WorkerPool) -> None:
    golds = [_EASY[0], "\\frac{1}{2}", "3", "x+1", "\\sqrt{2}"]
    responses = [_EASY[1], "\\boxed{0.5}", "The answer is 4.", "\\boxed{1+x}", "\\boxed{2^{1/2}}"]
    plain = rapidgrade.grade_many(golds, responses, timeout=30.0)
    bounded = rapidgrade.grade_many(golds, responses, timeout=30.0, deadline=120.0)
    assert list(bounded) == list(plain)
    assert "deadline" not in " ".join(bounded.reason)


def test_a_batch_keeps_what_was_decided_before_the_deadline(two_workers: WorkerPool) -> None:
    golds = ["\\frac{1}{2}", _EASY[0], _SLOW[0]]
    responses = ["\\boxed{0.5}", _EASY[1], _SLOW[1]]
    t0 = time.perf_counter()
    results = rapidgrade.grade_many(golds, responses, timeout=30.0, deadline=3.0)
    assert time.perf_counter() - t0 < 3.0 + _SLACK
    assert results.decided_by.tolist() == ["fast", "math_verify", "timeout"]
    assert results.correct.tolist() == [True, True, False]
    assert results[2].reason.startswith("deadline: ")


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("-inf")])
def test_invalid_deadlines_raise_naming_the_parameter(bad: float) -> None:
    with pytest.raises(ValueError, match="grade: deadline must be > 0"):
        rapidgrade.grade("1", "1", deadline=bad)
    with pytest.raises(ValueError, match="grade_many: deadline must be > 0"):
        rapidgrade.grade_many(["1"], ["1"], deadline=bad)
    with pytest.raises(ValueError, match="fallback_many: deadline must be > 0"):
        fallback_many(["1"], ["1"], deadline=bad)


def test_deadline_types_and_tasks() -> None:
    with pytest.raises(TypeError, match="grade_many: deadline must be a number"):
        rapidgrade.grade_many(["1"], ["1"], deadline="2")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="deadline is supported for task='math' only"):
        rapidgrade.grade_many(["5 m"], ["5 m"], task="physics", deadline=2.0)
    # no deadline: None, infinity, an int beyond any float
    for deadline in (None, float("inf"), 10**400):
        assert rapidgrade.grade("1/2", "\\boxed{0.5}", deadline=deadline).correct  # type: ignore[arg-type]


def test_a_pair_past_the_memory_limit_is_a_limit_and_the_batch_goes_on(two_workers: WorkerPool) -> None:
    config = rapidgrade.GradeConfig(memory_limit=400 << 20, timeout=60.0)
    golds = [_EASY[0], _HUGE[0], "\\frac{1}{2}", _EASY[0]]
    responses = [_EASY[1], f"\\boxed{{{_HUGE[1]}}}", "\\boxed{0.5}", "\\boxed{56}"]
    killed = two_workers.stats().killed
    results = rapidgrade.grade_many(golds, responses, config=config)
    assert results.decided_by.tolist() == ["math_verify", "limit", "fast", "sympy"]
    assert results.correct.tolist() == [True, False, True, False]
    assert results[1].reason == "limit: memory: the pair needed more than 400 MiB in its worker (worker replaced)"
    assert two_workers.stats().killed > killed  # the worker that ran out was replaced


def test_memory_limit_is_validated_and_defaults_to_one_gib() -> None:
    assert rapidgrade.GradeConfig().memory_limit == 1 << 30
    assert rapidgrade.GradeConfig(memory_limit=None).memory_limit is None
    with pytest.raises(ValueError, match="GradeConfig: memory_limit must be at least"):
        rapidgrade.GradeConfig(memory_limit=1 << 20)
    with pytest.raises(TypeError, match="memory_limit must be an int"):
        rapidgrade.GradeConfig(memory_limit=2.5e9)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fallback_many: memory_limit"):
        fallback_many(["1"], ["1"], memory_limit=0)


def test_a_batch_read_in_chunks_grades_as_one_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path reads a large batch in chunks (bounded working memory): same verdicts."""
    import sys

    grade_module = sys.modules["rapidgrade.grade"]
    golds = ["\\frac{1}{2}", "3", "x+1", "(x+1)^{120}", "12", "\\sqrt{2}"] * 5
    responses = ["\\boxed{0.5}", "The answer is 4.", "\\boxed{1+x}", "\\boxed{(1+x)^{120}}", "x" * 300 + " 12", "2"] * 5
    whole = rapidgrade.grade_many(golds, responses, fallback=False)
    broadcast = rapidgrade.grade_many("12", responses, fallback=False)
    mixed = [*responses[:3], None, *responses[4:]]
    with_error = rapidgrade.grade_many(golds, mixed, fallback=False)  # type: ignore[arg-type]
    monkeypatch.setattr(grade_module, "_CHUNK_CHARS", 20)  # characters of golds
    assert len(grade_module._chunks(golds, 1 << 16)) > 5
    assert list(rapidgrade.grade_many(golds, responses, fallback=False)) == list(whole)
    assert list(rapidgrade.grade_many("12", responses, fallback=False)) == list(broadcast)
    assert list(rapidgrade.grade_many(golds, mixed, fallback=False)) == list(with_error)  # type: ignore[arg-type]
