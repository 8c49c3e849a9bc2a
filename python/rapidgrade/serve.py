r"""``rapidgrade serve``: a reward server speaking the RL trainers' protocols (the ``[serve]`` extra).

An ASGI app (Starlette, JSON by orjson) run by uvicorn. Every request's pairs go to the process's
:class:`~rapidgrade.aio.Batcher`, so that requests of one sample each, from many connections,
are graded together in ``grade_many`` batches off the event loop.

Endpoints (request → response; every body is JSON):

``POST /get_reward``
    OpenRLHF's remote reward model (``--remote_rm_url http://HOST:PORT/get_reward``; the path
    OpenRLHF's own ``serve_rm`` serves, the body its ``utils/agent.py`` posts):
    ``{"query": [...], "prompts": [...], "labels": [...]}`` → ``{"rewards": [...], "scores":
    [...], "extra_logs": {"correct": [...], "fast": [...]}}``. A query is the prompt followed by
    the response, so the response graded is what follows the prompt (the whole query when it
    does not start with its prompt); ``prompts`` may be left out (the whole query is graded).
``POST /slime``
    slime's ``--rm-url`` (``rm_type remote_rm``, ``slime/rollout/rm_hub/__init__.py``):
    ``{"prompt": ..., "response": "...", "label": ...}`` → the reward, a JSON number.
``POST /verify``
    NeMo-Gym's resources-server verify (``nemo_gym/base_resources_server.py``, the fields of
    ``math_with_judge``): ``{"responses_create_params": {...}, "response": {"output": [...]},
    "expected_answer": "..."}`` → the request's fields plus ``reward``, ``extracted_answer``,
    ``library_reward``, ``judge_evaluations`` (null), ``decided_by`` and ``reason``. The text
    graded is the ``output_text`` parts of the response's ``message`` items, joined.
``POST /grade``
    The native batch: ``{"gold": [...] or "one gold", "response": [...], "task": "math",
    "last_number": true, "fallback": true}`` (the last three optional) → the verdict columns
    ``{"correct", "decided_by", "gold", "extracted", "method", "reason"}``, lists in input order.
``GET /health``
    ``{"status": "ok", ...}`` with the version, task and batcher counters.

Golds (``labels``, ``label``, ``expected_answer``, ``gold``) are strings or numbers; the reward
endpoints also take a list of acceptable answers. Responses are strings. The reward endpoints
score as :class:`~rapidgrade.integrations.rewards.RewardConfig` says (the options of the
command line: ``--last-number``, ``--no-fallback``, ``--timeout``, ``--format-score``, ``--policy``...):
by default the reward preset of :mod:`rapidgrade.policy`.

Errors are JSON ``{"error": message, "field": name}`` with a 4xx status, never a 500: 400
invalid JSON, 413 a body over ``--max-body-bytes``, 422 a missing field, a value of the wrong
type, lists of different lengths; 504 a request not graded within ``--deadline`` seconds.
uvicorn drains in-flight requests on SIGTERM or SIGINT (up to ``--graceful-timeout`` seconds),
then the batcher finishes its batches. ``--workers N`` runs N processes sharing the port, each
with its own batcher.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import dataclasses
import gc
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import orjson

import rapidgrade
from rapidgrade.aio import TASKS, BatchConfig, Batcher, Job
from rapidgrade.config import GradeConfig
from rapidgrade.grade import grade_many
from rapidgrade.integrations.aio import RewardJob
from rapidgrade.integrations.rewards import RewardConfig, reward_config, scores_of
from rapidgrade.tasks._base import positive_float, positive_int
from rapidgrade.verdict import DECIDERS

if TYPE_CHECKING:  # Starlette (the serve extra) is imported when an app is created
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

__all__ = ["ServeConfig", "create_app", "main"]

#: The environment variable that carries the configuration to ``--workers`` processes.
CONFIG_ENV = "RAPIDGRADE_SERVE_CONFIG"

#: The collector's youngest-generation threshold while a server runs with ``tune_gc`` (the
#: interpreter's default is 700 allocations).
GC_GEN0_THRESHOLD = 50_000


@dataclass(frozen=True, slots=True)
class ServeConfig:
    """Options of the server (each a ``rapidgrade serve`` option).

    Attributes:
        host: Address to listen on (default loopback only).
        port: TCP port.
        task: What the reward endpoints and ``/grade`` grade by default (``math`` or ``physics``).
        workers: Processes sharing the port.
        max_body_bytes: Largest request body accepted (larger: 413).
        deadline: Seconds a request may wait for its grades (then 504).
        graceful_timeout: Seconds uvicorn waits for in-flight requests at shutdown.
        batch: How requests' pairs are batched (:class:`~rapidgrade.aio.BatchConfig`).
        reward: How the reward endpoints score (:class:`~rapidgrade.integrations.rewards.RewardConfig`).
        log_level: uvicorn's log level.
        tune_gc: While the app runs, the process's cyclic garbage collector leaves the objects of
            start-up alone (``gc.freeze()``) and collects its youngest generation every
            :data:`GC_GEN0_THRESHOLD` allocations instead of 700 (restored at shutdown): a
            server's requests allocate thousands of short-lived objects per second, and each
            full collection over every module's objects paused all requests (the p99 latency of
            one-sample requests fell from 63 ms to about 20 ms; ``docs/rewards-rl.md``). Turn it off
            when the app is embedded in a process whose collector is tuned otherwise.
    """

    host: str = "127.0.0.1"
    port: int = 8000
    task: str = "math"
    workers: int = 1
    max_body_bytes: int = 16 * 1024 * 1024
    deadline: float = 60.0
    graceful_timeout: float = 30.0
    batch: BatchConfig = field(default_factory=BatchConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    log_level: str = "warning"
    tune_gc: bool = True

    def __post_init__(self) -> None:
        where = "ServeConfig"
        if not isinstance(self.tune_gc, bool):
            raise TypeError(f"{where}: tune_gc must be a bool, got {type(self.tune_gc).__name__}")
        if self.task not in TASKS:
            raise ValueError(f"{where}: task must be one of {', '.join(TASKS)}, got {self.task!r}")
        for name in ("port", "workers", "max_body_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"{where}: port must be in [0, 65535], got {self.port}")
        if self.workers < 1 or self.max_body_bytes < 1:
            raise ValueError(f"{where}: workers and max_body_bytes must be >= 1")
        for name in ("deadline", "graceful_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"{where}: {name} must be a positive number of seconds, got {value!r}")

    def to_json(self) -> str:
        """The configuration as JSON (how ``--workers`` processes receive it)."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        """The inverse of :meth:`to_json`."""
        data = json.loads(text)
        data["batch"] = BatchConfig(**data["batch"])
        data["reward"] = RewardConfig(**data["reward"])
        return cls(**data)


class BadRequest(Exception):
    """A request the server refuses: *status*, a message, and the field it is about."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


