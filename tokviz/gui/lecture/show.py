"""The deck on a screen: one live slide at a time, driven by the keys a presentation clicker sends.

PageDown, Right, Space and Enter go one step on (a merge slide takes a click per merge, a slide
too long to show legibly a click per page of its table); PageUp,
Left and Backspace go back; Home and End jump to the ends; a number then Enter jumps to that slide;
B or . blacks the screen (any key brings it back); O shows every slide as a grid; E (or a click)
edits the slide's text; T puts the next tokenizer not already on the slide in its first place
(Shift+T the one before); ? shows the keys over the slide until the next key; Esc leaves. Key hints
are never part of a slide (the room sees it): the presenter window shows them. Each slide's content is computed
off the GUI thread (:mod:`tokviz.core.lecture.slides`) and laid out on the fixed canvas of
:mod:`tokviz.gui.lecture.paint`, so every screen size shows the same composition.
"""

from __future__ import annotations

import contextlib
import json
import os

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QMouseEvent, QPainter, QPaintEvent, QPen, QResizeEvent
from PySide6.QtWidgets import QLineEdit, QWidget

from tokviz.core.formats.registry import BUILTIN_TOKENIZERS
from tokviz.core.lecture.deck import SLIDE_KINDS, Deck
from tokviz.core.lecture.slides import SlideContent, slide_content
from tokviz.gui.lecture.paint import SlideLayout, canvas_size, paint_keys, paint_scaled
from tokviz.gui.style.fonts import sans_font
from tokviz.gui.style.theme import token_colors
from tokviz.gui.workers.latest import LatestJob

NEXT_KEYS = {Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter,
             Qt.Key.Key_Down}  # fmt: skip
PREVIOUS_KEYS = {Qt.Key.Key_PageUp, Qt.Key.Key_Left, Qt.Key.Key_Backspace, Qt.Key.Key_Up}
OVERVIEW_COLUMNS = 4
KEY_HINT = (
    "→ / PageDown / Space: next · ← / PageUp: back · number + Enter: go to slide · O: overview · "
    "B: black · E or click: edit the text · T / Shift+T: next / previous tokenizer · ?: keys · Esc: leave"
)
LECTURE_KEYS: tuple[tuple[str, str], ...] = (
    ("PageDown, Right, Down, Space, Enter", "next page, step or slide"),
    ("PageUp, Left, Up, Backspace", "previous page, step or slide"),
    ("Home, End", "first, last slide"),
    ("a number, then Enter", "go to that slide"),
    ("B, .", "black screen (any key brings it back)"),
    ("O", "overview of every slide: arrows move, Enter goes there"),
    ("E, a click", "type the slide's text; every figure follows"),
    ("T, Shift+T", "the next (previous) tokenizer not already on the slide, in its first place"),
    ("?", "these keys over the slide, until the next key"),
    ("Esc", "leave the lecture (on a black screen or the keys: back to the slide)"),
)
"""What each key does in a lecture, for Help ▸ Keyboard shortcuts."""
REPORT_ENV = "TOKVIZ_LECTURE_REPORT"


