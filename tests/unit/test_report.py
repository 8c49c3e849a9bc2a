"""The report's drill-down (rapidgrade.report): what it lists, how it is bounded, its charts and
options, escaping; tests/unit/test_report_browser.py loads it in headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rapidgrade.report import (
    DRILLDOWN_START,
    DrilldownLimits,
    add_drilldown,
    excerpt,
    main,
    render_drilldown,
    render_page,
)
from rapidgrade.score import score_file


def _items(page: str) -> list[list[object]]:
    m = re.search(r'<script type="application/json" id="rg-data">(.*?)</script>', page, re.S)
    assert m is not None
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "out"
    score_file(out=out, reference_key="qwen_grader")
    return out


def test_every_wrong_row_of_the_demo_set_is_listed(demo_run: Path) -> None:
    rows = [json.loads(line) for line in (demo_run / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()]
    wrong = [r for r in rows if r["correct"] is not True]
    assert len(wrong) == 63
    items = _items(render_drilldown(demo_run))
    listed_wrong = [it for it in items if it[3] == 0]
    assert [it[1] for it in listed_wrong] == [r["id"] for r in wrong]
    # the input gold, not the normalized one; the excerpt holds the extracted answer
    by_id = {r["id"]: r for r in rows}
    for it in listed_wrong:
        row = by_id[it[1]]
        assert it[2] == row["gold"] and it[4] == row["decided_by"] and it[5] == row["method"]
        if row["extracted"] in row["response"]:
            assert it[9] == row["extracted"]
        else:  # joined boxes ("a, b"): the last box marks the place
            assert it[9] == "" and str(it[8]).endswith("\\boxed{")
        assert row["response"].count(str(it[8]).lstrip("…") + str(it[9]) + str(it[10]).rstrip("…")) == 1
    assert "math-3-0" in {it[1] for it in items}  # \text{4:30 p.m.} rows: gold shown as written
    assert by_id["math-3-0"]["gold"] == "\\text{4:30 p.m.}"


def test_bounded_with_counts_stated(demo_run: Path) -> None:
    limits = DrilldownLimits(max_wrong=10, max_right=5, excerpt_width=40)
    section = render_drilldown(demo_run, limits=limits)
    items = _items(section)
    assert sum(1 for it in items if it[3] == 0) == 10 and sum(1 for it in items if it[3] == 1) == 5
    assert all(len(str(it[8])) <= 41 and len(str(it[10])) <= 41 for it in items)
    note = re.search(r'id="rg-bound">(.*?)</p>', section, re.S)
    assert note is not None
    assert "15 of the run&#x27;s 800 items" in note.group(1)
    assert "10 of 63 shown, 53 not shown" in note.group(1)
    assert "5 of 737, 732 not shown" in note.group(1)


def test_charts_and_options(demo_run: Path) -> None:
    section = render_drilldown(demo_run, options={"gold_key": "gold", "timeout": 5.0})
    assert 'aria-label="accuracy by method"' in section
    assert 'aria-label="accuracy by deciding path"' in section
    assert "boxed (n=" in section and "fast (n=800)" in section
    assert '<td class="">timeout</td><td class="code">5.0</td>' in section
    assert "pass@k" not in section  # no list responses here
    assert "Not recorded" in render_drilldown(demo_run)


def test_pass_at_k_curve_matches_the_metrics(tmp_path: Path) -> None:
    rows = [
        {"id": "p1", "gold": "4", "response": ["$\\boxed{4}$", "$\\boxed{5}$", "so 4", "$\\boxed{3}$"]},
        {"id": "p2", "gold": "1", "response": ["$\\boxed{2}$", "$\\boxed{2}$", "$\\boxed{2}$", "$\\boxed{1}$"]},
    ]
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    metrics = json.loads(json.dumps(score_file(src, out=tmp_path / "out").to_dict()))
    section = render_drilldown(tmp_path / "out")
    # the chart plots the k of metrics.json (1, 2, 4), no other
    assert 'id="rg-passk"' in section and section.count("<circle") == len(metrics["pass_at_k"]) == 3
    for k, value in metrics["pass_at_k"].items():
        assert f">{100 * value:.2f}%</text>" in section, (k, value)
    items = _items(section)
    assert len(items) == 8
    assert {it[1] for it in items if it[3] == 0} == {"p1 #1", "p1 #3", "p2 #0", "p2 #1", "p2 #2"}


def test_excerpt_falls_back_to_the_last_box_then_the_end() -> None:
    response = "x" * 500 + r"\boxed{\dfrac12}" + "y" * 500
    before, answer, after = excerpt(response, r"\frac{1}{2}", width=20)
    assert answer == "" and before.endswith(r"\boxed{") and after.startswith(r"\dfrac12}")
    assert excerpt("short", "zz", width=3) == ("…ort", "", "")


def test_hostile_text_is_inert(tmp_path: Path) -> None:
    evil = "</script><script>alert(1)</script><!--"
    rows = [{"id": evil, "gold": evil, "response": f"so {evil} \\boxed{{{evil}}}"}]
    src = tmp_path / "e.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    score_file(src, out=tmp_path / "out")
    page = render_page("", title="t", inputs=[], out_dir=tmp_path / "out")
    assert "alert(1)" in page  # the data is there ...
    assert page.count("<script") == 2 and "<script>alert" not in page  # ... and never markup
    assert _items(page)[0][1] == evil


def test_add_drilldown_to_a_report_and_again(demo_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (demo_run / "report.html").read_text(encoding="utf-8")
    # score writes the drill-down with the run's options (the task and its config's fields)
    assert before.count('id="rg-drilldown"') == 1
    assert "reference_key" in before and "qwen_grader" in before
    assert len(_items(before)) == 563
    assert main([str(demo_run), "--option", "gold_key=gold", "--max-wrong", "5"]) == 0
    assert "report.html" in capsys.readouterr().out
    once = (demo_run / "report.html").read_text(encoding="utf-8")
    # the drill-down is replaced in place: the page before it is unchanged
    assert once.split(DRILLDOWN_START)[0] == before.split(DRILLDOWN_START)[0]
    assert once.count('id="rg-drilldown"') == 1 and len(_items(once)) < 563
    add_drilldown(demo_run, options={"gold_key": "gold"})
    twice = (demo_run / "report.html").read_text(encoding="utf-8")
    assert twice.count('id="rg-drilldown"') == 1 and len(_items(twice)) == 563
    (demo_run / "report.html").write_text(before, encoding="utf-8")


def test_rows_without_verdicts_are_counted(tmp_path: Path) -> None:
    (tmp_path / "evaluated.jsonl").write_text('{"id": 1, "f1": 0.5}\n{"id": 2}\n', encoding="utf-8")
    section = render_drilldown(tmp_path)
    assert "2 rows, none with a per-item verdict" in section and "rg-data" not in section
    page = add_drilldown(tmp_path)
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError, match="max_wrong"):
        DrilldownLimits(max_wrong=-1)
