"""Readers of the scoring job's inputs (JSONL, JSONL.gz, JSON arrays, CSV, Parquet).

Every reader yields :class:`InputRow` records one at a time, and :func:`iter_blocks` yields
them in blocks (:class:`RowBlock`, columns of rows read together: the scoring job's hot path,
where JSON lines are read as bytes and parsed by orjson, a row's text kept so that it can be
written back without being serialized again); JSONL, CSV and Parquet are streamed, so memory
stays flat whatever the size of the input. A ``.json`` file whose first character (after
whitespace) is ``[`` is one JSON array of row objects, read whole; any other ``.json`` file is
read as JSONL. Standard input (``-``) is read as JSON lines. A row that cannot be read (invalid
JSON, not an object) is still yielded, with ``error`` set and the raw text kept, so that no
input row is ever lost; what such a row echoes of its text is capped (:func:`echo`).

A JSON line ends only at ``\n`` (a carriage return inside it is not a line break).

The job's provenance fields, ``_source`` (the input) and ``_line`` (the line of a row that could
not be read), are the job's: a row's own fields of those names are kept as ``input__source``
and ``input__line`` (:data:`PROVENANCE`).
"""

from __future__ import annotations

import csv
import gzip
import io
import itertools
import json
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast, overload

import orjson

__all__ = [
    "STDIN",
    "InputRow",
    "JoinedLines",
    "Pick",
    "RowBlock",
    "UsageError",
    "detect_format",
    "dump_json_line",
    "iter_blocks",
    "iter_rows",
    "load_json_line",
]

#: The input name that reads standard input (JSON lines).
STDIN = "-"

FORMATS = ("jsonl", "csv", "parquet")


#: The fields the job writes about where a row came from, and what a row's own fields of those
#: names are renamed to (as the tasks keep a row's own result fields as ``input_<name>``).
PROVENANCE = ("_source", "_line")
_PROVENANCE_RENAMED = {name: f"input_{name}" for name in PROVENANCE}

#: Characters of an unreadable row's text its error row echoes (``_raw``).
ECHO_CHARS = 1000


def echo(text: str) -> str:
    """What an error row echoes of an unreadable row's *text*: all of it when short, else its
    first :data:`ECHO_CHARS` characters and its length.

    >>> echo("x" * 1005)[-40:]
    'xxxxxxxxxxxxx… [1,005 characters in all]'
    """
    if len(text) <= ECHO_CHARS:
        return text
    return f"{text[:ECHO_CHARS]}… [{len(text):,} characters in all]"


def _echo_line(line: str) -> str:
    """:func:`echo` of a line with the whitespace around it left out, without copying the
    whole line (its length counts the characters between that whitespace)."""
    start, end = 0, len(line)
    while start < end and line[start] in " \t\r\n":
        start += 1
    while end > start and line[end - 1] in " \t\r\n":
        end -= 1
    if end - start <= ECHO_CHARS:
        return line[start:end]
    return f"{line[start : start + ECHO_CHARS]}… [{end - start:,} characters in all]"


def _echo_bytes(line: bytes) -> str:
    """:func:`echo` of a line given as bytes, decoding only what is echoed (whitespace around
    the line left out), never a copy of the whole line."""
    start, end = 0, len(line)
    while start < end and line[start] in b" \t\r\n":
        start += 1
    while end > start and line[end - 1] in b" \t\r\n":
        end -= 1
    if end - start <= ECHO_CHARS:
        return line[start:end].decode("utf-8", "replace")
    head = line[start : start + 4 * ECHO_CHARS].decode("utf-8", "replace")[:ECHO_CHARS]
    return f"{head}… [{end - start:,} bytes in all]"


def own_provenance(data: dict[str, Any]) -> dict[str, Any]:
    """*data* with its own ``_source`` / ``_line`` fields renamed ``input__source`` /
    ``input__line`` (*data* itself when it has neither), so that the job's provenance fields
    cannot be spoofed by a row."""
    if "_source" not in data and "_line" not in data:
        return data
    return {_PROVENANCE_RENAMED.get(k, k): v for k, v in data.items()}


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


