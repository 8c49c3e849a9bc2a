"""The documentation site is browsable from disk: build/site/index.html opened as a file.

With MkDocs' default directory URLs a page is ``getting-started/index.html`` and links point at
``getting-started/``, which a browser shows as a directory listing under ``file://``. The site
is built with ``use_directory_urls: false``: every page is an ``.html`` file and every link
names one. The build test needs the ``docs`` extra (MkDocs and its plugins) and is skipped
without it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from tests.docs import tables

ROOT = tables.ROOT
CONFIG = ROOT / "mkdocs.yml"
LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']*)["']""")


def _config() -> dict[str, object]:
    loaded = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_pages_are_html_files_not_directories() -> None:
    config = _config()
    assert config["use_directory_urls"] is False
    assert config["site_dir"] == "build/site"


def _local_targets(page: Path) -> list[tuple[str, str]]:
    """(link as written, its path part) for every link of *page* that stays on the site."""
    out = []
    for link in LINK.findall(page.read_text(encoding="utf-8")):
        parts = urlsplit(link)
        if parts.scheme or parts.netloc or not parts.path:
            continue  # another site, data: and javascript: URLs, or a fragment of this page
        out.append((link, unquote(parts.path)))
    return out


def test_built_site_links_name_files(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    pytest.importorskip("mkdocstrings", reason="the docs extra is not installed")
    site = tmp_path / "site"
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    pages = sorted(site.rglob("*.html"))
    assert (site / "index.html") in pages and (site / "getting-started.html") in pages
    assert (site / "api" / "grading.html") in pages
    broken = []
    links = 0
    for page in pages:
        for link, path in _local_targets(page):
            links += 1
            target = (site / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
            if not target.resolve().is_file():
                broken.append(f"{page.relative_to(site)}: {link}")
    assert links > 100
    assert not broken, "links that a browser opens as a directory (or nothing) from file://:\n" + "\n".join(broken[:40])
