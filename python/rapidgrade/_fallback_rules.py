r"""Readings and exact rules the fallback applies before (and beside) math-verify and SymPy.

Each rule looks at the two bare answers as text (and at rapidgrade's own parse tree, which does
not evaluate anything) and either decides the pair with a proof or a disproof, or declines
(``None``) and leaves it to the later stages:

- :func:`answer_member`: an equation between constants (``\log_3 27 = 3``) states a computation;
  its answer is its last member (``3``). Two such equations are never compared as truth values.
- :func:`same_text`: the same text once spaces, ``$`` delimiters and a final full stop are gone.
- :func:`sequence_verdict`: a list written with an ellipsis (``1, 2, \ldots, n``) equals another
  only term by term, with the ellipsis in the same place.
- :func:`power_verdict`: integer powers too large to evaluate (``2^{2^{100}}``,
  ``4^{2^{99}}``) compared exactly, as ``r^e`` with ``r`` not itself a perfect power.
- :func:`phrase_verdict`: an answer that is a phrase of words around plain numbers (``18 eggs``,
  ``9 chickens and 10 rabbits``) read as those numbers, against a gold that is numbers.
- :func:`rewrite_notation`: ``C_n^k`` is ``\binom{n}{k}``; ``根号3`` is ``\sqrt{3}``, ``π`` is
  ``\pi``; :func:`degrees_as_radians` gives the reading of ``45^\circ`` as ``45\pi/180``.

A verdict here is ``(correct, reason)``; the reason starts with ``"disproved"`` or ``"not proven
equal"`` when it is ``False``. Nothing here evaluates Python or builds unbounded numbers: every
integer is computed only below a size bound.

>>> answer_member(r"\log_3 27 = 3")
'3'
>>> power_verdict(r"2^{2^{100}}", r"4^{2^{99}}")
(True, 'exact: both are the same power of 2')
"""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction
from typing import Any

from rapidgrade import _core
from rapidgrade.errors import LimitError, ParseError

__all__ = [
    "answer_member",
    "degrees_as_radians",
    "has_degree_mark",
    "has_words",
    "phrase_verdict",
    "power_verdict",
    "rewrite_notation",
    "same_text",
    "sequence_verdict",
]

RuleVerdict = tuple[bool, str]

#: Largest integer (in bits) the rules compute exactly.
_MAX_BITS = 1 << 16
#: A power whose value has more bits than this is compared by :func:`power_verdict`.
_HUGE_BITS = 4096
_KNOWN_FUNCTIONS = frozenset(row[0] for row in _core.expr_function_table())

_ELLIPSIS = re.compile(r"\\(?:[lcv]?dots[bcimo]?|ldotp|cdotp)(?![A-Za-z])|\.\.\.|…|⋯")
_OPENERS = "([{"
_CLOSERS = ")]}"
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|°|\\degree(?![A-Za-z])")
# C_n^3, C_{n}^{3}, \mathrm{C}_n^3, {\rm C}_{10}^{2}: the number of 3-element subsets of n things
_COMBINATION = re.compile(
    r"(?:\\mathrm\{C\}|\{\\rm\s*C\}|(?<![A-Za-z\\])C)\s*_\s*(\{[^{}]*\}|[A-Za-z0-9])\s*\^\s*(\{[^{}]*\}|[A-Za-z0-9])"
)
_ROOT_WORD = re.compile(r"根号\s*(\{[^{}]*\}|\d+(?:\.\d+)?|[A-Za-z])")
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_WORD = re.compile(r"[A-Za-z]{2,}")
# Plain numbers in a phrase: sign, thousands separators, decimals; not glued to letters ("x2")
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![0-9A-Za-z])")
# A phrase read as its numbers may hold only words, numbers, spaces and light punctuation
_PHRASE_CHARS = re.compile(r"[A-Za-z0-9\s,.;:!?'\-\u3000-\u303f\u3400-\u9fff\uff00-\uffef]+")
# Words that change what the numbers of a phrase mean ("not 18", "18 thousand", "about 18")
_QUALIFIERS = frozenset(
    {
        "not", "no", "never", "none", "neither", "nor", "less", "more", "least", "most", "fewer", "than",
        "over", "under", "above", "below", "about", "around", "approximately", "approx", "nearly", "almost",
        "roughly", "between", "except", "without", "minus", "plus", "times", "divided", "half", "quarter",
        "twice", "double", "triple", "dozen", "dozens", "hundred", "hundreds", "thousand", "thousands",
        "million", "millions", "billion", "billions", "trillion", "percent", "per", "cent", "squared",
        "cubed", "negative", "tenths", "hundredths", "thousandths", "th", "st", "nd", "rd", "up", "to",
    }
)  # fmt: skip
_CJK_QUALIFIERS = re.compile(r"[不没非约多少余至倍万千百亿分或负]")