def _json(data: Any, status: int = 200) -> Response:
    from starlette.responses import Response

    return Response(orjson.dumps(data), status_code=status, media_type="application/json")


def _error(status: int, message: str, field: str | None = None) -> Response:
    return _json({"error": message, "field": field}, status)


# -- reading requests -------------------------------------------------------------------------


async def _body(request: Request, limit: int) -> Any:
    """The request's JSON body (413 past *limit* bytes, 400 when it is not JSON)."""
    length = request.headers.get("content-length")
    if length is not None:
        try:
            declared = int(length)
        except ValueError:
            raise BadRequest(400, f"invalid Content-Length header {length!r}", "Content-Length") from None
        if declared > limit:
            raise BadRequest(413, f"request body of {declared} bytes is over the limit of {limit} bytes", "body")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BadRequest(413, f"request body is over the limit of {limit} bytes", "body")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw:
        raise BadRequest(400, "empty request body: expected a JSON object", "body")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        raise BadRequest(400, f"invalid JSON: {error}", "body") from None


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise BadRequest(422, f"the body must be a JSON object, got {_kind(body)}", "body")
    return body


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _field(body: dict[str, Any], name: str) -> Any:
    if name not in body:
        raise BadRequest(422, f"missing field {name!r}", name)
    return body[name]


