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
from typing import Any

from rapidgrade._io import InputRow, UsageError
from rapidgrade.config import GradeConfig
from rapidgrade.grade import grade_many
from rapidgrade.metrics import Metrics, MetricsAccumulator
from rapidgrade.report import bar_chart, cards_html, fmt_number, table_html
from rapidgrade.tasks._base import error_record, positive_float, positive_int
from rapidgrade.verdict import GradeResults

__all__ = ["DEMO_SET", "RESULT_KEYS", "TASK", "MathConfig", "MathTask", "demo_set_path", "render_math_report"]

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


@dataclass(slots=True)
class _Pending:
    """A row waiting for its verdicts: its samples occupy golds/responses[first:first+count]."""

    row: InputRow
    output: dict[str, Any]
    first: int
    count: int
    is_list: bool
    error: str | None


def _error_result(reason: str) -> dict[str, Any]:
    return {"correct": False, "extracted": None, "decided_by": "error", "reason": reason, "method": None}


def _prepare(row: InputRow, config: MathConfig, golds: list[str], responses: list[str]) -> _Pending:
    """Validates *row* and queues its samples for grading."""
    if row.error is not None or row.data is None:
        reason = row.error or f"line {row.line}: unreadable row"
        return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    data = row.data
    where = f"line {row.line}"
    for key in (config.gold_key, config.response_key):
        if key not in data:
            reason = f"{where}: missing key {key!r}"
            return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    gold = data[config.gold_key]
    if isinstance(gold, bool) or not isinstance(gold, (str, int, float)):
        reason = f"{where}: gold must be a string or a number, got {type(gold).__name__}"
        return _Pending(row, error_record(row, _error_result(reason)), len(golds), 0, False, reason)
    response = data[config.response_key]
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
    golds.extend([str(gold)] * len(samples))
    responses.extend(samples)
    return _Pending(row, dict(data), first, len(samples), is_list, None)


@dataclass(frozen=True, slots=True)
class _Columns:
    """The verdict columns of a chunk (one entry per graded sample) and the majority-vote key
    of each sample."""

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
            correct=results.correct.tolist(),
            extracted=results.extracted,
            decided_by=results.decided_by.tolist(),
            reason=results.reason,
            method=results.method,
            gold=results.gold,
            vote_key=results.normalized,
        )

    @classmethod
    def empty(cls) -> _Columns:
        """The columns of a chunk with no sample to grade."""
        return cls([], [], [], [], [], [], [])

    def verdict(self, first: int, offset: int) -> dict[str, Any]:
        """The verdict of sample ``first + offset`` as a record (for the report's notable rows)."""
        i = first + offset
        return {
            "correct": self.correct[i],
            "extracted": self.extracted[i],
            "decided_by": self.decided_by[i],
            "reason": self.reason[i],
            "gold": self.gold[i],
        }


def _finish_row(pending: _Pending, columns: _Columns) -> tuple[dict[str, Any], bool | None]:
    out = pending.output
    if pending.error is not None:
        return out, None
    collides = not out.keys().isdisjoint(RESULT_KEYS)  # a row's own fields are kept as input_<name>
    first, end = pending.first, pending.first + pending.count
    if not pending.is_list:
        if collides:
            for key in RESULT_KEYS:
                if key in out:
                    out[f"input_{key}"] = out.pop(key)
        out["correct"] = columns.correct[first]
        out["extracted"] = columns.extracted[first]
        out["decided_by"] = columns.decided_by[first]
        out["reason"] = columns.reason[first]
        out["method"] = columns.method[first]
        return out, None
    correct = columns.correct[first:end]
    results = (
        correct,
        columns.extracted[first:end],
        columns.decided_by[first:end],
        columns.reason[first:end],
        columns.method[first:end],
    )
    for key, values in zip(RESULT_KEYS, results):
        if collides and key in out:
            out[f"input_{key}"] = out.pop(key)
        out[key] = values
    out["n_correct"] = correct.count(True)
    votes: dict[str, list[int]] = {}
    vote_key = columns.vote_key
    for i in range(first, end):
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


def _row_label(pending: _Pending, id_key: str) -> str:
    data = pending.row.data
    if data is not None and id_key in data and data[id_key] is not None:
        return str(data[id_key])
    return f"{Path(pending.row.source).name}:{pending.row.line}"


def _grade_kwargs(config: MathConfig) -> dict[str, Any]:
    """The options of :func:`~rapidgrade.grade.grade_many` for *config*."""
    return {"config": config.grade, "threads": config.threads, "workers": config.workers}


class MathRun:
    """One math scoring job: grades chunks and counts them into a :class:`MetricsAccumulator`."""

    __slots__ = ("acc", "config")

    def __init__(self, config: MathConfig) -> None:
        self.config = config
        self.acc = MetricsAccumulator()

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        config, acc = self.config, self.acc
        golds: list[str] = []
        responses: list[str] = []
        pending = [_prepare(row, config, golds, responses) for row in rows]
        columns = _Columns.of(grade_many(golds, responses, **_grade_kwargs(config))) if golds else _Columns.empty()
        records = []
        for p in pending:
            out, majority = _finish_row(p, columns)
            label = _row_label(p, config.id_key)
            if p.error is not None:
                acc.add_row(p.row.data, [out], is_list=False, input_error=True, label=label)
            else:
                reference = None
                if config.reference_key and not p.is_list:
                    ref = p.row.data.get(config.reference_key) if p.row.data is not None else None
                    if isinstance(ref, bool):
                        reference = ref
                first, end = p.first, p.first + p.count
                acc.add_columns(
                    p.row.data,
                    columns.correct[first:end],
                    columns.decided_by[first:end],
                    functools.partial(columns.verdict, first),
                    is_list=p.is_list,
                    majority_correct=majority,
                    reference=reference,
                    label=label,
                )
            records.append(out)
        return records

    def state(self) -> dict[str, Any]:
        return self.acc.state()

    def restore(self, state: Mapping[str, Any]) -> None:
        self.acc = MetricsAccumulator.from_state(state)

    def finish(self, elapsed_s: float) -> Metrics:
        self.acc.elapsed_s = elapsed_s
        return self.acc.finish()

    def progress_note(self, elapsed_s: float) -> str:
        return f"{self.acc.total / elapsed_s:,.0f} pairs/s" if elapsed_s > 0 else "-"

    def report_html(self, metrics: Metrics) -> str:
        return render_math_report(metrics, self.acc.notable)


