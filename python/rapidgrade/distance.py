"""Levenshtein distance on Unicode code points (bit-parallel, in C++).

The functions are the compiled ones, re-exported without a Python wrapper: for short strings the
call overhead is most of the cost, and a wrapper would double it.

* :func:`edit_distance` ``(a, b, *, max_distance=None) -> int``
* :func:`closest` ``(word, choices, *, max_distance=None) -> tuple[str, int] | None``
* :func:`edit_distance_many` ``(pairs, *, max_distance=None, threads=None) -> list[int]``

Strings are compared code point by code point: a Hangul syllable, an emoji or a combining mark
each count as one character, as in ``len()``. Non-``str`` arguments raise ``TypeError``;
a negative ``max_distance`` raises ``ValueError``.
"""

from __future__ import annotations

from rapidgrade._core import closest, edit_distance, edit_distance_many

__all__ = ["closest", "edit_distance", "edit_distance_many"]
