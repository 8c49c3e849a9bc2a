r"""The fallback turns UNKNOWN into TRUE only with a proof, and says whether a FALSE is a disproof.

Each rule with the examples that motivated it (issue 41, section 3) and the nearby cases it must
not swallow; the peers' known wrong verdicts; and that the fallback is handed the extracted
answers, never the whole response (section 4).
"""

from __future__ import annotations

from typing import Any

import pytest

import rapidgrade
import rapidgrade.fallback as fallback_module
from rapidgrade import _fallback_rules as rules
from rapidgrade.fallback import run_cascade


def _kind(reason: str) -> str:
    if reason.startswith("disproved: "):
        return "disproved"
    assert reason.startswith("not proven equal: "), reason
    return "not proven"


# -- truth values are never compared --------------------------------------------------------------


def test_two_true_equations_between_constants_are_different_answers() -> None:
    # math-verify 0.9.0 says TRUE (both evaluate to True): a false positive
    correct, _, reason = run_cascade(r"\log_3 27 = 3", r"36^{\log_{36}216}=216")
    assert correct is False
    assert _kind(reason) == "disproved"  # 3 and 216


@pytest.mark.parametrize(
    ("gold", "answer"),
    [(r"\log_3 27 = 3", "3"), ("3", r"\log_3 27 = 3"), (r"2 + 3 = 5", r"\frac{10}{2}"), ("5", "1 + 4 = 5")],
)
def test_an_equation_between_constants_stands_for_its_last_member(gold: str, answer: str) -> None:
    assert run_cascade(gold, answer)[0] is True


@pytest.mark.parametrize(
    ("text", "member"),
    [
        (r"\log_3 27 = 3", "3"),
        ("1 + 1 = 2 = 4/2", "4/2"),
        ("x = 5", "x = 5"),  # a variable: an equation, not a computation
        ("f(2) = 5", "f(2) = 5"),
        ("a <= 3", "a <= 3"),
        ("3 <= 4", "3 <= 4"),
        ("5", "5"),
    ],
)
def test_answer_member(text: str, member: str) -> None:
    assert rules.answer_member(text) == member


def test_a_constant_relation_is_not_proven_by_its_truth_value() -> None:
    assert run_cascade("3 > 2", "5 > 1")[0] is False


# -- exact arithmetic where floats underflow ------------------------------------------------------


def test_factorials_whose_reciprocals_underflow_compare_exactly() -> None:
    # math-verify 0.9.0 says TRUE (both round to 0)
    correct, decided_by, reason = run_cascade(r"\frac{1}{2004!}", r"\frac{1}{2006!}")
    assert (correct, decided_by) == (False, "sympy")
    assert _kind(reason) == "disproved"
    assert "not taken (the exact values differ where floats cannot tell them apart)" in reason
    assert run_cascade(r"\frac{1}{2004!}", r"\frac{2005 \cdot 2006}{2006!}")[0] is True


def test_math_verify_leniency_on_ordinary_numbers_is_kept() -> None:
    # a percent against the bare number (math-verify's reading; the fast path agrees)
    assert run_cascade(r"25\%", "25")[0] is True
    assert run_cascade(r"198\%", "198")[0] is True


def test_huge_exact_numbers_compare_exactly() -> None:
    correct, _, reason = run_cascade(r"10^{400} + 1", r"10^{400}")
    assert (correct, _kind(reason)) == (False, "disproved")


def test_tiny_values_written_differently_are_still_equal() -> None:
    assert run_cascade(r"10^{-400}", r"\frac{1}{10^{400}}")[0] is True
    assert run_cascade(r"\frac{1}{2}", "0.5")[0] is True


def test_huge_integer_powers_compare_exactly() -> None:
    assert run_cascade(r"2^{2^{100}}", r"4^{2^{99}}")[:2] == (True, "sympy")
    assert run_cascade(r"8^{3^{50}}", r"2^{3^{51}}")[0] is True
    correct, _, reason = run_cascade(r"2^{2^{100}}", r"4^{2^{100}}")
    assert (correct, _kind(reason)) == (False, "disproved")
    assert rules.power_verdict("2^{10}", "1024") is None  # small: left to the other stages


# -- sequences with an ellipsis --------------------------------------------------------------------


