"""The ``math`` task: final answers of LLM output graded against gold answers.

Each row holds a gold answer (``gold_key``, a string or a number) and a response
(``response_key``): a string, or a list of strings (samples of one problem). Every sample is
graded with :func:`rapidgrade.grade.grade_many`; the evaluated record adds ``correct``,
``extracted``, ``decided_by``, ``reason`` and ``method`` (lists of those for a list of samples,
plus ``n_correct``, ``majority_answer`` and ``majority_correct``: the samples' answers are grouped
by the normalized form the grader compared, as ``grade_many`` returns it in
:attr:`~rapidgrade.verdict.GradeResults.normalized`, and the first answer to reach the top count
wins). A row's own fields of those
names are kept as ``input_<name>``. A row that cannot be graded gets ``decided_by="error"`` and
a reason naming its line.

Metrics: :class:`~rapidgrade.metrics.Metrics` (accuracy, who decided, pass@k, majority vote,
per-group accuracy, agreement with a reference verdict column).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, cast

import orjson

from rapidgrade import _core
from rapidgrade._io import InputRow, JoinedLines, Pick, RowBlock, UsageError, dump_json_line
from rapidgrade.config import GradeConfig
from rapidgrade.grade import grade_many
from rapidgrade.metrics import Metrics, MetricsAccumulator
from rapidgrade.report import LineVerdict, bar_chart, cards_html, fmt_number, render_page, table_html
from rapidgrade.tasks._base import error_record, positive_float, positive_int
from rapidgrade.verdict import GradeResults

__all__ = [
    "DEMO_SET",
    "RESULT_KEYS",
    "TASK",
    "MathConfig",
    "MathTask",
    "demo_set_path",
    "lookup",
    "render_math_report",
    "render_report",
]

DEMO_SET = "qwen25_math_cot_800.jsonl"
#: The result fields of a graded sample, in the order they are written.
RESULT_KEYS = ("correct", "extracted", "decided_by", "reason", "method")


def demo_set_path() -> Path:
    """Path of the bundled demo set (800 real responses to 100 MATH problems)."""
    return Path(str(resources.files("rapidgrade") / "data" / DEMO_SET))


_DEFAULT_GRADE = GradeConfig()


@dataclass(frozen=True, slots=True)
class MathConfig:
    """Options of the math task: which fields hold what, how to run, and the grading options
    (a :class:`~rapidgrade.config.GradeConfig`: timeout, fallback, last number, tolerances)."""

    gold_key: str = "gold"
    response_key: str = "response"
    id_key: str = "id"
    reference_key: str | None = None
    threads: int | None = None
    workers: int | None = None
    grade: GradeConfig = _DEFAULT_GRADE
    #: Row fields (a dotted name: a nested field) to break accuracy and pass@k down by, besides
    #: the rows' ``type``, ``subject`` and ``level`` (``--group-by``).
    group_by: tuple[str, ...] = ()


@dataclass(slots=True)
class _Pending:
    """A row waiting for its verdicts: its samples occupy golds/responses[first:first+count]
    (``count = samples * n_golds``: sample *s* against gold *g* is pair
    ``first + s * n_golds + g``)."""

    row: InputRow
    output: dict[str, Any]
    first: int
    count: int
    is_list: bool
    error: str | None
    n_golds: int = 1


def _error_result(reason: str) -> dict[str, Any]:
    return {"correct": False, "extracted": None, "decided_by": "error", "reason": reason, "method": None}


_MISSING = object()


def lookup(data: Mapping[str, Any], key: str) -> Any:
    """The field *key* of *data*; a dotted key (``reward_model.ground_truth``) names a field of
    nested objects when *data* has no field of that exact name. Raises ``KeyError`` when there
    is none.

    >>> lookup({"reward_model": {"ground_truth": "42"}}, "reward_model.ground_truth")
    '42'
    >>> lookup({"a.b": 1, "a": {"b": 2}}, "a.b")
    1
    """
    value = data.get(key, _MISSING)
    if value is not _MISSING:
        return value
    if "." not in key:
        raise KeyError(key)
    value = data
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(key)
        value = value[part]
    return value


def _lookup_or_none(data: Mapping[str, Any], key: str) -> Any:
    try:
        return lookup(data, key)
    except KeyError:
        return None


def _gold_error(gold: Any) -> str | None:
    """Why *gold* cannot be graded against (``None`` when it can): a string, a number, or a
    non-empty list of those (any of which counts as correct)."""
    items = gold if isinstance(gold, list) else [gold]
    if isinstance(gold, list) and not gold:
        return "gold is an empty list"
    for g in items:
        if isinstance(g, bool) or not isinstance(g, (str, int, float)):
            kind = f"a list with a {type(g).__name__} item" if isinstance(gold, list) else type(g).__name__
            return f"gold must be a string, a number or a list of those, got {kind}"
    return None


def _prepare(row: InputRow, config: MathConfig, golds: list[str], responses: list[str]) -> _Pending:
    """Validates *row* and queues its samples (each against every gold) for grading."""
    if row.error is not None or row.data is None:
        reason = row.error or f"line {row.line}: unreadable row"
        return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    data = row.data
    where = f"line {row.line}"
    values = []
    for key in (config.gold_key, config.response_key):
        try:
            values.append(lookup(data, key))
        except KeyError:
            reason = f"{where}: missing key {key!r}"
            return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    gold, response = values
    problem = _gold_error(gold)
    if problem is not None:
        reason = f"{where}: {problem}"
        return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    gold_items = [str(g) for g in gold] if isinstance(gold, list) else [str(gold)]
    samples: list[str]
    is_list = isinstance(response, list)
    if isinstance(response, str):
        samples = [response]
    elif is_list and all(isinstance(r, str) for r in response):
        samples = list(response)
    else:
        kind = "a list with non-string items" if is_list else type(response).__name__
        reason = f"{where}: response must be a string or a list of strings, got {kind}"
        return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    first = len(golds)
    for sample in samples:
        golds.extend(gold_items)
        responses.extend([sample] * len(gold_items))
    return _Pending(row, dict(data), first, len(samples) * len(gold_items), is_list, None, len(gold_items))


def _as_list(values: Any) -> list[Any]:
    """A result column of :class:`~rapidgrade.verdict.GradeResults` as a list."""
    return values.tolist() if hasattr(values, "tolist") else list(values)


def _joined_splice(
    texts: list[bytes], heads: list[bytes], strings: list[str | None], tails: list[bytes]
) -> JoinedLines:
    return JoinedLines(*_core.jsonl_splice_joined(texts, heads, strings, tails))


@dataclass(frozen=True, slots=True)
class _Columns:
    """The verdict columns of a chunk (one entry per graded pair) and the majority-vote key
    of each pair."""

    correct: list[bool]
    extracted: list[str | None]
    decided_by: list[str]
    reason: list[str]
    method: list[str | None]
    gold: list[str]
    #: The key a sample's answer is grouped by in the majority vote: the extracted answer as
    #: the grader compared it (unwrapped and normalized with the job's grading options), as
    #: grade_many returns it, not normalized a second time with other options.
    vote_key: list[str | None]

    @classmethod
    def of(cls, results: GradeResults) -> _Columns:
        return cls(
            correct=_as_list(results.correct),
            extracted=_as_list(results.extracted),
            decided_by=_as_list(results.decided_by),
            reason=_as_list(results.reason),
            method=_as_list(results.method),
            gold=_as_list(results.gold),
            vote_key=_as_list(results.normalized),
        )

    @classmethod
    def empty(cls) -> _Columns:
        """The columns of a chunk with no sample to grade."""
        return cls([], [], [], [], [], [], [])

    def verdict(self, pairs: Sequence[int], offset: int) -> dict[str, Any]:
        """The verdict of sample *offset* (pair ``pairs[offset]``) as a record (for the report's
        notable rows)."""
        i = pairs[offset]
        return {
            "correct": self.correct[i],
            "extracted": self.extracted[i],
            "decided_by": self.decided_by[i],
            "reason": self.reason[i],
            "gold": self.gold[i],
        }


def _sample_pairs(pending: _Pending, correct: list[bool]) -> list[int]:
    """The pair whose verdict stands for each sample of *pending*: with one gold, the sample's
    own; with a list of golds, the first gold the sample matches, else the first gold."""
    n = pending.n_golds
    if n == 1:
        return list(range(pending.first, pending.first + pending.count))
    out = []
    for start in range(pending.first, pending.first + pending.count, n):
        out.append(next((i for i in range(start, start + n) if correct[i]), start))
    return out


def _finish_row(pending: _Pending, columns: _Columns, pairs: list[int]) -> tuple[dict[str, Any], bool | None]:
    out = pending.output
    if pending.error is not None:
        return out, None
    collides = not out.keys().isdisjoint(RESULT_KEYS)  # a row's own fields are kept as input_<name>
    if not pending.is_list:
        if collides:
            for key in RESULT_KEYS:
                if key in out:
                    out[f"input_{key}"] = out.pop(key)
        i = pairs[0]
        out["correct"] = columns.correct[i]
        out["extracted"] = columns.extracted[i]
        out["decided_by"] = columns.decided_by[i]
        out["reason"] = columns.reason[i]
        out["method"] = columns.method[i]
        return out, None
    correct = [columns.correct[i] for i in pairs]
    results = (
        correct,
        [columns.extracted[i] for i in pairs],
        [columns.decided_by[i] for i in pairs],
        [columns.reason[i] for i in pairs],
        [columns.method[i] for i in pairs],
    )
    for key, values in zip(RESULT_KEYS, results):
        if collides and key in out:
            out[f"input_{key}"] = out.pop(key)
        out[key] = values
    out["n_correct"] = correct.count(True)
    votes: dict[str, list[int]] = {}
    vote_key = columns.vote_key
    for i in pairs:
        answer = vote_key[i]
        if answer is not None:
            votes.setdefault(answer, []).append(i)
    majority_correct: bool | None = None
    out["majority_answer"] = None
    if votes:
        winner = max(votes.values(), key=len)  # the first answer to reach the top count wins ties
        out["majority_answer"] = columns.extracted[winner[0]]
        majority_correct = bool(columns.correct[winner[0]])
    out["majority_correct"] = bool(majority_correct)
    return out, bool(majority_correct)


def _row_label(row: InputRow, id_key: str) -> str:
    data = row.data
    if data is not None:
        try:
            value = lookup(data, id_key)
        except KeyError:
            value = None
        if value is not None:
            return str(value)
    return f"{Path(row.source).name}:{row.line}"


def _grade_kwargs(config: MathConfig) -> dict[str, Any]:
    """The options of :func:`~rapidgrade.grade.grade_many` for *config*."""
    return {"config": config.grade, "threads": config.threads, "workers": config.workers}


#: Fields a row read as JSON text must not have for its text to be written back with the
#: results appended (else the row is rebuilt, its own fields kept as input_<name>).
_SPLICE_RESERVED = frozenset((*RESULT_KEYS, "_source"))
#: The result fields of an evaluated line up to the extracted answer's value, by verdict.
_HEAD_FALSE = b',"correct":false,"extracted":'
_HEAD_TRUE = b',"correct":true,"extracted":'
#: Line ends kept per input before the cache starts again (distinct fallback reasons are many).
_MAX_TAILS = 4096
_STR = {str}


class _Tails(dict[tuple[str, str, "str | None"], bytes]):
    """The end of an evaluated line of input *source*, by (decided_by, reason, method): the
    fields after the extracted answer, closing the object. Made when first asked for."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def __missing__(self, key: tuple[str, str, str | None]) -> bytes:
        fields = {"decided_by": key[0], "reason": key[1], "method": key[2], "_source": self.source}
        tail = self[key] = b"," + orjson.dumps(fields)[1:]
        return tail


