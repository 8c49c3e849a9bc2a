"""The scoring job reads what users have (issue 17, section 2) and keeps its guarantees on the
columnar path (section 1): most tests run the job in this process (``score_file`` and
``rapidgrade.__main__.main``); those about the process itself (standard input, a missing
pyarrow) run it as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import rapidgrade
import rapidgrade._io
import rapidgrade.score
from rapidgrade.__main__ import main
from rapidgrade._io import RowBlock, iter_blocks, iter_rows
from rapidgrade.score import UsageError, score_file
from rapidgrade.tasks.math import TASK as MATH

ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(
        [str(Path(rapidgrade.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]
    ),
}


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def score(*args: str, cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`rapidgrade score ARGS` in this process: (exit code, stdout, stderr)."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        try:
            code = main(["score", *args, "--quiet", "--no-fallback", "--threads", "1"])
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
    finally:
        os.chdir(old)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# -- nested fields and lists of golds ------------------------------------------------------------


def test_dotted_gold_key_reads_verl_parquet_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # verl's rows: the answer at reward_model.ground_truth, a struct column in Parquet.
    rows = [
        {"data_source": "gsm8k", "response": "so \\boxed{42}", "reward_model": {"ground_truth": "42", "style": "rule"}},
        {"data_source": "gsm8k", "response": "so \\boxed{41}", "reward_model": {"ground_truth": "42", "style": "rule"}},
    ]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "verl.parquet")
    code, _, err = score(
        "verl.parquet", "--gold-key", "reward_model.ground_truth", "--out", "o", cwd=tmp_path, capsys=capsys
    )
    assert code == 0, err
    evaluated = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert [r["correct"] for r in evaluated] == [True, False]
    assert evaluated[0]["reward_model"] == {"ground_truth": "42", "style": "rule"}  # kept as read
    # The same rows as JSON lines, through the columnar reader.
    write_jsonl(tmp_path / "verl.jsonl", rows)
    code, _, err = score(
        "verl.jsonl", "--gold-key", "reward_model.ground_truth", "--out", "o2", cwd=tmp_path, capsys=capsys
    )
    assert code == 0, err
    assert [r["correct"] for r in read_jsonl(tmp_path / "o2" / "evaluated.jsonl")] == [True, False]


def test_dotted_key_a_field_of_that_exact_name_wins_and_a_missing_one_is_named(tmp_path: Path) -> None:
    rows = [
        {"a.b": "1", "a": {"b": "2"}, "response": "\\boxed{1}"},
        {"a": {"c": "2"}, "response": "\\boxed{2}"},
        {"a": "2", "response": "\\boxed{2}"},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    metrics = score_file(tmp_path / "in.jsonl", out=tmp_path / "o", gold_key="a.b", fallback=False, threads=1)
    out = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert out[0]["correct"] is True
    assert out[1]["reason"] == "line 2: missing key 'a.b'" and out[2]["reason"] == "line 3: missing key 'a.b'"
    assert metrics.input_errors == 2


def test_a_list_gold_means_any_of_these(tmp_path: Path) -> None:
    # lighteval's style: several acceptable golds.
    rows = [
        {"id": "a", "gold": ["42", "42.0"], "response": "The answer is \\boxed{42.0}"},
        {"id": "b", "gold": ["7", "seven"], "response": "\\boxed{8}"},
        {"id": "c", "gold": ["x", "\\frac{1}{2}"], "response": ["\\boxed{0.5}", "\\boxed{3}"]},
        {"id": "d", "gold": [], "response": "\\boxed{1}"},
        {"id": "e", "gold": ["1", {"x": 1}], "response": "\\boxed{1}"},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    metrics = score_file(tmp_path / "in.jsonl", out=tmp_path / "o", fallback=False, threads=1)
    out = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert out[0]["correct"] is True and out[0]["gold"] == ["42", "42.0"]
    assert out[1]["correct"] is False and out[1]["decided_by"] == "fast"
    assert out[2]["correct"] == [True, False] and out[2]["n_correct"] == 1
    assert out[3]["reason"] == "line 4: gold is an empty list"
    assert out[4]["reason"] == "line 5: gold must be a string, a number or a list of those, got a list with a dict item"
    assert (metrics.rows, metrics.total, metrics.correct, metrics.input_errors) == (5, 4, 2, 2)


# -- JSON arrays, standard input, the source column ---------------------------------------------


def test_json_array_file_is_read_as_records(tmp_path: Path) -> None:
    # The case: a .json file holding an array of 27 records was read as JSON lines.
    rows = [{"id": i, "gold": str(i), "response": f"\\boxed{{{i}}}"} for i in range(27)]
    (tmp_path / "rows.json").write_text(json.dumps(rows, indent=2), encoding="utf-8")
    metrics = score_file(tmp_path / "rows.json", out=tmp_path / "o", fallback=False, threads=1)
    assert (metrics.rows, metrics.total, metrics.correct, metrics.input_errors) == (27, 27, 27, 0)
    assert [r["id"] for r in read_jsonl(tmp_path / "o" / "evaluated.jsonl")] == list(range(27))


def test_stdin_and_the_source_column(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "a.jsonl", [{"gold": "1", "response": "\\boxed{1}"}])
    lines = json.dumps({"gold": "2", "response": "\\boxed{2}"}) + "\n" + json.dumps({"gold": "3", "response": "4"})
    result = subprocess.run(
        [sys.executable, "-m", "rapidgrade", "score", "a.jsonl", "-", "--out", "o", "--quiet", "--no-fallback"],
        input=lines + "\n",
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    out = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert [(r["_source"], r["correct"]) for r in out] == [("a.jsonl", True), ("<stdin>", True), ("<stdin>", False)]
    # A run on standard input cannot be resumed: said before any work.
    resumed = subprocess.run(
        [sys.executable, "-m", "rapidgrade", "score", "-", "--out", "o", "--resume", "--quiet"],
        input=lines,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=300,
        check=False,
    )
    assert resumed.returncode == 2 and "standard input" in resumed.stderr


def test_source_column_names_each_input_and_a_rows_own_is_kept_aside(tmp_path: Path) -> None:
    # The job's provenance wins: a row's own _source is kept as input__source.
    write_jsonl(tmp_path / "a.jsonl", [{"gold": "1", "response": "\\boxed{1}", "_source": "mine"}])
    (tmp_path / "b.csv").write_text("gold,response\n2,\\boxed{2}\n", encoding="utf-8")
    score_file([tmp_path / "a.jsonl", tmp_path / "b.csv"], out=tmp_path / "o", fallback=False, threads=1)
    out = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert [r["_source"] for r in out] == [str(tmp_path / "a.jsonl"), str(tmp_path / "b.csv")]
    assert out[0]["input__source"] == "mine" and "input__source" not in out[1]
    assert [r["correct"] for r in out] == [True, True]


# -- the summary, empty inputs, the last line -----------------------------------------------------


def test_summary_counts_only_graded_rows_and_says_how_many_were_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        json.dumps({"gold": "1", "response": "\\boxed{1}"}),
        "{broken",
        json.dumps({"gold": "2", "response": "\\boxed{3}"}),
        json.dumps({"response": "\\boxed{3}"}),
    ]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = score("in.jsonl", "--out", "o", cwd=tmp_path, capsys=capsys)
    assert code == 1
    summary = dict(line.split(None, 1) for line in out.splitlines() if line and not line.startswith("decided"))
    assert summary["accuracy"].strip() == "50.00%"  # 1 of the 2 graded rows, not 1 of 4
    assert "input errors      2 rows could not be graded: not counted in the accuracy" in out
    assert "exit status       1: some rows or pairs could not be graded" in out
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert (metrics["rows"], metrics["total"], metrics["correct"], metrics["accuracy"]) == (4, 2, 1, 0.5)
    assert metrics["input_errors"] == 2 and metrics["errors"] == 2


def test_an_empty_input_says_so_and_exits_non_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    code, _, err = score("empty.jsonl", "--out", "o", cwd=tmp_path, capsys=capsys)
    assert code == 2 and "no rows to grade" in err and "empty.jsonl" in err
    with pytest.raises(UsageError, match="no rows to grade"):
        score_file(tmp_path / "empty.jsonl", out=tmp_path / "o2")


def test_last_line_tells_where_the_report_is_and_what_reference_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"gold": "1", "response": "\\boxed{1}", "judge": False}])
    code, out, _ = score("in.jsonl", "--out", "o", cwd=tmp_path, capsys=capsys)
    last = out.strip().splitlines()[-1]
    assert code == 0 and last == f"report: {Path('o') / 'report.html'} (open it in a browser)"
    code, out, _ = score("in.jsonl", "--out", "o2", "--reference-key", "judge", cwd=tmp_path, capsys=capsys)
    last = out.strip().splitlines()[-1]
    assert code == 0 and last.startswith(f"report: {Path('o2') / 'report.html'}")
    assert "'reference' column is the verdict the input gave in the --reference-key field" in last


# -- absa like every task ---------------------------------------------------------------------------


def test_absa_several_inputs_report_and_non_zero_exit_on_bad_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {
        "id": "r1",
        "gold": [{"aspect_term": "battery", "polarity": "positive"}],
        "stage1": [{"aspect_term": "battery", "polarity": "positive"}],
        "final": [{"aspect_term": "battery", "polarity": "positive"}],
    }
    write_jsonl(tmp_path / "a.jsonl", [good])
    write_jsonl(tmp_path / "b.jsonl", [{**good, "id": "r2"}])
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        assert main(["score", "--task", "absa", "a.jsonl", "b.jsonl", "--out", "o", "--quiet"]) == 0
        write_jsonl(tmp_path / "bad.jsonl", [{"id": "r3", "gold": 3}])
        assert main(["score", "--task", "absa", "a.jsonl", "bad.jsonl", "--out", "o2", "--quiet"]) == 1
    finally:
        os.chdir(old)
    capsys.readouterr()
    card = json.loads((tmp_path / "o" / "metrics.json").read_text(encoding="utf-8"))
    assert card["records"] == {"total": 2, "scored": 2, "bad": 0}
    assert [r["_source"] for r in read_jsonl(tmp_path / "o" / "evaluated.jsonl")] == ["a.jsonl", "b.jsonl"]
    assert (tmp_path / "o" / "report.html").exists() and (tmp_path / "o2" / "report.html").exists()


# -- Parquet output and pyarrow ------------------------------------------------------------------------


def test_parquet_output_keeps_lists_as_lists(tmp_path: Path) -> None:
    rows = [
        {"id": "p1", "gold": "2", "response": ["\\boxed{2}", "\\boxed{3}"], "tags": ["a", "b"], "meta": {"k": 1}},
        {"id": "p2", "gold": "7", "response": ["\\boxed{7}"], "tags": None, "meta": {"k": 2}},
        {"id": "p3", "gold": "1", "response": "\\boxed{1}", "tags": [], "meta": {"k": 3}, "mixed": [1, "x"]},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    score_file(tmp_path / "in.jsonl", out=tmp_path / "o", fmt="parquet", fallback=False, threads=1)
    table = pq.read_table(tmp_path / "o" / "evaluated.parquet")
    # correct of a list-response row is a list of booleans (a row of one response, a boolean:
    # the column mixes both, so it is JSON text only when kinds differ)
    assert pa.types.is_list(table.schema.field("tags").type)
    assert table.column("tags").to_pylist() == [["a", "b"], None, []]
    assert pa.types.is_struct(table.schema.field("meta").type)
    assert table.column("meta").to_pylist() == [{"k": 1}, {"k": 2}, {"k": 3}]
    assert table.column("mixed").to_pylist() == [None, None, '[1, "x"]']  # no common type: JSON text
    only_lists = [r for r in rows if isinstance(r["response"], list)]
    write_jsonl(tmp_path / "lists.jsonl", only_lists)
    score_file(tmp_path / "lists.jsonl", out=tmp_path / "o2", fmt="parquet", fallback=False, threads=1)
    table = pq.read_table(tmp_path / "o2" / "evaluated.parquet")
    assert table.schema.field("correct").type == pa.list_(pa.bool_())
    assert table.column("correct").to_pylist() == [[True, False], [True]]
    assert table.column("response").to_pylist() == [["\\boxed{2}", "\\boxed{3}"], ["\\boxed{7}"]]


def test_missing_pyarrow_is_reported_before_the_job_runs(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    (blocker / "pyarrow").mkdir(parents=True)
    (blocker / "pyarrow" / "__init__.py").write_text("raise ImportError('no pyarrow here')\n")
    write_jsonl(tmp_path / "in.jsonl", [{"gold": "1", "response": "\\boxed{1}"}])
    env = {**ENV, "PYTHONPATH": os.pathsep.join([str(blocker), ENV["PYTHONPATH"]])}
    result = subprocess.run(
        [sys.executable, "-m", "rapidgrade", "score", "in.jsonl", "--out", "o", "--format", "parquet", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == 2 and "writing Parquet needs pyarrow" in result.stderr
    assert not (tmp_path / "o").exists()  # nothing graded, nothing written


# -- the columnar path keeps the guarantees ------------------------------------------------------------

MIXED_LINES = [
    json.dumps({"id": "a", "gold": "1", "response": "\\boxed{1}", "level": "L1", "extra": {"deep": [1, 2.50, None]}}),
    '{"id": "spaced" ,  "gold" : "2", "response": "\\\\boxed{3}", "n": 1.0e5, "level": "L2"}  ',
    "{broken json",
    json.dumps({"id": "own", "gold": "3", "response": "\\boxed{3}", "correct": "theirs"}),
    "",
    json.dumps({"id": "num", "gold": 4, "response": "\\boxed{4}", "level": 3}),
    '{"id": "nan", "gold": "5", "response": "\\\\boxed{5}", "score": NaN}',
    json.dumps(["not", "an", "object"]),
    json.dumps({"id": "list", "gold": "6", "response": ["\\boxed{6}", "\\boxed{7}"]}),
    json.dumps({"id": "uni", "gold": "7", "response": "答案 \\boxed{7} ✓", "level": "L1"}),
    json.dumps({"id": "nogold", "response": "\\boxed{1}"}),
    json.dumps({}),
]


@pytest.mark.parametrize("picked", [False, True])
def test_block_path_equals_the_record_path(tmp_path: Path, picked: bool) -> None:
    # grade_block (rows written back from their text) and grade (records rebuilt) agree on
    # every kind of row, and count the same metrics; with the run's pick, the rows the core
    # reads give only their gold, response and group fields until the row is needed whole.
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(MIXED_LINES) + "\n", encoding="utf-8")
    config = MATH.configure(fallback=False, threads=1)
    fast, slow = MATH.start(config), MATH.start(config)
    (block,) = list(iter_blocks(path, 100, fast.pick if picked else None))
    assert any(block.picked) == picked
    lines = fast.grade_block(block)
    records = slow.grade(list(iter_rows(path)))
    assert len(lines) == len(records) == len(MIXED_LINES) - 1  # the blank line is no row
    import math

    def same(a: Any, b: Any) -> bool:
        return (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)) or a == b

    for line, record in zip(lines, records):
        got = json.loads(line)
        assert got["_source"] == str(path)
        record.setdefault("_source", str(path))  # the job adds it to the records of grade()
        assert got.keys() == record.keys() and all(same(got[k], record[k]) for k in got)
    assert fast.finish(1.0) == slow.finish(1.0)
    # The row's own text is written as read, its spacing and number spelling included.
    assert lines[1].startswith(b'{"id": "spaced" ,  "gold" : "2", "response": "\\\\boxed{3}", "n": 1.0e5,')


@pytest.mark.parametrize("chunk_size", [1, 3, 7])
def test_malformed_rows_in_place_n_in_n_out_and_byte_identical_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk_size: int
) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(("\r\n".join(MIXED_LINES * 3) + "\r\n").encode("utf-8"))
    n = 3 * (len(MIXED_LINES) - 1)
    options: dict[str, Any] = {"fallback": False, "threads": 1, "chunk_size": chunk_size}
    whole = score_file(path, out=tmp_path / "whole", **options)
    out = read_jsonl(tmp_path / "whole" / "evaluated.jsonl")
    assert len(out) == whole.rows == n
    assert [r.get("id") for r in out[:4]] == ["a", "spaced", None, "own"]
    assert out[2]["reason"].startswith("line 3: invalid JSON") and out[2]["_raw"] == "{broken json"
    assert out[3]["input_correct"] == "theirs" and out[3]["correct"] is True
    assert out[0]["extra"] == {"deep": [1, 2.5, None]}
    # Interrupted after the first blocks, then resumed: the same bytes as the uninterrupted run.
    calls = 0
    real = rapidgrade.score._grade_chunk

    def interrupted(chunk: list[RowBlock], run: Any, drilldown: Any) -> list[Sequence[bytes]]:
        nonlocal calls
        calls += 1
        if calls > 2:
            raise KeyboardInterrupt
        return real(chunk, run, drilldown)

    monkeypatch.setattr(rapidgrade.score, "_grade_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        score_file(path, out=tmp_path / "cut", **options)
    monkeypatch.setattr(rapidgrade.score, "_grade_chunk", real)
    resumed = score_file(path, out=tmp_path / "cut", resume=True, **options)
    whole_bytes = (tmp_path / "whole" / "evaluated.jsonl").read_bytes()
    assert (tmp_path / "cut" / "evaluated.jsonl").read_bytes() == whole_bytes
    strip = {"elapsed_s", "pairs_per_s"}
    assert {k: v for k, v in resumed.to_dict().items() if k not in strip} == {
        k: v for k, v in whole.to_dict().items() if k not in strip
    }


@pytest.mark.parametrize(("picked", "read_bytes"), [(False, 1 << 20), (True, 1 << 20), (True, 1), (True, 7)])
def test_blocks_split_lines_as_the_text_reader_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, picked: bool, read_bytes: int
) -> None:
    # A byte order mark, CRLF line ends, a lone CR (not a line end: JSON Lines ends lines only
    # at \n), blank lines and invalid UTF-8: the same rows and line numbers with or without the
    # run's pick; with it the file is read in blocks of read_bytes, whose ends fall inside
    # lines and inside the mark.
    monkeypatch.setattr(rapidgrade._io, "_LINE_BYTES", read_bytes)
    content = (
        b"\xef\xbb\xbf" + b'{"gold": "1", "response": "a"}\r\n\r\n'
        b'{"gold": "2", "response": "b"}\r{"gold": "3", "response": "c"}\n'
        b'{"gold": "4", "response": "\xff"}\n   \n[1]\n'
    )
    path = tmp_path / "in.jsonl"
    path.write_bytes(content)
    pick = MATH.start(MATH.configure(fallback=False)).pick if picked else None
    rows = [r for b in iter_blocks(path, 2, pick) for r in b.rows()]
    assert [r.line for r in rows] == [1, 3, 4, 6]
    assert [r.data["gold"] if r.data else None for r in rows] == ["1", None, "4", None]
    assert rows[1].error is not None and rows[1].error.startswith("line 3: invalid JSON")
    assert rows[2].data is not None and rows[2].data["response"] == "\ufffd"
    assert rows[3].error == "line 6: expected a JSON object, got list"
    assert [len(b) for b in iter_blocks(path, 2, pick)] == [2, 2]
    # the last line needs no newline
    path.write_bytes(content + b'{"gold": "5", "response": "e"}')
    assert [r.data["gold"] for b in iter_blocks(path, 2, pick) for r in b.rows() if r.data] == ["1", "4", "5"]
