"""The AVX2 and SSE2 forms of the scanning loops give the same results, and vector instructions
stay behind their one door.

Each whole-text loop is written once, against the byte vectors of detail/simd.hpp, and compiled
per instruction set: the core runs the AVX2 forms (the anchor pass of extraction, the math
delimiter scan, the substring search; cpp/src/simd_avx2.cpp) where the CPU has AVX2, and the SSE2
forms elsewhere or when RAPIDGRADE_NO_AVX2 is set. The choice is made once per process, so each
form runs in a child process, on the same inputs: real responses (the demo set as written,
unboxed, and unboxed after 5 KB of other solutions), math-verify's cases, and texts with every
delimiter, box and anchor at each offset around the 16-, 32- and 64-byte steps of the loops; and,
in a test marked ``shared``, the unmarked set (one of the shared corpora, tests/datasets.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# The child: grades the pairs and scans the texts, and prints what it read as JSON.
_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import rapidgrade
from rapidgrade import _core
from benchmarks.bench_hard import unbox
from tests.datasets import load_data, load_demo_corpus, load_shared

if sys.argv[2] == "unmarked":
    rows = load_shared("unmarked_dev.jsonl")
    result = rapidgrade.grade_many([r["gold"] for r in rows], [r["response"] for r in rows], fallback=False)
    print(json.dumps({
        "loops": _core.vector_loops(),
        "correct": [bool(c) for c in result.correct],
        "method": [str(m) for m in result.method],
        "extracted": list(result.extracted),
        "spans": [[tuple(s) for s in rapidgrade.find_math_spans(r["response"])] for r in rows],
    }))
    sys.exit(0)
rows = load_demo_corpus()
golds = [r["gold"] for r in rows]
responses = [r["response"] for r in rows]
unboxed = [unbox(t) for t in responses]
before = " ".join(unboxed[-60:])[:5_000]
pairs = list(zip(golds, responses)) + list(zip(golds, unboxed))
pairs += [(g, before + "\n\n" + t) for g, t in zip(golds, unboxed)]
pairs += [(c["gold"], c["pred"]) for c in load_data("math_verify_0.9.0_cases.jsonl")]
pieces = ["$x$", "$$y$$", "\\(z\\)", "\\[w\\]", "\\$", "\\\\(", "\\boxed{7}", "\\fbox{8}",
          "the answer is 9", "</answer>", "#### 3", "```output\n4\n```", "\\begin{equation}q\\end{equation}"]
texts = []
for piece in pieces:
    for offset in range(0, 100):
        for tail in (0, 1, 31, 32, 33, 70):
            texts.append("a " * (offset // 2) + "b" * (offset % 2) + piece + " c" * tail)
pairs += [("7", t) for t in texts]
result = rapidgrade.grade_many([g for g, _ in pairs], [t for _, t in pairs], fallback=False)
spans = [[tuple(s) for s in rapidgrade.find_math_spans(t)] for t in texts + unboxed]
print(json.dumps({
    "loops": _core.vector_loops(),
    "correct": [bool(c) for c in result.correct],
    "method": [str(m) for m in result.method],
    "extracted": list(result.extracted),
    "spans": spans,
}))
"""


def _run(no_avx2: bool, inputs: str = "repository") -> dict[str, object]:
    """What the child read from *inputs* (``"repository"``: the data in the repository and the
    made texts; ``"unmarked"``: the shared unmarked set), with the SSE2 loops when *no_avx2*."""
    env = {k: v for k, v in os.environ.items() if k != "RAPIDGRADE_NO_AVX2"}
    if no_avx2:
        env["RAPIDGRADE_NO_AVX2"] = "1"
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT), inputs], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def _cpu_has_avx2() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx2" in flags


@pytest.fixture(scope="module")
def both() -> tuple[dict[str, object], dict[str, object]]:
    return _run(no_avx2=False), _run(no_avx2=True)


def test_the_variable_selects_the_sse2_loops(both: tuple[dict[str, object], dict[str, object]]) -> None:
    default, sse2 = both
    assert sse2["loops"] == "sse2"
    # where the machine has AVX2 (x86-64 Linux), the default runs the AVX2 loops: both forms were run
    if sys.platform == "linux" and os.uname().machine == "x86_64" and _cpu_has_avx2():
        assert default["loops"] == "avx2"


@pytest.mark.parametrize("column", ["correct", "method", "extracted", "spans"])
def test_both_forms_read_the_same(both: tuple[dict[str, object], dict[str, object]], column: str) -> None:
    default, sse2 = both
    assert len(default[column]) == len(sse2[column]) > 2_000  # type: ignore[arg-type]
    differing = [k for k, (a, b) in enumerate(zip(default[column], sse2[column])) if a != b]  # type: ignore[call-overload]
    assert differing == []


@pytest.mark.shared
def test_both_forms_read_the_unmarked_set_the_same() -> None:
    default, sse2 = _run(no_avx2=False, inputs="unmarked"), _run(no_avx2=True, inputs="unmarked")
    assert sse2["loops"] == "sse2"
    for column in ("correct", "method", "extracted", "spans"):
        assert len(default[column]) == len(sse2[column]) > 2_000, column  # type: ignore[arg-type]
        assert default[column] == sse2[column], column


# An intrinsic, a vector type, a per-function target or an intrinsics header: what only the door
# (detail/simd.hpp) may write.
_INTRINSIC = re.compile(
    r"\b_mm(256)?_\w+|\b__m(128|256)i?\b|target\(\"(avx|sse)|#\s*include\s*<\w*intrin\.h>|__AVX2__|__SSE2__"
)
# The door itself, the one source compiled with -mavx2 (it checks that it was), and the binding's
# str conversion, whose SSE2 narrowing of 2- and 4-byte code units has no loop over the text's
# bytes to share.
_DOOR = {"cpp/include/rapidgrade/detail/simd.hpp", "cpp/src/simd_avx2.cpp", "cpp/bindings/convert.cpp"}


def test_intrinsics_stay_behind_the_door() -> None:
    sources = [p for p in (ROOT / "cpp").rglob("*") if p.suffix in {".cpp", ".hpp", ".h"}]
    assert len(sources) > 20
    found = {
        f"{p.relative_to(ROOT).as_posix()}:{n}"
        for p in sources
        if p.relative_to(ROOT).as_posix() not in _DOOR
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if _INTRINSIC.search(line)
    }
    assert found == set()
    # the door holds the three forms, and extraction reads its anchors through it
    door = (ROOT / "cpp/include/rapidgrade/detail/simd.hpp").read_text(encoding="utf-8")
    for form in ("struct Swar", "struct Sse2", "struct Avx2"):
        assert form in door
    assert "anchors_vector<detail::simd::Native>" in (ROOT / "cpp/src/extract.cpp").read_text(encoding="utf-8")
