r"""``rapidgrade serve`` on a real loopback port, called with httpx and with the request bodies the
trainers' own client code builds (each test cites the file it follows)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import rapidgrade
from rapidgrade.aio import BatchConfig
from rapidgrade.integrations.rewards import RewardConfig, score_many
from rapidgrade.serve import ServeConfig
from tests.serve.conftest import Running, running

CHAT_PROMPT = "<|im_start|>user\nWhat is $1+1$? Put the answer in \\boxed{}.<|im_end|>\n<|im_start|>assistant\n"


def post(server: Running, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
    return httpx.post(server.url + path, json=body, timeout=60, **kwargs)


# -- OpenRLHF ---------------------------------------------------------------------------------


def test_openrlhf_remote_rm_body(served: Running) -> None:
    # The body OpenRLHF 0.11's SingleTurnAgentExecutor._fetch_rewards_via_http posts to
    # --remote_rm_url (openrlhf/utils/agent.py): one query (prompt and response decoded together,
    # special tokens kept), its prompt and its label, each in a list.
    query = CHAT_PROMPT + "We add the numbers: $\\boxed{2}$.<|im_end|>"
    payload = {"query": [query], "prompts": [CHAT_PROMPT], "labels": ["2"]}
    reply = post(served, "/get_reward", payload)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    assert data == {"rewards": [1.0], "scores": [1.0], "extra_logs": {"correct": [1.0], "fast": [1.0]}}
    # what OpenRLHF reads back (rewards_info.get("scores") / .get("rewards") / .get("extra_logs")),
    # and extra_logs values it turns into tensors: numbers only
    assert all(isinstance(x, float) for values in data["extra_logs"].values() for x in values)


def test_openrlhf_grades_the_response_after_its_prompt(served: Running) -> None:
    # A prompt that holds a boxed answer of its own must not be graded: only what follows it is.
    prompt = "Example: \\boxed{7}. Now: what is 1+1?\n"
    payload = {
        "query": [prompt + "It is \\boxed{3}.", prompt + "It is \\boxed{2}.", "No prompt prefix: \\boxed{2}"],
        "prompts": [prompt, prompt, "something else"],
        "labels": ["7", "2", "2"],
    }
    data = post(served, "/get_reward", payload).json()
    assert data["rewards"] == [0.0, 1.0, 1.0]  # the third: no prefix, the whole query is graded


def test_openrlhf_batch_matches_score_many(served: Running, demo_corpus: list[dict[str, Any]]) -> None:
    rows = demo_corpus[:200]
    golds = [str(r["gold"]) for r in rows]
    responses = [r["response"] for r in rows]
    prompts = [f"Problem {i}:\n" for i in range(len(rows))]
    payload = {"query": [p + r for p, r in zip(prompts, responses)], "prompts": prompts, "labels": golds}
    data = post(served, "/get_reward", payload).json()
    assert data["rewards"] == score_many(golds, responses)
    assert 0 < sum(data["rewards"]) < len(rows)


# -- slime ------------------------------------------------------------------------------------


def test_slime_rm_url_body(served: Running) -> None:
    # slime's remote_rm (slime/rollout/rm_hub/__init__.py) posts {"prompt", "response", "label"}
    # of one Sample to --rm-url and uses the JSON it gets back as the sample's reward.
    sample = {"prompt": CHAT_PROMPT, "response": "so the answer is $\\boxed{\\frac{1}{2}}$", "label": "0.5"}
    reply = post(served, "/slime", sample)
    assert reply.status_code == 200
    assert reply.json() == 1.0
    sample["response"] = "so the answer is $\\boxed{3}$"
    assert post(served, "/slime", sample).json() == 0.0
    # a prompt given as messages (Sample.prompt may be a list of dicts) and a list label
    messages = [{"role": "user", "content": "1+1?"}]
    reply = post(served, "/slime", {"prompt": messages, "response": "\\boxed{2.0}", "label": ["two", "2"]})
    assert reply.json() == 1.0


# -- NeMo-Gym ---------------------------------------------------------------------------------


def nemo_gym_verify_body(text: str, expected: str) -> dict[str, Any]:
    # A LibraryJudgeMathVerifyRequest (resources_servers/math_with_judge/app.py): BaseVerifyRequest's
    # responses_create_params and response (nemo_gym/base_resources_server.py, an OpenAI Responses
    # API response whose output holds reasoning and message items) plus question and expected_answer.
    return {
        "responses_create_params": {"input": [{"role": "user", "content": "Compute 83/499.", "type": "message"}]},
        "response": {
            "id": "resp_1",
            "object": "response",
            "output": [
                {"id": "rs_1", "summary": [], "type": "reasoning"},
                {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                },
            ],
        },
        "question": "Compute 83/499.",
        "expected_answer": expected,
    }


def test_nemo_gym_verify(served: Running) -> None:
    body = nemo_gym_verify_body("The answer is \\boxed{\\frac{83}{499}}", "\\(\\frac{83}{499}\\)")
    reply = post(served, "/verify", body)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    # BaseVerifyResponse: the request's fields and reward; math_with_judge's response fields too
    assert {k: data[k] for k in body} == body
    assert data["reward"] == 1.0 and data["library_reward"] == 1.0
    assert data["extracted_answer"] == "\\frac{83}{499}"
    assert data["judge_evaluations"] is None
    assert data["decided_by"] == "fast"
    wrong = post(served, "/verify", nemo_gym_verify_body("\\boxed{83/500}", "83/499")).json()
    assert wrong["reward"] == 0.0 and wrong["reason"] == "not equivalent"


# -- /grade and /health -----------------------------------------------------------------------


def test_grade_columns_match_grade_many(served: Running, demo_corpus: list[dict[str, Any]]) -> None:
    rows = demo_corpus[:300]
    golds = [str(r["gold"]) for r in rows]
    responses = [r["response"] for r in rows]
    data = post(served, "/grade", {"gold": golds, "response": responses}).json()
    expected = rapidgrade.grade_many(golds, responses)
    assert data["correct"] == expected.correct.tolist()
    assert data["decided_by"] == expected.decided_by.tolist()
    assert data["reason"] == expected.reason
    assert data["extracted"] == expected.extracted
    assert data["method"] == expected.method
    assert data["gold"] == expected.gold


def test_grade_one_gold_options_and_task(served: Running) -> None:
    data = post(served, "/grade", {"gold": "12", "response": ["It is 12.", "\\boxed{13}"]}).json()
    assert data["correct"] == [True, False]
    data = post(served, "/grade", {"gold": ["12"], "response": ["It is 12."], "last_number": False}).json()
    assert data["correct"] == [False]
    data = post(served, "/grade", {"gold": ["9.8 m/s^2"], "response": ["g = 980 cm/s^2"], "task": "physics"}).json()
    assert data["correct"] == [True]


def test_health(served: Running) -> None:
    reply = httpx.get(served.url + "/health", timeout=30)
    assert reply.status_code == 200
    data = reply.json()
    assert data["status"] == "ok" and data["version"] == rapidgrade.__version__ and data["task"] == "math"


# -- batching across connections --------------------------------------------------------------


def test_requests_from_many_connections_share_batches() -> None:
    # A 50 ms window: 64 one-sample requests sent at once from 64 connections land in a few batches.
    config = ServeConfig(batch=BatchConfig(window=0.05))
    with running(config) as server:

        async def send_all() -> list[Any]:
            limits = httpx.Limits(max_connections=64)
            async with httpx.AsyncClient(base_url=server.url, limits=limits, timeout=60) as client:
                sent = [
                    client.post("/slime", json={"prompt": "", "response": f"so \\boxed{{{i}}}", "label": str(i % 2)})
                    for i in range(64)
                ]
                return [r.json() for r in await asyncio.gather(*sent)]

        rewards = asyncio.run(send_all())
        assert rewards == [1.0 if i in (0, 1) else 0.0 for i in range(64)]
        assert server.batcher.items == 64
        assert server.batcher.batches <= 16, server.batcher.batches


# -- bad input: 4xx naming the field, never a 500 ---------------------------------------------

BAD = [
    ("/get_reward", b"{not json", 400, "body"),
    ("/get_reward", b"", 400, "body"),
    ("/get_reward", b'{"query": ["\xff\xfe"]}', 400, "body"),  # not UTF-8
    ("/grade", b'{"gold": ["1"], "response": ["1"]' + b"]" * 3, 400, "body"),
    ("/get_reward", b"[1, 2]", 422, "body"),
    ("/get_reward", b'{"prompts": ["p"], "labels": ["1"]}', 422, "query"),
    ("/get_reward", b'{"query": ["a"], "prompts": ["p"]}', 422, "labels"),
    ("/get_reward", b'{"query": ["a", "b"], "prompts": ["p", "q"], "labels": ["1"]}', 422, "labels"),
    ("/get_reward", b'{"query": ["a"], "prompts": ["p", "q"], "labels": ["1"]}', 422, "prompts"),
    ("/get_reward", b'{"query": [3], "prompts": ["p"], "labels": ["1"]}', 422, "query[0]"),
    ("/get_reward", b'{"query": ["a"], "prompts": ["p"], "labels": [{"x": 1}]}', 422, "labels[0]"),
    ("/get_reward", b'{"query": ["a"], "prompts": ["p"], "labels": [null]}', 422, "labels[0]"),
    ("/get_reward", b'{"query": ["a"], "prompts": ["p"], "labels": [""]}', 422, "labels[0]"),
    ("/get_reward", b'{"query": "a", "prompts": ["p"], "labels": ["1"]}', 422, "query"),
    ("/slime", b'{"prompt": "p", "label": "1"}', 422, "response"),
    ("/slime", b'{"prompt": "p", "response": ["x"], "label": "1"}', 422, "response"),
    ("/slime", b'{"prompt": "p", "response": "x", "label": true}', 422, "label"),
    ("/verify", b'{"response": {"output": []}}', 422, "expected_answer"),
    ("/verify", b'{"response": "text", "expected_answer": "1"}', 422, "response"),
    ("/verify", b'{"response": {}, "expected_answer": "1"}', 422, "response.output"),
    (
        "/verify",
        b'{"response": {"output": [{"type": "message", "content": [{"type": "output_text", "text": 5}]}]},'
        b' "expected_answer": "1"}',
        422,
        "response.output[0].content[0].text",
    ),
    ("/grade", b'{"gold": ["1"]}', 422, "response"),
    ("/grade", b'{"gold": ["1", "2"], "response": ["1"]}', 422, "gold"),
    ("/grade", b'{"gold": ["1"], "response": [1]}', 422, "response[0]"),
    ("/grade", b'{"gold": [[1]], "response": ["1"]}', 422, "gold[0]"),
    ("/grade", b'{"gold": ["1"], "response": ["1"], "task": "chess"}', 422, "task"),
    ("/grade", b'{"gold": ["1"], "response": ["1"], "fallback": "no"}', 422, "fallback"),
]


@pytest.mark.parametrize(("path", "body", "status", "field"), BAD)
def test_bad_input_gets_4xx_naming_the_field(served: Running, path: str, body: bytes, status: int, field: str) -> None:
    reply = httpx.post(served.url + path, content=body, headers={"content-type": "application/json"}, timeout=30)
    assert reply.status_code == status, reply.text
    data = reply.json()
    assert data["field"] == field
    assert field.split("[")[0].split(".")[0] in data["error"] or field == "body"
    # the server is still up and grading
    assert post(served, "/slime", {"prompt": "", "response": "\\boxed{1}", "label": "1"}).json() == 1.0


def test_body_over_the_limit_gets_413() -> None:
    with running(ServeConfig(max_body_bytes=1000)) as server:
        big = {"gold": ["1"] * 100, "response": ["x" * 20] * 100}
        reply = post(server, "/grade", big)
        assert reply.status_code == 413
        assert reply.json()["field"] == "body" and "1000 bytes" in reply.json()["error"]

        # without a Content-Length (chunked), the limit holds as the body streams in
        def chunks() -> Any:
            for _ in range(50):
                yield b'{"gold": ["1"], "response": ["' + b"x" * 100

        reply = httpx.post(server.url + "/grade", content=chunks(), timeout=30)
        assert reply.status_code == 413
        assert post(server, "/grade", {"gold": ["1"], "response": ["1"]}).status_code == 200


def test_unknown_path_and_method(served: Running) -> None:
    assert httpx.get(served.url + "/nothing", timeout=30).status_code == 404
    assert httpx.get(served.url + "/grade", timeout=30).status_code == 405


def test_deadline_gives_504_and_the_server_goes_on() -> None:
    # The batch window (2 s) is longer than the deadline (0.2 s): the request cannot be graded in time.
    with running(ServeConfig(deadline=0.2, batch=BatchConfig(window=2.0))) as server:
        reply = post(server, "/slime", {"prompt": "", "response": "\\boxed{1}", "label": "1"})
        assert reply.status_code == 504
        assert "deadline" in reply.json()["error"]
    with running(ServeConfig(deadline=30, batch=BatchConfig(window=0.001))) as server:
        assert post(server, "/slime", {"prompt": "", "response": "\\boxed{1}", "label": "1"}).json() == 1.0


def test_reward_options_of_the_server() -> None:
    config = ServeConfig(reward=RewardConfig(format_score=0.25, last_number=True))
    with running(config) as server:
        sample = {"prompt": "", "response": "\\boxed{3}", "label": "4"}
        assert post(server, "/slime", sample).json() == 0.25
        assert post(server, "/slime", {"prompt": "", "response": "It is 4", "label": "4"}).json() == 1.0
