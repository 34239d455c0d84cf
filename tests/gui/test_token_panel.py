"""A view whose tokenizer is still loading says so in its header ("loading cl100k…"), readable,
not squeezed to nothing by the counts beside it."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.widgets.token_panel import TokenPanel


def test_a_loading_view_says_what_it_loads(qtbot: QtBot) -> None:
    registry = TokenizerRegistryModel(builtins=["gpt2", "cl100k"])
    panel = TokenPanel(registry, "cl100k", 1)
    qtbot.addWidget(panel)
    panel.resize(420, 300)
    panel.show()  # the load runs in a worker: its result cannot arrive before the event loop turns

    assert panel.model.tokenizer is None
    assert panel.busy.isVisible() and panel.busy.text() == "loading cl100k…"
    assert not panel.busy.is_elided(), panel.busy.width()
    qtbot.waitUntil(lambda: panel.model.tokenizer is not None, timeout=20000)
    panel.model.set_text("hello world")
    qtbot.waitUntil(lambda: not panel.model.busy, timeout=20000)
    assert not panel.busy.isVisible()
