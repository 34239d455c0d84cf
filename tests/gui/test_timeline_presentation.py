"""The timeline in presentation mode's larger font: axis labels apart, table rows tall enough."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont, QFontMetrics

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.style.presentation_sizes import presentation_sizes
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


def test_at_a_1024_projectors_presentation_size_the_whole_table_and_readable_plot_labels_show(
    qtbot, timeline
):
    # The timeline dock as presentation mode gives it on a 1024 × 768 projector: the whole width,
    # 470 pixels high, the presentation font of that screen.
    ui = presentation_sizes(768).ui
    timeline.resize(1024, 470)
    font = QFont(timeline.font())
    font.setPointSizeF(ui)
    timeline.setFont(font)
    table, plot = timeline.table, timeline.plot
    plot.build()
    settled(qtbot, lambda: (table.viewport().width(), table.columns_width(), plot.text_plot.vb.height()))

    header = table.horizontalHeader()
    shown = [c for c in range(header.count()) if not table.isColumnHidden(c)]
    right = max(header.sectionViewportPosition(c) + header.sectionSize(c) for c in shown)
    assert right <= table.viewport().width(), "every column whole, Corpus tokens too"
    visible_titles, hidden_titles = [], []
    for item in (plot.text_plot, plot.corpus_plot):
        for side in ("left", "right"):
            axis = item.getAxis(side)
            if axis.labelText and item.isVisible():
                (visible_titles if axis.label.isVisible() else hidden_titles).append(axis)
    for axis in visible_titles:
        assert float(axis.labelStyle["font-size"].removesuffix("pt")) >= ui - 2 - 0.05, axis.labelText
    assert plot.key.isVisible() == bool(hidden_titles), "the legend names the lines whose titles do not fit"
    if hidden_titles:
        assert "corpus tokens" in plot.key.text() and plot.key.font().pointSizeF() >= ui - 0.05
