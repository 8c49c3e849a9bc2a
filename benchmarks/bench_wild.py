"""Answers as real models write them: rapidgrade against math-verify on labelled responses, in one run.

    python -m benchmarks.bench_wild                                  # wild_dev.jsonl of the tuning corpora
    python -m benchmarks.bench_wild --corpus held_out.jsonl          # any labelled dump (repeatable)
    python -m benchmarks.bench_wild --corpus qwen25_math_cot_800.jsonl --label-key qwen_grader
    python -m benchmarks.bench_wild --corpus dump.jsonl --gold-key answer --response-key output --label-key is_correct

The benchmark of record for output as models write it (issue 41's targets). Each ``--corpus`` is a
JSON-lines file with a gold answer, a response and a label saying whether the response is
correct (``--gold-key``, ``--response-key``, ``--label-key``; default ``gold``, ``response``,
``label``), optionally ``source`` (results are shown per source), ``kind`` and ``id``
(``--source-key``, ``--kind-key``, ``--id-key``). A label is a bool, 0/1 or the strings
"true"/"false" ("yes"/"no", "1"/"0"); rows whose label is null or missing are left out and
counted. A bare file name that is not a path is looked up in the project's tuning corpora
(``../shared/corpora`` beside the repository, or where ``RAPIDGRADE_SHARED_CORPORA`` points), so
held-out files are given by path and the tuning sets by name.

On the same rows, in the same run, it grades with

- rapidgrade: ``grade_many(golds, responses)`` with its defaults (the fast path, then the fallback
  for the pairs the fast path leaves open), and the fast path alone (``fallback=False``: open
  pairs counted wrong);
- math-verify: ``verify(parse(gold), parse(response))`` with its own defaults, its own time
  limits included (``signal.alarm``, 5 s per parse and per comparison), in a worker process of
  this script that grades the pairs one by one and is killed when a pair takes longer than
  ``--peer-deadline`` seconds (the pair counts as false; a new worker goes on from the next pair),
  so that one pathological pair cannot hang the run. The gold is given as ``$gold$`` (as
  math-verify's documentation and the project's other benchmarks give it: a bare ``\\$6`` or
  ``b ^ { 2 }`` is otherwise not read), except a gold that holds its own ``$``, a ``\\boxed{}`` or
  a line break (a whole solution), which is given as it is.

and prints, per corpus and per source: rows; errors against the labels, false positives and false
negatives of both, side by side; the errors of the fast path alone; the share of pairs that
reached rapidgrade's fallback; how many of rapidgrade's errors the fast path made and how many
the fallback made; the fast path's certain TRUE verdicts that are wrong and its certain FALSE
verdicts that are wrong (count and rate). Then the errors by class (source/kind/FP|FN).

Speed, end to end and per CPU second. rapidgrade's CPU is the main process's CPU time
(``time.process_time``: every thread, the fast path's included) up to the call's return, plus the
CPU time of every child process (the fallback's workers, their start-up and warm-up included): the
children reaped so far (``RUSAGE_CHILDREN``) plus the live ones (``/proc/<pid>/stat``, or psutil),
read before the call and again once the children are quiet (a worker started or replaced in the
background after the call returns is counted too). The first end-to-end run of each corpus is
*cold*: the shared worker pool is closed before it, so it starts its workers; the *warm* figure is
the median of ``--repeats`` runs after it. math-verify's CPU is its worker processes' whole lives
(``wait4``), of which its start-up (imports, lazily built grammars) is shown apart: the warm ratio
compares math-verify without its start-up with rapidgrade warm, the cold ratio both with theirs.
The ratios are math-verify CPU / rapidgrade CPU (and wall / wall). The time rows also go to
``benchmarks/results/bench_wild.json`` (:class:`benchmarks._common.Report`), so
``scripts/ab_bench.py`` can compare two trees on them.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import resource
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

import rapidgrade
from benchmarks._common import ROOT, Report, machine_info
from tests.datasets import SHARED_CORPORA_DEFAULTS, SHARED_CORPORA_VARIABLE, shared_path

T = TypeVar("T")

#: The corpus measured when no ``--corpus`` is given (a tuning corpus, by name).
DEFAULT_CORPUS = "wild_dev.jsonl"
#: The peer's worker script (see its docstring for the protocol).
PEER_WORKER = Path(__file__).resolve().parent / "_peer_worker.py"
#: Seconds a peer worker may take to start (imports, warm-up) before it is given up.
PEER_START_LIMIT = 300.0
#: ``Verdict.decided_by`` values of pairs the fast path decided itself (``limit``: too costly to
#: compare, counted wrong, never sent to the fallback); every other value means the pair reached
#: the fallback.
FAST_DECIDERS = ("fast", "limit")
_LABEL_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
_NO_LABEL_WORDS = ("", "null", "none")


# -- reading labelled corpora -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Keys:
    """The field names of a corpus's rows (held-out dumps name their fields differently)."""

    gold: str = "gold"
    response: str = "response"
    label: str = "label"
    source: str = "source"
    kind: str = "kind"
    id: str = "id"


