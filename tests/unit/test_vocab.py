"""One table per vocabulary: the core's function table and text-wrapper table drive every reader.

The tables live in C++ (cpp/include/rapidgrade/detail/functions.hpp, latex_vocab.hpp) and are
exposed as ``_core.expr_function_table()`` and ``_core.expr_text_wrappers()``. These tests
iterate them, so a new row is checked in every syntax, in normalization, in evaluation and in
the Python name lists without a new test.
"""

from __future__ import annotations

import math

import mpmath
import pytest
import sympy

from rapidgrade import Tri, _core, _sympy, equivalent, extract_answer, fallback, grade, normalize_latex, parse_expr
from rapidgrade.tasks.physics import grade_physics

FUNCTIONS = _core.expr_function_table()
WRAPPERS = _core.expr_text_wrappers()
FRACTIONS = _core.expr_fraction_commands()
ROWS = {row[0]: row for row in FUNCTIONS}


def _args(row: tuple[object, ...], values: tuple[str, ...] = ("x", "y")) -> str:
    count = row[5]
    assert isinstance(count, int)
    return ", ".join(values[:count])


# ---- function table


def test_table_rows_are_well_formed() -> None:
    names = [row[0] for row in FUNCTIONS]
    assert len(names) == len(set(names))
    spellings: list[str] = []
    for name, sympy_name, _latex, words, _rpn, min_args, max_args, _evaluable in FUNCTIONS:
        assert name in words.split(), name  # the canonical name is one of its own spellings
        spellings.extend(words.split())
        assert min_args >= 1 and (max_args is None or min_args <= max_args)
        if sympy_name:
            assert callable(getattr(sympy, sympy_name)), sympy_name
    assert len(spellings) == len(set(spellings)), "a bare word spells two functions"
    for new in ("erf", "erfc", "Si", "Ci", "Ei", "besselj", "gamma"):
        assert new in ROWS


def test_sympy_bridge_is_generated_from_the_table() -> None:
    for name, sympy_name, *_ in FUNCTIONS:
        if sympy_name:
            assert _sympy._FUNCTIONS[name] is getattr(sympy, sympy_name)


def test_fallback_names_are_in_the_table() -> None:
    """The plain-text SymPy reader of the fallback only admits names the core knows."""
    words = {w for row in FUNCTIONS for w in row[3].split()}
    constants = {"pi", "oo", "E", "I", "e"}
    assert fallback._ALLOWED_NAMES - constants <= words
    assert constants <= fallback._ALLOWED_NAMES


@pytest.mark.parametrize("row", FUNCTIONS, ids=[row[0] for row in FUNCTIONS])
def test_every_spelling_parses_to_the_row(row: tuple[object, ...]) -> None:
    name, _sympy_name, latex, words, rpn, min_args, _max_args, _evaluable = row
    assert isinstance(words, str) and isinstance(latex, str) and isinstance(rpn, str)
    args = _args(row)
    want = ("func", name, *[("sym", v) for v in ("x", "y")[: int(str(min_args))]])
    special = {"log", "factorial", "Abs"}  # natural/base-10 log and the Abs/factorial nodes
    for word in words.split():
        if word in special or name in special:
            continue
        assert parse_expr(f"{word}({args})", syntax="infix").tree() == want, word
        assert parse_expr(f"{word}({args})", syntax="latex").tree() == want, word
    if latex and name not in special:
        assert parse_expr(f"\\{latex}({args})", syntax="latex").tree() == want
    if name not in special:
        assert parse_expr(f"\\operatorname{{{name}}}({args})", syntax="latex").tree() == want
    if rpn and name not in special:
        assert parse_expr(" ".join([*["x", "y"][: int(str(min_args))], rpn]), syntax="rpn").tree() == want


def test_infix_arity_comes_from_the_table() -> None:
    with pytest.raises(ValueError, match=r"erf\(\) takes 1 argument"):
        parse_expr("erf(x, y)", syntax="infix")
    with pytest.raises(ValueError, match=r"besselj\(\) takes 2 arguments"):
        parse_expr("besselj(x)", syntax="infix")


