"""Readers of the scoring job's inputs (JSONL, JSONL.gz, JSON arrays, CSV, Parquet).

Every reader yields :class:`InputRow` records one at a time; JSONL, CSV and Parquet are
streamed, so memory stays flat whatever the size of the input. A ``.json`` file whose first
character (after whitespace) is ``[`` is one JSON array of row objects, read whole; any other
``.json`` file is read as JSONL. A row that cannot be read (invalid JSON, not an object) is still yielded,
with ``error`` set and the raw text kept, so that no input row is ever lost.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

__all__ = ["InputRow", "UsageError", "detect_format", "dump_json_line", "iter_rows", "load_json_line"]

FORMATS = ("jsonl", "csv", "parquet")


class UsageError(ValueError):
    """The job cannot start: unknown input format, missing optional dependency, bad option."""


@dataclass(frozen=True, slots=True)
class InputRow:
    """One input row. ``line`` is the 1-based line (JSONL, CSV) or row number (Parquet)."""

    source: str
    line: int
    data: dict[str, Any] | None
    error: str | None = None
    raw: str | None = None
    position: int = 0  # bytes of the (compressed) file consumed so far, for progress
    # Read by the standard library's JSON parser (see load_json_line): write it back with the
    # standard library's writer, so that what only it reads (NaN, huge integers, lone
    # surrogates) survives the round trip.
    lenient: bool = False


# orjson reads an integer beyond 64 bits as a float; every such float is at least 2**63 in size.
_HUGE = 2.0**63


def _may_hold_huge_integer(value: Any) -> bool:
    """Whether a value orjson read holds a float of magnitude >= 2**63 (possibly an integer
    orjson could not read exactly). Iterative: any nesting depth."""
    stack = [value]
    while stack:
        v = stack.pop()
        t = type(v)
        if t is dict:
            stack.extend(v.values())
        elif t is list:
            stack.extend(v)
        elif t is float and not -_HUGE < v < _HUGE:
            return True
    return False


def load_json_line(line: str) -> tuple[Any, bool]:
    """The JSON value of *line* and whether the lenient (standard library) parser read it.

    orjson reads standard JSON several times faster than the standard library; the rest (NaN
    and Infinity, integers beyond 64 bits, escaped lone surrogates) is read by ``json.loads``,
    whose ``JSONDecodeError`` (with its message and column) is raised for invalid JSON.
    """
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return json.loads(line), True
    if _may_hold_huge_integer(value):
        return json.loads(line), True
    return value, False


def dump_json_line(value: Any, lenient: bool = False) -> bytes:
    """*value* as one line of UTF-8 JSON (without the newline); objects JSON has no type for
    are written as their ``str``. Values read leniently, and those orjson cannot write (integers
    beyond 64 bits, strings with lone surrogates), are written by the standard library, lone
    surrogates as ``\\u`` escapes. NaN floats from Parquet inputs are written as ``null``."""
    if not lenient:
        try:
            return orjson.dumps(value, default=str)
        except TypeError:
            pass
    try:
        return json.dumps(value, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates have no UTF-8 form: escape them
        return json.dumps(value, ensure_ascii=True, default=str).encode("ascii")


def detect_format(path: Path) -> str:
    """``"jsonl"``, ``"csv"`` or ``"parquet"`` from the file name (a ``.gz`` suffix is allowed
    for JSONL and CSV)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if last == ".csv":
        return "csv"
    if last in (".parquet", ".pq"):
        if path.suffix.lower() == ".gz":
            raise UsageError(f"{path}: gzip-compressed Parquet is not supported (Parquet compresses itself)")
        return "parquet"
    raise UsageError(f"{path}: unknown input format (expected .jsonl, .jsonl.gz, .csv, .csv.gz or .parquet)")


def _is_json_suffix(path: Path) -> bool:
    suffixes = [x.lower() for x in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return bool(suffixes) and suffixes[-1] == ".json"


def _open_text(path: Path) -> tuple[IO[str], IO[bytes]]:
    # utf-8-sig: a byte order mark at the start (as spreadsheet programs write) is not part of the
    # first field name or the first JSON line.
    raw = path.open("rb")
    if path.suffix.lower() == ".gz":
        return io.TextIOWrapper(gzip.GzipFile(fileobj=raw), encoding="utf-8-sig", errors="replace", newline=""), raw
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="replace", newline=""), raw


# What reading a damaged file raises part-way: a truncated or corrupt gzip stream (EOFError,
# gzip.BadGzipFile, zlib.error), an I/O error, or a CSV the csv module cannot read.
_DAMAGE = (EOFError, OSError, zlib.error, csv.Error)


def _damaged(source: str, line: int, exc: BaseException, position: int) -> InputRow:
    """The one error row that stands for the unreadable rest of a damaged file."""
    return InputRow(source, line, None, f"line {line}: the file is damaged from here on ({exc})", None, position)