@dataclass(frozen=True, slots=True)
class Row:
    """One labelled pair: *label* says whether *response* is a correct answer to *gold*."""

    id: str
    gold: str
    response: str
    label: bool
    source: str
    kind: str


@dataclass(frozen=True, slots=True)
class Corpus:
    """The labelled rows of one file, and how many rows had no label (left out)."""

    name: str
    path: Path
    rows: tuple[Row, ...]
    unlabelled: int


def parse_label(value: object) -> bool | None:
    """A label as a bool: ``True``/``False``, 0/1 (int or float) or a string ("true"/"false",
    "yes"/"no", "1"/"0", any case); ``None`` for no label (null, "", "null", "none").

    >>> parse_label(True), parse_label(0), parse_label(" TRUE "), parse_label(None), parse_label("")
    (True, False, True, None, None)
    >>> parse_label("maybe")
    Traceback (most recent call last):
    ValueError: label 'maybe' is not a bool, 0/1 or 'true'/'false'
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _LABEL_WORDS:
            return _LABEL_WORDS[word]
        if word in _NO_LABEL_WORDS:
            return None
    raise ValueError(f"label {value!r} is not a bool, 0/1 or 'true'/'false'")


def _text(value: object, what: str) -> str:
    """A gold or response as a str (a number as written by ``str``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ValueError(f"the {what} is {type(value).__name__} {value!r}, not a string")


def read_rows(lines: Sequence[str], keys: Keys, where: str) -> tuple[list[Row], int]:
    """The labelled rows of JSON *lines* (blank lines skipped) and the number of rows without a
    label. Raises ValueError naming *where* and the line for a row that is not a JSON object, a
    missing or non-string gold or response, a label that is not a truth value, or a label column
    that no row has (with the fields the rows do have, and the option to name another)."""
    rows: list[Row] = []
    unlabelled = 0
    seen_label = False
    fields: set[str] = set()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        at = f"{where}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{at}: not JSON ({err})") from None
        if not isinstance(record, dict):
            raise ValueError(f"{at}: a row must be a JSON object, not {type(record).__name__}")
        fields.update(record)
        for key, option in ((keys.gold, "--gold-key"), (keys.response, "--response-key")):
            if key not in record:
                raise ValueError(f"{at}: no field {key!r} (the row has {sorted(record)}); name it with {option}")
        seen_label = seen_label or keys.label in record
        try:
            label = parse_label(record.get(keys.label))
            gold = _text(record[keys.gold], f"gold ({keys.gold!r})")
            response = _text(record[keys.response], f"response ({keys.response!r})")
        except ValueError as err:
            raise ValueError(f"{at}: {err}") from None
        if label is None:
            unlabelled += 1
            continue
        rows.append(
            Row(
                id=str(record.get(keys.id, number)),
                gold=gold,
                response=response,
                label=label,
                source=str(record.get(keys.source) or "-"),
                kind=str(record.get(keys.kind) or "-"),
            )
        )
    if (rows or unlabelled) and not seen_label:
        raise ValueError(
            f"{where}: no row has a label field {keys.label!r} (the rows have {sorted(fields)}); "
            "name it with --label-key"
        )
    return rows, unlabelled


def resolve_corpus(spec: str) -> Path:
    """The file *spec* names: a path that exists, else a bare file name looked up in the tuning
    corpora (``tests.datasets.shared_path``). Raises FileNotFoundError saying where it looked and
    naming ``RAPIDGRADE_SHARED_CORPORA``."""
    path = Path(spec)
    if path.is_file():
        return path
    if path.name != spec:
        raise FileNotFoundError(f"corpus {spec!r} not found")
    try:
        return shared_path(spec)
    except FileNotFoundError:
        env = os.environ.get(SHARED_CORPORA_VARIABLE)
        looked = ", ".join(str(d) for d in ([Path(env)] if env else SHARED_CORPORA_DEFAULTS))
        raise FileNotFoundError(
            f"corpus {spec!r} is neither a file here nor a tuning corpus (looked in {looked}): give a held-out "
            f"file by its path, or set {SHARED_CORPORA_VARIABLE} to the folder that holds the tuning corpora"
        ) from None


