"""Panels reach the window only through the panel context: any object that offers its members will do.

A fake context on a bare QMainWindow installs every panel; the members panels once found by
searching the window (the editor, presentation mode, the views' first tokens) are offered by the
context and work in the real window; and no panel module searches or inspects window objects.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Unpack

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget

import tokviz.gui.panels
from tokviz.gui.context import ActionOptions, DockOptions, PanelContext, ViewTokens
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.settings import Settings
from tokviz.gui.style.theme import TokenColors, token_colors
from tokviz.gui.text.display import DisplayOptions
from tokviz.gui.window.main_window import DEFAULT_PANELS, MainWindow

from .reach import dock

PANELS = Path(tokviz.gui.panels.__file__).parent
# Dynamic properties a panel may set on its own widgets: a marker the export code reads, and the
# style sheet's "invalid" state of an input. Neither carries anything between parts of the window.
OWN_PROPERTIES = {"VECTOR_PROPERTY", "invalid"}


class SealedWindow(QMainWindow):
    """The parent a fake context hands out: searching it, as a panel that reaches past the context
    would, fails the test."""

    def findChild(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]  # it only fails
        raise AssertionError("a panel searched the window instead of asking its context")

    def findChildren(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]  # it only fails
        raise AssertionError("a panel searched the window instead of asking its context")


class FakeContext(QObject):
    """The smallest object that satisfies :class:`PanelContext`: no editor, no views, no window parts."""

    textEdited = Signal()
    textTokenized = Signal()
    colorsChanged = Signal(object)
    fontChanged = Signal(QFont)
    displayOptionsChanged = Signal(object)
    referenceViewChanged = Signal(str)
    presentationChanged = Signal(bool)

    def __init__(self, text: str = "the cat in the hat") -> None:
        super().__init__()
        self.window = SealedWindow()
        self.text = text
        self.selection = (0, 0)
        self.presenting = False
        self.waiting: list[Callable[[], object]] = []
        self.statuses: list[str] = []
        self.guards: list[Callable[[], bool]] = []
        self._tokenizers = TokenizerRegistryModel(self)
        self._settings = Settings()

    @property
    def tokenizers(self) -> TokenizerRegistryModel:
        return self._tokenizers

    @property
    def settings(self) -> Settings:
        return self._settings

    def parent_widget(self) -> QWidget:
        return self.window

    def editor_text(self) -> str:
        return self.text

    def set_text(self, text: str) -> None:
        self.text = text
        self.textEdited.emit()

    def colors(self) -> TokenColors:
        return token_colors(False)

    def text_font(self) -> QFont:
        return QFont("monospace", 12)

    def display_options(self) -> DisplayOptions:
        return DisplayOptions()

    def views_ready(self) -> bool:
        return True

    def when_views_ready(self, callback: Callable[[], object]) -> None:
        self.waiting.append(callback)

    def is_presentation(self) -> bool:
        return self.presenting

    def editor_selection(self) -> tuple[int, int]:
        return self.selection

    def show_in_editor(self, start: int, end: int) -> None:
        self.selection = (start, end)

    def view_tokens(self) -> list[ViewTokens]:
        return []

    def first_view_key(self) -> str:
        return "gpt2"

    def add_dock(
        self, widget: QWidget, title: str, object_name: str, **options: Unpack[DockOptions]
    ) -> QDockWidget:
        dock = QDockWidget(title, self.window)
        dock.setObjectName(object_name)
        dock.setWidget(widget)
        self.window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        dock.setVisible(options.get("visible", False))
        return dock

    def add_menu(self, title: str, object_name: str) -> QMenu:
        return self.window.menuBar().addMenu(title)

    def add_action(self, text: str, slot: Callable[[], object], **options: Unpack[ActionOptions]) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(options.get("name", ""))
        action.triggered.connect(lambda *_: slot())
        if "menu" in options:
            options["menu"].addAction(action)
        return action

    def open_tokenizer_dialog(self) -> None:
        pass

    def show_status(self, message: str, msecs: int = 5000) -> None:
        self.statuses.append(message)

    def add_close_guard(self, guard: Callable[[], bool]) -> None:
        self.guards.append(guard)


def context_members() -> set[str]:
    """What :class:`PanelContext` declares: its signals, properties and methods."""
    names = set(PanelContext.__annotations__)
    names |= {n for n in vars(PanelContext) if not n.startswith("_")}
    return names


def fake_context(qtbot) -> FakeContext:
    context = FakeContext()
    qtbot.addWidget(context.window)
    return context


def test_the_fake_offers_every_member_of_the_context():
    fake = FakeContext()
    assert {name for name in context_members() if not hasattr(fake, name)} == set()
    assert {"show_in_editor", "editor_selection", "is_presentation", "when_views_ready"} <= context_members()


def test_every_panel_installs_into_a_minimal_context(qtbot):
    context = fake_context(qtbot)
    installed = {name: install(context) for name, install in DEFAULT_PANELS}
    assert all(part is not None for part in installed.values())
    training = installed["training"]
    context.window.show()
    qtbot.waitExposed(context.window)
    training.train_dock.show()
    qtbot.waitUntil(lambda: bool(context.waiting), timeout=5000)  # the restored corpus waits for the views
    for guard in context.guards:
        assert guard()


def test_show_in_text_selects_through_the_context(qtbot):
    from tokviz.gui.panels import vocabulary

    context = fake_context(qtbot)
    gpt2 = context.tokenizers.load_builtin_now("gpt2")
    browser = vocabulary.install(context).widget()
    qtbot.waitUntil(lambda: browser.model.tokenizer is not None, timeout=10000)
    the = gpt2.encode_ordinary(" hat")[0]
    browser.table.showInTextRequested.emit(the)
    start, end = context.selection
    assert context.text[start:end] == " hat"


def test_the_chart_takes_large_text_from_presentation_mode(qtbot):
    from tokviz.gui.panels import chart

    context = fake_context(qtbot)
    canvas = chart.install(context).widget()
    context.presentationChanged.emit(True)
    assert canvas.large_button.isChecked()
    context.presentationChanged.emit(False)
    assert not canvas.large_button.isChecked()


def test_a_lecture_demo_in_presentation_mode_leaves_the_train_form_hidden(qtbot):
    from tokviz.gui.panels.training import install

    context = fake_context(qtbot)
    docks = install.install(context)
    docks.train_dock.hide()
    context.presenting = True
    demo = next(a for a in docks.menu.actions() if a.objectName() == "actionLectureDemo")
    with qtbot.waitSignal(docks.panel.run.ended, timeout=30000):
        demo.trigger()
    assert docks.train_dock.isHidden() and docks.panel.outcome is not None
    assert context.statuses and context.statuses[-1].startswith("Trained lecture")


# ----------------------------------------------------------------------------- the real window
def test_show_in_editor_selects_code_points_in_the_editor(qtbot, make_window):
    text = "naïve 🌍 café"
    window = make_window(text=text)
    window.host.show_in_editor(6, 9)  # "🌍 c": the emoji is one code point, two UTF-16 units
    cursor = window.editor.textCursor()
    assert cursor.selectedText() == text[6:9]
    assert window.host.editor_selection() == (6, 9)
    assert window.editor.hasFocus() or not window.isActiveWindow()


def test_presentation_changed_fires_and_the_chart_follows(qtbot, window):
    chart = dock(window, "exchangeChartDock").widget()
    with qtbot.waitSignal(window.host.presentationChanged) as entered:
        window.presentation.set_active(True)
    assert entered.args == [True] and window.host.is_presentation()
    assert chart.large_button.isChecked()
    with qtbot.waitSignal(window.host.presentationChanged) as left:
        window.presentation.set_active(False)
    assert left.args == [False] and not window.host.is_presentation()
    assert not chart.large_button.isChecked()


def test_work_waiting_for_the_views_runs_once_they_show_the_text(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    seen: list[bool] = []
    window.host.when_views_ready(lambda: seen.append(window.is_ready()))
    qtbot.wait(20)  # nothing may run: an absence has no signal to wait for, only time for a wrong call
    assert seen == [], "nothing runs before the window is on screen"
    window.show()
    qtbot.waitUntil(lambda: bool(seen), timeout=20000)
    assert seen == [True], "the views showed the text when it ran"
    window.host.when_views_ready(lambda: seen.append(True))
    assert seen == [True, True], "later: at once"
    window.close()


# ----------------------------------------------------------------------------- the source
def reaches_past_the_context(tree: ast.AST) -> list[str]:
    """Calls that search, inspect or signal through window objects instead of the context."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        first = node.args[0] if node.args else None
        if name in ("findChild", "findChildren", "window"):
            found.append(f"{name}() at line {node.lineno}")
        elif name in ("getattr", "hasattr") and not (isinstance(first, ast.Name) and first.id == "self"):
            found.append(f"{name}() on another object at line {node.lineno}")
        elif name in ("setProperty", "property") and isinstance(func, ast.Attribute):
            key = first.id if isinstance(first, ast.Name) else getattr(first, "value", None)
            if key not in OWN_PROPERTIES:
                found.append(f"dynamic property {key!r} at line {node.lineno}")
    return found


def test_no_panel_searches_or_inspects_window_objects():
    offenders = {
        str(path.relative_to(PANELS)): calls
        for path in sorted(PANELS.rglob("*.py"))
        if (calls := reaches_past_the_context(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert offenders == {}


def test_the_scan_catches_a_panel_that_searches_the_window():
    source = (
        "editor = context.parent_widget().findChild(QPlainTextEdit, 'editor')\n"
        "mode = getattr(context.parent_widget(), 'presentation', None)\n"
        "window.setProperty('tokvizSettled', True)\n"
    )
    assert len(reaches_past_the_context(ast.parse(source))) == 3
