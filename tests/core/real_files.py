"""Real tokenizer files from public models, each with the reference library that defines its ids.

The files in ``tests/data/real/`` were made by other projects (see its ``NOTICE``): Whisper's
multilingual vocabulary as a transformers folder and as a ``.tiktoken`` rank file, SentencePiece's
own test models and Mistral's first (Llama-2 style, byte fallback) SentencePiece model. More files
are *derived* the way users derive them, with ``transformers``: ``save_pretrained`` of a folder
gives a real ``tokenizer.json``, ``LlamaTokenizerFast`` / ``T5TokenizerFast`` convert a
SentencePiece model to one, ``BertTokenizerFast`` writes a WordPiece folder.

A :class:`RealCase` says what tokviz loads and how the reference loads and encodes the same text
(no special tokens added around it). ``tests/core/test_real_files.py`` and
``benchmarks/bench_real_files.py`` both use :func:`real_cases`. Nothing here touches the network.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "real"

# Whisper's tokenizer.py (openai-whisper 20250625) builds its tiktoken Encoding with this pattern
# (GPT-2's original one) and appends its special tokens after the ranks, in this order.
WHISPER_PATTERN = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
WHISPER_SPECIALS_HEAD = ("<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|zh|>", "<|de|>")


@dataclass
class RealCase:
    """One real file: how tokviz loads it and how its reference library loads and encodes text."""

    name: str
    kind: str
    reference_name: str
    build: Callable[[Path], Path]  # returns the path tokviz loads (may write derived files in the folder)
    load_reference: Callable[[Path], Any]
    encode_reference: Callable[[Any, str], list[int]]
    decode_reference: Callable[[Any, list[int]], str]
    load_kwargs: dict[str, Any] = field(default_factory=dict)
    needs: tuple[str, ...] = ()  # modules the case needs beyond tokviz's own dependencies


def whisper_tiktoken_specials(first_id: int) -> dict[str, int]:
    """The first few of Whisper's special tokens with the ids its tokenizer.py gives them."""
    return {text: first_id + i for i, text in enumerate(WHISPER_SPECIALS_HEAD)}


def _data(name: str) -> Callable[[Path], Path]:
    return lambda _folder: DATA / name


# ------------------------------------------------------------------------------- the references
def _tokenizers_file(path: Path) -> Any:
    from tokenizers import Tokenizer as Library

    return Library.from_file(str(path))


def _tokenizers_encode(ref: Any, text: str) -> list[int]:
    return list(ref.encode(text, add_special_tokens=False).ids)


def _tokenizers_decode(ref: Any, ids: list[int]) -> str:
    return str(ref.decode(ids, skip_special_tokens=False))


def _transformers_folder(path: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(path))


def _transformers_encode(ref: Any, text: str) -> list[int]:
    return list(ref.encode(text, add_special_tokens=False))


def _transformers_decode(ref: Any, ids: list[int]) -> str:
    return str(ref.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False))


def _sentencepiece(path: Path) -> Any:
    import sentencepiece

    return sentencepiece.SentencePieceProcessor(model_file=str(path))


def _sentencepiece_encode(ref: Any, text: str) -> list[int]:
    return list(ref.encode(text))


def _sentencepiece_decode(ref: Any, ids: list[int]) -> str:
    return str(ref.decode(ids))


def _whisper_tiktoken(path: Path) -> Any:
    import base64

    import tiktoken

    # As whisper/tokenizer.py reads it: every line split in two, base64 "=" being the empty token.
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in path.read_text().splitlines() if line)
    }
    return tiktoken.Encoding(
        name=path.name,
        pat_str=WHISPER_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=whisper_tiktoken_specials(len(ranks)),
    )


def _tiktoken_encode(ref: Any, text: str) -> list[int]:
    return list(ref.encode(text, allowed_special="all"))


def _tiktoken_decode(ref: Any, ids: list[int]) -> str:
    return str(ref.decode(ids))


