"""Small walks over expression trees (``Expr.tree()`` tuples): printing back to infix,
substituting constants, splitting top-level terms into coefficient and base.

Trees are at most 256 levels deep (the parser's bound), so the recursion here is bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["substitute", "term_coefficients", "tree_to_infix", "tree_to_latex", "tree_to_rpn"]

_PREC = {"add": 1, "neg": 2, "mul": 3, "div": 3, "pow": 5}


def _wrap(node: tuple[Any, ...], parent: int) -> str:
    text = tree_to_infix(node)
    p = _PREC.get(node[0], 9)
    if node[0] == "num" and text.startswith("-"):
        p = 2
    return f"({text})" if p <= parent else text


def tree_to_infix(node: tuple[Any, ...]) -> str:
    """Infix text (``**`` powers, calls with parentheses) that the infix parser reads back.

    >>> tree_to_infix(("add", ("pow", ("sym", "x"), ("num", "2")), ("func", "sin", ("sym", "x"))))
    '(x)**(2) + sin(x)'
    """
    kind = node[0]
    if kind in ("num", "sym", "const"):
        return str(node[1])
    if kind == "func":
        return f"{node[1]}({', '.join(tree_to_infix(k) for k in node[2:])})"
    if kind == "add":
        return " + ".join(_wrap(k, 1) for k in node[1:])
    if kind == "neg":
        return f"-({tree_to_infix(node[1])})"
    if kind == "mul":
        return "*".join(_wrap(k, 3) for k in node[1:])
    if kind == "div":
        return f"({tree_to_infix(node[1])})/({tree_to_infix(node[2])})"
    if kind == "pow":
        return f"({tree_to_infix(node[1])})**({tree_to_infix(node[2])})"
    if kind == "abs":
        return f"Abs({tree_to_infix(node[1])})"
    if kind == "factorial":
        return f"factorial({tree_to_infix(node[1])})"
    if kind == "percent":
        return f"({tree_to_infix(node[1])})/100"
    raise ValueError(f"tree_to_infix: no infix form for {kind!r}")


def substitute(node: tuple[Any, ...], values: Mapping[str, float]) -> tuple[Any, ...]:
    """The tree with the symbols of *values* replaced by numbers.

    >>> substitute(("mul", ("sym", "C"), ("sym", "x")), {"C": 1.0})
    ('mul', ('num', '1.0'), ('sym', 'x'))
    """
    kind = node[0]
    if kind == "sym":
        if node[1] in values:
            v = float(values[node[1]])
            return ("neg", ("num", repr(-v))) if v < 0 else ("num", repr(v))
        return node
    if kind in ("num", "const", "text"):
        return node
    head: tuple[Any, ...] = (kind, node[1]) if kind in ("func", "rel") else (kind,)
    start = len(head)
    return head + tuple(substitute(k, values) if isinstance(k, tuple) else k for k in node[start:])


def _numeric_value(node: tuple[Any, ...]) -> float | None:
    kind = node[0]
    if kind == "num":
        return float(node[1])
    if kind == "neg":
        v = _numeric_value(node[1])
        return None if v is None else -v
    if kind == "div":
        a, b = _numeric_value(node[1]), _numeric_value(node[2])
        if a is None or b is None or b == 0:
            return None
        return a / b
    return None


def _split(term: tuple[Any, ...]) -> tuple[float, str]:
    if term[0] == "neg":
        c, base = _split(term[1])
        return -c, base
    v = _numeric_value(term)
    if v is not None:
        return v, "1"
    if term[0] == "mul":
        coeff = 1.0
        rest = []
        for k in term[1:]:
            kv = _numeric_value(k)
            if kv is None:
                rest.append(k)
            else:
                coeff *= kv
        if not rest:
            return coeff, "1"
        base_tree: tuple[Any, ...] = rest[0] if len(rest) == 1 else ("mul", *rest)
        return coeff, tree_to_infix(base_tree)
    if term[0] == "div":
        num = _numeric_value(term[2])
        if num is not None and num != 0:
            c, base = _split(term[1])
            return c / num, base
    return 1.0, tree_to_infix(term)


def term_coefficients(tree: tuple[Any, ...]) -> dict[str, float]:
    """Top-level terms as {base: numeric coefficient} (equal bases added).

    >>> term_coefficients(("add", ("mul", ("num", "2"), ("sym", "x")), ("num", "3")))
    {'x': 2.0, '1': 3.0}
    """
    terms = list(tree[1:]) if tree[0] == "add" else [tree]
    out: dict[str, float] = {}
    for t in terms:
        c, base = _split(t)
        out[base] = out.get(base, 0.0) + c
    return out


def tree_to_latex(node: tuple[Any, ...]) -> str:
    r"""LaTeX that the LaTeX parser reads back (every operand braced or parenthesized).

    >>> tree_to_latex(("add", ("pow", ("sym", "x"), ("num", "2")), ("func", "sin", ("const", "pi"))))
    '{\\left(x\\right)}^{2} + \\sin\\left(\\pi\\right)'
    """
    kind = node[0]
    if kind == "num":
        return str(node[1])
    if kind == "sym":
        name = str(node[1])
        if "_" in name:
            base, sub = name.split("_", 1)
            return f"{base}_{{{sub}}}"
        return name if len(name) == 1 else f"\\{name}"
    if kind == "const":
        return {"pi": "\\pi", "E": "e", "I": "i", "oo": "\\infty"}[node[1]]
    if kind == "func":
        args = ", ".join(tree_to_latex(k) for k in node[2:])
        return (
            f"\\operatorname{{{node[1]}}}\\left({args}\\right)"
            if node[1] in ("Si", "Ci", "Ei", "erf", "erfc")
            else f"\\{node[1]}\\left({args}\\right)"
        )
    if kind == "add":
        return " + ".join(f"\\left({tree_to_latex(k)}\\right)" if k[0] == "add" else tree_to_latex(k) for k in node[1:])
    if kind == "neg":
        return f"-\\left({tree_to_latex(node[1])}\\right)"
    if kind == "mul":
        return " \\cdot ".join(f"\\left({tree_to_latex(k)}\\right)" for k in node[1:])
    if kind == "div":
        return f"\\frac{{{tree_to_latex(node[1])}}}{{{tree_to_latex(node[2])}}}"
    if kind == "pow":
        return f"{{\\left({tree_to_latex(node[1])}\\right)}}^{{{tree_to_latex(node[2])}}}"
    if kind == "abs":
        return f"\\left|{tree_to_latex(node[1])}\\right|"
    raise ValueError(f"tree_to_latex: no LaTeX form for {kind!r}")


def tree_to_rpn(node: tuple[Any, ...]) -> str:
    """Postfix tokens (the RPN parser's operators; n-ary sums and products folded left).

    >>> tree_to_rpn(("add", ("pow", ("sym", "x"), ("num", "2")), ("func", "sin", ("sym", "x"))))
    'x 2 ^ x sin +'
    """
    kind = node[0]
    if kind in ("num", "sym"):
        return str(node[1])
    if kind == "const":
        if node[1] not in ("pi", "E"):
            raise ValueError(f"tree_to_rpn: no RPN form for {node[1]!r}")
        return "pi" if node[1] == "pi" else "e"
    if kind == "func":
        return " ".join([*(tree_to_rpn(k) for k in node[2:]), str(node[1])])
    if kind in ("add", "mul"):
        op = "+" if kind == "add" else "*"
        parts = [tree_to_rpn(k) for k in node[1:]]
        out = parts[0]
        for p in parts[1:]:
            out = f"{out} {p} {op}"
        return out
    if kind == "neg":
        return f"{tree_to_rpn(node[1])} neg"
    if kind in ("div", "pow"):
        return f"{tree_to_rpn(node[1])} {tree_to_rpn(node[2])} {'/' if kind == 'div' else '^'}"
    if kind == "abs":
        return f"{tree_to_rpn(node[1])} abs"
    raise ValueError(f"tree_to_rpn: no RPN form for {kind!r}")
