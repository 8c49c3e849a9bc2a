"""A real ``rapidgrade serve`` app under uvicorn, in a thread, on a free loopback port."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

uvicorn = pytest.importorskip("uvicorn")  # the test extra installs it (and starlette, httpx)
pytest.importorskip("starlette")
pytest.importorskip("httpx")

from rapidgrade.serve import ServeConfig, create_app  # noqa: E402


class Running:
    """A server running in this process: its base URL and its app."""

    def __init__(self, url: str, app: Any) -> None:
        self.url = url
        self.app = app

    @property
    def batcher(self) -> Any:
        return self.app.state.server.batcher


@contextlib.contextmanager
def running(config: ServeConfig | None = None) -> Iterator[Running]:
    """Start the app on 127.0.0.1 (a port the OS picks), yield it, then shut it down."""
    app = create_app(config)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    for _ in range(600):  # up to 30 s on a loaded machine
        if server.started or not thread.is_alive():
            break
        time.sleep(0.05)
    if not server.started:
        raise RuntimeError("the server did not start")
    try:
        yield Running(f"http://127.0.0.1:{port}", app)
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()


@pytest.fixture(scope="module")
def served() -> Iterator[Running]:
    """The server with its default options."""
    with running() as server:
        yield server
