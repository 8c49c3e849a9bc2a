"""Brace scanning and edit distance: rapidgrade vs plain Python and vs rapidfuzz, one run.

    python -m benchmarks.bench_primitives

Peers, on the same data in the same process:
- brace scanning: a plain-Python scanner with the same semantics as ``find_boxed`` (every
  ``\\boxed{}``/``\\fbox{}``, escapes, nesting; character-by-character brace counting as in the
  ``last_boxed_only_string`` approach; the oracle tests/oracles/scan_oracle.py), and, for reference, the literal
  ``last_boxed_only_string`` (which only finds the last box, without escape handling);
- edit distance: rapidfuzz's ``Levenshtein.distance`` (single calls) and ``process.cpdist``
  with ``workers=1`` (batch).
Prints medians and the ratio peer time / rapidgrade time (higher is better for rapidgrade).
"""

from __future__ import annotations

import random

import rapidgrade
from benchmarks._common import Report, load_corpus, paired_median_times
from tests.oracles.hendrycks_grader import last_boxed_only_string
from tests.oracles.scan_oracle import find_boxed_contents as python_find_boxed


def bench_scan(report: Report) -> None:
    responses = [row["response"] for row in load_corpus()]
    for text in responses:  # same answers from both
        assert [s.content for s in rapidgrade.find_boxed(text)] == python_find_boxed(text)
    n = len(responses)
    total_mb = sum(len(t.encode()) for t in responses) / 1e6

    def scan_ours() -> object:
        return [rapidgrade.find_boxed(t) for t in responses]

    def scan_peer() -> object:
        return [python_find_boxed(t) for t in responses]

    ours, peer = paired_median_times(scan_ours, scan_peer, repeats=7, min_time=0.05)
    report.add(f"find_boxed, 800 real responses ({total_mb:.1f} MB)", ours, peer, "plain-Python brace scan", "texts", n)
    ours, last = paired_median_times(scan_ours, lambda: [last_boxed_only_string(t) for t in responses], min_time=0.05)
    report.add("find_boxed (all boxes) vs last_boxed_only_string", ours, last, "last_boxed_only_string", "texts", n)
    many1, peer = paired_median_times(
        lambda: rapidgrade.find_boxed_many(responses, threads=1), scan_peer, min_time=0.05
    )
    report.add("find_boxed_many threads=1, 800 responses", many1, peer, "plain-Python brace scan", "texts", n)
    many2, many1 = paired_median_times(
        lambda: rapidgrade.find_boxed_many(responses, threads=2),
        lambda: rapidgrade.find_boxed_many(responses, threads=1),
        min_time=0.05,
    )
    report.add("find_boxed_many threads=2 vs threads=1", many2, many1, "find_boxed_many threads=1", "texts", n)

    long_text = ("We have $x^{2} + \\frac{1}{2}$ and {a} {b}. " * 25_000) + "\\boxed{42}"  # ~1 MB
    mb = len(long_text.encode()) / 1e6
    ours, peer = paired_median_times(
        lambda: rapidgrade.find_boxed(long_text), lambda: python_find_boxed(long_text), repeats=5, min_time=0.05
    )
    report.add(
        f"find_boxed, one {mb:.1f} MB response ({mb / ours:,.0f} MB/s)",
        ours,
        peer,
        "plain-Python brace scan",
        "texts",
        1,
    )


def bench_distance(report: Report) -> None:
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    rng = random.Random(0)

    def word(lo: int, hi: int, alphabet: str) -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(lo, hi)))

    cases = {
        "short ASCII words (3-12)": [(word(3, 12, "abcdefghij"), word(3, 12, "abcdefghij")) for _ in range(5000)],
        "short Korean words (2-8)": [
            (word(2, 8, "가나다라마바사아"), word(2, 8, "가나다라마바사아")) for _ in range(5000)
        ],
        "sentences (40-64 chars)": [(word(40, 64, "abcdefgh "), word(40, 64, "abcdefgh ")) for _ in range(5000)],
        "long texts (200-500 chars)": [
            (word(200, 500, "abcdefghijklmnop"), word(200, 500, "abcdefghijklmnop")) for _ in range(1000)
        ],
    }
    for name, pairs in cases.items():
        assert [rapidgrade.edit_distance(a, b) for a, b in pairs] == [Levenshtein.distance(a, b) for a, b in pairs]
        ed = rapidgrade.edit_distance
        lv = Levenshtein.distance
        ours, peer = paired_median_times(
            lambda: [ed(a, b) for a, b in pairs], lambda: [lv(a, b) for a, b in pairs], min_time=0.05
        )
        report.add(
            f"edit_distance single calls, {name}", ours, peer, "rapidfuzz Levenshtein.distance", "pairs", len(pairs)
        )
        firsts = [a for a, _ in pairs]
        seconds = [b for _, b in pairs]
        ours, peer = paired_median_times(
            lambda: rapidgrade.edit_distance_many(pairs, threads=1),
            lambda: process.cpdist(firsts, seconds, scorer=Levenshtein.distance, workers=1),
            min_time=0.05,
        )
        report.add(
            f"edit_distance_many threads=1, {name}",
            ours,
            peer,
            "rapidfuzz process.cpdist workers=1",
            "pairs",
            len(pairs),
        )


def main() -> None:
    report = Report("primitives")
    print("ratio = peer time / rapidgrade time (medians); > 1 means rapidgrade is faster\n")
    bench_scan(report)
    bench_distance(report)
    print(f"\nsaved {report.save('bench_primitives')}")


if __name__ == "__main__":
    main()
