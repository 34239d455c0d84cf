"""Folders as ``transformers`` saves them: ``vocab.json`` + ``merges.txt`` with their side files.

The pair is a byte-level BPE (GPT-2's layout). Like ``GPT2TokenizerFast`` this builds a
``tokenizers`` BPE with a ByteLevel pre-tokenizer and every added token the folder names:
``tokenizer_config.json`` (``added_tokens_decoder``, ``add_prefix_space``, ``bos_token`` ...),
``added_tokens.json`` and ``special_tokens_map.json``. Added tokens that are not special (a
character such as ``ü`` added to a vocabulary) are matched as text before BPE, as the library
does. The library then encodes (:mod:`.hf_engine`), so ids equal what ``transformers`` gives.

The class ``tokenizer_config.json`` names gives the pre-tokenizer, the normalizer and the
``add_prefix_space`` default, as ``transformers`` builds them (:mod:`.hf_classes`: Qwen2's NFC
and its own regex, GPT-2's regex for GPT-2, RoBERTa, BART, CodeGen, Whisper ...). What the folder
does not say is assumed and said: without a class tokviz knows (or a ``pattern`` argument) the
pre-tokenizer is GPT-2's with no normalizer, and the tokenizer's ``assumptions`` read
``"pre-tokenizer assumed: GPT-2"``. A folder tokviz exported records what remained assumed in its
config (:data:`ASSUMPTIONS_KEY`), and it is read back. Without any side file, the
vocabulary entries no merge makes (GPT-2's ``<|endoftext|>``) are taken as its special tokens, the
only way they can be used (as tokviz always did; :mod:`._reach` refuses files where that would be
most of the vocabulary).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..errors import TokenizerLoadError
from ..pretok.pretokenize import NAMED_PATTERNS, resolve_pretokenizer
from ._common import (
    VOCAB_JSON_CAP,
    PathLike,
    _check_count,
    _is_int,
    _short,
    json_kind,
    read_json,
    read_text,
)
from ._reach import judge_reach, remember_warnings
from .gpt2_files import checked_vocab, read_vocab_merges
from .hf_classes import BYTE_LEVEL_CLASSES, ClassRules, byte_level_rules, is_bert_class
from .hf_config import ASSUMPTIONS_KEY, recorded_assumptions
from .hf_engine import OUTSIDE_GPT2_MAP, build_hf_tokenizer, gpt2_bytes
from .hf_json import missing_byte_warnings, to_oniguruma

SIDE_FILES = ("tokenizer_config.json", "special_tokens_map.json", "added_tokens.json")
# transformers' tokenizer classes that read vocab.json + merges.txt with GPT-2's regex and no normalizer.
GPT2_STYLE_CLASSES = frozenset(
    f"{name}{fast}"
    for name, rules in BYTE_LEVEL_CLASSES.items()
    if rules.pattern is None and rules.normalizer is None
    for fast in ("", "Fast")
)
PRETOKENIZER_ASSUMED = "pre-tokenizer assumed: GPT-2"
_SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


def load_vocab_merges(
    vocab_json: PathLike,
    merges_txt: PathLike,
    *,
    pattern: str | None = None,
    special_tokens: Mapping[str, int | None] | Iterable[str] | None = None,
    name: str | None = None,
) -> Tokenizer:
    """Load a ``vocab.json`` + ``merges.txt`` pair and the side files beside it (see the module).

    ``pattern`` (a regex, or ``gpt2``/``cl100k``) replaces the assumed GPT-2 pre-tokenizer;
    ``special_tokens`` (texts, or ``{text: id}``) are added as special tokens, as the side files'
    are. Raises :class:`TokenizerLoadError` naming the file and what is wrong.
    """
    vocab_path, merges_path = Path(vocab_json), Path(merges_txt)
    raw_vocab, merges = read_vocab_merges(vocab_path, merges_path)
    vocab = checked_vocab(raw_vocab, vocab_path.name)
    _check_merges(merges, vocab_path.name, merges_path.name, len(vocab))
    side = _side_files(vocab_path.parent)
    config = side.get("tokenizer_config.json", {})
    added = _added_tokens(side, vocab)
    if special_tokens is not None:
        added.update(_given_specials(special_tokens, vocab, added))
    made = {a + b for a, b in merges}
    # Entries longer than one byte (or outside the byte map) that are not added tokens: merges make them.
    learned = [t for t in vocab if t not in added and len(gpt2_bytes(t) or b"??") > 1]
    unmade = [t for t in learned if t not in made]
    if not side and special_tokens is None:
        # A bare pair: what no merge makes can only be used as a special token (GPT-2's own layout).
        warnings = judge_reach(
            vocab_path.name, len(learned), unmade, len(merges), "are treated as special tokens"
        )
        for token in unmade:
            added[token] = (vocab[token], True, {})
    else:
        warnings = judge_reach(vocab_path.name, len(learned), unmade, len(merges), "are never produced")

    named_class = str(config.get("tokenizer_class") or "")
    rules = byte_level_rules(named_class)
    assumptions: tuple[str, ...] = ()
    if pattern is None and rules is None:
        assumptions = (PRETOKENIZER_ASSUMED,)
        if named_class:
            warnings.append(
                f"tokenizer_config.json names {named_class}, whose pre-tokenizer tokviz does not know; "
                "GPT-2's is assumed (give the pattern if it differs)"
            )
    rules = rules or ClassRules("GPT2Converter")
    prefix = config.get("add_prefix_space")
    add_prefix_space = rules.add_prefix_space if prefix is None else bool(prefix)
    pipeline = (_normalizer(rules.normalizer), _pre_tokenizer(pattern, add_prefix_space, rules.pattern))
    hf, notes = _library_bpe(vocab, merges, added, pipeline, vocab_path.name)
    assumptions += recorded_assumptions(config, assumptions)
    tok = build_hf_tokenizer(hf, name or vocab_path.parent.name or vocab_path.stem, assumptions=assumptions)
    return remember_warnings(tok, [*warnings, *notes, *missing_byte_warnings(tok, vocab_path.name)])


def _check_merges(merges: list[tuple[str, str]], vocab_name: str, merges_name: str, vocab_size: int) -> None:
    if len(merges) > vocab_size:
        raise TokenizerLoadError(f"{vocab_name}: {len(merges):,} merges cannot fit {vocab_size:,} tokens")
    outside = OUTSIDE_GPT2_MAP.search
    for index, (left, right) in enumerate(merges):
        if outside(left) or outside(right):
            raise TokenizerLoadError(
                f"{merges_name}: merge {index} ({_short(left)} {_short(right)}) uses a character outside "
                "GPT-2's byte map"
            )


def _side_files(folder: Path) -> dict[str, Any]:
    """The side files present in ``folder``, parsed (each must be a JSON object)."""
    out: dict[str, Any] = {}
    for name in SIDE_FILES:
        path = folder / name
        if not path.is_file():
            continue
        value = read_json(path, cap=VOCAB_JSON_CAP)
        if not isinstance(value, dict):
            raise TokenizerLoadError(f"{name}: expected a JSON object, found {json_kind(value)}")
        out[name] = value
    return out


def _content(value: Any) -> str | None:
    """A special token named as a string or as ``{"content": ...}`` (transformers writes both)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    return None


