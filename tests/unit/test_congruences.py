r"""A congruence states its residue (grade.cpp, ``congruence_residue``).

A remainder is often stated as a congruence: ``N \equiv 47 \pmod{100}``, ``3^{34} \equiv 69
(\bmod 100)``, ``x \equiv 3 (\text{mod } 5)``. The core reads none of these as math (``\equiv``
is a congruence where the text names a modulus). Against a value gold the residue, the member
after the last ``\equiv`` and before the modulus clause, is the answer: TRUE when it is the gold,
FALSE when it differs from a gold constant. A gold with unknowns (``4k+3``) may state the same
class another way, and a gold congruence names its own modulus: both stay undecided (the
fallback's). math-verify reads ``\pmod{100}`` as its residue too, but ``(\bmod 100)`` as 100.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade


def _fast(gold: str, response: str) -> tuple[bool, str]:
    v = grade(gold, response, fallback=False)
    return v.correct, v.reason


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        ("47", r"Thus $N \equiv 47 \pmod{100}$", (True, "equivalent")),
        ("47", r"Thus $N \equiv 47 (\bmod 100)$", (True, "equivalent")),
        ("100", r"Thus $N \equiv 47 (\bmod 100)$", (False, "not equivalent")),  # not the modulus
        ("48", r"Thus $N \equiv 47 \pmod{100}$", (False, "not equivalent")),
        ("1", r"Hence $2^{100} \equiv 1 \pmod 7$.", (True, "equivalent")),
        ("3", r"So $x \equiv 3 (\text{mod } 5)$.", (True, "equivalent")),
        ("3", r"So $x \equiv 3 \ (\mathrm{mod}\ 5)$.", (True, "equivalent")),
        ("47", r"$$N \equiv(24+72 \sqrt{5})+(24-72 \sqrt{5})-1 \equiv 47(\bmod 100)$$", (True, "equivalent")),
        ("4k+3", r"so $n \equiv 3 \pmod 4$.", (False, "undecided by the fast path")),
        (r"x \equiv 3 \pmod{5}", r"so $x \equiv 3 \pmod 7$.", (False, "undecided by the fast path")),
    ],
)
def test_a_congruence_states_its_residue(gold: str, response: str, expected: tuple[bool, str]) -> None:
    assert _fast(gold, response) == expected


_CLAUSES = [
    r"\pmod{{{m}}}",
    r"\pmod {m}",
    r"(\bmod {m})",
    r"(\mod {m})",
    r"\mod {m}",
    "(mod {m})",
    r"(\text{{mod }} {m})",
]


@given(
    residue=st.integers(min_value=0, max_value=10**6),
    modulus=st.integers(min_value=2, max_value=10**6),
    clause=st.sampled_from(_CLAUSES),
    left=st.sampled_from(["N", "x", "2^{100}", r"a_{n}", r"3^{34}+1"]),
    space=st.sampled_from(["", " "]),
)
def test_any_congruence_reads_as_its_residue(residue: int, modulus: int, clause: str, left: str, space: str) -> None:
    response = f"Therefore ${left} \\equiv {residue}{space}{clause.format(m=modulus)}$."
    assert _fast(str(residue), response) == (True, "equivalent")
    assert _fast(str(residue + 1), response) == (False, "not equivalent")
