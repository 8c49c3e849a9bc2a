"""``rapidgrade serve`` as a command: its help, ``--workers`` sharing the port, graceful shutdown."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

import rapidgrade
from rapidgrade.__main__ import main
from rapidgrade.serve import build_parser

pytest.importorskip("uvicorn")


def test_help_documents_every_option_and_endpoint(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for action in build_parser()._actions:
        for flag in action.option_strings:
            assert flag in text
        if action.help is not None and action.option_strings != ["-h", "--help"]:
            assert action.help.split("(")[0].split("%")[0].strip()[:30] in " ".join(text.split())
    for endpoint in ("POST /get_reward", "POST /slime", "POST /verify", "POST /grade", "GET  /health"):
        assert endpoint in text
    main_help = subprocess.run(
        [sys.executable, "-m", "rapidgrade", "--help"], capture_output=True, text=True, env=_env(), check=True
    ).stdout
    assert "serve" in main_help


def test_bad_usage_exits_2() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve", "--workers", "0"])
    assert exit_info.value.code == 2


def _env() -> dict[str, str]:
    env = dict(os.environ)
    package_root = str(Path(rapidgrade.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root, env.get("PYTHONPATH", "")])
    return env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _start(*options: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "rapidgrade", "serve", "--port", str(port), *options],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):  # up to 60 s on a loaded machine
        if process.poll() is not None:
            raise RuntimeError(f"the server exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            if httpx.get(url + "/health", timeout=5).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


@pytest.fixture
def stop() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(30)


def test_workers_share_the_port(stop: list[subprocess.Popen[bytes]]) -> None:
    process, url = _start("--workers", "2")
    stop.append(process)
    pids = set()
    for _ in range(400):  # each request on a new connection; the kernel spreads them over the workers
        data = httpx.get(url + "/health", timeout=30).json()
        pids.add(data["pid"])
        if len(pids) == 2:
            break
    assert len(pids) == 2
    reply = httpx.post(url + "/slime", json={"prompt": "", "response": "\\boxed{5}", "label": "5"}, timeout=30)
    assert reply.json() == 1.0
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) == 0


def test_sigterm_drains_in_flight_requests(stop: list[subprocess.Popen[bytes]]) -> None:
    # A 1.5 s batch window keeps the request in flight when SIGTERM arrives.
    process, url = _start("--batch-window", "1500")
    stop.append(process)
    got: dict[str, Any] = {}

    def send() -> None:
        body = {"prompt": "", "response": "\\boxed{5}", "label": "5"}
        got["reply"] = httpx.post(url + "/slime", json=body, timeout=60)

    sender = threading.Thread(target=send)
    started = time.monotonic()
    sender.start()
    time.sleep(0.5)
    process.send_signal(signal.SIGTERM)
    sender.join(60)
    assert got["reply"].status_code == 200 and got["reply"].json() == 1.0
    assert time.monotonic() - started >= 1.4  # answered after its window, not cut short
    # after draining, uvicorn re-raises the signal it caught, so the process ends as SIGTERM ends it
    assert process.wait(60) == -signal.SIGTERM
    with pytest.raises(httpx.TransportError):  # and then it is gone
        httpx.get(url + "/health", timeout=5)


def test_without_the_serve_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if uvicorn were not installed
    assert main(["serve", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "uvicorn is missing" in err and "pip install 'rapidgrade[serve]'" in err
