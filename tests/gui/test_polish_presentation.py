"""Presentation mode hides every side dock (the Train dock tabbed behind the vocabulary no longer
pops up in its place), keeps the bottom timeline, and gives the docks back as they were."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget


def _dock(window, name: str) -> QDockWidget:
    dock = window.findChild(QDockWidget, name)
    assert dock is not None, name
    return dock


def test_f11_hides_the_train_dock_tabbed_behind_the_vocabulary(qtbot, make_window) -> None:
    window = make_window(text="The lecture's sentence, at a projector's size.", size=(1024, 768))
    train, vocabulary, timeline = (_dock(window, n) for n in ("trainDock", "vocabDock", "timelineDock"))
    assert window.tabifiedDockWidgets(vocabulary) == [train] and not train.isHidden()
    timeline.show()

    window.presentation.set_active(True)
    qtbot.wait(50)

    assert train.isHidden() and vocabulary.isHidden() and not train.isVisible()
    assert timeline.isVisible(), "a bottom dock the lecturer opened stays"
    assert all(p.isVisible() for p in window.panels)
    # Nothing is wider than the screen: the views and the editor share its 1024 pixels.
    assert window.centralWidget().width() <= 1024

    window.presentation.set_active(False)
    qtbot.wait(50)

    assert not train.isHidden() and not vocabulary.isHidden()
    assert window.tabifiedDockWidgets(vocabulary) == [train]
    assert vocabulary.visibleRegion().isEmpty() is False, "the vocabulary's tab is in front again"


def test_a_train_dock_closed_before_stays_closed_after(qtbot, make_window) -> None:
    window = make_window(size=(1024, 768))
    train = _dock(window, "trainDock")
    train.close()

    window.presentation.set_active(True)
    window.presentation.set_active(False)

    assert train.isHidden() and not _dock(window, "vocabDock").isHidden()
    assert window.dockWidgetArea(train) == Qt.DockWidgetArea.RightDockWidgetArea


def test_the_lecture_demo_in_presentation_mode_leaves_the_train_form_hidden(qtbot, make_window) -> None:
    window = make_window(size=(1024, 768))
    window.presentation.set_active(True)
    demo = next(a for a in window.findChildren(QAction) if a.objectName() == "actionLectureDemo")

    demo.trigger()
    timeline = _dock(window, "timelineDock")
    qtbot.waitUntil(lambda: timeline.isVisible() and timeline.widget().is_ready(), timeout=20000)

    assert _dock(window, "trainDock").isHidden()
    window.presentation.set_active(False)
    demo.trigger()
    assert not _dock(window, "trainDock").isHidden(), "outside presentation the demo shows its form"
