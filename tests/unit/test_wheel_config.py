"""The wheel-building configuration: [tool.cibuildwheel], the CI workflow, the build scripts.

GitHub Actions cannot run here, so these tests check what can be checked offline: the workflow
parses as YAML and runs cibuildwheel on every platform the configuration builds for, the
configuration selects CPython 3.10-3.14 on manylinux2014 and tests the installed wheels with a
script that exists, and the scripts are valid shell that leave the development venv alone.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"


@pytest.fixture(scope="module")
def cibw() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        config: dict[str, Any] = tomllib.load(f)["tool"]["cibuildwheel"]
    return config


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    loaded = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_cibuildwheel_builds_cpython_310_to_314_and_not_free_threaded(cibw: dict[str, Any]) -> None:
    assert cibw["build"] == ["cp310-*", "cp311-*", "cp312-*", "cp313-*", "cp314-*"]
    # cibuildwheel's selectors are fnmatch patterns over identifiers such as cp314t-manylinux_x86_64.
    from fnmatch import fnmatch

    def selected(identifier: str) -> bool:
        return any(fnmatch(identifier, p) for p in cibw["build"]) and not any(
            fnmatch(identifier, p) for p in cibw["skip"]
        )

    assert selected("cp314-manylinux_x86_64")
    assert selected("cp310-macosx_x86_64")
    assert selected("cp314-macosx_arm64")
    assert selected("cp312-musllinux_x86_64")
    assert not selected("cp314t-manylinux_x86_64")
    assert not selected("cp39-manylinux_x86_64")
    # Windows: the worker pool is POSIX-only (SIGUSR1, pass_fds), so its tests cannot pass.
    assert not selected("cp313-win_amd64")
    assert not selected("cp313-win32")
    assert not selected("cp313-win_arm64")


def test_linux_wheels_are_manylinux2014_except_where_numpy_needs_2_28(cibw: dict[str, Any]) -> None:
    linux = cibw["linux"]
    assert linux["manylinux-x86_64-image"] == "manylinux2014"
    assert linux["manylinux-aarch64-image"] == "manylinux2014"
    (override,) = cibw["overrides"]
    assert override["select"] == "cp314-manylinux_*"
    assert override["manylinux-x86_64-image"] == "manylinux_2_28"


def test_wheels_are_tested_with_the_test_extra_by_a_script_that_exists(cibw: dict[str, Any]) -> None:
    assert cibw["test-extras"] == ["test"]
    match = re.fullmatch(r"python \{project\}/(\S+)", cibw["test-command"])
    assert match, cibw["test-command"]
    assert (ROOT / match.group(1)).is_file()


def test_plain_pytest_deselects_the_marked_groups() -> None:
    # the wheel's test run and the README's command are plain pytest: the tests that need the
    # shared corpora or a framework's extra are deselected there, and each group is declared
    with (ROOT / "pyproject.toml").open("rb") as f:
        options = tomllib.load(f)["tool"]["pytest"]["ini_options"]
    declared = {m.split(":")[0] for m in options["markers"]}
    assert {"shared", "slow", "trl", "ray", "lighteval", "verl"} <= declared
    for group in ("shared", "slow", "trl", "ray", "lighteval", "verl"):
        assert f"not {group}" in options["addopts"], group


def test_workflow_runs_cibuildwheel_on_every_platform_built(workflow: dict[Any, Any]) -> None:
    # PyYAML reads the bare key `on` as the boolean True (YAML 1.1).
    triggers = workflow.get("on", workflow.get(True))
    assert {"push", "pull_request", "workflow_dispatch"} <= set(triggers)
    job = workflow["jobs"]["wheels"]
    oses = job["strategy"]["matrix"]["os"]
    assert {"ubuntu-latest", "ubuntu-24.04-arm"} <= set(oses)
    assert not any(o.startswith("windows") for o in oses)
    assert any(o.startswith("macos") and "intel" in o for o in oses)
    assert "macos-latest" in oses
    assert job["runs-on"] == "${{ matrix.os }}"
    uses = [step.get("uses", "") for step in job["steps"]]
    cibuildwheel = [u for u in uses if u.startswith("pypa/cibuildwheel@")]
    assert len(cibuildwheel) == 1
    assert re.fullmatch(r"pypa/cibuildwheel@v([4-9]|\d\d)\.\d+\.\d+", cibuildwheel[0])
    assert any(u.startswith("actions/upload-artifact@") for u in uses)


def test_workflow_builds_and_tests_the_sdist(workflow: dict[Any, Any]) -> None:
    runs = "\n".join(step.get("run", "") for step in workflow["jobs"]["sdist"]["steps"])
    assert "build --sdist" in runs
    assert "[test]" in runs
    assert "scripts/run_wheel_tests.py" in runs


@pytest.mark.parametrize("script", ["build_manylinux2014.sh", "build_wheel.sh"])
def test_build_scripts_are_valid_shell_and_leave_the_dev_venv_alone(script: str) -> None:
    path = ROOT / "scripts" / script
    assert os.access(path, os.X_OK)
    result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    text = path.read_text(encoding="utf-8")
    assert "/work/venv" not in text
    assert "set -euo pipefail" in text


def test_manylinux2014_script_targets_glibc_2_17_and_checks_the_tag() -> None:
    text = (ROOT / "scripts" / "build_manylinux2014.sh").read_text(encoding="utf-8")
    assert "glibc=2.17" in text
    assert '-target "x86_64-linux-gnu.$glibc"' in text
    assert "plat=manylinux2014_x86_64" in text
    assert 'auditwheel repair --plat "$plat"' in text


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        loaded: dict[str, Any] = tomllib.load(f)
    return loaded


def test_wheel_metadata_names_the_project_its_authors_and_addresses(pyproject: dict[str, Any]) -> None:
    project = pyproject["project"]
    assert project["authors"] and all(a.get("name") or a.get("email") for a in project["authors"])
    urls = project["urls"]
    assert {"Homepage", "Repository", "Documentation", "Changelog"} <= set(urls)
    repository = urls["Repository"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/rapidgrade", repository), repository
    for name, url in urls.items():
        assert url.startswith(repository), (name, url)  # one repository, as the docs name it
        assert len(name) <= 32, name  # the Project-URL label limit of the core metadata
    assert urls["Changelog"].endswith("/CHANGELOG.md") and (ROOT / "CHANGELOG.md").is_file()
    assert urls["Documentation"].endswith("/docs")
    site = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert site["repo_url"] == repository


def test_wheel_carries_the_licence_and_the_third_party_notices(pyproject: dict[str, Any]) -> None:
    """PEP 639: an SPDX licence expression, and license-files copied into the wheel's
    .dist-info/licenses/ (THIRD_PARTY.md: the licences of the bundled demo set)."""
    project = pyproject["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE", "THIRD_PARTY.md"]
    for name in project["license-files"]:
        assert (ROOT / name).is_file(), name
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    third_party = (ROOT / "THIRD_PARTY.md").read_text(encoding="utf-8")
    for shipped in (ROOT / "python" / "rapidgrade" / "data").glob("*.jsonl"):
        assert f"python/rapidgrade/data/{shipped.name}" in third_party, shipped.name
    # PEP 639 forbids licence classifiers beside an expression
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]
    # project.license-files and Metadata-Version 2.4 need scikit-build-core 0.11
    backend = [r for r in pyproject["build-system"]["requires"] if r.startswith("scikit-build-core")]
    assert backend == ["scikit-build-core>=0.11"]
    # tool.scikit-build.wheel.license-files would conflict with project.license-files
    assert "license-files" not in pyproject["tool"]["scikit-build"].get("wheel", {})
