"""Exporting panels for slides: PNG at 1x/2x/3x, SVG for vector panels, the clipboard, the dialog."""

from __future__ import annotations

from pathlib import Path
from xml.dom import minidom
from xml.etree import ElementTree

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication, QImage, QKeySequence
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QMenu

from tokviz.core.errors import ExportError
from tokviz.gui.drawing.images import is_vector, render_image, svg_bytes, write_image
from tokviz.gui.settings import EXPORT_SCALE, EXPORT_TARGET
from tokviz.gui.window.export import ExportDialog

from ..texts import HELLO
from .reach import action, dock, exporter

pytestmark = [
    pytest.mark.gui,
    pytest.mark.qt_log_ignore(
        "This plugin does not support propagateSizeHints", "This plugin does not support raise"
    ),
]

SVG_NS = "http://www.w3.org/2000/svg"


@pytest.fixture
def window(make_window):
    return make_window(text=HELLO)


def texts_of(svg: bytes) -> list[str]:
    doc = minidom.parseString(svg)
    return [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]


@pytest.mark.slow
@pytest.mark.parametrize("scale", [1, 2, 3])
def test_a_token_view_exports_at_the_requested_pixel_size(window, tmp_path, scale):
    target = exporter(window).target("view:1")
    size: QSize = target.pixel_size(1)

    written = exporter(window).write(target, tmp_path / f"view@{scale}x.png", scale)

    image = QImage(str(written))
    assert (image.width(), image.height()) == (size.width() * scale, size.height() * scale)
    assert target.pixel_size(scale) == image.size()


