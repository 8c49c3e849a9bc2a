r"""The slow path: math-verify, then SymPy, for the pairs the C++ core leaves UNKNOWN.

:func:`run_cascade` decides one (gold, extracted answer) pair; it runs inside the worker processes
of :mod:`rapidgrade._pool`, where it may take as long as SymPy takes — the pool kills it at the
deadline. :func:`fallback_many` sends a batch of pairs there and turns timeouts and crashed
workers into verdicts.

The cascade may only turn the fast path's UNKNOWN into TRUE with a proof about what the two
answers mean, and answers FALSE either with a disproof or as "not proven equal". In order:

0. **Readings and exact rules** (:mod:`rapidgrade._fallback_rules`): an equation between
   constants (``\log_3 27 = 3``) stands for its last member; ``C_n^k``, ``根号3`` and ``π`` are
   rewritten for the readers; the same text up to spacing is TRUE; integer powers too large to
   evaluate (``2^{2^{100}}``) are compared exactly; a list written with an ellipsis equals
   another only term by term; a phrase of words around plain numbers (``18 eggs``) is read as
   its numbers against a gold that is numbers.
1. **math-verify**: ``verify(parse(gold), parse(answer))``, each side wrapped as
   ``\boxed{...}`` so that math-verify reads the whole bare answer as LaTeX (``2\pi`` is 2π and
   ``(0, 1]`` an interval, not the numbers ``2`` and ``1`` it would find in unwrapped text). Its
   TRUE is not taken when it compared truth values (a relation without variables, ``True``) or
   when both sides are exact numbers whose exact values differ (``1/2004!`` and ``1/2006!``,
   which its floating-point comparison finds equal).
2. **SymPy**: ``simplify(a - b) == 0``, then ``trigsimp``, then ``expand``, then (with
   binomials or factorials) ``expand_func``, on what parses; then the same with every variable
   positive, taken only when no sample point with a negative variable makes both sides real and
   different (``\sqrt{1/n} = 1/\sqrt{n}``, but never ``|x| = x``). Plain
   text (``pi/2``, ``sqrt(2)``, ``1e5``) is read with SymPy's ``parse_expr`` — after a strict
   character and name check, since ``parse_expr`` evaluates Python — and LaTeX by math-verify's
   parser. Symbols are compared by name (math-verify's are declared real, ``parse_expr``'s not).
   When no proof is found, a *disproof* is looked for: exact numbers that differ, numbers that
   differ at 30 digits, functions of the same variables that differ at a sample point where both
   are finite, tuples or sets or intervals that differ in a part. Failing to simplify ``a - b``
   to 0 is not one.
3. With a degree mark (``45^\circ``), the pair is compared again with degrees read as radians.

Without math-verify (it is the optional extra ``rapidgrade[math-verify]``, since lighteval pins
a latex2sympy2_extended that math-verify 0.9.0 cannot use), stage 1 is skipped and the SymPy
stage reads LaTeX with rapidgrade's own parser (:func:`rapidgrade.parse_expr` and
``Expr.to_sympy``): the cascade then decides with ``"sympy"`` or ``"error"`` only.

Each verdict is ``(correct, decided_by, reason)`` with ``decided_by`` one of ``"math_verify"``,
``"sympy"`` (whichever stage decided, the exact rules of stage 0 included; a ``False`` goes to the
last stage that could compare the two), or ``"error"`` (neither side could be read);
:func:`fallback_many` adds ``"timeout"`` (the pair's timeout or the call's deadline passed) and
``"limit"`` (the pair needed more memory than its worker may use). A ``MemoryError`` is never
caught inside the cascade: it ends the pair (math-verify catches its own, and then reads nothing).
A ``False`` verdict's reason starts with ``"disproved: "`` when the answers were shown different
and with ``"not proven equal: "`` when they were only not shown equal (an ``"error"``,
``"timeout"`` or ``"limit"`` is never a disproof). Errors are caught by name and named in the
reason.

>>> run_cascade(r"\frac{\pi}{2}", "pi/2")
(True, 'sympy', 'sympy: structurally equal')
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from rapidgrade import _fallback_rules as rules
from rapidgrade._pool import WorkerPool, check_deadline, check_memory_limit, check_timeout, default_pool, in_worker
from rapidgrade.config import DEFAULT_MEMORY_LIMIT

if TYPE_CHECKING:
    from sympy import Basic

__all__ = ["DEFAULT_MEMORY_LIMIT", "WARMUP", "FallbackDecider", "fallback_many", "run_cascade", "warm_up"]

FallbackDecider = Literal["math_verify", "sympy", "timeout", "error", "limit"]


#: Longest text the SymPy stage reads as plain text (longer answers are left to math-verify).
_MAX_PLAIN_CHARS = 500
#: Longest reason kept from an error message.
_MAX_MESSAGE_CHARS = 160

# Plain-text math that is safe to hand to ``parse_expr``: digits, letters, operators, brackets,
# commas, spaces; a dot only before a digit (so no attribute access). e.g. "pi/2", "2*sqrt(3)"
_PLAIN_CHARS = re.compile(r"[0-9A-Za-z+\-*/^().,\s]+")
_DOT_NOT_BEFORE_DIGIT = re.compile(r"\.(?![0-9])")
_NAME = re.compile(r"[A-Za-z]+")
# Names parse_expr may see besides single letters. e.g. "sqrt", "pi"
_ALLOWED_NAMES = frozenset(
    {
        "sqrt", "exp", "log", "ln", "sin", "cos", "tan", "cot", "sec", "csc",
        "asin", "acos", "atan", "sinh", "cosh", "tanh", "pi", "oo", "E", "I", "e",
    }
)  # fmt: skip


def run_cascade(gold: str, extracted: str) -> tuple[bool, FallbackDecider, str]:
    r"""Decide whether *extracted* (an answer found in a response) equals *gold*.

    Both are bare answers (``"\frac{1}{2}"``, ``"[0, 1)"``, ``"pi/2"``), never a whole response.
    Returns ``(correct, decided_by, reason)``; see the module documentation for the stages. Runs
    for as long as SymPy needs: call it through :func:`fallback_many` (or a :class:`WorkerPool`
    with a timeout) unless the inputs are known to be small. It never arms ``signal.alarm``
    outside a worker process.

    >>> run_cascade("0.5", r"\frac{1}{2}")
    (True, 'math_verify', 'math-verify: equivalent')
    >>> run_cascade(r"\log_3 27 = 3", r"36^{\log_{36}216}=216")[:2]
    (False, 'sympy')
    """
    gold_text = rules.rewrite_notation(rules.answer_member(gold))
    answer_text = rules.rewrite_notation(rules.answer_member(extracted))
    for rule in (rules.same_text, rules.power_verdict, rules.phrase_verdict):
        decided = rule(gold_text, answer_text)
        if decided is not None:
            return decided[0], "sympy", decided[1]
    in_sequence = rules.sequence_verdict(gold_text, answer_text, _terms_equal)
    if in_sequence is not None:
        return in_sequence[0], "sympy", in_sequence[1]
    verdict = _compare(gold_text, answer_text)
    if verdict[0] or not (rules.has_degree_mark(gold_text) or rules.has_degree_mark(answer_text)):
        return verdict
    # 45^\circ is 45 (as math-verify reads it) or pi/4: either reading may prove the pair
    as_radians = _compare(rules.degrees_as_radians(gold_text), rules.degrees_as_radians(answer_text))
    if as_radians[0]:
        return True, as_radians[1], f"{as_radians[2]} (degrees read as radians)"
    if verdict[2].startswith(_DISPROVED) and as_radians[2].startswith(_DISPROVED):
        return verdict
    return False, verdict[1], _not_proven(verdict[2])


_DISPROVED = "disproved: "
_NOT_PROVEN = "not proven equal: "


def _not_proven(reason: str) -> str:
    """*reason* as the reason of a FALSE that is not a disproof."""
    for prefix in (_DISPROVED, _NOT_PROVEN):
        if reason.startswith(prefix):
            reason = reason[len(prefix) :]
    return _NOT_PROVEN + reason


def _terms_equal(gold: str, answer: str) -> bool | None:
    """Two terms of a list: ``True`` (equal), ``False`` (disproved) or ``None`` (undecided)."""
    from rapidgrade.equiv import Tri, equivalent

    decided = equivalent(gold, answer)
    if decided is not Tri.UNKNOWN:
        return decided is Tri.TRUE
    correct, _, reason = _compare(gold, answer)
    if correct:
        return True
    return False if reason.startswith(_DISPROVED) else None


def _compare(gold: str, extracted: str) -> tuple[bool, FallbackDecider, str]:
    """Stages 1 and 2 of the cascade on two answers as the readers see them."""
    math_verify = _math_verify()
    if math_verify is None:
        # LaTeX is read by rapidgrade's own parser instead (plain text still by parse_expr)
        gold_core, pred_core = _core_reading(gold), _core_reading(extracted)
        return _sympy_stage(gold, extracted, gold_core, pred_core, "math-verify not installed", mv_compared=False)
    from math_verify import ExprExtractionConfig, LatexExtractionConfig

    # math-verify's time limit arms signal.alarm. That is only allowed on the main thread of a
    # worker process (the pool's deadline covers everything anyway); anywhere else, in
    # particular in the caller's process, math-verify runs without it.
    in_worker_main_thread = in_worker() and threading.current_thread() is threading.main_thread()
    limit = 5 if in_worker_main_thread else None
    config = (LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig())
    gold_parsed = math_verify.parse(_wrap(gold), extraction_config=config, parsing_timeout=limit)
    pred_parsed = math_verify.parse(_wrap(extracted), extraction_config=config, parsing_timeout=limit)
    gold_mv, pred_mv = _first_sympy(gold_parsed), _first_sympy(pred_parsed)
    mv_compared = gold_mv is not None and pred_mv is not None
    if gold_parsed and pred_parsed and math_verify.verify(gold_parsed, pred_parsed, timeout_seconds=limit):
        distrust = _distrust(gold_mv, pred_mv)
        if distrust is None:
            return True, "math_verify", "math-verify: equivalent"
        mv_reason = f"math-verify: equivalent, not taken ({distrust})"
    elif mv_compared:
        mv_reason = "math-verify: not equivalent"
    else:
        mv_reason = "math-verify: could not parse " + _sides(gold_mv is None, pred_mv is None)
    return _sympy_stage(gold, extracted, gold_mv, pred_mv, mv_reason, mv_compared=mv_compared)


def _distrust(gold_mv: Any, pred_mv: Any) -> str | None:
    """Why math-verify's TRUE on these readings is no proof, or ``None`` when it is one."""
    from sympy import Expr, Float
    from sympy.core.relational import Relational
    from sympy.logic.boolalg import BooleanAtom

    for side in (gold_mv, pred_mv):
        if isinstance(side, BooleanAtom) or (isinstance(side, Relational) and not side.free_symbols):
            return "it compared truth values"
    exact_numbers = all(
        isinstance(side, Expr) and not side.free_symbols and not side.has(Float) for side in (gold_mv, pred_mv)
    )
    if exact_numbers:
        # math-verify compares numbers as floats, rounded: values below its rounding or past the
        # float range all look alike (1/2004! and 1/2006! are both 0). Elsewhere its leniency is
        # kept (a percent against the bare number: 25% and 25).
        try:
            a, b = gold_mv.doit(), pred_mv.doit()
            if _beyond_floats(a) and _beyond_floats(b) and _numbers_differ(a, b):
                return "the exact values differ where floats cannot tell them apart"
        except _sympy_errors():
            return None
    return None


