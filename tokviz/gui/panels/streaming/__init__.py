"""Streaming decode, one id at a time: the text so far, the bytes held back, and what a naive decoder prints.

Generation emits ids one by one, and a byte-level vocabulary can split one character over several
ids (GPT-2 spends three on 🌍). :class:`~tokviz.core.bpe.stream.StreamingDecoder` prints only whole
characters and holds back an unfinished tail; decoding each id on its own instead prints
replacement characters, or raises with ``errors="strict"``. This panel steps through an id
sequence (the editor's text encoded, or ids typed in) and shows both side by side.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget

from tokviz.gui.context import PanelContext
from tokviz.gui.panels.docking import follow_editor_text, follow_window_style
from tokviz.gui.panels.streaming.chips import TokenChips
from tokviz.gui.panels.streaming.trace import StreamStep, StreamTrace, describe_pending, parse_ids
from tokviz.gui.panels.streaming.view import LECTURE_EXAMPLE, StreamDecodeView


def install(context: PanelContext) -> QDockWidget:
    """Add the streaming-decode dock (hidden at first; View menu and Ctrl+Shift+D toggle it).

    It follows the editor's text while visible, the window's colours and font size; its lecture
    button loads ``Hello, 🌍! 你好!`` into the editor and picks GPT-2.
    """
    view = StreamDecodeView(context.tokenizers, context.parent_widget())
    dock = context.add_dock(
        view, "Streaming decode", "streamDock", shortcut="Ctrl+Shift+D", action_text="&Streaming decode"
    )
    push_text = follow_editor_text(context, dock, view.set_text)

    def lecture_example() -> None:
        view.follow.setChecked(True)
        view.key = "gpt2"
        view.picker.show_key("gpt2")
        context.set_text(LECTURE_EXAMPLE)
        push_text()

    view.example_button.clicked.connect(lecture_example)
    view.openTokenizerRequested.connect(context.open_tokenizer_dialog)
    follow_window_style(context, view)
    return dock


__all__ = [
    "LECTURE_EXAMPLE",
    "StreamDecodeView",
    "StreamStep",
    "StreamTrace",
    "TokenChips",
    "describe_pending",
    "install",
    "parse_ids",
]
