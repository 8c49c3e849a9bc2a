"""A user's script that calls the public API passes ``mypy --strict``, and runs.

The package's own sources are checked by tests/unit/test_stubs.py; this checks what a caller
sees: an answer extracted from a ``str`` is a ``str`` (from ``bytes``, ``bytes``), grading
results have precise types, and a misuse of those types is reported. mypy runs with no config
file, as in a user's project, on the imported rapidgrade (the working tree with
``PYTHONPATH=python``, or the installed wheel and its ``py.typed``).
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import pytest
from mypy import api

import rapidgrade

USER_SCRIPT = """
from __future__ import annotations

import numpy as np
import numpy.typing as npt

import rapidgrade
from rapidgrade import EquivConfig, Extraction, GradeConfig, GradeResults, Tri, Verdict, parse, verify

# grading
v: Verdict = rapidgrade.grade(r"\\frac{1}{2}", r"Thus $\\boxed{0.5}$.")
correct: bool = v.correct
decided_by: str = v.decided_by
extracted: str | None = v.extracted
config = GradeConfig(last_number=False, timeout=2.0, equiv=EquivConfig(rel_tol=1e-6))
results: GradeResults = rapidgrade.grade_many(["2", "3"], ["so 2", "so 4"], config=config, threads=1)
mask: npt.NDArray[np.bool_] = results.correct
accuracy: float = results.accuracy
first: Verdict = results[0]
golds: list[str] = results.gold
samples = rapidgrade.grade_many("12", ["It is 12.", "13"], fallback=False)  # one gold, k samples
pass_at_k: bool = bool(samples.correct.any())

# extraction: the answer has the type of the input
e = rapidgrade.extract_answer(r"so $\\boxed{2}$ and $\\boxed{3}$.")
assert e is not None
text: str = e.text
start: int = e.start
method: str = e.method
whole: Extraction[str] = e
eb = rapidgrade.extract_answer(b"The answer is 7.", strategy="answer_is")
assert eb is not None
raw: bytes = eb.text
texts: list[str] = [x.text for x in rapidgrade.extract_many(["x = 5", "so 7"]) if x is not None]
answer, begin, end, how = e  # still a tuple
span: tuple[str, int, int, str] = (answer, begin, end, how)

# normalization, equivalence, expressions, scanning, distance
canonical: str = rapidgrade.normalize_latex(r"\\dfrac12 \\text{ cm}")
canonical_bytes: bytes = rapidgrade.normalize_latex(b"0.50")
canonicals: list[str] = rapidgrade.normalize_many(["1/2", "0.5"])
percent: bool = rapidgrade.normalize_answer(r"25\\%").percent
tri: Tri = rapidgrade.equivalent("(x+1)^2", "x^2 + 2x + 1")
same: bool = tri is Tri.TRUE
value: float = float(rapidgrade.parse_expr("x 2 ^", syntax="rpn").evaluate(x=3.0))
boxes: int = len(rapidgrade.find_boxed(r"\\boxed{1}"))
distance: int = rapidgrade.edit_distance("positve", "positive")

# the math-verify compatible API
ok: bool = verify(parse("$\\\\frac{1}{2}$"), parse("The answer is $0.5$"))
"""

# Each misuse must be reported: the types above are precise, not Any.
MISUSES = {
    "bytes from a str input": 'e = rapidgrade.extract_answer("x = 5")\nassert e is not None\nb: bytes = e.text\n',
    "str from a bytes input": 'e = rapidgrade.extract_answer(b"x = 5")\nassert e is not None\ns: str = e.text\n',
    "text of a possibly missing answer": 's: str = rapidgrade.extract_answer("x = 5").text\n',
    "bytes from normalize_latex(str)": 'b: bytes = rapidgrade.normalize_latex("x")\n',
    "a Verdict field of the wrong type": 'c: str = rapidgrade.grade("1", "1").correct\n',
}


def _mypy(script: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    path = tmp_path / "user_script.py"
    path.write_text(script, encoding="utf-8")
    # No config file (a user's project), no cache left behind, and the rapidgrade this
    # interpreter imports: mypy asks the interpreter for its sys.path, PYTHONPATH included.
    package_root = str(Path(rapidgrade.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")])))
    monkeypatch.chdir(tmp_path)
    stdout, stderr, status = api.run(
        [
            "--strict",
            "--config-file=",
            f"--cache-dir={os.devnull}",
            "--python-executable",
            sys.executable,
            "--no-error-summary",
            str(path),
        ]
    )
    return status, stdout + stderr


def test_user_script_passes_mypy_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    status, output = _mypy(USER_SCRIPT, tmp_path, monkeypatch)
    assert status == 0, output


def test_user_script_runs() -> None:
    pytest.importorskip("math_verify")
    exec(compile(USER_SCRIPT, "user_script.py", "exec"), {"__name__": "user_script"})


@pytest.mark.parametrize("misuse", sorted(MISUSES))
def test_misuse_is_reported(misuse: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = "from __future__ import annotations\n\nimport rapidgrade\n\n" + textwrap.dedent(MISUSES[misuse])
    status, output = _mypy(script, tmp_path, monkeypatch)
    assert status == 1, output
    assert "user_script.py:" in output and "error:" in output, output
