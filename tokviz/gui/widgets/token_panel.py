"""One compared view: a tokenizer picker, its counts, a close button and the token view."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QResizeEvent
from PySide6.QtWidgets import (
    QMenu,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from tokviz.core.bpe.lecture_tokenizers import (
    CODE_POINTS,
    CharacterTokenizer,
    WordTokenizer,
    assigned_code_points,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.models.progressive import ProgressiveTokenizationModel
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.models.words import FROM_EDITOR, FROM_FILES, FROM_SAMPLE, WORDS_KEY
from tokviz.gui.text.display import visible_characters
from tokviz.gui.text.token_table import TokenTable, count_unknown
from tokviz.gui.text.unknown import unknown_id
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.widgets.boxes import column, row
from tokviz.gui.widgets.elided import ElidedLabel
from tokviz.gui.widgets.picker import TokenizerPicker
from tokviz.gui.widgets.token_view import TokenView

# Visible characters are counted (a regex pass) for texts up to this long.
MAX_COUNTED_CHARACTERS = 200_000


def lesson_stats(tokenizer: Tokenizer | None, table: TokenTable) -> str:
    """What the header adds for the lecture's tokenizers: the id space characters imply, and how
    many of a text's words the words vocabulary (or any tokenizer with an unknown id) lost as ``<unk>``."""
    if isinstance(tokenizer, CharacterTokenizer):
        unused = 1 - len(assigned_code_points()) / CODE_POINTS  # computed once, ~0.2 s
        ids = f"ids of {CODE_POINTS:,}, {unused:.0%} never assigned"
        if len(table.text) > MAX_COUNTED_CHARACTERS:
            return ids
        # A token is a code point; a reader counts grapheme clusters (👍🏽: two code points, one character).
        seen = visible_characters(table.text)
        return f"{seen:,} visible character{'s' if seen != 1 else ''} · {ids}"
    if isinstance(tokenizer, WordTokenizer):
        unknown = int(np.count_nonzero(table.ids == tokenizer.unk_id))
        return f"vocab {tokenizer.vocab_size:,} · {unknown:,} unknown"
    unknown = count_unknown(tokenizer, table) or 0  # a SentencePiece <unk>, a WordPiece [UNK]
    if unknown and tokenizer is not None:
        piece = tokenizer.vocab[int(unknown_id(tokenizer) or 0)].decode("utf-8", "replace")
        return f"{unknown:,} unknown ({piece}): text the model never sees"
    return ""


