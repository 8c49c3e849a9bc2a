r"""The EED comparison set and PHYBench's own EED, run from a checkout of its pipeline.

``generate_pairs()`` builds a deterministic set of (gold, answer) LaTeX pairs of physics-style
expressions: for each gold of a list of physics formulas, equal forms written differently, small
edits (a number, a symbol, a function, a sign, an exponent, a dropped factor, an added term),
and a different structure (another formula of the list).

``reference_scores()`` runs PHYBench's ``EED`` on pairs. Its code is never copied here: the
files are read from a checkout (or a bare git directory) of phybench-official/phybench-pipeline
named by the environment variable ``PHYBENCH_PIPELINE``, written into a temporary directory and
imported there, in a worker process with a deadline per pair (killed and restarted when a pair
overruns it; PHYBench's own 30 s simplify timeouts run in threads it cannot stop). It needs
SymPy, latex2sympy2_extended, NumPy and pydantic; loguru, which it only logs with, is replaced
by a silent stand-in when it is not installed.

    PHYBENCH_PIPELINE=/path/to/phybench-pipeline python -m benchmarks.eed_pairs
"""

from __future__ import annotations

import importlib
import importlib.util
import multiprocessing as mp
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# (gold, forms equal to it written differently)
FORMULAS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"\frac{m g}{2}\sin\theta_0", (r"\frac{1}{2} m g \sin\theta_0", r"\frac{g m \sin(\theta_0)}{2}")),
    (r"2\pi\sqrt{\frac{L}{g}}", (r"2\pi \sqrt{L/g}", r"\frac{2\pi\sqrt{L}}{\sqrt{g}}")),
    (r"\frac{1}{2} m v^2 + m g h", (r"m g h + \frac{m v^{2}}{2}", r"m\left(\frac{v^2}{2} + g h\right)")),
    (r"\sqrt{2 g h}", (r"\sqrt{2gh}", r"\sqrt{2}\sqrt{g h}")),
    (r"\frac{G M m}{r^2}", (r"G M m r^{-2}", r"\frac{GMm}{r^{2}}")),
    (
        r"\frac{q^2}{4\pi\varepsilon_0 r}",
        (r"\frac{1}{4\pi\varepsilon_0}\frac{q^2}{r}", r"\frac{q^{2}}{4 \pi \varepsilon_{0} r}"),
    ),
    (r"m g (1-\cos\theta_0)", (r"m g - m g\cos\theta_0", r"g m \left(1 - \cos{\theta_0}\right)")),
    (r"A\omega\cos(\omega t + \phi)", (r"\omega A \cos(\phi + \omega t)", r"A \omega \cos\left(\omega t+\phi\right)")),
    (r"v_0 t - \frac{1}{2} g t^2", (r"v_0 t - \frac{g t^2}{2}", r"t \left(v_0 - \frac{g t}{2}\right)")),
    (r"\frac{m_1 m_2}{m_1 + m_2}", (r"\frac{m_2 m_1}{m_2 + m_1}", r"\frac{1}{\frac{1}{m_1} + \frac{1}{m_2}}")),
    (r"\frac{m_1 - m_2}{m_1 + m_2} g", (r"\frac{g (m_1 - m_2)}{m_1 + m_2}", r"\frac{(m_1 - m_2) g}{m_2 + m_1}")),
    (r"\sqrt{\frac{k}{m}}", (r"\frac{\sqrt{k}}{\sqrt{m}}", r"\sqrt{k/m}")),
    (r"\frac{2 v_0 \sin\theta}{g}", (r"\frac{2 v_0}{g}\sin\theta", r"2 v_0 \sin(\theta) / g")),
    (r"\frac{v_0^2 \sin 2\theta}{g}", (r"\frac{v_0^2}{g}\sin(2\theta)", r"\frac{\sin(2 \theta) v_{0}^{2}}{g}")),
    (
        r"\frac{\mu m g}{\cos\theta + \mu\sin\theta}",
        (r"\frac{\mu g m}{\mu \sin\theta + \cos\theta}", r"\mu m g / (\cos\theta + \mu\sin\theta)"),
    ),
    (r"\frac{1}{2} k A^2", (r"\frac{k A^2}{2}", r"0.5 k A^2")),
    (r"\frac{3 g}{2 L}\cos\theta", (r"\frac{3 g \cos\theta}{2 L}", r"1.5 \frac{g}{L}\cos\theta")),
    (r"\frac{m v^2}{R} + m g", (r"m\left(g + \frac{v^2}{R}\right)", r"m g + \frac{m v^{2}}{R}")),
    (r"\frac{q B R}{m}", (r"\frac{B q R}{m}", r"q B R / m")),
    (r"\frac{1}{2\pi}\sqrt{\frac{g}{l}}", (r"\frac{\sqrt{g/l}}{2\pi}", r"\frac{1}{2 \pi} \sqrt{\frac{g}{l}}")),
    (r"\frac{\hbar^2}{2 m a^2}", (r"\frac{\hbar^{2}}{2 a^{2} m}", r"\frac{1}{2}\frac{\hbar^2}{m a^2}")),
    (r"\sqrt{v_0^2 + 2 g h}", (r"\sqrt{2 g h + v_0^2}", r"\left(v_0^2 + 2 g h\right)^{1/2}")),
    (r"\frac{m g}{k}", (r"\frac{g m}{k}", r"m g / k")),
    (r"\frac{4}{3}\pi R^3 \rho", (r"\frac{4 \pi \rho R^3}{3}", r"\frac{4\pi R^{3}}{3}\rho")),
    (
        r"\frac{\omega_0}{\sqrt{1 - \frac{v^2}{c^2}}}",
        (r"\omega_0 \left(1 - \frac{v^2}{c^2}\right)^{-1/2}", r"\frac{\omega_{0}}{\sqrt{1-v^{2}/c^{2}}}"),
    ),
    (
        r"m c^2 \left(\frac{1}{\sqrt{1-\beta^2}} - 1\right)",
        (r"\frac{m c^2}{\sqrt{1-\beta^2}} - m c^2", r"m c^{2} \left(\frac{1}{\sqrt{1 - \beta^{2}}} - 1\right)"),
    ),
    (r"\frac{F}{m} - \mu g", (r"\frac{F - \mu m g}{m}", r"-\mu g + \frac{F}{m}")),
    (r"\arctan\left(\frac{v^2}{R g}\right)", (r"\arctan\frac{v^2}{g R}", r"\tan^{-1}\left(\frac{v^{2}}{R g}\right)")),
    (r"\frac{k q_1 q_2}{r^2}", (r"k \frac{q_1 q_2}{r^2}", r"\frac{k q_{1} q_{2}}{r^{2}}")),
    (r"\frac{2\pi r}{v}", (r"2\pi \frac{r}{v}", r"\frac{2 \pi r}{v}")),
    (r"\frac{L}{R}\ln 2", (r"\frac{L \ln 2}{R}", r"\ln(2) \frac{L}{R}")),
    (r"\frac{n R T}{V}", (r"\frac{R T n}{V}", r"n R T / V")),
    (
        r"\frac{\sigma}{2\varepsilon_0}",
        (r"\frac{\sigma}{2 \varepsilon_{0}}", r"\frac{1}{2}\frac{\sigma}{\varepsilon_0}"),
    ),
    (r"\frac{\mu_0 n I}{2}", (r"\frac{1}{2}\mu_0 n I", r"\frac{I n \mu_0}{2}")),
    (
        r"\frac{m_1 g \sin\alpha - m_2 g}{m_1 + m_2}",
        (r"\frac{g (m_1 \sin\alpha - m_2)}{m_1 + m_2}", r"\frac{m_1 g \sin(\alpha) - m_2 g}{m_2 + m_1}"),
    ),
    (r"\frac{B^2 L^2 v}{R}", (r"\frac{(B L)^2 v}{R}", r"\frac{v B^{2} L^{2}}{R}")),
)

