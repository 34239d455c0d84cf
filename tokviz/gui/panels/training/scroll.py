"""The Train panel's scroll area, which never lets its form be cut off sideways."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import QScrollArea, QWidget


class FormScroll(QScrollArea):
    """Scrolls the form up and down, but is never narrower than the form (so nothing is cut off)."""

    def setWidget(self, widget: QWidget) -> None:
        super().setWidget(widget)
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The form's minimum width follows its font (presentation mode, zoom): tell the dock, whose
        # layout would otherwise keep the old minimum and squeeze the form under a scroll bar.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:
        inner = self.widget()
        if inner is None:
            return super().minimumSizeHint()
        width = inner.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width()
        return QSize(width, super().minimumSizeHint().height())
