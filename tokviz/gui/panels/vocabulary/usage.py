"""What the browsed vocabulary uses on the editor's text or a folder: counted off the GUI thread.

:class:`UsageCounter` counts the shown tokenizer's ids (with :mod:`tokviz.core.analysis.usage`) on the
editor's text, again after each pause in typing, or on the text files of a folder the user chose
(:func:`tokviz.core.corpus.fileselect.select_files`: binaries skipped and counted). Only the newest
request is delivered; a newer one cancels a folder count still running. :class:`LengthHistogram`
draws the token-length histogram of the vocabulary, with the part the text uses.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QHelpEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from tokviz.core.analysis.usage import LengthHistogram as Histogram
from tokviz.core.analysis.usage import VocabularyUsage, count_files, count_tokens
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import Cancelled, TokvizError
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.latest import LatestJob

EDITOR = "editor"
# The histogram's last bar holds every longer token.
LAST_BUCKET = 16


USAGE_LABELS = (
    "All tokens",
    "Used on {where}",
    "Never used on {where}",
    "Suspicious: long and rare",
    "Merges never applied",
)
_TIPS = (
    "Every token of the vocabulary",
    "Tokens that occur in the counted text",
    "Tokens that never occur in the counted text (special tokens among them, unless typed in the editor)",
    "Tokens that look under-trained on this text: long and unused, or long and rare "
    "(score = length / (1 + log2(1 + count)) of 8 or more: unused and 8+ bytes, seen once and 16+ bytes, …)",
    "Tokens whose merge the text never applies, not even on the way to a longer token "
    "(found once the merge list is ready)",
)


def usage_mode_items(result: UsageResult | None, folder: bool) -> list[tuple[str, str]]:
    """``(label, tooltip)`` of each usage filter, with how many tokens it keeps once counted."""
    where = "the folder" if folder else "this text"
    counts: tuple[str, ...] = ("", "", "", "", "")
    if result is not None:
        u = result.usage
        counts = (
            f" ({u.vocabulary:,})",
            f" ({u.used:,})",
            f" ({u.vocabulary - u.used:,})",
            f" ({result.suspicious:,})",
            "" if result.never_applied is None else f" ({len(result.never_applied):,})",
        )
    return [(label.format(where=where) + n, tip) for label, n, tip in zip(USAGE_LABELS, counts, _TIPS)]


@dataclass(frozen=True)
class UsageResult:
    """One count: the tokenizer, what was counted (``where``: "the editor's text", "folder docs (328
    files)"), the report, a note on files left out (or None), and what the browser shows of it,
    computed in the worker too (the histogram, how many tokens look under-trained)."""

    tokenizer: Tokenizer
    where: str
    usage: VocabularyUsage
    note: str | None = None
    histogram: Histogram | None = None
    suspicious: int = 0
    # The ids made by merges never applied, not even on the way to a longer token (None until the
    # tokenizer's merge tables are ready).
    never_applied: np.ndarray | None = None


def _finished(
    tokenizer: Tokenizer,
    where: str,
    usage: VocabularyUsage,
    note: str | None = None,
    merges_ready: bool = False,
) -> UsageResult:
    """The result with everything the browser shows computed now, in the worker. The merges never
    applied only once the registry has the merge tables (recovering cl100k's or o200k's takes
    seconds, and the registry does it once, in its own queue)."""
    never = None
    if merges_ready:
        idle = usage.merge_firing().never_applied.tolist()
        never = np.unique(np.array([tokenizer.id_of_merge(i) for i in idle], dtype=np.int64))
    return UsageResult(
        tokenizer, where, usage, note, usage.length_histogram(), len(usage.suspicious_ids()), never
    )


def _count_folder(
    tokenizer: Tokenizer,
    folder: str,
    cancel: threading.Event,
    progress: Callable[[int, int], None],
    merges_ready: bool,
) -> UsageResult:
    """Select the folder's text files and count on them; ``progress(done, total)`` in bytes, in the worker."""
    from tokviz.core.corpus.fileselect import select_files

    selection = select_files([folder], cancel=cancel.is_set)
    files = selection.corpus_files()
    name = Path(folder).name or folder
    if not files:
        raise TokvizError(
            f"the folder {name} holds no text files" + (f" ({selection.note()})" if selection.note() else "")
        )
    total = sum(f.size for f in files)
    done = 0
    shown = 0.0

    def read(n: int) -> None:
        nonlocal done, shown
        done += n
        now = time.monotonic()
        if now - shown >= 0.25:
            shown = now
            progress(done, total)

    counts = count_files(tokenizer, files, cancel=cancel.is_set, on_bytes=read, errors="replace")
    n = len(files)
    return _finished(
        tokenizer,
        f"folder {name} ({n:,} {'file' if n == 1 else 'files'})",
        VocabularyUsage(tokenizer, counts),
        selection.note(),
        merges_ready,
    )