def test_2x_text_is_rendered_at_2x_not_enlarged(window):
    view = window.panels[0].view
    one = render_image(view, 1.0)
    two = render_image(view, 2.0)
    enlarged = one.scaled(two.size())

    w, h = two.width(), min(two.height(), 120)  # the first lines, where the tokens are
    differing = sum(two.pixel(x, y) != enlarged.pixel(x, y) for y in range(0, h, 2) for x in range(0, w, 2))
    assert differing > 0.01 * (w // 2) * (h // 2)


def test_token_views_export_as_svg_with_their_text(window, tmp_path):
    target = exporter(window).target("views")
    assert target.vector

    written = exporter(window).write(target, tmp_path / "views.svg")

    data = written.read_bytes()
    assert QSvgRenderer(data).isValid()
    root = minidom.parseString(data).documentElement
    size = target.pixel_size(1)
    assert (root.getAttribute("width"), root.getAttribute("height")) == (
        str(size.width()),
        str(size.height()),
    )
    assert root.getAttribute("viewBox") == f"0 0 {size.width()} {size.height()}"
    shown = " ".join(texts_of(data))
    assert "Hello" in shown and "<F0 9F>" in shown and "你好" in shown
    assert not minidom.parseString(data).getElementsByTagName("image")  # no bitmaps inside


def test_a_view_export_is_its_tokens_not_its_controls(window, tmp_path):
    """Like ``tokviz render``: a caption and the tokens, no picker, no close button, no empty area."""
    target = exporter(window).target("view:1")
    data = exporter(window).write(target, tmp_path / "view.svg").read_bytes()
    shown = texts_of(data)
    assert not any("✕" in t for t in shown), "no close button"
    caption = next(t for t in shown if "tokens" in t and "bytes/token" in t)
    assert "GPT-2" in caption or "GPT-2" in shown
    png = QImage(str(exporter(window).write(target, tmp_path / "view.png", 2)))
    # HELLO is 12 GPT-2 tokens on one line: a sheet a few lines high, not the view's 500 px.
    assert png.height() < 2 * 260, png.size()


def test_the_whole_window_is_a_bitmap_export_only(window, tmp_path):
    target = exporter(window).target("window")
    assert not target.vector

    with pytest.raises(ExportError, match="export it as PNG"):
        exporter(window).write(target, tmp_path / "window.svg")
    written = exporter(window).write(target, tmp_path / "window.png", 2)
    assert QImage(str(written)).size() == target.pixel_size(2)


def test_docks_on_screen_are_offered_and_the_timeline_is_png_only(qtbot, window):
    dock(window, "timelineDock").show()
    qtbot.waitUntil(
        lambda: any(t.key == "dock:timelineDock" for t in exporter(window).targets()), timeout=5000
    )

    targets = {t.key: t for t in exporter(window).targets()}

    assert not targets["dock:timelineDock"].vector
    assert "dock:vocabDock" in targets and "dock:trainDock" not in targets  # the Train tab is behind
    assert [k for k in targets][:3] == ["views", "view:1", "view:2"] and list(targets)[-1] == "window"


@pytest.mark.slow
def test_the_chart_exports_its_own_vector_drawing(qtbot, make_window, tmp_path, gpt2, cl100k):
    # Wide enough that the bars of all six built-ins (bytes to o200k, characters, words) keep labels.
    window = make_window(text=HELLO, size=(1920, 1080))
    dock(window, "exchangeChartDock").show()
    chart = dock(window, "exchangeChartDock").widget()
    qtbot.waitUntil(chart.is_ready, timeout=30000)
    target = exporter(window).target("dock:exchangeChartDock")
    assert target.widget is chart.canvas and target.vector

    written = exporter(window).write(target, tmp_path / "chart.svg")

    assert QSvgRenderer(str(written)).isValid()
    # Read as plain XML (not through Qt): the drawing is the canvas's size in pixels, and its words
    # and numbers are text elements, not paths or bitmaps.
    root = ElementTree.parse(written).getroot()
    assert root.tag == f"{{{SVG_NS}}}svg"
    size = chart.canvas.size()
    assert (root.get("width"), root.get("height")) == (str(size.width()), str(size.height()))
    assert root.get("viewBox") == f"0 0 {size.width()} {size.height()}"
    assert not root.findall(f".//{{{SVG_NS}}}image")
    texts = ["".join(t.itertext()).replace("\xa0", " ").strip() for t in root.iter(f"{{{SVG_NS}}}text")]
    assert {"GPT-2", "cl100k"} <= set(texts) and any(t.startswith("bytes (1.0") for t in texts)
    assert "Editor text" in texts and f"{len(HELLO.encode())} bytes" in texts
    # The editor's bars are labelled with bytes per token, counted here with the tokenizers themselves
    # (in short, one decimal, where bars are narrow).
    for tok in (gpt2, cl100k):
        ratio = len(HELLO.encode()) / len(tok.encode(HELLO))
        assert f"{ratio:.2f}" in texts or f"{ratio:.1f}" in texts


def test_copy_image_puts_the_focused_panel_on_the_clipboard_at_the_remembered_scale(window):
    window.panels[1].view.setFocus()
    window.settings.set(EXPORT_SCALE, 3.0)

    exporter(window).act_copy.trigger()

    image = QGuiApplication.clipboard().image()
    assert image.size() == exporter(window).target("view:2").pixel_size(3)


def test_file_menu_offers_export_and_copy_with_shortcuts(window):
    file_menu = next(o for o in action(window, "actionQuit").associatedObjects() if isinstance(o, QMenu))
    actions = file_menu.actions()
    export, copy = exporter(window).act_export, exporter(window).act_copy

    assert (
        export in actions
        and copy in actions
        and actions.index(copy) < actions.index(action(window, "actionQuit"))
    )
    assert export.shortcut() == QKeySequence("Ctrl+Shift+E") and export.objectName() == "actionExportPanel"
    assert copy.shortcut() == QKeySequence("Ctrl+Shift+C") and copy.objectName() == "actionCopyImage"


def test_the_dialog_saves_the_chosen_panel_and_remembers_the_choice(qtbot, window, tmp_path):
    exporter(window).act_export.trigger()
    dialog = window.findChild(ExportDialog, "exportDialog")
    assert dialog is not None and dialog.isVisible()
    dialog.target_box.setCurrentIndex(dialog.target_box.findData("view:2"))
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("png"))
    dialog.scale_box.setCurrentIndex(dialog.scale_box.findData(3.0))
    size = exporter(window).target("view:2").pixel_size(1)
    assert dialog.size_label.text() == f"{size.width() * 3} × {size.height() * 3} pixels"

    written = dialog.save(tmp_path / "cl100k")

    assert written == tmp_path / "cl100k.png" and QImage(str(written)).size() == size * 3
    assert window.settings.get(EXPORT_TARGET) == "view:2"
    assert window.settings.get(EXPORT_SCALE) == 3.0
    # The whole window cannot be SVG: the format falls back to PNG.
    dialog.format_box.setCurrentIndex(dialog.format_box.findData("svg"))
    dialog.target_box.setCurrentIndex(dialog.target_box.findData("window"))
    assert dialog.kind() == "png"


def test_any_widget_can_be_written_and_only_png_or_svg(window, tmp_path):
    panel = window.panels[0]
    assert is_vector(panel) and is_vector(panel.view) and not is_vector(window)
    assert svg_bytes(panel).startswith(b"<?xml")

    with pytest.raises(ExportError, match=r"\.png or \.svg"):
        write_image(panel, tmp_path / "panel.jpg")
    assert not Path(tmp_path / "panel.jpg").exists()
