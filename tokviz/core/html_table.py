"""Results as HTML tables, so notebooks (Jupyter's ``_repr_html_``) and exported pages show them."""

from __future__ import annotations

import html
from collections.abc import Sequence

_STYLE = (
    "border-collapse:collapse;font-family:system-ui,sans-serif;font-size:13px;"
    "font-variant-numeric:tabular-nums"
)
_CELL = "padding:2px 10px;border-bottom:1px solid #ddd;"


def table_html(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool] = (),
    caption: str = "",
) -> str:
    """A self-contained ``<table>``: escaped cells, numeric columns (``right``) aligned right.

    Cells are text, never markup, so a token such as ``<script>`` shows as itself.
    """
    aligns = [("right" if i < len(right) and right[i] else "left") for i in range(len(headers))]

    def cell(tag: str, text: str, align: str) -> str:
        return f'<{tag} style="{_CELL}text-align:{align}">{html.escape(str(text))}</{tag}>'

    parts = [f'<table class="tokviz-table" style="{_STYLE}">']
    if caption:
        parts.append(f'<caption style="text-align:left;font-weight:600">{html.escape(caption)}</caption>')
    parts.append("<thead><tr>" + "".join(cell("th", h, a) for h, a in zip(headers, aligns)) + "</tr></thead>")
    parts.append("<tbody>")
    for row in rows:
        parts.append("<tr>" + "".join(cell("td", c, a) for c, a in zip(row, aligns)) + "</tr>")
    parts.append("</tbody></table>")
    return "".join(parts)