def _beyond_floats(value: Any) -> bool:
    """Whether a number is too small (below 1e-6, math-verify's rounding) or too large for floats
    to compare, or has a part that is."""
    if value.is_Rational:
        magnitude = abs(value)
        return bool(magnitude < _FLOAT_TINY or magnitude > _FLOAT_HUGE)
    number = _value(value, {})
    if number is None:
        return False
    return bool(abs(number) < _FLOAT_TINY or abs(number) > _FLOAT_HUGE)


_FLOAT_TINY = 1e-6
_FLOAT_HUGE = 1e300


def _math_verify() -> Any:
    """The ``math_verify`` module, or ``None`` when it is not installed."""
    try:
        import math_verify
    except ImportError:
        return None
    return math_verify


def _sympy_stage(
    gold: str, extracted: str, gold_mv: Any, pred_mv: Any, mv_reason: str, *, mv_compared: bool
) -> tuple[bool, FallbackDecider, str]:
    """Stage 2 of the cascade: SymPy on both sides; *gold_mv*/*pred_mv* are the LaTeX readings
    (math-verify's, or rapidgrade's own parser's when math-verify is not installed; ``None``:
    none)."""
    gold_expr, gold_note = _to_sympy(gold, gold_mv)
    pred_expr, pred_note = _to_sympy(extracted, pred_mv)
    if gold_expr is None or pred_expr is None:
        notes = "; ".join(
            note
            for note, failed in (
                ("gold: " + gold_note, gold_expr is None),
                ("answer: " + pred_note, pred_expr is None),
            )
            if failed
        )
        if mv_compared:
            return False, "math_verify", f"{_NOT_PROVEN}{mv_reason}; sympy could not read {notes}"
        return False, "error", f"{mv_reason}; sympy could not read {notes}"
    equal, sympy_reason = _sympy_equal(gold_expr, pred_expr)
    if equal:
        return True, "sympy", sympy_reason
    if rules.has_words(gold) or rules.has_words(extracted):
        # words read as products of letters: a difference of such readings proves nothing
        return False, "sympy", f"{_NOT_PROVEN}{sympy_reason}; the answers hold words; {mv_reason}"
    try:
        disproof = _disproof(gold_expr, pred_expr)
    except _sympy_errors() as err:
        disproof = None
        sympy_reason += f" (no disproof: {_message(err)})"
    if disproof is not None:
        return False, "sympy", f"{_DISPROVED}sympy: {disproof}; {mv_reason}"
    return False, "sympy", f"{_NOT_PROVEN}{sympy_reason}; {mv_reason}"