def load_corpus(spec: str, keys: Keys, limit: int | None = None) -> Corpus:
    """The labelled rows of the corpus *spec* names (see :func:`resolve_corpus`), the first
    *limit* of them when given."""
    path = resolve_corpus(spec)
    rows, unlabelled = read_rows(path.read_text(encoding="utf-8").splitlines(), keys, str(path))
    return Corpus(path.stem, path, tuple(rows[:limit] if limit is not None else rows), unlabelled)


# -- CPU time of this process and of its children ----------------------------------------------

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _reaped_children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _live_children_cpu() -> float:
    """CPU seconds of this process's live children (their own reaped children included)."""
    tasks = Path("/proc/self/task")
    if not tasks.is_dir():
        try:
            import psutil
        except ImportError:
            raise SystemExit("measuring the workers' CPU needs Linux's /proc or psutil") from None
        total = 0.0
        for child in psutil.Process().children():
            try:
                t = child.cpu_times()
            except psutil.Error:
                continue
            total += t.user + t.system + t.children_user + t.children_system
        return total
    pids: set[int] = set()
    for task in tasks.iterdir():  # each thread's children: the pool's supervisor thread starts the workers
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except OSError:
            continue
    ticks = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue  # gone meanwhile: counted among the reaped children
        fields = stat.rsplit(")", 1)[1].split()  # after "pid (comm)": state is fields[0]
        ticks += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / _TICKS


def children_cpu() -> float:
    """CPU seconds of every child this process has had: the reaped ones (``RUSAGE_CHILDREN``)
    plus the live ones. A worker that exits between two readings moves from one part to the other
    with its whole life, so the difference of two readings is the children's CPU in between."""
    for _ in range(5):
        before = _reaped_children_cpu()
        live = _live_children_cpu()
        if _reaped_children_cpu() == before:  # no child reaped while the live ones were read
            return before + live
    return _reaped_children_cpu() + _live_children_cpu()


def wait_children_quiet(*, poll: float = 0.2, quiet: float = 0.6, limit: float = 120.0) -> None:
    """Wait until the children have used (almost) no CPU for *quiet* seconds (a worker starting or
    warming up in the background), at most *limit* seconds."""
    deadline = time.monotonic() + limit
    last = children_cpu()
    calm_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(poll)
        now = children_cpu()
        if now - last > 2.0 / _TICKS:
            calm_since = time.monotonic()
        elif time.monotonic() - calm_since >= quiet:
            return
        last = now


@dataclass(frozen=True, slots=True)
class Cost:
    """What one call cost: *wall* seconds until it returned; *cpu* seconds of this process (until
    it returned) and of its children (until they were quiet), of which *children* seconds."""

    wall: float
    cpu: float
    children: float


def measure(fn: Callable[[], T], *, with_children: bool = True, min_time: float = 0.0) -> tuple[T, Cost]:
    """Call *fn*, again and again until *min_time* seconds have passed (at least once, so that a
    call of a few milliseconds is not timed alone); its last result and the :class:`Cost` of one
    call. With *with_children*, the children's CPU is read again once they are quiet (see
    :func:`wait_children_quiet`)."""
    kids0 = children_cpu() if with_children else 0.0
    cpu0 = time.process_time()
    wall0 = time.perf_counter()
    calls = 0
    while True:
        result = fn()
        calls += 1
        if time.perf_counter() - wall0 >= min_time:
            break
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    kids = 0.0
    if with_children:
        wait_children_quiet()
        kids = max(0.0, children_cpu() - kids0)
    return result, Cost(wall / calls, (cpu + kids) / calls, kids / calls)


# -- rapidgrade ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RapidgradeRun:
    """rapidgrade's verdicts on a corpus and what they cost: *correct* and *decided_by* of the
    default run (``grade_many`` with its defaults), *fast_correct* of the fast path alone;
    *cold* is the first default run (workers started), *warm* and *fast* lists of the repeats."""

    correct: np.ndarray[Any, np.dtype[np.bool_]]
    decided_by: np.ndarray[Any, np.dtype[np.str_]]
    extracted: list[str | None]
    reason: list[str]
    fast_correct: np.ndarray[Any, np.dtype[np.bool_]]
    cold: Cost
    warm: list[Cost]
    fast: list[Cost]
    unstable: int


