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

import bisect
import itertools
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from rapidgrade import _core
from rapidgrade.config import UNSET, GradeConfig, Unset, check_deadline, check_threads, check_workers
from rapidgrade.verdict import DECIDERS, GradeResults, Verdict, _Coded, _coded_with, _Packed

__all__ = ["grade", "grade_many"]

_CHUNK = 65536
_DECIDER_CODE = {name: code for code, name in enumerate(DECIDERS)}
# the core's tri codes: UNKNOWN goes to the fallback; past a limit it does not, nor does code 4, an
# UNKNOWN the fallback cannot help with (a disproved weak reading, a choice letter against no
# choice, a constant with no value against a number, an equation whose last member differs, a gold
# equation against a value, a condition against values, an ellipsis list against none, a reading
# of a text that closes a proof, words against an expression in unknowns), which stays with the
# fast path as a wrong verdict
_TRUE, _FALSE, _UNKNOWN, _LIMIT = 1, 0, 2, 3
_NO_METHOD = 255  # the method code of a pair with no answer found
_REASONS, _METHODS = (list(t) for t in _core.grade_tables())


def _as_text(value: object, what: str) -> tuple[str | None, str | None]:
    """(text, None) for a usable value, (None, error reason) otherwise."""
    if isinstance(value, str):
        return value, None
    if what == "gold" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value), None
    return None, f"{what} must be a str, not {type(value).__name__}"


