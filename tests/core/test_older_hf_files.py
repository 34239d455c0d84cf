"""A ``tokenizer.json`` written without a model ``"type"`` (BERT-base-uncased's, older files) loads
as the ``tokenizers`` library reads it, and encodes to the library's ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer as Library
from tokenizers import models, normalizers, pre_tokenizers, trainers

from tests.multilingual import corpus_lines
from tokviz.core.formats.hf_json import model_kind
from tokviz.core.formats.registry import load_tokenizer


def wordpiece_without_type(folder: Path) -> Path:
    """A WordPiece tokenizer.json written by ``tokenizers``, with ``model.type`` deleted (BERT's shape)."""
    tk = Library(models.WordPiece(unk_token="[UNK]"))
    tk.normalizer = normalizers.BertNormalizer(lowercase=True)
    tk.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    trainer = trainers.WordPieceTrainer(vocab_size=600, special_tokens=["[UNK]", "[CLS]", "[SEP]", "[PAD]"])
    tk.train_from_iterator(corpus_lines(2000), trainer)
    doc = json.loads(tk.to_str())
    del doc["model"]["type"]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "tokenizer.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_wordpiece_file_without_a_type_loads_and_gives_the_librarys_ids(tmp_path: Path) -> None:
    path = wordpiece_without_type(tmp_path)
    library = Library.from_file(str(path))

    tok = load_tokenizer(path)

    assert getattr(tok, "model_type", None) == "WordPiece"
    for line in corpus_lines(300):
        assert tok.encode(line) == library.encode(line, add_special_tokens=False).ids, line


@pytest.mark.parametrize(
    ("model", "kind"),
    [
        ({"vocab": {"a": 0}, "merges": []}, "BPE"),
        (
            {"vocab": {"a": 0}, "continuing_subword_prefix": "##", "max_input_chars_per_word": 100},
            "WordPiece",
        ),
        ({"vocab": [["a", 0.0]], "unk_id": 0}, "Unigram"),
        ({"vocab": {"a": 0}, "unk_token": "a"}, "WordLevel"),
        ({"type": "Unigram", "vocab": []}, "Unigram"),
    ],
)
def test_the_model_kind_is_inferred_as_the_library_infers_it(model: dict[str, object], kind: str) -> None:
    assert model_kind(model) == kind
