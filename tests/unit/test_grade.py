"""Native grading: grade / grade_many, the fast path, the fallback, bad input, threads."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from rapidgrade import GradeResults, Tri, Verdict, equivalent, grade, grade_many
from rapidgrade.fallback import run_cascade
from tests.datasets import load_data, load_demo_corpus

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(
    "gold,response,expected",
    [
        (r"\frac{1}{2}", r"Thus the probability is $\boxed{0.5}$.", True),
        ("42", r"so \boxed{42}", True),
        ("$x^2$", r"\boxed{x \cdot x}", True),
        ("[0, 1)", r"the set is $\boxed{[0,1)}$", True),
        ("[0, 1)", r"the set is $\boxed{[0,1]}$", False),
        (r"\frac{1}{2^{99}}", r"so $\boxed{\frac{1}{2^{98}}}$", False),
        (r"1 - \frac{1}{\mathrm{e}}", r"$\boxed{1 + \frac{1}{\mathrm{e}}}$", False),
        (r"\mathrm{e}", r"$\boxed{e}$", True),
        ("2", r"We get $\boxed{2\sqrt{3}}$.", False),
        ("-2", r"Final answer: $\boxed{-2*pi}$", False),
        ("B", r"Answer: $\boxed{\text{(C)}}$", False),
        (r"12\frac{3}{5}", r"\boxed{12\frac{3}{5}}", True),
        (r"12\frac{3}{5}", r"\boxed{12.6}", True),
        ("25\\%", r"\boxed{25}", True),
        (r"100\text{ square units}", r"\boxed{100}", True),
        ("x = 5", r"\boxed{5}", True),
        ("y = 2x + 1", r"\boxed{2x - y + 1 = 0}", True),
    ],
)
def test_fast_path_verdicts(gold: str, response: str, expected: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is expected, v
    assert v.decided_by == "fast"


def test_verdict_fields() -> None:
    v = grade(r"\dfrac{1}{2}", r"Thus $\boxed{0.5}$.")
    assert isinstance(v, Verdict)
    assert (v.correct, v.decided_by, v.gold, v.extracted, v.method) == (True, "fast", r"\frac{1}{2}", "0.5", "boxed")
    assert v.reason == "equivalent"
    none = grade("3", "I do not know how to solve this problem.")
    assert (none.correct, none.decided_by, none.extracted, none.method) == (False, "fast", None, None)
    assert none.reason == "no answer found in the response"


def test_last_number_switch() -> None:
    response = "After simplifying we get 7 apples"
    assert grade("7", response).correct
    strict = grade("7", response, last_number=False)
    assert not strict.correct and strict.method == "last_number" and "last_number=False" in strict.reason
    assert grade("7", r"\boxed{7}", last_number=False).correct


def test_deliberate_differences_from_math_verify() -> None:
    """Every case where grade() differs from math-verify on purpose, with the reason."""
    from math_verify import parse, verify

    rows = load_data("deliberate_differences.jsonl")
    assert len(rows) >= 10
    for row in rows:
        assert row["reason"]
        assert grade(row["gold"], row["response"]).correct is row["grade"], row
        # the difference is real: math-verify, called as users call it, says otherwise
        assert verify(parse(row["gold"]), parse(row["response"])) is row["math_verify"], row
        assert row["grade"] is not row["math_verify"]


def test_bad_input_never_loses_the_batch() -> None:
    results = grade_many(
        ["1", 2, None, "3", "4"], [r"\boxed{1}", r"\boxed{2}", r"\boxed{3}", 7, r"\boxed{4}"], fallback=False
    )
    assert len(results) == 5
    assert results.correct.tolist() == [True, True, False, False, True]
    assert [v.decided_by for v in results] == ["fast", "fast", "error", "error", "fast"]
    assert results[2].reason == "gold must be a str, not NoneType"
    assert results[3].reason == "response must be a str, not int"
    with pytest.raises(ValueError, match="2 golds but 1 responses"):
        grade_many(["1", "2"], ["1"])
    with pytest.raises(TypeError, match="sequences"):
        grade_many("1", "1")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="grade_many: golds must be a sequence of str, not NoneType"):
        grade_many(None, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="grade_many: responses must be a sequence of str, not int"):
        grade_many(["1"], 1)  # type: ignore[arg-type]
    assert len(grade_many([], [])) == 0


def test_junk_never_crashes() -> None:
    junk = ["\\boxed{" * 50_000, "}" * 1000 + "\\frac", "\x00\xff\ud800", "$" * 10_000, "\\boxed{" + "(" * 5000 + "}"]
    results = grade_many(["1"] * len(junk), junk, fallback=False)
    assert len(results) == len(junk)
    assert not results.correct.any()


def test_undecided_pairs_go_to_the_fallback() -> None:
    # 100! is past the core's exact integer range, and \int is outside its language
    for gold, response in [("100!", r"\boxed{100! + 0}"), (r"\frac{1}{2}", r"\boxed{\int_0^1 x dx}")]:
        fast = grade(gold, response, fallback=False)
        assert (fast.correct, fast.decided_by, fast.reason) == (False, "fast", "undecided by the fast path")
        # a generous time limit: the first parse in a fresh worker is slow on a loaded machine
        v = grade(gold, response, timeout=120)
        assert (v.correct, v.decided_by) == (True, "math_verify"), v
    wrong = grade("100!", r"\boxed{100! + 1}", timeout=120)
    assert not wrong.correct and wrong.decided_by in ("math_verify", "sympy")
    # no limit: None (or math.inf) lets the fallback take the time it needs
    for unlimited in (None, math.inf):
        v = grade(gold, response, timeout=unlimited)
        assert (v.correct, v.decided_by) == (True, "math_verify"), v
    # a fallback that runs out of time is a timeout verdict, counted wrong
    late = grade("100!", r"\boxed{100! + 0}", timeout=1e-6)
    assert (late.correct, late.decided_by) == (False, "timeout")
    assert "no decision within" in late.reason


@pytest.mark.parametrize(
    ("gold", "response", "correct", "reason"),
    [
        ("C", "the area is $20 + 24 = \\boxed{44}$ square units.\n\nTherefore, the answer is (C).", True, "same"),
        ("E", "$$\\boxed{x = 18}$$\n\nThe distance is 18 km.\n\nThe final answer is (E).", True, "same"),
        ("D", "the area is \\boxed{44}.\n\nTherefore, the answer is (C).", False, "different"),
        ("B", "So \\boxed{12}.\nThe correct option is B.", True, "same"),
        # a choice named before the box, or no choice after it: the box is the answer
        ("C", "The answer is (C). So \\boxed{44}.", False, "undecided: a multiple-choice letter"),
        ("C", "\\boxed{44}\n\nThe answer is correct.", False, "undecided: a multiple-choice letter"),
    ],
)
def test_a_choice_named_after_a_boxed_value_answers_a_choice_gold(
    gold: str, response: str, correct: bool, reason: str
) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by) == (correct, "fast"), v
    assert v.reason.startswith(reason), v
    if not v.reason.startswith("undecided"):
        assert v.method in ("answer_is", "choice") and v.extracted.strip("()") in "ABCDE", v
    # a value gold is not changed by a letter after the box
    assert grade("44", response, fallback=False).method == "boxed"
    # nor is a boxed letter against a value gold
    letter = grade("21", "So \\boxed{B}.\nThe answer is (C).", fallback=False)
    assert (letter.extracted, letter.method) == ("B", "boxed"), letter


@pytest.mark.parametrize(
    ("gold", "response", "correct", "reason"),
    [
        # a choice letter at the start of the option it names
        ("E", r"\boxed{\text{(E) Equilateral Triangle}}", True, "same multiple-choice letter"),
        ("B", r"\boxed{\text{(E) fifth}}", False, "different multiple-choice letter"),
        # an answer that names no choice may be the text of the gold's option: only the options
        # could tell, so it stays undecided and the fallback is not asked
        ("C", r"\boxed{\frac{7}{15}}", False, "undecided: a multiple-choice letter"),
        ("E", r"\boxed{\text{None of the above}}", False, "undecided: a multiple-choice letter"),
        ("B", r"\boxed{\text{(A) and (B)}}", False, "undecided: a multiple-choice letter"),
        ("21", "The answer is (D).", False, "undecided: a multiple-choice letter"),
    ],
)
def test_a_choice_letter_is_matched_only_to_a_named_choice(
    gold: str, response: str, correct: bool, reason: str
) -> None:
    v = grade(gold, response)  # the fallback is on, but not asked
    assert (v.correct, v.decided_by) == (correct, "fast"), v
    assert v.reason.startswith(reason), v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("0", "There is not enough data for the value of f(0)."),  # widened to the function's value
        ("-2", r"\boxed{f(0)}"),
        ("2", r"\boxed{g(1) + 1}"),
        ("16", r"\boxed{\text{the answer is (E)}}"),
        (r"\{1, 2\}", r"\boxed{\{f(0), 1\}}"),
        # a lone name, marked, its value stated elsewhere; a final span that names the variable
        ("100", r"(the problem being the special case $n=100$, then the answer is $n$ )."),
        (r"-\frac{3}{2}", r"Then $f(x)=-\frac{1}{2}$ is constant for all $x$."),
        ("5", r"\boxed{x}"),
        ("-63", r"We want $S_{6}$."),
        (r"2 \sqrt{3}", r"\boxed{\alpha}"),
        # a lone name against the gold's statement of its value: named, its value said in words
        ("f(n)=n", r"It follows that $f$ is the identity function."),
        ("f(x)=1/x", r"\boxed{f}"),
        ("x = 5", r"So we solve for $x$."),
    ],
)
def test_a_constant_with_no_value_against_a_number_stays_undecided(gold: str, response: str) -> None:
    # an undefined function's value, words or a lone name have no value: no magnitude limit (they
    # are not large), no FALSE (f(0) may be 0; the response may give n elsewhere), and no fallback
    # (no algebra makes f(0) or n a number)
    v = grade(gold, response)
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("undecided: one answer is a constant with no value"), v


@pytest.mark.parametrize(
    ("gold", "response", "correct", "reason"),
    [
        # a name against a gold with names, a constant, an expression: compared as before
        ("2 n", r"\boxed{n}", False, "not equivalent"),
        ("n", r"\boxed{n}", True, "same answer after normalization"),
        ("3", r"\boxed{\pi}", False, "not equivalent"),
        ("3", r"\boxed{2 n}", False, "not equivalent"),
        ("3", r"\boxed{x = 4}", False, "not equivalent"),
        # a name that is not the one the gold's relation gives a value
        ("f(n)=n", r"\boxed{g}", False, "not equivalent"),
        ("x = 5", r"\boxed{y}", False, "not equivalent"),
    ],
)
def test_only_a_lone_name_against_a_value_is_undecided(gold: str, response: str, correct: bool, reason: str) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.reason) == (correct, reason), v


@given(
    name=st.sampled_from(["n", "x", "k", "a_1", "S_{6}", r"\alpha", r"\theta", "N"]),
    value=st.integers(-(10**6), 10**6),
    wrap=st.sampled_from([r"\boxed{{{}}}", "The answer is ${}$.", "So we want ${}$."]),
)
def test_a_lone_name_against_any_number_is_never_a_certain_false(name: str, value: int, wrap: str) -> None:
    # (a final span of a command name alone holds no answer: "So we want $\\alpha$." reads none)
    assume(not (wrap.startswith("So") and name.startswith("\\")))
    v = grade(str(value), wrap.format(name), fallback=False)
    assert v.correct is False and v.reason.startswith("undecided: one answer is a constant with no value"), v


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (r"-\frac{3}{2}", "f(x)"),  # an olympiad solution's last math against its value
        (r"f(x) = \frac{1}{x}", r"q = \frac{a b}{2}"),
        ("f(x) = 2 x", "N = n"),
        (r"p(x) = \frac{(x-1)(x-2)}{6}", r"x = \frac{\pi}{6} + 2 \pi k, \frac{5 \pi}{6} + 2 \pi k"),
        ("x + 1", "f(0)"),
        ("f(x)", "g(x)"),
        ("f(x) = x + 1", "y = x + 1"),
    ],
)
def test_a_function_with_no_definition_on_one_side_only_stays_undecided(gold: str, answer: str) -> None:
    # applied once, named nowhere on the other side: only the problem's definition of the
    # function could make the answers equal, and neither reader of the fallback proves them so
    v = grade(gold, rf"\boxed{{{answer}}}")
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("undecided: one answer is a constant with no value"), v
    assert run_cascade(gold, answer)[0] is False  # the fallback's own verdict


_UNDEFINED = st.sampled_from(["f", "g", "h", "p", "q", "F", "P", "Q", "E", "T"])
_TERM = st.sampled_from(["x", "n", "2", "k + 1", "2 a", r"\frac{1}{3}", "y^{2}"])


@settings(max_examples=60, deadline=None)
@given(name=_UNDEFINED, arg=_TERM, other=st.lists(_TERM, min_size=1, max_size=3), as_equation=st.booleans())
def test_an_undefined_function_named_on_one_side_only_is_never_sent_on(
    name: str, arg: str, other: list[str], as_equation: bool
) -> None:
    answer = f"{name}({arg}) = {' + '.join(other)}" if as_equation else f"{name}({arg})"
    gold = " - ".join(other)
    v = grade(gold, rf"\boxed{{{answer}}}")
    assert v.decided_by == "fast", (gold, answer, v)
    # disproved where the symbols alone tell ("f(k + 1)" against "x"), else kept with a reason
    assert v.reason != "undecided by the fast path", (gold, answer, v)
    # the same name as a symbol on the other side: perhaps a product, left to the fallback
    w = grade(f"{name} {gold}", rf"\boxed{{{answer}}}", fallback=False)
    assert not w.reason.startswith("undecided: one answer is a constant with no value"), (gold, answer, w)


def test_no_value_is_only_claimed_where_no_algebra_can_prove_the_pair() -> None:
    assert grade("f(0)", r"\boxed{f(0)}", fallback=False).correct is True
    assert grade("f(x) = x + 1", r"\boxed{f(x) = 1 + x}", fallback=False).correct is True
    # two applications may cancel; a name the other side holds as a symbol may be a product
    # and a condition on an application names what it bounds (math-verify: "0<f(x)<1" is (0, 1))
    for gold, answer in [("x + 1", "f(0) - f(0) + x + 1"), ("2 x", "x(2)"), ("d f", "f(d)"), ("(0,1)", "0<f(x)<1")]:
        v = grade(gold, rf"\boxed{{{answer}}}", fallback=False)
        assert v.reason == "undecided by the fast path", (gold, answer, v)
    assert grade("x + 1", r"\boxed{f(0) - f(0) + x + 1}").correct is True
    big = grade("10^{10^{10}}", r"\boxed{10^{10^{10}} + 1}", fallback=False)
    assert big.decided_by == "limit" and big.reason.startswith("limit: a value too large"), big


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("10", r"\boxed{2x = 2\cdot \frac{1}{2}x = x}"),  # a chain whose last member is not 10
        ("130.4", r"\boxed{\frac{1}{4}t - \frac{24.5}{100}t = 3t - \frac{1}{2}}"),
        ("5", r"\boxed{2x = y}"),
        ("12", r"\boxed{x = 12 = 2a}"),  # the middle member may be the answer
    ],
)
def test_an_equation_whose_last_member_differs_stays_with_the_fast_path(gold: str, response: str) -> None:
    # math-verify reads an equation against a value as its last right side, which the core has
    # disproved; a member before it may be the answer, so the verdict is not a certain FALSE
    v = grade(gold, response)
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("undecided: the last member of the answer's equation differs"), v


def test_an_equation_the_fallback_may_still_read_goes_there() -> None:
    # "\approx" (read as "=" by the core) ends math-verify's equation: its member is not the last.
    # 1.3 is no rounding of 1/3, so the core does not take 1/3 for the answer: the fallback does
    v = grade("1/3", r"x = 1/3 \approx 1.3", fallback=False)
    assert v.reason == "undecided by the fast path", v
    assert grade("1/3", r"x = 1/3 \approx 1.3").correct is True
    # a rounding of the member before it: both are the answer, on the fast path
    v = grade("1/3", r"x = 1/3 \approx 0.33", fallback=False)
    assert (v.correct, v.decided_by, v.extracted) == (True, "fast", r"x = 1/3 \approx 0.33"), v
    assert grade("42", "The answer is 42 ≈ 0.", fallback=False).correct is False  # no rounding of 42
    # the last member equal to the value is TRUE; an element of a list is no whole answer
    assert grade("12", r"\boxed{x = 2a = 12}", fallback=False).correct is True
    assert not grade(r"\{1, 2\}", r"\boxed{\{2x = y, 1\}}", fallback=False).reason.startswith("undecided: the last")


@pytest.mark.parametrize("answer", ["?", "-", "?!", "*"])
def test_an_answer_with_no_math_is_not_a_number(answer: str) -> None:
    v = grade("23", rf"\boxed{{{answer}}}", fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", "not equivalent"), v
    assert grade(answer, rf"\boxed{{{answer}}}", fallback=False).correct is True
    # brackets and commands are math: the empty set is not "no math"
    assert grade(r"\emptyset", r"\boxed{\{\}}", fallback=False).reason != "not equivalent"


@pytest.mark.parametrize(
    ("gold", "answer", "expected"),
    [
        # every spelling of the empty set is one set
        (r"\emptyset", r"\varnothing", Tri.TRUE),
        (r"\emptyset", r"\{\}", Tri.TRUE),
        (r"\varnothing", r"\{ \}", Tri.TRUE),
        (r"(1,2)\cup\emptyset", "(1,2)", Tri.TRUE),
        (r"\{\emptyset, \{1\}\}", r"\{\{1\}, \varnothing\}", Tri.TRUE),
        # a set with elements and a number are not it
        (r"\emptyset", r"\{1\}", Tri.FALSE),
        (r"\{\emptyset\}", r"\emptyset", Tri.FALSE),
        (r"\emptyset", "0", Tri.FALSE),
        (r"\emptyset", "(0,1)", Tri.FALSE),
        # a condition may have no solution, words may name it: no certain verdict
        (r"\emptyset", "x=1", Tri.UNKNOWN),
        (r"\emptyset", "x", Tri.UNKNOWN),
        (r"\emptyset", "no solution", Tri.UNKNOWN),
    ],
)
def test_the_empty_set(gold: str, answer: str, expected: Tri) -> None:
    assert equivalent(gold, answer) is expected
    assert equivalent(answer, gold) is expected


def test_the_empty_set_in_a_response() -> None:
    assert grade(r"\emptyset", r"The solution set is $\boxed{\varnothing}$.", fallback=False).correct is True
    assert grade(r"\emptyset", "The answer is \u2205.", fallback=False).correct is True
    assert grade(r"\{2\}", r"$\boxed{\emptyset}$", fallback=False).reason == "not equivalent"


def test_words_against_a_list_of_numbers_are_different_answers() -> None:
    assert equivalent(r"\{1, 2\}", "no solution") is Tri.FALSE
    assert equivalent("(3, 4)", "I do not know") is Tri.FALSE
    # words may name a set, an interval or an expression: no FALSE there
    assert equivalent(r"(-\infty, \infty)", "all real numbers") is Tri.UNKNOWN
    assert equivalent(r"\{\}", "empty set") is Tri.UNKNOWN
    assert equivalent("(a, b)", "no idea") is Tri.UNKNOWN
    assert equivalent(r"\{1, 2\}", "one and two") is Tri.UNKNOWN


def test_ell_is_a_letter() -> None:
    assert grade(r"2\ell", r"\boxed{\ell + \ell}", fallback=False).correct is True
    v = grade("4", r"\boxed{\frac{\ell}{b} = 1}", fallback=False)
    assert (v.correct, v.reason) == (False, "not equivalent"), v


@pytest.mark.parametrize(("gold", "correct"), [("3", True), ("1", False), ("three", True)])
def test_number_words_left_by_the_rules_are_their_number(gold: str, correct: bool) -> None:
    # "\text{Three}" normalizes to "Three", which is 3
    v = grade(gold, r"\boxed{\text{Three}}", fallback=False)
    assert (v.correct, v.decided_by) == (correct, "fast"), v
    assert not v.reason.startswith("undecided"), v


def test_a_weak_reading_kept_whole_as_words_stays_with_the_fast_path() -> None:
    # a restating sentence with several values, kept whole: the fallback would compare the same
    # words; a sentence whose one value closes it is read, and decided, on the fast path
    v = grade("3", "The answer is: The model has 9 dots divided into 3 equal groups.")
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("undecided: the answer was read from a phrase"), v
    assert grade("3", "The answer is: the number of groups $G$ is 3.").correct is True


def test_undecided_pairs_the_fallback_cannot_help_stay_with_the_fast_path() -> None:
    # a weak reading that the core disproved: the fallback compares the same answer again
    # ("there are 5 cats": words skipped; "#### 5" then "The answer is 6": markers that disagree,
    # the one that matches is not the one read)
    for gold, response in [("7", "The answer is: there are 5 cats."), ("5", "#### 5\nThe answer is 6")]:
        fast = grade(gold, response, fallback=False)
        assert fast.reason.startswith(("undecided: the answer was read", "undecided: the unmarked answer")), fast
        v = grade(gold, response)
        assert (v.correct, v.decided_by, v.reason) == (False, "fast", fast.reason)


_REFUSALS = [
    "Therefore, the question cannot be answered with the given information.",
    "Without the formula, I cannot calculate the local maximum.",
    "There is not enough information to determine the value.",
    "We are unable to determine the answer from the image.",
    "Please provide additional information or clarify the data.",
]


@given(
    number=st.integers(0, 10**6),
    refusal=st.sampled_from(_REFUSALS),
    upper=st.booleans(),
    between=st.sampled_from([" ", "\n", "\n\n"]),
    prose=st.integers(0, 60),
)
def test_a_response_that_declines_has_no_answer(
    number: int, refusal: str, upper: bool, between: str, prose: int
) -> None:
    # no marked answer, a refusal after the last number: that number is no answer, even when it
    # is the gold (in the refusal's paragraph or the one before it), and when paragraphs of prose
    # lie between them (the refusal closes the response)
    refusal = refusal.upper() if upper else refusal
    filler = "The bars are drawn in blue on a white grid. " * prose
    response = f"The chart shows {number} bars.{between}{filler}{refusal}"
    v = grade(str(number), response, fallback=False)
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("the response declines to answer"), v


@pytest.mark.parametrize(
    "response",
    [
        "The answer is 5. I cannot determine whether there is another.",  # a marked answer stands
        "We cannot determine x directly, so we try 5.\n\nThe result is 5.",  # a refusal, then an answer
        r"We cannot determine it at first. Finally $\boxed{5}$.",
    ],
)
def test_a_refusal_before_the_answer_does_not_decline(response: str) -> None:
    assert grade("5", response, fallback=False).correct is True


def test_a_refusal_is_read_right_after_the_number_and_in_the_closing_words() -> None:
    # two windows of 512 bytes: after the last number and at the end of the text; a refusal deep
    # in the prose between them, with more prose after it, is not read
    filler = "The bars are drawn in blue on a white grid. " * 30
    refusal = "We cannot determine the colour of the axis. "
    assert grade("5", f"The chart shows 5 bars. {refusal}{filler}{filler}", fallback=False).correct is False
    assert grade("5", f"The chart shows 5 bars. {filler}{filler}{refusal}", fallback=False).correct is False
    assert grade("5", f"The chart shows 5 bars. {filler}{refusal}{filler}", fallback=False).correct is True


def test_results_columns() -> None:
    results = grade_many(["1", "2", "3"], [r"\boxed{1}", r"\boxed{5}", "x"], fallback=False)
    assert isinstance(results, GradeResults)
    assert results.correct.tolist() == [True, False, False]
    assert results.decided_by.tolist() == ["fast"] * 3
    assert results.accuracy == pytest.approx(1 / 3)


def test_threads_give_the_same_results() -> None:
    rows = load_demo_corpus()
    golds = [r["gold"] for r in rows]
    responses = [r["response"] for r in rows]
    expected = grade_many(golds, responses, fallback=False, threads=1)
    outputs: list[GradeResults] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            outputs.append(grade_many(golds, responses, fallback=False, threads=2))
        except BaseException as exc:  # collected and re-raised below by the assertion
            errors.append(exc)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors
    assert len(outputs) == 4
    for out in outputs:
        assert list(out) == list(expected)


def test_typed_answers_keep_the_percent_reading() -> None:
    # normalization removes the percent sign and keeps it as a flag; the tree equivalence sees
    # is parsed with the sign where it was written (p% is p/100 or p; the sign binds to the
    # last factor, as in the text)
    for gold, response, expected in [
        (r"50\%", r"\boxed{0.5}", True),
        (r"50\%", r"\boxed{50}", True),
        ("0.5", r"\boxed{50\%}", True),
        (r"50\%", r"\boxed{0.6}", False),
        (r"\frac{1}{2}\%", r"\boxed{0.005}", True),
    ]:
        v = grade(gold, response, fallback=False)
        assert (v.correct, v.decided_by) == (expected, "fast"), (gold, response, v)


@pytest.mark.parametrize(
    ("gold", "response", "expected"),
    [
        # either reading of an answer in degrees: its number, or that many times pi/180
        (r"\frac{\pi}{4}", r"\boxed{45^\circ}", True),
        ("45", r"\boxed{45^\circ}", True),
        (r"\frac{\pi}{3}", r"\boxed{60°}", True),
        (r"\frac{\pi}{4}", r"\boxed{45^{\circ}}", True),
        (r"\frac{\pi}{4}", r"\boxed{45\degree}", True),
        (r"\frac{\pi}{4}", "The answer is 45 degrees.", True),  # the unit kept apart (units.hpp)
        (r"\frac{\pi}{4}", r"\boxed{45 \text{ degrees}}", True),
        (r"45^\circ", r"\boxed{\frac{\pi}{4}}", True),  # the gold in degrees
        (r"45^\circ", r"\boxed{45°}", True),  # both sides
        (r"45^\circ", r"\boxed{45}", True),
        ("0.25", r"\boxed{0.25^\circ}", True),
        (r"-\frac{\pi}{4}", r"\boxed{-45^\circ}", True),
        (r"\frac{\pi}{6}, \frac{\pi}{3}", r"\boxed{30^\circ, 60^\circ}", True),  # each value
        (r"(\frac{\pi}{4}, \frac{\pi}{2})", r"\boxed{(45^\circ, 90^\circ)}", True),
        (r"\frac{\pi}{4}", r"\boxed{x = 45^\circ}", True),  # the value of an equation
        (r"\frac{\pi}{4} + 2k\pi", r"\boxed{45^\circ + k \cdot 360^\circ}", True),
        ("180 - x", r"\boxed{180^\circ - x}", True),
        # a condition's bounds (the variable it bounds is the angle itself)
        (r"0 < x < \frac{\pi}{2}", r"\boxed{0^\circ < x < 90^\circ}", True),
        (r"(0, \frac{\pi}{2})", r"\boxed{0^\circ < x < 90^\circ}", True),
        (r"x > \frac{\pi}{6}", r"\boxed{x > 30^\circ}", True),
        ("0 < x < 90", r"\boxed{0^\circ < x < 90^\circ}", True),
        # neither reading matches
        (r"x > \frac{\pi}{3}", r"\boxed{x > 30^\circ}", False),
        ("11", r"\boxed{0^\circ < x < 90^\circ}", False),  # a condition is no value
        (r"\frac{\pi}{4}", r"\boxed{0 < x < 45^\circ}", False),
        (r"\frac{3}{4}", r"\boxed{0^{\circ} < x < 90^{\circ}}", False),
        (r"\frac{\pi}{4}", r"\boxed{46^\circ}", False),
        ("30", r"\boxed{45^\circ}", False),
        (r"\frac{\pi}{3}", r"\boxed{45^\circ}", False),
        (r"45^\circ", r"\boxed{\frac{\pi}{3}}", False),
        (r"45^\circ", r"\boxed{30^\circ}", False),
        (r"\frac{\pi}{6}, \frac{\pi}{3}", r"\boxed{30^\circ, 50^\circ}", False),
        # a plain number is never read as degrees
        (r"\frac{\pi}{4}", r"\boxed{45}", False),
        ("90", r"\boxed{\frac{\pi}{2}}", False),
    ],
)
def test_an_answer_in_degrees_is_its_number_or_its_angle(gold: str, response: str, expected: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by) == (expected, "fast"), v
    assert v.reason != "undecided by the fast path", v


def test_an_answer_in_degrees_without_an_angle_reading_is_never_a_certain_false() -> None:
    # the mark applies to no value the reader can mark (a matrix entry): the number reading alone
    # does not make a certain FALSE
    for gold, response in [
        (r"\frac{\pi}{4}", r"\boxed{\begin{pmatrix}45^\circ\end{pmatrix}}"),
    ]:
        v = grade(gold, response, fallback=False)
        assert v.decided_by == "fast" and v.reason == "undecided by the fast path", v
    # a condition's constant bounds are read in degrees
    assert grade(r"0 < x < \frac{\pi}{4}", r"\boxed{0 < x < 45^\circ}", fallback=False).correct is True


def _angle_in_radians(d: int) -> str:
    """d degrees as LaTeX radians, the fraction d/180 reduced: \\frac{\\pi}{4}, \\frac{3\\pi}{4}, 2\\pi."""
    g = math.gcd(d, 180)
    num, den = d // g, 180 // g
    top = r"\pi" if num == 1 else rf"{num}\pi"
    return top if den == 1 else rf"\frac{{{top}}}{{{den}}}"


_DEGREE_MARKS = [r"^\circ", r"^{\circ}", "°", r"\degree", " degrees"]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=1080), st.sampled_from(_DEGREE_MARKS))
def test_every_angle_in_degrees_matches_its_radians(d: int, mark: str) -> None:
    response = rf"\boxed{{{d}{mark}}}"
    for gold, expected in [(_angle_in_radians(d), True), (_angle_in_radians(d + 1), False), (str(d), True)]:
        v = grade(gold, response, fallback=False)
        assert (v.correct, v.decided_by) == (expected, "fast"), (gold, response, v)
    # and the gold in degrees against the answer in radians
    v = grade(f"{d}{mark}", rf"\boxed{{{_angle_in_radians(d)}}}", fallback=False)
    assert (v.correct, v.decided_by) == (True, "fast"), v


def test_prepared_gold_is_reused_across_its_responses() -> None:
    # n samples of one problem: the gold is prepared (and its tree parsed) once; a gold that
    # does not parse leaves every pair undecided, a prediction that does not parse too
    golds = [r"\frac{1}{2}"] * 3 + [r"\frac{1}{"] * 2
    responses = [r"\boxed{0.5}", r"\boxed{2/4}", r"\boxed{1/(}", r"\boxed{0.5}", r"\boxed{\frac{1}{2}}"]
    got = grade_many(golds, responses, fallback=False, threads=1)
    undecided = "undecided by the fast path"
    assert got.reason == ["equivalent", "equivalent", undecided, undecided, undecided]
    assert list(got) == [grade(g, r, fallback=False) for g, r in zip(golds, responses)]


@pytest.mark.parametrize(
    ("gold", "response", "correct", "reason"),
    [
        (
            r"-\frac{\sqrt{2}}{10}",
            r"$\cos \langle\vec{a}, \vec{b}\rangle=\frac{\vec{a} \cdot \vec{b}}{|\vec{a}| \cdot|\vec{b}|}"
            r"=\frac{2 \times(-8)+2 \times 6}{\sqrt{8} \times \sqrt{100}}=-\frac{\sqrt{2}}{10}$",
            True,
            "equivalent",
        ),
        ("-11.875", r"Thus $$ \iint_R\left(x-3 y^2\right) d A \approx-11.875 $$", True, "equivalent"),
        (
            r"\frac{\sqrt{2}}{10}",
            r"$\cos \langle\vec{a}, \vec{b}\rangle=\frac{\vec{a} \cdot \vec{b}}{10}=-\frac{\sqrt{2}}{10}$",
            False,
            "undecided: the last member of the answer's equation differs",
        ),
        # an \approx ends math-verify's equation earlier: the fallback may still read it
        ("-11", r"Thus $$ \iint_R\left(x-3 y^2\right) d A \approx-11.875 $$", False, "undecided by the fast path"),
    ],
)
def test_a_chain_the_core_cannot_read_whole_states_its_last_member(
    gold: str, response: str, correct: bool, reason: str
) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is correct and v.decided_by == "fast", v
    assert v.reason.startswith(reason), v


@given(
    unread=st.sampled_from(
        [
            r"\cos\langle\vec{a},\vec{b}\rangle",
            r"\oint_C \vec{F}\cdot d\vec{r}",
            r"\iint_R\left(x-3 y^2\right) d A",
            r"\mathscr{R}(q)",
            r"\overrightarrow{AB}\cdot\overrightarrow{AC}",
        ]
    ),
    middle=st.sampled_from(["", r"=\frac{6}{2}", "=2+1", r"=\sqrt{9}"]),
    value=st.integers(min_value=-500, max_value=500),
)
def test_the_last_member_of_any_unread_chain_is_its_answer(unread: str, middle: str, value: int) -> None:
    response = f"So ${unread}{middle}={value}$."
    assert grade(str(value), response, fallback=False).correct, response
    other = grade(str(value + 1), response, fallback=False)
    assert not other.correct and other.decided_by == "fast", response


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("5x - y + 2 = 0", r"$\boxed{10}$"),
        ("a + 3z = 0", r"$\boxed{0}$"),
        ("x^2 + y^2 = 2", "The answer is 2."),
        ("7 = 11a + c", r"$\boxed{11a+c}$"),  # math-verify's own case: FALSE
    ],
)
def test_a_gold_equation_with_a_number_in_its_left_side_against_a_value_stays_with_the_fast_path(
    gold: str, response: str
) -> None:
    # only the value of the equation's left side could be the answer; no fallback reads it so
    v = grade(gold, response)
    assert (v.correct, v.decided_by) == (False, "fast"), v
    assert v.reason.startswith("undecided: the gold is an equation and the answer a value"), v


@pytest.mark.parametrize(
    ("gold", "response"),
    [(r"\frac{NO}{BO}=\frac{1}{\sqrt{6}}", r"$\frac{1}{\sqrt{6}}$"), ("|AB|=1", "$1$")],
)
def test_a_gold_equation_of_symbols_alone_is_an_assignment_the_fallback_reads(gold: str, response: str) -> None:
    assert grade(gold, response, fallback=False).reason == "undecided by the fast path"
    assert grade(gold, response).correct is True


@given(
    a=st.integers(min_value=2, max_value=9),
    b=st.integers(min_value=-9, max_value=9),
    c=st.integers(min_value=-50, max_value=50),
    var=st.sampled_from(["x", "y", "z", "m"]),
)
def test_any_gold_equation_with_a_coefficient_against_its_right_side_stays_with_the_fast_path(
    a: int, b: int, c: int, var: str
) -> None:
    gold = f"{a}{var} + {b} = {c}" if b >= 0 else f"{a}{var} - {-b} = {c}"
    v = grade(gold, f"The answer is ${c}$.", fallback=False)
    assert not v.correct and v.decided_by == "fast", (gold, v)
    assert v.reason.startswith("undecided: the gold is an equation and the answer a value"), (gold, v)


_CJK_WORDS = ["三棱锥", "分层抽样", "圆锥", "无解", "等边三角形", "正方形", "不存在", "偶函数"]


@given(word=st.sampled_from(_CJK_WORDS), value=st.integers(min_value=-99, max_value=99))
def test_a_chinese_word_answer_is_text_decided_in_the_core(word: str, value: int) -> None:
    # a CJK word makes an answer text: against a number it is decided without the fallback
    assert grade(str(value), f"【答案】{word}<eoa>", fallback=False).decided_by == "fast"
    assert grade(word, f"【答案】{value}<eoa>", fallback=False).decided_by == "fast"
    assert grade(word, f"【答案】{word}<eoa>").correct is True
    other = _CJK_WORDS[(_CJK_WORDS.index(word) + 1) % len(_CJK_WORDS)]
    assert grade(word, f"故答案为：{other}").correct is False


_CONDITION = (
    "undecided: one answer states a condition (an inequality), the other a value, a list of values or an equation"
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        # the core cannot read the answer, but an inequality stands at its top level
        (r"\frac{25}{2}", r"$$S \leq \sum_{i=1}^{100} x_{i}=\frac{25}{2}$$"),
        ("2n-2", r"Thus $|\mathcal{B}| \leq 2 n-2$, as required."),
        # the core reads the condition; the gold is a list of values
        ("1,2,3,4", r"so $n \geq 5$."),
        ("(1,1), (3,2)", r"$n \geqslant 5$"),
        (r"x \neq \frac{5}{7}", "so the solutions are $1$, $2$, $3$"),
        # an equation between values against a condition
        (r"f(x)=\frac{1}{x}", "for all $m>1$"),
        ("k=3", r"so $f(a) \neq a f(1)$"),
        (r"f(x)=\frac{1}{x}", r"hence $f(x) \leqslant 1 / x$"),
        # a chain with an equals sign that the core reads: a conjunction to both fallback readers
        ("114784", r"so $2 g \geq N \geq 2(35 m \cdot 34)=2 \cdot 57392$"),
        ("1", r"Thus $a+d=0 \neq 1$."),
        ("3", r"hence $0 < x = 3$"),
        ("1, 2", r"hence $0 < x = 3$"),
    ],
)
def test_a_condition_against_values_stays_with_the_fast_path(gold: str, response: str) -> None:
    # neither SymPy nor math-verify proves a relation equal to values, nor reads one as its bound
    v = grade(gold, response)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", _CONDITION), v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("(1, 2)", r"$x_1 + x_2 < 3$"),  # a pair may be the open interval
        (r"x > \sum_i a_i", r"$\sum_i a_i < x$"),  # two conditions
        # membership, read as "z = [...]": the set a condition may state (math-verify's mv-198: TRUE)
        (r"1\leq|z|\leq \frac{3}{2}", r"$z \in \left[-\frac{3}{2}, -1\right] \cup \left[1, \frac{3}{2}\right]$"),
    ],
)
def test_a_condition_against_a_set_it_may_state_is_the_fallbacks(gold: str, response: str) -> None:
    assert grade(gold, response, fallback=False).reason == "undecided by the fast path"


@given(
    var=st.sampled_from(["n", "k", "S", r"\mathcal{B}"]),
    op=st.sampled_from([r"\leq", r"\geq", "<", ">", r"\geqslant", r"\neq"]),
    bound=st.sampled_from([r"\sum_{i=1}^{n} a_i", r"\operatorname{deg} P", "5", r"\frac{m}{2}"]),
    gold=st.sampled_from(["3", r"\frac{25}{2}", "2n-2", "1, 2, 3", "(1, 2, 3)", r"(1,1), (3,2)"]),
)
def test_any_condition_against_values_is_kept_undecided(var: str, op: str, bound: str, gold: str) -> None:
    v = grade(gold, f"Therefore ${var} {op} {bound}$.")
    assert not v.correct
    assert v.decided_by == "fast", v
    assert v.reason in (_CONDITION, "not equivalent"), v  # "not equivalent": a condition read against one value
    # a chain that goes on with an equals sign: the same, and never a certain FALSE
    chained = grade(gold, f"Therefore ${var} {op} {bound} = 7$.")
    assert not chained.correct and chained.decided_by == "fast", chained
    assert chained.reason == _CONDITION, chained
