"""Presentation mode follows the screen: the same proportions on a 1024 × 768 projector and a 1080p screen,
hover cards and floating panels included, and the layout exactly as it was on leaving."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QDockWidget, QToolTip

from tokviz.gui.style.presentation_sizes import presentation_sizes, sizes_for

from .reach import dock
from .waiting import settled


def test_sizes_for_a_1080p_screen_are_those_of_a_768_projector_scaled_by_the_height():
    projector, full_hd = presentation_sizes(768), presentation_sizes(1080)

    for field in ("text", "ui", "chart", "counter"):
        assert getattr(full_hd, field) / getattr(projector, field) == pytest.approx(1080 / 768)
    assert projector.scale == pytest.approx(1.0)
    # The same share of the screen at twice the dots per inch (a point covers twice the pixels).
    assert presentation_sizes(1536, dpi=192).text == pytest.approx(projector.text)


def _dock(window, name: str) -> QDockWidget:
    dock = window.findChild(QDockWidget, name)
    assert dock is not None, name
    return dock


def test_text_labels_and_hover_cards_take_the_screens_presentation_sizes(qtbot, make_window):
    window = make_window(size=(1024, 768))
    sizes = sizes_for(window)
    card_size = QToolTip.font().pointSizeF()

    window.presentation.set_active(True)

    assert window.appearance.point_size == pytest.approx(max(sizes.text, 13.0))
    assert dock(window, "vocabDock").widget().font().pointSizeF() == pytest.approx(sizes.ui)
    assert QToolTip.font().pointSizeF() == pytest.approx(sizes.ui), "hover cards grow too"

    window.presentation.set_active(False)

    assert QToolTip.font().pointSizeF() == pytest.approx(card_size)


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # offscreen: a floating window
def test_a_panel_floated_in_presentation_mode_keeps_the_large_type(qtbot, make_window):
    window = make_window(size=(1024, 768))
    timeline = _dock(window, "timelineDock")
    timeline.show()
    window.presentation.set_active(True)
    ui = sizes_for(window).ui

    timeline.setFloating(True)
    qtbot.waitUntil(timeline.isFloating, timeout=5000)

    assert timeline.widget().font().pointSizeF() == pytest.approx(ui)
    window.presentation.set_active(False)
    assert timeline.widget().font().pointSizeF() == pytest.approx(QApplication.font().pointSizeF())


def test_leaving_presentation_mode_gives_the_side_docks_their_exact_widths_back(qtbot, make_window):
    window = make_window(size=(1024, 768))
    vocabulary = _dock(window, "vocabDock")
    qtbot.waitUntil(lambda: vocabulary.width() > 0, timeout=5000)
    width, size = settled(qtbot, lambda: (vocabulary.width(), window.size()))

    window.presentation.set_active(True)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    settled(qtbot, vocabulary.width)
    window.presentation.set_active(False)
    qtbot.waitUntil(lambda: window.size() == size, timeout=5000)

    qtbot.waitUntil(lambda: vocabulary.width() == width, timeout=3000)


def test_the_timeline_plots_labels_grow_in_presentation_mode(qtbot, make_window):
    window = make_window(size=(1024, 768))
    timeline = _dock(window, "timelineDock")
    timeline.show()
    plot = timeline.widget().plot
    plot.build()
    normal = plot.text_plot.getAxis("bottom").style["tickFont"].pointSizeF()

    window.presentation.set_active(True)

    grown = plot.text_plot.getAxis("bottom").style["tickFont"].pointSizeF()
    assert grown >= sizes_for(window).ui * 0.8 > normal
    assert str(round(sizes_for(window).ui)) in plot.corpus_plot.getAxis("bottom").labelStyle["font-size"]
    window.presentation.set_active(False)


def test_the_charts_large_text_follows_the_screen(qtbot, make_window):
    window = make_window(size=(1024, 768))
    chart = dock(window, "exchangeChartDock").widget()
    dock(window, "exchangeChartDock").show()

    window.presentation.set_active(True)

    assert chart.canvas.style_.point_size == pytest.approx(sizes_for(window).chart)
    window.presentation.set_active(False)
    assert chart.canvas.style_.point_size < sizes_for(window).chart


def test_in_presentation_mode_the_token_views_get_the_room_and_the_editor_gets_it_back_after(
    qtbot, make_window
):
    window = make_window(size=(1024, 768))
    dock(window, "exchangeChartDock").show()
    before = settled(qtbot, window.splitter.sizes)

    window.presentation.set_active(True)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    settled(qtbot, window.splitter.sizes)

    assert window.views_splitter.height() >= 1.5 * window.editor.height()
    window.presentation.set_active(False)
    qtbot.waitUntil(lambda: window.splitter.sizes() == before, timeout=3000)


def test_the_chart_takes_the_same_share_of_the_screen_in_presentation_mode(qtbot, make_window):
    from tokviz.gui.window.presentation import BOTTOM_DOCK_SHARE

    window = make_window(size=(1024, 768))
    dock(window, "exchangeChartDock").show()
    window.presentation.set_active(True)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)

    def has_its_share() -> bool:
        return abs(dock(window, "exchangeChartDock").height() - BOTTOM_DOCK_SHARE * window.height()) <= 2

    qtbot.waitUntil(has_its_share, timeout=3000)
    window.presentation.set_active(False)


def test_the_timeline_plots_side_titles_fit_their_short_plots_in_presentation_mode(qtbot, make_window):
    window = make_window(text="the cat in the hat", size=(1024, 768))
    timeline = _dock(window, "timelineDock")
    timeline.show()
    plot = timeline.widget().plot
    plot.build()
    window.presentation.set_active(True)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    settled(qtbot, lambda: (plot.text_plot.vb.height(), plot.corpus_plot.vb.height()))
    plot.fit_axis_titles()

    for item in (plot.text_plot, plot.corpus_plot):
        for side in ("left", "right"):
            axis = item.getAxis(side)
            if axis.labelText and axis.isVisible():
                assert axis.label.boundingRect().width() <= item.vb.height(), (side, axis.labelText)
    window.presentation.set_active(False)