class _Tekken:
    """mistral-common's Tekkenizer as its source builds it (mistral-common itself pins numpy < 2.4,
    so it is not installed here): tiktoken over the first ``default_vocab_size - n`` ranks of the
    ``vocab`` list with the file's pattern and no special tokens; a rank's id is ``rank + n``."""

    def __init__(self, path: Path) -> None:
        import base64
        import json

        import tiktoken

        doc = json.loads(path.read_text(encoding="utf-8"))
        config = doc["config"]
        self.n = config["default_num_special_tokens"]
        inner = config["default_vocab_size"] - self.n
        ranks = {base64.b64decode(e["token_bytes"]): e["rank"] for e in doc["vocab"][:inner]}
        self.encoding = tiktoken.Encoding(
            path.name, pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={}
        )

    def encode(self, text: str) -> list[int]:
        return [t + self.n for t in self.encoding.encode(text)]

    def decode(self, ids: list[int]) -> str:
        return str(self.encoding.decode([t - self.n for t in ids if t >= self.n]))


# ------------------------------------------------------------------------------- derived files
def _saved_by_transformers(source: Path) -> Callable[[Path], Path]:
    """``AutoTokenizer.from_pretrained(source).save_pretrained(folder)``: a real tokenizer.json."""

    def build(folder: Path) -> Path:
        from transformers import AutoTokenizer

        AutoTokenizer.from_pretrained(str(source)).save_pretrained(str(folder))
        return folder / "tokenizer.json"

    return build


def _converted(class_name: str, model: Path, saved_as: str) -> Callable[[Path], Path]:
    """A SentencePiece model converted by a transformers class and saved again (tokenizer.json).

    transformers 5 converts a folder holding the model under its usual name (``from_pretrained``);
    ``save_pretrained`` then writes the converted ``tokenizer.json``.
    """

    def build(folder: Path) -> Path:
        import shutil

        import transformers

        source = folder / "sentencepiece"
        source.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(model, source / saved_as)
        getattr(transformers, class_name).from_pretrained(str(source)).save_pretrained(str(folder))
        return folder / "tokenizer.json"

    return build


def _tiktoken_converted(encoding: str) -> Callable[[Path], Path]:
    """A bundled OpenAI encoding turned into tokenizer.json by transformers' ``TikTokenConverter``.

    This is how Llama 3 and similar files were made: a ``Split`` pre-tokenizer with the regex, a
    ByteLevel step without its own regex, ``ignore_merges`` and the special tokens after the ranks.
    """

    def build(folder: Path) -> Path:
        import base64

        from transformers.convert_slow_tokenizer import TikTokenConverter

        from tokviz.core.formats.encodings import bundled_encoding, load_bundled_ranks
        from tokviz.core.pretok.pretokenize import PUBLISHED_PATTERNS

        folder.mkdir(parents=True, exist_ok=True)
        ranks = folder / f"{encoding}.tiktoken"
        lines = (
            f"{base64.b64encode(t).decode()} {r}"
            for t, r in sorted(load_bundled_ranks(encoding).items(), key=lambda x: x[1])
        )
        ranks.write_text("\n".join(lines) + "\n", encoding="ascii")
        specials = sorted(
            bundled_encoding(encoding).special_tokens, key=bundled_encoding(encoding).special_tokens.get
        )
        converter = TikTokenConverter(
            vocab_file=str(ranks), pattern=PUBLISHED_PATTERNS[encoding], extra_special_tokens=specials
        )
        converter.converted().save(str(folder / "tokenizer.json"))
        return folder / "tokenizer.json"

    return build


def bert_vocab_words() -> list[str]:
    """A BERT-style WordPiece vocabulary: specials, characters, ``##`` characters and words.

    The words are the whole-word pieces of SentencePiece's botchan model (lowercased), so the
    vocabulary is shaped like a trained one without being copied from any BERT release.
    """
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_file=str(DATA / "botchan_en_unigram_1000.model"))
    chars = [chr(c) for c in range(33, 127)] + list("äöüßéèàçñåøæœ")
    words = []
    for i in range(sp.get_piece_size()):
        piece = sp.id_to_piece(i)
        if piece.startswith("\u2581") and len(piece) > 2 and piece[1:].isalpha():
            words.append(piece[1:].lower())
        elif piece.isalpha() and len(piece) > 1:
            words.append("##" + piece.lower())
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    seen: dict[str, None] = {}
    for w in [*specials, *chars, *("##" + c for c in chars), *words]:
        seen.setdefault(w, None)
    return list(seen)


