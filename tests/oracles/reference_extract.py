r"""Plain-Python reference of rapidgrade's answer extraction and normalization.

It implements the same documented cascade (boxed -> answer_is -> tagged -> code_output ->
choice -> bare -> final_span -> last_number, after the last ``</think>``) and the same
normalization rules as the C++ core, the way a pure-Python grader would: ``re``, ``str``
methods and character loops, in the manner of the Hendrycks MATH ``strip_string``. It is

* the baseline that ``benchmarks/bench_extract.py`` times rapidgrade against, and
* the oracle of ``tests/parity/test_extract_parity.py``.

It is not part of the package. Offsets are Python string indices (code points).

This module is the entry point: it holds the cascade (``extract_answer``) and re-exports the public
names (``__all__``) from its parts, each built only on those listed before it:

* ``reference_common``: ``RefExtraction``, character and range helpers, math delimiters;
* ``reference_strategies``: ``boxed`` and the unmarked strategies (``code_output``, ``choice``,
  ``bare`` with ``FUNCTION_WORDS`` and ``looks_like_text``, ``final_span``, ``last_number``);
* ``reference_phrase``: the answer-phrase grammar (``read_answer_phrase``) and the unit table;
* ``reference_markers``: the answer markers (answer_is, tagged, "A:", CJK), nearest the end wins;
* ``reference_normalize``: ``normalize_answer`` and ``strip_string`` (independent of extraction);
* ``reference_count``: the count sentence, which a last-number reading gives way to;
* ``reference_bold_span``: the bolded answer of a competition write-up, which final_span reads,
  and the spaced bold digits of a last number;
* ``reference_domain``: the quantifier domains after an answer, which final_span skips.
"""

from __future__ import annotations

from tests.oracles.reference_bold import bold_reading
from tests.oracles.reference_bold_span import bold_answer
from tests.oracles.reference_common import _SPACE, RefExtraction, _computation, _letters_end
from tests.oracles.reference_count import _sentence_at, count_reading
from tests.oracles.reference_last_number import _last_number
from tests.oracles.reference_markers import _answer_is, _marked, _tagged
from tests.oracles.reference_normalize import normalize_answer, strip_string
from tests.oracles.reference_strategies import (
    FUNCTION_WORDS,
    _bare,
    _boxed,
    _choice,
    _code_output,
    _final_span,
    _math_spans,
    looks_like_text,
)

__all__ = ["FUNCTION_WORDS", "RefExtraction", "extract_answer", "looks_like_text", "normalize_answer", "strip_string"]


# --------------------------------------------------------------------------------------------
# cascade


def _last_number_or_count(s: str, start: int) -> RefExtraction | None:
    """The last number, or the count of a final count sentence (reference_count), or the number
    every bold span states (reference_bold)."""
    return bold_reading(s, start, count_reading(s, start, _last_number(s, start)))


def _final_span_reading(s: str, start: int) -> RefExtraction | None:
    """final_span on the span of the bolded answer (reference_bold_span), else on the last."""
    bold = bold_answer(s, start, _math_spans(s, start))
    found = _final_span(s, start, bold) if bold is not None else None
    return found if found is not None else _final_span(s, start)


def _bold_after_marker(s: str, start: int, found: RefExtraction) -> RefExtraction:
    """A bold number after an "answer is" answer (extract_bold.cpp, read_bold_after_marker): when
    every bold group from the answer's start is a number and the last lies in a later math span
    than the one the answer was read from, the final_span reading of that span."""
    if found.method != "answer_is" or found.start >= len(s):
        return found
    spans = _math_spans(s, start)
    bold = bold_answer(s, found.start, spans)
    if bold is None:
        return found
    outer_start, content_start, _, outer_end = spans[bold[0]]
    if content_start <= found.start or outer_start <= found.start < outer_end:
        return found
    reading = _final_span(s, start, bold)
    return found if reading is None else reading


_STRATEGIES = {
    "boxed": _boxed,
    "answer_is": _answer_is,
    "tagged": _tagged,
    "code_output": _code_output,
    "choice": _choice,
    "bare": _bare,
    "final_span": _final_span_reading,
    "last_number": _last_number_or_count,
}


#: extract.cpp's kMaxRemarks.
_MAX_REMARKS = 2
_UNMARKED = ("final_span", "last_number")


def _remark_before(s: str, start: int, end: int) -> int | None:
    """The start of the remark in parentheses that ends s[start:end]: a '(' after a blank, a line
    break or a sentence's end, then a word of two letters or more before a blank or a comma, or a
    computation of the result (_computation)."""
    k = end
    while k > start and s[k - 1] in _SPACE:
        k -= 1
    if k > start and s[k - 1] == ".":
        k -= 1
    if k == start or s[k - 1] != ")":
        return None
    depth, opening = 0, k
    while True:
        opening -= 1
        depth += (s[opening] == ")") - (s[opening] == "(")
        if depth <= 0 or opening <= start:
            break
    if depth > 0:
        return None
    w = opening + 1
    while w < k and s[w] in " \t":
        w += 1
    word_end = _letters_end(s, w, len(s))
    if (word_end - w < 2 or word_end >= k or s[word_end] not in " \t,") and not _computation(s, opening + 1, k - 1):
        return None
    b = opening
    while b > start and s[b - 1] in " \t":
        b -= 1
    if b == start:
        return None
    return opening if b < opening or s[b - 1] in "\n.!?" else None


#: markers.hpp's kAsideOpeners (phrase, an example) and kConclusionLeads.
_ASIDES = (
    ("verification", False),
    ("verify", False),
    ("check", False),
    ("checking", False),
    ("we check", False),
    ("we can check", False),
    ("we verify", False),
    ("let us check", False),
    ("let's check", False),
    ("for example", True),
    ("for instance", True),
)
_CONCLUSION_LEADS = ("therefore", "thus", "so", "hence", "consequently", "finally", "in conclusion", "in summary")


