"""What a library trainer is asked for: the algorithm, the user's options, and the exact call they become.

Byte-level BPE is trained by tokviz itself (:mod:`.train`). The other production algorithms are
trained by the libraries the world uses, so a model is exactly what the user would get from them:

- ``unigram`` and ``sentencepiece-bpe`` by ``sentencepiece.SentencePieceTrainer.train``;
- ``wordpiece`` by ``tokenizers``' ``WordPieceTrainer``, in a BERT-like pipeline: ``BertPreTokenizer``
  (whitespace and punctuation split; with ``split_digits``, then each digit alone), the
  ``WordPiece`` decoder, unknown token ``[UNK]`` (always the first special token, since encoding
  an unseen character needs it), no post-processor (tokviz shows a text's own ids).

:class:`EngineOptions` holds what the user said; every option left ``None`` is the library's own
default and is not passed at all. :meth:`EngineOptions.library_options` is exactly what is passed,
as JSON, so the run can be repeated with the library alone: ``SentencePieceTrainer.train(
sentence_iterator=SENTENCES, model_writer=FILE, **options)`` (with the files of
:meth:`~EngineOptions.library_files` in the working folder), or for WordPiece
``Tokenizer.from_str(json.dumps(options["tokenizer"])).train_from_iterator(SENTENCES,
WordPieceTrainer(**options["trainer"]))``. SENTENCES are the documents cut as
:func:`document_sentences` says (:data:`SENTENCE_RULES`). sentencepiece gives the same model
byte for byte; ``tokenizers`` numbers WordPiece tokens of equal counts in hash order, so two runs
of the library itself give the same tokens (and pieces of every text) under different ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from ..errors import InvalidArgument

ALGORITHMS = ("bpe", "unigram", "sentencepiece-bpe", "wordpiece")
ENGINE_ALGORITHMS = ("unigram", "sentencepiece-bpe", "wordpiece")

_SENTENCEPIECE_OPTIONS = (
    "vocab_size",
    "normalizer",
    "character_coverage",
    "byte_fallback",
    "split_digits",
    "max_piece_length",
    "user_symbols",
)
_APPLIES = {
    "bpe": ("vocab_size", "normalizer", "user_symbols"),
    "unigram": _SENTENCEPIECE_OPTIONS,
    "sentencepiece-bpe": _SENTENCEPIECE_OPTIONS,
    "wordpiece": ("vocab_size", "normalizer", "split_digits", "user_symbols"),
}
LIBRARIES = {"unigram": "sentencepiece", "sentencepiece-bpe": "sentencepiece", "wordpiece": "tokenizers"}

WORDPIECE_UNKNOWN = "[UNK]"
WORDPIECE_PREFIX = "##"
# sentencepiece's default max_sentence_length: it skips longer sentences, so tokviz cuts them.
SENTENCEPIECE_MAX_SENTENCE_BYTES = 4192
# The file a sentencepiece run reads its normalization rules from (in the run's working folder).
NORMALIZATION_FILE = "normalization.tsv"
# The rule name of a sentencepiece model whose normalization comes from a rule file.
USER_DEFINED_RULES = "user_defined"

SENTENCE_RULES = {
    "sentencepiece": (
        "each document is split at '\\n' and every non-empty line is one sentence; a line longer than "
        f"{SENTENCEPIECE_MAX_SENTENCE_BYTES} UTF-8 bytes (the library's max_sentence_length, past which "
        "it would skip the line) is cut into parts of at most that many bytes, each cut made before "
        "the last whitespace in reach (or at a character boundary when there is none)"
    ),
    "tokenizers": "each document is split at '\\n' and every non-empty line is one sentence",
}


def options_for(algorithm: str) -> tuple[str, ...]:
    """The names of the :class:`EngineOptions` fields that apply to ``algorithm`` (one of :data:`ALGORITHMS`)."""
    if algorithm not in _APPLIES:
        raise InvalidArgument(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    return _APPLIES[algorithm]


@dataclass(frozen=True)
class EngineOptions:
    """A library trainer's options as the user gave them; ``None`` leaves the library's default.

    ``normalizer`` is a :func:`~tokviz.core.pretok.normalize.parse_normalizer` spec ("nfkc",
    "nfc+lowercase", "none"); ``user_symbols`` are pieces the text always keeps whole (specials).
    Options that do not apply to the algorithm (:func:`options_for`) are refused.
    """

    algorithm: str
    vocab_size: int
    normalizer: str | None = None
    character_coverage: float | None = None
    byte_fallback: bool | None = None
    split_digits: bool | None = None
    max_piece_length: int | None = None
    user_symbols: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.algorithm not in ENGINE_ALGORITHMS:
            raise InvalidArgument(
                f"{self.algorithm!r} is not trained by a library; choose one of {', '.join(ENGINE_ALGORITHMS)}"
                + (" (byte-level BPE is tokviz's own trainer)" if self.algorithm == "bpe" else "")
            )
        applies = options_for(self.algorithm)
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name != "algorithm" and f.name not in applies and value not in (None, ()):
                raise InvalidArgument(f"{f.name} does not apply to {self.algorithm}")
        if isinstance(self.vocab_size, bool) or not isinstance(self.vocab_size, int) or self.vocab_size < 1:
            raise InvalidArgument(f"the vocabulary size must be a positive integer, not {self.vocab_size!r}")
        coverage = self.character_coverage
        if coverage is not None and not 0.0 < coverage <= 1.0:
            raise InvalidArgument(f"the character coverage must be over 0 and at most 1, not {coverage!r}")
        if self.max_piece_length is not None and self.max_piece_length < 1:
            raise InvalidArgument(
                f"the maximum piece length must be 1 or more, not {self.max_piece_length!r}"
            )
        for symbol in self.user_symbols:
            if not isinstance(symbol, str) or not symbol:
                raise InvalidArgument("a user symbol must be a non-empty text")
        if len(set(self.user_symbols)) != len(self.user_symbols):
            raise InvalidArgument("a user symbol is given twice")
        if self.normalizer is not None:
            _parsed_normalizer(self.normalizer)  # a bad spec is refused here, before any run

    @property
    def library(self) -> str:
        """The library that trains this algorithm: ``sentencepiece`` or ``tokenizers``."""
        return LIBRARIES[self.algorithm]

    @property
    def sentence_rule(self) -> str:
        """How documents become the sentences the library is given (recorded with the model)."""
        return SENTENCE_RULES[self.library]

    def library_options(self) -> dict[str, Any]:
        """Exactly the options passed to the library, as JSON (see the module's doc for the call)."""
        if self.library == "sentencepiece":
            return self._sentencepiece_options()
        return self._wordpiece_options()

    def library_files(self) -> dict[str, str]:
        """The files the options name, by name and text: a sentencepiece normalization rule file."""
        if self.library != "sentencepiece" or self.normalizer is None:
            return {}
        normalizer = _parsed_normalizer(self.normalizer)
        if normalizer.spm_rule_name() != USER_DEFINED_RULES:
            return {}
        rules = normalizer.spm_rules_tsv()
        return {} if rules is None else {NORMALIZATION_FILE: rules}

    def _sentencepiece_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {
            "model_type": "unigram" if self.algorithm == "unigram" else "bpe",
            "vocab_size": self.vocab_size,
        }
        given = {
            "character_coverage": self.character_coverage,
            "byte_fallback": self.byte_fallback,
            "split_digits": self.split_digits,
            "max_sentencepiece_length": self.max_piece_length,
        }
        options.update((key, value) for key, value in given.items() if value is not None)
        if self.user_symbols:
            options["user_defined_symbols"] = list(self.user_symbols)
        if self.normalizer is not None:
            # A normalizer without a built-in rule name is given as a rule file (library_files).
            rule = _parsed_normalizer(self.normalizer).spm_rule_name()
            if rule == USER_DEFINED_RULES:
                options["normalization_rule_tsv"] = NORMALIZATION_FILE
            else:
                options["normalization_rule_name"] = rule
        return options

    def _wordpiece_options(self) -> dict[str, Any]:
        bert: dict[str, Any] = {"type": "BertPreTokenizer"}
        pre = bert
        if self.split_digits:
            pre = {"type": "Sequence", "pretokenizers": [bert, {"type": "Digits", "individual_digits": True}]}
        normalizer = None if self.normalizer is None else _parsed_normalizer(self.normalizer).hf_json()
        tokenizer: dict[str, Any] = {
            "version": "1.0",
            "truncation": None,
            "padding": None,
            "added_tokens": [],
            "normalizer": normalizer,
            "pre_tokenizer": pre,
            "post_processor": None,
            "decoder": {"type": "WordPiece", "prefix": WORDPIECE_PREFIX, "cleanup": True},
            "model": {
                "type": "WordPiece",
                "unk_token": WORDPIECE_UNKNOWN,
                "continuing_subword_prefix": WORDPIECE_PREFIX,
                "max_input_chars_per_word": 100,
                "vocab": {},
            },
        }
        specials = [WORDPIECE_UNKNOWN, *(s for s in self.user_symbols if s != WORDPIECE_UNKNOWN)]
        return {
            "tokenizer": tokenizer,
            "trainer": {"vocab_size": self.vocab_size, "special_tokens": specials},
        }


def _parsed_normalizer(spec: str) -> Any:
    """The :class:`~tokviz.core.pretok.normalize.Normalizer` of ``spec``."""
    from ..pretok.normalize import parse_normalizer

    return parse_normalizer(spec)


_LAST_SPACE = re.compile(r"\s(?=\S*\Z)")


def document_sentences(documents: Iterable[str], library: str) -> Iterator[str]:
    """The sentences the library is given for ``documents``, as :data:`SENTENCE_RULES` says."""
    cut = library == "sentencepiece"
    for document in documents:
        for line in document.split("\n"):
            if not line:
                continue
            if cut and len(line) * 4 > SENTENCEPIECE_MAX_SENTENCE_BYTES:
                yield from _cut_line(line, SENTENCEPIECE_MAX_SENTENCE_BYTES)
            else:
                yield line


def _cut_line(line: str, limit: int) -> Iterator[str]:
    """``line`` in parts of at most ``limit`` UTF-8 bytes, each cut before the last whitespace in reach."""
    rest = line
    while True:
        data = rest.encode("utf-8", "surrogatepass")
        if len(data) <= limit:
            yield rest
            return
        end = limit
        while data[end] & 0xC0 == 0x80:  # back to the start of a character
            end -= 1
        head = data[:end].decode("utf-8", "surrogatepass")
        space = _LAST_SPACE.search(head)
        if space is not None and space.start() > 0:
            head = head[: space.start()]
        yield head
        rest = rest[len(head) :]
