"""rapidgrade's lighteval metric (lighteval 0.13, the real library) on a handful of docs.

lighteval pins latex2sympy2_extended==1.0.6, which math-verify 0.9.0 (in the `test` extra)
cannot share an environment with, so lighteval is not in the `test` extra. These tests are marked
``lighteval``: plain ``pytest`` deselects them (pyproject's addopts), and ``.ci/run`` runs them with
``pytest -m lighteval`` in a second environment that has the `lighteval` extra
(docs/integrations.md). Selected without lighteval installed, they fail on the import.
"""

from __future__ import annotations

from typing import Any

import pytest

import rapidgrade
from tests.lazy import imported

pytestmark = pytest.mark.lighteval


@pytest.fixture(scope="module")
def lv() -> Any:
    """lighteval's classes and rapidgrade's metric, imported only when these tests run."""
    return imported(
        SampleLevelMetric="lighteval.metrics.utils.metric_utils:SampleLevelMetric",
        ModelResponse="lighteval.models.model_output:ModelResponse",
        Doc="lighteval.tasks.requests:Doc",
        SamplingMethod="lighteval.tasks.requests:SamplingMethod",
        RapidgradeMatch="rapidgrade.integrations.lighteval:RapidgradeMatch",
        make_metric="rapidgrade.integrations.lighteval:make_metric",
        metric="rapidgrade.integrations.lighteval:rapidgrade_metric",
    )


DOCS = [
    ("1/2", [r"so $\boxed{0.5}$"]),
    ("3", ["The answer is 4."]),
    (r"\sqrt{2}", [r"\boxed{5}", r"$\boxed{2^{1/2}}$"]),
    ("7", ["I cannot tell"]),
]


def _doc(lv: Any, gold: str) -> Any:
    return lv.Doc(query="q", choices=[gold], gold_index=0, task_name="t")


def test_metric_shape(lv: Any) -> None:
    assert isinstance(lv.metric, lv.SampleLevelMetric)
    assert lv.metric.category == lv.SamplingMethod.GENERATIVE
    assert lv.metric.metric_name == "extractive_match"
    assert isinstance(lv.metric.sample_level_fn, lv.RapidgradeMatch)


def test_equal_to_grade_on_docs(lv: Any) -> None:
    scores = []
    for gold, samples in DOCS:
        doc = _doc(lv, gold)
        out = lv.metric.compute_sample(doc=doc, model_response=lv.ModelResponse(text=samples))
        expected = max(float(rapidgrade.grade(gold, s).correct) for s in samples)
        assert out == {"extractive_match": expected}
        assert doc.specific["extracted_predictions"] == [rapidgrade.grade(gold, s).extracted for s in samples]
        scores.append(out["extractive_match"])
    assert scores == [1.0, 0.0, 1.0, 0.0]
    assert lv.metric.get_corpus_aggregations()["extractive_match"](scores) == 0.5


def test_options_and_name(lv: Any) -> None:
    strict = lv.make_metric("rg_strict", last_number=False)
    out = strict.compute_sample(doc=_doc(lv, "7"), model_response=lv.ModelResponse(text=["it is 7"]))
    assert out == {"rg_strict": 0.0}
    lenient = lv.make_metric("rg", last_number=True)
    assert lenient.compute_sample(doc=_doc(lv, "7"), model_response=lv.ModelResponse(text=["it is 7"])) == {"rg": 1.0}
