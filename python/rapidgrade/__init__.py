"""rapidgrade: extract, normalize and grade final answers of LLM output, fast.

The heavy lifting happens in a C++ core (``rapidgrade._core``); this package holds the typed,
documented public API on top of it.
"""

from __future__ import annotations

__version__ = "0.1.0"

from rapidgrade.distance import closest, edit_distance, edit_distance_many
from rapidgrade.errors import LimitError, ParseError
from rapidgrade.scan import Span, find_boxed, find_boxed_many, find_math_spans
from rapidgrade.verdict import GradeResults, Verdict

__all__ = [
    "GradeResults",
    "LimitError",
    "ParseError",
    "Span",
    "Verdict",
    "__version__",
    "closest",
    "edit_distance",
    "edit_distance_many",
    "find_boxed",
    "find_boxed_many",
    "find_math_spans",
]
