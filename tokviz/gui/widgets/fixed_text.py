"""A read-only text area in the system's fixed-width font, its lines never wrapped.

What the dialogs show as it is, to read or to copy: a crash's traceback, the bundled vocabularies'
licences, the code snippet that loads an export (unwrapped, so it stays runnable as shown).
"""

from __future__ import annotations

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit, QWidget


def fixed_text(parent: QWidget, object_name: str, accessible_name: str) -> QPlainTextEdit:
    """A read-only, unwrapped, fixed-width :class:`QPlainTextEdit` named for tests and screen readers."""
    area = QPlainTextEdit(parent)
    area.setObjectName(object_name)
    area.setAccessibleName(accessible_name)
    area.setReadOnly(True)
    area.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    area.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    return area
