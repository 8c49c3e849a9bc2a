"""Tasks as peers: the registry, a task defined outside the package running through the shared
scoring job and command line, and ``import rapidgrade`` not importing the job."""

from __future__ import annotations

import argparse
import gzip
import html
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import rapidgrade
from rapidgrade.__main__ import main as cli_main
from rapidgrade._io import InputRow, UsageError
from rapidgrade.score import score_file
from rapidgrade.tasks import (
    BUILTIN_TASKS,
    Registry,
    Task,
    TaskRun,
    error_record,
    get_task,
    task_names,
)

# ---------------------------------------------------------------------------------------------
# a toy task: the length of a text field, written only against the protocol


@dataclass(frozen=True, slots=True)
class ToyConfig:
    field: str = "text"
    upper: bool = False


@dataclass(frozen=True)
class ToyMetrics:
    rows: int
    chars: int
    errors: int

    def to_dict(self) -> dict[str, Any]:
        return {"rows": self.rows, "chars": self.chars, "errors": self.errors}


class ToyRun:
    def __init__(self, config: ToyConfig, calls: list[int]) -> None:
        self.config = config
        self.rows = self.chars = self.errors = 0
        self.calls = calls

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        self.calls.append(len(rows))
        out = []
        for row in rows:
            self.rows += 1
            text = None if row.data is None else row.data.get(self.config.field)
            if not isinstance(text, str):
                self.errors += 1
                out.append(error_record(row, {"length": None, "why": row.error or "no text"}))
                continue
            self.chars += len(text)
            out.append({**row.data, "length": len(text), "shout": text.upper() if self.config.upper else None})  # type: ignore[dict-item]
        return out

    def state(self) -> dict[str, Any]:
        return {"rows": self.rows, "chars": self.chars, "errors": self.errors}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.rows, self.chars, self.errors = state["rows"], state["chars"], state["errors"]

    def finish(self, elapsed_s: float) -> ToyMetrics:
        return ToyMetrics(self.rows, self.chars, self.errors)

    def progress_note(self, elapsed_s: float) -> str:
        return "-"

    def report_html(self, metrics: ToyMetrics) -> str:
        return f"<h2>Toy</h2><p>{metrics.chars} characters in {metrics.rows} rows <b>&lt;toy&gt;</b></p>"


class ToyTask:
    name = "toy"
    help = "length of a text field"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--field", default="text")
        parser.add_argument("--upper", action="store_true")

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        return {"field": args.field, "upper": args.upper}

    def configure(self, **options: Any) -> ToyConfig:
        return ToyConfig(**options)

    def input_fields(self, config: ToyConfig) -> tuple[str, ...]:
        return (config.field,)

    def fingerprint(self, config: ToyConfig) -> str:
        return repr(config)

    def demo(self, config: ToyConfig) -> None:
        return None

    def start(self, config: ToyConfig) -> ToyRun:
        return ToyRun(config, self.calls)

    def summary(self, metrics: ToyMetrics) -> list[tuple[str, str]]:
        return [("toy rows", str(metrics.rows)), ("toy chars", str(metrics.chars))]

    def exit_code(self, metrics: ToyMetrics) -> int:
        return 1 if metrics.errors else 0


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    """The same five rows as gzipped JSONL and as CSV (the shared readers read both)."""
    rows = [{"id": i, "text": "ab" * i} for i in range(1, 6)]
    jsonl = tmp_path / "rows.jsonl.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps(r) for r in rows) + "\n")
    csv = tmp_path / "rows.csv"
    csv.write_text("id,text\n" + "".join(f"{r['id']},{r['text']}\n" for r in rows), encoding="utf-8")
    return jsonl, csv


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------------------------------------
# registry


def test_registry_lists_builtin_tasks() -> None:
    assert task_names() == ("math", "absa", "physics", "fredholm") == tuple(BUILTIN_TASKS)
    registry = Registry()
    assert registry.names() == ("math", "absa", "physics", "fredholm") and "math" in registry and "toy" not in registry
    for name in registry:
        task = get_task(name)
        assert isinstance(task, Task) and task.name == name
        assert isinstance(task.start(task.configure()), TaskRun)
    with pytest.raises(UsageError, match=r"unknown task 'nope'.*math, absa"):
        registry.get("nope")
    with pytest.raises(UsageError, match="unknown task"):
        score_file(task="nope")


