"""Values past the range of doubles: one value written two ways is TRUE, one more is never TRUE.

Random huge expressions from a small grammar (factorials and powers of integers, sums and
products of them with small integers) are written twice, each integer in a form drawn at random
(its digits, ``m^{k}``, ``a+b``, ``a \\cdot b``) and each sum's and product's operands in a
random order: ``equivalent`` and ``grade`` must say TRUE (the canonical form of equiv.hpp). The
same expression with 1 added to one of its terms must never be TRUE: it is FALSE where the
magnitudes differ, else left to the limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from rapidgrade import Tri, equivalent, grade


@dataclass(frozen=True)
class Int:
    """A positive integer (within 64 bits: its every form has an exact value)."""

    n: int


@dataclass(frozen=True)
class Fact:
    """(n)! with n >= 1000: past the range of doubles."""

    arg: Term


@dataclass(frozen=True)
class Power:
    """base^exp, base >= 2 and exp >= 1100: past the range of doubles."""

    base: Term
    exp: Term


@dataclass(frozen=True)
class Sum:
    terms: tuple[Term, ...]


@dataclass(frozen=True)
class Prod:
    terms: tuple[Term, ...]


Term = Int | Fact | Power | Sum | Prod

small = st.integers(min_value=1, max_value=40).map(Int)
huge_atoms = st.one_of(
    st.integers(min_value=1000, max_value=10**11).map(lambda n: Fact(Int(n))),
    st.integers(min_value=3, max_value=11).map(lambda k: Fact(Int(10**k))),
    st.tuples(st.integers(2, 12), st.integers(1100, 10**12)).map(lambda t: Power(Int(t[0]), Int(t[1]))),
    st.tuples(st.integers(2, 12), st.integers(4, 12)).map(lambda t: Power(Int(t[0]), Int(10 ** t[1]))),
)


@st.composite
def huge_exprs(draw: st.DrawFn) -> Term:
    """A huge atom, or a sum or product of one or two huge atoms and up to three small integers."""
    atoms = draw(st.lists(huge_atoms, min_size=1, max_size=2))
    if len(atoms) == 1 and draw(st.booleans()):
        return atoms[0]
    others = draw(st.lists(small, max_size=3))
    terms: tuple[Term, ...] = (*atoms, *others)
    if len(terms) == 1:
        return terms[0]
    return Sum(terms) if draw(st.booleans()) else Prod(terms)


def perfect_power(n: int) -> tuple[int, int] | None:
    """(m, k) with m^k == n, 2 <= m <= 10, k >= 2, or None."""
    for m in range(2, 11):
        k, p = 0, 1
        while p < n:
            p *= m
            k += 1
        if p == n and k >= 2:
            return m, k
    return None


def write_int(n: int, data: st.DataObject) -> str:
    """n in a form drawn at random: digits, m^{k}, (a+b) or (a \\cdot b)."""
    forms = ["digits"]
    if perfect_power(n) is not None:
        forms.append("power")
    if n > 1:
        forms.append("sum")
    divisors = [d for d in range(2, 13) if n % d == 0 and n // d > 1]
    if divisors:
        forms.append("product")
    form = data.draw(st.sampled_from(forms))
    if form == "power":
        m, k = perfect_power(n)  # type: ignore[misc]
        return f"{m}^{{{k}}}"
    if form == "sum":
        a = data.draw(st.integers(1, n - 1))
        return f"({a}+{n - a})"
    if form == "product":
        d = data.draw(st.sampled_from(divisors))
        return rf"({d} \cdot {n // d})"
    return str(n)


def write(t: Term, data: st.DataObject) -> str:
    """LaTeX for t, its integers' forms and its operands' order drawn at random."""
    if isinstance(t, Int):
        return write_int(t.n, data)
    if isinstance(t, Fact):
        return f"({write(t.arg, data)})!"
    if isinstance(t, Power):
        return f"{{{write(t.base, data)}}}^{{{write(t.exp, data)}}}"
    parts = [f"({write(u, data)})" for u in data.draw(st.permutations(t.terms))]
    return " + ".join(parts) if isinstance(t, Sum) else r" \cdot ".join(parts)


def plus_one_somewhere(t: Term, data: st.DataObject) -> Term:
    """t with 1 added to one of its terms (t itself, or a term of it, at any depth)."""
    children: list[Term] = []
    if isinstance(t, Fact):
        children = [t.arg]
    elif isinstance(t, Power):
        children = [t.base, t.exp]
    elif isinstance(t, (Sum, Prod)):
        children = list(t.terms)
    k = data.draw(st.integers(-1, len(children) - 1))
    if k < 0:
        return Sum((t, Int(1)))
    changed = children.copy()
    changed[k] = plus_one_somewhere(children[k], data)
    if isinstance(t, Fact):
        return Fact(changed[0])
    if isinstance(t, Power):
        return Power(changed[0], changed[1])
    return Sum(tuple(changed)) if isinstance(t, Sum) else Prod(tuple(changed))


@given(huge_exprs(), st.data())
def test_one_huge_value_written_two_ways_is_true(t: Term, data: st.DataObject) -> None:
    a, b = write(t, data), write(t, data)
    assert equivalent(a, b) is Tri.TRUE, (a, b)
    v = grade(a, "\\boxed{" + b + "}", fallback=False)
    assert (v.correct, v.decided_by) == (True, "fast"), (a, b, v.reason)


@given(huge_exprs(), st.data())
def test_adding_one_to_a_term_is_never_true(t: Term, data: st.DataObject) -> None:
    a = write(t, data)
    b = write(plus_one_somewhere(t, data), data)
    assert equivalent(a, b) is not Tri.TRUE, (a, b)
    v = grade(a, "\\boxed{" + b + "}", fallback=False)
    assert not v.correct, (a, b, v.reason)
    assert v.decided_by in ("fast", "limit"), (a, b, v.reason)


@given(
    root=st.integers(2, 12),
    k=st.integers(2, 6),
    exponent=st.integers(1100, 10**15),
    product_form=st.sampled_from(["digits", "cdot", "nested"]),
)
def test_a_power_of_a_perfect_power_is_its_root_power(root: int, k: int, exponent: int, product_form: str) -> None:
    # (root^k)^e = root^(k e): the base written as the perfect power it is, or as its root
    written = {
        "digits": f"{root}^{{{k * exponent}}}",
        "cdot": f"{root}^{{{k} \\cdot {exponent}}}",
        "nested": f"({root}^{{{k}}})^{{{exponent}}}",
    }[product_form]
    assert equivalent(f"{root**k}^{{{exponent}}}", written) is Tri.TRUE
    assert equivalent(f"{root**k}^{{{exponent}}}", f"{root}^{{{k * exponent + 1}}}") is not Tri.TRUE
