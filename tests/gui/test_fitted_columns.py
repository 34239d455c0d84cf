"""No number in a table is cut: every column is as wide as the values it shows, at 1024 × 768 too."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtWidgets import QAbstractItemView, QTableView, QTreeView

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.merge_model import COUNT, MERGE, NEW, STEP
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.widgets.fitted_columns import clipped_cells, shown_text

from .reach import dock, docked
from .waiting import settled

# Counts as a real corpus gives them: seven digits at the top, five further down.
BIG_COUNTS = [1_884_123, 466_273, 19_021, 19_020, 9_999, 1_000] + [999] * 40


@pytest.fixture(scope="module")
def trained():
    corpus = "the cat in the hat sat on the mat. " * 20 + "def f(x):\n    return x + 1\n" * 10
    result = train_bpe(text=corpus, vocab_size=300)
    history = [
        dataclasses.replace(step, count=BIG_COUNTS[min(i, len(BIG_COUNTS) - 1)], ties=3 if i == 2 else 1)
        for i, step in enumerate(result.history)
    ]
    return result.tokenizer("big counts"), history


def show_merges(qtbot, window, trained):
    tokenizer, history = trained
    dock(window, "timelineDock").show()
    timeline = docked(window, "timelineDock", TimelineWidget)
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(tokenizer, history, 2_500_000)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    table = timeline.table
    # The columns fit, and the pane makes room for them, once the event loop turns.
    settled(qtbot, lambda: (table.viewport().size(), [table.columnWidth(c) for c in range(COUNT + 1)]))
    return table


@pytest.mark.parametrize("presentation_twice", [False, True])
def test_the_merge_tables_counts_fit_at_1024_and_its_key_columns_are_on_screen(
    qtbot, make_window, trained, presentation_twice
):
    window = make_window(size=(1024, 768))
    if presentation_twice:
        window.presentation.toggle()
        qtbot.waitUntil(window.isFullScreen)
        window.presentation.toggle()
    table = show_merges(qtbot, window, trained)
    assert table.model().index(1, COUNT).data() == "1,884,123"
    assert clipped_cells(table) == []
    viewport = table.viewport().rect()
    for col in (STEP, MERGE, NEW, COUNT):
        rect = table.visualRect(table.model().index(1, col))
        assert viewport.contains(rect), (col, rect, viewport)
    counts = [table.model().index(row, COUNT) for row in range(1, 8)]
    assert [shown_text(table, i, table.visualRect(i).width()) for i in counts] == [i.data() for i in counts]
    table.scrollToBottom()
    qtbot.waitUntil(lambda: clipped_cells(table) == [])


def test_the_merge_tables_counts_fit_in_presentation_mode(qtbot, make_window, trained):
    window = make_window(size=(1024, 768))
    window.presentation.toggle()
    table = show_merges(qtbot, window, trained)
    assert clipped_cells(table) == []


def test_every_table_in_the_window_shows_its_numbers_whole(qtbot, make_window, trained):
    window = make_window(size=(1024, 768))
    show_merges(qtbot, window, trained)
    for name in ("vocabDock", "roundTripDock"):
        dock(window, name).show()

    def shown_tables() -> list[QTableView | QTreeView]:
        views = [v for v in window.findChildren(QAbstractItemView) if v.isVisible() and v.model() is not None]
        return [v for v in views if isinstance(v, QTableView | QTreeView)]

    def geometry() -> list[tuple[object, list[int]]]:
        return [
            (v.viewport().size(), [v.columnWidth(c) for c in range(v.model().columnCount())])
            for v in shown_tables()
        ]

    settled(qtbot, geometry)
    tables = shown_tables()
    assert len(tables) >= 2
    for view in tables:
        assert clipped_cells(view) == [], view.objectName()
        view.scrollToBottom()
        qtbot.waitUntil(lambda view=view: clipped_cells(view) == [])
