"""The timeline plot's lines: their colours, and a legend that names them.

The plot draws its lines in these colours; the legend over a plot too short for its axis titles and
the exported sheet's legend both come from :func:`legend_html`, so they name the same lines.
"""

from __future__ import annotations

TEXT_COLOR = "#2f6fb3"
RATIO_COLOR = "#e8590c"
CORPUS_COLOR = "#2b8a3e"
CURSOR_COLOR = "#d9480f"


def legend_entries(text: bool, corpus: bool, short: bool = False) -> list[tuple[str, str, bool]]:
    """(colour, what it is, dashed) for each line drawn: the text's curves when ``text``, the
    corpus's when ``corpus``, and the step cursor; ``short`` names for one line over the plot."""
    entries = []
    if text:
        entries.append((TEXT_COLOR, "text tokens" if short else "tokens of the text (left axis)", False))
        entries.append(
            (RATIO_COLOR, "bytes/token" if short else "bytes per token of the text (right axis)", True)
        )
    if corpus:
        entries.append((CORPUS_COLOR, "corpus tokens" if short else "tokens of the training corpus", False))
    if entries:
        entries.append((CURSOR_COLOR, "step" if short else "the step shown", False))
    return entries


def legend_html(text: bool, corpus: bool, short: bool = False) -> str:
    """The legend as rich text: a swatch per line (dashed for a dashed line) and what it shows."""
    return "&nbsp;&nbsp; ".join(
        f"<span style='white-space:nowrap'><span style='color:{color};'><b>{'╌' if dashed else '━'}"
        f"</b></span>&nbsp;{label}</span>"
        for color, label, dashed in legend_entries(text, corpus, short)
    )