class JoinedLines(Sequence[bytes]):
    """Evaluated lines held in one buffer, as the scoring job writes them: *data* holds every
    line followed by a newline, and ``self[k]`` is line *k* without it (sliced when asked for).
    *ends* holds the native uint64 offset after each line's newline (``_core.jsonl_splice_joined``
    returns both), so that a block's lines reach the output in one write, without a bytes
    object per line."""

    __slots__ = ("_ends", "data")

    def __init__(self, data: bytes, ends: bytes) -> None:
        self.data = data
        self._ends = memoryview(ends).cast("Q")
        if len(self._ends) and self._ends[-1] != len(data):
            raise ValueError("JoinedLines: the last end must be the size of data")

    def __len__(self) -> int:
        return len(self._ends)

    @overload
    def __getitem__(self, k: int) -> bytes: ...
    @overload
    def __getitem__(self, k: slice) -> list[bytes]: ...
    def __getitem__(self, k: int | slice) -> bytes | list[bytes]:
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        n = len(self._ends)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("JoinedLines index out of range")
        return self.data[self._ends[k - 1] if k else 0 : self._ends[k] - 1]

    def __reduce__(self) -> tuple[type[JoinedLines], tuple[bytes, bytes]]:
        return JoinedLines, (self.data, self._ends.tobytes())


def output_size(lines: Sequence[bytes]) -> int:
    """The bytes *lines* (evaluated lines) take in evaluated.jsonl, a newline after each."""
    if isinstance(lines, JoinedLines):
        return len(lines.data)
    return sum(map(len, lines)) + len(lines)


def output_bytes(lines: Sequence[bytes]) -> bytes:
    """*lines* as evaluated.jsonl holds them: each followed by a newline."""
    if isinstance(lines, JoinedLines):
        return lines.data
    return b"\n".join([*lines, b""])


@dataclass(frozen=True, slots=True)
class Pick:
    """What a task reads of each JSON line on the scoring job's hot path: the values of the
    top-level *keys*, without building the rest of the row (see :func:`iter_blocks`). A line
    holding any of the *reserved* keys is read whole."""

    keys: tuple[str, ...]
    reserved: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RowBlock:
    """Rows read together, as columns: ``lines[i]`` and ``data[i]`` are row *i*'s line (or row
    number) and object. ``text[i]`` is the row's JSON object as read (whitespace around it
    included), when orjson reads it exactly (so that it can be written back as it is), else
    ``None``. ``special`` holds, by index, the rows that could not be read or were read by the
    standard library's parser (as :class:`InputRow`, ``error`` or ``lenient`` set).
    ``position``: bytes of the input (or Parquet rows) consumed after this block, for progress.

    A block read with a :class:`Pick` has ``values[k][i]``, the value of the pick's key *k* in
    row *i* (``None`` when absent), for the rows with ``picked[i]`` true: their ``data[i]`` is
    ``None`` until read (:meth:`row` reads it). Without a pick, ``picked`` and ``values`` are
    empty."""

    source: str
    lines: list[int]
    data: list[dict[str, Any] | None]
    text: list[bytes | None]
    special: dict[int, InputRow]
    position: int = 0
    picked: list[bool] = field(default_factory=list)
    values: tuple[list[Any], ...] = ()

    def __len__(self) -> int:
        return len(self.lines)

    def is_picked(self, i: int) -> bool:
        """Whether row *i* was read only for the pick's values (its object not built yet)."""
        return bool(self.picked) and self.picked[i]

    def row(self, i: int) -> InputRow:
        """Row *i* as an :class:`InputRow`."""
        special = self.special.get(i)
        if special is not None:
            return special
        data = self.data[i]
        if data is None and self.is_picked(i):
            data = self.data[i] = orjson.loads(cast(bytes, self.text[i]))
        return InputRow(self.source, self.lines[i], data, position=self.position)

    def rows(self) -> list[InputRow]:
        """Every row as an :class:`InputRow`."""
        return [self.row(i) for i in range(len(self.lines))]

    def _slice(self, start: int, stop: int | None, special: dict[int, InputRow]) -> RowBlock:
        part = slice(start, stop)
        return RowBlock(
            self.source,
            self.lines[part],
            self.data[part],
            self.text[part],
            special,
            self.position,
            self.picked[part],
            tuple(column[part] for column in self.values),
        )

    def head(self, stop: int) -> RowBlock:
        """The rows before index *stop*."""
        return self._slice(0, stop, {i: r for i, r in self.special.items() if i < stop})

    def tail(self, start: int) -> RowBlock:
        """The rows from index *start* on."""
        return self._slice(start, None, {i - start: r for i, r in self.special.items() if i >= start})

    @classmethod
    def of_rows(cls, source: str, rows: list[InputRow]) -> RowBlock:
        """A block of *rows* (none with text to write back as it is)."""
        return cls(
            source,
            [r.line for r in rows],
            [r.data for r in rows],
            [None] * len(rows),
            {i: r for i, r in enumerate(rows) if r.error is not None or r.lenient},
            rows[-1].position if rows else 0,
        )


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
    # The caller closes both: closing the text closes a plain file, but a GzipFile given a file
    # object leaves it open.
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