def test_sequences_with_an_ellipsis_need_the_same_terms() -> None:
    # math-verify 0.9.0 reads both as the number 2 and says TRUE
    correct, _, reason = run_cascade(r"1, 2, \ldots, n", r"1, 3, 5, \ldots, 2n-1")
    assert (correct, _kind(reason)) == (False, "not proven")
    assert run_cascade(r"1, 2, \ldots, n", r"1,2,\dots,n")[0] is True
    assert run_cascade(r"1, 2, \ldots, n", r"1, 2, \cdots, n")[0] is True
    assert run_cascade(r"a_1, a_2, \ldots, a_n", r"a_1, a_2, \ldots, a_{n}")[0] is True
    correct, _, reason = run_cascade(r"1, 2, \ldots, n", r"1, 3, \ldots, n")
    assert (correct, _kind(reason)) == (False, "disproved")
    assert run_cascade(r"\{1, 2, \ldots, n\}", r"(1, 2, \ldots, n)")[0] is False
    # an ellipsis inside a term: no reader reads it, so the pair is not proven either way (it was
    # "disproved", SymPy taking the ellipsis for a name)
    for gold, answer in [
        (r"\frac{n(n+1)}{2}", r"1+2+\ldots+n"),
        ("n!", r"n(n-1)\cdots 1"),
        ("5050", r"1+2+\cdots+100"),
    ]:
        correct, _, reason = run_cascade(gold, answer)
        assert (correct, _kind(reason)) == (False, "not proven"), (gold, answer, reason)


# -- the peers' known wrong verdicts ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        (r"\sqrt{1/n}", r"\frac{1}{\sqrt{n}}"),
        (r"\frac{\pi}{4}", r"45^\circ"),
        (r"\frac{\pi}{4}", r"45°"),
        ("45", r"45^\circ"),
        (r"C_n^3", r"\frac{n(n-1)(n-2)}{6}"),
        (r"C_{10}^{2}", "45"),
        (r"\binom{n}{2}", r"\frac{n(n-1)}{2}"),
        ("B", "B"),
        (r"\{9, 10\}", "There are 9 chickens and 10 rabbits."),
        (r"\{9, 10\}", "10 rabbits and 9 chickens"),
        ("(9, 10)", "9 chickens and 10 rabbits"),
        ("18", "18 eggs"),
        ("1,000", "1,000 dollars"),
        (r"\sqrt{3}", "根号3"),
        ("1 和 3", "1和3"),
        ("-3 .", "-3"),
    ],
)
def test_equal_answers_the_peers_miss(gold: str, answer: str) -> None:
    correct, _, reason = run_cascade(gold, answer)
    assert correct is True, reason


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("|x|", "x"),  # equal for positive x only; both real and different for negative x
        (r"\sqrt{x^2}", "x"),
        (r"\frac{\pi}{3}", r"45^\circ"),
        ("(9, 10)", "10 chickens and 9 rabbits"),  # a tuple keeps its order
        (r"\{9, 10\}", "9 chickens and 11 rabbits"),
        ("18", "not 18 eggs"),
        ("18", "18 thousand eggs"),
        ("18", "about 18 eggs"),
        ("18", "18 eggs and 3 hens"),
        (r"C_n^3", r"\frac{n(n-1)}{6}"),
    ],
)
def test_near_misses_stay_false(gold: str, answer: str) -> None:
    assert run_cascade(gold, answer)[0] is False


def test_a_phrase_is_never_a_disproof() -> None:
    correct, _, reason = run_cascade("18", "17 eggs")
    assert (correct, _kind(reason)) == (False, "not proven")
    assert "words" in reason


# -- FALSE: disproved or only not proven ------------------------------------------------------------


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("2", "3"),
        (r"\frac{1}{3}", "0.33"),
        (r"2\pi", "2"),
        ("x + 1", "x + 2"),
        (r"\sin x", r"\cos x"),
        ("(1, 2)", "(1, 3)"),
        ("(1, 2)", "(1, 2, 3)"),
        (r"\{1, 2\}", r"\{1, 3\}"),
        ("[0, 1)", "[0, 1]"),
        ("[0, 1)", "[0, 2)"),
    ],
)
def test_values_that_differ_are_disproved(gold: str, answer: str) -> None:
    correct, decided_by, reason = run_cascade(gold, answer)
    assert (correct, decided_by, _kind(reason)) == (False, "sympy", "disproved")


@pytest.mark.parametrize(
    ("gold", "answer"),
    [
        ("x + 1", "y + 1"),  # a letter on one side only may be a unit or a word
        ("5", "5k"),
        ("x = 0", "k = 0"),
        (r"f(x)", r"g(x)"),
    ],
)
def test_failing_to_prove_is_not_a_disproof(gold: str, answer: str) -> None:
    correct, _, reason = run_cascade(gold, answer)
    assert (correct, _kind(reason)) == (False, "not proven")


