"""The lecture's first two attempts at tokenization, which fail: one id per character, one per word.

* :class:`CharacterTokenizer` (``characters``): a token is one Unicode code point and its id is the
  code point itself (``ord``). Every text encodes, but the id space is all 1,114,112 code points
  (0 to 0x10FFFF), most of them unassigned or rare, and a text needs one token per character.
* :class:`WordTokenizer` (``words``): a token is a word, a digit, a run of whitespace or one
  punctuation character (:data:`WORDS_PATTERN`); the vocabulary is every distinct one of them in a corpus,
  most frequent first, plus ``<unk>`` (id 0). A word the corpus never had becomes ``<unk>``, and
  decoding shows ``<unk>`` where it was: the word is lost.

Both are :class:`~tokviz.core.bpe.tokenizer.Tokenizer` subclasses with no merges (``is_bpe`` is False,
``replay_note`` says why there is nothing to replay), so every view, the chart and the CLI show
them beside byte-level BPE. A lone surrogate reads as U+FFFD, as for every other tokenizer.
"""

from __future__ import annotations

import functools
import os
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from itertools import accumulate, chain, repeat
from pathlib import Path

import regex

from ..errors import ArgumentTypeError, CorpusError, InvalidArgument
from ..pretok.pretokenize import Pretokenizer, SpecialSplitter
from .arguments import check_count, check_text, extra_special_names
from .tokenizer import LONE_SURROGATE, Tokenizer, TokenSpan, replace_lone_surrogates

NOT_BPE_NOTE = "not BPE: there are no merges to replay"

# The code-point space: ids 0 to 0x10FFFF, the surrogates D800-DFFF included (never produced).
CODE_POINTS = 0x110000

# A word is a run of letters of any script with their combining marks (so a Hindi or Vietnamese
# word stays whole); each digit is a token by itself (else every number would need its own
# vocabulary entry, and a line of digits would be one "word"); a run of whitespace is one token;
# every other character (punctuation, a symbol, an emoji) is a token by itself. They tile any text.
WORDS_PATTERN = r"[\p{L}\p{M}]+|\p{N}|\s+|[^\p{L}\p{M}\p{N}\s]"
UNK = "<unk>"

_CODE_POINT_PRETOKENIZER = Pretokenizer("none", None)
_WORDS_PRETOKENIZER = Pretokenizer("words", WORDS_PATTERN, regex.compile(WORDS_PATTERN), True, False)
_WORDS_RE = regex.compile(WORDS_PATTERN)


def is_surrogate(code_point: int) -> bool:
    """Whether an id of the characters tokenizer is a UTF-16 surrogate (never produced by encode)."""
    return 0xD800 <= code_point <= 0xDFFF


class CodePointVocab(Mapping[int, bytes]):
    """``{code point: its UTF-8 bytes}`` for all 1,114,112 code points, computed on demand.

    A dict of that size would cost ~150 MB; this answers any lookup at once and iterates in id
    order. Surrogate ids map to their three-byte "surrogatepass" form (invalid UTF-8, decoded as
    U+FFFD). ``extra`` holds special tokens, whose ids follow the code-point space.
    """

    def __init__(self, extra: Mapping[int, bytes] | None = None) -> None:
        self.extra: dict[int, bytes] = dict(extra or {})

    def __getitem__(self, token_id: int) -> bytes:
        if type(token_id) is int and 0 <= token_id < CODE_POINTS:
            return chr(token_id).encode("utf-8", "surrogatepass")
        if isinstance(token_id, int) and not isinstance(token_id, bool) and token_id in self.extra:
            return self.extra[token_id]
        raise KeyError(token_id)

    def __contains__(self, token_id: object) -> bool:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            return False
        return 0 <= token_id < CODE_POINTS or token_id in self.extra

    def __iter__(self) -> Iterator[int]:
        return chain(range(CODE_POINTS), sorted(self.extra))  # C-level: max() over it takes ~20 ms

    def __len__(self) -> int:
        return CODE_POINTS + len(self.extra)

    def assigned_ids(self) -> list[int]:
        """The ids worth listing: code points Unicode assigns (not unassigned, surrogate or private
        use; about 145,000 in Python's Unicode data), then the special tokens."""
        return list(assigned_code_points()) + sorted(self.extra)


@functools.lru_cache(maxsize=1)
def assigned_code_points() -> tuple[int, ...]:
    """Every code point Python's Unicode database assigns (categories other than Cn, Cs, Co).

    The rest of the 1,114,112 ids the characters tokenizer implies can never carry meaning;
    computed once (about 0.2 s).
    """
    category = unicodedata.category
    return tuple(i for i in range(CODE_POINTS) if category(chr(i)) not in ("Cn", "Cs", "Co"))


