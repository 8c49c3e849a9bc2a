"""Run the fast test suite against the *installed* rapidgrade (a wheel), from the checkout.

    python scripts/run_wheel_tests.py [PYTEST-ARGS...]

Run it with the Python of the environment the wheel is installed in (cibuildwheel's
test-command does, see [tool.cibuildwheel] in pyproject.toml). It runs ``python -m pytest`` (the
marked groups deselected, as pyproject's addopts say) in the repository root, where the source
package cannot shadow the installed one (it lives in ``python/rapidgrade``, and ``PYTHONPATH`` is
cleared), so the tests and the package's doctests (added by tests/conftest.py) exercise the
wheel; it checks that first.

The tests that read the project's shared corpora (kept beside the repository, so missing on CI
services) carry the ``shared`` marker, which plain pytest deselects. Arguments go to pytest. The
exit status is pytest's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def installed_package(env: dict[str, str]) -> Path:
    """Where ``import rapidgrade`` finds the package when run from the repository root."""
    out = subprocess.run(
        [sys.executable, "-c", "import rapidgrade; print(rapidgrade.__file__)"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(out).resolve().parent


def main(argv: list[str]) -> int:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    package = installed_package(env)
    if ROOT in package.parents:
        print(f"error: rapidgrade is imported from the checkout ({package}), not from a wheel", file=sys.stderr)
        return 2
    print(f"testing the installed rapidgrade at {package}", flush=True)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv]
    return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
