"""Two tokenizers of one name (a folder ``multilingual/`` and a file ``multilingual.tiktoken``)
get distinct names in every picker, view and the status bar, with the full path in the tooltip."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tokviz.core.formats import export_gpt2, export_tiktoken
from tokviz.core.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A vocab.json + merges.txt folder ``multilingual`` and a rank file ``multilingual.tiktoken``."""
    root = tmp_path_factory.mktemp("whisper")
    tok = train_bpe(text="the cat in the hat sat on the mat " * 20, vocab_size=270).tokenizer("custom")
    folder = root / "multilingual"
    export_gpt2(tok, folder)
    return folder, export_tiktoken(tok, root / "multilingual.tiktoken")


def _open(qtbot, registry: TokenizerRegistryModel, path: Path) -> str:
    job = registry.open_file(path)
    qtbot.waitUntil(lambda: job.property("key") is not None, timeout=20000)
    return str(job.property("key"))


def test_a_folder_and_a_file_of_one_name_are_told_apart(qtbot, twins: tuple[Path, Path]) -> None:
    folder, rank_file = twins
    registry = TokenizerRegistryModel(builtins=["gpt2"])
    folder_key = _open(qtbot, registry, folder)
    assert registry.label(folder_key) == "multilingual"

    file_key = _open(qtbot, registry, rank_file)

    assert registry.label(folder_key) == "multilingual"
    assert registry.label(file_key) == "multilingual.tiktoken"
    shown = [registry.index(r).data() for r in range(registry.rowCount())]
    assert shown == ["GPT-2", "multilingual", "multilingual.tiktoken", "Open tokenizer…"]
    tip = registry.index(registry.row_of(file_key)).data(Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines()[0] == str(rank_file.resolve())


def test_the_views_and_the_status_bar_use_the_distinct_names(
    qtbot, make_window, twins: tuple[Path, Path]
) -> None:
    folder, rank_file = twins
    window = make_window(text="the cat sat")
    first = _open(qtbot, window.tokenizers, folder)
    second = _open(qtbot, window.tokenizers, rank_file)
    window.panels[0].select_tokenizer(first)
    window.panels[1].select_tokenizer(second)
    qtbot.waitUntil(window.is_ready, timeout=20000)

    assert [p.picker.currentText() for p in window.panels[:2]] == ["multilingual", "multilingual.tiktoken"]
    status = window.status_label.text()
    assert "multilingual: " in status and "multilingual.tiktoken: " in status