# Small pairs that exercise every stage of the cascade once: math-verify's LaTeX and expression
# parsers (built lazily, seconds), its comparison, SymPy's parse_expr, simplify, trigsimp and
# expand, sets and intervals. e.g. ("\frac{1}{3}", "0.25") is decided False by SymPy.
_WARMUP_PAIRS = (
    ("\\frac{1}{3}", "0.25"),
    ("\\frac{\\pi}{3}", "pi/3"),
    ("y^2+2", "(y+1)^2-2y"),
    ("\\sqrt{3}", "3^{1/2}"),
    ("(0,2]", "[0,2)"),
    ("\\cos^2 y", "1-\\sin^2 y"),
    ("\\{1, 3\\}", "\\{3, 1\\}"),
    ("\\log_2 4", "2"),
)


def warm_up() -> None:
    """Run the cascade on a few small pairs, so a fresh worker has built its parsers and caches.

    A worker runs this once before its first task (see :data:`WARMUP`): the first real pair then
    costs what it costs on any worker (milliseconds for easy pairs), not the seconds that
    math-verify and SymPy spend building their parsers on first use, and its verdict does not
    depend on whether its worker had just been restarted.
    """
    for gold, answer in _WARMUP_PAIRS:
        run_cascade(gold, answer)


#: The warm-up steps :func:`fallback_many` asks the worker pool for.
WARMUP = (warm_up,)


