"""A Griffe extension for the API reference: the package's docstrings are written in
reStructuredText style. Markdown would read the brackets of their doctest examples (``>>>`` lines
and their output) as links and show their roles (``:func:`grade```) as text, so each run of
doctest lines becomes a fenced ``pycon`` block, a role becomes code, and a paragraph ending in
``::`` ends in ``:``."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc|obj):`~?([^`]+)`")


def fence_doctests(text: str) -> str:
    """Wrap every doctest run (a ``>>>`` line, its ``...`` continuations and its output up to a
    blank line) in a fenced ``pycon`` block."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append(f"{indent}```")
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


class DoctestFences(griffe.Extension):
    """Fence the doctest examples of every object's docstring and turn its roles into code."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        text = ROLE.sub(r"`\1`", obj.docstring.value)
        text = re.sub(r"(\S)::$", r"\1:", text, flags=re.M)
        obj.docstring.value = fence_doctests(text) if ">>>" in text else text
