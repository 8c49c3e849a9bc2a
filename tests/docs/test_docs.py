"""Every code example of the documentation runs.

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
  ``pytest -m NAME``, not with plain ``pytest``).

Other fenced blocks (``text``, ``json``, unmarked ``bash``) are shown, not run. The generated
tables (tests/docs/tables.py) must be what tests/data says.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import rapidgrade
from tests.docs import tables

DOCS = tables.DOCS
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
MARK = re.compile(r"<!-- docs-test: run(?: exit=(?P<code>\d+))? -->\s*$")
REQUIRES = re.compile(r"<!-- docs-test: requires (?P<module>[\w.]+) -->")
MARKER = re.compile(r"<!-- docs-test: marker (?P<name>\w+) -->")
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


def _page_params() -> list[object]:
    """The pages, each with the markers it names."""
    params: list[object] = []
    for page in PAGES:
        names = MARKER.findall((DOCS / page).read_text(encoding="utf-8"))
        params.append(pytest.param(page, marks=[getattr(pytest.mark, name) for name in names], id=page))
    return params


def _blocks(text: str) -> list[tuple[str, str, int | None]]:
    """(language, code, expected exit status for marked shell blocks, else None)."""
    out = []
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").split("\n"))
        before = text[: m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        out.append((m.group("lang"), body, int(mark.group("code") or 0) if mark else None))
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
    assert {"index.md", "getting-started.md", "migrating.md", "cli.md", "performance.md", "ARCHITECTURE.md"} <= set(
        PAGES
    )
    assert {"tasks/math.md", "tasks/physics.md", "tasks/fredholm.md", "tasks/absa.md"} <= set(PAGES)


@pytest.mark.parametrize("page", _page_params())
def test_examples_run(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    for m in REQUIRES.finditer(text):
        pytest.importorskip(m.group("module"), reason=f"{page} needs {m.group('module')}, not installable here")
    blocks = _blocks(text)
    monkeypatch.chdir(tmp_path)
    env = _shim(tmp_path) if any(code is not None for _, _, code in blocks) else None
    namespace: dict[str, object] = {"__name__": f"docs_{page}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for index, (lang, code, expect) in enumerate(blocks):
        where = f"{page}, block {index} ({lang})"
        if lang == "python":
            exec(compile(code, where, "exec"), namespace)
        elif lang == "pycon":
            test = parser.get_doctest(code, namespace, where, str(DOCS / page), 0)
            report: list[str] = []
            result = runner.run(test, out=report.append, clear_globs=False)
            namespace.update(test.globs)  # DocTest copies the namespace
            assert result.failed == 0, f"{where}: {result.failed} doctest example(s) failed\n" + "".join(report)
        elif expect is not None:
            assert lang in ("bash", "sh", "console"), where
            proc = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", code], env=env, capture_output=True, text=True, timeout=600
            )
            assert proc.returncode == expect, f"{where}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"


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
