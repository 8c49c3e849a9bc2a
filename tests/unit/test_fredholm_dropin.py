"""The fredholm task as a drop-in for fred-llm (ammahmoudi/fred-llm): the result shapes read as
fred-llm's dicts, SymPy objects are accepted where fred-llm's documented example passes them,
fred-llm's accuracy denominator and statistics blocks, its default domain, and the symbol rules
of its parser (``FREDHOLM_LOCAL_DICT``: infix ``e`` is Euler's number, multi-letter names) with
Unicode subscripts."""

from __future__ import annotations

import keyword
import math
from typing import Any

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from rapidgrade import _core
from rapidgrade.tasks.fredholm import (
    EvalConfig,
    FredholmMetrics,
    evaluate_solution,
    evaluate_solutions,
    parse_llm_output,
    parse_llm_outputs_many,
    symbol_table,
)
from tests.datasets import fredholm_row as _row

#: The keys of fred-llm's parse_llm_output dict, in its order (src/postprocessing/parse.py at
#: ef0f6f3: the ``result = {...}`` it starts from and returns).
FRED_LLM_PARSE_KEYS = [
    "solution_str",
    "solution_sympy",
    "has_solution",
    "solution_type",
    "discrete_points",
    "reasoning",
    "confidence",
    "raw_response",
]

RESPONSE = (
    "Step 1: separate the kernel.\nSOLUTION: u(x) = x^{2} + \\sin(x)\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic"
)


# -- parse_llm_output reads as fred-llm's dict ------------------------------------------------------


def test_parse_result_is_fred_llms_dict() -> None:
    p = parse_llm_output(RESPONSE)
    assert list(p) == list(p.keys()) == FRED_LLM_PARSE_KEYS and len(p) == 8
    assert p["confidence"] == 0.8 and p["solution_str"] == "x^{2} + \\sin(x)" and p["has_solution"] is True
    assert p["solution_type"] == "exact_symbolic" and p["reasoning"] == p.reasoning is not None
    assert p["raw_response"] == RESPONSE and p["discrete_points"] is None
    assert "solution_str" in p and "syntax" not in p and "expr_text" not in p
    assert p.get("method") is None and p.get("confidence") == 0.8
    with pytest.raises(KeyError):
        p["method"]  # an attribute of ours, not a key of fred-llm's dict
    d = dict(p)
    assert list(d) == FRED_LLM_PARSE_KEYS
    # as in fred-llm, solution_sympy is a SymPy expression (the JSON form, to_dict, holds its str)
    x = sp.Symbol("x")
    assert isinstance(d["solution_sympy"], sp.Expr) and sp.simplify(d["solution_sympy"] - (x**2 + sp.sin(x))) == 0
    assert {k: v for k, v in d.items() if k != "solution_sympy"} == {
        k: v for k, v in p.to_dict().items() if k != "solution_sympy"
    }
    assert dict(p.items()) == d and list(p.values())[6] == 0.8
    # the attributes stay as they were
    assert (p.solution_str, p.confidence, p.method, p.syntax) == ("x^{2} + \\sin(x)", 0.8, "ux_line", "latex")
    assert hash(p) == hash(parse_llm_output(RESPONSE)) and p == parse_llm_output(RESPONSE)


def test_parse_result_points_and_nothing_found() -> None:
    p = parse_llm_output("SOLUTION: [(0.0, 1.5), (0.5, 2.5)]\nSOLUTION_TYPE: discrete_points")
    assert p["discrete_points"] == [(0.0, 1.5), (0.5, 2.5)] and p["solution_sympy"] is None
    empty = dict(parse_llm_output("I could not solve it."))
    assert empty["solution_str"] is None and empty["solution_sympy"] is None and empty["confidence"] == 0.0


# -- evaluate_solutions reads as fred-llm's metrics dict ------------------------------------------


