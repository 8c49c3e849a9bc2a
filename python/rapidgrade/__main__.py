"""Command-line entry point: ``rapidgrade`` and ``python -m rapidgrade``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import rapidgrade


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rapidgrade",
        description="Extract, normalize and grade final answers of LLM output.",
    )
    parser.add_argument("--version", action="version", version=f"rapidgrade {rapidgrade.__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
