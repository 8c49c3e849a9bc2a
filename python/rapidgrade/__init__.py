"""rapidgrade: extract, normalize and grade final answers of LLM output, fast.

The heavy lifting happens in a C++ core (``rapidgrade._core``); this package holds the typed,
documented public API on top of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

from rapidgrade.config import EquivConfig, GradeConfig
from rapidgrade.distance import closest, edit_distance, edit_distance_many
from rapidgrade.equiv import Tri, equivalent, equivalent_many
from rapidgrade.errors import LimitError, ParseError
from rapidgrade.expr import Expr, parse_expr
from rapidgrade.extract import Extraction, extract_answer, extract_fields, extract_many
from rapidgrade.grade import grade, grade_many
from rapidgrade.integrations.datasets import grade_dataset, map_fn
from rapidgrade.normalize import (
    Normalized,
    normalize_answer,
    normalize_answer_many,
    normalize_latex,
    normalize_many,
)
from rapidgrade.scan import Span, find_boxed, find_boxed_many, find_math_spans
from rapidgrade.verdict import GradeResults, Verdict

if TYPE_CHECKING:
    from rapidgrade.aio import grade_async
    from rapidgrade.compat import (
        ExprExtractionConfig,
        LatexExtractionConfig,
        LatexNormalizationConfig,
        NormalizationConfig,
        StringExtractionConfig,
        math_metric,
        parse,
        verify,
    )
    from rapidgrade.metrics import Metrics
    from rapidgrade.score import score_file

# The math-verify compatible API imports SymPy and math-verify (about half a second), so it is
# loaded on first use rather than by ``import rapidgrade``.
_COMPAT_NAMES = frozenset(
    {
        "ExprExtractionConfig",
        "LatexExtractionConfig",
        "LatexNormalizationConfig",
        "NormalizationConfig",
        "StringExtractionConfig",
        "math_metric",
        "parse",
        "verify",
    }
)


# The scoring job (rapidgrade.score, the tasks, the readers and the report) is loaded on first
# use too: ``import rapidgrade`` gives the grading API only. So is asyncio, for grade_async.
_SCORE_NAMES = {"score_file": "rapidgrade.score", "Metrics": "rapidgrade.metrics", "grade_async": "rapidgrade.aio"}


def __getattr__(name: str) -> Any:
    if name in _SCORE_NAMES:
        import importlib

        value = getattr(importlib.import_module(_SCORE_NAMES[name]), name)
        globals()[name] = value
        return value
    if name in _COMPAT_NAMES:
        from rapidgrade import compat

        value = getattr(compat, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'rapidgrade' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _COMPAT_NAMES | set(_SCORE_NAMES))


__all__ = [
    "EquivConfig",
    "Expr",
    "ExprExtractionConfig",
    "Extraction",
    "GradeConfig",
    "GradeResults",
    "LatexExtractionConfig",
    "LatexNormalizationConfig",
    "LimitError",
    "Metrics",
    "NormalizationConfig",
    "Normalized",
    "ParseError",
    "Span",
    "StringExtractionConfig",
    "Tri",
    "Verdict",
    "__version__",
    "closest",
    "edit_distance",
    "edit_distance_many",
    "equivalent",
    "equivalent_many",
    "extract_answer",
    "extract_fields",
    "extract_many",
    "find_boxed",
    "find_boxed_many",
    "find_math_spans",
    "grade",
    "grade_async",
    "grade_dataset",
    "grade_many",
    "map_fn",
    "math_metric",
    "normalize_answer",
    "normalize_answer_many",
    "normalize_latex",
    "normalize_many",
    "parse",
    "parse_expr",
    "score_file",
    "verify",
]
