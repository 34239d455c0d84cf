"""Presentation mode: large type, a colour-blind-safe high-contrast palette, no chrome; F11; remembered."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import QApplication, QDockWidget, QScrollArea

from tokviz.gui import MainWindow
from tokviz.gui.style.theme import HUES, colour_indices
from tokviz.gui.window.presentation import (
    contrast_ratio,
    presentation_colors,
)

from .reach import dock, menu
from .waiting import settled

# Machado, Oliveira & Fernandes (2009): full-severity dichromacy, applied to linear RGB.
CVD = {
    "normal": np.eye(3),
    "protan": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]]
    ),
    "deutan": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.011820, 0.042940, 0.968881]]
    ),
    "tritan": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.303900]]
    ),
}


def _linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear_rgb: np.ndarray) -> np.ndarray:
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ np.clip(
        linear_rgb, 0, 1
    )
    n = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(n > 0.008856, np.cbrt(n), 7.787 * n + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen_as(colour: QColor, vision: str) -> np.ndarray:
    """The colour in CIELAB as a viewer with ``vision`` sees it."""
    rgb = np.array([colour.redF(), colour.greenF(), colour.blueF()])
    return _lab(CVD[vision] @ _linear(rgb))


def neighbour_pairs() -> set[tuple[int, int]]:
    """Every pair of palette indices the theme's colouring can give two neighbouring tokens."""
    rng = np.random.default_rng(6)
    pairs: set[tuple[int, int]] = set()
    for _ in range(40):
        idx = colour_indices(rng.integers(0, 100_000, size=5000))
        pairs.update(zip(idx[:-1].tolist(), idx[1:].tolist()))
    return {(a, b) for a, b in pairs if a != b}


@pytest.mark.parametrize(("dark", "min_delta_e"), [(False, 8.5), (True, 7.5)])
def test_neighbouring_tokens_stay_distinct_for_colour_blind_viewers(dark, min_delta_e):
    fills = presentation_colors(dark).fills
    pairs = neighbour_pairs()
    assert len(fills) == 2 * HUES and len(pairs) > 200

    for vision in CVD:
        worst = min(np.linalg.norm(seen_as(fills[a], vision) - seen_as(fills[b], vision)) for a, b in pairs)
        assert worst >= min_delta_e, vision


@pytest.mark.parametrize(("dark", "aaa"), [(False, 7.0), (True, 4.5)])
def test_token_text_has_aaa_contrast_on_every_fill(dark, aaa):
    """AAA: 7:1, or 4.5:1 for large text, which presentation type always is on the dark page."""
    colors = presentation_colors(dark)
    text = QColor("#ffffff") if dark else QColor("#000000")

    assert colors.text == text
    assert min(contrast_ratio(fill, text) for fill in colors.fills) >= aaa


def test_dark_token_fills_stand_apart_from_the_black_page():
    colors = presentation_colors(True)
    assert min(contrast_ratio(fill, colors.base) for fill in colors.fills) >= 1.8


# ----------------------------------------------------------------------------- in the window
@pytest.fixture
def window(make_window):
    return make_window(size=(1200, 800))


def chrome_visible(w: MainWindow) -> dict[str, bool]:
    return {name: part.isVisible() for name, part in w.presentation.chrome().items()}


