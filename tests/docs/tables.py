"""Tables of the documentation generated from tests/data: every deliberate difference and every
known error, with its reason. ``python -m tests.docs.tables`` rewrites them in the pages;
tests/docs/test_docs.py fails when a page's table is not what the data says.

A generated table sits between ``<!-- generated: NAME -->`` and ``<!-- /generated: NAME -->``."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
DOCS = ROOT / "docs"


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _cell(value: object) -> str:
    """A Markdown table cell: code for answers, pipes and newlines escaped."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("`", "'")


def _code(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", " ").replace("|", "\\|")
    return f"``{text}``" if "`" not in text else _cell(text)


def deliberate_differences() -> str:
    """tests/data/deliberate_differences.jsonl: pairs where rapidgrade and math-verify 0.9.0 give
    different verdicts on purpose."""
    lines = [
        "| id | gold | response | rapidgrade | math-verify | reason |",
        "|---|---|---|---|---|---|",
    ]
    for r in _rows(DATA / "deliberate_differences.jsonl"):
        lines.append(
            f"| {r['id']} | {_code(r['gold'])} | {_code(r['response'])} | {r['grade']} | {r['math_verify']} "
            f"| {_cell(r['reason'])} |"
        )
    return "\n".join(lines)


def corpus_adjudications() -> str:
    """tests/data/corpus_adjudications.jsonl: rows of the demo set where the two differ, grouped
    by their reason."""
    rows = _rows(DATA / "corpus_adjudications.jsonl")
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for r in rows:
        key = (str(r["gold"]), str(r["verdict"]), str(r["right"]), str(r["why"]))
        groups.setdefault(key, []).append(str(r["id"]))
    lines = ["| rows | gold | rapidgrade | right | why |", "|---|---|---|---|---|"]
    for (gold, verdict, right, why), ids in groups.items():
        lines.append(f"| {', '.join(ids)} | {_code(gold)} | {verdict} | {right} | {_cell(why)} |")
    return "\n".join(lines)


def unmarked_errors() -> str:
    """tests/data/unmarked_dev_errors.jsonl: the fast path's remaining errors on unmarked answers."""
    lines = ["| id | gold | extracted | reason |", "|---|---|---|---|"]
    for r in _rows(DATA / "unmarked_dev_errors.jsonl"):
        lines.append(f"| {r['id']} | {_code(r['gold'])} | {_code(r['extracted'])} | {_cell(r['reason'])} |")
    return "\n".join(lines)


def physics_misses() -> str:
    """tests/data/physics/known_misses.jsonl: the dev set's two misses."""
    lines = ["| id | reason |", "|---|---|"]
    for r in _rows(DATA / "physics" / "known_misses.jsonl"):
        lines.append(f"| {r['id']} | {_cell(r['reason'])} |")
    return "\n".join(lines)


def fredholm_differences() -> str:
    """tests/data/fredholm: every evaluation difference, and the parse differences by category."""
    lines = ["| id | ours | reference | category | note |", "|---|---|---|---|---|"]
    for r in _rows(DATA / "fredholm" / "evaluation_differences.jsonl"):
        lines.append(f"| {r['id']} | {r['ours']} | {r['reference']} | {r['category']} | {_cell(r['note'])} |")
    counts = Counter(str(r["category"]) for r in _rows(DATA / "fredholm" / "parse_differences.jsonl"))
    lines += ["", "| parse difference category | rows |", "|---|---|"]
    lines += [f"| {name} | {n} |" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join(lines)


def _file(name: str) -> Callable[[], str]:
    """A file of the repository's root, verbatim (LICENSE, THIRD_PARTY.md, CHANGELOG.md); its
    top heading is dropped, the page has its own."""

    def make() -> str:
        text = (ROOT / name).read_text(encoding="utf-8").rstrip("\n")
        if text.startswith("# "):
            text = text.split("\n", 1)[1].lstrip("\n")
        if name == "LICENSE":
            return "```text\n" + text + "\n```"
        return text.replace("\n## ", "\n### ") if name == "THIRD_PARTY.md" else text

    return make


TABLES: dict[str, tuple[str, Callable[[], str]]] = {
    "license": ("license.md", _file("LICENSE")),
    "third_party": ("license.md", _file("THIRD_PARTY.md")),
    "changelog": ("changelog.md", _file("CHANGELOG.md")),
    "deliberate_differences": ("migrating.md", deliberate_differences),
    "corpus_adjudications": ("migrating.md", corpus_adjudications),
    "unmarked_dev_errors": ("migrating.md", unmarked_errors),
    "physics_known_misses": ("tasks/physics.md", physics_misses),
    "fredholm_differences": ("tasks/fredholm.md", fredholm_differences),
}


def block(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- generated: {name} -->\n)(.*?)(<!-- /generated: {name} -->)", re.DOTALL)


def current(name: str) -> str | None:
    """The table *name* as its page holds it (None when the page has no such block)."""
    page, _ = TABLES[name]
    m = block(name).search((DOCS / page).read_text(encoding="utf-8"))
    return None if m is None else m.group(2).removesuffix("\n")


def write_all() -> None:
    for name, (page, make) in TABLES.items():
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new, n = block(name).subn(lambda m, make=make: m.group(1) + make() + "\n" + m.group(3), text)
        if n != 1:
            raise SystemExit(f"{page}: no block for {name}")
        path.write_text(new, encoding="utf-8")
        print(f"{page}: {name}")


if __name__ == "__main__":
    write_all()
