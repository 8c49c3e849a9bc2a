"""rapidgrade: extract, normalize and grade final answers of LLM output, fast.

The heavy lifting happens in a C++ core (``rapidgrade._core``); this package holds the typed,
documented public API on top of it.
"""

from __future__ import annotations

__version__ = "0.1.0"

from rapidgrade.distance import closest, edit_distance, edit_distance_many
from rapidgrade.equiv import Tri, equivalent, equivalent_many
from rapidgrade.errors import LimitError, ParseError
from rapidgrade.expr import Expr, parse_expr
from rapidgrade.scan import Span, find_boxed, find_boxed_many, find_math_spans

__all__ = [
    "Expr",
    "LimitError",
    "ParseError",
    "Span",
    "Tri",
    "__version__",
    "closest",
    "edit_distance",
    "edit_distance_many",
    "equivalent",
    "equivalent_many",
    "find_boxed",
    "find_boxed_many",
    "find_math_spans",
    "parse_expr",
]
