"""Differential test of equivalent() against SymPy.

Pairs are generated from random SymPy expressions: equal rewritings (expand, factor, cancel,
trigonometric and exponential rewrites...) and near misses (a changed constant, exponent or
function). For every pair where SymPy decides -- ``simplify(a - b) == 0`` (equal), or
``a - b`` clearly nonzero at a probe point, evaluated by SymPy to 30 digits (different) -- a TRUE
or FALSE from rapidgrade must agree.
The fraction left UNKNOWN is printed (run with ``-s``) and bounded.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
import sympy

from rapidgrade import Tri, equivalent, parse_expr

x, y = sympy.symbols("x y")


def random_expr(rng: random.Random, depth: int) -> sympy.Expr:
    if depth == 0 or rng.random() < 0.25:
        leaves = [x, y, x, sympy.Integer(rng.randint(1, 5)), sympy.Rational(rng.randint(1, 5), rng.randint(2, 6))]
        return rng.choice(leaves)
    kind = rng.choice(["add", "add", "mul", "mul", "div", "pow", "sin", "cos", "exp", "log", "sqrt"])
    a = random_expr(rng, depth - 1)
    if kind in ("add", "mul", "div"):
        b = random_expr(rng, depth - 1)
        if kind == "add":
            return a + b
        if kind == "mul":
            return a * b
        return a / b if b != 0 else a
    if kind == "pow":
        return a ** rng.choice([2, 3, -1, sympy.Rational(1, 2)])
    return {"sin": sympy.sin, "cos": sympy.cos, "exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt}[kind](a)


REWRITES: list[Callable[[sympy.Expr], sympy.Expr]] = [
    sympy.expand,
    sympy.factor,
    sympy.cancel,
    sympy.together,
    sympy.apart,
    lambda e: sympy.expand(e, trig=True),
    lambda e: e.rewrite(sympy.exp),
    lambda e: e.subs(sympy.sin(x) ** 2, 1 - sympy.cos(x) ** 2),
    lambda e: sympy.expand((e + 1) ** 2) - 2 * e - 1,
    lambda e: sympy.powsimp(e),
    lambda e: sympy.radsimp(e),
    lambda e: e * (x**2 + 1) / (x**2 + 1),
]

NEAR_MISSES: list[Callable[[sympy.Expr], sympy.Expr]] = [
    lambda e: e + 1,
    lambda e: 2 * e,
    lambda e: e.subs(x, x + 1),
    lambda e: e.subs(x, y),
    lambda e: e.replace(sympy.sin, sympy.cos),
    lambda e: e**2,
    lambda e: e + sympy.Rational(1, 1000),
    lambda e: sympy.sqrt(e**2),
    lambda e: e.subs(x, -x),
    # equal on a large region only: branch cuts of log, roots and inverse functions
    lambda e: sympy.log(sympy.exp(e)),
    lambda e: (e**3) ** sympy.Rational(1, 3),
    lambda e: sympy.asin(sympy.sin(e)),
    lambda e: sympy.atan(sympy.tan(e)),
    lambda e: sympy.sqrt(e) * sympy.sqrt(e + 1) - sympy.sqrt(e * (e + 1)) + e,
]


def make_pairs(n: int, seed: int) -> list[tuple[str, str, str, sympy.Expr, sympy.Expr]]:
    rng = random.Random(seed)
    pairs = []
    while len(pairs) < n:
        a = random_expr(rng, rng.randint(1, 3))
        if not a.free_symbols:
            continue
        rewrite = rng.choice(REWRITES if rng.random() < 0.5 else NEAR_MISSES)
        try:
            b = rewrite(a)
        except (sympy.PolynomialError, NotImplementedError, TypeError, ValueError):
            continue
        if a.has(sympy.zoo, sympy.nan) or b.has(sympy.zoo, sympy.nan):
            continue
        use_latex = not (a.has(sympy.log) or b.has(sympy.log))  # LaTeX \log is base 10
        if use_latex:
            pairs.append((sympy.latex(a), sympy.latex(b), "latex", a, b))
        else:
            pairs.append((sympy.sstr(a), sympy.sstr(b), "infix", a, b))
    return pairs


PROBES = [
    {x: sympy.Rational(3, 7) + sympy.I / 3, y: sympy.Rational(-5, 11) + sympy.I * 2 / 5},
    {x: sympy.Rational(-6, 5) - sympy.I / 7, y: sympy.Rational(4, 3) - sympy.I * 3 / 4},
    {x: sympy.Rational(-7, 3) + sympy.I * 5 / 2, y: sympy.Rational(-1, 4) - sympy.I * 13 / 5},
    {x: sympy.Rational(1, 5) - sympy.I * 3, y: sympy.Rational(-3, 1) + sympy.I / 9},
]


def sympy_verdict(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    """True when simplify(a - b) == 0; False when a - b is clearly nonzero at a probe point
    (30-digit evalf; SymPy's own .equals() is randomized and wrong now and then); else None."""
    diff = a - b
    if sympy.expand(diff) == 0:
        return True
    for probe in PROBES:  # cheap, and simplify cannot reach 0 when a probe differs
        va, vb = sympy.N(a.subs(probe), 30), sympy.N(b.subs(probe), 30)
        if not (va.is_number and vb.is_number and va.is_finite and vb.is_finite):
            continue
        # in SymPy numbers: values such as exp(10^5) overflow Python floats
        gap = sympy.Abs(va - vb) / sympy.Max(sympy.Abs(va), sympy.Abs(vb), 1)
        if sympy.N(gap, 15) > sympy.Float("1e-12"):
            return False
    if sympy.simplify(diff) == 0:
        return True
    return None


def run(n: int, seed: int) -> None:
    counts = {Tri.TRUE: 0, Tri.FALSE: 0, Tri.UNKNOWN: 0}
    undecided = 0
    for sa, sb, syntax, a, b in make_pairs(n, seed):
        verdict = equivalent(parse_expr(sa, syntax=syntax), parse_expr(sb, syntax=syntax))
        counts[verdict] += 1
        if verdict is Tri.UNKNOWN:
            continue
        reference = sympy_verdict(a, b)
        if reference is None:
            undecided += 1
            continue
        assert bool(verdict) == reference, (sa, sb, verdict)
    unknown = counts[Tri.UNKNOWN] / n
    print(
        f"\ndifferential vs SymPy, {n} pairs: TRUE {counts[Tri.TRUE]}, FALSE {counts[Tri.FALSE]}, "
        f"UNKNOWN {counts[Tri.UNKNOWN]} ({unknown:.1%}); SymPy undecided on {undecided} decided pairs"
    )
    assert unknown < 0.25


def test_differential_against_sympy() -> None:
    # a sample for every run (about 10 s on 2 cores); the large run below is marked slow
    run(300, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(4))
def test_differential_against_sympy_large(shard: int) -> None:
    # 6,000 pairs in four shards of their own seeds, which pytest-xdist's workers share
    run(1500, seed=2 + 1000 * shard)
