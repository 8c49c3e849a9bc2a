"""Task pipelines: thin modules that compose the core's calls with a task's own rules.

* :mod:`rapidgrade.tasks.absa`: aspect-based sentiment tuples (normalization, polarity repair,
  tuple F1 and stage-to-stage changes).

Submodules are imported on use (``from rapidgrade.tasks import absa``), so that
``python -m rapidgrade.tasks.absa`` runs the module once.
"""

from __future__ import annotations

__all__ = ["absa"]
