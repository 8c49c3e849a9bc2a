r"""rapidgrade.tasks.physics_prkit: prkit's normalization API on rapidgrade's physics core.

Three tables:

* ``DOCUMENT_EXAMPLES``: every example of prkit's "Answer Normalization Workflow" document;
* ``PRKIT_TEST_CASES``: the cases of prkit's unit tests of ``normalization.py`` (its public
  functions), as this module answers them under each setting;
* ``DIFFERENCES``: every difference from prkit found, by id; docs/tasks/physics.md lists each id.

The prkit results quoted in ``DIFFERENCES`` were read from prkit's ``normalization.py`` (v0.1.0)
run on these inputs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade.tasks import physics
from rapidgrade.tasks.physics_prkit import (
    PRKIT_CODE,
    AnswerCategory,
    PrkitConfig,
    classify_expression,
    normalize_answer,
    normalize_expression,
    normalize_number,
    normalize_text,
)

DOCS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "tasks" / "physics.md"
FAST = PrkitConfig(sympy=False)
FAST_CODE = PrkitConfig(follow="code", sympy=False)
NAN = math.nan


def same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN, floats to 1e-12, tuples element-wise, enum members by type too."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12)
    if isinstance(b, AnswerCategory):
        return isinstance(a, AnswerCategory) and a is b
    return type(a) is type(b) and a == b


# -- AnswerCategory ---------------------------------------------------------------------------


def test_categories_are_prkits_strings() -> None:
    assert [c.value for c in AnswerCategory] == [
        "number",
        "equation",
        "physical_quantity",
        "formula",
        "text",
        "option",
    ]
    for c in AnswerCategory:
        assert c == c.value and c.value == c
        assert hash(c) == hash(c.value)
        assert AnswerCategory(c.value) is c
        assert str(c) == c.value and f"{c}" == c.value and f"{c:>20}" == f"{c.value:>20}"
        assert json.loads(json.dumps(c)) == c.value
        assert isinstance(c, str)
    assert {"number": 1}[AnswerCategory.NUMBER] == 1
    assert AnswerCategory.NUMBER != "text"
    assert repr(AnswerCategory.TEXT) == "<AnswerCategory.TEXT: 'text'>"


def test_normalize_answer_returns_members() -> None:
    for answer in ["42", "from $B$ to $A$", "$F = ma$", "$a + b$", "$9.8 m/s^2$"]:
        category, _ = normalize_answer(answer, config=FAST)
        assert type(category) is AnswerCategory


# -- config and errors ------------------------------------------------------------------------


def test_config_is_frozen_and_checked() -> None:
    assert PrkitConfig(follow="code") == PRKIT_CODE and hash(PRKIT_CODE) == hash(PrkitConfig(follow="code"))
    with pytest.raises(AttributeError):
        PRKIT_CODE.follow = "document"  # type: ignore[misc]
    with pytest.raises(ValueError, match="follow"):
        PrkitConfig(follow="docs")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="sympy"):
        PrkitConfig(sympy=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout"):
        PrkitConfig(timeout=0)
    with pytest.raises(TypeError, match="timeout"):
        PrkitConfig(timeout="5")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "function",
    [normalize_answer, normalize_number, normalize_expression, classify_expression, normalize_text],
)
def test_non_strings_are_type_errors(function: Callable[..., object]) -> None:
    with pytest.raises(TypeError, match="must be a str"):
        function(b"42")
    with pytest.raises(TypeError, match="must be a str"):
        function(None)


# -- the document's examples ------------------------------------------------------------------

# (call, input, expected). The document's values "SymPy string or stripped" are SymPy's here.
DOCUMENT_EXAMPLES: list[tuple[str, str, object]] = [
    # Step 1: the normalize_number table
    ("normalize_number", "500", 500.0),
    ("normalize_number", "2/3", 2 / 3),
    ("normalize_number", r"\frac{2}{3}", 2 / 3),
    ("normalize_number", "abc", NAN),
    # Step 1: the forms it lists
    ("normalize_number", "-10", -10.0),
    ("normalize_number", "9.8", 9.8),
    ("normalize_number", "500/11", 500 / 11),
    ("normalize_number", "1/3", 1 / 3),
    # Step 2: the gate's table
    ("normalize_answer", "from $B$ to $A$", (AnswerCategory.TEXT, "from B to A")),
    ("normalize_answer", "9.8 m/s^2", (AnswerCategory.TEXT, "9.8 m/s^2")),
    ("normalize_answer", "F = ma", (AnswerCategory.TEXT, "F = ma")),
    ("normalize_answer", "$a + b$", (AnswerCategory.FORMULA, "a + b")),
    ("normalize_answer", "$$x^2$$", (AnswerCategory.FORMULA, "x**2")),
    ("normalize_answer", r"\boxed{x+y}", (AnswerCategory.FORMULA, "x + y")),
    # Step 2b: the extraction example, then the quantity path's example
    ("normalize_expression", r"$-10^{4} \mathrm{A}/\mathrm{s}$", ("-10000 A/s", True, "physical_quantity")),
    # Step 2b.2: the classification order
    ("classify_expression", "F = ma", "equation"),
    ("classify_expression", "9.8 m/s^2", "physical_quantity"),
    ("classify_expression", "-10^4 A/s", "physical_quantity"),
    ("classify_expression", "-10**4 A/s", "physical_quantity"),
    ("classify_expression", "-10^{4} A/s", "physical_quantity"),
    ("classify_expression", "x^2 + 1", "formula"),
    # The summary table
    ("normalize_answer", "500", (AnswerCategory.NUMBER, 500.0)),
    ("normalize_answer", "2/3", (AnswerCategory.NUMBER, 2 / 3)),
    ("normalize_answer", "$F = ma$", (AnswerCategory.EQUATION, "Eq(F, a*m)")),
    ("normalize_answer", r"$-10^{4} \mathrm{A}/\mathrm{s}$", (AnswerCategory.PHYSICAL_QUANTITY, "-10000 A/s")),
    # Step 3's text normalization
    ("normalize_text", "  hello  ", "hello"),
]

CALLS: dict[str, Callable[..., object]] = {
    "normalize_answer": normalize_answer,
    "normalize_number": normalize_number,
    "normalize_expression": normalize_expression,
    "classify_expression": classify_expression,
    "normalize_text": normalize_text,
}


def call(name: str, answer: str, config: PrkitConfig | None) -> object:
    if name == "normalize_text":
        return normalize_text(answer)
    return CALLS[name](answer, config=config)


@pytest.mark.parametrize(("name", "answer", "expected"), DOCUMENT_EXAMPLES)
def test_document_examples(name: str, answer: str, expected: object) -> None:
    got = call(name, answer, None)
    assert same(got, expected), (got, expected)


# -- prkit's unit-test cases ------------------------------------------------------------------

# (call, input, by default, with PRKIT_CODE). Where the two columns differ, or differ from what
# prkit's tests assert, the case is one of DIFFERENCES (its id in the last column).
PRKIT_TEST_CASES: list[tuple[str, str, object, object, str | None]] = [
    ("normalize_number", "42", 42.0, 42.0, None),
    ("normalize_number", "-5", -5.0, -5.0, None),
    ("normalize_number", "3.14", 3.14, 3.14, None),
    ("normalize_number", "1e5", NAN, 100000.0, "float-numbers"),
    ("normalize_number", "2/3", 2 / 3, 2 / 3, None),
    ("normalize_number", r"\frac{2}{3}", 2 / 3, 2 / 3, None),
    ("normalize_number", r"\frac{-5}{2}", -2.5, -2.5, None),
    ("normalize_number", r"\frac{500}{11}", 500 / 11, 500 / 11, None),
    ("normalize_number", r"\frac{ 2 }{ 3 }", NAN, NAN, None),
    ("normalize_number", r"\boxed{\frac{2}{3}}", 2 / 3, 2 / 3, None),
    ("normalize_number", "$42$", 42.0, 42.0, None),
    ("normalize_number", r"$$\frac{1}{2}$$", 0.5, 0.5, None),
    ("normalize_number", r"\frac{1}{0}", NAN, NAN, None),
    ("normalize_number", "not a number", NAN, NAN, None),
    ("normalize_number", "1,000.5", NAN, 1000.5, "float-numbers"),
    ("classify_expression", "F = ma", "equation", "equation", None),
    ("classify_expression", "x = 1", "equation", "equation", None),
    ("classify_expression", "9.8 m/s^2", "physical_quantity", "physical_quantity", None),
    ("classify_expression", "-10^4 A/s", "physical_quantity", "physical_quantity", None),
    ("classify_expression", "10**2 m", "physical_quantity", "physical_quantity", None),
    ("classify_expression", r"-10 \mathrm{m}/\mathrm{s}", "physical_quantity", "physical_quantity", None),
    ("classify_expression", "a=0, b=1", "equation", "formula", "several-equals"),
    ("classify_expression", "x^2 + y^2", "formula", "formula", None),
    ("normalize_text", "  hello  ", "hello", "hello", None),
    ("normalize_text", "hello world", "hello world", "hello world", None),
    ("normalize_text", "   ", "", "", None),
    ("normalize_expression", "9.8 m/s^2", ("9.8 m/s^2", True, "physical_quantity"), None, None),
    ("normalize_expression", "F = ma", ("F = ma", True, "equation"), None, None),
    ("normalize_expression", "x^2 + 1", ("x^2 + 1", True, "formula"), None, None),
    ("normalize_expression", "a=0, b=1", ("a=0, b=1", True, "equation"), ("a=0, b=1", True, "formula"), None),
    (
        "normalize_expression",
        r"$-10^{4} \mathrm{A}/\mathrm{s}$",
        ("-10000 A/s", True, "physical_quantity"),
        None,
        None,
    ),
    ("normalize_answer", "42", (AnswerCategory.NUMBER, 42.0), None, None),
    ("normalize_answer", "2/3", (AnswerCategory.NUMBER, 2 / 3), None, None),
    ("normalize_answer", r"\frac{1}{2}", (AnswerCategory.NUMBER, 0.5), None, None),
    (
        "normalize_answer",
        "-10^4 A/s",
        (AnswerCategory.TEXT, "-10^4 A/s"),
        (AnswerCategory.PHYSICAL_QUANTITY, "-10000 A/s"),
        "plain-quantity",
    ),
    (
        "normalize_answer",
        "9.8 m/s^2",
        (AnswerCategory.TEXT, "9.8 m/s^2"),
        (AnswerCategory.PHYSICAL_QUANTITY, "9.8 m/s^2"),
        "plain-quantity",
    ),
    ("normalize_answer", "some prose answer", (AnswerCategory.TEXT, "some prose answer"), None, None),
    ("normalize_answer", "from $B$ to $A$", (AnswerCategory.TEXT, "from B to A"), None, None),
    ("normalize_answer", "$F = ma$", (AnswerCategory.EQUATION, "Eq(F, a*m)"), None, None),
    (
        "normalize_answer",
        r"$-10^{4} \mathrm{A}/\mathrm{s}$",
        (AnswerCategory.PHYSICAL_QUANTITY, "-10000 A/s"),
        None,
        None,
    ),
    ("normalize_answer", "$x^2 + 1$", (AnswerCategory.FORMULA, "x**2 + 1"), None, None),
    (
        "normalize_answer",
        r"$\invalid\latex$",
        (AnswerCategory.FORMULA, r"\invalid\latex"),
        (AnswerCategory.TEXT, r"\invalid\latex"),
        "sympy-failure",
    ),
    ("normalize_answer", "0", (AnswerCategory.NUMBER, 0.0), None, None),
]


@pytest.mark.parametrize(("name", "answer", "by_default", "with_code", "difference"), PRKIT_TEST_CASES)
def test_prkit_unit_test_cases(
    name: str, answer: str, by_default: object, with_code: object, difference: str | None
) -> None:
    got = call(name, answer, None)
    assert same(got, by_default), (got, by_default)
    if name == "normalize_answer" and by_default == (AnswerCategory.EQUATION, "Eq(F, a*m)"):
        with_code = (AnswerCategory.EQUATION, "Eq(f, a*m)")  # symbol-case
    got_code = call(name, answer, PRKIT_CODE)
    expected_code = by_default if with_code is None else with_code
    assert same(got_code, expected_code), (got_code, expected_code)
    if difference is not None:
        assert difference in {d[0] for d in DIFFERENCES}


# -- every difference -------------------------------------------------------------------------

# (id, call, input, prkit's code, ours by default, ours with PRKIT_CODE); an expected value
# ``CATEGORY_ONLY(...)`` checks the category alone (the value's spelling is the core's).


class CategoryOnly:
    def __init__(self, category: AnswerCategory) -> None:
        self.category = category


DIFFERENCES: list[tuple[str, str, str, object, object, object]] = [
    # prkit's code and its document disagree: the document by default, the code with PRKIT_CODE
    (
        "plain-quantity",
        "normalize_answer",
        "9.8 m/s^2",
        (AnswerCategory.PHYSICAL_QUANTITY, "9.8 m/s^2"),
        (AnswerCategory.TEXT, "9.8 m/s^2"),
        (AnswerCategory.PHYSICAL_QUANTITY, "9.8 m/s^2"),
    ),
    (
        "several-equals",
        "normalize_answer",
        "$a=0, b=1$",
        (AnswerCategory.FORMULA, "{Eq(a, 0), Eq(b, 1)}"),
        (AnswerCategory.EQUATION, "{Eq(a, 0), Eq(b, 1)}"),
        (AnswerCategory.FORMULA, "{Eq(a, 0), Eq(b, 1)}"),
    ),
    ("float-numbers", "normalize_number", "1e5", 100000.0, NAN, 100000.0),
    ("float-numbers", "normalize_number", "2.99792e+08", 2.99792e8, NAN, 2.99792e8),
    ("float-numbers", "normalize_number", "1,000", 1000.0, NAN, 1000.0),
    ("float-numbers", "normalize_number", "2 3", 23.0, NAN, 23.0),
    ("float-numbers", "normalize_number", "inf", math.inf, NAN, math.inf),
    (
        "float-numbers",
        "normalize_answer",
        "2.99792e+08",
        (AnswerCategory.NUMBER, 2.99792e8),
        (AnswerCategory.TEXT, "2.99792e+08"),
        (AnswerCategory.NUMBER, 2.99792e8),
    ),
    (
        "sympy-failure",
        "normalize_answer",
        r"$\invalid\latex$",
        (AnswerCategory.TEXT, r"\invalid\latex"),
        (AnswerCategory.FORMULA, r"\invalid\latex"),
        (AnswerCategory.TEXT, r"\invalid\latex"),
    ),
    (
        "sympy-failure",
        "normalize_expression",
        r"$\invalid\latex$",
        (r"\invalid\latex", False, "formula"),
        (r"\invalid\latex", True, "formula"),
        (r"\invalid\latex", False, "formula"),
    ),
    (
        "symbol-case",
        "normalize_answer",
        "$F = ma$",
        (AnswerCategory.EQUATION, "Eq(f, a*m)"),
        (AnswerCategory.EQUATION, "Eq(F, a*m)"),
        (AnswerCategory.EQUATION, "Eq(f, a*m)"),
    ),
    (
        "symbol-case",
        "normalize_answer",
        r"$\vec{F} = m\vec{a}$",
        (AnswerCategory.EQUATION, "Eq(f, a*m)"),
        (AnswerCategory.EQUATION, "Eq(F, a*m)"),
        (AnswerCategory.EQUATION, "Eq(f, a*m)"),
    ),
    ("empty-math", "normalize_expression", "$$", ("", False, "formula"), ("", True, "formula"), ("", False, "formula")),
    # rapidgrade's readings, with either setting
    (
        "unit-table",
        "normalize_answer",
        "$2x$",
        (AnswerCategory.PHYSICAL_QUANTITY, "2 x"),
        (AnswerCategory.FORMULA, "2*x"),
        (AnswerCategory.FORMULA, "2*x"),
    ),
    ("unit-table", "classify_expression", "3 apples", "physical_quantity", "formula", "formula"),
    (
        "unit-as-written",
        "normalize_answer",
        "$12 kg m^2$",
        (AnswerCategory.PHYSICAL_QUANTITY, "12 kgm^2"),
        (AnswerCategory.PHYSICAL_QUANTITY, "12 kg m^2"),
        (AnswerCategory.PHYSICAL_QUANTITY, "12 kg m^2"),
    ),
    (
        "number-format",
        "normalize_answer",
        "$100000000000000000000 m$",
        (AnswerCategory.PHYSICAL_QUANTITY, "100000000000000000000 m"),
        (AnswerCategory.PHYSICAL_QUANTITY, "1e+20 m"),
        (AnswerCategory.PHYSICAL_QUANTITY, "1e+20 m"),
    ),
    (
        "number-forms",
        "normalize_answer",
        "$1.5e3 J$",
        (AnswerCategory.PHYSICAL_QUANTITY, "1.5 e3J"),
        (AnswerCategory.PHYSICAL_QUANTITY, "1500 J"),
        (AnswerCategory.PHYSICAL_QUANTITY, "1500 J"),
    ),
    (
        "number-forms",
        "normalize_answer",
        r"$6.02 \times 10^{23} \mathrm{mol}^{-1}$",
        CategoryOnly(AnswerCategory.FORMULA),
        CategoryOnly(AnswerCategory.PHYSICAL_QUANTITY),
        CategoryOnly(AnswerCategory.PHYSICAL_QUANTITY),
    ),
    (
        "spaces",
        "normalize_answer",
        r"$9.8\ \mathrm{m/s^2}$",
        (AnswerCategory.FORMULA, "(9.8*m)/(s**2)"),
        (AnswerCategory.PHYSICAL_QUANTITY, "9.8 m/s^2"),
        (AnswerCategory.PHYSICAL_QUANTITY, "9.8 m/s^2"),
    ),
    (
        "bare-frac",
        "normalize_answer",
        r"\frac{ 2 }{ 3 }",
        (AnswerCategory.FORMULA, r"\frac{ 2 }{ 3 }"),
        (AnswerCategory.FORMULA, "2/3"),
        (AnswerCategory.FORMULA, "2/3"),
    ),
    (
        "uncovered-gate",
        "normalize_answer",
        r"\]\boxed{5}",
        (AnswerCategory.TEXT, r"\]5"),
        (AnswerCategory.NUMBER, 5.0),
        (AnswerCategory.NUMBER, 5.0),
    ),
    (
        "prose-latex",
        "normalize_answer",
        r"The answer is $2.2\ \mathrm{bar}$.",
        (AnswerCategory.TEXT, r"The answer is 2.2\ bar."),
        (AnswerCategory.TEXT, r"The answer is 2.2\ \mathrm{bar}."),
        (AnswerCategory.TEXT, r"The answer is 2.2\ \mathrm{bar}."),
    ),
]

DIFFERENCE_IDS = sorted({d[0] for d in DIFFERENCES} | {"category-type", "type-errors"})


def _check(got: object, expected: object) -> None:
    if isinstance(expected, CategoryOnly):
        assert isinstance(got, tuple) and got[0] is expected.category, got
    else:
        assert same(got, expected), (got, expected)


@pytest.mark.parametrize(
    ("ident", "name", "answer", "prkit", "by_default", "with_code"),
    DIFFERENCES,
    ids=[f"{d[0]}:{d[2]}" for d in DIFFERENCES],
)
def test_differences(ident: str, name: str, answer: str, prkit: object, by_default: object, with_code: object) -> None:
    _check(call(name, answer, None), by_default)
    _check(call(name, answer, PRKIT_CODE), with_code)
    # each row is a difference: prkit's code differs from the default, or from both settings
    assert not same(prkit, by_default) or isinstance(prkit, CategoryOnly)


def test_empty_math_is_text() -> None:
    # empty-math: the document's expression step would make "$$" the formula "" (latex2sympy
    # fails on it, and the document keeps the category); text with both settings, as prkit's code.
    for config in (None, PRKIT_CODE):
        assert same(normalize_answer("$$", config=config), (AnswerCategory.TEXT, ""))


def test_category_type_difference() -> None:
    # category-type: prkit's AnswerCategory is a plain Enum (AnswerCategory.NUMBER != "number",
    # str() "AnswerCategory.NUMBER"); here it is a str enum.
    assert AnswerCategory.NUMBER == "number" and str(AnswerCategory.NUMBER) == "number"


def test_type_errors_difference() -> None:
    # type-errors: prkit fails on non-strings with whatever its first string method raises.
    with pytest.raises(TypeError):
        normalize_answer(3.0)  # type: ignore[arg-type]


def test_docs_list_every_difference() -> None:
    page = DOCS_PAGE.read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z-]+)` \|", page, re.M))
    assert listed == set(DIFFERENCE_IDS)
    assert "from rapidgrade.tasks.physics_prkit import" in page


# -- agreement with rapidgrade's own flow and properties --------------------------------------


def test_default_values_are_the_physics_flows_without_sympy() -> None:
    answers = ["500/11", "9.8 m/s^2", r"$\mathrm{dm}^3$", "$x^2$", "$F = ma$", r"$-10^{4} \mathrm{A}/\mathrm{s}$", "$$"]
    for answer in answers:
        category, value = normalize_answer(answer, config=FAST)
        assert (category.value, value) == physics.normalize_answer(answer, sympy=False)


def test_code_setting_without_sympy_keeps_formulas() -> None:
    assert normalize_answer(r"$\invalid\latex$", config=FAST_CODE) == (AnswerCategory.FORMULA, r"\invalid\latex")
    assert normalize_expression("$a + b$", config=FAST_CODE) == ("a + b", True, "formula")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_gives_a_category(answer: str) -> None:
    for config in (FAST, FAST_CODE):
        category, value = normalize_answer(answer, config=config)
        assert category in AnswerCategory and category is not AnswerCategory.OPTION
        number = normalize_number(answer, config=config)
        # the flow's first step is normalize_number: a number exactly when it is not NaN
        assert (category is AnswerCategory.NUMBER) == (not math.isnan(number))
        if category is AnswerCategory.NUMBER:
            assert value == number
        else:
            assert isinstance(value, str)
        assert classify_expression(answer, config=config) in ("equation", "physical_quantity", "formula")
        expr_value, success, expr_category = normalize_expression(answer, config=config)
        assert isinstance(expr_value, str)
        # without SymPy only empty math fails, and only prkit's code reports it (empty-math)
        assert success or (config is FAST_CODE and expr_value == "")
        assert expr_category in ("equation", "physical_quantity", "formula")


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False))
def test_code_setting_reads_numbers_as_float_does(x: float) -> None:
    for text in (repr(x), f"{x:e}", f"{x:,}"):
        assert same(normalize_number(text, config=FAST_CODE), float(text.replace(",", "")))


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**12), 10**12), st.integers(1, 10**6))
def test_fractions_read_alike(p: int, q: int) -> None:
    for config in (FAST, FAST_CODE):
        assert same(normalize_number(f"{p}/{q}", config=config), p / q)
        assert same(normalize_number(rf"\frac{{{p}}}{{{q}}}", config=config), p / q)
