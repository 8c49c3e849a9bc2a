"""Brace matching and LaTeX spans: ``\\boxed{...}`` arguments and math-mode regions.

Offsets are in the units of the input: code points (Python string indices) for ``str``, bytes
for ``bytes``, so ``text[span.start:span.end] == span.content`` always holds.

Lone surrogates (``"\\ud800"``, which cannot be encoded as UTF-8) are accepted: the scanner sees
each as an ordinary character, offsets stay exact, and contents are sliced from the original
string, so they keep the surrogate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rapidgrade import _core

__all__ = ["Span", "find_boxed", "find_boxed_many", "find_math_spans"]


class Span(NamedTuple):
    r"""A delimited region of *text*, the string that was scanned.

    ``content`` is ``text[start:end]``, sliced when it is read: a span holds offsets and a
    reference to the scanned text, never a copy, so that nested boxes cost linear time and
    memory (a copy per span would be quadratic in the nesting depth). ``outer_start`` and
    ``outer_end`` include the command or delimiters. ``kind`` is ``"boxed"``, ``"fbox"``,
    ``"$"``, ``"$$"``, ``"\\("`` or ``"\\["``.

    >>> span = find_boxed(r"so \boxed{42}.")[0]
    >>> span
    Span(content='42', start=10, end=12, outer_start=3, outer_end=13, kind='boxed')
    >>> span.content, span.text[span.outer_start : span.outer_end]
    ('42', '\\boxed{42}')
    """

    start: int
    end: int
    outer_start: int
    outer_end: int
    kind: str
    text: str | bytes

    @property
    def content(self) -> str | bytes:
        """``text[start:end]``, the span without its command or delimiters."""
        return self.text[self.start : self.end]

    def __repr__(self) -> str:
        content = self.text[self.start : min(self.end, self.start + _REPR_CHARS)]
        more = "..." if self.end - self.start > _REPR_CHARS else ""
        return (
            f"Span(content={content!r}{more}, start={self.start}, end={self.end}, "
            f"outer_start={self.outer_start}, outer_end={self.outer_end}, kind={self.kind!r})"
        )


_REPR_CHARS = 60  # characters of content a repr shows (the text may be megabytes)


def find_boxed(text: str | bytes) -> list[Span]:
    r"""Every ``\boxed{...}`` and ``\fbox{...}`` in *text*, ordered by position.

    Braces are matched by counting, to any depth, without recursion (linear time). Escaped
    braces ``\{`` and ``\}`` do not count. An unclosed ``\boxed{`` yields no span. A box nested
    in another gives a span of its own, after the outer one; each span's ``content`` is sliced
    only when read, so time and memory stay linear at any nesting depth. Without braces, ``\boxed 5`` takes
    the run of characters up to whitespace, ``$``, ``{``, ``}`` or a backslash, without
    trailing ``.``, ``,`` or ``;``.

    >>> [s.content for s in find_boxed(r"so \boxed{\frac{1}{2}} and \fbox{x}")]
    ['\\frac{1}{2}', 'x']
    >>> find_boxed(r"\boxed{unclosed")
    []

    Raises:
        TypeError: *text* is not ``str`` or ``bytes``.
    """
    return _core.find_boxed(text, Span)


def find_math_spans(text: str | bytes) -> list[Span]:
    r"""Every math-mode span: ``$...$``, ``$$...$$``, ``\(...\)`` and ``\[...\]``.

    Spans are in order and not nested (a span's content is not searched again). ``\$`` is not a
    delimiter. An opener without its closer is plain text. Linear time.

    >>> [(s.kind, s.content) for s in find_math_spans(r"cost \$5, so $x=1$ and \[y\]")]
    [('$', 'x=1'), ('\\[', 'y')]
    """
    return _core.find_math_spans(text, Span)


def find_boxed_many(texts: Sequence[str | bytes], *, threads: int | None = None) -> list[list[Span]]:
    """:func:`find_boxed` over many texts, on *threads* threads (default: all cores).

    The scan runs with the GIL released; results are in input order.

    Raises:
        TypeError: *texts* is not a sequence, or one of its items is not ``str``/``bytes``.
        ValueError: *threads* < 1.
    """
    return _core.find_boxed_many(texts, Span, threads=threads)