SYMBOL_SWAPS = {
    "m": "M",
    "M": "m",
    "g": "a",
    "h": "H",
    "L": "l",
    "l": "L",
    "r": "R",
    "R": "r",
    "v": "u",
    "k": "K",
    "q": "Q",
    "A": "B",
    "B": "A",
    "t": "T",
    "F": "f",
    "c": "v",
    "T": "t",
    "V": "U",
    "n": "N",
    "a": "b",
    "G": "g",
    r"\theta_0": r"\theta",
    r"\theta": r"\phi",
    r"\omega": r"\Omega",
    r"\phi": r"\varphi",
    r"\mu": r"\nu",
    r"\rho": r"\sigma",
    r"\sigma": r"\rho",
    r"\beta": r"\gamma",
    r"\alpha": r"\beta",
    r"\hbar": "h",
    r"\varepsilon_0": r"\mu_0",
    r"\mu_0": r"\varepsilon_0",
    "v_0": "v",
    r"\omega_0": r"\omega",
    "m_1": "m",
    "m_2": "m",
    "q_1": "q",
    "q_2": "q",
}
FUNCTION_SWAPS = {r"\sin": r"\cos", r"\cos": r"\sin", r"\arctan": r"\arcsin", r"\ln": r"\exp", r"\sqrt": r"\sqrt[3]"}
_TOKEN = re.compile(
    r"\\(?:theta|omega|mu|varepsilon|rho|sigma|beta|alpha|phi|hbar)(?:_0)?(?![a-zA-Z])"
    r"|[a-zA-Z]_[0-9](?![0-9])|(?<![\\a-zA-Z])[a-zA-Z](?![a-zA-Z])"
)
_FUNC = re.compile(r"\\(?:sin|cos|arctan|ln|sqrt)(?![a-zA-Z\[])")
_NUMBER = re.compile(r"(?<![_0-9.])[0-9]+(?![0-9.])")


