"""The merge timeline exports as drawn: its plot and its table, whole, without scroll bars."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, QEvent, QRect, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QPlainTextEdit, QTableView, QWidget

from tokviz.core.training.train import train_bpe
from tokviz.gui.panels.timeline.panel import TimelineWidget

from ..texts import CAT, CAT_TRAINING
from .reach import action, dock, docked, exporter


def cat_timeline(qtbot, window, step: int | None = None) -> TimelineWidget:
    """The timeline dock shown with the lecture's cat merges (at ``step``), ready to export."""
    dock(window, "timelineDock").show()
    result = train_bpe(text=CAT, **CAT_TRAINING)
    timeline = docked(window, "timelineDock", TimelineWidget)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(result.tokenizer("lecture"), result.history, result.initial_tokens)
    if step is not None:
        timeline.set_step(step)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    qtbot.waitUntil(
        lambda: any(t.key == "dock:timelineDock" for t in exporter(window).targets()), timeout=5000
    )
    return timeline


def test_the_timeline_exports_its_plot_and_whole_table_without_scroll_bars(qtbot, make_window, tmp_path):
    window = make_window(text=CAT, size=(1008, 680))
    timeline = cat_timeline(qtbot, window)
    target = exporter(window).target("dock:timelineDock")
    with target.picture() as sheet:
        assert sheet is not timeline
        tables = sheet.findChildren(QTableView)
        assert len(tables) == 1
        table = tables[0]
        assert table.horizontalHeader().length() <= table.viewport().width()
        assert table.model().rowCount() * table.rowHeight(0) <= table.viewport().height()
        for area in sheet.findChildren(QAbstractScrollArea):
            assert not area.horizontalScrollBar().isVisibleTo(sheet)
            assert not area.verticalScrollBar().isVisibleTo(sheet)
        size = sheet.size()
    written = exporter(window).write(target, tmp_path / "timeline.png")
    image = QImage(str(written))
    assert (image.width(), image.height()) == (size.width(), size.height())


def one_pixel_details(image: QImage, area: QRect) -> int:
    """Pixels in ``area`` that are one pixel wide across: darker or lighter than both neighbours on
    their row. A 1× picture scaled up to 2× has none (each of its pixels became two); lines and
    letters drawn at 2× have many."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    rows = np.frombuffer(image.constBits(), dtype=np.uint8).reshape(image.height(), image.bytesPerLine())
    pixels = rows[:, : image.width() * 4].reshape(image.height(), image.width(), 4)[..., :3].astype(int)
    grey = pixels[area.top() : area.bottom(), area.left() : area.right()].sum(axis=2)
    left, right = grey[:, 1:-1] - grey[:, :-2], grey[:, 1:-1] - grey[:, 2:]
    return int(((left > 120) & (right > 120)).sum() + ((left < -120) & (right < -120)).sum())


def test_a_2x_export_draws_the_plot_at_2x_with_its_legend_and_the_token_strip(qtbot, make_window, tmp_path):
    window = make_window(text=CAT, size=(1008, 680))
    timeline = cat_timeline(qtbot, window, step=2)
    target = exporter(window).target("dock:timelineDock")
    with target.picture() as sheet:
        strip = sheet.findChild(QPlainTextEdit, "timelineSheetTokens")
        assert strip is not None and strip.table is timeline.view.table
        assert strip.marked.any(), "the tokens merge 2 made are outlined, as on screen"
        legend = sheet.findChild(QLabel, "timelineSheetLegend")
        assert legend is not None
        assert "tokens of the text" in legend.text() and "tokens of the training corpus" in legend.text()
        others = (QTableView, QPlainTextEdit)
        plot = max(
            (
                w
                for w in sheet.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
                if not isinstance(w, others)
            ),
            key=lambda w: w.height(),
        )
        area = QRect(plot.geometry().topLeft() * 2, plot.geometry().size() * 2)
    written = exporter(window).write(target, tmp_path / "timeline@2x.png", 2.0)
    assert one_pixel_details(QImage(str(written)), area) > 200  # the 1× grab scaled up had 0


def test_stepping_after_an_export_of_the_timeline_raises_nothing(qtbot, make_window, tmp_path):
    # The lecture's path: the demo trains, File ▸ Export panel saves the timeline, the dialog
    # closes, and Ctrl+] steps on. The exported sheet's table is gone by then; the merge table's
    # model, shared with it, must not call into what was left of it.
    window = make_window(text=CAT, size=(1024, 768))
    timeline = cat_timeline(qtbot, window)
    exporter(window).write(exporter(window).target("dock:timelineDock"), tmp_path / "timeline.png")
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the sheet is deleted
    for expected in (1, 2):
        with qtbot.waitSignal(timeline.stepShown, timeout=10000):
            action(window, "actionReplayNext").trigger()
        qtbot.waitUntil(timeline.is_ready, timeout=10000)
        assert timeline.step == expected