def close_default_pool() -> None:
    """Close rapidgrade's shared worker pool (the next fallback call starts a new one: cold)."""
    from rapidgrade import _pool

    _pool._close_default_pool()
    wait_children_quiet()


def run_rapidgrade(
    rows: Sequence[Row], *, repeats: int, timeout: float | None = None, min_time: float = 0.2
) -> RapidgradeRun:
    """Grade *rows* with rapidgrade: once cold (a new worker pool), *repeats* times warm, and
    *repeats* times with the fast path alone, alternated; each warm or fast sample calls
    ``grade_many`` until *min_time* seconds have passed (see :func:`measure`)."""
    golds = [r.gold for r in rows]
    responses = [r.response for r in rows]
    options: dict[str, Any] = {} if timeout is None else {"timeout": timeout}
    close_default_pool()
    first, cold = measure(lambda: rapidgrade.grade_many(golds, responses, **options))
    warm: list[Cost] = []
    fast: list[Cost] = []
    last = first
    fast_results = None
    for _ in range(repeats):
        fast_results, cost = measure(
            lambda: rapidgrade.grade_many(golds, responses, fallback=False), with_children=False, min_time=min_time
        )
        fast.append(cost)
        last, cost = measure(lambda: rapidgrade.grade_many(golds, responses, **options), min_time=min_time)
        warm.append(cost)
    if fast_results is None:  # repeats == 0
        fast_results = rapidgrade.grade_many(golds, responses, fallback=False)
    unstable = int(np.count_nonzero(first.correct != last.correct))
    return RapidgradeRun(
        correct=np.array(last.correct, dtype=bool),
        decided_by=np.array(last.decided_by),
        extracted=last.extracted,
        reason=last.reason,
        fast_correct=np.array(fast_results.correct, dtype=bool),
        cold=cold,
        warm=warm,
        fast=fast,
        unstable=unstable,
    )


# -- the peer, in a killable worker -------------------------------------------------------------


def peer_gold(gold: str) -> str:
    r"""The gold as math-verify is given it: ``$gold$``, unless it carries its own ``$`` (an
    unescaped one), a ``\boxed{}`` or a line break (a whole solution), then as it is.

    >>> peer_gold(r"\frac{1}{2}"), peer_gold(r"\$6"), peer_gold(r"$x=1$"), peer_gold("a\n#### 72")
    ('$\\frac{1}{2}$', '$\\$6$', '$x=1$', 'a\n#### 72')
    """
    unescaped_dollar = any(c == "$" and (i == 0 or gold[i - 1] != "\\") for i, c in enumerate(gold))
    if unescaped_dollar or "\\boxed" in gold or "\n" in gold:
        return gold
    return f"${gold}$"


@dataclass(frozen=True, slots=True)
class PeerRun:
    """The peer's verdicts and what they cost. *raised*: pairs where the peer raised (counted
    false); *killed*: indices of pairs past the deadline or whose worker died (counted false). *cpu*:
    the workers' whole lives, of which *startup_cpu* before they were ready; *wall* from the first
    start to the last verdict, of which *startup_wall* waiting for workers to be ready."""

    verdicts: list[bool]
    raised: int
    killed: list[int]
    cpu: float
    startup_cpu: float
    wall: float
    startup_wall: float
    workers: int


class _Lines:
    """Lines from a pipe, each awaited with a deadline (``select``; no Python-side buffering that
    ``select`` cannot see)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def next(self, timeout: float) -> str | None:
        """The next line; ``None`` at end of file. Raises TimeoutError after *timeout* seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()


