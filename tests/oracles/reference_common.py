r"""The lowest layer of the extraction reference (``tests/oracles/reference_extract.py``): the result
type ``RefExtraction``; the character and range helpers (ASCII letters and digits, trimming, UTF-8
lengths, ASCII case-insensitive prefixes); and the math delimiters ($..$, $$..$$, \(..\), \[..\])
that the strategies, the answer phrase and the markers remove or skip.

It imports no other part of the reference. Offsets are Python string indices (code points).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

_SPACE = " \t\n\r\f\v"


class RefExtraction(NamedTuple):
    text: str
    start: int
    end: int
    method: str


def _read_units_table() -> tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]]:
    """(unit symbols, prefixable symbols, prefixes, whole-only symbols) of
    cpp/include/rapidgrade/detail/units.hpp."""
    header = Path(__file__).resolve().parents[2] / "cpp" / "include" / "rapidgrade" / "detail" / "units.hpp"
    text = header.read_text(encoding="utf-8")

    def c_string(lit: str) -> str:
        return lit.encode("latin-1").decode("unicode_escape").encode("latin-1").decode("utf-8")

    symbols, prefixable, prefixes, whole_only = set(), set(), set(), set()
    # a row is {symbol, pint name, prefixable} or {..., prefixable, whole_only}
    for m in re.finditer(r'\{"((?:[^"\\]|\\.)*)", "[^"]*", (true|false)(?:, (true|false))?\}', text):
        symbols.add(c_string(m.group(1)))
        if m.group(2) == "true":
            prefixable.add(c_string(m.group(1)))
        if m.group(3) == "true":
            whole_only.add(c_string(m.group(1)))
    for m in re.finditer(r'\{"((?:[^"\\]|\\.)*)", "[a-z]+"\}', text):
        prefixes.add(c_string(m.group(1)))
    return frozenset(symbols), frozenset(prefixable), frozenset(prefixes), frozenset(whole_only)


def _fullwidth_ascii(c: str) -> str:
    """The ASCII character the full-width form `c` stands for (U+FF01..U+FF5E), or ""."""
    return chr(ord(c) - 0xFEE0) if "\uff01" <= c <= "\uff5e" else ""


def _is_letter(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z")


def _trim(s: str, a: int, b: int) -> tuple[int, int]:
    while a < b and s[a] in _SPACE:
        a += 1
    while b > a and s[b - 1] in _SPACE:
        b -= 1
    return a, b


# --------------------------------------------------------------------------------------------
# math delimiters


def _has_no_dollar(t: str) -> bool:
    return "$" not in re.sub(r"\\.", "", t, flags=re.S)


def _strip_delimiters(s: str, a: int, b: int) -> tuple[int, int]:
    a, b = _trim(s, a, b)
    if b - a >= 4 and s.startswith("**", a) and s[b - 2 : b] == "**":
        a, b = _trim(s, a + 2, b - 2)
    return _unwrap_math(s, a, b)


def _unwrap_math(s: str, a: int, b: int) -> tuple[int, int]:
    """One layer of math delimiters enclosing all of s[a:b], removed; the result trimmed."""
    a, b = _trim(s, a, b)
    t = s[a:b]
    if len(t) >= 4 and t.startswith("$$") and t.endswith("$$") and _has_no_dollar(t[2:-2]):
        return _trim(s, a + 2, b - 2)
    if len(t) >= 2 and t[0] == "$" and t[-1] == "$" and (len(t) < 3 or t[-2] != "\\") and _has_no_dollar(t[1:-1]):
        return _trim(s, a + 1, b - 1)
    for open_, close in (("\\(", "\\)"), ("\\[", "\\]")):
        if len(t) >= 4 and t.startswith(open_) and t.endswith(close) and close not in t[2:-2]:
            return _trim(s, a + 2, b - 2)
    return a, b


def _display_close(s: str, i: int, dollars: bool) -> int:
    n = len(s)
    k = i
    while k < n:
        c = s[k]
        if c == "\\":
            if not dollars and k + 1 < n and s[k + 1] == "]":
                return k
            k += 2
        elif dollars and c == "$" and k + 1 < n and s[k + 1] == "$":
            return k
        else:
            k += 1
    return -1


# --------------------------------------------------------------------------------------------
# helpers of the unmarked strategies (the answer phrase and the markers use them too)


_MAX_MARKUP_TAG = 32  # extract_internal.hpp's kMaxMarkupTag: bytes a tag or token may span
_MARKUP_TAG = re.compile(r"<\|[\s\S]*?\|>|</?[A-Za-z][A-Za-z0-9_]*>")


def _markup_tag_end(s: str, k: int, end: int) -> int | None:
    """extract_phrase.cpp's markup_tag_end: the end of "</s>", "<eos>", "<img_3695>",
    "<|im_end|>" at s[k] (within 32 bytes and `end`), or None."""
    m = _MARKUP_TAG.match(s, k, min(end, k + _MAX_MARKUP_TAG))
    return m.end() if m else None


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


def _u8(s: str, a: int, b: int) -> int:
    """Length of s[a:b] in UTF-8 bytes (the unit of the core's size limits)."""
    return len(s[a:b].encode("utf-8", "surrogatepass"))


def _ascii_istarts(s: str, i: int, word: str) -> bool:
    """s[i:] starts with the lower-case ASCII `word`, ignoring ASCII case only."""
    if i < 0 or i + len(word) > len(s):
        return False
    return all(c.isascii() and c.lower() == w for c, w in zip(s[i : i + len(word)], word))


def _letters_end(s: str, i: int, end: int) -> int:
    while i < end and _is_letter(s[i]):
        i += 1
    return i


def _ends_with_list_ellipsis(s: str, a: int, b: int) -> bool:
    """s[a:b] ends with an ellipsis of three dots or more after a comma ("1, 2, 3, ...")."""
    d = b
    while d > a and s[d - 1] == ".":
        d -= 1
    if b - d < 3:
        return False
    while d > a and s[d - 1] in " \t":
        d -= 1
    return d > a and s[d - 1] == ","


_COMPUTATION = re.compile(r"[ \t]*[0-9$](?:[0-9 \t.,$+\-*/=×·]|\\times|\\cdot|[A-Za-z]{2,}|(?<=[ \t])[xX](?=[ \t]))*")
# an operator after an operand (a digit or a word, blanks between); a lone "x" between blanks
_OPERATOR = re.compile(r"(?:[0-9A-Za-z][ \t]*)(?:[+\-*/=×·]|\\times|\\cdot)|(?<=[ \t])[xX](?=[ \t])")


def _computation(s: str, b: int, e: int) -> bool:
    """A computation of the result from numbers ("3 boxes × 5 balls", "20 - 12"): it starts with a
    digit or '$' and holds numbers, operators, words of two letters or more and an "x" between
    blanks, with one operator after an operand at least ("(1, -2)" holds a sign)."""
    m = _COMPUTATION.fullmatch(s, b, e)
    return m is not None and _OPERATOR.search(s, b, e) is not None
