"""The round-trip contract, live: ``decode(encode(s)) == s`` for the editor's text under every view's tokenizer.

A lossless tokenizer hands back exactly the bytes it was given, however it cut them; the panel shows
the check with the byte counts on both sides. A last column shows why decoding must join the bytes
first: decoding each id on its own and joining the strings breaks wherever a character is split
across ids (the emoji in ``Hello, 🌍! 你好!`` under GPT-2).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QDockWidget,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.bpe.stream import naive_decode_each
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.context import PanelContext
from tokviz.gui.drawing.images import VECTOR_PROPERTY
from tokviz.gui.panels.docking import refresh_while_visible
from tokviz.gui.widgets.fitted_columns import FittingDelegate
from tokviz.gui.workers.latest import LatestJob

COLUMNS = (
    "View",
    "Tokenizer",
    "characters",
    "bytes in",
    "tokens",
    "bytes out",
    "round trip",
    "id by id",
)
# The short titles of the last two columns read whole in a 1024-pixel window; these say them in full.
COLUMN_TIPS = {
    6: "decode(encode(s)) == s: the ids decoded together give the text back",
    7: "joined per-id decodes == s: each id decoded on its own, the strings joined",
}
YES, NO = "✓ true", "✗ false"


@dataclass(frozen=True)
class RoundTrip:
    """The contract checked for one text and tokenizer, with the numbers behind it."""

    name: str
    characters: int
    bytes_in: int
    tokens: int
    bytes_out: int
    holds: bool
    per_id_holds: bool
    split_ids: int  # ids whose bytes are not whole characters
    first_difference: int | None  # code point where decode(encode(s)) first differs from s
    error: str | None = None


def check_round_trip(tokenizer: Tokenizer, text: str, ids: Sequence[int] | None = None) -> RoundTrip:
    """Encode ``text`` (or take its ``ids``), decode, and compare; never raises for a text the editor can hold."""
    name = tokenizer.name
    data = text.encode("utf-8", errors="surrogatepass")
    try:
        ids = list(tokenizer.encode(text) if ids is None else ids)
        out = tokenizer.decode_bytes(ids)
        decoded = tokenizer.decode(ids)
    except Exception as exc:  # noqa: BLE001 - shown in the panel instead of the numbers
        return RoundTrip(name, len(text), len(data), 0, 0, False, False, 0, 0, f"{type(exc).__name__}: {exc}")
    split = 0
    pieces: list[str] = []
    for i in ids:
        try:
            tokenizer.id_bytes(i).decode("utf-8")
        except UnicodeDecodeError:
            split += 1
        pieces.append(naive_decode_each(tokenizer, i))
    first = None
    if decoded != text:
        first = next(
            (k for k, (a, b) in enumerate(zip(decoded, text)) if a != b), min(len(decoded), len(text))
        )
    return RoundTrip(
        name, len(text), len(data), len(ids), len(out), decoded == text, "".join(pieces) == text, split, first
    )


class RoundTripPanel(QWidget):
    """One row per token view: the counts and whether the round trip holds; ``updated`` fires after each check."""

    updated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("roundTripPanel")
        self.setProperty(VECTOR_PROPERTY, True)
        self.results: list[RoundTrip] = []
        # One check at a time; a newer request replaces a waiting one, and a stale result is dropped.
        self.jobs = LatestJob(self)
        self.jobs.idle.connect(self.updated)
        self.summary = QLabel(self)
        self.summary.setObjectName("roundTripSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)  # the headline wraps rather than widening the dock
        big = QFont(self.font())
        big.setPointSizeF(max(big.pointSizeF(), 9.0) * 1.5)
        self.summary.setFont(big)
        self.table = QTableWidget(0, len(COLUMNS), self)
        self.table.setTabKeyNavigation(False)  # Tab moves on to the next control, as everywhere else
        self.table.setObjectName("roundTripTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        for col, tip in COLUMN_TIPS.items():
            title = self.table.horizontalHeaderItem(col)
            if title is not None:
                title.setToolTip(tip)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setItemDelegate(FittingDelegate(self.table))  # a count half scrolled off is never cut
        self.note = QLabel(
            "decode joins the ids' bytes and then reads UTF-8, so the text comes back whole. Decoding each id "
            "on its own and joining the strings fails wherever a character is split across ids.",
            self,
        )
        self.note.setObjectName("roundTripNote")
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.note)
        self.summary.setText("decode(encode(s)) == s")

    def check(self, text: str, rows: Sequence[tuple[str, Tokenizer, Sequence[int] | None]]) -> None:
        """Check ``text`` under each ``(label, tokenizer, ids or None)`` in the background; ``updated`` fires when done."""
        rows = list(rows)
        labels = [label for label, _tok, _ids in rows]

        def work() -> list[RoundTrip]:
            return [check_round_trip(tok, text, ids) for _label, tok, ids in rows]

        self.jobs.submit(work, lambda results: self.show_results(labels, results), self.show_error)

    def is_idle(self) -> bool:
        """True when no check is running or queued."""
        return not self.jobs.busy

    def show_results(self, labels: Sequence[str], results: Sequence[RoundTrip]) -> None:
        """Fill the table and the headline."""
        self.results = list(results)
        self.table.setRowCount(len(results))
        good, bad = QColor("#1b7f3b"), QColor("#c62828")
        for row, (label, r) in enumerate(zip(labels, results)):
            values = [
                label,
                r.name,
                f"{r.characters:,}",
                f"{r.bytes_in:,}",
                f"{r.tokens:,}",
                f"{r.bytes_out:,}",
                YES if r.holds else NO,
                (YES if r.per_id_holds else NO) + (f" ({r.split_ids} split ids)" if r.split_ids else ""),
            ]
            if r.error is not None:
                values[6] = f"✗ {r.error}"
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                if 2 <= col <= 5:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if col >= 6:
                    item.setForeground(good if value.startswith("✓") else bad)
                self.table.setItem(row, col, item)
        if not results:
            self.summary.setText("decode(encode(s)) == s")
            return
        failing = [label for label, r in zip(labels, results) if not r.holds]
        first = results[0]
        counts = f"{first.bytes_in:,} bytes in, {first.bytes_out:,} bytes out"
        if failing:
            self.summary.setText(
                f"decode(encode(s)) == s &nbsp;<span style='color:#c62828'><b>✗ false</b></span> for {', '.join(failing)}"
            )
        else:
            self.summary.setText(
                f"decode(encode(s)) == s &nbsp;<span style='color:#1b7f3b'><b>✓ true</b></span>"
                f" for every view &nbsp;·&nbsp; {counts}"
            )

    def show_error(self, exc: BaseException) -> None:
        """Say that the check itself failed (the table keeps the last results)."""
        what = html.escape(str(exc) or type(exc).__name__)
        self.summary.setText(
            f"decode(encode(s)) == s &nbsp;<span style='color:#c62828'>could not check: {what}</span>"
        )


def install(context: PanelContext) -> QDockWidget:
    """Add the round-trip dock (hidden at first); while visible it checks every view's tokens after each change."""
    panel = RoundTripPanel(context.parent_widget())
    dock = context.add_dock(
        panel,
        "Round trip: decode(encode(s)) == s",
        "roundTripDock",
        shortcut="Ctrl+Shift+J",
        action_text="Round &trip contract",
    )

    def refresh() -> None:
        if context.views_ready():
            rows = [(view.label, view.tokenizer, view.ids) for view in context.view_tokens()]
            panel.check(context.editor_text(), rows)

    refresh_while_visible(dock, context.textTokenized, refresh, 100)
    return dock


__all__ = ["RoundTrip", "RoundTripPanel", "check_round_trip", "install"]
