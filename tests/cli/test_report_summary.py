"""What the summary, metrics.json and report.html say (issue 43, section 3): pass@k with 3-4
samples per problem, --group-by, the notable rows, what could not be graded and the exit
status, the physics options and fields, and every task's rows listed with why."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from rapidgrade.__main__ import build_parser, main
from rapidgrade.metrics import pass_at_k
from rapidgrade.tasks.math import demo_set_path

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def write_jsonl(path: Path, rows: list[Any], extra: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + extra, encoding="utf-8")
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def score(*args: str, cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`rapidgrade score ARGS --quiet` in this process: (exit code, stdout)."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        code = main(["score", *args, "--quiet"])
    finally:
        os.chdir(old)
    return code, capsys.readouterr().out


def summary_lines(out: str) -> dict[str, str]:
    """The summary's `label  value` lines (the label is what stands before two spaces)."""
    lines = {}
    for line in out.splitlines():
        label, sep, value = line.partition("  ")
        if sep:
            lines[label.strip()] = value.strip()
    return lines


def cards(page: str) -> dict[str, str]:
    return {k: v for v, k in re.findall(r'<div class="v">([^<]*)</div><div class="k">([^<]*)</div>', page)}


def chart_points(page: str) -> dict[str, str]:
    """The pass@k chart's labels: k -> the value written above its point."""
    svg = page[page.index('id="rg-passk"') :]
    svg = svg[: svg.index("</svg>")]
    ks = re.findall(r'text-anchor="middle">(\d+)</text>', svg)
    values = re.findall(r'text-anchor="middle">([0-9.]+%)</text>', svg)
    return dict(zip(ks, values))


