"""Command line: ``rapidgrade`` (also ``python -m rapidgrade``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import rapidgrade

SCORE_EXAMPLES = """\
examples:
  rapidgrade score                              grade the bundled demo set (800 real responses)
  rapidgrade score runs.jsonl                   grade rows {"gold": ..., "response": ...}
  rapidgrade score a.jsonl.gz b.csv --out out/  several inputs, one report
  rapidgrade score samples.parquet --response-key completions
                                                a list of responses per row: pass@k, majority vote
  rapidgrade score big.jsonl --resume           continue an interrupted run without regrading
  rapidgrade score --no-fallback --threads 8    fast path only (undecided pairs count as wrong)

exit codes: 0 success, 1 input errors (unreadable input or rows that could not be graded;
the outputs are still written), 2 bad usage.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rapidgrade", description="Extract, normalize and grade final answers of LLM output.")
    parser.add_argument("--version", action="version", version=f"rapidgrade {rapidgrade.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    score = sub.add_parser(
        "score",
        help="grade a file of responses against gold answers",
        description="Grade every row of the inputs and write evaluated rows, metrics.json and report.html.",
        epilog=SCORE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    score.add_argument("inputs", nargs="*", metavar="INPUT", help="JSONL (.jsonl, .jsonl.gz), CSV or Parquet files (default: the bundled demo set)")
    score.add_argument(
        "--task",
        choices=("math", "absa"),
        default="math",
        help="math answers (default) or aspect-sentiment tuples; 'rapidgrade score --task absa --help' lists the absa options",
    )
    score.add_argument("--gold-key", default="gold", help="field holding the gold answer (default: gold)")
    score.add_argument("--response-key", default="response", help="field holding the response or a list of responses (default: response)")
    score.add_argument("--id-key", default="id", help="field identifying a row in the report (default: id)")
    score.add_argument("--reference-key", default=None, help="boolean field with another grader's verdict to compare with (the demo set uses qwen_grader)")
    score.add_argument("--out", default="rapidgrade-out", help="output directory (default: ./rapidgrade-out/)")
    score.add_argument("--threads", type=_positive_int, default=None, help="threads for the fast path (default: all cores)")
    score.add_argument("--workers", type=_positive_int, default=None, help="fallback worker processes (default: all cores)")
    score.add_argument("--timeout", type=_positive_float, default=5.0, help="seconds allowed per fallback pair (default: 5)")
    score.add_argument("--no-fallback", action="store_true", help="fast path only: pairs it cannot decide are graded wrong")
    score.add_argument("--format", dest="fmt", choices=("jsonl", "csv", "parquet"), default="jsonl", help="also write evaluated rows in this format (default: jsonl only)")
    score.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    score.add_argument("--chunk-size", type=_positive_int, default=4096, help="rows graded and checkpointed together (default: 4096)")
    score.add_argument("--quiet", action="store_true", help="no progress bar")
    score.set_defaults(command_parser=score)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {value}")
    return value


def _print_summary(metrics: rapidgrade.Metrics, out: str) -> None:
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
        rows.append(("agreement with reference", f"{100 * m.reference['agreement']:.2f}% ({m.reference['agree']:,}/{m.reference['compared']:,})"))
    rows.append(("throughput", f"{m.pairs_per_s:,.0f} pairs/s"))
    rows.append(("outputs", out))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")


def _score(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from rapidgrade.score import UsageError, score_file

    try:
        metrics = score_file(
            args.inputs or None,
            gold_key=args.gold_key,
            response_key=args.response_key,
            id_key=args.id_key,
            reference_key=args.reference_key,
            out=args.out,
            threads=args.threads,
            workers=args.workers,
            timeout=args.timeout,
            fallback=not args.no_fallback,
            fmt=args.fmt,
            resume=args.resume,
            chunk_size=args.chunk_size,
            progress=not args.quiet and sys.stderr.isatty(),
        )
    except UsageError as exc:
        parser.error(str(exc))
    except OSError as exc:
        print(f"rapidgrade score: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\nrapidgrade score: interrupted; results so far are in {args.out}; run again with --resume to continue", file=sys.stderr)
        return 130
    _print_summary(metrics, args.out)
    return 1 if metrics.input_errors else 0


def _absa_argv(argv: list[str]) -> list[str] | None:
    """The arguments after ``score`` without ``--task absa``, when the task is absa."""
    if argv[:1] != ["score"]:
        return None
    rest = argv[1:]
    for i, arg in enumerate(rest):
        if arg == "--task" and i + 1 < len(rest) and rest[i + 1] == "absa":
            return rest[:i] + rest[i + 2 :]
        if arg == "--task=absa":
            return rest[:i] + rest[i + 1 :]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line and returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    absa_argv = _absa_argv(arguments)
    if absa_argv is not None:
        from rapidgrade.tasks import absa

        absa_parser = absa.build_parser(
            argparse.ArgumentParser(
                prog="rapidgrade score --task absa",
                description="Score aspect-based sentiment tuples across pipeline stages; writes the scorecard JSON.",
            )
        )
        return absa.run(absa_parser.parse_args(absa_argv))
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.command == "score":
        return _score(args, args.command_parser)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
