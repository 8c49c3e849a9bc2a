"""Grading past one machine with Ray Data: :func:`grade` adds the verdict columns to a
``ray.data.Dataset``.

Each batch of the dataset reaches a grading task as an Arrow table. For the ``math`` task
with a string response column and a string or numeric gold column (the common case), the two
columns go as they are into the C++ batch path (:func:`rapidgrade.grade.grade_many`) and the
verdict columns are appended to the batch; any other task (``physics``, ``fredholm``, ``absa``,
or one added with :meth:`~rapidgrade.tasks.Registry.with_task`), and math rows the columnar path
does not take (a list of samples per row, missing or null values, a column already named like a
result), are graded by the task exactly as ``rapidgrade score`` grades them. Either way, each
output row is the input row plus the fields the scoring job writes to ``evaluated.jsonl`` (for
``math``: ``correct``, ``extracted``, ``decided_by``, ``reason``, ``method``).

The batches are Ray Data *tasks* (``ray.data.TaskPoolStrategy``), not an actor pool. Ray runs
a job's tasks in worker processes it keeps and reuses, so each process's fallback workers (SymPy,
math-verify; see :mod:`rapidgrade._pool`) stay warm from one batch to the next, and a task whose
process dies (out of memory, a lost node) is retried. An actor pool would keep them warm too, but
Ray Data hands each of its actors its own object-store references as constructor arguments while
letting it restart (``max_restarts=-1``), and Ray logs an error line about that for every actor
(ray-project/ray#57733); turning restarts off instead would make one dead actor fail the job.

:func:`score` is ``rapidgrade score --ray``: the scoring job with its grading on a cluster.

This module is ``rapidgrade.ray``; it imports the real ``ray`` package only when
:func:`grade` is called (``pip install 'rapidgrade[ray]'``). :func:`grade_table`, what each
task runs, needs only pyarrow::

    import ray
    import rapidgrade.ray

    ds = ray.data.read_parquet("s3://bucket/runs/")          # columns gold, response, ...
    graded = rapidgrade.ray.grade(ds, gold="gold", response="response", timeout=10)
    graded.write_parquet("s3://bucket/graded/")
"""

from __future__ import annotations

import importlib
import inspect
import json
from collections.abc import Mapping, Sequence
from typing import Any

from rapidgrade._io import InputRow
from rapidgrade.tasks._base import Registry, Task

__all__ = ["Grader", "configure_task", "grade", "grade_table", "score"]

#: Rows per batch handed to a task by default (large enough that Ray's per-batch overhead
#: is small next to grading, small enough to spread a dataset over many processes).
DEFAULT_BATCH_SIZE = 4096


def _pa() -> Any:
    return importlib.import_module("pyarrow")


def configure_task(
    task: str | Task = "math",
    *,
    gold: str = "gold",
    response: str = "response",
    registry: Registry | None = None,
    threads: int | None = None,
    **options: Any,
) -> tuple[Task, Any]:
    """The task object and its config for *task* with *options*, as :func:`grade` uses them.

    *gold* and *response* name the columns of tasks that have such options (``gold_key`` /
    ``response_key``: math and physics); a task that reads fixed fields (absa, fredholm) refuses
    other names. *threads* (the C++ threads of each batch) applies when the options do not set
    it. Raises ``TypeError`` for an option the task does not have and
    :class:`~rapidgrade._io.UsageError` (a ``ValueError``) for a bad value.

    >>> task, config = configure_task("math", gold="answer", timeout=2.0)
    >>> task.name, config.gold_key, config.response_key, config.grade.timeout
    ('math', 'answer', 'response', 2.0)
    """
    if isinstance(task, str):
        job_task = (registry or Registry()).get(task)
    elif isinstance(task, Task):
        job_task = task
    else:
        kind = type(task).__name__
        raise TypeError(f"rapidgrade.ray: task must be a task name or a rapidgrade.tasks.Task, not {kind}")
    params = inspect.signature(job_task.configure).parameters
    opts = dict(options)
    for key, value, default in (("gold_key", gold, "gold"), ("response_key", response, "response")):
        if key in params:
            opts.setdefault(key, value)
        elif value != default:
            raise TypeError(
                f"rapidgrade.ray: the {job_task.name} task reads fixed fields ({key.removesuffix('_key')}={value!r} "
                "cannot be set)"
            )
    if threads is not None and "threads" in params and opts.get("threads") is None:
        opts["threads"] = threads
    return job_task, job_task.configure(**opts)


