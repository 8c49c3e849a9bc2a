"""extract_answer / extract_many / extract_fields: every strategy, the cascade, offsets, nasty
inputs (nesting, escapes, huge and binary input)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import Extraction, extract_answer, extract_fields, extract_many
from rapidgrade.extract import STRATEGIES


def text_of(s: str, strategy: str = "auto") -> str | None:
    e = extract_answer(s, strategy=strategy)  # type: ignore[arg-type]
    return None if e is None else str(e.text)


def method_of(s: str, strategy: str = "auto") -> str | None:
    e = extract_answer(s, strategy=strategy)  # type: ignore[arg-type]
    return None if e is None else e.method


# ---------------------------------------------------------------------------------------------
# boxed


def test_boxed_simple_and_offsets() -> None:
    s = r"so the area is $\boxed{42}$."
    e = extract_answer(s)
    assert e == Extraction("42", s.index("42"), s.index("42") + 2, "boxed")
    assert text_of(r"\fbox{7}") == "7"
    assert text_of(r"the answer is \boxed 5.") == "5"


def test_boxed_content_trimmed_and_empty_box() -> None:
    s = "so \\boxed{  42 \n}"
    e = extract_answer(s)
    assert e is not None and e.text == "42" and s[e.start : e.end] == "42"
    e = extract_answer("nothing: \\boxed{ }")
    assert e is not None and (e.text, e.method) == ("", "boxed")


def test_last_box_wins() -> None:
    s = "First try \\boxed{1}.\n\nOn reflection the result is \\boxed{2}."
    assert text_of(s) == "2"
    assert method_of(s) == "boxed"


def test_nested_braces_and_nested_boxes() -> None:
    assert text_of(r"\boxed{\frac{1}{\sqrt{2}}}") == r"\frac{1}{\sqrt{2}}"
    assert text_of(r"\boxed{\boxed{2}}") == "2"
    assert text_of(r"\boxed{ \fbox{ \boxed{x} } }") == "x"
    # a box that holds more than one box is not unwrapped; the outer box is the top-level one
    assert text_of(r"\boxed{a + \boxed{b}}") == r"a + \boxed{b}"


def test_boxed_inside_display_math() -> None:
    assert text_of("Thus\n$$\n\\boxed{x^2 + 1}\n$$") == "x^2 + 1"
    assert text_of(r"\[ \boxed{\dfrac{3}{4}} \]") == r"\dfrac{3}{4}"


def test_boxed_text_choice() -> None:
    assert text_of(r"The correct option is $\boxed{\text{(A)}}$.") == r"\text{(A)}"


def test_escaped_braces_inside_box() -> None:
    assert text_of(r"\boxed{\{1, 2\}}") == r"\{1, 2\}"
    assert text_of(r"\boxed{\left\{ 3 \right\}}") == r"\left\{ 3 \right\}"
    assert text_of(r"\boxed{a\}}") == r"a\}"
    # the only closing brace is escaped: the box never closes
    assert extract_answer(r"\boxed{a\}", strategy="boxed") is None


def test_escaped_backslash_is_not_a_box() -> None:
    # "\\boxed" is a line break followed by the word "boxed"
    assert method_of(r"a \\boxed{3} b") == "last_number"
    assert method_of(r"a \\\boxed{3} b") == "boxed"


def test_unclosed_box_keeps_inner_boxes() -> None:
    assert text_of(r"\boxed{open \boxed{3} and more") == "3"
    assert text_of(r"\boxed{1} then \boxed{never closed") == "1"


def test_boxed_multi_in_final_sentence() -> None:
    s = r"The solutions are $\boxed{2}$ and $\boxed{3}$."
    e = extract_answer(s)
    assert e is not None
    assert (e.text, e.method) == ("2, 3", "boxed_multi")
    assert e.start == s.index("2}") and e.end == s.index("3}") + 1


def test_boxed_multi_stops_at_sentence_and_paragraph() -> None:
    assert text_of(r"We get \boxed{1}. So the answer is \boxed{2}") == "2"
    assert text_of("\\boxed{1}\n\n\\boxed{2}") == "2"
    assert text_of("\\boxed{1}\n\\]\nor\n\\[\\boxed{2}\\]") == "1, 2"
    # a decimal point between boxes does not end the sentence
    assert text_of(r"\boxed{1} is 2.5 times \boxed{3}") == "1, 3"


def test_boxed_strategy_alone() -> None:
    assert extract_answer("The answer is 5", strategy="boxed") is None
    assert text_of(r"\boxed{4} the answer is 5", "boxed") == "4"


# ---------------------------------------------------------------------------------------------
# answer_is


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So the answer is 42.", "42"),
        ("Hence the final answer is $\\frac{1}{2}$.", "\\frac{1}{2}"),
        ("Final Answer: 7", "7"),
        ("**Answer:** 12 apples", "12"),
        ("**Final Answer**: x = 3", "x = 3"),
        ("answer: (1, 2)", "(1, 2)"),
        ("THE ANSWER IS: B", "B"),
        ("The answer is \\(x^2\\).", "x^2"),
        ("The answer is 3.5. Then we stop.", "3.5"),
        ("the answer is 10\nand more text", "10"),
        ("Final Answer:\n\n  42  ", "42"),
        ("The final answer is $$\n x = \\frac{a. b}{2}\n$$ done", "x = \\frac{a. b}{2}"),
        ("The answer is **17**.", "17"),
        ("The answer is $3. 5$. Then more.", "3. 5"),
        ("The answer is $3$ today. Yes", "3"),
        ("The answer is {a. b}! yes", "{a. b}"),
    ],
)
def test_answer_is_forms(text: str, answer: str) -> None:
    e = extract_answer(text)
    assert e is not None
    assert (e.text, e.method) == (answer, "answer_is")
    assert text[e.start : e.end] == e.text


def test_answer_is_last_marker_wins_and_word_boundary() -> None:
    assert text_of("The answer is 1. Wait, the answer is 2.") == "2"
    assert extract_answer("Our answers: none", strategy="answer_is") is None
    assert extract_answer("reanswer: 5", strategy="answer_is") is None
    # the last marker has no answer: nothing is found (an earlier one is not used)
    assert extract_answer("The answer is 3. Final answer:   ", strategy="answer_is") is None


def test_answer_is_keeps_unbalanced_dollars() -> None:
    assert text_of("The answer is $5$ or $6$") == "$5$ or $6$"


# ---------------------------------------------------------------------------------------------
# tagged


def test_answer_tags() -> None:
    s = "reasoning <answer> 17 </answer>"
    e = extract_answer(s)
    assert e is not None and (e.text, e.method) == ("17", "tagged")
    assert s[e.start : e.end] == "17"
    assert text_of("<answer>1</answer> then <answer>2</answer>") == "2"
    # the marker nearest the end wins
    assert text_of("<answer>x</answer>\n#### 5", "tagged") == "5"
    assert text_of("#### 5\n<answer>x</answer>", "tagged") == "x"
    assert text_of("<answer>   </answer>\n#### 5", "tagged") == "5"


def test_gsm8k_hashes() -> None:
    assert text_of("She pays 3 * 4 = 12 dollars.\n#### 12") == "12"
    assert text_of("#### $1,234.") == "$1,234"
    assert text_of("#### 3\nmore\n  #### −4") == "−4"
    # markdown headings are not answers
    assert extract_answer("#### Step 1: add\nwe get", strategy="tagged") is None
    assert extract_answer("#### 1. Compute", strategy="tagged") is None
    assert text_of("#### Step 2\n12 apples") == "12"


# ---------------------------------------------------------------------------------------------
# code_output


def test_code_output_after_code_block() -> None:
    s = "Let's compute.\n```python\nprint(6 * 7)\n```\n```output\n42\n```\nSo we are done"
    e = extract_answer(s)
    assert e is not None and (e.text, e.method) == ("42", "code_output")
    assert s[e.start : e.end] == "42"


def test_code_output_rules() -> None:
    code = "```python\nprint(1)\n```\n"
    assert text_of(code + "```text\n  hello  \n```", "code_output") == "hello"
    assert text_of(code + "```output\n1\n```\n" + code + "```output\n2\n```", "code_output") == "2"
    # an output block that does not follow a code block, or is never closed, does not count
    assert extract_answer("```output\n5\n```", strategy="code_output") is None
    assert extract_answer(code + "```output\n5\n", strategy="code_output") is None
    # a fence with an info string does not close a block
    assert text_of(code + "```output\n7\n```python\n```", "code_output") == "7\n```python"


# ---------------------------------------------------------------------------------------------
# last_number


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("we get 12 and then 13", "13"),
        ("the total is 3.25 dollars", "3.25"),
        ("x = -5", "-5"),
        ("pages 3-5", "5"),
        ("3 - 5", "5"),
        ("it is −3 degrees", "−3"),
        ("population 1,234,567 people", "1,234,567"),
        # a number read with the object it belongs to: a point, a ratio or a time, a function's
        # argument; not a grouped number or a lone number in brackets
        ("the point (1,2)", "(1,2)"),
        ("It first reaches 2 at the point (1, -2).", "(1, -2)"),
        ("The ratio is 3:1.", "3:1"),
        ("It ends at 4:30 pm", "4:30"),
        # a percentage with its sign, which grading reads as 50 and as 0.5
        ("The probability is 50%.", "50%"),
        ("So the probability is $12.5\\%$.", "12.5\\%"),
        ("The probability is 0.5 (50%).", "50%"),
        ("a rise of 50 %", "50"),  # a sign apart from its number: the number alone
        ("not enough information to find f(0).", "f(0)"),
        ("the total is (12,345)", "12,345"),
        ("as in equation (3)", "3"),
        ("values 1, 234", "234"),
        ("bad grouping 1,2345", "2345"),
        ("ratio 3/4", "3/4"),
        ("tiny 1.5e-3 units", "1.5e-3"),
        ("exp 2E5", "2E5"),
        ("half is \\frac{1}{2}", "\\frac{1}{2}"),
        ("neg $-\\dfrac{3}{4}$", "-\\dfrac{3}{4}"),
        ("not numeric \\frac{x}{2}", "2"),
        ("about .5 of it", ".5"),
        ("costs $-.5$", "-.5"),
        ("it is 5.", "5"),
        ("version 1.2.3", "3"),
        ("x_2", "2"),
        ("escaped \\$7", "7"),
        ("e^x has 2e terms", "2"),
        ("1,234.5/2", "2"),
    ],
)
def test_last_number(text: str, number: str) -> None:
    e = extract_answer(text, strategy="last_number")
    assert e is not None
    assert e.text == number
    assert text[e.start : e.end] == number


def test_last_number_none() -> None:
    assert extract_answer("no digits at all", strategy="last_number") is None
    assert extract_answer("", strategy="last_number") is None


# ---------------------------------------------------------------------------------------------
# cascade, think, API


def test_cascade_order() -> None:
    everything = "```python\nx\n```\n```output\n4\n```\n<answer>3</answer>\nThe answer is 2.\n\\boxed{1} 99"
    assert (text_of(everything), method_of(everything)) == ("1", "boxed")
    no_box = everything.replace("\\boxed{1}", "")
    assert (text_of(no_box), method_of(no_box)) == ("2", "answer_is")
    no_marker = no_box.replace("The answer is 2.", "")
    assert (text_of(no_marker), method_of(no_marker)) == ("3", "tagged")
    no_tag = no_marker.replace("<answer>3</answer>", "")
    assert (text_of(no_tag), method_of(no_tag)) == ("4", "code_output")
    no_output = no_tag.replace("```output\n4\n```", "")
    assert (text_of(no_output), method_of(no_output)) == ("99", "last_number")


def test_think_is_skipped() -> None:
    s = "<think>I guess \\boxed{1}</think>The result is 2"
    e = extract_answer(s)
    assert e is not None and (e.text, e.method) == ("2", "last_number")
    assert e.start == len(s) - 1
    assert text_of("<think>a</think> 1 <think>b \\boxed{9}</think> 3") == "3"
    assert extract_answer("<think>\\boxed{1}</think>") is None
    assert text_of("no think tag \\boxed{5}") == "5"


def test_code_point_and_byte_offsets() -> None:
    s = "답은 😀 é \\boxed{√2} 끝"
    e = extract_answer(s)
    assert e is not None and e.text == "√2" and s[e.start : e.end] == "√2"
    b = s.encode()
    eb = extract_answer(b)
    assert eb is not None and eb.text == "√2".encode() and b[eb.start : eb.end] == eb.text
    multi = extract_answer("é \\boxed{α} and \\boxed{β}".encode())
    assert multi is not None and multi.text == "α, β".encode()


def test_offsets_in_long_non_ascii_text() -> None:
    for prefix in ("", "a", "ab", "abc", "abcdefg"):
        s = prefix + "é😀한x" * 5001 + " \\boxed{√2} and \\boxed{ü}"
        for e in (extract_answer(s), extract_many([s], threads=2)[0]):
            assert e is not None and e.text == "√2, ü"
            assert e.start == s.index("√2") and e.end == s.index("ü}") + 1
        last = extract_answer(s, strategy="last_number")
        assert last is not None and s[last.start : last.end] == last.text == "2"


def test_errors() -> None:
    with pytest.raises(TypeError, match="extract_answer: text must be str or bytes"):
        extract_answer(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown strategy 'boxed_multi'"):
        extract_answer("x", strategy="boxed_multi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown strategy"):
        extract_many(["x"], strategy="nope")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        extract_many(["a", 5])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        extract_many("a string")
    with pytest.raises(ValueError, match="threads"):
        extract_many(["a"], threads=0)


def test_strategies_listed() -> None:
    assert STRATEGIES == (
        "auto",
        "boxed",
        "answer_is",
        "tagged",
        "code_output",
        "choice",
        "bare",
        "final_span",
        "last_number",
    )


def test_extract_many_matches_single() -> None:
    texts = [rf"step {i}: \boxed{{{i}}}" for i in range(3000)] + ["", "none", "The answer is 4.", "x 7"]
    for strategy in STRATEGIES:
        expected = [extract_answer(t, strategy=strategy) for t in texts]  # type: ignore[arg-type]
        assert extract_many(texts, strategy=strategy, threads=2) == expected  # type: ignore[arg-type]
    assert extract_many([]) == []
    assert isinstance(extract_many(["\\boxed{1}"])[0], Extraction)


# ---------------------------------------------------------------------------------------------
# extract_fields


def test_fields_full_protocol() -> None:
    text = (
        "REASONING: The kernel is separable,\nso we solve a linear system.\n"
        "SOLUTION_TYPE: exact_symbolic\nHAS_SOLUTION: yes\nSOLUTION: u(x) = x^2 + \\sin(x).\n"
    )
    assert extract_fields(text) == {
        "reasoning": "The kernel is separable,\nso we solve a linear system.",
        "solution_type": "exact_symbolic",
        "has_solution": True,
        "solution": "x^2 + \\sin(x)",
    }


def test_fields_solution_priority_and_last_line() -> None:
    text = "u(x) = 1\nSolution: u(x) = 2\nSOLUTION: u(x) = 3\nSolution: u(x) = 4\nu(x) = 5"
    assert extract_fields(text)["solution"] == "3"
    assert extract_fields("u(x) = 1\nSolution: u(x) = 2\nu(x)=5")["solution"] == "2"
    assert extract_fields("u(x) = 1\n$u(x) = e^x$.\n")["solution"] == "e^x"
    assert extract_fields("\\[ u(x) = \\frac{1}{2} \\]")["solution"] == "\\frac{1}{2}"
    assert extract_fields("**SOLUTION:** $u(x) = x$")["solution"] == "x"
    assert extract_fields("SOLUTION: y(t) = t", function="y", variable="t") == {"solution": "t"}
    assert "solution" not in extract_fields("SOLUTION: v(x) = t")
    assert "solution" not in extract_fields("we know u(x) = 3 here")


def test_fields_has_solution() -> None:
    assert extract_fields("HAS_SOLUTION: No")["has_solution"] is False
    assert extract_fields("SOLUTION_EXISTS: no")["has_solution"] is False
    assert extract_fields("SOLUTION_EXISTS: yes")["has_solution"] is True
    assert extract_fields("We conclude that no solution exists.")["has_solution"] is False
    assert extract_fields("HAS_SOLUTION: true\nNo solution exists? wrong.")["has_solution"] is True
    assert "has_solution" not in extract_fields("HAS_SOLUTION: maybe")


def test_fields_solution_type_and_reasoning() -> None:
    assert extract_fields("SOLUTION_TYPE: Series")["solution_type"] == "series"
    assert "solution_type" not in extract_fields("SOLUTION_TYPE: guess")
    assert extract_fields("SOLUTION_TYPE: none\nSOLUTION_TYPE: family")["solution_type"] == "family"
    assert extract_fields("REASONING:\n  a\n  b\n") == {"reasoning": "a\n  b"}
    assert extract_fields("nothing here") == {}


def test_fields_errors() -> None:
    with pytest.raises(ValueError):
        extract_fields("x", function="")
    with pytest.raises(TypeError):
        extract_fields(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------------
# safety: depth, size, junk


def test_100k_nested_braces() -> None:
    depth = 100_000
    s = "\\boxed{" + "{" * depth + "7" + "}" * depth + "}"
    e = extract_answer(s)
    assert e is not None and e.method == "boxed" and len(e.text) == 2 * depth + 1
    # unclosed: the box never closes, nothing inside it is a box either; falls through the cascade
    assert text_of("\\boxed{" + "{" * depth + "7") == "7"
    nested_boxes = "\\boxed{" * depth + "1" + "}" * depth
    e = extract_answer(nested_boxes)
    assert e is not None and e.method == "boxed"
    assert e.text == "\\boxed{" * (depth - 9) + "1" + "}" * (depth - 9)  # unwraps 8 levels
    assert extract_answer("\\boxed{" * depth) is None
    assert text_of("{" * depth + "The answer is 3.") == "3"


def test_50_mb_input() -> None:
    chunk = "We compute \\(x_1 + 2\\) and get 3.5, see $\\frac{a}{b}$. " * 8
    body = chunk * (50_000_000 // len(chunk))
    assert len(body) >= 49_000_000
    e = extract_answer(body + "\\boxed{17}")
    assert e is not None and e.text == "17"
    assert text_of(body, "last_number") == "3.5"
    for strategy in ("answer_is", "tagged", "code_output"):
        assert extract_answer(body, strategy=strategy) is None


def test_binary_junk() -> None:
    rng = random.Random(1234)
    for size in (1, 7, 100, 10_000, 200_000):
        data = bytes(rng.getrandbits(8) for _ in range(size))
        as_text = data.decode("utf-8", "surrogateescape")
        for strategy in STRATEGIES:
            for value in (data, as_text):
                e = extract_answer(value, strategy=strategy)  # type: ignore[arg-type]
                if e is not None and e.method != "boxed_multi":
                    assert value[e.start : e.end] == e.text
        assert isinstance(extract_fields(data), dict)
        assert isinstance(extract_fields(as_text), dict)


# ---------------------------------------------------------------------------------------------
# properties

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
        " ",
        "\n",
        ".",
        ". ",
        "answer",
        "Answer is",
        ": ",
        "<answer>",
        "</answer>",
        "####",
        "```",
        "```python\n",
        "```output\n",
        "\n```\n",
        "-",
        "−",
        "1",
        "23",
        "4,567",
        ",",
        "/",
        "e5",
        "\\frac{1}{2}",
        "x",
        "=",
        "</think>",
        "é",
        "😀",
    ]
)
_soup = st.lists(_pieces | st.text(max_size=3), max_size=30).map("".join)


@settings(deadline=None, max_examples=300)
@given(_soup, st.sampled_from(STRATEGIES))
def test_span_matches_text(s: str, strategy: str) -> None:
    e = extract_answer(s, strategy=strategy)  # type: ignore[arg-type]
    if e is None:
        return
    assert 0 <= e.start <= e.end <= len(s)
    if e.method == "boxed_multi":
        assert str(e.text).count(", ") >= 1
    else:
        assert s[e.start : e.end] == e.text
    assert extract_many([s], strategy=strategy, threads=1) == [e]  # type: ignore[arg-type]


_balanced_no_box = st.recursive(
    st.text(alphabet=st.characters(blacklist_characters="{}\\"), max_size=5),
    lambda inner: st.lists(inner, max_size=3).map(lambda xs: "{" + "".join(xs) + "}"),
    max_leaves=10,
)


@settings(deadline=None, max_examples=300)
@given(st.lists(_balanced_no_box, max_size=4).map("".join))
def test_boxed_round_trip(s: str) -> None:
    e = extract_answer("\\boxed{" + s + "}", strategy="boxed")
    assert e is not None and e.text == s.strip(" \t\n\r\f\v")


def test_docstring_examples() -> None:
    import doctest

    import rapidgrade
    from rapidgrade import extract, normalize

    for module in (extract, normalize):
        finder = doctest.DocTestFinder(exclude_empty=True)
        runner = doctest.DocTestRunner()
        tests = finder.find(module, globs=vars(rapidgrade).copy())
        for test in tests:
            runner.run(test)
        assert sum(len(t.examples) for t in tests) > 5
        assert runner.failures == 0, module.__name__
