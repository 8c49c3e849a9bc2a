r"""``parse_llm_output``: the post-processing of an integral-equation answer.

The string work (finding the answer, cleaning it, reading the metadata lines, parsing the
candidates) runs in the C++ core (``cpp/src/tasks/fredholm.cpp``); this module wraps its results in
:class:`ParsedOutput`, which is also fred-llm's result dict (a read-only mapping).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rapidgrade import _core
from rapidgrade._core import Expr
from rapidgrade.config import check_threads
from rapidgrade.tasks.fredholm._symbols import Symbols, SymbolTable, is_sympy, symbol_table, sympy_text

__all__ = ["ParsedOutput", "Syntax", "parse_llm_output", "parse_llm_outputs_many"]

#: The keys of fred-llm's ``parse_llm_output`` dict, in its order.
REFERENCE_KEYS = (
    "solution_str",
    "solution_sympy",
    "has_solution",
    "solution_type",
    "discrete_points",
    "reasoning",
    "confidence",
    "raw_response",
)

Syntax = Literal["auto", "latex", "infix", "rpn"]
_SYNTAXES = ("auto", "latex", "infix", "rpn")


@dataclass(frozen=True, slots=True)
class ParsedOutput(Mapping[str, Any]):
    r"""What :func:`parse_llm_output` found in a response; also fred-llm's result dict.

    As a read-only mapping it has fred-llm's keys (``raw_response``, ``solution_str``,
    ``solution_sympy``, ``has_solution``, ``solution_type``, ``discrete_points``, ``reasoning``,
    ``confidence``), so ``result["confidence"]``, ``dict(result)`` and ``"solution_str" in
    result`` work as with fred-llm's dict; ``result["solution_sympy"]`` is a SymPy expression
    (built on access) and ``result["discrete_points"]`` a list of ``(x, y)`` tuples, as there.
    The attributes below stay as they are.

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
    >>> p["confidence"], "solution_str" in p, sorted(p)[:3]
    (0.8, True, ['confidence', 'discrete_points', 'has_solution'])
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
    #: The SymPy object the solution was given as (parse_llm_output of a SymPy expression).
    given_sympy: Any = field(default=None, repr=False, compare=False)

    @property
    def solution_expr(self) -> Expr | None:
        """The solution as rapidgrade's expression tree (``None`` when it did not parse)."""
        if self.expr_text is None or self.syntax is None:
            return None
        return _core.parse_expr(self.expr_text, syntax=self.syntax)

    @property
    def solution_sympy(self) -> Any:
        """The solution as a SymPy expression (``None`` when it did not parse); imports SymPy.

        The conversion is a bounded walk of the tree (no simplification); a solution given as a
        SymPy expression is that expression.
        """
        if self.given_sympy is not None:
            return self.given_sympy
        e = self.solution_expr
        return None if e is None else e.to_sympy()

    # -- fred-llm's dict ------------------------------------------------------------------------

    def __getitem__(self, key: str) -> Any:
        if key not in REFERENCE_KEYS:
            raise KeyError(key)
        if key == "discrete_points":
            return None if self.discrete_points is None else list(self.discrete_points)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(REFERENCE_KEYS)

    def __len__(self) -> int:
        return len(REFERENCE_KEYS)

    def __contains__(self, key: object) -> bool:
        return key in REFERENCE_KEYS

    def to_dict(self) -> dict[str, Any]:
        """The reference's JSON shape (fred-llm's ``parse_llm_output`` dict as its predictions
        files store it): the mapping's keys and values, but strings and lists only.

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


#: In SymPy's printed text "e" is a symbol (SymPy prints Euler's number as "E").
_SYMPY_E = {"e": ("symbol", "e")}


def _from_sympy(value: Any, table: SymbolTable) -> ParsedOutput:
    """A SymPy expression given as the answer: its printed text read as the solution."""
    text = sympy_text(value)
    r = _core.fredholm_read_solution(text, syntax="infix", symbols={**_SYMPY_E, **table})
    return ParsedOutput(
        raw_response=text,
        solution_str=text,
        has_solution=True,
        solution_type=None,
        reasoning=None,
        confidence=0.8 if r is not None else 0.3,
        syntax=None if r is None else r[2],
        method="sympy",
        expr_text=None if r is None else r[1],
        given_sympy=value,
    )


def parse_llm_output(
    response: Any,
    *,
    extract_solution: bool = True,
    validate: bool = True,
    syntax: Syntax = "auto",
    symbols: Symbols = None,
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

    How a candidate reads: Unicode subscripts are subscripts (``a₀ + a₁x``); a candidate
    without backslash or brace whose names of two or more letters stand next to ``*`` or
    ``/`` (``lam*x + mu*sin(x)``, ``lambda_1*x``) is infix, and so is one that LaTeX would read
    as words; in infix, ``e`` is Euler's number (fred-llm's ``FREDHOLM_LOCAL_DICT``).
    *symbols* extends that table (:data:`~rapidgrade.tasks.fredholm._symbols.Symbols`: names,
    or names mapped to a symbol, a constant or a number; fred-llm's ``FREDHOLM_LOCAL_DICT``
    itself is accepted).

    *response* may also be a SymPy expression: it is the solution (``method`` ``"sympy"``,
    ``solution_sympy`` the expression itself).

    With ``validate=False`` the first candidate's text is taken without parsing;
    with ``extract_solution=False`` only the metadata is read.

    >>> parse_llm_output("Thus u(x) = x 2 ^ x sin +").syntax
    'rpn'
    >>> p = parse_llm_output("SOLUTION: No solution\nHAS_SOLUTION: no\nSOLUTION_TYPE: none")
    >>> p.solution_str, p.has_solution, p.says_no_solution
    (None, False, True)
    >>> parse_llm_output("SOLUTION: [(0.0, 1.2), (0.5, 2.4)]\nSOLUTION_TYPE: discrete_points").discrete_points
    ((0.0, 1.2), (0.5, 2.4))
    >>> str(parse_llm_output("u(x) = lam*x + mu*sin(x)").solution_expr)
    'lam*x + mu*sin(x)'
    >>> str(parse_llm_output("u(x) = e**x + k*x", symbols={"k": 2}).solution_expr)
    'E**x + 2.0*x'
    """
    _check("parse_llm_output", extract_solution, validate, syntax)
    table = symbol_table(symbols)
    if is_sympy(response):
        return _from_sympy(response, table)
    if not isinstance(response, str):
        raise TypeError(f"parse_llm_output: response must be str or a SymPy expression, not {type(response).__name__}")
    r = _core.fredholm_parse(
        response, extract_solution=extract_solution, validate=validate, syntax=syntax, symbols=table
    )
    return _build(response, r, extract_solution)


def parse_llm_outputs_many(
    responses: Sequence[Any],
    *,
    extract_solution: bool = True,
    validate: bool = True,
    syntax: Syntax = "auto",
    symbols: Symbols = None,
    threads: int | None = None,
) -> list[ParsedOutput]:
    """:func:`parse_llm_output` over many responses, in order; the string work runs on
    *threads* threads (default: all cores) with the GIL released. SymPy expressions among them
    are read as :func:`parse_llm_output` reads one.

    >>> [p.solution_str for p in parse_llm_outputs_many(["u(x) = e^{-x}", "nothing here"])]
    ['e^{-x}', None]
    """
    _check("parse_llm_outputs_many", extract_solution, validate, syntax)
    check_threads("parse_llm_outputs_many", threads)
    table = symbol_table(symbols)
    items = list(responses)
    texts = [k for k, item in enumerate(items) if not is_sympy(item)]
    results = _core.fredholm_parse_many(
        [items[k] for k in texts],
        extract_solution=extract_solution,
        validate=validate,
        syntax=syntax,
        symbols=table,
        threads=threads,
    )
    built = iter(_build(items[k], r, extract_solution) for k, r in zip(texts, results))
    return [_from_sympy(item, table) if is_sympy(item) else next(built) for item in items]
