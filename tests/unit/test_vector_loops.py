"""Vector instructions stay behind their one door (detail/simd.hpp).

Each whole-text loop is written once, against the byte vectors of detail/simd.hpp, and compiled
per instruction set: the core runs the AVX2 forms (cpp/src/simd_avx2.cpp) where the CPU has AVX2,
and the SSE2 forms elsewhere or when RAPIDGRADE_NO_AVX2 is set. That both forms read every input
alike is checked by the one harness of fast twins, tests/unit/test_twins.py.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

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