def fallback_many(
    golds: Sequence[str],
    extracted: Sequence[str],
    *,
    pool: WorkerPool | None = None,
    timeout: float | None = 5.0,
    progress: bool = False,
    memory_limit: int | None = DEFAULT_MEMORY_LIMIT,
    deadline: float | None = None,
) -> list[tuple[bool, FallbackDecider, str]]:
    """Run :func:`run_cascade` on every pair in worker processes, *timeout* seconds each.

    Returns one ``(correct, decided_by, reason)`` per pair, in input order. A pair that runs out
    of time is ``(False, "timeout", ...)`` (its worker is asked to stop, or killed and replaced
    in the background); one whose worker fails (crash, unexpected exception) is ``(False,
    "error", ...)`` with the cause. *pool* defaults to the process's shared pool. Each pair's
    time starts when a warm worker (one that has run :func:`warm_up`) takes it;
    ``timeout=None`` (or ``math.inf``) means no limit.

    *memory_limit* is the address space (bytes) a worker may use while it decides one pair
    (default :data:`DEFAULT_MEMORY_LIMIT`, 1 GiB; ``None``: no limit; Linux). A pair that needs
    more is ``(False, "limit", "limit: memory: ...")`` and its worker is replaced by a fresh
    one; the batch goes on.

    The time a pair waits for a worker is not bounded by *timeout*: with ``w`` workers, ``k``
    pairs that each run to their timeout take up to ``timeout * ceil(k / w)``, and calls from
    several threads share the workers (8 threads with one slow pair each on 2 workers wait up
    to ``4 * timeout``). *deadline* bounds the whole call: seconds of wall time from the call,
    waiting included; a pair not decided by then is ``(False, "timeout", "deadline: ...")``
    and the call returns at the deadline plus a few milliseconds (``None``: no deadline).

    Raises:
        ValueError: the lengths differ, *timeout* or *deadline* is NaN, zero or negative, or
            *memory_limit* is below 64 MiB.
        TypeError: *timeout* or *deadline* is not a number or ``None``, *memory_limit* not an
            int or ``None``.

    >>> fallback_many([r"\\frac{1}{2}"], ["0.5"])
    [(True, 'math_verify', 'math-verify: equivalent')]
    """
    if len(golds) != len(extracted):
        raise ValueError("fallback_many: golds and extracted must have the same length")
    check_timeout(timeout, "fallback_many")
    check_deadline(deadline, "fallback_many")
    memory = check_memory_limit(memory_limit, "fallback_many")
    runner = pool if pool is not None else default_pool()
    outcomes = runner.run_many(
        run_cascade,
        list(zip(golds, extracted)),
        timeout=timeout,
        progress=progress,
        description="fallback",
        warmup=WARMUP,
        memory_limit=memory,
        deadline=deadline,
    )
    verdicts: list[tuple[bool, FallbackDecider, str]] = []
    for outcome in outcomes:
        if outcome.status == "ok":
            correct, decided_by, reason = outcome.value
            verdicts.append((bool(correct), decided_by, reason))
        elif outcome.status == "timeout" and outcome.error.startswith("deadline: "):
            verdicts.append((False, "timeout", _deadline_reason(outcome.error)))
        elif outcome.status == "timeout":
            verdicts.append((False, "timeout", f"no decision within {timeout:g} s (worker killed)"))
        elif outcome.status == "memory" or outcome.error.startswith("MemoryError"):
            verdicts.append((False, "limit", _memory_reason(memory, outcome.error)))
        else:
            verdicts.append((False, "error", f"fallback failed: {outcome.error}"))
    return verdicts