def test_new_functions_in_latex() -> None:
    assert str(parse_expr(r"\operatorname{erf}(x)")) == "erf(x)"
    assert str(parse_expr(r"\mathrm{Si}(x)")) == "Si(x)"
    assert str(parse_expr(r"\Gamma(x)")) == "gamma(x)"
    assert str(parse_expr(r"\operatorname{erfc} x")) == "erfc(x)"
    assert str(parse_expr(r"\operatorname{besselj}(0, x)")) == "besselj(0, x)"
    assert str(parse_expr(r"\operatorname{Ei}(2x) + \mathrm{Ci}(x)")) == "Ei(2*x) + Ci(x)"


def test_new_names_stay_letters_or_words_without_a_call() -> None:
    # \Gamma alone is the Greek letter; "gamma", "x erf" stay plain text as before
    assert parse_expr(r"\Gamma").tree() == ("sym", "Gamma")
    assert parse_expr("gamma").tree()[0] == "text"
    assert parse_expr("alpha beta gamma").tree()[0] == "text"
    assert parse_expr("x erf").tree()[0] == "text"  # auto-detection: not RPN
    assert str(parse_expr("x erf", syntax="rpn")) == "erf(x)"


# (function, SymPy/mpmath reference, sample points)
SPECIAL = [
    ("erf", mpmath.erf, [-3.0, -0.5, 0.0, 0.1, 1.0, 2.5, 6.0]),
    ("erfc", mpmath.erfc, [-2.0, 0.0, 0.3, 1.0, 4.0, 10.0]),
    ("Si", lambda x: mpmath.si(x), [-30.0, -2.0, 1e-8, 0.5, 1.9, 2.0, 2.1, 7.0, 50.0, 1000.0]),
    ("Ci", lambda x: mpmath.ci(x), [1e-6, 0.5, 1.9, 2.0, 2.1, 7.0, 50.0, 1000.0]),
    ("Ei", lambda x: mpmath.ei(x), [-50.0, -3.0, -1.0, -0.01, 1e-6, 0.5, 1.0, 5.0, 30.0, 36.0, 40.0, 300.0]),
    ("gamma", mpmath.gamma, [-2.5, -0.5, 0.1, 1.0, 4.5, 10.0, 30.0]),
]


@pytest.mark.parametrize(("name", "reference", "points"), SPECIAL, ids=[s[0] for s in SPECIAL])
def test_special_functions_match_mpmath(name: str, reference: object, points: list[float]) -> None:
    expr = parse_expr(f"{name}(x)", syntax="infix")
    for x in points:
        want = float(reference(mpmath.mpf(x)))  # type: ignore[operator]
        got = expr.evaluate(x=x)
        assert got == pytest.approx(want, rel=1e-13, abs=1e-300), (name, x)
        # and through SymPy (the fallback's reading of the same tree)
        assert float(sympy.N(expr.to_sympy().subs(sympy.Symbol("x"), x), 17)) == pytest.approx(want, rel=1e-12)


def test_bessel_j_matches_mpmath() -> None:
    expr = parse_expr("besselj(n, x)", syntax="infix")
    # quadrature below max(1000, 4 n^2), Hankel's asymptotic expansion above
    for n in (0, 1, 2, 5, -3, 20, 40):
        for x in (-7.5, 0.0, 0.3, 1.0, 10.0, 33.3, 250.0, 999.0, 2000.0, -5000.0, 12345.6):
            want = float(mpmath.besselj(n, x))
            assert expr.evaluate(n=n, x=x) == pytest.approx(want, rel=1e-12, abs=1e-12), (n, x)
    assert math.isnan(expr.evaluate(n=0.5, x=1.0))  # only integer orders are evaluated
    assert math.isnan(expr.evaluate(n=2000, x=1.0))  # orders beyond 1000 are not
    assert expr.evaluate(n=1, x=math.inf) == 0.0