AddedEntry = tuple[int | None, bool, dict[str, Any]]


def _added_tokens(side: Mapping[str, Any], vocab: Mapping[str, int]) -> dict[str, AddedEntry]:
    """``{content: (id or None, special, options)}`` from the side files, as transformers reads them."""
    config = side.get("tokenizer_config.json", {})
    added = _decoder_tokens(config)
    for content, token_id in side.get("added_tokens.json", {}).items():
        if not _is_int(token_id):
            raise TokenizerLoadError(
                f"added_tokens.json: token {_short(content)} has id {_short(token_id)}, not an integer"
            )
        added.setdefault(content, (token_id, False, {}))
    for content in _special_names(side.get("special_tokens_map.json", {})) + _special_names(config):
        if content in added:
            token_id, _special, options = added[content]
            added[content] = (token_id, True, options)
        elif content in vocab or side:
            added[content] = (vocab.get(content), True, {})
    return added


def _decoder_tokens(config: Mapping[str, Any]) -> dict[str, AddedEntry]:
    """The added tokens of tokenizer_config.json's ``added_tokens_decoder`` (``{"id": {content, ...}}``)."""
    decoder = config.get("added_tokens_decoder")
    if not isinstance(decoder, dict):
        return {}
    added: dict[str, AddedEntry] = {}
    for key, entry in decoder.items():
        content = _content(entry)
        if content is None or not str(key).isdigit():
            raise TokenizerLoadError(
                f"tokenizer_config.json: added token {_short(key)} needs an id and a content"
            )
        if isinstance(entry, dict):
            options = {
                k: bool(entry.get(k, False)) for k in ("lstrip", "rstrip", "single_word", "normalized")
            }
            added[content] = (int(key), bool(entry.get("special", False)), options)
        else:
            added[content] = (int(key), False, {})
    return added


