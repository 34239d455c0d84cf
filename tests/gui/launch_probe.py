"""Open the main window on a given settings file, act, and print what it shows as one JSON line.

Run as ``python -m tests.gui.launch_probe CAP SETTINGS.ini [--type PATTERN] [--wait-error]`` by
tests/gui/test_hostile_settings.py, offscreen. ``CAP`` bytes of address space (0: none) keep a
build that starts building a huge regex or reading ``/dev/zero`` from filling the machine.
``--type`` types PATTERN as the Train panel's custom regex, into the pre-tokenizer dock and into
the Open tokenizer dialog once the window is up; ``--wait-error`` waits for a load error (a remembered file) before reporting.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from collections.abc import Callable
from typing import Any

LAUNCH_SECONDS = 30.0


def _turn(app: Any, seconds: float, until: Callable[[], object] = lambda: False) -> None:
    """Run the event loop until ``until()`` or ``seconds`` have passed."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not until():
        app.processEvents()
        time.sleep(0.01)


def _type_pattern(app: Any, window: Any, pattern: str) -> dict[str, object]:
    """Type ``pattern`` in the Train panel and the pre-tokenizer dock; what each says."""
    from tokviz.gui.panels.training.panel import TrainPanel

    from .reach import dock, docked

    panel = docked(window, "trainDock", TrainPanel)
    panel.set_pretokenizer("custom")
    panel.pattern.setText(pattern)
    _turn(app, LAUNCH_SECONDS, lambda: panel.pattern_error.isVisibleTo(panel))
    view = dock(window, "pretokDock").widget()
    accepted = view.set_pattern(pattern)
    _turn(app, LAUNCH_SECONDS, lambda: view.error_message is not None and not view.computing)
    from tokviz.gui.widgets.file_dialogs import OpenTokenizerDialog

    dialog = OpenTokenizerDialog(window)
    dialog.pattern.setEditText(pattern)
    _turn(app, LAUNCH_SECONDS, lambda: dialog.problem.text())
    return {
        "dock_accepted": accepted,
        "dock_error": view.error_message,
        "dialog_problem": dialog.problem.text(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("cap", type=int)
    parser.add_argument("ini")
    parser.add_argument("--type", dest="pattern")
    parser.add_argument("--wait-error", action="store_true")
    args = parser.parse_args()
    if args.cap:
        resource.setrlimit(resource.RLIMIT_AS, (args.cap, args.cap))
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication([])
    from tokviz.gui.panels.training.panel import TrainPanel
    from tokviz.gui.settings import TRAIN_PATTERN, Settings
    from tokviz.gui.window.main_window import MainWindow

    from .reach import dock, docked, error_text

    store = QSettings(args.ini, QSettings.Format.IniFormat)
    window = MainWindow(settings=store)
    window.show()
    status = [window.statusBar().currentMessage()]  # what the panels said while they were set up
    window.statusBar().messageChanged.connect(lambda text: status.append(text) if text else None)
    _turn(app, LAUNCH_SECONDS, lambda: window.panels[0].model.current)
    report: dict[str, object] = {}
    if args.pattern is not None:
        report.update(_type_pattern(app, window, args.pattern))
    if args.wait_error:
        _turn(app, LAUNCH_SECONDS, lambda: error_text(window))
    _turn(app, 0.5)
    store.sync()
    panel = docked(window, "trainDock", TrainPanel)
    chart = dock(window, "exchangeChartDock").widget()
    report.update(
        shown=window.isVisible(),
        status=status,
        last_error=error_text(window),
        train_error=panel.error.text() if panel.error.isVisibleTo(panel) else None,
        pattern=panel.pattern.text(),
        pattern_error=panel.pattern_error.text(),
        saved_pattern=Settings(store).get(TRAIN_PATTERN),
        point_size=window.appearance.point_size,
        chart_files=chart.added_paths(),
    )
    print("PROBE " + json.dumps(report))
    window.close()


if __name__ == "__main__":
    main()