class _MergelessTokenizer(Tokenizer):
    """What the two lecture tokenizers share: no merges, no tables, a note instead of replay."""

    def _init_mergeless(
        self, vocab: Mapping[int, bytes], specials: Mapping[str, int], pretokenizer: Pretokenizer, name: str
    ) -> None:
        # The base constructor would copy the vocabulary into a dict and build BPE tables from
        # single bytes, neither of which these tokenizers have; set the same attributes directly.
        self.name = name
        self.pretokenizer = pretokenizer
        self.vocab = vocab  # type: ignore[assignment]  # a Mapping: the characters' one is lazy
        self._merges_source = None
        self._merges = []
        self._merge_count_hint = 0
        self.special_tokens = dict(specials)
        self._special_ids = set(self.special_tokens.values())
        self._splitter = SpecialSplitter(self.special_tokens)
        self._engine = None
        self.assumptions = ()
        self.replay_note = NOT_BPE_NOTE
        self._cache = {}
        self._merge_rank_of_id = {}
        self._parents_of_id = {}
        self._merge_new_ids = []
        self._merge_parents = []
        self._tables_built = True

    def encode_with_merges(self, text: str, max_merges: int) -> list[int]:
        """The plain encoding: there are no merges, so every step of a replay is the same."""
        check_count(max_merges, "max_merges")
        return self.encode(text)

    def trace_chunk(self, data: bytes) -> tuple[list[int], list[int]]:
        """The chunk's ids (its bytes read as UTF-8) and an empty merge trace."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentTypeError(
                f"trace_chunk takes bytes, got {type(data).__name__}; encode text to UTF-8 first"
            )
        return self.encode_ordinary(bytes(data).decode("utf-8", errors="replace")), []

    def encode_spans(self, text: str, max_merges: int | None = None) -> list[TokenSpan]:
        """Every token placed on the text: code-point offsets, the token's bytes, its chunk."""
        check_text(text)
        if max_merges is not None:
            check_count(max_merges, "max_merges")  # checked as everywhere; there are no merges
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        spans: list[TokenSpan] = []
        chunk = 0
        for start, end, special in self._splitter.segments(text):
            if special:
                sid = self.special_tokens[text[start:end]]
                spans.append(TokenSpan(sid, start, end, self.vocab[sid], False, True, chunk))
                chunk += 1
            else:
                chunk = self._spans_of(text[start:end], start, chunk, spans)
        return spans

    def _spans_of(self, segment: str, base: int, chunk: int, out: list[TokenSpan]) -> int:
        """Append the spans of ordinary text ``segment`` (at ``base``); returns the next chunk number."""
        raise NotImplementedError

    def with_special_tokens(self, extra: Iterable[str]) -> Tokenizer:
        """The same tokenizer with more special tokens (ids after the largest)."""
        names = extra_special_names(extra)
        specials = dict(self.special_tokens)
        next_id = self._next_id()
        for s in names:
            if s and s not in specials:
                specials[s] = next_id
                next_id += 1
        return self._copy_with(specials)

    def _next_id(self) -> int:
        raise NotImplementedError

    def _copy_with(self, specials: dict[str, int]) -> Tokenizer:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, vocab_size={self.vocab_size})"


class CharacterTokenizer(_MergelessTokenizer):
    """One token per Unicode code point; the id is the code point (``ord``).

    ``vocab_size`` is the id space the scheme implies, 1,114,112 (0x110000), though any text uses
    a few hundred of them at most. Special tokens get ids from 0x110000 on.
    """

    def __init__(
        self, special_tokens: Mapping[str, int] | Iterable[str] | None = None, name: str = "characters"
    ) -> None:
        specials: dict[str, int] = {}
        if isinstance(special_tokens, Mapping):
            specials = dict(special_tokens)
        elif special_tokens is not None:
            for s in special_tokens:
                if s and s not in specials:
                    specials[s] = CODE_POINTS + len(specials)
        for s, i in specials.items():
            if isinstance(i, bool) or not isinstance(i, int) or i < CODE_POINTS:
                raise InvalidArgument(f"the special token {s!r} needs an id of 0x110000 or more, got {i!r}")
        vocab = CodePointVocab({i: s.encode("utf-8") for s, i in specials.items()})
        self._code_points = vocab
        self._init_mergeless(vocab, specials, _CODE_POINT_PRETOKENIZER, name)

    def encode_ordinary(self, text: str) -> list[int]:
        """The code point of every character (a lone surrogate reads as U+FFFD, 65533)."""
        check_text(text)
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        return list(map(ord, text))

    def _spans_of(self, segment: str, base: int, chunk: int, out: list[TokenSpan]) -> int:
        # Built with C-level maps: a million spans per megabyte of text, in about a second less.
        n = len(segment)
        fields = zip(
            map(ord, segment),
            range(base, base + n),
            range(base + 1, base + n + 1),
            map(str.encode, segment),
            repeat(False),
            repeat(False),
            repeat(chunk),
        )
        out.extend(map(partial(tuple.__new__, TokenSpan), fields))
        return chunk + 1 if segment else chunk

    def _unknown_id(self, token_id: object) -> InvalidArgument:
        if isinstance(token_id, bool) or not isinstance(token_id, int):
            return ArgumentTypeError(f"a token id must be an int, got {token_id!r}")
        top = max(self._code_points.extra, default=CODE_POINTS - 1)
        return InvalidArgument(
            f"token id {token_id} is not in the vocabulary of {self.name} (ids 0 to {top})"
        )

    def _next_id(self) -> int:
        return max(self.special_tokens.values(), default=CODE_POINTS - 1) + 1

    def _copy_with(self, specials: dict[str, int]) -> Tokenizer:
        return CharacterTokenizer(specials, self.name)


