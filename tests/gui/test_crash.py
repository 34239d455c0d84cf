"""Crash safety: an unexpected exception shows a dialog and the app goes on; the text survives a hard crash."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QLockFile, QTimer
from PySide6.QtGui import QGuiApplication, QPaintEvent
from PySide6.QtWidgets import QWidget

from tokviz.gui import MainWindow
from tokviz.gui.window.crash import Autosaver, CrashDialog, CrashReporter, app_data_dir


@pytest.fixture
def reporter(window, tmp_path):
    """The exception hooks, installed for one test and then put back."""
    r = CrashReporter(window, tmp_path).install()
    yield r
    r.uninstall()
    if r.dialog is not None:
        r.dialog.close()


def wait_for_dialog(qtbot, reporter: CrashReporter) -> CrashDialog:
    qtbot.waitUntil(lambda: reporter.dialog is not None and reporter.dialog.isVisible(), timeout=5000)
    assert reporter.dialog is not None
    return reporter.dialog


def set_text(qtbot, window: MainWindow, text: str) -> None:
    window.set_text(text)
    qtbot.waitUntil(lambda: window.is_ready() and window.text == text, timeout=20000)


def failing_slot() -> None:
    raise ZeroDivisionError("the slot divided by zero")


def test_an_exception_in_a_slot_shows_the_dialog_and_the_app_keeps_working(qtbot, window, reporter, gpt2):
    QTimer.singleShot(0, failing_slot)
    dialog = wait_for_dialog(qtbot, reporter)

    assert "ZeroDivisionError: the slot divided by zero" in dialog.summary.text()
    details = dialog.details.toPlainText()
    assert "Traceback (most recent call last)" in details
    assert "in failing_slot" in details
    assert "thread MainThread" in details and "PySide6" in details

    dialog.continue_button.click()
    qtbot.waitUntil(lambda: reporter.dialog is None, timeout=5000)
    set_text(qtbot, window, "still running after the error")
    assert window.token_counts()[0] == len(gpt2.encode("still running after the error"))


def test_copy_details_puts_the_traceback_on_the_clipboard(qtbot, reporter):
    QTimer.singleShot(0, failing_slot)
    dialog = wait_for_dialog(qtbot, reporter)
    dialog.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    assert copied == dialog.details.toPlainText()
    assert "ZeroDivisionError" in copied


def test_the_report_is_also_written_to_the_crash_log(qtbot, reporter, tmp_path):
    QTimer.singleShot(0, failing_slot)
    wait_for_dialog(qtbot, reporter)
    log = (tmp_path / "crash.log").read_text(encoding="utf-8")
    assert "ZeroDivisionError: the slot divided by zero" in log


def named_log(dialog: CrashDialog) -> Path | None:
    """The file the dialog says the details were saved to."""
    found = re.search(r"<tt>(.*?)</tt>", dialog.summary.text())
    return Path(html.unescape(found.group(1))) if found else None


def test_the_dialog_names_the_very_file_the_report_was_appended_to(qtbot, window):
    reporter = CrashReporter(window, app_data_dir()).install()  # the app's own folder, as tokviz starts
    try:
        QTimer.singleShot(0, failing_slot)
        dialog = wait_for_dialog(qtbot, reporter)
        named = named_log(dialog)
        assert named is not None and named == dialog.log_path == reporter.log_path
        assert "ZeroDivisionError: the slot divided by zero" in named.read_text(encoding="utf-8")
    finally:
        reporter.uninstall()
        if reporter.dialog is not None:
            reporter.dialog.close()


def test_a_report_that_could_not_be_saved_names_no_file(qtbot, window, tmp_path):
    not_a_folder = tmp_path / "plain-file"
    not_a_folder.write_text("")
    reporter = CrashReporter(window, not_a_folder).install()  # crash.log cannot go inside a file
    try:
        QTimer.singleShot(0, failing_slot)
        dialog = wait_for_dialog(qtbot, reporter)
        assert named_log(dialog) is None and dialog.log_path is None
        assert "saved to" not in dialog.summary.text()
    finally:
        reporter.uninstall()
        if reporter.dialog is not None:
            reporter.dialog.close()


class BrokenWidget(QWidget):
    """A widget whose every repaint fails, the worst case for an exception dialog."""

    def paintEvent(self, event: QPaintEvent) -> None:
        raise RuntimeError("paintEvent is broken")


def test_a_failing_paint_event_opens_one_dialog_that_counts_the_repeats(qtbot, window, reporter):
    broken = BrokenWidget(window)
    broken.resize(50, 50)
    broken.show()
    broken.update()  # painted by the event loop, as in the running app
    dialog = wait_for_dialog(qtbot, reporter)

    def repainted_three_times() -> bool:
        broken.update()  # updates may coalesce on a busy machine: keep asking for paints
        return dialog.total >= 3

    qtbot.waitUntil(repainted_three_times, timeout=5000)

    assert len(dialog.reports) == 1, "an identical traceback is counted, not listed again"
    assert "errors so far" in dialog.summary.text()
    assert window.findChildren(CrashDialog) == [dialog]


def test_an_exception_in_a_worker_thread_is_shown_in_the_gui_thread(qtbot, reporter):
    def work() -> None:
        raise ValueError("the worker failed")

    thread = threading.Thread(target=work, name="tokenizer-loader")
    thread.start()
    thread.join(5)
    dialog = wait_for_dialog(qtbot, reporter)
    assert "ValueError: the worker failed" in dialog.summary.text()
    assert "thread tokenizer-loader" in dialog.details.toPlainText()


def test_the_autosave_runs_right_before_the_dialog_opens(qtbot, window, tmp_path):
    autosaver = Autosaver(window, tmp_path / "data", delay_ms=60_000)
    reporter = CrashReporter(window, tmp_path, before_report=autosaver.save_now).install()
    try:
        set_text(qtbot, window, "text typed just before the error")
        QTimer.singleShot(0, failing_slot)
        wait_for_dialog(qtbot, reporter)
        assert autosaver.path.read_text(encoding="utf-8") == "text typed just before the error"
    finally:
        reporter.uninstall()
        reporter.dialog and reporter.dialog.close()
        autosaver.discard()


def test_uninstall_puts_the_previous_hooks_back(window, tmp_path):
    before = (sys.excepthook, threading.excepthook)
    r = CrashReporter(window, tmp_path).install()
    assert sys.excepthook == r.excepthook
    r.uninstall()
    assert (sys.excepthook, threading.excepthook) == before


# ---------------------------------------------------------------------------------------------- autosave
def test_the_text_is_autosaved_a_moment_after_it_changes(qtbot, window, tmp_path):
    autosaver = Autosaver(window, tmp_path, delay_ms=50)
    set_text(qtbot, window, "first draft")
    qtbot.waitUntil(lambda: autosaver.path.exists(), timeout=5000)
    assert autosaver.path.read_text(encoding="utf-8") == "first draft"

    set_text(qtbot, window, "second draft")
    qtbot.waitUntil(lambda: autosaver.path.read_text(encoding="utf-8") == "second draft", timeout=5000)
    saves = autosaver.saves
    assert not autosaver.save_now(), "nothing changed, so nothing is written"
    assert autosaver.saves == saves
    autosaver.discard()


def test_a_clean_exit_removes_the_autosave(qtbot, window, tmp_path):
    autosaver = Autosaver(window, tmp_path, delay_ms=50)
    set_text(qtbot, window, "saved in the settings on a clean exit")
    autosaver.save_now()
    assert autosaver.path.exists()
    autosaver.discard()
    assert list(tmp_path.glob("autosave-*")) == []


def crash_a_session(folder: Path, text: str) -> Path:
    """Run a process that autosaves ``text`` the way tokviz does and then dies without cleaning up."""
    script = textwrap.dedent(
        f"""
        import os, sys
        from pathlib import Path
        from PySide6.QtCore import QLockFile
        folder = Path({str(folder)!r})
        path = folder / f"autosave-{{os.getpid()}}.txt"
        lock = QLockFile(str(path.with_suffix(".lock")))
        assert lock.tryLock(0)
        path.write_text({text!r}, encoding="utf-8")
        print(path)
        sys.stdout.flush()
        os._exit(1)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, proc.stderr
    return Path(proc.stdout.strip())


