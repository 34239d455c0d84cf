"""The Lecture menu: start the deck full screen (F5), open another deck, export its handout or pictures.

The window keeps one deck (the bundled lecture until Open deck… loads another, from the Lecture or
the File menu) and hands it to :mod:`tokviz.gui.lecture.show`; leaving the lecture (Esc) returns to
the window as it was. A deck that fails its checks is reported in one line and the previous deck
stays. The export dialogs' file types choose a page per slide or per step, PNG or SVG.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QMenu, QWidget

from tokviz.core.errors import TokvizError
from tokviz.core.lecture.deck import Deck, deck_files, default_deck, load_deck
from tokviz.gui.lecture.handout import write_pdf, write_slides
from tokviz.gui.lecture.presenter import start_lecture
from tokviz.gui.lecture.show import LectureView
from tokviz.gui.widgets import file_dialogs
from tokviz.gui.window.actions import make_action

DECK_FILTER = "Lecture decks (*.toml)"
PDF_PER_SLIDE = "PDF, a page per slide (*.pdf)"
PDF_PER_STEP = "PDF, a page per step (*.pdf)"
PDF_PAPER = {
    "PDF on A4, each slide with its notes (*.pdf)": "a4",
    "PDF on letter, each slide with its notes (*.pdf)": "letter",
}
PICTURES = {
    "PNG at 2×, a picture per slide (*.png)": ("png", False),
    "PNG at 2×, a picture per step (*.png)": ("png", True),
    "SVG, a picture per slide (*.svg)": ("svg", False),
    "SVG, a picture per step (*.svg)": ("svg", True),
}


class LectureMenu(QObject):
    """Lecture ▸ Start lecture, Open deck…, Export handout…; ``report`` shows one-line messages."""

    def __init__(
        self, window: QWidget, menu: QMenu, dark: Callable[[], bool], report: Callable[[str], None]
    ) -> None:
        super().__init__(window)
        self.window = window
        self.dark = dark
        self.report = report
        self.deck: Deck | None = None
        self.deck_path: Path | None = None
        self.view: LectureView | None = None
        self.act_start: QAction = make_action(window, "&Start lecture", "F5", name="actionStartLecture")
        self.act_open: QAction = make_action(window, "&Open deck…", "Ctrl+Alt+O", name="actionOpenDeck")
        self.act_export: QAction = make_action(
            window, "&Export handout…", "Ctrl+Alt+J", name="actionExportHandout"
        )
        self.act_pictures: QAction = make_action(
            window, "Export slides as &pictures…", "Ctrl+Alt+G", name="actionExportSlidePictures"
        )
        self.act_start.setToolTip("Show the deck's live slides full screen; Esc comes back here")
        self.act_start.triggered.connect(self.start)
        self.act_open.triggered.connect(self.choose_deck)
        self.act_export.triggered.connect(self.choose_handout)
        self.act_pictures.triggered.connect(self.choose_pictures)
        for action in (self.act_start, self.act_open, self.act_export, self.act_pictures):
            menu.addAction(action)
        _add_to_file_menu(window, self.act_open)

    def current_deck(self) -> Deck:
        """The deck the menu starts: the one opened last, else the bundled lecture."""
        if self.deck is None:
            self.deck = default_deck()
        return self.deck

    def start(self) -> LectureView:
        """Open the deck full screen on the last screen."""
        if self.view is not None:
            self.view.close()
        self.view = start_lecture(self.current_deck(), self.dark(), QGuiApplication.screens())
        self.view.left.connect(self._back)
        return self.view

    def _back(self) -> None:
        """The lecture ended: the window takes the keys again."""
        self.window.activateWindow()
        self.window.raise_()

    def open_deck(self, path: str | Path) -> Deck | None:
        """Load a deck file; on a mistake say it in one line and keep the current deck."""
        try:
            self.deck = load_deck(path)
        except TokvizError as exc:
            self.report(f"Deck not opened: {exc}")
            return None
        self.deck_path = Path(path)
        self.report(
            f"Deck “{self.deck.title or Path(path).name}”: {len(self.deck.slides)} slides; F5 starts it"
        )
        return self.deck

    def choose_deck(self) -> Deck | None:
        """Ask for a deck file and load it."""
        path, _ = file_dialogs.get_open_file_name(self.window, "Open deck", "", DECK_FILTER)
        return self.open_deck(path) if path else None

    def choose_handout(self) -> Path | None:
        """Ask where to save the handout PDF (a page per slide or per step, or A4 or letter pages with
        the notes, by file type) and write it."""
        path, chosen = file_dialogs.get_save_file_name(
            self.window, "Export handout", "handout.pdf", ";;".join([PDF_PER_SLIDE, PDF_PER_STEP, *PDF_PAPER])
        )
        if not path:
            return None
        out = Path(path) if path.lower().endswith(".pdf") else Path(path + ".pdf")
        try:
            deck = self.current_deck()
            write_pdf(
                deck,
                out,
                per_step=chosen == PDF_PER_STEP,
                inputs=deck_files(deck, self.deck_path),
                paper=PDF_PAPER.get(chosen),
            )
        except (TokvizError, OSError) as exc:
            self.report(f"Could not save the handout: {exc}")
            return None
        self.report(f"Saved the handout as {out}")
        return out

    def choose_pictures(self) -> list[Path]:
        """Ask for a new folder and write every slide (or step) into it as PNG at 2× or SVG."""
        path, chosen = file_dialogs.get_save_file_name(
            self.window, "Export slides as pictures (name a new folder)", "slides", ";;".join(PICTURES)
        )
        if not path:
            return []
        fmt, per_step = PICTURES.get(chosen, ("png", False))
        folder = Path(path)
        if folder.suffix.lower() in (".png", ".svg"):
            folder = folder.with_suffix("")
        try:
            deck = self.current_deck()
            written = write_slides(
                deck, folder, fmt=fmt, per_step=per_step, inputs=deck_files(deck, self.deck_path)
            )
        except (TokvizError, OSError) as exc:
            self.report(f"Could not save the slides: {exc}")
            return []
        self.report(f"Saved {len(written)} slides as {fmt.upper()} in {folder}")
        return written


def _add_to_file_menu(window: QWidget, action: QAction) -> None:
    """Put ``action`` in the File menu too, after the other Open… entries (above the first separator)."""
    for menu in window.findChildren(QMenu):
        if menu.title().replace("&", "") == "File":
            separators = [a for a in menu.actions() if a.isSeparator()]
            if separators:
                menu.insertAction(separators[0], action)
            else:
                menu.addAction(action)
            return
