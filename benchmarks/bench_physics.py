r"""Benchmark: the physics task against a plain-Python implementation of the same flow.

Two measurements on the same data, in one run, sampled alternately (interleaved rounds),
medians printed with the ratio:

1. ``normalize_answers_many`` (C++ flow, GIL released; SymPy conversion off, the batch default)
   against a plain-Python flow per row: regular expressions for delimiters, wrappers, the gate
   and the number, and pint to decide whether the text after a number is a unit.
2. ``grade_many(task="physics")`` against a plain-Python grader per row: regex extraction (last
   ``\boxed{}``, else the last number and what follows it), regex number-and-unit split, pint
   ``Quantity`` parsing and conversion of both sides, relative tolerance.

The data: the labelled dev set (tests/data/physics/dev.jsonl: 520 golds with units and
responses) repeated to --rows rows. Both graders' agreement with the labels is printed too.

    PYTHONPATH=python python -m benchmarks.bench_physics [--rows 20000] [--repeats 5]

3. ``eed_score_many`` (the EED score of PHYBench) against PHYBench's own EED on the comparison
   set of benchmarks/eed_pairs.py (415 pairs, one run each, one thread), when PHYBENCH_PIPELINE
   names a checkout of phybench-pipeline (its run takes minutes).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rapidgrade
from rapidgrade.tasks.physics import normalize_answers_many

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "physics" / "dev.jsonl"

# -- the plain-Python peer ---------------------------------------------------------------------

_DELIMS = re.compile(r"\$\$|\$|\\\[|\\\]|\\\(|\\\)")
_WRAP = re.compile(r"\\(?:boxed|text|mathrm|textrm|mathbf)\{([^{}]*)\}")
_SPACES = re.compile(r"\\[;,:!]")
_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*$")
_FRAC = re.compile(r"^\s*\\frac\{(-?\d+(?:\.\d+)?)\}\{(-?\d+(?:\.\d+)?)\}\s*$")
_RATIO = re.compile(r"^\s*(-?\d+)/(\d+)\s*$")
_GATE = re.compile(r"^\s*(?:\$|\\\[|\\\(|\\boxed\{|\\frac\{|\\text\{|\\mathrm\{)")
_QUANTITY = re.compile(
    r"^\s*(?P<num>[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"(?:\s*(?:\\times|\\cdot|×|\*)\s*10\^\{?(?P<exp>-?\d+)\}?)?"
    r"(?:(?:\^|\*\*)\{?(?P<pow>-?\d+)\}?)?\s*(?P<unit>.*)$"
)
_BOXED = re.compile(r"\\boxed\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
_LAST_NUMBER = re.compile(r"(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:\s*(?:\\times|×)\s*10\^\{?-?\d+\}?)?)([^\n]{0,40})$")


def _registry() -> Any:
    import pint

    return pint.UnitRegistry()


def _clean_unit(unit: str) -> str:
    unit = unit.replace("^{\\circ}", "deg").replace("\\circ", "deg").replace("°", "deg")
    unit = unit.replace("\\mu ", "u").replace("\\mu", "u").replace("\\AA", "angstrom").replace("\\Omega", "ohm")
    unit = re.sub(r"\^\{?(-?\d+)\}?", r"**\1", unit)
    unit = unit.replace("{", "").replace("}", "").replace("~", " ").strip().rstrip(".,")
    return re.sub(r"\s+", " * ", unit.replace(" / ", "/"))


def _extract_math(s: str) -> str:
    s = _DELIMS.sub("", s)
    for _ in range(3):
        s = _WRAP.sub(r"\1", s)
    return _SPACES.sub("", s).replace("\\ ", " ").strip()


def plain_normalize(s: str, ureg: Any) -> tuple[str, float | str]:
    """The normalize_answer flow in plain Python (regex + pint per row, no SymPy)."""
    import pint

    bare = _DELIMS.sub("", s).strip()
    m = _FRAC.match(bare)
    if m and float(m.group(2)) != 0:
        return "number", float(m.group(1)) / float(m.group(2))
    m = _NUMBER.match(bare)
    if m:
        return "number", float(m.group(1))
    m = _RATIO.match(bare)
    if m and int(m.group(2)) != 0:
        return "number", int(m.group(1)) / int(m.group(2))
    if not _GATE.match(s):
        return "text", _DELIMS.sub("", s).strip()
    clean = _extract_math(s)
    if not clean:
        return "text", ""
    if "=" in clean:
        return "equation", " ".join(clean.split())
    q = _QUANTITY.match(clean)
    if q and q.group("unit"):
        try:
            ureg.Unit(_clean_unit(q.group("unit")))
            value = float(q.group("num"))
            if q.group("exp"):
                value *= 10 ** int(q.group("exp"))
            if q.group("pow"):
                value = -(abs(value) ** int(q.group("pow"))) if value < 0 else value ** int(q.group("pow"))
            return "physical_quantity", f"{value:g} {q.group('unit').strip()}"
        except (pint.errors.PintError, ValueError, TypeError, AttributeError, AssertionError, KeyError):
            pass
    return "formula", " ".join(clean.split())


def _quantity(text: str, ureg: Any) -> tuple[float, Any] | None:
    q = _QUANTITY.match(_extract_math(text))
    if q is None:
        return None
    value = float(q.group("num")) * (10 ** int(q.group("exp")) if q.group("exp") else 1)
    unit = _clean_unit(q.group("unit"))
    return value, unit


def plain_grade(gold: str, unit: str, response: str, ureg: Any, rel_tol: float = 1e-2) -> bool:
    """Unit-aware grading in plain Python: regex extraction and split, pint per row."""
    import pint

    boxes = _BOXED.findall(response)
    if boxes:
        answer = boxes[-1]
    else:
        m = _LAST_NUMBER.search(response.rstrip())
        if m is None:
            return False
        answer = m.group(1) + m.group(2)
    got = _quantity(answer, ureg)
    if got is None:
        return False
    value, r_unit = got
    try:
        g = ureg.Quantity(float(gold), _clean_unit(unit))
        r_unit = re.match(r"[^\s,;]*(?:\s*\*\s*[^\s,;*]+)*", r_unit).group(0) if r_unit else ""  # type: ignore[union-attr]
        r = ureg.Quantity(value, r_unit) if r_unit else ureg.Quantity(value, g.units)
        converted = r.to(g.units).magnitude
    except (pint.errors.PintError, ValueError, TypeError, AttributeError, AssertionError, KeyError):
        return False
    return abs(converted - g.magnitude) <= rel_tol * abs(g.magnitude)


# -- timing ------------------------------------------------------------------------------------


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def interleaved(a: Callable[[], object], b: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median times of a and b, run alternately (a, b, a, b, ...)."""
    times_a, times_b = [], []
    for _ in range(repeats):
        times_a.append(_timed(a))
        times_b.append(_timed(b))
    return statistics.median(times_a), statistics.median(times_b)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--peer-rows", type=int, default=2000, help="rows the (slow) peer is timed on, per round")
    args = parser.parse_args(argv)

    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines()]
    data = (rows * (args.rows // len(rows) + 1))[: args.rows]
    golds = [r["gold"] for r in data]
    units = [r["unit"] for r in data]
    responses = [r["response"] for r in data]
    gold_with_units = [f"{g} {u}" for g, u in zip(golds, units)]
    answers = [r["response"] for r in data]
    answers = [a if i % 2 else f"${g} \\mathrm{{{u}}}$" for i, (a, g, u) in enumerate(zip(answers, golds, units))]
    peer_n = min(args.peer_rows, len(data))
    ureg = _registry()

    print(f"physics benchmark: {len(data):,} rows (peer timed on {peer_n:,} rows a round, scaled)")

    def rg_normalize() -> object:
        return normalize_answers_many(answers)

    def py_normalize() -> object:
        return [plain_normalize(a, ureg) for a in answers[:peer_n]]

    t_rg, t_py = interleaved(rg_normalize, py_normalize, args.repeats)
    t_py_all = t_py * len(data) / peer_n
    print(
        f"normalize_answers_many   rapidgrade {t_rg * 1e3:9.1f} ms   plain Python {t_py_all * 1e3:10.1f} ms"
        f"   ratio {t_py_all / t_rg:7.1f}x   ({len(data) / t_rg:,.0f} answers/s)"
    )

    def rg_grade() -> object:
        return rapidgrade.grade_many(gold_with_units, responses, task="physics")

    def py_grade() -> object:
        return [plain_grade(g, u, r, ureg) for g, u, r in zip(golds[:peer_n], units[:peer_n], responses[:peer_n])]

    t_rg, t_py = interleaved(rg_grade, py_grade, args.repeats)
    t_py_all = t_py * len(data) / peer_n
    print(
        f"grade_many(task=physics) rapidgrade {t_rg * 1e3:9.1f} ms   plain Python {t_py_all * 1e3:10.1f} ms"
        f"   ratio {t_py_all / t_rg:7.1f}x   ({len(data) / t_rg:,.0f} pairs/s)"
    )

    labels = [r["expected"] for r in rows]
    ours = rapidgrade.grade_many(
        [f"{r['gold']} {r['unit']}" for r in rows], [r["response"] for r in rows], task="physics"
    )
    peer = [plain_grade(r["gold"], r["unit"], r["response"], ureg) for r in rows]
    agree_rg = sum(bool(a) == b for a, b in zip(ours.correct.tolist(), labels))
    agree_py = sum(a == b for a, b in zip(peer, labels))
    print(f"agreement with the dev set labels: rapidgrade {agree_rg}/{len(rows)}, plain Python {agree_py}/{len(rows)}")
    eed_line()


def eed_line() -> None:
    """The EED score against PHYBench's own EED (its code from PHYBENCH_PIPELINE, SymPy simplify
    with its 30 s timeouts) on the comparison set of benchmarks/eed_pairs.py: the same pairs, one
    run each, both on one thread; the agreement of the scores too."""
    from benchmarks.eed_pairs import generate_pairs, phybench_source, reference_scores
    from rapidgrade.tasks.physics_eed import eed_score_many

    pairs = generate_pairs()
    golds, answers = [p.gold for p in pairs], [p.answer for p in pairs]
    start = time.perf_counter()
    ours = eed_score_many(golds, answers, threads=1)
    t_rg = time.perf_counter() - start
    source = phybench_source()
    if source is None:
        print(
            f"eed_score_many           rapidgrade {t_rg * 1e3:9.1f} ms   ({len(pairs)} pairs; set PHYBENCH_PIPELINE"
            " to time PHYBench's EED on them)"
        )
        return
    refs = reference_scores(pairs, source)
    t_ref = sum(r.seconds for r in refs)
    done = [(r.result, o) for r, o in zip(refs, ours) if r.result is not None]
    same = sum(abs(r[0] - o.score) < 1e-6 for r, o in done)
    print(
        f"eed_score_many           rapidgrade {t_rg * 1e3:9.1f} ms   PHYBench EED {t_ref * 1e3:10.1f} ms"
        f"   ratio {t_ref / t_rg:7.1f}x   ({len(pairs)} pairs; same score {same}/{len(done)},"
        f" {len(pairs) - len(done)} past the deadline or failed)"
    )


if __name__ == "__main__":
    main()
