"""The bold-value rule of the extraction reference (``extract_phrase.cpp``'s
``read_bold_value``).

A response with no marked answer whose bold spans (``**...**``) all state one and the same
number answers with it: "The total value is **52**." then a table reads 52, "highest in **week
3**" reads 3. A span states a number when it holds exactly one, in at most four words and 60
bytes, on one line, holds no operator or command (``**158 + LK**`` is an expression), and is no
label (it does not end with ":", as "**Step 1:**" does). Any span
that states no number, two different numbers, unbalanced markup or more than 16 spans: no
reading. The rule runs after the count-sentence rule, on what it read.
"""

from __future__ import annotations

from tests.oracles.reference_common import _SPACE, RefExtraction
from tests.oracles.reference_last_number import _raw_last_number

_MAX_SPANS = 16
_MAX_BYTES = 60
_MAX_WORDS = 4


def _stated(s: str, a: int, b: int) -> tuple[int, int] | None:
    content = s[a:b].strip(_SPACE)
    if b - a > _MAX_BYTES or not content or content.endswith(":") or any(c in content for c in "\n+*/=^<>\\"):
        return None
    if len(content.split()) > _MAX_WORDS:
        return None
    last = _raw_last_number(s, a, b)
    if last is None or _raw_last_number(s, a, last[0]) is not None:
        return None
    return last


def bold_reading(s: str, start: int, e: RefExtraction | None) -> RefExtraction | None:
    """The bold value's reading, or `e` as it was."""
    marks = []
    k = s.find("**", start)
    while k != -1:
        marks.append(k)
        k = s.find("**", k + 2)
    if not marks or len(marks) % 2 or len(marks) // 2 > _MAX_SPANS:
        return e
    values = [_stated(s, marks[i] + 2, marks[i + 1]) for i in range(0, len(marks), 2)]
    if any(v is None for v in values):
        return e
    texts = {s[v[0] : v[1]] for v in values if v is not None}
    first = values[0]
    if len(texts) != 1 or first is None:
        return e
    if e is not None and e.text == s[first[0] : first[1]]:
        return e
    return RefExtraction(s[first[0] : first[1]], first[0], first[1], "last_number")