class MathRun:
    """One math scoring job: grades chunks and counts them into a :class:`MetricsAccumulator`."""

    __slots__ = ("_column", "_tails", "acc", "config", "pick", "verdicts")

    def __init__(self, config: MathConfig) -> None:
        self.config = config
        self.acc = MetricsAccumulator(config.group_by)
        # What the scoring job's reader gives of each JSON line (read by the core, the rest of
        # the row built only when needed): the gold, the response, the reference verdict and the
        # group fields, when the keys are top-level (a dotted key is read from the whole row).
        keys = [config.gold_key, config.response_key]
        if config.reference_key is not None:
            keys.append(config.reference_key)
        keys.extend(self.acc.group_keys)
        unique = tuple(dict.fromkeys(keys))
        # A dotted key is read from the whole row: the pick reads top-level keys only.
        nested = any("." in key for key in unique[:3]) or any("." in key for key in config.group_by)
        self.pick: Pick | None = None if nested else Pick(unique, tuple(_SPLICE_RESERVED))
        self._column = {key: k for k, key in enumerate(unique)}
        # The ends of evaluated lines, by input (few distinct ones: see _Tails).
        self._tails: dict[str, _Tails] = {}
        #: Of each line grade_block returned last: (method, decided_by, correct) for a row of
        #: one response graded from its text, else None (the report's drill-down reads it).
        self.verdicts: list[LineVerdict | None] = []

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        block = RowBlock.of_rows(rows[0].source if rows else "", list(rows))
        return [r for r in self._grade(block, as_text=False) if isinstance(r, dict)]

    def grade_block(self, block: RowBlock) -> Sequence[bytes]:
        """The evaluated lines (JSON, without newlines) of *block*, counted into the metrics:
        the columnar path of the scoring job. A row read as JSON text, with a string gold and
        response, is written as its text with the result fields (and ``_source``) appended;
        any other row as :meth:`grade` writes it. A block of such rows only comes back as one
        buffer (:class:`~rapidgrade._io.JoinedLines`), a sequence of its lines."""
        lines = self._grade_columns(block)
        if lines is not None:
            return lines
        return [r for r in self._grade(block, as_text=True) if isinstance(r, bytes)]

    def _grade_columns(self, block: RowBlock) -> Sequence[bytes] | None:
        """The common block graded as columns, without a Python step per row: every row picked,
        every gold and response a str, no reference verdict to compare with. None for any other
        block (graded row by row by :meth:`_grade`, with the same results)."""
        config = self.config
        if self.pick is None or config.reference_key is not None or not block.picked or False in block.picked:
            return None
        values, column = block.values, self._column
        golds, responses = values[column[config.gold_key]], values[column[config.response_key]]
        if set(map(type, golds)) != _STR or set(map(type, responses)) != _STR:
            return None
        columns = _Columns.of(grade_many(golds, responses, **_grade_kwargs(config)))
        correct, decided_by, method = columns.correct, columns.decided_by, columns.method
        n = len(golds)
        rows = range(n)
        quiet: Sequence[int] = rows
        if "timeout" in decided_by or "error" in decided_by:
            notable = [i for i in rows if decided_by[i] in ("timeout", "error")]
            for i in notable:
                self._note_row(block, i, i, columns, None)
            skip = set(notable)
            quiet = [i for i in rows if i not in skip]
        if len(quiet) == n:
            group_values = {k: values[column[k]] for k in self.acc.group_keys}
            self.acc.add_single_rows([], correct, decided_by, group_values=group_values)
        elif quiet:
            self.acc.add_single_rows(
                [],
                [correct[i] for i in quiet],
                [decided_by[i] for i in quiet],
                group_values={k: self._group_column(block, k, list(quiet)) for k in self.acc.group_keys},
            )
        self.verdicts = list(zip(method, decided_by, correct))
        return self._splice_lines(block.source, cast(list[bytes], block.text), rows, columns, joined=True)

    def _grade(self, block: RowBlock, *, as_text: bool) -> list[dict[str, Any] | bytes]:
        config, acc = self.config, self.acc
        gold_key, response_key = config.gold_key, config.response_key
        gold_plain, response_plain = "." not in gold_key, "." not in response_key
        golds: list[str] = []
        responses: list[str] = []
        # Per row: the pair index of a row graded from its text (as_text), or its _Pending.
        plan: list[int | _Pending] = []
        texts, data = block.text, block.data
        picked = block.picked if as_text and self.pick is not None else []
        column = self._column
        if picked:
            picked_golds, picked_responses = block.values[column[gold_key]], block.values[column[response_key]]
        for i, t in enumerate(texts):
            if picked and picked[i]:
                g, r = picked_golds[i], picked_responses[i]
                if type(g) is str and type(r) is str:  # a picked row holds no reserved key
                    plan.append(len(golds))
                    golds.append(g)
                    responses.append(r)
                    continue
                plan.append(_prepare(block.row(i), config, golds, responses))
                continue
            d = data[i]
            if as_text and t is not None and d is not None:
                g = d.get(gold_key) if gold_plain else _lookup_or_none(d, gold_key)
                r = d.get(response_key) if response_plain else _lookup_or_none(d, response_key)
                if type(g) is str and type(r) is str and d.keys().isdisjoint(_SPLICE_RESERVED):
                    plan.append(len(golds))
                    golds.append(g)
                    responses.append(r)
                    continue
            plan.append(_prepare(block.row(i), config, golds, responses))
        columns = _Columns.of(grade_many(golds, responses, **_grade_kwargs(config))) if golds else _Columns.empty()
        correct, decided_by, method = columns.correct, columns.decided_by, columns.method
        reference_key = config.reference_key
        picked_references = block.values[column[reference_key]] if picked and reference_key is not None else None
        out: list[dict[str, Any] | bytes] = []
        # Rows graded from their text: written by the core after the loop (their places in out).
        spliced: list[int] = []
        spliced_pairs: list[int] = []
        # Spliced rows with nothing notable, counted together after the loop.
        quiet: list[int] = []
        quiet_pairs: list[int] = []
        agreements = 0  # quiet rows whose reference verdict agrees with ours
        verdicts: list[LineVerdict | None] = []
        for i, p in enumerate(plan):
            if type(p) is int:
                reference = None
                if reference_key is not None:
                    if picked_references is not None and picked[i]:
                        ref = picked_references[i]
                    else:
                        d = data[i]
                        ref = d.get(reference_key) if d is not None else None
                    reference = ref if isinstance(ref, bool) else None
                decided = decided_by[p]
                if (reference is not None and reference != correct[p]) or decided in ("timeout", "error"):
                    self._note_row(block, i, p, columns, reference)
                else:
                    quiet.append(i)
                    quiet_pairs.append(p)
                    agreements += reference is not None
                spliced.append(i)
                spliced_pairs.append(p)
                out.append(b"")
                verdicts.append((method[p], decided, correct[p]))
                continue
            assert isinstance(p, _Pending)
            pairs = _sample_pairs(p, correct)
            record, majority = _finish_row(p, columns, pairs)
            if as_text and "_source" not in record:
                record["_source"] = block.source
            label = _row_label(p.row, config.id_key)
            if p.error is not None:
                acc.add_row(p.row.data, [record], is_list=False, input_error=True, label=label)
            else:
                reference = None
                if reference_key and not p.is_list and p.row.data is not None:
                    try:
                        ref = lookup(p.row.data, reference_key)
                    except KeyError:
                        ref = None
                    if isinstance(ref, bool):
                        reference = ref
                acc.add_columns(
                    p.row.data,
                    [correct[j] for j in pairs],
                    [decided_by[j] for j in pairs],
                    functools.partial(columns.verdict, pairs),
                    is_list=p.is_list,
                    majority_correct=majority,
                    reference=reference,
                    label=label,
                )
            out.append(dump_json_line(record, p.row.lenient) if as_text else record)
            verdicts.append(None)
        if as_text:
            self.verdicts = verdicts
        if spliced:
            lines = self._splice_lines(block.source, [cast(bytes, texts[i]) for i in spliced], spliced_pairs, columns)
            for i, line in zip(spliced, lines):
                out[i] = line
        if quiet:
            acc.add_single_rows(
                [],
                [correct[p] for p in quiet_pairs],
                [decided_by[p] for p in quiet_pairs],
                reference_agreements=agreements,
                group_values={key: self._group_column(block, key, quiet) for key in acc.group_keys},
            )
        return out

    def _note_row(self, block: RowBlock, i: int, p: int, columns: _Columns, reference: bool | None) -> None:
        """Counts row *i* of *block*, one response graded as pair *p*, among the report's
        notable rows (a timeout, an error, or a disagreement with its *reference* verdict)."""
        row = block.row(i)
        self.acc.add_columns(
            row.data,
            [columns.correct[p]],
            [columns.decided_by[p]],
            functools.partial(columns.verdict, [p]),
            is_list=False,
            reference=reference,
            label=_row_label(row, self.config.id_key),
        )

    def _splice_lines(
        self, source: str, texts: list[bytes], pairs: Sequence[int], columns: _Columns, *, joined: bool = False
    ) -> Sequence[bytes]:
        """The evaluated lines of rows graded from their text: each row's text as read (*texts*,
        graded as *pairs*), the result fields appended (``correct``, ``extracted``,
        ``decided_by``, ``reason``, ``method``, then ``_source`` naming *source*), written by the
        core as orjson writes them: a list, or with *joined* one buffer (:class:`JoinedLines`)."""
        splice = _joined_splice if joined else _core.jsonl_splice
        correct, extracted = columns.correct, columns.extracted
        decided_by, reason, method = columns.decided_by, columns.reason, columns.method
        tails = self._tails.get(source)
        if tails is None or len(tails) > _MAX_TAILS:
            tails = self._tails[source] = _Tails(source)
        heads = (_HEAD_FALSE, _HEAD_TRUE)
        if isinstance(pairs, range) and len(pairs) == len(extracted):
            line_tails = list(map(tails.__getitem__, zip(decided_by, reason, method)))
            return splice(texts, [heads[c] for c in correct], extracted, line_tails)
        line_tails = [tails[(decided_by[p], reason[p], method[p])] for p in pairs]
        return splice(texts, [heads[correct[p]] for p in pairs], [extracted[p] for p in pairs], line_tails)

    def _group_column(self, block: RowBlock, key: str, rows: list[int]) -> list[Any]:
        """The values of the group field *key* in *rows*: from the pick's values where the row
        was picked (the key is always among them), else from the row."""
        data, picked = block.data, block.picked
        values = block.values[self._column[key]] if picked else None
        out: list[Any] = []
        for i in rows:
            if values is not None and picked[i]:
                out.append(values[i])
            else:
                d = data[i]
                out.append(_lookup_or_none(d, key) if d is not None else None)
        return out

    def state(self) -> dict[str, Any]:
        return self.acc.state()

    def restore(self, state: Mapping[str, Any]) -> None:
        self.acc = MetricsAccumulator.from_state(state, self.config.group_by)

    def finish(self, elapsed_s: float) -> Metrics:
        self.acc.elapsed_s = elapsed_s
        return self.acc.finish()

    def progress_note(self, elapsed_s: float) -> str:
        return f"{self.acc.total / elapsed_s:,.0f} pairs/s" if elapsed_s > 0 else "-"

    def report_html(self, metrics: Metrics) -> str:
        return render_math_report(metrics, self.acc.notable)


