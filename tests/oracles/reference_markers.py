"""The answer markers of the extraction reference (``tests/oracles/reference_extract.py``; the
marker table is cpp/include/rapidgrade/detail/markers.hpp): "answer is" / "Answer:" and answer
headings, ``<answer>`` tags and GSM8K ``####`` lines, "A:" lines, and the CJK markers (答案,
所以/因此 ... 是/为). Of the markers that yield an answer, the one nearest the end wins (``_marked``),
which the cascade runs as one step under ``answer_is``.

Built on ``reference_common``, ``reference_strategies`` (what a math span states) and
``reference_phrase`` (what follows a marker).
"""

from __future__ import annotations

import re

from tests.oracles import reference_parts as parts
from tests.oracles.reference_common import (
    _SPACE,
    RefExtraction,
    _display_close,
    _is_letter,
    _markup_tag_end,
    _strip_delimiters,
    _trim,
)
from tests.oracles.reference_phrase import _Phrase, read_answer_phrase
from tests.oracles.reference_strategies import _span_answer

# --------------------------------------------------------------------------------------------
# answer_is

_MARKER = re.compile(r"(?<![A-Za-z])answer", re.I | re.A)
# "answer is", "answer:", "answer to the question is" (one to four words of letters after "to")
_AFTER_MARKER = re.compile(
    r"(?:\*\*)?[ \t]*(?:to(?:[ \t]+[A-Za-z]+){1,4}?[ \t]+(?=is(?![A-Za-z])))?(?::(?:\*\*)?|is(?![A-Za-z])[ \t]*:?)",
    re.I | re.A,
)


def _answer_value(s: str, j: int) -> tuple[int, int]:
    n = len(s)
    while j < n and s[j] in _SPACE:
        j += 1
    if j == n:
        return j, j
    if s.startswith("$$", j) or s.startswith("\\[", j):
        close = _display_close(s, j + 2, s[j] == "$")
        if close >= 0:
            return _strip_delimiters(s, j, close + 2)
    return _strip_delimiters(s, j, _sentence_end(s, j))


# --------------------------------------------------------------------------------------------
# tagged

_GSM8K_LINE = re.compile(r"^[ \t]*####(.*)$", re.M)
_GSM8K_VALUE = re.compile(r"[0-9,.\-+/ $\u2212]*[0-9][0-9,.\-+/ $\u2212]*")


# --------------------------------------------------------------------------------------------
# the markers (detail/markers.hpp)


#: markers.hpp's kAbbreviations: a full stop after one ends no sentence ("Mr. Jackson").
_ABBREVIATIONS = ("Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Jr", "Sr", "vs")


def _abbreviation_before(s: str, j: int, k: int) -> bool:
    """Whether the ASCII word that ends right before s[k] (a '.'), starting after s[j], is an
    abbreviation (not a command's name)."""
    b = k
    while b > j and s[b - 1].isascii() and s[b - 1].isalpha():
        b -= 1
    return b < k and not (b > j and s[b - 1] == "\\") and s[b:k] in _ABBREVIATIONS


def _sentence_end(s: str, j: int) -> int:
    n = len(s)
    in_dollar = in_paren = False
    depth = 0
    k = j
    while k < n:
        c = s[k]
        if c in "\n\r":
            break
        if c == "\\":
            if k + 1 < n and s[k + 1] in "\n\r":
                break
            if k + 1 < n:
                if s[k + 1] == "(":
                    in_paren = True
                elif s[k + 1] == ")":
                    in_paren = False
            k += 2
            continue
        if c == "$":
            in_dollar = not in_dollar
        elif c == "{":
            depth += 1
        elif c == "}":
            if depth > 0:
                depth -= 1
        elif (
            c in ".!?"
            and not in_dollar
            and not in_paren
            and depth == 0
            and (k + 1 >= n or s[k + 1] in _SPACE)
            and not (c == "." and k + 1 < n and _abbreviation_before(s, j, k))
        ):
            break
        k += 1
    return min(k, n)


_PARTS_GAP = re.compile(r"[ \t\n\r\f\v.!?]*")


def _parts_end(s: str, a: int, b: int, limit: int) -> int:
    """The end of a list of enumerated parts that starts at s[a] and goes on past b, over
    sentence ends and single line breaks while the next label follows; b when s[a] starts none."""
    limit = min(limit, len(s))
    first = parts.first_label(s[:limit], a)
    if first is None:
        return b
    style, label = first
    end = max(b, min(_sentence_end(s, label), limit))
    count = len(parts.labels(s, a, end))
    while count < parts.MAX_PARTS:
        m = _PARTS_GAP.match(s, end, limit)
        assert m is not None
        k = m.end()
        if s.count("\n", end, k) > 1 or k >= limit:
            break
        nxt = parts.label_end(s[:limit], k, style, count + 1)
        if nxt is None:
            break
        end = max(k + 1, min(_sentence_end(s, nxt), limit))
        now = len(parts.labels(s, a, end))
        if now <= count:
            break
        count = now
    return end


