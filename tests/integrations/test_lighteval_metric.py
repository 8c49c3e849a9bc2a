"""rapidgrade's lighteval metric (lighteval 0.13, the real library) on a handful of docs.

lighteval pins latex2sympy2_extended==1.0.6, which math-verify 0.9.0 (in the `test` extra)
cannot share an environment with, so lighteval is not in the `test` extra: this module runs in an
environment with the `lighteval` extra (see docs/integrations.md) and is skipped elsewhere.
"""

from __future__ import annotations

from typing import Any

import pytest

lighteval = pytest.importorskip("lighteval", reason="needs the lighteval extra (conflicts with math-verify 0.9.0)")

from lighteval.metrics.utils.metric_utils import SampleLevelMetric  # noqa: E402
from lighteval.models.model_output import ModelResponse  # noqa: E402
from lighteval.tasks.requests import Doc, SamplingMethod  # noqa: E402

import rapidgrade  # noqa: E402
from rapidgrade.integrations.lighteval import RapidgradeMatch, make_metric, rapidgrade_metric  # noqa: E402

DOCS = [
    ("1/2", [r"so $\boxed{0.5}$"]),
    ("3", ["The answer is 4."]),
    (r"\sqrt{2}", [r"\boxed{5}", r"$\boxed{2^{1/2}}$"]),
    ("7", ["I cannot tell"]),
]


def _doc(gold: str) -> Any:
    return Doc(query="q", choices=[gold], gold_index=0, task_name="t")


def test_metric_shape() -> None:
    assert isinstance(rapidgrade_metric, SampleLevelMetric)
    assert rapidgrade_metric.category == SamplingMethod.GENERATIVE
    assert rapidgrade_metric.metric_name == "extractive_match"
    assert isinstance(rapidgrade_metric.sample_level_fn, RapidgradeMatch)


def test_equal_to_grade_on_docs() -> None:
    scores = []
    for gold, samples in DOCS:
        doc = _doc(gold)
        out = rapidgrade_metric.compute_sample(doc=doc, model_response=ModelResponse(text=samples))
        expected = max(float(rapidgrade.grade(gold, s).correct) for s in samples)
        assert out == {"extractive_match": expected}
        assert doc.specific["extracted_predictions"] == [rapidgrade.grade(gold, s).extracted for s in samples]
        scores.append(out["extractive_match"])
    assert scores == [1.0, 0.0, 1.0, 0.0]
    assert rapidgrade_metric.get_corpus_aggregations()["extractive_match"](scores) == 0.5


def test_options_and_name() -> None:
    strict = make_metric("rg_strict", last_number=False)
    out = strict.compute_sample(doc=_doc("7"), model_response=ModelResponse(text=["it is 7"]))
    assert out == {"rg_strict": 0.0}
    lenient = make_metric("rg", last_number=True)
    assert lenient.compute_sample(doc=_doc("7"), model_response=ModelResponse(text=["it is 7"])) == {"rg": 1.0}