def test_with_task_returns_a_new_registry() -> None:
    toy = ToyTask()
    registry = Registry().with_task(toy)
    assert registry.names() == ("math", "absa", "physics", "fredholm", "toy") and registry.get("toy") is toy
    assert "toy" not in Registry()  # nothing global changed
    with pytest.raises(TypeError, match="protocol"):
        Registry().with_task(object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"task name or a rapidgrade\.tasks\.Task"):
        score_file(task=object())  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------------
# a new task through the shared job, with no change to shared code


def test_toy_task_runs_through_the_shared_job(tmp_path: Path) -> None:
    jsonl, csv = write_inputs(tmp_path)
    toy = ToyTask()
    registry = Registry().with_task(toy)
    out = tmp_path / "out"
    metrics = score_file(
        [jsonl, csv], task="toy", registry=registry, out=out, chunk_size=3, upper=True, title="toy <job>"
    )
    assert metrics.to_dict() == {"rows": 10, "chars": 60, "errors": 0}
    assert toy.calls == [3, 3, 3, 1]  # chunks across both files
    evaluated = read_jsonl(out / "evaluated.jsonl")
    assert [r["length"] for r in evaluated] == [2, 4, 6, 8, 10] * 2
    assert evaluated[0] == {"id": 1, "text": "ab", "length": 2, "shout": "AB", "_source": str(jsonl)}
    assert evaluated[5]["id"] == "1"  # CSV values are text
    assert json.loads((out / "metrics.json").read_text(encoding="utf-8")) == metrics.to_dict()
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "<title>toy &lt;job&gt;</title>" in page
    assert "<h2>Toy</h2><p>60 characters in 10 rows" in page and html.escape(str(jsonl)) in page
    # resuming a finished run grades nothing again; other options are refused
    toy.calls.clear()
    again = score_file([jsonl, csv], task=toy, out=out, chunk_size=3, upper=True, resume=True)
    assert again == metrics and toy.calls == []
    with pytest.raises(UsageError, match="other inputs or options"):
        score_file([jsonl, csv], task=toy, out=out, resume=True)
    with pytest.raises(TypeError):
        score_file(jsonl, task=toy, out=out, colour="red")
    with pytest.raises(UsageError, match="no demo set"):
        score_file(task=toy, out=out)


def test_toy_task_resumes_an_interrupted_run(tmp_path: Path) -> None:
    jsonl, _ = write_inputs(tmp_path)
    out = tmp_path / "out"

    class Interrupted(ToyTask):
        def start(self, config: ToyConfig) -> ToyRun:
            run = super().start(config)
            grade = run.grade

            def grade_twice(rows: Sequence[InputRow]) -> list[dict[str, Any]]:
                if len(self.calls) == 2:
                    raise KeyboardInterrupt
                return grade(rows)

            run.grade = grade_twice  # type: ignore[method-assign]
            return run

    with pytest.raises(KeyboardInterrupt):
        score_file(jsonl, task=Interrupted(), out=out, chunk_size=2)
    assert len(read_jsonl(out / "evaluated.jsonl")) == 4
    toy = ToyTask()
    metrics = score_file(jsonl, task=toy, out=out, chunk_size=2, resume=True)
    assert toy.calls == [1] and metrics.to_dict() == {"rows": 5, "chars": 30, "errors": 0}
    assert [r["id"] for r in read_jsonl(out / "evaluated.jsonl")] == [1, 2, 3, 4, 5]