def _strip_outer(text: str) -> str:
    """*text* without surrounding spaces, ``$`` delimiters and a final full stop."""
    text = text.strip()
    while True:
        before = text
        if len(text) >= 2 and text.startswith("$") and text.endswith("$"):
            text = text.strip("$").strip()
        text = text.rstrip(".。").rstrip()
        if text == before:
            return text


def same_text(gold: str, answer: str) -> RuleVerdict | None:
    """TRUE when the two are the same text apart from spaces, ``$`` and a final full stop."""
    a, b = "".join(_strip_outer(gold).split()), "".join(_strip_outer(answer).split())
    if a and a == b:
        return True, "the same text up to spacing, $ delimiters, a final full stop and notation"
    return None


def _top_level_split(text: str, separator: str) -> list[str]:
    """*text* split at the *separator* characters outside brackets and braces (``\\{`` counts as
    a brace; an interval's mismatched ``[0, 1)`` still balances)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, char in enumerate(text):
        if char in _OPENERS:
            depth += 1
        elif char in _CLOSERS:
            depth = max(0, depth - 1)
        elif char == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _tree(text: str) -> Any:
    """rapidgrade's parse tree of *text*, or ``None`` when it does not parse."""
    from rapidgrade.expr import parse_expr

    try:
        return parse_expr(text).tree()
    except (ParseError, LimitError, ValueError):
        return None


def _is_constant(node: Any) -> bool:
    """Whether the tree has no variables, text or unknown functions: a number or a computation."""
    kind = node[0]
    if kind in ("sym", "text"):
        return False
    if kind == "num" or kind == "const":
        return True
    if kind == "func":
        return node[1] in _KNOWN_FUNCTIONS and all(_is_constant(k) for k in node[2:])
    if kind in ("rel", "interval", "set", "tuple", "matrix", "union", "pm"):
        return False
    return all(_is_constant(k) for k in node[1:] if isinstance(k, tuple))


def answer_member(text: str) -> str:
    r"""The answer an equation between constants states: its last member; any other *text* as is.

    ``\log_3 27 = 3`` is a computation whose result is 3: comparing it with another true
    equation (``36^{\log_{36}216} = 216``) as truth values would make every two true equations
    equal. An equation with a variable (``x = 5``) is left whole.

    >>> answer_member("2 + 3 = 5"), answer_member("x = 5")
    ('5', 'x = 5')
    """
    parts = _top_level_split(text, "=")
    if len(parts) < 2:
        return text
    for left, right in itertools.pairwise(parts):
        # "<=", ">=", "!=", ":=", "==" are not the equals of a computation
        if left.rstrip().endswith(("<", ">", "!", ":", "\\")) or not right.strip() or right.lstrip().startswith("="):
            return text
    for part in parts:
        tree = _tree(part.strip())
        if tree is None or not _is_constant(tree):
            return text
    return parts[-1].strip()


# -- sequences written with an ellipsis ---------------------------------------------------------


def _sequence_terms(text: str) -> tuple[str, list[str]]:
    """(the bracket around the list, its terms) of a comma list; an ellipsis term is ``"..."``."""
    body = _strip_outer(text)
    bracket = ""
    for opener, closer, name in (("\\{", "\\}", "{"), ("(", ")", "("), ("[", "]", "[")):
        if body.startswith(opener) and body.endswith(closer):
            inner = body[len(opener) : len(body) - len(closer)]
            # the brackets enclose the whole list, not "(1, 2), (3, 4)"
            if len(_top_level_split(inner, ",")) > 1 or _ELLIPSIS.search(inner):
                bracket, body = name, inner
            break
    terms = []
    for term in _top_level_split(body, ","):
        term = term.strip()
        terms.append("..." if _ELLIPSIS.fullmatch(term) else term)
    return bracket, terms


