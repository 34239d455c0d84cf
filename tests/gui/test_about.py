"""The About dialog and the window icon: version, runtime versions, and the bundled vocabularies' licences."""

from __future__ import annotations

from importlib import metadata

from PySide6.QtGui import QGuiApplication

from tokviz.gui import MainWindow
from tokviz.gui.window.about import AboutDialog, app_icon, app_version, bundled_vocabularies

from .reach import action


def test_help_about_opens_the_dialog_with_the_version_and_the_licences(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    action(window, "actionAbout").trigger()
    dialog = window.findChild(AboutDialog, "aboutDialog")
    assert dialog is not None and dialog.isVisible()

    assert f"Version {app_version()}" in dialog.version_label.text()
    notice = dialog.notice.toPlainText()
    assert "MIT License" in notice and "Modified MIT License" in notice
    assert "r50k_base.tiktoken" in notice and "cl100k_base.tiktoken" in notice
    dialog.close()


def test_the_version_comes_from_the_installed_distribution(monkeypatch):
    try:
        installed = metadata.version("tokviz-desktop")
    except metadata.PackageNotFoundError:
        installed = None
    if installed is not None:
        assert app_version() == installed

    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert app_version() == "unknown (not installed)"


def test_copy_version_info_names_every_runtime_version(qtbot):
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    dialog.copy_button.click()
    copied = QGuiApplication.clipboard().text()
    for part in ("tokviz", "Python", "Qt", "PySide6"):
        assert part in copied


def test_the_bundled_vocabularies_are_listed():
    assert bundled_vocabularies() == ["cl100k_base.tiktoken", "o200k_base.tiktoken", "r50k_base.tiktoken"]


def test_the_app_icon_has_every_size_from_16_to_256(qtbot):  # qtbot: QIcon needs a QApplication
    icon = app_icon()
    assert not icon.isNull()
    sizes = sorted(s.width() for s in icon.availableSizes())
    assert sizes == [16, 32, 48, 64, 128, 256]
