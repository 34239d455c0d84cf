"""Folders as ``transformers`` saves them open with all their added and special tokens.

A byte-level BPE is trained here by the ``tokenizers`` library and saved as ``vocab.json`` +
``merges.txt`` with the side files ``transformers`` 4 writes (``added_tokens.json``,
``special_tokens_map.json``, ``tokenizer_config.json`` with ``added_tokens_decoder``), or by
``transformers`` itself (``save_pretrained``). tokviz's ids are compared with
``GPT2TokenizerFast.from_pretrained(folder)`` when ``transformers`` is installed, and always with
the ``tokenizers`` library.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import AddedToken, Regex, decoders, models, pre_tokenizers, trainers
from tokenizers import Tokenizer as Library

from tests.multilingual import corpus_lines
from tokviz.core.formats import load_warnings
from tokviz.core.formats.hf_engine import HFTokenizer
from tokviz.core.formats.hf_folder import PRETOKENIZER_ASSUMED
from tokviz.core.formats.hf_json import to_oniguruma
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.pretok.bytes_ import bytes_to_gpt2_str
from tokviz.core.pretok.pretokenize import CL100K_PATTERN

LINES = corpus_lines(400, seed=21) + corpus_lines(150)
TEXT = "Führer<|im_start|>user\nHallo, Welt!<|im_end|><|endoftext|> 中文 😀 don't"


@pytest.fixture(scope="module")
def trained() -> Library:
    tk = Library(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=700,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tk.train_from_iterator(corpus_lines(1500, seed=20), trainer)
    return tk


def pair(tk: Library, folder: Path) -> Path:
    """``vocab.json`` + ``merges.txt`` as ``tokenizers`` writes them (``model.save``)."""
    folder.mkdir(parents=True, exist_ok=True)
    tk.model.save(str(folder))
    return folder


def v4_side_files(folder: Path) -> dict[str, int]:
    """The side files transformers 4 writes for two added specials and a non-special ``ß``-like token.

    Returns the ids they give: ``<|im_start|>``/``<|im_end|>`` after the vocabulary and ``Führer``
    added as a plain (not special) token, as a user's ``add_tokens(["Führer"])`` would.
    """
    n = len(json.loads((folder / "vocab.json").read_text(encoding="utf-8")))
    ids = {"Führer": n, "<|im_start|>": n + 1, "<|im_end|>": n + 2}
    (folder / "added_tokens.json").write_text(json.dumps(ids), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(
        json.dumps(
            {
                "bos_token": "<|endoftext|>",
                "eos_token": {"content": "<|endoftext|>", "lstrip": False, "normalized": False},
                "unk_token": "<|endoftext|>",
                "additional_special_tokens": ["<|im_start|>", "<|im_end|>"],
            }
        ),
        encoding="utf-8",
    )

    def entry(content: str, special: bool) -> dict[str, object]:
        return {
            "content": content,
            "lstrip": False,
            "normalized": not special,
            "rstrip": False,
            "single_word": False,
            "special": special,
        }

    decoder = {"0": entry("<|endoftext|>", True)} | {
        str(i): entry(text, text.startswith("<")) for text, i in ids.items()
    }
    config = {"tokenizer_class": "GPT2Tokenizer", "add_prefix_space": False, "added_tokens_decoder": decoder}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return ids


def transformers_ids(folder: Path, texts: list[str]) -> list[list[int]] | None:
    """``GPT2TokenizerFast.from_pretrained(folder)``'s ids, or None without transformers."""
    try:
        from transformers import GPT2TokenizerFast
    except ImportError:
        return None
    fast = GPT2TokenizerFast.from_pretrained(str(folder))
    return [fast(t, add_special_tokens=False)["input_ids"] for t in texts]


def test_a_transformers_4_folder_opens_with_all_its_added_tokens(tmp_path: Path, trained: Library) -> None:
    folder = pair(trained, tmp_path / "chat-model")
    ids = v4_side_files(folder)
    tok = load_tokenizer(folder)
    assert isinstance(tok, HFTokenizer) and tok.name == "chat-model"
    assert tok.special_tokens == {
        "<|endoftext|>": 0,
        "<|im_start|>": ids["<|im_start|>"],
        "<|im_end|>": ids["<|im_end|>"],
    }
    encoded = tok.encode(TEXT)
    # One id each, as the issue asks: <|endoftext|> is not seven ids, and Führer (added, not special)
    # is matched as text before BPE.
    assert encoded[0] == ids["Führer"] and not tok.is_special(ids["Führer"])
    assert encoded.count(0) == 1 and ids["<|im_start|>"] in encoded
    assert tok.assumptions == ()  # the config names GPT2Tokenizer, whose pattern is GPT-2's
    assert load_warnings(tok) == ()
    expected = transformers_ids(folder, [TEXT, *LINES])
    if expected is not None:
        assert [tok.encode(t) for t in [TEXT, *LINES]] == expected
    # Either file of the pair names the same folder.
    assert load_tokenizer(folder / "merges.txt").encode(TEXT) == encoded


def test_a_folder_saved_by_transformers_opens_its_tokenizer_json(tmp_path: Path, trained: Library) -> None:
    transformers = pytest.importorskip("transformers")
    folder = pair(trained, tmp_path / "saved")
    fast = transformers.GPT2TokenizerFast(
        vocab_file=str(folder / "vocab.json"), merges_file=str(folder / "merges.txt")
    )
    fast.add_tokens(["Führer"])
    fast.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    fast.save_pretrained(str(folder))
    tok = load_tokenizer(folder)
    for text in [TEXT, *LINES]:
        assert tok.encode(text) == fast(text, add_special_tokens=False)["input_ids"], text


