"""Diagnostics of a solution string against the ground truth (they never change ``correct``):
operator precision/recall/F1, BLEU and ROUGE-L.

* Operator F1 compares the sets of operators of the two trees, named as the reference names
  SymPy's classes (``sin cos tan exp log sinh cosh tanh Abs Add Mul Pow Integral``). The
  tree is rapidgrade's, mapped to SymPy's structure: a difference is an ``Add`` with a
  ``Mul`` (``-b`` is ``-1*b``), a quotient a ``Mul`` with a ``Pow`` (``b**-1``), a root a
  ``Pow``, ``e^{x}`` an ``exp``. SymPy's automatic evaluation (numbers folded) is not
  reproduced, so numeric subtrees count as SymPy would not count them in rare cases.
* BLEU: sacrebleu's sentence BLEU over the reference's math tokenization (operators and
  brackets split off, whitespace), smoothing "floor" 0.1 (the additive 0.1 of NLTK's method1
  that the reference uses) and sacrebleu's effective order (n-gram orders longer than the
  hypothesis are left out, where NLTK smooths them), scaled to [0, 1].
* ROUGE-L: the LCS F-measure over the same tokens, as the rouge-score package computes it (the
  reference has no ROUGE). The longest common subsequence is measured by rapidfuzz's
  bit-parallel ``LCSseq`` (linear memory, about n·m/64 word operations), or, without rapidfuzz,
  by rouge-score (a full n·m table). Either way a side longer than
  :data:`MAX_ROUGE_TOKENS` tokens (:data:`MAX_ROUGE_TOKENS_TABLE` for rouge-score's table)
  is not measured: ROUGE-L is then ``None``, so one huge pair costs neither minutes nor
  gigabytes.

sacrebleu and rapidfuzz (or rouge-score) are optional (``pip install rapidgrade[fredholm]``):
without them BLEU and ROUGE-L are ``None``. The scoring job leaves the diagnostics out with
``--no-diagnostics``.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = [
    "MAX_ROUGE_TOKENS",
    "MAX_ROUGE_TOKENS_TABLE",
    "bleu_score",
    "operator_f1",
    "operators",
    "rouge_l",
    "tokenize_math",
]

#: The most tokens a side of ROUGE-L may have, measured with rapidfuzz (50,000 x 50,000 tokens
#: take about 0.15 s and a few hundred kilobytes).
MAX_ROUGE_TOKENS = 50_000
#: The most tokens a side may have when rouge-score's n·m table measures it (1,000 x 1,000
#: cells: well under a second and about 10 MB).
MAX_ROUGE_TOKENS_TABLE = 1_000

_FUNCS = {"sin", "cos", "tan", "exp", "log", "sinh", "cosh", "tanh"}
_TOKEN = re.compile(r"([+\-*/^()=,])")


def _is_number(node: tuple[Any, ...]) -> bool:
    if node[0] in ("num", "const") and node[1] != "I":
        return True
    if node[0] in ("neg", "div", "mul", "add", "pow"):
        return all(_is_number(k) for k in node[1:])
    return False


def operators(tree: tuple[Any, ...]) -> set[str]:
    """The SymPy operator names of a tree.

    >>> sorted(operators(("add", ("func", "sin", ("sym", "x")), ("neg", ("sym", "x")))))
    ['Add', 'Mul', 'sin']
    """
    ops: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        kind = node[0]
        if kind in ("num", "sym", "const", "text"):
            continue
        if _is_number(node):
            continue
        if kind == "add":
            ops.add("Add")
        elif kind == "mul" or kind == "neg":
            ops.add("Mul")
        elif kind == "div":
            ops.add("Pow")
            if node[1] != ("num", "1"):
                ops.add("Mul")
        elif kind == "pow":
            ops.add("exp" if node[1] == ("const", "E") else "Pow")
        elif kind == "abs":
            ops.add("Abs")
        elif kind == "func":
            name = node[1]
            if name in _FUNCS:
                ops.add(name)
            elif name == "sqrt":
                ops.add("Pow")
            elif name == "Integral":
                ops.add("Integral")
        stack.extend(k for k in node[1:] if isinstance(k, tuple))
    return ops


def operator_f1(pred_tree: tuple[Any, ...], gt_tree: tuple[Any, ...]) -> dict[str, Any]:
    """Precision, recall and F1 of the operator sets (the reference's ``operator_f1``).

    >>> operator_f1(("func", "sin", ("sym", "x")), ("func", "sin", ("sym", "x")))["f1"]
    1.0
    """
    p, g = operators(pred_tree), operators(gt_tree)
    if not p and not g:
        return {"precision": 1.0, "recall": 1.0, "f1": 1.0, "pred_ops": [], "gt_ops": []}
    tp = len(p & g)
    precision = tp / len(p) if p else 0.0
    recall = tp / len(g) if g else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "pred_ops": sorted(p), "gt_ops": sorted(g)}


def tokenize_math(text: str) -> list[str]:
    r"""The reference's math tokens: operators and brackets split off, then whitespace.

    >>> tokenize_math("x^{2}+1")
    ['x', '^', '{2}', '+', '1']
    """
    return _TOKEN.sub(r" \1 ", text).split()


@cache
def _bleu() -> Any:
    try:
        from sacrebleu.metrics import BLEU  # type: ignore[attr-defined]
    except ImportError:
        return None
    return BLEU(tokenize="none", smooth_method="floor", smooth_value=0.1, effective_order=True)


def bleu_score(pred: str, gt: str) -> float | None:
    """Sentence BLEU in [0, 1] over :func:`tokenize_math` tokens (``None`` without sacrebleu).

    >>> bleu_score("x + 1", "x + 1")
    1.0
    """
    hyp, ref = tokenize_math(pred), tokenize_math(gt)
    if not hyp or not ref:
        return 0.0
    bleu = _bleu()
    if bleu is None:
        return None
    return round(float(bleu.sentence_score(" ".join(hyp), [" ".join(ref)]).score) / 100.0, 12)


class _Tokenizer:
    def tokenize(self, text: str) -> list[str]:
        return tokenize_math(text)


@cache
def _lcs_length() -> Any:
    """rapidfuzz's LCS length of two token lists, or ``None`` without rapidfuzz."""
    try:
        from rapidfuzz.distance import LCSseq
    except ImportError:
        return None
    return LCSseq.similarity


@cache
def _rouge() -> Any:
    try:
        from rouge_score import rouge_scorer  # type: ignore[import-untyped]
    except ImportError:
        return None
    return rouge_scorer.RougeScorer(["rougeL"], tokenizer=_Tokenizer())


def rouge_l(pred: str, gt: str) -> float | None:
    """ROUGE-L F-measure over :func:`tokenize_math` tokens; ``None`` without rapidfuzz and
    rouge-score, or when a side has more tokens than can be measured in bounded time and
    memory (:data:`MAX_ROUGE_TOKENS`).

    >>> rouge_l("x + 1", "x + 2")
    0.6666666666666666
    """
    lcs = _lcs_length()
    if lcs is None:
        scorer = _rouge()
        if scorer is None:
            return None
        if _too_long(pred, gt, MAX_ROUGE_TOKENS_TABLE):
            return None
        return float(scorer.score(gt, pred)["rougeL"].fmeasure)
    if _too_long(pred, gt, MAX_ROUGE_TOKENS):
        return None
    hyp, ref = tokenize_math(pred), tokenize_math(gt)
    if not hyp or not ref:
        return 0.0
    common = int(lcs(hyp, ref))
    if common == 0:
        return 0.0
    precision, recall = common / len(hyp), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def _too_long(pred: str, gt: str, limit: int) -> bool:
    """Whether a side has more than *limit* tokens (counted without building them: a token
    is at most one per character)."""
    if len(pred) <= limit and len(gt) <= limit:
        return False
    return len(tokenize_math(pred)) > limit or len(tokenize_math(gt)) > limit