_COLORS = {"fast": "#2f7d4f", "sympy": "#3b6fb6", "math_verify": "#8a5cc2", "timeout": "#d08a1c", "error": "#c23b3b"}


def _plural(n: int, word: str) -> str:
    return word if n == 1 else word + "s"


def _percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def grading_errors(metrics: Metrics) -> int:
    """Graded pairs decided by ``error``: the grader could read the row but not its gold or
    answer (counted wrong). ``metrics.errors`` also counts the rows that could not be graded."""
    return max(0, metrics.errors - metrics.input_errors)


def pass_at_k_note(metrics: Metrics) -> str:
    """What the pass@k figures are computed over, in words (empty without list responses)."""
    samples = metrics.samples
    if not metrics.pass_at_k or not samples:
        return ""
    spread = f"{samples['min']:,}" if samples["min"] == samples["max"] else f"{samples['min']:,} to {samples['max']:,}"
    problems = samples["problems"]
    note = f"unbiased estimate over all {problems:,} {_plural(problems, 'problem')} ({spread} samples each)"
    if samples["min"] < samples["max"]:
        note += f"; k up to {samples['min']:,}, the fewest samples of a problem"
    return note


def _group_pass_at_k(entry: Mapping[str, Any]) -> str:
    values = entry.get("pass_at_k") or {}
    return ", ".join(f"pass@{k} {_percent(v)}" for k, v in values.items())


