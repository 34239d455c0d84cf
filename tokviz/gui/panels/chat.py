"""The chat panel: what a conversation costs under the reference view's tokenizer once its chat template wraps it.

The messages are rows to edit (role and text); the panel renders them with the tokenizer folder's
chat template (tokviz's bundled ChatML when the tokenizer ships none) in a worker, and shows the
rendered chat as tokens: the template's own in grey, each message's in its colour, tokens across a
boundary in orange, and message text the tokenizer reads as a special token in red, with a
warning. The counts per message, for the template and in total sit above; the template's text
is on its own tab.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.gui.context import PanelContext
from tokviz.gui.style.theme import TokenColors
from tokviz.gui.workers.debounce import Debouncer
from tokviz.gui.workers.latest import LatestJob

if TYPE_CHECKING:
    from tokviz.core.chat import ChatLens

ROLES = ("system", "user", "assistant", "tool")
# Two shades each (light theme, dark theme), alternating so that neighbouring tokens stay apart.
TEMPLATE_FILL = (("#e6e6e6", "#d2d2d2"), ("#3a3a3a", "#4a4a4a"))
STRADDLE_FILL = ("#ffcc80", "#8a5a00")
INJECTION_FILL = "#c62828"


def chat_lens_for(
    tokenizer: Tokenizer, source: str | None, messages: Sequence[dict[str, Any]], generation_prompt: bool
) -> ChatLens:
    """The lens of ``messages``: the template of the folder ``source`` names, else the bundled ChatML."""
    from tokviz.core.chat import ChatTemplateError, find_chat_template, lens_of_rendered, sample_template

    template = None
    if source is not None:
        try:
            template = find_chat_template(source)
        except ChatTemplateError:
            template = None
    if template is None:
        template = sample_template()
    return lens_of_rendered(tokenizer, template, messages, add_generation_prompt=generation_prompt)


def _shown(text: str) -> str:
    """A token's text for the rich-text view: escaped, a newline as ↵ and a line break."""
    return html.escape(text).replace("\n", "↵<br>")


def chat_html(lens: ChatLens, colors: TokenColors) -> str:
    """The rendered chat as coloured token spans (rich text for a QTextBrowser)."""
    dark = 1 if colors.dark else 0
    fills = colors.fills
    injected = {(i.message, i.token_id) for i in lens.injections if i.parsed}
    parts = [f"<div style='white-space:pre-wrap; color:{colors.text.name()}'>"]
    for k, token in enumerate(lens.tokens):
        style = ""
        if token.straddles:
            style = f"background:{STRADDLE_FILL[dark]}"
        elif token.message is None:
            style = f"background:{TEMPLATE_FILL[dark][k % 2]}; color:{colors.muted.name()}"
        elif token.special and (token.message, token.id) in injected:
            style = f"background:{INJECTION_FILL}; color:white; font-weight:bold"
        else:
            # Two shades per message, alternating, so neighbouring tokens stay apart.
            fill = fills[(2 * token.message + k % 2) % len(fills)] if fills else colors.base
            style = f"background:{fill.name()}"
        if token.special and token.message is None:
            style += "; font-weight:bold"
        title = html.escape(f"id {token.id} · {token.source}", quote=True)
        parts.append(f"<span style='{style}' title='{title}'>{_shown(token.text)}</span>")
    parts.append("</div>")
    return "".join(parts)


def legend_html(colors: TokenColors) -> str:
    """What the colours of the rendered chat mean."""
    dark = 1 if colors.dark else 0
    fill = colors.fills[0].name() if colors.fills else colors.base.name()

    def chip(background: str, text: str, foreground: str = "") -> str:
        color = f"; color:{foreground}" if foreground else ""
        return f"<span style='background:{background}{color}'>&nbsp;{text}&nbsp;</span>"

    return " ".join(
        (
            chip(TEMPLATE_FILL[dark][0], "template", colors.muted.name()),
            chip(fill, "a message's text"),
            chip(STRADDLE_FILL[dark], "across a boundary"),
            chip(INJECTION_FILL, "special token typed in a message", "white"),
            "&nbsp;↵ newline",
        )
    )


