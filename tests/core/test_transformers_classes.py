"""A transformers folder opens as the tokenizer class its ``tokenizer_config.json`` names builds it.

Each folder is made by ``transformers`` itself, offline: the class is constructed from a small
byte-level BPE trained here (``Qwen2Tokenizer(vocab=..., merges=...)``, ``GPT2Tokenizer``,
``RobertaTokenizer`` ...) and saved with ``save_pretrained``; the folder then holds either the
``tokenizer.json`` it writes or, as older folders do, ``vocab.json`` + ``merges.txt`` beside the
config. tokviz's ids are compared with ``AutoTokenizer.from_pretrained(folder)``'s. Qwen2 is the
class whose pipeline differs from GPT-2's (an NFC normalizer, single digits, its own regex), so
the texts hold decomposed accents, digit runs and CJK.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from tokenizers import Tokenizer as Library
from tokenizers import decoders, models, pre_tokenizers, trainers

from tests.multilingual import corpus_lines, corpus_sample
from tokviz.core.formats.exports import write_export
from tokviz.core.formats.hf_classes import BYTE_LEVEL_CLASSES, QWEN2_PATTERN
from tokviz.core.formats.hf_folder import PRETOKENIZER_ASSUMED
from tokviz.core.formats.registry import load_tokenizer

transformers = pytest.importorskip("transformers")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

NFC_TEXTS = [
    "cafe\u0301 au lait, re\u0301sume\u0301 and Ame\u0301lie",  # decomposed é: NFC composes it
    "Order 1234567 shipped on 2024-05-17 for $99.95",
    "中文字符测试，日本語のテキスト、한국어 문장 12345",
    "A\u030a ångström \u212b Å x\u0301y\u0308z",
    "   leading spaces\n\n\ttabs and 'quotes' don't we'll",
]
SOME_LINES = NFC_TEXTS + corpus_lines(120, seed=31)
# Each class, as its folder's tokenizer_config.json names it (transformers 4 wrote the *Fast names too).
CLASS_NAMES = [
    "Qwen2Tokenizer",
    "Qwen2TokenizerFast",
    "GPT2Tokenizer",
    "GPT2TokenizerFast",
    "CodeGenTokenizer",
    "RobertaTokenizer",
    "BartTokenizer",
    "WhisperTokenizer",
]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_pair(tmp_path_factory.mktemp("pair"))


def write_pair(folder: Path) -> Path:
    """``vocab.json`` + ``merges.txt`` of a byte-level BPE trained on multilingual text, in ``folder``."""
    tk = Library(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=900,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tk.train_from_iterator(corpus_lines(2000, seed=30) + NFC_TEXTS * 5, trainer)
    folder.mkdir(parents=True, exist_ok=True)
    tk.model.save(str(folder))
    return folder


def saved_folder(pair: Path, class_name: str, folder: Path, *, with_tokenizer_json: bool) -> Path:
    """The folder ``save_pretrained`` writes for ``class_name`` built from ``pair``; without
    tokenizer.json it holds vocab.json + merges.txt and the config, as folders saved before
    tokenizer.json existed do."""
    cls = getattr(transformers, class_name.removesuffix("Fast"))
    made = cls(vocab=str(pair / "vocab.json"), merges=str(pair / "merges.txt"))
    made.save_pretrained(str(folder))
    config_path = folder / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["tokenizer_class"] = class_name
    config_path.write_text(json.dumps(config), encoding="utf-8")
    if not with_tokenizer_json:
        (folder / "tokenizer.json").unlink()
        shutil.copy(pair / "vocab.json", folder)
        shutil.copy(pair / "merges.txt", folder)
    return folder


def auto_ids(folder: Path, texts: list[str]) -> list[list[int]]:
    """AutoTokenizer's ids of each text, in one batch call."""
    auto = transformers.AutoTokenizer.from_pretrained(str(folder))
    return list(auto(texts, add_special_tokens=False)["input_ids"])


def mismatches(folder: Path, texts: list[str]) -> list[str]:
    tok = load_tokenizer(folder)
    expected = auto_ids(folder, texts)
    return [text for text, ids in zip(texts, expected, strict=True) if tok.encode(text) != ids]


@pytest.mark.parametrize("with_tokenizer_json", [False, True], ids=["vocab+merges", "tokenizer.json"])
@pytest.mark.parametrize("class_name", CLASS_NAMES)
def test_each_class_folder_gives_autotokenizers_ids(
    tmp_path: Path, pair: Path, class_name: str, with_tokenizer_json: bool
) -> None:
    folder = saved_folder(pair, class_name, tmp_path / class_name, with_tokenizer_json=with_tokenizer_json)
    assert mismatches(folder, SOME_LINES) == []
    assert load_tokenizer(folder).assumptions == ()


@pytest.mark.slow
@pytest.mark.parametrize("class_name", ["Qwen2Tokenizer", "GPT2Tokenizer", "RobertaTokenizer"])
def test_every_multilingual_line_matches_autotokenizer(tmp_path: Path, pair: Path, class_name: str) -> None:
    folder = saved_folder(pair, class_name, tmp_path / class_name, with_tokenizer_json=False)
    # corpus_sample: the 30,000 lines that bring a piece, a neighbour or a case not met before.
    assert mismatches(folder, NFC_TEXTS + corpus_sample()) == []