def run_peer(
    pairs: Sequence[tuple[str, str]],
    *,
    grader: str = "math_verify",
    deadline: float = 30.0,
    start_limit: float = PEER_START_LIMIT,
) -> PeerRun:
    """Grade *pairs* (gold, response) with *grader* (see ``benchmarks/_peer_worker.py``) in a
    worker process, one pair at a time; a pair that takes more than *deadline* seconds gets its
    worker killed and counts as false, and a new worker goes on from the next pair. Raises
    RuntimeError when a worker cannot start within *start_limit* seconds or exits before
    reporting ready (with its stderr)."""
    n = len(pairs)
    verdicts = [False] * n
    raised = 0
    killed: list[int] = []
    cpu = startup_cpu = startup_wall = 0.0
    workers = 0
    env = dict(os.environ)
    # the worker finds what this process finds (a grader named "module:function" included)
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([str(ROOT), *(p for p in sys.path if p)]))
    wall0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench_wild_") as scratch:
        data = Path(scratch) / "pairs.jsonl"
        data.write_text("".join(json.dumps([g, r]) + "\n" for g, r in pairs), encoding="utf-8")
        start = 0
        while start < n:
            err_path = Path(scratch) / f"stderr-{workers}.txt"
            with err_path.open("wb") as err:
                launched = time.perf_counter()
                proc = subprocess.Popen(
                    [sys.executable, str(PEER_WORKER), str(data), str(start), grader],
                    stdout=subprocess.PIPE,
                    stderr=err,
                    env=env,
                    cwd=ROOT,
                )
            workers += 1
            assert proc.stdout is not None
            lines = _Lines(proc.stdout.fileno())
            ready = hung = False
            try:
                line = lines.next(start_limit)
                if line is not None and line.startswith("ready "):
                    ready = True
                    startup_cpu += float(line.split()[1])
                    startup_wall += time.perf_counter() - launched
                    while (line := lines.next(deadline)) is not None:
                        index, code = line.split()
                        verdicts[int(index)] = code == "1"
                        raised += code == "E"
                        start = int(index) + 1
            except TimeoutError:
                hung = True
                proc.kill()
            proc.stdout.close()
            _, status, usage = os.wait4(proc.pid, 0)
            proc.returncode = os.waitstatus_to_exitcode(status)
            cpu += usage.ru_utime + usage.ru_stime
            if not ready:
                tail = err_path.read_text(errors="replace")[-2000:]
                how = "did not start in time" if hung else f"exited with status {proc.returncode}"
                raise RuntimeError(f"the peer's worker ({grader}) {how} before it was ready:\n{tail}")
            if start < n:  # past its deadline, or the worker died on this pair: false, and on after it
                killed.append(start)
                start += 1
    return PeerRun(verdicts, raised, killed, cpu, startup_cpu, time.perf_counter() - wall0, startup_wall, workers)


# -- tallies --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Tally:
    """The counts of one group of rows (a corpus, or one source of it)."""

    rows: int
    rg_fp: int
    rg_fn: int
    fast_alone_errors: int
    fallback: int
    rg_errors_fast: int
    rg_errors_fallback: int
    fast_true: int
    fast_true_wrong: int
    fast_false: int
    fast_false_wrong: int
    mv_fp: int | None
    mv_fn: int | None

    @property
    def rg_errors(self) -> int:
        return self.rg_fp + self.rg_fn

    @property
    def mv_errors(self) -> int | None:
        return None if self.mv_fp is None or self.mv_fn is None else self.mv_fp + self.mv_fn


def tally(
    labels: np.ndarray[Any, np.dtype[np.bool_]],
    correct: np.ndarray[Any, np.dtype[np.bool_]],
    decided_by: np.ndarray[Any, np.dtype[np.str_]],
    fast_correct: np.ndarray[Any, np.dtype[np.bool_]],
    peer: np.ndarray[Any, np.dtype[np.bool_]] | None,
    undecided: np.ndarray[Any, np.dtype[np.bool_]] | None = None,
) -> Tally:
    """The counts of :class:`Tally` over aligned columns: the labels, rapidgrade's default verdicts
    and their ``decided_by``, the fast path alone's verdicts and the peer's (``None``: not run).
    A certain verdict of the fast path is one it decided (``decided_by == "fast"``) that is not
    *undecided* (a reason starting "undecided": an UNKNOWN the fast path keeps because the
    fallback cannot help, counted wrong but not a certain FALSE)."""
    wrong = correct != labels
    by_fast = np.isin(decided_by, FAST_DECIDERS)
    certain = decided_by == "fast"
    if undecided is not None:
        certain = certain & ~undecided
    return Tally(
        rows=int(labels.size),
        rg_fp=int(np.count_nonzero(correct & ~labels)),
        rg_fn=int(np.count_nonzero(~correct & labels)),
        fast_alone_errors=int(np.count_nonzero(fast_correct != labels)),
        fallback=int(np.count_nonzero(~by_fast)),
        rg_errors_fast=int(np.count_nonzero(wrong & by_fast)),
        rg_errors_fallback=int(np.count_nonzero(wrong & ~by_fast)),
        fast_true=int(np.count_nonzero(certain & correct)),
        fast_true_wrong=int(np.count_nonzero(certain & correct & ~labels)),
        fast_false=int(np.count_nonzero(certain & ~correct)),
        fast_false_wrong=int(np.count_nonzero(certain & ~correct & labels)),
        mv_fp=None if peer is None else int(np.count_nonzero(peer & ~labels)),
        mv_fn=None if peer is None else int(np.count_nonzero(~peer & labels)),
    )


