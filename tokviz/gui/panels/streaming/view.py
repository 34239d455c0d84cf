"""The streaming-decode panel: step through ids, see what the streaming decoder prints and holds back.

The editor's text is encoded in the background (:class:`~tokviz.gui.workers.latest.LatestJob`): a
tokenizer from a file may carry a custom pattern that runs up to its time limit, and the window
must keep turning meanwhile. The newest request wins; a pattern that times out is the panel's
one-line error.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QSlider,
    QToolButton,
    QWidget,
)

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.pretok.bytes_ import hex_bytes
from tokviz.gui.drawing.images import VECTOR_PROPERTY
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.streaming.chips import TokenChips
from tokviz.gui.panels.streaming.trace import StreamTrace, describe_pending, parse_ids
from tokviz.gui.style.theme import TokenColors, token_colors
from tokviz.gui.widgets.boxes import STRETCH, column, row, scrolled
from tokviz.gui.widgets.picker import TokenizerPicker
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.latest import LatestJob

# The editor's text is encoded up to this many characters, and stepped through up to this many ids.
MAX_STREAM_CHARS = 4000
MAX_STREAM_IDS = 1000
LECTURE_EXAMPLE = "Hello, 🌍! 你好!"
# The id strip scrolls beyond this height (in pixels), so the decoded text stays in view.
MAX_CHIPS_HEIGHT = 240


class StreamDecodeView(QWidget):
    """The streaming-decode panel. ``set_text`` feeds it the editor's text; ids can also be typed in."""

    openTokenizerRequested = Signal()
    positionChanged = Signal(int)

    def __init__(self, registry: TokenizerRegistryModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("streamDecodeView")
        self.setProperty(VECTOR_PROPERTY, True)
        self.registry = registry
        self.key = "gpt2"
        self.text = ""
        self.trace: StreamTrace | None = None
        self.position = 0
        self.colors = token_colors(False)
        self._waiting: str | None = None
        self._note = ""
        # Typed ids are parsed once typing pauses.
        self._typed_debouncer = Debouncer(250, self)
        self._typed_debouncer.triggered.connect(self._rebuild)
        # The editor's text is encoded off the GUI thread; only the newest request is shown.
        self._encoder = LatestJob(self)
        self._encoder.idle.connect(self._show)

        self.picker = TokenizerPicker(registry, self)
        self.picker.setObjectName("streamTokenizerPicker")
        self.picker.setAccessibleName("Tokenizer of the streaming decoder")
        self.follow = QCheckBox("Ids of the editor's text", self)
        self.follow.setObjectName("streamFollowText")
        self.follow.setChecked(True)
        self.follow.setToolTip("Untick to type your own ids")
        self.example_button = QToolButton(self)
        self.example_button.setObjectName("streamLectureExample")
        self.example_button.setText(f"GPT-2: {LECTURE_EXAMPLE}")
        self.example_button.setToolTip("The lecture's example: the emoji is split over three ids")
        self.ids_edit = QLineEdit(self)
        self.ids_edit.setObjectName("streamIds")
        self.ids_edit.setAccessibleName("Token ids to decode")
        self.ids_edit.setPlaceholderText("ids separated by spaces, e.g. 15496 11 12520 234 235 0")
        self.ids_edit.setReadOnly(True)
        self.error = QLabel(self)
        self.error.setObjectName("streamError")
        self.error.setStyleSheet("color: #c62828;")
        self.error.hide()

        self.first_button = self._button("⇤", "streamFirst", "Back to the start")
        self.previous_button = self._button("◀", "streamPrevious", "One id back")
        self.next_button = self._button("▶", "streamNext", "Decode the next id")
        self.last_button = self._button("⇥", "streamLast", "Decode every id")
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("streamSlider")
        self.slider.setAccessibleName("Ids decoded")
        self.slider.setPageStep(1)
        self.position_label = QLabel(self)
        self.position_label.setObjectName("streamPosition")

        self.chips = TokenChips(self)
        scroll = scrolled(self.chips, "streamChipsScroll", self)
        self.chips_scroll = scroll
        self.chips.heightChanged.connect(lambda h: scroll.setFixedHeight(min(h + 2, MAX_CHIPS_HEIGHT)))

        self.decoded_title = QLabel("<b>Streaming decoder prints</b>", self)
        self.decoded = QLabel(self)
        self.decoded.setObjectName("streamDecoded")
        self.decoded.setAccessibleName("Text decoded so far")
        self.decoded.setWordWrap(True)
        self.decoded.setTextFormat(Qt.TextFormat.RichText)
        self.decoded.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pending_label = QLabel(self)
        self.pending_label.setObjectName("streamPending")
        self.pending_label.setWordWrap(True)
        self.show_naive = QCheckBox("Compare with a naive decoder", self)
        self.show_naive.setToolTip("A naive decoder decodes each id on its own and prints what it gets")
        self.show_naive.setObjectName("streamShowNaive")
        self.show_naive.setChecked(True)
        self.naive_mode = QComboBox(self)
        self.naive_mode.setObjectName("streamNaiveMode")
        self.naive_mode.addItem("errors='replace' (prints �)", "replace")
        self.naive_mode.addItem("errors='strict' (raises)", "strict")
        self.naive_title = QLabel("<b>Naive per-id decoder prints</b>", self)
        self.naive = QLabel(self)
        self.naive.setObjectName("streamNaive")
        self.naive.setAccessibleName("What a naive per-token decoder prints")
        self.naive.setWordWrap(True)
        self.naive.setTextFormat(Qt.TextFormat.RichText)
        self.naive.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        top = row(QLabel("Tokenizer:", self), self.picker, STRETCH, self.example_button)
        steps = row(
            self.first_button,
            self.previous_button,
            self.next_button,
            self.last_button,
            (self.slider, 1),
            self.position_label,
        )
        naive_row = row(self.show_naive, self.naive_mode, STRETCH)
        # The decoded texts wrap and can be long: they scroll, so the dock never needs more height
        # than the screen has (a tall wrapped label once pushed the window past a 768-pixel screen).
        texts = QWidget(self)
        column(
            self.decoded_title,
            self.decoded,
            self.pending_label,
            naive_row,
            self.naive_title,
            self.naive,
            STRETCH,
            parent=texts,
            margins=0,
        )
        texts_scroll = scrolled(texts, "streamTextsScroll", self)
        column(top, self.follow, self.ids_edit, self.error, steps, scroll, (texts_scroll, 1), parent=self)

        self.picker.picked.connect(self.set_tokenizer)
        self.picker.openRequested.connect(self.openTokenizerRequested.emit)
        self.follow.toggled.connect(self._on_follow)
        self.ids_edit.textEdited.connect(self._typed_debouncer.trigger)
        self.first_button.clicked.connect(lambda: self.set_position(0))
        self.previous_button.clicked.connect(self.step_back)
        self.next_button.clicked.connect(self.step_forward)
        self.last_button.clicked.connect(lambda: self.set_position(len(self.trace) if self.trace else 0))
        self.slider.valueChanged.connect(self.set_position)
        self.chips.chipClicked.connect(self.set_position)
        self.show_naive.toggled.connect(lambda *_: self._show())
        self.naive_mode.currentIndexChanged.connect(lambda *_: self._show())
        registry.tokenizerLoaded.connect(self._on_loaded)
        self.picker.show_key(self.key)
        self._show()

    def _button(self, text: str, name: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        return button

    # ---------------------------------------------------------------- inputs
    @property
    def tokenizer(self) -> Tokenizer | None:
        """The tokenizer whose ids are decoded (None while it loads)."""
        return self.registry.tokenizer(self.key)

    def set_tokenizer(self, key: str) -> None:
        """Decode with another tokenizer (loaded in the background if needed)."""
        self.key = key
        self.picker.show_key(key)
        if self.tokenizer is None:
            self._waiting = key
            self.registry.ensure_loaded(key)
            self.position_label.setText(f"loading {self.registry.label(key)}…")
            return
        self._rebuild()

    def _on_loaded(self, key: str) -> None:
        if key == self._waiting and key == self.key:
            self._waiting = None
            self._rebuild()

    def set_text(self, text: str) -> None:
        """The editor's text; while "Ids of the editor's text" is ticked its ids are decoded."""
        self.text = text
        if self.follow.isChecked():
            self._rebuild()

    def _on_follow(self, on: bool) -> None:
        self.ids_edit.setReadOnly(on)
        if on:
            self._rebuild()
        else:
            self._encoder.drop()  # an encoding still running must not overwrite typed ids
            self._show()

    @property
    def computing(self) -> bool:
        """True while the editor's text is being encoded in the background."""
        return self._encoder.busy

    def set_ids(self, ids: Sequence[int]) -> None:
        """Decode these ids instead of the editor's text."""
        self.follow.setChecked(False)
        self.ids_edit.setText(" ".join(str(i) for i in ids))
        self._rebuild()

    def load_lecture_example(self) -> None:
        """GPT-2 ids of the lecture's example, ``Hello, 🌍! 你好!`` (what the button does when no window drives the text)."""
        self.follow.setChecked(True)
        self.text = LECTURE_EXAMPLE
        self.set_tokenizer("gpt2")

    def _rebuild(self) -> None:
        tok = self.tokenizer
        if tok is None:
            self.registry.ensure_loaded(self.key)
            self._waiting = self.key
            return
        self.error.hide()
        if self.follow.isChecked():
            text = self.text[:MAX_STREAM_CHARS]
            cut = len(self.text) > MAX_STREAM_CHARS
            self._encoder.submit(
                lambda: tok.encode(text),
                lambda ids: self._encoded(tok, ids, cut),
                self._encode_failed,
            )
            self._show()  # "computing…"
            return
        self._encoder.drop()
        try:
            ids = parse_ids(self.ids_edit.text(), tok.vocab_size, tok.vocab.keys())
        except ValueError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self._set_trace(tok, ids[:MAX_STREAM_IDS], "")

    def _encoded(self, tok: Tokenizer, ids: list[int], cut: bool) -> None:
        """The background encoding of the editor's text is back: show its ids."""
        note = ""
        if len(ids) > MAX_STREAM_IDS or cut:
            ids = ids[:MAX_STREAM_IDS]
            note = f" (the first {len(ids):,} ids of the text)"
        self.ids_edit.setText(" ".join(str(i) for i in ids))
        self._set_trace(tok, ids, note)

    def _encode_failed(self, exc: BaseException) -> None:
        """The encoding failed (a custom pattern past its time limit): one line, no ids."""
        if not isinstance(exc, TokvizError):
            raise exc
        self.error.setText(str(exc))
        self.error.show()
        tok = self.tokenizer
        if tok is not None:
            self.ids_edit.clear()
            self._set_trace(tok, [], "")

    def _set_trace(self, tok: Tokenizer, ids: list[int], note: str) -> None:
        """Step through ``ids``, keeping the position when they are the ones already shown."""
        old = self.trace
        self.trace = StreamTrace(tok, ids)
        self._note = note
        keep = old is not None and old.ids == self.trace.ids and old.tokenizer is tok
        self.chips.set_trace(self.trace)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.trace))
        self.slider.blockSignals(False)
        self.set_position(self.position if keep else len(self.trace), force=True)

    # ---------------------------------------------------------------- stepping
    def set_position(self, k: int, force: bool = False) -> None:
        """Show the state after the first ``k`` ids."""
        n = len(self.trace) if self.trace else 0
        k = min(max(int(k), 0), n)
        if k == self.position and not force:
            return
        self.position = k
        if self.slider.value() != k:
            self.slider.blockSignals(True)
            self.slider.setValue(k)
            self.slider.blockSignals(False)
        self.chips.set_position(k)
        if 0 < k <= len(self.chips._rects):
            self.chips_scroll.ensureVisible(
                int(self.chips.chip_rect(k - 1).center().x()), int(self.chips.chip_rect(k - 1).center().y())
            )
        self._show()
        self.positionChanged.emit(k)

    def step_forward(self) -> None:
        """Decode one more id."""
        self.set_position(self.position + 1)

    def step_back(self) -> None:
        """Undo the last id."""
        self.set_position(self.position - 1)

    @property
    def pending(self) -> bytes:
        """The bytes the streaming decoder holds back at the current step."""
        return self.trace.pending_at(self.position) if self.trace else b""

    @property
    def decoded_text(self) -> str:
        """The text the streaming decoder has printed at the current step."""
        return self.trace.text_at(self.position) if self.trace else ""

    def naive_output(self) -> str:
        """What the naive decoder shows at the current step (its text, or the exception it raised)."""
        if self.trace is None:
            return ""
        if self.naive_mode.currentData() == "strict":
            failure = self.trace.first_error(self.position)
            if failure is not None:
                index, message = failure
                before = "".join(s.naive for s in self.trace.steps[:index])
                return f"{before}\n{message} (id number {index + 1}, {self.trace.steps[index].token_id})"
        return self.trace.naive_at(self.position)

    # ---------------------------------------------------------------- display
    def set_text_font(self, font: QFont) -> None:
        """Draw ids and decoded text in ``font`` (the editor's, so zoom and presentation mode apply)."""
        self.chips.setFont(font)
        for label in (self.decoded, self.naive):
            label.setFont(font)

    def set_colors(self, colors: TokenColors) -> None:
        """Use a theme's token colours."""
        self.colors = colors
        self.chips.set_colors(colors)
        self._show()

    def _show(self) -> None:
        n = len(self.trace) if self.trace else 0
        k = self.position
        busy = " · computing…" if self.computing else ""
        self.position_label.setText(f"{k} of {n} ids{self._note}{busy}")
        for b, enabled in (
            (self.first_button, k > 0),
            (self.previous_button, k > 0),
            (self.next_button, k < n),
            (self.last_button, k < n),
        ):
            b.setEnabled(enabled)
        c = self.colors
        text_html = _pre(self.decoded_text)
        pending = self.pending
        if pending:
            text_html += (
                f"<span style='background:{c.partial_fill.name()}; color:{c.text.name()};'>"
                f"&nbsp;{html.escape(hex_bytes(pending))}&nbsp;</span>"
            )
        self.decoded.setText(_mono(text_html or "<span>&nbsp;</span>"))
        lead = ""
        if self.trace is not None and k > 0:
            step = self.trace.steps[k - 1]
            printed = f"printed {step.emitted!r}" if step.emitted else "printed nothing"
            lead = f"Id {step.token_id} ({hex_bytes(step.data)}) {printed}. "
        self.pending_label.setText(lead + describe_pending(pending))
        naive_on = self.show_naive.isChecked()
        self.naive_mode.setEnabled(naive_on)
        self.naive_title.setVisible(naive_on)
        self.naive.setVisible(naive_on)
        if naive_on:
            out = self.naive_output()
            if "\n" in out and self.naive_mode.currentData() == "strict":
                before, message = out.split("\n", 1)
                self.naive.setText(
                    _mono(_pre(before))
                    + f"<br><span style='color:{c.diff_mark.name()};'>✗ {html.escape(message)}</span>"
                )
            else:
                self.naive.setText(_mono(_pre(out, mark=c.diff_mark)) if out else _mono("&nbsp;"))


def _pre(text: str, mark: QColor | None = None) -> str:
    """Text for a rich-text label: escaped, line breaks kept, U+FFFD optionally in a warning colour."""
    escaped = html.escape(text).replace("\n", "↵<br>")
    if mark is not None:
        escaped = escaped.replace("\ufffd", f"<span style='color:{mark.name()};'><b>\ufffd</b></span>")
    return escaped


def _mono(body: str) -> str:
    return f"<div style='font-family: \"DejaVu Sans Mono\", monospace; white-space: pre-wrap;'>{body}</div>"
