"""Results as HTML tables, so notebooks (Jupyter's ``_repr_html_``) and exported pages show them."""

from __future__ import annotations

import html
from collections.abc import Sequence

_STYLE = (
    "border-collapse:collapse;font-family:system-ui,sans-serif;font-size:13px;"
    "font-variant-numeric:tabular-nums"
)
_CELL = "padding:2px 10px;border-bottom:1px solid #ddd;"
_HEAD = "font-family:system-ui,sans-serif;font-size:13px;margin:0 0 2px 0;max-width:60em;"


def table_html(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool] = (),
    caption: str = "",
    note: str = "",
) -> str:
    """A self-contained ``<table>``: escaped cells, numeric columns (``right``) aligned right.

    ``caption`` heads it in bold and ``note`` (a rule, a threshold) follows in plain text, both as
    wide as the page rather than squeezed to a narrow table's width. Cells are text, never markup,
    so a token such as ``<script>`` shows as itself.
    """
    aligns = [("right" if i < len(right) and right[i] else "left") for i in range(len(headers))]

    def cell(tag: str, text: str, align: str) -> str:
        return f'<{tag} style="{_CELL}text-align:{align}">{html.escape(str(text))}</{tag}>'

    parts = ['<div class="tokviz-result" style="margin:0 0 12px 0">']
    if caption:
        parts.append(f'<div style="{_HEAD}font-weight:600">{html.escape(caption)}</div>')
    if note:
        parts.append(f'<div style="{_HEAD}color:#555">{html.escape(note)}</div>')
    parts.append(f'<table class="tokviz-table" style="{_STYLE}">')
    parts.append("<thead><tr>" + "".join(cell("th", h, a) for h, a in zip(headers, aligns)) + "</tr></thead>")
    parts.append("<tbody>")
    for row in rows:
        parts.append("<tr>" + "".join(cell("td", c, a) for c, a in zip(row, aligns)) + "</tr>")
    parts.append("</tbody></table></div>")
    return "".join(parts)
