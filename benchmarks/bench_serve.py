r"""``rapidgrade serve`` under a real load generator (wrk) on loopback, beside ``grade_many`` in-process.

    apt-get install -y wrk          # Debian/Ubuntu's package
    python -m benchmarks.bench_serve [--duration 10] [--workers 1] [--connections 64]

Starts ``rapidgrade serve`` on a free port of 127.0.0.1 and runs wrk against it twice:

* **one sample per request**: the 800 demo-set pairs as slime's ``--rm-url`` bodies
  (``{"prompt", "response", "label"}`` to ``POST /slime``), each connection cycling through them,
  from ``--connections`` connections (64 by default);
* **batches of 1,000 pairs**: ``POST /grade`` bodies of 1,000 demo pairs each, from
  ``--batch-connections`` connections.

and, with the same wrk options, against **the stack's floor**: a Starlette app under the same
uvicorn settings (and the same collector tuning) whose endpoint reads the body and answers a
constant, the best any endpoint of this stack can do on this machine with wrk beside it (in one
process, whatever ``--workers`` says).

Printed: requests per second and wrk's latency percentiles, pairs per second, ``grade_many`` in
this process on the same pairs (one call per 1,000 and one per 800) with the ratio, the floor,
and whether the targets are met (one-sample requests: >= 5,000 requests/s and p99 < 20 ms;
batches: >= 200,000 pairs/s). wrk's own threads share the machine with the server: on two cores,
the load generator takes part of the CPU the figures are measured on. ``--repeats N`` runs each
wrk run N times (a fresh server each time) and prints the medians, with every run's figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import orjson

import rapidgrade
from benchmarks._common import load_corpus, machine_info

ROOT = Path(__file__).resolve().parent.parent

#: The issue's targets: one-sample requests per second and their p99 latency (ms), batch pairs/s.
TARGET_RPS = 5_000
TARGET_P99_MS = 20.0
TARGET_PAIRS = 200_000


def floor_app() -> Any:
    """A Starlette app whose ``POST /slime`` reads the body and answers the constant ``1.0``, with
    ``rapidgrade serve``'s collector tuning: the floor of the stack (uvicorn, Starlette, the
    loopback, wrk), without parsing, batching or grading."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from rapidgrade.serve import _tuned_gc

    async def constant(request: Request) -> Response:
        await request.body()
        return Response(b"1.0", media_type="application/json")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        with _tuned_gc(True):
            yield

    routes = [Route("/slime", constant, methods=["POST"]), Route("/health", constant, methods=["GET"])]
    return Starlette(routes=routes, lifespan=lifespan)


def serve_floor(port: int) -> None:
    """Run :func:`floor_app` on *port* with ``rapidgrade serve``'s uvicorn options."""
    import uvicorn

    from rapidgrade.serve import ServeConfig, uvicorn_options

    uvicorn.run(floor_app(), **uvicorn_options(ServeConfig(port=port)))


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


