r"""A drop-in replacement for math-verify 0.9.0's ``parse`` and ``verify``.

Switch by changing one import line::

    from math_verify import parse, verify, LatexExtractionConfig     # before
    from rapidgrade import parse, verify, LatexExtractionConfig      # after

The functions have math-verify 0.9.0's signatures and give its answers, *known bugs included*
(published numbers must not move when users switch; the native :func:`rapidgrade.grade` is the
API that is right where math-verify is wrong). To guarantee that, everything rapidgrade cannot
answer with certainty is computed by math-verify itself, in worker processes
(:mod:`rapidgrade._pool`), which brings two improvements and no change of result:

* No signal handler or alarm of the caller's process is touched (math-verify arms
  ``signal.alarm``, which fails outside the main thread and clobbers the caller's own alarm);
  ``parse``/``verify`` work from threads, notebooks and other libraries' worker pools.
* A comparison that hangs is killed: past its time limit (plus a margin) the worker is replaced,
  and the call returns what math-verify returns on a timeout (``[]`` / ``False``, or
  ``TimeoutException`` with ``raise_on_error=True``).

``parse`` returns a :class:`ParseResult`: a ``list`` holding real SymPy objects then the matched
string, like math-verify's, which also remembers the input and options. The config classes are
math-verify's own (re-exported), so ``isinstance``, equality and hashing are unchanged, and configs
built with either import work with either library.

>>> gold = parse("$\\frac{1}{2}$")
>>> verify(gold, parse("The answer is 0.5"))
True

math-verify's metric is here too (:func:`~rapidgrade.compat.metric.math_metric`, also
``rapidgrade.math_metric``): its scores, with the parses and comparisons of a call that need
math-verify sent to the workers together.

The fast path. ``verify`` first asks :func:`~rapidgrade.compat._fast_verify.fast_verify` and
``parse`` asks :func:`~rapidgrade.compat._fast_parse.fast_parse`; each answers only where it is
*proven* to agree with math-verify and returns ``None`` otherwise. Under the default configs
(and with the expression config before the LaTeX one) ``parse`` covers responses whose
``\boxed{...}`` (or LaTeX "final answer ... is") decides, golds given as ``$X$``, and plain
integers (:mod:`rapidgrade.compat._fast_parse` finds math-verify's match and normalizes it, and
builds plain numbers and single letters; other LaTeX is converted by math-verify's
``parse_latex_cached`` in a worker and memoized). ``verify`` decides strings, numbers, integer
percentages, symbols against atoms, and equal expression trees in process, with math-verify's own
comparison steps (:mod:`rapidgrade.compat._fast_verify`); every other pair goes to math-verify.
What runs in the worker processes, and how their failures are handled, is in
:mod:`rapidgrade.compat._workers`.
"""

from __future__ import annotations

from rapidgrade.compat._api import (
    ExprExtractionConfig,
    ExtractionTarget,
    LatexExtractionConfig,
    LatexNormalizationConfig,
    NormalizationConfig,
    ParseResult,
    StringExtractionConfig,
    TimeoutException,
    parse,
    verify,
)
from rapidgrade.compat._api import (
    clear_caches as clear_caches,
)
from rapidgrade.compat.metric import math_metric

__all__ = [
    "ExprExtractionConfig",
    "ExtractionTarget",
    "LatexExtractionConfig",
    "LatexNormalizationConfig",
    "NormalizationConfig",
    "ParseResult",
    "StringExtractionConfig",
    "TimeoutException",
    "math_metric",
    "parse",
    "verify",
]
