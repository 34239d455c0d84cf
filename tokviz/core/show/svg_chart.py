"""Small charts as inline SVG, so results display as plots in a notebook and in pages without Qt.

Two shapes cover the results: lines over a numeric x (a sweep over vocabulary sizes) and grouped
horizontal bars over categories (parity across languages). Text is escaped; sizes are fixed
pixels that a browser scales; colours are a categorical palette that stays distinct for 8 series.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence

SERIES_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#555555", "#8C6D1F")
"""Okabe and Ito's colour-blind-safe palette (its yellow swapped for two darker tones)."""

_FONT = 'font-family="system-ui,DejaVu Sans,sans-serif"'


def _esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round tick values from at or below ``lo`` to at or above ``hi`` (steps of 1, 2 or 5 times a power of ten)."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else [0.0]
    raw = (hi - lo) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(lo / step) * step
    ticks = [round(first, 10)]
    while ticks[-1] < hi - step * 1e-9:
        ticks.append(round(first + len(ticks) * step, 10))
    return ticks


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2 and 5 times each power of ten from ``lo`` to ``hi`` (both positive), for a log axis."""
    ticks: list[float] = []
    for power in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        ticks.extend(m * 10.0**power for m in (1, 2, 5) if lo <= m * 10.0**power <= hi)
    return ticks


def _short_label(value: float) -> str:
    """A log axis's tick: 500, 1K, 20K, 1M."""
    for size, suffix in ((1e6, "M"), (1e3, "K")):
        if value >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:g}"


def _x_axis(
    lo: float, hi: float, log_x: bool
) -> tuple[list[float], Callable[[float], str], Callable[[float], float], float, float]:
    """An x axis over ``lo``-``hi``: its ticks, their labels, the scale and the ends it spans."""
    if log_x:
        return log_ticks(lo, hi), _short_label, math.log10, lo, hi
    ticks = nice_ticks(lo, hi)
    # The axis ends at the last point, not at the next round tick past it.
    return ticks, _tick_label, float, ticks[0], hi if hi > ticks[0] else ticks[0] + 1


def _tick_label(value: float) -> str:
    if abs(value) >= 10_000:
        return f"{value:,.0f}"
    return f"{value:g}"


def line_chart_svg(
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    title: str = "",
    x_label: str = "",
    y_label: str = "",
    marks: Mapping[str, tuple[float, float]] | None = None,
    width: int = 640,
    height: int = 320,
    label_marks: bool = True,
    log_x: bool = False,
) -> str:
    """Lines, one per series, on shared axes; ``marks`` puts a dot at named points (a knee), labelled
    beside it unless ``label_marks`` is False (the legend names them when they would crowd).
    ``log_x`` spaces x by its logarithm (points at x <= 0 are left out)."""

    def drawn(p: tuple[float, float]) -> bool:
        return math.isfinite(p[0]) and math.isfinite(p[1]) and (p[0] > 0 or not log_x)

    points = [p for pts in series.values() for p in pts if drawn(p)]
    # The legend's column is as wide as its longest name (about 7 px a character at 12 px).
    right = max(150, 44 + 7 * max((len(str(name)) for name in series), default=0))
    left, top, bottom = 64, 30 if title else 12, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" {_FONT} font-size="12">'
    ]
    if title:
        out.append(f'<text x="{left}" y="18" font-weight="600" font-size="13">{_esc(title)}</text>')
    if not points:
        out.append(f'<text x="{left}" y="{top + 20}" fill="#555">nothing to plot</text></svg>')
        return "".join(out)
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)
    yt = nice_ticks(0.0 if y0 >= 0 else y0, y1)
    y0, y1 = yt[0], yt[-1] if len(yt) > 1 else yt[0] + 1
    xt, x_text, scale, x0, x1 = _x_axis(x0, x1, log_x)
    s0, s1 = scale(x0), scale(x1)

    def sx(x: float) -> float:
        return left + (scale(x) - s0) / ((s1 - s0) or 1) * plot_w

    def sy(y: float) -> float:
        return top + plot_h - (y - y0) / ((y1 - y0) or 1) * plot_h

    for y in yt:
        out.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{sy(y):.1f}" y2="{sy(y):.1f}" stroke="#e4e4e4"/>'
        )
        out.append(f'<text x="{left - 6}" y="{sy(y) + 4:.1f}" text-anchor="end">{_tick_label(y)}</text>')
    for x in xt:
        if x0 <= x <= x1:
            out.append(
                f'<text x="{sx(x):.1f}" y="{top + plot_h + 16}" text-anchor="middle">{x_text(x)}</text>'
            )
    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>')
    out.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 8}" text-anchor="middle">{_esc(x_label)}</text>'
    )
    out.append(
        f'<text transform="translate(14,{top + plot_h / 2:.0f}) rotate(-90)" text-anchor="middle">'
        f"{_esc(y_label)}</text>"
    )
    for i, (name, pts) in enumerate(series.items()):
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts if drawn((x, y)))
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        ly = top + 14 + i * 18
        out.append(
            f'<line x1="{left + plot_w + 10}" x2="{left + plot_w + 28}" y1="{ly - 4}" y2="{ly - 4}" '
            f'stroke="{colour}" stroke-width="3"/>'
        )
        out.append(f'<text x="{left + plot_w + 32}" y="{ly}">{_esc(name)}</text>')
    for label, (x, y) in (marks or {}).items():
        out.append(
            f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="4.5" fill="#d0312d"><title>{_esc(label)}</title></circle>'
        )
        if label_marks:
            out.append(f'<text x="{sx(x) + 7:.1f}" y="{sy(y) - 7:.1f}" fill="#d0312d">{_esc(label)}</text>')
    out.append("</svg>")
    return "".join(out)