def error_classes(rows: Sequence[Row], verdicts: Sequence[bool]) -> collections.Counter[str]:
    """Errors against the labels counted by ``source/kind/FP|FN`` (a kind's part after ``:`` is
    dropped: ``perturb:decimal`` is ``perturb``)."""
    out: collections.Counter[str] = collections.Counter()
    for row, ok in zip(rows, verdicts):
        if bool(ok) != row.label:
            out[f"{row.source}/{row.kind.split(':')[0]}/{'FP' if ok else 'FN'}"] += 1
    return out


def _pair(a: int, b: int | None) -> str:
    return f"{a:>5} / {'-' if b is None else b:<5}"


def _share(part: int, whole: int) -> str:
    return f"{part:,} ({part / whole:.2%})" if whole else "0"


def format_table(groups: Sequence[tuple[str, Tally]]) -> list[str]:
    """The per-group table (one line per group, header first)."""
    width = max([14, *(len(name) for name, _ in groups)])
    head = (
        f"  {'':<{width}} {'rows':>6}  {'errors rg / mv':>14}  {'FP rg / mv':>13}  {'FN rg / mv':>13}  "
        f"{'fast alone':>10}  {'fallback':>15}  {'rg errors fast/fallback':>23}  "
        f"{'fast TRUE wrong':>16}  {'fast FALSE wrong':>22}"
    )
    out = [head]
    for name, t in groups:
        false_rate = f"{t.fast_false_wrong}/{t.fast_false:,} ({t.fast_false_wrong / max(t.fast_false, 1):.2%})"
        out.append(
            f"  {name:<{width}} {t.rows:>6,}  {_pair(t.rg_errors, t.mv_errors):>14}  {_pair(t.rg_fp, t.mv_fp):>13}  "
            f"{_pair(t.rg_fn, t.mv_fn):>13}  {t.fast_alone_errors:>10}  {_share(t.fallback, t.rows):>15}  "
            f"{f'{t.rg_errors_fast} / {t.rg_errors_fallback}':>23}  "
            f"{f'{t.fast_true_wrong}/{t.fast_true:,}':>16}  {false_rate:>22}"
        )
    return out


# -- one corpus ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Options:
    repeats: int
    timeout: float | None
    peer: bool
    peer_deadline: float
    peer_gold: str


def _gold_for_peer(gold: str, mode: str) -> str:
    return {"auto": peer_gold, "dollars": lambda g: f"${g}$", "raw": lambda g: g}[mode](gold)


def _per_second(rows: int, seconds: float) -> str:
    return f"{rows / seconds:>12,.0f} pairs/s" if seconds > 0 else f"{'-':>12} pairs/s"