def _deadline_reason(error: str) -> str:
    """The reason of a pair the call's deadline cut short; *error* is the pool's
    (``"deadline: passed while it ran"``)."""
    when = error.removeprefix("deadline: ")
    return f"deadline: no decision before the call's deadline (it {when})"


def _memory_reason(limit: int | None, error: str) -> str:
    if limit is None:
        return f"limit: memory: the pair asked for more memory than there is ({error})"
    return f"limit: memory: the pair needed more than {limit >> 20} MiB in its worker (worker replaced)"


# -- helpers (run in the worker) ----------------------------------------------------------------


def _wrap(answer: str) -> str:
    r"""The bare answer as math-verify expects it: inside ``\boxed{}``, unless already delimited."""
    if "$" in answer or "\\boxed" in answer:
        return answer
    return "\\boxed{" + answer + "}"


def _first_sympy(parsed: Sequence[Any]) -> Any:
    from sympy import Basic, MatrixBase

    for item in parsed:
        if isinstance(item, (Basic, MatrixBase)):
            return item
    return None


def _sides(gold_failed: bool, pred_failed: bool) -> str:
    if gold_failed and pred_failed:
        return "gold or answer"
    return "gold" if gold_failed else "answer"


def _message(err: BaseException) -> str:
    text = " ".join(str(err).split())
    if len(text) > _MAX_MESSAGE_CHARS:
        text = text[: _MAX_MESSAGE_CHARS - 3] + "..."
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _sympy_errors() -> tuple[type[BaseException], ...]:
    from sympy import SympifyError
    from sympy.parsing.sympy_parser import TokenError
    from sympy.polys.polyerrors import BasePolynomialError

    return (
        SympifyError,
        TokenError,
        BasePolynomialError,
        SyntaxError,
        TypeError,
        ValueError,
        AttributeError,
        KeyError,
        IndexError,
        NotImplementedError,
        ArithmeticError,
        RecursionError,
    )


def _is_plain_text(text: str) -> bool:
    r"""Whether *text* is plain-text math (``pi/2``), not LaTeX (``\frac{\pi}{2}``), and safe.

    ``parse_expr`` runs ``eval`` on its input, so only digits, letters, operators, brackets and
    known function names pass (no underscores, quotes, brackets or attribute dots).
    """
    if len(text) > _MAX_PLAIN_CHARS or _PLAIN_CHARS.fullmatch(text) is None:
        return False
    if _DOT_NOT_BEFORE_DIGIT.search(text):
        return False
    return all(len(name) == 1 or name in _ALLOWED_NAMES for name in _NAME.findall(text))


