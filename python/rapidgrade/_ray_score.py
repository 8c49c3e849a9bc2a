"""``rapidgrade score --ray [ADDRESS]``: the scoring job with its grading on a Ray cluster.

The job is the single-machine one (:func:`rapidgrade.score.score_file`: reading, chunks,
checkpoints and ``--resume``, ``evaluated.jsonl`` in input order, ``metrics.json``,
``report.html``, ``--format``), given a task that wraps the chosen one (:class:`RayTask`): each
chunk of rows is split into as many parts as there are grading actors, the parts are graded at
once on the cluster, one actor per CPU, and their records come back in order. Each actor is a
long-lived process, so its fallback workers stay warm for the whole job.

The metrics are exactly those of the single-machine job: each part is graded by a fresh run of
the task in its actor, which returns the part's records and the run's counts (``state()``); the
driver adds the parts' counts in input order (:data:`MERGES`, one function per built-in task).
A task without a merge function (one added with :meth:`~rapidgrade.tasks.Registry.with_task`) is
still graded on the cluster, a chunk at a time by one actor that continues the job's counts.

The checkpoint is the single-machine job's, so a run interrupted with ``--ray`` may be resumed
with or without it.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import inspect
import json
import os
import pickle
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from rapidgrade._io import InputRow, Pick, RowBlock, UsageError
from rapidgrade.tasks._base import BlockRun, Task, TaskRun

__all__ = ["MERGES", "RayRun", "RayTask", "apply_ray_option", "merge_state", "score_ray"]

_Out = TypeVar("_Out")  # what an actor's grading call returns

#: Rows below which a chunk is not split further between actors.
MIN_PART = 256


def _ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as exc:
        raise UsageError("--ray needs Ray: pip install 'rapidgrade[ray]'") from exc


# -- adding the counts of a part to the job's counts ------------------------------------------


def _sum_counts(total: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    """Numbers added key by key, nested dicts likewise, equal-length number lists element-wise."""
    out = dict(total)
    for key, value in part.items():
        have = out.get(key)
        if isinstance(value, bool) or have is None:
            out[key] = value if have is None else have
        elif isinstance(value, (int, float)):
            out[key] = have + value
        elif isinstance(value, Mapping):
            out[key] = _sum_counts(have, value)
        elif isinstance(value, list) and all(isinstance(x, (int, float)) for x in value):
            out[key] = [a + b for a, b in zip(have, value)]
        else:
            raise ValueError(f"cannot add the count {key!r} of type {type(value).__name__}")
    return out


def _merge_math(total: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    from rapidgrade.metrics import MAX_NOTABLE

    counts = {k: v for k, v in part.items() if k not in ("notable", "elapsed_s")}
    out = _sum_counts({k: v for k, v in total.items() if k not in ("notable",)}, counts)
    out["notable"] = (list(total["notable"]) + list(part["notable"]))[:MAX_NOTABLE]
    return out


def _merge_physics(total: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    return _sum_counts(total, part)


def _merge_absa(total: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    # A bad record is [row index in the job, id, reason]: the part's indices start at 0.
    offset = int(total["rows"])
    bad = list(total["bad"]) + [[i + offset, rid, reason] for i, rid, reason in part["bad"]]
    stages = [_sum_counts(a, b) for a, b in zip(total["stages"], part["stages"])]
    transitions = [[a + b for a, b in zip(x, y)] for x, y in zip(total["transitions"], part["transitions"])]
    scalars = {k: v for k, v in part.items() if k in ("rows", "records", "scored", "gold")}
    out = _sum_counts({k: total[k] for k in scalars}, scalars)
    return {**total, **out, "bad": bad, "stages": stages, "transitions": transitions}


def _merge_fredholm(total: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    return {
        **total,
        "rows": int(total["rows"]) + int(part["rows"]),
        "metas": list(total["metas"]) + list(part["metas"]),
        "evaluations": list(total["evaluations"]) + list(part["evaluations"]),
    }


#: How the counts (``TaskRun.state()``) of consecutive parts of a job add up, per built-in task:
#: ``merge(counts of the rows before, counts of the next rows) -> counts of both``.
MERGES: Mapping[str, Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]] = {
    "math": _merge_math,
    "physics": _merge_physics,
    "absa": _merge_absa,
    "fredholm": _merge_fredholm,
}


def merge_state(task: Task, total: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    """The counts of *task*'s rows graded for *total* followed by those graded for *part*."""
    return MERGES[task.name](total, part)


