"""The segmentation lattice of a word: every piece a unigram model could cut it into, and the path it takes.

BPE merges greedily in the order it learned; a unigram model (Kudo, 2018) weighs every way of
cutting a word into vocabulary pieces and keeps the most probable. This panel shows that choice
for the reference view's tokenizer (or any other) and a word typed in or selected in the editor:
the lattice with each piece's log-probability, the best path, the N best segmentations and
sampled ones; BPE-dropout samples for a BPE model. View ▸ Segmentation lattice (Ctrl+Shift+U).
"""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget

from tokviz.core.analysis.lattice import lattice_problem
from tokviz.core.io.resources import resource_path
from tokviz.gui.context import PanelContext
from tokviz.gui.panels.docking import follow_window_style
from tokviz.gui.panels.lattice.canvas import LatticeCanvas
from tokviz.gui.panels.lattice.view import (
    LatticeRequest,
    LatticeResult,
    LatticeView,
    compute_lattice,
    segmentation_text,
)

LECTURE_UNIGRAM = ("models", "pydocs-unigram-2000.model")
"""The bundled Unigram model the lecture's lattice slides use (resources/models/README.md)."""


def install(context: PanelContext) -> QDockWidget:
    """Add the lattice dock (hidden at first). It shows the reference view's tokenizer until
    another is picked, or a Unigram model trained or opened while it shows a tokenizer with no
    lattice; it takes the editor's selection when it appears or on "Selection"."""
    view = LatticeView(context.tokenizers, context.parent_widget())
    dock = context.add_dock(
        view,
        "Segmentation lattice",
        "latticeDock",
        shortcut="Ctrl+Shift+U",
        action_text="Segmentation &lattice",
    )

    def take_selection() -> None:
        start, end = context.editor_selection()
        if end > start:
            view.set_text(context.editor_text()[start:end])

    def on_visible(visible: bool) -> None:
        # A dock restored open at start-up waits for the window's first paint and tokens.
        if visible:
            context.when_views_ready(take_selection_or_refresh)

    def take_selection_or_refresh() -> None:
        start, end = context.editor_selection()
        if end > start:
            take_selection()
        else:
            view.refresh()

    def lecture_model() -> None:
        path = resource_path(*LECTURE_UNIGRAM)
        view.set_tokenizer(context.tokenizers.add_file_entry(str(path), "Lecture Unigram"))

    def follow_reference(key: str) -> None:
        view.key = key
        view.picker.show_key(key)
        if dock.isVisible():
            view.set_tokenizer(key)

    follow_reference(context.first_view_key())
    context.referenceViewChanged.connect(follow_reference)
    _show_new_unigrams(context, view)
    dock.visibilityChanged.connect(on_visible)
    view.selection_button.clicked.connect(take_selection)
    view.lectureModelRequested.connect(lecture_model)
    view.openTokenizerRequested.connect(context.open_tokenizer_dialog)
    follow_window_style(context, view)
    return dock


def _show_new_unigrams(context: PanelContext, view: LatticeView) -> None:
    """A model the user trains or opens that has a lattice (a Unigram) replaces a tokenizer that has
    none in ``view``: training a Unigram and opening the panel shows that model's lattice."""

    def offer(key: str) -> None:
        current = view.tokenizer
        if current is not None and lattice_problem(current) is None:
            return
        tok = context.tokenizers.tokenizer(key)
        if tok is not None and lattice_problem(tok) is None:
            view.set_tokenizer(key)

    context.tokenizers.tokenizerLoaded.connect(lambda key: offer(key) if key.startswith("model:") else None)
    context.tokenizers.fileOpened.connect(offer)


__all__ = [
    "LECTURE_UNIGRAM",
    "LatticeCanvas",
    "LatticeRequest",
    "LatticeResult",
    "LatticeView",
    "compute_lattice",
    "install",
    "segmentation_text",
]