def _to_sympy(text: str, mv_parsed: Any) -> tuple[Basic | None, str]:
    """A SymPy reading of *text*: plain text via ``parse_expr``, else *mv_parsed* (math-verify's
    parse, or rapidgrade's own without math-verify)."""
    errors = _sympy_errors()
    note = "nothing parsed"
    if _is_plain_text(text):
        from sympy import E, log
        from sympy.parsing.sympy_parser import (
            convert_xor,
            implicit_multiplication_application,
            parse_expr,
            standard_transformations,
        )

        names = {"ln": log, "e": E}
        try:
            expr = parse_expr(
                text,
                local_dict=names,
                transformations=(
                    *standard_transformations,
                    implicit_multiplication_application,
                    convert_xor,
                ),
            )
            if isinstance(expr, tuple):  # "(1, 2)" is a Python tuple to parse_expr
                from sympy import Tuple

                expr = Tuple(*expr)
            return _plain_symbols(expr), "parse_expr"
        except errors as err:
            note = _message(err)
    if mv_parsed is not None:
        try:
            return _plain_symbols(mv_parsed), "math-verify"
        except errors as err:
            note = _message(err)
    return None, note


def _core_reading(text: str) -> Any:
    """*text* parsed by rapidgrade's own parser and converted to SymPy, or ``None``."""
    from rapidgrade.errors import LimitError, ParseError
    from rapidgrade.expr import parse_expr

    errors: tuple[type[BaseException], ...] = (ParseError, LimitError, *_sympy_errors())
    try:
        return parse_expr(text).to_sympy()
    except errors:
        return None


def _plain_symbols(expr: Any) -> Any:
    """*expr* with every symbol replaced by an assumption-free one of the same name.

    The replacement does not evaluate: rebuilt with new symbols, ``Eq(x, {1, 2})`` would become
    ``false``, and two such truth values would compare equal."""
    from sympy import Basic, Symbol
    from sympy.core.parameters import evaluate

    if not isinstance(expr, Basic):
        return expr
    mapping = {s: Symbol(s.name) for s in expr.free_symbols if isinstance(s, Symbol)}
    if not mapping:
        return expr
    with evaluate(False):
        return expr.xreplace(mapping)


def _is_logical(value: Any) -> bool:
    """A relation, truth value or logical combination (a SymPy ``Symbol`` is a ``Boolean`` too,
    but a value)."""
    from sympy import Expr
    from sympy.logic.boolalg import Boolean

    return isinstance(value, Boolean) and not isinstance(value, Expr)


def _sympy_equal(a: Any, b: Any) -> tuple[bool, str]:
    """Whether SymPy can show ``a == b``: structurally, or ``a - b`` reducing to 0 (for all values
    of the variables, or for positive ones where nothing shows them different elsewhere)."""
    from sympy import Expr, binomial, expand, expand_func, factorial, gamma, simplify, trigsimp

    errors = _sympy_errors()
    if _is_logical(a) or _is_logical(b):
        # relations and truth values: compared as written, never after evaluation (doit() turns
        # Eq(x, {1, 2}) and Eq(n, {3, 4}) both into false, which would compare equal)
        try:
            return _relations_equal(a, b)
        except errors as err:
            return False, f"sympy: comparison failed ({_message(err)})"
    try:
        a = a.doit()
        b = b.doit()
    except errors as err:
        return False, f"sympy: doit failed ({_message(err)})"
    try:
        if a == b:
            return True, "sympy: structurally equal"
    except errors as err:
        return False, f"sympy: comparison failed ({_message(err)})"
    if not (isinstance(a, Expr) and isinstance(b, Expr)):
        if type(a) is type(b):
            return False, f"sympy: the two {type(a).__name__} values are not shown equal"
        return False, f"sympy: {type(a).__name__} against {type(b).__name__}"
    failures: list[str] = []
    difference = a - b
    reductions: list[tuple[str, Any]] = [("simplify", simplify), ("trigsimp", trigsimp), ("expand", expand)]
    if difference.has(binomial, factorial, gamma):
        reductions.append(("expand_func", lambda d: simplify(expand_func(d))))
    for name, reduce in reductions:
        try:
            if reduce(difference) == 0:
                return True, f"sympy: {name}(a - b) == 0"
        except errors as err:
            failures.append(f"{name}: {_message(err)}")
    if difference.free_symbols:
        try:
            if _equal_for_positive(a, b):
                return True, (
                    "sympy: equal for positive values of the variables, and nowhere shown different where both are real"
                )
        except errors as err:
            failures.append(f"positive: {_message(err)}")
    detail = f" ({'; '.join(failures)})" if failures else ""
    return False, f"sympy: a - b does not reduce to 0{detail}"


# -- disproofs: values that differ ----------------------------------------------------------------

