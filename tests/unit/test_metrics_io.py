"""Building blocks of the scoring job: streaming readers, metrics, pass@k, the HTML report."""

from __future__ import annotations

import gc
import gzip
import json
import math
import warnings
from html.parser import HTMLParser
from pathlib import Path

import pytest

from rapidgrade._io import UsageError, detect_format, iter_rows
from rapidgrade.metrics import MetricsAccumulator, pass_at_k
from rapidgrade.tasks.math import render_report


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that a random k-subset of n samples holds a correct one, by counting."""
    from itertools import combinations

    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


@pytest.mark.parametrize("n,c,k", [(8, 0, 1), (8, 2, 1), (8, 2, 4), (8, 8, 8), (5, 3, 2), (6, 1, 6)])
def test_pass_at_k_matches_counting(n: int, c: int, k: int) -> None:
    assert math.isclose(pass_at_k(n, c, k), brute_pass_at_k(n, c, k))


def test_pass_at_k_rejects_bad_k() -> None:
    with pytest.raises(ValueError, match="k must be"):
        pass_at_k(4, 1, 5)


def verdict(correct: bool, decided_by: str = "fast") -> dict[str, object]:
    return {"correct": correct, "decided_by": decided_by, "gold": "1", "extracted": "1", "reason": "r"}


def test_accumulator_counts_and_round_trips() -> None:
    acc = MetricsAccumulator()
    acc.add_row({"level": "L1"}, [verdict(True)], is_list=False, input_error=False, reference=True, label="a")
    acc.add_row(
        {"level": "L1"}, [verdict(False, "timeout")], is_list=False, input_error=False, reference=True, label="b"
    )
    acc.add_row(
        {"level": "L2", "subject": "algebra"},
        [verdict(True), verdict(False), verdict(True), verdict(False)],
        is_list=True,
        input_error=False,
        majority_correct=True,
        label="c",
    )
    acc.add_row(None, [verdict(False, "error")], is_list=False, input_error=True, label="d")
    restored = MetricsAccumulator.from_state(json.loads(json.dumps(acc.state())))
    for m in (acc.finish(), restored.finish()):
        # the input error (row d) is a row, not a graded pair: accuracy is over the 6 graded
        assert (m.rows, m.total, m.correct, m.accuracy) == (4, 6, 3, 0.5)
        assert m.decided_by["fast"] == 5 and m.timeouts == 1 and m.errors == 1 and m.input_errors == 1
        assert m.groups["level"]["L1"] == {"total": 2, "correct": 1, "accuracy": 0.5}
        assert m.groups["level"]["L2"]["total"] == 4
        assert m.pass_at_k == {"1": 0.5, "2": pass_at_k(4, 2, 2), "4": 1.0}
        assert m.majority_accuracy == 1.0
        assert m.reference == {"compared": 2, "agree": 1, "agreement": 0.5}
    # row b disagrees with its reference and timed out: one entry of both kinds, not two
    assert [(n["kind"], n["row"]) for n in acc.notable] == [("disagreement, timeout", "b"), ("error", "d")]


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_report_is_self_contained_and_escaped() -> None:
    acc = MetricsAccumulator()
    acc.add_row(
        {"type": "<b>x</b>"},
        [verdict(False, "error")],
        is_list=False,
        input_error=True,
        label="<script>alert(1)</script>",
    )
    html = render_report(acc.finish(), acc.notable, title="t", inputs=["in.jsonl"])
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in html
    parser = _Collector()
    parser.feed(html)
    assert {"html", "svg", "table"} <= set(parser.tags)


def test_readers(tmp_path: Path) -> None:
    rows = [{"gold": "1", "response": "\\boxed{1}"}, {"gold": "2", "response": ["a", "b"]}]
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text(json.dumps(rows[0]) + "\n\n{not json\n[1, 2]\n" + json.dumps(rows[1]) + "\n")
    got = list(iter_rows(jsonl))
    assert [r.line for r in got] == [1, 3, 4, 5]
    assert got[0].data == rows[0] and got[3].data == rows[1]
    assert got[1].data is None and got[1].error is not None
    assert "line 3: invalid JSON" in got[1].error and got[1].raw == "{not json"
    assert got[2].error == "line 4: expected a JSON object, got list"

    gz = tmp_path / "in.jsonl.gz"
    with gzip.open(gz, "wt") as f:
        f.write(json.dumps(rows[0]) + "\n")
    assert [r.data for r in iter_rows(gz)] == [rows[0]]

    csv_path = tmp_path / "in.csv"
    csv_path.write_text('gold,response\n1,"multi\nline \\boxed{1}"\n2,x,extra\n')
    got = list(iter_rows(csv_path))
    assert got[0].data == {"gold": "1", "response": "multi\nline \\boxed{1}"}
    assert got[1].error is not None and "more field" in got[1].error

    assert detect_format(Path("a.PARQUET")) == "parquet"
    with pytest.raises(UsageError, match="unknown input format"):
        detect_format(Path("a.txt"))


@pytest.mark.parametrize(
    "line",
    [
        '{"gold": "1", "response": "\\\\boxed{1}", "level": "Level 5"}',
        '{"id": 123456789012345678901234567890, "n": -98765432109876543210}',
        '{"a": [1, {"b": [2.5, -1e300, 18446744073709551615]}]}',
        '{"a": NaN, "b": Infinity, "c": -Infinity}',
        '{"text": "lone \\ud800 surrogate", "ok": "é😀 \\u00e9"}',
        '{"deep": ' + "[" * 500 + "]" * 500 + "}",
    ],
)
def test_json_lines_round_trip_exactly(line: str) -> None:
    # Whatever the standard library reads, a line is written back to the same value: orjson for
    # the common case, the standard library for NaN, integers beyond 64 bits and lone surrogates.
    from rapidgrade._io import dump_json_line, load_json_line

    value, lenient = load_json_line(line)
    expected = json.loads(line)
    assert repr(value) == repr(expected)  # repr: NaN != NaN, and 1e300 vs int must not pass
    written = dump_json_line(value, lenient)
    written.decode("utf-8")  # always valid UTF-8
    assert repr(json.loads(written)) == repr(expected)


def test_unreadable_json_rows_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text('{"gold": "1", "response": "x"}\n' + deep + '\n{"a": tru}\n', encoding="utf-8")
    got = list(iter_rows(path))
    assert got[0].error is None
    assert got[1].error == "line 2: invalid JSON (nested too deeply)"
    assert got[2].error is not None and got[2].error.startswith("line 3: invalid JSON (Expecting value at column")


def test_json_array_reader(tmp_path: Path) -> None:
    rows = [{"gold": "1", "response": "\\boxed{1}"}, {"gold": "2", "response": ["a", "b"]}]
    array = tmp_path / "in.json"
    array.write_text("  \n" + json.dumps([rows[0], [1, 2], rows[1]], indent=2), encoding="utf-8")
    got = list(iter_rows(array))
    assert [r.line for r in got] == [1, 2, 3]
    assert got[0].data == rows[0] and got[2].data == rows[1]
    assert got[1].data is None and got[1].error == "item 2: expected a JSON object, got list" and got[1].raw == "[1,2]"
    gz = tmp_path / "in.json.gz"
    with gzip.open(gz, "wt") as f:
        f.write(json.dumps(rows))
    assert [r.data for r in iter_rows(gz)] == rows
    # a .json file of JSON lines is still read as JSON lines; a broken array is one error row
    lines = tmp_path / "lines.json"
    lines.write_text(json.dumps(rows[0]) + "\n" + json.dumps(rows[1]) + "\n", encoding="utf-8")
    assert [r.data for r in iter_rows(lines)] == rows
    broken = tmp_path / "broken.json"
    broken.write_text('[{"gold": "1"}, {oops}]', encoding="utf-8")
    (only,) = list(iter_rows(broken))
    assert only.data is None and only.error is not None and only.error.startswith("invalid JSON array (")
    scalar = tmp_path / "scalar.json"
    scalar.write_text("[", encoding="utf-8")
    assert [r.error is not None for r in iter_rows(scalar)] == [True]
    empty = tmp_path / "empty.json"
    empty.write_text("", encoding="utf-8")
    assert list(iter_rows(empty)) == []


def test_a_byte_order_mark_is_not_part_of_the_first_field(tmp_path: Path) -> None:
    # Spreadsheet programs write one: the CSV header's first name was "\ufeffgold" and every row
    # failed with "missing key 'gold'"; a JSONL file's first line was invalid JSON.
    csv_path = tmp_path / "bom.csv"
    csv_path.write_bytes("\ufeffgold,response\n1,so 1\n".encode())
    jsonl_path = tmp_path / "bom.jsonl.gz"
    jsonl_path.write_bytes(gzip.compress('\ufeff{"gold": "1", "response": "so 1"}\n'.encode()))
    for path in (csv_path, jsonl_path):
        rows = list(iter_rows(path))
        assert [(r.data, r.error) for r in rows] == [({"gold": "1", "response": "so 1"}, None)]


def test_a_damaged_file_ends_in_one_error_row(tmp_path: Path) -> None:
    lines = "".join(json.dumps({"gold": str(i), "response": f"so {i}"}) + "\n" for i in range(5000)).encode()
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(gzip.compress(lines)[:-200])
    rows = list(iter_rows(truncated))
    good, last = rows[:-1], rows[-1]
    assert len(good) > 1000 and all(r.error is None for r in good)
    assert [r.data["gold"] for r in good if r.data] == [str(i) for i in range(len(good))]
    assert last.data is None and last.line == len(good) + 1
    assert last.error is not None and "the file is damaged from here on" in last.error

    array = tmp_path / "cut.json.gz"
    items = b",".join(json.dumps({"gold": "1"}).encode() for _ in range(3000))
    array.write_bytes(gzip.compress(b"[" + items + b"]")[:-50])
    (only,) = list(iter_rows(array))
    assert only.data is None and only.error is not None and "damaged" in only.error


def test_a_file_that_is_not_parquet_is_a_usage_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(UsageError, match="not a readable Parquet file"):
        list(iter_rows(junk))


def test_readers_leave_no_file_open(tmp_path: Path) -> None:
    # A GzipFile does not close the file object it was given: each reader closes both, for a
    # JSON array, a CSV and JSON lines, gzipped or not (the JSON sniff reads the first byte too).
    # A file left open is closed when collected, with a ResourceWarning.
    rows = [{"gold": "1", "response": "\\boxed{1}"}]
    files = []
    formats = (("a.json", json.dumps(rows)), ("a.csv", "gold,response\n1,x\n"), ("a.jsonl", json.dumps(rows[0])))
    for name, text in formats:
        plain = tmp_path / name
        plain.write_text(text, encoding="utf-8")
        packed = tmp_path / (name + ".gz")
        with gzip.open(packed, "wt", encoding="utf-8") as f:
            f.write(text)
        files += [plain, packed]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for path in files:
            assert [r.error for r in iter_rows(path)] == [None]
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