def summary_html(lens: ChatLens) -> str:
    """The headline: the total and the template's share, the counts per message, and any warning."""
    share = f"{lens.template_tokens:,} from the template"
    if lens.straddling_tokens:
        share += f", {lens.straddling_tokens:,} across a boundary"
    lines = [
        f"<b>{lens.total:,} tokens</b> &nbsp;({share}) &nbsp;·&nbsp; {html.escape(lens.tokenizer)}, "
        f"template {html.escape(lens.template.name)!s} ({html.escape(lens.template.source)})",
        " &nbsp;·&nbsp; ".join(f"{m.index + 1}. {html.escape(m.role)}: {m.tokens:,}" for m in lens.messages),
    ]
    for i in lens.injections:
        what = f"becomes special token {i.token_id}" if i.parsed else "stays text"
        lines.append(
            f"<span style='color:{INJECTION_FILL}'>⚠ message {i.message + 1} ({html.escape(i.role)}) types "
            f"{html.escape(i.text)}: it {what}</span>"
        )
    if lens.ids_as_text is not None:
        lines[-1] += f" &nbsp;(read as text, the chat is {len(lens.ids_as_text):,} tokens)"
    lines += [html.escape(note) for note in lens.notes]
    return "<br>".join(lines)


class ChatPanel(QWidget):
    """Messages to edit, the rendered chat as tokens, counts and warnings; ``updated`` fires after each render."""

    updated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPanel")
        self.lens: ChatLens | None = None
        self.error: str | None = None
        self._colors: TokenColors | None = None
        # One render at a time; a newer request replaces a waiting one, and a stale result is dropped.
        self.jobs = LatestJob(self)
        self.jobs.idle.connect(self.updated)
        self._tokenizer: tuple[Tokenizer, str | None] | None = None
        self.debouncer = Debouncer(150, self)
        self.debouncer.triggered.connect(self.refresh)

        self.table = QTableWidget(0, 2, self)
        self.table.setObjectName("chatMessages")
        self.table.setHorizontalHeaderLabels(["role", "text"])
        self.table.verticalHeader().hide()
        self.table.setTabKeyNavigation(False)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemChanged.connect(self.debouncer.trigger)
        self.add_button = QPushButton("&Add message", self)
        self.add_button.setObjectName("chatAddMessage")
        self.add_button.clicked.connect(lambda: self.add_message())
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setObjectName("chatRemoveMessage")
        self.remove_button.clicked.connect(self.remove_message)
        self.generation_prompt = QCheckBox("Generation prompt", self)
        self.generation_prompt.setObjectName("chatGenerationPrompt")
        self.generation_prompt.setToolTip("End with the assistant's opening (add_generation_prompt=True)")
        self.generation_prompt.toggled.connect(self.debouncer.trigger)
        buttons = QHBoxLayout()
        for widget in (self.add_button, self.remove_button, self.generation_prompt):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addWidget(self.table, 1)
        left_layout.addLayout(buttons)

        self.summary = QLabel(self)
        self.summary.setObjectName("chatSummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        self.rendered = QTextBrowser(self)
        self.rendered.setObjectName("chatRendered")
        self.template_text = QPlainTextEdit(self)
        self.template_text.setObjectName("chatTemplate")
        self.template_text.setReadOnly(True)
        self.tabs = QTabWidget(self)
        self.tabs.addTab(self.rendered, "Rendered chat")
        self.tabs.addTab(self.template_text, "Template")
        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.tabs, 1)
        self.legend = QLabel(self)
        self.legend.setObjectName("chatLegend")
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)
        right_layout.addWidget(self.legend)

        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addWidget(splitter, 1)
        self.summary.setText("Pick a tokenizer in the first view; its chat template wraps these messages.")

    # ------------------------------------------------------------------ messages
    def messages(self) -> list[dict[str, str]]:
        """The rows as messages (a row without a role counts as a user's)."""
        out: list[dict[str, str]] = []
        for row in range(self.table.rowCount()):
            role, text = self.table.item(row, 0), self.table.item(row, 1)
            out.append(
                {
                    "role": (role.text().strip() if role else "") or "user",
                    "content": text.text() if text else "",
                }
            )
        return out

    def set_messages(self, messages: Sequence[dict[str, Any]]) -> None:
        """Replace the rows (a render follows)."""
        self.table.blockSignals(True)
        self.table.setRowCount(0)
        for message in messages:
            self._append(str(message.get("role", "user")), str(message.get("content", "")))
        self.table.blockSignals(False)
        self.debouncer.trigger()

    def _append(self, role: str, text: str) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(role))
        self.table.setItem(row, 1, QTableWidgetItem(text))

    def add_message(self, role: str | None = None, text: str = "") -> None:
        """A new row: the role that answers the last one unless given."""
        if role is None:
            last = self.messages()[-1]["role"] if self.table.rowCount() else "assistant"
            role = "assistant" if last == "user" else "user"
        self.table.blockSignals(True)
        self._append(role, text)
        self.table.blockSignals(False)
        self.table.setCurrentCell(self.table.rowCount() - 1, 1)
        self.debouncer.trigger()

    def remove_message(self) -> None:
        """Remove the current row (the last when none is current)."""
        row = self.table.currentRow()
        if row < 0:
            row = self.table.rowCount() - 1
        if row >= 0:
            self.table.removeRow(row)
            self.debouncer.trigger()

    # ------------------------------------------------------------------ rendering
    def set_tokenizer(self, tokenizer: Tokenizer, source: str | None) -> None:
        """The tokenizer to count with, and the file or folder it came from (where its template is)."""
        self._tokenizer = (tokenizer, source)
        self.debouncer.trigger()

    def set_colors(self, colors: TokenColors) -> None:
        self._colors = colors
        self.legend.setText(legend_html(colors))
        if self.lens is not None:
            self.rendered.setHtml(chat_html(self.lens, colors))

    def refresh(self) -> None:
        """Render the current messages in the background (queued behind a running render)."""
        if self._tokenizer is None:
            return
        tokenizer, source = self._tokenizer
        messages, generation_prompt = self.messages(), self.generation_prompt.isChecked()
        self.jobs.submit(
            lambda: chat_lens_for(tokenizer, source, messages, generation_prompt),
            self.show_lens,
            self.show_error,
        )

    def is_idle(self) -> bool:
        """True when no render is running, queued or waiting for a pause in typing."""
        return not self.jobs.busy and not self.debouncer.is_pending()

    def show_lens(self, lens: ChatLens) -> None:
        self.lens, self.error = lens, None
        self.summary.setText(summary_html(lens))
        self.summary.setToolTip("\n".join(lens.injection_lines()))
        if self._colors is not None:
            self.rendered.setHtml(chat_html(lens, self._colors))
        if self.template_text.toPlainText() != lens.template.text:
            self.template_text.setPlainText(lens.template.text)

    def show_error(self, exc: BaseException) -> None:
        self.lens, self.error = None, str(exc) or type(exc).__name__
        self.summary.setText(f"<span style='color:{INJECTION_FILL}'>✗ {html.escape(self.error)}</span>")
        self.rendered.clear()


