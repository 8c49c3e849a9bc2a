"""Reference reading of answers of enumerated parts (detail/parts.hpp), stated again with regular
expressions: "(1) 3; (2) 5", "（Ⅰ）3（Ⅱ）5", "① 3 ② 5", "(a) 3 (b) 5".

A list starts with label 1 of a style at the start of the text; labels 2, 3, ... of the same style
follow in order, each after a blank, a separator or (circled and parenthesized digits) anywhere,
outside any bracket. Full-width parentheses and punctuation read as ASCII.
"""

from __future__ import annotations

import re

_ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x"]
# style -> the inside of label n (n from 1), for the parenthesized styles
_INSIDE = {
    "arabic": [str(n) for n in range(1, 21)],
    "roman_lower": _ROMAN,
    "roman_upper": [r.upper() for r in _ROMAN],
    "roman_sign": [chr(0x2160 + n) for n in range(10)],
    "letter": [chr(ord("a") + n) for n in range(8)],
}
# style -> label n written as one sign
_SIGNS = {
    "circled": [chr(0x2460 + n) for n in range(20)],
    "paren_digit": [chr(0x2474 + n) for n in range(20)],
}
STYLES = [*_INSIDE, *_SIGNS]  # the order first labels are tried in
MAX_PARTS = 20
_AFTER = re.compile(r"[.:．：、]?")
_SEPARATORS_BEFORE = re.compile(r"(?:[ \t\n\r\f\v,;.:$、。，；．：]|\\quad)\Z")


def label_end(s: str, k: int, style: str, n: int) -> int | None:
    """End of label n of style at s[k] (one '.', ':' or '、' after it included), or None."""
    if style in _SIGNS:
        signs = _SIGNS[style]
        if n > len(signs) or not s.startswith(signs[n - 1], k):
            return None
        e = k + 1
    else:
        inside = _INSIDE[style]
        if n > len(inside) or k >= len(s) or s[k] not in "(（":
            return None
        word = inside[n - 1]
        if not s.startswith(word, k + 1) or k + 1 + len(word) >= len(s) or s[k + 1 + len(word)] not in ")）":
            return None
        e = k + 2 + len(word)
    m = _AFTER.match(s, e)
    assert m is not None
    return m.end()


def first_label(s: str, k: int) -> tuple[str, int] | None:
    for style in STYLES:
        e = label_end(s, k, style, 1)
        if e is not None:
            return style, e
    return None


def _may_follow(s: str, k: int, style: str) -> bool:
    return style in _SIGNS or (k > 0 and _SEPARATORS_BEFORE.search(s, 0, k) is not None)


def labels(s: str, b: int, e: int) -> list[tuple[int, int]]:
    """(start, end) of each label of the list that s[b:e] is; [] when it starts with none."""
    t = s[:e]
    first = first_label(t, b)
    if first is None:
        return []
    style, k = first
    out = [(b, k)]
    depth = 0
    while k < e and len(out) < MAX_PARTS:
        if depth == 0 and _may_follow(t, k, style):
            end = label_end(t, k, style, len(out) + 1)
            if end is not None:
                out.append((k, end))
                k = end
                continue
        c = t[k]
        if c == "\\":
            k += 2
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}" and depth > 0:
            depth -= 1
        k += 1
    return out


_TRAILING = re.compile(r"(?:[ \t\n\r\f\v,;.:、。]|\\quad| and)+\Z")


def trimmed(s: str, b: int, e: int) -> tuple[int, int]:
    """s[b:e] less the blanks around it and the separators that end it."""
    while b < e and s[b] in " \t\n\r\f\v":
        b += 1
    m = _TRAILING.search(s, b, e)  # the leftmost run of separators that reaches e is the longest
    return b, (m.start() if m is not None else e)
