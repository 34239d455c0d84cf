"""Painting a slide's content on a fixed logical canvas, the same way on screen, in a PDF and a PNG.

A slide is laid out on a canvas 900 logical pixels high (1600 wide for 16:9 screens, 1200 for
4:3), then the painter is scaled to the target, so a 1024×768 projector and a 1080p screen show
the same composition. Every text takes one of the :data:`TEXT_STYLES`, none smaller than 20 pixels
on a 1024×768 projector, in a colour of at least 4.5:1 contrast against what it sits on. Content
wider or taller than the slide first uses its width (token boxes and counters wrap, a long table
goes on in columns side by side); only when that is not enough does every size shrink together:
a slide never clips. Boxes (tokens, bytes, chunks) wrap only between boxes. :meth:`SlideLayout.items`
lists every text with its rectangle and the width it needs, so tests can check nothing is cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from tokviz.core.lecture.blocks import LatticeBlock
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
from tokviz.gui.drawing.chips import ChipStyle, paint_chip
from tokviz.gui.lecture.bars import lay_out_bars
from tokviz.gui.lecture.lattice import lay_out_lattice
from tokviz.gui.lecture.pictures import Drawable
from tokviz.gui.lecture.tables import lay_out_table
from tokviz.gui.lecture.text_styles import (
    CANVAS_HEIGHT,
    LEGIBLE_PX,
    LEGIBLE_SCALE,
    Placed,
    TextItem,
    text_font,
    text_width,
)
from tokviz.gui.style.fonts import sans_font
from tokviz.gui.style.theme import TokenColors

WIDE, NARROW = 1600.0, 1200.0
MARGIN = 56.0
GAP = 22.0
MIN_SCALE = 0.4
REFLOW_LEVELS = (0, 1, 2)
"""How far a slide reflows before it shrinks: not at all, long tables in parts side by side with
wrapped headers, tables turned across (:mod:`tokviz.gui.lecture.tables`)."""


def canvas_size(aspect: float) -> QSizeF:
    """The logical canvas for a target of ``aspect`` (width / height): 16:9 or 4:3, whichever is closer."""
    return QSizeF(WIDE if aspect >= 1.55 else NARROW, CANVAS_HEIGHT)


class SlideLayout:
    """A slide's content laid out on its canvas at the largest scale (≤ 1) where everything fits."""

    def __init__(
        self, content: SlideContent, size: QSizeF, colors: TokenColors, footer: str = "", *, paged: bool = False,
        part: int = 0,
    ) -> None:  # fmt: skip
        self.content = content
        self.size = size
        self.colors = colors
        self.chips = ChipStyle.from_colors(colors)
        self.footer = footer
        self.elided: list[str] = []
        self.scale = 1.0
        self.reflow = 0
        self.items: list[TextItem] = []
        self.overflow = False
        self.title_rect = QRectF()
        self._placed: list[Placed] = []
        # Each picture decoded once for all the sizes the fitting tries, and freed with the layout.
        self._drawables: dict[int, Drawable | None] = {}
        self.part, self.parts = 0, 1
        self._fit()
        if paged and not self.legible:
            self._page(part)

    # ---------------------------------------------------------------- fitting
    def _fit(self, floor: float = MIN_SCALE) -> None:
        """The largest scale down to ``floor`` where the slide fits; at each, long tables first go
        on in columns (at ``floor`` the slide may still overflow: ``overflow`` says so)."""
        scale = 1.0
        while True:
            for reflow in REFLOW_LEVELS:
                self.items, self.elided, self.reflow = [], [], reflow
                height = self._lay_out(scale)
                fits = height <= self.size.height() - MARGIN
                if fits or (reflow == REFLOW_LEVELS[-1] and scale <= floor):
                    self.overflow = not fits
                    self.scale = scale
                    return
            scale = max(floor, scale * 0.95)

    def _page(self, part: int) -> None:
        """Show the slide's longest table a page of rows at a time, as many as fit at a legible size,
        rather than shrink it: ``parts`` pages, this one ``part`` (-1: the last). Nothing changes
        when no table is long or even one row does not fit."""
        full = self.content
        tables = [
            (len(b.rows), i) for i, b in enumerate(full.blocks) if isinstance(b, Table) and len(b.rows) > 1
        ]
        if not tables:
            return
        total, index = max(tables)
        rows, low, high = 0, 1, total - 1
        while low <= high:  # the most rows one page holds
            middle = (low + high) // 2
            self.content = _rows_shown(full, index, 0, middle)
            self._fit(floor=LEGIBLE_SCALE)
            if self.overflow or not self.legible:
                high = middle - 1
            else:
                rows, low = middle, middle + 1
        if not rows:
            self.content = full
            self._fit()
            return
        self.parts = -(-total // rows)
        self.part = self.parts - 1 if part < 0 else min(part, self.parts - 1)
        self.content = _rows_shown(full, index, self.part * rows, self.part * rows + rows)
        self._fit(floor=LEGIBLE_SCALE)

    @property
    def legible(self) -> bool:
        """Whether every text of the slide is at least :data:`LEGIBLE_PX` on a 1024×768 projector."""
        return self.scale >= LEGIBLE_SCALE - 1e-9

    def _lay_out(self, scale: float) -> float:
        width = self.size.width() - 2 * MARGIN
        self._placed = []
        y = MARGIN * 0.8
        title = text_font("title", scale)
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
    def _place(self, block: Block, x: float, y: float, width: float, scale: float) -> Placed:
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
        if isinstance(block, LatticeBlock):
            height, paint = lay_out_lattice(block, QRectF(x, y, width, 0), scale, self.colors, self.items)
            return Placed(height, paint)
        return self._words(block, x, y, width, scale)

    def _words(self, block: Words, x: float, y: float, width: float, scale: float) -> Placed:
        font = text_font("words", scale)
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

        return Placed(rect.height(), paint)

    def _chip_row(self, block: ChipRow, x: float, y: float, width: float, scale: float) -> Placed:
        cap_font, chip_font, sub_font = (
            text_font("caption", scale),
            text_font("chip", scale),
            text_font("sub", scale),
        )
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
            need = max(text_width(fm, chip_key, label), text_width(sm, sub_key, chip.sub)) + 2 * pad
            if need > width:  # a box wider than the whole line: its label is elided, visibly
                label = fm.elidedText(label, Qt.TextElideMode.ElideRight, width - 2 * pad)
                self.elided.append(chip.label)
                need = width
            if cx > x and cx + need > x + width:
                cx, cy = x, cy + chip_h + gap
            rect = QRectF(cx, cy, need, chip_h)
            boxes.append((chip, rect, label))
            self.items.append(
                TextItem(label, rect.adjusted(pad, 0, -pad, 0), text_width(fm, chip_key, label))
            )
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
                if chip.sub:  # in the label's colour: grey on a coloured box is too faint to read
                    p.setFont(sub_font)
                    p.setPen(text_colour)
                    bottom = QRectF(rect.x(), top.bottom(), rect.width(), sm.height())
                    p.drawText(
                        bottom, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter), chip.sub
                    )

        return Placed(height, paint)

    def _counters(self, block: Counters, x: float, y: float, width: float, scale: float) -> Placed:
        value_font, label_font = text_font("value", scale), text_font("label", scale)
        vm, lm = QFontMetricsF(value_font), QFontMetricsF(label_font)
        spacing = 48 * scale
        cells = []
        cx, cy = x, y
        line_h = vm.height() + lm.height()
        for label, value in block.items:
            w = max(vm.horizontalAdvance(value), lm.horizontalAdvance(label))
            if cx > x and cx + w > x + width:  # too wide for one line: the counters go on below
                cx, cy = x, cy + line_h + 8 * scale
            cells.append(
                (label, value, QRectF(cx, cy, w, vm.height()), QRectF(cx, cy + vm.height(), w, lm.height()))
            )
            self.items.append(TextItem(value, cells[-1][2], vm.horizontalAdvance(value)))
            self.items.append(TextItem(label, cells[-1][3], lm.horizontalAdvance(label)))
            cx += w + spacing
        height = cy - y + line_h

        def paint(p: QPainter, _s: float) -> None:
            for label, value, vrect, lrect in cells:
                p.setFont(value_font)
                p.setPen(self.colors.highlight)
                p.drawText(vrect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), value)
                p.setFont(label_font)
                p.setPen(self.colors.muted)
                p.drawText(lrect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label)

        return Placed(height, paint)

    def _table(self, block: Table, x: float, y: float, width: float, scale: float) -> Placed:
        room = QRectF(x, y, width, self.size.height() - MARGIN - y)
        height, paint = lay_out_table(block, room, scale, self.colors, self.items, self.reflow)
        return Placed(height, paint)

    def _bars(self, block: Bars, x: float, y: float, width: float, scale: float) -> Placed:
        height, paint = lay_out_bars(block, QRectF(x, y, width, 0), scale, self.colors, self.items)
        return Placed(height, paint)

    def _picture(self, block: Picture, x: float, y: float, width: float, scale: float) -> Placed:
        if id(block.picture) not in self._drawables:
            self._drawables[id(block.picture)] = Drawable.of(block.picture)
        drawn = self._drawables[id(block.picture)]
        cap = text_font("caption", scale)
        cm = QFontMetricsF(cap)
        room = self.size.height() - MARGIN - y - cm.height() - 8 - GAP * scale
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

        return Placed(target.height() + cm.height() + 8, paint)

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
        title = text_font("title", self.scale)
        painter.setFont(title)
        painter.setPen(self.colors.text)
        painter.drawText(self.title_rect, int(Qt.TextFlag.TextWordWrap), self.content.title)
        for placed in self._placed:
            placed.paint(painter, self.scale)
        if self.footer:
            foot = text_font("footer", 1.0)
            painter.setFont(foot)
            painter.setPen(self.colors.muted)
            fh = QFontMetricsF(foot).height()
            line = QRectF(MARGIN, self.size.height() - fh - 10, self.size.width() - 2 * MARGIN, fh)
            painter.drawText(
                line, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), self.footer
            )
        painter.restore()

    def report(self) -> dict[str, object]:
        """What a check needs to know about this layout: its scale, overflow, clipped and elided texts."""
        return {
            "title": self.content.title,
            "canvas": [self.size.width(), self.size.height()],
            "layout_scale": round(self.scale, 4),
            "part": [self.part + 1, self.parts],
            "legible": self.legible,
            "overflow": self.overflow,
            "clipped": [item.text for item in self.clipped()],
            "elided": list(self.elided),
            "figures": dict(self.content.figures),
        }

    def clipped(self) -> list[TextItem]:
        """Texts whose rectangle is narrower than the text needs (a slide shows none)."""
        return [item for item in self.items if item.needed > item.rect.width() + 0.5]


