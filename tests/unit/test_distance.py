"""edit_distance / closest / edit_distance_many against a plain dynamic-programming reference."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import closest, edit_distance, edit_distance_many


def reference_distance(a: str, b: str) -> int:
    """Wagner-Fischer O(len(a) * len(b)) on code points."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


# Small alphabets make edits (not just total mismatch) likely; the mix covers 1-, 2- and 4-byte
# Python string kinds: ASCII, Latin-1, Hangul and an emoji plane.
ALPHABETS = ["ab", "abcé", "가나다", "😀😁a", "ab가😀\u0301"]
texts = st.sampled_from(ALPHABETS).flatmap(lambda alphabet: st.text(alphabet=alphabet, max_size=150))


@settings(max_examples=400, deadline=None)
@given(texts, texts)
def test_matches_reference(a: str, b: str) -> None:
    assert edit_distance(a, b) == reference_distance(a, b)


@settings(max_examples=200, deadline=None)
@given(texts, texts, st.integers(min_value=0, max_value=10))
def test_max_distance_caps(a: str, b: str, limit: int) -> None:
    exact = reference_distance(a, b)
    assert edit_distance(a, b, max_distance=limit) == min(exact, limit + 1)


@settings(max_examples=200, deadline=None)
@given(texts, texts, texts)
def test_metric_axioms(a: str, b: str, c: str) -> None:
    assert edit_distance(a, b) == edit_distance(b, a)
    assert (edit_distance(a, b) == 0) == (a == b)
    assert edit_distance(a, c) <= edit_distance(a, b) + edit_distance(b, c)


def test_against_rapidfuzz() -> None:
    import random

    from rapidfuzz.distance import Levenshtein

    rng = random.Random(7)
    alphabet = "abcdefgh가나다라😀é\u0301"
    for _ in range(2000):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        assert edit_distance(a, b) == Levenshtein.distance(a, b)


def test_unicode_counts_code_points() -> None:
    assert edit_distance("품질", "품잘") == 1
    assert edit_distance("😀", "😁") == 1
    assert edit_distance("e\u0301", "e") == 1  # a combining accent is one code point
    assert edit_distance("", "안녕") == 2
    assert edit_distance("", "") == 0


def test_long_strings_use_multiple_words() -> None:
    a = "abcdefghij" * 50
    b = a[:200] + "X" + a[201:] + "tail"
    assert edit_distance(a, b) == reference_distance(a, b) == 5


def test_closest() -> None:
    labels = ["positive", "negative", "neutral"]
    assert closest("negatve", labels, max_distance=2) == ("negative", 1)
    assert closest("positiveitive", labels, max_distance=2) is None
    assert closest("x", [], max_distance=3) is None
    assert closest("abc", ["abd", "abe"]) == ("abd", 1)  # first wins ties
    assert closest("neutral", iter(labels)) == ("neutral", 0)


def test_many_matches_single() -> None:
    pairs = [("kitten", "sitting"), ("", "abc"), ("품질", "품잘"), ("a" * 200, "b" * 200)] * 5000
    expected = [edit_distance(a, b) for a, b in pairs]
    assert edit_distance_many(pairs, threads=2) == expected
    assert edit_distance_many(pairs, max_distance=2) == [min(d, 3) for d in expected]
    assert edit_distance_many([]) == []


def test_bad_input() -> None:
    with pytest.raises(TypeError, match="edit_distance: a must be str"):
        edit_distance(b"ab", "ab")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="edit_distance: b must be str"):
        edit_distance("ab", None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_distance must be >= 0"):
        edit_distance("a", "b", max_distance=-1)
    with pytest.raises(TypeError, match=r"pairs\[1\]"):
        edit_distance_many([("a", "b"), ("a",)])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"choices\[1\]"):
        closest("a", ["b", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="threads"):
        edit_distance_many([("a", "b")], threads=0)


def test_lone_surrogates() -> None:
    assert edit_distance("\ud800a", "\ud800b") == 1
    assert edit_distance("\ud800", "\udc00") == 1


def test_max_distance_beyond_64_bits() -> None:
    # A bound larger than any distance is no bound (it raised pybind11's "Unable to cast" before);
    # a negative one of any size is refused, naming the function and the option.
    assert edit_distance("abc", "b", max_distance=2**70) == 2
    assert edit_distance_many([("ab", "b")], max_distance=2**64) == [1]
    assert closest("ab", ["b"], max_distance=2**100) == ("b", 1)
    for bad in (-1, -(2**70)):
        with pytest.raises(ValueError, match=r"edit_distance: max_distance must be >= 0, got -"):
            edit_distance("a", "b", max_distance=bad)


def test_a_long_single_call_lets_other_threads_run() -> None:
    # 100k x 100k characters take about half a second; the GIL is released meanwhile (before, a
    # 300k x 300k call held it for 23 s and another thread ran once).
    import random
    import threading

    rng = random.Random(1)
    a = "".join(rng.choice("abcd") for _ in range(100_000))
    b = "".join(rng.choice("abcd") for _ in range(100_000))
    ticks = [0]
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            ticks[0] += 1

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        before = ticks[0]
        distance = edit_distance(a, b)
        during = ticks[0] - before
    finally:
        stop.set()
        spinner.join()
    from rapidfuzz.distance import Levenshtein

    assert distance == Levenshtein.distance(a, b)
    assert during > 1000
