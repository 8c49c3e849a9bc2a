r"""The fast path of the math-verify compatible ``parse``: math-verify 0.9.0's default extraction,
emulated where its outcome is certain (:func:`fast_parse`, which asks :func:`extract_default`).

math-verify's ``parse(text)`` with the default ``[LatexExtractionConfig(), ExprExtractionConfig()]``
runs its extraction patterns by priority group (``math_verify/parser.py``,
``extract_target_from_pred``): within a group, every match of every pattern is sorted rightmost end
first (then leftmost start, then pattern order), and the first match whose LaTeX or expression
*parses* gives the answer; the first matched string is appended (``fallback_mode="first_match"``).
:func:`extract_default` answers these shapes, and nothing else (``None``: ask math-verify):

* a response whose priority-50 group decides (the model's ``\boxed{...}``). The priority-0
  patterns need the literal ``I hope``: then nothing is decided here. The boxed match tried first
  is found by :func:`rapidgrade._core.mv_boxed_winner`, which emulates math-verify's two boxed
  regular expressions and their sort exactly (or says it cannot). When ``final answer`` occurs
  (case-insensitive), math-verify's own two "final answer ... is" patterns are run and sorted
  with it; a LaTeX "final answer" match may win, an expression one is left to math-verify;
* a string that is exactly ``$X$`` (how gold answers are given to math-verify): with no
  ``answer``, no unescaped ``$`` and no newline in it, the inline-dollar pattern of the
  priority-300 group takes it whole, and every other match there ends earlier or starts later.

* a response without ``\boxed{`` decided by math-verify's anchored-number pattern
  (:func:`extract_last_number`, which asks :func:`rapidgrade._core.mv_last_number`): with no
  ``answer`` in it, the last number (``"#### 18"``, ``"A: 18"``) when no LaTeX environment or
  operator expression can end as late; with one ``answer`` followed by words and a number only
  (``"The answer is: 18"``), that number.

The matched LaTeX group is normalized as math-verify does (``normalize_latex``: ``\boxed``
content extracted, ``\dfrac`` made ``\frac``, ``0.5`` made ``\frac{1}{2}``, units and
``\text{...}`` suffixes dropped, ...). For a box holding a plain number the normalization is
emulated (it only touches ``\dfrac`` and ``0.5`` there); otherwise math-verify's function is
called. The value is then predicted when the normalized LaTeX is a plain number
(:func:`number_value`: integers, decimals, fractions, mixed numbers, grouped thousands, degrees,
integer or decimal percentages, integer multiples of pi, single letters, built exactly as
latex2sympy builds them); any other LaTeX is left to the caller, who has math-verify's ``parse_latex_cached``
convert it in a worker.

``tests/unit/test_compat_fast.py`` checks every step against math-verify itself (the regular
expressions, ``normalize_latex``, ``latex2sympy`` and the whole ``parse``/``verify``), on generated
inputs, and ``tests/parity/test_compat_corpus.py`` on the 800 corpus pairs.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import replace
from functools import lru_cache
from typing import Any, Union

from math_verify import ExprExtractionConfig, LatexExtractionConfig, StringExtractionConfig

from rapidgrade import _core, _transport
from rapidgrade.compat._workers import _backstop, _remote_latex, run

ExtractionTarget = Union[LatexExtractionConfig, ExprExtractionConfig, StringExtractionConfig]  # noqa: UP007

#: math-verify's default ``extraction_config`` (a tuple here: no mutable default argument).
DEFAULT_EXTRACTION_CONFIG: tuple[ExtractionTarget, ...] = (
    LatexExtractionConfig(),
    ExprExtractionConfig(),
)

# Digits are bounded so that no int/str conversion limit is ever reached.
# e.g. "42", "-007", "3.25", "\dfrac{1}{9}", "-\frac{10}{3}"
_NUMBER = re.compile(
    r"(?P<sign>-?)(?:(?P<int>[0-9]{1,60})(?:\^\\circ|\^\{\\circ\})?"
    r"|(?P<grouped>[1-9][0-9]{0,2}(?:,[0-9]{3}){1,20})"
    r"|(?P<percent>[0-9]{1,60}(?:\.[0-9]{1,60})?)\\%"
    r"|(?P<pi>[0-9]{1,60})\\pi"
    r"|(?P<whole>[0-9]{1,60})\.(?P<fraction>[0-9]{1,60})"
    r"|(?:(?P<mixed>[0-9]{1,60}) ?)?\\frac\{(?P<num>[0-9]{1,60})\}\{(?P<den>[0-9]{1,60})\})"
)


# The single letters number_value builds (see there); e.g. "A", "x".
_LETTERS = frozenset("abcdfghjklmnopqrstuvwxyzABCDEFGHJKLMNOPQRSTUVWXYZ")

# math-verify's priority-50 "final answer ... is" patterns start with this (Unicode case folding
# included: "ſ" matches "s"), e.g. "The FINAL ANSWER is".
_FINAL_ANSWER = re.compile(r"(?i:final answer)")

# math-verify's priority 100/200 patterns start with this, e.g. "Answer:".
_ANSWER = re.compile(r"(?i:answer)")

# Longest boxed content worth matching braces in Python (the grammar above is shorter).
_MAX_BOXED_CONTENT = 200

# Largest LaTeX group normalized here with math-verify's normalize_latex, its number of boxes,
# and the longest text its regular expressions are run on (the boxed content).
_MAX_GROUP = 20_000
_MAX_BOXES = 16
_MAX_NORMALIZE = 4000

# Longest LaTeX group whose normalization is memoized.
_MAX_MEMOIZED = 2000


def extract_default(text: str, expression_first: bool = False) -> tuple[Any, str] | None:
    r"""What ``math_verify.parse(text)`` extracts first, as ``(value, matched_string)``, or ``None``.

    Only for math-verify's default extraction config, or with *expression_first* for
    ``[ExprExtractionConfig(), LatexExtractionConfig()]`` (the same patterns; within a priority
    group, matches that tie on their position are tried in config order, so the expression
    patterns win ties: see :func:`_first_final_answer`); ``None`` whenever the outcome is not
    certain. ``value`` is the SymPy object when it is predicted here (a plain number or a single
    letter), or ``None`` when ``matched_string`` (math-verify's normalized LaTeX) still has to go
    through math-verify's ``parse_latex_cached``: if that succeeds, its result is math-verify's
    answer.
    Plain numbers and single letters (see :func:`number_value`) are predicted here, others are not.

    >>> from rapidgrade.compat._fast_parse import extract_default
    >>> extract_default("So the answer is \\[ \\boxed{\\dfrac{1}{9}} \\]")
    (1/9, '\\frac{1}{9}')
    >>> extract_default("$0.5$")
    (1/2, '\\frac{1}{2}')
    >>> extract_default("\\boxed{x+1}")
    (None, 'x+1')
    >>> extract_default("no answer here") is None
    True
    """
    if "I hope" in text:
        return None
    ascii_text = text.isascii()
    lowered = text.lower() if ascii_text else ""
    has_final_answer = ("final answer" in lowered) if ascii_text else (_FINAL_ANSWER.search(text) is not None)
    status, plain, latex, start, end = _core.mv_boxed_winner(text)
    if status == "unknown" or (status == "found" and not isinstance(latex, str)):
        return None
    if has_final_answer:
        first = (
            _first_final_answer(text, expression_first, start, end, plain)
            if status == "found"
            else _first_final_answer(text, expression_first)
        )
        if first is not None:
            # A "final answer ... is" match sorts first; only its LaTeX form is handled.
            return _from_final_answer(first) if first is not _EXPRESSION else None
        if status != "found":
            return None
    if status == "found" and isinstance(latex, str):
        return _from_latex(latex, plain)
    # "$X$": the inline-dollar pattern (priority 300) matches all of it when X holds no "$" but
    # escaped ones, no
    # newline and does not end with a backslash; the expression patterns of that group start
    # later or end earlier, and the groups before it need "answer" or "\boxed{" (absent).
    if expression_first or len(text) < 3 or text[0] != "$" or text[-1] != "$":
        return None  # expression patterns first: whether one ties with the "$X$" match is not known
    inner = text[1:-1]
    if "\n" in inner or inner.endswith("\\") or inner.count("$") != inner.count("\\$"):
        return None  # an escaped "\$" is content, e.g. "$\$6$"
    if ("answer" in lowered) if ascii_text else (_ANSWER.search(text) is not None):
        return None
    number = _number(inner)
    if number is not None:
        return number
    return _normalized(inner, False)


def _from_latex(latex: str, plain: bool) -> tuple[Any, str] | None:
    """math-verify's extraction of a matched LaTeX group: the number, or the normalized LaTeX."""
    content = _boxed_content(latex)
    number = _number(content) if content is not None else None
    if number is not None:
        return number
    return _normalized(latex, plain)


# Stands for a winning match of the expression "final answer" pattern (not handled).
_EXPRESSION: Any = object()


def _first_final_answer(
    text: str, expression_first: bool = False, start: int = -1, end: int = -1, plain: bool = False
) -> Any:
    """The "final answer ... is" match that sorts before every other priority-50 match, if any.

    The two "final answer" patterns are math-verify's own, run here. The group is sorted by
    end (rightmost first), then start (leftmost first), then pattern order: the LaTeX "final
    answer" pattern, the boxed environments (A), plain boxed (B), the expression pattern (first
    of all with *expression_first*: the expression config given before the LaTeX one). The
    boxed winner is [start, end) (``start < 0``: there is none). Returns the LaTeX match,
    ``_EXPRESSION``, or ``None`` when the boxed match comes first (or nothing matched).
    """
    best_key = (end, -start, -(2 if plain else 1)) if start >= 0 else None
    best: Any = None
    for pattern, order in _final_answer_patterns():
        if expression_first and order == 3:
            order = -1
        for m in pattern.finditer(text):
            key = (m.end(), -m.start(), -order)
            if best_key is None or key > best_key:
                best_key, best = key, (_EXPRESSION if order in (-1, 3) else m)
    return best


def _from_final_answer(match: re.Match[str]) -> tuple[Any, str] | None:
    """math-verify's ``extract_latex`` for a LaTeX "final answer" match of one environment."""
    groups = match.groupdict()
    if groups.get("first_percent") or any(value for name, value in groups.items() if name.startswith("next") and value):
        return None  # a percentage or several environments: left to math-verify
    latex = next((value for name, value in groups.items() if name.startswith("first_latex") and value), None)
    if latex is None:
        return None
    return _from_latex(latex, False)


@lru_cache(maxsize=1)
def _final_answer_patterns() -> list[tuple[re.Pattern[str], int]]:
    """math-verify's priority-50 "final answer" patterns and their order in the group."""
    from math_verify.parser import (
        ExprExtractionConfig,
        LatexExtractionConfig,
        lazy_expr_regex,
        lazy_latex_regex,
    )

    def pick(patterns: list[tuple[re.Pattern[str], int]]) -> re.Pattern[str]:
        (found,) = [p for p, priority in patterns if priority == 50 and "final answer" in p.pattern]
        return found

    return [
        (pick(lazy_latex_regex(LatexExtractionConfig())), 0),
        (pick(lazy_expr_regex(ExprExtractionConfig())), 3),
    ]


def _normalized(latex: str, plain: bool) -> tuple[Any, str] | None:
    """math-verify's ``normalize_latex`` of the matched group (``boxed="last"`` for pattern B).

    Short groups are memoized like math-verify's own conversions (a gold answer is parsed once
    per response); the results are a string and an immutable SymPy number, safe to share.
    """
    if len(latex) <= _MAX_MEMOIZED:
        return _normalized_memo(latex, plain)
    return _normalize_now(latex, plain)


@lru_cache(maxsize=256)
def _normalized_memo(latex: str, plain: bool) -> tuple[Any, str] | None:
    return _normalize_now(latex, plain)


def _normalize_now(latex: str, plain: bool) -> tuple[Any, str] | None:
    from latex2sympy2_extended.latex2sympy2 import normalize_latex
    from latex2sympy2_extended.math_normalization import extract_boxed_content

    config = _normalization_config(plain)
    # Keep math-verify's regular expressions to inputs of bounded size: they run on what
    # extract_boxed_content (linear per box) keeps of the group.
    if len(latex) > _MAX_GROUP or latex.count("\\boxed") + latex.count("\\fbox") > _MAX_BOXES:
        return None
    if len(extract_boxed_content(latex, mode=config.boxed)) > _MAX_NORMALIZE:
        return None
    normalized = normalize_latex(latex, config=config)
    if not normalized:
        return None  # an empty string is not recorded as the matched string
    return number_value(normalized), normalized


@lru_cache(maxsize=2)
def _normalization_config(plain: bool) -> Any:
    from math_verify import LatexExtractionConfig

    config = LatexExtractionConfig().normalization_config
    return replace(config, boxed="last") if plain else config


def _boxed_content(latex: str) -> str | None:
    r"""What ``normalize_latex`` keeps of *latex* when it holds exactly one ``\boxed{...}``.

    math-verify's ``extract_boxed_content`` (modes "all" and "last" agree for one box) returns the
    box's brace-matched content, stripped; anything around the box is dropped.
    """
    if latex.count("\\boxed") != 1 or "\\fbox" in latex:
        return None
    open_brace = latex.find("\\boxed") + 6
    if open_brace >= len(latex) or latex[open_brace] != "{":
        return None
    depth = 1
    stop = min(len(latex), open_brace + 1 + _MAX_BOXED_CONTENT)
    for i in range(open_brace + 1, stop):
        c = latex[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return latex[open_brace + 1 : i].strip()
    return None


def _number(latex: str) -> tuple[Any, str] | None:
    r"""The SymPy value and normalized string of a plain number, as math-verify makes them.

    *latex* is the text before ``normalize_latex``; for the grammar here normalization only turns
    ``\dfrac``/``\tfrac``/``\cfrac`` into ``\frac`` and ``0.5`` into ``\frac{1}{2}`` (``nits``).
    """
    if latex == "0.5":
        normalized = "\\frac{1}{2}"
    elif "frac" in latex:
        normalized = latex.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
        normalized = normalized.replace("\\cfrac", "\\frac")
    else:
        normalized = latex
    value = number_value(normalized)
    return None if value is None else (value, normalized)


def number_value(latex: str) -> Any:
    r"""``latex2sympy(latex)`` (as math-verify calls it) for a normalized plain number, or ``None``.

    * ``-?[0-9]+`` is an ``Integer``, also with ``^\circ`` or ``^{\circ}`` after it (degrees are
      not converted: math-verify passes ``convert_degrees=False``);
    * ``-?[1-9][0-9]{0,2}(,[0-9]{3})+`` (``1,000``) is the ``Integer`` without the commas
      (latex2sympy reads a list of such groups as one number, ``comma_number_regex``);
    * ``-?[0-9]+\.[0-9]+`` a ``Float`` of the digits without leading zeros (latex2sympy's
      ``convert_number``; ``sympy.Number`` of a decimal string is that ``Float``);
    * ``-?\frac{a}{b}`` is ``Rational(a, b)`` (``b`` nonzero);
    * ``-?w\frac{a}{b}`` or ``-?w \frac{a}{b}`` with ``a > 0`` is a mixed number
      (``w + a/b``, latex2sympy's ``interpret_as_mixed_fractions``);
    * ``n\%`` (``n`` an unsigned integer or decimal) is latex2sympy's percentage
      ``Mul(n, UnevaluatedExpr(1/100))``, unevaluated; ``n\pi`` (``n`` an unsigned integer) is
      ``Mul(n, pi)``, unevaluated;
    a leading ``-`` negates the whole number (not a percentage or a multiple of pi);
    * a single ASCII letter other than ``e``, ``i`` and ``I`` (a choice letter, a variable) is the
      real ``Symbol`` of the lowercase letter (``A`` is ``a``): latex2sympy lowercases it, and
      math-verify's ``should_treat_as_complex`` keeps every symbol real but ``i`` (``e`` is
      Euler's number, ``I`` the imaginary unit: left to math-verify).

    >>> from rapidgrade.compat._fast_parse import number_value
    >>> number_value("-2\\frac{1}{4}")
    -9/4
    >>> number_value("0.50")
    0.500000000000000
    """
    if len(latex) == 1 and latex in _LETTERS:
        from sympy import Symbol

        return Symbol(latex.lower(), real=True)
    m = _NUMBER.fullmatch(latex)
    if m is None:
        return None
    import sympy

    if m["int"] is not None:
        value = sympy.Integer(int(m["int"]))
    elif m["grouped"] is not None:
        value = sympy.Integer(int(m["grouped"].replace(",", "")))
    elif m["percent"] is not None or m["pi"] is not None:
        if m["sign"]:
            return None  # the sign is multiplied in as a third factor
        if m["pi"] is not None:
            return sympy.Mul(sympy.Integer(int(m["pi"])), sympy.pi, evaluate=False)
        from latex2sympy2_extended.latex2sympy2 import convert_to_pct

        digits = m["percent"]
        number = sympy.Float(digits.lstrip("0")) if "." in digits else sympy.Integer(int(digits))
        return convert_to_pct(number)
    elif m["whole"] is not None:
        value = sympy.Float(f"{m['whole']}.{m['fraction']}".lstrip("0"))
    else:
        denominator = int(m["den"])
        if denominator == 0:
            return None  # \frac{1}{0} is zoo
        value = sympy.Rational(int(m["num"]), denominator)
        if m["mixed"] is not None:
            if value.p <= 0:
                return None  # not read as a mixed number: a product
            value = sympy.Rational(int(m["mixed"]) * value.q + value.p, value.q)
    return -value if m["sign"] == "-" else value


# -- parse's fast path: the configs covered, and LaTeX values converted in a worker ---------

# A plain integer as math-verify's number regex reads it without changing the text: no sign on
# zero, no leading zeros, no separators, few enough digits for any int/str conversion limit.
# e.g. "42", "-7", "0"
_PLAIN_INTEGER = re.compile(r"-?[1-9][0-9]{0,17}|0")

_DEFAULT_CONFIG_LIST = list(DEFAULT_EXTRACTION_CONFIG)
# e.g. math_metric(pred_extraction_target=(ExprExtractionConfig(), LatexExtractionConfig())).
_EXPRESSION_FIRST = [ExprExtractionConfig(), LatexExtractionConfig()]


def fast_parse(
    pred: Any,
    extraction_config: Any,
    fallback_mode: Any,
    extraction_mode: Any,
    parsing_timeout: Any = 5,
) -> list[Any] | None:
    r"""``math_verify.parse(pred, ...)`` where it is certain without math-verify, else ``None``.

    Covered, with the default ``[LatexExtractionConfig(), ExprExtractionConfig()]`` (or
    ``[LatexExtractionConfig()]``, or ``[ExprExtractionConfig(), LatexExtractionConfig()]``
    except for ``$X$``): a response whose ``\boxed{...}`` (or LaTeX "final answer ...
    is") match decides, and a string that is exactly ``$X$`` (see :func:`extract_default`);
    the value is built here for plain numbers, and otherwise is math-verify's
    ``parse_latex_cached`` of the normalized LaTeX, computed in a worker (:func:`_latex_value`;
    if it fails, ``None``: math-verify would go on to other matches). With the expression config
    (in any of these orders), also responses decided by their last anchored number or a single
    "answer ... N" (:func:`extract_last_number`). With both configs or
    ``[ExprExtractionConfig()]``, *pred* a plain integer (``"42"``, ``"-7"``): no LaTeX pattern can
    match such a string (every one needs ``$``, ``\(``, ``\[`` or ``\boxed``), and math-verify's
    number pattern takes it whole, so math-verify returns ``[Number(pred), pred]``
    (``[Number(pred)]`` without fallback). When the first match parses, ``extraction_mode`` makes
    no difference. ``parsing_timeout`` must be ``None`` or an ``int``: math-verify's
    ``signal.alarm`` rejects any other positive limit, and then ``parse`` returns ``[]``.
    ``tests/unit/test_compat.py`` and ``tests/unit/test_compat_fast.py`` check this against
    math-verify itself.
    """
    if type(pred) is not str:
        return None
    if fallback_mode not in ("first_match", "no_fallback") or extraction_mode not in (
        "first_match",
        "any_match",
    ):
        return None
    if parsing_timeout is not None and type(parsing_timeout) is not int:
        return None
    latex = expr = True  # which of the default configs are given
    expression_first = False  # both, the expression config first
    if extraction_config is not DEFAULT_EXTRACTION_CONFIG:
        if not isinstance(extraction_config, (list, tuple)):
            return None
        configs = list(extraction_config)
        if any(type(c) not in (LatexExtractionConfig, ExprExtractionConfig) for c in configs):
            return None  # subclasses may change behaviour
        if configs == _DEFAULT_CONFIG_LIST:
            pass
        elif configs == [LatexExtractionConfig()]:
            expr = False
        elif configs == [ExprExtractionConfig()]:
            latex = False
        elif configs == _EXPRESSION_FIRST:
            expression_first = True
        else:
            return None
    # Without the expression config, its patterns are absent: extract_default only relies on
    # them not winning (it declines when the expression "final answer" pattern would).
    found = extract_default(pred, expression_first) if latex else None
    if found is None:
        if not expr:
            return None
        if _PLAIN_INTEGER.fullmatch(pred) is not None:
            found = (_number_of(pred), pred)
        else:
            found = extract_last_number(pred)
            if found is None:
                return None
    value, matched = found
    if value is None:
        value = _latex_value(matched, parsing_timeout)
        if value is None:
            return None
    return [value, matched] if fallback_mode == "first_match" else [value]


# math-verify's currency signs (the ``[...]?`` before an anchored number), e.g. "€5".
_CURRENCY = frozenset("$€£¥₹₽₪₩₫฿₡₢₣₤₥₦₧₨₩₪₫₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿")

# A letter that math-verify's case-insensitive "answer" could match, e.g. "ſ" (long s).
_FOLDS_TO_ASCII = re.compile(r"(?i:[a-z])")


@lru_cache(maxsize=4096)
def _inert(char: str) -> bool:
    r"""Whether the non-ASCII *char* is ordinary text for math-verify's expression patterns.

    Not inert: Unicode whitespace (``\s``), decimal digits (``\d``), currency signs (math-verify's
    list and any ``Sc``), its operators ``×`` and ``÷``, and letters that case-fold to ASCII.
    """
    import unicodedata

    if char.isspace() or char.isdecimal() or char.isdigit() or char in _CURRENCY or char in "×÷":
        return False
    if unicodedata.category(char) == "Sc" or _FOLDS_TO_ASCII.fullmatch(char) is not None:
        return False
    return not any(c.isascii() for c in char.lower() + char.upper() + char.casefold())


def extract_last_number(text: str) -> tuple[Any, str] | None:
    r"""math-verify's answer for a response decided by its last anchored number, or ``None``.

    With the default configs, a response without ``answer`` (any case) and ``\boxed{`` has no
    match before priority group 300, where math-verify tries the match that ends last: the last
    anchored number (``" 18"``, ``"=18"``, ``"$18"``, ``"**18"``, ``" 2.5"``, ``" 40%"``) when
    no LaTeX environment or expression with an operator can end as late
    (:func:`rapidgrade._core.mv_last_number` decides, or declines). The value is built as
    math-verify's ``extract_expr`` builds it: ``Number`` of the number string, as a percentage
    when a percent sign or word follows.

    >>> from rapidgrade.compat._fast_parse import extract_last_number
    >>> extract_last_number("It takes 2+1=3 bolts\nA: 3")
    (3, '3')
    >>> extract_last_number("#### 1,250")
    (1250, '1250')
    >>> extract_last_number("The answer is 3")
    (3, '3')
    >>> extract_last_number("so 7 - 4") is None  # the expression " 7 - 4" ends as late
    True
    """
    inert = text.isascii() or all(_inert(c) for c in set(text) if not c.isascii())
    status, number, percent = _core.mv_last_number(text, non_ascii_inert=inert)
    if status != "found" or not isinstance(number, str):
        return None
    value = _number_of(number)
    if value is None:
        return None
    if percent:
        from latex2sympy2_extended.latex2sympy2 import convert_to_pct

        value = convert_to_pct(value)
    return value, number


# Number strings whose sympy.Number is built directly (see _number_of), e.g. "-12", "0.50".
_CANONICAL_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_CANONICAL_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)\.[0-9]+")


def _number_of(number: str) -> Any:
    """``sympy.Number(number)`` as math-verify's ``extract_expr`` calls it, or ``None`` if it fails.

    ``Number`` of a string goes through ``sympify`` (the parser: about 0.3 ms); for the canonical
    forms the result is known: an ``Integer`` of the digits, or the ``Float`` of the string (same
    precision). Other strings (``"-007"``, which sympify rejects: math-verify's parse then
    returns ``[]``) are converted with ``Number``; a failure gives ``None``, left to math-verify.
    """
    import sympy

    if _CANONICAL_INTEGER.fullmatch(number) is not None:
        return sympy.Integer(int(number))
    if _CANONICAL_DECIMAL.fullmatch(number) is not None:
        return sympy.Float(number)
    try:
        return sympy.Number(number)
    except (sympy.SympifyError, ValueError, TypeError, SyntaxError):
        return None


class _ValueCache:
    """A small thread-safe LRU memo of ``parse_latex_cached(latex)`` results from the workers.

    The same role as math-verify's own ``lru_cache`` on that function: a gold answer is parsed
    once per sampled response, and models repeat their final answers. Only immutable SymPy
    objects (``Basic``) are kept, so a cached object can be shared by several parse results.
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Any:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_LATEX_VALUES = _ValueCache(256)


def _latex_value(latex: str, parsing_timeout: Any) -> Any:
    """math-verify's ``parse_latex_cached(latex)``, computed in a worker, or ``None`` on failure.

    A failure (an exception, a timeout, ``None``) makes math-verify go on to its next match, so
    the caller then leaves the whole parse to math-verify.
    """
    cached = _LATEX_VALUES.get(latex)
    if cached is not None:
        return cached
    outcome = run(_remote_latex, (latex, parsing_timeout), timeout=_backstop(parsing_timeout, 1))
    if outcome.status != "ok" or outcome.value[0] != "ok":
        return None
    (value,) = _transport.loads(outcome.value[1])
    from sympy import Basic

    if isinstance(value, Basic):
        _LATEX_VALUES.put(latex, value)
        return value
    return None


def clear_caches() -> None:
    """Forget the memoized LaTeX normalizations and conversions (for benchmarks that must start
    cold)."""
    _LATEX_VALUES.clear()
    _normalized_memo.cache_clear()