def render_report(metrics: Metrics, notable: Sequence[Mapping[str, Any]], *, title: str, inputs: Sequence[str]) -> str:
    """The whole page of a math job: :func:`rapidgrade.report.render_page` around the math
    task's part (:func:`render_math_report`). Every value is escaped."""
    return render_page(render_math_report(metrics, notable), title=title, inputs=inputs)


def render_math_report(metrics: Metrics, notable: Sequence[Mapping[str, Any]]) -> str:
    """The math task's part of the report: summary cards, who decided, accuracy (and pass@k)
    per group and a table of the *notable* rows (disagreements with a reference verdict,
    timeouts, errors), one line per row (per sample of a list row)."""
    m = metrics
    cards = [
        ("rows", f"{m.rows:,}"),
        ("pairs graded", f"{m.total:,}"),
        ("correct", f"{m.correct:,}"),
        ("accuracy", _percent(m.accuracy)),
        ("pairs/s", fmt_number(m.pairs_per_s)),
        ("timeouts", f"{m.timeouts:,}"),
        ("grading errors", f"{grading_errors(m):,}"),
        ("input errors", f"{m.input_errors:,}"),
    ]
    if m.majority_accuracy is not None:
        cards.append(("majority vote", _percent(m.majority_accuracy)))
    # The same figures as metrics.json and the pass@k chart (metrics.pass_at_k_curve).
    for k, v in m.pass_at_k.items():
        cards.append((f"pass@{k}", _percent(v)))
    if m.reference is not None:
        cards.append(("agreement with reference", _percent(m.reference["agreement"])))
    body = cards_html(cards)
    note = pass_at_k_note(m)
    if note:
        body.append(f'<p class="note" id="rg-passk-note">pass@k: {html.escape(note)}.</p>')

    body.append("<h2>Who decided</h2>")
    deciders = [(name, float(count), _COLORS.get(name, "#777")) for name, count in m.decided_by.items() if count]
    most = max((c for _, c, _ in deciders), default=0)
    body.append(bar_chart("verdicts by deciding path", deciders, max_value=most, percent=False))

    for key, values in m.groups.items():
        body.append(f'<h2 id="rg-group-{html.escape(key)}">Accuracy by {html.escape(key)}</h2>')
        items = [(f"{name} (n={int(v['total'])})", float(v["accuracy"]), "#3b6fb6") for name, v in values.items()]
        body.append(bar_chart(f"accuracy by {key}", items, max_value=1.0, percent=True))
        if any("pass_at_k" in v for v in values.values()):
            rows = [
                [name, f"{int(v['total']):,}", _percent(v["accuracy"]), v.get("problems", 0), _group_pass_at_k(v)]
                for name, v in values.items()
            ]
            body.append(table_html((key, "pairs", "accuracy", "problems", "pass@k"), rows))

    body.append(f"<h2>Disagreements, timeouts and errors ({len(notable)} shown)</h2>")
    if notable:
        headers = ("kind", "row", "gold", "extracted", "correct", "reference", "decided by", "reason")
        rows = [
            [
                n.get("kind", ""),
                n.get("row", ""),
                n.get("gold"),
                n.get("extracted"),
                n.get("correct"),
                n.get("reference"),
                n.get("decided_by"),
                n.get("reason", ""),
            ]
            for n in notable
        ]
        body.append(table_html(headers, rows, code_columns=(2, 3)))
    else:
        body.append("<p>None.</p>")
    return "\n".join(body)


