"""``report.html``: a self-contained page (inline CSS and JavaScript, no network) summarizing a
scoring job.

The frame (:func:`render_page`: title, inputs, style) is shared by every task; a task renders
its own part with the building blocks here (:func:`cards_html`, :func:`bar_chart`,
:func:`table_html`). The per-item drill-down (:func:`render_drilldown`) is read back from the
job's output directory (``evaluated.jsonl``, ``metrics.json``): charts of accuracy by method and
by deciding path, pass@k curves, the run's options, and a filterable table of the items with an
excerpt of each response around the extracted answer. It is bounded for huge runs: every wrong
item up to ``max_wrong``, the first ``max_right`` correct ones, and counts of the rest, as the
page says.

``python -m rapidgrade.report OUT_DIR`` adds the drill-down to an existing ``OUT_DIR/report.html``.
"""

from __future__ import annotations

import argparse
import html
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from rapidgrade.metrics import pass_at_k_curve

__all__ = [
    "Drilldown",
    "DrilldownLimits",
    "add_drilldown",
    "bar_chart",
    "cards_html",
    "excerpt",
    "fmt_number",
    "line_chart",
    "render_drilldown",
    "render_page",
    "table_html",
]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#1d2330;
padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}
h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #dde;padding-bottom:.3rem}
.sub{color:#667;margin-top:0}
.cards{display:flex;flex-wrap:wrap;gap:.8rem;margin:1rem 0}
.card{background:#f4f6fb;border-radius:8px;padding:.7rem 1rem;min-width:130px}
.card .v{font-size:1.4rem;font-weight:600}.card .k{color:#667;font-size:.85rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{border-bottom:1px solid #e4e6ee;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f6fb}td.code{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
svg text{font-size:12px;fill:#1d2330}
.note{color:#667;font-size:.85rem}
.filters{display:flex;flex-wrap:wrap;gap:.8rem;align-items:center;margin:.8rem 0;font-size:.9rem}
.filters input[type=search]{min-width:260px;padding:.25rem .4rem}
#rg-items tbody tr.item{cursor:pointer}#rg-items tbody tr.item:hover{background:#f7f8fc}
#rg-items td.ok{color:#2f7d4f;font-weight:600}#rg-items td.bad{color:#c23b3b;font-weight:600}
#rg-items tr.detail td{background:#fafbfe}#rg-items tr.linked{outline:2px solid #3b6fb6}
.excerpt{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-word;
background:#f4f6fb;padding:.5rem;border-radius:6px;margin:.3rem 0;font-size:.8rem}
.excerpt mark{background:#ffe58a;padding:0 .1rem}
button{font:inherit;padding:.2rem .8rem;margin:.6rem 0}
"""


def fmt_number(x: float) -> str:
    """A rate or count for a card: thousands separators from 100 up, else 3 significant digits."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.3g}"


def _bar_chart(title: str, items: Sequence[tuple[str, float, str]], *, max_value: float, percent: bool) -> str:
    """Horizontal bars: (label, value, color)."""
    if not items:
        return ""
    row_h, label_w, bar_w = 24, 220, 560
    height = row_h * len(items) + 10
    parts = [
        f'<svg role="img" aria-label="{html.escape(title)}" width="{label_w + bar_w + 90}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
    ]
    for i, (label, value, color) in enumerate(items):
        y = 5 + i * row_h
        width = 0 if max_value <= 0 else max(1.0, bar_w * value / max_value)
        text = f"{100 * value:.1f}%" if percent else f"{value:,.0f}"
        parts.append(f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{html.escape(label[:32])}</text>')
        parts.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{width:.1f}" height="{row_h - 8}" rx="3" fill="{color}"/>'
        )
        parts.append(f'<text x="{label_w + width + 6:.1f}" y="{y + 16}">{text}</text>')
    parts.append("</svg>")
    return "".join(parts)


def cards_html(cards: Sequence[tuple[str, str]]) -> list[str]:
    """Summary cards ``(label, value)`` as HTML lines (the values are escaped)."""
    lines = ['<div class="cards">']
    lines += [
        f'<div class="card"><div class="v">{html.escape(v)}</div><div class="k">{html.escape(k)}</div></div>'
        for k, v in cards
    ]
    lines.append("</div>")
    return lines


def bar_chart(title: str, items: Sequence[tuple[str, float, str]], *, max_value: float, percent: bool) -> str:
    """A horizontal bar chart (inline SVG) of ``(label, value, color)`` items."""
    return _bar_chart(title, items, max_value=max_value, percent=percent)


def table_html(headers: Sequence[str], rows: Sequence[Sequence[Any]], *, code_columns: Collection[int] = ()) -> str:
    """A table; cells are escaped (``None`` as empty), columns in *code_columns* in monospace."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = [f"<table><thead><tr>{head}</tr></thead><tbody>"]
    for cells in rows:
        tds = "".join(
            f'<td class="{"code" if i in code_columns else ""}">{html.escape("" if c is None else str(c))}</td>'
            for i, c in enumerate(cells)
        )
        body.append("<tr>" + tds + "</tr>")
    body.append("</tbody></table>")
    return "\n".join(body)


def line_chart(title: str, points: Sequence[tuple[float, float]], *, x_label: str, y_label: str) -> str:
    """A line chart (inline SVG) of ``(x, y)`` points with ``0 <= y <= 1``, x on a log2 axis when it
    spans powers of two (pass@k curves).

    >>> svg = line_chart("pass@k", [(1, 0.5), (2, 0.75), (4, 0.9)], x_label="k", y_label="pass@k")
    >>> svg.startswith("<svg") and svg.count("<circle") == 3
    True
    """
    if not points:
        return ""
    width, height, left, bottom, top, right = 620, 260, 60, 40, 16, 24
    xs = [p[0] for p in points]
    log = min(xs) > 0 and max(xs) / min(xs) >= 4

    def fx(x: float) -> float:
        lo, hi = (math.log2(min(xs)), math.log2(max(xs))) if log else (min(xs), max(xs))
        v = math.log2(x) if log else x
        return left + (0.5 if hi == lo else (v - lo) / (hi - lo)) * (width - left - right)

    def fy(y: float) -> float:
        return top + (1.0 - min(max(y, 0.0), 1.0)) * (height - top - bottom)

    parts = [
        f'<svg role="img" aria-label="{html.escape(title)}" width="{width}" height="{height}" '
        'xmlns="http://www.w3.org/2000/svg">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = fy(tick)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e4e6ee"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{100 * tick:.0f}%</text>')
    path = " ".join(f"{'M' if i == 0 else 'L'}{fx(x):.1f},{fy(y):.1f}" for i, (x, y) in enumerate(points))
    parts.append(f'<path d="{path}" fill="none" stroke="#3b6fb6" stroke-width="2"/>')
    for x, y in points:
        parts.append(f'<circle cx="{fx(x):.1f}" cy="{fy(y):.1f}" r="3.5" fill="#3b6fb6"/>')
        parts.append(f'<text x="{fx(x):.1f}" y="{height - bottom + 16}" text-anchor="middle">{x:g}</text>')
        # two decimals, as the summary and the cards show the same figures
        parts.append(f'<text x="{fx(x):.1f}" y="{fy(y) - 8:.1f}" text-anchor="middle">{100 * y:.2f}%</text>')
    middle = (left + width - right) / 2
    parts.append(f'<text x="{middle:.0f}" y="{height - 4}" text-anchor="middle">{html.escape(x_label)}</text>')
    parts.append(f'<text x="12" y="{top + 4}">{html.escape(y_label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_page(
    body: str,
    *,
    title: str,
    inputs: Sequence[str],
    out_dir: str | Path | None = None,
    options: Mapping[str, Any] | None = None,
    drilldown: Drilldown | None = None,
    metrics: Mapping[str, Any] | None = None,
) -> str:
    """The report frame: a self-contained page with *title*, the list of *inputs* and a task's
    *body* (HTML). With *out_dir* (a finished job's output directory), the per-item drill-down of
    :func:`render_drilldown` follows the body, with the run's *options* (and the *drilldown* the
    job collected, if any, and the job's *metrics* as in ``metrics.json``).

    >>> page = render_page("<p>hi</p>", title="demo", inputs=["a.jsonl"])
    >>> page.startswith("<!DOCTYPE html>") and "<p>hi</p>" in page and "a.jsonl" in page
    True
    """
    parts = [f"<h1>{html.escape(title)}</h1>", f'<p class="sub">inputs: {html.escape(", ".join(inputs))}</p>', body]
    if out_dir is not None:
        parts.append(render_drilldown(out_dir, options=options, drilldown=drilldown, metrics=metrics))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


# --- the drill-down -------------------------------------------------------------------------------

_EXCERPT_WIDTH = 240
_MAX_WRONG = 2000
_MAX_RIGHT = 500
_FIELD_CAP = 400
_DECIDER_COLORS = {
    "fast": "#2f7d4f",
    "sympy": "#3b6fb6",
    "math_verify": "#8a5cc2",
    "timeout": "#d08a1c",
    "error": "#c23b3b",
}
_BOXED = re.compile(r"\\(?:boxed|fbox)\s*\{")
DRILLDOWN_START = "<!-- rapidgrade:drilldown -->"
DRILLDOWN_END = "<!-- /rapidgrade:drilldown -->"


@dataclass(frozen=True, slots=True)
class DrilldownLimits:
    """How much of a run the page holds: every wrong item up to *max_wrong*, the first
    *max_right* correct items, each response cut to *excerpt_width* characters either side of the
    extracted answer. The page states what was left out; ``evaluated.jsonl`` holds everything.

    >>> DrilldownLimits().max_wrong
    2000
    """

    max_wrong: int = _MAX_WRONG
    max_right: int = _MAX_RIGHT
    excerpt_width: int = _EXCERPT_WIDTH

    def __post_init__(self) -> None:
        for name in ("max_wrong", "max_right", "excerpt_width"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"DrilldownLimits: {name} must be an int >= 0, got {value!r}")


def excerpt(response: str, extracted: str | None, *, width: int = _EXCERPT_WIDTH) -> tuple[str, str, str]:
    """The part of *response* around its extracted answer, as ``(before, answer, after)``.

    The answer is the last occurrence of *extracted* in the response; when the text differs from
    the response (a normalized or joined answer), the last ``\\boxed{`` marks the place; failing
    that, the response's end is shown with an empty answer. *before* and *after* hold at most
    *width* characters each, with ``…`` where the response was cut.

    >>> excerpt("We add them: so the answer is $\\\\boxed{42}$.", "42", width=12)
    ('… is $\\\\boxed{', '42', '}$.')
    >>> excerpt("no answer here", None, width=6)
    ('…r here', '', '')
    """
    at, size = -1, 0
    if extracted:
        at = response.rfind(extracted)
        size = len(extracted) if at >= 0 else 0
    if at < 0:
        ends = [m.end() for m in _BOXED.finditer(response)]
        if ends:
            at, size = ends[-1], 0
    if at < 0:
        at, size = len(response), 0
    start, stop = max(0, at - width), min(len(response), at + size + width)
    before = ("…" if start > 0 else "") + response[start:at]
    after = response[at + size : stop] + ("…" if stop < len(response) else "")
    return before, response[at : at + size], after


def _cap(value: Any, limit: int = _FIELD_CAP) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


@dataclass(slots=True)
class _Tally:
    total: int = 0
    correct: int = 0


@dataclass(slots=True)
class _Scan:
    """What one pass over evaluated.jsonl collects."""

    items: list[list[Any]] = field(default_factory=list)
    rows: int = 0
    items_total: int = 0
    wrong_total: int = 0
    right_total: int = 0
    wrong_shown: int = 0
    right_shown: int = 0
    by_method: dict[str, _Tally] = field(default_factory=dict)
    by_decider: dict[str, _Tally] = field(default_factory=dict)
    # pass@k: (n samples, c correct) -> number of list-response rows
    samples: Counter[tuple[int, int]] = field(default_factory=Counter)

    def take(self, ok: bool, limits: DrilldownLimits) -> bool:
        """Whether an item with verdict *ok* is listed (each kind within its bound); counts it."""
        if ok:
            if self.right_shown >= limits.max_right:
                return False
            self.right_shown += 1
        else:
            if self.wrong_shown >= limits.max_wrong:
                return False
            self.wrong_shown += 1
        return True


def _as_list(value: Any, n: int) -> list[Any]:
    if isinstance(value, list) and len(value) == n:
        return value
    return [value] * n


def _load_row(line: bytes) -> dict[str, Any] | None:
    try:
        data = _loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


try:
    import orjson

    _loads: Any = orjson.loads
except ImportError:  # pragma: no cover - orjson is a dependency
    _loads = json.loads


#: A single-response row's verdict as the scoring job knows it: (method, decided_by, correct).
LineVerdict = tuple[Any, Any, bool]
#: A task's view of one evaluated record for the drill-down: the record as the items table reads
#: it (``id``, ``gold``, ``response``, ``correct``, ``decided_by``, ``method``, ``extracted``,
#: ``reason``; lists for list responses), or ``None`` for a record it does not list.
ItemView = Callable[[Mapping[str, Any]], "dict[str, Any] | None"]
_VIEW_KEYS = {"id_key": "id", "gold_key": "gold", "response_key": "response"}


class Drilldown:
    """The drill-down of a run, collected as its evaluated lines are written (the scoring job
    feeds it; :func:`render_drilldown` renders it), so that the report does not read
    ``evaluated.jsonl`` again: per-method and per-path accuracy, pass@k, and the items within
    *limits*.

    >>> d = Drilldown()
    >>> d.add_lines([b'{"id":"a","gold":"1","response":"1","correct":true,"method":"bare","decided_by":"fast"}'])
    >>> d.add_lines([b'{"id":"b","gold":"2","response":"3","correct":false}'], [(None, "fast", False)])
    >>> scan = d.finish()
    >>> (scan.rows, scan.right_total, scan.wrong_total, len(scan.items), sorted(scan.by_method))
    (2, 1, 1, 2, ['bare', 'none'])
    """

    def __init__(
        self,
        options: Mapping[str, Any] | None = None,
        limits: DrilldownLimits | None = None,
        view: ItemView | None = None,
    ) -> None:
        #: How a task's records become items (a task whose records have no top-level
        #: ``correct`` gives one: see :func:`item_view`); None reads them as they are.
        self.view = view if view is not None else item_view((options or {}).get("task"))
        self.keys = dict(_VIEW_KEYS) if self.view is not None else _keys(options)
        self.limits = limits or DrilldownLimits()
        self.scan = _Scan()
        self._counts: Counter[tuple[Any, Any, bool]] = Counter()
        self._line = 0  # lines of evaluated.jsonl seen

    def add_file(self, path: str | Path) -> None:
        """Count every line of *path* (an evaluated.jsonl, or the part a resumed run keeps)."""
        with Path(path).open("rb") as f:
            for line in f:
                self._line += 1
                if line.strip():
                    self._add_row(self._line, _load_row(line))

    def add_lines(self, lines: Sequence[bytes], verdicts: Sequence[LineVerdict | None] | None = None) -> None:
        """Count the next evaluated *lines* (no newlines). Where ``verdicts[k]`` is given, line
        *k* is a single-response row with that verdict: it is parsed only when listed as an item."""
        scan, counts, limits = self.scan, self._counts, self.limits
        first = self._line + 1
        self._line += len(lines)
        if verdicts is not None and None not in verdicts:
            # Every line's verdict known: counted at C speed, lines read only while items are
            # still listed.
            known = cast("Sequence[LineVerdict]", verdicts)
            scan.rows += len(lines)
            counts.update(known)
            if scan.right_shown >= limits.max_right and scan.wrong_shown >= limits.max_wrong:
                return
            for k, line in enumerate(lines):
                self._list(first + k, line, known[k][2])
            return
        for k, line in enumerate(lines):
            verdict = verdicts[k] if verdicts is not None else None
            if verdict is None:
                self._add_row(first + k, _load_row(line))
                continue
            scan.rows += 1
            counts[verdict] += 1
            self._list(first + k, line, verdict[2])

    def _list(self, number: int, line: bytes, ok: bool) -> None:
        """Lists the single-response *line* (line *number*) as an item while items of its
        verdict are still listed; the line is parsed only then."""
        if self.scan.take(ok, self.limits):
            row = _load_row(line)
            if row is not None:
                _add_item(self.scan, row, number, self.keys, self.limits, None)

    def _add_row(self, line: int, row: dict[str, Any] | None) -> None:
        scan, counts, limits = self.scan, self._counts, self.limits
        scan.rows += 1
        if row is not None and self.view is not None:
            row = self.view(row)
        if row is None or "correct" not in row:
            return
        correct = row["correct"]
        if not isinstance(correct, list):
            ok = correct is True
            counts[(row.get("method"), row.get("decided_by"), ok)] += 1
            if scan.take(ok, limits):
                _add_item(scan, row, line, self.keys, limits, None)
            return
        n = len(correct)
        if not n:
            return
        c = sum(1 for v in correct if v is True)
        scan.samples[(n, c)] += 1
        methods = _as_list(row.get("method"), n)
        deciders = _as_list(row.get("decided_by"), n)
        for i in range(n):
            ok = correct[i] is True
            counts[(methods[i], deciders[i], ok)] += 1
            if scan.take(ok, limits):
                _add_item(scan, row, line, self.keys, limits, i)

    def finish(self) -> _Scan:
        """The collected scan, its tallies by method and by deciding path made."""
        scan = self.scan
        scan.by_method, scan.by_decider = {}, {}
        scan.items_total = scan.right_total = scan.wrong_total = 0
        for (method, decider, ok), count in self._counts.items():
            method_name = "none" if method is None else str(method)
            decider_name = "none" if decider is None else str(decider)
            for table, key in ((scan.by_method, method_name), (scan.by_decider, decider_name)):
                tally = table.setdefault(key, _Tally())
                tally.total += count
                tally.correct += count if ok else 0
            scan.items_total += count
            if ok:
                scan.right_total += count
            else:
                scan.wrong_total += count
        return scan


def _add_item(
    scan: _Scan, row: Mapping[str, Any], line: int, keys: Mapping[str, str], limits: DrilldownLimits, i: int | None
) -> None:
    """Append the item of *row* (sample *i* of a list row, or the row's single response)."""

    def pick(key: str) -> Any:
        value = row.get(key)
        if i is None:
            return value
        return value[i] if isinstance(value, list) and i < len(value) else None

    label = row.get(keys["id_key"])
    if label is None:
        label = f"line {row.get('_line', line)}"
    item_id = _cap(label, 120) if i is None else f"{_cap(label, 120)} #{i}"
    ok = pick("correct") is True
    decider, method, extracted = pick("decided_by"), pick("method"), pick("extracted")
    text = pick(keys["response_key"])
    got = extracted if isinstance(extracted, str) else None
    before, answer, after = excerpt(text, got, width=limits.excerpt_width) if isinstance(text, str) else ("", "", "")
    scan.items.append(
        [
            line,
            item_id,
            _cap(row.get(keys["gold_key"], row.get("_raw"))),
            1 if ok else 0,
            "none" if decider is None else str(decider),
            "none" if method is None else str(method),
            _cap(extracted),
            _cap(pick("reason")),
            before,
            answer,
            after,
        ]
    )


def _keys(options: Mapping[str, Any] | None) -> dict[str, str]:
    keys = {"id_key": "id", "gold_key": "gold", "response_key": "response"}
    for k in keys:
        value = (options or {}).get(k)
        if isinstance(value, str) and value:
            keys[k] = value
    return keys


def _json_for_script(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: every ``<``, ``>`` and ``&`` escaped, and lone
    surrogates (from JSON escapes in the input) replaced."""
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _accuracy_items(table: Mapping[str, _Tally], colors: Mapping[str, str]) -> list[tuple[str, float, str]]:
    ordered = sorted(table.items(), key=lambda kv: (-kv[1].total, kv[0]))
    return [
        (f"{name} (n={t.total:,})", t.correct / t.total if t.total else 0.0, colors.get(name, "#3b6fb6"))
        for name, t in ordered
    ]


def render_drilldown(
    out_dir: str | Path,
    *,
    options: Mapping[str, Any] | None = None,
    limits: DrilldownLimits | None = None,
    drilldown: Drilldown | None = None,
    metrics: Mapping[str, Any] | None = None,
) -> str:
    """The drill-down section of a finished job in *out_dir* (HTML with inline JavaScript).

    Accuracy by extraction method and by deciding path, the pass@k curve when responses are
    lists, the run's *options* (``id_key``, ``gold_key`` and ``response_key`` among them say
    which fields hold the row id, the input gold and the response), and the items (one per
    sample) within *limits*, filterable by verdict, deciding path, method and a text search.
    Rows without a ``correct`` field (a task that scores records, not items) are counted only.
    They come from *drilldown* when the job collected them as it wrote its lines (its limits
    then apply), else from reading ``evaluated.jsonl`` once, streaming.

    The pass@k curve plots the job's ``pass_at_k`` (*metrics*, else *out_dir*'s
    ``metrics.json``): the figures of the summary and the cards. Without them it is computed
    from the items with the same function (:func:`~rapidgrade.metrics.pass_at_k_curve`).
    A task whose records have no top-level ``correct`` (absa, fredholm) lists them through its
    :func:`item_view`, named by the ``task`` option.
    """
    if drilldown is None:
        drilldown = Drilldown(options, limits)
        drilldown.add_file(Path(out_dir) / "evaluated.jsonl")
    limits = drilldown.limits
    scan = drilldown.finish()
    parts = [DRILLDOWN_START, '<section id="rg-drilldown">']

    if scan.by_method:
        parts.append("<h2>Accuracy by extraction method</h2>")
        parts.append(bar_chart("accuracy by method", _accuracy_items(scan.by_method, {}), max_value=1.0, percent=True))
        parts.append("<h2>Accuracy by deciding path</h2>")
        parts.append(
            bar_chart(
                "accuracy by deciding path",
                _accuracy_items(scan.by_decider, _DECIDER_COLORS),
                max_value=1.0,
                percent=True,
            )
        )
    curve = _pass_at_k_of(out_dir, metrics, scan)
    if curve:
        points = sorted((float(k), float(v)) for k, v in curve.items())
        parts.append('<h2 id="rg-passk">pass@k</h2>')
        parts.append(
            '<p class="note">Unbiased estimate 1 − C(n−c, k)/C(n, k) per problem with n samples of which '
            "c are correct, averaged over every problem, for k up to the fewest samples a problem has "
            "(the same figures as the summary and metrics.json).</p>"
        )
        parts.append(line_chart("pass@k curve", points, x_label="k (samples)", y_label="pass@k"))

    parts.append('<h2 id="rg-options">Run options</h2>')
    if options:
        rows = [[k, _cap(v)] for k, v in sorted(options.items())]
        parts.append(table_html(("option", "value"), rows, code_columns=(1,)))
    else:
        parts.append('<p class="note">Not recorded with this report.</p>')

    parts.append(f'<h2 id="rg-items-title">Items ({scan.items_total:,})</h2>')
    if not scan.items_total:
        parts.append(
            f'<p class="note">{scan.rows:,} rows, none with a per-item verdict (<code>correct</code>): '
            "see the task's summary above and evaluated.jsonl.</p>"
        )
        parts += ["</section>", DRILLDOWN_END]
        return "\n".join(parts)
    hidden_wrong = scan.wrong_total - scan.wrong_shown
    hidden_right = scan.right_total - scan.right_shown
    bound = (
        f"This page holds {len(scan.items):,} of the run's {scan.items_total:,} items "
        f"({scan.rows:,} rows): the wrong ones (incorrect, timed out or in error) up to "
        f"{limits.max_wrong:,} — {scan.wrong_shown:,} of {scan.wrong_total:,} shown"
        + (f", {hidden_wrong:,} not shown" if hidden_wrong else "")
        + f" — and the first {limits.max_right:,} correct ones ({scan.right_shown:,} of {scan.right_total:,}"
        + (f", {hidden_right:,} not shown" if hidden_right else "")
        + f"). Responses are cut to {limits.excerpt_width} characters either side of the extracted answer. "
        "evaluated.jsonl (line numbers below) holds every row in full."
    )
    parts.append(f'<p class="note" id="rg-bound">{html.escape(bound)}</p>')
    deciders = sorted(scan.by_decider)
    methods = sorted(scan.by_method)
    parts.append(
        '<div class="filters">'
        '<label><input type="checkbox" id="rg-wrong"> wrong only</label>'
        '<label>decided by <select id="rg-decider"><option value="">all</option>'
        + "".join(f'<option value="{html.escape(d)}">{html.escape(d)}</option>' for d in deciders)
        + '</select></label><label>method <select id="rg-method"><option value="">all</option>'
        + "".join(f'<option value="{html.escape(m)}">{html.escape(m)}</option>' for m in methods)
        + '</select></label><input type="search" id="rg-search" placeholder="search id, gold, answer, response">'
        '<span id="rg-count" class="note"></span></div>'
    )
    parts.append(
        '<table id="rg-items"><thead><tr><th>line</th><th>id</th><th>gold (input)</th><th>extracted</th>'
        "<th>correct</th><th>decided by</th><th>method</th></tr></thead><tbody></tbody></table>"
        '<button id="rg-more" type="button">show more</button>'
    )
    parts.append(f'<script type="application/json" id="rg-data">{_json_for_script(scan.items)}</script>')
    parts.append(f"<script>{_JS}</script>")
    parts += ["</section>", DRILLDOWN_END]
    return "\n".join(parts)


def _pass_at_k_of(out_dir: str | Path, metrics: Mapping[str, Any] | None, scan: _Scan) -> dict[str, float]:
    """The job's pass@k: from *metrics*, else *out_dir*'s metrics.json, else from *scan*."""
    if metrics is None:
        path = Path(out_dir) / "metrics.json"
        try:
            loaded = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
        except (OSError, ValueError):
            loaded = None
        metrics = loaded if isinstance(loaded, dict) else None
    if metrics is not None and isinstance(metrics.get("pass_at_k"), dict):
        return {str(k): float(v) for k, v in metrics["pass_at_k"].items()}
    return pass_at_k_curve(scan.samples)


def item_view(task: object) -> ItemView | None:
    """The drill-down view of the records of *task* (a built-in task's name): the task's
    ``report_item`` when it is an :class:`~rapidgrade.tasks.ItemViewer` (its records carry no
    top-level ``correct``); None for any other task or name."""
    from rapidgrade.tasks._base import BUILTIN_TASKS, ItemViewer, get_task

    if not isinstance(task, str) or task not in BUILTIN_TASKS:
        return None
    found = get_task(task)
    return found.report_item if isinstance(found, ItemViewer) else None


# The table's behaviour: filter, search, page by 100, click a row for its excerpt and reason; the
# filters live in the address's fragment (#wrong=1&decided_by=fast&method=boxed&q=text), so a view
# can be linked to; open=LINE opens the (first) item of that line of evaluated.jsonl, paging on to it,
# marks it and scrolls it (and its detail) into view, no further than needed (or says why it is not
# there).
# Item fields: 0 line, 1 id, 2 gold, 3 correct, 4 decided_by, 5 method, 6 extracted, 7 reason,
# 8-10 excerpt (before, answer, after).
_JS = """(function(){
var items=JSON.parse(document.getElementById('rg-data').textContent);
var body=document.querySelector('#rg-items tbody'),more=document.getElementById('rg-more');
var wrong=document.getElementById('rg-wrong'),dec=document.getElementById('rg-decider'),
meth=document.getElementById('rg-method'),search=document.getElementById('rg-search'),
count=document.getElementById('rg-count');var shown=0,matches=[],PAGE=100,openLine='';
function cell(tr,text,cls){var td=document.createElement('td');td.textContent=text==null?'':String(text);
if(cls)td.className=cls;tr.appendChild(td);return td;}
function detail(tr,it){var next=tr.nextSibling;if(next&&next.classList.contains('detail')){next.remove();return;}
var d=document.createElement('tr');d.className='detail';var td=document.createElement('td');td.colSpan=7;
var r=document.createElement('div');r.className='note';
r.textContent='reason: '+(it[7]==null?'':it[7]);td.appendChild(r);
var ex=document.createElement('div');ex.className='excerpt';ex.appendChild(document.createTextNode(it[8]));
var m=document.createElement('mark');m.textContent=it[9];ex.appendChild(m);
ex.appendChild(document.createTextNode(it[10]));td.appendChild(ex);d.appendChild(td);tr.after(d);}
function row(it){var tr=document.createElement('tr');tr.className='item';tr.dataset.line=it[0];
cell(tr,it[0]);cell(tr,it[1]);cell(tr,it[2],'code');cell(tr,it[6],'code');
cell(tr,it[3]?'yes':'no',it[3]?'ok':'bad');cell(tr,it[4]);cell(tr,it[5]);
tr.addEventListener('click',function(){detail(tr,it);});return tr;}
function page(){var stop=Math.min(matches.length,shown+PAGE);
for(var i=shown;i<stop;i++)body.appendChild(row(matches[i]));
shown=stop;more.style.display=shown<matches.length?'':'none';
count.textContent=matches.length+' of '+items.length+' items match';}
function apply(){var q=search.value.trim().toLowerCase();matches=items.filter(function(it){
if(wrong.checked&&it[3])return false;if(dec.value&&it[4]!==dec.value)return false;
if(meth.value&&it[5]!==meth.value)return false;if(!q)return true;
return [it[1],it[2],it[6],it[7],it[8]+it[9]+it[10]].some(function(s){
return s!=null&&String(s).toLowerCase().indexOf(q)>=0;});});
body.textContent='';shown=0;page();}
function save(){var h=[];if(wrong.checked)h.push('wrong=1');
if(dec.value)h.push('decided_by='+encodeURIComponent(dec.value));if(meth.value)h.push('method='+encodeURIComponent(meth.value));if(search.value)h.push('q='+encodeURIComponent(search.value));
history.replaceState(null,'',h.length?'#'+h.join('&'):location.pathname+location.search);}
function load(){location.hash.replace(/^#/,'').split('&').forEach(function(kv){
var p=kv.split('='),v=decodeURIComponent(p[1]||'');
if(p[0]==='wrong')wrong.checked=v==='1';if(p[0]==='decided_by')dec.value=v;if(p[0]==='method')meth.value=v;
if(p[0]==='q')search.value=v;if(p[0]==='open')openLine=v;});}
function changed(){apply();save();}
function reveal(){var at=-1;for(var i=0;i<matches.length;i++){if(String(matches[i][0])===openLine){at=i;break;}}
if(at<0){var listed=items.some(function(it){return String(it[0])===openLine;});
count.textContent+=listed?' (line '+openLine+' does not match these filters)':
' (line '+openLine+' is not on this page: see evaluated.jsonl)';return;}
while(shown<=at)page();var tr=body.querySelector('tr.item[data-line="'+openLine+'"]');if(!tr)return;
if(!(tr.nextSibling&&tr.nextSibling.classList.contains('detail')))tr.click();tr.classList.add('linked');
tr.nextSibling.scrollIntoView({block:'nearest'});tr.scrollIntoView({block:'nearest'});}
[wrong,dec,meth].forEach(function(e){e.addEventListener('change',changed);});
search.addEventListener('input',changed);more.addEventListener('click',page);load();apply();
if(openLine)reveal();})();"""


def add_drilldown(
    out_dir: str | Path,
    *,
    options: Mapping[str, Any] | None = None,
    limits: DrilldownLimits | None = None,
    title: str = "rapidgrade report",
) -> Path:
    """Add the drill-down of *out_dir*'s run to its ``report.html`` (replacing one added before),
    or write a page holding only the drill-down when there is no report; returns the page's path.
    """
    out = Path(out_dir)
    page = out / "report.html"
    section = render_drilldown(out, options=options, limits=limits)
    if page.exists():
        text = page.read_text(encoding="utf-8")
        if DRILLDOWN_START in text and DRILLDOWN_END in text:
            head, rest = text.split(DRILLDOWN_START, 1)
            text = head + section + rest.split(DRILLDOWN_END, 1)[1]
        else:
            text = text.replace("</body>", section + "\n</body>", 1)
        if ".excerpt{" not in text:
            text = text.replace("</style>", _CSS + "</style>", 1)
    else:
        text = render_page(section, title=title, inputs=[str(out / "evaluated.jsonl")])
    page.write_text(text, encoding="utf-8", errors="backslashreplace")
    return page


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m rapidgrade.report OUT_DIR [--option KEY=VALUE ...]``: add the drill-down to a
    finished job's report."""
    parser = argparse.ArgumentParser(
        prog="python -m rapidgrade.report", description="Add the per-item drill-down to a scoring job's report.html."
    )
    parser.add_argument("out_dir", help="the job's output directory (holds evaluated.jsonl)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a run option to show (repeatable); id_key, gold_key and response_key name the row's fields",
    )
    parser.add_argument("--max-wrong", type=int, default=_MAX_WRONG)
    parser.add_argument("--max-right", type=int, default=_MAX_RIGHT)
    args = parser.parse_args(argv)
    options: dict[str, str] = {}
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--option wants KEY=VALUE, got {item!r}")
        options[key] = value
    if not (Path(args.out_dir) / "evaluated.jsonl").is_file():
        parser.error(f"no evaluated.jsonl in {args.out_dir}")
    page = add_drilldown(
        args.out_dir,
        options=options or None,
        limits=DrilldownLimits(max_wrong=args.max_wrong, max_right=args.max_right),
    )
    print(f"report: {page}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