def _opens_with(line: str, phrase: str) -> bool:
    """Whether *line* opens with *phrase* as a whole word (ASCII letters, ignoring case)."""
    head = line[: len(phrase)]
    after = line[len(phrase) : len(phrase) + 1]
    return head.isascii() and head.lower() == phrase and not (after.isascii() and after.isalpha())


def _aside_before(s: str, start: int, end: int) -> int | None:
    """The start of the last line of s[start:end] that opens a check or an example (its words after
    blanks, '*' and '#'), unless nothing but blanks comes before it, an example has a paragraph
    after it, or a later paragraph opens with a conclusion lead."""
    found = None
    example = paragraph_after = concluded = blank_line = False
    k = s.find("\n", start, end)
    while k != -1:
        b = k + 1
        while b < end and s[b] in " \t*#":
            b += 1
        if b >= end or s[b] in "\n\r":
            blank_line = True
        else:
            line = s[b:end]
            aside = next((a for a in _ASIDES if _opens_with(line, a[0])), None)
            if aside is not None:
                found, example = k + 1, aside[1]
                paragraph_after = concluded = False
            elif found is not None and blank_line:
                paragraph_after = True
                concluded = concluded or any(_opens_with(line, w) for w in _CONCLUSION_LEADS)
            blank_line = False
        k = s.find("\n", k + 1, end)
    if found is None or concluded or (example and paragraph_after):
        return None
    before = s[start:found]
    return found if any(c.isascii() and c.isalnum() for c in before) else None


#: markers.hpp's kReasonClauses.
_REASONS = ("since", "because", "given that", "for example", "for instance", "e.g.")


def _phrase_at(s: str, b: int, end: int, table: tuple[str, ...]) -> int:
    """The length of the phrase of *table* that opens s[b:end] as a whole word (_opens_with), or 0."""
    return next((len(w) for w in table if b + len(w) <= end and _opens_with(s[b : min(end, b + len(w) + 1)], w)), 0)


def _prose_marks(s: str, i: int, k: int) -> list[tuple[int, str]]:
    """The word starts (after a blank) and the ',' and ';' of s[i:k] outside math ($, $$, \\( \\),
    \\[ \\]) and braces, in order: (position, "word" or "break")."""
    marks: list[tuple[int, str]] = []
    in_math, depth, start = False, 0, i
    while i < k:
        c = s[i]
        if c == "\\":
            nxt = s[i + 1] if i + 1 < k else ""
            if nxt in ("(", "["):
                in_math = True
            elif nxt in (")", "]"):
                in_math = False
            i += 2
            continue
        if c == "$":
            in_math = not in_math
            if i + 1 < k and s[i + 1] == "$":
                i += 1
        elif c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif not in_math and depth == 0:
            if c in ",;":
                marks.append((i, "break"))
            elif i > start and s[i - 1] in " \t" and c.isascii() and c.isalpha():
                marks.append((i, "word"))
        i += 1
    return marks


def _reason_before(s: str, start: int, end: int) -> int | None:
    """The end of the math before a clause that closes the final sentence with a reason for its
    value or an example of it ("so $x=3$ since $x>0$."): the first phrase of _REASONS at a word
    start outside math, right after math or a number (blanks and commas between), with no ',' or
    ';' outside math after the phrase's own comma and no conclusion lead after the phrase."""
    k = end
    while k > start and s[k - 1] in _SPACE:
        k -= 1
    if k > start and s[k - 1] == ".":
        k -= 1
    if k == start:
        return None
    j = max(start, _sentence_at(s, start, k - 1)[0])
    marks = _prose_marks(s, j, k)
    block_end = j
    for p, kind in marks:
        if kind == "break" or _phrase_at(s, p, k, _CONCLUSION_LEADS):
            block_end = p + 1
    for p, kind in marks:
        length = _phrase_at(s, p, k, _REASONS) if kind == "word" else 0
        if length == 0:
            continue
        q = p + length
        while q < k and s[q] in " \t":
            q += 1
        if q < k and s[q] == ",":
            q += 1
        if block_end > q:
            continue
        m = p
        while m > j and s[m - 1] in " \t,":
            m -= 1
        if m > j and ((s[m - 1].isascii() and s[m - 1].isdigit()) or s[m - 1] in "$})]%"):
            return m
    return None


def final_statement_end(s: str, start: int) -> int:
    """Where the unmarked readers stop: before a closing check or example (_aside_before), before
    the remarks in parentheses that close the text, and before a reason that closes its final
    sentence (_reason_before)."""
    end = len(s)
    aside = _aside_before(s, start, end)
    if aside is not None:
        end = aside
    for _ in range(_MAX_REMARKS):
        opening = _remark_before(s, start, end)
        if opening is None:
            break
        end = opening
    reason = _reason_before(s, start, end)
    return end if reason is None else reason


def extract_answer(text: str, strategy: str = "auto") -> RefExtraction | None:
    """The reference cascade (see rapidgrade.extract for the rules)."""
    think = text.rfind("</think>")
    start = think + 8 if think >= 0 else 0
    statement = text[: final_statement_end(text, start)]
    if strategy != "auto":
        return _STRATEGIES[strategy](statement if strategy in _UNMARKED else text, start)
    for name, find in _STRATEGIES.items():
        if name == "tagged":
            continue  # the marker rules run as one (_marked, under answer_is), nearest the end winning
        if name == "answer_is":
            found = _marked(text, start, "auto")
            if found is not None:
                found = _bold_after_marker(statement, start, found)
        else:
            found = find(statement if name in _UNMARKED else text, start)
        if found is not None:
            return found
    return None
