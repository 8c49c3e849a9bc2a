"""Parity of rapidgrade's extraction and normalization with the plain-Python reference
(tests/oracles/reference_extract.py): every strategy on the 800 real responses, the normalized
answers and gold answers, hand-written nasty cases, and generated token soups.

The reference follows the documented rules (python/rapidgrade/extract.py and the comments of
cpp/src/extract.cpp); a difference is either a bug of rapidgrade (fix it) or of the reference
(fix or document it here with a test of its own)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rapidgrade
from rapidgrade.extract import STRATEGIES
from tests.datasets import load_demo_corpus
from tests.oracles import reference_extract as ref

CORPUS = load_demo_corpus()


def ours(text: str, strategy: str) -> tuple[object, ...] | None:
    e = rapidgrade.extract_answer(text, strategy=strategy)  # type: ignore[arg-type]
    return None if e is None else tuple(e)


def theirs(text: str, strategy: str) -> tuple[object, ...] | None:
    e = ref.extract_answer(text, strategy)
    return None if e is None else tuple(e)


def test_corpus_size() -> None:
    assert len(CORPUS) == 800


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_corpus_extraction_parity(strategy: str) -> None:
    diffs = [
        (row["id"], ours(str(row["response"]), strategy), theirs(str(row["response"]), strategy))
        for row in CORPUS
        if ours(str(row["response"]), strategy) != theirs(str(row["response"]), strategy)
    ]
    assert diffs == []


def test_corpus_batch_parity() -> None:
    texts = [str(row["response"]) for row in CORPUS]
    expected = [theirs(t, "auto") for t in texts]
    got = [None if e is None else tuple(e) for e in rapidgrade.extract_many(texts, threads=2)]
    assert got == expected


def test_corpus_normalization_parity() -> None:
    strings = []
    for row in CORPUS:
        strings.append(str(row["gold"]))
        for strategy in STRATEGIES:
            e = rapidgrade.extract_answer(str(row["response"]), strategy=strategy)  # type: ignore[arg-type]
            if e is not None:
                strings.append(str(e.text))
    assert len(strings) > 3000
    diffs = [
        (s, tuple(rapidgrade.normalize_answer(s)), ref.normalize_answer(s))
        for s in strings
        if tuple(rapidgrade.normalize_answer(s)) != ref.normalize_answer(s)
    ]
    assert diffs == []
    assert rapidgrade.normalize_many(strings, threads=2) == [ref.strip_string(s) for s in strings]


NASTY = [
    r"\boxed{\boxed{2}}",
    r"$$\boxed{x^2}$$",
    r"\boxed{\text{(A)}}",
    r"\boxed{\{1,2\}}",
    r"\boxed{a\}",
    r"\\boxed{3} 4",
    r"\boxed{open \boxed{3}",
    r"$\boxed{2}$ and $\boxed{3}$.",
    "\\boxed{1}.\n\\boxed{2}",
    "The answer is (1,2).",
    "so 1,234,567 and (1,2)",
    "pages 3-5, x = -4, y = −2",
    "Final Answer: $\\frac{1}{2}$",
    "**Answer:** 12",
    "the answer is $5$ or $6$",
    "Thus $x <= 2$ is our answer.",
    "so 623 must be the only answer.\n\nWhy? 6",
    "If 5 is the answer, 7",
    "$$5$ is the answer.",
    "-5 is the answer, and 4,5 is the right answer!",
    "whether $3$ is the final answer.",
    " 12% is THE answer",
    "<think>\\boxed{1}</think><answer> 7 </answer>",
    "#### 1,000\n",
    "```python\nprint(2)\n```\n```output\n2\n```",
    "values .5 and 1.5e-3 and 3/4 and \\frac{-1}{2}",
    "\\\\frac{1}{2}",
    "",
    "\\",
    # Rule 0 (Unicode math folded to LaTeX) next to the other rules.
    "\\boxed°cm",
    "\\pi°cm",
    "90° and 45°.",
    "The answer is ½ cm.",
    "√(x+1) + √2 − ∛8",
    "√(unclosed",
    "√(" + "x" * 300 + ")",
    "x² + y₁₂ = 10⁻³",
    "１２,３４５ units",
    "3×4÷2 ≤ π",
    "0{,}5 and 10{,}000 and 1{,}23456",
    # Unmarked answers: choice, bare, final_span, signed and braceless numbers.
    "Hence $a - b = 5 / ( - 2 ) = - 2.5$.",
    "x = 2.\nAnswer B",
    "so $k = \\dfrac12$.",
    "pi/2",
    "namely $(-6,6)$ and $(2,6)$.",
    "$x=-1$ or $x=2$",
    "The answer has <img_3939>",
    "So the total is 7.\n\n<img_4019>\n\nFigure 2",
    "So the area is 3<h2>5</h2> and <|reserved_12|>",
    "So x<y2 and a<b_2> 0 and <img_12",
    "thus $x < - 2$ (see Figure 2)",
    "we get $m = 2$ after solving for $m$.",
    "Therefore, $3 x = 12$ and $x = 4$.",
    "$2^{1009}$",
    "the value is - 7",
    "correct answer A",
    "(ANSWER E)",
    "\\begin{equation} x = 5 \\tag{7} \\end{equation}",
    # A span holds an answer when a digit or a letter stands outside command names (the one
    # right after a command name counts), and a letter after "\\\\" (a line break) is a symbol.
    "so $\\quad5$",
    "we get $\\pi2$",
    "$\\boxed\\boxed$",
    "so $\\\\x = 5$",
    # A comma separates thousands only where the number grammar reads groups (detail/number.hpp):
    # not after a leading 0, nor after more than three digits.
    "So $x = 0,198$.",
    "So $x = 1234,567$.",
    "So $x = 1,000,000$.",
    "the point (0,198).",
    "the value (12,345).",
    "so $0,198 = y$",
    "(1,000, 0,5)",
    "01,000 and -0,198",
]


def test_reference_function_words_are_the_function_table() -> None:
    # the reference's bare-text rule lists the function words itself; they must be the core's
    words = {w for row in rapidgrade._core.expr_function_table() for w in row[3].split()}
    assert words == ref.FUNCTION_WORDS


def _assert_full_parity(text: str) -> None:
    """Every strategy's extraction, the text's normalization and its answer's, as the reference's."""
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy
    assert tuple(rapidgrade.normalize_answer(text)) == ref.normalize_answer(text)
    e = rapidgrade.extract_answer(text)
    if e is not None:
        assert tuple(rapidgrade.normalize_answer(str(e.text))) == ref.normalize_answer(str(e.text))


@pytest.mark.parametrize("text", NASTY)
def test_nasty_cases_parity(text: str) -> None:
    _assert_full_parity(text)


_pieces = st.sampled_from(
    [
        "\\boxed",
        "\\fbox",
        "{",
        "}",
        "\\{",
        "\\}",
        "\\\\",
        "$",
        "$$",
        "\\(",
        "\\)",
        "\\[",
        "\\]",
        " ",
        "\n",
        "\n\n",
        ".",
        ". ",
        "!",
        "?",
        "answer",
        "Answer",
        "**",
        " is ",
        " is the answer.",
        " must be the only answer,",
        " our ",
        "if ",
        ":",
        "<answer>",
        "</answer>",
        "####",
        "```",
        "```python",
        "```output",
        "\n```\n",
        "-",
        "−",
        "1",
        "23",
        "456",
        "7,890",
        ",",
        "/",
        "e",
        "+",
        "x",
        "=",
        "\\frac",
        "\\dfrac",
        "\\text",
        "\\left",
        "\\right",
        "\\!",
        "^\\circ",
        "°",
        "%",
        "\\%",
        "\\$",
        "cm",
        " units",
        "0.5",
        ".5",
        "\\sqrt",
        "(",
        ")",
        "</think>",
        "\\pi",
        "_",
        "{,}",
        "~",
        "é",
        "😀",
        "\r",
        "\t",
        "½",
        "√",
        "∛",
        "²",
        "⁻",
        "₃",
        "π",
        "×",
        "≤",
        "１",
        "\u3000",
        "\u00a0",
        # relations that are no equality: divisibility (kDivisibilityCommands), spans joined by "and"
        "\\mid ",
        "\\nmid",
        " and ",
        # abbreviations whose full stop ends no sentence (kAbbreviations)
        "Mr. ",
        "Dr.",
        "vs. ",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_pieces, max_size=16).map("".join))
def test_generated_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy
    assert tuple(rapidgrade.normalize_answer(text)) == ref.normalize_answer(text)


# Choice letters and the CJK markers: the choice words (the CJK verb 选 among them), ASCII and
# full-width decoration around a letter, and colons after 【答案】 and 答案.
_choice_pieces = st.sampled_from(
    [
        "故选",
        "应选",
        "选",
        "答案",
        "【答案】",
        "【",
        "】",
        "<eoa>",
        "是",
        "为",
        "所以",
        "：",
        ":",
        "（",
        "）",
        "(",
        ")",
        "．",
        "。",
        ".",
        "*",
        "**",
        " ",
        "\n",
        "A",
        "C",
        "E",
        "K",
        "answer",
        "option",
        " is ",
        "-3",
        "12",
        "$",
        "x",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_choice_pieces, max_size=14).map("".join))
def test_generated_choice_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Display math in rows: alignment environments around a span, matrices, row breaks, the
# alignment mark and relations.
_row_pieces = st.sampled_from(
    [
        "$$",
        "\\begin{aligned}",
        "\\end{aligned}",
        "\\begin{alignedat}{2}",
        "\\end{alignedat}",
        "\\begin{pmatrix}",
        "\\end{pmatrix}",
        "\\begin{array}{l}",
        "\\end{array}",
        "= &",
        "\\text{ so }",
        "\\text {or}",
        "\\mbox { Thus }",
        "\\cong",
        "\\simeq",
        "\\doteq",
        "\\angle ACB",
        "\\angle A C B",
        "\\therefore",
        "\\begin{align}",
        "\\end{align}",
        "&",
        "=",
        "<",
        "\\approx",
        "\\\\",
        "\\quad",
        "\\{",
        "{",
        "}",
        "x",
        "y",
        "1",
        "0.5",
        " ",
        "\n",
        "\r\n",
        ".",
        ",",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_row_pieces, max_size=16).map("".join))
def test_generated_row_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Enumerated parts (detail/parts.hpp, normalization's rule 13): labels of every style, their
# full-width forms, the separators before and after them, markers and line breaks.
_parts_pieces = st.sampled_from(
    [
        "(1)",
        "(2)",
        "(3)",
        "(10)",
        "(i)",
        "(ii)",
        "(I)",
        "(II)",
        "(a)",
        "(b)",
        "(\u2160)",
        "(\u2161)",
        "\u2460",
        "\u2461",
        "\u2474",
        "\u2475",
        "（1）",
        "（2）",
        "(",
        ")",
        ".",
        ". ",
        ":",
        "、",
        "。",
        ";",
        "；",
        "，",
        ",",
        " and ",
        "\\quad",
        " ",
        "\n",
        "\n\n",
        "$",
        "5",
        "-\\frac{1}{2}",
        "x = 1",
        " cm",
        "%",
        "+",
        "{",
        "}",
        "f(2)",
        "The answer is ",
        "Answer: ",
        "【答案】",
        "<eoa>",
        "故答案为：",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_parts_pieces, max_size=16).map("".join))
def test_generated_parts_parity(text: str) -> None:
    _assert_full_parity(text)


# Units of the units table after a value (normalization's rule 4): symbols, prefixes, powers,
# joiners and the wrappers a unit is written in.
_table_unit_pieces = st.sampled_from(
    [
        "5",
        "0.5",
        "10^{3}",
        "\\pi",
        "x",
        " ",
        "\\mathrm{~nm}",
        "\\mathrm{K}",
        "\\text{ s}",
        "\\mathrm{m}",
        "m",
        "s",
        "kg",
        "K",
        "kPa",
        "eV",
        "in",
        "mi",
        "D",
        "cm",
        "^2",
        "^{-1}",
        "^-2",
        "/",
        " / ",
        "\\cdot",
        "*",
        "{",
        "}",
        "\\,",
        "~",
        "(",
        ")",
        " (",
        "(cm)",
        "(\\mathrm{~min})",
        "(m/s)",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_table_unit_pieces, max_size=10).map("".join))
def test_generated_table_unit_parity(text: str) -> None:
    assert tuple(rapidgrade.normalize_answer(text)) == ref.normalize_answer(text)


# Units in braces of their own after a value ("69{degrees}"): values that end in a digit, a group
# or \\pi, commands whose argument the group may be, and words that are units, two units run
# together, or neither.
_unit_values = st.sampled_from(
    [
        "69",
        "8\\sqrt{3}",
        "\\frac{3}{4}\\pi",
        "\\frac{1}",
        "\\sqrt",
        "\\sqrt[3]{2}",
        "2^",
        "x",
        "(2)",
        "",
        "\\binom{5}",
        "\\frac{1}{2}",
        "\\overline{AB}",
        "{}",
        "5}",
        "\\alpha",
        "3.5",
        "10^{3}",
    ]
)
_unit_words = st.sampled_from(
    ["cm", "m", "degrees", "inches", "square", "squareinches", "sqft", "percent", "xyz", "inm", "cmcm", "units", ""]
)


@settings(deadline=None, max_examples=300)
@given(
    _unit_values,
    st.sampled_from(["", " "]),
    st.lists(_unit_words, max_size=3).map(" ".join),
    st.sampled_from(["", " cm", "{cm}", " {degrees}", "^2", "."]),
)
def test_unit_group_parity(value: str, space: str, words: str, tail: str) -> None:
    text = value + space + "{" + words + "}" + tail
    assert tuple(rapidgrade.normalize_answer(text)) == ref.normalize_answer(text)


# Texts of several hundred bytes, longer than the chunks (64 bytes) in which the core reads the
# last number from the end: the chunks are cut at whitespace, so runs of backslashes, escaped
# blanks ("\\ 5") and numbers near every cut must read as the forward scan of the whole text
# reads them.
_long_pieces = st.sampled_from(
    [
        "\\",
        "\\\\",
        "\\ ",
        " ",
        "\n",
        "\t",
        "1",
        "23",
        "7,890",
        ".5",
        "-",
        " - ",
        "=",
        "x",
        "ab",
        "\\frac{3}{4}",
        "\\dfrac12",
        "\\frac",
        "{",
        "}",
        "\\pi",
        "$",
        "e5",
        "/",
        ",",
        "word ",
    ]
)


@settings(deadline=None, max_examples=300)
@given(st.lists(_long_pieces, min_size=150, max_size=500).map("".join))
def test_last_number_of_long_texts_parity(text: str) -> None:
    assert ours(text, "last_number") == theirs(text, "last_number")
    assert ours(text + " " + "a" * 700, "last_number") == theirs(text + " " + "a" * 700, "last_number")


@pytest.mark.parametrize("gap", [60, 63, 64, 65, 70, 127, 128, 129, 200, 256, 257])
@pytest.mark.parametrize("tail", ["\\ 7 ", "\\\\ 7 ", "\\\\\\ 7 ", " 7\\ ", "\\frac{3}{4} ", " -7 ", ".5 "])
def test_last_number_at_a_chunk_cut(gap: int, tail: str) -> None:
    # the number (or its escape) sits where the last chunk of the text begins
    for text in ("12 " + tail + "q" * gap, "12 " + tail + " " * gap, "12" + tail + ("q " * gap)[:gap]):
        assert ours(text, "last_number") == theirs(text, "last_number"), text


# Count sentences (reference_count): openers, counts in digits and words, reference words and
# joiners before later numbers, sentence and line breaks, in random order.
_count_pieces = st.sampled_from(
    [
        # arguments, indices and powers after the count name what is counted
        " of the integers $f(1), f(2014)$",
        "a_1",
        "x^{2}",
        " of the ",
        "There are",
        "there is",
        "There's",
        "there were",
        "there remain",
        "There will be",
        "theres",
        " ",
        "  ",
        "\t",
        "3",
        "25",
        "1,000",
        "1 1/2",
        "three",
        "Twenty-one",
        "a hundred",
        "three hundred and five",
        "two",
        "one",
        " bars",
        " objects left",
        " with values",
        " below",
        " than",
        " at least",
        " between",
        " and",
        " for every",
        " in",
        " 40",
        " -7",
        " 2016",
        " $",
        ".",
        ". ",
        "!",
        "\n",
        ",",
        ":",
        "1:2",
        "(1, 2)",
        "</s>",
        "So, ",
        "I hope this helps.",
        "**",
        "*",
        " only",
        " exactly",
        " a total of",
        " of the",
        " of the ",
        " of",
        " to",
        "Thus, ",
        "In total, ",
        "8",
        "9 of the",
        "abc",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_count_pieces, max_size=14).map("".join))
def test_count_sentence_parity(text: str) -> None:
    assert ours(text, "last_number") == theirs(text, "last_number")
    assert ours(text, "auto") == theirs(text, "auto")


# Bold values (reference_bold): bold markup around numbers, words, labels and line breaks, with
# numbers after it.
_bold_pieces = st.sampled_from(
    [
        "**",
        "**",
        "*",
        "52",
        "-7.5",
        "1,578",
        " week",
        " 3",
        "Step 1:",
        "Total:",
        " and 4",
        "\n",
        " ",
        ".",
        "2016",
        "The value is ",
        "x**2",
        "$",
        "%",
        " | 13",
        "There are 3 bars below 40",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_bold_pieces, max_size=16).map("".join))
def test_bold_value_parity(text: str) -> None:
    assert ours(text, "last_number") == theirs(text, "last_number")
    assert ours(text, "auto") == theirs(text, "auto")


@pytest.mark.parametrize(
    "text",
    [
        "There are 3 bars with values below 40.",
        "So, there are 25 racks that have at least 0 ties.",
        "There are 9 chickens and 10 rabbits.",
        "there are three objects left after subtracting all the red balls.</s>",
        "The ratio is 1:2, which means there is one male for every two females.",
        "We remove 2 of the 5 balls.\nThere are three balls left.",
        "There are three red balls and one cube.",
        "So, the answer to the question is 2 bars have values larger than 4.",
        "The answer to this problem is: 7",
        "The answer to is 5",
        "the answer to the first part of it is 9",
    ],
)
def test_count_sentence_and_answer_to_cases_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# The bolded answer (reference_bold_span): math bold around numbers, letters and words, spans
# with commas and chains, prose and numbers after them, marked answers before them.
_bold_span_pieces = st.sampled_from(
    [
        "$",
        "$",
        "$$",
        "\\mathbf{1 3 2}",
        "\\mathbf{7 4}",
        "\\mathbf{2}",
        "\\mathbf{3 \\pi}",
        "\\mathbf{v}",
        "\\textbf{Step 1}",
        "\\boldsymbol{-5}",
        "\\bm {1,000}",
        "\\mathbf{",
        "}",
        "\\frac{",
        "}{",
        "\\sqrt{",
        "T=36,",
        "[A R M L]=",
        "x=",
        " = ",
        "+",
        ", ",
        "(1, 2)",
        "\\{",
        "\\}",
        " and ",
        " when divided by 100",
        ". ",
        "\n\n",
        "Remark: ",
        "48-1",
        "\\text { so } ",
        "\\\\",
        "é",
        # a marked answer before or around the bold one (read_bold_after_marker)
        "The answer is ",
        "so the answer is $m+n$. With ",
        "the answer is therefore ",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_bold_span_pieces, max_size=18).map("".join))
def test_bold_answer_parity(text: str) -> None:
    assert ours(text, "final_span") == theirs(text, "final_span")
    assert ours(text, "auto") == theirs(text, "auto")


@pytest.mark.parametrize(
    "text",
    [
        "With $T=36,[A R M L]=\\mathbf{7 4}$.",
        "Thus $N$ leaves a remainder of $48-1=\\mathbf{4 7}$ when divided by 100 .",
        "$$1-\\frac{49}{128}=\\frac{\\mathbf{7 9}}{\\mathbf{1 2 8}}$$",
        "Hence $\\mathbf{5 7 6 2}$ is the maximum possible value of $N$ when $x = 3$.",
        "Let $\\mathbf{v} = (1, 2)$. Then $|\\mathbf{v}|^2 = \\mathbf{5}$, so $x = 5$.",
        "$x=\\mathbf{1}$ or $x=\\mathbf{2}$, when $y = 3$.",
        "So the answer is $\\min \\{-m,-n\\}$. With $m=7, n=8$, and $\\min \\{-7,-8\\}$ is $\\mathbf{- 8}$.",
        "The answer is therefore $(T+1) T^{4}$, and with $T=10$, it is $110000-110=\\mathbf{1 0 9 8 9 0}$.",
        "The answer is $11+6=\\mathbf{1 7}$. Note that $x = 5$.",
        "We get $\\mathbf{4}$ here, so the answer is $x = 5$.",
    ],
)
def test_bold_answer_cases_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Quantifier domains after the answer (reference_strategies._quantifier_domain): spans naming a
# set of numbers after "for all", "where", a comma or \forall, with numbers in and after them.
_domain_pieces = st.sampled_from(
    [
        "$",
        "$",
        "$f(x)=2 x$",
        "$x = 2$",
        "x \\in \\mathbb{R}^{+}",
        "k \\in \\mathbb{Z}",
        "n \\in \\mathbb{N}_{>0}",
        "\\forall x, y \\in \\mathbb{R}",
        "x \\in \\mathbb{R} \\setminus \\{0\\}",
        "\\ k \\in \\mathbb{Z}",
        "\\, (k \\in \\mathbb{Z})",
        "x \\in [0, 1]",
        " for all ",
        " where ",
        " For ",
        ", ",
        " so ",
        " with ",
        ".",
        " 3",
        "(see 2)",
        "\n",
        "K",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_domain_pieces, max_size=14).map("".join))
def test_quantifier_domain_parity(text: str) -> None:
    assert ours(text, "final_span") == theirs(text, "final_span")
    assert ours(text, "auto") == theirs(text, "auto")


# Ellipses of dots in lists (reference_phrase._dots_after, reference_common._ends_with_list_ellipsis).
_dots_pieces = st.sampled_from(
    ["$", "1", "2", ", ", ",", "...", "....", "..", ". ", " ", "n", "The answer is ", "\n", " so", "x = ", "…"]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_dots_pieces, max_size=14).map("".join))
def test_list_ellipsis_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy
    assert tuple(rapidgrade.normalize_answer(text)) == ref.normalize_answer(text)


# Spans joined into one answer of several parts (reference_strategies._final_span): values,
# relations of one left side, chains that give their last member, computations, "and" and "or".
_join_pieces = st.sampled_from(
    [
        "$",
        "$$",
        "x=",
        "x = ",
        "a+b=",
        "C=",
        "1+2=",
        "2^{3}=",
        "8",
        "-4",
        "136^{\\circ}",
        "\\frac{x}{z}",
        " or ",
        " and ",
        ", and ",
        ", ",
        "so ",
        "which gives ",
        ". ",
        "\\begin{aligned} ",
        " & =",
        " \\\\ ",
        " \\end{aligned}",
        "\\Rightarrow ",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_join_pieces, max_size=16).map("".join))
def test_joined_parts_parity(text: str) -> None:
    for strategy in ("final_span", "auto"):
        assert ours(text, strategy) == theirs(text, strategy), strategy


@pytest.mark.parametrize(
    "text",
    [
        "which gives $x=2^{-2 / 3}$ or $x=2^{3}=8$.",
        "so $A+B=\\frac{2}{3} \\cdot 204^{\\circ}=136^{\\circ}$ and $C=180^{\\circ}-(A+B)=44^{\\circ}$.",
        "Therefore, $a + b = 2 - 6 = - 4$, and $a + b = - 4$.",
        "so the positive integer solutions are: $1$ , $2$ , $1 + 2 = 3$",
        "The desired quantity is $s=\\frac{x}{z}$, and $$\\begin{aligned} \\frac{x}{z} & =\\frac{3}{z}-1 "
        "\\\\ & =\\frac{5}{4} \\end{aligned}$$",
    ],
)
def test_joined_parts_cases_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Closing checks and examples (reference_extract._aside_before): their openers at line starts,
# paragraphs after them, conclusion leads, markdown before them.
_aside_pieces = st.sampled_from(
    [
        "\n",
        "\n\n",
        "Verification",
        "Checking:",
        "We check that ",
        "For example, ",
        "for instance",
        "Therefore, ",
        "So ",
        "Thus",
        "**",
        "# ",
        " ",
        "$x = 5$",
        "$y=7$",
        "12",
        "3 apples",
        ". ",
        "(We can check it.)",
        "Checked",
        "\r\n",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_aside_pieces, max_size=16).map("".join))
def test_closing_aside_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Reasons and examples that close a final sentence (reference_extract._reason_before): their
# phrases after math, numbers and words, commas, conclusion leads and math after them.
_reason_pieces = st.sampled_from(
    [
        "So ",
        "x = 3",
        "$x=3$",
        "$$y=2$$",
        "\\(z=4\\)",
        "\\frac{3}{4}",
        "25%",
        " since ",
        " Since ",
        " because ",
        " given that ",
        ", e.g., when ",
        " for example ",
        "sincere ",
        " ",
        ", ",
        "; ",
        "therefore ",
        " thus ",
        "$x>0$",
        "x > 0",
        "{a, b}",
        "the year 2003",
        ".",
        ". ",
        "\n",
        "(We can check it.)",
    ]
)


@settings(deadline=None, max_examples=500)
@given(st.lists(_reason_pieces, max_size=14).map("".join))
def test_reason_clause_parity(text: str) -> None:
    for strategy in STRATEGIES:
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Possessives and contractions after an operator, and math cut before its operand
# (reference_phrase._operand_word, _DANGLING_OPERATORS).
_possessive_pieces = st.sampled_from(
    [
        "A: ",
        "The answer is ",
        "10",
        "+",
        " + ",
        "/",
        "^",
        "=",
        "-",
        "John",
        "'",
        "\u2019",
        "s",
        "t",
        " age",
        " ",
        "x",
        ".",
        "\n",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_possessive_pieces, max_size=14).map("".join))
def test_possessive_parity(text: str) -> None:
    for strategy in ("answer_is", "auto"):
        assert ours(text, strategy) == theirs(text, strategy), strategy


# Labels of steps before a ':' are no last number (reference_strategies._STEP).
_step_pieces = st.sampled_from(
    [
        "Step",
        "step",
        "STEP",
        "Case",
        "part",
        "Lemma",
        "fig",
        "\\step",
        "x",
        " ",
        "\t",
        "5",
        "12",
        "1,000",
        ":",
        ": ",
        ".",
        "\n",
        "## ",
        "$",
        "-",
        "2.5",
        "= 7",
        # markup tags, whose digits are no number ("<img_4019>"), and pieces of them
        "<img_",
        "<",
        ">",
        "/",
        "h2>",
        "<|reserved_",
        "|>",
        "_",
    ]
)


@settings(deadline=None, max_examples=400)
@given(st.lists(_step_pieces, max_size=14).map("".join))
def test_step_label_parity(text: str) -> None:
    for strategy in ("last_number", "auto"):
        assert ours(text, strategy) == theirs(text, strategy), strategy