class WordTokenizer(_MergelessTokenizer):
    """A word-level vocabulary: one id per distinct word, digit, whitespace run or punctuation character.

    Build it with :meth:`from_text` or :meth:`from_files`. Id 0 is ``<unk>`` (a special token):
    a piece the corpus never had encodes to it and decodes as ``<unk>``. ``corpus`` says what the
    vocabulary was built from, for tooltips and ``tokviz info``.
    """

    def __init__(
        self,
        words: Iterable[str],
        special_tokens: Iterable[str] | Mapping[str, int] | None = None,
        name: str = "words",
        corpus: str = "",
    ) -> None:
        vocab: dict[int, bytes] = {0: UNK.encode("utf-8")}
        specials: dict[str, int] = {UNK: 0}
        index: dict[str, int] = {}
        for word in words:
            if not isinstance(word, str):
                raise ArgumentTypeError(f"words must be strings, got {word!r}")
            if word and word not in index and word != UNK:
                index[word] = len(vocab)
                vocab[len(vocab)] = word.encode("utf-8", "replace")
        if isinstance(special_tokens, Mapping):
            for s, i in special_tokens.items():
                specials[s] = i
                vocab.setdefault(i, s.encode("utf-8"))
        elif special_tokens is not None:
            for s in special_tokens:
                if s and s not in specials:
                    specials[s] = max(vocab) + 1
                    vocab[specials[s]] = s.encode("utf-8")
        self.index = index
        self.corpus = corpus
        self._init_mergeless(vocab, specials, _WORDS_PRETOKENIZER, name)

    @classmethod
    def from_text(
        cls, text: str | Iterable[str], *, max_words: int | None = None, name: str = "words", corpus: str = ""
    ) -> WordTokenizer:
        """The vocabulary of ``text`` (or of several texts): its pieces, most frequent first.

        ``max_words`` keeps only that many of the most frequent (ties: the one seen first), so
        rarer words become ``<unk>`` as in a real word-level model of limited size.
        """
        texts = [text] if isinstance(text, str) else list(text)
        counts: Counter[str] = Counter()
        for t in texts:
            check_text(t, "the text to build a words vocabulary from")
            counts.update(_WORDS_RE.findall(replace_lone_surrogates(t)))
        if max_words is not None and (
            isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 0
        ):
            raise InvalidArgument(f"max_words must be a whole number >= 0, got {max_words!r}")
        ranked = [w for w, _n in counts.most_common(max_words)]  # stable: ties keep first-seen order
        return cls(ranked, name=name, corpus=corpus or _describe_texts(texts))

    @classmethod
    def from_files(
        cls, paths: Iterable[str | os.PathLike[str]], *, max_words: int | None = None, name: str = "words"
    ) -> WordTokenizer:
        """The vocabulary of UTF-8 text files (a missing or non-UTF-8 file is a :class:`CorpusError`)."""
        texts: list[str] = []
        names: list[str] = []
        for p in paths:
            path = Path(p)
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise CorpusError(f"{path}: {exc.strerror or exc}", str(path)) from None
            try:
                texts.append(data.decode("utf-8").removeprefix("\ufeff"))
            except UnicodeDecodeError as exc:
                raise CorpusError(
                    f"{path} is not valid UTF-8 (byte offset {exc.start})", str(path), exc.start
                ) from None
            names.append(path.name)
        if not names:
            raise CorpusError("a words vocabulary needs at least one corpus file")
        described = names[0] if len(names) == 1 else f"{names[0]} and {len(names) - 1} more files"
        return cls.from_text(texts, max_words=max_words, name=name, corpus=described)

    @property
    def declared_cut_mode(self) -> str:
        """Where an edited text may be re-encoded in part (see :func:`tokviz.core.bpe.cuts.cut_mode`).

        A piece never spans a space that follows a non-space, nor a lone newline between two
        non-spaces, and each piece's id depends on the piece alone: the "space" cuts are exact,
        unless a special token holds whitespace and could straddle one.
        """
        return "none" if any(" " in s or "\n" in s for s in self.special_tokens) else "space"

    @property
    def unk_id(self) -> int:
        """The id of ``<unk>`` (0)."""
        return self.special_tokens[UNK]

    @property
    def word_count(self) -> int:
        """Distinct pieces in the vocabulary (``<unk>`` and other special tokens not counted)."""
        return len(self.index)

    def encode_ordinary(self, text: str) -> list[int]:
        """The id of every piece of :data:`WORDS_PATTERN`; a piece not in the vocabulary is ``<unk>``."""
        check_text(text)
        if LONE_SURROGATE.search(text):
            text = replace_lone_surrogates(text)
        get = self.index.get
        unk = self.unk_id
        return [get(piece, unk) for piece in _WORDS_RE.findall(text)]

    def unknown_words(self, text: str) -> list[str]:
        """The pieces of ``text`` that are not in the vocabulary, in order, repeats included."""
        check_text(text)
        text = replace_lone_surrogates(text)
        out: list[str] = []
        for start, end, special in self._splitter.segments(text):
            if not special:
                out.extend(p for p in _WORDS_RE.findall(text[start:end]) if p not in self.index)
        return out

    def _spans_of(self, segment: str, base: int, chunk: int, out: list[TokenSpan]) -> int:
        # Each piece is one token and one chunk; built with C-level maps (pieces tile the segment).
        pieces = _WORDS_RE.findall(segment)
        n = len(pieces)
        ids = list(map(self.index.get, pieces, repeat(self.unk_id, n)))
        ends = list(accumulate(map(len, pieces), initial=base))
        fields = zip(
            ids,
            ends[:-1],
            ends[1:],
            map(self.vocab.__getitem__, ids),
            repeat(False),
            map(self.unk_id.__eq__, ids),
            range(chunk, chunk + n),
        )
        out.extend(map(partial(tuple.__new__, TokenSpan), fields))
        return chunk + n

    def _next_id(self) -> int:
        return max(self.vocab) + 1

    def _copy_with(self, specials: dict[str, int]) -> Tokenizer:
        extra = {s: i for s, i in specials.items() if s != UNK}
        return WordTokenizer(self.index, extra, self.name, self.corpus)


