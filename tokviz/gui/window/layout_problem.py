"""One thing a window shows cut off, where it is, and the rule for text elided with "…".

Shared by the layout checks of widgets, tables and plots (:mod:`tokviz.gui.window.layout_inspect`).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QWidget

SLACK = 1.0
"""Pixels a text may overhang its rectangle (rounding between font metrics and the painter)."""
ELLIPSIS = "…"
NUMBER_BEFORE_CUT = re.compile(r"\d[\d.,:]*$")
NUMBER_AFTER_CUT = re.compile(r"[\d.,:]*\d")
DIGIT = re.compile(r"\d")
DIGIT_AT_ELLIPSIS = re.compile(r"\d[.,:]?…|…[.,:]?\d")


@dataclass(frozen=True)
class LayoutProblem:
    """One thing shown cut off: its kind, where (the widget's named ancestors), the text, and the
    width (or height) it needs against the one it has, in pixels."""

    kind: str
    where: str
    text: str
    needs: float
    has: float

    def to_json(self) -> dict[str, object]:
        """The problem as a JSON object."""
        return {**asdict(self), "needs": round(self.needs, 1), "has": round(self.has, 1)}


def widget_path(widget: QWidget, depth: int = 3) -> str:
    """The widget's object name after up to ``depth`` named ancestors ("trainDock/trainForm/QComboBox");
    a name its siblings share gets its place among them ("tokenPanel[1]": the second view)."""
    names: list[str] = []
    current: QWidget | None = widget
    while current is not None and len(names) <= depth:
        name = current.objectName()
        if name and not name.startswith("qt_"):
            names.append(name + _place_among_namesakes(current))
        elif current is widget:
            names.append(type(widget).__name__)
        current = current.parentWidget()
    return "/".join(reversed(names))


def _place_among_namesakes(widget: QWidget) -> str:
    parent = widget.parentWidget()
    if parent is None:
        return ""
    name = widget.objectName()
    namesakes = list(parent.findChildren(QWidget, name, Qt.FindChildOption.FindDirectChildrenOnly))
    if len(namesakes) < 2:
        return ""
    namesakes.sort(key=lambda w: (w.x(), w.y()))
    return f"[{namesakes.index(widget)}]"


def cuts_a_number(text: str, shown: str) -> bool:
    """Whether ``shown``, ``text`` elided with "…", shows part of a number ("3.…" of "3.60"): a
    number may be hidden by the "…" whole, never in part."""
    if shown == text or ELLIPSIS not in shown:
        return False
    kept = len(shown) - 1
    if shown.endswith(ELLIPSIS) and text.startswith(shown[:kept]):
        before, after = text[:kept], text[kept:]
        return bool(NUMBER_BEFORE_CUT.search(before) and NUMBER_AFTER_CUT.match(after))
    return bool(DIGIT_AT_ELLIPSIS.search(shown))


def fits_or_elides(
    where: str, text: str, metrics: QFontMetrics, needs: float, has: float, mode: Qt.TextElideMode
) -> list[LayoutProblem]:
    """No problem when the text fits, or when it is elided with "…" and keeps its numbers."""
    if needs <= has + SLACK:
        return []
    if mode != Qt.TextElideMode.ElideNone:
        room = int(has - (needs - metrics.horizontalAdvance(text)))
        if not cuts_a_number(text, metrics.elidedText(text, mode, max(room, 0))):
            return []
        return [LayoutProblem("number elided", where, text, needs, has)]
    return [LayoutProblem("clipped", where, text, needs, has)]
