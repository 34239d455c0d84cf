"""The lecture's characters and words tokenizers in the window: views, hover cards, timeline, vocabulary, chart.

A lecturer puts characters, words, bytes and GPT-2 side by side and shows why each of the first
three fails: long sequences, a huge vocabulary, unknown words.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core.bpe.lecture_tokenizers import NOT_BPE_NOTE, CharacterTokenizer, WordTokenizer
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.models.vocabulary import VocabModel, overlap
from tokviz.gui.models.words import FROM_EDITOR, FROM_FILES, FROM_SAMPLE, WORDS_KEY
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.text.display import plain_text
from tokviz.gui.text.token_table import TokenTable, update_table


def show_in_panel(qtbot, window, key: str):  # noqa: ANN001, ANN201 - pytest fixtures, a TokenPanel
    """Switch the window's first view to ``key`` and wait until its tokens are shown."""
    panel = window.panels[0]
    panel.select_tokenizer(key)
    qtbot.waitUntil(lambda: panel.model.current and panel.view.table is panel.model.table, timeout=20000)
    return panel


def test_characters_view_shows_one_token_per_code_point(qtbot, make_window) -> None:
    window = make_window(text="Hi 🌍 你好")
    panel = show_in_panel(qtbot, window, "characters")
    assert [int(i) for i in panel.view.table.ids] == [ord(c) for c in "Hi 🌍 你好"]
    assert "7 tokens" in panel.stats.text()
    assert "ids of 1,114,112" in panel.lesson.text() and "never assigned" in panel.lesson.text()
    card = panel.view.notes_html(3)
    assert "U+1F30D" in card and "1,114,112" in card
    assert "1,114,112" in panel.picker.toolTip()


def test_words_view_follows_the_editor_and_shows_unknown_words(qtbot, make_window) -> None:
    window = make_window(text="the cat sat on the mat")
    panel = show_in_panel(qtbot, window, WORDS_KEY)
    assert panel.words_button.isVisible()
    # The word list by default: a fixed vocabulary; from the editor's text on request.
    assert panel.words_actions[FROM_SAMPLE].isChecked()
    listed = panel.model.tokenizer
    panel.choose_words_source(FROM_EDITOR)
    qtbot.waitUntil(lambda: panel.model.tokenizer is not listed and panel.model.current, timeout=20000)
    assert panel.words_actions[FROM_EDITOR].isChecked()
    tok = panel.model.tokenizer
    assert isinstance(tok, WordTokenizer) and tok.unknown_words("the cat sat on the mat") == []

    # A word just typed is unknown until the vocabulary is rebuilt from the new text.
    window.set_text("the cat sat on the zebra")
    qtbot.waitUntil(lambda: panel.model.tokenizer is not tok and panel.model.current, timeout=20000)
    qtbot.waitUntil(lambda: panel.view.table is panel.model.table, timeout=20000)
    assert "zebra" in panel.model.tokenizer.index
    assert 0 not in [int(i) for i in panel.view.table.ids]

    # From the word list, a name and Chinese are unknown: the lesson.
    rebuilt = panel.model.tokenizer
    panel.choose_words_source(FROM_SAMPLE)
    window.set_text("The Führer of 你好")
    qtbot.waitUntil(
        lambda: (
            panel.model.tokenizer is not rebuilt
            and panel.model.current
            and panel.view.table is panel.model.table
        ),
        timeout=20000,
    )
    ids = [int(i) for i in panel.view.table.ids]
    unknown = [k for k, i in enumerate(ids) if i == 0]
    assert unknown, ids
    card = panel.view.notes_html(unknown[0])
    assert "unknown word" in card and "word list" in card
    assert bool(panel.view.table.special[unknown[0]])  # drawn like a special token: outlined
    # The view shows what the model gets, <unk>, where the editor has the word it lost.
    shown = plain_text(panel.view.toPlainText())
    assert "Führer" not in shown and "<unk>" in shown
    assert f"{len(unknown)} unknown" in panel.lesson.text()


