"""The scoring job never destroys or misstates data: it refuses to overwrite its inputs, ends
JSON lines only at \\n, caps what an unreadable row echoes, and keeps its provenance fields
its own."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import rapidgrade._io
from rapidgrade.__main__ import main
from rapidgrade._io import ECHO_CHARS, iter_blocks
from rapidgrade.score import UsageError, score_file
from rapidgrade.tasks.math import TASK as MATH

ROW = {"gold": "1", "response": "\\boxed{1}"}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# -- an output never overwrites an input ----------------------------------------------------------


@pytest.mark.parametrize("name", ["evaluated.jsonl", "metrics.json"])
def test_score_refuses_an_input_it_would_overwrite(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _write(tmp_path / name, [ROW, ROW])
    before = source.read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        main(["score", str(source), "--out", str(tmp_path), "--quiet"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "is an output of this run" in err and name in err and "--out" in err
    assert source.read_bytes() == before
    assert not (tmp_path / "report.html").exists()


def test_score_refuses_by_resolved_path(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    source = _write(out / "evaluated.jsonl", [ROW])
    before = source.read_bytes()
    link = tmp_path / "link.jsonl"
    link.symlink_to(source)
    hard = tmp_path / "hard.jsonl"
    os.link(source, hard)
    for given, where in [(link, out), (hard, out), (source, tmp_path / "x" / ".." / "out")]:
        with pytest.raises(UsageError, match="is an output of this run"):
            score_file(given, out=where, fallback=False, threads=1)
    assert source.read_bytes() == before
    (out / "report.html").write_text(json.dumps(ROW) + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"is an output of this run \(report\.html"):
        score_file(tmp_path / "out" / "report.html", out=out, fallback=False)


def test_output_format_decides_which_names_are_outputs(tmp_path: Path) -> None:
    (tmp_path / "evaluated.csv").write_text("gold,response\n1,\\boxed{1}\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"is an output of this run \(evaluated\.csv"):
        score_file(tmp_path / "evaluated.csv", out=tmp_path, fmt="csv", fallback=False, threads=1)
    # Written as JSON lines, the job writes no evaluated.csv: the input is safe and is read.
    metrics = score_file(tmp_path / "evaluated.csv", out=tmp_path, fallback=False, threads=1)
    assert metrics.total == 1 and (tmp_path / "evaluated.csv").read_text(encoding="utf-8").startswith("gold,")


# -- lines end only at \n ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", ["math", "physics"])
def test_carriage_return_inside_a_line_is_not_a_line_break(tmp_path: Path, task: str) -> None:
    gold, response = ("1", "\\boxed{1}") if task == "math" else ("5 m", "5 m")
    content = (
        b'{"gold": "' + gold.encode() + b'", "response": "a\rb ' + response.encode().replace(b"\\", b"\\\\") + b'"}\n'
        b'{"gold": "' + gold.encode() + b'",\r "response": "' + response.encode().replace(b"\\", b"\\\\") + b'"}\r\n'
    )
    source = tmp_path / "in.jsonl"
    source.write_bytes(content)
    score_file(source, task=task, out=tmp_path / "o")
    rows = _lines(tmp_path / "o" / "evaluated.jsonl")
    assert len(rows) == 2
    # A raw CR inside a string is invalid JSON (an error row for line 1); between tokens it is
    # whitespace (line 2 is read).
    assert rows[0]["decided_by"] == "error" and "line 1" in rows[0]["reason"]
    assert rows[1]["correct"] is True
    # Written back without the raw CR, so that no reader splits the output at it.
    assert b"\r" not in (tmp_path / "o" / "evaluated.jsonl").read_bytes()


@pytest.mark.parametrize("picked", [False, True])
def test_blocks_end_lines_only_at_newline(tmp_path: Path, picked: bool) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(
        b'{"gold": "1", "response": "x"}\r{"gold": "2", "response": "y"}\n{"gold": "3", "response": "z"}\n'
    )
    pick = MATH.start(MATH.configure(fallback=False)).pick if picked else None
    rows = [r for b in iter_blocks(source, 10, pick) for r in b.rows()]
    assert [r.line for r in rows] == [1, 2]
    assert rows[0].error is not None and rows[1].data == {"gold": "3", "response": "z"}


# -- an unreadable row echoes a capped part of its text -------------------------------------------


def test_unreadable_huge_line_echoes_a_capped_part(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    huge = b'{"gold": "1", "response": "' + b"x" * 3_000_000 + b"\n"  # no closing quote
    source.write_bytes(json.dumps(ROW).encode() + b"\n" + huge + b"[" + b"1," * 2_000_000 + b"1]\n")
    score_file(source, out=tmp_path / "o", fallback=False, threads=1)
    rows = _lines(tmp_path / "o" / "evaluated.jsonl")
    assert len(rows) == 3 and rows[0]["correct"] is True
    for row, line in zip(rows[1:], (2, 3)):
        assert row["_line"] == line and row["decided_by"] == "error"
        assert len(row["_raw"]) < ECHO_CHARS + 100 and "in all]" in row["_raw"]
    assert rows[1]["_raw"].startswith('{"gold": "1", "response": "xxx')
    assert "3,000,0" in rows[1]["_raw"] and "expected a JSON object, got list" in rows[2]["reason"]


def test_line_too_long_to_read_leniently_is_not_copied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rapidgrade._io, "_LENIENT_BYTES", 1000)
    source = tmp_path / "in.jsonl"
    source.write_bytes(b'{"gold": "1", "response": ' + b"9" * 5000 + b"x}\n")
    (row,) = [r for b in iter_blocks(source, 10) for r in b.rows()]
    assert row.error is not None and row.error.startswith("line 1: invalid JSON")
    assert row.raw is not None and row.raw.endswith("[5,028 bytes in all]")


# -- provenance is the job's ----------------------------------------------------------------------


@pytest.mark.parametrize("task", ["math", "physics", "absa"])
def test_a_rows_own_provenance_fields_are_kept_aside(tmp_path: Path, task: str) -> None:
    row: dict[str, Any] = {"gold": "5 m", "response": "5 m"} if task != "absa" else {"gold": [], "final": []}
    spoof = {"_source": "elsewhere.jsonl", "_line": 99}
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps(row) + "\n" + json.dumps(row | spoof) + "\n{broken\n", encoding="utf-8")
    score_file(source, task=task, out=tmp_path / "o")
    rows = _lines(tmp_path / "o" / "evaluated.jsonl")
    assert [r["_source"] for r in rows] == [str(source)] * 3
    assert rows[1]["input__source"] == "elsewhere.jsonl" and rows[1]["input__line"] == 99
    assert "_line" not in rows[1] and rows[2]["_line"] == 3
    assert "input__source" not in rows[0]