def _list(body: dict[str, Any], name: str) -> list[Any]:
    value = _field(body, name)
    if not isinstance(value, list):
        raise BadRequest(422, f"{name} must be an array, got {_kind(value)}", name)
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise BadRequest(422, f"{where} must be a string, got {_kind(value)}", where)
    return value


def _gold(value: Any, where: str, *, lists: bool) -> tuple[str, ...]:
    """The acceptable answers of one gold: a string, a number or (when *lists*) an array of those."""
    if isinstance(value, str):
        answers: tuple[str, ...] = (value,) if value.strip() else ()
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        answers = (str(value),)
    elif lists and isinstance(value, list):
        answers = tuple(a for k, item in enumerate(value) for a in _gold(item, f"{where}[{k}]", lists=False))
    else:
        kinds = "a string, a number or an array of those" if lists else "a string or a number"
        raise BadRequest(422, f"{where} must be {kinds}, got {_kind(value)}", where)
    if not answers:
        raise BadRequest(422, f"{where} is empty: there is nothing to grade against", where)
    return answers


def _texts(values: list[Any], name: str) -> list[str]:
    """*values*, checked to be strings (the common case in one pass, without a message per item)."""
    if all(type(v) is str for v in values):
        return values
    return [_text(v, f"{name}[{k}]") for k, v in enumerate(values)]


def _golds(values: list[Any], name: str) -> list[str]:
    """One gold per item of *values* (a string or a number, not blank)."""
    if all(type(v) is str and v and not v.isspace() for v in values):
        return values
    return [_gold(v, f"{name}[{k}]", lists=False)[0] for k, v in enumerate(values)]


def _same_length(body: dict[str, Any], names: Sequence[str], lists: Sequence[list[Any]]) -> None:
    n = len(lists[0])
    for name, values in zip(names[1:], lists[1:]):
        if len(values) != n:
            raise BadRequest(
                422, f"{name} has {len(values)} items but {names[0]} has {n}: they must have the same length", name
            )


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise BadRequest(422, f"{name} must be true or false, got {_kind(value)}", name)
    return value


# -- the app ----------------------------------------------------------------------------------

#: The verdict columns ``POST /grade`` answers with.
_COLUMNS = ("correct", "decided_by", "gold", "extracted", "method", "reason")


@dataclass(frozen=True, slots=True)
class _ColumnsJob(Job[dict[str, list[Any]]]):
    """``grade_many`` on ``(golds, responses)`` items, each the lists of one request: the requests
    submitted together are graded in one call, and each gets its slice of the verdict columns
    (no Verdict object per pair)."""

    config: GradeConfig
    task: str
    sized: ClassVar[bool] = True

    def size(self, item: Any) -> int:
        return len(item[0])

    def run(self, items: list[Any], threads: int | None = None) -> list[dict[str, list[Any]]]:
        if len(items) == 1:
            golds, responses = items[0]
        else:
            golds = [gold for item in items for gold in item[0]]
            responses = [response for item in items for response in item[1]]
        results = grade_many(golds, responses, config=self.config, task=self.task, threads=threads)
        columns: dict[str, list[Any]] = {
            "correct": results.correct.tolist(),
            "decided_by": results.decided_by.tolist(),
            "gold": results.gold,
            "extracted": results.extracted,
            "method": results.method,
            "reason": results.reason,
        }
        if len(items) == 1:
            return [columns]
        out: list[dict[str, list[Any]]] = []
        start = 0
        for item in items:
            end = start + len(item[0])
            out.append({name: column[start:end] for name, column in columns.items()})
            start = end
        return out


