"""A count table in the Train panel: shown by its metadata, trained on exactly, and saved after a run.

A lecturer counts a big corpus once (``tokviz count``, or "Save counts…" after a run on it), then
adds the table as the corpus and trains vocabulary after vocabulary without counting again.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tokviz.core.training.counts import count_corpus, load_table, save_table
from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.training.panel import TrainPanel

from ..core.test_counts import SPECIAL, make_corpus


@pytest.fixture
def panel(qtbot):
    panel = TrainPanel(TokenizerRegistryModel(), lambda: "editor text", lambda _t: None)
    qtbot.addWidget(panel)
    panel.show()
    yield panel
    panel.shutdown()


@pytest.fixture
def corpus(tmp_path: Path, english_text: str) -> list[Path]:
    return make_corpus(tmp_path / "corpus", english_text)


def train(qtbot, panel: TrainPanel):
    with qtbot.waitSignal(panel.run.finished, timeout=60000) as finished:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not panel.running, timeout=60000)
    return finished.args[0]


def test_a_table_shows_its_metadata_and_trains_like_the_text(qtbot, panel, corpus, tmp_path):
    table_path = tmp_path / "counts.parquet"
    save_table(count_corpus(files=corpus, special_tokens=[SPECIAL], errors="replace"), table_path)
    panel.add_paths([str(table_path)])
    qtbot.waitUntil(lambda: "Count table" in panel.corpus_info.text(), timeout=10000)
    info = panel.corpus_info.text()
    assert "unique pre-tokens" in info and "from 3 files" in info and SPECIAL in info
    assert "replaced by U+FFFD" in info and "own pre-tokenizer" in info
    preview = panel.preview.toPlainText().splitlines()
    assert preview[0] == "The most frequent pre-tokens:" and any(
        line.endswith("' the'") for line in preview[1:4]
    )

    panel.vocab_size.setValue(600)
    panel.set_tie_rule("first-seen")
    outcome = train(qtbot, panel)
    text = train_bpe(
        files=corpus, vocab_size=600, special_tokens=[SPECIAL], errors="replace", tie_break="first-seen"
    )
    assert outcome.result.merges == text.merges
    assert list(outcome.tokenizer.special_tokens) == [SPECIAL]
    assert not panel.save_counts_button.isEnabled()  # the table is already saved


def test_save_counts_after_a_run_writes_the_runs_table(qtbot, panel, corpus, tmp_path):
    assert not panel.save_counts_button.isEnabled()
    panel.add_paths([str(p) for p in corpus])
    panel.replace_invalid.setChecked(True)
    panel.specials.setText(SPECIAL)
    panel.vocab_size.setValue(400)
    train(qtbot, panel)
    assert panel.save_counts_button.isEnabled()
    job = panel.save_counts.save_to(str(tmp_path / "saved.tsv"))
    qtbot.waitUntil(lambda: job.done, timeout=20000)
    assert job.error is None, job.error
    saved = load_table(tmp_path / "saved.tsv")
    counted = count_corpus(files=corpus, special_tokens=[SPECIAL], errors="replace")
    assert list(saved.counts.items()) == list(counted.counts.items())
    assert saved.metadata() == counted.metadata()  # files, sizes and SHA-256 included


def test_save_counts_never_overwrites_the_corpus(qtbot, panel, tmp_path):
    (tmp_path / "notes.tsv").write_text("plain\ttext\n" * 50, encoding="utf-8")
    panel.add_paths([str(tmp_path / "notes.tsv")])  # an ordinary .tsv is a corpus file, not a table
    qtbot.waitUntil(lambda: "1 file" in panel.corpus_info.text(), timeout=10000)
    panel.vocab_size.setValue(300)
    train(qtbot, panel)
    with qtbot.waitSignal(panel.fileJobDone, timeout=20000) as done:
        panel.save_counts.save_to(str(tmp_path / "notes.tsv"))
    assert "would destroy the corpus" in done.args[0]
    assert (tmp_path / "notes.tsv").read_text(encoding="utf-8") == "plain\ttext\n" * 50


def test_a_table_with_other_files_is_refused_in_one_line(qtbot, panel, corpus, tmp_path):
    table_path = tmp_path / "counts.tsv"
    save_table(count_corpus(files=corpus[:1]), table_path)
    panel.add_paths([str(table_path), str(corpus[0])])
    qtbot.waitUntil(lambda: "trains alone" in panel.corpus_info.text(), timeout=10000)
    with qtbot.waitSignal(panel.run.failed, timeout=30000) as failed:
        qtbot.mouseClick(panel.train_button, Qt.MouseButton.LeftButton)
    assert "trains alone" in failed.args[0] and "\n" not in failed.args[0]
    qtbot.waitUntil(lambda: not panel.running, timeout=10000)
