"""A segmentation lattice drawn: the text's characters on top, every piece a box under the characters it covers.

A unigram model keeps every vocabulary piece that matches inside the text, each with its
log-probability, and picks the path through them with the highest sum (Viterbi). The drawing
shows that choice whole: the best path is the first row of boxes, outlined, and the other pieces
are packed in rows below it; each box holds the piece and its log-probability, and its fill is
stronger the more probable the piece is, so the eye finds the likely pieces before reading a
number. A long text wraps between characters that no piece spans (a ``▁`` that starts a word),
never inside a piece. The window's lattice panel and the lecture's lattice slides draw with
:class:`LatticeDrawing`; :attr:`LatticeDrawing.texts` lists every text with its rectangle, so the
slide's checks see a cut label.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen

from tokviz.core.analysis.lattice import Lattice, LatticePiece
from tokviz.gui.style.theme import TokenColors

# The fill of the most probable piece is this much of the highlight colour over the base (the least
# probable gets LEAST_FILL): at most, the theme's text keeps 4.5:1 on it in light and dark themes.
MOST_FILL, LEAST_FILL = 0.42, 0.08


@dataclass(frozen=True)
class LatticeFonts:
    """The fonts of a lattice: the text's characters, a piece's label and its log-probability."""

    char: QFont
    piece: QFont
    number: QFont


def log_prob_label(value: float) -> str:
    """A log-probability as a box shows it: one decimal, with a real minus sign."""
    return f"{value:.1f}".replace("-", "−")


def char_label(ch: str) -> str:
    """A character as the top row shows it: whitespace made visible (the text is ``▁``-marked)."""
    return {" ": "␣", "\n": "↵", "\t": "→"}.get(ch, ch)


def cut_points(lattice: Lattice) -> list[int]:
    """The offsets where a long lattice may wrap: no piece spans them (0 and the end included)."""
    n = len(lattice.text)
    crossed = [False] * (n + 1)
    for piece in lattice.pieces:
        for at in range(piece.start + 1, piece.end):
            crossed[at] = True
    return [at for at in range(n + 1) if not crossed[at]]


def piece_rows(lattice: Lattice) -> list[int]:
    """The row of each piece: the best path on row 0, the others packed below, longer pieces higher."""
    rows = [0] * len(lattice.pieces)
    best = set(lattice.best_path)
    ends: list[list[tuple[int, int]]] = [[]]  # per row, the (start, end) spans it holds
    for i in lattice.best_path:
        ends[0].append((lattice.pieces[i].start, lattice.pieces[i].end))
    rest = sorted(
        (i for i in range(len(lattice.pieces)) if i not in best),
        key=lambda i: (-(lattice.pieces[i].end - lattice.pieces[i].start), lattice.pieces[i].start),
    )
    for i in rest:
        piece = lattice.pieces[i]
        row = 1
        while True:
            if row == len(ends):
                ends.append([])
            if all(piece.end <= s or piece.start >= e for s, e in ends[row]):
                ends[row].append((piece.start, piece.end))
                rows[i] = row
                break
            row += 1
    return rows


def fill_colour(colors: TokenColors, value: float, low: float, high: float) -> QColor:
    """A piece's fill: the highlight colour over the base, stronger the higher ``value`` is in ``low..high``."""
    t = 1.0 if high <= low else max(0.0, min(1.0, (value - low) / (high - low)))
    weight = LEAST_FILL + (MOST_FILL - LEAST_FILL) * t
    a, b = colors.base, colors.highlight
    return QColor.fromRgbF(
        a.redF() + (b.redF() - a.redF()) * weight,
        a.greenF() + (b.greenF() - a.greenF()) * weight,
        a.blueF() + (b.blueF() - a.blueF()) * weight,
    )


@dataclass(frozen=True)
class PlacedPiece:
    """One piece's box: its index in ``Lattice.pieces``, rectangle, fill and whether it is on the best path."""

    index: int
    rect: QRectF
    fill: QColor
    best: bool


