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
* ``reference_count``: the count sentence, which a last-number reading gives way to.
"""

from __future__ import annotations

from tests.oracles.reference_bold import bold_reading
from tests.oracles.reference_common import RefExtraction
from tests.oracles.reference_count import count_reading
from tests.oracles.reference_markers import _answer_is, _marked, _tagged
from tests.oracles.reference_normalize import normalize_answer, strip_string
from tests.oracles.reference_strategies import (
    FUNCTION_WORDS,
    _bare,
    _boxed,
    _choice,
    _code_output,
    _final_span,
    _last_number,
    looks_like_text,
)

__all__ = ["FUNCTION_WORDS", "RefExtraction", "extract_answer", "looks_like_text", "normalize_answer", "strip_string"]


# --------------------------------------------------------------------------------------------
# cascade


def _last_number_or_count(s: str, start: int) -> RefExtraction | None:
    """The last number, or the count of a final count sentence (reference_count), or the number
    every bold span states (reference_bold)."""
    return bold_reading(s, start, count_reading(s, start, _last_number(s, start)))


_STRATEGIES = {
    "boxed": _boxed,
    "answer_is": _answer_is,
    "tagged": _tagged,
    "code_output": _code_output,
    "choice": _choice,
    "bare": _bare,
    "final_span": _final_span,
    "last_number": _last_number_or_count,
}


def extract_answer(text: str, strategy: str = "auto") -> RefExtraction | None:
    """The reference cascade (see rapidgrade.extract for the rules)."""
    think = text.rfind("</think>")
    start = think + 8 if think >= 0 else 0
    if strategy != "auto":
        return _STRATEGIES[strategy](text, start)
    for name, find in _STRATEGIES.items():
        if name == "tagged":
            continue  # the marker rules run as one (_marked, under answer_is), nearest the end winning
        found = _marked(text, start, "auto") if name == "answer_is" else find(text, start)
        if found is not None:
            return found
    return None
