"""The timeline's transport: step buttons, play/pause, the step slider and box, speed, and the play clock.

The transport drives a :class:`Steppable` (the timeline widget): it asks for steps. Ctrl+] and
Ctrl+[ go one merge on or back, whether or not it changes the text; the trace says which merges
change the text, so play, the step buttons and Alt+] / Alt+[ jump straight between those.
Its button glyphs are the style's media icons recoloured from the palette, so they stay readable
on a dark theme.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QSpinBox, QStyle, QToolButton, QWidget

from tokviz.core.training.replay import ReplayTrace

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
DEFAULT_SPEED = 2.0
_Icon = QStyle.StandardPixmap


class Steppable(Protocol):
    """What the transport drives: a replay with a current step over 0..total_steps."""

    @property
    def step(self) -> int: ...

    @property
    def live(self) -> bool: ...

    @property
    def trace(self) -> ReplayTrace | None: ...

    @property
    def total_steps(self) -> int: ...

    def set_step(self, step: int) -> None: ...

    def rendering(self) -> bool: ...


def palette_icon(widget: QWidget, standard: QStyle.StandardPixmap, palette: QPalette | None = None) -> QIcon:
    """The style's ``standard`` icon for ``widget`` drawn in the button-text colour of ``palette`` (by
    default the widget's), with a disabled variant in the disabled button-text colour."""
    base = widget.style().standardIcon(standard, None, widget)
    palette = palette if palette is not None else widget.palette()
    size = widget.iconSize() if isinstance(widget, QToolButton) else QSize(16, 16)
    icon = QIcon()
    for mode, group in (
        (QIcon.Mode.Normal, QPalette.ColorGroup.Active),
        (QIcon.Mode.Active, QPalette.ColorGroup.Active),
        (QIcon.Mode.Disabled, QPalette.ColorGroup.Disabled),
    ):
        color = palette.color(group, QPalette.ColorRole.ButtonText)
        for ratio in sorted({1.0, widget.devicePixelRatioF()}):
            icon.addPixmap(_recolored(base.pixmap(size, ratio), color), mode)
    return icon


def _recolored(pixmap: QPixmap, color: QColor) -> QPixmap:
    """``pixmap``'s shape (its alpha) filled with ``color``."""
    out = QPixmap(pixmap)
    painter = QPainter(out)
    painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
    painter.fillRect(out.rect(), color)
    painter.end()
    return out


