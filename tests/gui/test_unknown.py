"""A SentencePiece model's ``<unk>`` looks unknown in the views: drawn as ``<unk>`` (not as the
text it replaced), flagged like the words tokenizer's, and counted in the view's header."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tokviz.core.formats.registry import load_tokenizer
from tokviz.gui.text.display import DisplayOptions, build_run, plain_text
from tokviz.gui.text.token_table import TokenTable, count_unknown, update_table
from tokviz.gui.text.unknown import unknown_id

BOTCHAN = Path(__file__).resolve().parent.parent / "data" / "real" / "botchan_en_bpe_1000.model"
TEXT = "你好 café Ελληνικά"


@pytest.fixture(scope="module")
def botchan():
    """An English BPE SentencePiece model without byte fallback: CJK, Greek and é are ``<unk>``."""
    pytest.importorskip("sentencepiece")
    return load_tokenizer(BOTCHAN)


def test_unknown_pieces_are_drawn_as_unk_and_flagged(botchan) -> None:
    assert unknown_id(botchan) == 0 and unknown_id(load_tokenizer("gpt2")) is None
    table = TokenTable.encode(botchan, TEXT)

    unk = table.ids == 0
    assert unk.sum() == 3 and table.special[unk].all() and not table.special[~unk].any()
    shown = plain_text(build_run(table, 0, len(table), botchan.vocab, DisplayOptions()).text)
    assert "你好" not in shown and "Ελληνικά" not in shown and shown.count("<unk>") == 3
    assert count_unknown(botchan, table) == 3


def test_an_edit_flags_unknown_pieces_too(botchan) -> None:
    old = TokenTable.encode(botchan, "plain english text here")
    new = update_table(botchan, old, "plain english 한국어 text here").table
    assert np.count_nonzero(new.special) == count_unknown(botchan, new) == 1


def test_the_view_header_counts_unknown_pieces(qtbot, make_window, botchan) -> None:
    window = make_window(text=TEXT)
    key = window.tokenizers.add_tokenizer("botchan", botchan)
    window.panels[0].select_tokenizer(key)
    qtbot.waitUntil(lambda: window.is_ready() and window.panels[0].lesson.isVisibleTo(window), timeout=20000)

    assert window.panels[0].lesson.text().startswith("3 unknown (<unk>")
    assert window.panels[1].lesson.text() == "" or "unknown" not in window.panels[1].lesson.text()


def test_the_hover_card_says_which_text_was_lost(botchan) -> None:
    from tokviz.gui.text.token_notes import token_notes_html

    table = TokenTable.encode(botchan, TEXT)
    first_unk = int(np.flatnonzero(table.ids == 0)[0])
    note = token_notes_html(botchan, table, first_unk)
    assert "cannot spell &#x27;你好&#x27;" in note and "the text is lost" in note
    assert token_notes_html(botchan, table, first_unk + 1) == ""
