"""The vocabulary browser's class filter: which tokens are broken (:mod:`tokviz.core.analysis.audit`).

:class:`ClassFilter` is a small button with a menu of the audit's classes (OK, special, partial
UTF-8, only in a sequence, unreachable), each checkable and showing how many tokens it holds. The
audit runs off the GUI thread once the menu is first opened, and from then on for each tokenizer
the browser shows (a newer one cancels a running audit): the app pays nothing for it until it is
wanted. ``classesChanged(ids)`` hands the model the ids of the checked classes, or None when every
class is checked (no filter).
"""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QToolButton, QWidget

from tokviz.core.analysis.audit import (
    CLASS_LABELS,
    CLASS_MEANINGS,
    CLASSES,
    VocabularyAudit,
    audit_vocabulary,
)
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import Cancelled
from tokviz.gui.workers.latest import LatestJob

# The classes "Only broken tokens" keeps: every class but OK.
BROKEN = tuple(name for name in CLASSES if name != "ok")


class ClassFilter(QToolButton):
    """A menu button: check the token classes to list; the counts come from a background audit.

    ``classesChanged(ndarray)`` sends the ids of the checked classes (a sorted numpy array), or None
    when all are checked; ``audited(object)`` the :class:`VocabularyAudit` once it is ready.
    """

    classesChanged = Signal(np.ndarray)  # or None: every class is checked
    audited = Signal(VocabularyAudit)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vocabClassFilter")
        self.setAccessibleName("Token classes to list")
        self.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        # The label ends in ▾ itself: the style's corner arrow read as a clipped button.
        self.setStyleSheet("QToolButton::menu-indicator { image: none; width: 0px; }")
        self.audit: VocabularyAudit | None = None
        self.tokenizer: Tokenizer | None = None
        self.wanted = False  # the menu was opened: audit every tokenizer shown from now on
        self._jobs = LatestJob(self)
        self._cancel = threading.Event()
        running = self._running = [self._cancel]
        # A browser closed mid-audit stops its audit (the pool's threads are shared).
        self.destroyed.connect(lambda: running[0].set())
        menu = QMenu(self)
        menu.setObjectName("vocabClassMenu")
        menu.setToolTipsVisible(True)
        menu.aboutToShow.connect(self.ensure_audited)
        self.actions_by_class: dict[str, QAction] = {}
        for name in CLASSES:
            action = QAction(CLASS_LABELS[name], self)
            action.setCheckable(True)
            action.setChecked(True)
            action.setToolTip(CLASS_MEANINGS[name])
            action.toggled.connect(self._emit)
            menu.addAction(action)
            self.actions_by_class[name] = action
        menu.addSeparator()
        menu.addAction("All classes", lambda: self.check(CLASSES))
        menu.addAction("Only broken tokens", lambda: self.check(BROKEN))
        self.setMenu(menu)
        self._label()

    # ---------------------------------------------------------------- the audit
    def set_tokenizer(self, tokenizer: Tokenizer | None) -> None:
        """Show ``tokenizer``'s classes: audited in the background once the menu has been opened
        (a running audit of another tokenizer is cancelled)."""
        if tokenizer is self.tokenizer:
            return
        self._cancel.set()
        self.tokenizer = tokenizer
        self.audit = None
        self._jobs.drop()
        self._label()
        if self.wanted:
            self._start()

    def ensure_audited(self) -> None:
        """Audit the tokenizer shown now and every one shown later (the menu calls this when opened)."""
        self.wanted = True
        if self.audit is None and not self._jobs.busy:
            self._start()
        self._label()

    def _start(self) -> None:
        tokenizer = self.tokenizer
        if tokenizer is None:
            return
        cancel = self._cancel = self._running[0] = threading.Event()

        def work() -> VocabularyAudit:
            return audit_vocabulary(tokenizer, cancel=cancel.is_set)

        self._jobs.submit(work, self._deliver, self._failed)

    def _deliver(self, audit: VocabularyAudit) -> None:
        if audit.tokenizer is not self.tokenizer:
            return
        self.audit = audit
        self._label()
        self.audited.emit(audit)
        self._emit()

    def _failed(self, error: BaseException) -> None:
        if not isinstance(error, Cancelled):
            self.setText("Classes: – ▾")
            self.setToolTip(f"The audit failed: {error}")

    @property
    def busy(self) -> bool:
        """True while an audit is running or waiting."""
        return self._jobs.busy

    # ---------------------------------------------------------------- the filter
    def checked(self) -> tuple[str, ...]:
        """The classes checked, in :data:`CLASSES` order."""
        return tuple(name for name in CLASSES if self.actions_by_class[name].isChecked())

    def check(self, names: tuple[str, ...]) -> None:
        """Check exactly the classes ``names`` (one filter update, not one per class)."""
        for name, action in self.actions_by_class.items():
            action.blockSignals(True)
            action.setChecked(name in names)
            action.blockSignals(False)
        self._emit()

    def selected_ids(self) -> np.ndarray | None:
        """The ids of the checked classes, or None when all are checked or nothing is audited yet."""
        names = self.checked()
        if self.audit is None or len(names) == len(CLASSES):
            return None
        return self.audit.ids_of(*names)

    def _emit(self, *_args: object) -> None:
        self._label()
        self.classesChanged.emit(self.selected_ids())

    def _label(self) -> None:
        audit = self.audit
        counts = audit.class_counts() if audit is not None else None
        for name, action in self.actions_by_class.items():
            suffix = f" ({counts[name]:,})" if counts is not None else ""
            action.setText(CLASS_LABELS[name] + suffix)
        names = self.checked()
        if audit is None:
            self.setText("Classes: … ▾" if self.tokenizer is not None and self.wanted else "Classes ▾")
        elif len(names) == len(CLASSES):
            self.setText("Classes: all ▾")
        elif len(names) == 1:
            self.setText(f"Classes: {CLASS_LABELS[names[0]]} ▾")
        else:
            self.setText(f"Classes: {len(names)} of {len(CLASSES)} ▾")
        self._keep_menu_on_screen()
        tip = "List only the tokens of the checked classes (an audit: each token's text is encoded again)"
        if counts is not None:
            tip += "\n" + "\n".join(
                f"{CLASS_LABELS[n]}: {c:,}, {CLASS_MEANINGS[n]}" for n, c in counts.items()
            )
        self.setToolTip(tip)

    def _keep_menu_on_screen(self) -> None:
        """Counts that arrive while the menu is open widen it: move it back inside the screen."""
        menu = self.menu()
        screen = self.screen()
        if not menu.isVisible() or screen is None:
            return
        menu.adjustSize()
        room = screen.availableGeometry()
        x = min(menu.x(), room.right() - menu.width())
        if x != menu.x():
            menu.move(max(room.left(), x), menu.y())
