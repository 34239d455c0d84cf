"""The chat panel: editable messages, the rendered chat as tokens by source, counts and injection warnings."""

from __future__ import annotations

from PySide6.QtGui import QAction

from tests.core.chat_templates import build_folder, sample_chat
from tokviz.core.chat import chat_lens
from tokviz.core.formats.registry import load_tokenizer
from tokviz.gui.panels.chat import TEMPLATE_FILL, ChatPanel
from tokviz.gui.style.theme import token_colors

from .reach import docked


def rendered(qtbot, panel: ChatPanel) -> None:
    """Wait until the panel has rendered its current messages."""
    panel.debouncer.trigger()
    qtbot.waitUntil(
        lambda: panel.is_idle() and (panel.lens is not None or panel.error is not None), timeout=20000
    )


def make_panel(qtbot) -> ChatPanel:
    panel = ChatPanel()
    qtbot.addWidget(panel)
    panel.set_colors(token_colors(False))
    panel.resize(900, 400)
    panel.show()
    return panel


def test_a_tokenizer_without_a_template_gets_the_bundled_chatml(qtbot, gpt2):
    panel = make_panel(qtbot)
    panel.set_messages([{"role": "user", "content": "Hello there"}])
    panel.set_tokenizer(gpt2, None)
    rendered(qtbot, panel)

    assert panel.lens is not None and panel.lens.template.source == "chatml.jinja"
    assert panel.lens.rendered == "<|im_start|>user\nHello there<|im_end|>\n"
    assert "tokens</b>" in panel.summary.text() and "1. user:" in panel.summary.text()
    assert TEMPLATE_FILL[0][0] in panel.rendered.toHtml()
    assert "across a boundary" in panel.legend.text()
    assert "im_start" in panel.template_text.toPlainText()


def test_editing_adding_and_removing_messages_renders_again(qtbot, gpt2):
    panel = make_panel(qtbot)
    panel.set_messages([{"role": "user", "content": "Hi"}])
    panel.set_tokenizer(gpt2, None)
    rendered(qtbot, panel)
    first_total = panel.lens.total

    panel.add_message(text="A longer answer than the question")
    rendered(qtbot, panel)
    assert [m.role for m in panel.lens.messages] == ["user", "assistant"]
    assert panel.lens.total > first_total

    panel.table.item(0, 1).setText("Hi <|endoftext|>")
    rendered(qtbot, panel)
    assert panel.lens.injections and panel.lens.injections[0].token_id == 50256
    assert "⚠" in panel.summary.text() and "#c62828" in panel.rendered.toHtml().lower()

    panel.table.setCurrentCell(1, 1)
    panel.remove_message()
    rendered(qtbot, panel)
    assert len(panel.lens.messages) == 1


def test_a_template_that_refuses_the_chat_says_why(qtbot, tmp_path):
    folder = build_folder(tmp_path / "mistral", "mistral")
    panel = make_panel(qtbot)
    panel.set_messages(sample_chat("chatml"))  # opens with a system message, which Mistral refuses
    panel.set_tokenizer(load_tokenizer(folder), str(folder / "tokenizer.json"))
    rendered(qtbot, panel)

    assert panel.lens is None and "Conversation roles must alternate" in panel.summary.text()


def test_the_dock_follows_the_first_view_and_uses_its_folder_s_template(qtbot, make_window, tmp_path):
    folder = build_folder(tmp_path / "chatml", "chatml")
    window = make_window(size=(1024, 768))
    qtbot.waitUntil(window.is_ready, timeout=20000)
    panel = docked(window, "chatDock", ChatPanel)
    window.findChild(QAction, "actionChatDock").trigger()
    rendered(qtbot, panel)
    assert panel.lens.template.source == "chatml.jinja"  # GPT-2 ships no template

    with qtbot.waitSignal(panel.updated, timeout=20000):
        window.files.open_tokenizer_file(str(folder / "tokenizer.json"), window.panels[0])
    qtbot.waitUntil(
        lambda: panel.lens is not None and panel.lens.template.source == "tokenizer_config.json",
        timeout=20000,
    )

    expected = chat_lens(folder, panel.messages())
    assert panel.lens.ids == expected.ids
    assert panel.lens.injections  # the sample's last message types <|im_end|>
    assert "types &lt;|im_end|&gt;: it becomes special token" in panel.summary.text()
    assert "the tokenizers library matches added tokens" in panel.summary.toolTip()
