r"""The ``fredholm`` task: function-valued answers to integral equations ("find u(x)").

Two steps, as in the fred-llm reference pipeline (see ``../shared/corpora/FREDHOLM.md``):

* :func:`parse_llm_output` / :func:`parse_llm_outputs_many`: find ``u(x) = …`` in a response
  (LaTeX, infix or RPN) and read the ``HAS_SOLUTION`` / ``SOLUTION_TYPE`` / reasoning lines
  (string work in the C++ core, batch with the GIL released);
* :func:`evaluate_solutions` / :func:`evaluate_solution`: compare the solution with the ground
  truth by type (symbolic: C++ equivalence, then SymPy in killable workers; numeric: sampling
  over the domain in C++; the type-specific rules for ``none``, ``regularized``, ``family``,
  ``series``, ``approx_coef``, ``discrete_points``) and aggregate the reference's metrics.

For fred-llm's users: the parse result and the metrics also read as fred-llm's dicts
(``result["confidence"]``, ``metrics["accuracy"]``), SymPy expressions are accepted where its
documented example passes them, the accuracy counts the rows fred-llm counts
(``denominator="parsed"``: only the parsed ones), and ``symbols=`` extends the symbol table
as its ``FREDHOLM_LOCAL_DICT`` does (``docs/tasks/fredholm.md`` lists the differences).

``rapidgrade score --task fredholm predictions.jsonl`` reads the reference's predictions files
(``ground_truth``, ``ground_truth_solution_type``, ``ground_truth_domain``,
``evaluation_points``, ``solution_str``, ``has_solution``, ``solution_type``, ``api_error``;
a row without ``solution_str`` but with ``raw_response`` is parsed first, and ``--reparse``
parses every row's ``raw_response``). ``evaluated.jsonl`` holds each row with its
``evaluation`` (the reference's ``predictions_evaluated.jsonl``), ``metrics.json`` the
aggregates.

>>> p = parse_llm_output("SOLUTION: u(x) = C\\sin(\\pi x)\nHAS_SOLUTION: yes\nSOLUTION_TYPE: family")
>>> str(p.solution_expr), p.solution_type
('C*sin(pi*x)', 'family')
"""

from __future__ import annotations

import argparse
import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rapidgrade._io import InputRow, UsageError
from rapidgrade.report import cards_html, table_html
from rapidgrade.tasks._base import error_record, positive_float, positive_int
from rapidgrade.tasks.fredholm._evaluate import (
    DENOMINATORS,
    EvalConfig,
    FredholmMetrics,
    _jsonable,
    counted,
    evaluate_discrete_points,
    evaluate_rows,
    evaluate_solution,
    evaluate_solutions,
    row_problem,
    summarize,
)
from rapidgrade.tasks.fredholm._parse import ParsedOutput, parse_llm_output, parse_llm_outputs_many
from rapidgrade.tasks.fredholm._residual import (
    IntegralEquation,
    ResidualConfig,
    ResidualVerdict,
    residual_column,
    residual_rewards,
    residual_verification,
    select_by_residual,
    verify_residual,
    verify_residual_many,
)
from rapidgrade.tasks.fredholm._symbols import Symbols, symbol_table

__all__ = [
    "DENOMINATORS",
    "TASK",
    "EvalConfig",
    "FredholmConfig",
    "FredholmMetrics",
    "FredholmTask",
    "IntegralEquation",
    "ParsedOutput",
    "ResidualConfig",
    "ResidualVerdict",
    "Symbols",
    "evaluate_discrete_points",
    "evaluate_solution",
    "evaluate_solutions",
    "parse_llm_output",
    "parse_llm_outputs_many",
    "report_item",
    "residual_column",
    "residual_rewards",
    "residual_verification",
    "select_by_residual",
    "symbol_table",
    "verify_residual",
    "verify_residual_many",
    "write_outputs",
]

#: The parse fields a predictions row carries (the reference's names).
PARSE_FIELDS = ("solution_str", "has_solution", "solution_type")
#: The fields of a row whose metrics are kept between chunks.
_META_FIELDS = ("ground_truth_has_solution", "has_solution", "ground_truth_solution_type", "solution_type", "api_error")