def grade_many(
    golds: Sequence[Any] | str | int | float,
    responses: Sequence[Any],
    *,
    config: GradeConfig | None = None,
    timeout: float | Unset | None = UNSET,
    fallback: bool | Unset = UNSET,
    last_number: bool | Unset = UNSET,
    rel_tol: float | Unset = UNSET,
    abs_tol: float | Unset = UNSET,
    float_rounding: int | Unset | None = UNSET,
    threads: int | None = None,
    workers: int | None = None,
    progress: bool = False,
    task: str = "math",
    deadline: float | None = None,
) -> GradeResults:
    r"""Grade ``responses[i]`` against ``golds[i]`` for every i; results in input order.

    *golds* may also be one gold (a ``str``, ``int`` or ``float``) for every response: the
    samples of one problem (pass@k, majority vote) are graded against their gold without
    repeating it, and the core reads and normalizes that gold once.

    The fast path runs on *threads* C++ threads (default: all cores) with the GIL released.
    Pairs it cannot decide go, when *fallback* is true, to *workers* worker processes (default:
    a shared pool with one per core) with *timeout* seconds each; a pair past its time gets its
    worker killed and the verdict ``decided_by="timeout", correct=False``. With
    ``fallback=False`` undecided pairs are counted wrong (``decided_by="fast"``, reason
    "undecided by the fast path"). Some undecided pairs never go to the fallback, which only
    compares the extracted answer with the gold again: a weak reading that the core disproved,
    a multiple-choice letter against an answer that names no choice (only the options could
    tell), a constant with no value (``f(0)`` of an unknown ``f``, words) or a lone name (``n``:
    "then the answer is $n$" after "$n=100$") against a number or a
    function with no definition applied on one side only (``f(x)`` against -3/2), and
    an equation whose last member the core disproved while a member before it may be the answer
    (``x = 12 = 2a`` against 12; the fallback reads an equation as its last member), and a
    gold equation with a number in its left side (``5x - y + 2 = 0``) against a value, which
    only that side could be, and a condition (an inequality: ``n \geq 5``, or one at the top of
    an answer the core cannot read, ``S \leq \sum_i x_i = \frac{25}{2}``) against a value, a
    list of values or an equation between values, which no reader proves equal, and an answer
    written with an ellipsis (a term, ``1, 2, \ldots, n``, or in one, ``1+2+\cdots+n``) against one
    with none, which the
    fallback compares only term by term, and a reading of a response with no marked answer that
    argues a proof ("We show that ...", "Lemma 2.") or ends by closing one ("..., as required."),
    disproved or not read by the core, or that is a cell of a table, one member of a gold list
    or union, the text's last number when a label, a caption or another sentence follows it, or
    of another shape than the gold (a list against
    one value, a value for a name of the gold's formula, an equation to solve), which the core
    disproved,
    and words with no digit against an expression in unknowns (``\binom{2n}{n}``), which neither reader of the
    fallback reads as math;
    they stay undecided, counted wrong, ``decided_by="fast"`` with a reason that starts
    "undecided:". ``last_number=False`` refuses answers found only as the last
    number of the response (for RL rewards), and the numbers of an unmarked final sentence read
    as a gold list. *rel_tol*, *abs_tol* and *float_rounding* are
    passed to :func:`~rapidgrade.equivalent`. ``progress=True`` shows a progress bar.

    The grading options come from *config* (a :class:`~rapidgrade.GradeConfig`; default: its
    defaults, e.g. ``timeout=5.0``); each of *timeout*, *fallback*, *last_number*, *rel_tol*,
    *abs_tol* and *float_rounding* that is given overrides its field. ``timeout=None`` (or
    ``math.inf``) means no limit. *threads*, *workers* and *progress* say how to run, not what
    to decide, and are not part of the config.

    The fallback's memory per pair is bounded too: a worker may use ``config.memory_limit``
    bytes of address space (default 1 GiB) while it decides a pair; a pair that needs more is
    ``decided_by="limit"`` (reason ``"limit: memory: ..."``) and its worker is replaced.

    *timeout* bounds a pair's own work, not the time it waits for a worker: with ``w`` workers,
    ``k`` pairs that each run to their timeout take up to ``timeout * ceil(k / w)``, and calls
    from several threads share the workers (8 threads grading one slow pair each on 2 workers:
    up to ``4 * timeout``). *deadline* bounds the whole call: seconds of wall time from the
    call, the fast path, the wait for a worker and its start included. A pair the fallback has
    not decided by then is ``decided_by="timeout", correct=False`` with a reason starting
    ``"deadline: "``; the call returns at the deadline plus a few milliseconds (plus the fast
    path's own time, which is not interrupted, and the judge's, if any). ``None``: no deadline.
    Pairs decided before the deadline are unchanged by it. Math task only.

    ``task="physics"`` grades physical quantities with their units instead
    (:func:`rapidgrade.tasks.physics.grade_physics_many`: *rel_tol* defaults to 1e-2 there, and
    each verdict's reason names the path that decided).

    >>> r = grade_many(["\\frac{1}{2}", "3"], ["so \\boxed{0.5}", "The answer is 4."])
    >>> r.correct.tolist(), r[0].decided_by, r[1].reason
    ([True, False], 'fast', 'not equivalent')
    >>> grade_many("12", ["It is 12.", "\\boxed{13}", "12.0"]).correct.tolist()
    [True, False, True]

    Raises:
        ValueError: *golds* and *responses* differ in length, or an option out of range
            (``timeout=0``, ``deadline=-1``, ``float_rounding=99``), named in the message.
        TypeError: *responses* is not a sequence (a lone ``str`` is refused: :func:`grade`
            grades one pair), *golds* is neither a sequence nor one gold, or an option of the
            wrong type (``float_rounding=2.7``, ``last_number=1``).
    """
    begun = time.monotonic()
    cfg = GradeConfig.build(
        "grade_many",
        config,
        timeout=timeout,
        fallback=fallback,
        last_number=last_number,
        rel_tol=rel_tol,
        abs_tol=abs_tol,
        float_rounding=float_rounding,
    )
    check_threads("grade_many", threads)
    check_workers("grade_many", workers)
    call_limit = check_deadline("grade_many", deadline)
    one_gold = isinstance(golds, str) or (isinstance(golds, (int, float)) and not isinstance(golds, bool))
    if not one_gold and (isinstance(golds, bytes) or not isinstance(golds, Iterable)):
        raise TypeError(f"grade_many: golds must be a sequence of str, not {type(golds).__name__} (or one str gold)")
    if isinstance(responses, (str, bytes)):
        raise TypeError(
            f"grade_many: responses must be a sequence of str, not {type(responses).__name__}: golds and "
            "responses are sequences, or golds is one gold for all responses (grade() grades one pair)"
        )
    if not isinstance(responses, Iterable):
        raise TypeError(f"grade_many: responses must be a sequence of str, not {type(responses).__name__}")
    # a list is read as it is (copying 1M references costs a cache miss per object); anything
    # else is read once into one
    responses = responses if isinstance(responses, list) else list(responses)
    if isinstance(golds, (str, int, float)):
        # one gold for all: n references to one str object (no per-row Python work); the core's
        # gold cache reads and normalizes that gold once
        golds = [golds if isinstance(golds, str) else str(golds)] * len(responses)
    elif not isinstance(golds, list):
        golds = list(golds)
    if task != "math":
        if call_limit is not None:
            raise ValueError(f"grade_many: deadline is supported for task='math' only, not task={task!r}")
        return _task_many(task, golds, responses, cfg, rel_tol, threads)
    n = len(golds)
    if n != len(responses):
        raise ValueError(f"grade_many: {n} golds but {len(responses)} responses")

    # The common case, every input a str, takes no per-pair Python work: the core checks the
    # types as it reads the inputs, and its columns become the result's columns as they are.
    # Only when it refuses an input are the pairs sorted into usable ones and error verdicts.
    bar = _progress_bar(n, progress, "fast path")
    try:
        columns = _fast_columns(golds, responses, bar, cfg, threads)
        all_str = True
    except TypeError:
        all_str = False
    if not all_str:
        if bar is not None:
            bar.reset()
        valid, valid_golds, valid_responses, errors = _split_valid(golds, responses)
        columns = _fast_columns(valid_golds, valid_responses, bar, cfg, threads)
    if bar is not None:
        bar.close()
    tri_codes, why, meth = columns.tri, columns.reason, columns.method
    g_index, g_table = columns.gold_index, columns.gold_table
    raw_index, raw_table = columns.raw_index, columns.raw_table
    ext_off, ext_data = columns.extracted_offsets, columns.extracted_data
    norm_off, norm_data = columns.normalized_offsets, columns.normalized_data

    tri_array = np.frombuffer(tri_codes, dtype=np.int8)
    decided = np.zeros(n, dtype=np.int8)  # indices into DECIDERS; 0 is "fast"
    found = np.frombuffer(meth, dtype=np.uint8) != _NO_METHOD
    method_codes = np.frombuffer(meth, dtype=np.uint8).astype(np.int8)  # 255 (no answer) is -1
    gold_col = _Coded(np.frombuffer(g_index, dtype=np.int32).copy(), g_table)
    extracted = _Packed(ext_data, np.frombuffer(ext_off, dtype=np.int64), found)
    normalized = _Packed(norm_data, np.frombuffer(norm_off, dtype=np.int64), found)
    method_col = _Coded(method_codes, _METHODS)
    reason_codes = np.frombuffer(why, dtype=np.int8).astype(np.int32)
    reason_table = list(_REASONS)
    if all_str:
        correct = tri_array == _TRUE
        undecided = np.flatnonzero(tri_array == _UNKNOWN).tolist()
        decided[tri_array == _LIMIT] = _DECIDER_CODE["limit"]
    else:
        # Some inputs were refused: the usable pairs' columns are spread over the whole batch
        # and the others get error verdicts (a rare path, built from lists).
        correct = np.zeros(n, dtype=bool)
        gold_out: list[str] = [""] * n
        ext_out: list[str | None] = [None] * n
        meth_out: list[str | None] = [None] * n
        reason_out: list[str] = [""] * n
        norm_out: list[str | None] = [None] * n
        for i, (shown_gold, message) in errors.items():
            decided[i] = _DECIDER_CODE["error"]
            gold_out[i] = shown_gold
            reason_out[i] = message
        g_list, e_list = gold_col.to_list(), extracted.to_list()
        m_list, n_list = method_col.to_list(), normalized.to_list()
        for k, i in enumerate(valid):
            correct[i] = tri_codes[k] == _TRUE
            gold_out[i], ext_out[i], meth_out[i], norm_out[i] = g_list[k], e_list[k], m_list[k], n_list[k]
            reason_out[i] = _REASONS[why[k]]
            if tri_codes[k] == _LIMIT:
                decided[i] = _DECIDER_CODE["limit"]
        undecided = [valid[k] for k in np.flatnonzero(tri_array == _UNKNOWN).tolist()]
        gold_col, extracted, method_col, normalized = (
            _Coded.of(gold_out),
            _Packed.of(ext_out),
            _Coded.of(meth_out),
            _Packed.of(norm_out),
        )
        reason_ids: dict[str, int] = {}
        reason_codes = np.array([reason_ids.setdefault(r, len(reason_ids)) for r in reason_out], dtype=np.int32)
        reason_table = list(reason_ids)

    fallback_reasons: dict[int, str] = {}
    if cfg.fallback and undecided:
        from rapidgrade.fallback import _deadline_reason, fallback_many

        left = None if call_limit is None else call_limit - (time.monotonic() - begun)
        outcomes: list[tuple[bool, str, str]]
        if left is not None and left <= 0:
            # the fast path used up the deadline: nothing is sent to the fallback
            why_late = _deadline_reason("deadline: passed before a worker took it")
            outcomes = [(False, "timeout", why_late)] * len(undecided)
        else:
            pool = None
            if workers is not None:
                from rapidgrade._pool import WorkerPool

                pool = WorkerPool(workers)  # the fallback passes its warm-up steps
            extracted_list = extracted.to_list()
            try:
                # the undecided pairs' unwrapped golds, one per pair in row order, as the core found them
                outcomes = list(
                    fallback_many(
                        [raw_table[k] for k in np.frombuffer(raw_index, dtype=np.int32).tolist()],
                        [extracted_list[i] or "" for i in undecided],
                        pool=pool,
                        timeout=cfg.timeout,
                        progress=progress,
                        memory_limit=cfg.memory_limit,
                        deadline=left,
                    )
                )
            finally:
                if pool is not None:
                    pool.close()
        for i, (ok, by, why_fb) in zip(undecided, outcomes):
            correct[i] = ok
            decided[i] = _DECIDER_CODE[by]
            fallback_reasons[i] = why_fb
    reason_col = _coded_with(reason_codes, reason_table, fallback_reasons)
    results = GradeResults._from_parts(correct, decided, gold_col, extracted, method_col, reason_col, normalized)
    if cfg.judge is not None:  # what is still open goes to the judge (rapidgrade.judge)
        from rapidgrade.judge import apply_judge

        return apply_judge(cfg.judge, golds, responses, results)
    return results


