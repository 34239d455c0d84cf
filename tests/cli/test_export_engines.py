"""``tokviz export`` of SentencePiece and WordPiece models: each format loads in its library with the same ids.

A SentencePiece ``.model`` goes to a Hugging Face folder (a tokenizer.json made from the model, read
by ``tokenizers`` and ``AutoTokenizer``) and to its own ``.model`` file; a WordPiece tokenizer.json
with BERT's pipeline goes to a ``vocab.txt`` folder (read by ``BertWordPieceTokenizer`` and
``AutoTokenizer``). Every other pairing is refused in one line that says why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sentencepiece as spm
import tokenizers
from tokenizers.implementations import BertWordPieceTokenizer

from tests.multilingual import corpus_lines
from tokviz.core.formats.registry import load_tokenizer

from .helpers import assert_one_line_error, run

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
MISTRAL = REAL / "mistral-tokenizer.model.v1"
BERT_SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def plain_lines(count: int, seed: int) -> list[str]:
    """Held-out multilingual lines that spell no reserved piece of a SentencePiece model."""
    return [
        t for t in corpus_lines(count, seed=seed) if not any(r in t for r in ("<s>", "</s>", "<unk>", "<0x"))
    ]


@pytest.mark.parametrize(
    "model",
    [REAL / "botchan_en_bpe_1000.model", pytest.param(MISTRAL, marks=pytest.mark.slow)],
    ids=["botchan-bpe", "mistral"],
)
def test_a_sentencepiece_model_exports_to_a_folder_transformers_reads_with_the_librarys_ids(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, model: Path
) -> None:
    transformers = pytest.importorskip("transformers")
    folder = tmp_path / "hf"
    code, _, err = run(capsys, "export", str(model), "--to", "hf", "-o", str(folder))
    assert code == 0, err
    assert "text that spells a reserved piece (<unk>, <s>, </s>" in err

    sp = spm.SentencePieceProcessor(model_file=str(model))
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    raw = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
    assert (auto.bos_token, auto.eos_token, auto.unk_token, auto.pad_token) == ("<s>", "</s>", "<unk>", None)
    texts = plain_lines(400, seed=41) + ["    indented\n\tcode", "a" + " " * 30 + "b", "1234567 ½ 😀👍🏽"]
    if raw.normalizer is not None:  # the rare rewriting tokenizers does otherwise (the export's note)
        texts = [t for t in texts if raw.normalizer.normalize_str(t) == sp.normalize(t)]
    assert len(texts) > 300
    for text in texts:
        ids = sp.encode(text)
        assert auto.encode(text) == ids, text  # no BOS added, as the library's default
        assert raw.encode(text, add_special_tokens=False).ids == ids
    # tokviz reads the folder back (through tokenizers) with the same ids.
    again = load_tokenizer(folder)
    assert all(again.encode(t) == sp.encode(t) for t in texts[:100])


def test_the_model_file_itself_and_the_formats_it_cannot_go_to(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    model = REAL / "kyoto_ja_unigram_8000.model"
    code, _, err = run(capsys, "export", str(model), "--to", "spm", "-o", str(tmp_path / "copy.model"))
    assert code == 0, err
    assert (tmp_path / "copy.model").read_bytes() == model.read_bytes()
    for kind in ("gpt2", "tiktoken", "model"):
        code, _, err = run(capsys, "export", str(model), "--to", kind, "-o", str(tmp_path / kind))
        assert code == 1
        assert_one_line_error(
            err, f"--to {kind}", "do not come from byte-level BPE merges", "export to hf or spm"
        )
    code, _, err = run(capsys, "export", str(model), "--to", "bert", "-o", str(tmp_path / "bert"))
    assert code == 1
    assert_one_line_error(err, "vocab.txt holds a WordPiece vocabulary")
    assert not (tmp_path / "gpt2").exists() and not (tmp_path / "bert").exists()


def test_special_tokens_tokviz_adds_travel_into_tokenizer_json_but_not_into_a_model_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    model = REAL / "botchan_en_unigram_1000.model"
    extra = ("--special-token", "<|im_start|>")
    code, _, err = run(capsys, "export", str(model), *extra, "--to", "hf", "-o", str(tmp_path / "hf"))
    assert code == 0, err
    tok = load_tokenizer(model, special_tokens=["<|im_start|>"])
    raw = tokenizers.Tokenizer.from_file(str(tmp_path / "hf" / "tokenizer.json"))
    text = "<|im_start|>user\nhello there<|im_start|> again"
    assert raw.encode(text, add_special_tokens=False).ids == tok.encode(text)
    code, _, err = run(capsys, "export", str(model), *extra, "--to", "spm", "-o", str(tmp_path / "m.model"))
    assert code == 1
    assert_one_line_error(err, "cannot hold the special tokens tokviz added (<|im_start|>)")


def bert_json(tmp_path: Path, *, lowercase: bool) -> Path:
    """A WordPiece tokenizer.json trained by tokenizers with BERT's pipeline."""
    trained = BertWordPieceTokenizer(lowercase=lowercase)
    specials: list[str | tokenizers.AddedToken] = list(BERT_SPECIALS)
    trained.train_from_iterator(iter(corpus_lines(800)), vocab_size=900, special_tokens=specials)
    path = tmp_path / f"bert-{'lower' if lowercase else 'cased'}.json"
    trained.save(str(path))
    return path


