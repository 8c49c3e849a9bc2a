"""The `rapidgrade score` command, run as a subprocess on small files."""

from __future__ import annotations

import csv
import gzip
import json
import math
import os
import signal
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import rapidgrade

# The subprocesses import the same rapidgrade as the tests (installed, or a source tree on
# PYTHONPATH), whatever their working directory.
ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join(
        [str(Path(rapidgrade.__file__).resolve().parent.parent), os.environ.get("PYTHONPATH", "")]
    ),
}

ROWS = [
    {"id": "a", "gold": "\\frac{1}{2}", "response": "so $\\boxed{0.5}$", "level": "L1"},
    {"id": "b", "gold": "3", "response": "The answer is 4.", "level": "L1"},
    {"id": "c", "gold": "x^2", "response": "\\boxed{x \\cdot x}", "level": "L2"},
]


def run(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rapidgrade", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env=ENV,
    )


def write_jsonl(path: Path, rows: list[Any]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_jsonl_outputs_and_summary(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "in.jsonl", ROWS)
    result = run("score", "in.jsonl", "--out", "out", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "accuracy" in result.stdout and "66.67%" in result.stdout
    out = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert [r["id"] for r in out] == ["a", "b", "c"]
    assert [r["correct"] for r in out] == [True, False, True]
    assert out[0]["gold"] == "\\frac{1}{2}" and out[0]["extracted"] == "0.5" and out[0]["decided_by"] == "fast"
    assert all(r["reason"] for r in out)
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert (metrics["total"], metrics["correct"], metrics["errors"]) == (3, 2, 0)
    assert metrics["groups"]["level"]["L1"] == {"total": 2, "correct": 1, "accuracy": 0.5}
    assert metrics["decided_by"]["fast"] == 3


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)

    def handle_data(self, data: str) -> None:
        self.chunks.append(data)


def test_demo_set_report(tmp_path: Path) -> None:
    result = run("score", "--out", "demo", "--quiet", "--no-fallback", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    metrics = json.loads((tmp_path / "demo" / "metrics.json").read_text())
    assert metrics["rows"] == metrics["total"] == 800
    assert metrics["reference"]["compared"] == 800
    page = _Text()
    page.feed((tmp_path / "demo" / "report.html").read_text(encoding="utf-8"))
    text = " ".join(page.chunks)
    assert {"html", "svg", "table"} <= page.tags
    assert f"{metrics['total']:,}" in text and f"{metrics['correct']:,}" in text
    assert f"{100 * metrics['accuracy']:.2f}%" in text
    assert f"{100 * metrics['reference']['agreement']:.2f}%" in text
    assert "Level 5" in text  # the per-level chart


def test_csv_gz_and_parquet_inputs_and_formats(tmp_path: Path) -> None:
    with (tmp_path / "in.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "gold", "response", "level"])
        writer.writeheader()
        writer.writerows(ROWS)
    with gzip.open(tmp_path / "in.jsonl.gz", "wt", encoding="utf-8") as g:
        g.write("".join(json.dumps(r) + "\n" for r in ROWS))
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "in.parquet")
    result = run(
        "score", "in.csv", "in.jsonl.gz", "in.parquet", "--out", "out", "--quiet", "--format", "parquet", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    out = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert [r["correct"] for r in out] == [True, False, True] * 3
    table = pq.read_table(tmp_path / "out" / "evaluated.parquet")
    assert table.num_rows == 9 and table.column("correct").to_pylist() == [True, False, True] * 3
    result = run("score", "in.csv", "--out", "out2", "--quiet", "--format", "csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with (tmp_path / "out2" / "evaluated.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["correct"] for r in rows] == ["True", "False", "True"]


def test_list_responses_pass_at_k(tmp_path: Path) -> None:
    rows = [
        {"id": "p1", "gold": "2", "response": ["\\boxed{2}", "\\boxed{3}", "\\boxed{2}", "\\boxed{5}"]},
        {"id": "p2", "gold": "7", "response": ["\\boxed{1}", "\\boxed{1}", "\\boxed{7}", "\\boxed{2}"]},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    result = run("score", "in.jsonl", "--out", "out", "--quiet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert out[0]["correct"] == [True, False, True, False] and out[0]["n_correct"] == 2
    assert out[0]["majority_answer"] == "2" and out[0]["majority_correct"] is True
    assert out[1]["majority_answer"] == "1" and out[1]["majority_correct"] is False
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["total"] == 8 and metrics["rows"] == 2
    # pass@1 = mean c/n = (2/4 + 1/4) / 2; pass@4 = 1 for both
    assert metrics["pass_at_k"]["1"] == pytest.approx(0.375)
    assert metrics["pass_at_k"]["4"] == pytest.approx(1.0)
    assert metrics["pass_at_k"]["2"] == pytest.approx(((1 - 1 / 6) + (1 - 3 / 6)) / 2)
    assert metrics["majority_accuracy"] == 0.5


def test_bad_rows_are_kept_with_reasons(tmp_path: Path) -> None:
    lines = [
        json.dumps(ROWS[0]),
        "{not json",
        json.dumps({"id": "nogold", "response": "\\boxed{1}"}),
        json.dumps({"id": "num", "gold": "1", "response": 5}),
        json.dumps(["a", "list"]),
        json.dumps(ROWS[2]),
    ]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("score", "in.jsonl", "--out", "out", "--quiet", cwd=tmp_path)
    assert result.returncode == 1
    out = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert len(out) == len(lines)
    assert [r["decided_by"] for r in out] == ["fast", "error", "error", "error", "error", "fast"]
    assert out[1]["reason"].startswith("line 2: invalid JSON") and out[1]["_raw"] == "{not json"
    assert out[2]["reason"] == "line 3: missing key 'gold'"
    assert out[3]["reason"] == "line 4: response must be a string or a list of strings, got int"
    assert out[4]["reason"] == "line 5: expected a JSON object, got list"
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["rows"] == 6 and metrics["input_errors"] == 4 and metrics["errors"] == 4


def test_custom_keys(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"uid": 1, "answer": "5", "output": "\\boxed{5}"}])
    result = run(
        "score",
        "in.jsonl",
        "--gold-key",
        "answer",
        "--response-key",
        "output",
        "--id-key",
        "uid",
        "--out",
        "out",
        "--quiet",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert read_jsonl(tmp_path / "out" / "evaluated.jsonl")[0]["correct"] is True


def test_exit_codes_and_help(tmp_path: Path) -> None:
    assert run("score", "--threads", "0", cwd=tmp_path).returncode == 2
    (tmp_path / "rows.txt").write_text("x\n")
    unknown = run("score", "rows.txt", cwd=tmp_path)
    assert unknown.returncode == 2 and "unknown input format" in unknown.stderr
    missing = run("score", "missing.jsonl", cwd=tmp_path)
    assert missing.returncode == 1 and "missing.jsonl" in missing.stderr
    helped = run("score", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "examples:" in helped.stdout and "--resume" in helped.stdout
    version = run("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("rapidgrade ")


def test_resume_after_kill(tmp_path: Path) -> None:
    n = 30_000
    rows = [{"id": f"r{i}", "gold": str(i), "response": f"so \\boxed{{{i if i % 3 else i + 1}}}"} for i in range(n)]
    write_jsonl(tmp_path / "in.jsonl", rows)
    args = [
        sys.executable,
        "-m",
        "rapidgrade",
        "score",
        "in.jsonl",
        "--out",
        "out",
        "--quiet",
        "--no-fallback",
        "--chunk-size",
        "500",
        "--threads",
        "1",
    ]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    state = tmp_path / "out" / ".rapidgrade-state.json"
    deadline = time.monotonic() + 120
    killed_at = 0
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            done = json.loads(state.read_text())["rows_done"]
        except (OSError, ValueError, KeyError):
            done = 0
        if done >= 2000:
            os.kill(proc.pid, signal.SIGKILL)
            killed_at = done
            break
        time.sleep(0.005)
    proc.wait()
    assert 0 < killed_at < n, "the run was not caught mid-way"
    assert len((tmp_path / "out" / "evaluated.jsonl").read_text().splitlines()) < n
    resumed = run("score", "in.jsonl", "--out", "out", "--quiet", "--no-fallback", "--resume", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    out = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert [r["id"] for r in out] == [r["id"] for r in rows]
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["total"] == n and metrics["correct"] == sum(1 for i in range(n) if i % 3)
    # resuming a finished run grades nothing again
    again = run("score", "in.jsonl", "--out", "out", "--quiet", "--no-fallback", "--resume", cwd=tmp_path)
    assert again.returncode == 0
    assert len(read_jsonl(tmp_path / "out" / "evaluated.jsonl")) == n


def test_absa_task(tmp_path: Path) -> None:
    record = {
        "id": "r1",
        "gold": [{"aspect_term": "배터리", "polarity": "positive"}],
        "stage1": [{"aspect_term": "배터리", "polarity": "pos"}],
        "final": [{"aspect_term": "배터리", "polarity": "negative"}],
    }
    write_jsonl(tmp_path / "absa.jsonl", [record, {"id": "r2", "gold": 3}])
    # The absa task runs in the shared job: --out is a directory whose metrics.json is the
    # scorecard, beside evaluated.jsonl and report.html.
    result = run("score", "--task", "absa", "absa.jsonl", "--out", "out", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # a bad record fails the command, as in every task
    card = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    assert card["task"] == "absa" and card["records"] == {"total": 2, "scored": 1, "bad": 1}
    assert card["stages"]["stage1"]["f1"] == 1.0 and card["stages"]["final"]["f1"] == 0.0
    assert card["bad_records"] == [{"index": 1, "id": "r2", "reason": "line 2: 'gold' is not a list (got int)"}]
    rows = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert [(r["id"], r["scored"], r["reason"]) for r in rows] == [
        ("r1", True, None),
        ("r2", False, "line 2: 'gold' is not a list (got int)"),
    ]
    assert "F1 by stage" in (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "F1 stage1" in result.stdout
    # the task's own options are on the shared command line; math's are not
    repaired = run(
        "score", "--task", "absa", "absa.jsonl", "--out", "out2", "--stages", "stage1", "--repair", cwd=tmp_path
    )
    assert repaired.returncode == 1, repaired.stderr
    card = json.loads((tmp_path / "out2" / "metrics.json").read_text(encoding="utf-8"))
    assert card["options"]["stages"] == ["stage1"] and card["options"]["repair"] is True
    wrong = run("score", "--task", "absa", "absa.jsonl", "--no-fallback", cwd=tmp_path)
    assert wrong.returncode == 2 and "--no-fallback" in wrong.stderr
    help_text = run("score", "--task", "absa", "--help", cwd=tmp_path).stdout
    assert "--repair" in help_text and "  --gold-key GOLD_KEY" not in help_text  # the option; the examples name it
    no_input = run("score", "--task", "absa", cwd=tmp_path)
    assert no_input.returncode == 2 and "no demo set" in no_input.stderr


def test_rows_only_the_standard_library_reads_survive(tmp_path: Path) -> None:
    # An escaped lone surrogate, NaN and an integer beyond 64 bits: graded, and written back as
    # read; the job must not fail on text that has no UTF-8 form.
    lines = [
        '{"id": "s", "gold": "1", "response": "\\\\boxed{1} \\ud800"}',
        '{"id": "n", "gold": "2", "response": "\\\\boxed{2}", "score": NaN}',
        '{"id": 123456789012345678901234567890, "gold": "3", "response": "\\\\boxed{4}"}',
    ]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run("score", "in.jsonl", "--out", "out", "--quiet", "--format", "csv", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = read_jsonl(tmp_path / "out" / "evaluated.jsonl")
    assert [r["correct"] for r in out] == [True, True, False]
    assert out[0]["response"].endswith("\ud800") and math.isnan(out[1]["score"])
    assert out[2]["id"] == 123456789012345678901234567890
    assert (tmp_path / "out" / "report.html").exists()
    with (tmp_path / "out" / "evaluated.csv").open(encoding="utf-8") as f:
        csv_rows = list(csv.DictReader(f))
    assert csv_rows[0]["response"].endswith("\\ud800") and csv_rows[2]["id"] == "123456789012345678901234567890"
    result = run("score", "in.jsonl", "--out", "out-pq", "--quiet", "--format", "parquet", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    import pyarrow.parquet as pq

    table = pq.read_table(tmp_path / "out-pq" / "evaluated.parquet").to_pylist()
    assert [r["correct"] for r in table] == [True, True, False]
    assert table[0]["response"].endswith("\\ud800") and table[2]["id"] == "123456789012345678901234567890"
