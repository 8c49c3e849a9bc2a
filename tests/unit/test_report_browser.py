"""The report in a real browser: headless Chromium loads report.html (with its drill-down), runs its
script, and the test finds the elements in the resulting DOM, for the filters given in the address's
fragment. The browser is Debian's chromium-headless-shell (or chromium), which .ci/run installs;
without one the test is skipped locally and fails under CI=true."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rapidgrade.report import add_drilldown
from rapidgrade.score import score_file

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail("no headless Chromium on the PATH: .ci/run installs chromium-headless-shell")
    pytest.skip("no headless Chromium on the PATH (apt-get install chromium-headless-shell)")


def _dom(browser: str, page: Path, fragment: str = "") -> str:
    proc = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.resolve().as_uri() + fragment],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def _rows(dom: str) -> list[list[str]]:
    body = dom.split('<table id="rg-items">', 1)[1].split("</table>", 1)[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", tr) for tr in re.findall(r'<tr class="item"[^>]*>(.*?)</tr>', body)]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("browser") / "out"
    score_file(out=out, reference_key="qwen_grader")
    return add_drilldown(out, options={"reference_key": "qwen_grader"})


def test_report_renders_its_drilldown(report: Path) -> None:
    browser = _browser()
    dom = _dom(browser, report)
    for element in ('id="rg-drilldown"', 'id="rg-wrong"', 'id="rg-decider"', 'id="rg-method"', 'id="rg-search"'):
        assert element in dom, element
    assert 'aria-label="accuracy by method"' in dom and 'aria-label="accuracy by deciding path"' in dom
    assert "qwen_grader" in dom.split('id="rg-options"', 1)[1]
    assert "563 of 563 items match" in dom
    assert len(_rows(dom)) == 100  # the first page; "show more" adds the next
    assert '<button id="rg-more" type="button">' in dom  # shown: more than a page matches


def test_filters_in_the_fragment(report: Path) -> None:
    browser = _browser()
    wrong = [json.loads(line) for line in (report.parent / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()]
    wrong = [r for r in wrong if r["correct"] is not True]
    dom = _dom(browser, report, "#wrong=1")
    rows = _rows(dom)
    assert "63 of 563 items match" in dom and len(rows) == 63
    assert 'id="rg-more" type="button" style="display: none;"' in dom  # all shown
    assert {r[4] for r in rows} == {"no"}
    assert [r[1] for r in rows] == [r["id"] for r in wrong]
    boxed_multi = sum(1 for r in wrong if r["method"] == "boxed_multi")
    dom = _dom(browser, report, "#wrong=1&method=boxed_multi&decided_by=fast")
    assert len(_rows(dom)) == boxed_multi and {r[6] for r in _rows(dom)} <= {"boxed_multi"}
    dom = _dom(browser, report, "#wrong=1&open=49")  # open=LINE opens that item's excerpt
    detail = dom.split('<tr class="detail">', 1)[1].split("</tr>", 1)[0]
    assert "reason: not equivalent" in detail and "<mark>\\frac{5}{16}</mark>" in detail
    dom = _dom(browser, report, "#q=4%3A30")
    assert {r[1] for r in _rows(dom)} == {f"math-3-{i}" for i in range(8)}
    assert all(r[2] == "\\text{4:30 p.m.}" for r in _rows(dom))
