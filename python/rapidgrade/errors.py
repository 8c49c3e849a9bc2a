"""Exceptions raised by rapidgrade.

Both are subclasses of :class:`ValueError` and are raised by the C++ core:

* :class:`ParseError`: malformed input where a well-formed one is required (expression syntax,
  RPN stack errors). The message says where: ``"<function>: <problem> at offset <n>"``.
* :class:`LimitError`: an input exceeded a documented bound (length, nesting depth, integer size).
"""

from __future__ import annotations

from rapidgrade._core import LimitError, ParseError

__all__ = ["LimitError", "ParseError"]
