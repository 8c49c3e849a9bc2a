"""Shared configuration of the test suite: Hypothesis profiles, data fixtures, doctests.

Hypothesis profiles
    ``dev`` (the default): 100 examples per property, no deadline (timings on shared machines
    are noise). ``ci``: 1000 examples, no deadline; loaded when the environment has ``CI=true``
    (as CI services set it). ``HYPOTHESIS_PROFILE=<name>`` picks one explicitly. A test's own
    ``@settings(max_examples=...)`` takes precedence over the profile.

Fixtures
    ``demo_corpus``: the 800 rows of the packaged demo set; ``data_dir``: ``tests/data``;
    ``ctrl_c_in``: a simulated Ctrl-C to this process after a delay (tests that a long call in the
    core lets it through).
    Module-level code (parametrize lists) uses ``tests/datasets.py`` directly.

Doctests
    ``--doctest-modules`` (in pyproject.toml) collects the docstring examples of the test tree;
    those of the package are collected from the *imported* rapidgrade (the installed wheel in CI,
    ``python/rapidgrade`` with ``PYTHONPATH=python``), added here when pytest runs its default
    ``testpaths``. Every example runs, those that start worker processes included.
"""

from __future__ import annotations

import gc
import importlib.util
import os
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _pytest.mark.expression import Expression
from hypothesis import settings

import rapidgrade
from tests import datasets

settings.register_profile("dev", max_examples=100, deadline=None)
settings.register_profile("ci", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI", "").lower() in ("true", "1") else "dev")
)

PACKAGE_DIR = Path(rapidgrade.__file__).resolve().parent


#: Test modules that import a framework outside the test extra at module level, with the marked
#: group they belong to and the module they import. Where that module is missing and the group is
#: deselected (plain pytest), the file is not collected at all, so its import does not fail the
#: run; where the group is selected (`pytest -m ray`), it is collected and a missing framework
#: fails loudly.
FRAMEWORK_MODULES = {
    "test_ray.py": ("ray", "ray"),
    "test_ray_cluster.py": ("ray", "ray"),
    "test_ray_hostile.py": ("ray", "ray"),
}


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    needs = FRAMEWORK_MODULES.get(collection_path.name)
    if needs is None:
        return None
    group, module = needs
    if importlib.util.find_spec(module) is not None:
        return None
    return not selects_group(config.getoption("markexpr") or "", group) or None


def selects_group(markexpr: str, group: str) -> bool:
    """Whether the ``-m`` expression ``markexpr`` selects a test marked ``group`` alone:
    ``"ray"`` and ``"trl or ray"`` do; ``"shared"`` and ``"slow and not ray"`` do not. An empty
    expression selects everything."""
    if not markexpr.strip():
        return True
    return Expression.compile(markexpr).evaluate(lambda name, **_: name == group)


def pytest_configure(config: pytest.Config) -> None:
    # Run the package's docstring examples with the default test run (`pytest`, `pytest -m ...`),
    # not when specific tests are named on the command line.
    if config.getoption("doctestmodules") and config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        config.args.append(str(PACKAGE_DIR))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """``tests/data``: recorded conformance cases and reference verdicts."""
    return datasets.DATA_DIR


@pytest.fixture(scope="session")
def demo_corpus() -> list[dict[str, Any]]:
    """The 800 rows of the packaged demo set (``id``, ``gold``, ``response``, ...)."""
    return datasets.load_demo_corpus()


@pytest.fixture
def ctrl_c_in() -> Iterator[Callable[[float], None]]:
    """``ctrl_c_in(delay)`` raises SIGINT in this process *delay* seconds later, which Python turns
    into KeyboardInterrupt in the main thread (the thread a test runs on).

    For the duration of the test the SIGINT handler is Python's own (a process started from a
    shell's background job inherits SIGINT ignored, and would never be interrupted), and the
    cyclic garbage collector is off: a collection runs ``gc.callbacks`` (Hypothesis installs
    one), and a KeyboardInterrupt raised while a callback runs is printed as unraisable and lost,
    so the interrupted call would run to its end. Both are restored afterwards, and every armed
    timer has fired by then.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    collecting = gc.isenabled()
    gc.disable()
    timers: list[threading.Timer] = []

    def arm(delay: float) -> None:
        timer = threading.Timer(delay, signal.raise_signal, (signal.SIGINT,))
        timers.append(timer)
        timer.start()

    try:
        yield arm
    finally:
        for timer in timers:
            timer.join()
        if collecting:
            gc.enable()
        signal.signal(signal.SIGINT, previous)
