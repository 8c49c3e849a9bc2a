"""Tasks: what a scoring job grades, as peers behind one protocol (:class:`Task`).

* :mod:`rapidgrade.tasks.math`: final answers of LLM output against gold answers (the default
  of ``rapidgrade score``).
* :mod:`rapidgrade.tasks.absa`: aspect-based sentiment tuples (normalization, polarity repair,
  tuple F1 and stage-to-stage changes).
* :mod:`rapidgrade.tasks.physics`: physical-reasoning answers classified (number, equation,
  physical quantity, formula, text) and graded with units.
* :mod:`rapidgrade.tasks.fredholm`: function-valued solutions of integral equations, parsed from
  LaTeX, infix or RPN and evaluated symbolically, by sampling and per solution type.

The shared job (:func:`rapidgrade.score.score_file`, ``rapidgrade score --task NAME``) reads the
inputs, chunks, checkpoints, writes the outputs and frames the report; a task grades a chunk of
rows, adds up its metrics and renders its part of the report. Adding a task is one module and
one row in :data:`BUILTIN_TASKS` (or :meth:`Registry.with_task` for a task defined elsewhere).

Task modules are imported on use (``from rapidgrade.tasks import absa``, or when a job names
the task).
"""

from __future__ import annotations

from rapidgrade.tasks._base import (
    BUILTIN_TASKS,
    BlockRun,
    ItemViewer,
    PairGrader,
    Registry,
    Task,
    TaskMetrics,
    TaskRun,
    error_record,
    get_task,
    task_names,
)

__all__ = [
    "BUILTIN_TASKS",
    "BlockRun",
    "ItemViewer",
    "PairGrader",
    "Registry",
    "Task",
    "TaskMetrics",
    "TaskRun",
    "absa",
    "error_record",
    "fredholm",
    "get_task",
    "math",
    "physics",
    "task_names",
]
