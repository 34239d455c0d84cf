"""The merge timeline exports as drawn: its plot and its table, whole, without scroll bars."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractScrollArea, QTableView

from tokviz.core.training.train import train_bpe
from tokviz.gui.panels.timeline.panel import TimelineWidget

from ..texts import CAT, CAT_TRAINING
from .reach import action, dock, docked, exporter


def test_the_timeline_exports_its_plot_and_whole_table_without_scroll_bars(qtbot, make_window, tmp_path):
    window = make_window(text=CAT, size=(1008, 680))
    dock(window, "timelineDock").show()
    result = train_bpe(text=CAT, **CAT_TRAINING)
    timeline = docked(window, "timelineDock", TimelineWidget)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(result.tokenizer("lecture"), result.history, result.initial_tokens)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    qtbot.waitUntil(
        lambda: any(t.key == "dock:timelineDock" for t in exporter(window).targets()), timeout=5000
    )
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


def test_stepping_after_an_export_of_the_timeline_raises_nothing(qtbot, make_window, tmp_path):
    # The lecture's path: the demo trains, File ▸ Export panel saves the timeline, the dialog
    # closes, and Ctrl+] steps on. The exported sheet's table is gone by then; the merge table's
    # model, shared with it, must not call into what was left of it.
    window = make_window(text=CAT, size=(1024, 768))
    dock(window, "timelineDock").show()
    result = train_bpe(text=CAT, **CAT_TRAINING)
    timeline = docked(window, "timelineDock", TimelineWidget)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(result.tokenizer("lecture"), result.history, result.initial_tokens)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    qtbot.waitUntil(
        lambda: any(t.key == "dock:timelineDock" for t in exporter(window).targets()), timeout=5000
    )
    exporter(window).write(exporter(window).target("dock:timelineDock"), tmp_path / "timeline.png")
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # the sheet is deleted
    for expected in (1, 2):
        with qtbot.waitSignal(timeline.stepShown, timeout=10000):
            action(window, "actionReplayNext").trigger()
        qtbot.waitUntil(timeline.is_ready, timeout=10000)
        assert timeline.step == expected
