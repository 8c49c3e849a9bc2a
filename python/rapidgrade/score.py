"""The scoring job behind ``rapidgrade score``: stream rows, grade, write results and a report.

Outputs, in the output directory:

* ``evaluated.jsonl`` — every input row, in order, plus ``correct``, ``extracted``,
  ``decided_by``, ``reason`` and ``method`` (lists of those, one per sample, when the row's
  response is a list, plus ``n_correct``, ``majority_answer`` and ``majority_correct``). A row
  that could not be read or graded is still there, with ``decided_by="error"`` and a reason
  naming its line. ``evaluated.csv`` / ``evaluated.parquet`` are written too with
  ``fmt="csv"``/``"parquet"``.
* ``metrics.json`` — :class:`~rapidgrade.metrics.Metrics`.
* ``report.html`` — a self-contained page with the summary, charts and the notable rows.

Work is done in chunks; after each chunk the results are flushed to disk and a checkpoint is
written, so an interrupted job loses nothing and ``resume=True`` continues where it stopped
without grading any row twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rapidgrade._io import FORMATS, InputRow, UsageError, count_progress_total, dump_json_line, iter_rows, load_json_line
from rapidgrade.metrics import Metrics, MetricsAccumulator
from rapidgrade.report import render_report

__all__ = ["DEMO_SET", "UsageError", "demo_set_path", "score_file"]

DEMO_SET = "qwen25_math_cot_800.jsonl"
STATE_FILE = ".rapidgrade-state.json"
RESULT_KEYS = ("correct", "extracted", "decided_by", "reason", "method")


def demo_set_path() -> Path:
    """Path of the bundled demo set (800 real responses to 100 MATH problems)."""
    return Path(str(resources.files("rapidgrade") / "data" / DEMO_SET))


@dataclass(frozen=True)
class _Options:
    gold_key: str
    response_key: str
    id_key: str
    reference_key: str | None
    threads: int | None
    workers: int | None
    timeout: float
    fallback: bool


@dataclass(slots=True)
class _Pending:
    """A row waiting for its verdicts: its samples occupy golds/responses[first:first+count]."""

    row: InputRow
    output: dict[str, Any]
    first: int
    count: int
    is_list: bool
    error: str | None


def _fingerprint(paths: Sequence[Path], options: _Options) -> str:
    h = hashlib.sha256()
    for p in paths:
        st = p.stat()
        h.update(f"{p.resolve()}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    h.update(repr((options.gold_key, options.response_key, options.id_key, options.reference_key, options.timeout, options.fallback)).encode())
    return h.hexdigest()


def _error_output(row: InputRow, reason: str) -> dict[str, Any]:
    if row.data is not None:
        out = dict(row.data)
    else:
        out = {"_source": row.source, "_line": row.line, "_raw": row.raw}
    out.update({"correct": False, "extracted": None, "decided_by": "error", "reason": reason, "method": None})
    return out


def _prepare(row: InputRow, options: _Options, golds: list[str], responses: list[str]) -> _Pending:
    """Validates *row* and queues its samples for grading."""
    if row.error is not None or row.data is None:
        reason = row.error or f"line {row.line}: unreadable row"
        return _Pending(row, _error_output(row, reason), len(golds), 0, False, reason)
    data = row.data
    where = f"line {row.line}"
    for key in (options.gold_key, options.response_key):
        if key not in data:
            reason = f"{where}: missing key {key!r}"
            return _Pending(row, _error_output(row, reason), len(golds), 0, False, reason)
    gold = data[options.gold_key]
    if isinstance(gold, bool) or not isinstance(gold, (str, int, float)):
        reason = f"{where}: gold must be a string or a number, got {type(gold).__name__}"
        return _Pending(row, _error_output(row, reason), len(golds), 0, False, reason)
    response = data[options.response_key]
    samples: list[str]
    is_list = isinstance(response, list)
    if isinstance(response, str):
        samples = [response]
    elif is_list and all(isinstance(r, str) for r in response):
        samples = list(response)
    else:
        kind = "a list with non-string items" if is_list else type(response).__name__
        reason = f"{where}: response must be a string or a list of strings, got {kind}"
        return _Pending(row, _error_output(row, reason), len(golds), 0, False, reason)
    first = len(golds)
    golds.extend([str(gold)] * len(samples))
    responses.extend(samples)
    return _Pending(row, dict(data), first, len(samples), is_list, None)


def _answer_key(extracted: str | None) -> str | None:
    """The key answers are grouped by in the majority vote: the normalized answer."""
    if extracted is None:
        return None
    from rapidgrade import normalize_latex

    return str(normalize_latex(extracted))


def _finish_row(pending: _Pending, verdicts: Sequence[Mapping[str, Any]]) -> tuple[dict[str, Any], bool | None]:
    out = pending.output
    if pending.error is not None:
        return out, None
    for key in RESULT_KEYS:
        if key in out and not pending.is_list:
            out[f"input_{key}"] = out.pop(key)
    if not pending.is_list:
        for key in RESULT_KEYS:
            out[key] = verdicts[0][key]
        return out, None
    for key in RESULT_KEYS:
        if key in out:
            out[f"input_{key}"] = out.pop(key)
        out[key] = [v[key] for v in verdicts]
    out["n_correct"] = sum(1 for v in verdicts if v["correct"])
    votes: dict[str, list[int]] = {}
    for i, v in enumerate(verdicts):
        answer = _answer_key(v["extracted"])
        if answer is not None:
            votes.setdefault(answer, []).append(i)
    majority_correct: bool | None = None
    out["majority_answer"] = None
    if votes:
        winner = max(votes.values(), key=len)  # the first answer to reach the top count wins ties
        out["majority_answer"] = verdicts[winner[0]]["extracted"]
        majority_correct = bool(verdicts[winner[0]]["correct"])
    out["majority_correct"] = bool(majority_correct)
    return out, bool(majority_correct)


def _row_label(pending: _Pending, id_key: str) -> str:
    data = pending.row.data
    if data is not None and id_key in data and data[id_key] is not None:
        return str(data[id_key])
    return f"{Path(pending.row.source).name}:{pending.row.line}"


def _grade_chunk(chunk: list[InputRow], options: _Options, acc: MetricsAccumulator) -> bytes:
    """Grades *chunk*, counts it into *acc* and returns its evaluated.jsonl lines."""
    from rapidgrade import grade_many

    golds: list[str] = []
    responses: list[str] = []
    pending = [_prepare(row, options, golds, responses) for row in chunk]
    verdicts: list[dict[str, Any]] = []
    if golds:
        results = grade_many(golds, responses, threads=options.threads, workers=options.workers, timeout=options.timeout, fallback=options.fallback)
        verdicts = [
            {"correct": c, "extracted": e, "decided_by": d, "reason": r, "method": m, "gold": g}
            for c, e, d, r, m, g in zip(
                results.correct.tolist(), results.extracted, results.decided_by.tolist(), results.reason, results.method, results.gold
            )
        ]
    lines = []
    for p in pending:
        mine = verdicts[p.first : p.first + p.count]
        row_out, majority = _finish_row(p, mine)
        reference = None
        if options.reference_key and p.row.data is not None and not p.is_list and p.error is None:
            ref = p.row.data.get(options.reference_key)
            if isinstance(ref, bool):
                reference = ref
        if p.error is not None:
            mine = [row_out]
        acc.add_row(p.row.data, mine, is_list=p.is_list, input_error=p.error is not None, majority_correct=majority, reference=reference, label=_row_label(p, options.id_key))
        lines.append(dump_json_line(row_out, p.row.lenient))
    lines.append(b"")
    return b"\n".join(lines)


def _chunks(paths: Sequence[Path], skip: int, chunk_size: int, progress: Any) -> Iterator[list[InputRow]]:
    """Rows of all inputs in chunks, skipping the first *skip* rows (already graded)."""
    chunk: list[InputRow] = []
    seen = 0
    for path in paths:
        last_position = 0
        for row in iter_rows(path):
            if progress is not None:
                progress.update(row.position - last_position)
                last_position = row.position
            seen += 1
            if seen <= skip:
                continue
            chunk.append(row)
            if len(chunk) >= chunk_size:
                yield chunk
                chunk = []
    if chunk:
        yield chunk


def _write_state(out_dir: Path, state: Mapping[str, Any]) -> None:
    tmp = out_dir / (STATE_FILE + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, out_dir / STATE_FILE)


def _convert_output(out_dir: Path, fmt: str) -> None:
    """Writes evaluated.csv / evaluated.parquet from evaluated.jsonl, streaming, with a schema
    taken from a first pass over the file (each column's type is the same in every row)."""
    src = out_dir / "evaluated.jsonl"
    columns: dict[str, set[str]] = {}

    def kind(value: Any) -> str:
        # An integer beyond 64 bits fits no numeric column: such a column is written as text.
        if type(value) is int and not -(2**63) <= value < 2**63:
            return "bigint"
        return type(value).__name__

    with src.open(encoding="utf-8") as f:
        for line in f:
            for key, value in load_json_line(line)[0].items():
                columns.setdefault(key, set()).add(kind(value))
    names = list(columns)

    def text(value: str) -> str:
        # A lone surrogate (from a JSON escape) has no UTF-8 form: written as its escape.
        return value if value.isascii() else value.encode("utf-8", "backslashreplace").decode("utf-8")

    def cell(value: Any, kinds: set[str]) -> Any:
        if value is None:
            return None
        scalar = kinds - {"NoneType"}
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
                yield [cell(record.get(n), columns[n]) for n in names]

    if fmt == "csv":
        import csv

        with (out_dir / "evaluated.csv").open("w", encoding="utf-8", errors="backslashreplace", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(names)
            writer.writerows(rows())
        return
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise UsageError("writing Parquet needs pyarrow: pip install 'rapidgrade[parquet]'") from exc

    def arrow_type(kinds: set[str]) -> Any:
        scalar = kinds - {"NoneType"}
        if scalar == {"bool"}:
            return pa.bool_()
        if scalar == {"int"}:
            return pa.int64()
        if scalar and scalar <= {"int", "float"}:
            return pa.float64()
        return pa.string()

    schema = pa.schema([(n, arrow_type(columns[n])) for n in names])

    def table(batch: list[list[Any]]) -> Any:
        arrays = [pa.array([r[i] for r in batch], type=schema.field(i).type) for i in range(len(names))]
        return pa.Table.from_arrays(arrays, schema=schema)

    with pq.ParquetWriter(out_dir / "evaluated.parquet", schema) as writer:
        batch: list[list[Any]] = []
        for r in rows():
            batch.append(r)
            if len(batch) >= 65536:
                writer.write_table(table(batch))
                batch = []
        writer.write_table(table(batch))


def score_file(
    inputs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    *,
    gold_key: str = "gold",
    response_key: str = "response",
    id_key: str = "id",
    reference_key: str | None = None,
    out: str | os.PathLike[str] = "rapidgrade-out",
    threads: int | None = None,
    workers: int | None = None,
    timeout: float = 5.0,
    fallback: bool = True,
    fmt: str = "jsonl",
    resume: bool = False,
    progress: bool = False,
    chunk_size: int = 4096,
    title: str | None = None,
) -> Metrics:
    """Grade every row of *inputs* (JSONL, JSONL.gz, CSV or Parquet files; default: the bundled
    demo set, compared with its ``qwen_grader`` column) and write the outputs to *out*.

    A row's response may be a list of samples: each is graded, and pass@k and majority-vote
    accuracy are computed per problem. Returns the :class:`~rapidgrade.metrics.Metrics`.

    Raises:
        UsageError: unknown input format, bad option, or a missing optional dependency.
        OSError: an input cannot be read or the output directory cannot be written.
    """
    if inputs is None:
        paths = [demo_set_path()]
        if reference_key is None:
            reference_key = "qwen_grader"
    elif isinstance(inputs, (str, os.PathLike)):
        paths = [Path(inputs)]
    else:
        paths = [Path(p) for p in inputs]
    if not paths:
        raise UsageError("no input files")
    if fmt not in FORMATS:
        raise UsageError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if timeout <= 0:
        raise UsageError(f"timeout must be > 0, got {timeout}")
    if chunk_size < 1:
        raise UsageError(f"chunk_size must be >= 1, got {chunk_size}")
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"input not found: {p}")
    # Also validates every format (and pyarrow for Parquet) before any work.
    progress_total = sum(count_progress_total(p) for p in paths)
    options = _Options(gold_key, response_key, id_key, reference_key, threads, workers, timeout, fallback)
    out_dir = Path(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    fingerprint = _fingerprint(paths, options)
    evaluated = out_dir / "evaluated.jsonl"
    state_path = out_dir / STATE_FILE

    acc = MetricsAccumulator()
    done_rows = 0
    offset = 0
    if resume and state_path.exists() and evaluated.exists():
        state = json.loads(state_path.read_text(encoding="utf-8"))
        if state.get("fingerprint") != fingerprint:
            raise UsageError(f"{out_dir} holds a run on other inputs or options; remove it or drop --resume")
        acc = MetricsAccumulator.from_state(state["metrics"])
        done_rows = int(state["rows_done"])
        offset = int(state["offset"])
    with evaluated.open("r+b" if offset else "wb") as raw:
        raw.truncate(offset)  # drops a chunk written after the last checkpoint
        raw.seek(offset)
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=progress_total, unit="B", unit_scale=True, file=sys.stderr, desc="grading", dynamic_ncols=True)
        try:
            started = time.perf_counter()
            elapsed_before = acc.elapsed_s
            for chunk in _chunks(paths, done_rows, chunk_size, bar):
                raw.write(_grade_chunk(chunk, options, acc))
                raw.flush()
                os.fsync(raw.fileno())
                done_rows += len(chunk)
                acc.elapsed_s = elapsed_before + time.perf_counter() - started
                _write_state(out_dir, {"fingerprint": fingerprint, "rows_done": done_rows, "offset": raw.tell(), "metrics": acc.state(), "complete": False})
                if bar is not None:
                    bar.set_postfix(pairs_per_s=f"{acc.total / acc.elapsed_s:,.0f}" if acc.elapsed_s else "-")
        finally:
            if bar is not None:
                bar.close()
    metrics = acc.finish()
    (out_dir / "metrics.json").write_text(json.dumps(metrics.to_dict(), indent=2) + "\n", encoding="utf-8")
    report = render_report(metrics, acc.notable, title=title or "rapidgrade report", inputs=[str(p) for p in paths])
    # A row id or answer with a lone surrogate (from a JSON escape) has no UTF-8 form.
    (out_dir / "report.html").write_text(report, encoding="utf-8", errors="backslashreplace")
    if fmt != "jsonl":
        _convert_output(out_dir, fmt)
    _write_state(out_dir, {"fingerprint": fingerprint, "rows_done": done_rows, "offset": evaluated.stat().st_size, "metrics": acc.state(), "complete": True})
    return metrics