def _bert_folder(with_json: bool) -> Callable[[Path], Path]:
    def build(folder: Path) -> Path:
        from transformers import BertTokenizerFast

        folder.mkdir(parents=True, exist_ok=True)
        vocab = folder / "vocab.txt"
        vocab.write_text("\n".join(bert_vocab_words()) + "\n", encoding="utf-8")
        BertTokenizerFast.from_pretrained(str(folder)).save_pretrained(str(folder))
        if not with_json:
            (folder / "tokenizer.json").unlink()
            return folder / "vocab.txt"
        return folder / "tokenizer.json"

    return build


def _folder_of(path: Path) -> Any:
    """The reference for a derived folder: transformers loads the folder tokviz's file is in."""
    return _transformers_folder(path.parent)


# ------------------------------------------------------------------------------- the cases
def real_cases() -> list[RealCase]:
    """Every real file with its reference, in the order of the README's table."""
    folder = DATA / "whisper-multilingual"
    mistral = DATA / "mistral-tokenizer.model.v1"
    return [
        RealCase(
            "whisper multilingual folder",
            "vocab.json + merges.txt + added_tokens.json",
            "transformers AutoTokenizer",
            _data("whisper-multilingual"),
            _transformers_folder,
            _transformers_encode,
            _transformers_decode,
            needs=("transformers",),
        ),
        RealCase(
            "whisper multilingual tokenizer.json",
            "tokenizer.json (save_pretrained of the folder)",
            "tokenizers",
            _saved_by_transformers(folder),
            _tokenizers_file,
            _tokenizers_encode,
            _tokenizers_decode,
            needs=("transformers",),
        ),
        RealCase(
            "whisper multilingual.tiktoken",
            ".tiktoken (empty-token line) + Whisper's pattern and specials",
            "tiktoken",
            _data("multilingual.tiktoken"),
            _whisper_tiktoken,
            _tiktoken_encode,
            _tiktoken_decode,
            load_kwargs={"pattern": WHISPER_PATTERN, "special_tokens": whisper_tiktoken_specials(50257)},
        ),
        RealCase(
            "sentencepiece botchan BPE",
            "SentencePiece .model (BPE)",
            "sentencepiece",
            _data("botchan_en_bpe_1000.model"),
            _sentencepiece,
            _sentencepiece_encode,
            _sentencepiece_decode,
        ),
        RealCase(
            "sentencepiece botchan unigram",
            "SentencePiece .model (unigram)",
            "sentencepiece",
            _data("botchan_en_unigram_1000.model"),
            _sentencepiece,
            _sentencepiece_encode,
            _sentencepiece_decode,
        ),
        RealCase(
            "sentencepiece kyoto ja unigram",
            "SentencePiece .model (unigram, Japanese)",
            "sentencepiece",
            _data("kyoto_ja_unigram_8000.model"),
            _sentencepiece,
            _sentencepiece_encode,
            _sentencepiece_decode,
        ),
        RealCase(
            "mistral v1 .model",
            "SentencePiece .model.v1 (BPE, byte fallback)",
            "sentencepiece",
            _data("mistral-tokenizer.model.v1"),
            _sentencepiece,
            _sentencepiece_encode,
            _sentencepiece_decode,
        ),
        RealCase(
            "mistral tekken (first 5,000 ranks)",
            "tekken.json (mistral-common: 1,000 special ids, then tiktoken ranks)",
            "tiktoken, as mistral-common's Tekkenizer builds it",
            _data("tekken_240911_first5000.json"),
            _Tekken,
            lambda ref, text: ref.encode(text),
            lambda ref, ids: ref.decode(ids),
        ),
        RealCase(
            "mistral v1 as Llama tokenizer.json",
            "tokenizer.json (LlamaTokenizer: Metaspace, byte fallback)",
            "tokenizers",
            _converted("LlamaTokenizer", mistral, "tokenizer.model"),
            _tokenizers_file,
            _tokenizers_encode,
            _tokenizers_decode,
            needs=("transformers", "google.protobuf"),
        ),
        RealCase(
            "botchan unigram as T5 tokenizer.json",
            "tokenizer.json (T5Tokenizer: Unigram, Precompiled normalizer)",
            "tokenizers",
            _converted("T5Tokenizer", DATA / "botchan_en_unigram_1000.model", "spiece.model"),
            _tokenizers_file,
            _tokenizers_encode,
            _tokenizers_decode,
            needs=("transformers", "google.protobuf"),
        ),
        RealCase(
            "cl100k as tokenizer.json by TikTokenConverter",
            "tokenizer.json (Split Isolated + ByteLevel, ignore_merges)",
            "tokenizers",
            _tiktoken_converted("cl100k"),
            _tokenizers_file,
            _tokenizers_encode,
            _tokenizers_decode,
            needs=("transformers",),
        ),
        RealCase(
            "BERT WordPiece tokenizer.json",
            "tokenizer.json (BertTokenizerFast: WordPiece)",
            "tokenizers",
            _bert_folder(with_json=True),
            _tokenizers_file,
            _tokenizers_encode,
            _tokenizers_decode,
            needs=("transformers",),
        ),
        RealCase(
            "BERT vocab.txt folder",
            "vocab.txt + tokenizer_config.json",
            "transformers AutoTokenizer",
            _bert_folder(with_json=False),
            _folder_of,
            _transformers_encode,
            _transformers_decode,
            needs=("transformers",),
        ),
    ]


