"""The words of the exchange-rate chart: title, caption, legend, bar labels and hover descriptions.

Every number comes from the :class:`~tokviz.core.analysis.exchange.ExchangeTable`; these functions only
phrase it, as the rich text that Qt labels and pyqtgraph text items show.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence

from PySide6.QtGui import QColor

from tokviz.core.analysis.exchange import (
    ExchangeTable,
    attention_caption,
    caption,
    embedding_caption,
    format_factor,
)
from tokviz.core.analysis.metrics import TextMetrics
from tokviz.gui.drawing.chart_style import EDITOR_LABEL, ChartStyle, byte_color

EMPTY_HINT = "Nothing to measure yet: type some text, or add a sample or a file"
MEASURING_HINT = "Measuring…"


def esc(text: str) -> str:
    """``text`` safe inside rich text."""
    return html.escape(text, quote=False)


def fmt_bpt(value: float | None) -> str:
    """Bytes per token with two decimals, or a dash when there is none."""
    return "–" if value is None else f"{value:.2f}"


def title_text(view: str, embedding_dim: int) -> str:
    """The title of ``view`` (rich text)."""
    if view == "bytes":
        return "Bytes per token: how much text one token carries (higher is cheaper)"
    if view == "attention":
        return "Attention cost against the best tokenizer for each input, (n / n<sub>best</sub>)²"
    return f"Vocabulary size: embedding parameters V × d (d = {embedding_dim:,}) against bytes per token"


def caption_text(table: ExchangeTable | None, view: str, embedding_dim: int) -> str:
    """The one-paragraph summary under the plot."""
    if table is None:
        return "Measuring…"
    if view == "attention":
        return esc(attention_caption(table))
    if view == "vocab":
        return esc(embedding_caption(table, embedding_dim))
    return esc(caption(table, scratch=(EDITOR_LABEL,)))


def _swatch(color: QColor, label: str, line: bool = False) -> str:
    if line:
        box = f"<span style='color:{color.name()};'><b>━━</b></span>"
    else:
        box = f"<span style='background:{color.name()};'>&nbsp;&nbsp;&nbsp;&nbsp;</span>"
    return f"<span style='white-space:nowrap'>{box}&nbsp;{label}</span>"


def legend_html(
    table: ExchangeTable | None,
    view: str,
    style: ChartStyle,
    columns: Sequence[int],
    color_of: Callable[[int], QColor],
) -> str:
    """A swatch per tokenizer drawn (``columns``, in the colours ``color_of`` gives) and the reference lines."""
    if table is None or not table.tokenizers:
        return ""
    parts = []
    if view == "bytes":
        parts.append(_swatch(byte_color(style.dark), "bytes (1.0: the floor)", line=True))
    for j in columns:
        label = esc(table.tokenizers[j])
        if view == "vocab" and table.vocab_sizes[j] is None:
            continue
        parts.append(_swatch(color_of(j), label))
    if view == "attention":
        parts.append(_swatch(style.muted, "1× = the best tokenizer for that input", line=True))
    if view in ("bytes", "attention") and any(
        table.metric(i, j).lossy for i in range(len(table.inputs)) for j in columns
    ):
        # The hatched bars' key: it stays when the bars are too narrow for their "lossy" labels.
        hatch = f"<span style='color:{style.foreground.name()};'>▨</span>"
        parts.append(
            f"<span style='white-space:nowrap'>{hatch}&nbsp;lossy: text lost to &lt;unk&gt; or a normalizer</span>"
        )
    return "&nbsp;&nbsp;&nbsp; ".join(parts)


def bar_label_texts(
    table: ExchangeTable, view: str, i: int, j: int, clipped: bool = False
) -> tuple[str, str]:
    """A bar's value label, in full and in short (for narrow bars), as lines joined by <br>; a bar cut
    short of its height (``clipped``) says so with an arrow after its value."""
    arrow = "↑" if clipped else ""
    if view == "bytes":
        value = table.bytes_per_token(i, j) or 0.0
        if table.metric(i, j).lossy:  # text lost: the rate is not a real saving
            return f"{value:.2f}{arrow}<br>lossy", f"{value:.1f}*{arrow}"
        return f"{value:.2f}{arrow}", f"{value:.1f}{arrow}"
    multiplier = format_factor(table.attention(i, j) or 1.0)
    return f"×{multiplier}{arrow}<br>{table.tokens(i, j):,}", f"×{multiplier}{arrow}"


def describe_bar(table: ExchangeTable, i: int, j: int) -> str:
    """The exact numbers of tokenizer ``j`` on input ``i``, as HTML."""
    m: TextMetrics = table.metric(i, j)
    best = table.best(i)
    best_names = ", ".join(table.tokenizers[b] for b in best)
    multiplier = table.attention(i, j)
    lines = [
        f"<b>{esc(table.tokenizers[j])}</b> on <b>{esc(table.inputs[i])}</b>",
        f"{m.bytes:,} bytes ({m.code_points:,} code points) → {m.tokens:,} tokens",
        f"<b>{fmt_bpt(m.bytes_per_token)} bytes per token</b>",
    ]
    if m.unknown:
        lines.append(
            f"<b>lossy:</b> {m.unknown:,} of the {m.tokens:,} tokens are &lt;unk&gt; (text it cannot "
            "represent), so fewer tokens here is not a better rate (hatched bar)"
        )
    elif m.lossy:
        lines.append(
            "<b>lossy:</b> its tokens do not decode back to the text (a normalizer changed it: case, "
            "compatibility forms, spaces), so fewer tokens here is not a better rate (hatched bar)"
        )
    if multiplier is not None:
        if j in best:
            lines.append(f"attention cost ×1 (fewest tokens, {table.fewest_tokens(i):,})")
        else:
            lines.append(
                f"attention cost ×{multiplier:.2f} = ({m.tokens:,} / {table.fewest_tokens(i):,})² "
                f"against {esc(best_names)}"
            )
    return "<br>".join(lines)


def describe_point(table: ExchangeTable, j: int, embedding_dim: int) -> str:
    """The exact numbers of tokenizer ``j`` in the vocabulary view, as HTML."""
    size = table.vocab_sizes[j]
    d = embedding_dim
    bpt = table.overall_bytes_per_token(j)
    lines = [f"<b>{esc(table.tokenizers[j])}</b>"]
    if size is not None:
        lines.append(f"V = {size:,} entries")
        lines.append(f"V × d = {size:,} × {d:,} = {size * d:,} parameters")
    lines.append(f"{fmt_bpt(bpt)} bytes per token over all inputs")
    return "<br>".join(lines)
