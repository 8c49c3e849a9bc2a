"""Ray: rows/s of ``rapidgrade.ray.grade`` on 1 and on 2 local nodes, and its overhead against
``grade_many`` in one process on the same data.

    python -m benchmarks.bench_ray [--rows 40000] [--repeats 5] [--fallback]

The demo corpus (800 real responses) replicated to --rows rows is graded:

* in process: ``grade_many(golds, responses, threads=1)`` (one core: the per-core figure) and
  with ``threads=2``;
* with ``rapidgrade.ray.grade`` on a cluster of ONE node with one CPU, then on a cluster of TWO
  nodes with one CPU each (``ray start --head`` plus ``ray start --address ...`` on this
  machine; tests/integrations/ray_cluster.py), one grading actor per CPU. The dataset is built
  and materialized in the object store first: what is timed is the grading job (batches to the
  actors, Arrow batches into the C++ batch path, results back into the object store);
* ``rapidgrade score`` on the same rows as a file, in process and with ``--ray`` on the two
  nodes (reading, grading, writing evaluated.jsonl, metrics.json, report.html).

Each is timed on --rows rows and on an eighth of them: the difference gives the marginal rate
(rows/s once running) and the fixed cost of a job (starting its actors). Rounds alternate the
in-process and the Ray side (median of --repeats each). By default the
fallback is off (``fallback=False``) on both sides, so that the figures are those of the batch
path and Ray; --fallback keeps it (each actor then starts its own SymPy workers).

This machine has 2 cores shared with other work: "2 nodes" are two processes of Ray nodes on
the same 2 cores, not two machines. The figures printed are what one core gives and how much of
it Ray keeps; docs/ray.md turns them into the expected rows/s of a real cluster.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks._common import load_corpus


def _median_pair(fn_a: Callable[[], object], fn_b: Callable[[], object], repeats: int) -> tuple[float, float]:
    fn_a()
    fn_b()  # warm-up: actors started, fallback workers warm
    times_a: list[float] = []
    times_b: list[float] = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn_a()
        times_a.append(time.perf_counter() - t)
        t = time.perf_counter()
        fn_b()
        times_b.append(time.perf_counter() - t)
    return statistics.median(times_a), statistics.median(times_b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=40_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fallback", action="store_true", help="keep the SymPy fallback on (default: off)")
    args = parser.parse_args()

    import ray

    import rapidgrade
    import rapidgrade.ray
    from rapidgrade._ray_score import score_ray
    from rapidgrade.score import score_file
    from tests.integrations.ray_cluster import LocalCluster

    corpus = load_corpus()
    rows = [
        {"id": f"{r['id']}#{k}", "gold": r["gold"], "response": r["response"]}
        for k in range(-(-args.rows // len(corpus)))
        for r in corpus
    ][: args.rows]
    n = len(rows)
    golds = [r["gold"] for r in rows]
    responses = [r["response"] for r in rows]
    fallback = bool(args.fallback)
    print(f"rapidgrade on Ray: {n:,} rows (the demo corpus replicated), fallback {'on' if fallback else 'off'}")
    print("machine: 2 cores shared with other work; '2 nodes' are two Ray nodes of 1 CPU each on those 2 cores\n")

    def in_process(count: int, threads: int) -> Callable[[], object]:
        return lambda: rapidgrade.grade_many(golds[:count], responses[:count], threads=threads, fallback=fallback)

    small = max(1, n // 8)
    work = Path(tempfile.mkdtemp(prefix="bench_ray"))
    sources = {}
    for count in (small, n):
        sources[count] = work / f"in{count}.jsonl"
        sources[count].write_text("".join(json.dumps(r) + "\n" for r in rows[:count]), encoding="utf-8")
    options = {} if fallback else {"fallback": False}
    marginal: dict[str, float] = {}

    def report(name: str, times: dict[int, float]) -> None:
        # Two sizes: the difference is the marginal cost of rows, the rest a fixed cost per job
        # (starting the actors: a Python process each, importing rapidgrade and pyarrow).
        per_row = (times[n] - times[small]) / (n - small)
        fixed = max(0.0, times[n] - per_row * n)
        marginal[name] = 1 / per_row if per_row > 0 else float("inf")
        print(
            f"{name:<44} {n / times[n]:>10,.0f} rows/s on {n:,} rows; marginal {marginal[name]:>10,.0f} rows/s, "
            f"fixed {fixed:5.2f} s per job",
            flush=True,
        )

    for nodes in (1, 2):
        with LocalCluster(nodes=nodes, cpus=1) as cluster:
            ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
            try:
                ctx = ray.data.DataContext.get_current()
                ctx.enable_progress_bars = False
                ctx.print_on_execution_start = False
                datasets = {
                    count: ray.data.from_items(rows[:count], override_num_blocks=max(2, count // 2048)).materialize()
                    for count in (small, n)
                }
                ours: dict[int, float] = {}
                theirs: dict[int, float] = {}
                for count in (small, n):

                    def on_ray(count: int = count, nodes: int = nodes) -> object:
                        graded = rapidgrade.ray.grade(datasets[count], concurrency=nodes, batch_size=2048, **options)
                        return graded.materialize()

                    theirs[count], ours[count] = _median_pair(in_process(count, nodes), on_ray, args.repeats)
                report(f"grade_many in process, threads={nodes}", theirs)
                report(f"rapidgrade.ray.grade, {nodes} node(s) x 1 CPU", ours)
                if nodes == 2:
                    single: dict[int, float] = {}
                    on_cluster: dict[int, float] = {}
                    for count in (small, n):
                        src = sources[count]
                        single[count], on_cluster[count] = _median_pair(
                            lambda src=src: score_file(src, out=work / "single", chunk_size=8192, threads=2, **options),
                            lambda src=src: score_ray(
                                src, out=work / "ray", chunk_size=8192, address=cluster.address, **options
                            ),
                            max(1, args.repeats // 2),
                        )
                    report("rapidgrade score, in process, threads=2", single)
                    report("rapidgrade score --ray, 2 nodes x 1 CPU", on_cluster)
            finally:
                ray.shutdown()

    print()
    one = marginal["rapidgrade.ray.grade, 1 node(s) x 1 CPU"]
    two = marginal["rapidgrade.ray.grade, 2 node(s) x 1 CPU"]
    per_core = marginal["grade_many in process, threads=1"]
    print(f"per core, grade_many in process (marginal):      {per_core:>10,.0f} rows/s")
    print(f"per core, rapidgrade.ray.grade (marginal):       {one:>10,.0f} rows/s")
    print(f"Ray against grade_many in process, 1 core:       {per_core / one:>10.2f}x the time per row")
    print(f"scaling 1 -> 2 nodes, rapidgrade.ray.grade:      {two / one:>10.2f}x (2 shared cores: at most 2x)")
    score_ratio = (
        marginal["rapidgrade score, in process, threads=2"] / marginal["rapidgrade score --ray, 2 nodes x 1 CPU"]
    )
    print(f"score --ray against score in process, 2 cores:  {score_ratio:>10.2f}x the time per row")
    print(
        f"expected on a real cluster: nodes x cores x {one:,.0f} rows/s "
        f"(8 nodes x 32 cores: {8 * 32 * one:,.0f} rows/s) while storage and network feed the actors that fast"
    )


if __name__ == "__main__":
    main()