def _iter_jsonl(path: Path) -> Iterator[InputRow]:
    text, raw = _open_text(path)
    source = str(path)
    with text:
        lines = enumerate(text, 1)
        number = 0
        while True:
            try:
                number, line = next(lines)
            except StopIteration:
                return
            except _DAMAGE as exc:
                yield _damaged(source, number + 1, exc, raw.tell())
                return
            if not line or line.isspace():
                continue
            try:
                # JSON allows whitespace around the value: the line is parsed as read (no copy).
                value, lenient = load_json_line(line)
            except json.JSONDecodeError as exc:
                stripped = line.strip()
                column = exc.colno - (len(line) - len(line.lstrip())) if exc.lineno == 1 else exc.colno
                yield InputRow(
                    source,
                    number,
                    None,
                    f"line {number}: invalid JSON ({exc.msg} at column {column})",
                    stripped,
                    raw.tell(),
                )
                continue
            except RecursionError:
                yield InputRow(
                    source, number, None, f"line {number}: invalid JSON (nested too deeply)", line.strip(), raw.tell()
                )
                continue
            if not isinstance(value, dict):
                yield InputRow(
                    source,
                    number,
                    None,
                    f"line {number}: expected a JSON object, got {type(value).__name__}",
                    line.strip(),
                    raw.tell(),
                )
                continue
            yield InputRow(source, number, value, position=raw.tell(), lenient=lenient)


def _first_char(path: Path) -> str:
    """The first non-whitespace character of the (possibly gzipped) text file *path*."""
    text, _ = _open_text(path)
    with text:
        while True:
            chunk = text.read(4096)
            if not chunk:
                return ""
            stripped = chunk.lstrip()
            if stripped:
                return stripped[0]


def _iter_json_array(path: Path) -> Iterator[InputRow]:
    """Rows of a file holding one JSON array of objects; ``line`` is the item's 1-based index."""
    text, raw = _open_text(path)
    source = str(path)
    with text:
        try:
            content = text.read()
        except _DAMAGE as exc:
            yield InputRow(source, 1, None, f"the file is damaged ({exc})", None, raw.tell())
            return
        position = raw.tell()
    try:
        value, lenient = load_json_line(content)
    except json.JSONDecodeError as exc:
        yield InputRow(
            source, 1, None, f"invalid JSON array ({exc.msg} at line {exc.lineno} column {exc.colno})", None, position
        )
        return
    except RecursionError:
        yield InputRow(source, 1, None, "invalid JSON array (nested too deeply)", None, position)
        return
    if not isinstance(value, list):
        yield InputRow(source, 1, None, f"expected a JSON array of objects, got {type(value).__name__}", None, position)
        return
    for number, item in enumerate(value, 1):
        if not isinstance(item, dict):
            yield InputRow(
                source,
                number,
                None,
                f"item {number}: expected a JSON object, got {type(item).__name__}",
                dump_json_line(item, lenient).decode("utf-8", "backslashreplace"),
                position,
                lenient,
            )
            continue
        yield InputRow(source, number, item, position=position, lenient=lenient)


def _iter_csv(path: Path) -> Iterator[InputRow]:
    text, raw = _open_text(path)
    source = str(path)
    with text:
        reader = csv.DictReader(text)
        records = iter(reader)
        while True:
            try:
                record = next(records)
            except StopIteration:
                return
            except _DAMAGE as exc:
                yield _damaged(source, reader.line_num + 1, exc, raw.tell())
                return
            number = reader.line_num
            if None in record:  # more fields than the header names
                extra = record.pop(None)
                yield InputRow(
                    source,
                    number,
                    None,
                    f"line {number}: {len(extra)} more field(s) than the header",
                    json.dumps(record | {"_extra": extra}),
                    raw.tell(),
                )
                continue
            yield InputRow(source, number, dict(record), position=raw.tell())


def _iter_parquet(path: Path, batch_size: int) -> Iterator[InputRow]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise UsageError("reading Parquet needs pyarrow: pip install 'rapidgrade[parquet]'") from exc
    source = str(path)
    parquet = _open_parquet(pq, path)
    number = 0
    batches = parquet.iter_batches(batch_size=batch_size)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except (OSError, ValueError) as exc:  # pyarrow.ArrowInvalid is a ValueError
            yield InputRow(source, number + 1, None, f"row {number + 1}: the file is damaged from here on ({exc})")
            return
        for record in batch.to_pylist():
            number += 1
            yield InputRow(source, number, record, position=number)


def _open_parquet(pq: Any, path: Path) -> Any:
    """``pq.ParquetFile(path)``; a file that is not Parquet is a :class:`UsageError`, not a traceback."""
    try:
        return pq.ParquetFile(path)
    except (OSError, ValueError) as exc:  # pyarrow.ArrowInvalid is a ValueError
        raise UsageError(f"{path}: not a readable Parquet file ({exc})") from exc


def iter_rows(path: Path, *, batch_size: int = 4096) -> Iterator[InputRow]:
    """Rows of *path*, streamed. Raises :class:`UsageError` for an unknown format and
    ``OSError`` when the file cannot be opened."""
    fmt = detect_format(path)
    if fmt == "jsonl":
        if _is_json_suffix(path) and _first_char(path) == "[":
            return _iter_json_array(path)
        return _iter_jsonl(path)
    if fmt == "csv":
        return _iter_csv(path)
    return _iter_parquet(path, batch_size)


def count_progress_total(path: Path) -> int:
    """The progress-bar total for *path*: its size in bytes, or its row count for Parquet."""
    if detect_format(path) == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise UsageError("reading Parquet needs pyarrow: pip install 'rapidgrade[parquet]'") from exc
        return int(_open_parquet(pq, path).metadata.num_rows)
    return path.stat().st_size