def _has_merge(task: Task) -> bool:
    from rapidgrade.tasks._base import BUILTIN_TASKS, Registry

    # Only the built-in task of that name: a registry may replace "math" by another task.
    return task.name in MERGES and task.name in BUILTIN_TASKS and type(Registry().get(task.name)) is type(task)


# -- what crosses to and from the actors ---------------------------------------------------------


class _Json:
    """A value pickle cannot carry (nested deeper than its recursion limit: a row 600 levels
    deep), carried as its JSON text; read back on the other side."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
        return False
    return True


def _pack(value: Any, depth: int = 0) -> Any:
    """*value* (a part of a chunk: a list of :class:`InputRow`, a :class:`RowBlock`; or what an
    actor returns: records, lines and counts) with each row object or record that pickle cannot
    carry replaced by its JSON text (JSON reads it back as it was read: every such row came from
    JSON, the only input deep enough)."""
    if isinstance(value, InputRow):
        if value.data is not None and not _picklable(value.data):
            return dataclasses.replace(value, data=_Json(json.dumps(value.data)))  # type: ignore[arg-type]
        return value
    if isinstance(value, RowBlock):
        data = [d if d is None or _picklable(d) else _Json(json.dumps(d)) for d in value.data]
        special = {i: _pack(r, depth + 1) for i, r in value.special.items()}
        return dataclasses.replace(value, data=data, special=special)  # type: ignore[arg-type]
    if isinstance(value, dict):
        return value if _picklable(value) else _Json(json.dumps(value))
    if isinstance(value, (list, tuple)) and depth < 3:
        packed = [_pack(v, depth + 1) for v in value]
        return packed if isinstance(value, list) else tuple(packed)
    return value


def _unpack(value: Any, depth: int = 0) -> Any:
    """What :func:`_pack` made, as it was."""
    if isinstance(value, _Json):
        return json.loads(value.text)
    if isinstance(value, InputRow):
        return dataclasses.replace(value, data=_unpack(value.data)) if isinstance(value.data, _Json) else value
    if isinstance(value, RowBlock):
        value.data[:] = [_unpack(d) for d in value.data]
        for i, row in list(value.special.items()):
            value.special[i] = _unpack(row, depth + 1)
        return value
    if isinstance(value, (list, tuple)) and depth < 3:
        unpacked = [_unpack(v, depth + 1) for v in value]
        return unpacked if isinstance(value, list) else tuple(unpacked)
    return value


class _Shipped:
    """*value* as it crosses between the driver and an actor: pickled by the standard pickler
    (rows are plain data), and, when a row is nested deeper than pickle can go, with that row
    carried as JSON text (:func:`_pack`). The other side receives *value* itself."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        try:
            return pickle.loads, (pickle.dumps(self.value, protocol=pickle.HIGHEST_PROTOCOL),)
        except (RecursionError, pickle.PicklingError):
            return _unpack, (_pack(self.value),)


# -- the actors ---------------------------------------------------------------------------------