def _text_cell(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _column(values: list[Any]) -> Any:
    """An Arrow array of *values*; values of no common Arrow type (a number in one row, a
    string in another) become text, strings as they are and other values as JSON, as
    ``evaluated.parquet`` writes them."""
    pa = _pa()
    try:
        return pa.array(values)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, OverflowError):
        return pa.array([_text_cell(v) for v in values], type=pa.string())


def _records_table(records: Sequence[Mapping[str, Any]]) -> Any:
    names: dict[str, None] = {}
    for record in records:
        names.update(dict.fromkeys(record))
    return _pa().table({name: _column([r.get(name) for r in records]) for name in names})


def _math_columnar(table: Any, config: Any) -> Any | None:
    """The math task's verdict columns appended to *table*, straight from its gold and response
    columns, or ``None`` when the rows need the task's row path (what the row path would grade
    differently: a missing, null or non-scalar value, a list of samples, a result-named column)."""
    from rapidgrade.grade import grade_many
    from rapidgrade.tasks.math import RESULT_KEYS

    pa = _pa()
    names = table.column_names
    gold_key, response_key = config.gold_key, config.response_key
    if gold_key not in names or response_key not in names or any(k in names for k in RESULT_KEYS):
        return None
    gold, response = table.column(gold_key), table.column(response_key)
    if gold.null_count or response.null_count:
        return None
    t = pa.types
    if not (t.is_string(response.type) or t.is_large_string(response.type)):
        return None
    kinds = (t.is_string, t.is_large_string, t.is_integer, t.is_floating)
    if not any(kind(gold.type) for kind in kinds):
        return None
    results = grade_many(
        gold.to_pylist(), response.to_pylist(), config=config.grade, threads=config.threads, workers=config.workers
    )
    columns = {
        "correct": pa.array(results.correct, type=pa.bool_()),
        "extracted": pa.array(results.extracted, type=pa.string()),
        "decided_by": pa.array(results.decided_by.tolist(), type=pa.string()),
        "reason": pa.array(results.reason, type=pa.string()),
        "method": pa.array(results.method, type=pa.string()),
    }
    for name, column in columns.items():
        table = table.append_column(name, column)
    return table


def _is_math(config: Any) -> bool:
    from rapidgrade.tasks.math import MathConfig

    return isinstance(config, MathConfig)


def grade_table(table: Any, task: Task, config: Any) -> Any:
    """Grade the rows of the Arrow table *table* with *task* and *config* (from
    :func:`configure_task`); returns a table with the rows' fields plus the result fields, in
    order. This is what each of :func:`grade`'s tasks does with a batch.

    >>> import pyarrow as pa
    >>> task, config = configure_task("math")
    >>> t = grade_table(pa.table({"gold": ["1/2", "3"], "response": ["\\\\boxed{0.5}", "It is 4."]}), task, config)
    >>> t.column_names
    ['gold', 'response', 'correct', 'extracted', 'decided_by', 'reason', 'method']
    >>> t.column("correct").to_pylist(), t.column("extracted").to_pylist()
    ([True, False], ['0.5', '4'])
    """
    if table.num_rows == 0:
        return table
    if _is_math(config):
        out = _math_columnar(table, config)
        if out is not None:
            return out
    rows = [InputRow("ray", i, record) for i, record in enumerate(table.to_pylist(), 1)]
    records = task.start(config).grade(rows)
    if len(records) != len(rows):
        raise RuntimeError(f"rapidgrade.ray: task {task.name} returned {len(records)} records for {len(rows)} rows")
    return _records_table(records)


class Grader:
    """:func:`grade_table` as a callable class, configured once, for those who run it over an
    actor pool of their own (``ds.map_batches(Grader, compute=ray.data.ActorPoolStrategy(...),
    fn_constructor_kwargs={"task": "math", "options": {...}})``). :func:`grade` runs tasks
    instead (see the module's description)."""

    def __init__(self, task: str | Task, options: Mapping[str, Any], threads: int | None = None) -> None:
        self.task, self.config = configure_task(task, threads=threads, **options)

    def __call__(self, batch: Any) -> Any:
        return grade_table(batch, self.task, self.config)