class _DeadlineExceeded(Exception):
    """A request's pairs were not graded within the server's deadline."""


class _Deadlines:
    """Fails each future still pending *seconds* after it was added (with
    :class:`_DeadlineExceeded`), with one timer for all of them: ``asyncio.wait_for`` costs a
    timer, a waiter future and two callbacks per request, about 6 us of the event loop's time.
    Every future gets the same delay, so the queue is in deadline order; the futures done are
    dropped from its head as new ones come, and the whole queue is compacted when it grows."""

    __slots__ = ("_compact_at", "_queue", "_seconds", "_timer")

    _COMPACT = 4096

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._queue: collections.deque[tuple[float, asyncio.Future[Any]]] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self._compact_at = self._COMPACT

    def add(self, future: asyncio.Future[Any]) -> None:
        """Watch *future* (from the event loop that runs the server)."""
        queue = self._queue
        while queue and queue[0][1].done():
            queue.popleft()
        if len(queue) >= self._compact_at:  # a slow head holds many done futures behind it
            self._queue = queue = collections.deque(entry for entry in queue if not entry[1].done())
            self._compact_at = max(self._COMPACT, 2 * len(queue))
        loop = future.get_loop()
        queue.append((loop.time() + self._seconds, future))
        if self._timer is None:
            self._timer = loop.call_at(queue[0][0], self._expire, loop)

    def _expire(self, loop: asyncio.AbstractEventLoop) -> None:
        self._timer = None
        queue = self._queue
        now = loop.time()
        while queue:
            due, future = queue[0]
            if not future.done():
                if due > now:
                    break
                future.set_exception(_DeadlineExceeded())
            queue.popleft()
        if queue:
            self._timer = loop.call_at(queue[0][0], self._expire, loop)

    def close(self) -> None:
        """Stop the timer (at shutdown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._queue.clear()


class _RewardColumns:
    """The scores and the verdict columns the reward endpoints answer with, of one batch
    (built in the worker thread, once per batch)."""

    __slots__ = ("correct", "decided_by", "extracted", "reason", "scores")

    def __init__(
        self,
        scores: list[float],
        correct: list[bool],
        decided_by: list[str],
        extracted: list[str | None],
        reason: list[str],
    ) -> None:
        self.scores, self.correct, self.decided_by = scores, correct, decided_by
        self.extracted, self.reason = extracted, reason


class _Rows:
    """One request's rows of a graded batch (a slice of its :class:`_RewardColumns`, taken
    when an endpoint reads a column)."""

    __slots__ = ("_columns", "_end", "_start")

    def __init__(self, columns: _RewardColumns, start: int, end: int) -> None:
        self._columns, self._start, self._end = columns, start, end

    def __len__(self) -> int:
        return self._end - self._start

    def column(self, name: str) -> list[Any]:
        """The request's values of column *name* (``scores``, ``correct``, ``decided_by``,
        ``extracted`` or ``reason``)."""
        values: list[Any] = getattr(self._columns, name)
        return values[self._start : self._end]

    def row(self, name: str) -> Any:
        """The first row's value of column *name* (a request of one pair)."""
        return getattr(self._columns, name)[self._start]


@dataclass(frozen=True, slots=True)
class _RewardRows(Job[_Rows]):
    """The reward endpoints' job: items are the ``(answers, text)`` pairs of one request; the
    requests submitted together are graded in one call of *job* (a :class:`RewardJob`: the same
    grading and reward preset as the async reward functions), and each request gets its
    :class:`_Rows` of the batch's columns: no Verdict object per pair."""

    job: RewardJob
    sized: ClassVar[bool] = True

    def size(self, item: Any) -> int:
        return len(item)

    def run(self, items: list[Any], threads: int | None = None) -> list[_Rows]:
        flat = items[0] if len(items) == 1 else [pair for item in items for pair in item]
        results = self.job.grade(flat, threads)
        if len(results) != len(flat):
            raise RuntimeError(f"RewardJob.grade returned {len(results)} verdicts for {len(flat)} pairs")
        columns = _RewardColumns(
            scores_of(results, self.job.config),
            results.correct.tolist(),
            [DECIDERS[code] for code in results.decided_by_codes.tolist()],
            results.extracted,
            [reason or "" for reason in results.reason],
        )
        out: list[_Rows] = []
        start = 0
        for item in items:
            out.append(_Rows(columns, start, start + len(item)))
            start += len(item)
        return out


