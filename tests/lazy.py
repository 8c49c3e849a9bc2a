"""Imports a test module makes only when its tests run (fixtures of the marked groups).

A test module of an optional library (lighteval, verl) is collected in every environment, so it
cannot import the library at the top; its fixture calls :func:`imported` instead, and the tests
fail on the import when selected without the library.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace


def imported(**targets: str) -> SimpleNamespace:
    """Each keyword's ``"module"`` or ``"module:attribute"`` imported now, under that keyword.

    >>> imported(join="os.path:join", json="json").join("a", "b")
    'a/b'
    """
    found = {}
    for name, target in targets.items():
        module, _, attribute = target.partition(":")
        loaded = importlib.import_module(module)
        found[name] = getattr(loaded, attribute) if attribute else loaded
    return SimpleNamespace(**found)