def test_special_functions_are_real_only() -> None:
    # off the real axis they are not evaluated (nan), so sampling never decides on them there
    assert math.isnan(parse_expr("erf(x)", syntax="infix").evaluate(x=1 + 1j).real)
    assert math.isnan(parse_expr("Ci(x)", syntax="infix").evaluate(x=-1.0))
    ci = parse_expr("Ci(x)", syntax="infix").evaluate(x=-1 + 0j)
    assert ci == pytest.approx(complex(mpmath.ci(-1)))  # SymPy's Ci(1) + i*pi


def test_equivalence_with_special_functions() -> None:
    assert equivalent(r"\operatorname{erf}(1)", "0.842700792949715") is Tri.TRUE
    assert equivalent(r"\Gamma(5)", "24") is Tri.TRUE
    assert equivalent("erf(x)", "erfc(x)") is Tri.FALSE
    assert equivalent("besselj(0, x)", "besselj(1, x)") is Tri.FALSE


# ---- text wrappers


@pytest.mark.parametrize(("name", "content"), WRAPPERS, ids=[w[0] for w in WRAPPERS])
def test_normalize_and_parse_accept_the_same_wrappers(name: str, content: str) -> None:
    if content == "operator":
        # an operator name applies to what follows; normalization keeps it
        assert normalize_latex(f"\\{name}{{sin}}(x)") == f"\\{name}{{sin}}(x)"
        assert parse_expr(f"\\{name}{{sin}}(x)").tree() == ("func", "sin", ("sym", "x"))
        return
    assert normalize_latex(f"\\{name}{{5}}") == "5"
    assert parse_expr(f"\\{name}{{5}}").tree() == ("num", "5")
    assert normalize_latex(f"2\\{name}{{q}}") == "2q"
    assert parse_expr(f"2\\{name}{{q}}").tree() == ("mul", ("num", "2"), ("sym", "q"))
    assert str(parse_expr(f"\\{name}{{erf}}(x)")) == "erf(x)"


def test_wrapper_regressions() -> None:
    # parse_expr(r"2\textrm{m}") raised ParseError while 2\text{m} parsed
    assert str(parse_expr(r"2\textrm{m}")) == str(parse_expr(r"2\text{m}")) == "2*m"
    # \textnormal{5} normalized to 5 but did not parse
    assert normalize_latex(r"\textnormal{5}") == "5"
    assert str(parse_expr(r"\textnormal{5}")) == "5"
    # \mathbf{5} parsed but was not normalized
    assert str(parse_expr(r"\mathbf{5}")) == "5"
    assert normalize_latex(r"\mathbf{5}") == "5"


# ---- thousands separators (cpp/include/rapidgrade/detail/number.hpp)


def test_thousands_separators_one_reader() -> None:
    # every site reads "1,234,567" as one number ...
    assert normalize_latex("1,234,567") == "1234567"
    extraction = extract_answer("so the total is 1,234,567")
    assert extraction is not None and extraction.text == "1,234,567"
    assert str(parse_expr("1,234,567")) == "1234567"
    # ... and none takes a group that is not exactly three digits, or a first run of four
    assert normalize_latex("1,2345") == "1,2345"
    assert str(parse_expr("1,2345")) == "{1, 2345}"
    assert str(parse_expr("1234,567")) == "{1234, 567}"
    # the LaTeX spellings are read by the expression lexer only (GroupSeparators::kLatex)
    assert str(parse_expr(r"10{,}000")) == "10000"
    assert str(parse_expr(r"1\,000")) == str(parse_expr("1 000")) == "1000"


# ---- fraction commands


def test_fraction_table_holds_the_latex_commands() -> None:
    assert sorted(FRACTIONS) == ["cfrac", "dfrac", "frac", "tfrac"]


