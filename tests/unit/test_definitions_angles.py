r"""Answers of olympiad solutions that the core used to leave to the fallback, or got wrong.

- **A function's definition** is an assignment: ``f(x) = \frac{1}{x}``, ``N(n) = 2n + 1``
  (an unknown function applied to distinct symbols; not ``f(2) = 5``, not ``\sin(x) = 0``).
  Against a value its right side is the answer (``f(n) = n`` against ``n``, as math-verify reads
  it); two definitions of one function compare their right sides, also when they name the
  variable differently (``f(n) = n`` against ``f(m) = m``), unless renaming would capture a
  symbol of the answer, and when one names it bare (``y = Ce^{2x}`` against ``y(x) = Ce^{2x}``).
- ``f(x) \equiv 1`` is an identity, read as ``=``; in a text that speaks of a modulus
  (``n \equiv 1 \pmod{4}``) ``\equiv`` is a congruence, which the core does not read.
- **Angles**: ``\angle ACB`` (``\angle A C B``, ``\measuredangle``, ``\angle 1``, points with
  subscripts: ``\angle B E A_{1}``) is one symbol named by its points, not a product of points or
  the word "ACB"; ``ACB`` and ``BCA`` are one angle. ``\angle A C B = 45^\circ`` states 45°, and
  a list of assignments of one value is that value (``\angle A = 90, \angle B = 90`` against 90).
- ``\doteq`` is an approximate equality, like ``\approx`` (latex_vocab.hpp's
  ``kApproximationCommands``).
- A gold whose letters go on with arithmetic is math, not a number and a remark:
  ``2RC+R+C`` is not 2.
- A one-letter unit after a number is no unit when its letter stands as a symbol before it:
  ``8 m - 2 m = 6 m`` is in m; nor, in a response, when the gold holds that letter as a symbol:
  ``6 m`` against ``6m`` (OCR writes ``$6 m$`` for ``6m``) is six times m, against ``6`` six
  metres.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import Tri, equivalent, grade, normalize_answer, parse_expr


def _fast(gold: str, response: str) -> bool:
    return grade(gold, response, fallback=False).correct


@pytest.mark.parametrize(
    ("gold", "answer", "expected"),
    [
        # a definition against a value: its right side
        ("f(n)=n", "n", Tri.TRUE),
        ("f(x)=1", "1", Tri.TRUE),  # math-verify's case mv-247 (the fallback's before)
        (r"g(x)=x^2-2x+2", r"x^{2}-2 x+2", Tri.TRUE),
        (r"N(n)=\left\lfloor\frac{2 n}{3}\right\rfloor+1", r"\left\lfloor\frac{2 n}{3}\right\rfloor+1", Tri.TRUE),
        ("f(x)=x+1", "x+2", Tri.FALSE),
        ("x+1", "f(x)=x+2", Tri.FALSE),
        # two definitions of one function
        (r"f(x)=\frac{1}{x}", "f(x)=1 / x", Tri.TRUE),
        ("f(x)=x+1", r"f(x)=\frac{1}{x}", Tri.FALSE),
        ("f(n)=n", "f(m)=m", Tri.TRUE),
        ("f(x,y)=x-y", "f(y,x)=y-x", Tri.TRUE),
        ("f(x,y)=x-y", "f(u,v)=v-u", Tri.FALSE),
        ("f(n)=2n", "f(m)=m+1", Tri.FALSE),
        # one function named bare on one side, applied to its variables on the other
        (r"y = Ce^{2x}", r"y(x) = C e^{2x}", Tri.TRUE),
        ("f(x)=x^2", "f=x \\cdot x", Tri.TRUE),
        ("y=x^2", "y(x)=x^3", Tri.FALSE),
        # \equiv as an identity
        ("f(x)=1", r"f(x) \equiv 1", Tri.TRUE),
        ("f(x)=0", r"f(x) \equiv 1", Tri.FALSE),
    ],
)
def test_function_definitions(gold: str, answer: str, expected: Tri) -> None:
    assert equivalent(gold, answer) is expected


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("f(2)=5", "2"),  # an application to a number defines nothing: 5 is its value
        (r"\sin(x)=0", "x"),  # a known function: an equation to solve
        ("f(n)=n+m", "f(m)=m+n"),  # renaming m to n would capture the answer's n
        ("f(x, x)=x", "x"),  # a repeated variable defines nothing
        ("y=x^2", "z(x)=x^2"),  # another function
        ("y=x^2", "y(2)=x^2"),  # an application to a number defines nothing
        ("n=1", r"n \equiv 1 \pmod{4}"),  # a congruence
        ("n=1", r"n \equiv 1 (\bmod 4)"),
    ],
)
def test_what_is_no_definition_is_not_read_as_one(gold: str, answer: str) -> None:
    assert equivalent(gold, answer) is not Tri.TRUE


@given(
    var=st.sampled_from(["x", "y", "n", "t", "k"]),
    other=st.sampled_from(["u", "m", "z", "s"]),
    coefficients=st.lists(st.integers(-9, 9), min_size=1, max_size=4),
    shift=st.integers(1, 5),
)
def test_a_definition_is_the_same_in_any_variable(var: str, other: str, coefficients: list[int], shift: int) -> None:
    def polynomial(v: str) -> str:
        return " + ".join(f"({c})*{v}^{p}" for p, c in enumerate(coefficients))

    gold = f"f({var}) = {polynomial(var)}"
    assert equivalent(gold, f"f({other}) = {polynomial(other)}") is Tri.TRUE
    assert equivalent(gold, f"f({other}) = {polynomial(other)} + {shift}") is Tri.FALSE
    assert equivalent(gold, polynomial(var)) is Tri.TRUE  # the value of the definition


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        (r"\angle A C B", "angle_ACB"),
        (r"\angle ACB", "angle_ACB"),
        (r"\angle BCA", "angle_ACB"),
        (r"\measuredangle C", "angle_C"),
        (r"\angle 1 = 30", "angle_1 = 30"),
        (r"\mathrm{m} \angle C=44", "m*angle_C = 44"),
        # points with subscripts: digits or a letter, braced or not
        (r"\angle B E A_{1}", "angle_A_1EB"),
        (r"\angle A_1 E B", "angle_A_1EB"),
        (r"\angle A_{12}BC_{x}", "angle_A_12BC_x"),
    ],
)
def test_an_angle_is_one_symbol_named_by_its_points(text: str, tree: str) -> None:
    assert str(parse_expr(text)) == tree


@pytest.mark.parametrize("text", [r"\angle", r"\angle ABCD", r"\angle x", r"\angle A_1 B_2 C_3 D"])
def test_an_angle_needs_one_to_three_points(text: str) -> None:
    with pytest.raises(ValueError, match="angle"):
        parse_expr(text)


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (r"45^{\circ}", r"So $\angle A C B=45^{\circ}$.", True),
        (r"44^{\circ}", r"Hence $\mathrm{m} \angle C=44^{\circ}$.", True),
        (r"\frac{5 \sqrt{2}}{2}", r"Thus $\tan \angle H A E=\frac{5 \sqrt{2}}{2}$.", True),
        (r"\angle BCA", r"The largest angle is $\angle ACB$.", True),
        (r"\angle ABC", r"The largest angle is $\angle ACB$.", False),
        (r"50^{\circ}", r"So $\angle A C B=45^{\circ}$.", False),
        # assignments of one value are that value ({a, a} is {a})
        (r"\angle B E A_{1}=90, \angle A E B_{1}=90", r"Both angles are $90^{\circ}$.", True),
        (r"\angle B E A_{1}=90, \angle A E B_{1}=60", r"Both angles are $90^{\circ}$.", False),
        ("90", r"So $\angle A=90^{\circ}, \angle B=90^{\circ}$.", True),
        # approximate equalities
        ("4.2", r"We get $r \doteq 4.2 \%$.", True),
        ("3", r"We get $r \doteq 4.2$.", False),
    ],
)
def test_angles_and_approximations_in_responses(gold: str, response: str, correct: bool) -> None:
    assert _fast(gold, response) is correct


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        ("2RC+R+C", "$2 R C+R+C$", True),
        ("2 R C + R + C", "$2RC+R+C$", True),
        ("2RC+R+C", "$2$", False),
        ("6m", "so the graph has at least $8 m-2 m=6 m$ edges", True),
        # a gold phrase still reads as its number
        ("18 eggs", "The answer is 18.", True),
        ("200 GB", "The answer is 200.", True),
        ("3rd", "The answer is 3.", True),  # an ordinal's letters are no math
    ],
)
def test_golds_whose_letters_go_on_with_arithmetic(gold: str, response: str, correct: bool) -> None:
    assert _fast(gold, response) is correct


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("8 m-2 m=6 m", "8m-2m=6m"),  # m is the answer's variable
        ("6 m", "6"),  # metres
        ("x+6 m", "x+6"),
        (r"\min 6 m", r"\min6"),  # a command's name holds no symbol m
    ],
)
def test_a_one_letter_unit_is_no_unit_where_its_letter_is_a_symbol(text: str, normalized: str) -> None:
    assert normalize_answer(text).text == normalized


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        # the gold holds the letter as a symbol: the response's letter is that symbol
        ("6m", "The required minimum is $6 m$.", True),
        ("6m", "The answer is $6 m$.", True),
        ("2m+1", "So the answer is $2 m + 1$.", True),
        ("7m", "The answer is $6 m$.", False),
        # a gold with no such symbol: metres, as before
        ("6", "The answer is $6 m$.", True),
        ("6", "The answer is 6 m.", True),
        # a marked unit, or a letter after a word, stays what it was
        ("6m", "The answer is $6 \\mathrm{m}$.", False),
        ("6m", "The answer is the m.", False),
    ],
)
def test_a_one_letter_unit_against_a_gold_that_holds_its_letter(gold: str, response: str, correct: bool) -> None:
    assert _fast(gold, response) is correct


@given(
    coefficient=st.integers(1, 10**4),
    letter=st.sampled_from(list("msgKNAVWhL")),
    # in a math span (in prose the phrase reader keeps a unit apart from its number: "1 m." is metres)
    wrap=st.sampled_from(["The answer is ${}$.", "So $x = {}$.", "Thus the required minimum is ${}$."]),
)
def test_any_spaced_coefficient_of_the_gold_letter_reads_back(coefficient: int, letter: str, wrap: str) -> None:
    text = wrap.format(f"{coefficient} {letter}")
    assert _fast(f"{coefficient}{letter}", text) is True
    assert _fast(f"{coefficient + 1}{letter}", text) is False
