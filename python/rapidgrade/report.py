"""``report.html``: a self-contained page (no network, no scripts) summarizing a scoring job."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from rapidgrade.metrics import Metrics

__all__ = ["render_report"]

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:1100px;color:#1d2330;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #dde;padding-bottom:.3rem}
.sub{color:#667;margin-top:0}
.cards{display:flex;flex-wrap:wrap;gap:.8rem;margin:1rem 0}
.card{background:#f4f6fb;border-radius:8px;padding:.7rem 1rem;min-width:130px}
.card .v{font-size:1.4rem;font-weight:600}.card .k{color:#667;font-size:.85rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}
th,td{border-bottom:1px solid #e4e6ee;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f6fb}td.code{font-family:ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
svg text{font-size:12px;fill:#1d2330}
"""

_COLORS = {"fast": "#2f7d4f", "sympy": "#3b6fb6", "math_verify": "#8a5cc2", "timeout": "#d08a1c", "error": "#c23b3b"}


def _fmt(x: float) -> str:
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
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{width:.1f}" height="{row_h - 8}" rx="3" fill="{color}"/>')
        parts.append(f'<text x="{label_w + width + 6:.1f}" y="{y + 16}">{text}</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_report(metrics: Metrics, notable: Sequence[Mapping[str, Any]], *, title: str, inputs: Sequence[str]) -> str:
    """The HTML page for *metrics*, with a table of the *notable* rows (disagreements with a
    reference verdict, timeouts, errors). Every value is escaped."""
    m = metrics
    cards = [
        ("rows", f"{m.rows:,}"),
        ("pairs graded", f"{m.total:,}"),
        ("correct", f"{m.correct:,}"),
        ("accuracy", f"{100 * m.accuracy:.2f}%"),
        ("pairs/s", _fmt(m.pairs_per_s)),
        ("timeouts", f"{m.timeouts:,}"),
        ("errors", f"{m.errors:,}"),
    ]
    if m.majority_accuracy is not None:
        cards.append(("majority vote", f"{100 * m.majority_accuracy:.2f}%"))
    for k, v in m.pass_at_k.items():
        cards.append((f"pass@{k}", f"{100 * v:.2f}%"))
    if m.reference is not None:
        cards.append(("agreement with reference", f"{100 * m.reference['agreement']:.2f}%"))
    body = [f"<h1>{html.escape(title)}</h1>", f'<p class="sub">inputs: {html.escape(", ".join(inputs))}</p>', '<div class="cards">']
    body += [f'<div class="card"><div class="v">{html.escape(v)}</div><div class="k">{html.escape(k)}</div></div>' for k, v in cards]
    body.append("</div>")

    body.append("<h2>Who decided</h2>")
    deciders = [(name, float(count), _COLORS.get(name, "#777")) for name, count in m.decided_by.items() if count]
    body.append(_bar_chart("verdicts by deciding path", deciders, max_value=max((c for _, c, _ in deciders), default=0), percent=False))

    for key, values in m.groups.items():
        body.append(f"<h2>Accuracy by {html.escape(key)}</h2>")
        items = [(f"{name} (n={int(v['total'])})", float(v["accuracy"]), "#3b6fb6") for name, v in values.items()]
        body.append(_bar_chart(f"accuracy by {key}", items, max_value=1.0, percent=True))

    body.append(f"<h2>Disagreements, timeouts and errors ({len(notable)} shown)</h2>")
    if notable:
        body.append("<table><thead><tr><th>kind</th><th>row</th><th>gold</th><th>extracted</th><th>correct</th><th>reference</th><th>decided by</th><th>reason</th></tr></thead><tbody>")
        for n in notable:
            cells = [n.get("kind", ""), n.get("row", ""), n.get("gold"), n.get("extracted"), n.get("correct"), n.get("reference"), n.get("decided_by"), n.get("reason", "")]
            body.append("<tr>" + "".join(f'<td class="{"code" if i in (2, 3) else ""}">{html.escape("" if c is None else str(c))}</td>' for i, c in enumerate(cells)) + "</tr>")
        body.append("</tbody></table>")
    else:
        body.append("<p>None.</p>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )
