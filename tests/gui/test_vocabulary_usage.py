"""The vocabulary browser counts what a vocabulary uses on the editor's text or a folder, copies real
text, exports the listed tokens, and numbers merges as the timeline does."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDockWidget, QLabel

from tokviz.core.analysis.usage import undertrained_score
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import load_tokenizer
from tokviz.gui.models.merge_model import MergeTableModel
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.models.vocabulary import COUNT, RANK, TOKEN
from tokviz.gui.panels.vocabulary import VocabBrowser
from tokviz.gui.panels.vocabulary import table as vocabulary_table
from tokviz.gui.panels.vocabulary.usage import LengthHistogram, editor_usage
from tokviz.gui.text.display import details_html, token_details
from tokviz.gui.widgets import file_dialogs

TEXT = "the cat in the hat sat on the mat. the cat sat."


def make_browser(qtbot, tokenizer: Tokenizer, text: str = TEXT) -> tuple[VocabBrowser, str]:
    registry = TokenizerRegistryModel()
    key = registry.add_tokenizer("tiny", tokenizer)
    browser = VocabBrowser(registry, editor_text=lambda: text)
    qtbot.addWidget(browser)
    browser.show()
    browser.show_tokenizer(key)
    qtbot.waitUntil(lambda: browser.usage.result is not None, timeout=10000)
    return browser, key


def test_headline_count_column_and_used_filter_follow_the_editor_text(qtbot, tiny_bpe):
    browser, _ = make_browser(qtbot, tiny_bpe)
    model = browser.model

    ids = Counter(tiny_bpe.encode_ordinary(TEXT))
    size = tiny_bpe.vocab_size  # special tokens count in the vocabulary, as in tokviz eval
    assert (
        f"of the vocabulary used</b> on the editor's text ({len(ids):,} of {size:,})"
        in browser.headline.text()
    )
    the = tiny_bpe.encode_ordinary(" the")[0]
    assert model.index(model.row_of_id(the), COUNT).data() == f"{ids[the]:,}"
    histogram = browser.histogram
    assert histogram.buckets[0][:3] == ("1", 256, len({i for i in ids if i < 256}))
    assert not histogram.grab().isNull()  # it draws

    browser.usage_mode.setCurrentIndex(1)  # used on this text
    assert {model.token_id(r) for r in range(model.rowCount())} == set(ids)
    assert browser.usage_mode.currentText() == f"Used on this text ({len(ids):,})"
    browser.usage_mode.setCurrentIndex(2)  # never used
    assert model.rowCount() == size - len(ids)
    browser.usage_mode.setCurrentIndex(3)  # suspicious: long and rare
    for r in range(model.rowCount()):
        data = tiny_bpe.vocab[model.token_id(r)]
        assert undertrained_score(len(data), ids[model.token_id(r)]) >= 8

    model.sort(COUNT, Qt.SortOrder.DescendingOrder)
    browser.usage_mode.setCurrentIndex(0)
    assert model.token_id(0) == ids.most_common(1)[0][0]


def test_editing_the_text_counts_again_after_a_pause(qtbot, tiny_bpe):
    text = ["the cat"]
    registry = TokenizerRegistryModel()
    key = registry.add_tokenizer("tiny", tiny_bpe)
    browser = VocabBrowser(registry, editor_text=lambda: text[0])
    qtbot.addWidget(browser)
    browser.show()
    browser.show_tokenizer(key)
    qtbot.waitUntil(lambda: browser.usage.result is not None, timeout=10000)
    before = browser.usage.result
    text[0] = TEXT + " def f(x): return x + 1"
    browser.text_edited()
    edited_bytes = len(text[0].encode("utf-8"))

    def counted_the_edit() -> bool:
        # Another count of the old text may arrive first (the merge tables becoming ready adds
        # the merges never applied to it): wait for the count of the edited text itself.
        result = browser.usage.result
        return result is not None and result is not before and result.usage.counted.bytes == edited_bytes

    qtbot.waitUntil(counted_the_edit, timeout=10000)
    assert browser.usage.result.usage.used == len(set(tiny_bpe.encode_ordinary(text[0])))


def test_a_folder_is_counted_and_binaries_are_left_out(qtbot, tiny_bpe, tmp_path: Path):
    (tmp_path / "a.txt").write_text(TEXT, encoding="utf-8")
    (tmp_path / "b.md").write_text("def f(x):\n    return x + 1\n", encoding="utf-8")
    (tmp_path / "c.pyc").write_bytes(bytes(range(256)))
    browser, _ = make_browser(qtbot, tiny_bpe)

    progress: list[tuple[int, int]] = []
    browser.usage.progressed.connect(lambda done, total: progress.append((done, total)))
    browser.count_folder(str(tmp_path))
    qtbot.waitUntil(lambda: browser.usage.result is not None, timeout=10000)
    result = browser.usage.result
    text_bytes = (tmp_path / "a.txt").stat().st_size + (tmp_path / "b.md").stat().st_size
    assert progress and progress[0][1] == text_bytes  # "Counting… 0.0 of 0.0 MB" while it runs
    assert result.where == f"folder {tmp_path.name} (2 files)"
    assert "binary" in (result.note or "")
    expected = set(tiny_bpe.encode_ordinary(TEXT)) | set(
        tiny_bpe.encode_ordinary("def f(x):\n    return x + 1\n")
    )
    assert result.usage.used == len(expected)
    assert browser.usage_source.currentText() == f"folder {tmp_path.name}"


def test_ctrl_c_copies_rows_with_real_spaces_as_tsv(qtbot, gpt2):
    browser, _ = make_browser(qtbot, gpt2)
    table = browser.table
    table.selectRow(browser.model.row_of_id(262))
    table.setFocus()
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)

    header, row = (line.split("\t") for line in QGuiApplication.clipboard().text().rstrip("\n").split("\n"))
    # A header line, and the columns in the order the table shows them (Count beside the token).
    assert header == ["Id", "Token", "Count", "Length", "Merge step", "Parents", "Bytes"]
    cells = dict(zip(header, row))
    assert [cells["Id"], cells["Token"], cells["Length"]] == ["262", " the", "4"]
    assert cells["Bytes"] == "20 74 68 65"
    assert (
        browser.model.index(browser.model.row_of_id(262), TOKEN).data() == "·the"
    )  # the table shows the glyph


def test_export_writes_the_listed_tokens_as_csv(
    qtbot, tiny_bpe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    browser, _ = make_browser(qtbot, tiny_bpe)
    browser.usage_mode.setCurrentIndex(1)
    out = tmp_path / "used.csv"
    monkeypatch.setattr(file_dialogs, "get_save_file_name", lambda *a, **k: (str(out), ""))
    with qtbot.waitSignal(browser.statusMessage) as said:
        browser.export_csv()

    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["Id", "Token", "Length", "Merge step", "Parents", "Bytes", "Count"]
    assert len(rows) - 1 == browser.model.rowCount() == len(set(tiny_bpe.encode_ordinary(TEXT)))
    assert " the" in [r[1] for r in rows]
    assert said.args == [f"Exported {browser.model.rowCount():,} tokens to used.csv"]
    assert vocabulary_table.write_filtered_csv(browser.model, out) == browser.model.rowCount()


class Editor:
    """The part of the panel context "Show in text" uses: the text and a selection in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.selection = (0, 0)

    def editor_text(self) -> str:
        return self.text

    def editor_selection(self) -> tuple[int, int]:
        return self.selection

    def show_in_editor(self, start: int, end: int) -> None:
        self.selection = (start, end)


