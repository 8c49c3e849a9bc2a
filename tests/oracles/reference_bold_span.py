r"""The bolded answer of the extraction reference (``extract_bold.cpp``'s ``bold_answer``).

A competition write-up sets the numbers of its answer in bold: ``$N=125+8-1=\mathbf{1 3 2}$``,
``$\frac{\mathbf{7 9}}{\mathbf{1 2 8}}$``. When every bold group of the text (``\mathbf``,
``\textbf``, ``\boldsymbol``, ``\bm``; latex_vocab.hpp's ``kBoldCommands``) holds a number (a
digit, and no letter outside a command) and none holds a letter, a word, more than 64 bytes or
unbalanced braces, final_span reads the math span holding the last bold number, from the
top-level comma before the span's first bold number (``T=36,[A R M L]=\mathbf{7 4}`` reads
``[A R M L]=\mathbf{7 4}``), whatever follows the span.
"""

from __future__ import annotations

import re

from tests.oracles.reference_common import _is_digit, _is_letter

_BOLD_COMMANDS = ("mathbf", "textbf", "boldsymbol", "bm")
_MAX_GROUP = 64

_NONE, _NUMBER, _OTHER = 0, 1, 2


def _group(s: str, k: int) -> tuple[int, int]:
    """(what the bold group at the backslash s[k] holds, the end of the group)."""
    e = k + 1
    while e < len(s) and _is_letter(s[e]):
        e += 1
    if s[k + 1 : e] not in _BOLD_COMMANDS:
        return _NONE, k + 1
    while e < len(s) and s[e] in " \t":
        e += 1
    if e >= len(s) or s[e] != "{":
        return _NONE, k + 1
    digit = letter = False
    depth = 0
    c, used = e, 0  # used: the UTF-8 bytes from the brace to s[c]
    while c < len(s) and used <= _MAX_GROUP:
        x = s[c]
        if x == "{":
            depth += 1
        elif x == "}":
            depth -= 1
            if depth == 0:
                return (_NUMBER if digit and not letter else _OTHER), c + 1
        elif x == "\\":
            while c + 1 < len(s) and _is_letter(s[c + 1]):
                c += 1
                used += 1
        elif _is_digit(x):
            digit = True
        elif _is_letter(x):
            letter = True
        used += len(x.encode())
        c += 1
    return _OTHER, k + 1


def _thousands_comma(s: str, k: int) -> bool:
    if k == 0 or not _is_digit(s[k - 1]):
        return False
    d = k + 1
    while d < len(s) and _is_digit(s[d]):
        d += 1
    return d - k - 1 == 3


def bold_answer(s: str, start: int, spans: list[tuple[int, int, int, int]]) -> tuple[int, int] | None:
    """(the index of the span holding the bolded answer, where its answer part starts), or None."""
    last = -1
    k = s.find("\\", start)
    while k != -1:
        kind, end = _group(s, k)
        if kind == _OTHER:
            return None
        if kind == _NUMBER:
            last = k
            k = end - 1
        k = s.find("\\", k + 1)
    if last < 0:
        return None
    for i in range(len(spans) - 1, -1, -1):
        _, a, b, _ = spans[i]
        if not a <= last < b:
            continue
        part, depth, k = a, 0, a
        while k < b:
            c = s[k]
            if c == "\\":
                if _group(s, k)[0] == _NUMBER:
                    break
                if k + 1 < b and s[k + 1] in "{}":
                    depth = depth + 1 if s[k + 1] == "{" else max(depth - 1, 0)
                k += 1
            elif c in "{([":
                depth += 1
            elif c in "})]" and depth > 0:
                depth -= 1
            elif c == "," and depth == 0 and not _thousands_comma(s, k):
                part = k + 1
            k += 1
        return i, part
    return None


def _bold_digits(s: str, start: int, a: int, b: int) -> tuple[int, int]:
    """extract_math.cpp's widen_bold_digits: a last number of digits s[a:b] inside a group of
    digit runs apart by single spaces, bold on both sides ("**6 2 4 8**", "\\mathbf{1 7}"), is the
    whole group."""
    if not s[a:b].isdigit() or not s[a:b].isascii():
        return a, b
    left = re.search(r"(?:[0-9]+ )+\Z", s[start:a])
    lo = start + left.start() if left is not None else a
    right = re.match(r"(?: [0-9]+)+", s[b:])
    hi = b + right.end() if right is not None else b
    if (lo, hi) == (a, b):
        return a, b
    before = s[start:lo]
    if before.endswith("**"):
        closed = s.startswith("**", hi)
    else:
        pattern = r"\\(?:" + "|".join(_BOLD_COMMANDS) + r")\{\Z"
        closed = re.search(pattern, before) is not None and s[hi : hi + 1] == "}"
    return (lo, hi) if closed else (a, b)
