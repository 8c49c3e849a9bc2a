r"""The values the final sentence assigns, against a gold list (``extract::final_assignments``).

A response with no marked answer often ends by stating the value of each unknown: "..., so $p=3$
and $q=4$.", "we want $b+3=0$ or $b=-3$ and $c=0$.", "so $d(6)=1/3, d(16)=1$, and $d(72)=1/9$."
Against a gold that is a list of n values, the grader reads the values its final sentence assigns
to n distinct names: the spans of the answer and the run of assignment spans before them in the
sentence, back to a span that is no assignment, a sentence break, or a conclusion word ("If
$d=-7$, then $a=27, b=20$ and $c=13$": the premise is not read). The numbers of the sentence
(``final_sentence_numbers``) hold the names' other numbers too ("the point $(1,3)$ ... so $p=3$"),
so that reading does not apply there.

A final span that a conclusion word introduces ("Therefore, $a=\frac{1}{3}, b=-2$, and $c=5$, which
gives $y=\log_{1/3}(x-2)+5$.", "both $\alpha=90^{\circ}$ and $\alpha=60^{\circ}$ yield ...": the
values of one unknown) has a premise of assignments (``extract::premise_assignments``):
when those values are the gold list, the premise or the conclusion may be the answer, and a FALSE
is UNKNOWN (another reading matches), not certain.

Against a gold of one value, a final span that assigns values to several names ("With $T=650,
k=13$.", the relay problems' given and answer) answers with its last assignment
(``extract::assignment_parts``); an earlier one that matches leaves the pair UNKNOWN. So does a
final span that solves for one name step by step ("We get $2x=6, x=3$.", ``extract::solved_parts``):
equations that hold the name, then its assignment.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import grade

VALUES = (
    "the values the final sentence assigns to its unknowns are the gold's (no marked answer; read as the gold's list)"
)


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("3,4", "Thus, the point $(1,3)$ is moved to $(4,-1)$, so $p=3$ and $q=4$."),
        ("-3,0", "For this to hold for all $x$, we want $b+3=0$ or $b=-3$ and $c=0$."),
        (r"\frac{1}{3},1,\frac{1}{9}", "Factoring $72=8 \\cdot 3^{2}$, so $d(6)=1 / 3, d(16)=1$, and $d(72)=1 / 9$."),
        ("27,20,13", "If $d=-7$, then $a=27, b=20$ and $c=13$."),
        (r"\{2, 5\}", "From $(2)$ and $(3)$ we get $x_1=2$ and $x_{2}=5$."),
    ],
)
def test_the_assigned_values_are_the_gold_list(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.correct is True and v.reason == VALUES, v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("-7,27,20,13", "If $d=-7$ and $e=5$, then $a=27, b=20$ and $c=13$."),  # the premise is not read
        ("3,4", "Hence $p=3$. Thus the point $(1,3)$ moves, so $q=4$."),  # another sentence
        ("3,4", "So $(1,3)$ moves to $(4,-1)$ and $p=3$ and $p=4$."),  # one name twice
        ("3,4", "So $(1,3)$ moves to $(4,-1)$, $p \\le 3$ and $q=4$."),  # no assignment
        ("3,5", "Thus, the point $(1,3)$ is moved to $(4,-1)$, so $p=3$ and $q=4$."),  # other values
    ],
)
def test_other_final_sentences_state_no_such_list(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.reason != VALUES, v


_NAMES = st.lists(st.sampled_from(list("abcmnpqrstuvwxyz")), min_size=2, max_size=5, unique=True)


@given(
    names=_NAMES,
    values=st.lists(st.integers(-999, 999), min_size=5, max_size=5),
    joiner=st.sampled_from(["$, $", ", ", "$ and $", "$, and $"]),
    premise=st.sampled_from(["the point $(1,3)$ moves to $(4,-1)$", "$k^2 = 49$ holds", "we have $7 > 2$"]),
    form=st.sampled_from(["{}", "{}^{{1}}", "\\frac{{{}}}{{1}}"]),
)
def test_any_final_assignments_read_back(
    names: list[str], values: list[int], joiner: str, premise: str, form: str
) -> None:
    stated = values[: len(names)]
    parts = [f"{name}={form.format(value)}" for name, value in zip(names, stated)]
    text = f"Since {premise}, so ${joiner.join(parts)}$."
    gold = ", ".join(map(str, stated))
    assert grade(gold, text, fallback=False).correct is True, text
    other = ", ".join(map(str, [stated[0] + 2000, *stated[1:]]))  # no value of the list
    assert grade(other, text, fallback=False).correct is not True, text


# -- the premise of a conclusion ------------------------------------------------------------------

OTHER = "undecided: the unmarked answer differs, but another reading of the final statement matches"


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        (
            r"\frac{1}{3},-2,5",
            "Therefore, $a=\\frac{1}{3}, b=-2$, and $c=5$, which gives $y=\\log _{1 / 3}(x-2)+5$.",
        ),
        ("(3, 4)", "So $p=3$ and $q=4$, which gives $p q=12$."),
        ("3, 4", "Thus $p=3, q=4$ and so $p+q=7$."),
        # the values of one unknown, named by a letter command
        (
            "90^{\\circ}, 60^{\\circ}",
            "On the other hand, both $\\alpha=90^{\\circ}$ and $\\alpha=60^{\\circ}$ yield "
            "$\\angle B E K=45^{\\circ}$.",
        ),
        ("2, -2", "So both $x=2$ and $x=-2$ give $x^{2}=4$."),
    ],
)
def test_the_values_of_a_premise_are_another_reading(gold: str, response: str) -> None:
    v = grade(gold, response, fallback=False)
    assert (v.correct, v.decided_by, v.reason) == (False, "fast", OTHER), v


@pytest.mark.parametrize(
    ("gold", "response"),
    [
        ("3, 5", "So $p=3$ and $q=4$, which gives $p q=12$."),  # other values: still certain
        ("3, 4", "So $p=3$ and $q=4$. Hence $p q=12$."),  # another sentence
        ("3, 4", "So $p=3$ and $q \\le 4$, which gives $p q \\le 12$."),  # no assignment
        ("2, 3", "So $x=2$, $y=5$ and $x=3$ give $F=1$."),  # a name again after another name
        ("2, 2", "So $x=2$ and $x=2$ give $F=1$."),  # one name, the same value again
        ("2, 3", "So $\\alpha=2$ and $\\max=3$ give $F=1$."),  # a command that names no letter
    ],
)
def test_what_is_no_premise_of_the_gold(gold: str, response: str) -> None:
    v = grade(gold, "We solve the system.\n\n" + response, fallback=False)
    assert v.reason != OTHER, v
    assert v.correct is False, v


@given(
    names=_NAMES,
    values=st.lists(st.integers(-999, 999), min_size=5, max_size=5),
    conclusion=st.sampled_from(["which gives", "so", "hence", "and thus"]),
)
def test_any_premise_of_assignments(names: list[str], values: list[int], conclusion: str) -> None:
    stated = values[: len(names)]
    parts = [f"{name}={value}" for name, value in zip(names, stated)]
    text = f"We solve the system.\n\nTherefore, ${', '.join(parts)}$, {conclusion} $F(t)=t^{{2}}+{stated[0]}$."
    v = grade(", ".join(map(str, stated)), text, fallback=False)
    assert (v.correct, v.reason) == (False, OTHER), text
    other = grade(", ".join(map(str, [stated[0] + 2000, *stated[1:]])), text, fallback=False)
    assert other.correct is False and other.reason != OTHER, text
    assert grade(f"F(t)=t^{{2}}+{stated[0]}", text, fallback=False).correct, text


# -- the last of several assignments, against one value -------------------------------------------

LAST = (
    "the last value the final span assigns is the gold's (no marked answer; what comes before it assigns givens or "
    "other unknowns, or solves for it)"
)
MEMBER = "undecided: the last member of the answer's equation differs; a member before it may be the answer"


@pytest.mark.parametrize(
    ("gold", "response", "reason"),
    [
        ("13", "Hence $k=\\frac{T}{50}$. With $T=650, k=13$.", LAST),
        ("\\frac{36}{35}", "Then $x=\\frac{T+1}{T}$. When $T=35, x=\\frac{36}{35}$.", LAST),
        ("3", "With $T=0, x=\\sqrt[3]{27}=3$.", LAST),
        ("k=13", "With $T=650, k=13$.", LAST),
        ("650", "With $T=650, k=13$.", MEMBER),  # a given, or the other unknown: no certain verdict
        ("12", "With $T=650, k=13$.", "not equivalent"),
        ("(650, 13)", "With $T=650, k=13$.", "equivalent"),  # a list is compared whole
    ],
)
def test_the_last_of_several_assignments_answers_one_value(gold: str, response: str, reason: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.reason == reason, v
    assert v.correct is (reason in (LAST, "equivalent"))


@given(
    given_value=st.integers(0, 999),
    value=st.integers(-(10**6), 10**6),
    names=st.sampled_from([("T", "k"), ("a", "b"), ("x", "y_{1}"), ("n", "f(2)")]),
    lead=st.sampled_from(["With", "Because", "When", "and with", "so"]),
)
def test_any_given_then_answer_reads_its_answer(
    given_value: int, value: int, names: tuple[str, str], lead: str
) -> None:
    text = f"It follows that the answer depends on $T$. {lead} ${names[0]}={given_value}, {names[1]}={value}$."
    assert grade(str(value), text, fallback=False).correct is True, text
    assert grade(str(value + 1), text, fallback=False).correct is False  # UNKNOWN when it is the given


def test_a_long_list_of_assignments_is_bounded_work() -> None:
    # names are compared with the names before them: past 64 the list is no such reading
    parts = ", ".join(f"a_{{{k}}}={k}" for k in range(3000))  # 30 KB, under max_answer_bytes
    v = grade("2999", f"With ${parts}$.", fallback=False)
    assert v.decided_by == "fast" and v.reason != LAST, v
    short = ", ".join(f"a_{{{k}}}={k}" for k in range(60))
    assert grade("59", f"With ${short}$.", fallback=False).reason == LAST


# -- a span that solves for one name, then states its value -----------------------------------------

CONDITION = (
    "undecided: one answer states a condition (an inequality), the other a value, a list of values or an equation"
)


@pytest.mark.parametrize(
    ("gold", "response", "reason"),
    [
        ("3", "We get $2x=6, x=3$.", LAST),
        ("3", "so $3x+2=11, x=3$.", LAST),
        ("3", "meaning that $302-296=2 d, d=3$.", LAST),
        ("\\frac{1}{2}", "Hence $4a_{1}=2, a_{1}=\\frac{1}{2}$.", LAST),
        ("5", "We get $2x=6, x=3$.", "not equivalent"),
        # two values of one name, no step: a list
        ("3", "so $x=2, x=3$.", "not equivalent"),
        # a part that does not hold the name ("\\max" holds no x), or another relation: no steps
        ("3", "so $y=11, x=3$.", LAST),  # two assignments: the rule before this one
        ("3", "so $2y=11, x=3$.", "not equivalent"),
        ("3", "so $2x>6, x=3$.", CONDITION),
    ],
)
def test_the_value_a_span_solves_for(gold: str, response: str, reason: str) -> None:
    v = grade(gold, response, fallback=False)
    assert v.reason == reason, v
    assert v.correct is (reason == LAST)


@given(
    coefficient=st.integers(2, 99),
    value=st.integers(-(10**4), 10**4),
    offset=st.integers(-999, 999),
    name=st.sampled_from(["x", "d", "a_{1}", "t"]),
    steps=st.integers(1, 3),
)
def test_any_solving_steps_then_value_reads_the_value(
    coefficient: int, value: int, offset: int, name: str, steps: int
) -> None:
    chain = [
        f"{coefficient}{name}{offset:+d}={coefficient * value + offset}",
        f"{coefficient}{name}={coefficient * value}",
    ]
    text = f"Solving, we get ${', '.join(chain[: min(steps, 2)])}, {name}={value}$."
    assert grade(str(value), text, fallback=False).reason == LAST, text
    assert grade(str(value + 1), text, fallback=False).correct is False, text