def test_a_qwen2_folder_composes_accents_and_keeps_digits_apart(tmp_path: Path, pair: Path) -> None:
    folder = saved_folder(pair, "Qwen2Tokenizer", tmp_path / "qwen", with_tokenizer_json=False)
    tok = load_tokenizer(folder)
    # NFC: a decomposed é encodes as the composed one; Qwen2's regex: one chunk per digit.
    assert tok.encode("cafe\u0301") == tok.encode("caf\u00e9")
    assert [tok.decode([i]) for i in tok.encode("12345")] == list("12345")


def test_the_table_holds_transformers_own_qwen2_regex() -> None:
    from transformers.models.qwen2 import tokenization_qwen2

    assert QWEN2_PATTERN == tokenization_qwen2.PRETOKENIZE_REGEX
    assert BYTE_LEVEL_CLASSES["Qwen2Tokenizer"].normalizer == "NFC"


def test_a_qwen2_export_keeps_its_normalizer_and_pattern(tmp_path: Path, pair: Path) -> None:
    source = saved_folder(pair, "Qwen2Tokenizer", tmp_path / "qwen", with_tokenizer_json=False)
    write_export(load_tokenizer(source), "hf", f"{tmp_path / 'exported'}/")
    exported = Library.from_file(str(tmp_path / "exported" / "tokenizer.json"))
    expected = auto_ids(source, SOME_LINES)
    assert [exported.encode(t, add_special_tokens=False).ids for t in SOME_LINES] == expected
    assert load_tokenizer(tmp_path / "exported").assumptions == ()
    # vocab.json + merges.txt cannot hold the normalizer: the folder gets the tokenizer.json that does,
    # and AutoTokenizer reads it with Qwen2's ids.
    write_export(load_tokenizer(source), "gpt2", f"{tmp_path / 'pair-export'}/")
    assert (tmp_path / "pair-export" / "tokenizer.json").is_file()
    assert auto_ids(tmp_path / "pair-export", SOME_LINES) == expected


def test_an_assumption_travels_with_a_folder_export(tmp_path: Path, pair: Path) -> None:
    bare = tmp_path / "bare"
    shutil.copytree(pair, bare)
    tok = load_tokenizer(bare)
    assert tok.assumptions == (PRETOKENIZER_ASSUMED,)
    for kind in ("hf", "gpt2"):
        write_export(tok, kind, f"{tmp_path / f'out-{kind}'}/")
        assert load_tokenizer(tmp_path / f"out-{kind}").assumptions == (PRETOKENIZER_ASSUMED,), kind


@pytest.mark.parametrize("kind, name", [("hf", "tokenizer-file.json"), ("model", "x.tokviz")])
def test_a_file_with_no_room_for_an_assumption_is_refused(
    tmp_path: Path, pair: Path, kind: str, name: str
) -> None:
    from tokviz.core.errors import ExportError

    bare = tmp_path / "bare"
    shutil.copytree(pair, bare)
    with pytest.raises(ExportError, match="pre-tokenizer assumed: GPT-2.*--pattern"):
        write_export(load_tokenizer(bare), kind, tmp_path / name)
    assert not (tmp_path / name).exists()
    given = load_tokenizer(bare, pattern="gpt2")
    assert given.assumptions == ()
    write_export(given, kind, tmp_path / name)


@pytest.mark.parametrize("with_tokenizer_json", [False, True], ids=["vocab.txt", "tokenizer.json"])
@pytest.mark.parametrize("lowercase", [True, False], ids=["uncased", "cased"])
def test_a_bert_folder_gives_autotokenizers_ids(
    tmp_path: Path, lowercase: bool, with_tokenizer_json: bool
) -> None:
    from tests.core.test_transformers_folders import bert_folder

    source = bert_folder(tmp_path / "source", None)
    made = transformers.BertTokenizer(vocab=str(source / "vocab.txt"), do_lower_case=lowercase)
    folder = tmp_path / "bert"
    made.save_pretrained(str(folder))
    if not with_tokenizer_json:
        (folder / "tokenizer.json").unlink()
        shutil.copy(source / "vocab.txt", folder)
    assert mismatches(folder, SOME_LINES + ["Ça va? CAFÉ naïve"]) == []
    assert load_tokenizer(folder).assumptions == ()


def test_a_vocab_txt_whose_config_names_another_class_says_bert_was_assumed(tmp_path: Path) -> None:
    from tests.core.test_transformers_folders import bert_folder

    folder = bert_folder(tmp_path / "mpnet-like", {"tokenizer_class": "MPNetTokenizer"})
    assert load_tokenizer(folder).assumptions == ("pre-tokenizer assumed: BERT (lowercased)",)


@pytest.mark.parametrize(
    "class_name, model",
    [("LlamaTokenizer", "mistral-tokenizer.model.v1"), ("T5Tokenizer", "kyoto_ja_unigram_8000.model")],
)
def test_a_sentencepiece_folder_gives_autotokenizers_ids_from_its_tokenizer_json(
    tmp_path: Path, class_name: str, model: str
) -> None:
    real = Path(__file__).parents[1] / "data" / "real"
    made = getattr(transformers, class_name)(vocab_file=str(real / model))
    folder = tmp_path / class_name
    made.save_pretrained(str(folder))
    assert mismatches(folder, SOME_LINES) == []
    assert load_tokenizer(folder).assumptions == ()
    # Without tokenizer.json tokviz reads tokenizer.model with sentencepiece, and says so: transformers'
    # own conversion of the model can give other ids.
    (folder / "tokenizer.json").unlink()
    shutil.copy(real / model, folder / "tokenizer.model")
    (assumed,) = load_tokenizer(folder).assumptions
    assert assumed == f"ids assumed as sentencepiece gives them, not as transformers converts {class_name}"