def _describe_texts(texts: list[str]) -> str:
    """A short description of the texts a vocabulary came from (for tooltips and ``info``)."""
    chars = sum(len(t) for t in texts)
    return (
        f"{len(texts)} texts, {chars:,} characters" if len(texts) > 1 else f"a text of {chars:,} characters"
    )


def character_tokenizer() -> CharacterTokenizer:
    """The built-in ``characters`` tokenizer."""
    return CharacterTokenizer()


# The built-in words vocabulary under resources/ (made by packaging/make_word_list.py).
WORD_LIST = ("words", "words.tsv")
_ESCAPES = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_UNESCAPE = regex.compile(r"\\([\\tnr])")


def escape_piece(piece: str) -> str:
    """A piece as one field of the word list: tab, newline, CR and backslash written as escapes."""
    return "".join(_ESCAPES.get(c, c) for c in piece)


def read_word_list(path: str | os.PathLike[str]) -> dict[str, int]:
    """The word list at ``path`` as {piece: count}, most frequent first (``#`` lines are comments)."""
    counts: dict[str, int] = {}
    plain = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        piece, sep, count = line.rpartition("\t")
        if not sep or not count.isdigit():
            raise CorpusError(f"{path}: line {number} is not word<TAB>count")
        counts[_UNESCAPE.sub(lambda m: plain[m.group(1)], piece)] = int(count)
    return counts


def default_words_tokenizer() -> WordTokenizer:
    """The built-in ``words`` tokenizer: a fixed word list (resources/words/words.tsv, the words of
    the Python documentation topics and tokviz's samples), so a word it never saw is ``<unk>``.

    Commands that have a text (``tokviz encode``) or a corpus build their own instead.
    """
    from ..io.resources import resource_path

    words = read_word_list(resource_path(*WORD_LIST))
    return WordTokenizer(
        words, corpus=f"tokviz's word list ({len(words):,} words of the Python docs and samples)"
    )
