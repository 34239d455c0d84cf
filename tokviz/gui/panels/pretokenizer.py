"""The pre-tokenizer view: the chunks a regex cuts the text into before any merge, drawn on the text.

BPE merges never cross a chunk boundary, so the chunks bound every token: " the" can become one
token only because GPT-2's pattern keeps a leading space with its word. The view shows the
chunks of the GPT-2 or cl100k pattern (or none, or a custom regex, validated as it is typed) as
boxes drawn by the token view's own painter, the pattern itself, and, for the two published
patterns, the tokens of the tokenizer that learned its merges on those chunks, with the chunk
boundaries marked, so the claim can be checked by eye.

Every regex the view runs (the chunks, a custom pattern's trial, the tokens) runs in the background
(:func:`compute_chunks` in a :class:`~tokviz.gui.workers.latest.LatestJob`), so a pattern that
backtracks keeps the window turning until its time limit makes it the panel's one-line error;
only the newest request is shown. Typing a pattern is checked at once only for its syntax.
"""

from __future__ import annotations

from dataclasses import dataclass

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

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import PretokenizerError
from tokviz.core.formats.registry import byte_tokenizer
from tokviz.core.pretok.pretokenize import (
    GPT2_PUBLISHED_PATTERN,
    PatternTimeoutError,
    Pretokenizer,
    SpecialSplitter,
    resolve_pretokenizer,
)
from tokviz.core.pretok.regex_bounds import check_pattern_bounds
from tokviz.gui.context import PanelContext
from tokviz.gui.drawing.images import VECTOR_PROPERTY
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.docking import follow_editor_text, follow_window_style
from tokviz.gui.style.fonts import mono_font
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.text.display import DisplayOptions, TokenDetails
from tokviz.gui.text.token_table import INDEX, TokenTable
from tokviz.gui.text.utf16 import utf16_offsets
from tokviz.gui.widgets.token_view import TokenView
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.latest import LatestJob

# Longer texts are cut here: the view is for looking at, and a regex over megabytes takes a while.
MAX_PRETOK_CHARS = 200_000
GPT2_REWRITE_NOTE = r"As GPT-2 published it; tiktoken's rewrite (possessive ++, \s++$) cuts the same chunks."
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


@dataclass(frozen=True)
class ChunkResult:
    """What :func:`compute_chunks` hands back to the view.

    ``pretokenizer`` is None when the pattern was refused (``error`` says why; the view keeps its
    last chunks); otherwise ``error`` is set when the pattern ran past its time limit on this text
    and the text is shown as one chunk.
    """

    spec: str
    text: str
    pretokenizer: Pretokenizer | None
    spans: list[tuple[int, int]]
    table: TokenTable | None
    tokens: TokenTable | None
    tokenizer: Tokenizer | None
    crossing: int
    error: str | None


