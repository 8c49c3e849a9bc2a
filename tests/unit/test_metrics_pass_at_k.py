"""pass@k over problems with different numbers of samples, and per-group metrics: the one
computation (rapidgrade.metrics.pass_at_k_curve) that the summary, the report and metrics.json
read."""

from __future__ import annotations

import json
from itertools import combinations, pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade.metrics import MetricsAccumulator, pass_at_k, pass_at_k_curve


def brute_pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that a random k-subset of n samples holds a correct one, by counting."""
    samples = [True] * c + [False] * (n - c)
    subsets = list(combinations(range(n), k))
    return sum(any(samples[i] for i in s) for s in subsets) / len(subsets)


def _problem() -> st.SearchStrategy[tuple[int, int]]:
    return st.integers(1, 40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n)))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_problem(), st.integers(1, 50), min_size=1, max_size=12))
def test_pass_at_k_never_decreases_in_k(histogram: dict[tuple[int, int], int]) -> None:
    curve = pass_at_k_curve(histogram)
    ks = [int(k) for k in curve]
    fewest = min(n for n, _ in histogram)
    assert ks == sorted(ks) and ks[0] == 1 and ks[-1] == fewest  # every problem has k samples
    values = list(curve.values())
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b + 1e-12 for a, b in pairwise(values)), curve


def test_three_and_four_samples_count_every_problem_in_every_k() -> None:
    # The shape: some problems with 4 samples, some with 3. Averaging pass@4 over the
    # 4-sample problems only gave a pass@4 below pass@2.
    problems = [(4, 1), (4, 3), (3, 1), (3, 0), (3, 2), (4, 4)]
    histogram: dict[tuple[int, int], int] = {}
    for p in problems:
        histogram[p] = histogram.get(p, 0) + 1
    curve = pass_at_k_curve(histogram)
    assert list(curve) == ["1", "2", "3"]
    for k, value in curve.items():
        expected = sum(brute_pass_at_k(n, c, int(k)) for n, c in problems) / len(problems)
        assert abs(value - expected) < 1e-12


def test_the_accumulator_reports_the_curve_and_what_it_is_over() -> None:
    acc = MetricsAccumulator()
    for n, c in [(4, 1), (4, 3), (3, 1), (3, 0)]:
        verdicts = [{"correct": i < c, "decided_by": "fast"} for i in range(n)]
        acc.add_row({"id": "x"}, verdicts, is_list=True, input_error=False, majority_correct=False)
    m = acc.finish()
    assert m.pass_at_k == pass_at_k_curve({(4, 1): 1, (4, 3): 1, (3, 1): 1, (3, 0): 1})
    assert list(m.pass_at_k) == ["1", "2", "3"]
    assert m.samples == {"problems": 4, "min": 3, "max": 4}
    assert m.to_dict()["samples"] == {"problems": 4, "min": 3, "max": 4}


def test_groups_have_their_own_pass_at_k_and_survive_a_resume() -> None:
    acc = MetricsAccumulator(group_by=["source", "meta.model"])
    rows = [
        ({"source": "A", "meta": {"model": "m1"}, "level": "1"}, [True, False, False, False]),
        ({"source": "A", "meta": {"model": "m2"}, "level": "1"}, [False, False, True]),
        ({"source": "B", "meta": {"model": "m1"}, "level": "2"}, [True, True, True, False]),
        ({"source": "B"}, [False, False, False]),
    ]
    for row, correct in rows:
        verdicts = [{"correct": ok, "decided_by": "fast"} for ok in correct]
        acc.add_row(row, verdicts, is_list=True, input_error=False, majority_correct=False)
    acc.add_single_rows([{"source": "A"}], [True], ["fast"])  # one response: no pass@k
    restored = MetricsAccumulator.from_state(json.loads(json.dumps(acc.state())), ["source", "meta.model"])
    for m in (acc.finish(), restored.finish()):
        assert m.group_by == ("source", "meta.model")
        a, b = m.groups["source"]["A"], m.groups["source"]["B"]
        assert (a["total"], a["correct"], a["problems"]) == (8, 3, 2)
        assert a["pass_at_k"] == pass_at_k_curve({(4, 1): 1, (3, 1): 1})
        assert b["pass_at_k"] == pass_at_k_curve({(4, 3): 1, (3, 0): 1})
        assert m.groups["meta.model"]["m1"]["pass_at_k"] == pass_at_k_curve({(4, 1): 1, (4, 3): 1})
        assert m.groups["level"]["2"]["pass_at_k"]["4"] == pass_at_k(4, 3, 4)
        assert m.to_dict()["group_by"] == ["source", "meta.model"]


def test_the_states_of_two_parts_add_up_to_the_state_of_both() -> None:
    # --ray grades parts of a job apart and adds their states key by key (MERGES["math"]).
    from rapidgrade._ray_score import MERGES

    rows = [({"source": "A"}, [True, False, False]), ({"source": "B"}, [True, True, False, False])]
    whole, first, second = (MetricsAccumulator(group_by=["source"]) for _ in range(3))
    for i, (row, correct) in enumerate(rows):
        verdicts = [{"correct": ok, "decided_by": "fast"} for ok in correct]
        for acc in (whole, first if i == 0 else second):
            acc.add_row(row, verdicts, is_list=True, input_error=False, majority_correct=False)
    merged = MERGES["math"](json.loads(json.dumps(first.state())), json.loads(json.dumps(second.state())))
    m = MetricsAccumulator.from_state(merged, ["source"]).finish()
    expected = whole.finish()
    assert (m.groups, m.pass_at_k, m.samples) == (expected.groups, expected.pass_at_k, expected.samples)
