"""The timeline in presentation mode's larger font: axis labels apart, table rows tall enough."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetrics

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.window.layout_plots import plot_text_problems

from ..texts import CAT, CAT_TRAINING
from .waiting import settled

PRESENTATION_POINTS = 20


@pytest.fixture
def timeline(qtbot):
    widget = TimelineWidget(TokenizerRegistryModel())
    qtbot.addWidget(widget)
    widget.resize(1000, 330)
    widget.show()
    model = train_bpe(text=CAT, **CAT_TRAINING)
    widget.set_text(CAT)
    with qtbot.waitSignal(widget.traceReady, timeout=30000):
        widget.set_tokenizer(model.tokenizer("lecture"), model.history, model.initial_tokens)
    qtbot.waitUntil(widget.is_ready, timeout=30000)
    return widget


def presentation_font(widget: TimelineWidget) -> None:
    font = QFont(widget.font())
    font.setPointSize(PRESENTATION_POINTS)
    widget.setFont(font)


def test_the_plot_axes_space_their_labels_for_a_large_font(qtbot, timeline):
    timeline.plot.build()
    timeline.plot.flush()
    presentation_font(timeline)
    problems = settled(qtbot, lambda: plot_text_problems(timeline.plot.widget))
    overlaps = [p for p in problems if p.kind == "overlapping text"]
    assert not overlaps, overlaps


def test_merge_table_rows_grow_with_the_font(qtbot, timeline):
    presentation_font(timeline)
    table = timeline.table
    needed = QFontMetrics(table.font()).height()
    qtbot.waitUntil(lambda: table.rowHeight(0) >= needed)
