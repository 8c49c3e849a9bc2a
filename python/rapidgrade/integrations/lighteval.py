r"""A lighteval metric that grades with rapidgrade: swap it for math-verify's in one line.

lighteval (0.13) scores a generative sample with a ``SampleLevelMetric`` whose
``sample_level_fn`` is a ``SampleLevelComputation``: ``compute(doc, model_response)`` gets the
``Doc`` (golds from ``doc.get_golds()``) and the ``ModelResponse`` (its ``final_text``, one string
per sample) and returns a float; ``corpus_level_fn`` averages the floats. :data:`rapidgrade_metric`
is such a metric, scored as lighteval's ``Metrics.expr_gold_metric`` scores (a sample counts when
any gold matches, ``max`` over the samples), each pair decided by :func:`rapidgrade.grade_many`,
exactly as :func:`rapidgrade.grade` decides it. In a task's ``LightevalTaskConfig``, replace the
math-verify metric (``Metrics.expr_gold_metric``, ``Metrics.pass_at_k_math(...)``,
``Metrics.maj_at_n(...)`` with ``math_normalizer``; lighteval 0.13 has no ``latex_gold_metric``)::

    from rapidgrade.integrations.lighteval import rapidgrade_metric
    ...  metrics=[rapidgrade_metric]

A gold may be a bare answer or a whole reference solution, as lighteval's own ``gsm8k``, ``math``
and ``math_500`` tasks pass them (``" {answer}"`` ending in ``#### 72``, ``" {solution}"`` and
``"ANSWER: {solution}"`` ending in ``\boxed{...}``): the core reads a solution's answer at its box
or tag, on the fast path.

The extracted answers go to ``doc.specific["extracted_predictions"]`` (and the golds' answers to
``"extracted_golds"``), where lighteval's details show math-verify's. Needs lighteval: using
``rapidgrade_metric``, ``RapidgradeMatch`` or ``make_metric`` without it raises an ``ImportError``
that says so.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from rapidgrade.grade import grade_many

# RapidgradeMatch and rapidgrade_metric are built on first access (module __getattr__ below).
__all__ = ["make_metric"]


def _lighteval() -> Any:
    """lighteval's ``(SampleLevelComputation, SampleLevelMetric, SamplingMethod)``."""
    try:
        from lighteval.metrics.metrics_sample import SampleLevelComputation
        from lighteval.metrics.utils.metric_utils import SampleLevelMetric
        from lighteval.tasks.requests import SamplingMethod
    except ImportError as err:
        raise ImportError(
            "rapidgrade.integrations.lighteval needs lighteval (pip install 'rapidgrade[lighteval]')"
        ) from err
    return SampleLevelComputation, SampleLevelMetric, SamplingMethod


def _compute(self: Any, doc: Any, model_response: Any, **kwargs: Any) -> float:
    golds = [str(g) for g in doc.get_golds()]
    predictions: Sequence[str] = model_response.final_text
    if not predictions or not golds:
        return 0.0
    results = grade_many(
        [g for _ in predictions for g in golds], [p for p in predictions for _ in golds], **self.options
    )
    correct = results.correct.reshape(len(predictions), len(golds))
    if doc.specific is None:
        doc.specific = {}
    extracted = results.extracted
    doc.specific["extracted_predictions"] = [extracted[i * len(golds)] for i in range(len(predictions))]
    doc.specific["extracted_golds"] = results.gold[: len(golds)]
    return float(self.aggregation([1.0 if row.any() else 0.0 for row in correct]))


def _init(self: Any, aggregation: Callable[[list[float]], float] = max, **options: Any) -> None:
    self.aggregation = aggregation
    self.options = options


@functools.cache
def _match_class() -> type:
    base = _lighteval()[0]
    doc = """lighteval's ``SampleLevelComputation`` grading with rapidgrade: ``compute(doc,
    model_response)`` is *aggregation* (default ``max``) over the model's samples of 1.0 when
    :func:`rapidgrade.grade` finds the sample equal to any of ``doc.get_golds()``. *options* are
    :func:`rapidgrade.grade_many`'s (``last_number``, ``timeout``, ``task``, ...)."""
    namespace = {"__init__": _init, "compute": _compute, "__doc__": doc, "__module__": __name__}
    return type("RapidgradeMatch", (base,), namespace)


def make_metric(metric_name: str = "extractive_match", **options: Any) -> Any:
    """A lighteval ``SampleLevelMetric`` named *metric_name* (math-verify's metric is named
    ``"extractive_match"``, so results keep their column) grading with *options*.

    Raises:
        ImportError: lighteval is not installed.
    """
    _, sample_level_metric, sampling_method = _lighteval()
    return sample_level_metric(
        metric_name=metric_name,
        sample_level_fn=_match_class()(**options),
        category=sampling_method.GENERATIVE,
        corpus_level_fn=np.mean,
        higher_is_better=True,
    )


def __getattr__(name: str) -> Any:
    # Built on first use, so that the module imports (and its documentation is read) without
    # lighteval: RapidgradeMatch subclasses lighteval's SampleLevelComputation.
    if name == "RapidgradeMatch":
        return _match_class()
    if name == "rapidgrade_metric":
        metric = make_metric()
        globals()[name] = metric
        return metric
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
