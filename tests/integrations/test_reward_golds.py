"""Gold answers of every type the RL integrations receive, in the code they share
(rapidgrade.integrations.rewards) and in TRL's reward functions: a list of acceptable answers
(any counts), NumPy values as pandas reads them from Parquet, and errors for the rest, never a
silent 0.0. (verl's compute_score: test_verl_rewards.py.)

TRL passes each dataset column as a list with one value per completion, as Hugging Face datasets
gives them (a list column gives lists); the rows here come from a real ``datasets.Dataset``.
"""

from __future__ import annotations

import numpy as np
import pytest

from rapidgrade.integrations.rewards import gold_answers, majority_vote, score_many
from rapidgrade.integrations.trl import accuracy_reward, make_accuracy_reward


def test_gold_answers() -> None:
    assert gold_answers("3") == ["3"]
    assert gold_answers(np.int64(3)) == ["3"] and gold_answers(np.float32(0.5)) == ["0.5"]
    assert gold_answers(2.5) == ["2.5"] and gold_answers(np.str_("x")) == ["x"]
    assert gold_answers(["1", 2, np.int64(3), ""]) == ["1", "2", "3"]  # empty items dropped
    assert gold_answers(np.array([1, 2])) == ["1", "2"] and gold_answers(np.array(7)) == ["7"]
    assert gold_answers(None) == gold_answers(" ") == gold_answers([]) == gold_answers(["", " "]) == []
    with pytest.raises(TypeError, match="answer must be a string, a number or a list of those, got bool"):
        gold_answers(np.bool_(True), "answer")
    with pytest.raises(TypeError, match=r"an item of the list\) .* got dict"):
        gold_answers(["1", {"a": 1}])


def test_score_many_and_majority_vote_take_lists() -> None:
    golds = [["0.5", "1/2"], np.array(["4"], dtype=object), np.int64(7), ("x", "9")]
    responses = [r"\boxed{1/2}", r"\boxed{4}", r"\boxed{7}", r"\boxed{9}"]
    assert score_many(golds, responses) == [1.0, 1.0, 1.0, 1.0]
    assert score_many(golds, [r"\boxed{0}"] * 4, format_score=0.1) == [0.1] * 4
    with pytest.raises(ValueError, match=r"gold\[1\] is empty"):
        score_many(["1", []], ["1", "1"])
    vote = majority_vote(["six", "6"], [r"\boxed{6}", r"\boxed{5}", r"so \boxed{6}"])
    assert (vote.correct, vote.votes) == (True, 2)
    assert majority_vote(np.array(["5"]), [r"\boxed{5}"]).correct
    with pytest.raises(ValueError, match="majority_vote: gold is empty"):
        majority_vote([], [r"\boxed{5}"])
    with pytest.raises(TypeError, match=r"majority_vote: unknown option\(s\) \['lastnumber'\]"):
        majority_vote("5", ["5"], lastnumber=True)


def test_trl_accuracy_reward_on_list_and_numeric_columns() -> None:
    import datasets

    rows = datasets.Dataset.from_dict(
        {"solution": [["72", "72.0"], ["3/4", "0.75"], [], ["5"]], "answer": [72, 3, 4, 5]}
    )
    completions = [r"\boxed{72}", r"\boxed{0.75}", r"\boxed{1}", r"\boxed{6}"]
    assert isinstance(rows["solution"][0], list)
    assert accuracy_reward(completions, solution=rows["solution"]) == [1.0, 1.0, None, 0.0]
    by_answer = make_accuracy_reward("answer", format_score=0.1)
    assert by_answer(completions, answer=rows["answer"]) == [1.0, 0.1, 0.1, 0.1]
    numpy_golds = [np.array(["72"], dtype=object), np.int64(1), np.float64(6.0), None]
    assert accuracy_reward(completions, solution=numpy_golds) == [1.0, 0.0, 0.0, None]


def test_trl_bad_gold_is_an_error_naming_its_row() -> None:
    with pytest.raises(TypeError, match=r"accuracy_reward: solution\[1\] must be a string, .* got dict"):
        accuracy_reward(["1", "2"], solution=["1", {"value": 2}])
    with pytest.raises(TypeError, match=r"accuracy_reward: gold\[0\] .* got bool"):
        make_accuracy_reward("gold")(["1"], gold=[True])
    with pytest.raises(TypeError, match=r"make_accuracy_reward: unknown option\(s\) \['formatscore'\]"):
        make_accuracy_reward(formatscore=0.1)