def test_metrics_are_fred_llms_dict() -> None:
    rows = [_row("x^2", "x^{2}", "exact_symbolic"), _row("x^3", "x^{2}", "exact_symbolic")]
    m = evaluate_solutions(rows)
    assert isinstance(m, FredholmMetrics)
    assert m["accuracy"] == 0.5 and m["total"] == 2 and m["correct"] == 1
    assert dict(m) == m.summary and list(m) == list(m.summary) and len(m) == len(m.summary)
    assert "per_type" in m and m.get("no such key", "-") == "-"
    assert m["per_type"]["exact_symbolic"] == {"total": 2, "correct": 1, "accuracy": 0.5}
    assert m.to_dict()["accuracy"] == 0.5 and len(m.rows) == 2


# -- SymPy objects as well as strings --------------------------------------------------------------------


def test_fred_llms_documented_example() -> None:
    # docs/EVALUATION_PIPELINE.md of fred-llm: solution_sympy and ground_truth are SymPy objects
    metrics = evaluate_solutions(
        predictions=[
            {
                "solution_sympy": sp.sympify("x**2"),
                "ground_truth": sp.sympify("x**2"),
                "has_solution": True,
                "solution_type": "exact_symbolic",
            },
        ],
        domains=[(-2, 2)],
    )
    assert metrics["accuracy"] == 1.0 and metrics["total"] == 1
    ev = metrics.rows[0]["evaluation"]
    assert ev["symbolic"]["equivalent"] and ev["numeric"]["match"]
    assert ev["numeric"]["x_values"][0] == -2.0 and ev["numeric"]["x_values"][-1] == 2.0


def test_sympy_solutions_and_ground_truths() -> None:
    x, c = sp.symbols("x C")
    wrong = {"solution_str": sp.sin(x), "ground_truth": sp.cos(x)}
    rows = [
        _row(None, "x^{2}", "exact_symbolic", solution_sympy=x**2),  # SymPy solution, LaTeX truth
        _row("e^{-x}", "0", "exact_symbolic", ground_truth=sp.exp(-x)),  # text solution, SymPy truth
        _row(None, "0", "exact_symbolic", solution_sympy="exp(x) + 1", ground_truth=sp.exp(x) + 1),
        _row(None, "0", "exact_symbolic", **wrong),
        _row(None, "0", "family", solution_str=2 * c * sp.sin(x), ground_truth=c * sp.sin(x)),
    ]
    m = evaluate_solutions(rows)
    assert [r["evaluation"]["correct"] for r in m.rows] == [True, True, True, False, True]
    # SymPy's Symbol("e") is a symbol (SymPy prints Euler's number as E)
    e = sp.Symbol("e")
    assert evaluate_solution(sp.E * x, "e x")["correct"] and not evaluate_solution(e * x, "e x")["correct"]
    assert evaluate_solution(sp.exp(x), "e**x")["correct"]


def test_parse_llm_output_of_a_sympy_expression() -> None:
    x, lam = sp.symbols("x lambda_1")
    expr = lam * sp.sin(x) + sp.E
    p = parse_llm_output(expr)
    assert p.method == "sympy" and p.syntax == "infix" and p.solution_sympy is expr and p["solution_sympy"] is expr
    assert p.solution_str == "lambda_1*sin(x) + E" and p.has_solution is True and p.confidence == 0.8
    assert p.solution_expr is not None and p.solution_expr.free_symbols == frozenset({"x", "lambda_1"})
    assert p.to_dict()["solution_sympy"] == str(p.solution_expr)
    many = parse_llm_outputs_many(["u(x) = x", sp.cos(x), "nothing"])
    assert [q.method for q in many] == ["ux_line", "sympy", "none"]
    with pytest.raises(TypeError, match="str or a SymPy expression"):
        parse_llm_output(3)  # type: ignore[arg-type]


# -- fred-llm's accuracy denominator, statistics and default domain ------------------------------------