def test_show_in_text_selects_the_next_occurrence(qtbot, tiny_bpe):
    browser, _ = make_browser(qtbot, tiny_bpe)
    editor = Editor(TEXT)
    the = tiny_bpe.encode_ordinary(" the")[0]

    assert browser.show_in_text(the, editor)
    first, end = editor.selection
    assert TEXT[first:end] == " the"
    assert browser.show_in_text(the, editor)
    assert editor.selection[0] > first
    with qtbot.waitSignal(browser.statusMessage):
        assert not browser.show_in_text(tiny_bpe.special_tokens["<|endoftext|>"], editor)


def test_the_overlap_list_offers_a_comparison_instead_of_sitting_disabled(qtbot, tiny_bpe, monkeypatch):
    browser, _ = make_browser(qtbot, tiny_bpe)
    opened = []
    monkeypatch.setattr(browser.compare, "showPopup", lambda: opened.append(True))
    assert browser.overlap_mode.isEnabled()
    assert browser.overlap_mode.itemText(1) == "Compare with another vocabulary…"
    browser.overlap_mode.setCurrentIndex(1)
    assert browser.overlap_mode.currentIndex() == 0 and opened  # it opened the comparison picker instead


def test_the_token_column_is_wide_and_the_count_narrow_beside_it(qtbot, tiny_bpe):
    browser, _ = make_browser(qtbot, tiny_bpe)
    header = browser.table.horizontalHeader()
    assert browser.table.columnWidth(TOKEN) > 2 * browser.table.columnWidth(COUNT)
    assert header.visualIndex(COUNT) == header.visualIndex(TOKEN) + 1


def test_hover_vocabulary_and_timeline_say_the_same_step(qtbot, gpt2):
    details = token_details(gpt2, 262, merges_ready=True)
    timeline = MergeTableModel()
    timeline.set_source(gpt2)

    assert details.step == gpt2.merge_rank_of_id[262] + 1
    assert timeline.merge_parts(details.step)[2] == 262  # the timeline's "Step N" makes this token
    assert f">{details.step:,}<" in details_html(details, "GPT-2").split("merge step")[1]
    browser, _ = make_browser(qtbot, gpt2)
    browser.model.set_merges_ready(True)
    assert browser.model.index(browser.model.row_of_id(262), RANK).data() == f"{details.step:,}"


