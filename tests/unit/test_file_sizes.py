"""No source file over 1,100 lines (issue 44): a file that grows past it is split by concern, as
extract.cpp, equiv.cpp, _pool.py and the extraction oracle were."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 1100
SOURCES = ("python", "cpp", "tests", "benchmarks", "scripts")
SUFFIXES = {".py", ".pyi", ".cpp", ".hpp", ".h", ".sh"}


def test_no_source_file_over_the_limit() -> None:
    files = [p for top in SOURCES for p in (ROOT / top).rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    assert len(files) > 100  # the tree was found
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_bytes().splitlines())) > MAX_LINES}
    assert long == {}
