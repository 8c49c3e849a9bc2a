"""rapidgrade: extract, normalize and grade final answers of LLM output, fast.

The heavy lifting happens in a C++ core (``rapidgrade._core``); this package holds the typed,
documented public API on top of it.
"""

from __future__ import annotations

__version__ = "0.1.0"

from rapidgrade.distance import closest, edit_distance, edit_distance_many
from rapidgrade.errors import LimitError, ParseError
from rapidgrade.extract import Extraction, extract_answer, extract_fields, extract_many
from rapidgrade.normalize import (
    Normalized,
    normalize_answer,
    normalize_answer_many,
    normalize_latex,
    normalize_many,
)
from rapidgrade.scan import Span, find_boxed, find_boxed_many, find_math_spans

__all__ = [
    "Extraction",
    "LimitError",
    "Normalized",
    "ParseError",
    "Span",
    "__version__",
    "closest",
    "edit_distance",
    "edit_distance_many",
    "extract_answer",
    "extract_fields",
    "extract_many",
    "find_boxed",
    "find_boxed_many",
    "find_math_spans",
    "normalize_answer",
    "normalize_answer_many",
    "normalize_latex",
    "normalize_many",
]
