"""Every code example of the documentation and of README.md runs.

The pages are README.md (the repository's front page, page id ``README.md``) and every
``docs/**/*.md`` (page ids relative to ``docs/``).

* ```` ```python ```` blocks of a page run in order in one namespace (a page is a script), in a
  temporary directory;
* ```` ```pycon ```` blocks (``>>>`` lines and their output) are doctests, sharing that namespace;
* ```` ```bash ```` blocks right after ``<!-- docs-test: run -->`` run in bash, in the same
  directory, with ``rapidgrade`` being this interpreter's package (``exit=N`` after ``run``
  expects exit status N);
* ``<!-- docs-test: requires MODULE -->`` anywhere on a page skips the page where MODULE cannot
  be imported (only for libraries that cannot be installed here; the page says so);
* ``<!-- docs-test: marker NAME -->`` anywhere on a page gives its test the pytest marker NAME
  (``ray``, ``trl``, ...: a page whose examples need a framework's extra runs with that group,
  ``pytest -m NAME``, not with plain ``pytest``);
* ``<!-- docs-test: skip REASON -->`` right before a ``python`` or ``pycon`` block leaves that
  block out, for an example that cannot run in any test environment (a library that cannot be
  installed beside the test extra, a GPU, the network). Every such block is listed, with its
  justification, in :data:`SKIPPED` below, and a test checks that the list and the pages agree.

Other fenced blocks (``text``, ``json``, ``yaml``, unmarked ``bash``) are shown, not run; Python
may not hide in them (a ``text`` block that starts like Python or a ``>>>`` session fails the
suite), and a block's language must be one this module knows. The generated tables
(tests/docs/tables.py) must be what tests/data says.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

import rapidgrade
from tests.docs import tables

DOCS = tables.DOCS
README = tables.ROOT / "README.md"
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!-- docs-test: run(?: exit=(?P<code>\d+))? -->\s*$")
REQUIRES = re.compile(r"<!-- docs-test: requires (?P<module>[\w.]+) -->")
MARKER = re.compile(r"<!-- docs-test: marker (?P<name>\w+) -->")
SKIP = re.compile(r"<!-- docs-test: skip (?P<reason>\S.*?) -->\s*$")
#: Page id -> file: README.md, then every page of docs/.
SOURCES = {"README.md": README} | {p.relative_to(DOCS).as_posix(): p for p in sorted(DOCS.rglob("*.md"))}
PAGES = sorted(SOURCES)
RUN_LANGS = {"python", "pycon"}
SHELL_LANGS = {"bash", "sh", "console"}
SHOWN_LANGS = {"", "text", "json", "yaml", "toml", "csv", "diff"}
LOOKS_LIKE_PYTHON = re.compile(r"\A\s*(?:import \w|from [\w.]+ import |>>> )")

#: The python/pycon blocks that no test environment can run: (page, first line) -> why. Each is
#: marked on its page with ``<!-- docs-test: skip REASON -->``; keep this list and the pages in
#: step (test_skipped_blocks_are_listed).
SKIPPED: dict[tuple[str, str], str] = {
    ("integrations.md", "from lighteval.metrics.metrics import Metrics"): (
        "lighteval 0.13 pins latex2sympy2_extended==1.0.6, which cannot share an environment with "
        "math-verify (in the test extra), and the example elides a task's own arguments; "
        "tests/integrations/test_lighteval_metric.py runs the metric under `pytest -m lighteval`"
    ),
}


def _page_params() -> list[object]:
    """The pages, each with the markers it names."""
    params: list[object] = []
    for page in PAGES:
        names = MARKER.findall(SOURCES[page].read_text(encoding="utf-8"))
        params.append(pytest.param(page, marks=[getattr(pytest.mark, name) for name in names], id=page))
    return params


class Block(NamedTuple):
    lang: str
    code: str
    expect: int | None  # the exit status a marked shell block must give; None: not run
    skip: str | None  # the reason given by a docs-test: skip mark; None: not skipped


def _blocks(text: str) -> list[Block]:
    """The fenced blocks of a page, in order, with their docs-test marks."""
    out = []
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").split("\n"))
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        skip = SKIP.search(before)
        out.append(
            Block(
                m.group("lang"),
                body,
                int(mark.group("code") or 0) if mark else None,
                skip.group("reason") if skip else None,
            )
        )
    return out


def _shim(tmp: Path) -> dict[str, str]:
    """An environment where ``rapidgrade`` runs this interpreter's rapidgrade package."""
    bindir = tmp / ".bin"
    bindir.mkdir()
    shim = bindir / "rapidgrade"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m rapidgrade "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    package_root = str(Path(rapidgrade.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
    env["PATH"] = f"{bindir}{os.pathsep}{env['PATH']}"
    return env


def test_pages_found() -> None:
    assert "README.md" in PAGES and not (DOCS / "README.md").exists()
    assert {"index.md", "getting-started.md", "migrating.md", "cli.md", "performance.md", "ARCHITECTURE.md"} <= set(
        PAGES
    )
    assert {"tasks/math.md", "tasks/physics.md", "tasks/fredholm.md", "tasks/absa.md"} <= set(PAGES)


