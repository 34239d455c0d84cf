"""File dialogs that start where the user last was, not always in the home folder.

Drop-in versions of ``QFileDialog``'s static functions: a dialog asked to start in the home folder
(or on a default file name there) starts in the folder of the last file opened or saved instead,
and every successful choice is remembered in the settings for the next dialog and the next session.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from tokviz.gui.settings import LAST_FOLDER, Settings


def last_folder() -> Path:
    """The folder of the last file chosen in any dialog (the home folder before the first)."""
    folder = Path(Settings().get(LAST_FOLDER) or Path.home())
    return folder if folder.is_dir() else Path.home()


def remember_folder(folder: str | Path) -> None:
    """Start the next dialog in ``folder``."""
    Settings().set(LAST_FOLDER, str(folder))


def start_path(directory: str) -> str:
    """Where a dialog asked for ``directory`` should start: the last folder instead of the home folder."""
    home = Path.home()
    asked = Path(directory) if directory else home
    if asked == home:
        return str(last_folder())
    if asked.parent == home:  # a default file name in the home folder
        return str(last_folder() / asked.name)
    return directory


def get_open_file_name(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = ""
) -> tuple[str, str]:
    """``QFileDialog.getOpenFileName`` that starts in, and remembers, the last folder."""
    path, chosen = QFileDialog.getOpenFileName(parent, caption, start_path(directory), filter)
    if path:
        remember_folder(Path(path).parent)
    return path, chosen


def get_open_file_names(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = ""
) -> tuple[list[str], str]:
    """``QFileDialog.getOpenFileNames`` that starts in, and remembers, the last folder."""
    paths, chosen = QFileDialog.getOpenFileNames(parent, caption, start_path(directory), filter)
    if paths:
        remember_folder(Path(paths[0]).parent)
    return paths, chosen


def get_save_file_name(
    parent: QWidget | None, caption: str, directory: str = "", filter: str = ""
) -> tuple[str, str]:
    """``QFileDialog.getSaveFileName`` that starts in, and remembers, the last folder."""
    path, chosen = QFileDialog.getSaveFileName(parent, caption, start_path(directory), filter)
    if path:
        remember_folder(Path(path).parent)
    return path, chosen


def get_existing_directory(parent: QWidget | None, caption: str, directory: str = "") -> str:
    """``QFileDialog.getExistingDirectory`` that starts in, and remembers, the last folder."""
    path = QFileDialog.getExistingDirectory(parent, caption, start_path(directory))
    if path:
        remember_folder(path)
    return path
