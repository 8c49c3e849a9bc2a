"""rapidgrade resolves beside verl, lighteval, TRL and Ray Data (issue 16, section 0).

``pip install --dry-run --ignore-installed --report`` resolves the checkout together with each
library from the package index (network; marked ``slow``: CI runs it, the fast suite does not)
and the versions pip picks are checked: the ones that made the first install fail
(verl's hydra-core and its ANTLR runtime, lighteval's latex2sympy2_extended) must be the current
ones, not a fallback to an old release. A plain install must print no
"does not provide the extra" warning.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]


def _resolve(tmp_path: Path, *requirements: str) -> tuple[dict[str, str], str]:
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), *requirements],
        cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    data: dict[str, Any] = json.loads(report.read_text())
    versions = {
        item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"] for item in data["install"]
    }
    return versions, proc.stderr


def _at_least(versions: dict[str, str], name: str, minimum: str) -> None:
    assert name in versions, f"{name} not resolved: {sorted(versions)}"
    assert Version(versions[name]) >= Version(minimum), f"{name} {versions[name]} < {minimum}"


@pytest.mark.slow
def test_plain_install_has_no_extra_warning(tmp_path: Path) -> None:
    versions, stderr = _resolve(tmp_path, ".")
    assert "does not provide the extra" not in stderr
    assert "rapidgrade" in versions
    assert "math-verify" not in versions  # the optional extra


@pytest.mark.slow
def test_pip_23_prints_no_extra_warning(tmp_path: Path) -> None:
    """pip 23.0 (run from its wheel) warned on every install while math-verify[antlr4-13-2] was a
    dependency: math-verify's metadata names latex2sympy2_extended's extra with underscores."""
    download = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "pip==23.0.1", "-d", str(tmp_path)],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert download.returncode == 0, download.stderr[-2000:]
    pip23 = str(next(tmp_path.glob("pip-23.0.1-*.whl")) / "pip")

    def dry_run(*requirements: str) -> str:
        proc = subprocess.run(
            [sys.executable, pip23, "install", "--dry-run", "--ignore-installed", *requirements],
            cwd=ROOT, capture_output=True, text=True, timeout=1800, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout + proc.stderr

    # the control: the former requirement makes pip 23 warn, so the check below can fail
    assert "does not provide the extra" in dry_run("math-verify[antlr4-13-2]==0.9.0")
    output = dry_run(".[math-verify]")
    assert "does not provide the extra" not in output
    assert "math-verify-0.9.0" in output


@pytest.mark.slow
def test_verl_with_math_verify(tmp_path: Path) -> None:
    versions, stderr = _resolve(tmp_path, ".[math-verify]", "verl")
    assert "does not provide the extra" not in stderr
    _at_least(versions, "verl", "0.9")
    _at_least(versions, "hydra-core", "1.3")  # not the 2019 release pip fell back to
    assert versions["antlr4-python3-runtime"].startswith("4.9.")
    assert versions["math-verify"] == "0.9.0"
    assert versions["latex2sympy2-extended"] == "1.11.0"  # has the parser for ANTLR 4.9.3


@pytest.mark.slow
def test_lighteval(tmp_path: Path) -> None:
    versions, _ = _resolve(tmp_path, ".", "lighteval")
    _at_least(versions, "lighteval", "0.13")
    assert versions["latex2sympy2-extended"] == "1.0.6"


@pytest.mark.slow
def test_trl_with_math_verify(tmp_path: Path) -> None:
    versions, _ = _resolve(tmp_path, ".[math-verify,trl]")
    _at_least(versions, "trl", "1.16")
    assert versions["math-verify"] == "0.9.0"


@pytest.mark.slow
def test_ray_data_with_math_verify(tmp_path: Path) -> None:
    versions, _ = _resolve(tmp_path, ".[math-verify]", "ray[data]")
    _at_least(versions, "ray", "2.40")
    assert versions["math-verify"] == "0.9.0"


@pytest.mark.slow
def test_verl_trl_ray_in_one_environment(tmp_path: Path) -> None:
    versions, _ = _resolve(tmp_path, ".[math-verify,verl,trl]", "ray[data]")
    _at_least(versions, "verl", "0.9")
    _at_least(versions, "hydra-core", "1.3")
    _at_least(versions, "trl", "1.0")
    assert versions["math-verify"] == "0.9.0"


@pytest.mark.slow
def test_lighteval_trl_ray_in_one_environment(tmp_path: Path) -> None:
    versions, _ = _resolve(tmp_path, ".[trl]", "lighteval", "ray[data]")
    _at_least(versions, "lighteval", "0.13")
    _at_least(versions, "trl", "1.0")
    assert versions["latex2sympy2-extended"] == "1.0.6"


@pytest.mark.trl
@pytest.mark.ray
def test_imported_together() -> None:
    """The framework groups' environment (the test extra with the trl and ray extras, as .ci/run
    builds it for `pytest -m "trl or ray"`) and rapidgrade's optional pieces in one process (verl
    and lighteval are resolved above; they cannot join: see docs/integrations.md)."""
    import importlib.metadata

    import datasets
    import math_verify
    import ray
    import trl
    from latex2sympy2_extended.antlr_parser import PSParser  # the parser of the installed ANTLR runtime

    import rapidgrade
    from rapidgrade.integrations import rewards
    from rapidgrade.integrations import trl as rg_trl
    from rapidgrade.integrations import verl as rg_verl

    assert importlib.metadata.version("math-verify") == "0.9.0"
    assert PSParser is not None and datasets.Dataset is not None and trl.GRPOTrainer is not None
    assert ray.data is not None
    assert math_verify.verify(math_verify.parse("$1/2$"), math_verify.parse("$0.5$"))
    assert rapidgrade.verify(rapidgrade.parse("$1/2$"), rapidgrade.parse("$0.5$"))
    assert rg_trl.accuracy_reward([r"\boxed{2}"], solution=["2"]) == [1.0]
    assert rg_verl.compute_score("m", r"\boxed{2}", "2") == rewards.score_many(["2"], [r"\boxed{2}"])[0] == 1.0