class LatticeDrawing:
    """A lattice laid out from (0, 0) in at most ``width`` logical pixels; :meth:`paint` draws it.

    ``scale`` multiplies paddings and gaps (the slide lays out at several scales); the fonts are
    given at their final size. ``width`` and ``height`` are what the drawing takes (``least_width``
    the least it can take); ``texts`` every text drawn with its rectangle, font and the width it needs.
    """

    def __init__(
        self, lattice: Lattice, fonts: LatticeFonts, colors: TokenColors, width: float, scale: float = 1.0
    ) -> None:
        self.lattice = lattice
        self.fonts = fonts
        self.colors = colors
        self.pad = 6.0 * scale
        self.gap = 3.0 * scale
        cm, pm, nm = QFontMetricsF(fonts.char), QFontMetricsF(fonts.piece), QFontMetricsF(fonts.number)
        self.char_h = cm.height() + self.pad
        self.box_h = pm.height() + nm.height() + self.pad
        self.line_gap = 14.0 * scale
        self.rows = piece_rows(lattice)
        self.columns = self._column_widths(cm, pm, nm)
        self.texts: list[tuple[str, QRectF, QFont, float]] = []
        self.chars: list[tuple[str, QRectF]] = []
        self.boxes: list[PlacedPiece] = []
        self._labels: list[tuple[tuple[str, QRectF], tuple[str, QRectF]]] = []  # per box: piece, number
        self._lay_out(max(width, 1.0), pm, nm, cm)

    def _column_widths(self, cm: QFontMetricsF, pm: QFontMetricsF, nm: QFontMetricsF) -> list[float]:
        """Each character's column: wide enough for the character and for every piece over it."""
        widths = [cm.horizontalAdvance(char_label(ch)) + 2 * self.pad for ch in self.lattice.text]
        for piece in sorted(self.lattice.pieces, key=lambda p: p.end - p.start):
            need = max(
                pm.horizontalAdvance(piece.piece), nm.horizontalAdvance(log_prob_label(piece.log_prob))
            )
            need += 2 * self.pad
            span = piece.end - piece.start
            have = sum(widths[piece.start : piece.end]) + self.gap * (span - 1)
            if need > have:
                for at in range(piece.start, piece.end):
                    widths[at] += (need - have) / span
        return widths

    def _lay_out(self, width: float, pm: QFontMetricsF, nm: QFontMetricsF, cm: QFontMetricsF) -> None:
        cuts = cut_points(self.lattice)
        # The narrowest the drawing can be: its widest stretch between two cuts, which never wraps.
        self.least_width = max((self._span_width(a, b) for a, b in zip(cuts, cuts[1:])), default=0.0)
        # Lines of segments between cut points, as many as fit in the width (at least one each).
        lines: list[tuple[int, int]] = []
        start = 0
        for a, b in zip(cuts, cuts[1:]):
            if a > start and self._span_width(start, b) > width:
                lines.append((start, a))
                start = a
        if cuts[-1] > start or not lines:
            lines.append((start, cuts[-1]))
        values = [p.log_prob for p in self.lattice.pieces]
        low, high = min(values, default=0.0), max(values, default=0.0)
        best = set(self.lattice.best_path)
        y = 0.0
        right = 0.0
        for first, stop in lines:
            x_of = {first: 0.0}
            for at in range(first, stop):
                x_of[at + 1] = x_of[at] + self.columns[at] + self.gap
            for at in range(first, stop):
                rect = QRectF(x_of[at], y, self.columns[at], self.char_h)
                label = char_label(self.lattice.text[at])
                self.chars.append((label, rect))
                self.texts.append((label, rect, self.fonts.char, cm.horizontalAdvance(label)))
            top = y + self.char_h + self.gap
            used = 0
            for i, piece in enumerate(self.lattice.pieces):
                if not first <= piece.start < stop:
                    continue
                row = self.rows[i]
                used = max(used, row + 1)
                rect = QRectF(
                    x_of[piece.start],
                    top + row * (self.box_h + self.gap),
                    x_of[piece.end] - x_of[piece.start] - self.gap,
                    self.box_h,
                )
                self.boxes.append(
                    PlacedPiece(i, rect, fill_colour(self.colors, piece.log_prob, low, high), i in best)
                )
                self._piece_texts(piece, rect, pm, nm)
            right = max(right, x_of[stop] - self.gap)
            y = top + used * (self.box_h + self.gap) + self.line_gap
        self.width = right
        self.height = max(y - self.line_gap, 0.0)

    def _piece_texts(self, piece: LatticePiece, rect: QRectF, pm: QFontMetricsF, nm: QFontMetricsF) -> None:
        top = QRectF(rect.x(), rect.y() + self.pad / 2, rect.width(), pm.height())
        bottom = QRectF(rect.x(), top.bottom(), rect.width(), nm.height())
        number = log_prob_label(piece.log_prob)
        self.texts.append((piece.piece, top, self.fonts.piece, pm.horizontalAdvance(piece.piece)))
        self.texts.append((number, bottom, self.fonts.number, nm.horizontalAdvance(number)))
        self._labels.append(((piece.piece, top), (number, bottom)))

    def _span_width(self, start: int, stop: int) -> float:
        return sum(self.columns[start:stop]) + self.gap * max(stop - start - 1, 0)

    def piece_at(self, point: QPointF) -> int:
        """The index in ``Lattice.pieces`` of the box under ``point`` (drawing coordinates), or -1."""
        for box in self.boxes:
            if box.rect.contains(point):
                return box.index
        return -1

    def paint(self, painter: QPainter, scale: float = 1.0, marked: Collection[int] = ()) -> None:
        """Draw at the painter's origin: the characters, then every box, the best path outlined and
        the ``marked`` pieces (another segmentation's path) outlined dashed in the text colour."""
        painter.save()
        centred = int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignVCenter)
        painter.setFont(self.fonts.char)
        painter.setPen(self.colors.text)
        for char, place in self.chars:
            painter.drawText(place, centred, char)
        outline = QPen(self.colors.highlight, 3.0 * scale)
        dashed = QPen(self.colors.text, 2.5 * scale, Qt.PenStyle.DashLine)
        for box, ((label, top), (number, bottom)) in zip(self.boxes, self._labels):
            painter.setPen(dashed if box.index in marked else outline if box.best else Qt.PenStyle.NoPen)
            painter.setBrush(box.fill)
            painter.drawRoundedRect(box.rect.adjusted(1, 1, -1, -1), 4 * scale, 4 * scale)
            painter.setPen(self.colors.text)
            painter.setFont(self.fonts.piece)
            painter.drawText(top, centred, label)
            painter.setFont(self.fonts.number)
            painter.drawText(bottom, centred, number)
        painter.restore()
