"""GradeConfig(judge=...): what the grader leaves open goes to the judge, nothing certain does;
OpenAIJudge against a local server that speaks the chat/completions protocol."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import rapidgrade
from rapidgrade.judge import DEFAULT_PROMPT, OpenAIJudge, to_judge
from rapidgrade.verdict import GradeResults

UNDECIDED_GOLD = "\\int_0^1 x\\,dx"  # the fast path leaves it open (fallback=False)
GOLDS = ["2", "2", "2", UNDECIDED_GOLD, UNDECIDED_GOLD]
RESPONSES: list[Any] = [r"so $\boxed{2}$", r"so $\boxed{3}$", 2, r"so $\boxed{1/2}$", r"so $\boxed{7}$"]


class Recorder:
    def __init__(self, answers: dict[str, bool | None]) -> None:
        self.answers = answers
        self.calls: list[tuple[list[str], list[str]]] = []

    def __call__(self, golds: list[str], responses: list[str]) -> list[bool | None]:
        self.calls.append((golds, responses))
        return [self.answers.get(r) for r in responses]


def test_only_open_pairs_reach_the_judge_and_it_decides_them() -> None:
    judge = Recorder({r"so $\boxed{1/2}$": True, r"so $\boxed{7}$": False})
    results = rapidgrade.grade_many(GOLDS, RESPONSES, config=rapidgrade.GradeConfig(fallback=False, judge=judge))
    # one batched call, with the two undecided pairs only: not the TRUE, not the disproved
    # FALSE, not the response that is not a string
    assert judge.calls == [([UNDECIDED_GOLD, UNDECIDED_GOLD], [r"so $\boxed{1/2}$", r"so $\boxed{7}$"])]
    assert results.correct.tolist() == [True, False, False, True, False]
    assert results.decided_by.tolist() == ["fast", "fast", "error", "judge", "judge"]
    assert results.reason[3:] == ["judge: equivalent", "judge: not equivalent"]
    assert results.extracted[3] == "1/2"  # the grader's columns stay


def test_none_leaves_the_verdict_and_no_judge_changes_nothing() -> None:
    judge = Recorder({})
    with_judge = rapidgrade.grade_many(GOLDS, RESPONSES, config=rapidgrade.GradeConfig(fallback=False, judge=judge))
    without = rapidgrade.grade_many(GOLDS, RESPONSES, config=rapidgrade.GradeConfig(fallback=False))
    assert with_judge == without
    assert without.reason[3] == "undecided by the fast path"


def test_the_selection_rule() -> None:
    results = GradeResults.from_columns(
        correct=[True, False, False, False, False, False, False, False],
        decided_by=["sympy", "sympy", "sympy", "math_verify", "timeout", "error", "limit", "fast"],
        gold=["1"] * 8,
        extracted=["1"] * 8,
        method=["boxed"] * 8,
        reason=[
            "equal",
            "disproved: 1 != 2",
            "not proven equal: sympy could not simplify",
            "not proven equal: math-verify: no",
            "no decision within 5 s",
            "sympy failed",
            "answer over 64 KiB",
            "not equivalent",
        ],
    )
    assert to_judge(["1"] * 8, ["r"] * 8, results) == [2, 3, 4, 5]
    # an error on an input that is not a string is certain: not judged
    assert to_judge(["1"] * 8, ["r"] * 5 + [None] + ["r"] * 2, results) == [2, 3, 4]
    # every pair the fast path left undecided is judged, those the fallback never gets included
    kept = GradeResults.from_columns(
        correct=[False, False, False],
        decided_by=["fast"] * 3,
        gold=["C", "7", "7"],
        extracted=[r"\frac{7}{15}", "5", "5"],
        method=["boxed", "answer_is", "answer_is"],
        reason=[
            "undecided: a multiple-choice letter against an answer that names no choice (only the options can tell)",
            "undecided: the answer was read from a phrase with words it skipped, or the markers disagree",
            "not equivalent",
        ],
    )
    assert to_judge(["C", "7", "7"], ["r"] * 3, kept) == [0, 1]


def test_a_pair_the_fallback_cannot_help_reaches_the_judge() -> None:
    # a value against a multiple-choice gold: only the options (or a judge) can tell
    config = rapidgrade.GradeConfig(judge=lambda golds, responses: [True] * len(golds))
    v = rapidgrade.grade_many(["C"], [r"so $\boxed{\frac{7}{15}}$"], config=config)[0]
    assert (v.correct, v.decided_by, v.reason) == (True, "judge", "judge: equivalent")


def test_an_async_judge_inside_and_outside_an_event_loop() -> None:
    async def judge(golds: list[str], responses: list[str]) -> list[bool | None]:
        await asyncio.sleep(0)
        return [True] * len(golds)

    config = rapidgrade.GradeConfig(fallback=False, judge=judge)
    assert rapidgrade.grade(UNDECIDED_GOLD, r"\boxed{1/2}", config=config).decided_by == "judge"

    async def inside() -> str:  # grade_many called from a coroutine: the judge gets its own loop
        return rapidgrade.grade(UNDECIDED_GOLD, r"\boxed{1/2}", config=config).decided_by

    assert asyncio.run(inside()) == "judge"
    # grade_async grades in a worker thread, where the judge runs too
    assert asyncio.run(rapidgrade.grade_async(UNDECIDED_GOLD, r"\boxed{1/2}", config=config)).decided_by == "judge"


def test_a_failing_judge_keeps_the_verdicts() -> None:
    def broken(golds: list[str], responses: list[str]) -> list[bool | None]:
        raise ConnectionError("no route to the verifier")

    def short(golds: list[str], responses: list[str]) -> list[bool | None]:
        return []

    for judge, message in ((broken, "ConnectionError: no route"), (short, "returned 0 answers for 2 pairs")):
        results = rapidgrade.grade_many(GOLDS, RESPONSES, config=rapidgrade.GradeConfig(fallback=False, judge=judge))
        assert results.decided_by.tolist() == ["fast", "fast", "error", "fast", "fast"]
        for reason in results.reason[3:]:
            assert reason.startswith("undecided by the fast path; judge failed") and message in reason


def test_judge_must_be_callable() -> None:
    with pytest.raises(TypeError, match="GradeConfig: judge must be a callable or None, not int"):
        rapidgrade.GradeConfig(judge=5)  # type: ignore[arg-type]


# -- OpenAIJudge against a local chat/completions server ---------------------------------------


@contextlib.contextmanager
def chat_server(requests: list[dict[str, Any]]) -> Iterator[str]:
    """A local server with the OpenAI chat/completions protocol: it answers YES when the response
    holds 1/2 and the reference is an integral, "Maybe" for a response holding "hedge", else NO."""
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        requests.append({"body": body, "authorization": request.headers.get("authorization")})
        user = body["messages"][-1]["content"]
        integral_half = "1/2" in user and "\\int" in user
        word = "Maybe" if "hedge" in user else "YES." if integral_half else "NO"
        return JSONResponse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": {"role": "assistant", "content": word}, "finish_reason": "stop"}],
            }
        )

    app = Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(600):
        if server.started:
            break
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


def test_openai_judge_on_a_local_server() -> None:
    requests: list[dict[str, Any]] = []
    golds = [*GOLDS, UNDECIDED_GOLD]
    responses = [*RESPONSES, r"so $\boxed{5}$, or hedge"]
    with chat_server(requests) as base_url:
        judge = OpenAIJudge(base_url=base_url, model="verifier", api_key="k", concurrency=2)
        results = rapidgrade.grade_many(golds, responses, config=rapidgrade.GradeConfig(fallback=False, judge=judge))
    assert len(requests) == 3  # the open pairs only
    assert results.correct.tolist() == [True, False, False, True, False, False]
    assert results.decided_by.tolist() == ["fast", "fast", "error", "judge", "judge", "fast"]
    assert results.reason[5] == "undecided by the fast path"  # "Maybe": left as it was
    body = requests[0]["body"]
    assert body["model"] == "verifier" and body["temperature"] == 0
    assert body["messages"][0] == {"role": "system", "content": DEFAULT_PROMPT}
    assert body["messages"][1]["content"].startswith(f"Reference answer: {UNDECIDED_GOLD}\n\nResponse:\n")
    assert requests[0]["authorization"] == "Bearer k"


def test_openai_judge_unreachable_is_undecided() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens there once closed
    judge = OpenAIJudge(base_url=f"http://127.0.0.1:{port}/v1", model="m", timeout=5)
    assert judge(["1"], ["1"]) == [None]