@pytest.mark.parametrize("lowercase", [True, False], ids=["uncased", "cased"])
def test_a_bert_wordpiece_model_exports_to_vocab_txt_read_with_the_same_ids(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, lowercase: bool
) -> None:
    transformers = pytest.importorskip("transformers")
    source = bert_json(tmp_path, lowercase=lowercase)
    folder = tmp_path / "bert"
    code, _, err = run(capsys, "export", str(source), "--to", "bert", "-o", str(folder))
    assert code == 0, err
    snippet = f'BertWordPieceTokenizer("{folder}/vocab.txt", lowercase={lowercase!r}, strip_accents=None'
    assert snippet in err

    original = tokenizers.Tokenizer.from_file(str(source))
    lines = (folder / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert lines == [original.id_to_token(i) for i in range(original.get_vocab_size())]
    reader = BertWordPieceTokenizer(str(folder / "vocab.txt"), lowercase=lowercase)
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    texts = corpus_lines(400, seed=9) + ["[CLS] Straße ÉCOLE 中文 [MASK][SEP] x[PAD]", "naïve café\u0301 ½"]
    for text in texts:
        ids = original.encode(text, add_special_tokens=False).ids
        assert reader.encode(text, add_special_tokens=False).ids == ids, text
        assert auto.encode(text, add_special_tokens=False) == ids, text
    assert (auto.cls_token, auto.sep_token, auto.mask_token, auto.unk_token) == (
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "[UNK]",
    )

    code, _, err = run(capsys, "export", str(source), "--to", "hf", "-o", str(tmp_path / "hf"))
    assert code == 0, err
    auto = transformers.AutoTokenizer.from_pretrained(str(tmp_path / "hf"))
    assert all(
        auto.encode(t, add_special_tokens=False) == original.encode(t, add_special_tokens=False).ids
        for t in texts
    )


def test_a_wordpiece_model_without_berts_pipeline_is_refused_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    doc = json.loads(bert_json(tmp_path, lowercase=True).read_text(encoding="utf-8"))
    doc["pre_tokenizer"] = {"type": "Whitespace"}
    source = tmp_path / "whitespace.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = run(capsys, "export", str(source), "--to", "bert", "-o", str(tmp_path / "out"))
    assert code == 1
    assert_one_line_error(err, "split words with the BertPreTokenizer")
    for kind in ("gpt2", "spm"):
        code, _, err = run(capsys, "export", str(source), "--to", kind, "-o", str(tmp_path / kind))
        assert code == 1 and "\n" not in err.strip()
    # tokenizer.json holds any pipeline: the library's own file is written.
    code, _, err = run(capsys, "export", str(source), "--to", "hf", "-o", str(tmp_path / "hf"))
    assert code == 0, err
