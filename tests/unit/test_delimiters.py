"""One rule for the wrappers around an answer (math delimiters, \\boxed): the gold answer in
grading and the value after "the answer is" in extraction are unwrapped by the same function
(detail::unwrap in cpp/include/rapidgrade/detail/delimiters.hpp)."""

from __future__ import annotations

import pytest

from rapidgrade import extract_answer, grade


def gold_after_grading(gold: str) -> str:
    """The normalized gold that grade() reports (unwrap, then normalize)."""
    v = grade(gold, r"\boxed{0}")
    assert isinstance(v.gold, str)
    return v.gold


# Regressions: grading used to strip \( \) and \[ \] without checking that they enclose the whole
# gold, and read "$5\$" as math delimiters around "5\".
@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        (r"\(a\) and \(b\)", r"\(a\) and \(b\)"),  # was "a\)and\(b"
        (r"\[a\]+\[b\]", r"\[a\]+\[b\]"),  # was "a\]+\[b"
        (r"$5\$", "5"),  # was "5\"
    ],
)
def test_gold_wrappers_must_enclose_the_whole_gold(gold: str, expected: str) -> None:
    assert gold_after_grading(gold) == expected


@pytest.mark.parametrize(
    ("gold", "expected"),
    [
        (r"$x^2$", "x^2"),
        (r"$$x^2$$", "x^2"),
        (r"\( x \)", "x"),
        (r"\[\frac12\]", r"\frac{1}{2}"),
        (r"$\boxed{\(\frac12\)}$", r"\frac{1}{2}"),
        (r"\boxed 5", "5"),
        (r"\fbox{$x$}", "x"),
        (r"$\$5$", "5"),
        ("$$", ""),
    ],
)
def test_gold_wrappers_peeled(gold: str, expected: str) -> None:
    assert gold_after_grading(gold) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("$x^2$", "x^2"),
        ("$$x^2$$", "x^2"),
        (r"\( x \)", "x"),
        (r"\[x\]", "x"),
        (r"$\$5$", r"\$5"),
        (r"**$7$**", "7"),
        # The same cases that grading keeps whole, for the same reason.
        (r"\(a\) and \(b\)", r"\(a\) and \(b\)"),
        (r"$5\$", r"$5\$"),
        # Extraction peels one layer of delimiters (the reference extractor's spans).
        (r"$\(x\)$", r"\(x\)"),
    ],
)
def test_answer_is_value_unwrapped_by_the_same_rule(value: str, expected: str) -> None:
    e = extract_answer("So the answer is " + value + "\n", strategy="answer_is")
    assert e is not None
    assert e.text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r"\boxed{\boxed{2}}", "2"),
        (r"\boxed{ \boxed 7 }", "7"),
        (r"\boxed{\fbox{x}}", "x"),
        (r"\boxed{\boxed{1} \boxed{2}}", r"\boxed{1} \boxed{2}"),
        (r"\boxed{" * 10 + "3" + "}" * 10, r"\boxed{3}"),  # the box found, then at most 8 layers
    ],
)
def test_nested_boxes_unwrapped(text: str, expected: str) -> None:
    e = extract_answer(text, strategy="boxed")
    assert e is not None
    assert e.text == expected
