"""The live training feed: while a model trains, its merges stream into the table, the plot and the caption.

The timeline hands the feed what it showed before training (its source and step), so that a
cancelled or failed run puts that back.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QLabel, QTableView

from tokviz.core.bpe.merges import MergeStep
from tokviz.gui.models.merge_model import MergeTableModel
from tokviz.gui.panels.timeline.captions import TRAINING_CAPTION, live_caption
from tokviz.gui.panels.timeline.plot import TokenCountPlot
from tokviz.gui.panels.timeline.replayer import ReplaySource

# What the timeline showed before a run: its source (None for nothing) and step.
Saved = tuple[ReplaySource | None, int]


class LiveFeed:
    """Streams a running trainer's merge batches into a merge table, a token-count plot and a caption."""

    def __init__(
        self, model: MergeTableModel, table: QTableView, plot: TokenCountPlot, caption: QLabel
    ) -> None:
        self.model = model
        self.table = table
        self.plot = plot
        self.caption = caption
        self.active = False
        self.saved: Saved | None = None

    def begin(self, planned_merges: int, saved: Saved) -> None:
        """A run started: empty the table and the corpus curve (its x axis over 0..planned_merges)."""
        self.active = True
        self.saved = saved
        self.model.begin_live()
        self.plot.begin_live(planned_merges)
        self.caption.setText(TRAINING_CAPTION)

    def append(self, records: Sequence[MergeStep]) -> None:
        """A batch of merges (the table follows the end while it is scrolled to the bottom)."""
        if not self.active or not records:
            return
        bar = self.table.verticalScrollBar()
        at_end = bar.value() >= bar.maximum() - 2
        self.model.append_merges(records)
        self.plot.append_corpus(records)
        self.caption.setText(live_caption(records[-1]))
        if at_end:
            self.table.scrollToBottom()

    def end(self) -> Saved | None:
        """The run ended: what was shown before it."""
        self.active = False
        saved, self.saved = self.saved, None
        return saved
