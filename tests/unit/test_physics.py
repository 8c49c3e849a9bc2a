r"""The physics task: every example of issue 13, the ambiguous choices, and unit-aware grading."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import rapidgrade
from rapidgrade import _core
from rapidgrade.tasks.physics import (
    PhysicsConfig,
    grade_physics,
    grade_physics_many,
    normalize_answer,
    normalize_answers_many,
)
from rapidgrade.units import parse_unit, unit_info

# (input, category, value) from section 1 of the issue; values that SymPy gives are checked
# with sympy=True below, these with the C++ flow alone.
ISSUE_EXAMPLES = [
    (r"\frac{2}{3}", "number", 2 / 3),
    ("500", "number", 500.0),
    ("-10", "number", -10.0),
    ("9.8", "number", 9.8),
    ("500/11", "number", 500 / 11),
    ("1/3", "number", 1 / 3),
    ("abc", "text", "abc"),
    ("from $B$ to $A$", "text", "from B to A"),
    ("9.8 m/s^2", "text", "9.8 m/s^2"),
    ("F = ma", "text", "F = ma"),
    ("$-10^{4} \\mathrm{A}/\\mathrm{s}$", "physical_quantity", "-10000 A/s"),
    ("$F = ma$", "equation", "F = ma"),
    ("$a + b$", "formula", "a + b"),
    ("$$x^2$$", "formula", "x^2"),
]


@pytest.mark.parametrize(("answer", "category", "value"), ISSUE_EXAMPLES)
def test_issue_examples_core_flow(answer: str, category: str, value: object) -> None:
    got = normalize_answer(answer, sympy=False)
    assert got[0] == category
    if isinstance(value, float):
        assert isinstance(got[1], float) and got[1] == pytest.approx(value, rel=1e-15)
    else:
        assert got[1] == value


def test_batch_matches_single() -> None:
    answers = [a for a, _, _ in ISSUE_EXAMPLES]
    assert normalize_answers_many(answers) == [normalize_answer(a, sympy=False) for a in answers]
    assert normalize_answers_many(answers, threads=2) == normalize_answers_many(answers, threads=1)


def test_extract_math_content_example() -> None:
    # "$-10^{4} \mathrm{A}/\mathrm{s}$" -> ("-10^{4} A/s", True): the clean math reaches the
    # quantity path; with the unit removed it is a formula whose value is that clean text.
    assert _core.physics_normalize("$-10^{4} \\mathrm{A}/\\mathrm{x}$") == ("formula", "-10^{4} A/x", True)
    assert _core.physics_normalize("$a + b$")[2] is True


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("$F = ma$", ("equation", "Eq(F, a*m)")),  # symbol case kept: not Eq(f, a*m)
        ("$E = mc^2$", ("equation", "Eq(E, c**2*m)")),
        ("$a + b$", ("formula", "a + b")),
        ("$$x^2$$", ("formula", "x**2")),
        (r"\frac{a}{b}", ("formula", "a/b")),  # a bare \frac has LaTeX patterns: converted
    ],
)
def test_sympy_conversion(answer: str, expected: tuple[str, str]) -> None:
    assert normalize_answer(answer) == expected


def test_sympy_batch_converts_distinct_once() -> None:
    out = normalize_answers_many(["$F = ma$", "$F = ma$", "9.8"], sympy=True)
    assert out == [("equation", "Eq(F, a*m)"), ("equation", "Eq(F, a*m)"), ("number", 9.8)]


def test_sympy_failure_keeps_clean_math() -> None:
    assert normalize_answer(r"$\frac{a}{$") == ("formula", r"\frac{a}{")


# The ambiguous choices of the issue, as documented in rapidgrade.tasks.physics.
@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # a stray closer before a gate: the flow goes on from the uncovered text
        ("\\]\\boxed{5}", ("number", 5.0)),
        ("\\)\\frac{1}{2} m", ("physical_quantity", "0.5 m")),
        ("\\]\\boxed{\\,", ("formula", "\\boxed{")),
        # nothing uncovered: text, delimiters removed
        ("\\]x", ("text", "x")),
        ("from $B$ to $A$", ("text", "from B to A")),
    ],
)
def test_text_that_uncovers_a_gate_is_read_on(answer: str, expected: tuple[str, object]) -> None:
    assert normalize_answer(answer, sympy=False) == expected
    value = expected[1]
    if isinstance(value, str):
        assert normalize_answer(value, sympy=False)[1] == value


def test_sign_of_power_is_outside() -> None:
    assert normalize_answer("$-10^{4} \\mathrm{m}$", sympy=False) == ("physical_quantity", "-10000 m")
    assert normalize_answer("$2^{3} \\mathrm{s}$", sympy=False) == ("physical_quantity", "8 s")


@pytest.mark.parametrize("answer", ["$2x$", "$2\\pi$", "$5\\times10^{3}$"])
def test_not_quantities(answer: str) -> None:
    assert normalize_answer(answer, sympy=False)[0] == "formula"


def test_frac_has_latex_patterns() -> None:
    assert _core.physics_normalize(r"\frac{a}{b}") == ("formula", r"\frac{a}{b}", True)
    assert _core.physics_normalize(r"\frac{2}{3}")[0] == "number"


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("$5.07 \\times 10^{1}\\,\\mathrm{atm}$", "50.7 atm"),
        ("$3.2 \\mathrm{~kJ} \\mathrm{~mol}^{-1}$", "3.2 kJ mol^{-1}"),
        ("$8.314 \\mathrm{J} \\mathrm{K}^{-1} \\mathrm{~mol}^{-1}$", "8.314 J K^{-1} mol^{-1}"),
        ("$5 \\mathrm{~N} / \\mathrm{C}$", "5 N / C"),
        ("$3 \\mu \\mathrm{C}$", "3 \\mu C"),
        ("$2 \\mathrm{dm}^3$", "2 dm^3"),
        ("$25^{\\circ}\\mathrm{C}$", "25 ^{\\circ}C"),
        ("$1.5 \\AA$", "1.5 \\AA"),
        ("$2 \\frac{m}{s}$", "2 m/s"),
        ("$2\u00a0\\mathrm{m}$", "2 m"),  # Unicode space to ASCII
    ],
)
def test_quantities(answer: str, value: str) -> None:
    assert normalize_answer(answer, sympy=False) == ("physical_quantity", value)


def test_boxed_number_and_empty() -> None:
    assert normalize_answer(r"\boxed{5}") == ("number", 5.0)
    assert normalize_answer("$$") == ("text", "")
    assert normalize_answer("1/0") == ("text", "1/0")


def test_idempotent_on_string_outputs() -> None:
    for answer, _, _ in ISSUE_EXAMPLES:
        _, value = normalize_answer(answer, sympy=False)
        if isinstance(value, str):
            assert normalize_answer(value, sympy=False)[1] == value


# -- units -------------------------------------------------------------------------------------


def test_every_unit_row_is_known_to_pint() -> None:
    for symbol, pint_name, prefixable in _core.PHYSICS_UNIT_SYMBOLS:
        assert unit_info(pint_name) is not None, symbol
        if prefixable:
            assert unit_info("kilo" + pint_name) is not None, symbol
    for _, prefix in _core.PHYSICS_UNIT_PREFIXES:
        assert unit_info(prefix + "meter") is not None, prefix


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        (r"\mathrm{~kJ} \mathrm{~mol}^{-1}", None),  # wrappers are removed before the grammar
        ("kJ mol^{-1}", "kilojoule * mole ** -1"),
        ("J K^{-1} mol^{-1}", "joule * kelvin ** -1 * mole ** -1"),
        ("N / C", "newton * coulomb ** -1"),
        ("m/s^2", "meter * second ** -2"),
        (r"\mu C", "microcoulomb"),
        ("dm^3", "decimeter ** 3"),
        (r"^{\circ}C", "degree_Celsius"),
        (r"\AA", "angstrom"),
        ("eV", "electron_volt"),
        ("atm", "standard_atmosphere"),
        ("kPa", "kilopascal"),
        ("pm", "picometer"),
        ("J/(mol K)", "joule * mole ** -1 * kelvin ** -1"),
        ("m s⁻¹", "meter * second ** -1"),
        ("x", None),
        ("\\pi", None),
    ],
)
def test_unit_grammar(text: str, expression: str | None) -> None:
    assert parse_unit(text) == expression


def test_greedy_unit() -> None:
    assert parse_unit("atm at sea level", greedy=True) == "standard_atmosphere"
    assert parse_unit("atm at sea level") is None


# -- grading (section 2) -----------------------------------------------------------------------

RESPONSES_50_7_ATM = [
    ("5.07 \\times 10^{1}\\,\\mathrm{atm}", True),
    ("51 atm", True),
    ("5.14 \\times 10^{6} Pa", True),
    ("$\\boxed{50.7\\ \\text{atm}}$", True),
    ("50.7", True),
    ("49 atm", False),
    ("50.7 J", False),
    ("5.07 kPa", False),
]


@pytest.mark.parametrize(("response", "correct"), RESPONSES_50_7_ATM)
@pytest.mark.parametrize("gold", [("50.7", "atm"), ("50.7 \\mathrm{atm}", None)])
def test_issue_grading_examples(gold: tuple[str, str | None], response: str, correct: bool) -> None:
    v = grade_physics(gold[0], response, unit=gold[1])
    assert v.correct is correct, v.reason
    assert v.path == "quantity"


def test_reasons_say_why() -> None:
    assert grade_physics("50.7", "50.7 J", unit="atm").reason == "quantity: unit mismatch: J vs atm"
    assert grade_physics("101.325", "1 atm", unit="kPa").reason == "quantity: equal after atm→kPa"
    assert "within 0.14% after kPa→atm" in grade_physics("50.7", "5130 kPa", unit="atm").reason


def test_unit_required() -> None:
    strict = PhysicsConfig(unit_required=True)
    assert not grade_physics("50.7", "50.7", unit="atm", config=strict).correct
    assert grade_physics("50.7", "50.7", unit="atm").correct


def test_sig_figs() -> None:
    tight = PhysicsConfig(rel_tol=1e-4)
    assert grade_physics("50.7", "51 atm", unit="atm", config=tight).reason == (
        "quantity: equal at 2 significant figures"
    )
    assert not grade_physics("50.7", "51 atm", unit="atm", config=PhysicsConfig(rel_tol=1e-4, sig_figs=False)).correct
    assert not grade_physics("50.7", "52 atm", unit="atm", config=tight).correct


def test_rel_tol() -> None:
    assert not grade_physics("100", "104 m", unit="m").correct
    assert grade_physics("100", "104 m", unit="m", config=PhysicsConfig(rel_tol=0.05)).correct


@pytest.mark.parametrize(
    ("gold", "unit", "response", "correct"),
    [
        ("25", "^{\\circ}C", "298.15 K", True),
        ("25", "^{\\circ}C", "77 °F", True),
        ("0", "^{\\circ}C", "273.15 K", True),
        ("25", "^{\\circ}C", "25 K", False),
        ("1.5", "\\AA", "150 pm", True),
        ("3", "\\mu C", "3 \\times 10^{-6} C", True),
        ("2", "dm^3", "2 L", True),
        ("-285.8", "kJ mol^{-1}", "-285800 J/mol", True),
        ("8.314", "J K^{-1} mol^{-1}", "$8.314 \\mathrm{J} \\mathrm{K}^{-1} \\mathrm{~mol}^{-1}$", True),
        ("13.6", "eV", "2.18 \\times 10^{-18} J", True),
        ("9.8", "m/s^2", "The answer is 9.8 m/s^2.", True),
        ("9.8", "m/s^2", "The answer is 9.8 N.", False),
        ("5", "N/C", "5 V/m", True),
    ],
)
def test_conversions(gold: str, unit: str, response: str, correct: bool) -> None:
    assert grade_physics(gold, response, unit=unit).correct is correct


def test_symbolic_and_text_paths() -> None:
    same = grade_physics("$F = ma$", "The answer is $F = am$")
    assert same.correct and same.path == "symbolic"
    # symbol case is kept: F and f are different variables, which the core already decides
    case = grade_physics("$F = ma$", "The answer is $f = ma$")
    assert not case.correct and case.decided_by == "fast"
    text = grade_physics("from B to A", "The answer is: from $B$ to $A$.")
    assert text.correct and text.path == "text"


def test_grade_task_keyword() -> None:
    v = rapidgrade.grade("50.7 atm", "so it is 51 atm", task="physics")
    assert v.correct and v.reason.startswith("quantity:")
    results = rapidgrade.grade_many(["50.7 atm", "50.7 atm"], ["51 kPa", "51 atm"], task="physics", rel_tol=0.05)
    assert results.correct.tolist() == [False, True]
    with pytest.raises(ValueError, match="unknown task"):
        rapidgrade.grade("1", "1", task="chemistry")
    # the math path is unchanged
    assert rapidgrade.grade("50.7", "51", task="math").correct is False


def test_bad_inputs_are_error_verdicts() -> None:
    out = grade_physics_many(["1", None], ["1 m", "2"])
    assert out[0].correct and out[1].decided_by == "error"
    assert math.isclose(grade_physics(50.7, "51 atm", unit="atm").value or 0, 51)


def test_score_cli(tmp_path: Path) -> None:
    from rapidgrade.__main__ import main

    rows = [
        {"id": 1, "gold": "50.7", "unit": "atm", "response": "so p = 51 atm"},
        {"id": 2, "gold": "50.7 \\mathrm{atm}", "response": "$\\boxed{5.14 \\times 10^{6}\\ \\mathrm{Pa}}$"},
        {"id": 3, "gold": "$F = ma$", "response": "The answer is $F = ma$"},
        {"id": 4, "gold": 9.8, "unit": "m/s^2", "response": "g = 9.8 N"},
        {"id": 5, "gold": "7", "response": "7"},
    ]
    src = tmp_path / "in.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["score", "--task", "physics", str(src), "--out", str(out), "--quiet"]) == 0
    records = [json.loads(line) for line in (out / "evaluated.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["correct"] for r in records] == [True, True, True, False, True]
    assert [r["category"] for r in records] == [
        "physical_quantity",
        "physical_quantity",
        "equation",
        "physical_quantity",
        "number",
    ]
    assert records[3]["reason"] == "quantity: unit mismatch: N vs m/s^2"
    metrics = json.loads((out / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["by_category"]["physical_quantity"] == {"total": 3, "correct": 2, "accuracy": 2 / 3}
    assert "Accuracy by category" in (out / "report.html").read_text(encoding="utf-8")


# -- the batch form: columns, verdicts built when read, pint once per distinct unit ------------


def test_results_are_columns_read_as_verdicts() -> None:
    golds = ["50.7", None, "$F = ma$", "from B to A", "0", "9.8"]
    responses = ["5130 kPa", "2", "The answer is $F = am$", "The answer is: from $B$ to $A$.", "1e-13 m", "9.8 J"]
    units = ["atm", None, None, None, "m", "m/s^2"]
    results = grade_physics_many(golds, responses, units=units)
    assert len(results) == 6
    singles = [grade_physics(g, r, unit=u) if g is not None else None for g, r, u in zip(golds, responses, units)]
    for i, single in enumerate(singles):
        if single is not None:
            assert results[i] == single
    assert [v.path for v in results] == ["quantity", "error", "symbolic", "text", "quantity", "quantity"]
    assert results[1].decided_by == "error" and results[1].reason == "gold must be a str, not NoneType"
    assert results[-1] == results[5] and results[-1].reason == "quantity: unit mismatch: J vs m/s^2"
    assert results[1:3] == [results[1], results[2]] and results[::-2] == [results[5], results[3], results[1]]
    with pytest.raises(IndexError):
        results[6]
    gold_texts = [f"{g} {u}" if u else g for g, u in zip(golds, units) if g]
    table = rapidgrade.grade_many(gold_texts, responses[:1] + responses[2:], task="physics")
    assert table.correct.tolist() == [results[i].correct for i in (0, 2, 3, 4, 5)]
    assert table.reason == [results[i].reason for i in (0, 2, 3, 4, 5)]
    value = results[0].value
    assert value is not None and table.normalized[0] == f"{value:.12g}" and table.normalized[1] is None


def test_pint_is_asked_once_per_distinct_unit(monkeypatch: pytest.MonkeyPatch) -> None:
    import rapidgrade.tasks.physics as physics

    asked: list[str] = []

    def counting(expression: str) -> object:
        asked.append(expression)
        return unit_info(expression)

    monkeypatch.setattr(physics, "unit_info", counting)
    golds = ["50.7 atm", "9.8 m/s^2", "1 J"] * 400
    responses = ["5130 kPa", "980 cm/s^2", "1 N", "51 atm", "9.8", "0.001 kJ"] * 200
    results = grade_physics_many(golds, responses)
    # 1200 pairs, 7 distinct units (atm, kPa, m/s^2, cm/s^2, J, N, kJ): 7 look-ups
    assert sorted(asked) == sorted(set(asked)) and len(asked) == 7
    assert [v.correct for v in results[:6]] == [True, True, False, True, True, True]