# The columns of _core.grade_fast_many, by name (see _core.FastColumns).
_Columns = _core.FastColumns


def _fast_columns(
    golds: list[str],
    responses: list[str],
    bar: Any,
    cfg: GradeConfig,
    threads: int | None,
) -> _Columns:
    """The C++ fast path over every pair, in chunks (see :func:`_chunks`), as the columns of
    _core.grade_fast_many for the whole batch. Raises TypeError when an input is not a str."""
    n = len(golds)
    parts: list[_Columns] = []
    for begin, end in _chunks(golds, _CHUNK if bar is not None else max(n, 1)):
        whole = begin == 0 and end == n  # one chunk: the caller's lists, not copies
        parts.append(
            _core.grade_fast_many(
                golds if whole else golds[begin:end],
                responses if whole else responses[begin:end],
                last_number=cfg.last_number,
                rel_tol=cfg.equiv.rel_tol,
                abs_tol=cfg.equiv.abs_tol,
                float_rounding=cfg.equiv.float_rounding,
                threads=threads,
                max_answer_bytes=cfg.max_answer_bytes,
            )
        )
        if bar is not None:
            bar.update(end - begin)
    if len(parts) == 1:
        return parts[0]
    return _concat(parts)


#: Characters of golds the core reads in one call. Its working memory for a call (the golds it
#: parses and normalizes, kept for the call) grows with the golds it reads: about 4.5 bytes per
#: character of 1,000 distinct long polynomial golds, 725 MB for 162 MB of golds. Past this size a
#: batch is read in chunks, so that working memory stays near 40 MB whatever the batch. Responses
#: do not count: the core keeps none of them (58M characters of responses on 800 short golds add
#: 5 MB either way), and chunking a batch costs speed (a core call per chunk: 1.4x the time on
#: 49,600 distinct pairs at 8M characters a chunk, 2x on two threads). What the results keep (each
#: pair's gold, extracted and normalized answer) is the pair's own size.
_CHUNK_CHARS = 8 << 20


