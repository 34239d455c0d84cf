"""Which files of the listed folders the Train panel trains on: include / exclude globs and a size cap.

The same rules as ``tokviz train --include/--exclude/--max-file-size`` (and ``tokviz eval``):
patterns are matched on each file's path relative to the folder it was found under, ``*.py``
matches a name at any depth, ``tests/`` a whole folder, ``src/**/*.py`` a path. Binary files are
always left out, and the panel's corpus line counts them with every other reason.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QLabel, QLineEdit, QWidget

from tokviz.core.corpus.fileselect import PathFilter, parse_size
from tokviz.core.errors import InvalidArgument

_SEPARATORS = re.compile(r"[,\s]+")


def split_globs(text: str) -> tuple[str, ...]:
    """Glob patterns typed into one field, separated by commas or spaces (``*.py, *.md tests/``)."""
    return tuple(dict.fromkeys(p for p in _SEPARATORS.split(text.strip()) if p))


class FileFilters(QWidget):
    """Three fields: include globs, exclude globs and the largest file to read. ``changed`` follows an edit.

    :meth:`problem` says in one line what is wrong with a field (a size that is not one), so
    training never starts on a selection the user did not mean.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("corpusFilters")
        self.include = QLineEdit(self)
        self.include.setObjectName("corpusInclude")
        self.include.setAccessibleName("Include only files matching")
        self.include.setPlaceholderText("all text files (e.g. *.py, *.md)")
        self.include.setToolTip(
            "Train only on files matching these globs, separated by commas or spaces; matched on the path "
            "inside each folder: *.py (any depth), src/**/*.py, docs/"
        )
        self.exclude = QLineEdit(self)
        self.exclude.setObjectName("corpusExclude")
        self.exclude.setAccessibleName("Exclude files matching")
        self.exclude.setPlaceholderText("nothing (e.g. tests/, *_pb2.py)")
        self.exclude.setToolTip("Leave out files or folders matching these globs (tests/, build/, *.min.js)")
        self.max_size = QLineEdit(self)
        self.max_size.setObjectName("corpusMaxSize")
        self.max_size.setAccessibleName("Largest file to read")
        self.max_size.setPlaceholderText("no limit (e.g. 1MB)")
        self.max_size.setToolTip("Leave out files larger than this: 500K, 10MB, 1.5G")
        self.error = QLabel(self)
        self.error.setObjectName("corpusFilterError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #d6336c;")
        self.error.hide()
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Include", self.include)
        form.addRow("Exclude", self.exclude)
        form.addRow("Max size", self.max_size)
        form.addRow(self.error)
        for field in (self.include, self.exclude, self.max_size):
            field.editingFinished.connect(self._edited)
        self._last = self.state()

    def state(self) -> tuple[str, str, str]:
        """The three fields' text (to tell a real change from leaving a field unchanged)."""
        return self.include.text(), self.exclude.text(), self.max_size.text()

    def _edited(self) -> None:
        if self.state() != self._last:
            self._last = self.state()
            problem = self.problem()
            self.error.setText(problem or "")
            self.error.setVisible(bool(problem))
            self.changed.emit()

    def set_values(self, include: str, exclude: str, max_size: str) -> None:
        """Fill the fields (remembered settings) and announce the change once."""
        self.include.setText(include)
        self.exclude.setText(exclude)
        self.max_size.setText(max_size)
        self._edited()

    def globs(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The include and exclude patterns."""
        return split_globs(self.include.text()), split_globs(self.exclude.text())

    def max_bytes(self) -> int | None:
        """The size cap in bytes, or ``None`` (no cap, or a size that is not one: see :meth:`problem`)."""
        text = self.max_size.text().strip()
        if not text:
            return None
        try:
            return parse_size(text)
        except InvalidArgument:
            return None

    def problem(self) -> str | None:
        """What is wrong with the fields in one line, or ``None``."""
        text = self.max_size.text().strip()
        if text:
            try:
                parse_size(text)
            except InvalidArgument as exc:
                return f"Max size: {exc}"
        include, exclude = self.globs()
        try:
            PathFilter(include, exclude)
        except InvalidArgument as exc:
            return str(exc)
        return None

    def active(self) -> bool:
        """Whether any field chooses files (else every text file of the folders is used)."""
        include, exclude = self.globs()
        return bool(include or exclude or self.max_bytes() is not None)