def _marked_value(s: str, j: int, limit: int | None = None) -> tuple[_Phrase, tuple[int, int]]:
    """What follows a marker at j, read no further than limit: a display block, or the answer
    phrase of the rest of the sentence; (phrase, answer range)."""
    n = len(s) if limit is None else min(len(s), limit)
    while j < n and s[j] in _SPACE:
        j += 1
    empty = _Phrase((j, j), (0, 0), True, False, False, False)
    if j == n:
        return empty, (j, j)
    if s.startswith("$$", j) or s.startswith("\\[", j):
        close = _display_close(s[:n], j + 2, s[j] == "$")
        if close >= 0:
            return empty, _strip_delimiters(s, j, close + 2)
    a, b = _trim(s, j, min(_sentence_end(s, j), n))
    p = read_answer_phrase(s, a, _parts_end(s, a, b, len(s)))
    x, y = _strip_delimiters(s, *p.answer)
    if not p.leading_prose and not p.joined and not p.parts and y > x:
        x, y = _span_answer(s, x, y)
    return p, (x, y)


def _heading_before(s: str, start: int, i: int) -> bool:
    b = i
    while b > start and s[b - 1] != "\n":
        c = s[b - 1]
        if c in "#* \t":
            b -= 1
        elif b >= start + 5 and s[b - 5 : b].lower() == "final" and (b - 5 == start or not _is_letter(s[b - 6])):
            b -= 5
        else:
            return False
    return True


# markers.hpp's kValueBefore row and its words: "6 is the correct answer.", "623 must be the only
# answer,", "$x=2$ is our final answer."
_VALUE_BEFORE_VERBS = ("is", "must be")
_VALUE_BEFORE_DETERMINERS = ("the", "our")
_VALUE_BEFORE_ADJECTIVES = ("only", "correct", "final", "right")
_VALUE_BEFORE_CONDITIONS = ("if", "whether")
_MAX_VALUE_BEFORE = 256


def _word_before(s: str, start: int, k: int, words: tuple[str, ...]) -> int | None:
    while k > start and s[k - 1] in " \t":
        k -= 1
    for w in words:
        b = k - len(w)
        if b >= start and s[b:k].lower() == w and (b == 0 or not _is_letter(s[b - 1])):
            return b
    return None


def _value_before(s: str, start: int, i: int) -> tuple[int, int] | None:
    """The value before "answer" at s[i] of "X is the correct answer.", or None."""
    q = i + 6
    if q < len(s) and _is_letter(s[q]):
        return None
    while q < len(s) and s[q] in " \t":
        q += 1
    if q < len(s) and s[q] not in ".,;!\n\r":
        return None
    k: int | None = i
    adjective = _word_before(s, start, i, _VALUE_BEFORE_ADJECTIVES)
    if adjective is not None:
        k = adjective
    k = _word_before(s, start, k, _VALUE_BEFORE_DETERMINERS)
    if k is not None:
        k = _word_before(s, start, k, _VALUE_BEFORE_VERBS)
    if k is None:
        return None
    while k > start and s[k - 1] in " \t":
        k -= 1
    end = k
    stop = max(start, end - _MAX_VALUE_BEFORE)
    if end > stop and s[end - 1] == "$":
        open_ = s.rfind("$", stop, end - 1)
        if open_ < 0 or "\n" in s[open_:end] or (open_ > start and s[open_ - 1] == "$"):
            return None
        k = open_
    else:
        while k > stop and ((s[k - 1].isascii() and s[k - 1].isdigit()) or s[k - 1] in ".,/%"):
            k -= 1
        while k < end and not (s[k].isascii() and s[k].isdigit()):
            k += 1
        if k == end:
            return None
        if k > stop and s[k - 1] == "-":
            k -= 1
    if k > start and s[k - 1] not in _SPACE:
        return None
    if _word_before(s, start, k, _VALUE_BEFORE_CONDITIONS) is not None:
        return None
    return k, end


def _answer_is_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    last = marker = -1
    before: tuple[int, int] | None = None
    for m in _MARKER.finditer(s, start):
        after = _AFTER_MARKER.match(s, m.end())
        if after is not None:
            last, marker, before = after.end(), m.start(), None
            continue
        value = _value_before(s, start, m.start())
        if value is not None:
            last, marker, before = -1, m.start(), value
            continue
        j = m.end() + 2 if s.startswith("**", m.end()) else m.end()
        while j < len(s) and s[j] in " \t":
            j += 1
        if j < len(s) and s[j] in "\n\r" and _heading_before(s, start, m.start()):
            last, marker, before = j, m.start(), None
    if before is not None:
        a, b = _strip_delimiters(s, *before)
        if b <= a:
            return None
        a, b = _span_answer(s, a, b)
        return RefExtraction(s[a:b], a, b, "answer_is"), marker
    if last < 0:
        return None
    _, (a, b) = _marked_value(s, last)
    if b <= a:
        return None
    return RefExtraction(s[a:b], a, b, "answer_is"), marker