class DeckState:
    """Where the lecture is (slide, step) and what was changed live on each slide (text, tokenizers)."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        self.index = 0
        self.step = 0
        self.texts: dict[int, str] = {}
        self.tokenizers: dict[int, list[str]] = {}

    @property
    def slide_count(self) -> int:
        """How many slides the deck has."""
        return len(self.deck.slides)

    def next(self) -> bool:
        """One click on: the slide's next step, else the next slide's first step; False at the end."""
        following = self.following(self.index, self.step)
        if following is None:
            return False
        self.index, self.step = following
        return True

    def previous(self) -> bool:
        """One click back: the previous step, else the previous slide's last step; False at the start."""
        if self.step > 0:
            self.step -= 1
            return True
        if self.index > 0:
            self.index -= 1
            self.step = self.deck.slides[self.index].steps - 1
            return True
        return False

    def following(self, index: int, step: int) -> tuple[int, int] | None:
        """The (slide, step) one click after ``index``/``step``, or None at the end of the deck."""
        if step + 1 < self.deck.slides[index].steps:
            return index, step + 1
        return (index + 1, 0) if index + 1 < self.slide_count else None

    def go(self, index: int, step: int = 0) -> None:
        """Jump to slide ``index`` (0-based, clamped) at ``step``."""
        self.index = max(0, min(index, self.slide_count - 1))
        self.step = max(0, min(step, self.deck.slides[self.index].steps - 1))

    def text(self, index: int | None = None) -> str | None:
        """The text edited live on a slide, or None for the deck's."""
        return self.texts.get(self.index if index is None else index)

    def tokenizer_names(self, index: int | None = None) -> list[str] | None:
        """The tokenizers chosen live on a slide, or None for the deck's."""
        return self.tokenizers.get(self.index if index is None else index)

    def current_tokenizers(self, index: int | None = None) -> list[str]:
        """The tokenizers slide ``index`` uses now: chosen live, else the slide's, else the deck's."""
        i = self.index if index is None else index
        slide = self.deck.slides[i]
        return list(self.tokenizers.get(i) or slide.options.get("tokenizers") or self.deck.tokenizers)

    def hint(self, index: int | None = None) -> str:
        """The lecturer's reminder of what a slide's live keys do ("" for a slide of words only);
        the presenter window shows it, never the slide."""
        keys = SLIDE_KINDS[self.deck.slides[self.index if index is None else index].kind]
        names = self.current_tokenizers(index) or ["gpt2"]
        tokenizer = f"T: next tokenizer (now {names[0]})" if "tokenizers" in keys else ""
        return " · ".join(part for part in ("E: edit the text" if "text" in keys else "", tokenizer) if part)

    def cycle_tokenizer(self, direction: int = 1) -> list[str]:
        """Put the next tokenizer (``direction`` -1: the previous) in the slide's first place, skipping
        those already on the slide, so a slide never shows one twice; the cycle comes back round.

        The order is the slide's own first tokenizer when it is a file, then bytes, gpt2, cl100k,
        o200k, words, characters. A slide whose kind takes no tokenizers stays as it is.
        """
        names = list(dict.fromkeys(self.current_tokenizers() or ["gpt2"]))
        if "tokenizers" not in SLIDE_KINDS[self.deck.slides[self.index].kind]:
            return names
        own = self.deck.slides[self.index].options.get("tokenizers") or self.deck.tokenizers or ("gpt2",)
        builtins = [n for n in BUILTIN_TOKENIZERS if n != "characters"] + ["characters"]
        order = [n for n in (own[0], names[0]) if n not in builtins] + builtins
        order = list(dict.fromkeys(order))
        free = [n for n in order if n == names[0] or n not in names[1:]]
        names[0] = free[(free.index(names[0]) + direction) % len(free)]
        self.tokenizers[self.index] = names
        return names

    def content(self, index: int | None = None, step: int | None = None) -> SlideContent:
        """The content of a slide at a step with what was changed live (computes; call off the GUI thread)."""
        i = self.index if index is None else index
        s = self.step if step is None else step
        return slide_content(
            self.deck.slides[i], self.deck, s, text=self.text(i), tokenizers=self.tokenizer_names(i)
        )


class SlideTextEdit(QLineEdit):
    """The line a slide's text is typed in: Enter applies it, Esc keeps the old text; neither reaches the deck."""

    cancelled = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        super().keyPressEvent(event)
        if event.key() == Qt.Key.Key_Escape:
            self.cancelled.emit()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape):
            event.accept()  # QLineEdit leaves them to its parent, which would turn the slide