def test_denominator_counts_unparsed_and_no_solution_answers() -> None:
    rows = [
        _row("x^2", "x^{2}", "exact_symbolic"),
        _row(r"\frac{", "x", "series"),  # fred-llm parses nearly anything, then scores it wrong
        _row(None, "x", "approx_coef", has_solution=False),  # "No solution" for an equation with one
        _row(None, "x", "exact_symbolic", has_solution=None),  # nothing found: not evaluated
        _row("x", "x", "exact_symbolic", api_error=True),
    ]
    m = evaluate_solutions(rows)
    assert (m["total"], m["correct"], m["accuracy"]) == (3, 1, 1 / 3)
    assert m["per_type"] == {
        "exact_symbolic": {"total": 1, "correct": 1, "accuracy": 1.0},
        "series": {"total": 1, "correct": 0, "accuracy": 0.0},
        "approx_coef": {"total": 1, "correct": 0, "accuracy": 0.0},
    }
    assert m["evaluated_count"] == 3 and m["total_predictions"] == 5 and m["api_errors"] == 1
    old = evaluate_solutions(rows, denominator="parsed")
    assert (old["total"], old["accuracy"]) == (1, 1.0) and set(old["per_type"]) == {"exact_symbolic"}
    assert evaluate_solutions(rows, config=EvalConfig(denominator="parsed"))["total"] == 1
    with pytest.raises(ValueError, match="denominator"):
        EvalConfig(denominator="all")


def test_discrete_points_stats_as_fred_llm_writes_them() -> None:
    ep = {"x_values": [0.0, 0.5], "u_values": [1.0, 2.0], "n_points": 2}
    rows = [
        _row("[(0.0, 1.0), (0.5, 2.0)]", "0", "discrete_points", evaluation_points=ep),  # compared point-wise
        _row("x + 1", "0", "discrete_points"),  # an expression: compared as a function
        _row(r"\frac{", "0", "discrete_points"),  # not parsed
    ]
    s = evaluate_solutions(rows)
    assert s["per_type"]["discrete_points"]["total"] == 3
    stats = s["discrete_points_stats"]
    assert stats["total"] == 3 and stats["matched_point_rate"] == 1.0
    assert stats["mean_accuracy"] == pytest.approx(1 / 3) and stats["mean_rmse"] == math.inf
    # fred-llm's shape when no row was compared point-wise (its recorded metrics: rate 0, rmse inf)
    only = evaluate_solutions(rows[2:])["discrete_points_stats"]
    assert only == {"total": 1, "matched_point_rate": 0.0, "mean_accuracy": 0.0, "mean_rmse": math.inf}
    assert "discrete_points_stats" not in evaluate_solutions([_row("x", "x", "exact_symbolic")])


def test_a_row_without_a_domain_uses_the_default_domain() -> None:
    row = _row("x", "x", "exact_symbolic")
    del row["ground_truth_domain"]
    xs = evaluate_solutions([row]).rows[0]["evaluation"]["numeric"]["x_values"]
    assert (xs[0], xs[-1]) == (0.0, 1.0)  # fred-llm's code: ground_truth_domain or [0, 1]
    xs = evaluate_solutions([row], default_domain=(-1.0, 1.0)).rows[0]["evaluation"]["numeric"]["x_values"]
    assert (xs[0], xs[-1]) == (-1.0, 1.0)
    # where they differ: sqrt(x**2) is x on [0, 1], not on (-1, 1)
    row["solution_str"] = "sqrt(x**2)"
    assert evaluate_solutions([row])["accuracy"] == 1.0
    assert evaluate_solutions([row], default_domain=(-1, 1), symbolic_timeout=2.0)["accuracy"] == 0.0


# -- the symbol rules: multi-letter names, e, the table, subscripts ----------------------------------------


@pytest.mark.parametrize(
    ("answer", "canonical", "symbols"),
    [
        ("lam*x + mu*sin(x)", "lam*x + mu*sin(x)", {"lam", "mu", "x"}),
        ("lambda_1*x", "lambda_1*x", {"lambda_1", "x"}),
        ("mu*x", "mu*x", {"mu", "x"}),  # LaTeX would read m*u*x
        ("alpha/x + beta_2*x**2", "alpha/x + beta_2*x**2", {"alpha", "beta_2", "x"}),
        ("kappa*exp(-x) + c_1", "kappa*exp(-x) + c_1", {"kappa", "c_1", "x"}),
        ("e**x", "exp(x)", {"x"}),
        ("2*e*x", "2*E*x", {"x"}),
        ("a₀ + a₁x", "a_0 + a_1*x", {"a_0", "a_1", "x"}),
        ("a₀ + a₁*x**2", "a_0 + a_1*x**2", {"a_0", "a_1", "x"}),
        ("c₁₂ sin(x)", "c_12*sin(x)", {"c_12", "x"}),
    ],
)
def test_infix_names_and_subscripts(answer: str, canonical: str, symbols: set[str]) -> None:
    p = parse_llm_output(f"SOLUTION: u(x) = {answer}\nHAS_SOLUTION: yes")
    assert p.solution_str == answer and p.confidence == 0.8 and p.method == "ux_line"
    assert p.solution_expr is not None and p.solution_expr.free_symbols == frozenset(symbols)
    assert _core.equivalent(p.solution_expr, _core.parse_expr(canonical, syntax="infix")) == 1


