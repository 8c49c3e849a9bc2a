r"""``rapidgrade serve`` under a real load generator (wrk) on loopback, beside ``grade_many`` in-process.

    apt-get install -y wrk          # Debian/Ubuntu's package
    python -m benchmarks.bench_serve [--duration 10] [--workers 1] [--connections 64]

Starts ``rapidgrade serve`` on a free port of 127.0.0.1 and runs wrk against it twice:

* **one sample per request**: the 800 demo-set pairs as slime's ``--rm-url`` bodies
  (``{"prompt", "response", "label"}`` to ``POST /slime``), each connection cycling through them,
  from ``--connections`` connections (64 by default);
* **batches of 1,000 pairs**: ``POST /grade`` bodies of 1,000 demo pairs each, from
  ``--batch-connections`` connections.

Printed: requests per second and wrk's latency percentiles, pairs per second, and
``grade_many`` in this process on the same pairs (one call per 1,000 and one per 800), with the
ratio. wrk's own threads share the machine with the server: on two cores, the load generator
takes part of the CPU the figures are measured on.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson

import rapidgrade
from benchmarks._common import load_corpus, machine_info

ROOT = Path(__file__).resolve().parent.parent


def lua_string(data: bytes) -> str:
    """*data* as a Lua long string literal."""
    text = data.decode()
    level = 1
    while f"]{'=' * level}]" in text:
        level += 1
    return f"[{'=' * level}[{text}]{'=' * level}]"


def lua_script(path: str, bodies: list[bytes]) -> str:
    """A wrk script that POSTs *bodies* to *path* in turn, each thread from its own offset."""
    items = ",\n".join(lua_string(b) for b in bodies)
    return f"""
local bodies = {{
{items}
}}
local n = #bodies
local i = 0
local headers = {{["Content-Type"] = "application/json"}}
setup = function(thread)
  thread:set("offset", math.random(n))
end
request = function()
  i = i + 1
  local k = ((i + (offset or 0)) % n) + 1
  return wrk.format("POST", "{path}", headers, bodies[k])
end
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_server(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = dict(os.environ)
    package_root = str(Path(rapidgrade.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root, env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "rapidgrade", "serve", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if process.poll() is not None:
            raise SystemExit("bench_serve: the server exited")
        try:
            if httpx.get(url + "/health", timeout=5).status_code == 200:
                return process, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    raise SystemExit("bench_serve: the server did not start")


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def parse_wrk(output: str) -> dict[str, float]:
    """Requests/s, non-2xx count and the latency percentiles (ms) of wrk's --latency output."""
    found: dict[str, float] = {}
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    if rate is None:
        raise SystemExit(f"bench_serve: cannot read wrk's output:\n{output}")
    found["rps"] = float(rate.group(1))
    for pct in ("50", "90", "99"):
        m = re.search(rf"^\s+{pct}%\s+([\d.]+)(us|ms|s)\s*$", output, re.MULTILINE)
        if m:
            found[f"p{pct}"] = float(m.group(1)) * _UNITS[m.group(2)]
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    found["non2xx"] = float(errors.group(1)) if errors else 0.0
    socket_errors = re.search(r"Socket errors:.*", output)
    found["socket_errors"] = 1.0 if socket_errors else 0.0
    return found


def run_wrk(url: str, script: str, connections: int, threads: int, duration: float) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bodies.lua"
        path.write_text(script)
        command = [
            "wrk",
            f"-t{threads}",
            f"-c{connections}",
            f"-d{duration:g}s",
            "--timeout",
            "10s",
            "--latency",
            "-s",
            str(path),
            url,
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60, check=True)
    return parse_wrk(result.stdout)


def in_process_rate(golds: list[str], responses: list[str], size: int, repeats: int = 5) -> float:
    """Pairs per second of grade_many in this process, one call per *size* pairs: the faster of
    one C++ thread and all cores (for a thousand pairs, starting threads costs more than it gains)."""
    best = 0.0
    for threads in (1, None):
        rapidgrade.grade_many(golds[:size], responses[:size], threads=threads)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            for first in range(0, len(golds), size):
                rapidgrade.grade_many(golds[first : first + size], responses[first : first + size], threads=threads)
            times.append(time.perf_counter() - start)
        best = max(best, len(golds) / statistics.median(times))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each wrk run")
    parser.add_argument("--workers", type=int, default=1, help="rapidgrade serve --workers")
    parser.add_argument("--connections", type=int, default=64, help="connections of the one-sample run")
    parser.add_argument("--batch-connections", type=int, default=4, help="connections of the batch run")
    parser.add_argument("--wrk-threads", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench_serve: wrk is not installed (Debian/Ubuntu: apt-get install -y wrk)")

    rows = load_corpus()
    golds = [str(r["gold"]) for r in rows]
    responses = [r["response"] for r in rows]
    info = machine_info()
    print(
        f"bench_serve: rapidgrade serve --workers {args.workers} on 127.0.0.1, wrk -t{args.wrk_threads}, "
        f"{args.duration:g} s per run; python {info['python']}, {info['cpus']} cpus,"
        f" load average {os.getloadavg()[0]:.1f} at the start"
    )
    singles = [
        orjson.dumps({"prompt": f"Problem {i}", "response": r, "label": g})
        for i, (g, r) in enumerate(zip(golds, responses))
    ]
    batch_golds = (golds * 10)[:8000]
    batch_responses = (responses * 10)[:8000]
    batches = [
        orjson.dumps({"gold": batch_golds[k : k + 1000], "response": batch_responses[k : k + 1000]})
        for k in range(0, 8000, 1000)
    ]

    process, url = start_server(args.workers)
    try:
        for body in (singles[0], batches[0]):  # warm-up: worker pools, gold caches
            path = "/slime" if body is singles[0] else "/grade"
            httpx.post(url + path, content=body, headers={"content-type": "application/json"}, timeout=60)
        one = run_wrk(url + "/slime", lua_script("/slime", singles), args.connections, args.wrk_threads, args.duration)
        many = run_wrk(
            url + "/grade", lua_script("/grade", batches), args.batch_connections, args.wrk_threads, args.duration
        )
    finally:
        process.terminate()
        process.wait(60)

    in_one = in_process_rate(golds, responses, 800)
    in_batch = in_process_rate(batch_golds, batch_responses, 1000)
    print(
        f"  one sample per request, {args.connections} connections: {one['rps']:>9,.0f} requests/s"
        f" (= pairs/s)  latency p50 {one.get('p50', float('nan')):.1f} ms, p90 {one.get('p90', float('nan')):.1f} ms,"
        f" p99 {one.get('p99', float('nan')):.1f} ms; non-2xx {one['non2xx']:.0f}"
    )
    print(
        f"    grade_many in-process, same 800 pairs in one call: {in_one:>12,.0f} pairs/s;"
        f" served/in-process {one['rps'] / in_one:.1%}"
    )
    pairs_rate = many["rps"] * 1000
    print(
        f"  batches of 1,000 pairs, {args.batch_connections} connections:  {many['rps']:>9,.1f} requests/s"
        f" = {pairs_rate:,.0f} pairs/s  latency p50 {many.get('p50', float('nan')):.1f} ms,"
        f" p99 {many.get('p99', float('nan')):.1f} ms; non-2xx {many['non2xx']:.0f}"
    )
    print(
        f"    grade_many in-process, one call per 1,000 pairs:   {in_batch:>12,.0f} pairs/s;"
        f" served/in-process {pairs_rate / in_batch:.1%}"
    )


if __name__ == "__main__":
    main()