def _rows_shown(content: SlideContent, index: int, start: int, stop: int) -> SlideContent:
    """``content`` with only rows ``start`` to ``stop`` of the table at block ``index``, and a line
    under it saying which rows these are."""
    table = content.blocks[index]
    assert isinstance(table, Table)
    total = len(table.rows)
    stop = min(stop, total)
    marked = tuple(m - start for m in table.marked if start <= m < stop)
    shown = replace(table, rows=table.rows[start:stop], marked=marked)
    more = "; more on the next page" if stop < total else ""
    note = Words(f"rows {start + 1}–{stop} of {total}{more}", tone="muted")
    blocks = (*content.blocks[:index], shown, note, *content.blocks[index + 1 :])
    return replace(content, blocks=blocks)


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


def paint_keys(
    painter: QPainter, target: QRectF, colors: TokenColors, rows: Sequence[tuple[str, str]]
) -> None:
    """The lecture's keys over the slide in ``target`` (the help "?" shows until the next key):
    the keys in the highlight colour, what they do beside them, wrapped, at a size the room reads."""
    painter.save()
    shade = QColor(colors.base)
    shade.setAlphaF(0.96)
    painter.fillRect(target, shade)
    margin = target.width() * 0.04
    size = max(LEGIBLE_PX, min(target.height() / 30, target.width() / 48))
    keys, what = sans_font(size, bold=True), sans_font(size)
    keys.setPixelSize(round(size))
    what.setPixelSize(round(size))
    wrap = int(Qt.TextFlag.TextWordWrap)
    split = target.x() + margin + max(QFontMetricsF(keys).horizontalAdvance(k) for k, _ in rows) + size
    room = target.right() - margin - split
    heights = [
        QFontMetricsF(what).boundingRect(QRectF(0, 0, room, 10_000), wrap, m).height() for _, m in rows
    ]
    gap = size * 0.45
    y = target.y() + max(margin, (target.height() - sum(heights) - gap * len(rows)) / 2)
    for (key, meaning), height in zip(rows, heights):
        painter.setFont(keys)
        painter.setPen(colors.highlight)
        painter.drawText(QRectF(target.x() + margin, y, split - target.x() - margin, height), 0, key)
        painter.setFont(what)
        painter.setPen(colors.text)
        painter.drawText(QRectF(split, y, room, height), wrap, meaning)
        y += height + gap
    painter.restore()
