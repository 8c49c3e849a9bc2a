r"""The reward preset: what a verdict must also satisfy before it earns an RL reward.

A grader used as an RL reward is optimized against: whatever it accepts, a policy learns to
write. The preset (``policy="reward"`` of :class:`~rapidgrade.integrations.rewards.RewardConfig`,
the default of every reward function of :mod:`rapidgrade.integrations` and of ``rapidgrade
serve``) grades as ``grade_many`` does, with ``last_number=False`` and an answer cap
(``max_answer_bytes``, 256 bytes by default: a longer answer is ``decided_by="limit"``), and then
refuses a TRUE verdict when:

* the reasoning is **unfinished**: the response opens ``<think>`` and does not close it after
  the last opening (as TRL's ``reasoning_accuracy_reward``); a closed reasoning is skipped, only
  the text after the last ``</think>`` is read (the extractor does that);
* the final part holds **several different final answers**: two or more boxes that do not all
  match the gold (``\boxed{1} ... \boxed{2}``; boxes with nothing in them, such as
  ``\boxed{\phantom{2}}`` in a long-division layout, are not answers);
* the answer **hedges**, when the gold does not: several values ("1 or 2", ``1, 2``, ``\{1,
  2\}``, "1 and 2"), an interval or inequality (``[2, 4]``, ``x \ge 3``), an approximation or a
  tolerance (``\approx 3``, ``3 \pm 1``) or a membership (``x \in [3, 4]``). A thousands
  separator (``3,250``, ``3,\!250``, ``10{,}000``) is not a list. A gold that is itself a list,
  an interval or an inequality is compared by the grader alone.

A refused verdict is wrong (``correct=False``) with the reason ``"reward policy: ..."``; its
other fields are the grader's. Empty boxes, lone braces, gibberish, "the answer is correct",
HTML and prompt-injection text are wrong already: they state no answer that equals the gold.

The checks are decisions about verdicts the core already returned: they look only at the rows
it graded TRUE, with one regular-expression pass over all their answers at once.

>>> from rapidgrade import grade_many
>>> golds, responses = ["2", "2", "2"], [r"\boxed{2}", r"<think>so \boxed{2}", r"\boxed{1 \text{ or } 2}"]
>>> checked = apply_reward_policy(grade_many(golds, responses, last_number=False), golds, responses)
>>> checked.correct.tolist()
[True, False, False]
>>> checked[1].reason
'reward policy: unfinished reasoning (<think> is never closed)'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from rapidgrade.verdict import GradeResults, _coded_with

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["POLICIES", "REASON_PREFIX", "GradeBoxes", "apply_reward_policy", "hedges", "refused_mask"]

#: The values of ``RewardConfig.policy``: ``"reward"`` (the preset) and ``"plain"`` (the grader's
#: verdict as it is).
POLICIES: tuple[str, ...] = ("reward", "plain")

#: The start of the reason of every verdict the preset refuses.
REASON_PREFIX = "reward policy: "

UNFINISHED = REASON_PREFIX + "unfinished reasoning (<think> is never closed)"
SEVERAL_BOXES = REASON_PREFIX + "several different final answers (boxes that do not all match the gold)"
_HEDGE = {
    "several": REASON_PREFIX + "the answer gives several values ('or', 'and', a list or a set) against a single value",
    "relation": REASON_PREFIX + "the answer is an interval or an inequality against a single value",
    "approx": REASON_PREFIX + "the answer is an approximation or a tolerance against an exact value",
    "member": REASON_PREFIX + "the answer is a membership (\\in, \\subset) against a single value",
}

_OPEN, _CLOSE = "<think>", "</think>"
_BOXED = frozenset({"boxed", "boxed_multi"})

# A number with thousands separators (",", ",\!", "{,}" between groups of three digits, no
# space after a plain comma: "45, 135" is a list), its first group not starting with 0 ("0,198"
# is a list): as the core reads one (detail/number.hpp).
_THOUSANDS = re.compile(r"(?<![\d.])[1-9]\d{0,2}(?:(?:,(?:\\! *)?|\{,\})\d{3})+(?!\d)")
_SEPARATOR = re.compile(r",(?:\\! *)?|\{,\}")


def _without_separators(answer: str) -> str:
    """*answer* with the separators of its grouped numbers removed ("3,\\!250" -> "3250")."""
    return _THOUSANDS.sub(lambda m: _SEPARATOR.sub("", m.group(0)), answer)


# Each hedge, by kind. Commands end at a non-letter; words stand alone.
_MARKERS = re.compile(
    r"(?P<several>[,;]|\\(?:lor|vee|land|wedge|cup|cap)(?![A-Za-z])|(?<![A-Za-z\\])(?:or|and)(?![A-Za-z]))"
    r"|(?P<relation>[<>≤≥≠⩽⩾]|\\(?:le|ge|leq|geq|lt|gt|leqslant|geqslant|neq|ne)(?![A-Za-z]))"
    r"|(?P<approx>[≈±∓]|\\(?:approx|sim|simeq|doteq|pm|mp)(?![A-Za-z]))"
    r"|(?P<member>[∈⊂⊆]|\\(?:in|subset|subseteq|notin)(?![A-Za-z]))",
    re.IGNORECASE,
)
_KINDS = tuple(_HEDGE)
# "or" right after or before the answer, on its line, next to something mathematical: "\boxed{1} or 2",
# "$1$ or $2$", "1 or \boxed{2}" (the extractor may stop at the first of them).
_OR = r"(?:or|\\lor|\\vee|\\text\{\s*or\s*\})"
_OR_AFTER = re.compile(
    r"(?:\\(?:text|mathrm)\{[^{}]*\}|[}$)\]\s]|\\[)\]])*[,;]?\s*" + _OR + r"(?![A-Za-z])[^\n]{0,20}?[\d$\\]",
    re.IGNORECASE,
)
_OR_HINT = re.compile(r"(?<![A-Za-z])or(?![A-Za-z])|\\lor|\\vee", re.IGNORECASE)
_OR_BEFORE = re.compile(r"[\w$})]\s*[,;]?\s*" + _OR + r"\s*(?:\$|\\\(|\\boxed\{|\\fbox\{|\{)*\s*$", re.IGNORECASE)
# What a box may hold and still state nothing: phantoms, spaces, empty groups.
_NOTHING = re.compile(r"\\[hv]?phantom\{[^{}]*\}|\\(?:quad|qquad|[,;:! ])|~|\{\}|\s")


def hedges(answer: str) -> frozenset[str]:
    r"""The kinds of hedge *answer* holds: ``"several"``, ``"relation"``, ``"approx"``,
    ``"member"`` (empty for a single value).

    >>> sorted(hedges(r"x \ge 3")), sorted(hedges("1 or 2")), sorted(hedges(r"3,\!250"))
    (['relation'], ['several'], [])
    """
    text = _without_separators(answer)
    return frozenset(kind for m in _MARKERS.finditer(text) for kind in _KINDS if m.group(kind))


def _unfinished(text: str) -> bool:
    return _OPEN in text and text.rfind(_OPEN) > text.rfind(_CLOSE)


def _final_part(text: str) -> str:
    end = text.rfind(_CLOSE) if _CLOSE in text else -1
    return text if end < 0 else text[end + len(_CLOSE) :]


#: Grades boxes against golds: ``(golds, boxes) ->`` one bool per box.
GradeBoxes = Callable[[list[str], list[str]], "npt.NDArray[np.bool_]"]


def apply_reward_policy(
    results: GradeResults,
    golds: Sequence[str],
    responses: Sequence[str],
    grade_boxes: GradeBoxes | None = None,
    *,
    math: bool = True,
) -> GradeResults:
    r"""*results* (``grade_many(golds, responses, ...)``) with the TRUE verdicts the reward preset
    refuses made wrong, each with its ``"reward policy: ..."`` reason (see the module).

    *golds* are the golds each row was graded against (one string per row), *responses* the
    texts. *grade_boxes* grades the boxes of a response that holds several (``(golds, boxes) ->``
    a bool array); by default ``grade_many`` with ``last_number=False``, so that the boxes are
    judged as the answer was. With *math* False (a task whose answers are not math: physics
    quantities, ...) only the unfinished reasoning is refused.

    Raises:
        ValueError: *golds* or *responses* differ in length from *results*.
    """
    n = len(results)
    if len(golds) != n or len(responses) != n:
        raise ValueError(f"apply_reward_policy: {n} verdicts, {len(golds)} golds and {len(responses)} responses")
    rows = np.flatnonzero(results.correct)
    if rows.size == 0:
        return results
    refused: dict[int, str] = {}
    # 1. an unfinished <think>, on the raw text
    for i in rows.tolist():
        if _unfinished(responses[i]):
            refused[i] = UNFINISHED
    if not math:
        return _refuse(results, refused) if refused else results
    # 2. hedges: one pass of the markers over every TRUE row's answer, then the golds of the rows hit
    extracted = results.extracted
    picked = [i for i in rows.tolist() if i not in refused]
    answers = [extracted[i] or "" for i in picked]
    answers = [_without_separators(a) if "," in a else a for a in answers]
    joined = "\x00".join(answers)
    if _MARKERS.search(joined) is not None:
        starts = np.cumsum([0] + [len(a) + 1 for a in answers[:-1]])
        found: dict[int, set[str]] = {}
        for m in _MARKERS.finditer(joined):
            row = picked[int(np.searchsorted(starts, m.start(), side="right")) - 1]
            kinds = found.setdefault(row, set())
            kinds.update(kind for kind in _KINDS if m.group(kind))
        gold_kinds: dict[str, frozenset[str]] = {}
        for row, kinds in found.items():
            gold = golds[row]
            if gold not in gold_kinds:
                gold_kinds[gold] = hedges(gold)
            extra = [kind for kind in _KINDS if kind in kinds and kind not in gold_kinds[gold]]
            if extra:
                refused[row] = _HEDGE[extra[0]]
    # 2b. "or" beside the answer in the text (an answer the extractor cut at the first alternative)
    methods = results.method
    for i, answer in zip(picked, answers):
        if i in refused or not answer or methods[i] in _BOXED:  # boxes: rule 3 reads them
            continue
        text = extracted[i] or ""
        final = _final_part(responses[i])
        found_at = final.rfind(text)
        if found_at < 0:
            continue
        after = final[found_at + len(text) : found_at + len(text) + 64]
        before = final[max(0, found_at - 64) : found_at]
        if not (_OR_HINT.search(after) or _OR_HINT.search(before)) or "several" in hedges(golds[i]):
            continue
        if _OR_AFTER.match(after) or _OR_BEFORE.search(before):
            refused[i] = _HEDGE["several"]
    # 3. several boxes in the final part: each must match the gold (a gold of several values is the grader's)
    from rapidgrade.scan import find_boxed_many

    multi = [
        i
        for i in rows.tolist()
        if i not in refused
        and responses[i].count("\\boxed") + (responses[i].count("\\fbox") if "\\fbox" in responses[i] else 0) >= 2
        and "several" not in hedges(golds[i])
    ]
    if multi:
        boxes = find_boxed_many([_final_part(responses[i]) for i in multi], threads=1)
        box_golds: list[str] = []
        box_texts: list[str] = []
        owners: list[int] = []
        for i, spans in zip(multi, boxes):
            contents = [str(s.content) for s in spans]
            contents = [c for c in contents if _NOTHING.sub("", c)]
            if len({"".join(c.split()) for c in contents}) < 2:  # one answer, written once or more
                continue
            for content in contents:
                box_golds.append(golds[i])
                box_texts.append("\\boxed{" + content + "}")
                owners.append(i)
        if box_texts:
            ok = _grade_boxes(box_golds, box_texts) if grade_boxes is None else grade_boxes(box_golds, box_texts)
            for i, good in zip(owners, np.asarray(ok, dtype=bool).tolist()):
                if not good:
                    refused[i] = SEVERAL_BOXES
    if not refused:
        return results
    return _refuse(results, refused)


def _grade_boxes(golds: list[str], boxes: list[str]) -> npt.NDArray[np.bool_]:
    from rapidgrade.grade import grade_many

    return grade_many(golds, boxes, last_number=False).correct


def _refuse(results: GradeResults, refused: dict[int, str]) -> GradeResults:
    """*results* with the rows of *refused* wrong, each with its reason."""
    index = np.fromiter(refused, dtype=np.int64, count=len(refused))
    correct = results.correct.copy()
    correct[index] = False
    reason = results._reason
    column = _coded_with(reason.codes.astype(np.int32), list(reason.table), refused)
    return GradeResults._from_parts(
        correct,
        results._decided,
        results._gold,
        results._extracted,
        results._method,
        column,
        results._normalized,
    )


def refused_mask(results: GradeResults) -> npt.NDArray[np.bool_]:
    """A bool per row: the preset refused its verdict (its reason starts with
    :data:`REASON_PREFIX`)."""
    table = results._reason.table
    marks = np.array([text.startswith(REASON_PREFIX) for text in table] + [False], dtype=bool)
    mask: npt.NDArray[np.bool_] = marks[results._reason.codes]
    return mask
