"""The examples in the compiled module's docstrings run and give what they show.

The package's Python modules have their examples run by ``--doctest-modules`` (tests/conftest.py);
pytest does not collect a compiled module's docstrings, so this test runs those of ``_core``."""

from __future__ import annotations

import doctest
import types

import pytest

import rapidgrade
from rapidgrade import _core

# rapidgrade.distance re-exports the compiled functions, whose examples live in _core.
MODULES = [_core]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module: types.ModuleType) -> None:
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = finder.find(module, globs=vars(rapidgrade).copy())
    examples = sum(len(t.examples) for t in tests)
    for test in tests:
        runner.run(test)
    assert examples > 0, f"{module.__name__} has no docstring examples"
    assert runner.failures == 0