def _jsonl_row(source: str, number: int, line: str, position: int) -> InputRow | None:
    """The row of JSON line *line* (``None`` for a blank line), read by :func:`load_json_line`:
    an error row when it is not a JSON object."""
    if not line or line.isspace():
        return None
    try:
        # JSON allows whitespace around the value: the line is parsed as read (no copy).
        value, lenient = load_json_line(line)
    except json.JSONDecodeError as exc:
        column = exc.colno - (len(line) - len(line.lstrip())) if exc.lineno == 1 else exc.colno
        return InputRow(
            source,
            number,
            None,
            f"line {number}: invalid JSON ({exc.msg} at column {column})",
            _echo_line(line),
            position,
        )
    except RecursionError:
        reason = f"line {number}: invalid JSON (nested too deeply)"
        return InputRow(source, number, None, reason, _echo_line(line), position)
    if not isinstance(value, dict):
        return InputRow(
            source,
            number,
            None,
            f"line {number}: expected a JSON object, got {type(value).__name__}",
            _echo_line(line),
            position,
        )
    return InputRow(source, number, own_provenance(value), position=position, lenient=lenient)


def _iter_jsonl(path: Path) -> Iterator[InputRow]:
    for block in _iter_jsonl_blocks(path, 4096):
        yield from block.rows()


_BOM = b"\xef\xbb\xbf"
_LINE_BYTES = 1 << 20  # bytes read at once (whole lines)
_PLAIN = frozenset((str, int, bool, type(None)))
#: A line orjson cannot read and longer than this is an error row at once: it is not decoded
#: and read again by the standard library's parser (what only that parser reads, NaN or huge
#: integers, is not worth a copy of a line this long).
_LENIENT_BYTES = 1 << 26


def _open_binary(path: Path | str) -> tuple[IO[bytes], IO[bytes]]:
    """The (decompressed) byte stream of *path* and the raw file (for its position); standard
    input for :data:`STDIN`."""
    if str(path) == STDIN:
        stdin = sys.stdin.buffer
        return stdin, stdin
    raw = Path(path).open("rb")  # noqa: SIM115 (closed by the reader)
    if Path(path).suffix.lower() == ".gz":
        stream = cast(IO[bytes], gzip.GzipFile(fileobj=raw))
        return stream, raw
    return raw, raw


