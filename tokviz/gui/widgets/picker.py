"""The tokenizer picker: a combo box over the registry, with "Open tokenizer…" as its last entry.

Views, the timeline and the streaming-decode panel each pick a tokenizer the same way; choosing
"Open tokenizer…" asks for a file instead of changing the selection.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

from tokviz.gui.models.tokenizers import OPEN_KEY, KeyRole, TokenizerRegistryModel


class TokenizerPicker(QComboBox):
    """Pick a tokenizer of the registry; ``picked(key)`` or ``openRequested()`` tell the owner."""

    picked = Signal(str)
    openRequested = Signal()

    def __init__(self, registry: TokenizerRegistryModel | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.registry = registry
        self._key: str | None = None
        # A view's picker asks for room for its whole name (up to this many characters) when the
        # header has it; docks keep the short width so a long path never widens them.
        self.fit_name_chars = 0
        # Long names (file paths) are elided rather than widening every dock that holds a picker.
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(10)
        if registry is not None:
            self.setModel(registry)
            # A tokenizer added later shifts the rows: keep showing the one in use. A bound method,
            # so Qt drops the connection when this picker is deleted (a closed view's picker).
            registry.rowsInserted.connect(self._keep_key)
            # The closed picker's tooltip is its entry's: what the tokenizer is, what was assumed.
            registry.dataChanged.connect(self._update_tooltip)
            registry.tokenizerLoaded.connect(self._update_tooltip)
        self.activated.connect(self._on_activated)
        # Bound methods, so Qt drops the connections when this picker is deleted.
        self.currentIndexChanged.connect(self._name_changed)
        if registry is not None:
            registry.dataChanged.connect(self._name_changed)

    def _name_changed(self, *_args: object) -> None:
        if self.fit_name_chars > 0:
            self.updateGeometry()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        """Qt's hint, wider by what the current name needs beyond it (``fit_name_chars`` at most)."""
        hint = super().sizeHint()
        if self.fit_name_chars <= 0:
            return hint
        metrics = self.fontMetrics()
        name = self.currentText()[: self.fit_name_chars]
        shortest = metrics.horizontalAdvance("x" * self.minimumContentsLength())
        extra = metrics.horizontalAdvance(name) - shortest
        return QSize(hint.width() + max(extra, 0), hint.height())

    def show_key(self, key: str | None) -> None:
        """Show ``key`` as the current tokenizer (without emitting ``picked``)."""
        self._key = key
        if self.registry is None or not key:
            return
        row = self.registry.row_of(key)
        if row >= 0 and self.currentIndex() != row:
            self.setCurrentIndex(row)
        self._update_tooltip()

    def _update_tooltip(self, *_args: object) -> None:
        if self.registry is None or not self._key:
            return
        row = self.registry.row_of(self._key)
        tip = self.registry.data(self.registry.index(row), Qt.ItemDataRole.ToolTipRole) if row >= 0 else None
        self.setToolTip(str(tip or ""))

    def _keep_key(self, *_args: object) -> None:
        self.show_key(self._key)

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        """Draw the current name elided in the middle when narrow ("multi…tiktoken", "botch…_1000"):
        the end of a name tells files apart, so it stays visible; the tooltip has the full path."""
        if self.isEditable():
            super().paintEvent(_event)
            return
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        option.currentText = self.fontMetrics().elidedText(
            option.currentText, Qt.TextElideMode.ElideMiddle, max(field.width() - 4, 0)
        )
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def _on_activated(self, row: int) -> None:
        key = self.itemData(row, KeyRole)
        if key == OPEN_KEY:
            self.show_key(self._key)  # the selection stays where it was until a file loads
            self.openRequested.emit()
        elif key:
            self.picked.emit(str(key))
