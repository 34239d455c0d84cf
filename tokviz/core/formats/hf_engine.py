"""An exact tokviz tokenizer over any Hugging Face ``tokenizers.Tokenizer`` (the library encodes).

Whatever a ``tokenizer.json`` holds (normalizers, every pre-tokenizer and Split behaviour, added
tokens special or not, byte fallback, ``ignore_merges``, BPE, WordPiece, Unigram, WordLevel), the
``tokenizers`` library itself encodes, so tokviz's ids are the library's:
``encode(text) == hf.encode(text, add_special_tokens=False).ids``. Post-processor templates (a
BOS id Llama puts first, BERT's ``[CLS] ... [SEP]``) are not inserted: :attr:`HFTokenizer.template`
reports them instead.

Views get their spans from the library's offsets (code points of the original text, also when a
normalizer changed it). Every id has surface bytes for the views and the vocabulary browser
(:func:`surface_bytes`). BPE models keep their merges (hover parents, the timeline); merge-by-merge
replay runs tokviz's own BPE with the library's chunking, and only where that provably gives the
library's ids; otherwise :attr:`replay_note` says why and replay refuses with it.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..bpe.arguments import check_count, check_text
from ..bpe.merges import no_merges_note
from ..bpe.tokenizer import Tokenizer, TokenSpan, replace_lone_surrogates
from ..errors import ArgumentTypeError, InvalidArgument, ReplayUnavailable, TokenizerLoadError
from ..pretok.bytes_ import unicode_to_bytes
from ..pretok.normalize import Normalizer
from ..pretok.pretokenize import CL100K_PATTERN, GPT2_PATTERN, Pretokenizer, last_cut_before
from .hf_verify import NORMALIZER_SAMPLE
from .native_stderr import native_stderr_held
from .oniguruma import from_oniguruma, to_oniguruma

if TYPE_CHECKING:
    import tokenizers

__all__ = [
    "NEVER_IN_UTF8",
    "OUTSIDE_GPT2_MAP",
    "HFTokenizer",
    "ReferenceChunks",
    "build_hf_tokenizer",
    "describe_pipeline",
    "gpt2_bytes",
    "load_library_tokenizer",
    "parse_merges",
    "surface_bytes",
]

_BYTE_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")
# GPT-2's byte map as a str.translate table (character -> the character of its byte, for latin-1),
# and the characters outside the map: decoding 300K strings this way takes milliseconds.
_TO_LATIN1 = {ord(c): b for c, b in unicode_to_bytes().items()}
OUTSIDE_GPT2_MAP = re.compile("[^" + "".join(re.escape(c) for c in unicode_to_bytes()) + "]")


def gpt2_bytes(token: str) -> bytes | None:
    """The bytes a GPT-2 byte-map string stands for, or None when a character is outside the map."""
    if OUTSIDE_GPT2_MAP.search(token):
        return None
    return token.translate(_TO_LATIN1).encode("latin-1")


# Bytes that never occur in UTF-8 text: a vocabulary may lack them without changing any encoding.
NEVER_IN_UTF8 = frozenset([0xC0, 0xC1, *range(0xF5, 0x100)])


@dataclass(frozen=True)
class ReferenceChunks(Pretokenizer):
    """A pre-tokenizer whose chunks are the ``tokenizers`` library's own (its ``pre_tokenize_str``).

    ``name`` and ``pattern`` describe the rule for people (``tokviz info``); the chunks come from
    the reference engine, so no Unicode-version difference between regex engines can creep in.
    ``reference`` is None when the tokenizer has no pre-tokenizer (the whole text is one chunk).
    """

    reference: Any = field(default=None, repr=False, compare=False)

    def split(self, text: str) -> list[str]:
        """The reference engine's chunks of ``text``, in order."""
        return [text[s:e] for s, e in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Code-point ``(start, end)`` of every chunk; gaps are text the pre-tokenizer drops."""
        if not isinstance(text, str):
            raise ArgumentTypeError(f"the text to pre-tokenize must be a str, got {type(text).__name__}")
        if not text:
            return []
        if self.reference is None:
            return [(0, len(text))]
        try:
            with native_stderr_held():
                try:
                    pieces = self.reference.pre_tokenize_str(text)
                except TypeError:  # a lone surrogate: read as U+FFFD, one code point for one
                    pieces = self.reference.pre_tokenize_str(replace_lone_surrogates(text))
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # a Rust panic (Oniguruma's retry limit) is a BaseException
            raise InvalidArgument(
                f"the tokenizers library cannot pre-tokenize this text: {_first_line(exc)}"
            ) from None
        return [(int(s), int(e)) for _piece, (s, e) in pieces]


def _find(spec: Any, kind: str) -> list[dict[str, Any]]:
    """Every component of type ``kind`` inside a normalizer/pre-tokenizer/decoder spec (nested too)."""
    found: list[dict[str, Any]] = []
    if isinstance(spec, dict):
        if spec.get("type") == kind:
            found.append(spec)
        for value in spec.values():
            if isinstance(value, (dict, list)):
                found.extend(_find(value, kind))
    elif isinstance(spec, list):
        for item in spec:
            found.extend(_find(item, kind))
    return found


def _types(spec: Any) -> list[str]:
    """The component types of a spec, flattening Sequence steps ("NFC", "Split", "ByteLevel")."""
    if not isinstance(spec, dict):
        return []
    steps = spec.get("normalizers") or spec.get("pretokenizers") or spec.get("decoders")
    if spec.get("type") == "Sequence" and isinstance(steps, list):
        return [t for s in steps for t in _types(s)]
    return [str(spec.get("type"))]


def describe_pipeline(doc: Mapping[str, Any]) -> str:
    """One line naming a tokenizer.json's normalizer, pre-tokenizer and model, for ``tokviz info``."""
    parts = []
    normalizers = _types(doc.get("normalizer"))
    if normalizers:
        parts.append("+".join(normalizers))
    pre = _types(doc.get("pre_tokenizer"))
    for split in _find(doc.get("pre_tokenizer"), "Split"):
        behavior = str(split.get("behavior", "Isolated"))
        if behavior != "Isolated" or split.get("invert"):
            pre.append(f"({behavior}{', inverted' if split.get('invert') else ''})")
    if pre:
        parts.append(" ".join(pre))
    model = doc.get("model") or {}
    parts.append(str(model.get("type", "BPE")))
    return "hf: " + ", ".join(parts)


def surface_bytes(doc: Mapping[str, Any]) -> Callable[[str], bytes]:
    """How a model token string reads as text bytes, from what the tokenizer.json says.

    ByteLevel alphabets decode to their bytes (``Ġ`` is a space); ``<0xNN>`` byte-fallback tokens
    are that byte; Metaspace's replacement (``▁``) is a space; WordPiece's ``##`` continuation
    prefix and a BPE ``end_of_word_suffix`` are dropped (the token's text without them). Anything
    else is the token's UTF-8.
    """
    model = doc.get("model") or {}
    byte_level = bool(_find(doc.get("pre_tokenizer"), "ByteLevel") or _find(doc.get("decoder"), "ByteLevel"))
    replacements = {
        str(m.get("replacement", "\u2581"))
        for key in ("pre_tokenizer", "decoder")
        for m in _find(doc.get(key), "Metaspace")
    }
    for rep in _find(doc.get("decoder"), "Replace"):
        pattern = rep.get("pattern")
        if isinstance(pattern, dict) and isinstance(pattern.get("String"), str) and rep.get("content") == " ":
            replacements.add(pattern["String"])
    replacements.discard("")
    fallback = bool(model.get("byte_fallback"))
    prefix = model.get("continuing_subword_prefix") or ""
    suffix = model.get("end_of_word_suffix") or ""

    def read(token: str) -> bytes:
        if prefix and token.startswith(prefix) and len(token) > len(prefix):
            token = token[len(prefix) :]
        if suffix and token.endswith(suffix) and len(token) > len(suffix):
            token = token[: -len(suffix)]
        if byte_level:
            data = gpt2_bytes(token)
            if data is not None:
                return data
        if fallback:
            m = _BYTE_FALLBACK.fullmatch(token)
            if m:
                return bytes([int(m.group(1), 16)])
        for rep in replacements:
            token = token.replace(rep, " ")
        return token.encode("utf-8", errors="replace")

    return read


def parse_merges(raw: Any) -> list[tuple[str, str]]:
    """A model's merges as string pairs; both spellings (``"a b"`` and ``["a", "b"]``) are read."""
    out: list[tuple[str, str]] = []
    for merge in raw or []:
        if isinstance(merge, str):
            left, _, right = merge.partition(" ")
        else:
            left, right = merge[0], merge[1]
        out.append((left, right))
    return out


class _Engine:
    """tokviz's fast-engine protocol over a ``tokenizers.Tokenizer``: ids of plain text."""

    def __init__(self, plain: Callable[[str], list[int]]) -> None:
        self.encode_ordinary = plain


def _ids(hf: tokenizers.Tokenizer, text: str) -> list[int]:
    return list(_library_encode(hf, text).ids)


def _library_encode(hf: tokenizers.Tokenizer, text: str) -> Any:
    """The library's encoding of ``text`` (no template); a lone surrogate reads as U+FFFD.

    A text the library cannot encode (a Unigram model without an unknown token meeting a character
    it lacks) is an :class:`InvalidArgument` with the library's reason, in one line.
    """
    try:
        with native_stderr_held():  # a panic's report would reach the terminal before our one line
            try:
                return hf.encode(text, add_special_tokens=False)
            except TypeError:  # a lone surrogate: the library takes only valid Unicode
                return hf.encode(replace_lone_surrogates(text), add_special_tokens=False)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # plain Exception, or a Rust panic (a BaseException) on odd input
        raise InvalidArgument(f"the tokenizers library cannot encode this text: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    """The first line of a library error (a Rust panic's message can run to a backtrace)."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


class HFTokenizer(Tokenizer):
    """A tokenizer whose ids come from the Hugging Face ``tokenizers`` library (see the module).

    ``special_tokens`` are the file's added tokens marked special; added tokens that are not
    special (a character added to a vocabulary) are matched whole before the model, as the library
    does, but are ordinary text for :meth:`encode_ordinary`. ``template`` names the ids a
    post-processor would add around a sequence (not inserted by :meth:`encode`).
    """

    def __init__(
        self,
        hf: tokenizers.Tokenizer,
        doc: Mapping[str, Any],
        name: str,
        *,
        replayer: Callable[[], tuple[Tokenizer | None, str | None]] | None = None,
        replay_note: str | None = None,
        pretokenizer: Pretokenizer | None = None,
        assumptions: tuple[str, ...] = (),
    ) -> None:
        self.hf = hf
        # Only what later calls need is kept: the parsed file of a large vocabulary is tens of MB.
        self._prefix_first_only = any(
            m.get("prepend_scheme") == "first" for m in _find(doc.get("pre_tokenizer"), "Metaspace")
        )
        self._plain_hf: tokenizers.Tokenizer | None = None
        model = doc.get("model") or {}
        self.model_type = str(model.get("type", "BPE"))
        read = surface_bytes(doc)
        added = hf.get_added_tokens_decoder()
        self.added_ids = frozenset(added)
        vocab: dict[int, bytes] = {}
        for token, token_id in hf.get_vocab(with_added_tokens=True).items():
            vocab[token_id] = token.encode("utf-8") if token_id in added else read(token)
        specials = {t.content: i for i, t in added.items() if t.special}
        self._string_merges = parse_merges(model.get("merges")) if self.model_type == "BPE" else []
        pairs = self._string_merges
        pre = pretokenizer or ReferenceChunks(describe_pipeline(doc), None, reference=hf.pre_tokenizer)
        # The merges' bytes are worked out when something asks (the timeline), like tiktoken's.
        super().__init__(
            vocab,
            lambda: [(read(a), read(b)) for a, b in pairs],
            specials,
            pre,
            name=name,
            engine=_Engine(self._encode_plain),
        )
        # Joined bytes decode a byte-level model exactly; pieces marked with ## or </w> need the
        # library's decoder to put the spaces back.
        self.byte_level = bool(
            _find(doc.get("pre_tokenizer"), "ByteLevel") or _find(doc.get("decoder"), "ByteLevel")
        ) and not (model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"))
        # The normalizer as tokviz's own (nfc, nfkc, ...) when it is one of those, for the replayer and
        # the exports; the library's encoder runs the file's normalizer itself either way.
        self.normalizer = Normalizer.from_hf_json(doc.get("normalizer")) or Normalizer(())
        self._replay_factory = replayer
        self._replayer: Tokenizer | None = None
        self._replay_lock = threading.Lock()
        self.replay_note = replay_note
        self.assumptions = assumptions
        self.template = _template(doc)
        # "none": the editor re-encodes the whole text (see tokviz.core.bpe.cuts); None: the usual rules.
        self.declared_cut_mode: str | None = "none"
        self._string_tables: (
            tuple[dict[int, int], dict[int, tuple[int, int]], list[int], list[tuple[int, int]]] | None
        ) = None

    # ------------------------------------------------------------------ encoding
    def encode(self, text: str) -> list[int]:
        """The library's ids for ``text`` (added tokens matched, no post-processor template)."""
        check_text(text)
        return _ids(self.hf, text)

    def encode_ordinary(self, text: str) -> list[int]:
        """The library's ids for ``text`` as plain text (the library runs its normalizer itself)."""
        check_text(text)
        return self._encode_normalized(text)

    def normalize(self, text: str) -> str:
        """``text`` through the library's own normalizer (itself when the file has none)."""
        library = self.hf.normalizer
        return text if library is None else str(library.normalize_str(text))

    def _encode_plain(self, text: str) -> list[int]:
        if not self.special_tokens:
            return _ids(self.hf, text)
        return _ids(self._plain_library(), text)

    def encode_ordinary_batch(self, texts: list[str]) -> list[list[int]]:
        """:meth:`encode_ordinary` of many texts in one library call (the audit encodes every token)."""
        library = self._plain_library() if self.special_tokens else self.hf
        try:
            with native_stderr_held():
                found = library.encode_batch(
                    [replace_lone_surrogates(t) for t in texts], add_special_tokens=False
                )
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - one text the library refuses: each on its own, named
            return [self.encode_ordinary(t) for t in texts]
        return [list(e.ids) for e in found]

    def _plain_library(self) -> tokenizers.Tokenizer:
        """The library tokenizer that reads special tokens as text (other added tokens still match)."""
        if self._plain_hf is None:
            from tokenizers import Tokenizer as Library

            plain = Library.from_str(self.hf.to_str())
            plain.encode_special_tokens = True
            self._plain_hf = plain
        return self._plain_hf

    def matched_in_text(self) -> dict[str, int]:
        """Every added token the library matches in text: the special ones unless read as text,
        and the others (not marked special, matched whole all the same) always."""
        added = self.hf.get_added_tokens_decoder()
        plain = bool(self.hf.encode_special_tokens)
        return {t.content: i for i, t in sorted(added.items()) if not (plain and t.special)}

    def _make_text_view(self) -> Tokenizer:
        """A view whose library reads special tokens as text, so its spans and blocks do too."""
        view = super()._make_text_view()
        assert isinstance(view, HFTokenizer)
        view.hf = self._plain_library()
        return view

    def segments(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """``(start, end, added)`` ranges tiling ``text``: ``added`` marks one added token (one id).

        Unlike tokviz's own tokenizers, a non-special added token is such a range too: the
        library matches it whole before the model, so it is never merged across.
        """
        check_text(text)
        encoding = self._encoding(text)
        pos = 0
        out: list[tuple[int, int, bool]] = []
        for token_id, (s, e) in zip(encoding.ids, encoding.offsets):
            if token_id not in self.added_ids or e <= s or s < pos:
                continue
            if s > pos:
                out.append((pos, s, False))
            out.append((s, e, True))
            pos = e
        if pos < len(text):
            out.append((pos, len(text), False))
        return iter(out)

    def _encoding(self, text: str) -> Any:
        return _library_encode(self.hf, text)

    def encode_spans(self, text: str, max_merges: int | None = None) -> list[TokenSpan]:
        """Every token placed on ``text`` by the library's offsets (code points of the original text).

        A token holding part of a UTF-8 character (a byte of an emoji, byte fallback) is ``partial``
        and covers the whole character; tokens a normalizer made from one character (NFKC's ``ﬁ``)
        each cover that character. Text a model drops (WordPiece's spaces, a byte the vocabulary has
        no token for) lies between spans. ``chunk`` numbers the pre-tokenizer's words.
        ``max_merges`` (replay) works only where :attr:`replay_note` is None.
        """
        check_text(text)
        if max_merges is not None:
            max_merges = check_count(max_merges, "max_merges")
            return self._replay().encode_spans(text, max_merges)
        encoding = self._encoding(text)
        ids = encoding.ids
        offsets = encoding.offsets
        words = encoding.word_ids
        vocab = self.vocab
        specials = self._special_ids
        spans: list[TokenSpan] = []
        chunk = -1
        last_word: object = object()
        n = len(ids)
        new = tuple.__new__
        for k in range(n):
            token_id = ids[k]
            s, e = offsets[k]
            data = vocab.get(token_id, b"")
            word = words[k]
            if word is None or word != last_word:
                chunk += 1
                last_word = word
            partial = _cut_utf8(data) and e > s
            spans.append(new(TokenSpan, (token_id, s, e, data, partial, token_id in specials, max(chunk, 0))))
        return spans

    def _safe_cut(self, buffer: str, safe_spaces: bool) -> int:
        """Where :meth:`encode_iterable` may cut: the start of the last special token, or 0.

        The library handles the text between added tokens independently, so cutting before one is
        exact (unless it strips spaces around itself); a Metaspace that prefixes only the first
        piece never lets a block be cut. Where the chunking is GPT-2's or cl100k's regex on the
        raw text and no added token holds a space (:attr:`declared_cut_mode` is None, as the
        editor relies on) nor strips the spaces beside it, a space after a non-space is a safe
        place too.
        """
        if self._prefix_first_only:
            return 0
        longest = max((len(s) for s in self.special_tokens), default=0)
        limit = len(buffer) - max(longest, 1)
        cut = 0
        if self.declared_cut_mode is None and safe_spaces and limit > 0 and not self._any_strips():
            cut = last_cut_before(buffer, limit + 1)
        if not self.special_tokens:
            return cut
        for start, end, added in self.segments(buffer):
            if added and start <= limit and self.hf.token_to_id(buffer[start:end]) in self._special_ids:
                if not self._strips(buffer[start:end]):
                    cut = max(cut, start)
        return cut

    def _any_strips(self) -> bool:
        """Whether an added token takes the spaces beside it (then a space is no safe cut)."""
        return any(t.lstrip or t.rstrip or t.single_word for t in self.hf.get_added_tokens_decoder().values())

    def _strips(self, content: str) -> bool:
        token_id = self.hf.token_to_id(content)
        token = self.hf.get_added_tokens_decoder().get(token_id) if token_id is not None else None
        return token is None or bool(token.lstrip or token.rstrip or token.single_word)

    # ------------------------------------------------------------------ decoding
    def decode(self, ids: Iterable[int]) -> str:
        """Text of ``ids``: joined bytes for byte-level models, the library's decoder otherwise
        (WordPiece puts spaces back between words, Metaspace turns ``▁`` into spaces)."""
        if self.byte_level:
            return super().decode(ids)
        seq = list(ids) if not isinstance(ids, (list, tuple)) else ids
        self.decode_bytes(seq)  # an unknown id is named as for every tokenizer
        return str(self.hf.decode(list(seq), skip_special_tokens=False))

    # ------------------------------------------------------------------ merges
    def _tables(self) -> tuple[dict[int, int], dict[int, tuple[int, int]], list[int], list[tuple[int, int]]]:
        """Merge tables from the file's own strings: made id -> rank, parents, per-rank ids."""
        if self._string_tables is None:
            to_id = self.hf.token_to_id
            rank_of: dict[int, int] = {}
            parents: dict[int, tuple[int, int]] = {}
            made: list[int] = []
            pairs: list[tuple[int, int]] = []
            for rank, (a, b) in enumerate(self._string_merges):
                left, right, new = to_id(a), to_id(b), to_id(a + b)
                pair = (-1 if left is None else left, -1 if right is None else right)
                made.append(-1 if new is None else new)
                pairs.append(pair)
                if new is not None and new not in rank_of:
                    rank_of[new] = rank
                    parents[new] = pair
            self._string_tables = (rank_of, parents, made, pairs)
        return self._string_tables

    @property
    def merge_rank_of_id(self) -> dict[int, int]:
        """Merge index that created each merged id (from the file's merges)."""
        return self._tables()[0]

    @property
    def parents_of_id(self) -> dict[int, tuple[int, int]]:
        """The (left id, right id) each merged id was made from."""
        return self._tables()[1]

    def id_of_merge(self, rank: int) -> int:
        """The id that merge number ``rank`` (0-based) creates."""
        return self._tables()[2][self._rank(rank)]

    def parents_of_merge(self, rank: int) -> tuple[int, int]:
        """The (left id, right id) that merge number ``rank`` (0-based) joins."""
        return self._tables()[3][self._rank(rank)]

    def _rank(self, rank: object) -> int:
        n = check_count(rank, "a merge number")
        if n >= len(self._string_merges):
            raise InvalidArgument(
                f"{self.name} has {len(self._string_merges):,} merges (numbered from 0), so there is no merge {n}"
            )
        return n

    # ------------------------------------------------------------------ replay
    @property
    def merge_count(self) -> int:
        """Number of merges in the file (0 for models that are not BPE)."""
        return len(self._string_merges)

    @property
    def is_bpe(self) -> bool:
        """True for a BPE model with merges."""
        return bool(self._string_merges)

    def _replay(self) -> Tokenizer:
        """tokviz's own BPE for replay, built on first use; refused with :attr:`replay_note`.

        Building it also checks it on sample text against the library; a difference becomes the
        note (and the refusal), so replay never shows ids the library would not give.
        """
        with self._replay_lock:
            if self.replay_note is None and self._replayer is None and self._replay_factory is not None:
                self._replayer, self.replay_note = self._replay_factory()
            if self.replay_note is not None or self._replayer is None:
                raise ReplayUnavailable(f"{self.name}: {self.replay_note or 'replay is not available'}")
            return self._replayer

    def encode_with_merges(self, text: str, max_merges: int) -> list[int]:
        """Ids with only the first ``max_merges`` merges; refused with :attr:`replay_note` when replay
        cannot reproduce the library's ids."""
        check_text(text)
        return self._replay().encode_with_merges(text, max_merges)

    def trace_chunk(self, data: bytes) -> tuple[list[int], list[int]]:
        """One chunk's ids and the merges applied (replay); refused like :meth:`encode_with_merges`."""
        return self._replay().trace_chunk(data)

    def _bpe(self, data: bytes, max_rank: int | None = None) -> list[int]:
        return self._replay()._bpe(data, max_rank)

    def encode_with_dropout(self, text: str, dropout: float, rng: random.Random) -> list[int]:
        """A BPE-dropout sample by tokviz's own BPE over the file's merges; refused with
        :attr:`replay_note` where that BPE does not give the library's ids."""
        check_text(text)
        return self._replay().encode_with_dropout(text, dropout, rng)

    def with_special_tokens(self, extra: Iterable[str]) -> Tokenizer:
        """The same tokenizer with more special tokens (added to a copy of the library's tokenizer)."""
        if isinstance(extra, (str, bytes)) or not isinstance(extra, Iterable):
            raise ArgumentTypeError(
                f"extra special tokens must be a list of strings, got {type(extra).__name__}"
            )
        extra = [s for s in extra if s]
        for s in extra:
            if not isinstance(s, str):
                raise ArgumentTypeError(f"special tokens must be strings, got {s!r}")
        from tokenizers import AddedToken
        from tokenizers import Tokenizer as Library

        copy = Library.from_str(self.hf.to_str())
        copy.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in extra])
        return build_hf_tokenizer(copy, self.name, assumptions=self.assumptions)

    def __repr__(self) -> str:
        return (
            f"HFTokenizer(name={self.name!r}, model={self.model_type}, vocab_size={self.vocab_size}, "
            f"merges={self.merge_count}, pretokenizer={self.pretokenizer.name!r})"
        )


def _cut_utf8(data: bytes) -> bool:
    """True when ``data`` is not whole UTF-8 characters (a token holding part of a character)."""
    if data.isascii():
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _template(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The special tokens a post-processor puts around one sequence (``("<s>",)``, ``("[CLS]", "[SEP]")``)."""
    post = doc.get("post_processor")
    out: list[str] = []
    for step in _find(post, "TemplateProcessing"):
        for item in step.get("single") or []:
            if isinstance(item, dict) and isinstance(item.get("SpecialToken"), dict):
                out.append(str(item["SpecialToken"].get("id")))
            elif isinstance(item, dict) and "Sequence" in item:
                out.append("$A")
        # A template of the sequence alone (GPT-2 files saved by transformers) adds nothing.
        return tuple(out) if out != ["$A"] else ()
    for kind, pair in (("BertProcessing", ("cls", "sep")), ("RobertaProcessing", ("cls", "sep"))):
        for step in _find(post, kind):
            cls, sep = step.get(pair[0]), step.get(pair[1])
            if isinstance(cls, list) and isinstance(sep, list):
                return (str(cls[0]), "$A", str(sep[0]))
    return ()


def load_library_tokenizer(text: str) -> tokenizers.Tokenizer:
    """The library's tokenizer from a tokenizer.json text, or a one-line :class:`TokenizerLoadError`."""
    from tokenizers import Tokenizer as Library

    try:
        return Library.from_str(text)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # plain Exception with its serde message, or a Rust panic
        raise TokenizerLoadError(f"the tokenizers library cannot read it: {_first_line(exc)}") from None


# Text the replayer must encode exactly like the library before replay is offered.
_REPLAY_PROBE = (
    "Hello, world! It's 2024 -- we're testing   spaces\t\ttabs\n\nnewlines\r\n and digits 1234567.",
    "Ελληνικά русский עברית العربية हिन्दी 中文字符 日本語 한국어 ไทย",
    "Emoji 😀👍🏽 👨\u200d👩\u200d👧 🇫🇷 e\u0301 \ufeffBOM \u00a0nbsp \u2028 x = f(a_b) // 0x1F;",
)


def _replay_obstacle(doc: Mapping[str, Any], hf: tokenizers.Tokenizer) -> str | None:
    """Why tokviz's merge-by-merge BPE cannot reproduce this file's ids, or None when it can."""
    return _model_obstacle(doc) or _pretokenizer_obstacle(doc) or _added_token_obstacle(hf)


def _model_obstacle(doc: Mapping[str, Any]) -> str | None:
    """What in the model (or a normalizer before it) is not plain merge-list BPE, or None."""
    model = doc.get("model") or {}
    kind = str(model.get("type", "BPE"))
    if kind != "BPE":
        return no_merges_note(kind) or f"not BPE: a {kind} model has no merges to replay"
    if not model.get("merges"):
        return "the BPE model has no merges to replay"
    if doc.get("normalizer") is not None and Normalizer.from_hf_json(doc["normalizer"]) is None:
        names = "+".join(_types(doc["normalizer"])) or "a"
        return f"replay is not exact: the {names} normalizer is not one tokviz replays (nfc, nfkc, lowercase, strip-accents)"
    if model.get("byte_fallback"):
        return "replay is not exact: byte fallback (<0xNN> tokens) is not merge-list BPE"
    if model.get("ignore_merges"):
        return "replay is not exact: ignore_merges takes whole words from the vocabulary before any merge"
    if model.get("dropout"):
        return "replay is not exact: BPE dropout skips merges at random"
    if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
        return "replay is not exact: the BPE marks word pieces with a prefix or suffix"
    return None


def _pretokenizer_obstacle(doc: Mapping[str, Any]) -> str | None:
    """What keeps the pre-tokenizer from being byte-level chunks of the whole text, or None."""
    pre = doc.get("pre_tokenizer")
    steps = pre.get("pretokenizers") if isinstance(pre, dict) and pre.get("type") == "Sequence" else [pre]
    if not isinstance(steps, list) or not steps or not isinstance(steps[-1], dict):
        return "replay is not exact: without a ByteLevel pre-tokenizer the model is not byte-level BPE"
    last = steps[-1]
    if last.get("type") != "ByteLevel":
        return f"replay is not exact: the pre-tokenizer ({'+'.join(_types(pre))}) does not end in ByteLevel"
    if last.get("add_prefix_space"):
        return "replay is not exact: the ByteLevel pre-tokenizer adds a space before the text"
    if any(str(split.get("behavior")) == "Removed" for split in _find(pre, "Split")):
        return "replay is not exact: the Split pre-tokenizer removes text"
    return None


def _added_token_obstacle(hf: tokenizers.Tokenizer) -> str | None:
    """An added token that matches other than as its exact text, or None."""
    for token in hf.get_added_tokens_decoder().values():
        if token.lstrip or token.rstrip or token.single_word:
            return (
                f"replay is not exact: the added token {token.content!r} strips spaces or matches whole words"
            )
    return None


def _display_pretokenizer(
    doc: Mapping[str, Any], hf: tokenizers.Tokenizer, replayable: bool
) -> ReferenceChunks:
    """The pre-tokenizer tokviz shows: ``gpt2``, ``cl100k``, ``none`` or ``custom`` with its regex
    where the file is a byte-level BPE tokviz could have written, else a description of the file's
    pipeline. The chunks always come from the library."""
    pre = doc.get("pre_tokenizer")
    reference = hf.pre_tokenizer
    if replayable and isinstance(pre, dict):
        if pre.get("type") == "ByteLevel":
            if pre.get("use_regex", True):
                return ReferenceChunks("gpt2", GPT2_PATTERN, reference=reference)
            return ReferenceChunks("none", None, reference=reference)
        steps = pre.get("pretokenizers") if pre.get("type") == "Sequence" else None
        if isinstance(steps, list) and len(steps) == 2 and isinstance(steps[0], dict):
            split, pattern = steps[0], steps[0].get("pattern")
            isolated = (
                split.get("type") == "Split"
                and split.get("behavior") == "Isolated"
                and not split.get("invert")
            )
            onig = pattern.get("Regex") if isinstance(pattern, dict) else None
            if isolated and isinstance(onig, str):
                for known, python in (("gpt2", GPT2_PATTERN), ("cl100k", CL100K_PATTERN)):
                    if to_oniguruma(python) == onig:
                        return ReferenceChunks(known, python, reference=reference)
                try:
                    return ReferenceChunks("custom", from_oniguruma(onig), reference=reference)
                except TokenizerLoadError:
                    pass
    return ReferenceChunks(describe_pipeline(doc), None, reference=reference)


def _missing_byte_note(tok: HFTokenizer) -> str | None:
    """Why replay cannot be exact when the vocabulary lacks bytes that UTF-8 text holds (the library
    drops them; tokviz's BPE starts from every byte)."""
    present = {b[0] for i, b in tok.vocab.items() if len(b) == 1 and i not in tok.added_ids}
    occurring = [b for b in range(256) if b not in present and b not in NEVER_IN_UTF8]
    if not occurring:
        return None
    shown = " ".join(f"{b:02X}" for b in occurring[:6]) + (" ..." if len(occurring) > 6 else "")
    return f"replay is not exact: the vocabulary has no token for the bytes {shown}, which the library drops"


def _make_replayer(
    tok: HFTokenizer, pre: ReferenceChunks
) -> Callable[[], tuple[Tokenizer | None, str | None]]:
    """A function building tokviz's own BPE over the file's vocabulary and merges, chunked by the
    library, and checking it against the library; it returns the replayer or why there is none."""

    def build() -> tuple[Tokenizer | None, str | None]:
        vocab = {i: b for i, b in tok.vocab.items() if i not in tok.added_ids}
        present = {b[0] for b in vocab.values() if len(b) == 1}
        next_id = max(tok.vocab, default=-1) + 1
        for b in sorted(set(range(256)) - present):  # bytes UTF-8 never uses: placeholders no text reaches
            vocab[next_id] = bytes([b])
            next_id += 1
        added = tok.hf.get_added_tokens_decoder()
        specials = {t.content: i for i, t in added.items()}
        try:
            replayer = Tokenizer(vocab, tok.merges, specials, pre, name=tok.name, normalizer=tok.normalizer)
        except TokenizerLoadError as exc:
            return None, f"replay is not exact: {exc}"
        probe = (*_REPLAY_PROBE, NORMALIZER_SAMPLE) if tok.normalizer else _REPLAY_PROBE
        for text in probe:
            if replayer.encode_with_merges(text, tok.merge_count) != _ids(tok.hf, text):
                return (
                    None,
                    "replay is not exact: merge-by-merge BPE does not give the library's ids on sample text",
                )
        return replayer, None

    return build


def build_hf_tokenizer(
    hf: tokenizers.Tokenizer,
    name: str,
    *,
    assumptions: tuple[str, ...] = (),
    doc: Mapping[str, Any] | None = None,
) -> HFTokenizer:
    """An :class:`HFTokenizer` over the library's tokenizer ``hf``, with replay where it is exact.

    ``doc`` is the parsed tokenizer.json when the caller has it (else it is read from ``hf``).
    """
    # A file's truncation or padding settings (max_length 512, say) would cut or pad what the views
    # show: tokviz encodes the whole text, as hf.encode does without them.
    if hf.truncation is not None:
        hf.no_truncation()
    if hf.padding is not None:
        hf.no_padding()
    if doc is None:
        doc = json.loads(hf.to_str())
    note = _replay_obstacle(doc, hf)
    pre = _display_pretokenizer(doc, hf, note is None)
    if note is not None and not pre.name.startswith("hf:"):
        pre = ReferenceChunks(describe_pipeline(doc), None, reference=hf.pre_tokenizer)
    tok = HFTokenizer(hf, doc, name, replay_note=note, pretokenizer=pre, assumptions=assumptions)
    if note is None:
        tok.replay_note = _missing_byte_note(tok)
    if tok.replay_note is None:
        tok._replay_factory = _make_replayer(tok, pre)
    # The editor may re-encode a window between safe cuts only where the chunking is GPT-2's or
    # cl100k's regex on the raw text (tokviz.core.bpe.cuts proves those cuts for them).
    spaced = any(any(c.isspace() for c in t.content) for t in hf.get_added_tokens_decoder().values())
    if tok.replay_note is None and pre.name in ("gpt2", "cl100k") and not spaced:
        tok.declared_cut_mode = None
    return tok