_COLORS = {"fast": "#2f7d4f", "sympy": "#3b6fb6", "math_verify": "#8a5cc2", "timeout": "#d08a1c", "error": "#c23b3b"}


def render_math_report(metrics: Metrics, notable: Sequence[Mapping[str, Any]]) -> str:
    """The math task's part of the report: summary cards, who decided, accuracy per group and
    a table of the *notable* rows (disagreements with a reference verdict, timeouts, errors)."""
    m = metrics
    cards = [
        ("rows", f"{m.rows:,}"),
        ("pairs graded", f"{m.total:,}"),
        ("correct", f"{m.correct:,}"),
        ("accuracy", f"{100 * m.accuracy:.2f}%"),
        ("pairs/s", fmt_number(m.pairs_per_s)),
        ("timeouts", f"{m.timeouts:,}"),
        ("errors", f"{m.errors:,}"),
    ]
    if m.majority_accuracy is not None:
        cards.append(("majority vote", f"{100 * m.majority_accuracy:.2f}%"))
    for k, v in m.pass_at_k.items():
        cards.append((f"pass@{k}", f"{100 * v:.2f}%"))
    if m.reference is not None:
        cards.append(("agreement with reference", f"{100 * m.reference['agreement']:.2f}%"))
    body = cards_html(cards)

    body.append("<h2>Who decided</h2>")
    deciders = [(name, float(count), _COLORS.get(name, "#777")) for name, count in m.decided_by.items() if count]
    most = max((c for _, c, _ in deciders), default=0)
    body.append(bar_chart("verdicts by deciding path", deciders, max_value=most, percent=False))

    for key, values in m.groups.items():
        body.append(f"<h2>Accuracy by {html.escape(key)}</h2>")
        items = [(f"{name} (n={int(v['total'])})", float(v["accuracy"]), "#3b6fb6") for name, v in values.items()]
        body.append(bar_chart(f"accuracy by {key}", items, max_value=1.0, percent=True))

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


class MathTask:
    """The ``math`` task (the default of ``rapidgrade score``)."""

    name = "math"
    help = "final answers of LLM output against gold answers (default)"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("math task")
        group.add_argument("--gold-key", default="gold", help="field holding the gold answer (default: gold)")
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

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        options: dict[str, Any] = {
            "gold_key": args.gold_key,
            "response_key": args.response_key,
            "id_key": args.id_key,
            "reference_key": args.reference_key,
            "threads": args.threads,
            "workers": args.workers,
        }
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
        **grading: Any,
    ) -> MathConfig:
        """*grading* options (``timeout``, ``fallback``, ``last_number``, ``rel_tol``,
        ``abs_tol``, ``float_rounding``) override the fields of *config*, as in
        :func:`~rapidgrade.grade.grade_many`."""
        try:
            grade = GradeConfig.build("score_file", config, **grading)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return MathConfig(gold_key, response_key, id_key, reference_key, threads, workers, grade)

    def input_fields(self, config: MathConfig) -> tuple[str, ...]:
        fields = (config.gold_key, config.response_key, config.id_key)
        return fields + ((config.reference_key,) if config.reference_key else ())

    def fingerprint(self, config: MathConfig) -> str:
        # threads and workers change the speed, not the verdicts: a resumed run may change them.
        key = (config.gold_key, config.response_key, config.id_key, config.reference_key, config.grade)
        return hashlib.sha256(repr(key).encode()).hexdigest()

    def demo(self, config: MathConfig) -> tuple[list[Path], MathConfig]:
        if config.reference_key is None:
            config = dataclasses.replace(config, reference_key="qwen_grader")
        return [demo_set_path()], config

    def start(self, config: MathConfig) -> MathRun:
        return MathRun(config)

    def summary(self, metrics: Metrics) -> list[tuple[str, str]]:
        m = metrics
        rows = [
            ("rows", f"{m.rows:,}"),
            ("pairs graded", f"{m.total:,}"),
            ("correct", f"{m.correct:,}"),
            ("accuracy", f"{100 * m.accuracy:.2f}%"),
        ]
        rows += [(f"pass@{k}", f"{100 * v:.2f}%") for k, v in m.pass_at_k.items()]
        if m.majority_accuracy is not None:
            rows.append(("majority vote", f"{100 * m.majority_accuracy:.2f}%"))
        rows += [(f"decided by {name}", f"{count:,}") for name, count in m.decided_by.items() if count]
        rows.append(("input errors", f"{m.input_errors:,}"))
        if m.reference is not None:
            agreement = (
                f"{100 * m.reference['agreement']:.2f}% ({m.reference['agree']:,}/{m.reference['compared']:,})"
            )
            rows.append(("agreement with reference", agreement))
        rows.append(("throughput", f"{m.pairs_per_s:,.0f} pairs/s"))
        return rows

    def exit_code(self, metrics: Metrics) -> int:
        return 1 if metrics.input_errors else 0


#: The registered math task.
TASK = MathTask()
