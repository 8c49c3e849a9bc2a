"""The task protocol and the registry of tasks.

A *task* is what varies between scoring jobs: which fields of a row it reads, how it grades a
batch of rows, how it aggregates metrics and how it renders its part of the report. Everything
else — reading inputs (:mod:`rapidgrade._io`), chunks, checkpoints and ``--resume``, progress,
output files, the report frame and the command line — is the shared job in
:mod:`rapidgrade.score`, which knows no task.

Adding a task is one module that defines an object satisfying :class:`Task`, plus one row in
:data:`BUILTIN_TASKS` (or, for a task outside the package, :meth:`Registry.with_task`)::

    class Toy:
        name = "toy"
        help = "counts rows whose 'text' is non-empty"

        def add_arguments(self, parser): ...
        def options_from_args(self, args): return {}
        def configure(self, **options): return ToyConfig(**options)
        ...

Lifecycle of one job: ``config = task.configure(**options)`` (or from the command line,
``task.configure(**task.options_from_args(args))``); ``run = task.start(config)``; for every
chunk of :class:`~rapidgrade._io.InputRow`, ``run.grade(rows)`` returns the evaluated records
(one per input row, in order) and counts them; ``run.state()`` / ``run.restore(state)``
checkpoint the counts; ``run.finish(elapsed_s)`` gives the metrics (written as
``metrics.json`` with ``to_dict()``) and ``run.report_html(metrics)`` the task's part of
``report.html``.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from rapidgrade._io import InputRow, Pick, RowBlock, UsageError

if TYPE_CHECKING:
    from rapidgrade.config import GradeConfig
    from rapidgrade.verdict import GradeResults

__all__ = [
    "BUILTIN_TASKS",
    "BlockRun",
    "ItemViewer",
    "PairGrader",
    "Registry",
    "Task",
    "TaskMetrics",
    "TaskRun",
    "error_record",
    "get_task",
    "positive_float",
    "positive_int",
    "task_names",
]


@runtime_checkable
class TaskMetrics(Protocol):
    """What a task's metrics must offer the shared job: their JSON form (``metrics.json``)."""

    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class TaskRun(Protocol):
    """One scoring job of a task with one config: grades chunks and keeps the running counts."""

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        """The evaluated records of *rows* (one per row, in order, unreadable rows included),
        counted into the running metrics."""
        ...

    def state(self) -> dict[str, Any]:
        """The running counts as JSON-serializable data (the checkpoint)."""
        ...

    def restore(self, state: Mapping[str, Any]) -> None:
        """Continue from counts saved by :meth:`state` (``--resume``)."""
        ...

    def finish(self, elapsed_s: float) -> TaskMetrics:
        """The metrics of the rows graded so far; *elapsed_s* is the grading time."""
        ...

    def progress_note(self, elapsed_s: float) -> str:
        """A short rate shown beside the progress bar (e.g. ``"1,234 pairs/s"``)."""
        ...

    def report_html(self, metrics: Any) -> str:
        """The task's part of ``report.html`` (HTML, every value escaped), placed in the
        shared frame below the title. :mod:`rapidgrade.report` has cards, charts and tables."""
        ...


@runtime_checkable
class BlockRun(TaskRun, Protocol):
    """A run with the columnar hot path (the math task's): the shared job hands it each block
    of rows as columns and writes the lines it returns, with no Python record per row.

    :func:`rapidgrade.score.score_file` and ``--ray`` use it when ``isinstance(run,
    BlockRun)``; any other run gets :meth:`TaskRun.grade` with the rows."""

    #: How the job's reader picks each row's fields into columns (None: rows are read whole).
    pick: Pick | None
    #: After each :meth:`grade_block`, one ``(method, decided_by, correct)`` per line (None for
    #: a line of several samples), so that the report's drill-down does not parse the lines.
    verdicts: Sequence[tuple[Any, Any, bool] | None]

    def grade_block(self, block: RowBlock) -> Sequence[bytes]:
        """The ``evaluated.jsonl`` lines of *block* (one per row, without newlines), counted
        into the running metrics."""
        ...


@runtime_checkable
class PairGrader(Protocol):
    """A task that grades (gold, response) pairs for :func:`rapidgrade.grade_many` and
    :func:`rapidgrade.grade` (``task=NAME``), as :class:`~rapidgrade.GradeResults`."""

    def grade_pairs(
        self,
        golds: list[Any],
        responses: list[Any],
        *,
        config: GradeConfig,
        rel_tol: float | None,
        threads: int | None,
    ) -> GradeResults:
        """Grade ``responses[i]`` against ``golds[i]``: *config* holds the grading options
        given to ``grade_many``, *rel_tol* the tolerance when the caller gave one (None: the
        task's default)."""
        ...


