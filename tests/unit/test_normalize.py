"""normalize_latex / normalize_answer (+ _many): one test per documented rule, options, types,
idempotence, huge and junk input."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import (
    Normalized,
    Tri,
    equivalent,
    grade,
    normalize_answer,
    normalize_answer_many,
    normalize_latex,
    normalize_many,
)
from rapidgrade.normalize import UNIT_WORDS
from tests.oracles.reference_normalize import _NUMBER_TENS, _NUMBER_UNITS


def n(s: str) -> str:
    out = normalize_latex(s)
    assert isinstance(out, str)
    return out


# Rule 1: commands and signs ---------------------------------------------------------------


def test_frac_variants() -> None:
    assert n(r"\dfrac{1}{2}") == r"\frac{1}{2}"
    assert n(r"\tfrac{3}{4}") == r"\frac{3}{4}"
    assert n(r"\cfrac{a}{b}") == r"\frac{a}{b}"
    assert n(r"\dfracx") == r"\dfracx"  # another command name


def test_left_right_displaystyle() -> None:
    assert n(r"\left( 1, 2 \right)") == "(1,2)"
    assert n(r"\left. x \right|") == "x|"
    assert n(r"\displaystyle \frac{1}{2}") == r"\frac{1}{2}"
    assert n(r"x \rightarrow 0") == r"x\rightarrow0"  # \rightarrow is not \right


def test_spacing_commands() -> None:
    assert n(r"3,\!250") == "3250"
    assert n(r"1\,000\;000") == "1000000"
    assert n(r"a\:b") == "ab"
    assert n(r"5\ \text{m}") == "5"
    assert n("a~b") == "ab"


def test_text_wrappers_unwrapped() -> None:
    assert n(r"\text{(A)}") == "(A)"
    assert n(r"\textbf{yes}") == "yes"
    assert n(r"\mathrm{B}") == "B"
    assert n(r"\mbox{no}") == "no"
    assert n(r"\text{\textit{nested}}") == "nested"
    assert n(r"\text {spaced}") == "spaced"
    assert n(r"\text{4:30 p.m.}") == "4:30p.m"
    assert n(r"\text") == r"\text"  # no argument: kept


def test_dollars_removed() -> None:
    assert n("$x$") == "x"
    assert n(r"\$6") == "6"
    assert n(r"$$\frac{1}{2}$$") == r"\frac{1}{2}"


def test_degrees_removed() -> None:
    assert n(r"120^\circ") == "120"
    assert n(r"48^{\circ}") == "48"
    assert n("30°") == "30"
    assert n(r"45\degree") == "45"
    assert n(r"x^\circle") == r"x^\circle"


@pytest.mark.parametrize(
    "raw",
    [r"45^\circ", r"45^{\circ}", "45°", r"45\degree", "45 degrees", "45 degree", r"$45^\circ$.", r"\text{45 degrees}"],
)
def test_degree_marks_removed_and_flagged(raw: str) -> None:
    # every mark of the one table (detail/latex_vocab.hpp kDegreeMarks) and the unit words
    assert normalize_answer(raw) == Normalized("45", False, True)


def test_degrees_flag_only_where_a_mark_was_removed() -> None:
    assert normalize_answer("45") == Normalized("45", False, False)
    assert normalize_answer(r"x^\circle").degrees is False  # a longer command, no mark
    assert normalize_answer(r"45\degrees").degrees is False
    assert normalize_answer("45 degrees", units=False) == Normalized("45degrees", False, False)
    assert normalize_answer(r"30^\circ, 60^\circ") == Normalized("30,60", False, True)
    assert normalize_answer(r"\angle A = 30^\circ", equations=False).degrees is True
    assert normalize_answer(r"25\%") == Normalized("25", True, False)  # the two flags are apart
    # a normalized answer is normalized again without its mark: the flag is the only trace
    assert normalize_answer(normalize_answer(r"45^\circ").text).degrees is False
    assert [r.degrees for r in normalize_answer_many([r"45^\circ", "45", "90°"])] == [True, False, True]


def test_percent_removed_and_flagged() -> None:
    assert normalize_answer(r"25\%") == Normalized("25", True)
    assert normalize_answer("198%") == Normalized("198", True)
    assert normalize_answer("0.25") == Normalized("0.25", False)
    assert normalize_answer("12 percent") == Normalized("12", True)
    assert normalize_answer("12 percent", units=False) == Normalized("12percent", False)


def test_unicode_minus() -> None:
    assert n("−5") == "-5"
    assert n("x = −\\frac{1}{2}") == r"-\frac{1}{2}"


def test_latex_thousands_braces() -> None:
    assert n("10{,}000") == "10000"
    assert n("{,}") == "{,}"  # not between digits


# Rules 2, 3, 5: whitespace and trailing dots -------------------------------------------------


def test_whitespace() -> None:
    assert n("  1 +\n\t2  ") == "1+2"
    assert n(r"2\pi r") == r"2\pi r"
    assert n(r"\pi  r^2") == r"\pi r^2"
    assert n(r"\cdot 3") == r"\cdot3"


def test_trailing_dots() -> None:
    assert n("5.") == "5"
    assert n("5 . ") == "5"
    assert n("x..") == "x"
    assert n("3.5") == "3.5"


# Rule 4: units ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        ("5 cm", "5"),
        ("5cm", "5"),
        ("12 inches", "12"),
        ("100 square units", "100"),
        (r"100\text{ square units}", "100"),
        ("3 m^2", "3"),
        ("3 cm^{3}", "3"),
        ("7 dollars", "7"),
        ("90 degrees", "90"),
        (r"\frac{1}{2} inch", r"\frac{1}{2}"),
        ("2 hours 30", "2hours30"),  # not trailing
        ("x cm", "xcm"),  # not after a number
        (r"5 \cm", r"5\cm"),  # a command, not a word
        ("5 Dollars", "5Dollars"),  # case-sensitive
    ],
)
def test_units(raw: str, out: str) -> None:
    assert n(raw) == out


@pytest.mark.parametrize(
    ("raw", "out", "degrees"),
    [
        # a unit in braces of its own, its "\\text" lost: as "\\text{...}" would be read
        ("69{degrees}", "69", True),
        (r"8\sqrt{3}{squareinches}", r"8\sqrt{3}", False),
        (r"\frac{3}{4}\pi{inches}", r"\frac{3}{4}\pi", False),
        (r"\frac{1}{2}{cm}", r"\frac{1}{2}", False),
        (r"\sqrt[3]{2} {square units}", r"\sqrt[3]{2}", False),
        ("10^{3}{cm}", "10^{3}", False),
        # two unit words run together are a unit too, braced or not
        ("5 sqft", "5", False),
        (r"\frac{3}{4}\pi inches", r"\frac{3}{4}\pi", False),
        # a command's argument, a one-letter word, a word that is no unit, no value before
        (r"\frac{1}{cm}", r"\frac{1}{cm}", False),
        (r"\sqrt{cm}", r"\sqrt{cm}", False),
        ("2^{cm}", "2^{cm}", False),
        ("5{m}", "5{m}", False),
        ("5{xyz}", "5{xyz}", False),
        ("x{cm}", "x{cm}", False),
        ("{cm}", "{cm}", False),
    ],
)
def test_units_in_bare_braces(raw: str, out: str, degrees: bool) -> None:
    assert normalize_answer(raw) == Normalized(out, False, degrees)


def test_units_option_and_list() -> None:
    assert normalize_latex("5 cm", units=False) == "5cm"
    assert {"cm", "m", "inches", "dollars", "units", "degrees"} <= UNIT_WORDS
    for word in UNIT_WORDS:
        assert n("3 " + word) == "3"


# Rule 6: \frac and \sqrt arguments ---------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        (r"\frac12", r"\frac{1}{2}"),
        (r"\frac1b", r"\frac{1}{b}"),
        (r"\frac{1}2", r"\frac{1}{2}"),
        (r"\frac1{2}", r"\frac{1}{2}"),
        (r"\frac\pi2", r"\frac{\pi}{2}"),
        (r"\frac{\frac12}{3}", r"\frac{\frac{1}{2}}{3}"),
        (r"\frac123", r"\frac{1}{2}3"),
        (r"\dfrac 1 2", r"\frac{1}{2}"),
        (r"\sqrt3", r"\sqrt{3}"),
        (r"\sqrt x", r"\sqrt{x}"),
        (r"\sqrt[3]8", r"\sqrt[3]{8}"),
        (r"\sqrt{2}", r"\sqrt{2}"),
        (r"\frac", r"\frac"),
        (r"\frac{1}", r"\frac{1}"),
    ],
)
def test_braced_arguments(raw: str, out: str) -> None:
    assert n(raw) == out


# Rule 7: equations ------------------------------------------------------------------------


def test_equations() -> None:
    assert n("x = 5") == "5"
    assert n(r"\theta = \frac{\pi}{2}") == r"\frac{\pi}{2}"
    assert n("x_1 = 2") == "2"
    assert n("x_{10} = 2") == "2"
    assert n("y = 2x + 1") == "2x+1"
    assert n("x + y = 5") == "x+y=5"
    assert n("x = y = 5") == "x=y=5"
    assert n("x =") == "x="
    assert n("f(x) = 3") == "f(x)=3"
    assert normalize_latex("x = 5", equations=False) == "x=5"


# Rule 8: leading zero ---------------------------------------------------------------------


def test_leading_zero() -> None:
    assert n(".5") == "0.5"
    assert n("-.5") == "-0.5"
    assert n("0.5") == "0.5"
    assert n("x = .25") == "0.25"
    assert n("(.5, .25)") == "(0.5,0.25)"
    assert n(r"\frac{.5}{2}") == r"\frac{0.5}{2}"
    assert n("a.5") == "a.5"


# Rule 9: thousands separators ---------------------------------------------------------------


def test_thousands() -> None:
    assert n("1,234,567") == "1234567"
    assert n("-1,234.50") == "-1234.50"
    assert n(r"\$1,234") == "1234"
    assert n("1,234 dollars") == "1234"
    assert n("x = 1,000") == "1000"
    # tuples and lists keep their commas
    assert n("(1,2)") == "(1,2)"
    assert n("(100,200)") == "(100,200)"
    assert n("1,2345") == "1,2345"
    # a thousands separator is never followed by a space: a bare list keeps the space after its
    # comma (rule 5) and stays a list, as math-verify reads it; a thin space after the comma is
    # a LaTeX thousands separator, with or without a space after it; bracketed tuples lose it
    assert n("1, 234") == "1, 234"
    assert n("45, 135, 225") == "45, 135, 225"
    assert n(r"45^\circ, 135^\circ") == "45, 135"
    assert n("-1, 234.5") == "-1, 234.5"
    assert n(r"32,\! 349") == "32349"
    assert n(r"11,\! 111,\! 111,\! 100") == "11111111100"
    assert n("(1, 234)") == "(1,234)"
    assert n("1, 23") == "1,23"
    # a list of signed numbers: a sign after a comma keeps the list bare ("0, -1, 100", not 0, -1100)
    assert n("0, -1, 100") == "0,-1, 100"
    assert n("-5, -2, 135") == "-5,-2, 135"
    # and one whose last number "and" or "or" joins ("1, 100 and 0"), not the number 1100
    assert n("1, 100 and 0") == "1, 100 and 0"
    assert n("7, 135 or 9") == "7, 135 or 9"
    assert n("1, 100 and -1") == "1, 100 and -1"
    assert n("1, 100 andy 0") == "1,100andy0"  # a word that only starts with "and"


@given(st.integers(1, 999), st.lists(st.integers(100, 999), min_size=1, max_size=4))
def test_a_comma_then_a_space_separates_a_list_not_thousands(head: int, groups: list[int]) -> None:
    tight = ",".join(map(str, [head, *groups]))
    spaced = ", ".join(map(str, [head, *groups]))
    assert n(tight) == "".join(map(str, [head, *groups]))  # "45,135": one number
    assert n(spaced) == spaced  # "45, 135": a list, as math-verify reads it
    assert equivalent(n(tight), spaced) is Tri.FALSE
    with_sign = f"0, -{head}, " + ", ".join(map(str, groups))  # "0, -45, 135": still a list
    assert equivalent(n(with_sign), "\\{" + with_sign + "\\}") is Tri.TRUE


# Rule 10: integer fractions -----------------------------------------------------------------


def test_slash_fractions() -> None:
    assert n("3/4") == r"\frac{3}{4}"
    assert n("-3/4") == r"-\frac{3}{4}"
    assert n("x/4") == "x/4"
    assert n("3/4/5") == "3/4/5"
    assert n("1.5/2") == "1.5/2"


# types, batch, safety ---------------------------------------------------------------------


def test_bytes_and_errors() -> None:
    assert normalize_latex(rb"\dfrac12") == rb"\frac{1}{2}"
    assert normalize_answer(b"5\\%") == Normalized(b"5", True)
    with pytest.raises(TypeError, match="normalize_latex: s must be str or bytes"):
        normalize_latex(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"strings\[1\]"):
        normalize_many(["a", 1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="threads"):
        normalize_many(["a"], threads=0)


def test_many_matches_single() -> None:
    strings = [f"\\dfrac{{{i}}}{{7}} cm" for i in range(2000)] + ["", "25\\%", "x = .5"]
    assert normalize_many(strings, threads=2) == [normalize_latex(s) for s in strings]
    assert normalize_answer_many(strings, threads=2) == [normalize_answer(s) for s in strings]
    assert normalize_many(strings, units=False, equations=False, threads=1) == [
        normalize_latex(s, units=False, equations=False) for s in strings
    ]


def test_rule0_unicode_math_folded() -> None:
    assert n("π r²") == "\\pi r^{2}"
    assert n("½") == "\\frac{1}{2}"
    assert n("2½") == "2\\frac{1}{2}"
    assert n("√2") == "\\sqrt{2}"
    assert n("√(x+1)") == "\\sqrt{x+1}"
    assert n("√(√(2)+1)") == "\\sqrt{\\sqrt{2}+1}"
    assert n("１２") == "12"
    assert n("10⁻³") == "10^{-3}"
    assert n("a×b") == "a\\times b"
    assert n("α ≤ β") == "\\alpha\\le\\beta"


def test_other_unicode_kept() -> None:
    assert n("\\frac😀2") == "\\frac{😀}{2}"
    assert n("답: 사과") == "답:사과"


def test_decimal_comma() -> None:
    assert n("0{,}5") == "0.5"
    assert n("3{,}14159") == "3.14159"
    assert n("10{,}000") == "10000"
    assert n("1{,}234{,}567") == "1234567"


def test_deep_nesting_and_size() -> None:
    depth = 100_000
    assert n("{" * depth + "1" + "}" * depth) == "{" * depth + "1" + "}" * depth
    assert n("\\text{" * depth + "7" + "}" * depth) == "7"
    assert n("\\frac{" * depth) == "\\frac{" * depth
    big = "1 + \\dfrac12 " * 400_000  # 5 MB
    out = n(big)
    assert out.startswith("1+\\frac{1}{2}1+") and len(out) == 400_000 * len("1+\\frac{1}{2}")


def test_binary_junk() -> None:
    rng = random.Random(99)
    for size in (1, 10, 1000, 100_000):
        data = bytes(rng.getrandbits(8) for _ in range(size))
        out = normalize_latex(data)
        assert isinstance(out, bytes) and normalize_latex(out) == out
        text = data.decode("latin-1")
        assert isinstance(normalize_latex(text), str)


def test_invalid_utf8_becomes_replacement_characters() -> None:
    # Found by fuzz_normalize (cpp/fuzz/reproducers): copied through, the stray bytes joined into
    # a valid "\xc2\xb2" (a superscript two) once the space between them went, so a second
    # normalization gave "^{2}".
    junk = b"\xc2\xc2\xc2\xc2 \xa0\xa0\xa0\xb2"
    out = normalize_latex(junk)
    assert out == "\ufffd".encode() * 8
    assert normalize_latex(out) == out
    assert normalize_latex(b"x \xc0\xaf 1") == "x\ufffd1".encode()  # an overlong "/"


def test_cjk_joiner_that_other_rules_bring_beside_math_is_joined_at_once() -> None:
    # Found by fuzz_normalize (cpp/fuzz/reproducers): "$x^3$或 " kept its joiner, since a '$' stood
    # beside it, and a second normalization, with the '$' gone, turned it into a comma.
    text = b"$x^3$\xe6\x88\x96 \\q11$$\xdc\xff\xff\xff"
    once = normalize_latex(text)
    assert once.startswith(b"x^3,\\q11")
    assert normalize_latex(once) == once
    assert normalize_latex("$x$或$2$") == "x,2"
    assert normalize_latex("或3") == "或3"  # no math before it: a word, not a joiner
    # The same for the two characters of the root word that removed '$' bring together.
    assert normalize_latex("{根" + "$" * 104 + "号") == "{\\sqrt"
    assert normalize_latex("根$$号3") == "\\sqrt{3}"


_pieces = st.sampled_from(
    [
        "\\frac",
        "\\dfrac",
        "\\sqrt",
        "\\text",
        "\\left",
        "\\right",
        "{",
        "}",
        "\\{",
        "$",
        "\\$",
        "%",
        "\\%",
        "^\\circ",
        "°",
        "−",
        " ",
        ".",
        ",",
        "=",
        "x",
        "\\pi",
        "1",
        "23",
        "456",
        "/",
        "cm",
        " m",
        "m",
        " units",
        "_",
        "{,}",
        "\\!",
        "\\,",
        "~",
        "[",
        "]",
        "é",
        "和",
        "或",
        "根号",
        "根",
        "号",
    ]
)


@pytest.mark.parametrize(
    ("raw", "out"),
    [
        # a removed "$" or "%" keeps a command's name apart from the letters after it
        ("$\\pi$x", "\\pi x"),
        ("\\pi\\%x", "\\pi x"),
        ("\\text\\t$ext{{\\text}{\\text}{", None),  # found by fuzz_normalize: idempotent
    ],
)
def test_a_removed_dollar_joins_no_command(raw: str, out: str | None) -> None:
    once = normalize_latex(raw)
    if out is not None:
        assert once == out
    for units in (True, False):
        for equations in (True, False):
            first = normalize_latex(raw, units=units, equations=equations)
            assert normalize_latex(first, units=units, equations=equations) == first


@settings(deadline=None, max_examples=500)
@given(st.lists(_pieces | st.text(max_size=2), max_size=25).map("".join))
def test_idempotent(s: str) -> None:
    once = normalize_answer(s)
    twice = normalize_answer(once.text)
    assert twice.text == once.text
    assert normalize_latex(s) == once.text


@settings(deadline=None, max_examples=200)
@given(st.text())
def test_any_text_is_accepted(s: str) -> None:
    out = normalize_latex(s)
    assert isinstance(out, str)
    assert normalize_latex(out) == out


def test_keyword_defaults_match_core() -> None:
    """The wrappers' keyword defaults are the compiled functions' defaults (and the stub's)."""
    import ast
    import inspect
    from pathlib import Path

    import rapidgrade
    from rapidgrade import _core

    stub = ast.parse((Path(rapidgrade.__file__).parent / "_core.pyi").read_text())
    stub_defaults = {
        node.name: {
            a.arg: ast.literal_eval(d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None
        }
        for node in stub.body
        if isinstance(node, ast.FunctionDef)
    }
    names = [
        "extract_answer",
        "extract_many",
        "extract_fields",
        "normalize_latex",
        "normalize_answer",
        "normalize_many",
        "normalize_answer_many",
    ]
    for name in names:
        signature = str(getattr(_core, name).__doc__).splitlines()[0]
        core: dict[str, object] = {}
        for part in signature.split("*, ", 1)[1].rsplit(")", 1)[0].split(", "):
            key, value = part.split(" = ")
            core[key.split(":")[0]] = ast.literal_eval(value)
        wrapper = {
            p.name: p.default
            for p in inspect.signature(getattr(rapidgrade, name)).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }
        assert wrapper == core, name
        assert stub_defaults[name] == core, name


def test_returns_plain_str_and_bytes() -> None:
    class Sub(str):
        pass

    class SubBytes(bytes):
        pass

    for value, kind in ((Sub("420"), str), (SubBytes(b"420"), bytes), ("420", str), (b"420", bytes)):
        out = normalize_latex(value)
        assert type(out) is kind and out == kind(value)
    assert type(normalize_many([Sub("x")])[0]) is str


@pytest.mark.parametrize("k", range(40))
def test_rules_find_their_bytes_at_every_offset_of_a_long_text(k: int) -> None:
    # the passes skip to the bytes they act on sixteen bytes at a time in long texts: each of
    # these bytes, at every offset of such a step, is found and rewritten as in a short text
    pad, tail = "x" * k, "y" * 20
    assert normalize_latex(pad + "\\dfrac{1}{2} " + tail) == pad + "\\frac{1}{2}" + tail
    assert normalize_latex(pad + "$" + tail + "$") == pad + tail
    assert normalize_latex(pad + "\\left(" + tail + "\\right)") == pad + "(" + tail + ")"
    assert normalize_latex(pad + " \t\n " + tail) == pad + tail
    assert normalize_latex(pad + "²" + tail) == pad + "^{2}" + tail
    assert normalize_latex(pad + "中" + tail) == pad + "中" + tail
    assert normalize_latex("a = " + "1+" * k + tail) == "1+" * k + tail
    assert normalize_latex("a = " + "1+" * k + "=" + tail) == "a=" + "1+" * k + "=" + tail
    assert normalize_answer("1" * (k + 17) + "\\%") == Normalized(text="1" * (k + 17), percent=True)


def _spell(n: int, hyphen: str, joiner: str) -> str:
    """n (0-999) in English words, written as models write them."""
    head, rest = divmod(n, 100)
    if rest < 20:
        tail = _NUMBER_UNITS[rest]
    else:
        tens, unit = divmod(rest, 10)
        tail = _NUMBER_TENS[tens - 2] + (hyphen + _NUMBER_UNITS[unit] if unit else "")
    if not head:
        return tail
    hundreds = f"{_NUMBER_UNITS[head]} hundred"
    return hundreds if rest == 0 else f"{hundreds}{joiner}{tail}"


@given(
    value=st.integers(0, 999),
    hyphen=st.sampled_from(["-", " "]),
    joiner=st.sampled_from([" ", " and "]),
    case=st.sampled_from([str.lower, str.title, str.upper, str.capitalize]),
)
def test_a_number_in_words_is_its_number(value: int, hyphen: str, joiner: str, case: Callable[[str], str]) -> None:
    words = case(_spell(value, hyphen, joiner))
    assert normalize_latex(words) == str(value), words
    assert grade(str(value), f"The answer is {words}.", fallback=False).correct is True, words
    # words that do not only write a number stay words
    assert normalize_latex(words + " apples") != str(value)
    # "negative" or "minus" before them: the negative number
    if value > 0:
        for sign in ("negative ", "minus ", "Negative "):
            assert normalize_latex(sign + words) == str(-value), sign + words
            assert grade(str(-value), f"The answer is {sign}{words}.", fallback=False).correct is True