def test_words_from_a_corpus_file(qtbot, tmp_path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world", encoding="utf-8")
    registry = TokenizerRegistryModel()
    tok = registry.load_builtin_now(WORDS_KEY)
    assert isinstance(tok, WordTokenizer)
    with qtbot.waitSignal(registry.tokenizerLoaded, timeout=20000):
        registry.words.set_source(FROM_FILES, [str(corpus)])
    rebuilt = registry.tokenizer(WORDS_KEY)
    assert isinstance(rebuilt, WordTokenizer) and set(rebuilt.index) == {"hello", " ", "world"}
    tooltip = registry.data(registry.index(registry.row_of(WORDS_KEY)), 3)  # ToolTipRole
    assert "corpus.txt" in tooltip and "3 entries" in tooltip


def test_the_timeline_says_there_is_nothing_to_replay(qtbot) -> None:
    timeline = TimelineWidget(TokenizerRegistryModel())
    qtbot.addWidget(timeline)
    timeline.set_text("the cat")
    timeline.set_tokenizer(CharacterTokenizer())
    assert NOT_BPE_NOTE in timeline.pane.message.text()
    assert timeline.trace is None and not timeline.slider.isEnabled()


@pytest.mark.parametrize("key", ["characters", "words"])
def test_the_timeline_picker_shows_the_note_for_the_builtin(qtbot, key: str) -> None:
    registry = TokenizerRegistryModel()
    registry.load_builtin_now(key)
    timeline = TimelineWidget(registry)
    qtbot.addWidget(timeline)
    timeline.set_text("the cat")
    timeline.set_tokenizer_key(key)
    assert "no merges to replay" in timeline.pane.message.text()


def test_the_vocabulary_browser_filters_a_million_ids(qtbot) -> None:
    chars = CharacterTokenizer()
    model = VocabModel()
    model.set_tokenizer(chars)
    model.set_filter("é")
    assert 0 < model.rowCount() < 1000
    model.set_filter("")
    assert 140_000 < model.rowCount() < 160_000  # assigned code points, of 1,114,112 ids
    both, only_chars, only_bytes = overlap(chars, TokenizerRegistryModel().load_builtin_now("bytes"))
    assert len(both) == 128  # the ASCII characters are single bytes too


def test_the_chart_measures_characters_and_words(qtbot) -> None:
    from tokviz.gui.panels.chart import ExchangeChart

    chart = ExchangeChart()
    qtbot.addWidget(chart)
    chart.set_tokenizers([("characters", CharacterTokenizer()), ("words", WordTokenizer.from_text("a b"))])
    chart.set_text("a b c")
    chart.show()
    qtbot.waitUntil(chart.is_ready, timeout=20000)
    rows = {(r["input"], r["tokenizer"]): r for r in chart.table.rows()}
    editor = next(k for k in rows if k[1] == "characters")[0]
    assert rows[(editor, "characters")]["tokens"] == 5
    assert rows[(editor, "words")]["tokens"] == 5
    assert rows[(editor, "characters")]["vocab_size"] == 1_114_112


def test_the_words_corpus_is_remembered(qtbot, tmp_path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("hello world", encoding="utf-8")
    TokenizerRegistryModel().words.set_source(FROM_FILES, [str(corpus)])
    again = TokenizerRegistryModel()
    assert again.words.source == FROM_FILES and again.words.files == [str(corpus)]
    assert set(again.load_builtin_now(WORDS_KEY).index) == {"hello", " ", "world"}
    corpus.unlink()  # gone by the next launch: back to the word list, no error
    assert TokenizerRegistryModel().words.source == FROM_SAMPLE


@given(
    st.text(alphabet="ab \n.é你🌍", max_size=40),
    st.integers(0, 40),
    st.integers(0, 5),
    st.text(alphabet="ab \n.é你🌍", max_size=6),
)
def test_editing_a_lecture_view_re_encodes_only_around_the_edit_and_exactly(
    text: str, at: int, removed: int, inserted: str
) -> None:
    """Words declare the space cuts safe, characters any cut: a spliced table equals a fresh encode."""
    at = min(at, len(text))
    new_text = text[:at] + inserted + text[at + removed :]
    for tok in (WordTokenizer.from_text("a b . é 你 🌍 ab ba"), CharacterTokenizer()):
        spliced = update_table(tok, TokenTable.encode(tok, text), new_text).table
        fresh = TokenTable.encode(tok, new_text)
        for name in ("ids", "start", "end", "start16", "end16", "special", "partial", "chunk"):
            assert getattr(spliced, name).tolist() == getattr(fresh, name).tolist(), (tok.name, name)


def test_the_words_view_shows_and_counts_the_unknown_words_of_the_default_text(qtbot, make_window) -> None:
    window = make_window()
    panel = show_in_panel(qtbot, window, WORDS_KEY)
    tok = panel.model.tokenizer
    assert isinstance(tok, WordTokenizer) and tok.word_count > 2000
    unknown = tok.unknown_words(window.text)
    assert unknown  # the default text has words the list never saw
    assert f"{len(unknown)} unknown" in panel.lesson.text()