def editor_usage(
    tokenizer: Tokenizer, text: str, cancel: Callable[[], bool] | None = None
) -> VocabularyUsage:
    """The vocabulary's use on the editor's text, counted as its views encode it (and as a folder is).

    Whether ``<|endoftext|>`` typed in the text counts as the special token is the tokenizer's to
    say: pass :func:`~tokviz.core.bpe.specials_text.reading_specials`'s view for plain text.
    """
    return VocabularyUsage(tokenizer, count_tokens(tokenizer, [text], cancel))


class UsageCounter(QObject):
    """Counts a tokenizer's ids on the editor's text or a folder in the background.

    ``counted(UsageResult)`` delivers the newest count; ``failed(message)`` a count that could not
    be made (a folder without text files); ``busyChanged(bool)`` says a count is running.
    """

    counted = Signal(UsageResult)
    failed = Signal(str)
    busyChanged = Signal(bool)
    # (bytes read, bytes in all) of a folder being counted; sent from the worker, delivered queued.
    progressed = Signal(int, int)

    def __init__(self, editor_text: Callable[[], str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._editor_text = editor_text
        self.folder: str | None = None
        self.tokenizer: Tokenizer | None = None
        self.merges_ready = False
        self.result: UsageResult | None = None
        self._jobs = LatestJob(self)
        self._jobs.idle.connect(lambda: self.busyChanged.emit(False))
        self._cancel = threading.Event()
        # Typing re-counts the editor's text once it pauses.
        self._debouncer = Debouncer(400, self)
        self._debouncer.triggered.connect(self.recount)

    @property
    def busy(self) -> bool:
        """True while a count is running or waiting."""
        return self._jobs.busy

    def source(self) -> str:
        """What is counted: :data:`EDITOR` or the folder's path."""
        return self.folder or EDITOR

    def set_tokenizer(self, tokenizer: Tokenizer | None, merges_ready: bool = False) -> None:
        """Count for another tokenizer (nothing for None); a result for the old one is dropped.

        ``merges_ready`` says its merge tables are built, so the merges never applied are found too.
        """
        if tokenizer is self.tokenizer:
            return
        self.tokenizer = tokenizer
        self.merges_ready = merges_ready
        self.result = None
        self.recount()

    def set_merges_ready(self) -> None:
        """The tokenizer's merge tables are built now: add the merges never applied to the count."""
        if self.merges_ready:
            return
        self.merges_ready = True
        result = self.result
        if result is None or self.busy:
            self.recount()
            return
        cancel = self._cancel

        def work() -> UsageResult:
            if cancel.is_set():
                raise Cancelled()
            return _finished(result.tokenizer, result.where, result.usage, result.note, True)

        self.busyChanged.emit(True)
        self._jobs.submit(work, self._deliver, self._error)

    def set_folder(self, folder: str | None) -> None:
        """Count the text files of ``folder`` from now on, or the editor's text again with None."""
        self.folder = folder
        self.result = None
        self.recount()

    def text_edited(self) -> None:
        """The editor's text changed: count it again after a pause (only when it is the source)."""
        if self.folder is None:
            self._debouncer.trigger()

    def recount(self) -> None:
        """Start counting the current source for the current tokenizer (a running count is cancelled)."""
        self._cancel.set()
        tok = self.tokenizer
        if tok is None:
            self._jobs.drop()
            return
        cancel = self._cancel = threading.Event()
        folder = self.folder
        ready = self.merges_ready
        if folder is None:
            text = self._editor_text()

            def work() -> UsageResult:
                usage = editor_usage(tok, text, cancel.is_set)
                return _finished(tok, "the editor's text", usage, None, ready)
        else:

            def work() -> UsageResult:
                return _count_folder(tok, folder, cancel, self.progressed.emit, ready)

        self.busyChanged.emit(True)
        self._jobs.submit(work, self._deliver, self._error)

    def _deliver(self, result: UsageResult) -> None:
        if result.tokenizer is not self.tokenizer:
            return
        self.result = result
        self.counted.emit(result)

    def _error(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            return
        message = str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}"
        self.failed.emit(message)


class LengthHistogram(QWidget):
    """Bars of token lengths in bytes: the vocabulary's tokens (pale) and those the text uses (solid)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("vocabLengthHistogram")
        self.setAccessibleName("Token lengths")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.buckets: list[tuple[str, int, int, int]] = []

    def set_histogram(self, histogram: Histogram | None) -> None:
        """Show ``histogram`` (None: nothing)."""
        self.buckets = histogram.buckets(LAST_BUCKET) if histogram is not None else []
        used = sum(b[2] for b in self.buckets)
        total = sum(b[1] for b in self.buckets)
        self.setAccessibleDescription(
            f"token lengths 1 to {self.buckets[-1][0]} bytes; {used:,} of {total:,} tokens used"
            if self.buckets
            else ""
        )
        self.update()

    def sizeHint(self) -> QSize:
        return QSize(200, self.fontMetrics().height() * 5)

    def minimumSizeHint(self) -> QSize:
        return QSize(80, self.fontMetrics().height() * 5)

    def _plot_rect(self) -> QRectF:
        fm = self.fontMetrics()
        return QRectF(2, fm.height() + 2, self.width() - 4, self.height() - 2 * fm.height() - 6)

    def _bar_at(self, x: float) -> int:
        if not self.buckets:
            return -1
        rect = self._plot_rect()
        i = int((x - rect.left()) / (rect.width() / len(self.buckets)))
        return i if 0 <= i < len(self.buckets) else -1

    def shown_title(self) -> str:
        """The title as drawn: a shorter form before an elided one, so a 1024-pixel screen's dock
        still says which bar is which."""
        fm = self.fontMetrics()
        forms = (
            "Token lengths in bytes (log scale): pale = vocabulary, solid = used here",
            "Lengths in bytes, log: pale = vocab, solid = used",
            "Lengths (log): pale = vocab, solid = used",
        )
        title = next((f for f in forms if fm.horizontalAdvance(f) <= self.width() - 4), forms[-1])
        return fm.elidedText(title, Qt.TextElideMode.ElideRight, self.width() - 4)

    @staticmethod
    def bar_height(value: int, top: int, full: float) -> float:
        """A bar's height on a log scale: the 97 tokens a short text uses of GPT-2's 50,257 stay
        visible (a tenth of a pixel on a linear scale) next to the vocabulary's bar."""
        return full * math.log1p(value) / math.log1p(max(top, 1)) if value > 0 else 0.0

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        pal = self.palette()
        fm = self.fontMetrics()
        painter.setPen(pal.color(QPalette.ColorRole.Text))
        painter.drawText(QPointF(2, fm.ascent()), self.shown_title())
        if not self.buckets:
            painter.end()
            return
        rect = self._plot_rect()
        top = max(b[1] for b in self.buckets) or 1
        width = rect.width() / len(self.buckets)
        pale = pal.color(QPalette.ColorRole.Highlight)
        pale.setAlpha(70)
        solid = pal.color(QPalette.ColorRole.Highlight)
        for i, (label, vocab, used, _occ) in enumerate(self.buckets):
            x = rect.left() + i * width
            for value, colour in ((vocab, pale), (used, solid)):
                h = self.bar_height(value, top, rect.height())
                painter.fillRect(QRectF(x + 1, rect.bottom() - h, max(width - 2, 1), h), colour)
            if i % 3 == 0 or i == len(self.buckets) - 1:
                painter.drawText(
                    QRectF(x - width, rect.bottom() + 2, 3 * width, fm.height()),
                    Qt.AlignmentFlag.AlignHCenter,
                    label,
                )
        painter.end()

    def event(self, event: QEvent) -> bool:
        if isinstance(event, QHelpEvent):
            i = self._bar_at(event.pos().x())
            if i >= 0:
                label, vocab, used, occ = self.buckets[i]
                QToolTip.showText(
                    event.globalPos(),
                    f"{label} bytes: {vocab:,} tokens in the vocabulary, {used:,} used here, {occ:,} occurrences",
                    self,
                )
            else:
                QToolTip.hideText()
            return True
        return super().event(event)