def _group_by_arg(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected a column name, got {text!r}")
    return names


class MathTask:
    """The ``math`` task (the default of ``rapidgrade score``)."""

    name = "math"
    help = "final answers of LLM output against gold answers (default)"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("math task")
        group.add_argument(
            "--gold-key",
            default="gold",
            help="field holding the gold answer, or a list of acceptable ones; a dotted key such as "
            "reward_model.ground_truth names a nested field (default: gold)",
        )
        group.add_argument(
            "--response-key",
            default="response",
            help="field holding the response or a list of responses (default: response)",
        )
        group.add_argument("--id-key", default="id", help="field identifying a row in the report (default: id)")
        group.add_argument(
            "--reference-key",
            default=None,
            help="boolean field with another grader's verdict to compare with (the demo set uses qwen_grader)",
        )
        group.add_argument(
            "--threads", type=positive_int, default=None, help="threads for the fast path (default: all cores)"
        )
        group.add_argument(
            "--workers", type=positive_int, default=None, help="fallback worker processes (default: all cores)"
        )
        defaults = GradeConfig()
        group.add_argument(
            "--timeout",
            type=positive_float,
            default=None,
            help=f"seconds allowed per fallback pair (default: {defaults.timeout:g})",
        )
        group.add_argument(
            "--no-fallback", action="store_true", help="fast path only: pairs it cannot decide are graded wrong"
        )
        group.add_argument(
            "--no-last-number",
            action="store_true",
            help="refuse answers found only as the last number of a response (RL rewards)",
        )
        group.add_argument(
            "--rel-tol",
            type=float,
            default=None,
            help=f"relative tolerance of numeric agreement (default: {defaults.equiv.rel_tol:g})",
        )
        group.add_argument(
            "--abs-tol",
            type=float,
            default=None,
            help=f"absolute tolerance of numeric agreement (default: {defaults.equiv.abs_tol:g})",
        )
        group.add_argument(
            "--float-rounding",
            type=int,
            default=None,
            help="decimal places both sides are rounded to when either is a decimal (default: the gold's precision)",
        )
        group.add_argument(
            "--group-by",
            type=_group_by_arg,
            action="append",
            default=None,
            metavar="COLUMN",
            help="break accuracy and pass@k down by this row field (repeatable, or comma-separated; a dotted "
            "name is a nested field), in the summary, metrics.json's groups and the report; the rows' type, "
            "subject and level fields are broken down in metrics.json and the report anyway",
        )

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        options: dict[str, Any] = {
            "gold_key": args.gold_key,
            "response_key": args.response_key,
            "id_key": args.id_key,
            "reference_key": args.reference_key,
            "threads": args.threads,
            "workers": args.workers,
        }
        if args.group_by:
            options["group_by"] = tuple(name for names in args.group_by for name in names)
        # Only the grading options given on the command line: the others keep GradeConfig's defaults.
        given = {
            "timeout": args.timeout,
            "rel_tol": args.rel_tol,
            "abs_tol": args.abs_tol,
            "float_rounding": args.float_rounding,
        }
        options.update({k: v for k, v in given.items() if v is not None})
        if args.no_fallback:
            options["fallback"] = False
        if args.no_last_number:
            options["last_number"] = False
        return options

    def configure(
        self,
        *,
        gold_key: str = "gold",
        response_key: str = "response",
        id_key: str = "id",
        reference_key: str | None = None,
        threads: int | None = None,
        workers: int | None = None,
        config: GradeConfig | None = None,
        group_by: str | Sequence[str] = (),
        **grading: Any,
    ) -> MathConfig:
        """*grading* options (``timeout``, ``fallback``, ``last_number``, ``rel_tol``,
        ``abs_tol``, ``float_rounding``) override the fields of *config*, as in
        :func:`~rapidgrade.grade.grade_many`. *group_by* names row fields (one name or several)
        to break accuracy and pass@k down by."""
        try:
            grade = GradeConfig.build("score_file", config, **grading)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        names = (group_by,) if isinstance(group_by, str) else tuple(group_by)
        for name in names:
            if not isinstance(name, str) or not name:
                raise UsageError(f"group_by: expected non-empty field names, got {name!r}")
        return MathConfig(gold_key, response_key, id_key, reference_key, threads, workers, grade, names)

    def input_fields(self, config: MathConfig) -> tuple[str, ...]:
        fields = (config.gold_key, config.response_key, config.id_key)
        return fields + ((config.reference_key,) if config.reference_key else ())

    def fingerprint(self, config: MathConfig) -> str:
        # threads and workers change the speed, not the verdicts: a resumed run may change them.
        key: tuple[Any, ...] = (config.gold_key, config.response_key, config.id_key, config.reference_key, config.grade)
        if config.group_by:  # the counts kept per group: a resumed run must keep the same groups
            key += (config.group_by,)
        return hashlib.sha256(repr(key).encode()).hexdigest()

    def demo(self, config: MathConfig) -> tuple[list[Path], MathConfig]:
        if config.reference_key is None:
            config = dataclasses.replace(config, reference_key="qwen_grader")
        return [demo_set_path()], config

    def start(self, config: MathConfig) -> MathRun:
        return MathRun(config)

    def summary(self, metrics: Metrics) -> list[tuple[str, str]]:
        """The lines the command line prints: counts, pass@k (and what it is over), the
        ``--group-by`` groups, who decided, and what could not be graded, in words."""
        m = metrics
        rows = [
            ("rows", f"{m.rows:,}"),
            ("pairs graded", f"{m.total:,}"),
            ("correct", f"{m.correct:,}"),
            ("accuracy", _percent(m.accuracy)),
        ]
        rows += [(f"pass@{k}", _percent(v)) for k, v in m.pass_at_k.items()]
        note = pass_at_k_note(m)
        if note:
            rows.append(("pass@k over", note))
        if m.majority_accuracy is not None:
            rows.append(("majority vote", _percent(m.majority_accuracy)))
        for key in m.group_by:
            values = m.groups.get(key, {})
            if not values:
                rows.append((f"by {key}", "no row has this field"))
            for name, v in values.items():
                line = f"{_percent(float(v['accuracy']))} of {int(v['total']):,} pairs"
                if "pass_at_k" in v:
                    line += f"; {_group_pass_at_k(v)} ({int(v['problems']):,} problems)"
                rows.append((f"{key}={name}", line))
        failed = grading_errors(m)
        for name, count in m.decided_by.items():
            if not count:
                continue
            value = f"{count:,}"
            if name == "error":
                parts = []
                if m.input_errors:
                    parts.append(f"{m.input_errors:,} {_plural(m.input_errors, 'row')} that could not be graded")
                if failed:
                    parts.append(f"{failed:,} pairs whose gold or answer the grader could not read")
                value += f" ({' and '.join(parts)})"
            elif name == "timeout":
                value += " (pairs past the fallback's time limit: counted wrong)"
            rows.append((f"decided by {name}", value))
        if m.input_errors:
            rows.append(
                (
                    "input errors",
                    f"{m.input_errors:,} {_plural(m.input_errors, 'row')} could not be graded: "
                    "not counted in the accuracy; "
                    "their reason is in evaluated.jsonl and the report",
                )
            )
        else:
            rows.append(("input errors", "none: every row was graded"))
        if failed:
            rows.append(
                (
                    "grading errors",
                    f"{failed:,} pairs decided by error: counted wrong; their reason is in the "
                    "report's table of errors",
                )
            )
        if m.reference is not None:
            agreement = f"{_percent(m.reference['agreement'])} ({m.reference['agree']:,}/{m.reference['compared']:,})"
            rows.append(("agreement with reference", agreement))
        rows.append(("throughput", f"{m.pairs_per_s:,.0f} pairs/s"))
        code = self.exit_code(m)
        if code:
            rows.append(("exit status", f"{code}: some rows or pairs could not be graded (see above)"))
        return rows

    def exit_code(self, metrics: Metrics) -> int:
        """1 when some row could not be graded or some pair was decided by ``error``; else 0."""
        return 1 if metrics.input_errors or grading_errors(metrics) else 0


#: The registered math task.
TASK = MathTask()
