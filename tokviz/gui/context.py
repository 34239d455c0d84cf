"""What a panel may rely on: the small typed interface the window hands to every panel it installs.

A panel is a function ``install(context) -> object`` (see :data:`Installer`): it builds its widgets,
asks the context for a dock, menu entries and shortcuts, and subscribes to the context's signals.
It never imports the window and never reads the window's attributes, so the window can change
without breaking panels and a panel can be tested with any object that satisfies
:class:`PanelContext`. The window's implementation is :class:`tokviz.gui.window.panel_host.PanelHost`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol, TypedDict, Unpack

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction, QFont
    from PySide6.QtWidgets import QDockWidget, QMenu, QWidget

    from tokviz.core.bpe.tokenizer import Tokenizer
    from tokviz.gui.models.tokenizers import TokenizerRegistryModel
    from tokviz.gui.settings import Settings
    from tokviz.gui.style.theme import TokenColors
    from tokviz.gui.text.display import DisplayOptions

DockArea = Literal["bottom", "right"]


class DockOptions(TypedDict, total=False):
    """How :meth:`PanelContext.add_dock` places a dock and its View-menu toggle; any may be left out.

    ``shortcut`` shows and raises the dock; ``action_text`` is the toggle's menu text (default: the
    dock's title); ``area`` is ``"bottom"`` (the default) or ``"right"``. The dock starts hidden
    unless ``visible``; the saved layout, restored once every panel is installed, wins.
    ``first_size`` gives the dock's height (bottom) or width (right) the first time it is shown
    without a saved layout. ``tabify_with`` names a dock to share tabs with (that dock stays in front).
    """

    shortcut: str
    action_text: str
    area: DockArea
    visible: bool
    first_size: Callable[[], int]
    tabify_with: str


class ActionOptions(TypedDict, total=False):
    """What :meth:`PanelContext.add_action` may add to an action: its ``shortcut``, its object
    ``name`` (how tests and the layout find it) and the ``menu`` it is listed in."""

    shortcut: str
    name: str
    menu: QMenu


@dataclass(frozen=True)
class ViewTokens:
    """What one of the window's token views shows: its number, its tokenizer and the ids of the text."""

    label: str
    key: str
    tokenizer: Tokenizer
    ids: list[int]


class PanelContext(Protocol):
    """The services and signals a panel receives from the window.

    Signals (connect them to bound methods of a QObject, which Qt disconnects when it dies):
    ``textEdited()`` after every edit of the editor (debounce it); ``textTokenized()`` once every
    view shows the current text; ``colorsChanged(TokenColors)`` after a theme or presentation-mode
    change; ``fontChanged(QFont)`` when the editor's font changes (zoom, presentation mode);
    ``displayOptionsChanged(DisplayOptions)`` when ids/whitespace display is switched;
    ``referenceViewChanged(key)`` when the first view (the reference) shows another tokenizer;
    ``presentationChanged(on)`` after presentation mode was switched on or off (a panel with a
    presentation size of its own, such as the chart's large text, follows it).
    """

    textEdited: SignalInstance
    textTokenized: SignalInstance
    colorsChanged: SignalInstance
    fontChanged: SignalInstance
    displayOptionsChanged: SignalInstance
    referenceViewChanged: SignalInstance
    presentationChanged: SignalInstance

    @property
    def tokenizers(self) -> TokenizerRegistryModel:
        """The registry every picker lists; a trained model added here appears everywhere at once."""
        ...

    @property
    def settings(self) -> Settings:
        """The typed settings store."""
        ...

    def parent_widget(self) -> QWidget:
        """The widget to parent dialogs and panels to."""
        ...

    def editor_text(self) -> str:
        """The editor's text now (code points; newlines as ``\\n``)."""
        ...

    def set_text(self, text: str) -> None:
        """Replace the editor's text."""
        ...

    def colors(self) -> TokenColors:
        """The token colours of the current theme."""
        ...

    def text_font(self) -> QFont:
        """The editor's font (token views use it)."""
        ...

    def display_options(self) -> DisplayOptions:
        """The current display options of the token views."""
        ...

    def views_ready(self) -> bool:
        """True when every token view shows the current text."""
        ...

    def when_views_ready(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once, after the window's first paint and its views' first tokens (at
        once if both are over; after a few seconds at most if the views never fill): start-up work
        of a restored panel waits so that it never delays the window."""
        ...

    def is_presentation(self) -> bool:
        """Whether presentation mode is on (``presentationChanged`` says when it changes)."""
        ...

    def editor_selection(self) -> tuple[int, int]:
        """The editor's selection as code points ``(start, end)`` (equal when nothing is selected)."""
        ...

    def show_in_editor(self, start: int, end: int) -> None:
        """Select code points ``start..end`` of the editor's text, scroll them into view, focus the editor."""
        ...

    def view_tokens(self) -> list[ViewTokens]:
        """What each token view shows, in order (views still loading are left out)."""
        ...

    def first_view_key(self) -> str:
        """The registry key of the first view's tokenizer (the reference view)."""
        ...

    def add_dock(
        self, widget: QWidget, title: str, object_name: str, **options: Unpack[DockOptions]
    ) -> QDockWidget:
        """Dock ``widget`` with a View-menu toggle that shows and raises it, placed as ``options`` say."""
        ...

    def add_menu(self, title: str, object_name: str) -> QMenu:
        """A new top-level menu, placed before Help."""
        ...

    def add_action(self, text: str, slot: Callable[[], object], **options: Unpack[ActionOptions]) -> QAction:
        """A window-wide action (its shortcut works wherever the focus is), added to its menu if given."""
        ...

    def open_tokenizer_dialog(self) -> None:
        """Ask the user for a tokenizer file and load it into the registry."""
        ...

    def show_status(self, message: str, msecs: int = 5000) -> None:
        """Show a short message in the status bar."""
        ...

    def add_close_guard(self, guard: Callable[[], bool]) -> None:
        """Ask ``guard()`` before the window closes; returning False keeps the window open."""
        ...


Installer = Callable[[PanelContext], object]
"""A panel: builds its widgets into the context and returns what it built (its dock, say). The
window keeps none of it: in the window a panel is found by its dock's and actions' object names;
a test that installs a panel into a context of its own may drive what ``install`` returns."""