@dataclass(frozen=True)
class Pair:
    """One comparison: the gold, the answer, and how the answer was made from the gold."""

    gold: str
    answer: str
    kind: str


def _mutations(gold: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    """Small edits of `gold`, each a (kind, answer) that differs from it."""
    tokens = [m for m in _TOKEN.finditer(gold) if m.group() in SYMBOL_SWAPS]
    if tokens:
        t = rng.choice(tokens)
        yield "symbol", gold[: t.start()] + SYMBOL_SWAPS[t.group()] + gold[t.end() :]
    numbers = list(_NUMBER.finditer(gold))
    if numbers:
        t = rng.choice(numbers)
        new = str(int(t.group()) + rng.choice((1, 2)))
        yield "number", gold[: t.start()] + new + gold[t.end() :]
    funcs = list(_FUNC.finditer(gold))
    if funcs:
        t = rng.choice(funcs)
        yield "function", gold[: t.start()] + FUNCTION_SWAPS[t.group()] + gold[t.end() :]
    signs = [m for m in re.finditer(r"(?<=[^{(])\s[+-]\s", gold)]
    if signs:
        t = rng.choice(signs)
        yield "sign", gold[: t.start()] + (" - " if "+" in t.group() else " + ") + gold[t.end() :]
    powers = list(re.finditer(r"\^(?:2|\{2\}|3)", gold))
    if powers:
        t = rng.choice(powers)
        yield "exponent", gold[: t.start()] + rng.choice(("^3", "^4")) + gold[t.end() :]
    droppable = [
        m
        for m in re.finditer(r"(?<=[a-zA-Z0-9}]) (\\?[a-zA-Z]+(?:_0)?)(?=[ }])", gold)
        if not m.group(1).startswith(("\\sin", "\\cos", "\\frac", "\\sqrt", "\\ln", "\\left", "\\right", "\\arctan"))
    ]
    if droppable:
        t = rng.choice(droppable)
        yield "drop factor", gold[: t.start()] + gold[t.end() :]
    extra = rng.choice(("m", "g", r"\omega", "2", "v_0", "t"))
    yield "added term", rf"{gold} + {extra}"
    yield "factor", rf"2 \left({gold}\right)" if rng.random() < 0.5 else rf"\frac{{{gold}}}{{{extra}}}"


def generate_pairs(seed: int = 46) -> list[Pair]:
    """The deterministic comparison set (a few hundred pairs) of the EED score."""
    rng = random.Random(seed)
    pairs: list[Pair] = []
    golds = [g for g, _ in FORMULAS]
    for gold, equal_forms in FORMULAS:
        pairs.append(Pair(gold, gold, "identical"))
        pairs.extend(Pair(gold, form, "equal form") for form in equal_forms)
        seen = {gold}
        for kind, answer in _mutations(gold, rng):
            if answer not in seen:
                seen.add(answer)
                pairs.append(Pair(gold, answer, kind))
        other = rng.choice([g for g in golds if g != gold])
        pairs.append(Pair(gold, other, "different structure"))
        # a mutated equal form: the edit seen through another way of writing the gold
        for kind, answer in _mutations(equal_forms[0], rng):
            if kind in ("number", "symbol", "function") and answer not in seen:
                seen.add(answer)
                pairs.append(Pair(gold, answer, kind + " (rewritten)"))
    return pairs


# -- PHYBench's EED, from a checkout of its pipeline --------------------------------------------

_PHYBENCH_FILES = (
    "phybench/settings.py",
    "phybench/evaluation/expression_distance.py",
    "phybench/evaluation/latex_processor.py",
    "phybench/evaluation/tree_distance.py",
)


def phybench_source() -> Path | None:
    """The checkout (or git directory) of phybench-pipeline named by PHYBENCH_PIPELINE, if any."""
    where = os.environ.get("PHYBENCH_PIPELINE")
    return Path(where) if where else None


@contextmanager
def phybench_import_dir(source: Path) -> Iterator[Path]:
    """A temporary directory holding PHYBench's EED modules (from `source`), importable."""
    with tempfile.TemporaryDirectory(prefix="phybench-eed-") as tmp:
        root = Path(tmp)
        for rel in _PHYBENCH_FILES:
            if (source / rel).is_file():
                text = (source / rel).read_text(encoding="utf-8")
            else:  # a bare git directory
                text = subprocess.run(
                    ["git", "--git-dir", str(source), "show", f"HEAD:{rel}"],
                    check=True,
                    capture_output=True,
                    text=True,
                ).stdout
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        (root / "phybench" / "__init__.py").write_text("", encoding="utf-8")
        (root / "phybench" / "evaluation" / "__init__.py").write_text("", encoding="utf-8")
        if importlib.util.find_spec("loguru") is None:
            shim = root / "loguru"
            shim.mkdir()
            (shim / "__init__.py").write_text(
                "class _Silent:\n"
                "    def __getattr__(self, name):\n"
                "        return lambda *args, **kwargs: None\n"
                "logger = _Silent()\n",
                encoding="utf-8",
            )
        yield root


def _worker(root: str, conn: Any) -> None:
    sys.path.insert(0, root)
    EED = importlib.import_module("phybench.evaluation.expression_distance").EED
    settings = importlib.import_module("phybench.settings").EvaluationEEDSettings()
    conn.send("ready")
    while True:
        job = conn.recv()
        if job is None:
            return
        gold, answer = job
        start = time.perf_counter()
        try:
            score, rel, size, dist = EED(gold, answer, settings)
            out: Any = (float(score), float(rel), float(size), float(dist))
        except Exception as exc:  # PHYBench lets a few SymPy errors through
            out = repr(exc)
        conn.send((out, time.perf_counter() - start))


@dataclass(frozen=True)
class Reference:
    """PHYBench's EED of one pair: (score, relative distance, tree size, distance), or None when
    the pair overran the deadline; `error` when its code raised; `seconds` its run time."""

    result: tuple[float, float, float, float] | None
    seconds: float
    error: str | None = None


class PhybenchEED:
    """PHYBench's EED in a killable worker process (a context manager)."""

    def __init__(self, source: Path, deadline: float = 60.0) -> None:
        self._source = source
        self._deadline = deadline
        self._ctx = mp.get_context("spawn")
        self._proc: Any = None
        self._conn: Any = None
        self._dir: Any = None

    def __enter__(self) -> PhybenchEED:
        self._dir = phybench_import_dir(self._source)
        self._root = str(self._dir.__enter__())
        self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop()
        self._dir.__exit__(None, None, None)

    def _start(self) -> None:
        parent, child = self._ctx.Pipe()
        self._proc = self._ctx.Process(target=_worker, args=(self._root, child), daemon=True)
        self._proc.start()
        self._conn = parent
        if not parent.poll(120) or parent.recv() != "ready":
            raise RuntimeError("PHYBench's EED did not import")

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
            self._proc = None

    def score(self, gold: str, answer: str) -> Reference:
        """PHYBench's EED(gold, answer), or a None result after the deadline (worker restarted)."""
        start = time.perf_counter()
        self._conn.send((gold, answer))
        if not self._conn.poll(self._deadline):
            self._stop()
            self._start()
            return Reference(None, time.perf_counter() - start)
        out, seconds = self._conn.recv()
        if isinstance(out, str):
            return Reference(None, seconds, out)
        return Reference(out, seconds)


def reference_scores(pairs: Sequence[Pair], source: Path, deadline: float = 60.0) -> list[Reference]:
    """PHYBench's EED of every pair (one worker, one pair at a time, `deadline` seconds each)."""
    with PhybenchEED(source, deadline) as eed:
        return [eed.score(p.gold, p.answer) for p in pairs]


if __name__ == "__main__":
    import json

    src = phybench_source()
    if src is None:
        sys.exit("set PHYBENCH_PIPELINE to a checkout (or git directory) of phybench-pipeline")
    all_pairs = generate_pairs()
    refs = reference_scores(all_pairs, src)
    for p, r in zip(all_pairs, refs):
        print(
            json.dumps(
                {
                    "gold": p.gold,
                    "answer": p.answer,
                    "kind": p.kind,
                    "ref": r.result,
                    "s": round(r.seconds, 3),
                    "error": r.error,
                }
            )
        )
