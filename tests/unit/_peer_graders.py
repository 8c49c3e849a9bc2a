"""Grading functions for the tests of benchmarks/bench_wild.py's peer worker (module level, so the
worker process can import them by name)."""

from __future__ import annotations

import os
import time


def grade_equal(gold: str, response: str) -> bool:
    """True when the strings are equal; ``hang`` sleeps for a minute, ``raise`` raises, ``die``
    ends the process without a word."""
    if response == "hang":
        time.sleep(60)
    if response == "raise":
        raise ValueError("cannot read this")
    if response == "die":
        os._exit(3)
    return gold == response


def fail_to_start(gold: str, response: str) -> bool:
    """Ends the process on its first call (the worker's warm-up pair)."""
    os._exit(4)