def _chunks(golds: list[Any], most_pairs: int) -> list[tuple[int, int]]:
    """``(begin, end)`` of the chunks the fast path reads: at most *most_pairs* pairs and (but
    for a single pair larger than that) :data:`_CHUNK_CHARS` characters of golds each."""
    n = len(golds)
    by_pairs = [(begin, min(n, begin + most_pairs)) for begin in range(0, max(n, 1), most_pairs)]
    try:  # one pass in C over the lengths; the common batch is far below the budget
        total = sum(map(len, golds))
    except TypeError:  # an input without a length: the core refuses the batch (see grade_many)
        return by_pairs
    if total <= _CHUNK_CHARS:
        return by_pairs
    ends = list(itertools.accumulate(map(len, golds)))
    chunks: list[tuple[int, int]] = []
    begin = 0
    while begin < n:
        before = ends[begin - 1] if begin else 0
        end = bisect.bisect_right(ends, before + _CHUNK_CHARS, lo=begin + 1, hi=min(n, begin + most_pairs))
        end = max(end, begin + 1)
        chunks.append((begin, end))
        begin = end
    return chunks


def _concat(parts: list[_Columns]) -> _Columns:
    """The columns of consecutive chunks as one batch's: indices into the gold tables and string
    offsets shifted past the chunks before."""
    tri = bytearray()
    why: list[bytes] = []
    meth: list[bytes] = []
    g_index: list[bytes] = []
    ext_off: list[bytes] = []
    ext_data: list[bytes] = []
    norm_off: list[bytes] = []
    norm_data: list[bytes] = []
    g_table: list[str] = []
    raw_index: list[bytes] = []
    raw_table: list[str] = []
    rows = 0
    ext_base = norm_base = 0
    for part in parts:
        p_tri, p_why, p_meth, p_index, p_table = part.tri, part.reason, part.method, part.gold_index, part.gold_table
        p_raw_index, p_raw_table = part.raw_index, part.raw_table
        p_ext_off, p_ext, p_norm_off, p_norm = (
            part.extracted_offsets,
            part.extracted_data,
            part.normalized_offsets,
            part.normalized_data,
        )
        tri.extend(p_tri)
        why.append(p_why)
        meth.append(p_meth)
        g_index.append((np.frombuffer(p_index, dtype=np.int32) + len(g_table)).astype(np.int32).tobytes())
        g_table.extend(p_table)
        raw_index.append((np.frombuffer(p_raw_index, dtype=np.int32) + len(raw_table)).astype(np.int32).tobytes())
        raw_table.extend(p_raw_table)
        offsets = np.frombuffer(p_ext_off, dtype=np.int64)
        ext_off.append((offsets[(1 if rows else 0) :] + ext_base).tobytes())
        ext_data.append(p_ext)
        norm = np.frombuffer(p_norm_off, dtype=np.int64)
        norm_off.append((norm[(1 if rows else 0) :] + norm_base).tobytes())
        norm_data.append(p_norm)
        rows += len(p_tri)
        ext_base += len(p_ext)
        norm_base += len(p_norm)
    return _core.FastColumns(
        tri=tri,
        reason=b"".join(why),
        method=b"".join(meth),
        gold_index=b"".join(g_index),
        gold_table=g_table,
        raw_index=b"".join(raw_index),
        raw_table=raw_table,
        extracted_offsets=b"".join(ext_off),
        extracted_data=b"".join(ext_data),
        normalized_offsets=b"".join(norm_off),
        normalized_data=b"".join(norm_data),
    )


