"""File ▸ Export tokenizer…: any tokenizer in the pickers goes to every format that can hold it, or says why not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokviz.core.formats.exports import EXPORT_KINDS
from tokviz.core.formats.model_file import load_model, save_model
from tokviz.core.formats.provenance import corpus_record, make_provenance
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.train import train_bpe
from tokviz.gui.window.export_model import ModelExportDialog, safe_stem

from .reach import exporter

# Showing the dialog raises it; the offscreen test platform cannot and says so.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


@pytest.fixture
def dialog(window) -> ModelExportDialog:
    action = window.findChild(type(exporter(window).act_export_model), "actionExportTokenizer")
    assert action is not None and action.text() == "Export &tokenizer…"
    return exporter(window).open_model_dialog()


def choose(qtbot, dialog: ModelExportDialog, key: str) -> None:
    dialog.refresh(key)
    assert dialog.key() == key
    qtbot.waitUntil(lambda: dialog.tokenizer() is not None, timeout=30000)
    qtbot.waitUntil(
        lambda: not {"still loading", "still checking"} & set(dialog.problems.values()), timeout=30000
    )


def export(qtbot, dialog: ModelExportDialog, kind: str, path: str | Path) -> str:
    with qtbot.waitSignal(dialog.exported, timeout=60000) as done:
        assert dialog.export_to(kind, path) is not None
    return done.args[0]


def format_enabled(dialog: ModelExportDialog, kind: str) -> bool:
    return dialog.format_box.model().item(EXPORT_KINDS.index(kind)).isEnabled()


def test_an_opened_model_file_exports_with_its_provenance_and_to_transformers(
    qtbot, window, dialog, tmp_path: Path
) -> None:
    transformers = pytest.importorskip("transformers")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat sat on the mat. <|endoftext|> the hat.\n" * 60, encoding="utf-8")
    result = train_bpe(
        files=[corpus], vocab_size=300, special_tokens=["<|endoftext|>"], pretokenizer="cl100k"
    )
    provenance = make_provenance(corpus_record([str(corpus)]))
    save_model(
        tmp_path / "cats.json", result.tokenizer("cats"), result.settings(), result.history, provenance
    )
    key = window.tokenizers.add_tokenizer("cats", load_tokenizer(tmp_path / "cats.json"))
    choose(qtbot, dialog, key)
    assert all(format_enabled(dialog, kind) for kind in ("model", "hf", "gpt2", "tiktoken"))
    # A byte-level BPE is neither a SentencePiece model nor a WordPiece vocabulary.
    assert not format_enabled(dialog, "spm") and not format_enabled(dialog, "bert")

    # Re-saved as a model file, the provenance it was opened with travels along.
    assert export(qtbot, dialog, "model", tmp_path / "copy.tokviz.json") == ""
    assert load_model(tmp_path / "copy.tokviz.json").provenance == provenance

    # vocab.json + merges.txt cannot hold cl100k's chunks: tokenizer.json comes with them, and the dialog says so.
    assert export(qtbot, dialog, "gpt2", tmp_path / "folder") == ""
    assert "cannot hold the cl100k pre-tokenizer" in dialog.notes.toPlainText() and dialog.notes.isVisible()
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "folder"))
    text = "the cat sat. <|endoftext|>"
    assert auto.eos_token == "<|endoftext|>"
    assert auto.encode(text, add_special_tokens=False) == result.tokenizer().encode(text)


def test_gpt2_exports_to_tiktoken_with_the_sidecar_and_the_snippet(qtbot, dialog, tmp_path: Path) -> None:
    choose(qtbot, dialog, "gpt2")
    assert dialog.why_not.text() == ""
    assert export(qtbot, dialog, "tiktoken", tmp_path / "gpt2.tiktoken") == ""
    side = json.loads((tmp_path / "gpt2.tiktoken.json").read_text(encoding="utf-8"))
    assert side["special_tokens"] == {"<|endoftext|>": 50256}
    notes = dialog.notes.toPlainText()
    assert "tiktoken needs the pattern and special tokens passed in" in notes
    assert "tiktoken.Encoding(" in notes and "load_tiktoken_bpe(" in notes
    assert "Exported GPT-2 to" in dialog.message.text()


def test_formats_a_tokenizer_cannot_go_to_are_greyed_out_with_the_reason(qtbot, window, dialog) -> None:
    horizontal = train_bpe(text="a b\tc d " * 40, vocab_size=262, pretokenizer=r"\h+|\S+").tokenizer("tabs")
    key = window.tokenizers.add_tokenizer("tabs", horizontal)
    choose(qtbot, dialog, key)
    assert format_enabled(dialog, "model") and format_enabled(dialog, "tiktoken")
    assert not format_enabled(dialog, "hf") and not format_enabled(dialog, "gpt2")
    tip = dialog.format_box.model().item(EXPORT_KINDS.index("hf")).toolTip()
    assert "\\h means a hex digit" in tip
    assert dialog.why_not.text().startswith("Not available — Hugging Face tokenizer.json: ")

    # Asked anyway (a script, a stale menu), it refuses in one line and writes nothing.
    with qtbot.waitSignal(dialog.exported, timeout=5000) as done:
        assert dialog.export_to("hf", "nowhere/") is None
    assert done.args[0].startswith("cannot write Hugging Face tokenizer.json: tokenizer.json cannot hold")
    assert dialog.message.text().startswith("Export failed: ")


def test_a_tokenizer_that_is_not_byte_level_bpe_goes_nowhere(qtbot, window, dialog) -> None:
    key = window.tokenizers.add_tokenizer("letters", load_tokenizer("characters"))
    choose(qtbot, dialog, key)
    assert not any(format_enabled(dialog, kind) for kind in EXPORT_KINDS)
    assert not dialog.save_button.isEnabled()
    assert "do not come from byte-level BPE merges" in dialog.why_not.text()


def test_a_refused_path_is_a_one_line_message(qtbot, dialog, tmp_path: Path) -> None:
    choose(qtbot, dialog, "bytes")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    message = export(qtbot, dialog, "model", blocker / "m.json")
    assert message and "\n" not in message and "file" in message
    assert dialog.message.text().startswith("Export failed: ")


def test_file_names_come_from_the_tokenizer_name() -> None:
    assert safe_stem("py 32k (cl100k)") == "py-32k-cl100k"
    assert safe_stem("///") == "tokenizer"


def test_a_sentencepiece_model_goes_to_tokenizer_json_and_its_model_file(
    qtbot, window, dialog, tmp_path: Path
) -> None:
    model = Path(__file__).resolve().parents[1] / "data" / "real" / "botchan_en_unigram_1000.model"
    key = window.tokenizers.add_tokenizer("botchan", load_tokenizer(model))
    choose(qtbot, dialog, key)
    assert format_enabled(dialog, "hf") and format_enabled(dialog, "spm")
    assert not any(format_enabled(dialog, kind) for kind in ("model", "gpt2", "tiktoken", "bert"))
    # The byte-level formats say why; vocab.txt, a format of WordPiece models only, is greyed out silently.
    assert "do not come from byte-level BPE merges" in dialog.why_not.text()
    assert "vocab.txt" not in dialog.why_not.text()
    assert export(qtbot, dialog, "spm", tmp_path / "copy.model") == ""
    assert (tmp_path / "copy.model").read_bytes() == model.read_bytes()
    assert export(qtbot, dialog, "hf", f"{tmp_path}/hf/") == ""
    assert "reserved piece" in dialog.notes.toPlainText()
    assert load_tokenizer(tmp_path / "hf").encode("Botchan went home.") == load_tokenizer(model).encode(
        "Botchan went home."
    )