def _iter_jsonl_blocks(path: Path | str, block_rows: int, pick: Pick | None = None) -> Iterator[RowBlock]:
    """Blocks of *block_rows* rows (fewer at the end) of the JSON lines of *path*.

    Each line is read as bytes and parsed by orjson; a line orjson cannot read exactly (invalid
    JSON or UTF-8, NaN, integers beyond 64 bits, lone surrogates, a lone carriage return) takes
    the text path of :func:`_jsonl_row` (decoded with replacement characters, read by the
    standard library's parser), which keeps today's rows and reasons.

    With a *pick*, the core reads the lines first (``_core.jsonl_pick``): a line it picks (an
    object orjson reads exactly, as the core checks) gives only the pick's values, its object
    built later if asked for (:meth:`RowBlock.row`); the other lines are read as above."""
    from rapidgrade import _core

    stream, raw = _open_binary(path)
    source = "<stdin>" if str(path) == STDIN else str(path)
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    number = 0
    first = True
    n_keys = len(pick.keys) if pick is not None else 0
    if pick is not None:  # a line with a provenance field is read whole, its own fields renamed
        pick = Pick(pick.keys, (*pick.reserved, *(k for k in PROVENANCE if k not in pick.reserved)))
    lines_: list[int] = []
    data: list[dict[str, Any] | None] = []
    text: list[bytes | None] = []
    special: dict[int, InputRow] = {}
    picked: list[bool] = []
    values: tuple[list[Any], ...] = tuple([] for _ in range(n_keys))

    def position() -> int:
        try:
            return raw.tell()
        except OSError:  # a pipe
            return 0

    def block() -> RowBlock:
        return RowBlock(source, lines_, data, text, special, position(), picked, values)

    def add_row(number: int, value: dict[str, Any] | None, line: bytes | None, row: InputRow | None = None) -> None:
        """Appends a row read whole (not picked); *row* for a row read apart (``special``)."""
        if row is not None:
            special[len(lines_)] = row
        lines_.append(number)
        data.append(value)
        text.append(line)
        if n_keys:
            picked.append(False)
            for column in values:
                column.append(None)

    def read_line(line: bytes) -> None:
        nonlocal number
        number += 1
        problem = None
        try:
            value = loads(line)
        except decode_error as exc:
            value, problem = None, exc
        if type(value) is dict and (_PLAIN.issuperset(map(type, value.values())) or not _may_hold_huge_integer(value)):
            if "_source" in value or "_line" in value:
                add_row(number, own_provenance(value), None)  # rebuilt: its own fields renamed
            elif b"\r" in line and b"\r" in line.rstrip(b"\r\n"):
                # A carriage return between its tokens: the row is written back rebuilt, so that
                # no reader that also breaks lines at \r splits evaluated.jsonl.
                add_row(number, value, None)
            else:
                add_row(number, value, line)
            return
        if problem is None and type(value) is not dict and not line.isspace() and line:
            reason = f"line {number}: expected a JSON object, got {type(value).__name__}"
            add_row(number, None, None, InputRow(source, number, None, reason, _echo_bytes(line), position()))
            return
        if problem is not None and len(line) > _LENIENT_BYTES:
            reason = f"line {number}: invalid JSON ({problem})"
            add_row(number, None, None, InputRow(source, number, None, reason, _echo_bytes(line), position()))
            return
        # A line ends only at \n: a carriage return inside it is whitespace, or invalid JSON
        # inside a string, never a second row.
        row = _jsonl_row(source, number, line.decode("utf-8", "replace").rstrip("\r\n"), position())
        if row is not None:
            add_row(number, row.data, None, row)

    pending: list[bytes] = []  # read bytes of a line whose end is not read yet (block reads)
    blocks = pick is not None and stream is raw
    try:
        damage: BaseException | None = None
        while damage is None:
            chunk: list[bytes] = []
            status: bytes = b""
            columns: list[list[Any]] = []
            try:
                if blocks:
                    assert pick is not None
                    # A block of the file up to its last newline, read by the core, which also
                    # hands back its lines: no bytes object per line is built here.
                    read = stream.read(_LINE_BYTES)
                    if read:
                        cut = read.rfind(b"\n") + 1
                        if cut == 0:  # a line longer than a block: its parts wait for its end
                            pending.append(read)
                            continue
                        piece = b"".join((*pending, read)) if pending else read
                        stop = len(piece) - (len(read) - cut)
                        pending = [read[cut:]] if cut < len(read) else []
                    else:  # the end: the last line, with or without its newline
                        piece = b"".join(pending)
                        pending = []
                        stop = len(piece)
                    if first and piece:
                        first = False
                        if piece.startswith(_BOM):
                            piece, stop = piece[3:], stop - 3
                    if stop > 0:
                        status, columns, chunk = _core.jsonl_pick_block(piece, pick.keys, pick.reserved, stop=stop)
                    elif read:
                        continue
                elif stream is raw:
                    chunk = stream.readlines(_LINE_BYTES)
                else:
                    # Line by line, so that the lines before a damaged part of a compressed
                    # stream are kept.
                    size = 0
                    while size < _LINE_BYTES:
                        line = stream.readline()
                        if not line:
                            break
                        chunk.append(line)
                        size += len(line)
            except _DAMAGE as exc:
                damage = exc
            if not chunk and damage is None:
                break
            if first and chunk:
                first = False
                if chunk[0].startswith(_BOM):
                    chunk[0] = chunk[0][3:]
            if pick is not None and chunk and not blocks:
                status, columns = _core.jsonl_pick(chunk, pick.keys, pick.reserved)
            start = 0
            while start < len(chunk):
                # The run of picked lines from here up to the block's end, taken in bulk; a line
                # that is not picked is read alone (it can make several rows).
                limit = min(len(chunk), start + block_rows - len(lines_))
                stop = status.find(0, start, limit) if status else start
                if stop < 0:
                    stop = limit
                if stop == start:
                    read_line(chunk[start])
                    start += 1
                else:
                    count = stop - start
                    lines_.extend(range(number + 1, number + 1 + count))
                    number += count
                    data.extend([None] * count)
                    text.extend(chunk[start:stop])
                    picked.extend([True] * count)
                    for column, got in zip(values, columns):
                        column.extend(got[start:stop])
                    start = stop
                while len(lines_) >= block_rows:
                    # A block holds at most block_rows rows: the rest waits for the next one.
                    whole = block()
                    yield whole.head(block_rows) if len(lines_) > block_rows else whole
                    rest = whole.tail(block_rows)
                    lines_, data, text, special = rest.lines, rest.data, rest.text, rest.special
                    picked, values = rest.picked, rest.values
        if damage is not None:
            add_row(number + 1, None, None, _damaged(source, number + 1, damage, position()))
        if lines_:
            yield block()
    finally:
        if raw is not sys.stdin.buffer:
            stream.close()
            raw.close()


