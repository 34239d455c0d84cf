"""Crash safety: unexpected exceptions become a dialog instead of a dead app, and the text survives a real crash.

:class:`CrashReporter` replaces ``sys.excepthook`` and ``threading.excepthook`` while the GUI runs.
PySide6 hands exceptions raised in slots and in overridden Qt methods (``paintEvent`` …) to
``sys.excepthook`` and then carries on, so once the hook shows a dialog instead of printing, the
app keeps running. Exceptions from worker threads are moved to the GUI thread with a queued signal.
Every report is also printed to stderr and appended to ``crash.log`` in the app data folder.

:class:`Autosaver` covers what no hook can catch (a segfault, a kill, a power cut): it writes the
editor's text to ``autosave-<pid>.txt`` in the app data folder a few seconds after each change. The
main window keeps the text in QSettings only when it closes normally, so a clean exit deletes the
autosave file; a file left behind by a session whose lock is gone is restored at the next start.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from PySide6.QtCore import QLockFile, QObject, QStandardPaths, QSysInfo, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.io.atomic import atomic_write_text
from tokviz.core.io.procpool import process_alive
from tokviz.gui.widgets.fixed_text import fixed_text
from tokviz.gui.window.about import runtime_versions

if TYPE_CHECKING:
    from tokviz.gui.window.main_window import MainWindow

# The two hooks the reporter replaces while the GUI runs, and puts back.
ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], object]
ThreadExceptHook = Callable[[threading.ExceptHookArgs], object]

# Reports kept in the dialog; an exception raised on every repaint must not grow it without bound.
MAX_REPORTS = 20
MAX_LOG_BYTES = 1_000_000
AUTOSAVE_DELAY_MS = 2000
# Beyond this many characters the text is saved less often (writing it takes longer).
BIG_AUTOSAVE = 2_000_000
BIG_AUTOSAVE_DELAY_MS = 10_000
MAX_AUTOSAVE = 50_000_000
_AUTOSAVE_LOCK = re.compile(r"autosave-(?P<pid>[0-9]{1,10})\.lock")


def app_data_dir() -> Path:
    """tokviz's per-user data folder (``~/.local/share/tokviz/tokviz`` on Linux), created if needed."""
    folder = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    path = Path(folder) if folder else Path.home() / ".tokviz"
    path.mkdir(parents=True, exist_ok=True)
    return path


def format_report(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None, thread: str
) -> str:
    """The details a bug report needs: when, where (thread), versions, and the full traceback."""
    when = datetime.datetime.now().isoformat(timespec="seconds")
    trace = "".join(traceback.format_exception(exc_type, exc, tb))
    return f"{when}  thread {thread}\n{runtime_versions()}\n\n{trace}"