def items(page: str) -> list[list[Any]]:
    m = re.search(r'<script type="application/json" id="rg-data">(.*?)</script>', page, re.S)
    assert m is not None, "the report lists no items"
    data: list[list[Any]] = json.loads(m.group(1))
    return data


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo set as 100 problems of 4 or 3 samples each ("response": [...] lists), with a
    source and a model column."""
    by_problem: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in demo_set_path().read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        by_problem[row["id"].rsplit("-", 1)[0]].append(row)
    rows = []
    for i, (pid, group) in enumerate(by_problem.items()):
        group = group[: 3 if i % 2 else 4]
        rows.append(
            {
                "id": pid,
                "gold": group[0]["gold"],
                "level": group[0]["level"],
                "source": "A" if i % 3 else "B",
                "meta": {"model": f"m{i % 2}"},
                "response": [r["response"] for r in group],
            }
        )
    return write_jsonl(tmp_path_factory.mktemp("samples") / "samples.jsonl", rows)


# -- pass@k --------------------------------------------------------------------------------------


def test_pass_at_k_is_one_computation_that_never_decreases(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = score(str(samples), "--out", "o", cwd=tmp_path, capsys=capsys)
    assert code == 0
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    curve = metrics["pass_at_k"]
    # every problem counts in every k: k up to 3, the fewest samples of a problem
    assert list(curve) == ["1", "2", "3"]
    values = list(curve.values())
    assert values == sorted(values)
    rows = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    for k, value in curve.items():
        expected = sum(pass_at_k(len(r["correct"]), r["n_correct"], int(k)) for r in rows) / len(rows)
        assert value == pytest.approx(expected)
    assert metrics["samples"] == {"problems": 100, "min": 3, "max": 4}
    page = (tmp_path / "o" / "report.html").read_text()
    lines = summary_lines(out)
    shown = {k: f"{100 * v:.2f}%" for k, v in curve.items()}
    assert {k: cards(page)[f"pass@{k}"] for k in curve} == shown  # the cards
    assert chart_points(page) == shown  # the chart, the same k and values
    assert {k: lines[f"pass@{k}"] for k in curve} == shown  # the summary
    assert "pass@4" not in out and "pass@4" not in cards(page)
    assert "k up to 3, the fewest samples of a problem" in lines["pass@k over"]


# -- --group-by ----------------------------------------------------------------------------------


def test_group_by_gives_accuracy_and_pass_at_k_per_group(
    samples: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = score(
        str(samples),
        "--out",
        "o",
        "--group-by",
        "source",
        "--group-by",
        "meta.model,level",
        cwd=tmp_path,
        capsys=capsys,
    )
    assert code == 0
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["group_by"] == ["source", "meta.model", "level"]
    rows = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    lines = summary_lines(out)
    for key, field in (("source", lambda r: r["source"]), ("meta.model", lambda r: r["meta"]["model"])):
        groups = metrics["groups"][key]
        assert set(groups) == {field(r) for r in rows}
        for value, entry in groups.items():
            members = [r for r in rows if field(r) == value]
            assert entry["total"] == sum(len(r["correct"]) for r in members)
            assert entry["correct"] == sum(r["n_correct"] for r in members)
            assert entry["problems"] == len(members)
            for k, v in entry["pass_at_k"].items():
                expected = sum(pass_at_k(len(r["correct"]), r["n_correct"], int(k)) for r in members) / len(members)
                assert v == pytest.approx(expected)
            line = lines[f"{key}={value}"]
            assert line.startswith(f"{100 * entry['accuracy']:.2f}% of {entry['total']:,} pairs")
            assert f"pass@1 {100 * entry['pass_at_k']['1']:.2f}%" in line
    page = (tmp_path / "o" / "report.html").read_text()
    assert 'id="rg-group-source"' in page and 'id="rg-group-meta.model"' in page
    section = page[page.index('id="rg-group-source"') :]
    assert "<th>pass@k</th>" in section[: section.index("</table>")]


def test_group_by_is_in_help_and_the_fingerprint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    help_text = build_parser("math").parse_args(["score"]).command_parser.format_help()
    assert "--group-by COLUMN" in help_text
    write_jsonl(tmp_path / "in.jsonl", [{"gold": "1", "response": "1", "source": "a"}])
    assert score("in.jsonl", "--out", "o", "--group-by", "source", cwd=tmp_path, capsys=capsys)[0] == 0
    # a resumed run must keep the groups of the run it continues
    with pytest.raises(SystemExit) as refused:
        score("in.jsonl", "--out", "o", "--resume", cwd=tmp_path, capsys=capsys)
    assert refused.value.code == 2 and "holds a run on other inputs or options" in capsys.readouterr().err
    assert score("in.jsonl", "--out", "o", "--resume", "--group-by", "source", cwd=tmp_path, capsys=capsys)[0] == 0
    assert json.loads((tmp_path / "o" / "metrics.json").read_text())["groups"]["source"]["a"]["total"] == 1


# -- the notable rows, what could not be graded, the exit status ---------------------------------


def test_grading_errors_are_named_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": "a", "gold": "\\frac{", "response": "\\boxed{3}", "ok": True},  # the grader cannot read the gold
        {"id": "b", "gold": "3", "response": "\\boxed{3}", "ok": True},
        {"id": "c", "gold": "x+", "response": ["\\boxed{y+}", "\\boxed{2}"], "ok": False},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    code, out = score("in.jsonl", "--out", "o", "--reference-key", "ok", "--workers", "1", cwd=tmp_path, capsys=capsys)
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["decided_by"]["error"] == 3 and metrics["input_errors"] == 0
    assert code == 1  # pairs decided by error: not a success
    lines = summary_lines(out)
    assert lines["grading errors"].startswith("3 pairs decided by error: counted wrong")
    assert lines["decided by error"] == "3 (3 pairs whose gold or answer the grader could not read)"
    assert lines["input errors"] == "none: every row was graded"
    assert lines["exit status"].startswith("1: ")
    page = (tmp_path / "o" / "report.html").read_text()
    table = page[page.index("<h2>Disagreements") :]
    table = table[: table.index("</table>")]
    listed = [re.findall(r"<td[^>]*>(.*?)</td>", tr)[:2] for tr in re.findall(r"<tr>(.*?)</tr>", table)[1:]]
    # row a disagrees with its reference and is in error: listed once; c's samples by number
    assert listed == [["disagreement, error", "a"], ["error", "c #0"], ["error", "c #1"]]


def test_a_clean_run_says_so_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_jsonl(tmp_path / "in.jsonl", [{"gold": "1", "response": "\\boxed{1}"}, {"gold": "2", "response": "3"}])
    code, out = score("in.jsonl", "--out", "o", "--no-fallback", cwd=tmp_path, capsys=capsys)
    assert code == 0
    assert summary_lines(out)["input errors"] == "none: every row was graded"
    assert "0 rows could not be graded" not in out and "exit status" not in out


def test_the_exit_status_is_documented() -> None:
    help_text = build_parser("math").parse_args(["score"]).command_parser.format_help()
    codes = help_text[help_text.index("exit codes:") :]
    assert "decided by" in codes and "error" in codes and "130" in codes
    docs = DOCS.read_text(encoding="utf-8")
    section = docs[docs.index("## Exit status") :]
    assert "decided by `error`" in section and "| 1 |" in section and "| 0 |" in section


# -- physics -------------------------------------------------------------------------------------


def test_physics_takes_gold_key_and_keeps_the_input_unit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = [
        {"id": 1, "answer": "50.7", "unit": "atm", "response": "so p = 5.14e6 Pa"},
        {"id": 2, "answer": "9.8", "unit": "m/s^2", "response": "g = 9.8 N", "correct": "yes"},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    code, out = score(
        "--task", "physics", "in.jsonl", "--out", "o", "--gold-key", "answer", cwd=tmp_path, capsys=capsys
    )
    assert code == 0
    evaluated = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert [r["correct"] for r in evaluated] == [True, False]
    assert [r["unit"] for r in evaluated] == ["atm", "m/s^2"]  # the user's field, untouched
    assert [r["answer_unit"] for r in evaluated] == ["Pa", "N"]  # ours, under our name
    assert evaluated[1]["input_correct"] == "yes"
    assert summary_lines(out)["field correct"].startswith("1 row had its own 'correct': kept as 'input_correct'")
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["renamed_fields"] == {"correct": 1}


# -- every task's report lists its rows with why -------------------------------------------------

_EXACT = {"ground_truth": "x**2", "ground_truth_solution_type": "exact_symbolic", "ground_truth_domain": [0, 1]}
_SAYS = {"has_solution": True, "solution_type": "exact_symbolic"}
FREDHOLM = [
    {"id": "f1", **_EXACT, "solution_str": "x^2", **_SAYS},
    {"id": "f2", **_EXACT, "solution_str": "x^^2 ))(", **_SAYS},  # cannot be parsed
    {"id": "f3", **_EXACT, "solution_str": "", **_SAYS},  # no solution
    {"id": "f4", "ground_truth": "", "ground_truth_solution_type": "none", "solution_str": "",
     "has_solution": False, "solution_type": "none"},
    {"id": "f5", **_EXACT, "ground_truth": "sin(x)", "solution_str": "cos(x)", **_SAYS},
]  # fmt: skip


def test_fredholm_names_what_was_not_evaluated_and_lists_every_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_jsonl(tmp_path / "in.jsonl", FREDHOLM)
    code, out = score("--task", "fredholm", "in.jsonl", "--out", "o", "--no-sympy", cwd=tmp_path, capsys=capsys)
    assert code == 0  # an answer that cannot be parsed is a wrong answer, not an input error
    lines = summary_lines(out)
    # fred-llm's denominator (the default): the solution that cannot be parsed is a wrong answer
    assert lines["evaluated"] == "4 of 5"
    assert lines["not evaluated"].startswith("1 (1 no solution (or ground truth) to compare)")
    metrics = json.loads((tmp_path / "o" / "metrics.json").read_text())
    assert metrics["not_evaluated"] == {"missing_ground_truth_or_solution": 1}
    listed = {it[1]: it for it in items((tmp_path / "o" / "report.html").read_text())}
    assert set(listed) == {"f1", "f2", "f3", "f4", "f5"}
    assert listed["f1"][3] == 1 and listed["f1"][4] == "symbolic"
    assert listed["f2"][3] == 0 and listed["f2"][4] == "not compared" and "solution not parsed" in listed["f2"][7]
    assert listed["f3"][4] == "not evaluated"
    assert listed["f4"][4] == "type" and "no solution" in listed["f4"][7]
    assert listed["f5"][4] == "no match" and "numerically does not match" in listed["f5"][7]
    # rapidgrade's former denominator, on request: only the rows whose solution parsed
    args = ("--task", "fredholm", "in.jsonl", "--out", "p", "--no-sympy", "--denominator", "parsed")
    code, out = score(*args, cwd=tmp_path, capsys=capsys)
    lines = summary_lines(out)
    assert code == 0 and lines["evaluated"] == "3 of 5"
    assert lines["not evaluated"].startswith("2 (1 no solution (or ground truth) to compare, 1 solution not parsed)")


def test_fredholm_unreadable_rows_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_jsonl(tmp_path / "in.jsonl", FREDHOLM[:1], extra="{broken\n")
    code, out = score("--task", "fredholm", "in.jsonl", "--out", "o", "--no-sympy", cwd=tmp_path, capsys=capsys)
    assert code == 1
    lines = summary_lines(out)
    assert lines["rows"] == "2" and lines["input errors"].startswith("1 row could not be read")
    assert lines["exit status"].startswith("1: ")


def test_absa_report_lists_every_record_with_what_each_stage_matched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gold = [{"aspect_term": "battery", "polarity": "positive"}, {"aspect_term": "screen", "polarity": "negative"}]
    rows = [
        {"id": "r1", "gold": gold, "stage1": gold[:1], "final": gold},
        {"id": "r2", "gold": gold, "stage1": gold, "final": [{"aspect_term": "price", "polarity": "neutral"}]},
        {"id": "r3", "gold": 3},
    ]
    write_jsonl(tmp_path / "in.jsonl", rows)
    code, out = score("--task", "absa", "in.jsonl", "--out", "o", cwd=tmp_path, capsys=capsys)
    assert code == 1 and summary_lines(out)["exit status"].startswith("1: ")
    evaluated = read_jsonl(tmp_path / "o" / "evaluated.jsonl")
    assert evaluated[0]["stage_results"] == {
        "stage1": {"matched": 1, "predicted": 1, "gold": 2, "exact": False},
        "final": {"matched": 2, "predicted": 2, "gold": 2, "exact": True},
    }
    listed = {it[1]: it for it in items((tmp_path / "o" / "report.html").read_text())}
    assert set(listed) == {"r1", "r2", "r3"}
    assert listed["r1"][3] == 1 and listed["r1"][7] == (
        "stage1: 1 of 2 gold tuples matched, 0 predicted not in gold; final: exact (2 of 2 gold tuples)"
    )
    assert listed["r2"][3] == 0 and listed["r2"][5] == "no match"
    assert "final: 0 of 2 gold tuples matched, 1 predicted not in gold" in listed["r2"][7]
    assert listed["r3"][4] == "bad record" and "gold" in listed["r3"][7]
