"""Painting a slide's content on a fixed logical canvas, the same way on screen, in a PDF and a PNG.

A slide is laid out on a canvas 900 logical pixels high (1600 wide for 16:9 screens, 1200 for
4:3), then the painter is scaled to the target, so a 1024×768 projector and a 1080p screen show
the same composition. When the blocks do not fit, every size shrinks together until they do: a
slide never clips. Boxes (tokens, bytes, chunks) wrap only between boxes. :meth:`SlideLayout.items`
lists every text with its rectangle and the width it needs, so tests can check nothing is cut.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from tokviz.core.lecture.slides import (
    Bars,
    Block,
    Chip,
    ChipRow,
    Counters,
    Picture,
    SlideContent,
    Table,
    Words,
)
from tokviz.core.show.svg_chart import SERIES_COLOURS
from tokviz.gui.drawing.chips import ChipStyle, paint_chip
from tokviz.gui.lecture.pictures import Drawable
from tokviz.gui.style.fonts import mono_font, sans_font
from tokviz.gui.style.theme import TokenColors

CANVAS_HEIGHT = 900.0
WIDE, NARROW = 1600.0, 1200.0
MARGIN = 56.0
GAP = 22.0
MIN_SCALE = 0.4


def canvas_size(aspect: float) -> QSizeF:
    """The logical canvas for a target of ``aspect`` (width / height): 16:9 or 4:3, whichever is closer."""
    return QSizeF(WIDE if aspect >= 1.55 else NARROW, CANVAS_HEIGHT)


def _font(kind: str, scale: float) -> QFont:
    sizes = {
        "title": (54.0, True, False),
        "caption": (25.0, False, False),
        "chip": (40.0, False, True),
        "sub": (18.0, False, True),
        "value": (76.0, True, False),
        "label": (22.0, False, False),
        "table": (30.0, False, False),
        "head": (25.0, True, False),
        "words": (34.0, False, False),
        "footer": (18.0, False, False),
    }
    size, bold, mono = sizes[kind]
    # Sizes are logical pixels of the canvas; point sizes equal pixels at 72 dpi painting.
    font = mono_font(size * scale) if mono else sans_font(size * scale, bold=bold)
    font.setPixelSize(max(1, round(size * scale)))
    return font


_WIDTHS: dict[tuple[str, str], float] = {}
_WIDTHS_KEPT = 200_000


def _width(fm: QFontMetricsF, font_key: str, text: str) -> float:
    """``fm.horizontalAdvance(text)``, measured once per font and text: the fitting loop tries the
    same sizes on every slide, and a handout per step lays out the same labels on every page."""
    key = (font_key, text)
    width = _WIDTHS.get(key)
    if width is None:
        if len(_WIDTHS) >= _WIDTHS_KEPT:
            _WIDTHS.clear()
        width = _WIDTHS[key] = fm.horizontalAdvance(text)
    return width


@dataclass(frozen=True)
class TextItem:
    """A text as laid out: its rectangle and the width its font needs (checks compare the two)."""

    text: str
    rect: QRectF
    needed: float


@dataclass
class _Placed:
    """One block's painting, deferred until the whole slide fits."""

    height: float
    paint: Callable[[QPainter, float], None]


