"""Round trip of every ground truth of the fredholm corpus (a shared corpus): parsed, printed back as LaTeX, infix
and RPN from the tree, re-parsed in that syntax; all three evaluate equal to the original at
the domain's sample points."""

from __future__ import annotations

import numpy as np
import pytest

from rapidgrade import _core
from rapidgrade.tasks.fredholm._terms import tree_to_infix, tree_to_latex, tree_to_rpn
from tests.unit.test_fredholm_corpus import corpus

pytestmark = pytest.mark.shared  # the corpus is one of the shared corpora (tests/datasets.py)


def test_every_ground_truth_round_trips() -> None:
    seen: dict[str, tuple[float, float]] = {}
    for row in corpus():
        d = row["ground_truth_domain"] or [0.0, 1.0]
        seen.setdefault(row["ground_truth"], (float(d[0]), float(d[1])))
    unparsed = []
    checked = 0
    for gt, (a, b) in seen.items():
        r = _core.fredholm_read_solution(gt)
        if r is None:
            unparsed.append(gt)
            continue
        tree = _core.parse_expr(r[1], syntax=r[2]).tree()
        forms = [(tree_to_latex(tree), "latex"), (tree_to_infix(tree), "infix"), (tree_to_rpn(tree), "rpn")]
        xs = np.linspace(a, b, 100)
        consts = {n: 1.5 for n in _core.parse_expr(r[1], syntax=r[2]).free_symbols if n != "x"}
        ys = _core.fredholm_sample_many([(r[1], r[2]), *forms], [xs] * 4, constants=consts)
        assert np.isfinite(ys[0]).any(), gt
        for (text, syntax), y in zip(forms, ys[1:]):
            assert np.allclose(y, ys[0], rtol=1e-12, atol=1e-12, equal_nan=True), (gt, syntax, text)
        checked += 1
    # one ground truth holds integrals of an unknown f (a 'none'/'regularized' placeholder is "0")
    assert len(unparsed) == 1 and "\\int" in unparsed[0]
    assert checked == len(seen) - 1 >= 45
