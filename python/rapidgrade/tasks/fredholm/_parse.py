r"""``parse_llm_output``: the post-processing of an integral-equation answer.

The string work (finding the answer, cleaning it, reading the metadata lines, parsing the
candidates) runs in the C++ core (``cpp/src/fredholm.cpp``); this module wraps its results in
:class:`ParsedOutput`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from rapidgrade import _core
from rapidgrade._core import Expr
from rapidgrade.config import check_threads

__all__ = ["ParsedOutput", "Syntax", "parse_llm_output", "parse_llm_outputs_many"]

Syntax = Literal["auto", "latex", "infix", "rpn"]
_SYNTAXES = ("auto", "latex", "infix", "rpn")


@dataclass(frozen=True, slots=True)
class ParsedOutput:
    r"""What :func:`parse_llm_output` found in a response.

    Fields:

    * ``raw_response``: the response, untouched.
    * ``solution_str``: the solution's right-hand side, cleaned (``$``, ``\(…\)``, ``\[…\]``,
      ``\left``/``\right``, ``\displaystyle``, sizing commands, a leading ``u(x) \approx``,
      trailing "where …" clauses and punctuation removed); for a ``discrete_points`` answer the
      point list as ``str(list_of_tuples)``; ``None`` when nothing was found.
    * ``has_solution``: from ``HAS_SOLUTION:`` (or its synonyms, or phrases such as "no solution
      exists"); when the response does not say, ``True`` if a solution was extracted, else
      ``False``.
    * ``solution_type``: ``SOLUTION_TYPE:`` normalized to one of ``exact_symbolic``,
      ``approx_coef``, ``series``, ``family``, ``discrete_points``, ``regularized``, ``none``;
      anything else (``exact_coef``) is ``None``.
    * ``reasoning``: the numbered steps ("Step 1: …", "1. …") joined by newlines, else the text
      after ``REASONING:``, else ``None``.
    * ``confidence``: 0.8 when a primary strategy (``ux_line``, ``solution_marker``,
      ``whole_response``, ``discrete_points``) found a solution that parses; 0.7 when only the
      regex fallback found one and it parses; 0.3 when text was found but does not parse (or a
      ``discrete_points`` answer has no readable point list); 0.0 when nothing was found.
    * ``syntax``: ``latex``, ``infix`` or ``rpn``: how the solution parsed (``None``: it did not).
    * ``method``: the strategy that found the solution (``none`` when none did).
    * ``expr_text``: exactly what the parser read (the solution, or an equation's left side).
    * ``discrete_points``: the ``(x, y)`` pairs of a point-list answer, else ``None``.
    * ``says_no_solution``: the final answer is the words "No solution" (read as no
      expression, not as the product of its letters).

    ``solution_expr`` (rapidgrade's tree) and ``solution_sympy`` (a SymPy expression) are
    built on access.

    >>> p = parse_llm_output("SOLUTION: u(x) = x^{2} + \\sin(x)\nHAS_SOLUTION: yes\nSOLUTION_TYPE: exact_symbolic")
    >>> p.solution_str, p.has_solution, p.solution_type, p.confidence, p.method
    ('x^{2} + \\sin(x)', True, 'exact_symbolic', 0.8, 'ux_line')
    >>> str(p.solution_expr)
    'x**2 + sin(x)'
    """

    raw_response: str
    solution_str: str | None
    has_solution: bool | None
    solution_type: str | None
    reasoning: str | None
    confidence: float
    syntax: str | None
    method: str
    expr_text: str | None = None
    discrete_points: tuple[tuple[float, float], ...] | None = None
    says_no_solution: bool = False

    @property
    def solution_expr(self) -> Expr | None:
        """The solution as rapidgrade's expression tree (``None`` when it did not parse)."""
        if self.expr_text is None or self.syntax is None:
            return None
        return _core.parse_expr(self.expr_text, syntax=self.syntax)

    @property
    def solution_sympy(self) -> Any:
        """The solution as a SymPy expression (``None`` when it did not parse); imports SymPy.

        The conversion is a bounded walk of the tree (no simplification).
        """
        e = self.solution_expr
        return None if e is None else e.to_sympy()

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON shape (fred-llm's ``parse_llm_output`` dict).

        ``solution_sympy`` is the canonical SymPy-style string of the parsed tree
        (``str(solution_expr)``), not ``str()`` of a SymPy object: the same syntax, computed
        without SymPy (terms may be ordered differently).
        """
        e = self.solution_expr
        return {
            "solution_str": self.solution_str,
            "solution_sympy": None if e is None else str(e),
            "has_solution": self.has_solution,
            "solution_type": self.solution_type,
            "discrete_points": None if self.discrete_points is None else [list(p) for p in self.discrete_points],
            "reasoning": self.reasoning,
            "confidence": self.confidence,
            "raw_response": self.raw_response,
        }


def _check(function: str, extract_solution: bool, validate: bool, syntax: str) -> None:
    if not isinstance(extract_solution, bool) or not isinstance(validate, bool):
        raise TypeError(f"{function}: extract_solution and validate must be bool")
    if syntax not in _SYNTAXES:
        raise ValueError(f"{function}: syntax must be one of {', '.join(map(repr, _SYNTAXES))}, not {syntax!r}")


def _build(response: str, r: tuple[Any, ...], extract_solution: bool) -> ParsedOutput:
    (
        solution,
        expr_text,
        expr_syntax,
        method,
        parsed,
        no_solution,
        has_solution,
        solution_type,
        reasoning,
        points,
        conf,
    ) = r
    pts: tuple[tuple[float, float], ...] | None = None
    if method == "discrete_points":
        pts = tuple((float(x), float(y)) for x, y in points)
        solution = str([tuple(p) for p in pts])
    elif solution_type == "discrete_points" and solution is None and extract_solution:
        conf = 0.3  # the reference's rule: a point-list answer without readable points
    if has_solution is None:
        has_solution = solution is not None and not no_solution
    return ParsedOutput(
        raw_response=response,
        solution_str=solution,
        has_solution=has_solution,
        solution_type=solution_type,
        reasoning=reasoning,
        confidence=conf,
        syntax=expr_syntax if parsed else None,
        method=method,
        expr_text=expr_text,
        discrete_points=pts,
        says_no_solution=no_solution,
    )


def parse_llm_output(
    response: str,
    *,
    extract_solution: bool = True,
    validate: bool = True,
    syntax: Syntax = "auto",
) -> ParsedOutput:
    r"""Finds the solution ``u(x) = …`` and the metadata lines in a model's *response*.

    Strategies, most specific first (``ParsedOutput.method``):

    1. ``ux_line``: the last line holding ``u(x) = rhs`` (or ``u(x) \approx``, ``≈``, ``~=``)
       whose right side parses;
    2. ``solution_marker``: the first ``SOLUTION: …`` line whose content parses;
    3. ``whole_response``: ``u(x) =`` ending a line with its right side on the following lines
       (display math);
    4. the regex fallback, first match of: ``SOLUTION: u(x) = …`` at a line start,
       ``Solution: u(x) = …`` anywhere, a generic ``u(x) = …`` ending at a newline or a
       sentence end.

    A candidate is accepted when it parses (LaTeX, infix or RPN, detected unless *syntax*
    forces one) to an expression: "No solution" is the answer *no solution*, not a product
    of letters, and a bare number is refused when the candidate has letters. If the
    ``SOLUTION_TYPE`` is ``discrete_points``, a list ``[(x, y), …]`` is read as points.

    With ``validate=False`` the first candidate's text is taken without parsing;
    with ``extract_solution=False`` only the metadata is read.

    >>> parse_llm_output("Thus u(x) = x 2 ^ x sin +").syntax
    'rpn'
    >>> p = parse_llm_output("SOLUTION: No solution\nHAS_SOLUTION: no\nSOLUTION_TYPE: none")
    >>> p.solution_str, p.has_solution, p.says_no_solution
    (None, False, True)
    >>> parse_llm_output("SOLUTION: [(0.0, 1.2), (0.5, 2.4)]\nSOLUTION_TYPE: discrete_points").discrete_points
    ((0.0, 1.2), (0.5, 2.4))
    """
    _check("parse_llm_output", extract_solution, validate, syntax)
    if not isinstance(response, str):
        raise TypeError(f"parse_llm_output: response must be str, not {type(response).__name__}")
    r = _core.fredholm_parse(response, extract_solution=extract_solution, validate=validate, syntax=syntax)
    return _build(response, r, extract_solution)


def parse_llm_outputs_many(
    responses: Sequence[str],
    *,
    extract_solution: bool = True,
    validate: bool = True,
    syntax: Syntax = "auto",
    threads: int | None = None,
) -> list[ParsedOutput]:
    """:func:`parse_llm_output` over many responses, in order; the string work runs on
    *threads* threads (default: all cores) with the GIL released.

    >>> [p.solution_str for p in parse_llm_outputs_many(["u(x) = e^{-x}", "nothing here"])]
    ['e^{-x}', None]
    """
    _check("parse_llm_outputs_many", extract_solution, validate, syntax)
    check_threads("parse_llm_outputs_many", threads)
    items = list(responses)
    results = _core.fredholm_parse_many(
        items, extract_solution=extract_solution, validate=validate, syntax=syntax, threads=threads
    )
    return [_build(resp, r, extract_solution) for resp, r in zip(items, results)]