def grade(
    ds: Any,
    gold: str = "gold",
    response: str = "response",
    *,
    task: str | Task = "math",
    concurrency: int | tuple[int, int] | None = None,
    num_cpus: float = 1,
    batch_size: int = DEFAULT_BATCH_SIZE,
    registry: Registry | None = None,
    **options: Any,
) -> Any:
    """Grade every row of the Ray dataset *ds*; returns a dataset with the rows' columns plus
    the result columns of *task* (for ``math``: ``correct``, ``extracted``, ``decided_by``,
    ``reason``, ``method``), computed lazily like any Ray Data transformation.

    *gold* and *response* name the gold and response columns (math, physics). *task* is
    ``"math"`` (default), ``"physics"``, ``"fredholm"``, ``"absa"`` (names are looked up in
    *registry*) or a task object; *options* are the task's options, as
    ``rapidgrade.score_file(..., task=...)`` takes them (math: ``timeout``, ``fallback``,
    ``last_number``, ``rel_tol``, ``abs_tol``, ``float_rounding``, ``workers``, ``config``;
    physics: ``rel_tol``, ``sig_figs``, ``unit_required``, ``unit_key``; fredholm:
    ``n_points``, ``symbolic_timeout``, ...; absa: ``stages``, ``repair``, ...). They are checked
    here, before anything runs.

    Batches of *batch_size* rows are graded by Ray Data tasks (``ray.data.TaskPoolStrategy``),
    each reserving *num_cpus* CPUs and grading with as many C++ threads (unless ``threads`` is
    given): by default as many at once as the cluster's CPUs allow, at most *concurrency* with
    an int (with ``(min, max)``, kept from the actor pool this used to be, at most *max*). Ray
    reuses its worker processes from one task to the next, so their fallback workers stay warm,
    and retries a task whose process died. Row order follows Ray Data's rules: set
    ``ray.data.DataContext.get_current().execution_options.preserve_order = True`` to keep the
    input order.

    Example (``ray.init(num_cpus=2)`` starts a local cluster; see ``docs/ray.md``)::

        ds = ray.data.from_items([{"gold": "1/2", "response": "so \\\\boxed{0.5}"}])
        rapidgrade.ray.grade(ds).take_all()[0]["correct"]      # True
    """
    ray = importlib.import_module("ray")
    if batch_size < 1:
        raise ValueError(f"rapidgrade.ray.grade: batch_size must be >= 1, got {batch_size}")
    if not num_cpus > 0:
        raise ValueError(f"rapidgrade.ray.grade: num_cpus must be > 0, got {num_cpus}")
    threads = max(1, int(num_cpus))
    job_task, config = configure_task(task, gold=gold, response=response, registry=registry, threads=threads, **options)
    if concurrency is None:
        size = None
    elif isinstance(concurrency, int) and not isinstance(concurrency, bool):
        size = concurrency
    elif isinstance(concurrency, tuple) and len(concurrency) == 2:
        size = concurrency[1]
    else:
        raise TypeError(f"rapidgrade.ray.grade: concurrency must be an int or (min, max), got {concurrency!r}")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise ValueError(f"rapidgrade.ray.grade: concurrency must be >= 1, got {concurrency!r}")
    # The task object and its config travel once, inside Ray Data's map transformer; each task
    # grades one batch with them (no per-batch configuration).
    return ds.map_batches(
        grade_table,
        batch_format="pyarrow",
        batch_size=batch_size,
        compute=ray.data.TaskPoolStrategy(size=size),
        num_cpus=num_cpus,
        fn_kwargs={"task": job_task, "config": config},
        zero_copy_batch=True,
    )


def score(
    inputs: Any = None,
    *,
    address: str | None = None,
    actors: int | None = None,
    task: str | Task = "math",
    **kwargs: Any,
) -> Any:
    """``rapidgrade score --ray ADDRESS``: :func:`rapidgrade.score.score_file` (same arguments:
    *out*, *fmt*, *resume*, *chunk_size*, the task's options) with the grading on the Ray cluster
    at *address* (``None``: ``RAY_ADDRESS`` or a new local cluster; ``"auto"``: the cluster
    started on this machine with ``ray start``), by *actors* actors (default: one per CPU of the
    cluster). The outputs, their order and the metrics are the single-machine job's, and a run
    may be resumed with or without Ray. See :mod:`rapidgrade._ray_score`."""
    from rapidgrade._ray_score import score_ray

    return score_ray(inputs, address=address, actors=actors, task=task, **kwargs)
