r"""A drop-in replacement for math-verify 0.9.0's ``math_metric`` (``math_verify.metric``).

    from math_verify.metric import math_metric                  # before
    from rapidgrade.compat.metric import math_metric            # after (or: from rapidgrade import math_metric)

:func:`math_metric` takes math-verify's arguments and returns a sample-level function with its
call shape, ``fn(golds, predictions) -> (score, (gold_strings, prediction_strings) or None)``, and
its scores: every text is parsed as :func:`rapidgrade.compat.parse` parses it and every pair is
decided as :func:`rapidgrade.compat.verify` decides it (math-verify's answers). What differs is how:
the parses and comparisons of one call are answered by the in-process fast path where it is
certain, and all the others are sent to math-verify in the worker processes *together*, so they
run in parallel; and nothing touches the caller's signal handlers, so the function works from
threads (math-verify's raises ``ValueError`` there).

>>> metric = math_metric()
>>> metric(["42"], ["The answer is 42", "I think 41"])
(1.0, (['42', '42'], ['42', '42', '41', '41']))
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from math_verify import ExprExtractionConfig

from rapidgrade import _transport
from rapidgrade.compat import _workers
from rapidgrade.compat._api import ExtractionTarget, _parse_many, _verify_many
from rapidgrade.compat._workers import _load_exception, _remote_strings

__all__ = ["math_metric"]

logger = logging.getLogger("rapidgrade.compat")

#: Seconds math-verify's metric allows for printing the extracted objects (its ``timeout(2)``).
_STRING_SECONDS = 2

#: Largest integer (in bits) printed in process: printing is quadratic in the digits beyond that.
_MAX_BITS = 4000

#: Most nodes of an expression printed in process; larger ones are printed in a worker.
_MAX_NODES = 64

SampleLevelFn = Callable[[list[str], list[str]], tuple[float, tuple[list[str], list[str]] | None]]


def math_metric(
    gold_extraction_target: Sequence[ExtractionTarget] = (ExprExtractionConfig(),),
    pred_extraction_target: Sequence[ExtractionTarget] = (ExprExtractionConfig(),),
    aggregation_function: Callable[[list[float]], float] = max,
    precision: int = 6,
) -> SampleLevelFn:
    """A sample-level metric that extracts answers and compares them, as math-verify's does.

    Args:
        gold_extraction_target: What to extract from the golds (math-verify's extraction
            configs, in priority order). Defaults to plain expressions.
        pred_extraction_target: What to extract from the predictions.
        aggregation_function: Aggregates the per-prediction scores (1.0 when any gold matches the
            prediction, else 0.0). Defaults to ``max``.
        precision: Decimal places floats are rounded to before comparing (``verify``'s
            ``float_rounding``).

    Returns:
        ``fn(golds, predictions)``, which returns ``(score, strings)``: ``score`` is
        ``aggregation_function`` of the per-prediction scores, ``strings`` the extracted golds and
        predictions as strings (flattened, objects then matched strings), or ``None`` when
        printing them took longer than two seconds. ``fn`` raises ``ValueError`` when nothing
        could be extracted from some gold, and logs a warning when nothing could be extracted
        from any prediction.
    """

    def sample_level_fn(golds: list[str], predictions: list[str]) -> tuple[float, tuple[list[str], list[str]] | None]:
        extracted_predictions = _parse_many(predictions, pred_extraction_target)
        extracted_golds = _parse_many(golds, gold_extraction_target)

        if any(len(g) == 0 for g in extracted_golds):
            raise ValueError(f"No gold targets found for at least one gold. Gold: {golds}, Pred: {predictions}")
        if all(len(p) == 0 for p in extracted_predictions):
            logger.warning(
                "We did not manage to extract a prediction in the correct format. Gold: %s, Pred: %s",
                golds,
                predictions,
            )

        strings = _strings(
            [x for gold in extracted_golds for x in gold], [x for pred in extracted_predictions for x in pred]
        )
        matches = _verify_many([(gold, pred) for pred in extracted_predictions for gold in extracted_golds], precision)
        width = len(extracted_golds)
        scores = [1.0 if any(matches[i * width : (i + 1) * width]) else 0.0 for i in range(len(extracted_predictions))]
        return aggregation_function(scores), strings

    return sample_level_fn


def _strings(golds: list[Any], predictions: list[Any]) -> tuple[list[str], list[str]] | None:
    """``str()`` of every extracted object, or ``None`` past math-verify's two seconds.

    Strings, numbers and small expressions (the fast path's results, most answers) are printed
    here; when any object is larger, all are printed in a worker under math-verify's own time
    limit (printing a SymPy object can take unbounded time).
    """
    if all(_prints_quickly(x) for x in (*golds, *predictions)):
        return [str(x) for x in golds], [str(x) for x in predictions]
    outcome = _workers.run(
        _remote_strings,
        (_transport.dumps((golds, predictions)), _STRING_SECONDS),
        timeout=_STRING_SECONDS + _workers._GRACE_SECONDS,
    )
    if outcome.status == "ok":
        status, value = outcome.value
        if status == "ok":
            gold_strings, prediction_strings = value
            return list(gold_strings), list(prediction_strings)
        if status == "raise":
            raise _load_exception(value)
    logger.warning("Timeout when adding extracted predictions and golds to specific")
    return None


def _prints_quickly(x: Any) -> bool:
    """Whether ``str(x)`` is certainly quick: a string, or a SymPy tree of at most
    ``_MAX_NODES`` nodes whose integers (numerators, denominators) have at most ``_MAX_BITS`` bits.
    """
    if type(x) is str:
        return True
    import sympy

    if not isinstance(x, sympy.Basic):
        return False
    stack, seen = [x], 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > _MAX_NODES:
            return False
        if isinstance(node, sympy.Rational):
            if max(abs(int(node.p)).bit_length(), int(node.q).bit_length()) > _MAX_BITS:
                return False
        elif not isinstance(node, sympy.Float):
            stack.extend(node.args)  # an atom (a symbol, a constant) has none
    return True
