"""The rule that keeps a framework's test modules out of a run that does not select their group
(tests/conftest.py): a module importing Ray at module level is collected, and so fails loudly
without Ray, only where the ``-m`` expression selects tests marked ``ray``."""

from __future__ import annotations

import pytest

from tests.conftest import selects_group


@pytest.mark.parametrize(
    ("markexpr", "expected"),
    [
        ("ray", True),
        ("trl or ray", True),
        ("ray and not slow", True),
        ("", True),
        ("shared", False),
        ("slow and not trl and not ray", False),
        ("not slow and not shared and not trl and not ray and not lighteval and not verl", False),
        ("trl", False),
        ("not shared", True),
    ],
)
def test_selects_group(markexpr: str, expected: bool) -> None:
    assert selects_group(markexpr, "ray") is expected