class SlideLayout:
    """A slide's content laid out on its canvas at the largest scale (≤ 1) where everything fits."""

    def __init__(
        self, content: SlideContent, size: QSizeF, colors: TokenColors, footer: str = "", hint: str = ""
    ) -> None:
        self.content = content
        self.size = size
        self.colors = colors
        self.chips = ChipStyle.from_colors(colors)
        self.footer = footer
        self.hint = hint
        self.elided: list[str] = []
        self.scale = 1.0
        self.items: list[TextItem] = []
        self.overflow = False
        self.title_rect = QRectF()
        self._placed: list[_Placed] = []
        # Each picture decoded once for all the sizes the fitting tries, and freed with the layout.
        self._drawables: dict[int, Drawable | None] = {}
        self._fit()

    # ---------------------------------------------------------------- fitting
    def _fit(self) -> None:
        scale = 1.0
        while True:
            self.items, self.elided = [], []
            height = self._lay_out(scale)
            if height <= self.size.height() - MARGIN or scale <= MIN_SCALE:
                self.overflow = height > self.size.height() - MARGIN
                self.scale = scale
                return
            scale = max(MIN_SCALE, scale * 0.9)

    def _lay_out(self, scale: float) -> float:
        width = self.size.width() - 2 * MARGIN
        self._placed = []
        y = MARGIN * 0.8
        title = _font("title", scale)
        flags = int(Qt.TextFlag.TextWordWrap)
        title_h = (
            QFontMetricsF(title).boundingRect(QRectF(0, 0, width, 10_000), flags, self.content.title).height()
        )
        self.title_rect = QRectF(MARGIN, y, width, title_h)
        self.items.append(
            TextItem(self.content.title, self.title_rect, self._longest_word(self.content.title, title))
        )
        y += title_h + GAP * scale
        for block in self.content.blocks:
            placed = self._place(block, MARGIN, y, width, scale)
            self._placed.append(placed)
            y += placed.height + GAP * scale
        return y

    @staticmethod
    def _longest_word(text: str, font: QFont) -> float:
        """What a wrapped text needs: its longest word's width (the lines break between words)."""
        fm = QFontMetricsF(font)
        return max((fm.horizontalAdvance(word) for word in text.split()), default=0.0)

    def _text(self, text: str, rect: QRectF, font: QFont) -> None:
        self.items.append(TextItem(text, rect, QFontMetricsF(font).horizontalAdvance(text)))

    # ---------------------------------------------------------------- blocks
    def _place(self, block: Block, x: float, y: float, width: float, scale: float) -> _Placed:
        if isinstance(block, ChipRow):
            return self._chip_row(block, x, y, width, scale)
        if isinstance(block, Counters):
            return self._counters(block, x, y, width, scale)
        if isinstance(block, Table):
            return self._table(block, x, y, width, scale)
        if isinstance(block, Bars):
            return self._bars(block, x, y, width, scale)
        if isinstance(block, Picture):
            return self._picture(block, x, y, width, scale)
        return self._words(block, x, y, width, scale)

    def _words(self, block: Words, x: float, y: float, width: float, scale: float) -> _Placed:
        font = _font("words", scale)
        indent = 34 * scale if block.bullet else 0.0
        fm = QFontMetricsF(font)
        flags = int(Qt.TextFlag.TextWordWrap)
        rect = fm.boundingRect(QRectF(0, 0, width - indent, 10_000), flags, block.text)
        box = QRectF(x + indent, y, width - indent, rect.height())
        colour = {"good": QColor("#1a7f37"), "bad": QColor("#c62828"), "muted": self.colors.muted}.get(
            block.tone, self.colors.text
        )
        if self.colors.dark and block.tone in ("good", "bad"):
            colour = QColor("#5fd38a") if block.tone == "good" else QColor("#ff6b6b")
        # Wrapped text is never cut: the rectangle is as tall as the wrapped lines need.
        self.items.append(TextItem(block.text, box, self._longest_word(block.text, font)))

        def paint(p: QPainter, _s: float) -> None:
            p.setFont(font)
            p.setPen(colour)
            if block.bullet:
                p.drawText(QPointF(x + 8 * scale, y + fm.ascent()), "•")
            p.drawText(box, flags, block.text)

        return _Placed(rect.height(), paint)

    def _chip_row(self, block: ChipRow, x: float, y: float, width: float, scale: float) -> _Placed:
        cap_font, chip_font, sub_font = _font("caption", scale), _font("chip", scale), _font("sub", scale)
        cap_h = QFontMetricsF(cap_font).height()
        cap_rect = QRectF(x, y, width, cap_h)
        self._text(block.caption, cap_rect, cap_font)
        fm, sm = QFontMetricsF(chip_font), QFontMetricsF(sub_font)
        chip_key, sub_key = chip_font.key(), sub_font.key()
        pad, gap = 9 * scale, 5 * scale
        has_sub = any(c.sub for c in block.chips)
        chip_h = fm.height() + (sm.height() if has_sub else 0) + 2 * pad * 0.6
        boxes: list[tuple[Chip, QRectF, str]] = []
        cx, cy = x, y + cap_h + 6 * scale
        for chip in block.chips:
            label = chip.label
            need = max(_width(fm, chip_key, label), _width(sm, sub_key, chip.sub)) + 2 * pad
            if need > width:  # a box wider than the whole line: its label is elided, visibly
                label = fm.elidedText(label, Qt.TextElideMode.ElideRight, width - 2 * pad)
                self.elided.append(chip.label)
                need = width
            if cx > x and cx + need > x + width:
                cx, cy = x, cy + chip_h + gap
            rect = QRectF(cx, cy, need, chip_h)
            boxes.append((chip, rect, label))
            self.items.append(TextItem(label, rect.adjusted(pad, 0, -pad, 0), _width(fm, chip_key, label)))
            cx += need + gap
        height = (cy - y) + (chip_h if block.chips else 0)
        text_colour = self.colors.text

        def paint(p: QPainter, s: float) -> None:
            p.setFont(cap_font)
            p.setPen(self.colors.muted)
            p.drawText(
                cap_rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), block.caption
            )
            for chip, rect, label in boxes:
                kind = chip.kind if chip.kind in ("partial", "special") else "normal"
                paint_chip(p, rect, self.chips, chip.colour, kind)
                if chip.kind in ("picked", "unknown"):
                    pen = QPen(QColor("#c62828") if chip.kind == "unknown" else self.colors.highlight, 3 * s)
                    p.setPen(pen)
                    p.setBrush(Qt.BrushStyle.NoBrush)
                    p.drawRoundedRect(rect.adjusted(1, 1, -1, -1), 4, 4)
                p.setPen(text_colour)
                p.setFont(chip_font)
                top = QRectF(rect.x(), rect.y() + pad * 0.6, rect.width(), fm.height())
                p.drawText(top, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter), label)
                if chip.sub:
                    p.setFont(sub_font)
                    p.setPen(self.colors.muted)
                    bottom = QRectF(rect.x(), top.bottom(), rect.width(), sm.height())
                    p.drawText(
                        bottom, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter), chip.sub
                    )

        return _Placed(height, paint)

    def _counters(self, block: Counters, x: float, y: float, width: float, scale: float) -> _Placed:
        value_font, label_font = _font("value", scale), _font("label", scale)
        vm, lm = QFontMetricsF(value_font), QFontMetricsF(label_font)
        spacing = 48 * scale
        cells = []
        cx = x
        for label, value in block.items:
            w = max(vm.horizontalAdvance(value), lm.horizontalAdvance(label))
            cells.append(
                (label, value, QRectF(cx, y, w, vm.height()), QRectF(cx, y + vm.height(), w, lm.height()))
            )
            self.items.append(TextItem(value, cells[-1][2], vm.horizontalAdvance(value)))
            self.items.append(TextItem(label, cells[-1][3], lm.horizontalAdvance(label)))
            cx += w + spacing
        height = vm.height() + lm.height()
        if cx - spacing > x + width:  # too wide on one line: the fitting loop shrinks the slide
            height += self.size.height()

        def paint(p: QPainter, _s: float) -> None:
            for label, value, vrect, lrect in cells:
                p.setFont(value_font)
                p.setPen(self.colors.highlight)
                p.drawText(vrect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), value)
                p.setFont(label_font)
                p.setPen(self.colors.muted)
                p.drawText(lrect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label)

        return _Placed(height, paint)

    def _table(self, block: Table, x: float, y: float, width: float, scale: float) -> _Placed:
        font, head = _font("table", scale), _font("head", scale)
        fm, hm = QFontMetricsF(font), QFontMetricsF(head)
        font_key, head_key = font.key(), head.key()
        pad = 14 * scale
        widths = [_width(hm, head_key, h) for h in block.headers]
        for row in block.rows:
            widths = [max(w, _width(fm, font_key, c)) for w, c in zip(widths, row)]
        widths = [w + 2 * pad for w in widths]
        row_h = fm.height() * 1.35
        height = hm.height() * 1.4 + row_h * len(block.rows)
        if sum(widths) > width:
            height += self.size.height()  # shrink until every cell fits its column
        cells: list[tuple[str, QRectF, bool, QFont]] = []
        cx = x
        for i, h in enumerate(block.headers):
            rect = QRectF(cx + pad, y, widths[i] - 2 * pad, hm.height() * 1.4)
            cells.append((h, rect, block.right[i], head))
            cx += widths[i]
        for r, row in enumerate(block.rows):
            cx = x
            ry = y + hm.height() * 1.4 + r * row_h
            for i, c in enumerate(row):
                cells.append((c, QRectF(cx + pad, ry, widths[i] - 2 * pad, row_h), block.right[i], font))
                cx += widths[i]
        for text, rect, _right, f in cells:
            needed = _width(fm, font_key, text) if f is font else _width(hm, head_key, text)
            self.items.append(TextItem(text, rect, needed))
        total = sum(widths)

        def paint(p: QPainter, s: float) -> None:
            p.setPen(QPen(self.colors.muted, 1.2 * s))
            p.drawLine(QPointF(x, y + hm.height() * 1.4), QPointF(x + total, y + hm.height() * 1.4))
            for r in block.marked:
                band = QRectF(x, y + hm.height() * 1.4 + r * row_h, total, row_h)
                p.fillRect(band, self.colors.highlight_fill)
            for text, rect, right, f in cells:
                p.setFont(f)
                p.setPen(self.colors.text if f is font else self.colors.muted)
                align = Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
                p.drawText(rect, int(align | Qt.AlignmentFlag.AlignVCenter), text)

        return _Placed(height, paint)

    def _bars(self, block: Bars, x: float, y: float, width: float, scale: float) -> _Placed:
        cap, label = _font("caption", scale), _font("label", scale)
        cm, lm = QFontMetricsF(cap), QFontMetricsF(label)
        plot_h = 320 * scale
        top = y + cm.height() + 4 * scale
        values = [v for _, vs in block.series for v in vs]
        vmax = max(values + [1.0])
        n_groups = max(len(block.categories), 1)
        legend_w = max((lm.horizontalAdvance(name) for name, _ in block.series), default=0) + 40 * scale
        group_w = (width - legend_w) / n_groups
        bar_w = group_w * 0.8 / max(len(block.series), 1)
        self._text(block.title, QRectF(x, y, width, cm.height()), cap)
        labels: list[tuple[str, QRectF]] = []
        for g, cat in enumerate(block.categories):
            rect = QRectF(x + g * group_w, top + plot_h + 2 * scale, group_w, lm.height())
            labels.append((cat, rect))
            self.items.append(TextItem(cat, rect, lm.horizontalAdvance(cat)))
        value_labels: list[tuple[str, QRectF]] = []
        bars: list[tuple[QRectF, QColor]] = []
        for si, (_name, vs) in enumerate(block.series):
            colour = QColor(SERIES_COLOURS[si % len(SERIES_COLOURS)])
            for g, v in enumerate(vs):
                h = plot_h * (v / vmax) * 0.88
                bx = x + g * group_w + group_w * 0.1 + si * bar_w
                bars.append((QRectF(bx, top + plot_h - h, bar_w * 0.92, h), colour))
                text = f"{v:.1f}"
                value_labels.append(
                    (
                        text,
                        QRectF(
                            bx - 10 * scale, top + plot_h - h - lm.height(), bar_w + 20 * scale, lm.height()
                        ),
                    )
                )
        legend = [
            (name, QColor(SERIES_COLOURS[i % len(SERIES_COLOURS)]))
            for i, (name, _) in enumerate(block.series)
        ]
        height = cm.height() + plot_h + lm.height() + 10 * scale

        def paint(p: QPainter, s: float) -> None:
            p.setFont(cap)
            p.setPen(self.colors.muted)
            p.drawText(QRectF(x, y, width, cm.height()), int(Qt.AlignmentFlag.AlignLeft), block.title)
            p.setPen(QPen(self.colors.muted, s))
            p.drawLine(QPointF(x, top + plot_h), QPointF(x + width - legend_w, top + plot_h))
            for rect, colour in bars:
                p.fillRect(rect, colour)
            p.setFont(label)
            p.setPen(self.colors.text)
            for text, rect in value_labels:
                p.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignBottom), text)
            for text, rect in labels:
                p.drawText(rect, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop), text)
            lx = x + width - legend_w + 16 * scale
            for i, (name, colour) in enumerate(legend):
                ly = top + i * lm.height() * 1.3
                p.fillRect(QRectF(lx, ly + 3 * scale, 14 * scale, 14 * scale), colour)
                p.setPen(self.colors.text)
                p.drawText(QPointF(lx + 22 * scale, ly + lm.ascent()), name)

        return _Placed(height, paint)

    def _picture(self, block: Picture, x: float, y: float, width: float, scale: float) -> _Placed:
        if id(block.picture) not in self._drawables:
            self._drawables[id(block.picture)] = Drawable.of(block.picture)
        drawn = self._drawables[id(block.picture)]
        cap = _font("caption", scale)
        cm = QFontMetricsF(cap)
        room = self.size.height() - MARGIN - y - cm.height() - 8
        if drawn is None:
            shown = f"cannot read the picture {block.picture.name}"
            return self._words(Words(shown, tone="bad"), x, y, width, scale)
        ratio = min(width / drawn.width, max(room, 60.0) / drawn.height)
        target = QRectF(x + (width - drawn.width * ratio) / 2, y, drawn.width * ratio, drawn.height * ratio)
        cap_rect = QRectF(x, target.bottom() + 6, width, cm.height())
        self._text(block.caption, cap_rect, cap)

        def paint(p: QPainter, _s: float) -> None:
            drawn.draw(p, target)
            p.setFont(cap)
            p.setPen(self.colors.muted)
            p.drawText(cap_rect, int(Qt.AlignmentFlag.AlignHCenter), block.caption)

        return _Placed(target.height() + cm.height() + 8, paint)

    def release(self) -> None:
        """Drop what painting needs, decoded pictures first, once the layout will not paint again.

        The placed painters refer back to the layout, so a dropped layout is freed by the cycle
        collector, which counts objects, not bytes: a handout of a hundred slides, each with a
        4096 × 4096 picture, would hold every picture until the end. Painting afterwards paints
        the background, title and footer only.
        """
        self._placed = []
        self._drawables.clear()

    # ---------------------------------------------------------------- painting
    def paint(self, painter: QPainter) -> None:
        """Paint the slide in canvas coordinates (the caller scales the painter to its target)."""
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        painter.fillRect(QRectF(0, 0, self.size.width(), self.size.height()), self.colors.base)
        title = _font("title", self.scale)
        painter.setFont(title)
        painter.setPen(self.colors.text)
        painter.drawText(self.title_rect, int(Qt.TextFlag.TextWordWrap), self.content.title)
        for placed in self._placed:
            placed.paint(painter, self.scale)
        foot = _font("footer", 1.0)
        painter.setFont(foot)
        painter.setPen(self.colors.muted)
        fh = QFontMetricsF(foot).height()
        line = QRectF(MARGIN, self.size.height() - fh - 14, self.size.width() - 2 * MARGIN, fh)
        if self.footer:
            painter.drawText(
                line, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), self.footer
            )
        if self.hint:  # what the live keys do, on screen only: the lecturer's reminder, quiet for the room
            painter.drawText(line, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), self.hint)
        painter.restore()

    def report(self) -> dict[str, object]:
        """What a check needs to know about this layout: its scale, overflow, clipped and elided texts."""
        return {
            "title": self.content.title,
            "canvas": [self.size.width(), self.size.height()],
            "layout_scale": round(self.scale, 4),
            "overflow": self.overflow,
            "clipped": [item.text for item in self.clipped()],
            "elided": list(self.elided),
            "figures": dict(self.content.figures),
        }

    def clipped(self) -> list[TextItem]:
        """Texts whose rectangle is narrower than the text needs (a slide shows none)."""
        return [item for item in self.items if item.needed > item.rect.width() + 0.5]


def paint_scaled(painter: QPainter, layout: SlideLayout, target: QRectF, background: QColor) -> None:
    """Paint ``layout`` into ``target`` keeping its aspect, centred, the rest filled with ``background``."""
    painter.fillRect(target, background)
    ratio = min(target.width() / layout.size.width(), target.height() / layout.size.height())
    w, h = layout.size.width() * ratio, layout.size.height() * ratio
    painter.save()
    painter.translate(target.x() + (target.width() - w) / 2, target.y() + (target.height() - h) / 2)
    painter.scale(ratio, ratio)
    layout.paint(painter)
    painter.restore()