def test_identical_infix_answers_with_long_names_are_correct() -> None:
    for text in ("lam*x + mu*sin(x)", "lambda_1*x", "a₀ + a₁x"):
        r = evaluate_solution(text, text)
        assert r["correct"] and r["symbolic"]["equivalent"], text
    assert evaluate_solution("a₀ + a₁x", "a_{0} + a_{1} x")["correct"]
    assert evaluate_solution("lam*x + mu*sin(x)", "mu*sin(x) + x*lam")["correct"]
    assert not evaluate_solution("lam*x + mu*sin(x)", "lam*x + mu*cos(x)")["correct"]


def test_words_are_not_names() -> None:
    for text in ("undefined", "none", "see above", "trivial solution only"):
        p = parse_llm_output(f"SOLUTION: u(x) = {text}")
        assert p.solution_expr is None and p.confidence < 0.7, text


def test_infix_e_is_eulers_number() -> None:
    # fred-llm's FREDHOLM_LOCAL_DICT maps "e" to sympy.E
    assert evaluate_solution("e**(-x)", "\\exp(-x)")["correct"]
    assert evaluate_solution("x*e**x", "x e^{x}")["correct"]
    p = parse_llm_output("u(x) = e**x", symbols={"e": None})  # the table can keep e a symbol
    assert p.solution_expr is not None and p.solution_expr.free_symbols == frozenset({"e", "x"})


def test_symbols_extend_the_table() -> None:
    p = parse_llm_output("u(x) = k*x + g", symbols={"g": 9.81, "k": -2})
    assert p.solution_expr is not None and p.solution_expr.free_symbols == frozenset({"x"})
    assert p.syntax == "infix" and _core.fredholm_sample_many([(p.expr_text, p.syntax)], [np.array([1.0])])[0][0] == (
        pytest.approx(7.81)
    )
    p = parse_llm_output("u(x) = lam*x", symbols={"lam": "lambda"})
    assert p.solution_expr is not None and p.solution_expr.free_symbols == frozenset({"lambda", "x"})
    assert evaluate_solution("lam*x", "\\lambda x", symbols={"lam": "lambda"})["correct"]
    assert evaluate_solution("ee*x", "e x", symbols={"ee": "E"})["correct"]
    # fred-llm's own table (names to SymPy objects, a function class among them) is accepted
    x, t, c = sp.symbols("x t C")
    local_dict = {"x": x, "t": t, "e": sp.E, "pi": sp.pi, "C": c, "Integral": sp.Integral, "oo": sp.oo}
    assert symbol_table(local_dict) == {
        "x": ("symbol", "x"),
        "t": ("symbol", "t"),
        "e": ("const", "E"),
        "pi": ("const", "pi"),
        "C": ("symbol", "C"),
        "oo": ("const", "oo"),
    }
    assert evaluate_solution("C*e**x", "C e^{x}", solution_type="family", symbols=local_dict)["correct"]
    rows = [_row("w*x", "2 x", "exact_symbolic")]
    assert evaluate_solutions(rows, symbols={"w": sp.Integer(2)})["accuracy"] == 1.0
    assert evaluate_solutions(rows)["accuracy"] == 0.0


