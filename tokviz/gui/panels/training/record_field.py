"""Which field of JSON Lines, Parquet or Arrow records the Train panel trains on.

Shown only when the listed files hold records. The choices are the fields with text that the first
file of records has (dotted paths into nested objects: ``meta.content``); any other name can be
typed. The corpus preview shows the first records' text in the chosen field, as training will read
it, and the corpus line says how many of them have no such field. The same rule as
``tokviz train --field``.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QWidget

DEFAULT_FIELD = "text"


class RecordField(QWidget):
    """A "Text field" row with an editable list of the records' fields; ``changed`` follows a new choice."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("recordFieldRow")
        self.combo = QComboBox(self)
        self.combo.setObjectName("recordField")
        self.combo.setAccessibleName("Text field of the records")
        self.combo.setEditable(True)
        self.combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(9)
        self.combo.setToolTip(
            "The field whose text each record gives (each record is a document); "
            "a dotted path such as meta.content reaches into nested objects"
        )
        self.combo.addItem(DEFAULT_FIELD)
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Text field", self.combo)
        self._last = DEFAULT_FIELD
        self.combo.activated.connect(self._edited)
        line = self.combo.lineEdit()
        if line is not None:
            line.editingFinished.connect(self._edited)
        self.hide()

    def field(self) -> str:
        """The chosen field (``text`` when left empty)."""
        return self.combo.currentText().strip() or DEFAULT_FIELD

    def set_field(self, name: str) -> None:
        """Choose ``name`` (a remembered setting) and announce it once."""
        self.combo.setEditText(name.strip() or DEFAULT_FIELD)
        self._edited()

    def offer(self, fields: Sequence[str]) -> None:
        """Show the row with ``fields`` to choose from, keeping the choice; hide it when there are none."""
        self.setVisible(bool(fields))
        if not fields:
            return
        chosen = self.field()
        self.combo.blockSignals(True)
        self.combo.clear()
        self.combo.addItems(list(dict.fromkeys([*fields, chosen] if chosen not in fields else fields)))
        self.combo.setCurrentIndex(self.combo.findText(chosen))
        self.combo.blockSignals(False)

    def _edited(self, *_args: object) -> None:
        if self.field() != self._last:
            self._last = self.field()
            self.changed.emit()
