"""A table model whose columns are fixed: their titles and tooltips, said once for every such model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt


class ColumnsModel(QAbstractTableModel):
    """A flat table whose columns are :attr:`columns`, each with the tooltip :attr:`column_tips` gives.

    Subclasses set the two class attributes and supply the rows (``rowCount``, ``data``).
    """

    columns: ClassVar[tuple[str, ...]] = ()
    column_tips: ClassVar[Mapping[int, str]] = {}

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.column_tips.get(section)
        return None
