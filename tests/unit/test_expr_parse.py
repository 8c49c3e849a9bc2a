"""parse_expr: every LaTeX construct, infix, RPN, canonical printing, errors and limits."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import rapidgrade
from rapidgrade import Expr, LimitError, ParseError, Tri, equivalent, parse_expr


def canon(text: str, syntax: str = "latex") -> str:
    return str(parse_expr(text, syntax=syntax))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        # numbers
        ("42", "42"),
        ("123456789012345678901234567890123456789012345", "123456789012345678901234567890123456789012345"),
        ("007", "7"),
        ("3.14", "3.14"),
        (".5", "0.5"),
        ("1.5e-3", "1.5e-3"),
        (r"1.5\times10^{-3}", "1.5*10**(-3)"),
        ("7,425,000", "7425000"),
        (r"900,\!000,\!000", "900000000"),
        ("10{,}000", "10000"),
        (r"10\,000.5", "10000.5"),
        ("1 000", "1000"),
        ("(1,234)", "(1, 234)"),
        # numbers joined by bare commas are a list when any comma is no thousands separator: after
        # one ("2" follows "1,"), or before a group that is not three digits
        ("1,2,300", "{1, 2, 300}"),
        ("27,54,108,135", "{27, 54, 108, 135}"),
        ("2,500,7500", "{2, 500, 7500}"),
        ("12,345", "12345"),
        ("1,000,000.5", "1000000.5"),
        # operators
        ("1+2-3", "1 + 2 - 3"),
        (r"2\cdot3\times4", "2*3*4"),
        (r"6\div3/2", "6/3/2"),
        ("x^2", "x**2"),
        ("x^23", "x**2*3"),
        ("x^{23}", "x**23"),
        ("-x^2", "-x**2"),
        ("a-(b+c)", "a - (b + c)"),
        ("7:32", "7/32"),
        # fractions and roots
        (r"\frac{1}{2}", "1/2"),
        (r"\dfrac{a}{b}", "a/b"),
        (r"\tfrac34", "3/4"),
        (r"\frac12x", "1/2*x"),
        (r"\sqrt{2}", "sqrt(2)"),
        (r"\sqrt[3]{x}", "root(x, 3)"),
        # implicit multiplication
        ("2x", "2*x"),
        (r"2\pi r", "2*pi*r"),
        ("x(x+1)", "x*(x + 1)"),
        (r"2\sqrt{3}", "2*sqrt(3)"),
        ("xy", "x*y"),
        # functions
        (r"\sin x", "sin(x)"),
        (r"\sin 2x", "sin(2*x)"),
        (r"\sin x \cos x", "sin(x)*cos(x)"),
        (r"\cos(x+1)", "cos(x + 1)"),
        (r"\tan\theta", "tan(theta)"),
        (r"\arcsin x", "asin(x)"),
        (r"\sin^{-1} x", "asin(x)"),
        (r"\sin^2 x", "sin(x)**2"),
        (r"\ln x", "log(x)"),
        (r"\log x", "log(x, 10)"),
        (r"\log_2 8", "log(8, 2)"),
        (r"\log_{b}(x)", "log(x, b)"),
        (r"\exp(x)", "exp(x)"),
        ("sin(x)", "sin(x)"),
        ("log(x)", "log(x)"),
        ("log(8, 2)", "log(8, 2)"),
        ("f(x)", "f(x)"),
        # constants
        (r"\pi", "pi"),
        ("e^x", "E**x"),
        ("3i", "3*I"),
        (r"\infty", "oo"),
        (r"-\infty", "-oo"),
        (r"1\pm\sqrt{2}", "1 \u00b1 sqrt(2)"),
        (r"\pm 3", "\u00b13"),
        # postfix
        (r"30^\circ", "30\u00b0"),
        (r"45^{\circ}", "45\u00b0"),
        (r"50\%", "50%"),
        ("5!", "factorial(5)"),
        ("|x-1|", "Abs(x - 1)"),
        (r"\left| x \right|", "Abs(x)"),
        (r"\binom{5}{2}", "binomial(5, 2)"),
        (r"\lfloor x \rfloor", "floor(x)"),
        # symbols
        ("x_1", "x_1"),
        ("a_{n}", "a_n"),
        ("a_{12}", "a_12"),
        (r"\alpha+\beta", "alpha + beta"),
        (r"\theta_0", "theta_0"),
        # structures
        ("(1, 2)", "(1, 2)"),
        ("[0, 1]", "[0, 1]"),
        ("[0, 1)", "[0, 1)"),
        (r"(-\infty, 3]", "(-oo, 3]"),
        (r"(0, \infty)", "(0, oo)"),
        (r"\left( 1, 2 \right)", "(1, 2)"),
        (r"[0,1] \cup (2,3)", "Union([0, 1], (2, 3))"),
        (r"\{1, 2\}", "{1, 2}"),
        # the set after a function of several arguments holds its arguments
        (r"\max\{a, b\}", "max(a, b)"),
        (r"\min \left\{-m,-n\right\}", "min(-m, -n)"),
        (r"\gcd\{4, 6\}", "gcd(4, 6)"),
        (r"\max \{x\}", "max({x})"),
        ("{1,2,3}", "{1, 2, 3}"),
        ("1, 2", "{1, 2}"),
        ("1 and -2", "{1, -2}"),
        (r"\begin{pmatrix}1&2\\3&4\end{pmatrix}", "Matrix([[1, 2], [3, 4]])"),
        (r"\begin{bmatrix}1\\2\end{bmatrix}", "Matrix([[1], [2]])"),
        (r"\begin{vmatrix}1&2\\3&4\end{vmatrix}", "det(Matrix([[1, 2], [3, 4]]))"),
        # relations
        ("x = 5", "x = 5"),
        ("y=2x+1", "y = 2*x + 1"),
        (r"x \le 2", "x <= 2"),
        (r"x \geq 2", "x >= 2"),
        (r"x \ne 0", "x != 0"),
        ("1 < x < 2", "1 < x < 2"),
        ("n = 1, 2, 3", "n = {1, 2, 3}"),
        # text
        ("Yes", 'text("yes")'),
        (r"\text{ East }", 'text("east")'),
        (r"\text{5}", "5"),
        (r"\mathrm{e}", "E"),
        (r"\text{x}", "x"),
        # a run of letters is a word, except in a group that is an argument of math, where it is
        # a product of letters ("\frac{a^3}{4abc}", the sides of a triangle)
        ("4abc", 'text("4abc")'),
        (r"\frac{a^3}{4abc}", "a**3/(4*a*b*c)"),
        (r"\frac{a}{bcd}", "a/(b*c*d)"),
        (r"\sqrt{abc}", "sqrt(a*b*c)"),
        (r"\sqrt[3]{abc}", "root(a*b*c, 3)"),
        ("x^{abc}", "x**(a*b*c)"),
        (r"\frac{\text{abc}}{2}", 'text("abc2")'),  # a wrapper's group holds words
        (r"\frac{3}{4} cup", 'text("34 cup")'),  # outside the groups, as before
        ("{abc}", 'text("abc")'),
    ],
)
def test_latex_constructs(latex: str, expected: str) -> None:
    assert canon(latex) == expected


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        # C_n^k (n choose k) and A_n^k, P_n^k (arrangements), functions.hpp kScriptNotations
        ("C_n^3", "binomial(n, 3)"),
        ("C_{n}^{3}", "binomial(n, 3)"),
        ("C^3_n", "binomial(n, 3)"),
        ("C^{k}_{n}", "binomial(n, k)"),
        (r"\mathrm{C}_n^k", "binomial(n, k)"),
        ("{C}_{n}^{k}", "binomial(n, k)"),
        ("C_{n+1}^{2}", "binomial(n + 1, 2)"),
        ("C_{2n}^{n}", "binomial(2*n, n)"),
        ("C_{10}^{2}", "binomial(10, 2)"),
        ("C_5^5", "binomial(5, 5)"),
        ("A_n^k", "ff(n, k)"),
        ("A_5^2", "ff(5, 2)"),
        ("P_n^2", "ff(n, 2)"),
        ("P^2_n", "ff(n, 2)"),
        ("2C_n^2 + A_n^3", "2*binomial(n, 2) + ff(n, 3)"),
        (r"\frac{C_n^3}{C_n^2}", "binomial(n, 3)/binomial(n, 2)"),
        (r"{n \choose 2}", "binomial(n, 2)"),
        (r"{n+1 \choose k}", "binomial(n + 1, k)"),
        (r"\dbinom{n}{2}", "binomial(n, 2)"),
        (r"\tbinom{n}{2}", "binomial(n, 2)"),
        # not the notation: a lone subscript or superscript, a power of a point or a term
        ("C_n", "C_n"),
        ("A_n", "A_n"),
        ("a_n^2", "a_n**2"),
        ("A_1^2", "A_1**2"),  # a subscript below the superscript: a geometry answer's square
        ("C_1^2", "C_1**2"),
        ("A_1^n", "A_1**n"),  # an integer subscript takes an integer superscript only
        ("C_n^{-1}", "C_n**(-1)"),  # a signed superscript: an inverse
        ("(A_n)^2", "A_n**2"),
        ("B_n^2", "B_n**2"),  # letters other than C, A, P
        ("c_n^2", "c_n**2"),
        ("AC_1^2", "(A*C_1)**2"),  # the end of a word
        ("C_n^{x^2}", "C_n**(x**2)"),  # not a simple script
    ],
)
def test_combinatorics_notations(latex: str, expected: str) -> None:
    assert canon(latex) == expected


@pytest.mark.parametrize(
    ("latex", "expected"),
    [
        # a power, a factorial or a percent after a run of letters is the last letter's
        ("ab^2", "a*b**2"),
        ("xe^x", "x*E**x"),
        ("xe^{x}", "x*E**x"),
        ("2ab^2", "2*a*b**2"),
        ("xy^{2}z", "x*y**2*z"),
        ("ab^2c^3", "a*b**2*c**3"),
        (r"\sin xy^2", "sin(x*y**2)"),
        ("ab!", "a*factorial(b)"),
        ("ab_1^2", "a*b_1**2"),
        # after a run of capitals, the run's: a segment between points
        ("AB^2", "(A*B)**2"),
        ("AB!", "factorial(A*B)"),
    ],
)
def test_a_postfix_after_letters_is_the_last_letters(latex: str, expected: str) -> None:
    assert canon(latex) == expected


@given(
    st.lists(st.sampled_from("abcxyzemn"), min_size=2, max_size=2).map("".join),  # longer runs are words
    st.sampled_from(["^2", "^{3}", "^x", "!", "^{-1}"]),
    st.sampled_from(["", "3", "2\\,"]),
)
def test_any_postfix_after_lowercase_letters_reads_as_latex2sympy(run: str, post: str, lead: str) -> None:
    import sympy
    from latex2sympy2_extended import latex2sympy

    # ("d" is left out: latex2sympy reads "da" as a differential)
    text = f"{lead}{run}{post}"
    ours = parse_expr(text).to_sympy()
    theirs = latex2sympy(text)
    assert sympy.simplify(ours - theirs) == 0, (text, ours, theirs)


@pytest.mark.parametrize(
    ("infix", "expected"),
    [
        ("x**2 + sin(x)", "x**2 + sin(x)"),
        ("exp(-x)*cos(x)", "exp(-x)*cos(x)"),
        ("sqrt(2)/2", "sqrt(2)/2"),
        ("pi", "pi"),
        ("E**x", "E**x"),
        ("oo", "oo"),
        ("-oo", "-oo"),
        ("2**3**2", "2**(3**2)"),
        ("2**-1", "2**(-1)"),
        ("log(x)", "log(x)"),
        ("log(x, 2)", "log(x, 2)"),
        ("Integral(exp(x), x)", "Integral(exp(x), x)"),
        ("Abs(x)", "Abs(x)"),
        ("Rational(1, 3)", "1/3"),
        ("Eq(y, 2*x)", "y = 2*x"),
        ("x >= 1", "x >= 1"),
        ("(1, 2)", "(1, 2)"),
        ("{1, 2}", "{1, 2}"),
        ("1.5e-3*x", "1.5e-3*x"),
        ("Matrix([[1, 2], [3, 4]])", "Matrix([[1, 2], [3, 4]])"),
    ],
)
def test_infix(infix: str, expected: str) -> None:
    assert canon(infix, "infix") == expected


@pytest.mark.parametrize(
    ("rpn", "expected"),
    [
        ("x 2 ^ x sin +", "x**2 + sin(x)"),
        ("x neg exp x cos *", "exp(-x)*cos(x)"),
        ("1 2 + 3 *", "(1 + 2)*3"),
        ("10 4 - 2 /", "(10 - 4)/2"),
        ("2 sqrt", "sqrt(2)"),
        ("x abs", "Abs(x)"),
        ("x log", "log(x)"),
        ("x ln", "log(x)"),
        ("x tan", "tan(x)"),
        ("pi 2 /", "pi/2"),
        ("e x ^", "E**x"),
        ("1.5e-3 x *", "1.5e-3*x"),
        ("42", "42"),
    ],
)
def test_rpn(rpn: str, expected: str) -> None:
    assert canon(rpn, "rpn") == expected


@pytest.mark.parametrize(
    ("text", "syntax"),
    [
        ("x 2 ^ x sin +", "rpn"),
        ("x neg exp", "rpn"),
        ("x**2 + 1", "infix"),
        ("Integral(x, x)", "infix"),
        ("oo", "infix"),
        (r"\frac{1}{2}", "latex"),
        ("2x + 1", "latex"),
    ],
)
def test_auto_detection(text: str, syntax: str) -> None:
    assert str(parse_expr(text)) == canon(text, syntax)


def test_canonical_form_round_trips_through_infix() -> None:
    for latex in [r"\frac{x^2+1}{x-1}", r"-\sqrt{x}\cdot 2^{-x}", r"\sin^2 x - \log_3 (x+2)", r"(1, \frac{\pi}{2})"]:
        once = canon(latex)
        assert canon(once, "infix") == once


def test_free_symbols() -> None:
    assert parse_expr(r"x^2 + \alpha y_1 + \pi + e").free_symbols == frozenset({"x", "alpha", "y_1"})
    assert parse_expr("42").free_symbols == frozenset()
    assert parse_expr("x 2 ^ y +", syntax="rpn").free_symbols == frozenset({"x", "y"})


def test_tree_shape() -> None:
    assert parse_expr("x+1").tree() == ("add", ("sym", "x"), ("num", "1"))
    assert parse_expr("[0, 1)").tree() == ("interval", False, True, ("num", "0"), ("num", "1"))
    assert parse_expr("1 < x").tree() == ("rel", ("<",), ("num", "1"), ("sym", "x"))
    assert parse_expr(r"\begin{pmatrix}1&2\end{pmatrix}").tree() == ("matrix", 1, 2, ("num", "1"), ("num", "2"))


def test_expr_repr_and_type() -> None:
    e = parse_expr("x+1")
    assert isinstance(e, Expr)
    assert repr(e) == "Expr('x + 1')"
    assert isinstance(rapidgrade.parse_expr(b"x+1"), Expr)


@pytest.mark.parametrize(
    ("text", "syntax", "message"),
    [
        ("(1, 2", "latex", "parse_expr: unclosed '(' at offset 0"),
        (r"\frac{1}", "latex", "parse_expr: missing argument before the end at offset 8"),
        ("x + ", "latex", "parse_expr: unexpected end of input at offset 4"),
        ("1 + )", "latex", "parse_expr: unbalanced ')' at offset 4"),
        (r"\foo x", "latex", "parse_expr: unsupported command '\\foo' at offset 0"),
        (r"\begin{tabular}1\end{tabular}", "latex", "parse_expr: unsupported environment 'tabular' at offset 0"),
        (r"\begin{pmatrix}1&2\\3\end{pmatrix}", "latex", "parse_expr: matrix rows of different lengths at offset 0"),
        ("", "latex", "parse_expr: empty expression at offset 0"),
        ("x**", "infix", "parse_expr: unexpected end of input at offset 3"),
        ("sqrt(1, 2)", "infix", "parse_expr: sqrt() takes 1 argument at offset 0"),
        ("x 2 ^ +", "rpn", "parse_expr: stack underflow: '+' needs 2 operands, 1 available at offset 6"),
        ("sin", "rpn", "parse_expr: stack underflow: 'sin' needs 1 operand, 0 available at offset 0"),
        (
            "x 2",
            "rpn",
            "parse_expr: 2 operands left on the stack after the last token '2' (missing operator) at offset 0",
        ),
        (
            "1 2 3 +",
            "rpn",
            "parse_expr: 2 operands left on the stack after the last token '+' (missing operator) at offset 0",
        ),
        ("x $ +", "rpn", "parse_expr: unknown token '$' at offset 2"),
        ("2x", "rpn", "parse_expr: invalid token '2x' at offset 0"),
    ],
)
def test_error_messages(text: str, syntax: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse_expr(text, syntax=syntax)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert isinstance(info.value, ValueError)


def test_error_offsets_are_code_points_for_str() -> None:
    # the degree sign is two bytes in UTF-8 but one code point
    with pytest.raises(ParseError, match=r"unclosed '\(' at offset 4$"):
        parse_expr("30\u00b0+(1")
    with pytest.raises(ParseError, match=r"unclosed '\(' at offset 5$"):
        parse_expr("30\u00b0+(1".encode())
    with pytest.raises(ParseError, match=r"unexpected character at offset 1$"):
        parse_expr("x\u00e9", syntax="latex")


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="syntax must be"):
        parse_expr("x", syntax="python")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse_expr(42)  # type: ignore[arg-type]


def test_depth_limit() -> None:
    deep = "(" * 1000 + "1" + ")" * 1000
    with pytest.raises(ParseError, match="nested deeper than 256 levels"):
        parse_expr(deep)
    with pytest.raises(ParseError, match="nested deeper"):
        parse_expr("{" * 100000 + "1" + "}" * 100000)
    with pytest.raises(ParseError, match="nested deeper"):
        parse_expr("/".join(["1"] * 2000))  # a left-nested chain is depth too
    with pytest.raises(ParseError, match="nested deeper"):
        parse_expr(" ".join(["x"] + ["neg"] * 1000), syntax="rpn")
    # long flat sums are fine
    assert str(parse_expr("+".join(["1"] * 5000))).count("+") == 4999


def test_length_limit() -> None:
    with pytest.raises(LimitError):
        parse_expr("1+" * (1 << 20))


@pytest.mark.parametrize(
    "junk", [b"\x00\xff\xfe", "\\", "^", "_", "{", "}", "\\frac", "|", "||", "((", "x^", "\\sqrt[", "&", "\\\\", "%"]
)
def test_junk_gives_value_or_parse_error(junk: str | bytes) -> None:
    with contextlib.suppress(ParseError):
        parse_expr(junk)


@given(values=st.lists(st.integers(0, 9999), min_size=2, max_size=6))
def test_a_list_joined_by_bare_commas_keeps_its_numbers(values: list[int]) -> None:
    # A list of integers written "a,b,c" with no blanks: when some item after the first is not
    # three digits (so that some comma is no thousands separator), every comma separates.
    text = ",".join(map(str, values))
    assume(any(len(str(v)) != 3 for v in values[1:]))
    assert equivalent(text, "\\{" + ", ".join(map(str, values)) + "\\}") is Tri.TRUE
