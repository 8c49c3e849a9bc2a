r"""The residual check of integral equations (``rapidgrade.tasks.fredholm.verify_residual``).

The table is fred-llm's own examples of its ``verify_solution`` (``tests/test_evaluate.py``,
``tests/test_agentic_runner.py``, ``tests/test_first_kind.py``, the docstrings) with its
verdicts; the corpus test (marked ``shared``) compares ours with fred-llm's verdicts on the
equations stated in the prompts of ``fredholm_dev.jsonl``, recorded by
``python -m benchmarks.bench_fredholm --record`` in ``tests/data/fredholm/residual_fredllm.jsonl``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from rapidgrade import _core
from rapidgrade.tasks.fredholm import (
    IntegralEquation,
    ResidualConfig,
    ResidualVerdict,
    parse_llm_output,
    residual_column,
    residual_rewards,
    residual_verification,
    select_by_residual,
    verify_residual,
    verify_residual_many,
)

REPO = Path(__file__).resolve().parents[2]
RECORDED = REPO / "tests" / "data" / "fredholm" / "residual_fredllm.jsonl"

# fred-llm's tests/test_agentic_runner.py: u(x) - 0.5 * int_0^1 x*t*u(t) dt = x  =>  u(x) = 6x/5
AGENTIC_EQ = IntegralEquation("x*t", "x", 0.5, (0, 1))
CORRECT = (
    "REASONING: separable kernel, solved the linear system.\n"
    "SOLUTION: u(x) = 6*x/5\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic\n"
)
WRONG = "REASONING: quick guess.\nSOLUTION: u(x) = x\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic\n"
NONE_CLAIM = (
    "REASONING: lambda is a characteristic value and f is not orthogonal.\n"
    "SOLUTION: none\nHAS_SOLUTION: no\nSOLUTION_TYPE: none\n"
)

# (candidate, kernel, f, lambda, domain, fred-llm's verified, our status, our reason)
TABLE = [
    # test_evaluate.py TestVerifySolution.test_simple_valid_solution: u - int_0^1 x t u = x, u = 3x/2
    ("3*x/2", "x*t", "x", 1.0, (0, 1), True, "verified", ""),
    ("\\frac{3x}{2}", "x t", "x", 1.0, (0, 1), True, "verified", ""),
    # test_handles_errors_gracefully: 1/x on (0.1, 1) is no solution (no crash)
    ("1/x", "x*t", "x", 1.0, (0.1, 1), False, "failed", "residual_above_tolerance"),
    # test_agentic_runner.py: CORRECT / WRONG candidates of its EQUATION
    ("6*x/5", "x*t", "x", 0.5, (0, 1), True, "verified", ""),
    ("x", "x*t", "x", 0.5, (0, 1), False, "failed", "residual_above_tolerance"),
    # TestResidualVerificationWiring's row: solution_str 3*x/2, kernel x*t, f x, lambda 1
    ("u(x) = 3*x/2", "x*t", "x", 1.0, (0, 1), True, "verified", ""),
]


@pytest.mark.parametrize(("cand", "kernel", "f", "lam", "domain", "verified", "status", "reason"), TABLE)
def test_fredllm_examples(
    cand: str, kernel: str, f: str, lam: float, domain: tuple[float, float], verified: bool, status: str, reason: str
) -> None:
    v = verify_residual(cand, kernel, f, lam, domain=domain)
    assert (v.verified, v.status, v.reason) == (verified, status, reason)
    assert v["verified"] is verified  # reads as fred-llm's dict
    assert set(dict(v)) == {"verified", "residual_max", "residual_mean", "residual_mae", "residual_rmse"}
    if verified:
        assert v.residual_max < 1e-12 and v.quadrature_error < 1e-12
    else:
        assert v.residual_max > 1e-2


def test_residual_values_are_the_residual() -> None:
    # u = x for u - 0.5 int_0^1 x t u dt = x: r(x) = x - 0.5 x / 3 - x = -x/6, exactly
    v = verify_residual("x", "x*t", "x", 0.5, domain=(0, 1), x_values=[0.0, 0.3, 1.0])
    np.testing.assert_allclose(v.residuals, [0.0, -0.05, -1 / 6], atol=1e-15)
    np.testing.assert_array_equal(v.x_values, [0.0, 0.3, 1.0])
    assert v.residual_max == pytest.approx(1 / 6)
    assert v.residual_mean == pytest.approx((0.05 + 1 / 6) / 3)
    assert v["residual_mae"] == v.residual_mean
    assert v.residual_rmse == pytest.approx(math.sqrt((0.05**2 + (1 / 6) ** 2) / 3))


def test_default_points_are_cell_midpoints() -> None:
    v = verify_residual("x", "x*t", "x", 0.5, domain=(-1, 3), n_points=4)
    np.testing.assert_allclose(v.x_values, [-0.5, 0.5, 1.5, 2.5])


def test_runaway_candidate_is_skipped_fast() -> None:
    # test_skips_runaway_candidate: a ~1000-term polynomial is never integrated
    huge = " + ".join(f"{i}*x**{i}" for i in range(1, 1000))
    t0 = time.perf_counter()
    v = verify_residual(huge, "x*t", "x", 1.0, domain=(0, 1))
    assert time.perf_counter() - t0 < 2.0
    assert (v.verified, v.status, v.reason) == (False, "unverifiable", "candidate_too_large")
    assert v.to_dict()["error"] == "candidate_too_large"
    assert v.residual_max == math.inf
    # under the cap it is checked (not a solution)
    assert verify_residual(" + ".join(f"{i}*x**{i}" for i in range(1, 20)), "x*t", "x", 1.0).status == "failed"


def test_agentic_selection() -> None:
    # test_verified_candidate_wins: degenerate_kernel WRONG, adomian CORRECT, neumann WRONG -> adomian
    sols = [parse_llm_output(r).solution_str for r in (WRONG, CORRECT, WRONG)]
    best, verdicts = select_by_residual(sols, AGENTIC_EQ)
    assert best == 1
    assert [v.status for v in verdicts] == ["failed", "verified", "failed"]
    # a no-solution claim is unverifiable (fred-llm: has_solution False -> "unverifiable")
    none = parse_llm_output(NONE_CLAIM)
    assert none.has_solution is False
    assert verify_residual(none.solution_str or "none", equation=AGENTIC_EQ).status == "unverifiable"
    assert select_by_residual(sols[:1], AGENTIC_EQ)[0] is None
    # smallest residual among verified ones, the first of equals
    assert select_by_residual(["1.2*x", "6*x/5", "x"], AGENTIC_EQ)[0] == 0


def test_free_constants() -> None:
    # a family answer: fred-llm's agentic check sets its constants to 1; without that it is unverifiable
    eq = IntegralEquation("1", "0", 1.0, (0, 1))  # u = C for every C
    v = verify_residual("C", equation=eq)
    assert (v.status, v.reason) == ("unverifiable", "free_symbol: C")
    assert "error" in v
    assert verify_residual("C", equation=eq, config=ResidualConfig(free_constants=1.0)).verified
    assert verify_residual("C", equation=eq, config=ResidualConfig(constants={"C": -2.5})).verified
    assert not verify_residual("C x", equation=eq, config=ResidualConfig(free_constants=1.0)).verified


def test_first_kind() -> None:
    # int_0^1 x t u(t) dt = x/2 has u = 1 (among others): a first-kind residual
    eq = IntegralEquation("x t", "x/2", 1.0, (0, 1), kind="first")
    assert verify_residual("1", equation=eq).verified
    assert verify_residual("3t", equation=eq).status == "unverifiable"  # t is no variable of u
    assert verify_residual("3x/2", equation=eq).verified  # int t * 3t/2 = 1/2 as well
    assert verify_residual("x", equation=eq).status == "failed"
    # fred-llm renders first-kind equations (its lambda = 0 sentinel) without "u(x) -"
    p = IntegralEquation.from_prompt("∫_0.0^1.0 e^{x t} * u(t) dt = e^{x}")
    assert p is not None and (p.kind, p.lambda_val, p.kernel, p.f) == ("first", 1.0, "e^{x t}", "e^{x}")


def test_from_prompt() -> None:
    p = IntegralEquation.from_prompt(
        "Solve the following Fredholm integral equation:\n\n"
        "u(x) - -0.06818402686925978 * ∫_-3.6896023805098928^2.4322081790944488 t + x + 1 * u(t) dt = "
        "\\left(x + 1\\right) \\sin{\\left(80 \\pi x \\right)}\n\nDomain: [-3.6896023805098928, 2.4322081790944488]"
    )
    assert p is not None
    assert p.kernel == "t + x + 1" and p.lambda_val == -0.06818402686925978 and p.kind == "second"
    assert p.domain == (-3.6896023805098928, 2.4322081790944488)
    assert p.f.startswith("\\left(x + 1\\right)")
    assert IntegralEquation.from_prompt("Find u.") is None


def test_oscillatory_and_weakly_singular() -> None:
    # u = sin(80 pi x) with f chosen so that it solves u - 0.3 int_0^1 x t u dt = f
    i1 = -1 / (80 * math.pi)  # int_0^1 t sin(80 pi t) dt
    v = verify_residual("\\sin(80\\pi x)", "x t", f"\\sin(80\\pi x) - 0.3 x ({i1!r})", 0.3)
    assert v.verified and v.nodes > 64
    # log|x - t| is integrable but not smooth: refinement up to the cap, then an honest bound
    w = verify_residual("1", "\\ln|x-t|", "1", 0.0)
    assert w.verified  # lambda = 0: no integral at all
    s = verify_residual("x", "\\ln|x-t|", "x", 1.0)
    assert s.status == "failed" and s.nodes <= 4096 and s.quadrature_error < s.residual_max


def test_non_finite_and_errors() -> None:
    # undefined at a sample point: the residual is not finite (fred-llm: nan -> not verified)
    v = verify_residual("\\sqrt{x}", "x t", "x", 1.0, domain=(-1, 1))
    assert (v.status, v.reason) == ("failed", "non_finite") and math.isnan(v.residual_max)
    assert verify_residual("\\frac{", "x t", "x", 1.0).reason == "parse_failed"
    assert verify_residual("f(x) + 1", "x t", "x", 1.0).reason == "not_numeric"
    assert verify_residual("x", "\\frac{", "x", 1.0).reason == "kernel_parse_failed"
    assert verify_residual("x", "x t", "y", 1.0).reason == "f_free_symbol: y"
    assert verify_residual("x", "x t s", "x", 1.0).reason == "kernel_free_symbol: s"
    assert verify_residual("x", "x t", "x", 1.0, domain=(1, 1)).reason == "bad_domain"
    with pytest.raises(ValueError, match="sample points exceed"):
        verify_residual("x", "x t", "x", 1.0, n_points=5000)
    with pytest.raises(ValueError, match="kind"):
        IntegralEquation("x", "x", 1.0, kind="third")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="lambda_val"):
        verify_residual("x", "x t", "x")
    with pytest.raises(ValueError, match="tolerance"):
        ResidualConfig(tolerance=0)


def test_sympy_inputs() -> None:
    sympy = pytest.importorskip("sympy")
    x, t = sympy.symbols("x t")
    v = verify_residual(sympy.Rational(6, 5) * x, x * t, x, 0.5, domain=(0, 1))
    assert v.verified


def test_batch_rewards_and_threads() -> None:
    cands = ["x", "6*x/5", "No solution", "1.2*x + 1e-5"] * 50
    one = verify_residual_many(cands, AGENTIC_EQ, config=ResidualConfig(threads=1))
    two = verify_residual_many(cands, AGENTIC_EQ, config=ResidualConfig(threads=2))
    assert [v.status for v in one] == [v.status for v in two]
    assert [v.residual_max for v in one] == [v.residual_max for v in two]
    assert [v.status for v in one[:4]] == ["failed", "verified", "unverifiable", "failed"]
    assert residual_rewards(cands[:4], AGENTIC_EQ) == [0.0, 1.0, 0.0, 0.0]
    shaped = residual_rewards(cands[:4], AGENTIC_EQ, shaped=True)
    assert shaped[1] == 1.0 and shaped[2] == 0.0 and 0 < shaped[0] < shaped[3] < 1
    # one equation per candidate
    eqs = [AGENTIC_EQ, IntegralEquation("x*t", "x", 1.0, (0, 1))]
    assert [v.verified for v in verify_residual_many(["6x/5", "3x/2"], eqs)] == [True, True]
    with pytest.raises(ValueError, match="equations"):
        verify_residual_many(["x"], eqs)
    with pytest.raises(TypeError, match="not one str"):
        verify_residual_many("x", AGENTIC_EQ)
    assert verify_residual_many([], AGENTIC_EQ) == []


def test_batch_lets_ctrl_c_through(ctrl_c_in: Callable[[float], None]) -> None:
    # a long batch (about 40 s) is interrupted between blocks (the core checks for signals, GIL
    # released)
    cands = [" + ".join(f"sin({k}*x)" for k in range(1, 60))] * 20000
    eq = IntegralEquation("\\ln|x-t| + x t", "x", 1.0, (0, 1))
    ctrl_c_in(0.3)
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        verify_residual_many(cands, eq, config=ResidualConfig(threads=2))
    assert time.perf_counter() - t0 < 30


def test_evaluation_column() -> None:
    # fred-llm's TestResidualVerificationWiring rows
    rows: list[dict[str, Any]] = [
        {
            "equation_id": "eq_1",
            "solution_str": "3*x/2",
            "ground_truth": "3*x/2",
            "ground_truth_solution_type": "exact_symbolic",
            "ground_truth_kernel": "x*t",
            "ground_truth_f": "x",
            "ground_truth_lambda": 1.0,
            "ground_truth_domain": [0, 1],
        },
        {
            "equation_id": "eq_2",
            "solution_str": "x",
            "ground_truth": "x",
            "ground_truth_solution_type": "exact_symbolic",
        },
        {
            "equation_id": "eq_3",
            "solution_str": "x",
            "prompt": "Solve:\nu(x) - 0.5 * ∫_0^1 x t * u(t) dt = x\nDomain: [0, 1]",
            "evaluation_points": {"x_values": [0.25, 0.5]},
        },
    ]
    col = residual_column(rows)
    assert col[0] is not None and col[0]["verified"] is True and col[0]["status"] == "verified"
    assert col[1] is None
    assert col[2] is not None and col[2]["verified"] is False and col[2]["residual_max"] == pytest.approx(0.5 / 6)
    assert residual_column(rows, use_prompt=False)[2] is None
    rv = residual_verification(col)
    assert rv is not None and rv["total"] == 2 and rv["verified_count"] == 1 and rv["verified_rate"] == 0.5
    assert residual_verification(col[1:2]) is None  # fred-llm leaves the key out
    assert residual_verification([{"error": "parse_failed", "verified": False}]) is None


def test_verdict_type() -> None:
    v = verify_residual("x", "x t", "x", 1.0)
    assert isinstance(v, ResidualVerdict)
    assert "verified" in v and len(v) == 5 and list(v) == v.keys()
    assert v.measured and v.residuals.shape == (50,)


def test_binding_checks_arguments() -> None:
    eq = ("x t", "x", 1.0, 0.0, 1.0, "second", None)
    with pytest.raises(ValueError, match="equation_index"):
        _core.fredholm_residual_many(["x"], [eq], [1])
    with pytest.raises(ValueError, match="kind"):
        _core.fredholm_residual_many(["x"], [("x t", "x", 1.0, 0.0, 1.0, "third", None)], [0])
    with pytest.raises(TypeError):
        _core.fredholm_residual_many([b"x"], [eq], [0])


# -- the corpus: fred-llm's verdicts on the equations of fredholm_dev.jsonl's prompts ----------

#: fred-llm's agentic selection: 12 random points (numpy's default_rng(0)), tolerance 1e-6.
PEER_POINTS = 12


def residual_cases(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The distinct (equation, candidate) cases of the corpus rows whose prompt states a
    second-kind equation with lambda != 0 (fred-llm's agentic verifier skips the others): the
    response's solution as fred-llm recorded it (when it parsed one) and the ground truth
    (types with a function: exact_symbolic, approx_coef, series, family). Each case carries
    fred-llm's 12 sample points, so both sides check the same x."""
    seen: set[tuple[Any, ...]] = set()
    cases: list[dict[str, Any]] = []
    for r in rows:
        eq = IntegralEquation.from_prompt(r["prompt"]) if isinstance(r.get("prompt"), str) else None
        if eq is None or eq.kind != "second" or eq.lambda_val == 0:
            continue
        ref = r["reference"]
        cands = []
        if (
            isinstance(ref.get("solution_str"), str)
            and ref.get("confidence", 0) >= 0.7
            and ref.get("solution_type") != "discrete_points"
            and ref.get("has_solution") is not False
        ):
            cands.append(("response", ref["solution_str"]))
        if r["ground_truth_solution_type"] in ("exact_symbolic", "approx_coef", "series", "family"):
            cands.append(("ground_truth", r["ground_truth"]))
        for which, cand in cands:
            key = (eq.kernel, eq.f, eq.lambda_val, eq.domain, cand)
            if key in seen:
                continue
            seen.add(key)
            a, b = eq.domain
            xs = np.random.default_rng(0).uniform(a, b, PEER_POINTS)
            cases.append(
                {
                    "id": r["id"],
                    "which": which,
                    "candidate": cand,
                    "kernel": eq.kernel,
                    "f": eq.f,
                    "lambda_val": eq.lambda_val,
                    "domain": [a, b],
                    "x_values": xs.tolist(),
                }
            )
    return cases


