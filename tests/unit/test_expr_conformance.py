"""Conformance with math-verify 0.9.0 on its own recorded test cases.

* ``to_sympy()`` of every extracted answer that rapidgrade parses is SymPy-equal to what
  math-verify's ``parse`` returns for it, except the divergences listed (with the reason).
* ``equivalent()`` never answers TRUE/FALSE against math-verify's recorded verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sympy

import rapidgrade
from rapidgrade import ParseError, Tri

# recorded from math-verify 0.9.0's test suite (MIT licence); see tests/data/README.md
CASES = Path(__file__).resolve().parents[1] / "data" / "math_verify_0.9.0_cases.jsonl"
ROWS = [json.loads(line) for line in CASES.read_text(encoding="utf-8").splitlines() if line.strip()]

# Extracted answers where rapidgrade deliberately reads differently from latex2sympy.
DIVERGENCES = {
    r"\text{e}": "upright e is Euler's number; latex2sympy makes it a symbol (math-verify's verify "
    "still calls it equal to e, case mv-210)",
    "2/3.": "latex2sympy reads the trailing period as a digit separator and returns 2",
    r"x\approx11": "latex2sympy keeps only the right side of \\approx; rapidgrade keeps the relation",
    r"x=1/3\approx1.3": "latex2sympy drops the \\approx part; rapidgrade keeps the chain",
}


def _answers() -> list[str]:
    seen: dict[str, None] = {}
    for row in ROWS:
        for key in ("gold_parsed", "pred_parsed"):
            parsed = row[key]
            if len(parsed) == 2:
                seen.setdefault(parsed[1], None)
    return list(seen)


def _lower(e: Any) -> Any:
    # latex2sympy lower-cases some symbol names (D -> d, F_n -> f_n) and keeps braces in
    # subscripts (a_{37}); names are compared without case and braces
    try:
        return e.xreplace({s: sympy.Symbol(s.name.lower().replace("{", "").replace("}", "")) for s in e.free_symbols})
    except (AttributeError, TypeError):
        return e


def _flat_union(u: Any) -> list[Any]:
    return [z for w in u.args for z in (_flat_union(w) if isinstance(w, sympy.Union) else [w])]


def _match(xs: list[Any], ys: list[Any]) -> bool:
    return all(any(same(x, y) for y in ys) for x in xs) and all(any(same(x, y) for x in xs) for y in ys)


def same(a: Any, b: Any) -> bool:
    """SymPy equality up to representation: structures element by element, values by simplify."""
    if a == b:
        return True
    # LaTeX "(a, b)": a pair for rapidgrade, an open interval for latex2sympy when a < b
    if isinstance(a, sympy.Tuple) and len(a) == 2 and isinstance(b, sympy.Interval):
        return bool(b.left_open and b.right_open and same(a[0], b.start) and same(a[1], b.end))
    if isinstance(a, sympy.FiniteSet) and isinstance(b, sympy.FiniteSet):
        return _match(list(a), list(b))
    if isinstance(a, sympy.Tuple) and isinstance(b, sympy.Tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, sympy.Interval) and isinstance(b, sympy.Interval):
        return (
            same(a.start, b.start)
            and same(a.end, b.end)
            and a.left_open == b.left_open
            and a.right_open == b.right_open
        )
    if isinstance(a, sympy.Union) and isinstance(b, sympy.Union):
        return _match(_flat_union(a), _flat_union(b))
    relational = sympy.core.relational.Relational
    if isinstance(a, relational) and isinstance(b, relational):
        if type(a) is not type(b):
            return False
        if same(a.lhs, b.lhs) and same(a.rhs, b.rhs):
            return True
        return isinstance(a, sympy.Eq) and same(a.lhs, b.rhs) and same(a.rhs, b.lhs)
    if isinstance(a, sympy.And) and isinstance(b, sympy.And):
        return _match(list(a.args), list(b.args))
    if isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase):
        return a.shape == b.shape and all(same(x, y) for x, y in zip(a, b))
    a, b = _lower(a), _lower(b)
    if a == b:
        return True
    try:
        if a.doit() == b.doit():
            return True
        return bool(sympy.simplify(a - b) == 0)
    except (TypeError, AttributeError, ValueError):
        return False


@pytest.mark.parametrize("answer", _answers())
def test_to_sympy_matches_math_verify(answer: str) -> None:
    from math_verify import parse

    try:
        expr = rapidgrade.parse_expr(answer, syntax="latex")
    except ParseError:
        return  # rapidgrade leaves it to the fallback; nothing to compare
    if expr.tree()[0] == "text":
        return  # math-verify has no text answers (it reads "Even" as E*e*n*v)
    reference = parse("$" + answer + "$")
    if not reference:
        return
    mine = expr.to_sympy()
    if answer in DIVERGENCES:
        assert not same(mine, reference[0]), f"listed divergence now agrees: {answer!r}"
        return
    assert same(mine, reference[0]), f"{answer!r}: rapidgrade {mine} vs math-verify {reference[0]}"


def test_parses_most_answers() -> None:
    answers = _answers()
    parsed = 0
    for a in answers:
        try:
            rapidgrade.parse_expr(a, syntax="latex")
            parsed += 1
        except ParseError:
            pass
    assert parsed / len(answers) > 0.9


# Rows where rapidgrade decides otherwise on purpose (tests/data/deliberate_differences.jsonl says
# why): math-verify's default (allow_set_relation_comp=False) refuses a relation against a gold
# set; rapidgrade compares the sets (dd-14).
DELIBERATE = {"mv-188": "dd-14"}


def test_equivalent_never_contradicts_math_verify() -> None:
    decided = 0
    for row in ROWS:
        if row["id"] in DELIBERATE:
            verdict = rapidgrade.equivalent(row["gold_parsed"][1], row["pred_parsed"][1])
            assert verdict is (Tri.FALSE if row["expected"] else Tri.TRUE), row["id"]
            continue
        gold, pred = row["gold_parsed"], row["pred_parsed"]
        if len(gold) != 2 or len(pred) != 2:
            continue
        rounding = row["verify_kwargs"].get("float_rounding", 6)
        verdict = rapidgrade.equivalent(gold[1], pred[1], float_rounding=rounding)
        if verdict is Tri.UNKNOWN:
            continue
        decided += 1
        assert bool(verdict) == row["expected"], (row["id"], gold[1], pred[1], verdict)
    assert decided > 200