def sequence_verdict(gold: str, answer: str, terms_equal: Any) -> RuleVerdict | None:
    r"""Lists written with an ellipsis: equal only with the same terms in the same places.

    ``1, 2, \ldots, n`` and ``1, 3, 5, \ldots, 2n-1`` are different sequences, though both
    "contain" 1 and end in n-ish terms. *terms_equal(a, b)* decides two terms (``True``,
    ``False`` when disproved, ``None`` when undecided). Declines when neither side has an
    ellipsis.
    """
    if not (_ELLIPSIS.search(gold) or _ELLIPSIS.search(answer)):
        return None
    (g_bracket, g_terms), (a_bracket, a_terms) = _sequence_terms(gold), _sequence_terms(answer)
    if g_bracket != a_bracket:
        return False, "not proven equal: lists with an ellipsis in different brackets"
    if len(g_terms) != len(a_terms) or [t == "..." for t in g_terms] != [t == "..." for t in a_terms]:
        return False, "not proven equal: lists with an ellipsis are equal only with the same terms"
    if g_terms.count("...") != 1 and all(t == "..." for t in g_terms):
        return False, "not proven equal: a list of ellipses"
    for g, a in zip(g_terms, a_terms):
        if g == "..." and a == "...":
            continue
        # a term that holds an ellipsis ("1+2+\ldots+n") is equal only to one that holds one too:
        # neither reader reads the ellipsis, and SymPy would take it for a name
        if g == "..." or a == "..." or bool(_ELLIPSIS.search(g)) != bool(_ELLIPSIS.search(a)):
            return False, "not proven equal: lists with an ellipsis are equal only with the same terms"
        decided = terms_equal(g, a)
        if decided is False:
            return False, "disproved: a term of the list differs"
        if decided is not True:
            return False, "not proven equal: a term of the list could not be shown equal"
    return True, "the same terms around the ellipsis"


# -- integer powers too large to evaluate -------------------------------------------------------


def _int_value(node: Any) -> int | None:
    """The integer value of a tree of integer arithmetic, when it has at most ``_MAX_BITS``
    bits (``None`` otherwise, or when it is not an integer)."""
    kind = node[0]
    if kind == "num":
        return int(node[1]) if node[1].isdigit() else None
    if kind == "neg":
        inner = _int_value(node[1])
        return None if inner is None else -inner
    if kind in ("add", "mul"):
        total = 0 if kind == "add" else 1
        for child in node[1:]:
            value = _int_value(child)
            if value is None:
                return None
            total = total + value if kind == "add" else total * value
            if total.bit_length() > _MAX_BITS:
                return None
        return total
    if kind == "pow":
        base, exponent = _int_value(node[1]), _int_value(node[2])
        if base is None or exponent is None or exponent < 0:
            return None
        if abs(base) > 1 and exponent * abs(base).bit_length() > _MAX_BITS:
            return None
        return int(base**exponent)
    if kind == "factorial":
        n = _int_value(node[1])
        if n is None or n < 0 or n > 5000:
            return None
        return math.factorial(n)
    return None


def _perfect_power(n: int) -> tuple[int, int]:
    """(r, k) with r**k == n and k as large as possible (n >= 2)."""
    from sympy import perfect_power

    found = perfect_power(n)
    if not found:
        return n, 1
    root, k = found
    return int(root), int(k)


def _as_power(node: Any) -> tuple[int, int, bool] | None:
    """(r, e, huge) with the value r**e and r no perfect power; *huge*: too large to evaluate."""
    if node[0] == "pow":
        base, exponent = _int_value(node[1]), _int_value(node[2])
        if base is None or exponent is None or base < 2 or exponent < 1 or base.bit_length() > _HUGE_BITS:
            return None
        root, k = _perfect_power(base)
        huge = exponent * base.bit_length() > _HUGE_BITS
        return root, k * exponent, huge
    value = _int_value(node)
    if value is None or value < 2 or value.bit_length() > _HUGE_BITS:
        return None
    root, k = _perfect_power(value)
    return root, k, False


def power_verdict(gold: str, answer: str) -> RuleVerdict | None:
    r"""Integer powers too large to evaluate, compared exactly.

    Every integer n >= 2 is r**e for exactly one r that is not a perfect power, so two powers are
    equal when their (r, e) are: ``4^{2^{99}} = 2^{2\cdot 2^{99}} = 2^{2^{100}}``. Declines unless
    at least one side is such a power whose value is too large to evaluate (smaller ones are
    compared as numbers by the other stages).
    """
    g_tree, a_tree = _tree(_strip_outer(gold)), _tree(_strip_outer(answer))
    if g_tree is None or a_tree is None:
        return None
    g, a = _as_power(g_tree), _as_power(a_tree)
    if g is None or a is None or not (g[2] or a[2]):
        return None
    if (g[0], g[1]) == (a[0], a[1]):
        return True, f"exact: both are the same power of {g[0]}"
    return False, "disproved: different integers (exact powers of different bases or exponents)"