class _Server:
    """The endpoints, over one batcher (created at start-up, on the server's event loop)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.batcher: Batcher | None = None
        self.job = _RewardRows(RewardJob(config.reward, task=config.task))
        self.deadlines = _Deadlines(config.deadline)

    async def grade(self, job: Job[Any], pairs: Any) -> Any:
        """The results of one request's *pairs*: one item of the batcher, graded with the other
        requests' in one call."""
        batcher = self.batcher
        if batcher is None:  # the app was run without its lifespan
            batcher = self.batcher = Batcher(self.config.batch)
        if not pairs:
            return []
        future = batcher.submit(job, pairs)
        self.deadlines.add(future)
        try:
            return await future
        except _DeadlineExceeded:
            raise BadRequest(504, f"not graded within the deadline of {self.config.deadline:g} s", None) from None

    def _reward_job(self, answers: Sequence[tuple[str, ...]], where: str) -> _RewardRows:
        if self.config.task != "math":
            for k, row in enumerate(answers):
                if len(row) > 1:
                    raise BadRequest(422, f"{where}[{k}]: a list of answers is graded with --task math only", where)
        return self.job

    async def get_reward(self, request: Request) -> Response:
        body = _object(await _body(request, self.config.max_body_bytes))
        queries = _list(body, "query")
        labels = _list(body, "labels")
        prompts = _list(body, "prompts") if "prompts" in body else None
        names, lists = ["query", "labels"], [queries, labels]
        if prompts is not None:
            names.append("prompts")
            lists.append(prompts)
        _same_length(body, names, lists)
        responses: list[str] = []
        for k, query in enumerate(queries):
            text = _text(query, f"query[{k}]")
            if prompts is not None:
                prompt = _text(prompts[k], f"prompts[{k}]")
                if prompt and text.startswith(prompt):
                    text = text[len(prompt) :]
            responses.append(text)
        answers = [_gold(label, f"labels[{k}]", lists=True) for k, label in enumerate(labels)]
        if not answers:
            return _json({"rewards": [], "scores": [], "extra_logs": {"correct": [], "fast": []}})
        rows: _Rows = await self.grade(self._reward_job(answers, "labels"), list(zip(answers, responses)))
        scores = rows.column("scores")
        return _json(
            {
                "rewards": scores,
                "scores": scores,
                "extra_logs": {
                    "correct": [1.0 if correct else 0.0 for correct in rows.column("correct")],
                    "fast": [1.0 if decided == "fast" else 0.0 for decided in rows.column("decided_by")],
                },
            }
        )

    async def slime(self, request: Request) -> Response:
        body = _object(await _body(request, self.config.max_body_bytes))
        response = _text(_field(body, "response"), "response")
        answers = _gold(_field(body, "label"), "label", lists=True)
        rows: _Rows = await self.grade(self._reward_job([answers], "label"), [(answers, response)])
        return _json(rows.row("scores"))

    async def verify(self, request: Request) -> Response:
        body = _object(await _body(request, self.config.max_body_bytes))
        answers = _gold(_field(body, "expected_answer"), "expected_answer", lists=False)
        response = _field(body, "response")
        if not isinstance(response, dict):
            raise BadRequest(422, f"response must be an object, got {_kind(response)}", "response")
        output = response.get("output")
        if not isinstance(output, list):
            raise BadRequest(422, f"response.output must be an array, got {_kind(output)}", "response.output")
        parts: list[str] = []
        for k, item in enumerate(output):
            if not isinstance(item, dict):
                raise BadRequest(422, f"response.output[{k}] must be an object", f"response.output[{k}]")
            if item.get("type") != "message":
                continue
            content = item.get("content")
            if not isinstance(content, list):
                raise BadRequest(422, f"response.output[{k}].content must be an array", f"response.output[{k}].content")
            for j, part in enumerate(content):
                if isinstance(part, dict) and part.get("type") == "output_text":
                    parts.append(_text(part.get("text"), f"response.output[{k}].content[{j}].text"))
        rows: _Rows = await self.grade(self.job, [(answers, "".join(parts))])
        score = rows.row("scores")
        return _json(
            {
                **body,
                "reward": score,
                "extracted_answer": rows.row("extracted"),
                "library_reward": score,
                "judge_evaluations": None,
                "decided_by": rows.row("decided_by"),
                "reason": rows.row("reason"),
            }
        )

    async def grade_endpoint(self, request: Request) -> Response:
        body = _object(await _body(request, self.config.max_body_bytes))
        responses = _list(body, "response")
        gold = _field(body, "gold")
        if isinstance(gold, list):
            _same_length(body, ["response", "gold"], [responses, gold])
            golds = _golds(gold, "gold")
        else:
            golds = [_gold(gold, "gold", lists=False)[0]] * len(responses)
        texts = _texts(responses, "response")
        task = body.get("task", self.config.task)
        if task not in TASKS:
            raise BadRequest(422, f"task must be one of {', '.join(TASKS)}, got {task!r}", "task")
        reward = self.config.reward
        grading = GradeConfig.build(
            "grade",
            None,
            last_number=_flag(body, "last_number", True),
            fallback=_flag(body, "fallback", reward.fallback),
            timeout=reward.timeout,
        )
        if not texts:
            return _json({name: [] for name in _COLUMNS})
        columns: dict[str, list[Any]] = await self.grade(_ColumnsJob(grading, task), (golds, texts))
        return _json(columns)

    async def health(self, request: Request) -> Response:
        batcher = self.batcher
        return _json(
            {
                "status": "ok",
                "version": rapidgrade.__version__,
                "task": self.config.task,
                "pid": os.getpid(),
                "batches": batcher.batches if batcher else 0,
                "graded": batcher.items if batcher else 0,
                "pending": batcher.pending if batcher else 0,
            }
        )


