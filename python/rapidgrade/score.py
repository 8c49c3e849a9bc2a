"""The scoring job behind ``rapidgrade score``: stream rows, grade them with a task, write
results and a report. The job knows no task: a task (:mod:`rapidgrade.tasks`) says how a chunk
of rows is graded, how metrics add up and what its part of the report shows.

Outputs, in the output directory:

* ``evaluated.jsonl`` — every input row, in order, plus the task's result fields (for the
  ``math`` task: ``correct``, ``extracted``, ``decided_by``, ``reason`` and ``method``; see
  :mod:`rapidgrade.tasks.math`). A row that could not be read or graded is still there, with a
  reason naming its line. ``evaluated.csv`` / ``evaluated.parquet`` are written too with
  ``fmt="csv"``/``"parquet"``.
* ``metrics.json`` — the task's metrics (for ``math``: :class:`~rapidgrade.metrics.Metrics`).
* ``report.html`` — a self-contained page with the task's summary, charts and notable rows.

Work is done in chunks; after each chunk the results are flushed to disk and a checkpoint is
written, so an interrupted job loses nothing and ``resume=True`` continues where it stopped
without grading any row twice.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import queue
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, overload

from rapidgrade._io import (
    FORMATS,
    STDIN,
    Pick,
    RowBlock,
    UsageError,
    count_progress_total,
    dump_json_line,
    iter_blocks,
    load_json_line,
    output_bytes,
    output_size,
)
from rapidgrade.report import Drilldown, render_page
from rapidgrade.tasks._base import BlockRun, Registry, Task, TaskRun

if TYPE_CHECKING:
    from rapidgrade.metrics import Metrics

__all__ = ["UsageError", "resolve_task", "score_file"]

STATE_FILE = ".rapidgrade-state.json"


def resolve_task(task: str | Task, registry: Registry | None = None) -> Task:
    """The task named *task* in *registry* (default: the built-in tasks), or *task* itself."""
    if isinstance(task, str):
        return (registry or Registry()).get(task)
    if not isinstance(task, Task):
        raise TypeError(f"task must be a task name or a rapidgrade.tasks.Task, not {type(task).__name__}")
    return task


def _run_options(config: Any) -> dict[str, Any]:
    """The run's options as the report lists them: the fields of a task's config dataclass."""
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        return dataclasses.asdict(config)
    return {}


def _fingerprint(paths: Sequence[Path], task: Task, config: Any) -> str:
    h = hashlib.sha256()
    for p in paths:
        if str(p) == STDIN:
            raise UsageError("--resume cannot continue a run that read standard input")
        st = p.stat()
        h.update(f"{p.resolve()}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    h.update(f"task={task.name}|{task.fingerprint(config)}".encode())
    return h.hexdigest()


def _grade_chunk(chunk: Sequence[RowBlock], run: TaskRun, drilldown: Drilldown) -> list[Sequence[bytes]]:
    """Grades *chunk* (blocks of consecutive rows, possibly of several inputs) with *run* and
    returns its evaluated.jsonl lines (without newlines), counted into the report's *drilldown*,
    as one sequence of lines per block (a list, or one buffer: :class:`~rapidgrade._io.JoinedLines`).

    A :class:`~rapidgrade.tasks.BlockRun` (the math task's) gets each block as columns and
    returns the lines itself (the columnar hot path); its blocks are read with its ``pick``, and
    its ``verdicts`` after each block give the drill-down the verdicts of single-response lines,
    which are then not parsed again. Any other run gets the chunk's :class:`~rapidgrade._io.InputRow`
    records from ``grade(rows)`` in one call, each written with a ``_source`` field naming its
    input (a row's own field of that name was renamed ``input__source`` when it was read)."""
    if isinstance(run, BlockRun):
        pieces: list[Sequence[bytes]] = []
        for block in chunk:
            block_lines = run.grade_block(block)
            if len(block_lines) != len(block):
                raise RuntimeError(f"task returned {len(block_lines)} lines for {len(block)} rows")
            verdicts = run.verdicts
            drilldown.add_lines(block_lines, verdicts if len(verdicts) == len(block) else None)
            pieces.append(block_lines)
        return pieces
    rows = [row for block in chunk for row in block.rows()]
    records = run.grade(rows)
    if len(records) != len(rows):
        raise RuntimeError(f"task returned {len(records)} records for {len(rows)} rows")
    lines: list[bytes] = []
    for record, row in zip(records, rows):
        record["_source"] = row.source  # the job's provenance wins
        lines.append(dump_json_line(record, row.lenient))
    drilldown.add_lines(lines)
    return [lines]


def _chunks(
    paths: Sequence[Path], skip: int, chunk_size: int, progress: Any, pick: Pick | None = None
) -> Iterator[list[RowBlock]]:
    """Rows of all inputs in chunks of *chunk_size* rows (the last may be shorter; a chunk
    may span inputs), as blocks of consecutive rows of one input each, skipping the first
    *skip* rows (already graded); JSON lines read with the run's *pick* (see
    :func:`~rapidgrade._io.iter_blocks`)."""
    seen = 0
    chunk: list[RowBlock] = []
    size = 0
    for path in paths:
        last_position = 0
        for block in iter_blocks(path, chunk_size, pick):
            if progress is not None:
                progress.update(block.position - last_position)
                last_position = block.position
            graded = max(0, skip - seen)  # rows of this block graded before the resume
            seen += len(block)
            if graded >= len(block):
                continue
            if graded:
                block = block.tail(graded)
            while len(block):
                need = chunk_size - size
                part = block.head(need) if len(block) > need else block
                block = block.tail(len(part))
                chunk.append(part)
                size += len(part)
                if size == chunk_size:
                    yield chunk
                    chunk, size = [], 0
    if chunk:
        yield chunk


def _outputs(out_dir: Path, fmt: str) -> list[Path]:
    """The files a job with output format *fmt* writes in *out_dir*."""
    names = ["evaluated.jsonl", "metrics.json", "report.html", STATE_FILE, STATE_FILE + ".tmp"]
    if fmt != "jsonl":
        names.append(f"evaluated.{fmt}")
    return [out_dir / name for name in names]


def _same_file(a: Path, b: Path) -> bool:
    """Whether *a* and *b* are one file: the same resolved path (symbolic links followed), or,
    when both exist, the same inode (hard links)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _refuse_overwriting_inputs(paths: Sequence[Path], out_dir: Path, fmt: str) -> None:
    """:class:`UsageError` when an input is one of the files the job writes: truncating
    ``evaluated.jsonl`` first, or replacing ``metrics.json`` / ``report.html`` after reading,
    would destroy the input."""
    outputs = _outputs(out_dir, fmt)
    for p in paths:
        if str(p) == STDIN:
            continue
        for output in outputs:
            if _same_file(p, output):
                raise UsageError(
                    f"{p} is an output of this run ({output.name} in {out_dir}): it would be overwritten; "
                    "write the results elsewhere with --out, or move the input"
                )


def _require_pyarrow(purpose: str) -> None:
    """Raises :class:`UsageError` when pyarrow cannot be imported (before the job starts)."""
    try:
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:
        raise UsageError(f"{purpose} needs pyarrow: pip install 'rapidgrade[parquet]'") from exc


def _write_state(out_dir: Path, state: str) -> None:
    """Replaces the checkpoint with *state* (JSON text), durably: written aside, synced, renamed."""
    tmp = out_dir / (STATE_FILE + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(state)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out_dir / STATE_FILE)


class _Writer:
    """Writes the evaluated lines of each chunk to *raw* (each followed by a newline), then the
    checkpoint that counts them, in order, on a thread of its own: joining the lines and the
    disk's time (writes, fsync) overlap the grading of the next chunk instead of following it.
    The checkpoint is replaced only once the lines it counts are on disk, so a run stopped at
    any moment resumes from a consistent state. At most two chunks wait; a failure to write is
    raised by the next :meth:`put` or by :meth:`close`."""

    def __init__(self, raw: BinaryIO, out_dir: Path) -> None:
        self._raw = raw
        self._out_dir = out_dir
        self._queue: queue.Queue[tuple[list[Sequence[bytes]], str] | None] = queue.Queue(maxsize=2)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._work, name="rapidgrade-writer", daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is not None:
                continue  # after a failure, nothing more is written: the checkpoint stays behind
            pieces, state = item
            try:
                for piece in pieces:
                    self._raw.write(output_bytes(piece))
                self._raw.flush()
                os.fsync(self._raw.fileno())
                _write_state(self._out_dir, state)
            except BaseException as exc:
                self._error = exc

    def put(self, pieces: list[Sequence[bytes]], state: str) -> None:
        """Queue *pieces* (sequences of evaluated lines, without newlines) and the checkpoint
        *state* written after them."""
        if self._error is not None:
            raise self._error
        self._queue.put((pieces, state))

    def close(self) -> None:
        """Waits until everything queued is written; raises a failure to write."""
        self._queue.put(None)
        self._thread.join()
        if self._error is not None:
            raise self._error


def _convert_output(out_dir: Path, fmt: str) -> None:
    """Writes evaluated.csv / evaluated.parquet from evaluated.jsonl, streaming, with a schema
    taken from a first pass over the file (each column's type is the same in every row).
    Parquet keeps lists and objects as Parquet lists and structs (their type inferred by
    pyarrow over every row, e.g. ``correct`` of list responses is a list of booleans); a column
    whose values have no common type, and every such column in CSV, is written as JSON text."""
    src = out_dir / "evaluated.jsonl"
    columns: dict[str, set[str]] = {}
    # Parquet: the Arrow types of the nested (list, object) columns, batch by batch.
    nested_types: dict[str, set[Any]] = {}
    nested_values: dict[str, list[Any]] = {}
    batch_rows = 65536

    def kind(value: Any) -> str:
        # An integer beyond 64 bits fits no numeric column: such a column is written as text.
        if type(value) is int and not -(2**63) <= value < 2**63:
            return "bigint"
        return type(value).__name__

    pa: Any = None
    if fmt == "parquet":
        import pyarrow

        pa = pyarrow

    def infer_nested() -> None:
        for name, values in nested_values.items():
            try:
                nested_types.setdefault(name, set()).add(pa.array(values).type)
            except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
                nested_types.setdefault(name, set()).add(None)  # no Arrow type: JSON text
            values.clear()

    with src.open(encoding="utf-8") as f:
        for count, line in enumerate(f, 1):
            for key, value in load_json_line(line)[0].items():
                k = kind(value)
                columns.setdefault(key, set()).add(k)
                if pa is not None and k in ("list", "dict"):
                    nested_values.setdefault(key, []).append(value)
            if pa is not None and count % batch_rows == 0:
                infer_nested()
    if pa is not None:
        infer_nested()
    names = list(columns)

    def text(value: str) -> str:
        # A lone surrogate (from a JSON escape) has no UTF-8 form: written as its escape.
        return value if value.isascii() else value.encode("utf-8", "backslashreplace").decode("utf-8")

    def nested_type(name: str) -> Any:
        """The Arrow type of nested column *name*, or ``None`` (written as JSON text)."""
        scalar = columns[name] - {"NoneType"}
        types = nested_types.get(name, set())
        if pa is None or (not scalar <= {"list"} and not scalar <= {"dict"}) or None in types:
            return None
        known = [t for t in types if not pa.types.is_null(t)]
        if not known:
            return None
        try:
            unified = pa.unify_schemas([pa.schema([("x", t)]) for t in known], promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
            return None
        return unified.field("x").type

    nested = {n: nested_type(n) for n in names if columns[n] & {"list", "dict"}}

    def cell(value: Any, name: str) -> Any:
        if value is None:
            return None
        kinds = columns[name]
        scalar = kinds - {"NoneType"}
        if nested.get(name) is not None:
            return value
        if len(scalar) == 1 and scalar <= {"bool", "int", "float"}:
            return value
        if scalar == {"str"}:
            return text(value)
        if scalar <= {"int", "float"} and scalar:
            return float(value)
        return text(value) if isinstance(value, str) else text(json.dumps(value, ensure_ascii=False))

    def rows() -> Iterator[list[Any]]:
        with src.open(encoding="utf-8") as f:
            for line in f:
                record = load_json_line(line)[0]
                yield [cell(record.get(n), n) for n in names]

    if fmt == "csv":
        import csv

        nested.clear()  # CSV cells are text: lists and objects as JSON
        with (out_dir / "evaluated.csv").open("w", encoding="utf-8", errors="backslashreplace", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(names)
            writer.writerows(rows())
        return
    import pyarrow.parquet as pq

    def arrow_type(name: str) -> Any:
        if nested.get(name) is not None:
            return nested[name]
        scalar = columns[name] - {"NoneType"}
        if scalar == {"bool"}:
            return pa.bool_()
        if scalar == {"int"}:
            return pa.int64()
        if scalar and scalar <= {"int", "float"}:
            return pa.float64()
        return pa.string()

    schema = pa.schema([(n, arrow_type(n)) for n in names])

    def table(batch: list[list[Any]]) -> Any:
        arrays = [pa.array([r[i] for r in batch], type=schema.field(i).type) for i in range(len(names))]
        return pa.Table.from_arrays(arrays, schema=schema)

    with pq.ParquetWriter(out_dir / "evaluated.parquet", schema) as writer:
        batch: list[list[Any]] = []
        for r in rows():
            batch.append(r)
            if len(batch) >= batch_rows:
                writer.write_table(table(batch))
                batch = []
        writer.write_table(table(batch))


@overload
def score_file(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    task: Literal["math"] = "math",
    out: str | os.PathLike[str] = "rapidgrade-out",
    fmt: str = "jsonl",
    resume: bool = False,
    progress: bool = False,
    chunk_size: int = 4096,
    title: str | None = None,
    registry: Registry | None = None,
    **options: Any,
) -> Metrics: ...


@overload
def score_file(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    task: str | Task,
    out: str | os.PathLike[str] = "rapidgrade-out",
    fmt: str = "jsonl",
    resume: bool = False,
    progress: bool = False,
    chunk_size: int = 4096,
    title: str | None = None,
    registry: Registry | None = None,
    **options: Any,
) -> Any: ...


def score_file(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    task: str | Task = "math",
    out: str | os.PathLike[str] = "rapidgrade-out",
    fmt: str = "jsonl",
    resume: bool = False,
    progress: bool = False,
    chunk_size: int = 4096,
    title: str | None = None,
    registry: Registry | None = None,
    **options: Any,
) -> Any:
    """Grade every row of *inputs* (JSONL, JSONL.gz, JSON arrays, CSV or Parquet files; ``"-"``
    reads JSON lines from standard input) with *task* and write the outputs to *out*; returns
    the task's metrics. Every evaluated row gets a ``_source`` field naming its input (a row's
    own ``_source`` and ``_line`` are kept as ``input__source`` and ``input__line``).

    *task* is a task name (``"math"``, the default, or ``"absa"``; see
    :mod:`rapidgrade.tasks`; names are looked up in *registry*) or a task object. *options*
    are the task's own options: for ``math`` ``gold_key``, ``response_key``, ``id_key``,
    ``reference_key``, ``threads``, ``workers``, ``timeout``, ``fallback`` and ``config`` (a
    :class:`rapidgrade.config.GradeConfig`); see :class:`rapidgrade.tasks.math.MathConfig`.
    Without *inputs*, the task's demo set is graded (for ``math``: the bundled demo set,
    compared with its ``qwen_grader`` column).

    For ``math``, a row's response may be a list of samples: each is graded, and pass@k and
    majority-vote accuracy are computed per problem; a gold may be a list of acceptable
    answers (any of them counts); a dotted key (``gold_key="reward_model.ground_truth"``)
    names a nested field; the result is a :class:`~rapidgrade.metrics.Metrics`.

    Raises:
        UsageError: unknown task, input format or option value, no input, an input that is
            one of the outputs (by resolved path: the job would overwrite what it reads),
            inputs holding no rows (raised after reading them), or a missing optional
            dependency (pyarrow for Parquet, checked before any work).
        TypeError: an option the task does not have.
        OSError: an input cannot be read or the output directory cannot be written.
    """
    job_task = resolve_task(task, registry)
    config = job_task.configure(**options)
    if inputs is None:
        demo = job_task.demo(config)
        if demo is None:
            raise UsageError(f"the {job_task.name} task has no demo set: name the input files")
        paths, config = demo
    elif isinstance(inputs, (str, os.PathLike)):
        paths = [Path(inputs)]
    else:
        paths = [Path(p) for p in inputs]
    if not paths:
        raise UsageError("no input files")
    if fmt not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if chunk_size < 1:
        raise UsageError(f"chunk_size must be >= 1, got {chunk_size}")
    if sum(str(p) == STDIN for p in paths) > 1:
        raise UsageError("standard input ('-') can be read only once")
    if resume and any(str(p) == STDIN for p in paths):
        raise UsageError("--resume cannot continue a run that reads standard input ('-')")
    for p in paths:
        if str(p) != STDIN and not p.is_file():
            raise FileNotFoundError(f"input not found: {p}")
    if fmt == "parquet":
        _require_pyarrow("writing Parquet")
    out_dir = Path(out)
    _refuse_overwriting_inputs(paths, out_dir, fmt)
    # Also validates every format (and pyarrow for Parquet) before any work.
    progress_total = sum(count_progress_total(p) for p in paths)
    out_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = "" if any(str(p) == STDIN for p in paths) else _fingerprint(paths, job_task, config)
    evaluated = out_dir / "evaluated.jsonl"
    state_path = out_dir / STATE_FILE

    run = job_task.start(config)
    done_rows = 0
    offset = 0
    elapsed_before = 0.0
    if resume and state_path.exists() and evaluated.exists():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        if state.get("fingerprint") != fingerprint:
            raise UsageError(f"{out_dir} holds a run on other inputs or options; remove it or drop --resume")
        run.restore(state["metrics"])
        done_rows = int(state["rows_done"])
        offset = int(state["offset"])
        elapsed_before = float(state.get("elapsed_s", 0.0))
    elapsed = elapsed_before

    def checkpoint(offset: int, complete: bool) -> str:
        state = {
            "fingerprint": fingerprint,
            "rows_done": done_rows,
            "offset": offset,
            "elapsed_s": elapsed,
            "metrics": run.state(),
            "complete": complete,
        }
        return json.dumps(state)

    options = {"task": job_task.name, **_run_options(config)}
    drilldown = Drilldown(options)
    with evaluated.open("r+b" if offset else "wb") as raw:
        raw.truncate(offset)  # drops a chunk written after the last checkpoint
        raw.seek(offset)
        if offset:
            drilldown.add_file(evaluated)  # the rows graded before the resume
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(
                total=progress_total, unit="B", unit_scale=True, file=sys.stderr, desc="grading", dynamic_ncols=True
            )
        writer = _Writer(raw, out_dir)
        try:
            started = time.perf_counter()
            for chunk in _chunks(paths, done_rows, chunk_size, bar, run.pick if isinstance(run, BlockRun) else None):
                pieces = _grade_chunk(chunk, run, drilldown)
                done_rows += sum(len(block) for block in chunk)
                elapsed = elapsed_before + time.perf_counter() - started
                offset += sum(map(output_size, pieces))
                writer.put(pieces, checkpoint(offset, False))
                if bar is not None:
                    bar.set_postfix_str(run.progress_note(elapsed))
        finally:
            try:
                writer.close()
            finally:
                if bar is not None:
                    bar.close()
    if done_rows == 0:
        names = ", ".join("standard input" if str(p) == STDIN else str(p) for p in paths)
        raise UsageError(f"no rows to grade: {names} holds no rows")
    metrics = run.finish(elapsed)
    metrics_data = metrics.to_dict()
    (out_dir / "metrics.json").write_text(json.dumps(metrics_data, indent=2) + "\n", encoding="utf-8")
    report = render_page(
        run.report_html(metrics),
        title=title or "rapidgrade report",
        inputs=[str(p) for p in paths],
        out_dir=out_dir,
        options=options,
        drilldown=drilldown,
        metrics=metrics_data,  # the drill-down's pass@k chart plots the figures of metrics.json
    )
    # A row id or answer with a lone surrogate (from a JSON escape) has no UTF-8 form.
    (out_dir / "report.html").write_text(report, encoding="utf-8", errors="backslashreplace")
    if fmt != "jsonl":
        _convert_output(out_dir, fmt)
    _write_state(out_dir, checkpoint(evaluated.stat().st_size, True))
    return metrics
