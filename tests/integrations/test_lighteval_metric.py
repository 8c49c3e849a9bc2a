"""rapidgrade's lighteval metric (lighteval 0.13, the real library) on a handful of docs.

lighteval pins latex2sympy2_extended==1.0.6, which math-verify 0.9.0 (in the `test` extra)
cannot share an environment with, so lighteval is not in the `test` extra. These tests are marked
``lighteval``: plain ``pytest`` deselects them (pyproject's addopts), and ``.ci/run`` runs them with
``pytest -m lighteval`` in a second environment that has the `lighteval` extra
(docs/integrations.md). Selected without lighteval installed, they fail on the import.
"""

from __future__ import annotations

import importlib
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
        Metrics="lighteval.metrics.metrics:Metrics",
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


# Records of lighteval 0.13's own tasks, in their datasets' formats: GSM8K (openai/gsm8k, `question`
# and `answer` ending in "#### N"), MATH (DigitalLearningGmbH/MATH-lighteval, `problem` and the
# reference `solution` with its \boxed{}), MATH-500 (HuggingFaceH4/MATH-500, `problem`,
# `solution`, `answer`). Each task's prompt function turns a record into the Doc lighteval grades,
# whose gold is the whole reference answer or solution.
GSM8K_RECORD = {
    "question": "Janet\u2019s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes "
    "muffins for her friends every day with four. She sells the remainder at the farmers' market daily for $2 "
    "per fresh duck egg. How much in dollars does she make every day at the farmers' market?",
    "answer": "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day "
    "at the farmer\u2019s market.\n#### 18",
}
MATH_RECORD = {
    "problem": "How many vertical asymptotes does the graph of $y=\\frac{2}{x^2+x-6}$ have?",
    "level": "Level 3",
    "type": "Algebra",
    "solution": "The denominator of the rational function factors into $x^2+x-6=(x-2)(x+3)$. Since the numerator "
    "is always nonzero, there is a vertical asymptote whenever the denominator is $0$, which occurs for $x = 2$ "
    "and $x = -3$.  Therefore, the graph has $\\boxed{2}$ vertical asymptotes.",
}
MATH500_RECORD = {
    "problem": "Convert the point $(0,3)$ in rectangular coordinates to polar coordinates.  Enter your answer in "
    "the form $(r,\\theta),$ where $r > 0$ and $0 \\le \\theta < 2 \\pi.$",
    "solution": "We have that $r = \\sqrt{0^2 + 3^2} = 3.$  Also, if we draw the line connecting the origin and "
    "$(0,3),$ this line makes an angle of $\\frac{\\pi}{2}$ with the positive $x$-axis.\n\nTherefore, the polar "
    "coordinates are $\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}.$",
    "answer": "\\left( 3, \\frac{\\pi}{2} \\right)",
    "subject": "Precalculus",
    "level": 2,
    "unique_id": "test/precalculus/807.json",
}
# (task module, task config, prompt function, record, a right and a wrong model response). The
# reference score is the task's own metric, except for `math`: its maj@n is configured with
# normalize_gold/normalize_pred = math_normalizer, which lighteval 0.13's MajAtN stores but never
# applies, so it compares whole texts and scores a right answer 0 unless it repeats the reference
# solution word for word (checked below); there lighteval's math-verify metric for MATH answers,
# Metrics.pass_at_k_math (MATH-500's), is the reference.
TASKS = [
    (
        "gsm8k", "gsm8k", "gsm8k_prompt", GSM8K_RECORD,
        " Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18",
        " She sells 16 - 3 = 13 eggs, so she makes 13 * 2 = $26.\n#### 26",
    ),
    (
        "math", "math_algebra", "math_prompt", MATH_RECORD,
        " The denominator is $(x-2)(x+3)$, which vanishes twice, so there are $\\boxed{2}$ asymptotes.",
        " The denominator has one real root, so the answer is $\\boxed{1}$.",
    ),
    (
        "math_500", "math_500", "math_500_prompt", MATH500_RECORD,
        "Here $r = 3$ and $\\theta = \\pi/2$.\nANSWER: $\\left(3, \\frac{\\pi}{2}\\right)$",
        "Here $r = 3$ and $\\theta = \\pi$.\nANSWER: $(3, \\pi)$",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("module", "config", "prompt", "record", "right", "wrong"), TASKS, ids=[t[0] for t in TASKS])
def test_lighteval_tasks_score_as_lighteval_does(
    lv: Any, module: str, config: str, prompt: str, record: dict[str, Any], right: str, wrong: str
) -> None:
    # the Doc and the metric are the task's own (lighteval.tasks.tasks.<module>), as lighteval builds them
    task_module = importlib.import_module(f"lighteval.tasks.tasks.{module}")
    doc = getattr(task_module, prompt)(record, module)
    (their_metric,) = getattr(task_module, config).metrics
    if module == "math":
        whole = their_metric.compute_sample(doc=doc, model_response=lv.ModelResponse(text=[right] * 4))
        verbatim = their_metric.compute_sample(doc=doc, model_response=lv.ModelResponse(text=[record["solution"]] * 4))
        assert (list(whole.values()), list(verbatim.values())) == ([0], [1])
        their_metric = lv.Metrics.pass_at_k_math(sample_params={"k": 1, "n": 1})
    samples = their_metric.sample_level_fn.num_samples() if hasattr(their_metric.sample_level_fn, "num_samples") else 1
    for response, expected in ((right, 1.0), (wrong, 0.0)):
        theirs = their_metric.compute_sample(doc=doc, model_response=lv.ModelResponse(text=[response] * samples))
        ours = lv.metric.compute_sample(doc=doc, model_response=lv.ModelResponse(text=[response]))
        assert list(theirs.values()) == [expected], (module, response, theirs)
        assert ours == {"extractive_match": expected}, (module, response)
    # the gold is read at its marker, on the fast path
    (gold,) = doc.get_golds()
    verdict = rapidgrade.grade(gold, right)
    assert (verdict.correct, verdict.decided_by) == (True, "fast")
    assert doc.specific["extracted_golds"] == [verdict.gold]