class ChunkGrader:
    """The grading actor: one per CPU of the cluster, alive for the whole job."""

    def __init__(self, task: Task, config: Any) -> None:
        self.task = task
        self.config = config

    def ping(self) -> str:
        """The id of the Ray node the actor runs on."""
        return str(_ray().get_runtime_context().get_node_id())

    def grade(
        self, rows: Sequence[InputRow], state: Mapping[str, Any] | None = None
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The records of *rows* and the counts of those rows alone, or with *state* the job's
        counts after them (continuing from *state*)."""
        return self._graded(state, lambda run: run.grade(rows))

    def grade_block(
        self, block: RowBlock, state: Mapping[str, Any] | None = None
    ) -> tuple[Sequence[bytes], dict[str, Any]]:
        """The evaluated lines of *block* (the run's columnar path) and the counts, as
        :meth:`grade` gives them."""

        def lines(run: TaskRun) -> Sequence[bytes]:
            if not isinstance(run, BlockRun):
                raise TypeError(f"the {self.task.name!r} task's run has no columnar path (grade_block)")
            return run.grade_block(block)

        return self._graded(state, lines)

    def _graded(self, state: Mapping[str, Any] | None, grade: Callable[[TaskRun], _Out]) -> tuple[_Out, dict[str, Any]]:
        run = self.task.start(self.config)
        if state is not None:
            run.restore(state)
        out = grade(run)
        return _Shipped((out, run.state()))  # type: ignore[return-value]  # arrives as the tuple


class RayRun:
    """A task's run whose chunks are graded by the actors (see the module's description)."""

    __slots__ = ("actors", "counts", "inner", "merge", "min_part", "rows", "task")

    def __init__(self, task: Task, inner: Any, actors: list[Any], merge: bool, min_part: int = MIN_PART) -> None:
        self.task = task
        self.min_part = min_part
        self.inner = inner
        self.actors = actors
        self.merge = merge
        self.counts: dict[str, Any] = inner.state()
        self.rows = 0

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        return self._spread("grade", len(rows), lambda start, stop: list(rows[start:stop]))

    def _spread(self, method: str, n: int, piece: Callable[[int, int], Any]) -> list[Any]:
        """The actors' outputs for the *n* rows of a chunk (*piece(start, stop)*: rows start to
        stop), in input order, through the actors' *method*: the parts at once when the task's
        counts merge, else the whole chunk on one actor that continues the job's counts."""
        ray = _ray()
        if not self.merge:
            out, self.counts = ray.get(getattr(self.actors[0], method).remote(_Shipped(piece(0, n)), self.counts))
            self.rows += n
            return list(out)
        parts = max(1, min(len(self.actors), n // self.min_part))
        bounds = [n * k // parts for k in range(parts + 1)]
        refs = [getattr(self.actors[k], method).remote(_Shipped(piece(bounds[k], bounds[k + 1]))) for k in range(parts)]
        merged: list[Any] = []
        for part, state in ray.get(refs):  # in input order
            merged.extend(part)
            self.counts = merge_state(self.task, self.counts, state)
        self.rows += n
        return merged

    def state(self) -> dict[str, Any]:
        return self.counts

    def restore(self, state: Mapping[str, Any]) -> None:
        self.counts = dict(state)

    def finish(self, elapsed_s: float) -> Any:
        # The job is done: its actors give their CPUs back now, not when this run is collected.
        ray = _ray()
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        self.inner.restore(self.counts)
        return self.inner.finish(elapsed_s)

    def progress_note(self, elapsed_s: float) -> str:
        return f"{self.rows / elapsed_s:,.0f} rows/s on Ray" if elapsed_s > 0 else "-"

    def report_html(self, metrics: Any) -> str:
        return str(self.inner.report_html(metrics))


class RayBlockRun(RayRun):
    """A :class:`RayRun` of a task whose run has the columnar path (``grade_block``, the math
    task): the actors grade blocks and return the lines, so the outputs are byte for byte those
    of the single-machine job."""

    __slots__ = ()

    #: Rows reach the actors whole (not picked into columns by the job's reader), and their
    #: lines are counted by the drill-down as it reads them: the BlockRun fields say so.
    pick: Pick | None = None
    verdicts: Sequence[tuple[Any, Any, bool] | None] = ()

    def grade_block(self, block: RowBlock) -> list[bytes]:
        return self._spread("grade_block", len(block), lambda start, stop: block.tail(start).head(stop - start))


class RayTask:
    """*task* with its grading on a Ray cluster: the same name, options, fingerprint (so a run
    may be resumed with or without Ray), demo set, summary and exit code.

    The cluster is joined when the first run starts (``ray.init(address)``; *address*
    ``None``: ``RAY_ADDRESS`` or a new local cluster, ``"auto"``: the cluster started on this
    machine with ``ray start``, ``"HOST:PORT"`` or ``"ray://HOST:PORT"``: that cluster).
    *actors* grading actors are started (default: one per CPU of the cluster), each reserving
    one CPU and grading with one C++ thread unless the task's ``threads`` option says otherwise.
    A chunk is split into parts of at least *min_part* rows, one per actor.
    """

    def __init__(
        self, task: Task, address: str | None = None, *, actors: int | None = None, min_part: int = MIN_PART
    ) -> None:
        if actors is not None and actors < 1:
            raise ValueError(f"RayTask: actors must be >= 1, got {actors}")
        if min_part < 1:
            raise ValueError(f"RayTask: min_part must be >= 1, got {min_part}")
        self.min_part = min_part
        self.nodes: list[str] = []  # the node of each actor of the last run started
        self.inner = task
        self.address = address
        self.actors = actors
        self.name = task.name
        self.help = task.help

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        self.inner.add_arguments(parser)

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        return self.inner.options_from_args(args)

    def configure(self, **options: Any) -> Any:
        if options.get("threads") is None and "threads" in inspect.signature(self.inner.configure).parameters:
            options["threads"] = 1  # one C++ thread per actor, one actor per CPU
        return self.inner.configure(**options)

    def input_fields(self, config: Any) -> tuple[str, ...]:
        return self.inner.input_fields(config)

    def fingerprint(self, config: Any) -> str:
        return self.inner.fingerprint(config)

    def demo(self, config: Any) -> tuple[list[Path], Any] | None:
        return self.inner.demo(config)

    def summary(self, metrics: Any) -> list[tuple[str, str]]:
        return self.inner.summary(metrics)

    def exit_code(self, metrics: Any) -> int:
        return self.inner.exit_code(metrics)

    def start(self, config: Any) -> RayRun:
        ray = _ray()
        if not ray.is_initialized():
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
        merge = _has_merge(self.inner)
        count = self.actors or max(1, int(ray.cluster_resources().get("CPU", 1)))
        if not merge:
            count = 1
        actor_class = ray.remote(num_cpus=1, scheduling_strategy="SPREAD")(ChunkGrader)
        actors = [actor_class.remote(self.inner, config) for _ in range(count)]
        # Every actor up before the clock starts; the nodes they run on, for the curious.
        self.nodes = list(ray.get([a.ping.remote() for a in actors]))
        inner_run = self.inner.start(config)
        run_type = RayBlockRun if isinstance(inner_run, BlockRun) else RayRun
        return run_type(self.inner, inner_run, actors, merge, self.min_part)


def score_ray(
    inputs: Any = None,
    *,
    address: str | None = None,
    actors: int | None = None,
    min_part: int = MIN_PART,
    task: str | Task = "math",
    registry: Any = None,
    **kwargs: Any,
) -> Any:
    """:func:`rapidgrade.score.score_file` with the grading on the Ray cluster at *address*
    (see :class:`RayTask`); the same arguments, outputs and metrics."""
    from rapidgrade.score import resolve_task, score_file

    job_task = RayTask(resolve_task(task, registry), address, actors=actors, min_part=min_part)
    return score_file(inputs, task=job_task, registry=registry, **kwargs)


def _is_address(value: str) -> bool:
    return value in ("auto", "local") or ":" in value


def apply_ray_option(args: argparse.Namespace) -> argparse.Namespace:
    """The parsed ``score`` command line with ``--ray [ADDRESS]`` applied: its task wrapped in a
    :class:`RayTask`. ``--ray`` takes an optional value, so in ``--ray runs.jsonl`` the value is
    an input when it names an existing file or is no address (``auto``, ``local``, ``HOST:PORT``,
    ``ray://HOST:PORT``)."""
    value: str = args.ray
    address: str | None = value or None
    if value and (os.path.exists(value) or not _is_address(value)):
        args.inputs = [value, *args.inputs]
        address = None
    args.task_object = RayTask(args.task_object, address)
    return args
