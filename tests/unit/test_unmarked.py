r"""Unmarked final answers: the strategies choice, bare and final_span, signed and braceless
numbers in last_number, and the grading rules that make a fast FALSE on such answers certain.

Every example here is quoted from the issue that introduced these rules or from the kinds of
responses in ``../shared/corpora/unmarked_dev.jsonl`` (human solutions ending in prose,
multiple-choice rationales, bare answers)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import extract_answer, grade

# ---------------------------------------------------------------------------------------------
# extraction


@pytest.mark.parametrize(
    ("text", "answer", "method"),
    [
        # the final math span, whole: never a digit out of it
        (r"Hence the number of subsets is $2^{1009}$.", "2^{1009}", "final_span"),
        (r"The length of the diagonal is $\frac{5 \sqrt{2}}{2}$.", r"\frac{5 \sqrt{2}}{2}", "final_span"),
        (r"So the smallest value is $4-2 \sqrt{3}$.", r"4-2 \sqrt{3}", "final_span"),
        # a chain gives its last member; an arithmetic left side is a computation
        (r"Therefore $- 2 ( a - 2 b ) = - 2 * 6 = - 12$.", "- 12", "final_span"),
        (r"Therefore, the original expression is equal to $1 - 2 = - 1$.", "- 1", "final_span"),
        # a relation that is the answer stays whole
        (r"From the given information, we have $x + 2 < 0$, which implies that $x < - 2$.", "x < - 2", "final_span"),
        (r"therefore $x \neq 4$.", r"x \neq 4", "final_span"),
        (r"So $f(x)=x+22$.", "f(x)=x+22", "final_span"),
        (r"and then $g(x)=x^2-2x+2$", "g(x)=x^2-2x+2", "final_span"),
        (r"solving for $x$ gives $x = \frac { 21 } { 5 }$.", r"x = \frac { 21 } { 5 }", "final_span"),
        # after an implication
        (r"so $x^2 = 4 \Rightarrow x = 2$.", "x = 2", "final_span"),
        # equation numbers, tags and trailing non-answers do not supply the answer
        ("\\begin{equation} x = 5 \\tag{7} \\end{equation}", "x = 5", "final_span"),
        (r"thus $x < - 2$ (see Figure 2)", "x < - 2", "final_span"),
        (r"thus $y = 3$ (3)", "y = 3", "final_span"),
        ("Thus $k = 7$. <img_3939>", "k = 7", "final_span"),
        (r"We get $m = 4$. This completes the proof, as required.", "m = 4", "final_span"),
        # a span that only names the variable of the span before it
        (r"which implies $m = 2$ after solving for $m$.", "m = 2", "final_span"),
        # braceless fractions stay fractions
        (r"solving for $a$ gives $a = -\dfrac12$.", r"a = -\dfrac12", "final_span"),
        # multi-part answers: one answer with all parts
        (r"The points are namely $(-6,6)$ and $(2,6)$.", "(-6,6), (2,6)", "final_span"),
        (r"The solutions are $x=-1$ or $x=2$.", "x=-1 or x=2", "final_span"),
        (r"The angles are $90^{\circ}$ and $60^{\circ}$.", r"90^{\circ}, 60^{\circ}", "final_span"),
        (r"so $(m, n) \in\{(1,1),(3,2)\}$.", r"(m, n) \in\{(1,1),(3,2)\}", "final_span"),
        # two statements of different shapes: the last one counts
        (r"Therefore, $3 x = 12$ and $x = 4$.", "x = 4", "final_span"),
        # the left sides are the statements', before a chain gives its last member
        (r"which gives $x=2^{-2 / 3}$ or $x=2^{3}=8$.", "x=2^{-2 / 3} or 8", "final_span"),
        (r"so $A+B=\frac{2}{3} \cdot 204=136$ and $C=180-(A+B)=44$.", "44", "final_span"),
        (
            r"The desired quantity is $s=\frac{x}{z}$, and $$\frac{x}{z}=\frac{3}{z}-1=\frac{5}{4}$$",
            r"\frac{5}{4}",
            "final_span",
        ),
        # "and" may restate one value; a computation names nothing
        (r"Therefore, $a + b = 2 - 6 = - 4$, and $a + b = - 4$.", "a + b = - 4", "final_span"),
        (r"the positive integer solutions are: $1$ , $2$ , $1 + 2 = 3$", "1, 2, 3", "final_span"),
        # divisibility is a relation, not a value that a list continues (kDivisibilityCommands)
        (r"Hence $3 \nmid 16-m$, and $d(16, m)=d(16-m)=1$.", "1", "final_span"),
        (r"So $3 \mid a$ and $3 \mid b$.", r"3 \mid a, 3 \mid b", "final_span"),
        # bare answers are read whole
        ("pi/2", "pi/2", "bare"),
        ("-2*pi", "-2*pi", "bare"),
        ("14.0 + -1.0i", "14.0 + -1.0i", "bare"),
        (r"$\frac{1}{\sqrt{n}}$", r"\frac{1}{\sqrt{n}}", "bare"),
        ("1 1/4", "1 1/4", "bare"),
        ("(1, 2)", "(1, 2)", "bare"),
        (r"$\sec^2(y)$", r"\sec^2(y)", "bare"),
        (r"$45^\circ$", r"45^\circ", "bare"),
        ("Yes", "Yes", "bare"),
        ("no solution", "no solution", "bare"),
        # multiple choice
        ("Hence, required number = 12x = 24.\nAnswer B", "B", "choice"),
        ("11 mph x (21/60)= 3.85 miles\nAnswer D", "D", "choice"),
        ("so p = 21/28 = 75\ncorrect answer E", "E", "choice"),
        ("for the second time Bob covered 24*2= 48 more km (ANSWER E)", "E", "choice"),
        ("Arun has $62 and Sajal has $34.\nAnswer B.", "B", "choice"),
        ("5*4 equals 20, answer E.", "E", "choice"),
        ("Answer : C", "C", "answer_is"),
        ("Thus the correct option is C", "C", "choice"),
        ("the area is 126 sq.ft.\nC", "C", "choice"),
        # a letter in parentheses right after "is" names a choice
        ("The pattern that could not be folded into a cube is (D).", "D", "choice"),
        ("Hence the piece that fits is **(B)**.", "B", "choice"),
        ("This piece is (C)", "C", "choice"),
        ("It has 3 sides and 4 corners (C).", "4", "last_number"),  # not after "is"
        ("So x is 3 and y is (2).", "2", "last_number"),  # a number, not a letter
        # signed numbers in prose
        ("From the given information, the value is - 7", "- 7", "last_number"),
        ("the temperature fell to −7 degrees", "−7", "last_number"),
        ("the result of 3 - 5 is negative", "5", "last_number"),
    ],
)
def test_unmarked_extraction(text: str, answer: str, method: str) -> None:
    e = extract_answer(text)
    assert e is not None
    assert (e.text, e.method) == (answer, method)


def test_marked_answers_come_first() -> None:
    assert extract_answer(r"We get $x = 3$, so the answer is $\boxed{5}$. Then $y = 2$.").method == "boxed"  # type: ignore[union-attr]
    assert extract_answer("The answer is 12. We check $x = 3$.").method == "answer_is"  # type: ignore[union-attr]


def test_prose_with_a_number_is_not_bare() -> None:
    assert extract_answer("I think it is 5") == ("5", 14, 15, "last_number")
    assert extract_answer("I do not know how to solve this problem.") is None


def test_a_number_after_the_last_span_wins() -> None:
    # the answer is stated in prose after the last math span
    e = extract_answer(r"Let $x$ be the count. Then the count is 12.")
    assert e is not None and (e.text, e.method) == ("12", "last_number")


def test_single_strategies() -> None:
    text = r"We have $a = 1$ and then $b = - 2$. Answer B"
    assert extract_answer(text, strategy="choice").text == "B"  # type: ignore[union-attr]
    assert extract_answer(text, strategy="final_span").text == "b = - 2"  # type: ignore[union-attr]
    assert extract_answer(text, strategy="last_number").text == "- 2"  # type: ignore[union-attr]
    assert extract_answer(text, strategy="bare") is None


@given(st.text(alphabet="$\\{}()=<>-+,.;: abxyz0123456789\n", max_size=60))
def test_strategies_never_fail(text: str) -> None:
    for strategy in ("choice", "bare", "final_span", "last_number", "auto"):
        e = extract_answer(text, strategy=strategy)  # type: ignore[arg-type]
        if e is not None and e.method != "boxed_multi" and e.method != "final_span":
            assert text[e.start : e.end] == e.text


# ---------------------------------------------------------------------------------------------
# grading: a fast FALSE must be certain


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        ("2^{1009}", r"Hence the number of subsets is $2^{1009}$.", True),
        ("1009", r"Hence the number of subsets is $2^{1009}$.", False),
        (r"\frac{5 \sqrt{2}}{2}", r"The diagonal is $\frac{5 \sqrt{2}}{2}$.", True),
        ("- 12", r"Therefore $- 2 ( a - 2 b ) = - 2 * 6 = - 12$.", True),
        ("12", r"Therefore $- 2 ( a - 2 b ) = - 2 * 6 = - 12$.", False),
        ("x < - 2", r"which implies that $x < - 2$.", True),
        ("a \\neq 2", r"therefore $a \neq 2$.", True),
        (r"\frac{5}{3}", r"therefore $\frac{x+y}{y} = \dfrac53$.", True),
        ("4", r"Hence, $m + n = 4$.", True),
        ("-1", r"Solving for $a$, we get $a = - 1$.", True),
        ("1", r"Solving for $a$, we get $a = - 1$.", False),
        ("x = 3", r"which simplifies to $y = - 2 x - 3$.", False),
        ("\\{-6, 6\\}", r"The solutions are $x=-6$ or $x=6$.", True),
        ("(-6,6), (2,6)", r"The points are namely $(-6,6)$ and $(2,6)$.", True),
        ("B", "Hence, required number = 12x = 24.\nAnswer B", True),
        ("C", "Hence, required number = 12x = 24.\nAnswer B", False),
        ("Yes", "Yes", True),
        ("5", "no idea", False),
        # a unit must be marked to be a unit: 6m is six times m
        ("6m", "the length is 6", False),
        ("6", r"the answer is $6m$", False),
        (r"6\,\text{m}", "the length is 6", True),
        ("6 meters", "the length is 6", True),
        # bare and final answers are read whole
        ("-2", "-2*pi", False),
        ("-1", "14.0 + -1.0i", False),
        ("12", r"we get $k=\dfrac12$", False),
        ("2", r"therefore $x=\sqrt{2}$", False),
        ("312123231", "(312,123,231)", False),
        # spaced bold digits are one number, in a marked span as after the last number
        ("6248", "So the answer is **6 2 4 8**", True),
        ("6248", "Summing all cases gives **6 2 4 8** ways in total", True),
        ("17", r"we conclude $\mathbf{1 7}$", True),
        ("8", "Summing all cases gives **6 2 4 8** ways in total", False),
        # a mixed number is its value, not the digits run together
        (r"\frac{5}{4}", "1 1/4", True),
        ("11/4", "1 1/4", False),
        # an equation of the response whose right side is the gold
        ("-m + 2020", "|m - 2020| = -m + 2020", True),
        ("x+1", "f(x)=x+1", True),
        # "answer is" spans: a chain with spaced bold digits, a thousands separator
        ("14", r"So the answer is 9+5=\mathbf{1 4}.", True),
        ("6248", "The answer is 6,248.", True),
        ("6248", r"Thus the answer is $6{,}248$.", True),
        # a gold of several sentences is compared with the whole answer, not its first sentence
        ("Yes. $F(x,y)=x+y$", "The answer is Yes. $F(x,y)=x+y$", True),
        ("Yes. $F(x,y)=x+y$", "The answer is Yes. It holds.", False),
        ("Yes. $F(x,y)=x+y$", "The answer is Yes.", False),
        ("Yes", "The answer is Yes. $F(x,y)=x+y$", True),
        ("3.5", "The answer is 3.5. Done.", True),
        # relations
        ("x = 2", r"so $x < 2$", False),
        ("m > 4", r"we get $m \le 1$", False),
    ],
)
def test_unmarked_grading(gold: str, response: str, correct: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is correct, v
    assert v.decided_by == "fast"
    assert not v.reason.startswith("undecided"), v


def test_a_weak_false_is_unknown_when_another_reading_matches() -> None:
    # the final span says 5/3, but the final sentence also states 1/2 and does not say which of
    # the two it concludes: the fast path cannot tell
    response = r"We get $\frac{x+y}{x-y} = \frac{1}{2}$, and $\frac{x-y}{x+y} - 1 = \frac{5}{3}$."
    v = grade(r"\frac{1}{2}", response, fallback=False)
    assert v.correct is False
    assert v.reason.startswith("undecided: the unmarked answer differs")
    # with no other reading in the final statement, FALSE is certain
    v = grade(r"\frac{1}{2}", r"So $\frac{x-y}{x+y} - 1 = \frac{5}{3}$.", fallback=False)
    assert v.reason == "not equivalent"


def test_a_last_number_false_is_unknown_when_the_last_span_matches() -> None:
    # a number after the last span makes the last number the answer, and the span the other reading
    response = r"We find $\frac{1}{2}$ after 3 steps"
    v = grade(r"\frac{1}{2}", response, fallback=False)
    assert (v.method, v.extracted, v.correct) == ("last_number", "3", False)
    assert v.reason.startswith("undecided: the unmarked answer differs")
    # a gold that no reading matches: FALSE is certain
    assert grade("7", response, fallback=False).reason == "not equivalent"
    # with no math span, the other numbers of its sentence are the other readings
    assert grade(r"\frac{1}{2}", "We find 1/2 after 3 steps", fallback=False).reason.startswith(
        "undecided: the unmarked answer differs"
    )
    assert grade(r"\frac{1}{2}", "We find 1/2.\n\nIt takes 3 steps", fallback=False).reason == "not equivalent"


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        # a span introduced by a conclusion word is what the sentence concludes; the spans before
        # it are the steps (premises, substitutions) that led to it
        ("\\frac{1}{2}", r"Since $\frac{x+y}{x-y} = \frac{1}{2}$, we get $\frac{x-y}{x+y} - 1 = \frac{5}{3}$."),
        ("3", r"Substituting $x = 3$ into the equation gives: $12 + 3 a = 6$, solving for $a$ gives: $a = - 2$."),
        ("2", r"Substituting $x = 2$ into $x ^ 2 - mx - 10 = 0$, we get $4 - 2 m - 10 = 0$, so $m = - 3$."),
        ("3", r"$m = 2$, $n = 3$, ${ m } ^ { n } = { 2 } ^ { 3 } = 8$, that is: the value of ${ m } ^ { n }$ is $8$."),
        ("0", r"The constant term of the equation $3 x ^ 2 - 2 x - 8 = 0$, is $- 8$."),
        ("6", r"$\because x = 6$ solves $3 x + m = - 1$, substituting yields $18 + m = - 1$, hence $m = - 19$."),
        # "$\therefore$" alone in a span: what comes before it are earlier steps
        ("1", r"When $x = 1$, $a + b + 5 = - 4$, $\therefore$ when $x = - 1$, $- ( a + b ) + 5 = 14$."),
    ],
)
def test_a_stated_conclusion_is_a_certain_false(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.method, v.reason) == (False, "final_span", "not equivalent"), v


def test_a_premise_after_the_conclusion_still_leaves_it_unknown() -> None:
    # the conclusion word introduces the first span; the final span comes after "as"
    v = grade("5", r"Thus the answer must be $5$, as $5 + 3 = 8$.", fallback=False)
    assert v.correct is False and v.reason.startswith("undecided"), v
    # a reason that closes the sentence ("since", "because", markers.hpp's kReasonClauses) is no
    # reading: the value before it is read, and a gold that differs from it is a certain FALSE
    v = grade("5", r"Thus the answer must be $5$, since $5 + 3 = 8$.", fallback=False)
    assert (v.correct, v.extracted) == (True, "5"), v
    assert grade("8", r"Thus the answer must be $5$, since $5 + 3 = 8$.", fallback=False).reason == "not equivalent"


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        # several boxes holding one value are one answer
        ("025", r"So $\boxed{025}$, that is $\boxed{25}$.", True),
        ("25", r"\boxed{025} and \boxed{25}", True),
        (r"\frac{1}{2}", r"\boxed{0.5} or \boxed{\frac12}", True),
        # a list of different values stays a list; a list the gold spells out still matches it
        ("2", r"\boxed{2} and \boxed{3}", False),
        ("2, 3", r"\boxed{2} and \boxed{3}", True),
        ("2, 2", r"\boxed{2} and \boxed{2}", True),
        ("3", r"\boxed{2} and \boxed{2}", False),
    ],
)
def test_boxes_of_one_value_are_one_answer(gold: str, response: str, correct: bool) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.method, v.decided_by) == (correct, "boxed_multi", "fast"), v


def test_last_number_false_refuses_only_the_last_number() -> None:
    assert grade("12", "the value is 12", last_number=False).reason.startswith("no explicit final answer")
    v = grade("4", r"Hence, $m + n = 4$.", last_number=False, fallback=False)
    assert (v.correct, v.method) == (True, "final_span")


# ---------------------------------------------------------------------------------------------
# the fallback compares relations, never their evaluated truth values


@pytest.mark.parametrize(
    ("gold", "answer", "correct"),
    [
        # both sides evaluate to false after substitution: not the same answer
        ("x=1, 2", "n=3, 4", False),
        (r"x = \{1, 2\}", r"y = \{3\}", False),
        ("x < 1", "y < 1", False),
        ("x < 1", "x > 1", False),
        # the same relation written otherwise
        (r"x = \{1, 2\}", r"x = \{2, 1\}", True),
        ("x^2 = 1", "2x^2 = 2", True),
        ("x > 1", "1 < x", True),
    ],
)
def test_fallback_relations(gold: str, answer: str, correct: bool) -> None:
    from rapidgrade.fallback import run_cascade

    ok, decided_by, reason = run_cascade(gold, answer)
    assert ok is correct, (decided_by, reason)