@pytest.mark.parametrize(
    ("symbols", "error"),
    [
        ({"1x": None}, "not a name"),
        ({"k": float("inf")}, "finite"),
        ({"k": True}, "bool"),
        ({"k": "not a name"}, "not a name"),
        ({"k": [1]}, "not a value"),
        ("lam", "not a string"),
        ({"k": sp.sin(sp.Symbol("x"))}, "symbol, a constant or a number"),
    ],
)
def test_bad_symbols_are_refused(symbols: Any, error: str) -> None:
    with pytest.raises((ValueError, TypeError), match=error):
        parse_llm_output("u(x) = x", symbols=symbols)


# -- generated names and expressions ------------------------------------------------------------------

#: Words that are not parameter names: constants, the variables, function names of the table.
_RESERVED = {"pi", "oo", "E", "I", "e", "x", "t"} | {
    w for row in _core.expr_function_table() for field in row[:5] for w in str(field).replace(",", " ").split()
}


def _names() -> st.SearchStrategy[str]:
    letters = st.text(alphabet="abcdfghjklmnopqrsuvwyzABDFGHJKLMNOPQRTUVWXYZ", min_size=2, max_size=6)
    greek = st.sampled_from(["alpha", "beta", "lam", "lambda", "mu", "nu", "kappa", "omega", "theta", "sigma"])
    sub = st.one_of(st.just(""), st.integers(0, 99).map(lambda k: f"_{k}"))
    names = st.builds(lambda b, s: b + s, st.one_of(letters, greek), sub)
    return names.filter(lambda w: w not in _RESERVED and not keyword.iskeyword(w))


#: Infix terms and their values (numpy).
_FUNCS: dict[str, Any] = {
    "sin(x)": np.sin,
    "cos(x)": np.cos,
    "exp(-x)": lambda x: np.exp(-x),
    "x**2": lambda x: x**2,
    "x": lambda x: x,
    "1/(1 + x**2)": lambda x: 1 / (1 + x**2),
}


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(_names(), min_size=1, max_size=3, unique=True),
    funcs=st.lists(st.sampled_from(sorted(_FUNCS)), min_size=3, max_size=3),
    values=st.lists(st.floats(-3, 3, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=3, max_size=3),
)
def test_generated_infix_answers_with_long_names(names: list[str], funcs: list[str], values: list[float]) -> None:
    terms = [f"{n}*{f}" for n, f in zip(names, funcs)]
    text = " + ".join(terms)
    p = parse_llm_output(f"Therefore\nu(x) = {text}\nHAS_SOLUTION: yes")
    assert p.syntax == "infix" and p.solution_expr is not None, text
    assert p.solution_expr.free_symbols == frozenset(names) | {"x"}, text
    # its values are the expression's, with the names given values
    env = dict(zip(names, values))
    xs = np.linspace(0.1, 0.9, 5)
    got = _core.fredholm_sample_many([(p.expr_text, p.syntax)], [xs], constants=env)[0]
    want = sum(env[n] * _FUNCS[f](xs) for n, f in zip(names, funcs))
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12), text
    # an identical answer is correct; the same terms in another order too
    assert evaluate_solution(text, text)["correct"]
    assert evaluate_solution(" + ".join(reversed(terms)), text)["correct"]


_SUBSCRIPT = "₀₁₂₃₄₅₆₇₈₉"


@settings(max_examples=60, deadline=None)
@given(
    base=st.sampled_from(["a", "b", "c", "C", "k"]),
    index=st.integers(0, 999),
    implicit=st.booleans(),
)
def test_generated_unicode_subscripts(base: str, index: int, implicit: bool) -> None:
    sub = "".join(_SUBSCRIPT[int(d)] for d in str(index))
    text = f"{base}{sub}x" if implicit else f"{base}{sub} \\sin(x)"
    p = parse_llm_output(f"u(x) = {text}")
    assert p.solution_expr is not None and p.solution_expr.free_symbols == frozenset({f"{base}_{index}", "x"}), text
    assert p.solution_str == text
    latex = f"{base}_{{{index}}} x" if implicit else f"{base}_{{{index}}} \\sin(x)"
    assert _core.equivalent(p.solution_expr, _core.parse_expr(latex, syntax="latex")) == 1