def write_outputs(metrics: FredholmMetrics, out_dir: str | Path) -> None:
    """Writes ``metrics.json`` and ``predictions_evaluated.jsonl`` (strict JSON: non-finite
    numbers as ``"inf"``/``"nan"`` strings) into *out_dir*."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "metrics.json").write_text(json.dumps(metrics.to_dict(), indent=2) + "\n", encoding="utf-8")
    with (out / "predictions_evaluated.jsonl").open("w", encoding="utf-8") as f:
        for row in metrics.rows:
            f.write(json.dumps(_jsonable(row), ensure_ascii=False) + "\n")


_DEFAULT_EVAL = EvalConfig()


@dataclass(frozen=True, slots=True)
class FredholmConfig:
    """Options of the fredholm task: the evaluation options and whether to parse
    ``raw_response`` again instead of using the row's recorded parse fields."""

    evaluation: EvalConfig = _DEFAULT_EVAL
    reparse: bool = False


def _fill_parse(records: list[dict[str, Any]], reparse: bool, symbols: Mapping[str, tuple[str, str]]) -> None:
    todo = [
        k
        for k, r in enumerate(records)
        if isinstance(r.get("raw_response"), str) and (reparse or any(f not in r for f in PARSE_FIELDS))
    ]
    if not todo:
        return
    parsed = parse_llm_outputs_many([records[k]["raw_response"] for k in todo], symbols=dict(symbols))
    for k, p in zip(todo, parsed):
        r = records[k]
        d = p.to_dict()
        for f in ("solution_str", "solution_sympy", "has_solution", "solution_type", "reasoning", "confidence"):
            r[f] = d[f]
        r.setdefault("api_error", r["raw_response"] == "")


class FredholmRun:
    """One fredholm scoring job: rows evaluated chunk by chunk, metrics from what is kept of
    each row (its type fields and its evaluation without the sampled arrays)."""

    __slots__ = ("config", "evaluations", "metas", "rows")

    def __init__(self, config: FredholmConfig) -> None:
        self.config = config
        self.rows = 0
        self.metas: list[dict[str, Any]] = []
        self.evaluations: list[dict[str, Any]] = []

    def grade(self, rows: Sequence[InputRow]) -> list[dict[str, Any]]:
        # A row with a field of the wrong type or shape is an input error of its own, with
        # its reason; the others are evaluated together.
        problems = {
            i: f"line {row.line}: {problem}"
            for i, row in enumerate(rows)
            if row.data is not None and row.error is None and (problem := row_problem(row.data)) is not None
        }
        good = [i for i, row in enumerate(rows) if row.data is not None and row.error is None and i not in problems]
        records = [dict(rows[i].data or {}) for i in good]
        _fill_parse(records, self.config.reparse, dict(self.config.evaluation.symbols))
        evaluations = evaluate_rows(records, config=self.config.evaluation)
        by_pos = dict(zip(good, zip(records, evaluations)))
        out: list[dict[str, Any]] = []
        for i, row in enumerate(rows):
            if i not in by_pos:
                reason = problems.get(i) or row.error or f"line {row.line}: unreadable row"
                out.append(error_record(row, {"evaluation": {"error": reason, "correct": False}}))
                continue
            record, ev = by_pos[i]
            if "evaluation" in record:
                record["input_evaluation"] = record.pop("evaluation")
            record["evaluation"] = _jsonable(ev)
            out.append(record)
            self.metas.append({f: record.get(f) for f in _META_FIELDS})
            self.evaluations.append(_slim(ev))
        self.rows += len(rows)
        return out

    def state(self) -> dict[str, Any]:
        return {"rows": self.rows, "metas": self.metas, "evaluations": _jsonable(self.evaluations)}

    def restore(self, state: Mapping[str, Any]) -> None:
        self.rows = int(state["rows"])
        self.metas = [dict(m) for m in state["metas"]]
        self.evaluations = [_unjson(e) for e in state["evaluations"]]

    def finish(self, elapsed_s: float) -> FredholmMetrics:
        denominator = self.config.evaluation.denominator
        summary = summarize(self.metas, self.evaluations, denominator)
        # Beside the reference's metrics: the rows not counted in the accuracy, by why, and the
        # rows that could not be read at all.
        not_evaluated: dict[str, int] = {}
        for ev in self.evaluations:
            if not counted(ev, denominator):
                kind = str(ev["error"])
                not_evaluated[kind] = not_evaluated.get(kind, 0) + 1
        summary["not_evaluated"] = dict(sorted(not_evaluated.items(), key=lambda kv: (-kv[1], kv[0])))
        summary["rows"] = self.rows
        summary["input_errors"] = self.rows - len(self.metas)  # every readable row has its metas
        return FredholmMetrics(summary, [])

    def progress_note(self, elapsed_s: float) -> str:
        return f"{self.rows / elapsed_s:,.0f} rows/s" if elapsed_s > 0 else "-"

    def report_html(self, metrics: FredholmMetrics) -> str:
        return render_fredholm_report(metrics)