def bench_corpus(corpus: Corpus, opts: Options, report: Report, errors_out: Any | None) -> None:
    """Grade *corpus* with both graders, print its figures, add its time rows to *report*."""
    rows = corpus.rows
    n = len(rows)
    skipped = f"; {corpus.unlabelled:,} rows without a label left out" if corpus.unlabelled else ""
    print(f"\n== {corpus.name} ({corpus.path}): {n:,} labelled pairs{skipped}", flush=True)
    if not n:
        return
    rg = run_rapidgrade(rows, repeats=opts.repeats, timeout=opts.timeout)
    peer: PeerRun | None = None
    if opts.peer:
        peer = run_peer(
            [(_gold_for_peer(r.gold, opts.peer_gold), r.response) for r in rows], deadline=opts.peer_deadline
        )
    labels = np.array([r.label for r in rows], dtype=bool)
    peer_col = None if peer is None else np.array(peer.verdicts, dtype=bool)
    sources = np.array([r.source for r in rows])
    kept = np.array([r.startswith("undecided") for r in rg.reason], dtype=bool)
    groups = [("all", tally(labels, rg.correct, rg.decided_by, rg.fast_correct, peer_col, kept))]
    names = sorted(set(sources.tolist()))
    if len(names) > 1 or names != ["-"]:
        for name in names:
            m = sources == name
            groups.append(
                (
                    name,
                    tally(
                        labels[m],
                        rg.correct[m],
                        rg.decided_by[m],
                        rg.fast_correct[m],
                        None if peer_col is None else peer_col[m],
                        kept[m],
                    ),
                )
            )
    print("against the labels (rg: rapidgrade grade_many defaults; mv: math-verify 0.9.0; fast alone: fallback=False;")
    print("  fast TRUE/FALSE wrong: the fast path's own certain verdicts that the label contradicts):")
    print("\n".join(format_table(groups)))
    limit = int(np.count_nonzero(rg.decided_by == "limit"))
    by = collections.Counter(rg.decided_by.tolist())
    print(
        f"  decided_by: {', '.join(f'{k} {v:,}' for k, v in by.most_common())}"
        + (f" (limit: counted wrong, {limit})" if limit else "")
        + (
            f"; of fast, undecided and kept (the fallback cannot help, counted wrong): {int(kept.sum()):,}"
            if kept.any()
            else ""
        )
    )
    if rg.unstable:
        print(
            f"  note: {rg.unstable} verdicts differ between the cold and the last warm run "
            "(fallback time limits under load)"
        )
    if peer is not None:
        print(
            f"  math-verify: {peer.raised} pairs raised (counted false), {len(peer.killed)} killed past "
            f"{opts.peer_deadline:g} s (counted false), {peer.workers} worker process(es)"
        )
    print("errors by class (source/kind/FP|FN):")
    graders: list[tuple[str, Sequence[bool]]] = [
        ("rapidgrade fast path alone", rg.fast_correct.tolist()),
        ("rapidgrade (fallback on)", rg.correct.tolist()),
    ]
    if peer is not None:
        graders.append(("math-verify 0.9.0", peer.verdicts))
    for name, verdicts in graders:
        classes = error_classes(rows, verdicts)
        listed = ", ".join(f"{k} {v}" for k, v in sorted(classes.items())) or "none"
        print(f"  {name:<28} {sum(classes.values()):>4} errors  ({listed})")

    warm_cpu = statistics.median(c.cpu for c in rg.warm) if rg.warm else math.nan
    warm_wall = statistics.median(c.wall for c in rg.warm) if rg.warm else math.nan
    warm_kids = statistics.median(c.children for c in rg.warm) if rg.warm else math.nan
    fast_cpu = statistics.median(c.cpu for c in rg.fast) if rg.fast else math.nan
    fast_wall = statistics.median(c.wall for c in rg.fast) if rg.fast else math.nan
    print(
        f"time: CPU seconds (main process + child processes) and wall seconds; warm and fast: median of {opts.repeats}"
    )
    print(f"  {'':<44} {'CPU s':>9} {'wall s':>9}  {'per CPU second':>20}")

    def line(name: str, cpu: float, wall: float, note: str = "") -> None:
        print(f"  {name:<44} {cpu:>9.3f} {wall:>9.3f}  {_per_second(n, cpu)}  {note}")

    line("rapidgrade fast path alone", fast_cpu, fast_wall)
    line(
        "rapidgrade end to end, cold",
        rg.cold.cpu,
        rg.cold.wall,
        f"(workers {rg.cold.children:.3f} s, their start-up included)",
    )
    line("rapidgrade end to end, warm", warm_cpu, warm_wall, f"(workers {warm_kids:.3f} s)")
    if peer is not None:
        mv_cpu = peer.cpu - peer.startup_cpu
        mv_wall = peer.wall - peer.startup_wall
        line("math-verify 0.9.0, without its start-up", mv_cpu, mv_wall)
        line("math-verify 0.9.0, with its start-up", peer.cpu, peer.wall, f"(start-up {peer.startup_cpu:.3f} s CPU)")
        print(
            f"  ratio math-verify CPU / rapidgrade CPU: end to end warm {mv_cpu / warm_cpu:,.1f}x, "
            f"cold {peer.cpu / rg.cold.cpu:,.1f}x; fast path alone {mv_cpu / fast_cpu:,.1f}x"
        )
        print(
            f"  ratio math-verify wall / rapidgrade wall: end to end warm {mv_wall / warm_wall:,.1f}x, "
            f"cold {peer.wall / rg.cold.wall:,.1f}x; fast path alone {mv_wall / fast_wall:,.1f}x"
        )
        mv = "math-verify 0.9.0 (its worker's CPU)"
        report.add(f"{corpus.name}: end to end warm, CPU incl. workers", warm_cpu, mv_cpu, mv, "pairs", n)
        report.add(
            f"{corpus.name}: end to end cold, CPU incl. start-up",
            rg.cold.cpu,
            peer.cpu,
            mv + " with start-up",
            "pairs",
            n,
        )
        report.add(f"{corpus.name}: end to end warm, wall", warm_wall, mv_wall, "math-verify 0.9.0 (wall)", "pairs", n)
        report.add(f"{corpus.name}: fast path alone, CPU", fast_cpu, mv_cpu, mv, "pairs", n)
    else:
        report.add(
            f"{corpus.name}: end to end warm vs fast path alone, CPU", warm_cpu, fast_cpu, "fast path alone", "pairs", n
        )

    if errors_out is not None:
        for i, row in enumerate(rows):
            ours = bool(rg.correct[i])
            theirs = None if peer is None else peer.verdicts[i]
            if ours != row.label or (theirs is not None and theirs != row.label):
                record = {
                    "corpus": corpus.name,
                    "id": row.id,
                    "source": row.source,
                    "kind": row.kind,
                    "label": row.label,
                    "rapidgrade": ours,
                    "decided_by": str(rg.decided_by[i]),
                    "extracted": rg.extracted[i],
                    "reason": rg.reason[i],
                    "math_verify": theirs,
                    "gold": row.gold,
                    "response": row.response,
                }
                errors_out.write(json.dumps(record, ensure_ascii=False) + "\n")