@pytest.mark.parametrize("name", FRACTIONS)
def test_every_reader_takes_every_fraction_command(name: str) -> None:
    text = f"\\{name}{{3}}{{4}}"
    assert normalize_latex(text) == "\\frac{3}{4}"
    assert parse_expr(text).evaluate() == pytest.approx(0.75)
    found = extract_answer(f"so we get {text} here")
    assert found.text == text, found  # the whole fraction, not its last number
    assert equivalent(text, "0.75") is Tri.TRUE
    assert grade_physics("0.75 m", f"$\\boxed{{{text}\\ \\mathrm{{m}}}}$").value == pytest.approx(0.75)


# ---- Unicode spaces


SPACES = _core.unicode_spaces()


def test_space_table_is_unicode_white_space() -> None:
    # Python's str.isspace() beyond ASCII is Unicode's White_Space set
    assert [c for c in range(0x80, 0x110000) if chr(c).isspace()] == SPACES


@pytest.mark.parametrize("space", SPACES, ids=[f"U+{c:04X}" for c in SPACES])
def test_every_reader_takes_every_space(space: int) -> None:
    sp = chr(space)
    assert normalize_latex(f"x{sp}+{sp}1") == "x+1"
    assert grade("x+1", f"\\boxed{{x+{sp}1}}").correct
    quantity = grade_physics("5 m", f"$5{sp}\\mathrm{{m}}$")
    assert quantity.correct and quantity.unit == "m", quantity
    assert _core.absa_normalize_for_eval(f"great{sp}food") == _core.absa_normalize_for_eval("great food")


# ---- spacing commands


SPACING = _core.latex_spacing_commands()


def test_spacing_table_has_the_thin_and_the_wide_commands() -> None:
    assert {name for name, width in SPACING if width == "thin"} >= {",", ";", ":", "!"}
    assert {name for name, width in SPACING if width == "wide"} >= {" ", "quad", "qquad"}


@pytest.mark.parametrize(("name", "width"), SPACING)
def test_every_reader_takes_every_spacing_command(name: str, width: str) -> None:
    cmd = "\\" + name
    after = "" if name == " " else " "  # a control word needs a space before a letter
    normalized = normalize_latex(f"x{cmd}{after}+1")
    assert normalized == {"thin": "x+1", "wide": "x+1" if name == " " else "x\\quad+1"}[width]
    assert normalize_latex(normalized) == normalized
    assert parse_expr(f"x{cmd}{after}+1").evaluate(x=2.0) == 3.0
    assert equivalent(f"x{cmd}{after}+1", "x+1") is Tri.TRUE
    assert grade("x+1", f"\\boxed{{x{cmd}{after}+1}}").correct


# ---- joiner words of a list answer


JOINERS = _core.latex_joiner_words()


def test_the_joiner_table_has_and_and_or() -> None:
    assert dict(JOINERS) == {"and": False, "or": True}


@pytest.mark.parametrize(("word", "alternative"), JOINERS)
def test_every_reader_takes_every_joiner_word(word: str, alternative: bool) -> None:
    # the lexer: a comma, alone and in a text wrapper; "or" joins conditions into a union
    assert equivalent(f"1 {word} 2", "1, 2") is Tri.TRUE
    assert equivalent(f"1 \\text{{ {word} }} 2", "1, 2") is Tri.TRUE
    union = equivalent(f"x<2 {word} x>3", r"(-\infty,2)\cup(3,\infty)")
    assert (union is Tri.TRUE) is alternative, union
    # text detection: no word of prose
    assert parse_expr(f"x {word} y").free_symbols == frozenset({"x", "y"})
    # normalization keeps it a word between math, and reads it in a list of numbers
    assert normalize_latex(f"x=1 {word} x=2") == f"x=1 {word} x=2"
    # extraction joins the spans it joins ("or" as alternatives)
    found = extract_answer(f"So $x=1$ {word} $x=2$.")
    assert found is not None and found.text == ("x=1 or x=2" if alternative else "x=1, x=2"), found