class TokenPanel(QWidget):
    """One compared view: a tokenizer picker, its counts, and the token view.

    ``closeRequested(panel)`` and ``openTokenizerRequested(panel)`` carry the panel itself.
    """

    closeRequested = Signal(QWidget)
    openTokenizerRequested = Signal(QWidget)

    def __init__(
        self, registry: TokenizerRegistryModel, key: str, number: int, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("tokenPanel")
        self.registry = registry
        # A big paste shows its first piece at once; the rest follows in the background.
        self.model = ProgressiveTokenizationModel(registry, key, self)
        self.picker = TokenizerPicker(registry, self)
        self.picker.setObjectName("tokenizerPicker")
        self.picker.setMinimumContentsLength(6)  # "GPT-2", "cl100k": four views fit a projector
        # Six views still fit 1024 pixels: a squeezed picker elides its name ("cl1…k"), never the window.
        self.picker.setMinimumWidth(self.picker.fontMetrics().horizontalAdvance("GPT-2") + 36)
        self.picker.fit_name_chars = 24  # "multilingual.tiktoken" whole when the header has room
        self.stats = ElidedLabel("", self)
        self.stats.setObjectName("tokenStats")
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # Narrow views clip the counts (the tooltip keeps them) instead of widening the window.
        self.stats.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        # A second header line for the lecture's tokenizers (what each one costs, see lesson_stats)
        # and for a tokenizer whose loader had to guess ("⚠ pre-tokenizer assumed: GPT-2").
        self.lesson = ElidedLabel("", self)
        self.lesson.setObjectName("lessonStats")
        self.lesson.setContentsMargins(6, 0, 4, 2)
        self.lesson.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.lesson.hide()
        self.busy = ElidedLabel("", self)
        self.busy.setObjectName("busyLabel")
        self.busy.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # as the counts
        self.close_button = QToolButton(self)
        self.close_button.setObjectName("closeView")
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Close this view")
        self.view = TokenView(self)
        self._lesson = ""  # the second header line's own text (the counts join it when cramped)
        self.model.display_options = lambda: self.view.options
        self.words_button = self._words_button()
        self.set_number(number)

        header = row(
            self.picker,
            self.words_button,
            (self.stats, 1),
            (self.busy, 1),  # shown only while busy, sharing the counts' room
            self.close_button,
            margins=(4, 2, 4, 2),
        )
        column(header, self.lesson, (self.view, 1), parent=self, margins=0, spacing=0)

        self.picker.show_key(key)
        self.picker.picked.connect(self.select_tokenizer)
        self.picker.openRequested.connect(lambda: self.openTokenizerRequested.emit(self))
        self.close_button.clicked.connect(lambda: self.closeRequested.emit(self))
        self.model.busyChanged.connect(self._on_busy)
        self.model.tokenizerChanged.connect(self._on_busy)
        self.model.progressed.connect(self._on_busy)
        self.model.tokenizerChanged.connect(self._update_words_button)
        self._on_busy()
        self._update_words_button()

    def _words_button(self) -> QToolButton:
        """The "Vocabulary" menu of a words view: which corpus the word-level vocabulary is built from."""
        button = QToolButton(self)
        button.setObjectName("wordsCorpusButton")
        button.setText("Vocab")
        button.setAccessibleName("Words vocabulary corpus")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        group = QActionGroup(menu)
        self.words_actions: dict[str, QAction] = {}
        for source, label in (
            (FROM_SAMPLE, "tokviz's word list (other words are <unk>)"),
            (FROM_EDITOR, "From the editor's text (follows your edits)"),
            (FROM_FILES, "From text files…"),
        ):
            act = menu.addAction(label)
            act.setCheckable(True)
            group.addAction(act)
            act.triggered.connect(lambda _on=False, s=source: self.choose_words_source(s))
            self.words_actions[source] = act
        button.setMenu(menu)
        return button

    def choose_words_source(self, source: str, files: list[str] | None = None) -> None:
        """Build the words vocabulary from ``source``; for files, ask for them unless ``files`` is given."""
        if source == FROM_FILES and files is None:
            files, _ = file_dialogs.get_open_file_names(
                self, "Corpus for the words vocabulary", "", "Text files (*.txt *.md *.py);;All files (*)"
            )
            if not files:
                self._update_words_button()
                return
        self.registry.words.set_source(source, files or [])
        self._update_words_button()

    def _update_words_button(self, *_args: object) -> None:
        words = self.registry.words
        self.words_button.setVisible(self.model.key == WORDS_KEY)
        for source, act in self.words_actions.items():
            act.setChecked(source == words.source)
        self.words_button.setToolTip(words.describe(self.registry.tokenizer(WORDS_KEY)))

    def set_number(self, number: int) -> None:
        """Accessible names say which view this is ("view 1" is the reference for difference marks)."""
        self.number = number
        self.picker.setAccessibleName(f"Tokenizer of view {number}")
        self.view.setAccessibleName(f"Token view {number}")
        self.close_button.setAccessibleName(f"Close view {number}")

    def select_tokenizer(self, key: str) -> None:
        """Show the text under another tokenizer (loaded in the background if needed)."""
        self.picker.show_key(key)
        self.model.set_tokenizer(key)

    def _on_busy(self, *_args: object) -> None:
        if self.model.tokenizer is None:
            self.busy.setText(f"loading {self.registry.label(self.model.key)}…")
        elif self.model.busy:
            progress = self.model.progress()
            done = f" {progress[0] / max(progress[1], 1):.0%}" if progress is not None else ""
            self.busy.setText(f"tokenizing…{done}")
        else:
            self.busy.setText("")
        # Hidden when idle (the counts get the room); "loading cl100k…" never gets zero width.
        self.busy.setVisible(bool(self.busy.text()))

    def update_stats(self, n_bytes: int) -> None:
        """Header text: token count and bytes per token of the current table."""
        table = self.view.table
        if table is None or not self.model.current:
            self.stats.setText("")
            self._lesson = ""
            self.lesson.hide()
            return
        n = len(table)
        ratio = f"{n_bytes / n:.2f}" if n else "–"
        self.stats.set_text_forms(f"{n:,} tokens · {ratio} bytes/token", f"{n:,} tokens", f"{n:,} tok")
        tok = self.model.tokenizer
        guesses = [f"⚠ {a}" for a in tok.assumptions] if tok is not None else []
        self._lesson = " · ".join(filter(None, [lesson_stats(tok, table), *guesses]))
        self._place_stats()

    def _place_stats(self) -> None:
        """A header too narrow for even the token count (six views on a projector) shows the counts
        on the second line instead, so the number is never cut to nothing."""
        count = self.stats.text().split(" ", 1)[0]
        shortest = f"{count} tok…"  # the shortest header form (see update_stats)
        cramped = self.stats.fontMetrics().horizontalAdvance(shortest) > self.stats.contentsRect().width()
        moved = bool(count) and cramped
        self.stats.set_blank(moved)
        lesson = " · ".join(filter(None, [self.stats.text() if moved else "", self._lesson]))
        shorter = " · ".join(filter(None, [f"{count} tokens" if moved else "", self._lesson]))
        self.lesson.set_text_forms(lesson, *([shorter] if shorter != lesson else []))
        self.lesson.setVisible(bool(lesson))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._place_stats()
