"""verl's custom reward function and batched form, reward options, format reward, pass@k, majority.

These tests call the functions as verl 0.9's reward managers do, row by row and option by option
(keyword names and values as in verl/workers/reward_manager/naive.py, batch.py and
verl/trainer/ppo/reward.py: reward_kwargs merged over the call's keywords, the file loaded by
path); test_verl_library.py lets verl's own managers make the calls, and test_install_beside.py
resolves verl beside rapidgrade.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import pickle
import threading
from typing import Any

import numpy as np
import pytest

import rapidgrade
from rapidgrade.integrations import rewards, verl
from rapidgrade.integrations.rewards import RewardConfig, format_reward, majority_vote, pass_at_k, score_many
from rapidgrade.metrics import pass_at_k as metrics_pass_at_k


def _verl_custom_fn(name: str, reward_kwargs: dict[str, Any]) -> Any:
    """As verl's get_custom_reward_fn: import the file by path, then merge reward_kwargs."""
    path = verl.__file__
    spec = importlib.util.spec_from_file_location("custom_module", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    raw_fn = getattr(module, name)

    def call_with_kwargs(*args: Any, **kwargs: Any) -> Any:
        return raw_fn(*args, **{**kwargs, **reward_kwargs})

    return call_with_kwargs


def test_naive_reward_manager_call() -> None:
    fn = _verl_custom_fn("compute_score", {})
    extra_info = {"index": 3, "num_turns": None, "rollout_reward_scores": {}}
    score = fn(data_source="lighteval/MATH", solution_str=r"... so $\boxed{\frac{1}{2}}$", ground_truth="0.5",
               extra_info=extra_info)  # fmt: skip
    assert score == 1.0 and isinstance(score, float)
    assert fn(data_source="x", solution_str=r"\boxed{3}", ground_truth="2", extra_info=extra_info) == 0.0


def test_reward_kwargs_and_dict_result() -> None:
    fn = _verl_custom_fn("compute_score", {"return_dict": True, "format_score": 0.1})
    out = fn(data_source="gsm8k", solution_str=r"\boxed{41}", ground_truth="42", extra_info={})
    assert out == {"score": 0.1, "acc": 0.0, "pred": "41", "correct": False, "extracted": "41",
                   "decided_by": "fast", "reason": "not equivalent"}  # fmt: skip
    right = fn(data_source="gsm8k", solution_str=r"\boxed{42}", ground_truth="42", extra_info={})
    assert right["score"] == 1.0 and right["correct"] is True and right["acc"] == 1.0
    # pred is the answer as the grader read and compared it (equal answers vote together in
    # verl's maj@N), "" when the response gives none
    halves = [fn(data_source="m", solution_str=s, ground_truth="0.5", extra_info={})["pred"]
              for s in (r"\boxed{\frac{1}{2}}", r"\boxed{1/2}", "")]  # fmt: skip
    assert halves[0] == halves[1] != "" and halves[2] == ""


def test_strict_by_default_and_options_per_row() -> None:
    assert verl.compute_score("math", "I think it is 42", "42") == 0.0
    assert verl.compute_score("math", "I think it is 42", "42", last_number=True) == 1.0
    info = {"rapidgrade": {"last_number": True}, "index": 0}
    assert verl.compute_score("math", "I think it is 42", "42", extra_info=info) == 1.0
    # extra_info wins over the keyword options
    info_strict = {"rapidgrade": {"last_number": False}}
    assert verl.compute_score("math", "I think it is 42", "42", info_strict, last_number=True) == 0.0


def test_batch_reward_manager_call() -> None:
    fn = _verl_custom_fn("compute_score_batch", {"format_score": 0.2})
    data_sources = ["math"] * 4
    solution_strs = [r"\boxed{\sqrt{2}}", r"\boxed{3}", "no idea", r"it is 7"]
    ground_truths = [r"2^{1/2}", "4", "1", "7"]
    extra_infos = [{"rollout_reward_scores": {}} for _ in range(3)] + [{"rapidgrade": {"last_number": True}}]
    scores = fn(data_sources=data_sources, solution_strs=solution_strs, ground_truths=ground_truths,
                extra_infos=extra_infos)  # fmt: skip
    assert scores == [1.0, 0.2, 0.0, 1.0]
    singles = [verl.compute_score(d, s, g, e, format_score=0.2)
               for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos)]  # fmt: skip
    assert scores == singles


def test_batch_lengths_checked() -> None:
    with pytest.raises(ValueError, match="differ in length"):
        verl.compute_score_batch(["a"], ["b", "c"], ["1", "2"])