class CrashDialog(QDialog):
    """Says that something went wrong, shows the details, copies them; closing it goes back to the app."""

    quitRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("crashDialog")
        self.setWindowTitle("tokviz: unexpected error")
        self.reports: list[str] = []
        self.total = 0
        # The file the last report was appended to, as the reporter wrote it (None: not saved).
        self.log_path: Path | None = None

        icon = QLabel(self)
        icon.setPixmap(self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(48, 48))
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.summary = QLabel(self)
        self.summary.setObjectName("crashSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        header = QHBoxLayout()
        header.addWidget(icon)
        header.addWidget(self.summary, 1)

        self.details = fixed_text(self, "crashDetails", "Error details")

        buttons = QDialogButtonBox(self)
        self.copy_button = QPushButton("&Copy details", self)
        self.copy_button.setObjectName("crashCopy")
        self.copy_button.setToolTip("Copy the details to the clipboard, to paste into a bug report")
        self.quit_button = QPushButton("&Quit tokviz", self)
        self.quit_button.setObjectName("crashQuit")
        self.continue_button = QPushButton("C&ontinue", self)
        self.continue_button.setObjectName("crashContinue")
        self.continue_button.setDefault(True)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.quit_button, QDialogButtonBox.ButtonRole.DestructiveRole)
        buttons.addButton(self.continue_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.copy_button.clicked.connect(self.copy_details)
        self.quit_button.clicked.connect(self._quit)
        self.continue_button.clicked.connect(self.accept)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.details, 1)
        layout.addWidget(buttons)
        self.resize(760, 460)

    def add_report(self, summary: str, details: str, log_path: Path | None = None) -> None:
        """Show one more error; repeats of the same error are counted rather than listed again.

        ``log_path`` is the file the reporter has just appended it to (None when it was not saved):
        the dialog names that file, never a path worked out a second time.
        """
        self.total += 1
        if not self.reports or _without_time(self.reports[-1]) != _without_time(details):
            self.reports.append(details)
            del self.reports[:-MAX_REPORTS]
        self.log_path = log_path
        where = (
            f"<br>The details were also saved to <nobr><tt>{_html_escape(str(log_path))}</tt></nobr>."
            if log_path is not None
            else ""
        )
        more = f" ({self.total} errors so far)" if self.total > 1 else ""
        self.summary.setText(
            f"<b>Something went wrong{more}.</b><br>{_html_escape(summary)}<br><br>"
            "tokviz is still running and your text is kept. If this keeps happening, please copy "
            f"the details into a bug report.{where}"
        )
        self.details.setPlainText(self.details_text())
        self.details.verticalScrollBar().setValue(self.details.verticalScrollBar().maximum())

    def details_text(self) -> str:
        """Every report shown so far, oldest first."""
        return "\n\n".join(self.reports)

    def copy_details(self) -> None:
        """Put the details on the clipboard."""
        QGuiApplication.clipboard().setText(self.details_text())
        self.copy_button.setText("&Copied")

    def _quit(self) -> None:
        self.accept()
        self.quitRequested.emit()


