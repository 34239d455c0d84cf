"""The About dialog: what tokviz is, which version is running, and the licences of the bundled vocabularies.

Also home of the small helpers the crash dialog shares: the installed version and the window icon.
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QGuiApplication, QIcon
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.io.resources import ResourceNotFoundError, resource_path
from tokviz.gui.widgets.fixed_text import fixed_text

DISTRIBUTION = "tokviz-desktop"
ICON_SIZES = (16, 32, 48, 64, 128, 256)


def app_version() -> str:
    """The installed distribution's version, or a clear placeholder when running from a bare checkout."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


def runtime_versions() -> str:
    """One line naming tokviz's, Python's, Qt's and PySide6's versions and the platform, for bug reports."""
    return (
        f"tokviz {app_version()} · Python {platform.python_version()} · Qt {qVersion()} · "
        f"PySide6 {pyside_version} · {platform.system()} {platform.machine()}"
        + (" · bundled" if getattr(sys, "frozen", False) else "")
    )


def app_icon() -> QIcon:
    """The application icon from the bundled PNG sizes (an empty icon if they are missing)."""
    icon = QIcon()
    for size in ICON_SIZES:
        try:
            icon.addFile(str(resource_path("icons", f"tokviz-{size}.png")))
        except ResourceNotFoundError:
            continue
    return icon


def bundled_notice() -> str:
    """The text of ``resources/encodings/NOTICE``: where the bundled vocabularies come from and their licences."""
    try:
        return resource_path("encodings", "NOTICE").read_text(encoding="utf-8")
    except (ResourceNotFoundError, OSError) as exc:
        return f"The licence notice of the bundled vocabularies is missing: {exc}"


def bundled_vocabularies() -> list[str]:
    """File names of the bundled ``.tiktoken`` vocabularies."""
    try:
        return sorted(p.name for p in resource_path("encodings").glob("*.tiktoken"))
    except ResourceNotFoundError:
        return []


class AboutDialog(QDialog):
    """Name, version, runtime versions and the bundled vocabularies' licences, with a copy button."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("aboutDialog")
        self.setWindowTitle("About tokviz")
        self.setWindowIcon(app_icon())

        logo = QLabel(self)
        logo.setObjectName("aboutIcon")
        logo.setPixmap(app_icon().pixmap(96, 96))
        logo.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.version_label = QLabel(
            f"<h2 style='margin:0'>tokviz</h2>"
            f"<p>Version {app_version()}</p>"
            "<p>See text as the tokens a language model sees: byte-level BPE tokenizers "
            "(GPT-2, cl100k_base, your own), side by side, fully offline.</p>",
            self,
        )
        self.version_label.setObjectName("aboutVersion")
        self.version_label.setWordWrap(True)
        self.runtime_label = QLabel(runtime_versions(), self)
        self.runtime_label.setObjectName("aboutRuntime")
        self.runtime_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.runtime_label.setWordWrap(True)
        header_text = QVBoxLayout()
        header_text.addWidget(self.version_label)
        header_text.addWidget(self.runtime_label)
        header = QHBoxLayout()
        header.addWidget(logo)
        header.addLayout(header_text, 1)

        vocabularies = ", ".join(bundled_vocabularies()) or "none found"
        notice_title = QLabel(f"<b>Bundled vocabularies</b>: {vocabularies}", self)
        notice_title.setWordWrap(True)
        self.notice = fixed_text(self, "aboutNotice", "Licences of the bundled vocabularies")
        self.notice.setPlainText(bundled_notice())

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.copy_button = QPushButton("Copy version info", self)
        self.copy_button.setObjectName("aboutCopy")
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.copy_button.clicked.connect(self.copy_version_info)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(notice_title)
        layout.addWidget(self.notice, 1)
        layout.addWidget(buttons)
        self.resize(720, 560)

    def copy_version_info(self) -> None:
        """Put the one-line version summary on the clipboard (for bug reports)."""
        QGuiApplication.clipboard().setText(runtime_versions())


def show_about(parent: QWidget | None = None) -> AboutDialog:
    """Open the About dialog without blocking; it deletes itself when closed."""
    dialog = AboutDialog(parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


__all__ = [
    "AboutDialog",
    "app_icon",
    "app_version",
    "bundled_notice",
    "bundled_vocabularies",
    "runtime_versions",
    "show_about",
]
