r"""Native grading: :func:`grade` and :func:`grade_many`.

Each pair goes through the C++ fast path first (extract the response's final answer, normalize
both sides, decide equivalence exactly or not at all); only the pairs it leaves undecided go to
the fallback cascade (math-verify, then SymPy) in killable worker processes. A
:class:`~rapidgrade.verdict.Verdict` says which path decided.

The native grader is *right by default* where math-verify is known to be wrong (see
``tests/data/deliberate_differences.jsonl``): a gold is read whole (``2\pi`` is 2π, ``(0, 1]`` an
interval), tiny values compare exactly, ``\mathrm{e}`` is Euler's number, a fragment of an
answer never scores, plain-text math (``pi/2``, ``sqrt(2)``), Unicode digits and symbols and
decimal commas (``0{,}5``) are read as meant, and a multiple-choice letter (``(C)``,
``\text{(B)}``) matches a letter gold.

Inputs: a gold is a bare answer (``"\\frac{1}{2}"``, ``"42"``, ``"$x^2$"``; ints and floats are
accepted and converted with ``str``), a response is the model's full output. An input of
another type gives an ``"error"`` verdict for that pair, never an exception that loses the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rapidgrade import _core
from rapidgrade.verdict import GradeResults, Verdict

__all__ = ["grade", "grade_many"]

_CHUNK = 65536
_TRUE, _FALSE, _UNKNOWN = 1, 0, 2


def _as_text(value: object, what: str) -> tuple[str | None, str | None]:
    """(text, None) for a usable value, (None, error reason) otherwise."""
    if isinstance(value, str):
        return value, None
    if what == "gold" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value), None
    return None, f"{what} must be a str, not {type(value).__name__}"


def grade_many(
    golds: Sequence[Any],
    responses: Sequence[Any],
    *,
    threads: int | None = None,
    workers: int | None = None,
    timeout: float = 5.0,
    fallback: bool = True,
    progress: bool = False,
    last_number: bool = True,
    rel_tol: float = 1e-9,
    abs_tol: float = 1e-12,
    float_rounding: int | None = None,
) -> GradeResults:
    r"""Grade ``responses[i]`` against ``golds[i]`` for every i; results in input order.

    The fast path runs on *threads* C++ threads (default: all cores) with the GIL released.
    Pairs it cannot decide go, when *fallback* is true, to *workers* worker processes (default:
    a shared pool with one per core) with *timeout* seconds each; a pair past its time gets its
    worker killed and the verdict ``decided_by="timeout", correct=False``. With
    ``fallback=False`` undecided pairs are counted wrong (``decided_by="fast"``, reason
    "undecided by the fast path"). ``last_number=False`` refuses answers found only as the last
    number of the response (for RL rewards). *rel_tol*, *abs_tol* and *float_rounding* are
    passed to :func:`~rapidgrade.equivalent`. ``progress=True`` shows a progress bar.

    >>> r = grade_many(["\\frac{1}{2}", "3"], ["so \\boxed{0.5}", "The answer is 4."])
    >>> r.correct.tolist(), r[0].decided_by, r[1].reason
    ([True, False], 'fast', 'not equivalent')

    Raises:
        ValueError: *golds* and *responses* differ in length, or a bad option.
        TypeError: *golds* or *responses* is not a sequence.
    """
    if isinstance(golds, (str, bytes)) or isinstance(responses, (str, bytes)):
        raise TypeError("grade_many: golds and responses must be sequences of str (use grade() for one pair)")
    golds = list(golds)
    responses = list(responses)
    n = len(golds)
    if n != len(responses):
        raise ValueError(f"grade_many: {n} golds but {len(responses)} responses")
    if timeout <= 0:
        raise ValueError(f"grade_many: timeout must be > 0, got {timeout}")

    correct = [False] * n
    decided_by = ["fast"] * n
    gold_out = [""] * n
    gold_raw = [""] * n
    extracted: list[str | None] = [None] * n
    method: list[str | None] = [None] * n
    reason = [""] * n

    valid: list[int] = []
    valid_golds: list[str] = []
    valid_responses: list[str] = []
    for i in range(n):
        g, g_err = _as_text(golds[i], "gold")
        r, r_err = _as_text(responses[i], "response")
        if g is None or r is None:
            decided_by[i] = "error"
            reason[i] = g_err or r_err or ""
            gold_out[i] = g if g is not None else repr(golds[i])[:200]
            continue
        valid.append(i)
        valid_golds.append(g)
        valid_responses.append(r)

    bar = _progress_bar(len(valid), progress, "fast path")
    undecided: list[int] = []
    for begin in range(0, len(valid), _CHUNK):
        end = min(len(valid), begin + _CHUNK)
        tri, g_norm, g_raw, ext, meth, why = _core.grade_fast_many(
            valid_golds[begin:end],
            valid_responses[begin:end],
            last_number=last_number,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            float_rounding=float_rounding,
            threads=threads,
        )
        for k, i in enumerate(valid[begin:end]):
            correct[i] = tri[k] == _TRUE
            gold_out[i] = g_norm[k]
            gold_raw[i] = g_raw[k]
            extracted[i] = ext[k]
            method[i] = meth[k]
            reason[i] = why[k]
            if tri[k] == _UNKNOWN:
                undecided.append(i)
        if bar is not None:
            bar.update(end - begin)
    if bar is not None:
        bar.close()

    if fallback and undecided:
        from rapidgrade.fallback import fallback_many

        pool = None
        if workers is not None:
            from rapidgrade._pool import DEFAULT_WARMUP, WorkerPool

            pool = WorkerPool(workers, warmup=DEFAULT_WARMUP)
        try:
            outcomes = fallback_many(
                [gold_raw[i] for i in undecided],
                [extracted[i] or "" for i in undecided],
                pool=pool,
                timeout=timeout,
                progress=progress,
            )
        finally:
            if pool is not None:
                pool.close()
        for i, (ok, by, why_fb) in zip(undecided, outcomes):
            correct[i] = ok
            decided_by[i] = by
            reason[i] = why_fb
    return GradeResults.from_columns(
        correct=correct, decided_by=decided_by, gold=gold_out, extracted=extracted, method=method, reason=reason
    )


def grade(
    gold: Any,
    response: Any,
    *,
    timeout: float = 5.0,
    fallback: bool = True,
    last_number: bool = True,
    rel_tol: float = 1e-9,
    abs_tol: float = 1e-12,
    float_rounding: int | None = None,
) -> Verdict:
    r"""Grade one response against one gold answer; see :func:`grade_many` for the options.

    >>> v = grade("\\frac{1}{2}", "Thus the probability is $\\boxed{0.5}$.")
    >>> v.correct, v.decided_by, v.extracted, v.method
    (True, 'fast', '0.5', 'boxed')
    >>> grade("2", "We get $2\\sqrt{3}$, so the answer is $2\\sqrt{3}$.").correct
    False
    """
    return grade_many(
        [gold],
        [response],
        threads=1,
        timeout=timeout,
        fallback=fallback,
        last_number=last_number,
        rel_tol=rel_tol,
        abs_tol=abs_tol,
        float_rounding=float_rounding,
    )[0]


def _progress_bar(total: int, enabled: bool, description: str) -> Any:
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="pairs", unit_scale=True, dynamic_ncols=True)
