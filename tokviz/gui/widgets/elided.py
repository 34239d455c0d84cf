"""A one-line label that ends in "…" when it is too narrow, with its whole text in the tooltip.

View headers ("1,234 tokens · 3.21 bytes/token") and the status bar hold more than fits when six
views share a projector's 1024 pixels; a plain label cuts digits off without a sign. This one
elides instead and keeps the full text a hover away, so no number is ever silently wrong.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyleOption, QWidget


class ElidedLabel(QLabel):
    """A plain-text label that elides its text (at ``mode``) to its width; the tooltip is the whole text.

    It never asks for more width than a few characters, so it cannot widen its window.
    """

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(text, parent)
        self._mode = mode
        self._own_tip = ""
        self._shorter: tuple[str, ...] = ()
        self._blank = False
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._sync_tip()

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        """Show ``text`` (elided when narrow); the tooltip follows unless one was set on purpose."""
        self._shorter = ()
        super().setText(text)
        self._sync_tip()

    def set_text_forms(self, text: str, *shorter: str) -> None:
        """Show ``text``, or when it does not fit the first of the ``shorter`` forms that does
        ("59 tokens · 3.21 bytes/token", then "59 tokens…", then "59 tok…"); the last one is elided.
        A shorter form is shown with "…" so that it never reads as the whole header."""
        self.setText(text)
        self._shorter = shorter
        self.update()

    def set_blank(self, blank: bool) -> None:
        """Paint nothing (the text is shown elsewhere, as a view's counts on its second header line)."""
        if blank != self._blank:
            self._blank = blank
            self.update()

    def setToolTip(self, tip: str) -> None:  # noqa: N802 - Qt's name
        """A tooltip of its own (more than the text); an empty one goes back to the full text."""
        self._own_tip = tip if tip != self.text() else ""
        self._sync_tip()

    def _sync_tip(self) -> None:
        super().setToolTip(self._own_tip or self.text())

    def is_elided(self) -> bool:
        """True when the whole text does not fit (a shorter form, or "…", is shown)."""
        return self.fontMetrics().horizontalAdvance(self.text()) > self.contentsRect().width()

    def displayed_text(self) -> str:
        """The text as painted: whole, its first shorter form that fits, or the last form elided."""
        if self._blank:
            return ""
        width = max(self.contentsRect().width(), 0)
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(self.text()) <= width:
            return self.text()
        for form in (f"{form}…" for form in self._shorter):
            if metrics.horizontalAdvance(form) <= width:
                return form
        last = f"{self._shorter[-1]}…" if self._shorter else self.text()
        return metrics.elidedText(last, self._mode, width)

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        rect = self.contentsRect().adjusted(self.indent() if self.indent() > 0 else 0, 0, 0, 0)
        self.style().drawItemText(
            painter,
            rect,
            int(self.alignment()),
            option.palette,
            self.isEnabled(),
            self.displayed_text(),
            self.foregroundRole(),
        )
        painter.end()