def test_factory_is_a_partial_that_pickles() -> None:
    fn = verl.make_compute_score(format_score=0.5, timeout=2.0)
    assert isinstance(fn, functools.partial)
    clone = pickle.loads(pickle.dumps(fn))
    assert clone("m", r"\boxed{1}", "2") == 0.5
    with pytest.raises(TypeError, match="unknown option"):
        verl.make_compute_score(strictness=1)
    with pytest.raises(ValueError, match="form"):
        verl.make_compute_score(form="yaml")


def test_from_threads_needs_no_signal() -> None:
    # a pair the fast path leaves to the SymPy fallback, graded from a non-main thread
    results: list[Any] = []
    thread = threading.Thread(
        target=lambda: results.append(
            verl.compute_score("m", r"\boxed{\int_0^1 x dx}", r"\frac{1}{2}", return_dict=True, timeout=120)
        )
    )
    thread.start()
    thread.join(300)
    assert results and results[0]["score"] == 1.0
    assert results[0]["decided_by"] in ("sympy", "math_verify")


def test_conversations_and_options() -> None:
    conv = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": r"\boxed{4}"}]
    assert score_many(["4", "4"], [conv, r"\boxed{5}"]) == [1.0, 0.0]
    assert score_many(["4"], [r"\boxed{5}"], correct_score=2.0, format_score=0.5, incorrect_score=-1.0) == [0.5]
    assert score_many(["4"], ["5"], correct_score=2.0, format_score=0.5, incorrect_score=-1.0) == [-1.0]
    with pytest.raises(TypeError, match="unknown option"):
        score_many(["4"], ["4"], bogus=1)
    with pytest.raises(TypeError):
        RewardConfig(correct_score="1")  # type: ignore[arg-type]