#: Digits of the numeric evaluations of disproofs.
_DIGITS = 30
#: Two values differ when they differ by more than this fraction of the larger (30 digits kept).
_REL_DIFFERENCE = 1e-15
#: Below this magnitude a value may be an unrecognized zero: no disproof from it.
_TINY = 1e-20
#: Sample values for the variables of a disproof (generic rationals, no special points).
_SAMPLES = (
    (7, 5), (13, 6), (17, 11), (5, 7), (23, 9), (31, 13), (3, 11), (41, 10), (11, 4), (19, 23),
)  # fmt: skip
_MAX_VARIABLES = 8


def _value(expr: Any, point: dict[Any, Any]) -> Any:
    """*expr* at *point* as an mpmath complex to 30 digits, or ``None`` where it is not a finite
    number (a pole, an undefined function, something not numeric)."""
    from sympy import Float

    mpmath = importlib.import_module("mpmath")  # SymPy's own dependency (no type information)

    value = (expr.xreplace(point) if point else expr).evalf(_DIGITS)
    if not getattr(value, "is_number", False):
        return None
    real, imag = value.as_real_imag()
    if not (real.is_Number and imag.is_Number and real.is_finite and imag.is_finite):
        return None
    return mpmath.mpc(mpmath.mpf(Float(real, _DIGITS)._mpf_), mpmath.mpf(Float(imag, _DIGITS)._mpf_))


def _differ(va: Any, vb: Any) -> bool:
    """Whether two values computed to 30 digits certainly differ."""
    scale = max(abs(va), abs(vb))
    if scale < _TINY:
        return False
    return bool(abs(va - vb) > _REL_DIFFERENCE * scale)


def _numbers_differ(a: Any, b: Any) -> bool:
    """Whether two numbers (no variables) are shown different: exactly for rationals (``1/2004!``
    and ``1/2006!``, which floats cannot tell apart), else at 30 digits."""
    if a.is_Rational and b.is_Rational:
        return bool(a != b)
    va, vb = _value(a, {}), _value(b, {})
    return va is not None and vb is not None and _differ(va, vb)


def _points(variables: list[Any], signs: list[tuple[int, ...]]) -> list[dict[Any, Any]]:
    """Sample points for *variables*, one per sign pattern (+1 or -1 per variable)."""
    from sympy import Rational

    points = []
    for j, pattern in enumerate(signs):
        point = {}
        for i, (variable, sign) in enumerate(zip(variables, pattern)):
            p, q = _SAMPLES[(i + 3 * j) % len(_SAMPLES)]
            point[variable] = Rational(sign * p, q)
        points.append(point)
    return points


def _variables(a: Any, b: Any) -> list[Any] | None:
    """The variables of both sides, in name order; ``None`` when the sides do not have the same
    ones (a letter on one side only may be a unit or a word: no disproof from it) or too many."""
    if a.free_symbols != b.free_symbols or len(a.free_symbols) > _MAX_VARIABLES:
        return None
    return sorted(a.free_symbols, key=lambda s: s.name)


def _equal_for_positive(a: Any, b: Any) -> bool:
    """``a - b`` reduces to 0 for positive variables, and at no sample point with a negative
    variable are both sides real and different (``sqrt(1/n)`` and ``1/sqrt(n)`` are; ``|x|`` and
    ``x``, ``sqrt(x^2)`` and ``x`` are not)."""
    from sympy import Symbol, simplify

    variables = _variables(a, b)
    if variables is None:
        return False
    positive = {v: Symbol(v.name, positive=True) for v in variables}
    if simplify(a.xreplace(positive) - b.xreplace(positive)) != 0:
        return False
    n = len(variables)
    signs = [tuple(-1 for _ in range(n))] + [tuple(-1 if k == i else 1 for k in range(n)) for i in range(min(n, 3))]
    for point in _points(variables, signs):
        va, vb = _value(a, point), _value(b, point)
        if va is None or vb is None:
            continue
        if va.imag == 0 and vb.imag == 0 and _differ(va, vb):
            return False
    return True


