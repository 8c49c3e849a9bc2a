"""Answers of enumerated parts (detail/parts.hpp): "(1) 3; (2) 5", "① 3 ② 5", "(a) 3 (b) 5".

Normalization's rule 13 writes such an answer as the list of its parts; extraction reads it whole
after a marker, over the lines that go on with the next label. Golds are read the same way
(GAOKAO-Bench writes a two-blank answer "(1). $-\\frac{1}{2} ; \\quad$ (2). $\\ln 2$.").
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rapidgrade
from rapidgrade.normalize import normalize_answer, normalize_latex

# label n (from 1) of every style of the table, as a model writes it
STYLES = {
    "arabic": lambda n: f"({n})",
    "arabic_fullwidth": lambda n: f"（{n}）",
    "roman_lower": lambda n: "(" + ["i", "ii", "iii", "iv"][n - 1] + ")",
    "roman_upper": lambda n: "(" + ["I", "II", "III", "IV"][n - 1] + ")",
    "roman_sign": lambda n: "（" + chr(0x2160 + n - 1) + "）",
    "letter": lambda n: "(" + "abcd"[n - 1] + ")",
    "circled": lambda n: chr(0x2460 + n - 1),
    "paren_digit": lambda n: chr(0x2474 + n - 1),
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_reads_as_the_list_of_its_parts(style: str) -> None:
    label = STYLES[style]
    assert normalize_latex(f"{label(1)} 3; {label(2)} 5") == "3,5"
    assert normalize_latex(f"{label(1)} 3 {label(2)} -\\frac{{1}}{{2}} {label(3)} x") == "3,-\\frac{1}{2},x"
    assert normalize_latex(f"{label(1)}. 3, {label(2)}: 5.") == "3,5"


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        ("(1). $-\\frac{1}{2} ; \\quad$ (2). $\\ln 2$.", "-\\frac{1}{2},\\ln2"),  # GAOKAO-Bench's gold
        ("(1) 3；(2) 5。", "3,5"),
        ("(1) 3、(2) 5", "3,5"),
        ("(1) 3\n(2) 5", "3,5"),
        ("(a) x = 1 and (b) y = 2.", "x=1,y=2"),
        ("(1) 5 cm (2) 7 cm", "5,7"),  # each part's units go, as rule 4's
        ("(1) f(2) (2) 3", "f(2),3"),  # "f(2)" holds no label: a letter precedes it
        ("(1) (3, 4) (2) [0, 1]", "(3,4),[0,1]"),  # brackets hide their commas
    ],
)
def test_separators_and_units_go(raw: str, out: str) -> None:
    assert normalize_latex(raw) == out
    assert normalize_latex(out) == out


def test_a_part_in_percent_raises_the_flag() -> None:
    assert normalize_answer("(1) 5 percent (2) 7") == ("5,7", True, False)


@pytest.mark.parametrize(
    "raw",
    [
        "(1)(2)",  # empty parts
        "(1) 1; 2 (2) 3",  # a part that is a list
        "(1) 3 (3) 5",  # labels out of order
        "(2) 3 (3) 5",  # no first label
        "(1) 3 + (2) 5",  # a part that ends with an operator
        "(A) 3 (B) 5",  # choice letters, not parts
        "(1) 3",  # one label
        "(1)3(2)5",  # a label right after math ("x(2)")
        "(1) 3 ((2) 5)",  # the next label inside a bracket
        "(1) (1) 3 (2) 5",  # a part that starts with a label
    ],
)
def test_texts_that_are_no_lists_of_parts_keep_their_labels(raw: str) -> None:
    once = normalize_latex(raw)
    assert "(1)" in once or "(A)" in once or "(2)" in once
    assert normalize_latex(once) == once


@pytest.mark.parametrize(
    ("response", "extracted"),
    [
        ("The answer is (1) 5. (2) 7.", "(1) 5. (2) 7"),
        ("Final answer:\n(1) 5\n(2) 7", "(1) 5\n(2) 7"),
        ("【答案】(1) 5\n(2) 7<eoa>", "(1) 5\n(2) 7"),
        ("【答案】(1) $-\\frac{1}{2}$；(2) $\\ln 2$<eoa>", "(1) $-\\frac{1}{2}$；(2) $\\ln 2$"),
        ("故答案为：(Ⅰ) 3；(Ⅱ) 4", "(Ⅰ) 3；(Ⅱ) 4"),
        ("Answer: (I) 5, (II) 7", "(I) 5, (II) 7"),  # names no choice
        ("The answer is (a) $x = 5$ and (b) $y = 7$.", "(a) $x = 5$ and (b) $y = 7$"),
        # full-width punctuation between two math spans joins them as the ASCII one does
        ("【答案】$-\\frac{1}{2}$；$\\ln 2$<eoa>", "$-\\frac{1}{2}$；$\\ln 2$"),
    ],
)
def test_a_marker_reads_the_whole_list(response: str, extracted: str) -> None:
    e = rapidgrade.extract_answer(response)
    assert e is not None
    assert e.text == extracted


def test_a_blank_line_ends_the_list() -> None:
    e = rapidgrade.extract_answer("【答案】(1) 5\n\n(2) 7<eoa>")
    assert e is not None and e.text == "(1) 5"


def test_a_choice_letter_stays_a_choice() -> None:
    e = rapidgrade.extract_answer("Answer: (B) 5")
    assert e is not None and e.text == "(B)"


GAOKAO_GOLD = "(1). $-\\frac{1}{2} ; \\quad$ (2). $\\ln 2$."


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (GAOKAO_GOLD, "【答案】(1) $-\\frac{1}{2}$；(2) $\\ln 2$<eoa>", True),
        (GAOKAO_GOLD, "【答案】$-\\frac{1}{2}$；$\\ln 2$<eoa>", True),
        (GAOKAO_GOLD, "【答案】(1) $-0.5$；(2) $\\ln 2$<eoa>", True),
        (GAOKAO_GOLD, "【答案】(1) $\\frac{1}{2}$；(2) $\\ln 2$<eoa>", False),
        (GAOKAO_GOLD, "【答案】0<eoa>", False),
        ("-\\frac{1}{2}, \\ln 2", "【答案】(1) $-\\frac{1}{2}$；(2) $\\ln 2$<eoa>", True),
        ("(1) 5 cm (2) 7 cm", "The answer is (1) 5 (2) 7.", True),
        ("5, 7", "**Final Answer:** (a) $5$; (b) $7$", True),
    ],
)
def test_grading_compares_the_parts(gold: str, response: str, correct: bool) -> None:
    v = rapidgrade.grade_many([gold], [response], fallback=False)[0]
    assert v.decided_by == "fast"
    assert v.correct is correct
    if not correct:
        assert v.reason != "undecided by the fast path"


def test_a_list_of_parts_stays_a_list() -> None:
    # the parts' comma is never a thousands separator (rule 5 keeps its blank)
    assert normalize_latex("(1) 1 (2) 100") == "1, 100"
    v = rapidgrade.grade_many(["1, 100"], ["The answer is (1) 1 (2) 100."], fallback=False)[0]
    assert v.correct
    assert not rapidgrade.grade_many(["1100"], ["The answer is (1) 1 (2) 100."], fallback=False)[0].correct


_values = st.one_of(
    st.integers(-999, 999).map(str),
    st.fractions(min_value=-50, max_value=50, max_denominator=12).filter(lambda f: f.denominator > 1),
)


def _latex(v: str | Fraction) -> str:
    if isinstance(v, Fraction):
        sign = "-" if v < 0 else ""
        return f"{sign}\\frac{{{abs(v.numerator)}}}{{{v.denominator}}}"
    return v


@settings(deadline=None, max_examples=300)
@given(
    values=st.lists(_values, min_size=2, max_size=4, unique_by=lambda v: Fraction(v)),
    style=st.sampled_from(sorted(STYLES)),
    separator=st.sampled_from([" ", "; ", "；", ", ", "，", " \\quad ", "\n", " and ", "、"]),
    dollars=st.booleans(),
    unit=st.sampled_from(["", " cm", " kg", " m/s"]),
    marker=st.sampled_from(["The answer is ", "Final Answer: ", "【答案】", "故答案为：", "答案是"]),
    end=st.sampled_from(["", ".", "。", "<eoa>"]),
)
def test_random_lists_of_parts_are_read_back(
    values: list[str | Fraction], style: str, separator: str, dollars: bool, unit: str, marker: str, end: str
) -> None:
    if end == "<eoa>" and marker != "【答案】":
        end = ""
    label = STYLES[style]
    written = [f"${_latex(v)}$" if dollars else _latex(v) for v in values]
    answer = separator.join(f"{label(i + 1)} {w}{unit}" for i, w in enumerate(written))
    gold = ", ".join(_latex(v) for v in values)
    response = f"Some work first.\n{marker}{answer}{end}"
    v = rapidgrade.grade_many([gold], [response], fallback=False)[0]
    assert v.correct, (response, v)
    # the list with one part changed is not the gold's
    wrong = list(values)
    wrong[-1] = str(Fraction(values[-1]) + 1000)
    bad = separator.join(f"{label(i + 1)} {_latex(w)}{unit}" for i, w in enumerate(wrong))
    assert not rapidgrade.grade_many([gold], [f"Some work first.\n{marker}{bad}{end}"], fallback=False)[0].correct
