"""``report.html``: a self-contained page (no network, no scripts) summarizing a scoring job.

The frame (:func:`render_page`: title, inputs, style) is shared by every task; a task renders
its own part with the building blocks here (:func:`cards_html`, :func:`bar_chart`,
:func:`table_html`)."""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rapidgrade.metrics import Metrics

__all__ = ["bar_chart", "cards_html", "fmt_number", "render_page", "render_report", "table_html"]

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
    parts = [f'<svg role="img" aria-label="{html.escape(title)}" width="{label_w + bar_w + 90}" height="{height}" xmlns="http://www.w3.org/2000/svg">']
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


def render_page(body: str, *, title: str, inputs: Sequence[str]) -> str:
    """The report frame: a self-contained page with *title*, the list of *inputs* and a task's
    *body* (HTML)."""
    parts = [f"<h1>{html.escape(title)}</h1>", f'<p class="sub">inputs: {html.escape(", ".join(inputs))}</p>', body]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(parts)
        + "\n</body></html>\n"
    )


def render_report(metrics: Metrics, notable: Sequence[Mapping[str, Any]], *, title: str, inputs: Sequence[str]) -> str:
    """The whole page of a math job: :func:`render_page` around the math task's part
    (:func:`rapidgrade.tasks.math.render_math_report`). Every value is escaped."""
    from rapidgrade.tasks.math import render_math_report

    return render_page(render_math_report(metrics, notable), title=title, inputs=inputs)
