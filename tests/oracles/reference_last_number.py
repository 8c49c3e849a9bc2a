r"""The last-number strategy of the extraction reference (``extract_math.cpp``'s
find_last_number): the last number of a text with its sign, widened to the object it belongs to
(a ratio, a time, a parenthesized list, a function's argument), past "Step 5:" labels.

Split from ``reference_strategies`` (the box and the other unmarked strategies), which it reads
the relation and thousands-group helpers of.
"""

from __future__ import annotations

import re

from tests.oracles.reference_bold_span import _bold_digits
from tests.oracles.reference_common import (
    _MAX_MARKUP_TAG,
    _SPACE,
    RefExtraction,
    _is_digit,
    _is_letter,
    _markup_tag_end,
)
from tests.oracles.reference_strategies import _EQUALITY_COMMANDS, _number_starts, _thousands_groups_end

# --------------------------------------------------------------------------------------------
# last_number

_EXP = r"(?:[eE][+-]?\d+)?"
# Commands and escapes are matched as whole tokens (group "skip") so that scanning stays aligned
# with the C++ tokenizer: the "1" of "\\1" is escaped, the "frac" of "\\\\frac" is not a command.
_NUMBER = re.compile(
    r"(?P<num>"
    r"\\[dt]?frac(?:\{-?\d+\}\{\d+\}|\d\d)"  # \frac{3}{4}, \dfrac12
    r"|[1-9]\d{0,2}(?:,\d{3}(?!\d))+(?:\.\d+)?"
    + _EXP  # 1,234,567.5
    + r"|\d+\.\d+"
    + _EXP  # 3.25, 1.5e-3
    + r"|\d+[eE][+-]?\d+"  # 2e5
    r"|\d+/\d+"  # 3/4
    r"|\d+"
    r"|(?<!\d)\.\d+" + _EXP + r")"  # .5
    r"|(?P<skip>\\(?:[A-Za-z]+|.))",
    re.A | re.S,
)
_SIGN_AFTER = " \t\n\r\f\v([{=,:;$"  # a '-' glued to its number is a sign after these
# commands after which a '-' written apart is a sign: "\times - 3", "\le - 2"
_OPERATOR_COMMANDS = frozenset(
    [
        "times",
        "cdot",
        "div",
        "pm",
        "mp",
        "le",
        "leq",
        "ge",
        "geq",
        "neq",
        "ne",
        *_EQUALITY_COMMANDS,
        "to",
        "quad",
        "qquad",
        "Rightarrow",
        "implies",
        "therefore",
        "because",
        "left",
        "lt",
        "gt",
    ]
)


def _sign_written_apart(r: str, p: int) -> bool:
    """The '-' at r[p], blanks before its number, is a sign: it comes after the start, a line
    break, one of ( [ { = , : ; $, a word of two letters or more, or an operator command."""
    q = p
    while q > 0 and r[q - 1] in " \t":
        q -= 1
    if q == 0 or r[q - 1] in "\n\r([{=,:;$":
        return True
    w = q
    while w > 0 and _is_letter(r[w - 1]):
        w -= 1
    if w == q:
        return False
    if w > 0 and r[w - 1] == "\\":
        return r[w:q] in _OPERATOR_COMMANDS
    return q - w >= 2


def _signed_start(r: str, i: int) -> int:
    """Start of the number at r[i] with the '-' or U+2212 before it when that is its sign."""
    q = i
    while q > 0 and r[q - 1] in " \t":
        q -= 1
    if q == 0 or r[q - 1] not in "-\u2212":
        return i
    p = q - 1
    if q != i:
        return p if _sign_written_apart(r, p) else i
    return p if p == 0 or r[p - 1] in _SIGN_AFTER else i


_LABELS = "step|case|part|lemma|theorem|claim|figure|fig|corollary|proposition|section|problem|example|equation"
_STEP = re.compile(rf"(?<![A-Za-z\\])(?i:{_LABELS})[ \t]+[0-9]+\Z")  # "Step 5:", "Case 3" labels, no value


def _in_markup_tag(s: str, start: int, a: int, b: int) -> bool:
    """extract_number.cpp's in_markup_tag: the number s[a:b] lies inside a markup tag
    ("<img_4019>"): the nearest '<' before it, with no blank, '<' or '>' between, opens a tag that
    ends after it."""
    k = a
    while k > start and a - k < _MAX_MARKUP_TAG and s[k - 1] not in "<>" and s[k - 1] not in _SPACE:
        k -= 1
    if k == start or s[k - 1] != "<":
        return False
    end = _markup_tag_end(s, k - 1, len(s))
    return end is not None and end > b


def _raw_last_number(s: str, start: int, end: int) -> tuple[int, int] | None:
    """The last number of s[start:end], as the last-number scan reads it (not widened)."""
    region = s[start:end]
    last = None
    for m in _NUMBER.finditer(region):
        if m.group("num") is None or _STEP.search(region[: m.end()]):
            continue
        if not _in_markup_tag(s, start, start + m.start(), start + m.end()):
            last = m
    if last is None:
        return None
    return start + _signed_start(region, last.start()), start + last.end()


def _last_number(s: str, start: int) -> RefExtraction | None:
    found = _raw_last_number(s, start, len(s))
    if found is None:
        return None
    a, b = _bold_digits(s, start, *found)
    a, b = _number_object(s, start, a, b)
    return RefExtraction(s[a:b], a, b, "last_number")


def _number_object(s: str, start: int, a: int, b: int) -> tuple[int, int]:
    """extract_math.cpp's widen_number_object: the last number s[a:b] widened to the ratio or
    time it ends ("3:1"), its percent sign ("50%", "50\\%"), the parenthesized list of numbers
    ("(1, 2)") or the function argument ("f(0)") it belongs to."""
    m = re.search(r"(?:[0-9]+:)+\Z", s[start:a])
    if m is not None and m.start() < len(s[start:a]):
        return start + m.start(), b
    percent = re.compile(r"\\?%").match(s, b)
    if percent is not None:
        return a, percent.end()
    inside = "0123456789,. -"
    o = a
    while o > start and a - o < 64 and s[o - 1] in inside:
        o -= 1
    c = b
    while c < len(s) and c - b < 64 and s[c] in inside:
        c += 1
    if o == start or s[o - 1] != "(" or c >= len(s) or s[c] != ")":
        return a, b
    name = o - 1
    while name > start and o - 1 - name < 16 and _is_letter(s[name - 1]):
        name -= 1
    if name > start and (_is_digit(s[name - 1]) or s[name - 1] in "\\_"):
        return a, b
    listed = False
    grouped_end = 0
    for k in range(o, c):
        if _number_starts(s, o, k):
            grouped_end = _thousands_groups_end(s[:c], k)
        elif s[k] == "," and k >= grouped_end:
            listed = True
            break
    if not listed and name == o - 1:
        return a, b
    return name, c + 1
