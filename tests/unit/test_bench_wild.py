"""The pure helpers of benchmarks/bench_wild.py: reading labelled dumps under other field names,
the tallies it prints, the gold it hands math-verify, the CPU it counts for child processes, and
the peer worker that is killed at a deadline and goes on."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from benchmarks import bench_wild
from benchmarks.bench_wild import Keys, Row, error_classes, parse_label, peer_gold, read_rows, run_peer, tally


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        (1.0, True),
        ("true", True),
        ("False", False),
        (" yes ", True),
        ("0", False),
        (None, None),
        ("", None),
        ("null", None),
    ],
)
def test_parse_label(value: object, expected: bool | None) -> None:
    assert parse_label(value) is expected


@pytest.mark.parametrize("value", [2, -1, 0.5, "maybe", [True], {"ok": 1}])
def test_parse_label_refuses_what_is_not_a_truth_value(value: object) -> None:
    with pytest.raises(ValueError, match="is not a bool, 0/1"):
        parse_label(value)


def _lines(*records: object) -> list[str]:
    return [json.dumps(r) for r in records]


def test_read_rows_under_other_field_names() -> None:
    keys = Keys(gold="answer", response="output", label="is_correct", source="model", kind="style", id="uid")
    lines = _lines(
        {"uid": "a", "answer": 18, "output": "The answer is 18 eggs.", "is_correct": "true", "model": "m1"},
        {"uid": "b", "answer": "3", "output": "A: 4", "is_correct": 0, "style": "A:"},
        {"uid": "c", "answer": "3", "output": "3", "is_correct": None},
    )
    rows, unlabelled = read_rows([*lines, "   "], keys, "dump.jsonl")
    assert unlabelled == 1
    assert rows == [
        Row(id="a", gold="18", response="The answer is 18 eggs.", label=True, source="m1", kind="-"),
        Row(id="b", gold="3", response="A: 4", label=False, source="-", kind="A:"),
    ]


def test_read_rows_ids_default_to_line_numbers() -> None:
    rows, _ = read_rows(_lines({"gold": "1", "response": "1", "label": True}), Keys(), "f")
    assert rows[0].id == "1"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (_lines({"answer": "1", "response": "1", "label": True}), r"f:1: no field 'gold' .*--gold-key"),
        (_lines({"gold": "1", "label": True}), r"f:1: no field 'response' .*--response-key"),
        (_lines({"gold": "1", "response": "1", "correct": True}), r"no row has a label field 'label' .*--label-key"),
        (["[1, 2]"], r"f:1: a row must be a JSON object"),
        (["{oops"], r"f:1: not JSON"),
        (_lines({"gold": None, "response": "1", "label": True}), r"f:1: the gold .* is NoneType"),
        (_lines({"gold": "1", "response": "1", "label": "maybe"}), r"f:1: label 'maybe'"),
    ],
)
def test_read_rows_says_what_is_wrong_and_where(lines: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_rows(lines, Keys(), "f")


def test_resolve_corpus_names_the_variable_when_the_corpora_are_absent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAPIDGRADE_SHARED_CORPORA", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="RAPIDGRADE_SHARED_CORPORA"):
        bench_wild.resolve_corpus("wild_dev.jsonl")


def test_load_corpus_by_path_and_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path
    (folder / "mine.jsonl").write_text(
        "\n".join(_lines(*({"gold": str(i), "response": "1", "label": i == 1} for i in range(5))))
    )
    by_path = bench_wild.load_corpus(str(folder / "mine.jsonl"), Keys(), limit=3)
    assert (by_path.name, len(by_path.rows), by_path.unlabelled) == ("mine", 3, 0)
    monkeypatch.setenv("RAPIDGRADE_SHARED_CORPORA", str(folder))
    assert bench_wild.load_corpus("mine.jsonl", Keys()).path == folder / "mine.jsonl"
    with pytest.raises(FileNotFoundError, match="not found"):
        bench_wild.resolve_corpus(str(folder / "absent.jsonl"))


@pytest.mark.parametrize(
    ("gold", "given"),
    [
        (r"\frac{1}{2}", r"$\frac{1}{2}$"),
        (r"\$6", r"$\$6$"),
        ("b ^ { 2 } - 9 a ^ { 2 }", "$b ^ { 2 } - 9 a ^ { 2 }$"),
        (r"$\frac{2 \pi}{3}$.", r"$\frac{2 \pi}{3}$."),
        (r"so \boxed{5}", r"so \boxed{5}"),
        ("She has 9 - 2 = 7.\n#### 7", "She has 9 - 2 = 7.\n#### 7"),
    ],
)
def test_peer_gold(gold: str, given: str) -> None:
    assert peer_gold(gold) == given


def test_tally_counts_each_column() -> None:
    labels = np.array([True, True, False, False, True, False, True])
    correct = np.array([True, False, True, False, False, True, True])
    decided = np.array(["fast", "fast", "fast", "fast", "sympy", "math_verify", "limit"])
    fast_alone = np.array([True, False, True, False, False, False, False])
    peer = np.array([True, True, False, True, True, False, False])
    t = tally(labels, correct, decided, fast_alone, peer)
    assert (t.rows, t.rg_fp, t.rg_fn, t.rg_errors) == (7, 2, 2, 4)
    assert (t.mv_fp, t.mv_fn, t.mv_errors) == (1, 1, 2)
    assert t.fast_alone_errors == 4  # rows 1, 2, 4, 6
    assert t.fallback == 2  # sympy and math_verify; "limit" is the fast path's
    assert (t.rg_errors_fast, t.rg_errors_fallback) == (2, 2)
    assert (t.fast_true, t.fast_true_wrong) == (2, 1)  # "limit" is not a certain verdict
    assert (t.fast_false, t.fast_false_wrong) == (2, 1)
    assert tally(labels, correct, decided, fast_alone, None).mv_errors is None
    # an UNKNOWN the fast path keeps (reason "undecided: ...") is no certain FALSE
    kept = np.array([False, True, False, False, False, False, False])
    assert tally(labels, correct, decided, fast_alone, peer, kept).fast_false_wrong == 0


def test_error_classes() -> None:
    rows = [
        Row("1", "1", "1", True, "carp_en", "perturb:decimal"),
        Row("2", "1", "2", False, "carp_en", "negative"),
        Row("3", "1", "1", True, "aqua", "-"),
    ]
    assert error_classes(rows, [False, True, True]) == {"carp_en/perturb/FN": 1, "carp_en/negative/FP": 1}


def test_format_table_shows_a_missing_peer_as_a_dash() -> None:
    t = tally(np.array([True]), np.array([True]), np.array(["fast"]), np.array([True]), None)
    head, line = bench_wild.format_table([("all", t)])
    assert "errors rg / mv" in head
    assert line.split()[:5] == ["all", "1", "0", "/", "-"]


_BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4: pass\ntime.sleep({sleep})"


def test_children_cpu_counts_live_children_and_keeps_them_once_reaped() -> None:
    before = bench_wild.children_cpu()
    child = subprocess.Popen([sys.executable, "-c", _BURN.format(sleep=60)])
    try:
        deadline = time.monotonic() + 30
        while bench_wild.children_cpu() - before < 0.35 and time.monotonic() < deadline:
            time.sleep(0.05)
        live = bench_wild.children_cpu() - before
        assert live >= 0.35  # read from /proc while the child runs
    finally:
        child.kill()
        child.wait()
    assert bench_wild.children_cpu() - before >= live - 0.02  # now in RUSAGE_CHILDREN, not lost


def test_measure_includes_children_that_ran_during_the_call() -> None:
    _, cost = bench_wild.measure(lambda: subprocess.run([sys.executable, "-c", _BURN.format(sleep=0)], check=True))
    assert cost.children >= 0.35
    assert cost.cpu >= cost.children


def test_run_peer_kills_a_hanging_pair_and_goes_on() -> None:
    pairs = [("1", "1"), ("1", "2"), ("1", "hang"), ("3", "3"), ("1", "raise"), ("1", "die"), ("4", "4")]
    run = run_peer(pairs, grader="_peer_graders:grade_equal", deadline=1.0)
    assert run.verdicts == [True, False, False, True, False, False, True]
    assert run.killed == [2, 5]  # past the deadline; the worker died on it
    assert run.raised == 1
    assert run.workers == 3
    assert run.cpu >= run.startup_cpu > 0


def test_run_peer_reports_a_worker_that_cannot_start() -> None:
    with pytest.raises(RuntimeError, match="exited with status 4"):
        run_peer([("1", "1")], grader="_peer_graders:fail_to_start")


def test_run_peer_with_math_verify() -> None:
    pytest.importorskip("math_verify")
    pairs = [(peer_gold(r"\frac{1}{2}"), "so the answer is $0.5$"), (peer_gold("7"), "The answer is 8.")]
    assert run_peer(pairs).verdicts == [True, False]