def _without_time(details: str) -> str:
    """A report minus its timestamp line: the same error a second later is still the same error."""
    return details.partition("\n")[2]


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class CrashReporter(QObject):
    """Turns unexpected exceptions, in the GUI thread or any other, into a :class:`CrashDialog`.

    ``install()`` replaces the hooks, ``uninstall()`` puts the previous ones back (tests rely on
    this). ``before_report`` runs first for every error, e.g. to autosave the text right away.
    """

    # summary, details, and the file they were appended to ("" when not saved)
    _reported = Signal(str, str, str)

    def __init__(
        self,
        window: QWidget | None = None,
        log_dir: Path | None = None,
        before_report: Callable[[], object] | None = None,
    ) -> None:
        super().__init__(window)
        self.window = window
        self.log_path = (log_dir / "crash.log") if log_dir is not None else None
        self.before_report = before_report
        self.dialog: CrashDialog | None = None
        self.count = 0
        self._previous_hooks: tuple[ExceptHook, ThreadExceptHook] | None = None
        self._reporting = threading.local()
        # Queued even when emitted in the GUI thread: the dialog is never built inside a paintEvent.
        self._reported.connect(self._show, Qt.ConnectionType.QueuedConnection)

    def install(self) -> CrashReporter:
        """Route ``sys.excepthook`` and ``threading.excepthook`` here; returns self."""
        if self._previous_hooks is None:
            self._previous_hooks = (sys.excepthook, threading.excepthook)
            sys.excepthook = self.excepthook
            threading.excepthook = self.thread_excepthook
        return self

    def uninstall(self) -> None:
        """Put back the hooks that were there before :meth:`install`."""
        if self._previous_hooks is not None:
            sys.excepthook, threading.excepthook = self._previous_hooks
            self._previous_hooks = None

    def excepthook(self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        """``sys.excepthook``: KeyboardInterrupt goes to the previous hook; anything else is reported and the app goes on."""
        if issubclass(exc_type, KeyboardInterrupt):
            previous = self._previous_hooks[0] if self._previous_hooks else sys.__excepthook__
            previous(exc_type, exc, tb)
            return
        self.report(exc_type, exc, tb, threading.current_thread().name)

    def thread_excepthook(self, args: threading.ExceptHookArgs) -> None:
        """``threading.excepthook``: an exception that ended a thread (``SystemExit`` ends it quietly)."""
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        name = args.thread.name if args.thread is not None else "unknown"
        self.report(args.exc_type, args.exc_value, args.exc_traceback, name)

    def report(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None, thread: str
    ) -> None:
        """Print, log and show one error; safe to call from any thread and never raises."""
        if getattr(self._reporting, "active", False):
            # An error while reporting an error: give up on the dialog, keep the traceback.
            sys.__excepthook__(exc_type, exc, tb)
            return
        self._reporting.active = True
        try:
            details = format_report(exc_type, exc, tb, thread)
            if sys.stderr is not None:  # None in a windowed bundle without a console
                print(f"tokviz: unexpected error\n{details}", file=sys.stderr, flush=True)
            written = self._append_log(details)
            summary = "".join(traceback.format_exception_only(exc_type, exc)).strip()
            self.count += 1
            self._reported.emit(summary, details, str(written) if written is not None else "")
        except Exception:  # noqa: BLE001 - the hook itself must never fail
            sys.__excepthook__(exc_type, exc, tb)
        finally:
            self._reporting.active = False

    def _append_log(self, details: str) -> Path | None:
        """Append ``details`` to the crash log; the file written, or None (no log, or it failed)."""
        path = self.log_path
        if path is None:
            return None
        try:
            if path.exists() and path.stat().st_size > MAX_LOG_BYTES:
                path.replace(path.with_suffix(".log.old"))
            with path.open("a", encoding="utf-8") as fh:
                fh.write(details + "\n")
        except OSError:
            self.log_path = None
            return None
        return path

    @Slot(str, str, str)
    def _show(self, summary: str, details: str, log_path: str) -> None:
        if self.before_report is not None:
            try:
                self.before_report()
            except Exception as exc:  # noqa: BLE001 - a failing autosave must not hide the report
                print(f"tokviz: could not autosave before reporting: {exc!r}", file=sys.stderr)
        if self.dialog is None:
            self.dialog = CrashDialog(self.window)
            self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
            self.dialog.quitRequested.connect(self._quit_app)
            self.dialog.finished.connect(self._dialog_closed)
        self.dialog.add_report(summary, details, Path(log_path) if log_path else None)
        if not self.dialog.isVisible():
            # Window-modal and non-blocking: no nested event loop inside whatever just failed.
            self.dialog.open()

    def _dialog_closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
            self.dialog = None

    def _quit_app(self) -> None:
        if self.window is not None:
            self.window.close()
        app = QApplication.instance()
        if app is not None:
            app.quit()


def remove_dead_sessions_locks(folder: Path) -> list[Path]:
    """Remove the ``autosave-<pid>.lock`` files of sessions whose process is gone; returns them.

    A crashed or killed session cannot remove its own lock, and nothing else would, so they piled
    up. The owner is the process the lock names inside (the one in the file name when the lock
    cannot be read); a lock taken on another machine is left alone. A crashed session's text
    stays: without its lock it is restored as before.
    """
    removed: list[Path] = []
    for path in folder.glob("autosave-*.lock"):
        match = _AUTOSAVE_LOCK.fullmatch(path.name)
        if match is None:
            continue
        pid, host, _app = QLockFile(str(path)).getLockInfo()
        if host and host != QSysInfo.machineHostName():
            continue
        owner = pid if pid > 0 else int(match["pid"])
        if owner == os.getpid() or process_alive(owner):
            continue
        with contextlib.suppress(OSError):
            path.unlink()
            removed.append(path)
    return removed


class Autosaver(QObject):
    """Keeps a copy of the editor's text on disk while tokviz runs, and restores one a crash left behind.

    Each running instance holds ``autosave-<pid>.lock`` (a QLockFile, which Qt declares stale
    once that process is gone) and writes ``autosave-<pid>.txt`` at most ``AUTOSAVE_DELAY_MS`` after
    the text changes. :meth:`discard` on a clean exit removes both, because the window's settings
    then hold the text. A text file whose lock can be taken belongs to a session that crashed.
    """

    restored = Signal(str)

    def __init__(
        self, window: MainWindow, folder: Path | None = None, delay_ms: int = AUTOSAVE_DELAY_MS
    ) -> None:
        super().__init__(window)
        self.window = window
        self.folder = folder if folder is not None else app_data_dir()
        self.folder.mkdir(parents=True, exist_ok=True)
        self.delay_ms = delay_ms
        self.path = self.folder / f"autosave-{os.getpid()}.txt"
        remove_dead_sessions_locks(self.folder)
        self.lock = QLockFile(str(self.path.with_suffix(".lock")))
        self.lock.setStaleLockTime(0)
        self.lock.tryLock(0)
        self.saves = 0
        self._dirty = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.save_now)
        window.editor.document().contentsChanged.connect(self._on_changed)

    def _on_changed(self) -> None:
        self._dirty = True
        # Not restarted on every key: while someone types, the text is still saved every few seconds.
        if not self._timer.isActive():
            big = self.window.editor.document().characterCount() > BIG_AUTOSAVE
            self._timer.start(BIG_AUTOSAVE_DELAY_MS if big else self.delay_ms)

    def save_now(self) -> bool:
        """Write the text if it changed since the last save; returns whether a file was written."""
        self._timer.stop()
        if not self._dirty:
            return False
        text = self.window.editor.toPlainText()
        self._dirty = False
        if len(text) > MAX_AUTOSAVE:
            return False
        try:
            atomic_write_text(self.path, text)
        except OSError as exc:
            print(f"tokviz: autosave to {self.path} failed: {exc}", file=sys.stderr)
            return False
        self.saves += 1
        return True

    def discard(self) -> None:
        """The session ended cleanly: remove this session's autosave and lock."""
        self._timer.stop()
        self._dirty = False
        self.path.unlink(missing_ok=True)
        self.lock.unlock()

    def orphans(self) -> list[Path]:
        """Autosaves left by sessions that are no longer running, newest first."""
        found = []
        for path in self.folder.glob("autosave-*.txt"):
            if path == self.path:
                continue
            lock = QLockFile(str(path.with_suffix(".lock")))
            lock.setStaleLockTime(0)
            if lock.tryLock(0):
                lock.unlock()
                found.append(path)
        return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)

    def restore_orphan(self) -> str | None:
        """Put the newest crashed session's text in the editor (undoable); returns it, or None.

        Older orphans stay on disk and come back at the next starts, one per start.
        """
        for path in self.orphans():
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                path.unlink(missing_ok=True)
                continue
            when = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%Y-%m-%d %H:%M:%S")
            path.unlink(missing_ok=True)
            if text and text != self.window.editor.toPlainText():
                self.window.set_text(text)
                self.window.statusBar().showMessage(
                    f"Restored the text of a session that ended unexpectedly (autosaved {when}); Ctrl+Z brings back the previous text",
                    15000,
                )
                self.restored.emit(text)
                return text
        return None


def install_crash_safety(window: MainWindow, folder: Path | None = None) -> tuple[CrashReporter, Autosaver]:
    """Give a running app's window the exception dialog and autosave, restoring a crashed session's text.

    On a clean quit (``QApplication.aboutToQuit``) the autosave is discarded and the hooks removed.
    """
    data_dir = folder if folder is not None else app_data_dir()
    autosaver = Autosaver(window, data_dir)
    autosaver.restore_orphan()
    reporter = CrashReporter(window, data_dir, before_report=autosaver.save_now).install()
    app = QApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(autosaver.discard)
        app.aboutToQuit.connect(reporter.uninstall)
    return reporter, autosaver