def ours_residual(cases: list[dict[str, Any]], threads: int | None = 1) -> list[ResidualVerdict]:
    """Our verdicts of the cases, with fred-llm's agentic settings (free constants set to 1)."""
    eqs = [
        IntegralEquation(c["kernel"], c["f"], c["lambda_val"], tuple(c["domain"]), x_values=tuple(c["x_values"]))
        for c in cases
    ]
    cfg = ResidualConfig(free_constants=1.0, threads=threads)
    return verify_residual_many([c["candidate"] for c in cases], eqs, config=cfg)


@pytest.mark.shared
def test_corpus_matches_fredllm_verdicts() -> None:
    from tests.unit.test_fredholm_corpus import corpus

    cases = residual_cases(corpus())
    recorded = {(r["id"], r["which"]): r for r in map(json.loads, RECORDED.read_text(encoding="utf-8").splitlines())}
    assert len(recorded) == len(cases)
    ours = ours_residual(cases, threads=None)
    differ: dict[tuple[str, str], str] = {}
    for c, v in zip(cases, ours):
        ref = recorded[(c["id"], c["which"])]
        if ref["status"] == "timeout":
            continue
        if v.verified != (ref["status"] == "verified"):
            differ[(c["id"], c["which"])] = f"ours {v.status} ({v.reason}), fred-llm {ref['status']}"
    expected = {(r["id"], r["which"]): r["difference"] for r in recorded.values() if r.get("difference")}
    assert set(differ) == set(expected), {k: differ.get(k, expected.get(k)) for k in set(differ) ^ set(expected)}
