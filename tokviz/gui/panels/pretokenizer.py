"""The pre-tokenizer view: the chunks a regex cuts the text into before any merge, drawn on the text.

BPE merges never cross a chunk boundary, so the chunks bound every token: " the" can become one
token only because GPT-2's pattern keeps a leading space with its word. The view shows the
chunks of the GPT-2 or cl100k pattern (or none, or a custom regex, validated as it is typed) as
boxes drawn by the token view's own painter, the pattern itself, and, for the two published
patterns, the tokens of the tokenizer that learned its merges on those chunks, with the chunk
boundaries marked, so the claim can be checked by eye.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QHelpEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSplitter,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.pretokenize import PatternTimeoutError, Pretokenizer, resolve_pretokenizer, validate_pattern
from tokviz.core.registry import byte_tokenizer
from tokviz.gui.context import PanelContext
from tokviz.gui.drawing.images import VECTOR_PROPERTY
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.docking import follow_editor_text, follow_window_style
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import DisplayOptions, TokenDetails
from tokviz.gui.text.token_table import INDEX, TokenTable
from tokviz.gui.text.utf16 import utf16_offsets
from tokviz.gui.widgets.token_view import TokenView
from tokviz.gui.workers.debounce import Debouncer

# Longer texts are cut here: the view is for looking at, and a regex over megabytes takes a while.
MAX_PRETOK_CHARS = 200_000
CHOICES = (
    ("gpt2", "GPT-2"),
    ("cl100k", "cl100k"),
    ("none", "none (whole text)"),
    ("custom", "Custom regex"),
)


def chunk_table(text: str, spans: list[tuple[int, int]]) -> TokenTable:
    """A :class:`TokenTable` whose "tokens" are the chunks (id = chunk number, so neighbours get distinct colours)."""
    n = len(spans)
    if not n:
        return TokenTable.empty(text)
    start = np.fromiter((s for s, _ in spans), dtype=INDEX, count=n)
    end = np.fromiter((e for _, e in spans), dtype=INDEX, count=n)
    offsets = utf16_offsets(text).astype(INDEX)
    index = np.arange(n, dtype=INDEX)
    flags = np.zeros(n, dtype=bool)
    return TokenTable(
        text, index, start, end, offsets[start], offsets[end], flags, flags.copy(), index.copy()
    )


class ChunkView(TokenView):
    """A token view whose boxes are pre-tokenizer chunks; hovering shows the chunk, not a token card."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pretokChunks")
        self.setAccessibleName("Pre-tokenizer chunks")
        self.setAccessibleDescription("The text cut into the chunks BPE merges stay inside")

    def details(self, index: int) -> TokenDetails | None:
        return None

    def chunk_text(self, index: int) -> str:
        """The text of chunk ``index``."""
        assert self.table is not None
        return self.table.text[int(self.table.start[index]) : int(self.table.end[index])]

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            index = self.token_at(event.pos())
            if index < 0 or self.table is None:
                QToolTip.hideText()
            else:
                chunk = self.chunk_text(index)
                n_bytes = len(chunk.encode("utf-8", errors="surrogatepass"))
                rect = next((b.rect for b in self._boxes if b.token == index), QRectF())
                QToolTip.showText(
                    event.globalPos(),
                    f"chunk {index + 1}: {chunk!r} · {len(chunk)} characters · {n_bytes} bytes",
                    self.viewport(),
                    rect.toRect(),
                )
            return True
        return super().viewportEvent(event)


