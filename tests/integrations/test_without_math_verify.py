"""rapidgrade without math-verify (and latex2sympy2_extended), as installed beside lighteval.

A subprocess runs with packages of those names that fail to import placed first on its path
(its fallback workers, spawned with the same environment, see them too): the fast path and the
SymPy fallback still grade, the compatible API and the lighteval metric say what to install.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import rapidgrade

# The directory the tested rapidgrade is imported from (python/ with PYTHONPATH=python, else the
# installed package's site-packages): the subprocess imports the same one.
PACKAGE_PARENT = Path(rapidgrade.__file__).resolve().parent.parent


def _run_without(tmp_path: Path, blocked: tuple[str, ...], code: str) -> dict[str, object]:
    for name in blocked:
        package = tmp_path / "blocked" / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(f"raise ImportError('{name} is not installed (test)')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(tmp_path / "blocked"), str(PACKAGE_PARENT), *filter(None, [env.get("PYTHONPATH")])]
    )
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_grading_without_math_verify(tmp_path: Path) -> None:
    out = _run_without(
        tmp_path,
        ("math_verify", "latex2sympy2_extended"),
        r"""
        import json
        import rapidgrade
        from rapidgrade.fallback import run_cascade
        fast = rapidgrade.grade_many(["1/2", "3"], [r"\boxed{0.5}", r"\boxed{4}"])
        slow = rapidgrade.grade("100!", r"\boxed{100! + 0}", timeout=120)
        integral = rapidgrade.grade(r"\frac{1}{2}", r"\boxed{\int_0^1 x dx}", timeout=120)
        wrong = rapidgrade.grade("100!", r"\boxed{100! + 1}", timeout=120)
        cascade = run_cascade(r"\frac{\pi}{3}", r"\frac{2\pi}{6}")
        errors = {}
        for name in ("parse", "verify"):
            try:
                getattr(rapidgrade, name)
            except ImportError as err:
                errors[name] = str(err)
        try:
            from rapidgrade.integrations.lighteval import make_metric
            make_metric()
        except ImportError as err:
            errors["lighteval"] = str(err)
        from rapidgrade.integrations.verl import compute_score
        reward = compute_score("m", r"\boxed{100! + 0}", "100!", timeout=120)
        print(json.dumps({
            "fast": [fast.correct.tolist(), fast.decided_by.tolist()],
            "slow": [slow.correct, slow.decided_by, slow.reason],
            "integral": [integral.correct, integral.decided_by, integral.reason],
            "wrong": [wrong.correct, wrong.decided_by],
            "cascade": list(cascade), "errors": errors, "reward": reward,
        }))
        """,
    )
    assert out["fast"] == [[True, False], ["fast", "fast"]]
    assert out["slow"][:2] == [True, "sympy"], out["slow"]
    assert out["wrong"] == [False, "sympy"]
    assert out["cascade"][:2] == [True, "sympy"]
    # rapidgrade's parser has no integrals: without math-verify such a pair is an error, named
    assert out["integral"] == [False, "error", "math-verify not installed; sympy could not read answer: nothing parsed"]
    assert out["reward"] == 1.0
    errors = out["errors"]
    assert isinstance(errors, dict)
    for name in ("parse", "verify"):
        assert "pip install 'rapidgrade[math-verify]'" in errors[name]
    assert "lighteval" in errors  # blocked only by absence here: lighteval is not in this environment
