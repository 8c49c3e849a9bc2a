"""The count-sentence rule of the extraction reference (``extract_phrase.cpp``'s
``read_count_sentence``; its two word lists are detail/markers.hpp's ``kThereBe`` and
``kReferenceWords``, written out again here so that the parity tests check the table).

A response with no marked answer whose final statement counts ("There are 3 bars with values
below 40.", "there are three objects left") answers with the count, when every number after the
count is a reference value: the first one right after a reference word ("below", "than", "at
least", ...). The final statement is the sentence of the last number, or the text's last sentence
when it comes after the last number (or the text has none). A count that comes after the last
number in that number's own sentence ("the ratio is 1:2, which means there is one male for every
two females") is no reading.
"""

from __future__ import annotations

import re

from tests.oracles.reference_common import _SPACE, RefExtraction
from tests.oracles.reference_markers import _sentence_end
from tests.oracles.reference_normalize import _NUMBER_TENS, _NUMBER_UNITS, _number_words
from tests.oracles.reference_phrase import _phrase_number_end

_THERE_BE = re.compile(r"(?<![A-Za-z])there(?:'s|[ \t]+(?:are|is|were|was|remains|remain|will be)(?![A-Za-z]))", re.I)
_REFERENCE_WORDS = frozenset(
    [
        "than",
        "below",
        "above",
        "over",
        "under",
        "least",
        "most",
        "after",
        "before",
        "since",
        "until",
        "between",
        "from",
        "exceeding",
        "beyond",
        "in",
        "within",
        "exactly",
        "to",
        "of",
    ]
)
_COUNT_LEAD = re.compile(r"(?:only|exactly|just|a total of)(?=[ \t])[ \t]*", re.I)
_SINGLE_NUMBER_WORDS = frozenset(_NUMBER_UNITS) | frozenset(_NUMBER_TENS)
_MAX_COUNT_WORDS = 6


def _sentence_at(s: str, start: int, at: int) -> tuple[int, int]:
    """The sentence (a line break always ends one) that holds s[at], with its closing mark."""
    j = at
    while j > start and s[j - 1] not in "\n\r":
        j -= 1
    k = _sentence_end(s, j)
    while k < at:
        j = k + 1
        k = _sentence_end(s, j)
    return j, min(k + 1, len(s))


def _count_after(s: str, k: int, end: int) -> tuple[int, int] | None:
    """Digits or up to six number words after blanks and a lead word ("only", "exactly", ...),
    perhaps in emphasis ("**3**"), then a blank and a letter."""
    t = s[:end]
    m = re.compile(r"[ \t]*").match(t, k)
    k = m.end() if m else k
    lead = _COUNT_LEAD.match(t, k)
    if lead is not None:
        k = lead.end()
    stars = len(re.compile(r"\*{0,2}").match(t, k).group())  # type: ignore[union-attr]
    k += stars
    stop = k
    if k < end and t[k].isascii() and t[k].isdigit():
        stop = _phrase_number_end(s, k, end)
    else:
        words = re.compile(r"[A-Za-z][A-Za-z-]*").match(t, k)
        q = k
        taken = 0
        while words is not None and taken < _MAX_COUNT_WORDS:
            q = words.end()
            if (count := _number_words(t[k:q])) is not None and count >= 0:  # never "minus three"
                stop = q
            taken += 1
            blanks = re.compile(r"[ \t]*").match(t, q)
            words = re.compile(r"[A-Za-z][A-Za-z-]*").match(t, blanks.end() if blanks else q)
    after = stop + stars if t[stop : stop + stars] == "*" * stars else -1
    if stop == k or after < 0 or re.compile(r"[ \t][A-Za-z]").match(t, after) is None:
        return None
    return k, stop


def _of_the_count(s: str, a: int, b: int) -> tuple[int, int] | None:
    """The count that opens the sentence's subject: "8 of the positive divisors of 900 ..."."""
    k = a
    while k < b and ((s[k].isascii() and s[k].isalpha()) or s[k] in _SPACE or s[k] == ","):
        k += 1
    if k >= b or not (s[k].isascii() and s[k].isdigit()) or (k > a and s[k - 1].isascii() and s[k - 1].isalpha()):
        return None
    stop = _phrase_number_end(s, k, b)
    if stop == k or stop + 8 > b or s[stop : stop + 8].lower() != " of the ":
        return None
    return k, stop


def _counts(s: str, a: int, b: int) -> tuple[int, int] | None:
    """The first count of a "there is/are ..." of s[a:b], else the count opening its subject."""
    for m in _THERE_BE.finditer(s[a:b]):
        count = _count_after(s, a + m.end(), b)
        if count is not None:
            return count
    return _of_the_count(s, a, b)


def _names_what_is_counted(s: str, k: int) -> bool:
    """Whether the number at s[k] is an argument, an index or a power ("f(1)", "a_1", "x^{2}")."""
    before = s[k - 1] if k > 0 else " "
    twice = s[k - 2] if k > 1 else " "
    return (
        before in "_^" or (before == "(" and twice.isascii() and twice.isalpha()) or (before == "{" and twice in "_^")
    )


def _count_of(s: str, a: int, b: int) -> tuple[int, int] | None:
    count = _counts(s, a, b)
    if count is None:
        return None
    for n in re.finditer(r"[0-9]+|[A-Za-z]+", s[count[1] : b]):
        at = count[1] + n.start()
        if n.group()[0].isdigit() and _names_what_is_counted(s, at):
            continue
        if n.group()[0].isdigit() or n.group().lower() in _SINGLE_NUMBER_WORDS:
            before = re.search(r"([A-Za-z]*)[ \t$]*[-+]?$", s[count[1] : count[1] + n.start()])
            word = before.group(1).lower() if before else ""
            if word not in _REFERENCE_WORDS:
                return None
            break
    return count


def count_reading(s: str, start: int, e: RefExtraction | None) -> RefExtraction | None:
    """The count sentence's reading, or the last-number reading `e` as it was."""
    count = None
    if e is not None:
        a, b = _sentence_at(s, start, e.start)
        count = _count_of(s, a, b)
        if count is not None and (count[0] == e.start or count[1] > e.start):
            return e
    if count is None:
        last = len(s)
        while last > start and s[last - 1] in _SPACE:
            last -= 1
        if last <= start or (e is not None and last <= e.end):
            return e
        a, b = _sentence_at(s, start, last - 1)
        if e is not None and a < e.end:
            return e
        count = _count_of(s, a, b)
        if count is None:
            return e
    return RefExtraction(s[count[0] : count[1]], count[0], count[1], "last_number")