# -- phrases around numbers ---------------------------------------------------------------------


def has_words(text: str) -> bool:
    """Whether *text* holds words (two or more letters that are not a LaTeX command or a known
    function name) or CJK characters: a reading of it as math multiplied letters together."""
    if _CJK.search(text):
        return True
    bare = _COMMAND.sub(" ", text)
    return any(word not in _KNOWN_FUNCTIONS and word not in ("pi", "ln", "oo") for word in _WORD.findall(bare))


def _phrase_numbers(text: str) -> list[Fraction] | None:
    """The plain numbers of a phrase of words, or ``None`` when *text* is not such a phrase or a
    word in it qualifies the numbers ("not", "about", "thousand")."""
    if not has_words(text) or _PHRASE_CHARS.fullmatch(text) is None:
        return None
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", text)}
    if words & _QUALIFIERS or _CJK_QUALIFIERS.search(text):
        return None
    numbers = [Fraction(m.replace(",", "")) for m in _NUMBER.findall(text)]
    return numbers or None


def _gold_numbers(text: str) -> tuple[str, list[Fraction]] | None:
    """("one" | "set" | "tuple", the numbers) of a gold that is plain numbers."""
    tree = _tree(_strip_outer(text))
    if tree is None:
        return None
    kind = tree[0]
    items = list(tree[1:]) if kind in ("set", "tuple") else [tree]
    numbers: list[Fraction] = []
    for item in items:
        negative = item[0] == "neg"
        if negative:
            item = item[1]
        if item[0] != "num" or "e" in item[1].lower():
            return None
        value = Fraction(item[1])
        numbers.append(-value if negative else value)
    return ("one" if kind not in ("set", "tuple") else kind), numbers


def phrase_verdict(gold: str, answer: str) -> RuleVerdict | None:
    """A phrase of words around plain numbers against a gold that is numbers: TRUE when the
    phrase's numbers are the gold's (one number for a number; for a set the same numbers, for a
    tuple in the same order). Either side may be the phrase. Declines otherwise: it never
    disproves (a phrase is a weak reading)."""
    for phrase, other in ((answer, gold), (gold, answer)):
        numbers = _phrase_numbers(_strip_outer(phrase))
        if numbers is None:
            continue
        wanted = _gold_numbers(other)
        if wanted is None:
            return None
        kind, values = wanted
        if len(values) != len(numbers):
            return None
        if kind == "set" and sorted(values) == sorted(numbers):
            return True, "the numbers of the phrase are the set's"
        if kind != "set" and values == numbers:
            return True, "the phrase holds the number" if kind == "one" else "the numbers of the phrase, in order"
        return None
    return None


# -- notation ------------------------------------------------------------------------------------


def _unbrace(group: str) -> str:
    return group[1:-1] if group.startswith("{") else group


def rewrite_notation(text: str) -> str:
    r"""*text* with notations SymPy readers do not know rewritten: ``C_n^k`` (combinations, as
    Chinese textbooks write them) as ``\binom{n}{k}``, ``根号3`` as ``\sqrt{3}``, ``π`` as
    ``\pi``, ``1和3`` as ``1, 3``.

    >>> rewrite_notation("C_n^3 + 根号{2}")
    '\\binom{n}{3} + \\sqrt{2}'
    """
    text = _COMBINATION.sub(lambda m: "\\binom{" + _unbrace(m.group(1)) + "}{" + _unbrace(m.group(2)) + "}", text)
    if "根号" in text:
        text = _ROOT_WORD.sub(lambda m: "\\sqrt{" + _unbrace(m.group(1)) + "}", text)
    text = text.replace("π", "\\pi ")
    return re.sub(r"(?<=[0-9}])\s*和\s*(?=[-0-9\\])", ", ", text)


def has_degree_mark(text: str) -> bool:
    return _DEGREE.search(text) is not None


def degrees_as_radians(text: str) -> str:
    r"""*text* with each degree mark read as the factor π/180 (``45^\circ`` is ``π/4``)."""
    return _DEGREE.sub(r"\\cdot\\frac{\\pi}{180}", text)
