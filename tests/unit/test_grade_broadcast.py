"""grade_many with one gold for every response (the samples of one problem: pass@k, majority vote)."""

from __future__ import annotations

import pytest

from rapidgrade import grade_many

SAMPLES = [
    r"so the answer is $\boxed{\frac{1}{2}}$",
    "The answer is 0.5.",
    r"we get $\boxed{2}$",
    "I am not sure.",
    r"Thus $x = \dfrac12$.",
]


def test_one_str_gold_grades_every_response_as_a_repeated_gold_would() -> None:
    one = grade_many(r"\frac{1}{2}", SAMPLES, fallback=False)
    repeated = grade_many([r"\frac{1}{2}"] * len(SAMPLES), SAMPLES, fallback=False)
    assert one == repeated
    assert one.correct.tolist() == [True, True, False, False, True]
    assert one.gold == [r"\frac{1}{2}"] * len(SAMPLES)
    assert one[2].reason == "not equivalent"


@pytest.mark.parametrize(("gold", "shown"), [(12, "12"), (0.5, "0.5")])
def test_one_number_gold_is_read_as_its_str(gold: float, shown: str) -> None:
    responses = ["It is 12.", r"\boxed{0.5}", "so 1/2"]
    results = grade_many(gold, responses, fallback=False)
    assert results == grade_many([shown] * 3, responses, fallback=False)
    assert results.gold == [shown] * 3


def test_any_sequence_of_responses_and_none() -> None:
    assert grade_many("3", (r for r in ["3", "4"])).correct.tolist() == [True, False]
    assert grade_many("3", ("3", "4")).correct.tolist() == [True, False]
    assert len(grade_many("3", [])) == 0


def test_a_bad_response_is_an_error_verdict_and_the_batch_goes_on() -> None:
    results = grade_many("3", ["3", None, "the answer is 3"])  # type: ignore[list-item]
    assert results.correct.tolist() == [True, False, True]
    assert results[1].decided_by == "error"
    assert results[1].reason == "response must be a str, not NoneType"


def test_undecided_pairs_of_one_gold_go_to_the_fallback() -> None:
    # 100! is past the core's exact integer range: the fallback decides, once per pair
    results = grade_many("100!", [r"\boxed{100! + 0}", r"\boxed{100! + 1}", "7"], timeout=120)
    assert results.correct.tolist() == [True, False, False]
    assert results.decided_by.tolist()[0] in ("math_verify", "sympy")


def test_physics_task_broadcasts_too() -> None:
    assert grade_many("5 m", ["5 m", "500 cm", "5 s"], task="physics").correct.tolist() == [True, True, False]


def test_one_response_str_is_refused() -> None:
    with pytest.raises(TypeError, match=r"responses must be a sequence of str, not str.*grade\(\) grades one pair"):
        grade_many(["1"], "1")
    with pytest.raises(TypeError, match="responses must be a sequence of str, not str"):
        grade_many("1", "1")
    with pytest.raises(TypeError, match="responses must be a sequence of str, not bytes"):
        grade_many("1", b"1")  # type: ignore[arg-type]


@pytest.mark.parametrize("gold", [True, b"1", None, object()])
def test_one_gold_of_another_type_is_refused(gold: object) -> None:
    with pytest.raises(TypeError, match=f"golds must be a sequence of str, not {type(gold).__name__}"):
        grade_many(gold, ["1"])  # type: ignore[arg-type]
