"""One text's tokens under one tokenizer of the registry, kept up to date edit by edit.

:class:`TokenizationModel` re-encodes only the window around each edit, and in a worker thread
when the work is large; the views draw its table.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok.pretokenize import PatternTimeoutError
from tokviz.gui.models.entries import encodes_in_gui_thread
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.text.token_table import TableUpdate, TokenTable, execute_plan, plan_edit
from tokviz.gui.workers.jobs import Job, run_job


class TokenizationModel(QObject):
    """The tokens of the current text under one tokenizer, kept up to date edit by edit.

    ``tableChanged(TableUpdate)`` says which tokens changed so views redraw only those;
    ``busyChanged(bool)`` is true while a worker encodes a large change.
    """

    tableChanged = Signal(TableUpdate)
    busyChanged = Signal(bool)
    tokenizerChanged = Signal()
    failed = Signal(str)

    def __init__(self, registry: TokenizerRegistryModel, key: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.registry = registry
        self.key = key
        self.tokenizer: Tokenizer | None = registry.tokenizer(key)
        self.table: TokenTable | None = None
        self._text: str | None = None
        self._job: Job | None = None
        self._generation = 0
        # The tokenizer whose pattern last ran past its time limit: later edits are tried again
        # (in a worker), but the same error is not shown once per keystroke.
        self._timed_out: Tokenizer | None = None
        registry.tokenizerLoaded.connect(self._on_loaded)
        if self.tokenizer is None:
            registry.ensure_loaded(key)

    @property
    def busy(self) -> bool:
        """True while a worker is encoding or the tokenizer is still loading."""
        return self._job is not None or self.tokenizer is None

    @property
    def current(self) -> bool:
        """True when the table describes the latest text."""
        return self.table is not None and self._text is not None and self.table.text == self._text

    def set_tokenizer(self, key: str) -> None:
        """Switch tokenizer; the whole text is encoded again (in a worker if it is large)."""
        if key == self.key and self.tokenizer is not None:
            return
        self.key = key
        self._generation += 1
        self._job = None
        self.tokenizer = self.registry.tokenizer(key)
        # Views keep showing the old tokens (with their own tokenizer) until the new table arrives.
        self.table = None
        self.tokenizerChanged.emit()
        if self.tokenizer is None:
            self.registry.ensure_loaded(key)
            self.busyChanged.emit(True)
            return
        if self._text is not None:
            self._schedule(self._text)

    def set_text(self, text: str) -> None:
        """Tokenize a new version of the text (synchronously when the changed window is small)."""
        self._text = text
        self.registry.note_editor_text(text)
        if self.tokenizer is None or self._job is not None:
            return
        self._schedule(text)

    def _on_loaded(self, key: str) -> None:
        if key != self.key:
            return
        tok = self.registry.tokenizer(key)
        if tok is not self.tokenizer and self.tokenizer is not None:
            # A new tokenizer under the same key (the words vocabulary rebuilt, a file opened
            # again): whatever was encoded or is being encoded with the old one is void.
            self._generation += 1
            self._job = None
            self.table = None
        self.tokenizer = tok
        self.tokenizerChanged.emit()
        if self._text is not None and self._job is None:
            self._schedule(self._text)

    def _schedule(self, text: str) -> None:
        tok = self.tokenizer
        assert tok is not None
        plan = plan_edit(tok, self.table, text)
        if plan.unchanged:
            return
        if encodes_in_gui_thread(self.key, tok, plan.size):
            self._apply(execute_plan(tok, self.table, plan))
            return
        old = self.table
        generation = self._generation
        job = run_job(lambda: execute_plan(tok, old, plan), self)
        self._job = job
        self.busyChanged.emit(True)

        def done(update: TableUpdate) -> None:
            if generation != self._generation:
                return
            self._job = None
            self._timed_out = None
            self._apply(update)
            if self._text is not None and self._text != update.table.text:
                self._schedule(self._text)
            if self._job is None:  # also when the newer text was encoded at once, in this thread
                self.busyChanged.emit(False)

        def failed(exc: BaseException) -> None:
            if generation != self._generation:
                return
            self._job = None
            timed_out = isinstance(exc, PatternTimeoutError)
            repeated = timed_out and self._timed_out is tok
            if timed_out:
                self._timed_out = tok
            if timed_out and self._text is not None and self._text != plan.text:
                # The user typed on meanwhile (perhaps removing what the pattern chokes on): try
                # the newest text, in a worker again since this tokenizer's pattern is bounded.
                self._schedule(self._text)
            else:
                self.busyChanged.emit(False)
            if not repeated:
                self.failed.emit(str(exc))

        job.returned.connect(done)
        job.errored.connect(failed)

    def _apply(self, update: TableUpdate) -> None:
        self.table = update.table
        self.tableChanged.emit(update)