def test_merges_never_applied_are_listed_once_the_merge_list_is_ready(qtbot, tiny_bpe):
    from tokviz.core.analysis.usage import vocabulary_usage

    browser, key = make_browser(qtbot, tiny_bpe)
    qtbot.waitUntil(lambda: browser.registry.merges_ready(key), timeout=10000)
    qtbot.waitUntil(lambda: browser.usage.result.never_applied is not None, timeout=10000)

    firing = vocabulary_usage(tiny_bpe, [TEXT]).merge_firing()
    expected = {tiny_bpe.id_of_merge(i) for i in firing.never_applied.tolist()}
    browser.usage_mode.setCurrentIndex(4)
    assert browser.usage_filter() == "idle"
    assert {browser.model.token_id(r) for r in range(browser.model.rowCount())} == expected
    assert browser.usage_mode.currentText() == f"Merges never applied ({len(expected):,})"


def test_the_context_menu_copies_a_token_its_id_and_finds_it(qtbot, gpt2, monkeypatch):
    from PySide6.QtWidgets import QMenu

    browser, _ = make_browser(qtbot, gpt2)
    table = browser.table
    shown: list[QMenu] = []
    monkeypatch.setattr(QMenu, "popup", lambda menu, *_: shown.append(menu))
    row = browser.model.row_of_id(262)
    table.scrollTo(browser.model.index(row, TOKEN))
    table._menu(table.visualRect(browser.model.index(row, TOKEN)).center())

    actions = {a.text(): a for a in shown[0].actions() if not a.isSeparator()}
    assert list(actions) == [
        "Copy &token",
        "Copy &id",
        "Copy &row",
        "&Show in text",
        "&Export 50,257 listed tokens to CSV…",
    ]
    actions["Copy &token"].trigger()
    assert QGuiApplication.clipboard().text() == " the"
    actions["Copy &id"].trigger()
    assert QGuiApplication.clipboard().text() == "262"
    with qtbot.waitSignal(table.showInTextRequested) as asked:
        actions["&Show in text"].trigger()
    assert asked.args == [262]


# ----------------------------------------------------------------
# The vocabulary browser counts the editor's text as the views show it: ``<|endoftext|>`` typed
# in the text is the special token (used once), not the never-used list's, and not ``<|`` + ``endo``…


SPECIALS_TEXT = "Hello world<|endoftext|>The cat sat.<|endoftext|>"


def test_a_special_token_in_the_editor_counts_as_itself() -> None:
    gpt2: Tokenizer = load_tokenizer("gpt2")
    usage = editor_usage(gpt2, SPECIALS_TEXT)

    counts = usage.counts
    view_ids = [s.id for s in gpt2.encode_spans(SPECIALS_TEXT)]
    assert counts[50256] == 2
    assert np.array_equal(counts, np.bincount(view_ids, minlength=len(counts)))
    assert counts.sum() == len(view_ids)


def test_text_without_special_tokens_counts_as_before() -> None:
    gpt2: Tokenizer = load_tokenizer("gpt2")
    text = "plain text, nothing special " * 3
    assert editor_usage(gpt2, text).counts.sum() == len(gpt2.encode_ordinary(text))


# ----------------------------------------------------------------
# At 1024 × 768 the vocabulary dock's histogram still says which bars are which, and the id box
# next to "Regex" says what it does.


def test_the_vocabulary_dock_explains_itself_at_1024(qtbot, make_window) -> None:
    window = make_window(size=(1024, 768))
    dock = window.findChild(QDockWidget, "vocabDock")
    histogram = dock.findChild(LengthHistogram)
    qtbot.waitUntil(lambda: histogram.width() > 0)

    title = histogram.shown_title()
    assert "pale = vocab" in title and "solid = used" in title and not title.endswith("…")
    jump = next(label for label in dock.findChildren(QLabel) if label.text() == "Go to")
    assert jump.buddy().objectName() == "vocabJump" and jump.isVisible()


def test_a_wide_histogram_shows_the_whole_title_and_a_very_narrow_one_elides(qtbot) -> None:
    histogram = LengthHistogram()
    qtbot.addWidget(histogram)
    histogram.resize(900, 80)
    assert (
        histogram.shown_title() == "Token lengths in bytes (log scale): pale = vocabulary, solid = used here"
    )
    histogram.resize(80, 80)
    assert histogram.shown_title().endswith("…")


def test_a_few_used_tokens_stay_visible_beside_a_large_vocabulary() -> None:
    full = 60.0
    used, vocabulary = (
        LengthHistogram.bar_height(97, 50_257, full),
        LengthHistogram.bar_height(50_257, 50_257, full),
    )
    assert vocabulary == full and used > full / 3  # linear: 0.1 px
    assert (
        LengthHistogram.bar_height(0, 50_257, full) == 0.0 and LengthHistogram.bar_height(1, 1, full) == full
    )
