"""The Qt models: the tokenizer list every picker shares, and the vocabulary table."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tokviz.core.formats import export_gpt2, export_tiktoken
from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import OPEN_KEY, IsActionRole, KeyRole, TokenizerRegistryModel
from tokviz.gui.models.vocabulary import BYTES, ID, LENGTH, PARENTS, RANK, TOKEN, VocabModel, overlap
from tokviz.gui.panels.vocabulary import VocabBrowser


def test_registry_lists_builtins_then_open_tokenizer(qtmodeltester):
    model = TokenizerRegistryModel()
    qtmodeltester.check(model)
    labels = [model.index(r).data() for r in range(model.rowCount())]
    assert labels == ["bytes", "GPT-2", "cl100k", "o200k", "characters", "words", "Open tokenizer…"]
    last = model.index(model.rowCount() - 1)
    assert last.data(KeyRole) == OPEN_KEY and last.data(IsActionRole)


def test_added_tokenizer_is_announced_and_listed(qtbot, qtmodeltester, tiny_bpe):
    model = TokenizerRegistryModel()
    with qtbot.waitSignals([model.tokenizersChanged, model.tokenizerLoaded]):
        key = model.add_tokenizer("trained", tiny_bpe, counts={256: 40})
    qtmodeltester.check(model)
    assert model.tokenizer(key) is tiny_bpe
    assert model.index(model.row_of(key)).data() == "trained"


def test_builtins_load_in_the_background(qtbot, gpt2):
    model = TokenizerRegistryModel()
    with qtbot.waitSignal(model.tokenizerLoaded, timeout=20000) as blocker:
        model.ensure_loaded("gpt2")
    assert blocker.args == ["gpt2"]
    assert model.tokenizer("gpt2") is gpt2
    with qtbot.waitSignal(model.mergesReady, timeout=30000):
        model.prepare_merges("gpt2")
    assert model.merges_ready("gpt2")


@pytest.mark.slow
def test_vocab_model_passes_the_model_tester_and_shows_visible_bytes(qtmodeltester, tiny_bpe, gpt2):
    # The tester walks every row: a small vocabulary with a special token takes the same paths
    # as GPT-2's 50,257 rows, which are then read where they matter.
    small = VocabModel()
    small.set_tokenizer(tiny_bpe, merges_ready=False)
    qtmodeltester.check(small)
    model = VocabModel()
    model.set_tokenizer(gpt2, merges_ready=False)
    assert model.rowCount() == gpt2.vocab_size
    row = model.row_of_id(262)
    assert model.index(row, TOKEN).data() == "·the"
    assert model.index(row, BYTES).data() == "20 74 68 65"
    assert model.index(row, LENGTH).data() == "4"
    assert model.index(row, RANK).data() == "…"
    special = model.row_of_id(50256)
    assert model.index(special, TOKEN).data() == "<|endoftext|>"
    assert model.index(special, RANK).data() == "special"


def test_vocab_model_shows_merge_rank_and_parents_when_ready(qtmodeltester, tiny_bpe):
    model = VocabModel()
    model.set_tokenizer(tiny_bpe, counts={256: 99}, merges_ready=True)
    qtmodeltester.check(model)
    row = model.row_of_id(256)
    assert model.index(row, RANK).data() == "1"  # merge 0 is step 1, as the timeline numbers it
    left, right = tiny_bpe.merges[0]
    assert (left, right) == (b"a", b"t")  # the corpus's most frequent pair
    assert model.index(row, PARENTS).data().startswith("a") and "+" in model.index(row, PARENTS).data()
    assert model.index(row, PARENTS).data() == "a + t"
    assert model.index(row, TOKEN).data() == "at"
    assert tiny_bpe.vocab[256] == left + right


@pytest.mark.slow
def test_vocab_filter_sort_and_regex(qtmodeltester, gpt2):
    model = VocabModel()
    model.set_tokenizer(gpt2)
    model.set_filter("ello")
    assert model.rowCount() > 3
    assert all("ello" in gpt2.decode([model.token_id(r)]) for r in range(model.rowCount()))
    model.set_filter(r"^\d{3}$", use_regex=True)
    assert model.rowCount() > 100
    model.sort(ID, Qt.SortOrder.DescendingOrder)
    assert model.token_id(0) > model.token_id(model.rowCount() - 1)
    model.set_filter("(", use_regex=True)
    assert model.rowCount() == 0 and "invalid regex" in model.filter_error
    model.set_filter("")
    model.sort(LENGTH, Qt.SortOrder.DescendingOrder)
    assert len(gpt2.vocab[model.token_id(0)]) == max(len(b) for b in gpt2.vocab.values())
    # Last, as the tester then checks every later change too: sorted and filtered.
    model.set_filter("ello")
    qtmodeltester.check(model)


def test_overlap_of_gpt2_and_cl100k(gpt2, cl100k):
    both, only_a, only_b = overlap(gpt2, cl100k)
    assert len(both) + len(only_a) == gpt2.vocab_size
    assert len(both) + len(only_b) == cl100k.vocab_size
    # The identities above hold for any split; these are the vocabularies' real sizes and overlap.
    assert (gpt2.vocab_size, cl100k.vocab_size) == (50_257, 100_261)
    assert (len(both), len(only_a), len(only_b)) == (43_067, 7_190, 57_194)
    assert 262 in both  # " the" is in both vocabularies


def test_vocab_browser_lists_overlap_with_counts(qtbot, gpt2, cl100k):
    registry = TokenizerRegistryModel()
    registry.load_builtin_now("gpt2")
    registry.load_builtin_now("cl100k")
    browser = VocabBrowser(registry)
    qtbot.addWidget(browser)
    browser.show_tokenizer("gpt2", "cl100k")
    both, only_a, only_b = overlap(gpt2, cl100k)
    assert f"In both ({len(both):,})" in [browser.overlap_mode.itemText(i) for i in range(4)]
    browser.overlap_mode.setCurrentIndex(3)
    assert browser.model.rowCount() == len(only_b)
    assert browser.model.tokenizer is cl100k
    browser.overlap_mode.setCurrentIndex(1)
    assert browser.model.rowCount() == len(both)
    browser.jump_to_id(262)
    assert browser.model.token_id(browser.table.currentIndex().row()) == 262


# ----------------------------------------------------------------
# Two tokenizers of one name (a folder ``multilingual/`` and a file ``multilingual.tiktoken``)
# get distinct names in every picker, view and the status bar, with the full path in the tooltip.


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
