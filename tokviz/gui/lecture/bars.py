"""The bars of an exchange-rate slide: a group per sample, a bar per tokenizer, lossy bars hatched.

A lossy bar (a tokenizer that lost text to ``<unk>``) never sets the scale, as in the window's
chart (:mod:`tokviz.gui.drawing.chart_bars`): one far over the honest bars is cut at
``LOSSY_CAP`` times the tallest of them, with a break, and every lossy value is marked ``*``.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPainter, QPen

from tokviz.core.lecture.slides import Bars
from tokviz.core.show.svg_chart import SERIES_COLOURS
from tokviz.gui.drawing.chart_bars import LOSSY_CAP, LOSSY_CLIP
from tokviz.gui.lecture.text_styles import TextItem, text_font
from tokviz.gui.style.theme import TokenColors

LOSSY_KEY = "* hatched: lossy, text lost to <unk>; fewer tokens for less text is not a better rate"

BarPaint = Callable[[QPainter, float], None]


def bar_scale(block: Bars) -> tuple[float, float | None]:
    """The value the plot's top stands for, and the value a lossy bar far over it is cut at (None when
    no bar is honest, so there is nothing to measure against)."""
    values = [v for _, vs in block.series for v in vs]
    honest = [v for si, (_, vs) in enumerate(block.series) for g, v in enumerate(vs) if not block.loss(si, g)]
    if not honest:
        return max(values + [1.0]), None
    ceiling = max(honest) * LOSSY_CAP
    return max(max(honest), min(max(values), ceiling), 1.0), ceiling


def lay_out_bars(
    block: Bars, area: QRectF, scale: float, colors: TokenColors, items: list[TextItem]
) -> tuple[float, BarPaint]:
    """Lay the chart out from ``area``'s top left across its width; add its texts to ``items``.

    Returns the chart's height and what paints it.
    """
    x, y, width = area.x(), area.y(), area.width()
    cap, label = text_font("caption", scale), text_font("label", scale)
    cm, lm = QFontMetricsF(cap), QFontMetricsF(label)
    plot_h = 290 * scale
    top = y + cm.height() + 4 * scale
    vmax, ceiling = bar_scale(block)
    legend_w = max((lm.horizontalAdvance(name) for name, _ in block.series), default=0) + 40 * scale
    group_w = (width - legend_w) / max(len(block.categories), 1)
    bar_w = group_w * 0.8 / max(len(block.series), 1)
    title_rect = QRectF(x, y, width, cm.height())
    texts: list[tuple[str, QRectF, int]] = [(block.title, title_rect, int(Qt.AlignmentFlag.AlignLeft))]
    for g, cat in enumerate(block.categories):
        rect = QRectF(x + g * group_w, top + plot_h + 2 * scale, group_w, lm.height())
        texts.append((cat, rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)))
    bars: list[tuple[QRectF, QColor, bool, bool]] = []  # rectangle, colour, lossy, cut
    for si, (_name, vs) in enumerate(block.series):
        colour = QColor(SERIES_COLOURS[si % len(SERIES_COLOURS)])
        for g, v in enumerate(vs):
            lossy = bool(block.loss(si, g))
            cut = ceiling is not None and lossy and v > ceiling * LOSSY_CLIP / LOSSY_CAP
            h = plot_h * (ceiling if cut and ceiling is not None else v) / vmax * 0.88
            bx = x + g * group_w + group_w * 0.1 + si * bar_w
            bars.append((QRectF(bx, top + plot_h - h, bar_w * 0.92, h), colour, lossy, cut))
            rect = QRectF(bx - 10 * scale, top + plot_h - h - lm.height(), bar_w + 20 * scale, lm.height())
            align = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom)
            texts.append((f"{v:.1f}" + ("*" if lossy else ""), rect, align))
    lx = x + width - legend_w + 16 * scale
    legend = []
    for i, (name, _) in enumerate(block.series):
        ly = top + i * lm.height() * 1.3
        legend.append(
            (
                QRectF(lx, ly + 3 * scale, 14 * scale, 14 * scale),
                QColor(SERIES_COLOURS[i % len(SERIES_COLOURS)]),
            )
        )
        texts.append(
            (
                name,
                QRectF(lx + 22 * scale, ly, legend_w - 38 * scale, lm.height()),
                int(Qt.AlignmentFlag.AlignLeft),
            )
        )
    height = cm.height() + plot_h + lm.height() + 10 * scale
    if any(lossy for _, _, lossy, _ in bars):
        texts.append((LOSSY_KEY, QRectF(x, y + height, width, lm.height()), int(Qt.AlignmentFlag.AlignLeft)))
        height += lm.height() + 4 * scale
    for text, rect, _align in texts:
        items.append(TextItem(text, rect, (cm if rect is title_rect else lm).horizontalAdvance(text)))

    def paint(p: QPainter, s: float) -> None:
        p.setPen(QPen(colors.muted, s))
        p.drawLine(QPointF(x, top + plot_h), QPointF(x + width - legend_w, top + plot_h))
        for rect, colour, lossy, cut in bars:
            _paint_bar(p, s, rect, colour, lossy, cut, colors.base)
        for swatch, colour in legend:
            p.fillRect(swatch, colour)
        for text, rect, align in texts:
            p.setFont(cap if rect is title_rect else label)
            p.setPen(colors.muted if rect is title_rect or text == LOSSY_KEY else colors.text)
            p.drawText(rect, align, text)

    return height, paint


def _paint_bar(
    p: QPainter, s: float, rect: QRectF, colour: QColor, lossy: bool, cut: bool, base: QColor
) -> None:
    """One bar: solid, or hatched and outlined when lossy, with a break across when cut short."""
    if not lossy:
        p.fillRect(rect, colour)
        return
    p.fillRect(rect, base)
    p.fillRect(rect, QBrush(colour, Qt.BrushStyle.BDiagPattern))
    p.setPen(QPen(colour, 2 * s))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(rect)
    if cut:
        p.setPen(QPen(base, 6 * s))
        mid = rect.top() + rect.height() * 0.12
        p.drawLine(QPointF(rect.left() - 4 * s, mid + 6 * s), QPointF(rect.right() + 4 * s, mid - 6 * s))