def _disproof(a: Any, b: Any) -> str | None:
    """Why *a* and *b* are different answers, or ``None`` when that is not shown."""
    from sympy import Expr, FiniteSet, Interval, Tuple

    if _is_logical(a) or _is_logical(b):
        return None
    if isinstance(a, Expr) and isinstance(b, Expr):
        if not a.free_symbols and not b.free_symbols:
            return "the two numbers differ" if _numbers_differ(a.doit(), b.doit()) else None
        variables = _variables(a, b)
        if variables is None:
            return None
        signs = [tuple(1 for _ in variables)] * 3
        for point in _points(variables, signs):
            va, vb = _value(a, point), _value(b, point)
            if va is not None and vb is not None and _differ(va, vb):
                return "they differ at a sample point where both are defined"
        return None
    if isinstance(a, Tuple) and isinstance(b, Tuple):
        if len(a) != len(b):
            return f"tuples of {len(a)} and {len(b)} entries"
        for i, (x, y) in enumerate(zip(a, b)):
            if _disproof(x, y) is not None:
                return f"the tuples differ in entry {i + 1}"
        return None
    if isinstance(a, FiniteSet) and isinstance(b, FiniteSet):
        if a.free_symbols or b.free_symbols:
            return None
        values_a, values_b = [_value(x, {}) for x in a.args], [_value(y, {}) for y in b.args]
        if any(v is None for v in values_a + values_b):
            return None
        unmatched = [v for v in values_a if all(_differ(v, w) for w in values_b)]
        unmatched += [w for w in values_b if all(_differ(v, w) for v in values_a)]
        return "the sets have different elements" if unmatched else None
    if isinstance(a, Interval) and isinstance(b, Interval):
        for end_a, end_b in ((a.left, b.left), (a.right, b.right)):
            numbers = end_a.is_finite and end_b.is_finite and not (end_a.free_symbols or end_b.free_symbols)
            if numbers and _numbers_differ(end_a, end_b):
                return "the intervals have different ends"
        if a.left == b.left and a.right == b.right and (a.left_open, a.right_open) != (b.left_open, b.right_open):
            return "the intervals differ in an open or closed end"
        return None
    return None


def _relations_equal(a: Any, b: Any) -> tuple[bool, str]:
    """Whether two relations (or truth values, or logical combinations) state the same thing.

    Two relations are equal when they are the same relation over the same variables: the same
    operator (after ``canonical`` ordering) and sides that SymPy shows equal, or sides whose
    differences ``lhs - rhs`` are proportional (by a positive factor for inequalities); or both
    are equations in the same one variable with the same solution set. A truth value equals only
    the same truth value written as such; evaluated truth values are never compared.
    """
    from sympy import Expr, FiniteSet, S, simplify, solveset
    from sympy.core.relational import Equality, Relational
    from sympy.logic.boolalg import BooleanAtom

    if isinstance(a, BooleanAtom) or isinstance(b, BooleanAtom):
        if isinstance(a, BooleanAtom) and isinstance(b, BooleanAtom) and a == b:
            return True, "sympy: the same truth value"
        return False, "sympy: a truth value is compared only with the same truth value"
    if not (isinstance(a, Relational) and isinstance(b, Relational)):
        if a == b:
            return True, "sympy: structurally equal"
        return False, f"sympy: {type(a).__name__} differs from {type(b).__name__}"
    a, b = a.canonical, b.canonical
    if a.rel_op != b.rel_op:
        return False, f"sympy: different relations ({a.rel_op} and {b.rel_op})"
    if a.free_symbols != b.free_symbols:
        return False, "sympy: relations in different variables"
    if a.lhs == b.lhs and a.rhs == b.rhs:
        return True, "sympy: the same relation"
    if not a.free_symbols:
        # a relation between constants is a true or false statement: comparing what its sides
        # reduce to would compare truth values
        return False, "sympy: relations without variables are equal only as written"
    sides = (a.lhs, a.rhs, b.lhs, b.rhs)
    if not all(isinstance(side, Expr) for side in sides):
        if isinstance(a.rhs, FiniteSet) and isinstance(b.rhs, FiniteSet) and a.lhs == b.lhs:
            return (True, "sympy: the same solution set") if a.rhs == b.rhs else (False, "sympy: different sets")
        return False, "sympy: relations between non-numbers differ"
    da, db = a.lhs - a.rhs, b.lhs - b.rhs
    if simplify(da - db) == 0:
        return True, "sympy: lhs - rhs of both reduce to the same expression"
    if db != 0:
        ratio = simplify(da / db)
        if ratio.is_number and ratio != 0 and (isinstance(a, Equality) or ratio.is_positive):
            return True, "sympy: proportional relations"
    variables = a.free_symbols
    if isinstance(a, Equality) and len(variables) == 1:
        (x,) = variables
        sa, sb = solveset(da, x, S.Complexes), solveset(db, x, S.Complexes)
        if isinstance(sa, FiniteSet) and isinstance(sb, FiniteSet) and sa == sb:
            return True, "sympy: the same solution set"
    return False, "sympy: the relations differ"