def bar_chart_svg(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float | None]],
    *,
    title: str = "",
    value_label: str = "",
    width: int = 640,
    reference: float | None = None,
) -> str:
    """Grouped horizontal bars: one group per category, one bar per series, values written at the end.

    ``reference`` draws a dashed line at that value (a premium of 1.0: as costly as the reference).
    """
    n_series = max(len(series), 1)
    bar_h, gap = 12, 8
    left, right, top = 150, 70, 30 if title else 12
    group_h = n_series * bar_h + gap
    legend_rows = (len(series) + 2) // 3
    height = top + len(categories) * group_h + 44 + 18 * legend_rows
    values = [v for vs in series.values() for v in vs if v is not None and math.isfinite(v)]
    vmax = max([*values, reference or 0.0, 1e-9])
    ticks = nice_ticks(0.0, vmax)
    vmax = max(vmax, ticks[-1])
    plot_w = width - left - right

    def sx(v: float) -> float:
        return left + v / vmax * plot_w

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" {_FONT} font-size="12">'
    ]
    if title:
        out.append(f'<text x="8" y="18" font-weight="600" font-size="13">{_esc(title)}</text>')
    axis_y = top + len(categories) * group_h
    for t in ticks:
        out.append(f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{top}" y2="{axis_y}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{sx(t):.1f}" y="{axis_y + 14}" text-anchor="middle">{_tick_label(t)}</text>')
    for c, category in enumerate(categories):
        y = top + c * group_h
        out.append(
            f'<text x="{left - 8}" y="{y + n_series * bar_h / 2 + 4:.1f}" text-anchor="end">{_esc(category)}</text>'
        )
        for s, values_of in enumerate(series.values()):
            value = values_of[c] if c < len(values_of) else None
            if value is None or not math.isfinite(value):
                continue
            colour = SERIES_COLOURS[s % len(SERIES_COLOURS)]
            by = y + s * bar_h
            out.append(
                f'<rect x="{left}" y="{by}" width="{max(sx(value) - left, 0.5):.1f}" height="{bar_h - 2}" '
                f'fill="{colour}"><title>{_esc(category)}: {value:g}</title></rect>'
            )
            out.append(
                f'<text x="{sx(value) + 4:.1f}" y="{by + bar_h - 3}" font-size="10">{value:.2f}</text>'
            )
    if reference is not None:
        out.append(
            f'<line x1="{sx(reference):.1f}" x2="{sx(reference):.1f}" y1="{top}" y2="{axis_y}" '
            'stroke="#333" stroke-dasharray="4 3"/>'
        )
    out.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{axis_y + 30}" text-anchor="middle">{_esc(value_label)}</text>'
    )
    for s, name in enumerate(series):
        lx, ly = 8 + (s % 3) * 210, axis_y + 48 + (s // 3) * 18
        colour = SERIES_COLOURS[s % len(SERIES_COLOURS)]
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{colour}"/>')
        out.append(f'<text x="{lx + 18}" y="{ly}">{_esc(name)}</text>')
    out.append("</svg>")
    return "".join(out)