def install(context: PanelContext) -> ChatPanel:
    """Add the chat dock (hidden at first); it follows the first view's tokenizer while visible."""
    from tokviz.core.chat import SAMPLE_MESSAGES

    panel = ChatPanel(context.parent_widget())
    panel.set_messages([dict(m) for m in SAMPLE_MESSAGES])
    dock: QDockWidget = context.add_dock(
        panel,
        "Chat template: what a chat costs",
        "chatDock",
        shortcut="Ctrl+Shift+Y",
        action_text="&Chat template",
    )
    panel.set_colors(context.colors())
    context.colorsChanged.connect(panel.set_colors)
    registry = context.tokenizers

    def follow_reference(*_args: object) -> None:
        if not dock.isVisible():
            return
        key = context.first_view_key()
        entry = registry.entry(key)
        if entry is None:
            return
        if entry.tokenizer is None:
            registry.ensure_loaded(key)
            return
        # A rendered chat is tokenized with special tokens read as special, whatever the views do.
        panel.set_tokenizer(entry.tokenizer, entry.source)

    def on_loaded(key: str) -> None:
        if key == context.first_view_key():
            follow_reference()

    context.referenceViewChanged.connect(follow_reference)
    registry.tokenizerLoaded.connect(on_loaded)
    dock.visibilityChanged.connect(follow_reference)
    return panel


__all__ = ["ChatPanel", "chat_html", "chat_lens_for", "install", "legend_html", "summary_html"]
