"""Start the desktop application: ``tokviz`` with no arguments ends up in :func:`main`."""

from __future__ import annotations

import sys
import time


def main(argv: list[str] | None = None) -> int:
    """Create the QApplication, show the main window, run the event loop; returns the exit code."""
    started = time.perf_counter()
    from tokviz.gui.preflight import display_problem, qt_import_problem

    problem = display_problem()
    if problem is not None:
        print(f"tokviz: {problem}", file=sys.stderr)
        return 1
    try:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        print(f"tokviz: {qt_import_problem(exc)}", file=sys.stderr)
        return 1

    from tokviz.gui.compat import quiet_font_database
    from tokviz.gui.window.about import app_icon
    from tokviz.gui.window.crash import install_crash_safety
    from tokviz.gui.window.layout_report import LayoutReporter
    from tokviz.gui.window.main_window import MainWindow
    from tokviz.gui.window.startup import StartupProbe
    from tokviz.gui.window.termination import install_termination

    quiet_font_database()
    app = QApplication.instance()
    owns_app = app is None
    if app is None:
        app = QApplication(list(sys.argv if argv is None else argv))
    assert isinstance(app, QApplication)
    app.setApplicationName("tokviz")
    app.setOrganizationName("tokviz")
    app.setApplicationDisplayName("tokviz")
    app.setStyle("Fusion")
    app.setWindowIcon(app_icon())
    app.setDesktopFileName("io.github.tokviz.Tokviz")  # packaging/: ties the window to its .desktop entry
    window = MainWindow()
    install_crash_safety(window)
    install_termination(window, window)  # SIGTERM (logout, kill) keeps the session as Ctrl+Q does
    StartupProbe.from_environment(window)
    LayoutReporter.from_environment(window)
    window.show()
    if "--startup-time" in (argv or sys.argv):
        QTimer.singleShot(
            0, lambda: print(f"window shown after {time.perf_counter() - started:.3f} s", flush=True)
        )
    if not owns_app:
        return 0
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
