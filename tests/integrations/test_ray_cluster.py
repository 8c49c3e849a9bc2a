"""rapidgrade on a Ray cluster of two nodes started with Ray's command line on this machine
(``ray start --head``, then ``ray start --address ...`` with its own resources): the grading
actors run on both nodes and the outputs are those of the single-machine job."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

import rapidgrade
import rapidgrade.ray
from rapidgrade._ray_score import RayTask
from rapidgrade.score import score_file
from rapidgrade.tasks import get_task
from tests import datasets
from tests.integrations.ray_cluster import LocalCluster

# needs the ray extra, and minutes: `pytest -m ray` runs it (.ci/run, in the environment with Ray)
pytestmark = [pytest.mark.ray, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(nodes=2, cpus=1) as c:
        yield c


def _metrics(out: Path) -> dict[str, object]:
    m = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    return {k: v for k, v in m.items() if k not in ("elapsed_s", "pairs_per_s")}


def test_two_nodes_same_outputs(cluster: LocalCluster, tmp_path: Path) -> None:
    rows = datasets.load_demo_corpus()
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    score_file(source, out=tmp_path / "single", chunk_size=400)

    # The job's actors: one per CPU of the cluster, i.e. one on each node.
    task = RayTask(get_task("math"), cluster.address, min_part=100)
    try:
        score_file(source, task=task, out=tmp_path / "ray", chunk_size=400)
        assert len(task.nodes) == 2 and len(set(task.nodes)) == 2
        alive = [n for n in ray.nodes() if n["Alive"]]
        assert len(alive) == 2 and {"node1", "node2"} <= {r for n in alive for r in n["Resources"]}

        # rapidgrade.ray.grade on the same cluster, order kept: grade_many's verdicts.
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        graded = rapidgrade.ray.grade(ray.data.from_items(rows), batch_size=100, concurrency=2).take_all()
    finally:
        ray.shutdown()
    assert (tmp_path / "ray" / "evaluated.jsonl").read_bytes() == (tmp_path / "single" / "evaluated.jsonl").read_bytes()
    assert _metrics(tmp_path / "ray") == _metrics(tmp_path / "single")
    expected = rapidgrade.grade_many([r["gold"] for r in rows], [r["response"] for r in rows])
    assert [g["correct"] for g in graded] == expected.correct.tolist()
    assert [g["extracted"] for g in graded] == expected.extracted

    # The command line, in a process of its own, joins the cluster by its address.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(rapidgrade.__file__).parents[1]), str(REPO)]))
    env.update(cluster.env)
    command = [sys.executable, "-m", "rapidgrade", "score", "--ray", cluster.address, str(source)]
    result = subprocess.run(
        [*command, "--out", str(tmp_path / "cli"), "--quiet", "--chunk-size", "400"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "accuracy" in result.stdout
    assert (tmp_path / "cli" / "evaluated.jsonl").read_bytes() == (tmp_path / "single" / "evaluated.jsonl").read_bytes()
    assert _metrics(tmp_path / "cli") == _metrics(tmp_path / "single")
