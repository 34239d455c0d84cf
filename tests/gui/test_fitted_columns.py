"""No number in a table is cut: every column is as wide as the values it shows, at 1024 × 768 too."""

from __future__ import annotations

import dataclasses

import pytest
from PySide6.QtWidgets import QAbstractItemView, QTableView, QTreeView

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.merge_model import COUNT, MERGE, NEW, STEP
from tokviz.gui.widgets.fitted_columns import clipped_cells, shown_text

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
    docks = window.training
    docks.timeline_dock.show()
    timeline = docks.timeline
    with qtbot.waitSignal(timeline.traceReady, timeout=30000):
        timeline.set_tokenizer(tokenizer, history, 2_500_000)
    qtbot.waitUntil(timeline.is_ready, timeout=30000)
    qtbot.wait(200)  # the columns fit, and the pane makes room for them, once the event loop turns
    return timeline.table


@pytest.mark.parametrize("presentation_twice", [False, True])
def test_the_merge_tables_counts_fit_at_1024_and_its_key_columns_are_on_screen(
    qtbot, make_window, trained, presentation_twice
):
    window = make_window(size=(1024, 768))
    if presentation_twice:
        window.presentation.toggle()
        qtbot.wait(50)
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
    qtbot.wait(50)
    assert clipped_cells(table) == []


def test_the_merge_tables_counts_fit_in_presentation_mode(qtbot, make_window, trained):
    window = make_window(size=(1024, 768))
    window.presentation.toggle()
    table = show_merges(qtbot, window, trained)
    assert clipped_cells(table) == []


def test_every_table_in_the_window_shows_its_numbers_whole(qtbot, make_window, trained):
    window = make_window(size=(1024, 768))
    show_merges(qtbot, window, trained)
    for dock in ("vocabulary", "roundtrip"):
        found = window.installed.get(dock)
        if hasattr(found, "show"):
            found.show()
    qtbot.wait(200)
    views = [v for v in window.findChildren(QAbstractItemView) if v.isVisible() and v.model() is not None]
    tables = [v for v in views if isinstance(v, QTableView | QTreeView)]
    assert len(tables) >= 2
    for view in tables:
        assert clipped_cells(view) == [], view.objectName()
        view.scrollToBottom()
        qtbot.wait(50)
        assert clipped_cells(view) == [], view.objectName()