def _versions() -> str:
    from importlib import metadata

    try:
        mv = metadata.version("math-verify")
    except metadata.PackageNotFoundError:
        mv = "not installed"
    info = machine_info()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"rapidgrade {rapidgrade.__version__} (commit {info['commit'] or '?'}), math-verify {mv}, "
        f"Python {info['python']}, {info['cpus']} CPUs, load average {load}"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_wild",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--corpus",
        action="append",
        metavar="PATH",
        help=f"a labelled JSON-lines file, or a tuning corpus's file name (repeatable; default {DEFAULT_CORPUS})",
    )
    parser.add_argument("--gold-key", default="gold", help="field of the gold answer (default: gold)")
    parser.add_argument("--response-key", default="response", help="field of the response (default: response)")
    parser.add_argument("--label-key", default="label", help="field of the label (default: label)")
    parser.add_argument("--source-key", default="source", help="field to group rows by (default: source)")
    parser.add_argument("--kind-key", default="kind", help="field of the row's kind (default: kind)")
    parser.add_argument("--id-key", default="id", help="field of the row's id (default: id)")
    parser.add_argument("--rows", type=int, default=None, help="only the first ROWS labelled rows of each corpus")
    parser.add_argument("--repeats", type=int, default=3, help="warm runs of rapidgrade (default 3)")
    parser.add_argument("--timeout", type=float, default=None, help="rapidgrade's fallback timeout (default: its own)")
    parser.add_argument("--skip-math-verify", action="store_true", help="leave the peer out (it takes minutes)")
    parser.add_argument(
        "--peer-deadline",
        type=float,
        default=30.0,
        help="seconds a math-verify pair may take before its worker is killed (default 30)",
    )
    parser.add_argument(
        "--peer-gold",
        choices=("auto", "dollars", "raw"),
        default="auto",
        help="how the gold is given to math-verify: auto ($gold$ unless it has its own $, \\boxed or line "
        "breaks), dollars, raw (default auto)",
    )
    parser.add_argument(
        "--errors-out", type=Path, help="write the rows either grader gets wrong to this JSON-lines file"
    )
    return parser


def main(argv: Sequence[str] | None = None, *, stem: str = "bench_wild") -> None:
    """Run the benchmark on the corpora *argv* names; the report goes to ``STEM.json``."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.rows is not None and args.rows < 1:
        parser.error("--rows must be at least 1")
    keys = Keys(args.gold_key, args.response_key, args.label_key, args.source_key, args.kind_key, args.id_key)
    try:
        corpora = [load_corpus(spec, keys, args.rows) for spec in args.corpus or [DEFAULT_CORPUS]]
    except (FileNotFoundError, ValueError) as err:
        raise SystemExit(f"bench_wild: {err}") from None
    opts = Options(args.repeats, args.timeout, not args.skip_math_verify, args.peer_deadline, args.peer_gold)
    print(_versions())
    report = Report("bench_wild: rapidgrade end to end vs math-verify on labelled real responses")
    errors_out = args.errors_out.open("w", encoding="utf-8") if args.errors_out else None
    try:
        for corpus in corpora:
            bench_corpus(corpus, opts, report, errors_out)
    finally:
        if errors_out is not None:
            errors_out.close()
    if report.rows:
        print(f"report: {report.save(stem)}")


if __name__ == "__main__":
    main()
