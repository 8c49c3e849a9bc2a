"""``score --ray`` under hostile rows: a row nested deeper than pickle can go (600 levels and
more, as JSON still reads it) is graded on the cluster as without Ray (the ``ray`` extra; the
tests are marked ``ray``)."""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

from rapidgrade._io import InputRow, RowBlock
from rapidgrade._ray_score import RayTask, _Shipped
from rapidgrade.score import score_file
from rapidgrade.tasks import get_task

pytestmark = pytest.mark.ray


def _deep(levels: int) -> dict[str, object]:
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return {"nested": value}


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_deep_rows_cross_pickle_as_json() -> None:
    deep = _deep(900)
    with pytest.raises(RecursionError):
        pickle.dumps(deep)
    rows = [InputRow("in.jsonl", 1, {"gold": "1", **deep}), InputRow("in.jsonl", 2, {"gold": "2"})]
    back = pickle.loads(pickle.dumps(_Shipped(rows)))
    assert back == rows
    block = RowBlock.of_rows("in.jsonl", rows)
    back_block = pickle.loads(pickle.dumps(_Shipped(block)))
    assert back_block.data == block.data and back_block.lines == block.lines
    records = ([{"x": 1, **deep}, {"x": 2}], {"rows": 2})
    assert pickle.loads(pickle.dumps(_Shipped(records))) == records


@pytest.mark.parametrize(
    ("task", "row"), [("math", {"gold": "2", "response": "2"}), ("physics", {"gold": "5 m", "response": "5 m"})]
)
def test_score_ray_grades_a_row_nested_600_deep(cluster: None, tmp_path: Path, task: str, row: dict[str, str]) -> None:
    source = tmp_path / "in.jsonl"
    lines = [json.dumps(row)] * 5
    lines[2] = json.dumps(row | _deep(600))
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    plain = score_file(source, task=task, out=tmp_path / "plain")
    on_ray = score_file(source, task=RayTask(get_task(task), actors=2, min_part=1), out=tmp_path / "ray", chunk_size=4)
    assert (tmp_path / "ray" / "evaluated.jsonl").read_bytes() == (tmp_path / "plain" / "evaluated.jsonl").read_bytes()
    assert len((tmp_path / "ray" / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()) == 5
    assert on_ray.to_dict().get("accuracy") == plain.to_dict().get("accuracy")
