"""A count table's own settings in the Train form: shown, locked, and the user's own given back after.

A table was counted with its special tokens and pre-tokenizer, and training from it uses those
whatever the form says. So while the corpus is a table, the "Special tokens" and "Pre-tokenizer"
fields show the table's, disabled, with a tooltip saying where they come from; the vocabulary hint
and the model's default name follow them. When the corpus goes back to text or files, the fields
hold the user's own settings again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QComboBox, QLineEdit

LOCKED_TIP = "Set by the count table: it was counted with {what}, and training from it uses them"


@dataclass(frozen=True)
class TableSettings:
    """The settings a count table was counted with, as its metadata records them."""

    special_tokens: tuple[str, ...]
    pretokenizer: str


@dataclass(frozen=True)
class _UserSettings:
    """What the user had in the locked fields, to give back when the table goes."""

    specials: str
    pretokenizer: object
    pattern: str
    specials_tip: str
    pretokenizer_tip: str


class LockableFields(Protocol):
    """The Train form's fields a count table locks, and the form's own ways to set and describe them."""

    specials: QLineEdit
    pretokenizer: QComboBox
    pattern: QLineEdit

    def set_pretokenizer(self, spec: str) -> None:
        """Choose a named pre-tokenizer or a custom regex."""
        ...

    def update_vocab_hint(self) -> None:
        """Say again what the vocabulary size holds (the special tokens changed)."""
        ...


class TableLock:
    """Shows a :class:`TableSettings` in ``form``'s fields, locked, or gives the user's settings back.

    While :attr:`locked`, the form's special tokens are :attr:`special_tokens` (the table's, exactly:
    a token holding a comma stays one token) and remembering settings leaves the user's alone.
    """

    def __init__(self, form: LockableFields) -> None:
        self._form = form
        self._user: _UserSettings | None = None
        self.table: TableSettings | None = None

    @property
    def locked(self) -> bool:
        """True while the fields show a table's settings."""
        return self.table is not None

    def special_tokens(self) -> list[str] | None:
        """The table's special tokens while locked, else None (the field's text says them)."""
        return list(self.table.special_tokens) if self.table is not None else None

    def show(self, table: TableSettings | None) -> None:
        """Show ``table``'s settings, locked; None gives the user's own settings back.

        Whether the fields are enabled is left to :meth:`apply_enabled`, which the panel calls
        with whether a run is going on."""
        if table == self.table:
            return
        if table is None:
            self._unlock()
            return
        form = self._form
        if self._user is None:
            self._user = _UserSettings(
                form.specials.text(),
                form.pretokenizer.currentData(),
                form.pattern.text(),
                form.specials.toolTip(),
                form.pretokenizer.toolTip(),
            )
        self.table = table
        form.specials.setText(", ".join(table.special_tokens))
        form.set_pretokenizer(table.pretokenizer)
        specials = "these special tokens" if table.special_tokens else "no special tokens"
        form.specials.setToolTip(LOCKED_TIP.format(what=specials))
        form.pretokenizer.setToolTip(LOCKED_TIP.format(what="this pre-tokenizer"))
        form.update_vocab_hint()

    def apply_enabled(self, enabled: bool) -> None:
        """Enable the fields as ``enabled`` asks, but keep them disabled while locked."""
        form = self._form
        open_ = enabled and not self.locked
        form.specials.setEnabled(open_)
        form.pretokenizer.setEnabled(open_)
        form.pattern.setEnabled(open_ and form.pretokenizer.currentData() == "custom")

    def _unlock(self) -> None:
        user, form = self._user, self._form
        if user is not None:
            # Still locked while the user's values go back, so they are not remembered twice.
            form.specials.setText(user.specials)
            row = form.pretokenizer.findData(user.pretokenizer)
            form.pretokenizer.setCurrentIndex(max(row, 0))
            form.pattern.setText(user.pattern)
            form.specials.setToolTip(user.specials_tip)
            form.pretokenizer.setToolTip(user.pretokenizer_tip)
        self._user = None
        self.table = None
        form.update_vocab_hint()
