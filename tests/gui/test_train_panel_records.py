"""The Train panel on corpora of records: a JSON Lines or Parquet file, or a folder of shards, shows its
first records as training will read them, offers the fields with text, trains on the chosen one
(the merges of the same documents as text) and remembers it."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pytestqt.qtbot import QtBot

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.training.memory import remember_train_settings, restore_train_settings
from tokviz.gui.panels.training.panel import TrainPanel
from tokviz.gui.panels.training.report import finished_result, progress_text
from tokviz.gui.settings import TRAIN_RECORD_FIELD, Settings
from tokviz.gui.workers.training import TrainStatus

from .test_train_panel_filters import measured

DOCS = ["the first record says hello", "a second one, with more words in it", "and the third"]


@pytest.fixture
def shards(tmp_path: Path) -> Path:
    folder = tmp_path / "shards"
    folder.mkdir()
    table = pa.table({"id": [1, 2, 3], "body": DOCS, "meta": [{"content": d.upper()} for d in DOCS]})
    pq.write_table(table.slice(0, 2), folder / "train-00000-of-00002.parquet")
    pq.write_table(table.slice(2), folder / "train-00001-of-00002.parquet")
    return folder


def test_a_folder_of_shards_offers_its_text_fields_and_previews_the_chosen_one(
    qtbot: QtBot, train_panel: TrainPanel, shards: Path
) -> None:
    panel = train_panel
    panel.add_paths([str(shards)])
    line = measured(qtbot, panel)
    assert panel.record_field.isVisible()
    fields = [panel.record_field.combo.itemText(i) for i in range(panel.record_field.combo.count())]
    assert fields[:2] == ["body", "meta.content"] and "text" in fields  # the choice so far stays
    assert 'has no field "text"; its fields: body, meta.content, id (int64)' in line
    panel.record_field.set_field("body")
    line = measured(qtbot, panel)
    assert "records: “body”" in line
    assert panel.preview.toPlainText() == "\n".join(f"── record {k} ──\n{d}" for k, d in enumerate(DOCS, 1))
    panel.record_field.set_field("meta.content")
    measured(qtbot, panel)
    assert panel.preview.toPlainText().splitlines()[1] == DOCS[0].upper()


def test_training_reads_the_chosen_field_each_record_a_document_and_says_the_records(
    qtbot: QtBot, train_panel: TrainPanel, shards: Path, tmp_path: Path
) -> None:
    panel = train_panel
    panel.add_paths([str(shards)])
    panel.record_field.set_field("body")
    measured(qtbot, panel)
    panel.vocab_size.setValue(300)
    with qtbot.waitSignal(panel.run.ended, timeout=60000):
        panel.start()
    assert panel.outcome is not None and panel.outcome.settings.field == "body"
    special = "<|endoftext|>"
    expected = train_bpe(text=special.join(DOCS), vocab_size=300, special_tokens=[special])
    assert panel.outcome.result.merges == expected.merges
    assert panel.outcome.result.reading is not None and panel.outcome.result.reading.tally.records == 3
    assert 'Read 3 records of "body" from 2 Parquet files' in finished_result(panel.outcome)
    line = progress_text(TrainStatus("pre-tokenizing", 2_000_000, 8_000_000, 2.0, 1e6, 6.0, 0, 12_345))
    assert "2.0 MB of 8.0 MB · 12,345 records" in line
    with qtbot.waitSignal(panel.fileJobDone, timeout=20000) as done:
        panel.save_model_to(tmp_path / "records.json")
    assert done.args == [""]
    corpus = json.loads((tmp_path / "records.json").read_text(encoding="utf-8"))["provenance"]["corpus"]
    assert [(f["container"], f["field"], f["records"]) for f in corpus["files"]] == [
        ("parquet", "body", 2),
        ("parquet", "body", 1),
    ]


def test_a_json_lines_file_and_the_field_are_remembered(
    qtbot: QtBot, train_panel: TrainPanel, tmp_path: Path
) -> None:
    panel = train_panel
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(f'{{"meta": {{"content": "{d}"}}}}\n' for d in DOCS), encoding="utf-8")
    panel.add_paths([str(path)])
    line = measured(qtbot, panel)
    assert "No record of the first ones has text in “text”: 3 records without" in line
    assert [panel.record_field.combo.itemText(i) for i in range(2)] == ["meta.content", "text"]
    panel.record_field.set_field("meta.content")
    assert "records: “meta.content”" in measured(qtbot, panel)
    settings = Settings()  # isolated in a temporary folder by the GUI tests' conftest
    remember_train_settings(panel, settings)
    assert settings.get(TRAIN_RECORD_FIELD) == "meta.content"
    other = TrainPanel(TokenizerRegistryModel())
    qtbot.addWidget(other)
    restore_train_settings(other, settings)
    assert other.record_field.field() == "meta.content" and other.corpus_paths() == [str(path)]
    other.shutdown()