@runtime_checkable
class ItemViewer(Protocol):
    """A task whose ``evaluated.jsonl`` records carry no top-level ``correct``: the report's
    items table lists each record as :meth:`report_item` returns it."""

    def report_item(self, record: Mapping[str, Any]) -> dict[str, Any] | None:
        """The record as the items table lists it (``correct``, ``gold``, ``extracted``,
        ``reason`` ...), or None to leave it out."""
        ...


@runtime_checkable
class Task(Protocol):
    """A kind of scoring job. ``name`` is what ``rapidgrade score --task NAME`` takes."""

    name: str
    help: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the task's own command-line options to the ``score`` parser (the shared ones —
        inputs, ``--out``, ``--format``, ``--resume``, ``--chunk-size``, ``--quiet`` — are
        there already)."""
        ...

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        """The keyword options of :meth:`configure` from the parsed command line."""
        ...

    def configure(self, **options: Any) -> Hashable:
        """The task's config (a frozen dataclass) from keyword options; raises ``TypeError``
        for an unknown option and :class:`~rapidgrade._io.UsageError` for a bad value."""
        ...

    def input_fields(self, config: Any) -> tuple[str, ...]:
        """The row fields the task reads with *config* (documentation and error messages)."""
        ...

    def fingerprint(self, config: Any) -> str:
        """What of *config* a resumed run must share with the run it continues (options that
        only change speed, such as threads, are left out)."""
        ...

    def demo(self, config: Any) -> tuple[list[Path], Any] | None:
        """The inputs (and config) used when none are given, or ``None`` when the task has no
        demo set."""
        ...

    def start(self, config: Any) -> TaskRun:
        """A new run with empty counts."""
        ...

    def summary(self, metrics: Any) -> list[tuple[str, str]]:
        """``(label, value)`` lines the command line prints when the job is done."""
        ...

    def exit_code(self, metrics: Any) -> int:
        """The command's exit code for *metrics* (0 success, 1 input errors)."""
        ...


#: The tasks of the package: name -> ``"module:attribute"`` of the task object. A module is
#: imported only when its task is used. Adding a task to the package is one row here.
BUILTIN_TASKS: Mapping[str, str] = MappingProxyType(
    {
        "math": "rapidgrade.tasks.math:TASK",
        "absa": "rapidgrade.tasks.absa:TASK",
        "physics": "rapidgrade.tasks.physics:TASK",
        "fredholm": "rapidgrade.tasks.fredholm:TASK",
    }
)


def _load(target: str) -> Task:
    module, _, attribute = target.partition(":")
    task = getattr(importlib.import_module(module), attribute)
    if not isinstance(task, Task):
        raise TypeError(f"{target} is not a rapidgrade task (see rapidgrade.tasks.Task)")
    return task


class Registry:
    """Task names to tasks: the built-in ones and any added with :meth:`with_task`.

    A registry is a value: :meth:`with_task` returns a new one, so nothing global changes
    when a caller adds a task for its own jobs (``score_file(..., registry=r)``,
    ``rapidgrade.__main__.main(argv, registry=r)``).
    """

    __slots__ = ("_extra", "_targets")

    def __init__(self, targets: Mapping[str, str] = BUILTIN_TASKS, extra: Mapping[str, Task] | None = None) -> None:
        self._targets = MappingProxyType(dict(targets))
        self._extra = MappingProxyType(dict(extra or {}))

    def with_task(self, task: Task) -> Registry:
        """A registry with *task* added (replacing a task of the same name)."""
        if not isinstance(task, Task):
            raise TypeError(f"with_task: {task!r} does not satisfy the rapidgrade.tasks.Task protocol")
        targets = {k: v for k, v in self._targets.items() if k != task.name}
        return Registry(targets, {**self._extra, task.name: task})

    def names(self) -> tuple[str, ...]:
        """Every task name, the built-in ones first."""
        return tuple(self._targets) + tuple(n for n in self._extra if n not in self._targets)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        return name in self._targets or name in self._extra

    def get(self, name: str) -> Task:
        """The task called *name*; :class:`~rapidgrade._io.UsageError` when there is none."""
        if name in self._extra:
            return self._extra[name]
        if name in self._targets:
            return _load(self._targets[name])
        raise UsageError(f"unknown task {name!r} (known: {', '.join(self.names())})")


def get_task(name: str) -> Task:
    """The built-in task called *name*."""
    return Registry().get(name)


def task_names() -> tuple[str, ...]:
    """The names of the built-in tasks."""
    return tuple(BUILTIN_TASKS)


def error_record(row: InputRow, result: Mapping[str, Any]) -> dict[str, Any]:
    """The evaluated record of a row that could not be graded: the row as read (or, when it
    could not be read, its source, line and raw text) plus the task's *result* fields."""
    out = dict(row.data) if row.data is not None else {"_source": row.source, "_line": row.line, "_raw": row.raw}
    out.update(result)
    return out


def positive_int(text: str) -> int:
    """An argparse type shared by the command line and the tasks' options: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def positive_float(text: str) -> float:
    """An argparse type shared by the command line and the tasks' options: a number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value