def _tagged_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    tag = None
    close = s.rfind("</answer>", start)
    if close >= 0:
        open_ = s.rfind("<answer>", start, close)
        if open_ >= 0:
            a, b = _trim(s, open_ + 8, close)
            if b > a:
                tag = RefExtraction(s[a:b], a, b, "tagged"), open_
    best = None
    for m in _GSM8K_LINE.finditer(s[start:]):
        a, b = _trim(s, start + m.start(1), start + m.end(1))
        while b > a and s[b - 1] == ".":
            b -= 1
        a, b = _trim(s, a, b)
        if b > a and not _GSM8K_VALUE.fullmatch(s, a, b):
            ph = read_answer_phrase(s, a, b)
            w = ph.answer[1]
            while w < b and s[w] in " \t":
                w += 1
            words = ph.answer[1] < w < b and _is_letter(s[w])
            token = w < b and _markup_tag_end(s, w, b) is not None
            a, b = ph.answer if not ph.leading_prose and (words or token) else (0, 0)
        if b > a and _GSM8K_VALUE.fullmatch(s, a, b):
            best = (a, b, start + m.start(1) - 4)
    if best is None or (tag is not None and tag[1] > best[2]):
        return tag
    return RefExtraction(s[best[0] : best[1]], best[0], best[1], "tagged"), best[2]


def _line_end(s: str, i: int) -> int:
    e = s.find("\n", i)
    return len(s) if e < 0 else e


def _a_line_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    end = len(s)
    while end > start:
        p = s.rfind("A:", start, end)
        if p < 0:
            return None
        b = p
        while b > start and s[b - 1] in " \t":
            b -= 1
        if (b == start or s[b - 1] == "\n") and p + 2 < len(s) and s[p + 2] in " \t":
            _, (a, e) = _marked_value(s, p + 2, _line_end(s, p + 2))
            if e <= a:
                return None
            return RefExtraction(s[a:e], a, e, "answer_is"), p
        end = p + 1
    return None


def _after_colon(s: str, j: int) -> int:
    """After a marker at j: past blanks and one colon (":" or "："), or j when no colon follows."""
    k = j
    while k < len(s) and s[k] in " \t":
        k += 1
    return k + 1 if s.startswith((":", "："), k) else j


def _cjk_at(s: str, start: int) -> tuple[RefExtraction, int] | None:
    n = len(s)
    out = None
    p = s.rfind("答案", start)
    if p >= 0:
        j = p + 2
        if p >= start + 1 and s[p - 1] == "【" and s.startswith("】", j):
            j = _after_colon(s, j + 1)
            eol = _line_end(s, j)
            eoa = s.find("<eoa>", j, eol)
            stop = eoa if eoa >= 0 else eol
            if eoa < 0:  # parts on lines of their own
                close = s.find("<eoa>", j)
                stop = _parts_end(s, j, stop, close if close >= 0 else n)
            ph = read_answer_phrase(s, j, stop)
            a, b = _strip_delimiters(s, *ph.answer)
            if b > a:
                out = RefExtraction(s[a:b], a, b, "tagged"), p - 1
        else:
            while j < n and s[j] in " \t":
                j += 1
            copula = False
            if s.startswith(("是", "为"), j):
                j += 1
                copula = True
            colon = _after_colon(s, j)
            copula = copula or colon != j
            j = colon
            if copula:
                _, (a, b) = _marked_value(s, j, _line_end(s, j))
                if b > a:
                    out = RefExtraction(s[a:b], a, b, "answer_is"), p
    conclusion = max(s.rfind("所以", start), s.rfind("因此", start))
    if conclusion < 0 or (out is not None and out[1] > conclusion):
        return out
    eol = _line_end(s, conclusion)
    copula_at = max(s.rfind("是", conclusion, eol), s.rfind("为", conclusion, eol))
    if copula_at < 0:
        return out
    ph, (a, b) = _marked_value(s, copula_at + 1, eol)
    if b <= a:
        return out
    rest = s[max(b, ph.unit[1]) :]
    if rest.strip(_SPACE + ".$。") != "":
        return out
    return RefExtraction(s[a:b], a, b, "answer_is"), conclusion


def _marked(s: str, start: int, which: str) -> RefExtraction | None:
    """The answer of the marker nearest the end (answer_is, tagged, "A:", CJK markers)."""
    found = []
    if which in ("auto", "answer_is"):
        found.append(_answer_is_at(s, start))
    if which in ("auto", "tagged"):
        found.append(_tagged_at(s, start))
    if which in ("auto", "answer_is"):
        found.append(_a_line_at(s, start))
    cjk = _cjk_at(s, start)
    if cjk is not None and which in ("auto", cjk[0].method):
        found.append(cjk)
    best = None
    for f in found:
        if f is not None and (best is None or f[1] > best[1]):
            best = f
    return None if best is None else best[0]


def _answer_is(s: str, start: int) -> RefExtraction | None:
    return _marked(s, start, "answer_is")


def _tagged(s: str, start: int) -> RefExtraction | None:
    return _marked(s, start, "tagged")