@pytest.mark.parametrize("page", _page_params())
def test_examples_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = SOURCES[page].read_text(encoding="utf-8")
    for m in REQUIRES.finditer(text):
        pytest.importorskip(m.group("module"), reason=f"{page} needs {m.group('module')}, not installable here")
    blocks = _blocks(text)
    monkeypatch.chdir(tmp_path)
    env = _shim(tmp_path) if any(b.expect is not None for b in blocks) else None
    namespace: dict[str, object] = {"__name__": f"docs_{page}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for index, (lang, code, expect, skip) in enumerate(blocks):
        where = f"{page}, block {index} ({lang})"
        if skip is not None:
            continue  # listed in SKIPPED, checked by test_skipped_blocks_are_listed
        if lang == "python":
            exec(compile(code, where, "exec"), namespace)
        elif lang == "pycon":
            test = parser.get_doctest(code, namespace, where, str(SOURCES[page]), 0)
            report: list[str] = []
            result = runner.run(test, out=report.append, clear_globs=False)
            namespace.update(test.globs)  # DocTest copies the namespace
            assert result.failed == 0, f"{where}: {result.failed} doctest example(s) failed\n" + "".join(report)
        elif expect is not None:
            assert lang in SHELL_LANGS, where
            proc = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", code], env=env, capture_output=True, text=True, timeout=600
            )
            assert proc.returncode == expect, f"{where}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"


def _all_blocks() -> list[tuple[str, int, Block]]:
    return [
        (page, index, block)
        for page in PAGES
        for index, block in enumerate(_blocks(SOURCES[page].read_text(encoding="utf-8")))
    ]


def test_every_block_has_a_known_language_and_python_is_run() -> None:
    """Python is written as python or pycon (so it runs); no other language hides it."""
    problems = []
    for page, index, block in _all_blocks():
        where = f"{page}, block {index} ({block.lang or 'no language'})"
        if block.lang not in RUN_LANGS | SHELL_LANGS | SHOWN_LANGS:
            problems.append(f"{where}: unknown language (add it to this module or use python/pycon/text)")
        elif block.lang in SHOWN_LANGS and LOOKS_LIKE_PYTHON.match(block.code):
            problems.append(f"{where}: Python shown as {block.lang!r}; write it as python or pycon so it runs")
        if block.skip is not None and block.lang not in RUN_LANGS:
            problems.append(f"{where}: a docs-test: skip mark on a block that would not run anyway")
        if block.expect is not None and block.lang not in SHELL_LANGS:
            problems.append(f"{where}: a docs-test: run mark on a block that is not shell")
    assert not problems, "\n".join(problems)


def test_skipped_blocks_are_listed() -> None:
    marked = {
        (page, block.code.lstrip("\n").split("\n", 1)[0]): block.skip
        for page, _, block in _all_blocks()
        if block.skip is not None
    }
    assert set(marked) == set(SKIPPED), "the docs-test: skip marks of the pages and SKIPPED differ"
    for key, reason in SKIPPED.items():
        assert len(reason) > 40, f"{key}: say why no test environment can run it"
        assert marked[key], key


# `pip install rapidgrade`, `pip install "rapidgrade[ray]"`, ... (by name, not `.` or a wheel's path)
PIP_BY_NAME = re.compile(r"pip install\b[^\n`&;#]*?(?<![\w./-])['\"]?rapidgrade(?![\w./-]|\.whl)")
NOT_RELEASED = "not on PyPI yet"


def test_pages_that_install_by_name_say_rapidgrade_is_not_released_yet() -> None:
    """Until the first release, `pip install rapidgrade` finds nothing: every page that writes
    it says so, and the install pages say how to install instead."""
    installing = [page for page in PAGES if PIP_BY_NAME.search(SOURCES[page].read_text(encoding="utf-8"))]
    assert {"wheels.md", "integrations.md", "ray.md"} <= set(installing)
    for page in [*installing, "README.md", "getting-started.md"]:
        text = " ".join(SOURCES[page].read_text(encoding="utf-8").split())
        assert NOT_RELEASED in text, f"{page} installs rapidgrade by name without saying it is {NOT_RELEASED}"
    install = SOURCES["getting-started.md"].read_text(encoding="utf-8")
    assert "python -m pip install ." in install and "python -m pip wheel . --no-deps -w wheelhouse" in install


def test_readme_api_tour_runs_as_written() -> None:
    """The README's tour is one self-contained session: every name it uses is defined in it."""
    text = README.read_text(encoding="utf-8")
    tour = text[text.index("## API tour") :]
    tour = tour[: tour.index("\n## ", 1)]
    (block,) = [b for b in _blocks(tour) if b.lang in RUN_LANGS]
    assert block.skip is None
    for name in ("golds", "responses", "records"):
        assert re.search(rf"^>>> {name} = ", block.code, re.M), name


@pytest.mark.parametrize("name", sorted(tables.TABLES))
def test_generated_tables_are_current(name: str) -> None:
    page, make = tables.TABLES[name]
    assert tables.current(name) == make(), f"docs/{page}: run `python -m tests.docs.tables` to regenerate {name}"


def test_migration_page_lists_every_difference() -> None:
    """Independently of the generator: every id and reason of the data files is on the page."""
    text = (DOCS / "migrating.md").read_text(encoding="utf-8")
    for file in ("deliberate_differences.jsonl", "corpus_adjudications.jsonl", "unmarked_dev_errors.jsonl"):
        rows = tables._rows(tables.DATA / file)
        assert rows, file
        for r in rows:
            assert str(r["id"]) in text, (file, r["id"])
            reason = str(r.get("reason", r.get("why")))
            assert tables._cell(reason) in text, (file, r["id"])