def case_for(path: Path) -> RealCase:
    """A case for any file or folder a user has, its reference picked by its kind.

    A folder or a ``tokenizer.json`` is checked against ``transformers`` / ``tokenizers``, a
    ``.tiktoken`` file against tiktoken with the pattern and special tokens tokviz finds for it
    (OpenAI's files are known by their SHA-256), anything else against ``sentencepiece``.
    """
    path = Path(path)
    name = f"{path.parent.name}/{path.name}" if path.name == "tokenizer.json" else path.name
    if path.is_dir():
        return RealCase(
            name,
            "folder",
            "transformers AutoTokenizer",
            lambda _f: path,
            _transformers_folder,
            _transformers_encode,
            _transformers_decode,
            needs=("transformers",),
        )
    if name.endswith(".json"):
        return RealCase(
            name,
            "tokenizer.json",
            "tokenizers",
            lambda _f: path,
            _tokenizers_file,
            _tokenizers_encode,
            _tokenizers_decode,
        )
    if name.endswith(".tiktoken"):
        return RealCase(
            name,
            ".tiktoken",
            "tiktoken",
            lambda _f: path,
            _tiktoken_as_tokviz_reads,
            _tiktoken_encode,
            _tiktoken_decode,
        )
    return RealCase(
        name,
        "SentencePiece model",
        "sentencepiece",
        lambda _f: path,
        _sentencepiece,
        _sentencepiece_encode,
        _sentencepiece_decode,
    )


def _tiktoken_as_tokviz_reads(path: Path) -> Any:
    """tiktoken's Encoding with the ranks, pattern and special tokens tokviz found for ``path``."""
    import tiktoken
    from tiktoken.load import load_tiktoken_bpe

    from tokviz.core.formats.registry import load_tokenizer

    tokenizer = load_tokenizer(path)
    return tiktoken.Encoding(
        name=path.name,
        pat_str=tokenizer.pretokenizer.pattern,
        mergeable_ranks=load_tiktoken_bpe(str(path)),
        special_tokens=dict(tokenizer.special_tokens),
    )


def available(case: RealCase) -> str | None:
    """Why ``case`` cannot run here (a module missing), else None."""
    import importlib.util

    for module in case.needs:
        try:
            found = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            found = None
        if found is None:
            return f"{module} is not installed"
    return None


def quiet_transformers() -> None:
    """Keep transformers from printing its PyTorch notice into test and benchmark output."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
