"""Command line: ``rapidgrade`` (also ``python -m rapidgrade``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import rapidgrade
from rapidgrade.tasks._base import Registry, Task, positive_int

SCORE_EXAMPLES = """\
examples:
  rapidgrade score                              grade the bundled demo set (800 real responses)
  rapidgrade score runs.jsonl                   grade rows {"gold": ..., "response": ...}
  rapidgrade score a.jsonl.gz b.csv --out out/  several inputs, one report
  rapidgrade score samples.parquet --response-key completions
                                                a list of responses per row: pass@k, majority vote
  rapidgrade score big.jsonl --resume           continue an interrupted run without regrading
  rapidgrade score --no-fallback --threads 8    fast path only (undecided pairs count as wrong)
  rapidgrade score --task absa tuples.jsonl     aspect-sentiment tuples: tuple F1 per stage
  rapidgrade score verl.parquet --gold-key reward_model.ground_truth
                                                a dotted key names a nested field
  cat rows.jsonl | rapidgrade score -           JSON lines from standard input

A gold may be a list of acceptable answers (["42", "42.0"]): any of them counts as correct.
Every evaluated row has a _source field naming its input file.

--group-by COLUMN (math) breaks accuracy and pass@k down by a row field, e.g. --group-by source,level.
pass@k is the unbiased estimate averaged over every problem, for k up to the fewest samples
a problem has (the summary, metrics.json and the report show the same figures).

exit codes:
  0    every row was graded (wrong answers are not errors)
  1    some rows could not be graded: an input that cannot be read, unreadable lines, rows
       missing a field or with a bad value (input errors), or, for math, pairs decided by
       error (the grader could not read the gold or the answer: counted wrong); the outputs
       are still written and the summary says which
  2    bad usage (an unknown option, a missing or empty input)
  130  interrupted (--resume continues)
"""


def build_parser(task: str | Task = "math", *, registry: Registry | None = None) -> argparse.ArgumentParser:
    """The command-line parser; ``score`` has the shared options plus those of *task*."""
    registry = registry or Registry()
    if isinstance(task, str):
        task = registry.get(task)
    parser = argparse.ArgumentParser(
        prog="rapidgrade", description="Extract, normalize and grade final answers of LLM output."
    )
    parser.add_argument("--version", action="version", version=f"rapidgrade {rapidgrade.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    # `rapidgrade serve` has its own parser (rapidgrade.serve, the [serve] extra); main() hands it the arguments.
    sub.add_parser("serve", help="serve rewards over HTTP (rapidgrade serve --help)", add_help=False)
    score = sub.add_parser(
        "score",
        help="grade a file of responses against gold answers",
        description="Grade every row of the inputs and write evaluated rows, metrics.json and report.html.",
        epilog=SCORE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    score.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="JSONL (.jsonl, .jsonl.gz), JSON arrays (.json), CSV or Parquet files, or - for JSON lines on "
        "standard input (default: the task's demo set)",
    )
    names = registry.names()
    score.add_argument(
        "--task",
        choices=names,
        default="math",
        help=f"what to grade ({'; '.join(f'{n}: {registry.get(n).help}' for n in names)}); "
        "'rapidgrade score --task NAME --help' lists the options of a task",
    )
    score.add_argument("--out", "-o", default="rapidgrade-out", help="output directory (default: ./rapidgrade-out/)")
    score.add_argument(
        "--format",
        dest="fmt",
        choices=("jsonl", "csv", "parquet"),
        default="jsonl",
        help="also write evaluated rows in this format (default: jsonl only)",
    )
    score.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    score.add_argument(
        "--chunk-size", type=positive_int, default=4096, help="rows graded and checkpointed together (default: 4096)"
    )
    score.add_argument("--quiet", action="store_true", help="no progress bar")
    score.add_argument(
        "--ray",
        nargs="?",
        const="",
        default=None,
        metavar="ADDRESS",
        help="grade on a Ray cluster (ADDRESS: auto, HOST:PORT or ray://HOST:PORT; default: RAY_ADDRESS or a "
        "new local cluster); same outputs, order and --resume (pip install 'rapidgrade[ray]')",
    )
    task.add_arguments(score)
    score.set_defaults(command_parser=score, task_object=task)
    return parser


def _print_summary(rows: list[tuple[str, str]], out: str, metrics: object) -> None:
    rows = [*rows, ("outputs", out)]
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    # The last line: where the report is, and what its reference column means when there is one.
    report = Path(out) / "report.html"
    note = f"report: {report} (open it in a browser)"
    if getattr(metrics, "reference", None):
        note += (
            "; its 'reference' column is the verdict the input gave in the --reference-key field "
            "(another grader's), shown where rapidgrade's verdict differs"
        )
    print(note)


def _score(args: argparse.Namespace, parser: argparse.ArgumentParser, registry: Registry) -> int:
    from rapidgrade.score import UsageError, score_file

    task: Task = args.task_object
    try:
        metrics = score_file(
            args.inputs or None,
            task=task,
            out=args.out,
            fmt=args.fmt,
            resume=args.resume,
            chunk_size=args.chunk_size,
            progress=not args.quiet and sys.stderr.isatty(),
            registry=registry,
            **task.options_from_args(args),
        )
    except UsageError as exc:
        parser.error(str(exc))
    except OSError as exc:
        print(f"rapidgrade score: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"\nrapidgrade score: interrupted; results so far are in {args.out}; run again with --resume to continue",
            file=sys.stderr,
        )
        return 130
    _print_summary(task.summary(metrics), args.out, metrics)
    return task.exit_code(metrics)


def _task_name(argv: Sequence[str]) -> str:
    """The ``--task`` of a ``score`` command line (``math`` when none, or an unknown one, is
    given), read before the full parser is built so that the task can add its options."""
    if argv[:1] != ["score"]:
        return "math"
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--task", default="math")
    known, _ = pre.parse_known_args(argv[1:])
    return str(known.task)


def main(argv: Sequence[str] | None = None, *, registry: Registry | None = None) -> int:
    """Runs the command line and returns the exit code. *registry* (default: the built-in
    tasks) lists the tasks ``--task`` can name."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["serve"]:
        from rapidgrade.serve import main as serve_main

        return serve_main(arguments[1:])
    registry = registry or Registry()
    name = _task_name(arguments)
    parser = build_parser(name if name in registry else "math", registry=registry)
    args = parser.parse_args(arguments)
    if args.command == "score":
        if args.ray is not None:
            from rapidgrade._ray_score import apply_ray_option

            args = apply_ray_option(args)
        return _score(args, args.command_parser, registry)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