def compute_chunks(spec: str, text: str, tokenizer: Tokenizer | None) -> ChunkResult:
    """Resolve ``spec``, cut ``text`` into chunks and encode it with ``tokenizer`` (background work).

    Resolving a custom pattern runs its trial on hostile texts, and cutting runs it with a time
    limit: both can take seconds, so this runs in a worker thread, never the GUI's.
    """
    try:
        pre = resolve_pretokenizer(spec)
    except PretokenizerError as exc:
        return ChunkResult(spec, text, None, [], None, None, None, 0, str(exc))
    if tokenizer is not None and tokenizer.pretokenizer == pre:
        # The tokenizer's own pattern: cut as its engine does (tiktoken's Unicode for gpt2, cl100k,
        # o200k and .tiktoken files), so no token is shown crossing a chunk it does not cross.
        pre = tokenizer.pretokenizer
    error: str | None = None
    try:
        spans = _chunk_spans(pre, text, tokenizer)
    except PatternTimeoutError as exc:
        # A pattern that passed the trial but backtracks on this text ran to its time limit: say
        # so under the pattern and show the text as one chunk, never a traceback.
        error = str(exc)
        spans = [(0, len(text))] if text else []
    tokens = TokenTable.encode(tokenizer, text) if tokenizer is not None else None
    crossing = _tokens_crossing(tokens, spans) if tokens is not None and len(tokens) else 0
    return ChunkResult(spec, text, pre, spans, chunk_table(text, spans), tokens, tokenizer, crossing, error)


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
        # The spec the chunks are computed for: a named pattern, or a custom one that compiles.
        self._spec = "gpt2"
        self._spans: list[tuple[int, int]] = []
        self._spans_text = ""
        self._bytes = byte_tokenizer()
        self._waiting: str | None = None
        self._jobs = LatestJob(self)

        self.choice = QComboBox(self)
        self.choice.setObjectName("pretokChoice")
        self.choice.setAccessibleName("Pre-tokenizer")
        for key, label in CHOICES:
            self.choice.addItem(label, key)
        self.pattern = QLineEdit(self)
        self.pattern.setObjectName("pretokPattern")
        self.pattern.setAccessibleName("Pre-tokenizer pattern")
        self.pattern.setFont(mono_font(self.font().pointSizeF()))  # the editor's monospace, with fallbacks
        self.pattern_note = QLabel(GPT2_REWRITE_NOTE, self)
        self.pattern_note.setObjectName("pretokPatternNote")
        self.pattern_note.setWordWrap(True)
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
        layout.addWidget(self.pattern_note)
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
        self.show_tokens.toggled.connect(lambda *_: self._refresh())
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
        self.pattern_note.setVisible(kind == "gpt2")
        if kind == "custom":
            self.pattern.setReadOnly(False)
            if not self._custom:
                self._custom = self.pretokenizer.pattern or r"\w+|\s+|[^\w\s]+"
            self.pattern.setText(self._custom)
            self.pattern.setFocus()
            self._apply_custom()
            return
        self.pattern.setReadOnly(True)
        self.pretokenizer = resolve_pretokenizer(kind)  # a named pattern: compiled, nothing run
        self._spec = kind
        shown = GPT2_PUBLISHED_PATTERN if kind == "gpt2" else self.pretokenizer.pattern
        self.pattern.setText(shown or "(no pattern: the whole text is one chunk)")
        self.pattern.setCursorPosition(0)  # read from its start, as written
        self.pattern.setToolTip(shown or "")
        self._set_error(None)
        self._refresh()
        self.patternChanged.emit(kind)

    def _apply_custom(self) -> bool:
        """Use the typed pattern; False (with the error shown) if it is empty or too large to compile.

        Only the size gate runs here (it reads the pattern without compiling it). Compiling and the
        trial against catastrophic backtracking run in the background with the chunks; a pattern
        they refuse shows its error when that is done, and the last usable pattern stays in use.
        """
        if self.kind != "custom":
            return True
        spec = self.pattern.text()
        message: str | None = "the pattern is empty" if not spec else None
        if spec:
            try:
                check_pattern_bounds(spec)
            except PretokenizerError as exc:
                message = str(exc)
        self._set_error(message)
        if message is not None:
            return False
        self._custom = spec
        self._spec = spec
        self._refresh()
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
        """The chunks last computed for the text, as code-point ranges (see :attr:`computing`)."""
        return list(self._spans)

    @property
    def computing(self) -> bool:
        """True while chunks (or a custom pattern's trial) are being computed in the background."""
        return self._jobs.busy

    def _refresh(self) -> None:
        """Recompute chunks and tokens in the background for the current pattern and text."""
        spec, text = self._spec, self.text
        key = self._tokenizer_key()
        show = self.show_tokens.isChecked()
        self.tokens_box.setVisible(show)
        tok: Tokenizer | None = None
        if show and key is not None and self.registry is not None:
            tok = self.registry.tokenizer(key)
            if tok is None:
                self._waiting = key
                self.tokens_label.setText(f"Loading {self.registry.label(key)}…")
                self.registry.ensure_loaded(key)
        self.stats.setText("computing the chunks…")
        self._jobs.submit(lambda: compute_chunks(spec, text, tok), self._show_result, self._failed)

    def _failed(self, exc: BaseException) -> None:
        """Only a bug gets here (compute_chunks turns pattern errors into results): let it be seen."""
        raise exc

    def _show_result(self, result: ChunkResult) -> None:
        """Draw a background result: the chunks, their statistics and the tokens."""
        if result.pretokenizer is None:
            # The trial refused the custom pattern: say why, keep the last usable pattern's chunks.
            self._set_error(result.error)
            self._spec = self.pretokenizer.to_json()
            self._show_stats(self._spans_text, self._spans)
            return
        if result.error is not None:
            self._set_error(result.error)
        if result.pretokenizer.name == "custom" and self.pretokenizer.pattern != result.pretokenizer.pattern:
            self.patternChanged.emit(result.spec)
        self.pretokenizer = result.pretokenizer
        self._spans = result.spans
        self._spans_text = result.text
        assert result.table is not None
        self.view.set_content(result.table, self._bytes)
        self._show_stats(result.text, result.spans)
        self._show_tokens(result)

    def _show_stats(self, text: str, spans: list[tuple[int, int]]) -> None:
        if spans:
            lengths = [e - s for s, e in spans]
            longest = int(np.argmax(lengths))
            s, e = spans[longest]
            cut = f" (first {MAX_PRETOK_CHARS:,} characters)" if len(text) >= MAX_PRETOK_CHARS else ""
            self.stats.setText(
                f"{len(spans):,} chunks{cut} · longest {text[s:e]!r} ({lengths[longest]} characters) · "
                "merges happen only inside a chunk, so no token crosses a boundary"
            )
        else:
            self.stats.setText("No text.")

    def _tokenizer_key(self) -> str | None:
        return self.kind if self.kind in ("gpt2", "cl100k") else None

    def _show_tokens(self, result: ChunkResult) -> None:
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
        tok = result.tokenizer
        if tok is None or result.tokens is None:
            return  # still loading: the label says so, and the view refreshes once it is loaded
        self.tokens_label.setText(
            f"<b>{self.registry.label(key)}</b> tokens, chunk boundaries marked |: {len(result.tokens):,} tokens, "
            f"{result.crossing} cross a boundary"
        )
        self.tokens_view.set_content(result.tokens, tok)

    def _on_loaded(self, key: str) -> None:
        if key == self._waiting:
            self._waiting = None
            self._refresh()

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


def _chunk_spans(pre: Pretokenizer, text: str, tokenizer: Tokenizer | None) -> list[tuple[int, int]]:
    """The chunks of ``text``: special tokens (the tokenizer's, when it reads them in text) are cut
    out first and are a chunk each, and the pattern runs on the text between them, as encoding does."""
    specials = tokenizer.special_tokens if tokenizer is not None and tokenizer.specials_in_text else ()
    spans: list[tuple[int, int]] = []
    for start, end, special in SpecialSplitter(specials).segments(text):
        if special:
            spans.append((start, end))
        else:
            spans.extend((start + s, start + e) for s, e in pre.spans(text[start:end]))
    return spans


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
    title = "Pre-tokenizer chunks"
    dock = context.add_dock(view, title, "pretokDock", shortcut="Ctrl+Shift+H", action_text=f"&{title}")
    follow_editor_text(context, dock, view.set_text)
    follow_window_style(context, view)
    return dock


__all__ = ["CHOICES", "ChunkResult", "ChunkView", "PretokView", "chunk_table", "compute_chunks", "install"]