def _slim(ev: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(ev)
    num = out.get("numeric")
    if isinstance(num, dict):
        out["numeric"] = {k: v for k, v in num.items() if k not in ("x_values", "y_pred", "y_true", "sample_results")}
    for k in ("series_term_eval", "family_term_eval"):
        out.pop(k, None)
    return out


def _unjson(value: Any) -> Any:
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    if isinstance(value, dict):
        return {k: _unjson(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unjson(v) for v in value]
    return value


def _pct(x: Any) -> str:
    return f"{100 * x:.1f}%" if isinstance(x, (int, float)) else "-"


#: Why a row was not evaluated, in words, by the evaluation's ``error``.
_NOT_EVALUATED = {
    "parse_failed": "solution not parsed",
    "says_no_solution": "the response says there is no solution",
    "missing_ground_truth_or_solution": "no solution (or ground truth) to compare",
    "api_error": "model call failed (api_error)",
    "internal": "internal error",
    "invalid_row": "a field of the wrong type or shape",
}


def _not_evaluated_words(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{n:,} {_NOT_EVALUATED.get(kind, kind)}" for kind, n in counts.items())


def _number(x: Any) -> str:
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def _why(ev: Mapping[str, Any], record: Mapping[str, Any]) -> str:
    """Why a row's evaluation judged it so, in words (from its ``evaluation`` fields)."""
    error = ev.get("error")
    if error is not None and "symbolic" not in ev:
        words = _NOT_EVALUATED.get(str(error), str(error))
        if counted(ev, "reference"):
            return f"wrong, not compared: {words} (counted as fred-llm counts it; --denominator parsed leaves it out)"
        return f"not evaluated: {words}"
    kind = ev.get("solution_type") or record.get("ground_truth_solution_type")
    verdict = "correct" if ev.get("correct") is True else "wrong"
    if kind == "none":
        return f"{verdict}: the equation has no solution; the response's has_solution is {record.get('has_solution')!r}"
    if kind == "regularized":
        return f"{verdict}: a regularized solution is expected; the response's type is {record.get('solution_type')!r}"
    parts = []
    if ev.get("symbolic_match"):
        parts.append("symbolically equivalent")
    numeric = ev.get("numeric")
    if isinstance(numeric, dict):
        matched = "matches" if numeric.get("match") else "does not match"
        where = numeric.get("evaluation_points_used")
        detail = f"max error {_number(numeric.get('max_error'))}"
        if where is not None:
            detail += f" over {where} points"
        parts.append(f"numerically {matched} ({detail})")
    if "family_match" in ev:
        parts.append("family " + ("matched" if ev["family_match"] else "not matched"))
    if "series_term_match" in ev:
        parts.append(f"{ev.get('series_term_count')} series terms of {ev.get('series_term_target')} expected")
    if error is not None:
        parts.append(f"error: {error}")
    return f"{verdict} ({kind}): " + "; ".join(parts) if parts else verdict


def report_item(record: Mapping[str, Any]) -> dict[str, Any] | None:
    """A fredholm row of ``evaluated.jsonl`` as the report's items table lists it: the ground
    truth, the solution read from the response, the verdict, what decided it (``symbolic``,
    ``numeric``, ``type`` for the rules by solution type, ``not evaluated``) and why."""
    ev = record.get("evaluation")
    if not isinstance(ev, dict):
        return None
    if "_raw" in record and "ground_truth" not in record:
        decided = "unreadable"
    elif "error" in ev and "symbolic" not in ev:
        decided = "not compared" if counted(ev, "reference") else "not evaluated"
    elif ev.get("solution_type") in ("none", "regularized") or "family_match" in ev:
        decided = "type"  # the rules by solution type
    elif ev.get("symbolic_match"):
        decided = "symbolic"
    elif ev.get("numeric_match"):
        decided = "numeric"
    else:
        decided = "no match"
    gold = record.get("ground_truth")
    return {
        "id": record.get("id", record.get("equation_id")),
        "gold": gold if gold is not None else record.get("_raw"),
        "response": record.get("raw_response") if isinstance(record.get("raw_response"), str) else None,
        "correct": ev.get("correct") is True,
        "decided_by": decided,
        "method": ev.get("solution_type") or record.get("ground_truth_solution_type"),
        "extracted": record.get("solution_str"),
        "reason": _why(ev, record),
    }


def render_fredholm_report(metrics: FredholmMetrics) -> str:
    """The fredholm task's part of the report: summary cards, per-type accuracy, the type
    confusion matrix and the per-type statistics blocks (every value escaped)."""
    s = metrics.summary
    cards = [
        ("rows", f"{s.get('rows', s.get('total_predictions', 0)):,}"),
        ("evaluated", f"{s.get('total', 0):,}"),
        ("not evaluated", f"{sum(s.get('not_evaluated', {}).values()):,}"),
        ("unreadable rows", f"{s.get('input_errors', 0):,}"),
        ("accuracy", _pct(s.get("accuracy"))),
        ("symbolic accuracy", _pct(s.get("symbolic_accuracy"))),
        ("numeric accuracy", _pct(s.get("numeric_accuracy"))),
        ("has_solution accuracy", _pct(s.get("has_solution_accuracy"))),
        ("solution_type accuracy", _pct(s.get("solution_type_accuracy"))),
        ("parse errors", f"{s.get('parse_errors', 0):,}"),
    ]
    body = cards_html(cards)
    not_evaluated = s.get("not_evaluated") or {}
    if not_evaluated:
        body.append(
            f'<p class="note" id="rg-not-evaluated">Not evaluated (not in the accuracy): '
            f"{html.escape(_not_evaluated_words(not_evaluated))}. The rows below say which.</p>"
        )
    body.append("<h2>By ground-truth type</h2>")
    per = s.get("per_type", {})
    body.append(
        table_html(
            ("type", "correct", "total", "accuracy"),
            [[t, c["correct"], c["total"], _pct(c["accuracy"])] for t, c in sorted(per.items())],
        )
    )
    conf = s.get("confusion_matrix", {})
    body.append("<h2>Type confusion</h2>")
    if conf:
        body.append(table_html(("ground truth predicted as", "rows"), [[k, v] for k, v in sorted(conf.items())]))
    else:
        body.append("<p>None.</p>")
    for key in (
        "none_detection",
        "series_term_stats",
        "approx_coef_stats",
        "discrete_points_stats",
        "family_param_stats",
    ):
        block = s.get(key)
        if isinstance(block, dict):
            body.append(f"<h2>{html.escape(key)}</h2>")
            body.append(table_html(("statistic", "value"), [[k, v] for k, v in block.items()]))
    return "\n".join(body)


class FredholmTask:
    """The ``fredholm`` task: ``rapidgrade score --task fredholm predictions.jsonl``."""

    name = "fredholm"
    help = "integral-equation answers u(x): parse and evaluate by solution type (fred-llm predictions files)"
    #: The report's items table reads its records this way (an ItemViewer).
    report_item = staticmethod(report_item)

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        group = parser.add_argument_group("fredholm task")
        group.add_argument(
            "--reparse", action="store_true", help="parse raw_response again instead of the recorded fields"
        )
        group.add_argument(
            "--n-points", type=positive_int, default=100, help="sample points over the domain (default 100)"
        )
        # The names every task uses for the same concept (an absolute tolerance, seconds for one
        # SymPy step); the older spellings stay as aliases.
        group.add_argument(
            "--abs-tol",
            "--numeric-tolerance",
            dest="abs_tol",
            type=positive_float,
            default=1e-6,
            help="absolute tolerance of the sampled difference, max |u - u_gold| (default 1e-6)",
        )
        group.add_argument(
            "--timeout",
            "--symbolic-timeout",
            dest="timeout",
            type=positive_float,
            default=8.0,
            help="seconds for each SymPy comparison (default 8)",
        )
        group.add_argument(
            "--no-sympy", action="store_true", help="never start SymPy (undecided symbolic checks stay false)"
        )
        group.add_argument(
            "--no-diagnostics",
            action="store_true",
            help="leave out operator F1, BLEU and ROUGE-L (they never change a verdict)",
        )
        group.add_argument(
            "--denominator",
            choices=DENOMINATORS,
            default="reference",
            help="the accuracy's rows: 'reference' (fred-llm's: a solution that does not parse counts as wrong; "
            "the default) or 'parsed' (only the rows whose solution parsed)",
        )

    def options_from_args(self, args: argparse.Namespace) -> dict[str, Any]:
        return {
            "reparse": args.reparse,
            "n_points": args.n_points,
            "numeric_tolerance": args.abs_tol,
            "symbolic_timeout": args.timeout,
            "sympy": not args.no_sympy,
            "diagnostics": not args.no_diagnostics,
            "denominator": args.denominator,
        }

    def configure(
        self,
        *,
        reparse: bool = False,
        n_points: int = 100,
        numeric_tolerance: float = 1e-6,
        symbolic_timeout: float | None = 8.0,
        sympy: bool = True,
        include_points: bool = True,
        diagnostics: bool = True,
        threads: int | None = None,
        denominator: str = "reference",
        default_domain: tuple[float, float] = (0.0, 1.0),
        symbols: Symbols = None,
    ) -> FredholmConfig:
        if isinstance(n_points, bool) or not isinstance(n_points, int) or n_points < 1:
            raise UsageError(f"fredholm: n_points must be an int >= 1, got {n_points!r}")
        if not isinstance(numeric_tolerance, (int, float)) or not numeric_tolerance > 0:
            raise UsageError(f"fredholm: numeric_tolerance must be > 0, got {numeric_tolerance!r}")
        if denominator not in DENOMINATORS:
            raise UsageError(f"fredholm: denominator must be one of {', '.join(DENOMINATORS)}, got {denominator!r}")
        try:
            table = EvalConfig.table(symbols)
            domain = (float(default_domain[0]), float(default_domain[1]))
        except (TypeError, ValueError, IndexError) as exc:
            raise UsageError(f"fredholm: {exc}") from exc
        ev = replace(
            EvalConfig(),
            n_points=n_points,
            numeric_tolerance=float(numeric_tolerance),
            symbolic_timeout=symbolic_timeout,
            sympy=bool(sympy),
            include_points=bool(include_points),
            diagnostics=bool(diagnostics),
            threads=threads,
            denominator=denominator,
            default_domain=domain,
            symbols=table,
        )
        return FredholmConfig(ev, bool(reparse))

    def input_fields(self, config: FredholmConfig) -> tuple[str, ...]:
        return (
            "ground_truth",
            "ground_truth_solution_type",
            "ground_truth_domain",
            "evaluation_points",
            "raw_response",
            *PARSE_FIELDS,
            "solution_sympy",
            "api_error",
        )

    def fingerprint(self, config: FredholmConfig) -> str:
        ev = config.evaluation
        fields: tuple[Any, ...] = (
            config.reparse,
            ev.n_points,
            ev.numeric_tolerance,
            ev.tolerances,
            ev.symbolic_timeout,
            ev.sympy,
        )
        # Options that change the rows' evaluations (not the denominator, applied at the end).
        if ev.default_domain != (0.0, 1.0) or ev.symbols:
            fields = (*fields, ev.default_domain, ev.symbols)
        # Runs without diagnostics are told apart (their rows lack the diagnostic fields).
        return repr(fields if ev.diagnostics else (*fields, "no-diagnostics"))

    def demo(self, config: FredholmConfig) -> None:
        return None

    def start(self, config: FredholmConfig) -> FredholmRun:
        return FredholmRun(config)

    def summary(self, metrics: FredholmMetrics) -> list[tuple[str, str]]:
        s = metrics.summary
        readable = s.get("total_predictions", 0)
        not_evaluated = s.get("not_evaluated") or {}
        skipped = sum(not_evaluated.values())
        rows = [
            ("rows", f"{s.get('rows', readable):,}"),
            ("evaluated", f"{s.get('total', 0):,} of {readable:,}"),
        ]
        if skipped:
            rows.append(
                (
                    "not evaluated",
                    f"{skipped:,} ({_not_evaluated_words(not_evaluated)}): not counted in the accuracy; "
                    "the report lists them",
                )
            )
        rows.append(("accuracy", f"{_pct(s.get('accuracy'))} of the {s.get('total', 0):,} evaluated"))
        rows += [
            (f"  {t}", f"{c['correct']}/{c['total']} ({_pct(c['accuracy'])})")
            for t, c in sorted(s.get("per_type", {}).items())
        ]
        errors = s.get("input_errors", 0)
        if errors:
            rows.append(
                (
                    "input errors",
                    f"{errors:,} {'row' if errors == 1 else 'rows'} could not be read (the reason is in "
                    "evaluated.jsonl and the report)",
                )
            )
            rows.append(("exit status", "1: some rows could not be read"))
        else:
            rows.append(("input errors", "none: every row was read"))
        return rows

    def exit_code(self, metrics: FredholmMetrics) -> int:
        """1 when some row could not be read; a response that could not be parsed or evaluated
        is a wrong answer of the model, not an input error."""
        return 1 if metrics.summary.get("input_errors", 0) else 0


#: The registered fredholm task.
TASK = FredholmTask()
