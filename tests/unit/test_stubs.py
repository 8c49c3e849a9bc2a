"""The type stubs of the compiled core match the module, and the package type-checks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import rapidgrade

ALLOWLIST = Path(__file__).resolve().parent.parent / "stubtest_allowlist.txt"


def test_core_stub_matches_module() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "rapidgrade._core", "--allowlist", str(ALLOWLIST)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_package_is_typed() -> None:
    package = Path(rapidgrade.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "_core.pyi").exists()


def test_sources_pass_mypy_strict() -> None:
    """The package's sources type-check under the strict settings in pyproject.toml."""
    root = Path(__file__).resolve().parent.parent.parent
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(root / "pyproject.toml"),
            str(root / "python" / "rapidgrade"),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    assert result.returncode == 0, result.stdout + result.stderr