def _handler(endpoint: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    async def handle(request: Request) -> Response:
        try:
            return await endpoint(request)
        except BadRequest as error:
            return _error(error.status, error.message, error.field)

    return handle


@contextlib.contextmanager
def _tuned_gc(tune: bool) -> Iterator[None]:
    """While the server runs (*tune*): the objects of start-up frozen out of the collector's
    passes, and the youngest generation collected every :data:`GC_GEN0_THRESHOLD` allocations;
    both undone at shutdown (see :attr:`ServeConfig.tune_gc`)."""
    if not tune:
        yield
        return
    threshold = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(max(threshold[0], GC_GEN0_THRESHOLD), *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()


def create_app(config: ServeConfig | None = None) -> Starlette:
    """The ASGI app of the server (run it with any ASGI server; ``rapidgrade serve`` runs it with
    uvicorn)."""
    from starlette.applications import Starlette
    from starlette.routing import Route

    config = ServeConfig() if config is None else config
    server = _Server(config)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        server.batcher = Batcher(config.batch)
        with _tuned_gc(config.tune_gc):
            try:
                yield
            finally:
                await server.batcher.aclose()
                server.deadlines.close()

    routes = [
        Route("/get_reward", _handler(server.get_reward), methods=["POST"]),
        Route("/slime", _handler(server.slime), methods=["POST"]),
        Route("/verify", _handler(server.verify), methods=["POST"]),
        Route("/grade", _handler(server.grade_endpoint), methods=["POST"]),
        Route("/health", _handler(server.health), methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app


def app_from_env() -> Starlette:
    """The app configured by :data:`CONFIG_ENV` (the factory ``--workers`` processes import)."""
    text = os.environ.get(CONFIG_ENV)
    return create_app(ServeConfig.from_json(text) if text else None)


# -- the command line -------------------------------------------------------------------------

DESCRIPTION = "Serve rewards over HTTP: the reward-server protocols of OpenRLHF, slime and NeMo-Gym, and a batch API."

EPILOG = """\
endpoints (JSON bodies):
  POST /get_reward  OpenRLHF remote reward model (--remote_rm_url http://HOST:PORT/get_reward)
                    {"query": [...], "prompts": [...], "labels": [...]}
                    -> {"rewards": [...], "scores": [...], "extra_logs": {"correct": [...], "fast": [...]}}
                    the response graded is the query after its prompt
  POST /slime       slime --rm-url (rm_type remote_rm): {"prompt", "response", "label"} -> the reward
  POST /verify      NeMo-Gym verify: {"responses_create_params", "response": {"output": [...]},
                    "expected_answer"} -> the request plus "reward", "extracted_answer", ...
  POST /grade       batch: {"gold": [...] or "gold", "response": [...], "task", "last_number",
                    "fallback"} -> {"correct", "decided_by", "gold", "extracted", "method", "reason"}
  GET  /health      {"status": "ok", ...}

Golds may be strings or numbers (the reward endpoints also take a list of acceptable answers);
responses are strings. Bad input gets a 4xx JSON {"error", "field"}: 400 invalid JSON, 413 body
over --max-body-bytes, 422 missing or mistyped field or lists of different lengths; 504 past
--deadline. Requests from all connections are graded together in batches (--batch-window,
--max-batch). SIGTERM/SIGINT: in-flight requests finish (--graceful-timeout), then it exits.

examples:
  rapidgrade serve --port 8000
  rapidgrade serve --port 8000 --workers 2 --format-score 0.1
  curl -s localhost:8000/grade -d '{"gold": ["2"], "response": ["so \\\\boxed{2}"]}'
"""


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``rapidgrade serve``."""
    parser = argparse.ArgumentParser(
        prog="rapidgrade serve",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    default = ServeConfig()
    parser.add_argument("--host", default=default.host, help="address to listen on (default: %(default)s, loopback)")
    parser.add_argument("--port", type=int, default=default.port, help="TCP port (default: %(default)s)")
    parser.add_argument(
        "--task", choices=TASKS, default=default.task, help="what the endpoints grade (default: %(default)s)"
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="processes sharing the port, each with its own batcher (default: 1)",
    )
    parser.add_argument(
        "--max-body-bytes",
        type=positive_int,
        default=default.max_body_bytes,
        help="largest request body accepted; larger ones get 413 (default: %(default)s)",
    )
    parser.add_argument(
        "--deadline",
        type=positive_float,
        default=default.deadline,
        help="seconds a request may wait for its grades; then 504 (default: %(default)s)",
    )
    parser.add_argument(
        "--graceful-timeout",
        type=positive_float,
        default=default.graceful_timeout,
        help="seconds in-flight requests get to finish at shutdown (default: %(default)s)",
    )
    parser.add_argument(
        "--batch-window",
        type=float,
        default=default.batch.window * 1000,
        metavar="MS",
        help="milliseconds a batch waits for more pairs after its first (default: %(default)s)",
    )
    parser.add_argument(
        "--max-batch",
        type=positive_int,
        default=default.batch.max_batch,
        help="pairs per grade_many call at most; a batch this size starts at once (default: %(default)s)",
    )
    reward = default.reward
    parser.add_argument(
        "--last-number",
        action="store_true",
        help="reward endpoints: accept an answer found only as the last number (default: the answer must be stated)",
    )
    parser.add_argument(
        "--no-fallback", action="store_true", help="fast path only: what it cannot decide counts as wrong"
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=reward.timeout,
        help="seconds per pair in the SymPy fallback (default: %(default)s)",
    )
    parser.add_argument("--correct-score", type=float, default=reward.correct_score, help="reward of a correct answer")
    parser.add_argument(
        "--format-score", type=float, default=reward.format_score, help="reward of a wrong answer in the expected form"
    )
    parser.add_argument("--incorrect-score", type=float, default=reward.incorrect_score, help="reward of other answers")
    parser.add_argument(
        "--policy",
        choices=["reward", "plain"],
        default=reward.policy,
        help="reward endpoints: 'reward' refuses unfinished <think>, several answers and hedges (rapidgrade.policy); "
        "'plain' scores the grader's verdict as it is (default: %(default)s)",
    )
    parser.add_argument(
        "--no-gc-tuning",
        action="store_true",
        help="leave the garbage collector as it is (default: the objects of start-up are frozen out of its passes "
        f"and its youngest generation is collected every {GC_GEN0_THRESHOLD:,} allocations, not 700: "
        "full collections over every module's objects paused all requests)",
    )
    parser.add_argument(
        "--log-level",
        default=default.log_level,
        choices=["critical", "error", "warning", "info", "debug"],
        help="uvicorn's log level (default: %(default)s; info logs every request)",
    )
    return parser


def config_from_args(args: argparse.Namespace) -> ServeConfig:
    """The :class:`ServeConfig` of parsed ``rapidgrade serve`` arguments."""
    reward = reward_config(
        {
            "last_number": args.last_number,
            "fallback": not args.no_fallback,
            "timeout": args.timeout,
            "correct_score": args.correct_score,
            "format_score": args.format_score,
            "incorrect_score": args.incorrect_score,
            "policy": args.policy,
        }
    )
    return ServeConfig(
        host=args.host,
        port=args.port,
        task=args.task,
        workers=args.workers,
        max_body_bytes=args.max_body_bytes,
        deadline=args.deadline,
        graceful_timeout=args.graceful_timeout,
        batch=BatchConfig(window=args.batch_window / 1000, max_batch=args.max_batch),
        reward=reward,
        log_level=args.log_level,
        tune_gc=not args.no_gc_tuning,
    )


def uvicorn_options(config: ServeConfig) -> dict[str, Any]:
    """The keywords of ``uvicorn.run`` for *config* (uvicorn picks uvloop and httptools when they
    are installed; the access log only at the ``info`` and ``debug`` log levels)."""
    return {
        "host": config.host,
        "port": config.port,
        "log_level": config.log_level,
        "access_log": config.log_level in ("info", "debug"),
        "timeout_graceful_shutdown": config.graceful_timeout,
        "backlog": 4096,
        "lifespan": "on",
    }


def run(config: ServeConfig) -> None:
    """Serve until SIGINT or SIGTERM (uvicorn drains in-flight requests first).

    Raises:
        ImportError: the ``serve`` extra (uvicorn, Starlette) is not installed.
    """
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as error:
        raise ImportError(
            f"rapidgrade serve needs the serve extra ({error.name} is missing): pip install 'rapidgrade[serve]'"
        ) from error

    options = uvicorn_options(config)
    if config.workers == 1:
        uvicorn.run(create_app(config), **options)
    else:
        os.environ[CONFIG_ENV] = config.to_json()
        uvicorn.run("rapidgrade.serve:app_from_env", factory=True, workers=config.workers, **options)


def main(argv: Sequence[str] | None = None) -> int:
    """``rapidgrade serve [options]``; returns the exit code (2 for bad usage)."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        config = config_from_args(args)
    except (TypeError, ValueError) as error:
        print(f"rapidgrade serve: {error}", file=sys.stderr)
        return 2
    try:
        run(config)
    except ImportError as error:
        print(f"rapidgrade serve: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
