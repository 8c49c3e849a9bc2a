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


def test_a_deep_link_pages_on_to_its_row_opens_it_and_scrolls_to_it(report: Path, tmp_path: Path) -> None:
    browser = _browser()
    data = re.search(r'<script type="application/json" id="rg-data">(.*?)</script>', report.read_text(), re.S)
    assert data is not None
    lines = [item[0] for item in json.loads(data.group(1))]
    line = lines[250]  # on the third page of 100 items: not drawn until paged on to
    # A copy of the page that writes the scroll position into the title once its script has run.
    probe = tmp_path / "report.html"
    probe.write_text(
        report.read_text().replace(
            "</body>", "<script>document.title='scrollY='+Math.round(window.scrollY);</script></body>", 1
        ),
        encoding="utf-8",
    )
    dom = _dom(browser, probe, f"#open={line}")
    linked = re.findall(r'<tr class="item linked" data-line="(\d+)">', dom)
    assert linked == [str(line)]  # drawn, and marked as the linked row
    after = dom.split(f'<tr class="item linked" data-line="{line}">', 1)[1].split("</tr>", 1)[1]
    assert after.startswith('<tr class="detail">')  # opened
    title = re.search(r"<title>scrollY=(\d+)</title>", dom)
    assert title is not None and int(title.group(1)) > 1000  # scrolled down to it
    # A line the filters leave out, or one the page does not hold, is said to be so.
    dom = _dom(browser, report, f"#wrong=1&open={lines[0]}")
    assert f"line {lines[0]} does not match these filters" in dom
    dom = _dom(browser, report, "#open=999999")
    assert "line 999999 is not on this page" in dom
