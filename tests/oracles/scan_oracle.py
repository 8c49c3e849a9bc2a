"""Plain-Python reference of rapidgrade's brace scanning (``find_boxed``), braced form only.

Character-by-character brace counting in the manner of ``last_boxed_only_string``, but finding
every ``\\boxed{...}``/``\\fbox{...}`` (nested ones too), with escapes: ``\\{`` and ``\\}`` do not
count, ``\\\\`` is a line break (so ``\\\\{`` is a real brace), whitespace may separate the command
from its brace. The unbraced ``\\boxed 5`` form is not covered. Used by
``tests/parity/test_scan_parity.py`` and as the peer of ``benchmarks/bench_primitives.py``.
"""

from __future__ import annotations

__all__ = ["find_boxed_contents"]


def find_boxed_contents(text: str) -> list[str]:
    """The content of every braced box in ``text``, ordered by the box's start (an outer box
    before the boxes nested in it); an unclosed box yields nothing."""
    out: list[tuple[int, str]] = []
    stack: list[tuple[int, int] | None] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            stack.append(None)
        elif c == "}":
            if stack:
                box = stack.pop()
                if box is not None:
                    out.append((box[0], text[box[1] : i]))
        elif c == "\\":
            j = i + 1
            while j < n and text[j].isascii() and text[j].isalpha():
                j += 1
            if j == i + 1:
                i += 2
                continue
            name = text[i + 1 : j]
            if name in ("boxed", "fbox"):
                k = j
                while k < n and text[k].isspace():
                    k += 1
                if k < n and text[k] == "{":
                    stack.append((i, k + 1))
                    i = k + 1
                    continue
            i = j
            continue
        i += 1
    out.sort()
    return [content for _, content in out]