class LectureView(QWidget):
    """The slide, full screen: paints the current layout, takes the clicker's keys, edits text live."""

    moved = Signal(int, int)  # slide index, step
    left = Signal()

    def __init__(self, deck: Deck, dark: bool = False, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lectureView")
        self.setWindowTitle(deck.title or "tokviz lecture")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setCursor(Qt.CursorShape.BlankCursor)
        self.state = DeckState(deck)
        self.colors = token_colors(dark)
        self.black = False
        self.keys_shown = False
        self.overview = False
        self.picked = 0
        self.presenter: QWidget | None = None
        self.typed = ""
        self.layout_: SlideLayout | None = None
        self.shown: SlideContent | None = None
        self.part = 0
        self.contents: dict[tuple[int, int], SlideContent] = {}
        self.job = LatestJob(self)
        self.editor = SlideTextEdit(self)
        self.editor.setObjectName("lectureTextEditor")
        self.editor.hide()
        self.editor.returnPressed.connect(self._apply_edit)
        self.editor.cancelled.connect(self._cancel_edit)
        self.refresh()

    # ---------------------------------------------------------------- content
    def refresh(self, part: int = 0) -> None:
        """Compute the current slide (off the GUI thread) and show it when it is ready, from page
        ``part`` of a slide too long for one screen (-1: its last)."""
        self.part = part
        key = (self.state.index, self.state.step)
        state = self.state
        index, step = key

        def done(content: SlideContent) -> None:
            self.contents[(index, step)] = content
            self._show(content)

        self.job.submit(lambda: state.content(index, step), done, self._failed)

    def _failed(self, exc: BaseException) -> None:
        self._show(SlideContent("This slide cannot be shown", (), figures={"error": str(exc)}))

    def _show(self, content: SlideContent) -> None:
        number = self.state.index + 1
        footer = f"{self.state.deck.title} · {number} / {self.state.slide_count}"
        size = canvas_size(self.width() / max(self.height(), 1))
        # A slide that would shrink under a legible size shows its long table a page at a time.
        self.layout_ = SlideLayout(content, size, self.colors, footer, paged=True, part=self.part)
        self.shown, self.part = content, self.layout_.part
        self.update()
        self._report(self.layout_)
        self.moved.emit(self.state.index, self.state.step)

    def _report(self, layout: SlideLayout) -> None:
        """With ``TOKVIZ_LECTURE_REPORT`` set, add a JSON line about the slide shown (checks read it)."""
        path = os.environ.get(REPORT_ENV)
        if not path:
            return
        ratio = min(self.width() / layout.size.width(), self.height() / layout.size.height())
        line = {"slide": self.state.index + 1, "step": self.state.step + 1,
                "window": [self.width(), self.height()], "screen_scale": round(ratio, 4), **layout.report()}  # fmt: skip
        with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")

    @property
    def content(self) -> SlideContent | None:
        """What the slide on screen shows, all pages (tests and the presenter window read its figures)."""
        return self.shown if self.layout_ is not None else None

    # ---------------------------------------------------------------- keys
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        key = event.key()
        if self.editor.isVisible():
            return
        if self.black or self.keys_shown:  # any key, Esc too, brings the slide back
            self.black = self.keys_shown = False
            self.update()
            return
        if self.overview:
            self._overview_key(key)
            return
        if key == Qt.Key.Key_Escape:
            self.left.emit()
            self.close()
            return
        text = event.text()
        if text.isdigit():
            self.typed += text
            return
        if self.typed and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.go(int(self.typed) - 1)
            self.typed = ""
            return
        self.typed = ""
        if text == "?":
            self.keys_shown = True
            self.update()
            return
        self._command(key, text, bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier))

    def _command(self, key: int, text: str, shift: bool = False) -> None:
        if key in NEXT_KEYS:
            self.step(1)
        elif key in PREVIOUS_KEYS:
            self.step(-1)
        elif key == Qt.Key.Key_Home:
            self.go(0)
        elif key == Qt.Key.Key_End:
            self.go(self.state.slide_count - 1)
        elif key == Qt.Key.Key_B or text == ".":
            self.black = True
            self.update()
        elif key == Qt.Key.Key_O:
            self.overview, self.picked = True, self.state.index
            self.update()
        elif key == Qt.Key.Key_E:
            self.edit_text()
        elif key == Qt.Key.Key_T:
            self.state.cycle_tokenizer(-1 if shift else 1)
            self.refresh()

    def step(self, direction: int) -> None:
        """One click on (``1``) or back (``-1``): the next page of a slide shown in pages, else the
        next step or slide."""
        layout = self.layout_
        if layout is not None and self.shown is not None and 0 <= layout.part + direction < layout.parts:
            self.part = layout.part + direction
            self._show(self.shown)
            return
        moved = self.state.next() if direction > 0 else self.state.previous()
        if moved:
            self.refresh(-1 if direction < 0 else 0)

    def go(self, index: int, step: int = 0) -> None:
        """Jump to slide ``index`` (0-based)."""
        self.overview = False
        self.state.go(index, step)
        self.refresh()

    # ---------------------------------------------------------------- live text
    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self.overview:
            self._overview_click(event.position().x(), event.position().y())
            return
        self.edit_text()

    def edit_text(self) -> None:
        """Show a line to type the slide's text in; Enter updates the whole slide, Esc keeps it."""
        content = self.state.deck.slides[self.state.index]
        current = self.state.text() or str(content.options.get("text") or self.state.deck.text)
        self.editor.setText(current)
        self.editor.setFont(sans_font(max(12.0, self.height() / 40)))
        height = self.editor.sizeHint().height()
        self.editor.setGeometry(
            self.width() // 10, self.height() - height * 2, self.width() * 8 // 10, height
        )
        self.editor.show()
        self.editor.setFocus()
        self.editor.selectAll()

    def _cancel_edit(self) -> None:
        self.editor.hide()
        self.setFocus()

    def _apply_edit(self) -> None:
        self.state.texts[self.state.index] = self.editor.text()
        self.editor.hide()
        self.setFocus()
        self.refresh()

    # ---------------------------------------------------------------- painting
    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        rect = QRectF(self.rect())
        if self.black:
            painter.fillRect(rect, QColor("black"))
        elif self.overview:
            self._paint_overview(painter, rect)
        elif self.layout_ is not None:
            paint_scaled(painter, self.layout_, rect, self.colors.base)
        else:
            painter.fillRect(rect, self.colors.base)
        if self.keys_shown and not self.black:
            paint_keys(painter, rect, self.colors, LECTURE_KEYS)
        painter.end()

    def cells(self, rect: QRectF) -> list[QRectF]:
        """Where each slide sits in the overview grid drawn in ``rect``."""
        rows = (self.state.slide_count + OVERVIEW_COLUMNS - 1) // OVERVIEW_COLUMNS
        w, h = rect.width() / OVERVIEW_COLUMNS, rect.height() / max(rows, 1)
        return [
            QRectF(
                rect.x() + (i % OVERVIEW_COLUMNS) * w + 6,
                rect.y() + (i // OVERVIEW_COLUMNS) * h + 6,
                w - 12,
                h - 12,
            )
            for i in range(self.state.slide_count)
        ]

    def _paint_overview(self, painter: QPainter, rect: QRectF) -> None:
        painter.fillRect(rect, self.colors.muted)
        size = canvas_size(self.width() / max(self.height(), 1))
        for i, cell in enumerate(self.cells(rect)):
            slide = self.state.deck.slides[i]
            content = self.contents.get((i, slide.steps - 1)) or self.contents.get((i, 0))
            if content is None:
                content = SlideContent(slide.title or slide.kind, ())
            layout = SlideLayout(content, size, self.colors, f"{i + 1}")
            paint_scaled(painter, layout, cell, self.colors.muted)
            layout.release()
            if i == self.picked:
                painter.setPen(QPen(self.colors.highlight, 4))
                painter.drawRect(cell.adjusted(-3, -3, 3, 3))

    def _overview_key(self, key: int) -> None:
        """In the grid: arrows move the outline, Enter goes to the outlined slide, O or Esc goes back."""
        moves: dict[int, int] = {Qt.Key.Key_Left: -1, Qt.Key.Key_Right: 1, Qt.Key.Key_Up: -OVERVIEW_COLUMNS,
                 Qt.Key.Key_Down: OVERVIEW_COLUMNS, Qt.Key.Key_Home: -self.state.slide_count,
                 Qt.Key.Key_End: self.state.slide_count}  # fmt: skip
        if key in moves:
            self.picked = max(0, min(self.picked + moves[key], self.state.slide_count - 1))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.go(self.picked)
        elif key in (Qt.Key.Key_O, Qt.Key.Key_Escape):
            self.overview = False
        self.update()

    def _overview_click(self, x: float, y: float) -> None:
        for i, cell in enumerate(self.cells(QRectF(self.rect()))):
            if cell.contains(x, y):
                self.go(i)
                return

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.shown is not None:
            self._show(self.shown)
