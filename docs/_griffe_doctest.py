"""A Griffe extension for the API reference: the package's docstrings hold doctest examples
(``>>>`` lines and their output) in reStructuredText style; Markdown would read their brackets
as links. Each run of doctest lines becomes a fenced ``pycon`` block."""

from __future__ import annotations

from typing import Any

import griffe


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
    """Fence the doctest examples of every object's docstring."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