def start_server(workers: int, floor: bool = False) -> tuple[subprocess.Popen[bytes], str]:
    """``rapidgrade serve --workers N`` on a free loopback port (*floor*: :func:`serve_floor`)."""
    port = free_port()
    env = dict(os.environ)
    package_root = str(Path(rapidgrade.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([package_root, str(ROOT), env.get("PYTHONPATH", "")])
    if floor:
        code = "import sys; from benchmarks.bench_serve import serve_floor; serve_floor(int(sys.argv[1]))"
        command = [sys.executable, "-c", code, str(port)]
    else:
        command = [sys.executable, "-m", "rapidgrade", "serve", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
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


def served(
    args: argparse.Namespace, singles: list[bytes], batches: list[bytes], *, floor: bool = False
) -> tuple[dict[str, float], dict[str, float] | None]:
    """wrk's figures of one-sample requests and of batches (``None`` for the floor) against a
    fresh server."""
    process, url = start_server(args.workers, floor)
    try:
        if not floor:  # warm-up: worker pools, gold caches
            for path, body in (("/slime", singles[0]), ("/grade", batches[0])):
                httpx.post(url + path, content=body, headers={"content-type": "application/json"}, timeout=60)
        for body in singles[:200]:
            httpx.post(url + "/slime", content=body, headers={"content-type": "application/json"}, timeout=60)
        one = run_wrk(url + "/slime", lua_script("/slime", singles), args.connections, args.wrk_threads, args.duration)
        many = None
        if not floor:
            many = run_wrk(
                url + "/grade", lua_script("/grade", batches), args.batch_connections, args.wrk_threads, args.duration
            )
    finally:
        process.terminate()
        process.wait(60)
    return one, many


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """The median of every figure over *runs*."""
    return {key: statistics.median(run.get(key, float("nan")) for run in runs) for key in runs[0]}


def runs_note(runs: list[dict[str, float]], scale: float = 1.0) -> str:
    """Every run's requests/s and p99, when there are several."""
    if len(runs) < 2:
        return ""
    each = (f"{r['rps'] * scale:,.0f}/s p99 {r.get('p99', float('nan')):.1f}" for r in runs)
    return "  [runs: " + ", ".join(each) + "]"


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=10.0, help="seconds of each wrk run")
    parser.add_argument("--workers", type=int, default=1, help="rapidgrade serve --workers")
    parser.add_argument("--connections", type=int, default=64, help="connections of the one-sample run")
    parser.add_argument("--batch-connections", type=int, default=4, help="connections of the batch run")
    parser.add_argument("--wrk-threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each kind (medians printed)")
    parser.add_argument("--no-floor", action="store_true", help="skip the stack's floor (the constant endpoint)")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("bench_serve: wrk is not installed (Debian/Ubuntu: apt-get install -y wrk)")

    rows = load_corpus()
    golds = [str(r["gold"]) for r in rows]
    responses = [r["response"] for r in rows]
    info = machine_info()
    print(
        f"bench_serve: rapidgrade serve --workers {args.workers} on 127.0.0.1, wrk -t{args.wrk_threads}, "
        f"{args.duration:g} s per run, {args.repeats} run(s) of each; python {info['python']}, {info['cpus']} cpus,"
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

    ones: list[dict[str, float]] = []
    manys: list[dict[str, float]] = []
    floors: list[dict[str, float]] = []
    for _ in range(args.repeats):  # served and floor in turn, so that a change of load hits both
        one, many = served(args, singles, batches)
        ones.append(one)
        assert many is not None
        manys.append(many)
        if not args.no_floor:
            floors.append(served(args, singles, batches, floor=True)[0])
    one, many = median_of(ones), median_of(manys)
    load = os.getloadavg()[0]

    in_one = in_process_rate(golds, responses, 800)
    in_batch = in_process_rate(batch_golds, batch_responses, 1000)
    print(
        f"  one sample per request, {args.connections} connections: {one['rps']:>9,.0f} requests/s"
        f" (= pairs/s)  latency p50 {one.get('p50', float('nan')):.1f} ms, p90 {one.get('p90', float('nan')):.1f} ms,"
        f" p99 {one.get('p99', float('nan')):.1f} ms; non-2xx {one['non2xx']:.0f}{runs_note(ones)}"
    )
    print(
        f"    grade_many in-process, same 800 pairs in one call: {in_one:>12,.0f} pairs/s;"
        f" served/in-process {one['rps'] / in_one:.1%}"
    )
    if floors:
        floor = median_of(floors)
        print(
            f"    the stack's floor (Starlette answering a constant{', one process' if args.workers > 1 else ''}):"
            f" {floor['rps']:>8,.0f} requests/s"
            f"  latency p50 {floor.get('p50', float('nan')):.1f} ms, p90 {floor.get('p90', float('nan')):.1f} ms,"
            f" p99 {floor.get('p99', float('nan')):.1f} ms; served/floor {one['rps'] / floor['rps']:.1%}"
            f" of its requests/s{runs_note(floors)}"
        )
    pairs_rate = many["rps"] * 1000
    print(
        f"  batches of 1,000 pairs, {args.batch_connections} connections:  {many['rps']:>9,.1f} requests/s"
        f" = {pairs_rate:,.0f} pairs/s  latency p50 {many.get('p50', float('nan')):.1f} ms,"
        f" p99 {many.get('p99', float('nan')):.1f} ms; non-2xx {many['non2xx']:.0f}{runs_note(manys, 1000)}"
    )
    print(
        f"    grade_many in-process, one call per 1,000 pairs:   {in_batch:>12,.0f} pairs/s;"
        f" served/in-process {pairs_rate / in_batch:.1%}"
    )
    p99 = one.get("p99", float("inf"))
    print(
        f"  targets: one-sample >= {TARGET_RPS:,} requests/s {verdict(one['rps'] >= TARGET_RPS)},"
        f" p99 < {TARGET_P99_MS:g} ms {verdict(p99 < TARGET_P99_MS)};"
        f" batches >= {TARGET_PAIRS:,} pairs/s {verdict(pairs_rate >= TARGET_PAIRS)}"
        f" (load average {load:.1f} at the end)"
    )
    if floors and not p99 < TARGET_P99_MS:
        floor_p99 = median_of(floors).get("p99", float("nan"))
        where = "is itself over" if not floor_p99 < TARGET_P99_MS else "is under"
        print(f"    the stack's floor p99 {floor_p99:.1f} ms {where} the target on this machine, with wrk beside it")


if __name__ == "__main__":
    main()