def test_format_reward_forms() -> None:
    texts = [r"so \boxed{2}", "The answer is 2.", "<answer>2</answer>", "2", "", None]
    assert format_reward(texts) == [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    assert format_reward(texts, form="boxed") == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    with pytest.raises(ValueError):
        format_reward(texts, form="json")


def test_pass_at_k_is_the_metrics_one() -> None:
    assert rewards.pass_at_k is metrics_pass_at_k
    assert math.isclose(pass_at_k(8, 2, 4), 0.7857142857142857)


def test_majority_vote() -> None:
    vote = majority_vote("1/2", [r"\boxed{0.5}", r"\boxed{1/3}", r"\boxed{0.5}", r"\boxed{1/3}", "x"])
    assert vote == rewards.MajorityVote("0.5", True, 2, 5)  # tie: the first to reach the count wins
    assert majority_vote("1", [""]) == rewards.MajorityVote(None, False, 0, 1)
    assert majority_vote("1", ["it is 1"], last_number=True).correct


def test_exports() -> None:
    assert rapidgrade.grade_dataset is not None and rapidgrade.map_fn is not None
    assert "grade_dataset" in rapidgrade.__all__ and "map_fn" in rapidgrade.__all__


# -- ground truths as verl's data gives them ---------------------------------------------------


def test_ground_truth_lists_and_numpy_values() -> None:
    boxed = r"so \boxed{72}"
    for ground_truth in (
        ["72", "72.0"],  # a list: any of them counts (as rapidgrade score reads a list of golds)
        ["70", "72"],
        ("seventy-two", 72),
        np.array(["72", "7.2e1"], dtype=object),  # a Parquet list column read with pandas
        np.array(["71", "72"]),  # a str-dtype array
        np.int64(72),  # an integer column read with pandas
        np.int32(72),
        np.float64(72.0),
        np.float32(72.0),
        np.str_("72"),
        np.array("72"),  # a 0-d array
        [np.int64(72)],
    ):
        assert verl.compute_score("m", boxed, ground_truth) == 1.0, ground_truth
    assert verl.compute_score("m", boxed, ["70", "71"]) == 0.0
    assert verl.compute_score("m", r"\boxed{71}", np.array(["70", "71"]), format_score=0.1) == 1.0
    # a list's verdict: the first answer matched, else the first answer
    hit = verl.compute_score("m", boxed, ["70", "72"], return_dict=True)
    miss = verl.compute_score("m", boxed, ["70", "71"], return_dict=True)
    assert isinstance(hit, dict) and isinstance(miss, dict)
    assert (hit["acc"], hit["correct"], hit["reason"]) == (1.0, True, "same answer after normalization")
    assert (miss["acc"], miss["correct"], miss["pred"]) == (0.0, False, "72")
    # the batch form: mixed types, one grade_many call, the same scores as row by row
    golds = ["72", ["1", "72"], np.int64(5), np.array(["72"], dtype=object), 72.0]
    sols = [boxed, boxed, r"\boxed{5}", boxed, boxed]
    assert verl.compute_score_batch(["m"] * 5, sols, golds) == [1.0] * 5
    assert verl.compute_score_batch(["m"] * 5, sols, golds) == [
        verl.compute_score("m", s, g) for s, g in zip(sols, golds)
    ]


def test_ground_truths_read_back_from_parquet(tmp_path: Any) -> None:
    # verl's data layout (reward_model: {ground_truth, style}) written to Parquet, then read as
    # verl reads it: pandas (verl.trainer.main_eval: lists come back as NumPy arrays, integers as
    # np.int64) and Hugging Face datasets (verl's RLHFDataset: lists and ints), in numpy object
    # arrays as verl's collate_fn stacks them.
    import datasets
    import pandas as pd

    rows = [
        {"data_source": "m", "reward_model": {"ground_truth": ["72", "72.0"], "style": "rule"}},
        {"data_source": "m", "reward_model": {"ground_truth": ["3/4", "0.75"], "style": "rule"}},
    ]
    path = tmp_path / "train.parquet"
    pd.DataFrame(rows).to_parquet(path)
    ints = tmp_path / "ints.parquet"
    pd.DataFrame([{"data_source": "m", "answer": 72}]).to_parquet(ints)  # a flat column, as preprocessing reads it
    sols = [r"\boxed{72}", r"\boxed{\frac{3}{4}}"]

    by_pandas = [r["ground_truth"] for r in pd.read_parquet(path)["reward_model"]]
    assert all(isinstance(g, np.ndarray) for g in by_pandas)
    assert [verl.compute_score("m", s, g) for s, g in zip(sols, by_pandas)] == [1.0, 1.0]
    int_gold = pd.read_parquet(ints)["answer"][0]
    assert isinstance(int_gold, np.integer) and verl.compute_score("m", r"\boxed{72}", int_gold) == 1.0

    by_datasets = datasets.load_dataset("parquet", data_files=str(path))["train"]
    stacked = np.fromiter([row["reward_model"] for row in by_datasets], dtype=object, count=2)
    golds = [item["ground_truth"] for item in stacked]
    assert verl.compute_score_batch(["m", "m"], sols, golds) == [1.0, 1.0]


def test_bad_ground_truths_raise_instead_of_scoring_zero() -> None:
    for ground_truth, error, words in (
        (None, ValueError, "compute_score: ground_truth is empty"),
        ("  ", ValueError, "is empty"),
        ([], ValueError, "is empty"),
        (np.array([], dtype=object), ValueError, "is empty"),
        ({"answer": "3"}, TypeError, "got dict"),
        (True, TypeError, "got bool"),
        ([["3"]], TypeError, "a list with a list item"),
        (np.array([["3"]]), TypeError, "2-dimensional"),
        (b"3", TypeError, "got bytes"),
    ):
        with pytest.raises(error, match=words):
            verl.compute_score("m", r"\boxed{3}", ground_truth)
    with pytest.raises(ValueError, match=r"ground_truths\[1\] is empty"):
        verl.compute_score_batch(["m", "m"], ["3", "3"], ["3", None])


def test_misspelt_options_are_named() -> None:
    fn = _verl_custom_fn("compute_score", {"format_scor": 0.1})
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['format_scor'\]"):
        fn(data_source="m", solution_str=r"\boxed{3}", ground_truth="3", extra_info={})
    batch = _verl_custom_fn("compute_score_batch", {"lastnumber": True})
    with pytest.raises(TypeError, match="'lastnumber'"):
        batch(data_sources=["m"], solution_strs=["3"], ground_truths=["3"], extra_infos=[{}])
    with pytest.raises(TypeError, match=r"extra_info\['rapidgrade'\]: unknown option\(s\) \['strict'\]"):
        verl.compute_score("m", "3", "3", {"rapidgrade": {"strict": True}})
    with pytest.raises(TypeError, match="must be a dict"):
        verl.compute_score("m", "3", "3", {"rapidgrade": True})
    # what verl's reward loop passes itself is not an option and not an error
    kwargs = {"reward_router_address": None, "reward_model_tokenizer": None}
    assert verl.compute_score("m", r"\boxed{3}", "3", {}, **kwargs) == 1.0
    assert verl.compute_score_batch(["m"], [r"\boxed{3}"], ["3"], None, **kwargs) == [1.0]