def test_failing_to_simplify_is_not_a_disproof() -> None:
    # equal (sin^2 + cos^2 = 1 inside a root) though not every simplification shows it;
    # whatever the SymPy stage finds, it must not claim a disproof of an identity
    correct, _, reason = run_cascade(r"\sqrt{\sin^2 x + \cos^2 x + x^2 + 2x}", r"|x+1|")
    assert correct is True or _kind(reason) == "not proven"


def test_disproofs_with_a_pole_use_only_points_where_both_are_defined() -> None:
    correct, _, reason = run_cascade(r"\frac{x^2-1}{x-1}", "x + 1")
    assert correct is True, reason


def test_every_false_reason_says_its_kind() -> None:
    for gold, answer in [("2", "3"), ("x", "y"), (r"1, \ldots, n", "n"), ("18", "19 eggs")]:
        correct, decided_by, reason = run_cascade(gold, answer)
        assert not correct
        assert decided_by in ("sympy", "math_verify")
        _kind(reason)


# -- what the fallback is given ---------------------------------------------------------------------


def test_grade_hands_the_fallback_the_extracted_answer_not_the_response(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[list[str], list[str]]] = []
    real = fallback_module.fallback_many

    def spy(golds: Any, extracted: Any, **kwargs: Any) -> Any:
        seen.append((list(golds), list(extracted)))
        return real(golds, extracted, **kwargs)

    monkeypatch.setattr(fallback_module, "fallback_many", spy)
    response = "Let me think. We have many steps here.\n\nSo the answer is $\\boxed{\\frac{1}{\\sqrt{n}}}$."
    verdict = rapidgrade.grade(r"$\sqrt{1/n}$", response)
    assert seen == [([r"\sqrt{1/n}"], [r"\frac{1}{\sqrt{n}}"])]
    assert verdict.extracted == r"\frac{1}{\sqrt{n}}"
    assert (verdict.correct, verdict.decided_by) == (True, "sympy")


def test_grade_many_sends_only_undecided_pairs_and_their_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[list[str], list[str]]] = []
    real = fallback_module.fallback_many

    def spy(golds: Any, extracted: Any, **kwargs: Any) -> Any:
        seen.append((list(golds), list(extracted)))
        return real(golds, extracted, **kwargs)

    monkeypatch.setattr(fallback_module, "fallback_many", spy)
    golds = ["3", r"\sqrt{1/n}", "7"]
    responses = ["Thus \\boxed{3}.", "Long text 1 2 3. Finally, $\\boxed{\\frac{1}{\\sqrt{n}}}$", "\\boxed{8}"]
    results = rapidgrade.grade_many(golds, responses)
    assert results.correct.tolist() == [True, True, False]
    sent_rows = [i for i, v in enumerate(results) if v.decided_by != "fast"]
    assert 1 in sent_rows
    assert seen == [([golds[i] for i in sent_rows], [results[i].extracted for i in sent_rows])]


# -- grade() end to end where the fast path is not the one at fault ------------------------------------


@pytest.mark.parametrize(
    ("gold", "response", "correct"),
    [
        (r"\frac{1}{2004!}", r"\boxed{\frac{1}{2006!}}", False),
        (r"\log_3 27 = 3", r"\boxed{36^{\log_{36}216}=216}", False),
        (r"1, 2, \ldots, n", r"\boxed{1, 3, 5, \ldots, 2n-1}", False),
        (r"\sqrt{1/n}", r"\boxed{\frac{1}{\sqrt{n}}}", True),
        ("B", "So the answer is B", True),
        # The fast path (C++) decided these wrong before the fallback could see them; each is now
        # decided right by the core: a power's base as small as it can be (equiv_canonical.cpp),
        # the numbers of an unmarked final sentence read as a gold's list (grade.cpp), an answer in
        # degrees read as its number or its angle, and C_n^3 as n choose 3 (normalize.hpp rule 1,
        # functions.hpp kScriptNotations)
        (r"2^{2^{100}}", r"\boxed{4^{2^{99}}}", True),
        (r"\{9, 10\}", "There are 9 chickens and 10 rabbits.", True),
        (r"\frac{\pi}{4}", r"\boxed{45^\circ}", True),
        (r"C_n^3", r"\boxed{\frac{n(n-1)(n-2)}{6}}", True),
        (r"\frac{\pi}{4}", r"\boxed{46^\circ}", False),
        (r"C_n^3", r"\boxed{\frac{n(n-1)}{6}}", False),
    ],
)
def test_grade_end_to_end(gold: str, response: str, correct: bool) -> None:
    verdict = rapidgrade.grade(gold, response)
    assert verdict.correct is correct, verdict