def test_the_text_of_a_crashed_session_is_restored_at_the_next_start(qtbot, window, tmp_path):
    crashed = crash_a_session(tmp_path, "unsaved work 🌍 from before the crash")
    assert crashed.with_suffix(".lock").exists(), "a crash leaves its lock behind"
    before = window.editor.toPlainText()

    autosaver = Autosaver(window, tmp_path)
    assert autosaver.orphans() == [crashed]
    restored = autosaver.restore_orphan()

    assert restored == "unsaved work 🌍 from before the crash"
    qtbot.waitUntil(lambda: window.is_ready() and window.text == restored, timeout=20000)
    assert "ended unexpectedly" in window.statusBar().currentMessage()
    assert not crashed.exists()
    window.editor.undo()
    assert window.editor.toPlainText() == before, "Ctrl+Z brings back the text the window had"
    autosaver.discard()


def test_the_autosave_of_a_session_that_is_still_running_is_left_alone(window, tmp_path):
    other = tmp_path / "autosave-4242.txt"
    other.write_text("another tokviz window's text", encoding="utf-8")
    held = QLockFile(str(other.with_suffix(".lock")))
    held.setStaleLockTime(0)
    assert held.tryLock(0)
    try:
        autosaver = Autosaver(window, tmp_path)
        assert autosaver.orphans() == []
        assert autosaver.restore_orphan() is None
        assert other.exists()
        autosaver.discard()
    finally:
        held.unlock()


def test_the_same_error_a_second_later_is_counted_not_listed(qtbot):
    dialog = CrashDialog()
    qtbot.addWidget(dialog)
    trace = "versions\n\nTraceback ...\nRuntimeError: paintEvent is broken\n"
    dialog.add_report("RuntimeError", f"2026-11-30T18:50:45  thread MainThread\n{trace}")
    dialog.add_report("RuntimeError", f"2026-11-30T18:50:46  thread MainThread\n{trace}")
    assert dialog.total == 2
    assert len(dialog.reports) == 1


def a_dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(child.stdout)


def test_locks_of_sessions_that_died_are_removed_at_start(qtbot, window, tmp_path):
    dead = tmp_path / f"autosave-{a_dead_pid()}.lock"
    dead.write_text("left by a killed session")
    crashed_text = dead.with_suffix(".txt")
    crashed_text.write_text("unsaved work", encoding="utf-8")
    alive = tmp_path / f"autosave-{os.getppid()}.lock"  # a session still running
    alive.write_text("held")
    other = tmp_path / "autosave-notes.lock"
    other.write_text("not a session's lock")

    autosaver = Autosaver(window, tmp_path)

    assert not dead.exists()
    assert alive.exists() and other.exists()
    assert autosaver.path.with_suffix(".lock").exists(), "this session's own lock is kept"
    assert autosaver.orphans() == [crashed_text], "the dead session's text is still restored"
    autosaver.discard()
