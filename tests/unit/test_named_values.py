r"""An equation that names its left side in words or letters and states a value on its right:
``abc = 60``, ``\text{Area} = 60``, ``[ARML] = 74``, ``a b c d = \mathbf{2 2 4 0}``.

Text detection read the left side as a word ("abc" has three letters), so the whole answer was
text, left to the fallback. Now the left side of such an equation reads as LaTeX reads a run of
letters (a product of its letters), and the equation states the value of its left side, as any
``m + n = 4`` does: against a value its right side is the answer (math-verify reads it so too).
The left side may be an expression of names (``\frac{[ABCD]}{[MPQ]} = 6``); the right side
must be math, a digit or a command in it: ``area = big`` and ``yes = no`` stay text, and so does
such an equation that does not parse (expr_text.cpp, ``names_a_value``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import Tri, equivalent, grade, parse_expr


def _fast(gold: str, response: str) -> tuple[bool, str]:
    v = grade(gold, response, fallback=False)
    return v.correct, v.reason


# -- equations that name their left side ---------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        ("60", "So $abc = 60$.", True),
        ("60", "So $area = 60$.", True),
        ("60", r"So $\text{area} = 60$.", True),
        ("60", r"So the $\text{Area} = 60$ square units.", True),
        ("60", r"So $ABC = 3 \cdot 20 = 60$.", True),
        ("2240", "and $a b c d=\\mathbf{2 2 4 0}$.", True),  # spaced bold digits (a write-up convention)
        ("74", "Thus $[A R M L]=74$.", True),  # the area of a polygon
        ("6", r"Hence $\frac{[A B C D]}{[M P Q]}=\mathbf{6}$.", True),  # an expression of names
        ("30", "So the total area of triangle ABC = 30.", True),
        ("61", "So $abc = 60$.", False),
        ("60", r"So $\text{area} = 6$.", False),
    ],
)
def test_a_named_left_side_states_its_value(gold: str, response: str, correct: bool) -> None:
    ok, reason = _fast(gold, response)
    assert ok is correct
    assert not reason.startswith("undecided")


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("abc=60", "a*b*c = 60"),
        ("[ARML]=74", "A*R*M*L = 74"),
        (r"\text{area}=60", "area = 60"),
        ("abc = 3 \\cdot 20 = 60", "a*b*c = 3*20 = 60"),
        ("\\frac{[ABCD]}{[MPQ]}=6", "A*B*C*D/(M*P*Q) = 6"),
    ],
)
def test_the_equation_parses_as_math(text: str, read: str) -> None:
    assert str(parse_expr(text)) == read


@pytest.mark.parametrize(
    "text",
    ["area = big", "yes = no", "speed = distance / time", "5 apples = x", "x <= abc", "abc = \\sqrt{", "面积 = 5"],
)
def test_words_on_the_right_or_no_name_on_the_left_stay_text(text: str) -> None:
    assert parse_expr(text).tree()[0] == "text"


def test_letters_spaced_or_not_are_one_product() -> None:
    # the gold's "x y z" and the answer's "xyz" are the same left side
    assert equivalent("x y z = 60", "xyz = 60") is Tri.TRUE
    assert equivalent("xyz = 60", "xyz = 61") is not Tri.TRUE


_WORD = st.text(alphabet="abcdfghjklmnpqrstuvwxyz", min_size=3, max_size=10)


@st.composite
def _names(draw: st.DrawFn) -> str:
    word = draw(_WORD)
    form = draw(st.sampled_from(["plain", "text", "spaced", "bracket"]))
    if form == "text":
        return rf"\text{{{word}}}"
    if form == "spaced":
        return " ".join(word.upper())
    if form == "bracket":
        return "[" + word.upper() + "]"
    return word


@given(
    name=_names(),
    value=st.integers(min_value=-10_000, max_value=10_000),
    closing=st.sampled_from([".", "", " square units."]),
)
def test_any_named_value_reads_as_its_value(name: str, value: int, closing: str) -> None:
    response = f"Therefore ${name} = {value}${closing}"
    assert _fast(str(value), response) == (True, "equivalent")
    assert _fast(str(value + 1), response) == (False, "not equivalent")
