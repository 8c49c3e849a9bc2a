r"""Remarks in parentheses that close a solution are not its final statement.

Textbook and contest solutions often end with a check or an aside in parentheses, after the
conclusion: "Therefore, $x = 7$.\n\n(We can check that $x = 0, 1, \ldots, 6$ do not work.)",
"... the maximum possible value is 13 (which occurs when $x=5$ and $y=10$)." The readers of an
unmarked answer (final_span, last_number and the final sentence's numbers) read the text before
such remarks (``extract.final_statement_end``, at most two of them): a ``(`` after a blank, a line
break or a sentence's end (not a function's ``f(x)``), opening with a word of two letters or more
before a blank or a comma (not a part label ``(iii)``, not a choice ``(B)``) or holding a
computation of the result ("15 balls (3 boxes × 5 balls)", "8 (20 - 12)"; an answer phrase ends
before one too), closed by the text's last ``)`` (a ``.`` may follow). They also read it before
a closing section that checks or illustrates the answer (a line that opens with "Verification",
"Checking:", "We check", "For example", ...; an example only as the last paragraph, and neither
when a later paragraph opens with "Therefore", "So", ...), and before a clause that closes the final sentence with a
reason for the value stated right before it or an example of it ("so $x=3$ since $x>0$.", "$S$
attains value 8, e.g., when $a=1$."). Marked answers are found in the whole text as before. The
rules are stated again in the reference extractor (tests/oracles/reference_extract.py).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rapidgrade
from rapidgrade import extract_answer, grade
from rapidgrade.extract import STRATEGIES
from tests.oracles import reference_extract as ref


def _assert_parity(text: str) -> None:
    """Every strategy reads `text` as the reference extractor does."""
    for strategy in STRATEGIES:
        theirs = ref.extract_answer(text, strategy)
        ours = rapidgrade.extract_answer(text, strategy=strategy)  # type: ignore[arg-type]
        assert (None if ours is None else tuple(ours)) == (None if theirs is None else tuple(theirs)), strategy


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("13", "Therefore, the maximum is $13$.\n\n(We can check that $x=5$ and $y=10$ work.)"),
        (
            "-2,-1,1,2",
            "then $k$ can equal $-2,-1,1,2$.\n\n(If $k \\geq 3$ or $k \\leq-3$, we get $k^{2} \\geq 9$.)",
        ),
        (
            "7,14,18",
            "Therefore, Rayna is 7 years old, Qing is 14 years old, and Paolo is 18 years old.\n\n"
            "(Checking, the average of 7,14 and 18 is $\\frac{7+14+18}{3}=\\frac{39}{3}=13$.)",
        ),
        (
            r"[\frac{1}{2}, 8]",
            r"which holds exactly when $\frac{1}{2} \leq x \leq 8$. (It seems surprising that we get $2$ ends.)",
        ),
        ("13", "so the maximum possible value is $13$ (which occurs when $x=5$ and $y=10$ )."),
        ("4", "Thurka buys $4$ helicopters.\n\n(Note that $x = 7$.)\n\n(We check $y = 1$ too.)"),
        # a computation that shows how the result was found
        ("15", "In total, there are 15 balls (3 boxes × 5 balls)."),
        ("15", "So the total is 15 (3 x 5)."),
        ("45", "Total cost = $45 (3 × $15)."),
        ("8", "So she has 8 apples left (20 - 12)."),
        ("8", r"So she has 8 apples left (20 \times 2 / 5)."),
        # ... after an answer phrase too
        ("8", "Therefore, the answer is 8 (20 - 12)."),
    ],
)
def test_the_answer_before_closing_remarks(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct, v


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The value is $5$ (a $6$)", "6"),  # a one-letter word: a label, not a remark
        ("The value is $5$ (iii) $6$", "6"),  # a part label
        ("We get $x = 5$ and so g(we $6$)", "6"),  # a function's parentheses
        ("(We can check that $x = 5$.)", "x = 5"),  # the whole text is no remark
        # no computation: a pair, names, a product without a blank before it, no operator
        ("So the point is (1, 2).", "(1, 2)"),
        ("The factored form is 2 (x + 1).", "1"),
        ("We get 12(3 + 4).", "4"),
        ("So the count is 12 (3 boxes).", "3"),
    ],
)
def test_what_is_no_closing_remark(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert found.text == answer, found


_remarks = st.sampled_from(
    [
        "(We can check that $x = {n}$ does not work.)",
        "(Checking, the sum is ${n}$.)",
        "(Note that {n} is not prime.)",
        "(which occurs when $y = {n}$)",
        "(If $k > {n}$, nothing changes.)",
    ]
)


@settings(deadline=None, max_examples=200)
@given(
    answer=st.integers(-999, 999),
    others=st.lists(st.integers(1000, 9999), min_size=1, max_size=2),
    remarks=st.lists(_remarks, min_size=1, max_size=2),
    breaks=st.lists(st.sampled_from(["\n\n", "\n", " "]), min_size=2, max_size=2),
)
def test_any_closing_remarks_leave_the_answer(
    answer: int, others: list[int], remarks: list[str], breaks: list[str]
) -> None:
    text = f"So the result is ${answer}$."
    for k, remark in enumerate(remarks):
        text += breaks[k] + remark.format(n=others[k % len(others)])
    assert grade(str(answer), text, fallback=False).correct, text
    _assert_parity(text)


_pieces = st.sampled_from(
    [
        *("(", ")", "(We ", "(Note, ", "(iii)", "(a) ", "$x = 1$", "$", "5", " ", "\n\n", "\n", ".", "f(x)"),
        *("word ", "(3 ", "x", " x ", "-", "×", r"\times", "=", "$15", "ab"),
    ]
)


@settings(deadline=None, max_examples=500)
@given(st.lists(_pieces, max_size=16).map("".join))
def test_remark_pieces_parity(text: str) -> None:
    _assert_parity(text)


@settings(deadline=None, max_examples=200)
@given(
    answer=st.integers(1, 9999),
    terms=st.lists(st.integers(1, 999), min_size=2, max_size=3),
    ops=st.lists(st.sampled_from([" × ", " x ", " - ", " + ", r" \times ", " * ", " / "]), min_size=2, max_size=2),
    nouns=st.booleans(),
    lead=st.sampled_from(["So she has {a} apples left", "In total, {a} balls were used", "The total is ${a}"]),
)
def test_a_closing_computation_leaves_the_answer(
    answer: int, terms: list[int], ops: list[str], nouns: bool, lead: str
) -> None:
    # "So she has 8 apples left (20 - 12).": the last number is the answer's, not the remark's
    parts = [f"{t} boxes" if nouns else str(t) for t in terms]
    remark = parts[0] + "".join(op + part for op, part in zip(ops, parts[1:]))
    text = lead.format(a=answer) + f" ({remark})."
    assert grade(str(answer), text, fallback=False).correct, text
    _assert_parity(text)


# A closing section that checks or illustrates the answer (markers.hpp's kAsideOpeners): a line
# that opens with "Verification", "Checking:", "We check ...", "For example, ..."; the readers of
# an unmarked answer read the text before it. An example counts only as the last paragraph, and
# neither counts when a later paragraph opens with a conclusion lead ("Therefore, ...").


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (
            "10,11,12,13,14,-2,-1,0,1,2",
            "So $n=10$ or $n=-2$.\n\nTherefore, the sequences are 10, 11, 12, 13, 14 and $-2,-1,0,1,2$.\n\n"
            "Verification \n\n$(-2)^{2}+(-1)^{2}+0^{2}=1^{2}+2^{2}=5$ and $10^{2}+11^{2}+12^{2}=13^{2}+14^{2}=365$",
        ),
        (
            "20",
            "Since 2000 has 20 positive divisors, then there are 20 values of $k$ for which the system has a "
            "solution.\n\nFor example, if $k+1=8$, then $k=7$. This gives the solution $(c, d)=(1750,250)$.",
        ),
        ("5", "Thus $x = 5$.\n\nChecking:\n\n- When $x=5$, we obtain $y=3$.\n- So $2 \\cdot 5 = 10$."),
        ("5", "Thus $x = 5$.\n\n**We can check** that $2 \\cdot 5 + 1 = 11$."),
    ],
)
def test_the_answer_before_a_closing_check_or_example(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct, v


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # an example with a paragraph after it, a check followed by a conclusion
        ("Let $a=3$.\n\nFor example, we may take $a=197$.\n\nSince $n$ is odd, we take $n=309$.", "n=309"),
        ("Let $a=3$.\n\nChecking the cases $n \\le 5$ we find $L = 7$.\n\nSo, the solutions are $x = 9$.", "x = 9"),
        # a word that only starts with an opener, or an opener inside a line
        ("We get $x = 5$.\n\nCheckerboards have $64$ cells.", "64"),
        ("We get $x = 5$. For example $x = 6$.", "x = 6"),
        # nothing before the check
        ("Verification: $x = 5$.", "x = 5"),
    ],
)
def test_what_is_no_closing_aside(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert found.text == answer, found
    assert ref.extract_answer(text) == tuple(found)


@settings(deadline=None, max_examples=200)
@given(
    answer=st.integers(-999, 999),
    other=st.integers(1000, 9999),
    opener=st.sampled_from(["Verification", "Check:", "Checking:", "We check that", "For example, take", "**Verify**"]),
    lead=st.sampled_from(["So the result is ", "Therefore, $x = ", "Thus "]),
)
def test_any_closing_check_leaves_the_answer(answer: int, other: int, opener: str, lead: str) -> None:
    close = "$." if lead.endswith("= ") else "."
    text = f"{lead}{answer}{close}\n\n{opener} $y = {other}$ and $2 \\cdot {other} = {2 * other}$."
    assert grade(str(answer), text, fallback=False).correct, text
    _assert_parity(text)


# A check that conclusions follow ("We check ...\n\nIf $x=5$, then ...\n\nThus, ... $=16$."): its
# paragraphs may conclude the check or the solution, so the final reading stays the one after it,
# and the reading of the text before the check is another reading (extract.other_readings): a
# gold that matches it makes a FALSE UNKNOWN, not certain.
OTHER = "undecided: the unmarked answer differs, but another reading of the final statement matches"


def _checked(answer: str, value: int, lead: str, opener: str) -> str:
    return (
        f"Squaring both sides gives a quadratic.\n\nTherefore, {answer}.\n\n"
        f"{opener} these answers in the original equation.\n\n"
        f"If $x=2$, then $(x+2)^{{2}}=16$.\n\n{lead} $(x+2)^{{2}}={value}$."
    )


@pytest.mark.parametrize(
    ("gold", "answer"),
    [("5, 7", "$x=5$ or $x=7$"), ("10^{100}, 10^{1/100}", "$x=10^{100}$ or $x=10^{1 / 100}$"), ("12", "$n = 12$")],
)
def test_the_answer_before_a_concluded_check_is_another_reading(gold: str, answer: str) -> None:
    text = _checked(answer, 16, "Thus,", "We check")
    v = grade(gold, text, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", OTHER), v
    # the final reading is still the last paragraph's, and a gold of neither is a certain FALSE
    assert grade("16", text, fallback=False).correct
    assert grade("3", text, fallback=False).reason == "not equivalent"


@settings(deadline=None, max_examples=200)
@given(
    answer=st.integers(-999, 999),
    value=st.integers(1000, 9999),
    lead=st.sampled_from(["Thus,", "So", "Therefore,", "Hence"]),
    opener=st.sampled_from(["We check", "Check", "Let's check", "We verify", "Verify"]),
)
def test_any_concluded_check_keeps_the_answer_before_it(answer: int, value: int, lead: str, opener: str) -> None:
    text = _checked(f"$x = {answer}$", value, lead, opener)
    v = grade(str(answer), text, fallback=False)
    assert (v.correct, v.reason) == (False, OTHER), text
    assert grade(str(value), text, fallback=False).correct, text
    # an example is no check: what it illustrates is not read back
    example = text.replace(f"{opener} these answers", "For example, take these answers")
    assert grade(str(answer), example, fallback=False).reason == "not equivalent", example


# A clause that closes the final sentence with a reason for the value stated right before it, or an
# example of it (markers.hpp's kReasonClauses: since, because, given that, for example, for
# instance, e.g.): the readers of an unmarked answer read the math before it. Only right after
# math or a number, outside math, and only when the clause closes the sentence: no ',' or ';' and
# no conclusion lead after it ("because ..., therefore $b = 5$" concludes after the reason).


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (r"\frac{3}{4}", r"so $\sin x=\frac{3}{4}$ since $\sin x>0$ because $0^{\circ}<x<90^{\circ}$."),
        ("3", "So x = 3 since x > 0."),
        ("3", "So $x = 3$, because $x > 0$."),
        ("-4", "Solving for $k$, we get $k = - 4$ since $2 = - 0.5 k$."),
        ("8", r"Hence, $S$ attains value 8 , e.g., when $a=c=1$ and $b=d=2+\sqrt{3}$."),
        ("12", "The total is 12 given that each box holds 4 and there are 3 boxes."),
        ("25", "The share is 25% for example when 1 of 4 cards is drawn."),
        ("5", "Thus \\(x = 5\\) for instance \\(y = 7\\)."),
    ],
)
def test_the_answer_before_a_closing_reason(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct, v
    _assert_parity(response)


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # no math right before the phrase: a preposition, or a reason that opens the sentence
        ("In 2010, the number of years since 2003 is 7.", "7"),
        ("Since $x > 0$, we get $x = 3$.", "x = 3"),
        ("We get the value since $y = 4$.", "y = 4"),
        # the reason opens the clause that concludes
        ("$a = 5$, because $ab = -1$, therefore $b = -\\frac{1}{5}$.", "b = -\\frac{1}{5}"),
        ("We have $x=2$ given that $y=1$; so $z = 6$.", "z = 6"),
        ("We get $k=1$ since $m=2$ thus $n = 9$.", "n = 9"),
        # a word that only starts with a phrase
        ("We get $x = 3$ sincerely $y = 4$.", "y = 4"),
        # a phrase in an earlier sentence
        ("So $x = 3$ since $x > 0$. Then $y = 8$.", "y = 8"),
    ],
)
def test_what_is_no_closing_reason(text: str, answer: str) -> None:
    found = extract_answer(text)
    assert found is not None
    assert found.text == answer, found
    assert ref.extract_answer(text) == tuple(found)


@settings(deadline=None, max_examples=300)
@given(
    answer=st.integers(-999, 999),
    other=st.integers(1000, 9999),
    lead=st.sampled_from(["So the result is ", "Therefore, $x = ", "Thus x = ", "We get \\(y = "]),
    phrase=st.sampled_from(["since", "because", "given that", "for example", "for instance", "e.g.,", "Since"]),
    comma=st.sampled_from(["", ",", " ,"]),
    reason=st.sampled_from(["$z = {n}$", "{n} > 0", "the sum is {n}", "$2 \\cdot {n}$ is even and $t={n}$"]),
)
def test_any_closing_reason_leaves_the_answer(
    answer: int, other: int, lead: str, phrase: str, comma: str, reason: str
) -> None:
    close = "$" if lead.endswith("= ") and "$" in lead else "\\)" if "\\(" in lead else ""
    text = f"{lead}{answer}{close}{comma} {phrase} {reason.format(n=other)}."
    v = grade(str(answer), text, fallback=False)
    assert v.correct, (text, v)
    _assert_parity(text)


def test_many_reasons_in_one_sentence_are_read_in_one_pass() -> None:
    # every "since" follows math and a ',' closes the sentence: none closes it. Each phrase
    # checking the rest of the sentence again would take hours here; the rule takes two passes.
    text = "$x=1$ since " * 40_000 + ", so $z=2$."
    found = extract_answer(text)
    assert found is not None and found.text == "z=2", found
    assert ref.extract_answer(text) == tuple(found)
