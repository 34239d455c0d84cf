"""The presenter window: what the lecturer sees on their own screen while the deck is projected.

It shows the slide the audience sees, the next step or slide, the speaker notes, the time since
the lecture started and the keys that drive it, with what this slide's live keys change (the
slides themselves carry no key hints: the room sees them). Keys pressed here drive the projected
deck too, so the clicker works whichever window has the focus. :func:`start_lecture` puts the
deck on the last screen and, when there are two or more, this window on the first.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeyEvent, QPainter, QPaintEvent, QScreen
from PySide6.QtWidgets import QGridLayout, QLabel, QTextBrowser, QWidget

from tokviz.core.lecture.deck import Deck
from tokviz.core.lecture.slides import SlideContent
from tokviz.gui.lecture.paint import SlideLayout, canvas_size, paint_scaled
from tokviz.gui.lecture.show import KEY_HINT, LectureView
from tokviz.gui.style.fonts import sans_font
from tokviz.gui.workers.latest import LatestJob


class SlidePreview(QWidget):
    """A slide layout painted small, keeping its shape (or a plain message when there is none)."""

    def __init__(self, view: LectureView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.layout_: SlideLayout | None = None
        self.message = ""
        self.setMinimumSize(160, 90)

    def show_layout(self, layout: SlideLayout | None, message: str = "") -> None:
        """Show ``layout``, or ``message`` in its place."""
        self.layout_, self.message = layout, message
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        rect = QRectF(self.rect())
        colors = self.view.colors
        if self.layout_ is not None:
            paint_scaled(painter, self.layout_, rect, colors.muted)
        else:
            painter.fillRect(rect, colors.muted)
            painter.setPen(colors.base)
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), self.message)
        painter.end()


def reflow(notes: str) -> str:
    """Notes as paragraphs: lines broken in the deck file join up (the window wraps them to its width);
    a blank line still separates paragraphs and an indented line (a command) keeps its own line."""
    paragraphs = []
    for block in notes.strip().split("\n\n"):
        lines: list[str] = []
        for line in block.splitlines():
            if lines and not line.startswith((" ", "\t")) and not lines[-1].startswith((" ", "\t")):
                lines[-1] += " " + line.strip()
            else:
                lines.append(line.rstrip())
        paragraphs.append("\n".join(lines))
    return "\n\n".join(paragraphs)


def _clock(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60:02d}:{rest % 60:02d}"


class PresenterWindow(QWidget):
    """Current slide, next slide, notes, elapsed time and the keys, following a :class:`LectureView`."""

    def __init__(
        self, view: LectureView, clock: Callable[[], float] = time.monotonic, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("presenterWindow")
        self.setWindowTitle(f"Presenter – {view.state.deck.title or 'tokviz lecture'}")
        self.view = view
        self.clock = clock
        self.started = clock()
        self.job = LatestJob(self)
        self.current = SlidePreview(view, self)
        self.next = SlidePreview(view, self)
        self.position = QLabel(self)
        self.elapsed = QLabel(self)
        self.notes = QTextBrowser(self)
        self.hint = QLabel(KEY_HINT, self)
        self.position.setObjectName("presenterPosition")
        self.elapsed.setObjectName("presenterElapsed")
        self.notes.setObjectName("presenterNotes")
        self.hint.setObjectName("presenterHint")
        self.hint.setWordWrap(True)
        self.elapsed.setFont(sans_font(28, bold=True))
        self.position.setFont(sans_font(16))
        self.notes.setFont(sans_font(16))
        self.notes.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        grid = QGridLayout(self)
        grid.addWidget(self.position, 0, 0)
        grid.addWidget(self.elapsed, 0, 1, Qt.AlignmentFlag.AlignRight)
        grid.addWidget(self.current, 1, 0, 2, 1)
        grid.addWidget(QLabel("Next", self), 1, 1)
        grid.addWidget(self.next, 2, 1)
        grid.addWidget(self.notes, 3, 0, 1, 2)
        grid.addWidget(self.hint, 4, 0, 1, 2)
        grid.setColumnStretch(0, 3)
        grid.setColumnStretch(1, 2)
        grid.setRowStretch(2, 3)
        grid.setRowStretch(3, 2)
        self.timer = QTimer(self)
        self.timer.setInterval(1000)
        self.timer.timeout.connect(self.tick)
        self.timer.start()
        view.moved.connect(self.follow)
        view.left.connect(self.close)
        self.tick()
        self.follow(view.state.index, view.state.step)

    def tick(self) -> None:
        """Show the time since the lecture started."""
        self.elapsed.setText(_clock(self.clock() - self.started))

    def follow(self, index: int, step: int) -> None:
        """Show slide ``index`` at ``step`` as the audience sees it, its notes, and what the next
        click shows: the next page of a slide shown in pages, else the next step or slide."""
        state = self.view.state
        slide = state.deck.slides[index]
        steps = f" · step {step + 1} of {slide.steps}" if slide.steps > 1 else ""
        self.position.setText(f"Slide {index + 1} of {state.slide_count}{steps} — {slide.title}")
        self.notes.setPlainText(reflow(slide.notes) or "(no notes for this slide)")
        live = state.hint(index)
        self.hint.setText(f"{live}\n{KEY_HINT}" if live else KEY_HINT)
        self.current.show_layout(self.view.layout_, "computing…")
        shown, layout = self.view.shown, self.view.layout_
        if shown is not None and layout is not None and layout.part + 1 < layout.parts:
            # A slide shown a page at a time: the next click turns the page, so that is what comes next.
            following_page = SlideLayout(
                shown, layout.size, self.view.colors, layout.footer, paged=True, part=layout.part + 1
            )
            self.job.drop()  # the next slide asked for before this page was shown comes later
            self.next.show_layout(following_page)
            return
        following = state.following(index, step)
        if following is None:
            self.next.show_layout(None, "End of the deck")
            return
        n_index, n_step = following
        self.next.show_layout(None, "computing…")
        size = canvas_size(16 / 9 if self.view.layout_ is None else self.view.layout_.size.width() / 900)

        def done(content: SlideContent) -> None:
            footer = f"{n_index + 1} / {state.slide_count}"
            self.next.show_layout(SlideLayout(content, size, self.view.colors, footer, paged=True))

        self.job.submit(
            lambda: state.content(n_index, n_step), done, lambda exc: self.next.show_layout(None, str(exc))
        )

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        """The clicker's keys drive the projected deck from here too."""
        self.view.keyPressEvent(event)


def start_lecture(deck: Deck, dark: bool = False, screens: Sequence[object] = ()) -> LectureView:
    """Open the deck full screen; with two screens or more it goes on the last one and a presenter
    window (current and next slide, notes, elapsed time) opens on the first."""
    view = LectureView(deck, dark)
    all_screens = list(screens) or QGuiApplication.screens()
    target = all_screens[-1] if all_screens else None
    if isinstance(target, QScreen):
        view.setScreen(target)
        view.setGeometry(target.geometry())
    if len(all_screens) >= 2:
        presenter = PresenterWindow(view)
        view.presenter = presenter
        first = all_screens[0]
        if isinstance(first, QScreen):
            presenter.setScreen(first)
            presenter.setGeometry(first.availableGeometry())
        presenter.showMaximized()
    view.showFullScreen()
    view.activateWindow()
    view.setFocus()
    return view
