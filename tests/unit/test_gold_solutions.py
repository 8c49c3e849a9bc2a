r"""A gold that is a whole solution is read as a response is.

Evaluation harnesses pass golds as their datasets hold them: lighteval's MATH tasks pass the
reference solution (``" {solution}"``, ``"ANSWER: {solution}"``), ending in ``\boxed{...}``; its
GSM8K task passes the reference answer, ending in ``#### 72``. The core reads such a gold's answer
from its box or tag, by the extractor's own rules for those markers, on the fast path; a gold
without one is read whole, as before.
"""

from __future__ import annotations

import string

from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade, grade_many
from tests.datasets import load_demo_corpus

# Reference solutions in the datasets' own formats (GSM8K's calculator annotations, MATH's
# \boxed{} in the last sentence), with the prefixes lighteval's prompt functions put before them.
GSM8K_ANSWER = (
    "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
    "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer\u2019s market.\n#### 18"
)
MATH_SOLUTION = (
    "The denominator of the rational function factors into $x^2+x-6=(x-2)(x+3)$. Since the numerator "
    "is always nonzero, there is a vertical asymptote whenever the denominator is $0$, which occurs for "
    "$x = 2$ and $x = -3$.  Therefore, the graph has $\\boxed{2}$ vertical asymptotes."
)
MATH500_SOLUTION = (
    "We have that $r = \\sqrt{0^2 + 3^2} = 3.$  Also, if we draw the line connecting the origin and "
    "$(0,3),$ this line makes an angle of $\\frac{\\pi}{2}$ with the positive $x$-axis.\n\n"
    "Therefore, the polar coordinates are $\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}.$"
)


def test_gsm8k_reference_answer_is_read_at_its_marker() -> None:
    for gold in (GSM8K_ANSWER, " " + GSM8K_ANSWER):
        v = grade(gold, "She makes 9 * 2 = 18 dollars a day.\n#### 18")
        assert (v.correct, v.decided_by, v.gold) == (True, "fast", "18")
        assert grade(gold, "#### 16").correct is False
        assert grade(gold, "The answer is 18.").correct is True


def test_math_solution_is_read_at_its_box() -> None:
    for gold in (MATH_SOLUTION, " " + MATH_SOLUTION):
        v = grade(gold, "So there are $\\boxed{2}$ asymptotes.")
        assert (v.correct, v.decided_by, v.gold) == (True, "fast", "2")
        assert grade(gold, "\\boxed{3}").correct is False
    v = grade("ANSWER: " + MATH500_SOLUTION, "ANSWER: $\\left(3, \\frac{\\pi}{2}\\right)$")
    assert (v.correct, v.decided_by) == (True, "fast")
    assert grade("ANSWER: " + MATH500_SOLUTION, "ANSWER: $(3, \\pi)$").correct is False


def test_the_fallback_gets_the_solutions_answer() -> None:
    # an undecided pair sends the gold's answer, not the whole solution, to the fallback
    gold = "Adding them, we get $\\boxed{\\frac{\\sqrt{2}}{2}}$."
    v = grade(gold, "\\boxed{\\frac{1}{\\sqrt{2}}}")
    assert v.correct is True
    assert v.gold == grade("\\frac{\\sqrt{2}}{2}", "x").gold


def test_solution_golds_and_short_golds_give_the_same_verdicts() -> None:
    rows = load_demo_corpus()
    golds = [r["gold"] for r in rows]
    responses = [r["response"] for r in rows]
    solutions = [
        f"Working through it step by step, we find the result.\nThe answer is $\\boxed{{{g}}}$." for g in golds
    ]
    gsm8k = [f"Compute 2 + 2 = <<2+2=4>>4 first.\n#### {g}" for g in golds]
    short = grade_many(golds, responses, fallback=False)
    boxed = grade_many(solutions, responses, fallback=False)
    assert boxed.correct.tolist() == short.correct.tolist()
    assert list(boxed.reason) == list(short.reason)
    # "#### X" reads a plain number (GSM8K's answers): where the gold is one, the same verdict
    plain = [k for k, g in enumerate(golds) if g.lstrip("-").isdigit()]
    assert len(plain) > 300
    tagged = grade_many([gsm8k[k] for k in plain], [responses[k] for k in plain], fallback=False)
    assert tagged.correct.tolist() == [bool(short.correct[k]) for k in plain]


def test_a_gold_without_a_marker_is_read_whole() -> None:
    # an equation, a sentence, a dollar amount and a plain box stay what they were
    assert grade("x = 5", "\\boxed{x=5}").gold == "x=5"
    assert grade("\\boxed{7}", "7").correct is True
    assert grade("Yes. $F(x,y)=x+y$", "\\boxed{7}").gold == grade("Yes. $F(x,y)=x+y$", "y").gold
    assert grade("$18", "\\boxed{18}").correct is True


def test_several_boxes_in_the_final_sentence_are_one_answer() -> None:
    gold = "The roots are $x = \\boxed{2}$ and $x = \\boxed{3}$."
    assert grade(gold, "\\boxed{2, 3}").correct is True
    assert grade(gold, "\\boxed{2}").correct is False


_ANSWERS = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.tuples(st.integers(1, 99), st.integers(2, 99)).map(lambda t: f"\\frac{{{t[0]}}}{{{t[1]}}}"),
    st.integers(2, 50).map(lambda n: f"\\sqrt{{{n}}}"),
    st.tuples(st.integers(-9, 9), st.integers(-9, 9)).map(lambda t: f"({t[0]}, {t[1]})"),
)
_PROSE = st.text(alphabet=string.ascii_letters + " ,.;:=+-0123456789()\n", max_size=200)


@given(answer=_ANSWERS, before=_PROSE, after=st.sampled_from(["", ".", "$.", " is the answer.", "\n"]))
def test_any_boxed_solution_is_read_as_its_box(answer: str, before: str, after: str) -> None:
    gold = f"{before} $\\boxed{{{answer}}}{after}"
    v = grade(gold, f"\\boxed{{{answer}}}", fallback=False)
    assert (v.correct, v.decided_by) == (True, "fast"), (gold, v)
    assert v.gold == grade(answer, "x", fallback=False).gold


@given(answer=st.integers(-(10**9), 10**9), lines=st.lists(_PROSE.filter(lambda s: "####" not in s), max_size=4))
def test_any_gsm8k_answer_is_read_at_its_marker(answer: int, lines: list[str]) -> None:
    gold = "\n".join([*lines, f"#### {answer}"])
    v = grade(gold, f"The answer is {answer}.", fallback=False)
    assert (v.correct, v.gold) == (True, str(answer)), (gold, v)
    assert grade(gold, f"The answer is {answer + 1}.", fallback=False).correct is False