def _special_names(source: Mapping[str, Any]) -> list[str]:
    """The special tokens a side file names: bos/eos/... and the additional (or extra) ones."""
    names = [content for key in _SPECIAL_KEYS if (content := _content(source.get(key)))]
    for key in ("additional_special_tokens", "extra_special_tokens"):  # transformers 4 and 5
        extra = source.get(key)
        if isinstance(extra, dict):
            extra = list(extra.values())
        if isinstance(extra, list):
            names.extend(c for c in map(_content, extra) if c)
    return names


def _given_specials(
    given: Mapping[str, int | None] | Iterable[str], vocab: Mapping[str, int], added: Mapping[str, AddedEntry]
) -> dict[str, AddedEntry]:
    """The caller's special tokens: ``{text: id}`` (an id of None takes the vocabulary's or the next
    free one) or texts."""
    if isinstance(given, str) or not isinstance(given, (Mapping, Iterable)):
        raise TokenizerLoadError(
            f"special tokens must be a list of strings or a {{text: id}} mapping, not {type(given).__name__}"
        )
    out: dict[str, AddedEntry] = {}
    if isinstance(given, Mapping):
        for content, token_id in given.items():
            if token_id is None:
                out.update(_given_specials([content], vocab, added))
                continue
            if not isinstance(content, str) or not _is_int(token_id) or token_id < 0:
                raise TokenizerLoadError(f"the special token {_short(content)} needs a text and an id >= 0")
            out[content] = (token_id, True, {})
        return out
    for content in given:
        if not isinstance(content, str) or not content:
            raise TokenizerLoadError(f"special tokens must be non-empty strings, got {_short(content)}")
        previous = added.get(content)
        out[content] = (vocab.get(content, previous[0] if previous else None), True, {})
    return out


def _normalizer(name: str | None) -> Any:
    """The library's normalizer a class uses (only NFC occurs among the byte-level classes), or None."""
    from tokenizers import normalizers

    return normalizers.NFC() if name == "NFC" else None


def _pre_tokenizer(pattern: str | None, add_prefix_space: bool, library_regex: str | None = None) -> Any:
    """ByteLevel alone for GPT-2's regex, else a Split on the regex before a regex-free ByteLevel.

    ``pattern`` is the caller's (Python ``regex`` syntax or a name) and wins; ``library_regex`` is a
    class's own regex, already as the library reads it.
    """
    from tokenizers import Regex, pre_tokenizers

    if pattern is None and library_regex is not None:
        onig = library_regex
    elif pattern is None or resolve_pretokenizer(pattern).pattern == NAMED_PATTERNS["gpt2"]:
        return pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=True)
    else:
        pre = resolve_pretokenizer(pattern)  # checks the regex (PretokenizerError names the problem)
        if pre.pattern is None:
            return pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False)
        onig = to_oniguruma(pre.pattern)
    split = pre_tokenizers.Split(Regex(onig), behavior="isolated", invert=False)
    return pre_tokenizers.Sequence(
        [split, pre_tokenizers.ByteLevel(add_prefix_space=add_prefix_space, use_regex=False)]
    )


def _library_bpe(
    vocab: dict[str, int],
    merges: list[tuple[str, str]],
    added: Mapping[str, AddedEntry],
    pipeline: tuple[Any, Any],
    file_name: str,
) -> tuple[Any, list[str]]:
    """The ``tokenizers`` BPE the class builds with ``pipeline`` (its normalizer, or None, and its
    pre-tokenizer), with every added token, and notes on listed ids the library does not give
    (transformers loads such folders the same way). The normalizer is set before the added tokens,
    which the library matches on normalized text unless they are special."""
    from tokenizers import Tokenizer as Library
    from tokenizers import decoders, models

    try:
        library = Library(models.BPE(vocab=vocab, merges=merges))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # plain Exception for merges outside the vocabulary, or a Rust panic
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise TokenizerLoadError(
            f"{file_name}: the tokenizers library cannot build the BPE: {first}"
        ) from None
    library.normalizer, library.pre_tokenizer = pipeline
    library.decoder = decoders.ByteLevel()
    return library, _add_tokens(library, added)


def _add_tokens(library: Any, added: Mapping[str, AddedEntry]) -> list[str]:
    """Add every added token in id order, as transformers does; notes on ids the library does not give."""
    from tokenizers import AddedToken

    notes: list[str] = []
    order = sorted(added.items(), key=lambda item: (item[1][0] is None, item[1][0] or 0))
    for content, (token_id, special, options) in order:
        settings = {"normalized": not special, **options}
        token = AddedToken(content, special=special, **settings)
        if special:
            library.add_special_tokens([token])
        else:
            library.add_tokens([token])
        got = library.token_to_id(content)
        if token_id is not None and got != token_id:
            notes.append(
                f"the added token {_short(content)} is listed with id {token_id} but gets id {got}, "
                "as in transformers (a token already in the vocabulary keeps its id; others take the next free one)"
            )
    return notes