def test_a_bare_pair_says_its_pre_tokenizer_was_assumed(tmp_path: Path, trained: Library) -> None:
    folder = pair(trained, tmp_path / "bare")
    tok = load_tokenizer(folder / "vocab.json")
    assert tok.assumptions == (PRETOKENIZER_ASSUMED,) == ("pre-tokenizer assumed: GPT-2",)
    assert tok.special_tokens == {"<|endoftext|>": 0}  # no merge makes it: GPT-2's own layout
    for text in LINES:
        assert tok.encode(text) == trained.encode(text, add_special_tokens=False).ids
    assert tok.replay_note is None and tok.pretokenizer.name == "gpt2"


def test_an_unknown_tokenizer_class_is_named_when_gpt2_is_assumed(tmp_path: Path, trained: Library) -> None:
    folder = pair(trained, tmp_path / "clip-like")
    (folder / "tokenizer_config.json").write_text(
        json.dumps({"tokenizer_class": "CLIPTokenizer"}), encoding="utf-8"
    )
    tok = load_tokenizer(folder)
    assert tok.assumptions == (PRETOKENIZER_ASSUMED,)
    assert any("names CLIPTokenizer" in w for w in load_warnings(tok))


def test_a_pattern_and_special_tokens_can_be_given(tmp_path: Path, trained: Library) -> None:
    folder = pair(trained, tmp_path / "cl100k-style")
    tok = load_tokenizer(folder, pattern="cl100k", special_tokens=["<|endoftext|>", "<|fim|>"])
    assert tok.assumptions == () and tok.pretokenizer.name == "cl100k"
    assert tok.special_tokens == {"<|endoftext|>": 0, "<|fim|>": 700}
    reference = Library.from_str(trained.to_str())
    reference.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(to_oniguruma(CL100K_PATTERN)), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    reference.add_special_tokens([AddedToken("<|fim|>", special=True, normalized=False)])
    for text in [*LINES, "12345 numbers   and\n\n  spaces<|fim|>x"]:
        assert tok.encode(text) == reference.encode(text, add_special_tokens=False).ids, text
    # A GPT-2 reading of digits differs from cl100k's groups of three: the pattern took effect.
    assert tok.encode("12345") != load_tokenizer(folder).encode("12345")


def test_a_pattern_for_a_tokenizer_json_is_refused(tmp_path: Path, trained: Library) -> None:
    trained.save(str(tmp_path / "tokenizer.json"))
    from tokviz.core.errors import TokenizerLoadError

    with pytest.raises(TokenizerLoadError, match="carries its own pre-tokenizer"):
        load_tokenizer(tmp_path / "tokenizer.json", pattern="cl100k")


def test_a_vocabulary_missing_single_bytes_loads_with_transformers_ids(
    tmp_path: Path, trained: Library
) -> None:
    """MPT/StarCoder-style: bytes C0, C1, F5-FF (never in UTF-8) and one UTF-8 byte have no token."""
    folder = pair(trained, tmp_path / "gappy")
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    merges = (folder / "merges.txt").read_text(encoding="utf-8")
    unused = next(b for b in (0x7F, 0x9B, 0xBF) if bytes_to_gpt2_str(bytes([b])) not in merges)
    for b in [0xC0, 0xC1, *range(0xF5, 0x100), unused]:
        del vocab[bytes_to_gpt2_str(bytes([b]))]
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tok = load_tokenizer(folder)
    text = f"odd {chr(unused) if unused < 0x80 else bytes([0xC2, unused]).decode()} byte, then text"
    reference = Library(
        models.BPE(vocab=vocab, merges=[tuple(m.split(" ")) for m in merges.splitlines()[1:] if m])
    )
    reference.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    assert tok.encode(text) == reference.encode(text).ids
    expected = transformers_ids(folder, [text])
    if expected is not None:
        assert [tok.encode(text)] == expected
    (warning,) = load_warnings(tok)
    assert f"{unused:02X}" in warning and "drops them" in warning
    # The byte with no token is not in any span: the character's other bytes are partial tokens.
    spans = tok.encode_spans(text)
    assert b"".join(s.bytes for s in spans) == text.encode().replace(bytes([unused]), b"")


def bert_folder(folder: Path, config: dict[str, object] | None) -> Path:
    """BERT's slow-tokenizer folder: ``vocab.txt`` (one token per line) and maybe a config."""
    from tests.core.test_hf_engine import library

    vocab = library("WordPiece").get_vocab()
    folder.mkdir(parents=True, exist_ok=True)
    lines = [token for token, _ in sorted(vocab.items(), key=lambda item: item[1])]
    (folder / "vocab.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    if config is not None:
        (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    "config",
    [None, {"tokenizer_class": "BertTokenizer", "do_lower_case": False, "strip_accents": False}],
    ids=["uncased by assumption", "cased config"],
)
def test_a_bert_vocab_txt_folder_opens_as_bert_tokenizer_fast_builds_it(
    tmp_path: Path, config: dict[str, object] | None
) -> None:
    folder = bert_folder(tmp_path / "bert-mini", config)
    tok = load_tokenizer(folder)
    assert tok.template == ("[CLS]", "$A", "[SEP]")
    assert tok.special_tokens == {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    assert tok.assumptions == (() if config else ("pre-tokenizer assumed: BERT (lowercased)",))
    assert load_tokenizer(folder / "vocab.txt").encode(TEXT) == tok.encode(TEXT)
    transformers = pytest.importorskip("transformers")
    fast = transformers.BertTokenizerFast.from_pretrained(str(folder))
    for text in [TEXT, "Ça va? CAFÉ naïve", *LINES]:
        assert tok.encode(text) == fast(text, add_special_tokens=False)["input_ids"], text