class PlaybackBar(QWidget):
    """Transport controls for a :class:`Steppable`, and the clock that plays it."""

    def __init__(self, target: Steppable, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timelineTransport")
        self.target = target
        self._syncing = False
        self.first_button = self._button("timelineFirst", "Go to step 0: single bytes")
        self.back_button = self._button("timelineBack", "Previous merge that changes the text (Alt+[)")
        self.play_button = self._button("playButton", "Play / pause (Ctrl+Shift+P)")
        self.play_button.setCheckable(True)
        self.forward_button = self._button("timelineForward", "Next merge that changes the text (Alt+])")
        self.last_button = self._button("timelineLast", "Go to the last merge: the tokenizer's real output")
        self._build_slider()
        self._build_speed()
        self._lay_out()
        self._update_icons()
        # A clock, not a debounce: it fires at the chosen speed for as long as the replay plays.
        self.play_timer = QTimer(self)
        self.play_timer.setObjectName("timelinePlayTimer")
        self._apply_speed()
        self._wire()

    # ---------------------------------------------------------------- building
    def _button(self, name: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setToolTip(tip)
        button.setAccessibleName(tip.split(" (")[0])
        button.setAutoRaise(True)
        return button

    def _build_slider(self) -> None:
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("timelineSlider")
        self.slider.setAccessibleName("Merge step")
        self.slider.setToolTip("Merge step: drag, or use the arrow keys for single steps")
        self.slider.setRange(0, 0)
        self.slider.setPageStep(10)
        self.slider.setMinimumWidth(80)
        self.step_box = QSpinBox(self)
        self.step_box.setObjectName("timelineStep")
        self.step_box.setAccessibleName("Jump to step")
        self.step_box.setToolTip("Jump to a merge step")
        self.step_box.setKeyboardTracking(False)
        self.step_box.setRange(0, 0)
        self.step_box.setPrefix("step ")
        self._size_step_box()
        self.total_label = QLabel("/ 0", self)
        self.total_label.setObjectName("timelineTotal")

    def _size_step_box(self) -> None:
        """Wide enough for "step 1,000,000" at the current font, whatever the range was when laid out."""
        fm = self.step_box.fontMetrics()
        self.step_box.setMinimumWidth(fm.horizontalAdvance("step 0000000") + 4 * fm.averageCharWidth() + 16)

    def _build_speed(self) -> None:
        self.speed = QComboBox(self)
        self.speed.setObjectName("timelineSpeed")
        self.speed.setAccessibleName("Replay speed")
        self.speed.setToolTip("Replay speed: merges that change the text, per second")
        for s in SPEEDS:
            self.speed.addItem(f"{s:g}×/s", s)
        self.speed.setCurrentIndex(SPEEDS.index(DEFAULT_SPEED))

    def _lay_out(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for button in self.buttons():
            layout.addWidget(button)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.step_box)
        layout.addWidget(self.total_label)
        layout.addWidget(self.speed)

    def _wire(self) -> None:
        self.slider.valueChanged.connect(self._on_edited)
        self.step_box.valueChanged.connect(self._on_edited)
        self.first_button.clicked.connect(self.go_to_start)
        self.last_button.clicked.connect(self.go_to_end)
        self.back_button.clicked.connect(self.previous_change)
        self.forward_button.clicked.connect(self.next_change)
        self.play_button.toggled.connect(self._on_play_toggled)
        self.play_timer.timeout.connect(self._on_play_tick)
        self.speed.currentIndexChanged.connect(self._apply_speed)

    def buttons(self) -> tuple[QToolButton, ...]:
        """First, back, play, forward, last."""
        return (self.first_button, self.back_button, self.play_button, self.forward_button, self.last_button)

    def _update_icons(self) -> None:
        """Draw the glyphs in the palette's colours (on a theme change too).

        The bar's palette, not the buttons': a palette change reaches the bar before its children.
        """
        palette = self.palette()
        self._play_icon = palette_icon(self.play_button, _Icon.SP_MediaPlay, palette)
        self._pause_icon = palette_icon(self.play_button, _Icon.SP_MediaPause, palette)
        self.play_button.setIcon(self._pause_icon if self.play_button.isChecked() else self._play_icon)
        for button, standard in (
            (self.first_button, _Icon.SP_MediaSkipBackward),
            (self.back_button, _Icon.SP_MediaSeekBackward),
            (self.forward_button, _Icon.SP_MediaSeekForward),
            (self.last_button, _Icon.SP_MediaSkipForward),
        ):
            button.setIcon(palette_icon(button, standard, palette))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.PaletteChange, QEvent.Type.StyleChange) and hasattr(
            self, "_play_icon"
        ):
            self._update_icons()
        if event.type() == QEvent.Type.FontChange and hasattr(self, "step_box"):
            self._size_step_box()

    # ---------------------------------------------------------------- state shown
    def set_total(self, total: int) -> None:
        """Steps run over 0..``total``."""
        self._syncing = True
        try:
            self.slider.setRange(0, total)
            self.slider.setPageStep(max(1, total // 50))
            self.step_box.setRange(0, total)
            self.total_label.setText(f"/ {total:,}")
        finally:
            self._syncing = False

    def reset(self) -> None:
        """Nothing to step through: slider, step box and "/ 0" say so (no stale total)."""
        self.set_total(0)

    def show_step(self, step: int) -> None:
        """Move the slider and the step box to ``step`` without asking for it."""
        self._syncing = True
        try:
            if self.slider.value() != step:
                self.slider.setValue(step)
            if self.step_box.value() != step:
                self.step_box.setValue(step)
        finally:
            self._syncing = False

    def set_controls_enabled(self, on: bool) -> None:
        """Enable or disable the buttons, the slider, the step box and the speed."""
        for w in (*self.buttons(), self.slider, self.step_box, self.speed):
            w.setEnabled(on)

    # ---------------------------------------------------------------- stepping
    def go_to_start(self) -> None:
        """Step 0: the text as single bytes."""
        self.target.set_step(0)

    def go_to_end(self) -> None:
        """The last step: the tokenizer's real output."""
        self.target.set_step(self.target.total_steps)

    def step_forward(self) -> None:
        """One merge on (Ctrl+]), whether or not it changes the text."""
        if self.target.trace is not None:
            self.target.set_step(min(self.target.step + 1, self.target.total_steps))

    def step_back(self) -> None:
        """One merge back (Ctrl+[)."""
        if self.target.trace is not None:
            self.target.set_step(max(self.target.step - 1, 0))

    def next_change(self) -> None:
        """Jump to the next merge that changes the text, or the last step (Alt+])."""
        trace = self.target.trace
        if trace is None:
            return
        nxt = trace.next_event(self.target.step)
        self.target.set_step(nxt if nxt is not None else self.target.total_steps)

    def previous_change(self) -> None:
        """Jump to the previous merge that changes the text, or step 0 (Alt+[)."""
        trace = self.target.trace
        if trace is None:
            return
        prev = trace.previous_event(self.target.step)
        self.target.set_step(prev if prev is not None else 0)

    # ---------------------------------------------------------------- playing
    @property
    def playing(self) -> bool:
        """True while the replay plays."""
        return self.play_timer.isActive()

    def play(self) -> None:
        """Step through the merges that change the text, at the chosen speed (restarts at 0 from the end)."""
        trace = self.target.trace
        if trace is None or self.target.live:
            return
        if trace.next_event(self.target.step) is None:
            self.target.set_step(0)
        self.play_button.setChecked(True)

    def pause(self) -> None:
        """Stop playing."""
        self.play_button.setChecked(False)

    def toggle_play(self) -> None:
        """Play if paused, pause if playing."""
        if self.playing:
            self.pause()
        else:
            self.play()

    def _on_edited(self, value: int) -> None:
        if not self._syncing:
            self.target.set_step(value)

    def _apply_speed(self, *_args: object) -> None:
        speed = float(self.speed.currentData() or DEFAULT_SPEED)
        self.play_timer.setInterval(max(15, int(1000 / speed)))

    def _on_play_toggled(self, on: bool) -> None:
        self.play_button.setIcon(self._pause_icon if on else self._play_icon)
        if on and self.target.trace is not None:
            self.play_timer.start()
        else:
            self.play_timer.stop()

    def _on_play_tick(self) -> None:
        trace = self.target.trace
        if trace is None or self.target.live:
            self.pause()
            return
        if self.target.rendering():
            return  # a large text is still being encoded: wait for it rather than pile up steps
        nxt = trace.next_event(self.target.step)
        if nxt is None:
            self.target.set_step(self.target.total_steps)
            self.pause()
            return
        self.target.set_step(nxt)