# BertTokenizer's special tokens when no file names them.
BERT_SPECIALS = {
    "unk_token": "[UNK]",
    "sep_token": "[SEP]",
    "pad_token": "[PAD]",
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
}
WORDPIECE_ASSUMED = "pre-tokenizer assumed: BERT (lowercased)"


def load_wordpiece_vocab(
    vocab_txt: PathLike,
    *,
    special_tokens: Mapping[str, int | None] | Iterable[str] | None = None,
    name: str | None = None,
) -> Tokenizer:
    """Load BERT's ``vocab.txt`` (one WordPiece token per line, the line number its id) and the side
    files beside it, built as ``BertTokenizerFast`` builds it: BERT's normalizer (lowercasing
    unless ``do_lower_case`` is false, ``strip_accents``, ``tokenize_chinese_chars`` from
    ``tokenizer_config.json``), BERT's pre-tokenizer, ``##`` pieces and ``[CLS] $A [SEP]``.

    Without a ``tokenizer_config.json`` the pipeline is BERT's uncased one by assumption, and the
    tokenizer's ``assumptions`` say so.
    """
    from tokenizers import Tokenizer as Library
    from tokenizers import decoders, models, normalizers, pre_tokenizers, processors

    path = Path(vocab_txt)
    text = read_text(path, cap=VOCAB_JSON_CAP)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    _check_count(len(lines), "lines", path.name, TokenizerLoadError)
    vocab = {line.rstrip("\r"): index for index, line in enumerate(lines)}  # a repeated line: the last id
    if not vocab:
        raise TokenizerLoadError(f"{path.name}: the vocabulary is empty")
    side = _side_files(path.parent)
    config = side.get("tokenizer_config.json", {})
    names = dict(BERT_SPECIALS)
    for source in (config, side.get("special_tokens_map.json", {})):
        for key in BERT_SPECIALS:
            content = _content(source.get(key))
            if content:
                names[key] = content
    unk = names["unk_token"]
    if unk not in vocab:
        raise TokenizerLoadError(f"{path.name}: the unknown token {_short(unk)} is not in the vocabulary")
    library = Library(models.WordPiece(vocab=vocab, unk_token=unk, max_input_chars_per_word=100))
    library.normalizer = normalizers.BertNormalizer(
        clean_text=True,
        handle_chinese_chars=bool(config.get("tokenize_chinese_chars", True)),
        strip_accents=config.get("strip_accents"),
        lowercase=bool(config.get("do_lower_case", True)),
    )
    library.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    library.decoder = decoders.WordPiece(prefix="##")
    added = _added_tokens(side, vocab)
    for content in names.values():
        token_id, _special, options = added.get(content, (vocab.get(content), True, {}))
        added[content] = (token_id, True, options)
    if special_tokens is not None:
        added.update(_given_specials(special_tokens, vocab, added))
    notes = _add_tokens(library, added)
    cls, sep = names["cls_token"], names["sep_token"]
    if library.token_to_id(cls) is not None and library.token_to_id(sep) is not None:
        library.post_processor = processors.TemplateProcessing(
            single=f"{cls}:0 $A:0 {sep}:0",
            pair=f"{cls}:0 $A:0 {sep}:0 $B:1 {sep}:1",
            special_tokens=[(cls, library.token_to_id(cls)), (sep, library.token_to_id(sep))],
        )
    named_class = str(config.get("tokenizer_class") or "")
    # A config without a class still sets BERT's options; one naming another class does not describe BERT.
    known = "tokenizer_config.json" in side and (not named_class or is_bert_class(named_class))
    assumptions: tuple[str, ...] = () if known else (WORDPIECE_ASSUMED,)
    assumptions += recorded_assumptions(config, assumptions)
    tok = build_hf_tokenizer(library, name or path.parent.name or path.stem, assumptions=assumptions)
    return remember_warnings(tok, notes)


__all__ = [
    "ASSUMPTIONS_KEY",
    "BERT_SPECIALS",
    "GPT2_STYLE_CLASSES",
    "PRETOKENIZER_ASSUMED",
    "SIDE_FILES",
    "WORDPIECE_ASSUMED",
    "load_vocab_merges",
    "load_wordpiece_vocab",
    "recorded_assumptions",
]
