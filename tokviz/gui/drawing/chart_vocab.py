"""The exchange-rate chart's vocabulary view: what a bigger vocabulary costs and what it buys.

A marker per tokenizer at its vocabulary size V (bottom axis, log scale; the top axis reads the
same positions as V × d embedding parameters) and its bytes per token over all inputs. Labels go
beside their markers where they overlap nothing; when points crowd, they shrink to the names.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF

from tokviz.core.analysis.exchange import format_count
from tokviz.gui.drawing.chart_text import esc
from tokviz.gui.drawing.plot_canvas import set_axis_title

if TYPE_CHECKING:
    import pyqtgraph as pg

    from tokviz.gui.drawing.chart_surface import ChartSurface


def code_point_note(vocab_size: int) -> str:
    """For the characters tokenizer's vocabulary (every code point), how little of it is ever used."""
    from tokviz.core.bpe.lecture_tokenizers import CODE_POINTS, assigned_code_points

    if vocab_size != CODE_POINTS:
        return ""
    unused = 1 - len(assigned_code_points()) / CODE_POINTS
    return f"<br>{CODE_POINTS:,} ids, {unused:.0%} never assigned"


class VocabLayer:
    """The markers and labels of the vocabulary view on one chart canvas (a :class:`ChartSurface`)."""

    def __init__(self, canvas: ChartSurface) -> None:
        self.canvas = canvas
        # A marker and its label per tokenizer drawn, and that tokenizer's column in the table.
        self.marks: list[tuple[pg.ScatterPlotItem, pg.TextItem]] = []
        self.columns: list[int] = []
        # A tokenizer's label (name, details) by column.
        self.html: dict[int, tuple[str, str]] = {}

    def hide(self, keep: int = 0) -> None:
        """Hide the markers and labels from the ``keep``-th on."""
        for item, label in self.marks[keep:]:
            item.setVisible(False)
            label.setVisible(False)

    def draw(self) -> None:
        """Bytes per token against V (bottom axis) and V x d (top axis, the same positions times d)."""
        import pyqtgraph as pg

        canvas = self.canvas
        table, d, st, plot = canvas.table, canvas.embedding_dim, canvas.style_, canvas.plot
        self.columns = []
        self.html = {}
        label_style = {"font-size": f"{st.point_size}pt", "color": st.foreground.name()}
        canvas.set_axis_labels("bytes per token, all inputs", "vocabulary size V (entries, log scale)")
        plot.getAxis("left").setTicks(None)
        points = table.embedding_points(d) if table is not None else []
        points = [
            p
            for p in points
            if table is not None and table.overall_bytes_per_token(table.tokenizers.index(p.tokenizer))
        ]
        if not points:
            self.hide(0)
            plot.hideAxis("top")
            plot.getAxis("bottom").setTicks([[]])
            canvas.hint.setText(canvas.empty_hint())
            plot.setRange(xRange=(0, 1), yRange=(0, 1), padding=0)
            canvas.hint.setPos(0.5, 0.5)
            return
        assert table is not None
        canvas.hint.setText("")
        names = {name: j for j, name in enumerate(table.tokenizers)}
        xs = [math.log10(p.vocab_size) for p in points]
        bpts = [table.overall_bytes_per_token(names[p.tokenizer]) or 0.0 for p in points]
        x_lo, x_hi = math.floor(min(xs) - 0.25), math.ceil(max(xs) + 0.25)
        # A little beyond the decades at the ends, so their tick labels are not cut off.
        x_range = (x_lo - 0.08, x_hi + 0.08)
        top = plot.getAxis("top")
        plot.showAxis("top")
        top.setPen(pg.mkPen(st.muted, width=st.pen_scale))
        top.enableAutoSIPrefix(False)
        top.setTextPen(pg.mkPen(st.foreground))
        top.setStyle(tickFont=st.font(), tickTextOffset=6, autoExpandTextSpace=True)
        set_axis_title(top, f"embedding parameters V × d at d = {d:,} (log scale)", **label_style)
        # V x d is proportional to V: the top axis is the bottom one with its labels multiplied by d.
        lo_e, hi_e = math.floor(x_lo + math.log10(d)), math.ceil(x_hi + math.log10(d))
        top.setTicks([[(e - math.log10(d), format_count(10**e)) for e in range(lo_e, hi_e + 1)], []])
        size = (18 if st.large else 14) * st.pen_scale
        outline = pg.mkPen(st.foreground, width=st.pen_scale)
        for k, point in enumerate(points):
            j = names[point.tokenizer]
            color = canvas.color_of(j)
            item, label = self._mark(k)
            self.columns.append(j)
            item.setData(x=[xs[k]], y=[bpts[k]], symbol="o", size=size, brush=color, pen=outline)
            item.setVisible(True)
            self.html[j] = (
                f"<b style='color:{color.name()}'>{esc(point.tokenizer)}</b>",
                f"{format_count(point.parameters)} parameters · {bpts[k]:.2f} bytes/token"
                + code_point_note(point.vocab_size),
            )
            label.setFont(st.font(0.95))
            label.setHtml("<br>".join(self.html[j]))
            label.setColor(st.foreground)
            label.setPos(xs[k], bpts[k])
            label.setVisible(True)
        self.hide(len(points))
        plot.getAxis("bottom").setStyle(tickLength=5)
        plot.getAxis("bottom").setTicks([[(e, format_count(10**e)) for e in range(x_lo, x_hi + 1)], []])
        canvas.reserve_bottom_axis(2.4, top_lines=2.4)
        plot.setRange(xRange=x_range, yRange=(-max(bpts) * 0.003, max(bpts) * 1.3), padding=0)

    def _mark(self, index: int) -> tuple[pg.ScatterPlotItem, pg.TextItem]:
        """The index-th marker and its label."""
        import pyqtgraph as pg

        while index >= len(self.marks):
            # Symbols drawn as paths, not from a bitmap cache: sharp at 2x and vector in an SVG.
            item = pg.ScatterPlotItem(pxMode=True, useCache=False)
            label = pg.TextItem("", anchor=(0.0, 1.0))
            label.setZValue(10)
            self.marks.append((item, label))
        item, label = self.marks[index]
        if item.scene() is None:
            self.canvas.plot.addItem(item)
            self.canvas.plot.addItem(label)
        return item, label

    # ---------------------------------------------------------------- where the markers are
    def scene_positions(self) -> list[tuple[int, QPointF]]:
        """Where each visible marker is drawn, in scene coordinates, with its tokenizer's column."""
        vb = self.canvas.plot.vb
        out = []
        for (item, _label), j in zip(self.marks, self.columns):
            xs, ys = item.getData()
            if item.isVisible() and xs is not None and len(xs):
                out.append((j, vb.mapViewToScene(QPointF(float(xs[0]), float(ys[0])))))
        return out

    def nearest(self, pos: QPointF, radius: float = 14.0) -> int | None:
        """The column of the tokenizer whose marker is nearest the scene point, within ``radius`` pixels."""
        best: tuple[float, int] | None = None
        for j, at in self.scene_positions():
            dist = math.hypot(at.x() - pos.x(), at.y() - pos.y())
            if dist <= radius and (best is None or dist < best[0]):
                best = (dist, j)
        return None if best is None else best[1]

    # ---------------------------------------------------------------- labels
    def place_labels(self) -> None:
        """Put each label beside its marker where it stays inside the plot and overlaps no other
        label or marker; when points crowd, labels shrink to the tokenizer's name (hover has the rest)."""
        area = self.canvas.plot.vb.sceneBoundingRect()
        if area.width() < 20 or area.height() < 20:
            return
        for short in (False, True):
            if self._try_labels(area, short) or short:
                return

    def _try_labels(self, area: QRectF, short: bool) -> bool:
        """Place every label (full or short); True when none overlaps anything."""
        radius, gap = 10.0, 6.0
        marks = self.scene_positions()
        markers = [QRectF(at.x() - radius, at.y() - radius, 2 * radius, 2 * radius) for _j, at in marks]
        placed = list(markers)
        visible = [(pair, j) for pair, j in zip(self.marks, self.columns) if pair[0].isVisible()]
        clean = True
        # Right, left, above, below, and the four corners in between.
        sides = ((1, -1), (-1, -1), (1, 1), (-1, 1), (0, -1), (0, 1), (1, 0), (-1, 0))
        for k, (((_item, label), j), (_j, at)) in enumerate(zip(visible, marks)):
            others = markers[:k] + markers[k + 1 :]
            name, detail = self.html[j]
            body = name if short else f"{name}<br>{detail}"
            label.setHtml(f"<div style='text-align:left'>{body}</div>")
            box = label.textItem.boundingRect()
            w, h = box.width(), box.height()
            best: tuple[int, QRectF, int] | None = None
            # Right beside the marker: a label farther out reads as another marker's.
            for (dx, dy), step in itertools.product(sides, (gap,)):
                left = {1: at.x() + step, -1: at.x() - step - w, 0: at.x() - w / 2}[dx]
                top = {-1: at.y() - step - h + 4, 1: at.y() + step - 4, 0: at.y() - h / 2}[dy]
                if dy == 0:
                    left += dx * radius
                rect = QRectF(left, top, w, h)
                score = (
                    (0 if area.contains(rect) else 4)
                    + sum(3 for other in others if rect.intersects(other))
                    + sum(2 for other in placed[len(markers) :] if rect.intersects(other))
                )
                if best is None or score < best[0]:
                    best = (score, rect, dx)
                if score == 0:
                    break
            assert best is not None
            score, rect, dx = best
            clean = clean and score == 0
            # A name that would be cut or cover another marker or name is left to the legend (and hover).
            hidden = short and (
                not area.contains(rect) or any(rect.intersects(m) for m in others + placed[len(markers) :])
            )
            label.setVisible(not hidden)
            if hidden:
                continue
            placed.append(rect)
            align = {1: "left", -1: "right", 0: "center"}[dx]
            label.setHtml(f"<div style='text-align:{align}'>{body}</div>")
            label.setAnchor(((at.x() - rect.left()) / w, (at.y() - rect.top()) / h))
        return clean
