r"""Quantifier domains of the extraction reference (``extract_domain.cpp``'s ``quantifier_domain``).

A math span that only names the set of numbers its variables range over (``x \\in
\\mathbb{R}^{+}``, ``k \\in \\mathbb{Z}``), after ``\\forall``, a comma or a quantifier word ("for all",
"where", ...), qualifies the answer before it; final_span does not read it as the answer.
"""

from __future__ import annotations

from tests.oracles.reference_common import _is_digit, _is_letter, _letters_end, _trim

#: markers.hpp's kQuantifierWords: the last words before a span that make it a quantifier's domain.
_QUANTIFIER_WORDS = ("for all", "for every", "for each", "for any", "for", "where", "with", "whenever")


def _domain_only(s: str, a: int, b: int) -> bool:
    """extract_math.cpp's domain_only: s[a:b] names variables and a set of numbers they are in
    ("x \\in \\mathbb{R}^{+}", "\\forall x, y \\in \\mathbb{R}"), nothing else."""
    a, b = _trim(s, a, b)
    k, variable, in_ = a, False, False
    while k < b and not in_:
        c = s[k]
        if c == "\\":
            e = _letters_end(s, k + 1, b)
            if e == k + 1:  # a control symbol: spacing ("\\ ", "\\,") and nothing else
                if k + 1 < b and s[k + 1] in " ,;:":
                    k += 2
                    continue
                return False
            in_ = s[k + 1 : e] == "in"
            k = e
            continue
        if _is_letter(c):
            variable = True
        elif not (_is_digit(c) or c in " \t_{},"):
            return False
        k += 1
    while k < b and s[k] in " \t":
        k += 1
    if not variable or not in_ or not s.startswith("\\mathbb", k, b):
        return False
    k += 7
    while k < b and s[k] in " \t{":
        k += 1
    if k >= b or not _is_letter(s[k]):
        return False
    k += 1
    while k < b:
        if s[k] == "\\":
            k = _letters_end(s, k + 1, b)
            if k >= b:
                break
            continue
        if _is_letter(s[k]):
            return False
        k += 1
    return True


def _quantifier_domain(s: str, span: tuple[int, int, int, int]) -> bool:
    """extract_math.cpp's quantifier_domain: a domain span after \\forall, a comma or a quantifier word."""
    if not _domain_only(s, span[1], span[2]):
        return False
    if s.startswith("\\forall", _trim(s, span[1], span[2])[0], span[2]):
        return True
    e = span[0]
    while e > 0 and s[e - 1] in " \t":
        e -= 1
    if e > 0 and s[e - 1] == ",":
        return True
    for w in _QUANTIFIER_WORDS:
        n = len(w)
        if e >= n and s[e - n : e].isascii() and s[e - n : e].lower() == w and (e == n or not _is_letter(s[e - n - 1])):
            return True
    return False