def _first_char(path: Path) -> str:
    """The first non-whitespace character of the (possibly gzipped) text file *path*."""
    text, raw = _open_text(path)
    with raw, text:
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
    with raw, text:
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
                echo(dump_json_line(item, lenient).decode("utf-8", "backslashreplace")),
                position,
                lenient,
            )
            continue
        yield InputRow(source, number, own_provenance(item), position=position, lenient=lenient)


def _iter_csv(path: Path) -> Iterator[InputRow]:
    text, raw = _open_text(path)
    source = str(path)
    with raw, text:
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
                    echo(json.dumps(record | {"_extra": extra})),
                    raw.tell(),
                )
                continue
            yield InputRow(source, number, own_provenance(dict(record)), position=raw.tell())


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
            yield InputRow(source, number, own_provenance(record), position=number)


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


def iter_blocks(path: Path | str, block_rows: int = 4096, pick: Pick | None = None) -> Iterator[RowBlock]:
    """Rows of *path* (or standard input, :data:`STDIN`, read as JSON lines) in blocks of
    *block_rows* rows (fewer at the end of the input). With a *pick*, JSON lines the core can
    read exactly give only the pick's values (:class:`RowBlock`), other inputs every row whole.
    Raises :class:`UsageError` for an unknown format and ``OSError`` when the file cannot be
    opened."""
    if str(path) == STDIN:
        yield from _iter_jsonl_blocks(STDIN, block_rows, pick)
        return
    path = Path(path)
    fmt = detect_format(path)
    if fmt == "jsonl" and not (_is_json_suffix(path) and _first_char(path) == "["):
        yield from _iter_jsonl_blocks(path, block_rows, pick)
        return
    rows = iter_rows(path, batch_size=block_rows)
    source = str(path)
    while True:
        batch = list(itertools.islice(rows, block_rows))
        if not batch:
            return
        yield RowBlock.of_rows(source, batch)


def count_progress_total(path: Path) -> int:
    """The progress-bar total for *path*: its size in bytes, or its row count for Parquet
    (0 for standard input)."""
    if str(path) == STDIN:
        return 0
    if detect_format(path) == "parquet":
        try:
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise UsageError("reading Parquet needs pyarrow: pip install 'rapidgrade[parquet]'") from exc
        return int(_open_parquet(pq, path).metadata.num_rows)
    return path.stat().st_size