def _split_valid(
    golds: list[Any], responses: list[Any]
) -> tuple[list[int], list[str], list[str], dict[int, tuple[str, str]]]:
    """Indices and texts of the usable pairs, and (gold as shown, reason) for the others."""
    valid: list[int] = []
    valid_golds: list[str] = []
    valid_responses: list[str] = []
    errors: dict[int, tuple[str, str]] = {}
    for i, (gold, response) in enumerate(zip(golds, responses)):
        g, g_err = _as_text(gold, "gold")
        r, r_err = _as_text(response, "response")
        if g is None or r is None:
            errors[i] = (g if g is not None else repr(gold)[:200], g_err or r_err or "")
            continue
        valid.append(i)
        valid_golds.append(g)
        valid_responses.append(r)
    return valid, valid_golds, valid_responses, errors


def grade(
    gold: Any,
    response: Any,
    *,
    config: GradeConfig | None = None,
    timeout: float | Unset | None = UNSET,
    fallback: bool | Unset = UNSET,
    last_number: bool | Unset = UNSET,
    rel_tol: float | Unset = UNSET,
    abs_tol: float | Unset = UNSET,
    float_rounding: int | Unset | None = UNSET,
    task: str = "math",
    deadline: float | None = None,
) -> Verdict:
    r"""Grade one response against one gold answer; see :func:`grade_many` for the options.

    >>> v = grade("\\frac{1}{2}", "Thus the probability is $\\boxed{0.5}$.")
    >>> v.correct, v.decided_by, v.extracted, v.method
    (True, 'fast', '0.5', 'boxed')
    >>> grade("2", "We get $2\\sqrt{3}$, so the answer is $2\\sqrt{3}$.").correct
    False
    """
    cfg = GradeConfig.build(
        "grade",
        config,
        timeout=timeout,
        fallback=fallback,
        last_number=last_number,
        rel_tol=rel_tol,
        abs_tol=abs_tol,
        float_rounding=float_rounding,
    )
    if task != "math":
        if check_deadline("grade", deadline) is not None:
            raise ValueError(f"grade: deadline is supported for task='math' only, not task={task!r}")
        return _task_many(task, [gold], [response], cfg, rel_tol, 1)[0]
    check_deadline("grade", deadline)
    return grade_many([gold], [response], config=cfg, threads=1, deadline=deadline)[0]


def _task_many(
    task: str, golds: list[Any], responses: list[Any], cfg: GradeConfig, rel_tol: float | Unset, threads: int | None
) -> GradeResults:
    """grade_many for a task other than math: the registry's task, when it grades pairs
    (a :class:`~rapidgrade.tasks.PairGrader`)."""
    from rapidgrade.tasks._base import BUILTIN_TASKS, PairGrader, get_task

    found = get_task(task) if task in BUILTIN_TASKS else None
    if not isinstance(found, PairGrader):
        graders = [name for name in BUILTIN_TASKS if name == "math" or isinstance(get_task(name), PairGrader)]
        raise ValueError(f"grade_many: unknown task {task!r} (tasks that grade pairs: {', '.join(graders)})")
    tol = None if isinstance(rel_tol, Unset) else rel_tol
    return found.grade_pairs(golds, responses, config=cfg, rel_tol=tol, threads=threads)


def _progress_bar(total: int, enabled: bool, description: str) -> Any:
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=description, unit="pairs", unit_scale=True, dynamic_ncols=True)