def test_toy_task_through_the_shared_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonl, _ = write_inputs(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "words": "x"}\n{oops\n', encoding="utf-8")
    registry = Registry().with_task(ToyTask())
    assert (
        cli_main(
            ["score", "--task", "toy", str(jsonl), "--out", str(tmp_path / "o1"), "--field", "text", "--quiet"],
            registry=registry,
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "toy chars  30" in printed and "outputs" in printed
    # the task's exit code; unreadable rows are kept with the reader's reason
    assert cli_main(["score", "--task=toy", str(bad), "--out", str(tmp_path / "o2")], registry=registry) == 1
    rows = read_jsonl(tmp_path / "o2" / "evaluated.jsonl")
    assert (
        rows[0]["why"] == "no text" and rows[1]["_raw"] == "{oops" and rows[1]["why"].startswith("line 2: invalid JSON")
    )
    # the toy's options exist only with --task toy; math's only without it
    with pytest.raises(SystemExit) as e:
        cli_main(["score", "--task", "toy", str(jsonl), "--no-fallback"], registry=registry)
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        cli_main(["score", str(jsonl), "--upper"], registry=registry)
    assert e.value.code == 2
    with pytest.raises(SystemExit) as e:
        cli_main(["score", "--task", "toy", str(jsonl)])  # not in the default registry
    assert e.value.code == 2
    assert "invalid choice: 'toy'" in capsys.readouterr().err


def test_absa_through_the_shared_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "absa.jsonl"
    record = {
        "id": 1,
        "gold": [{"aspect_term": "배터리", "polarity": "positive"}],
        "stage1": [{"aspect_term": "배터리!", "polarity": "pos"}],
        "final": [],
    }
    src.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert cli_main(["score", "--task", "absa", str(src), "--out", str(tmp_path / "out"), "--format", "csv"]) == 0
    card = json.loads((tmp_path / "out" / "metrics.json").read_text(encoding="utf-8"))
    assert card["stages"]["stage1"]["f1"] == 1.0 and card["stages"]["final"]["f1"] == 0.0
    assert card["transitions"][0]["break"] == 1
    header = (tmp_path / "out" / "evaluated.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.endswith("scored,reason,stage_results,_source")
    assert "F1 final" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# import rapidgrade does not import the scoring job


def test_import_rapidgrade_does_not_import_the_job() -> None:
    code = (
        "import sys, rapidgrade\n"
        "job = sorted(m for m in sys.modules if m in ('rapidgrade.score', 'rapidgrade._io', 'rapidgrade.report',"
        " 'rapidgrade.metrics') or m.startswith('rapidgrade.tasks'))\n"
        "print(job)\n"
        "rapidgrade.score_file\n"
        "print('rapidgrade.score' in sys.modules, rapidgrade.Metrics.__module__)\n"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(rapidgrade.__file__).resolve().parents[1])  # where this rapidgrade lives
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "True rapidgrade.metrics"]
    assert "score_file" in rapidgrade.__all__ and "score_file" in dir(rapidgrade)


# ---------------------------------------------------------------------------------------------
# the math task takes a GradeConfig


def test_math_task_takes_a_grade_config(tmp_path: Path) -> None:
    from rapidgrade.config import GradeConfig
    from rapidgrade.tasks.math import TASK as MATH

    src = tmp_path / "in.jsonl"
    rows = [{"id": 1, "gold": "7", "response": "so it is 7"}, {"id": 2, "gold": "0.5", "response": "\\boxed{0.46}"}]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    base = GradeConfig(fallback=False, last_number=False)
    assert MATH.configure(config=base).grade == base
    assert MATH.configure(config=base, timeout=2.0).grade == GradeConfig(fallback=False, last_number=False, timeout=2.0)
    with pytest.raises(UsageError, match="float_rounding"):
        MATH.configure(float_rounding=99)
    with pytest.raises(TypeError, match="unexpected option 'colour'"):
        MATH.configure(colour="red")

    def correct(out: str, **options: Any) -> list[bool]:
        score_file(src, out=tmp_path / out, **options)
        return [r["correct"] for r in read_jsonl(tmp_path / out / "evaluated.jsonl")]

    assert correct("a", fallback=False) == [True, True]  # 0.46 rounds to the gold's 0.5
    assert correct("b", config=base) == [False, True]  # no credit for a last number
    assert correct("c", config=base, last_number=True, float_rounding=2) == [True, False]
    # the grading options are part of what a resumed run must share
    with pytest.raises(UsageError, match="other inputs or options"):
        score_file(src, out=tmp_path / "b", config=base, last_number=True, resume=True)
    assert (
        cli_main(
            [
                "score",
                str(src),
                "--out",
                str(tmp_path / "d"),
                "--no-fallback",
                "--no-last-number",
                "--float-rounding",
                "2",
                "--quiet",
            ]
        )
        == 0
    )
    assert [r["correct"] for r in read_jsonl(tmp_path / "d" / "evaluated.jsonl")] == [False, False]


def test_math_chunks_do_not_change_outputs(tmp_path: Path) -> None:
    # A chunk may hold no sample to grade (only rows with an empty list of responses, or only
    # bad rows): its rows are still written as graded rows of zero samples or as errors.
    src = tmp_path / "in.jsonl"
    rows: list[Any] = [
        {"id": 1, "gold": "1", "response": []},
        {"id": 2, "gold": "2", "response": ["\\boxed{2}", "\\boxed{3}", "\\boxed{2}"], "correct": "kept"},
        {"id": 3, "gold": [], "response": "x"},  # an empty list of golds: a bad row
        {"id": 4, "gold": 4, "response": "\\boxed{4}"},
    ]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    outputs = []
    for size in (1, 4096):
        score_file(src, out=tmp_path / str(size), chunk_size=size, fallback=False)
        outputs.append((tmp_path / str(size) / "evaluated.jsonl").read_bytes())
    assert outputs[0] == outputs[1]
    got = read_jsonl(tmp_path / "1" / "evaluated.jsonl")
    assert got[0]["correct"] == [] and got[0]["n_correct"] == 0 and got[0]["majority_correct"] is False
    assert got[1]["input_correct"] == "kept" and got[1]["majority_answer"] == "2" and got[1]["n_correct"] == 2
    assert got[2]["decided_by"] == "error" and got[3]["correct"] is True


def test_majority_vote_groups_by_the_graders_normalized_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    # The vote uses grade_many's normalized column as it is (not a second normalization with
    # other options): answers the grader read alike are one answer, whatever their text.
    from rapidgrade.tasks import math as math_task
    from rapidgrade.verdict import GradeResults

    results = GradeResults.from_columns(
        correct=[False, True, True, False],
        decided_by=["fast"] * 4,
        gold=["1/2"] * 4,
        extracted=["0.4", "\\frac{1}{2}", "0.5", "0.4"],
        method=["boxed"] * 4,
        reason=[""] * 4,
        normalized=["0.4", "1/2", "1/2", None],
    )
    monkeypatch.setattr(math_task, "grade_many", lambda golds, responses, **kw: results)
    run = math_task.TASK.start(math_task.TASK.configure())
    row = InputRow("x.jsonl", 1, {"gold": "1/2", "response": ["a", "b", "c", "d"]})
    (out,) = run.grade([row])
    assert out["majority_answer"] == "\\frac{1}{2}" and out["majority_correct"] is True
    assert out["n_correct"] == 2 and out["extracted"] == ["0.4", "\\frac{1}{2}", "0.5", "0.4"]


@pytest.mark.parametrize("pick", [False, True])
def test_resume_skips_exactly_the_rows_graded(tmp_path: Path, pick: bool) -> None:
    # A resumed run skips the rows its checkpoint counts, wherever they end inside a block (a
    # skip past half a block once dropped the next block's first rows as well).
    from rapidgrade._io import Pick
    from rapidgrade.score import _chunks

    src = tmp_path / "in.jsonl"
    rows = [{"id": i, "gold": "1", "response": "1"} for i in range(25)]
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for chunk_size in (1, 4, 7, 25, 40):
        for skip in range(27):
            chunks = _chunks([src], skip, chunk_size, None, Pick(("gold", "response"), ()) if pick else None)
            ids = [row.data["id"] for chunk in chunks for block in chunk for row in block.rows() if row.data]
            assert ids == list(range(skip, 25)), (chunk_size, skip)
