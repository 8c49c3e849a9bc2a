"""A Ray cluster of several nodes on this machine, started with Ray's own command line
(``ray start --head`` and ``ray start --address ...`` for each further node), for the tests and
``benchmarks/bench_ray.py``.

Each node runs ``ray start --block`` as a child process of the caller; stopping the cluster
ends those processes (by their ids), and ``ray start --block`` stops the Ray processes it
started. Nothing else on the machine is touched (no ``ray stop``, which would stop every Ray
node of the user).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType

__all__ = ["LocalCluster"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_command() -> list[str]:
    ray = Path(sys.executable).with_name("ray")
    return [str(ray)] if ray.exists() else [sys.executable, "-m", "ray.scripts.scripts"]


class LocalCluster:
    """``nodes`` Ray nodes on this machine with ``cpus`` CPUs each (node *k* also has the
    custom resource ``node<k>``); ``address`` is what ``ray.init(address=...)`` and
    ``rapidgrade score --ray ADDRESS`` take."""

    def __init__(self, nodes: int = 2, cpus: int = 1, timeout: float = 120.0) -> None:
        self.nodes = nodes
        self.cpus = cpus
        self.timeout = timeout
        self.port = _free_port()
        self.address = f"127.0.0.1:{self.port}"
        # A short private directory: Ray's socket paths must stay under ~100 bytes.
        self.temp_dir = tempfile.mkdtemp(prefix="rgray", dir="/tmp")
        self.processes: list[subprocess.Popen[bytes]] = []
        # `ray start --head` enables Ray's token authentication, which a driver process reads from
        # its environment when it imports ray (before any test could set it): the nodes of this
        # cluster, reachable only on 127.0.0.1, run without it.
        self.env = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
        self._saved_env: dict[str, str | None] = {}

    def _start(self, args: list[str], k: int) -> None:
        env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_TOKEN_PATH"} | self.env
        log = open(Path(self.temp_dir) / f"node{k}.log", "wb")  # noqa: SIM115 - closed with the process
        command = [
            *_ray_command(),
            "start",
            "--block",
            *args,
            f"--num-cpus={self.cpus}",
            f'--resources={{"node{k}": 1}}',
            "--disable-usage-stats",
        ]
        self.processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env))
        log.close()

    def _wait_for_nodes(self, count: int) -> None:
        import ray

        deadline = time.monotonic() + self.timeout
        while True:
            for p in self.processes:
                if p.poll() is not None:
                    raise RuntimeError(f"a ray node exited early; see {self.temp_dir}/node*.log")
            ray.init(address=self.address, include_dashboard=False, log_to_driver=False)
            try:
                alive = [n for n in ray.nodes() if n["Alive"]]
            finally:
                ray.shutdown()
            if len(alive) >= count:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(alive)} of {count} ray nodes up after {self.timeout:.0f} s")
            time.sleep(1.0)

    def start(self) -> LocalCluster:
        """Starts the nodes and sets this process's environment (the token) to join them."""
        for k, v in self.env.items():
            self._saved_env[k] = os.environ.get(k)
            os.environ[k] = v
        self._start(
            [
                "--head",
                f"--port={self.port}",
                "--node-ip-address=127.0.0.1",
                "--include-dashboard=false",
                f"--temp-dir={self.temp_dir}",
            ],
            1,
        )
        time.sleep(3.0)
        for k in range(2, self.nodes + 1):
            self._start([f"--address={self.address}", "--node-ip-address=127.0.0.1"], k)
        try:
            self._wait_for_nodes(self.nodes)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        # Worker nodes first, then the head; each `ray start --block` stops what it started.
        for p in reversed(self.processes):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.processes.clear()
        for k, v in self._saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._saved_env.clear()
        shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.stop()