def test_f11_enters_presentation_mode_and_leaves_it_as_it_was(qtbot, window):
    mode = window.presentation
    before = chrome_visible(window)
    size = window.appearance.point_size
    assert mode.action.shortcut() == QKeySequence(Qt.Key.Key_F11)
    assert (
        mode.action in menu(window, "viewMenu").actions() and before["statusbar"] and before["dock:vocabDock"]
    )

    qtbot.keyClick(window.editor, Qt.Key.Key_F11)

    assert mode.active and mode.action.isChecked()
    assert not any(chrome_visible(window).values())
    sizes = window.presentation.sizes()
    assert window.appearance.point_size >= sizes.text
    assert window.editor.font().pointSizeF() >= sizes.text
    ui_size = sizes.ui
    assert dock(window, "vocabDock").widget().font().pointSizeF() == pytest.approx(
        ui_size
    )  # labels, tables and menus grow too
    assert window.appearance.colors.fills == presentation_colors(window.is_dark()).fills
    assert window.panels[0].view.colors is window.appearance.colors
    assert window.isFullScreen()

    qtbot.keyClick(window.editor, Qt.Key.Key_F11)

    assert not mode.active
    assert chrome_visible(window) == before and window.appearance.point_size == size
    assert dock(window, "vocabDock").widget().font().pointSizeF() == QApplication.font().pointSizeF()
    assert window.appearance.colors.fills != presentation_colors(window.is_dark()).fills
    assert not window.isFullScreen()


def test_the_mode_follows_a_change_of_theme(window):
    window.presentation.action.trigger()
    window.appearance.set_theme("dark")

    assert window.appearance.colors.fills == presentation_colors(True).fills
    window.appearance.set_theme("light")
    assert window.appearance.colors.fills == presentation_colors(False).fills


def test_presentation_mode_is_remembered_with_the_layout_to_return_to(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(first.is_ready, timeout=20000)
    size = first.appearance.point_size
    first.presentation.set_active(True)
    first.close()

    second = MainWindow(QSettings(first.settings.file_name(), QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    second.show()
    qtbot.waitUntil(second.is_ready, timeout=20000)
    assert second.presentation.active and not second.statusBar().isVisible()

    second.presentation.action.trigger()

    assert second.statusBar().isVisible() and dock(second, "vocabDock").isVisible()
    assert second.appearance.point_size == size
    second.close()


def test_the_train_form_is_not_cut_off_in_presentation_mode(qtbot, window):
    """F11 then Ctrl+Shift+T at a projector: the larger font makes the Train form wider, and its
    dock follows rather than cutting the form under a horizontal scroll bar (at 1024 px the spin
    box arrows and the tie rule were cut off)."""
    dock = window.findChild(QDockWidget, "trainDock")
    scroll = dock.findChild(QScrollArea, "trainScroll")
    form = scroll.widget()
    normal = form.minimumSizeHint().width()
    window.presentation.set_active(True)
    qtbot.waitUntil(lambda: form.minimumSizeHint().width() > normal, timeout=5000)

    qtbot.keyClick(
        window.editor, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )

    qtbot.waitUntil(lambda: scroll.isVisible(), timeout=5000)
    qtbot.waitUntil(lambda: scroll.viewport().width() >= form.minimumSizeHint().width(), timeout=5000)
    # The scroll area drops its scroll bar on its next layout pass.
    qtbot.waitUntil(lambda: not scroll.horizontalScrollBar().isVisible(), timeout=5000)
    # The dock's minimum follows the form's, so a narrow window squeezes the views, not the form.
    needed = form.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width()
    qtbot.waitUntil(lambda: dock.minimumSizeHint().width() >= needed, timeout=5000)
    window.presentation.set_active(False)


# ----------------------------------------------------------------
# Presentation mode hides every side dock (the Train dock tabbed behind the vocabulary no longer
# pops up in its place), keeps the bottom timeline, and gives the docks back as they were.


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
    settled(qtbot, window.centralWidget().width)

    assert train.isHidden() and vocabulary.isHidden() and not train.isVisible()
    assert timeline.isVisible(), "a bottom dock the lecturer opened stays"
    assert all(p.isVisible() for p in window.panels)
    # Nothing is wider than the screen: the views and the editor share its 1024 pixels.
    assert window.centralWidget().width() <= 1024

    window.presentation.set_active(False)

    def given_back() -> None:
        assert not train.isHidden() and not vocabulary.isHidden()
        assert window.tabifiedDockWidgets(vocabulary) == [train]
        assert vocabulary.visibleRegion().isEmpty() is False, "the vocabulary's tab is in front again"

    qtbot.waitUntil(given_back)


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