class PretokView(QWidget):
    """The pre-tokenizer panel: pattern picker and text, chunk view, and the matching tokenizer's tokens."""

    patternChanged = Signal(str)

    def __init__(self, registry: TokenizerRegistryModel | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pretokView")
        self.setProperty(VECTOR_PROPERTY, True)
        self.registry = registry
        self.text = ""
        self.pretokenizer: Pretokenizer = resolve_pretokenizer("gpt2")
        self._custom = ""
        self._bytes = byte_tokenizer()
        self._waiting: str | None = None

        self.choice = QComboBox(self)
        self.choice.setObjectName("pretokChoice")
        self.choice.setAccessibleName("Pre-tokenizer")
        for key, label in CHOICES:
            self.choice.addItem(label, key)
        self.pattern = QLineEdit(self)
        self.pattern.setObjectName("pretokPattern")
        self.pattern.setAccessibleName("Pre-tokenizer pattern")
        mono = QFont()
        mono.setFamilies(["DejaVu Sans Mono", "Menlo", "Consolas", "Noto Sans Mono"])
        mono.setStyleHint(QFont.StyleHint.Monospace)
        self.pattern.setFont(mono)
        self.error = QLabel(self)
        self.error.setObjectName("pretokError")
        self.error.setStyleSheet("color: #c62828;")
        self.error.setWordWrap(True)
        self.error.hide()
        self.whitespace = QCheckBox("Show whitespace (· ↵ →)", self)
        self.whitespace.setObjectName("pretokWhitespace")
        self.whitespace.setChecked(True)
        self.show_tokens = QCheckBox("Tokens inside the chunks", self)
        self.show_tokens.setObjectName("pretokShowTokens")
        self.show_tokens.setToolTip("The tokens of the tokenizer whose merges were learned on these chunks")
        self.show_tokens.setChecked(True)
        self.stats = QLabel(self)
        self.stats.setObjectName("pretokStats")
        self.stats.setWordWrap(True)
        self.stats.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.view = ChunkView(self)
        self.tokens_label = QLabel(self)
        self.tokens_label.setObjectName("pretokTokensLabel")
        self.tokens_label.setWordWrap(True)  # a long caption wraps rather than widening the dock
        self.tokens_view = TokenView(self)
        self.tokens_view.setObjectName("pretokTokens")
        self.tokens_view.setAccessibleName("Tokens with chunk boundaries")
        self.tokens_view.set_show_chunks(True)
        tokens_box = QWidget(self)
        tokens_layout = QVBoxLayout(tokens_box)
        tokens_layout.setContentsMargins(0, 0, 0, 0)
        tokens_layout.addWidget(self.tokens_label)
        tokens_layout.addWidget(self.tokens_view, 1)
        self.tokens_box = tokens_box
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.setObjectName("pretokSplitter")
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(self.view)
        splitter.addWidget(tokens_box)

        top = QHBoxLayout()
        top.addWidget(QLabel("Pre-tokenizer:", self))
        top.addWidget(self.choice)
        top.addWidget(self.pattern, 1)
        options = QHBoxLayout()
        options.addWidget(self.whitespace)
        options.addWidget(self.show_tokens)
        options.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.error)
        layout.addLayout(options)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.stats)

        # A pattern is checked and applied once typing pauses.
        self._pattern_debouncer = Debouncer(200, self)
        self._pattern_debouncer.triggered.connect(self._apply_custom)
        self.choice.currentIndexChanged.connect(self._on_choice)
        self.pattern.textEdited.connect(self._pattern_debouncer.trigger)
        self.whitespace.toggled.connect(self._on_whitespace)
        self.show_tokens.toggled.connect(lambda *_: self._refresh_tokens())
        if registry is not None:
            registry.tokenizerLoaded.connect(self._on_loaded)
        self._on_whitespace(True)
        self._on_choice()

    # ---------------------------------------------------------------- pattern
    @property
    def kind(self) -> str:
        """``gpt2``, ``cl100k``, ``none`` or ``custom``."""
        return str(self.choice.currentData())

    def set_pattern(self, spec: str) -> bool:
        """Use a named pre-tokenizer (``gpt2``, ``cl100k``, ``none``) or a custom regex; False if it is invalid."""
        row = self.choice.findData(spec)
        if row >= 0 and spec != "custom":
            self.choice.setCurrentIndex(row)
            return True
        self.choice.setCurrentIndex(self.choice.findData("custom"))
        self.pattern.setText(spec)
        return self._apply_custom()

    def _on_choice(self, *_args: object) -> None:
        kind = self.kind
        if kind == "custom":
            self.pattern.setReadOnly(False)
            if not self._custom:
                self._custom = self.pretokenizer.pattern or r"\w+|\s+|[^\w\s]+"
            self.pattern.setText(self._custom)
            self.pattern.setFocus()
            self._apply_custom()
            return
        self.pattern.setReadOnly(True)
        self.pretokenizer = resolve_pretokenizer(kind)
        self.pattern.setText(self.pretokenizer.pattern or "(no pattern: the whole text is one chunk)")
        self._set_error(None)
        self._refresh()
        self.patternChanged.emit(kind)

    def _apply_custom(self) -> bool:
        if self.kind != "custom":
            return True
        spec = self.pattern.text()
        message = validate_pattern(spec) if spec else "the pattern is empty"
        self._set_error(message)
        if message is not None:
            return False
        self._custom = spec
        self.pretokenizer = resolve_pretokenizer(spec)
        self._refresh()
        self.patternChanged.emit(spec)
        return True

    def _set_error(self, message: str | None) -> None:
        self.error.setText(message or "")
        self.error.setVisible(message is not None)
        self.pattern.setProperty("invalid", message is not None)
        self.pattern.setStyleSheet("QLineEdit { border: 2px solid #c62828; }" if message else "")
        self.pattern.setToolTip(message or "")

    @property
    def error_message(self) -> str | None:
        """Why the custom pattern is not used, or None."""
        return self.error.text() if self.error.isVisibleTo(self) and self.error.text() else None

    # ---------------------------------------------------------------- text and drawing
    def set_text(self, text: str) -> None:
        """Show the chunks of ``text`` (cut at :data:`MAX_PRETOK_CHARS`)."""
        self.text = text[:MAX_PRETOK_CHARS]
        self._refresh()

    def spans(self) -> list[tuple[int, int]]:
        """The chunks of the current text, as code-point ranges."""
        return self.pretokenizer.spans(self.text)

    def _refresh(self) -> None:
        try:
            spans = self.spans()
        except PatternTimeoutError as exc:
            # A custom pattern that passed the trial but backtracks on this text ran to its time
            # limit: say so under the pattern and show the text as one chunk, never a traceback.
            self._set_error(str(exc))
            spans = [(0, len(self.text))] if self.text else []
        table = chunk_table(self.text, spans)
        self.view.set_content(table, self._bytes)
        if spans:
            lengths = [e - s for s, e in spans]
            longest = int(np.argmax(lengths))
            s, e = spans[longest]
            cut = f" (first {MAX_PRETOK_CHARS:,} characters)" if len(self.text) >= MAX_PRETOK_CHARS else ""
            self.stats.setText(
                f"{len(spans):,} chunks{cut} · longest {self.text[s:e]!r} ({lengths[longest]} characters) · "
                "merges happen only inside a chunk, so no token crosses a boundary"
            )
        else:
            self.stats.setText("No text.")
        self._refresh_tokens()

    def _tokenizer_key(self) -> str | None:
        return self.kind if self.kind in ("gpt2", "cl100k") else None

    def _refresh_tokens(self) -> None:
        key = self._tokenizer_key()
        show = self.show_tokens.isChecked()
        self.tokens_box.setVisible(show)
        if not show:
            return
        if key is None or self.registry is None:
            self.tokens_label.setText(
                "Tokens are shown for GPT-2 and cl100k: their merges were learned on the chunks of their own patterns."
            )
            self.tokens_view.clear_content()
            return
        tok = self.registry.tokenizer(key)
        if tok is None:
            self._waiting = key
            self.tokens_label.setText(f"Loading {self.registry.label(key)}…")
            self.registry.ensure_loaded(key)
            return
        table = TokenTable.encode(tok, self.text)
        crossing = _tokens_crossing(table, self.spans()) if len(table) else 0
        self.tokens_label.setText(
            f"<b>{self.registry.label(key)}</b> tokens, chunk boundaries marked |: {len(table):,} tokens, "
            f"{crossing} cross a boundary"
        )
        self.tokens_view.set_content(table, tok)

    def _on_loaded(self, key: str) -> None:
        if key == self._waiting:
            self._waiting = None
            self._refresh_tokens()

    def _on_whitespace(self, on: bool) -> None:
        options = DisplayOptions(whitespace=on)
        self.view.set_options(options)
        self.tokens_view.set_options(options)

    def set_colors(self, colors: TokenColors) -> None:
        """Use a theme's token colours."""
        self.view.set_colors(colors)
        self.tokens_view.set_colors(colors)

    def set_text_font(self, font: QFont) -> None:
        """Draw chunks and tokens in ``font`` (the editor's)."""
        self.view.setFont(font)
        self.tokens_view.setFont(font)


def _tokens_crossing(table: TokenTable, spans: list[tuple[int, int]]) -> int:
    """How many tokens start in one chunk and end in another (zero for a BPE tokenizer on its own pattern).

    Special tokens are cut out before pre-tokenization, so they are not counted.
    """
    if not spans:
        return 0
    ends = np.array([e for _, e in spans], dtype=np.int64)
    start_chunk = np.searchsorted(ends, table.start, side="right")
    last_chunk = np.searchsorted(ends, table.end - 1, side="right")
    return int(((start_chunk != last_chunk) & ~table.special).sum())


def install(context: PanelContext) -> QDockWidget:
    """Add the pre-tokenizer dock (hidden at first; View menu and Ctrl+Shift+H toggle it); it follows the editor."""
    view = PretokView(context.tokenizers, context.parent_widget())
    dock = context.add_dock(
        view, "Pre-tokenizer chunks", "pretokDock", "Ctrl+Shift+H", action_text="&Pre-tokenizer chunks"
    )
    follow_editor_text(context, dock, view.set_text)
    follow_window_style(context, view)
    return dock


__all__ = [
    "CHOICES",
    "ChunkView",
    "PretokView",
    "chunk_table",
    "install",
]
