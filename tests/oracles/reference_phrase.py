"""The answer-phrase grammar of the extraction reference (``tests/oracles/reference_extract.py``),
``read_answer_phrase`` (extract::read_answer_phrase of the C++ core): the math object at the start of
the text after a marker, where a unit word or prose cuts it, and whether prose leads it. The unit
table is read from cpp/include/rapidgrade/detail/units.hpp; the non-ASCII math words ("根号",
"无穷大", "和", "或") are those of detail/markers.hpp.

Built on ``reference_common`` and ``reference_strategies`` (the function words, the math-span closer,
signed numbers); the markers (``reference_markers``) read their answers with it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from tests.oracles import reference_parts as parts
from tests.oracles.reference_common import (
    _SPACE,
    _computation,
    _ends_with_list_ellipsis,
    _fullwidth_ascii,
    _is_digit,
    _is_letter,
    _letters_end,
    _markup_tag_end,
    _read_units_table,
    _trim,
)
from tests.oracles.reference_last_number import _signed_start
from tests.oracles.reference_normalize import _number_words
from tests.oracles.reference_strategies import FUNCTION_WORDS, _math_closer

# --------------------------------------------------------------------------------------------
# the answer phrase (extract::read_answer_phrase) and the marker table's non-ASCII math words (detail/markers.hpp)


_UNIT_SYMBOLS, _PREFIXABLE_UNITS, _UNIT_PREFIXES, _ = _read_units_table()
_MATH_NON_ASCII = (
    "\u2212",
    "\u03c0",
    "\u221a",
    "\u221e",
    "\u2205",
    "\u00b0",
    "\u00b2",
    "\u00b3",
    "\u00d7",
    "\u00f7",
    "\u00b7",
    "\u00b1",
    "\u2264",
    "\u2265",
    "\u2260",
    "\u2248",
    "\u22c5",
)
#: latex_vocab.hpp's kEllipsisTexts that are not ASCII: math as an element of a list only.
_ELLIPSES = ("\u2026", "\u22ef")
#: detail/markers.hpp's kCjkMathWords (read as math by the phrase reader, then by normalization).
_CJK_MATH_WORDS = ("根号", "正无穷大", "负无穷大", "正无穷", "负无穷", "无穷大")
_CJK_JOINERS = ("和", "或")
_CURRENCY = ("\u00a5", "\u20ac", "\u00a3", "\uffe5")
_PHRASE_OPERATORS = "+-*/^=<>_("
_DANGLING_OPERATORS = "+/^=<>"  # math cut before its operand: no answer of its own


def _is_unit_word(w: str) -> bool:
    if w in _UNIT_SYMBOLS:
        return True
    return any(w[:p] in _UNIT_PREFIXES and w[p:] in _PREFIXABLE_UNITS for p in (1, 2) if p < len(w))


def _unit_end(s: str, e: int, end: int) -> int:
    k = e
    while k < end:
        q = k
        if s[q] == "^":
            q += 1
            if q < end and s[q] in "-{":
                q += 1
            d = q
            while d < end and _is_digit(s[d]):
                d += 1
            if d == q:
                break
            k = d + 1 if d < end and s[d] == "}" else d
            continue
        if s[q] not in "/*":
            break
        q += 1
        w = _letters_end(s, q, end)
        if w == q or not _is_unit_word(s[q:w]):
            break
        k = w
    return k


def _math_non_ascii(s: str, k: int) -> int:
    a = _fullwidth_ascii(s[k])
    if a:
        return 1 if (_is_digit(a) or a in "+-*/=<>()[],.%^") else 0
    for m in (*_MATH_NON_ASCII, *_CJK_MATH_WORDS):
        if s.startswith(m, k):
            return len(m)
    if k < len(s) and s[k] in _ELLIPSES:
        return 1 if s[:k].rstrip(" \t").endswith(",") else 0
    return 0


def _cjk_joiner(s: str, k: int) -> int:
    return 1 if k < len(s) and s[k] in _CJK_JOINERS else 0


def _math_word(w: str) -> bool:
    return len(w) == 1 or w in ("pi", "oo", "inf", "infty", "infinity", "sqrt") or w in FUNCTION_WORDS


def _bold_close(s: str, begin: int, k: int, end: int) -> bool:
    """A "**" at k that closes markdown bold: after a non-blank, before a blank, punctuation or the end."""
    if k <= begin or k + 1 >= end or s[k : k + 2] != "**" or s[k - 1] in " \t":
        return False
    if k + 2 < end and s[k + 2] not in " \t":
        return s[k + 2] in ".,;:!?)"
    rest = s[k + 2 : end].lstrip(" \t")
    return not rest or rest[0] not in "=<>+-*/^"


def _operand_word(s: str, begin: int, k: int, w: int, end: int) -> bool:
    if w + 1 < end and s[w] in "'\u2019" and _is_letter(s[w + 1]):
        return False  # a possessive or a contraction: "10+John's age"
    b = k
    while b > begin and s[b - 1] in " \t":
        b -= 1
    if (
        b > begin
        and (s[b - 1] in _PHRASE_OPERATORS or s[b - 1] == "{")
        and not (b >= begin + 2 and _bold_close(s, begin, b - 2, end))
    ):
        return True
    a = w
    while a < end and s[a] in " \t":
        a += 1
    return a < end and s[a] in _PHRASE_OPERATORS and not _bold_close(s, begin, a, end)


def _dots_after(s: str, k: int, end: int) -> int:
    """The end of an ellipsis of three dots or more after the blanks at s[k], or 0."""
    while k < end and s[k] in " \t":
        k += 1
    d = k
    while d < end and s[d] == ".":
        d += 1
    return d if d - k >= 3 else 0


def _math_follows(s: str, k: int, end: int) -> bool:
    while k < end and s[k] in " \t":
        k += 1
    if k >= end:
        return False
    c = s[k]
    if _is_digit(c) or c in "-$\\([{":
        return True
    if _is_letter(c):
        w = _letters_end(s, k, end)
        return w == k + 1 or _math_word(s[k:w])
    return _math_non_ascii(s, k) > 0


def _digits_end(s: str, i: int, end: int) -> int:
    while i < end and _is_digit(s[i]):
        i += 1
    return i


def _latex_group_separator(s: str, k: int) -> int:
    for cand in (",\\!", "{,}", "\\,", "\\ ", ",", " "):
        if s.startswith(cand, k):
            return len(cand)
    return 0


def _number_end(t: str, i: int) -> int:
    """extract.cpp's number_end on t (the text up to the phrase's end)."""
    n = len(t)
    k = i
    plain = True
    if t[k] == ".":
        k = _digits_end(t, k + 1, n)
        plain = False
    else:
        k = _digits_end(t, k, n)
        if k - i <= 3 and t[i] != "0":  # no grouped number starts with 0 ("0,198")
            while k + 3 < n + 1 and k < n and t[k] == "," and k + 3 < n + 1 and _digits_end(t, k + 1, n) == k + 4:
                k += 4
                plain = False
        if k + 1 < n and t[k] == "." and _is_digit(t[k + 1]):
            k = _digits_end(t, k + 1, n)
            plain = False
    if k < n and t[k] in "eE":
        m = k + 1
        if m < n and t[m] in "+-":
            m += 1
        if m < n and _is_digit(t[m]):
            k = _digits_end(t, m, n)
            plain = False
    if plain and k + 1 < n and t[k] == "/" and _is_digit(t[k + 1]):
        k = _digits_end(t, k + 1, n)
    return k


def _phrase_number_end(s: str, i: int, end: int) -> int:
    t = s[:end]
    k = _number_end(t, i)
    run = _digits_end(t, i, end)
    if k == run and run - i <= 3:
        g = run
        while True:
            sep = _latex_group_separator(t, g)
            d = g + sep
            if sep == 0 or _digits_end(t, d, end) != d + 3:
                break
            g = d + 3
        if g != run and t[run] == " " and all(_is_digit(c) or c == " " for c in t[run:g]):
            k = g
    if k == run and k + 1 < end and t[k] == " " and _is_digit(t[k + 1]):
        num = _digits_end(t, k + 1, end)
        if num + 1 < end and t[num] == "/" and _is_digit(t[num + 1]):
            den = _digits_end(t, num + 1, end)
            if den >= end or t[den] != ".":
                k = den
    return k


def _group_end(s: str, k: int, end: int) -> int:
    depth = 0
    q = k
    while q < end:
        c = s[q]
        if c == "\\":
            q += 2
            continue
        if c in "([{":
            depth += 1
        if c in ")]}":
            depth -= 1
            if depth == 0:
                return q + 1
        q += 1
    return -1


def _holds_prose(s: str, b: int, e: int) -> bool:
    k = b
    while k < e:
        c = s[k]
        if c == "\\":
            w = _letters_end(s, k + 1, e)
            k = w if w > k + 1 else min(e, k + 2)
            continue
        if _is_letter(c):
            w = _letters_end(s, k, e)
            if not _math_word(s[k:w]) and s[k:w] not in ("and", "or"):
                return True
            k = w
            continue
        if not c.isascii():
            m = max(_math_non_ascii(s, k), _cjk_joiner(s, k))
            if m == 0:
                return True
            k += m
            continue
        k += 1
    return False


def _span_delimiters(s: str, k: int, end: int) -> tuple[int, str]:
    dollar = s[k] == "$"
    open_ = 2 if dollar and k + 1 < end and s[k + 1] == "$" else (1 if dollar else 2)
    close = ("$$" if open_ == 2 else "$") if dollar else ("\\)" if s[k + 1] == "(" else "\\]")
    return open_, close


def _math_objects(s: str, b: int, e: int) -> tuple[int, tuple[int, int], bool]:
    """How many numbers and math spans s[b:e] holds, the last one, and whether that last one is
    the only one that holds a digit (a span such as "$n$" or "$f(x)$" only names)."""
    count, last = 0, (b, b)
    valued, last_valued = 0, (b, b)
    k = b
    while k < e:
        c = s[k]
        if c == "$" or (c == "\\" and k + 1 < e and s[k + 1] in "(["):
            open_, close = _span_delimiters(s, k, e)
            at = _math_closer(s[:e], k + open_, close)
            if at < 0:
                return 2, last, False
            count += 1
            last = (k, at + len(close))
            if any(_is_digit(ch) for ch in s[k + open_ : at]):
                valued, last_valued = valued + 1, last
            k = at + len(close)
            continue
        if _is_digit(c) and (k == b or not _is_letter(s[k - 1])):
            ne = _phrase_number_end(s, k, e)
            percent = re.compile(r"\\?%").match(s, ne, e)  # with its percent sign: "about 50%"
            ne = percent.end() if percent is not None else ne
            count += 1
            last = (b + _signed_start(s[b:e], k - b), ne)
            valued, last_valued = valued + 1, last
            k = ne
            continue
        if c == "\\":
            k += 2
            continue
        k += 1
    return count, last, valued == 1 and last_valued[0] == last[0]


class _Phrase(NamedTuple):
    answer: tuple[int, int]
    unit: tuple[int, int]
    clean: bool
    cut: bool
    leading_prose: bool
    joined: bool
    parts: bool = False


_LIST_JOINER = re.compile(r",[ \t]*(?:and|or)(?![A-Za-z])")


def _number_words_end(s: str, k: int, end: int) -> int:
    """The end of the longest run of up to six words at k that writes a number (negative too)."""
    stop = q = k
    for _ in range(6):
        if q >= end or not _is_letter(s[q]):
            break
        while q < end and (_is_letter(s[q]) or s[q] == "-"):
            q += 1
        if _number_words(s[k:q]) is not None:
            stop = q
        while q < end and s[q] in " \t":
            q += 1
    return stop


def read_answer_phrase(s: str, a: int, b: int) -> _Phrase:
    """The math object at the start of the phrase s[a:b] (see extract.hpp, read_answer_phrase)."""
    a, end = _trim(s, a, b)
    if end <= a:
        return _Phrase((a, end), (0, 0), True, False, False, False)
    if len(parts.labels(s, a, end)) >= 2:  # enumerated parts: the whole phrase
        return _Phrase(parts.trimmed(s, a, end), (0, 0), True, False, False, False, True)
    k = a
    paren = s[k] == "("
    if paren:
        k += 1
    if k + 1 < end and "A" <= s[k] <= "J" and (s[k + 1] == ")" or (not paren and s[k + 1] in ".:")):
        after = k + 2
        if after < end and s[after] in " \t" and _trim(s, after, end)[1] > after:
            return _Phrase((a, after if paren else k + 1), (0, 0), False, True, False, False)
    k = answer_start = math_end = a
    seen = cut = leading = joined = False
    unit = (0, 0)
    while k < end:
        c = s[k]
        if c in " \t":
            k += 1
            continue
        before = k
        if c == "*" and seen and _bold_close(s, a, k, end):  # the bold ends the math
            cut = _trim(s, k + 2, end)[1] > k + 2
            break
        if c == "*" and not seen:
            k += 1
            answer_start = k
            continue
        if c == "$" or (c == "\\" and k + 1 < end and s[k + 1] in "(["):
            open_, close = _span_delimiters(s, k, end)
            at = _math_closer(s[:end], k + open_, close)
            if (
                c == "$"
                and open_ == 1
                and k + 1 < end
                and _is_digit(s[k + 1])
                and ("$" not in s[k + 1 : end] if at < 0 else _holds_prose(s, k + 1, at) and "\\" not in s[k + 1 : at])
            ):
                if not seen:
                    answer_start = k + 1
                k += 1
                continue
            if at < 0:
                math_end, seen = end, True
                break
            k = at + len(close)
        elif c == "\\":
            w = _letters_end(s, k + 1, end)
            if w == k + 1:
                k = min(end, k + 2)
            else:
                text = s[k + 1 : w] in ("text", "textrm", "mbox", "mathrm")
                k = w
                if k < end and s[k] == "{":
                    g = _group_end(s, k, end)
                    if g < 0:
                        math_end, seen = end, True
                        break
                    if text and seen and _holds_prose(s, k + 1, g - 1):
                        cut = True
                        break
                    k = g
        elif c in "([{":
            g = _group_end(s, k, end)
            if g < 0:
                math_end, seen = end, True
                break
            if (
                seen
                and before > a
                and s[before - 1] in " \t"
                and (_holds_prose(s, k + 1, g - 1) or (c == "(" and _computation(s, k + 1, g - 1)))
            ):
                cut = True
                break
            k = g
        elif _is_digit(c) or (c == "." and k + 1 < end and _is_digit(s[k + 1])):
            k = _phrase_number_end(s, k, end)
            w = _letters_end(s, k, end)
            if w > k and _is_unit_word(s[k:w]) and (w >= end or not _is_digit(s[w])):
                math_end, unit, cut, seen = k, (k, _unit_end(s, w, end)), True, True
                break
            if w > k and not _math_word(s[k:w]) and w - k > 1:
                math_end, cut, seen = k, True, True
                break
            k = w
        elif _is_letter(c):
            w = _letters_end(s, k, end)
            word = s[k:w]
            if seen and word in ("and", "or") and _math_follows(s, w, end):
                joined = True
                k = w
                continue
            if (
                seen
                and _is_unit_word(word)
                and before > a
                and s[before - 1] in " \t"
                and (_is_digit(s[math_end - 1]) or s[math_end - 1] in ")]")
                and (w >= end or s[w] in "/^.," or s[w] in _SPACE)
            ):
                unit, cut = (k, _unit_end(s, w, end)), True
                break
            article = (
                w - k == 1
                and c == "a"
                and w + 1 < end
                and s[w] in " \t"
                and _is_letter(s[w + 1])
                and not _math_word(s[w + 1 : _letters_end(s, w + 1, end)])
            )
            if article or (not _math_word(word) and not _operand_word(s, a, k, w, end)):
                if not seen:
                    leading = True
                    break
                if _is_unit_word(word):
                    unit = (k, _unit_end(s, w, end))
                cut = True
                break
            k = w
        elif not c.isascii():
            if not seen and c in _CURRENCY:
                k += 1
                answer_start = k
                continue
            m = _math_non_ascii(s, k)
            if m == 0 and seen and c in "，；：" and _math_follows(s, k + 1, end):
                k += 1  # full-width punctuation before more math, as the ASCII one
                continue
            if m == 0 and seen and _math_follows(s, k + _cjk_joiner(s, k), end):
                m = _cjk_joiner(s, k)
                joined = joined or m > 0
            if m == 0:
                if not seen:
                    leading = True
                    break
                cut = True
                break
            k += m
        elif c == "<" and _markup_tag_end(s, k, end) is not None:
            # markup or a model's end token ("10</s>", "10<|im_end|>") ends the answer
            tag = _markup_tag_end(s, k, end)
            assert tag is not None
            if seen:
                cut = _trim(s, tag, end)[1] > tag
                break
            k = answer_start = tag
            continue
        elif c == "," and seen and _dots_after(s, k + 1, end):
            k = _dots_after(s, k + 1, end)  # an ellipsis as a list's term: "1, 2, ..., n"
        elif c in ".,;:?":
            if c in ",;:" and seen and _math_follows(s, k + 1, end):
                k += 1
                continue
            m = _LIST_JOINER.match(s, k, end) if c == "," and seen else None
            if m is not None and _math_follows(s, m.end(), end):  # "1, 2, and 3"
                joined = True
                k = m.end()
                continue
            if seen:
                cut = _trim(s, k + 1, end)[1] > k + 1 or c in ",;:"
                break
            k += 1
            continue
        elif c in ")]}" and seen:
            cut = True  # a closer of a group around the phrase: "(... the answer is $n$ )"
            break
        else:
            k += 1
        seen = True
        math_end = k
    if leading:
        count, last, only_value_last = _math_objects(s, a, end)
        if count == 1 or only_value_last:
            return _Phrase(_trim(s, *last), unit, False, True, True, joined)
        stop = _number_words_end(s, a, end)
        if count == 0 and a < stop < end:  # "seven apples"
            return _Phrase((a, stop), unit, False, True, True, joined)
        return _Phrase((a, end), unit, count == 0, cut, True, joined)
    if not seen:
        return _Phrase((a, end), unit, True, cut, False, joined)
    x, y = _trim(s, answer_start, math_end)
    while y > x and s[y - 1] in ",;:.*" and not _ends_with_list_ellipsis(s, x, y):
        x, y = _trim(s, x, y - 1)
    if y <= x:
        return _Phrase((a, end), unit, True, False, False, joined)
    if cut and s[y - 1] in _DANGLING_OPERATORS:
        return _Phrase((a, end), (0, 0), False, False, False, joined)  # "10+John's age"
    return _Phrase((x, y), unit, True, cut, False, joined)
