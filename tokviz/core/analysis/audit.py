"""Which tokens of a vocabulary are broken: an audit by decoding and re-encoding every id.

Under-trained "glitch" tokens make language models misbehave: a token the tokenizer never
produces gets no training signal, yet it stays in the embedding matrix (Land & Bartolo, 2024,
"Fishing for Magikarp"). This module finds the tokens the tokenizer itself makes suspect, with
nothing but the tokenizer; :mod:`tokviz.core.analysis.embedding_audit` adds the model's embedding weights.

Every id gets exactly one class, checked in this order:

* ``special``: a special or added token (``<|endoftext|>``, ``[CLS]``, a SentencePiece control,
  user-defined or unknown piece). Plain text does not produce it through the model.
* ``partial_utf8``: the token's bytes are not valid UTF-8 on their own (``b"\\xe4\\xb8"``, a
  byte-fallback piece ``<0xE4>``): it decodes only together with its neighbours.
* ``ok``: the token's text, encoded alone, gives exactly ``[id]``. The text is its bytes as UTF-8,
  or, when that fails, the tokenizer's own ``decode([id])`` (SentencePiece drops the leading
  space of ``▁the``).
* ``sequence_only``: not ``ok``, but the id appears when the text is encoded with a neighbour
  (see :data:`CONTEXTS`): a WordPiece ``##ing`` after a letter, a SentencePiece piece without
  ``▁`` inside a word, o200k's ``" 亚洲AV"`` before a lower-case letter.
* ``unreachable``: neither alone nor with any neighbour tried. For byte-level BPE this is a proof
  that the token is never produced: the merges inside a token's bytes happen in the same order
  whatever surrounds them, so a token its own text does not give is never made in any text.

"Unused on the corpus" is not a class: with a count of the corpus (:mod:`tokviz.core.analysis.usage`),
:meth:`VocabularyAudit.unused_ids` lists the ids the corpus never produced, of any class.

The audit encodes each id once (twice or a few more times for the rare failures), so o200k's
200K ids take well under a second with tiktoken's engine; ``progress(done, total)`` is called
between blocks of ids and ``cancel()`` is checked there (:class:`~tokviz.core.errors.Cancelled`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import cast

import numpy as np

from ..bpe.tokenizer import Tokenizer
from ..errors import Cancelled, InvalidArgument
from ..show.html_table import table_html

Cancel = Callable[[], bool]
Progress = Callable[[int, int], None]

# The classes, in the order reports list them; an id's class is its index here (int8 arrays).
CLASSES = ("ok", "special", "partial_utf8", "sequence_only", "unreachable")
CLASS_LABELS = {
    "ok": "OK",
    "special": "special",
    "partial_utf8": "partial UTF-8",
    "sequence_only": "only in a sequence",
    "unreachable": "unreachable",
}
CLASS_MEANINGS = {
    "ok": "its text encoded alone gives exactly this token",
    "special": "a special or added token: plain text does not produce it through the model",
    "partial_utf8": "its bytes are not valid UTF-8 alone: it decodes only with its neighbours",
    "sequence_only": "its text alone encodes otherwise; with a neighbour it appears",
    "unreachable": "its text encodes otherwise, alone and with every neighbour tried",
}
OK, SPECIAL, PARTIAL_UTF8, SEQUENCE_ONLY, UNREACHABLE = range(len(CLASSES))
# The neighbours (before, after) a token that does not encode alone is tried with: a letter
# before it (a WordPiece or SentencePiece piece inside a word), a lower-case letter after it (a
# pre-tokenizer rule that ends a chunk at a case change), and both.
CONTEXTS = (("a", ""), ("", "a"), ("a", "a"), ("0", ""))
# Ids per progress report and cancel check.
_BLOCK = 4096
# Names of reserved special tokens that models leave untrained (Llama 3's reserved tokens,
# Gemma's <unusedN>, BERT's [unused1]): the paper's known-unused reference, with the unreachable.
RESERVED_NAME = re.compile(r"reserved|unused", re.IGNORECASE)


def audited_ids(tokenizer: Tokenizer) -> list[int]:
    """The ids an audit looks at, sorted: every id, or for a vocabulary that offers a shorter list
    of the ids worth listing (the characters tokenizer's assigned code points) that list."""
    assigned = getattr(tokenizer.vocab, "assigned_ids", None)
    return list(assigned()) if callable(assigned) else sorted(tokenizer.vocab)


def special_ids(tokenizer: Tokenizer) -> set[int]:
    """Ids plain text does not produce through the model: special and added tokens, the unknown piece."""
    ids = set(tokenizer.special_tokens.values())
    ids.update(getattr(tokenizer, "added_ids", ()))
    unk = getattr(tokenizer, "unk_id", None)
    if isinstance(unk, int):
        ids.add(unk)
    return ids


Encoder = Callable[[list[str]], list[list[int]]]


def batch_encoder(tokenizer: Tokenizer) -> Encoder:
    """Plain-text ids of many texts at once: the tokenizer's ``encode_ordinary_batch`` when it has
    one (a library call per block instead of one per token), else ``encode_ordinary`` per text."""
    batch = getattr(tokenizer, "encode_ordinary_batch", None)
    if callable(batch):
        return cast(Encoder, batch)
    encode = tokenizer.encode_ordinary
    return lambda texts: [encode(t) for t in texts]


def _decoded(tokenizer: Tokenizer, token_id: int, text: str) -> str | None:
    """The tokenizer's own text for the id when it differs from the bytes' (SentencePiece's ``the``
    for ``▁the``), or None."""
    try:
        decoded = tokenizer.decode([token_id])
    except Exception:  # noqa: BLE001 - a library decoder that refuses one id leaves the bytes' text
        return None
    return decoded if decoded and decoded != text and "\ufffd" not in decoded else None


def classify_block(
    tokenizer: Tokenizer, ids: list[int], specials: set[int], encode: Encoder | None = None
) -> list[int]:
    """The class (an index into :data:`CLASSES`) of each of ``ids``; see the module docstring.

    Texts are encoded a block at a time: each token's text, then the tokenizer's own decoding of
    those that failed, then those still failing with each neighbour of :data:`CONTEXTS`.
    """
    encode = encode or batch_encoder(tokenizer)
    vocab = tokenizer.vocab
    out = [OK] * len(ids)
    texts: dict[int, list[str]] = {}  # position -> texts tried, for the tokens not settled yet
    for k, i in enumerate(ids):
        if i in specials:
            out[k] = SPECIAL
            continue
        try:
            text = vocab[i].decode("utf-8")
        except UnicodeDecodeError:
            out[k] = PARTIAL_UTF8
            continue
        texts[k] = [text]
    failed = _unsettled(encode, ids, texts)
    decoded = {k: d for k, tried in failed.items() if (d := _decoded(tokenizer, ids[k], tried[0]))}
    still = _unsettled(encode, ids, {k: [d] for k, d in decoded.items()})
    unsettled = {k: tried + ([decoded[k]] if k in decoded else []) for k, tried in failed.items()}
    unsettled = {k: tried for k, tried in unsettled.items() if k not in decoded or k in still}
    found = _in_sequence(encode, {ids[k]: tried for k, tried in unsettled.items()})
    for k in unsettled:
        out[k] = SEQUENCE_ONLY if ids[k] in found else UNREACHABLE
    return out


def _unsettled(encode: Encoder, ids: list[int], texts: dict[int, list[str]]) -> dict[int, list[str]]:
    """The entries of ``texts`` whose first text does not encode as exactly their one id."""
    order = [k for k, tried in texts.items() if tried[0]]
    found = encode([texts[k][0] for k in order]) if order else []
    settled = {k for k, got in zip(order, found) if got == [ids[k]]}
    return {k: tried for k, tried in texts.items() if k not in settled}


def _in_sequence(encode: Encoder, texts: dict[int, list[str]]) -> set[int]:
    """The ids that appear when one of their texts is encoded with a neighbour of :data:`CONTEXTS`
    (and not in the neighbours alone), all encoded in one call."""
    if not texts:
        return set()
    alone = encode([before + after for before, after in CONTEXTS])
    tries = [
        (i, c, before + t + after)
        for i, tried in texts.items()
        for t in tried
        if t
        for c, (before, after) in enumerate(CONTEXTS)
    ]
    found = encode([text for _, _, text in tries])
    return {i for (i, c, _), got in zip(tries, found) if i in got and i not in alone[c]}


def classify(tokenizer: Tokenizer, token_id: int) -> int:
    """The class (an index into :data:`CLASSES`) of one id; see the module docstring."""
    tokenizer.id_bytes(token_id)  # an unknown id is named
    return classify_block(tokenizer, [token_id], special_ids(tokenizer))[0]


@dataclass
class VocabularyAudit:
    """Each id's class (:data:`CLASSES`), with the corpus counts when a corpus was counted.

    ``ids`` are the audited ids (sorted); ``classes[k]`` is the class index of ``ids[k]``;
    ``counts`` (or None) holds ``counts[id]``, occurrences of each id on the corpus.
    """

    tokenizer: Tokenizer
    ids: np.ndarray
    classes: np.ndarray
    counts: np.ndarray | None = None
    name: str = ""
    _position: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = self.tokenizer.name

    def class_counts(self) -> dict[str, int]:
        """How many ids fall in each class, every class listed (in :data:`CLASSES` order)."""
        found = np.bincount(self.classes, minlength=len(CLASSES))
        return {name: int(found[k]) for k, name in enumerate(CLASSES)}

    def ids_of(self, *names: str) -> np.ndarray:
        """The ids of the named classes (any of them), sorted."""
        wanted = [_class_index(n) for n in names]
        return self.ids[np.isin(self.classes, wanted)]

    def class_of(self, token_id: int) -> str:
        """The class name of one audited id."""
        if not self._position:
            self._position.update({int(i): k for k, i in enumerate(self.ids.tolist())})
        k = self._position.get(token_id)
        if k is None:
            raise InvalidArgument(f"token id {token_id} is not among the ids audited for {self.name}")
        return CLASSES[int(self.classes[k])]

    def count_of(self, token_id: int) -> int | None:
        """How often the corpus produced the id (None without a corpus)."""
        if self.counts is None:
            return None
        return int(self.counts[token_id]) if 0 <= token_id < len(self.counts) else 0

    @cached_property
    def unused_ids(self) -> np.ndarray:
        """Ids the corpus never produced, of every class, sorted (empty without a corpus)."""
        if self.counts is None:
            return np.zeros(0, dtype=np.int64)
        inside = self.ids < len(self.counts)
        used = np.zeros(len(self.ids), dtype=bool)
        used[inside] = self.counts[self.ids[inside]] > 0
        return self.ids[~used]

    def reference_unused_ids(self) -> np.ndarray:
        """Ids known to be untrained, the reference for the embedding indicators: the unreachable
        tokens and the special tokens whose names say reserved or unused (Llama 3, Gemma, BERT)."""
        reserved = [i for s, i in self.tokenizer.special_tokens.items() if RESERVED_NAME.search(s)]
        return np.union1d(self.ids_of("unreachable"), np.array(reserved, dtype=np.int64))

    def summary_rows(self) -> list[list[str]]:
        """``[class, tokens, meaning]`` per class, then the unused line when a corpus was counted."""
        rows = [[CLASS_LABELS[n], f"{c:,}", CLASS_MEANINGS[n]] for n, c in self.class_counts().items()]
        if self.tokenizer.pattern_assumed:
            # Which tokens encode otherwise depends on how text is cut: with a guessed pattern the
            # classes are the guess's, not a proof about the model.
            for row, name in zip(rows, self.class_counts()):
                if name in ("unreachable", "sequence_only"):
                    row[0] = f"{row[0]} (with the assumed pre-tokenizer)"
                    row[2] += "; under the assumed pre-tokenizer, which may not be the model's"
        if self.counts is not None:
            rows.append(["unused on the corpus", f"{len(self.unused_ids):,}", "never produced on the corpus"])
        return rows

    def to_html(self) -> str:
        """The result as an HTML table (a notebook shows it through ``_repr_html_``)."""
        caption = f"{self.name}: {len(self.ids):,} tokens audited"
        return table_html(["class", "tokens", "meaning"], self.summary_rows(), [False, True, False], caption)

    def _repr_html_(self) -> str:
        return self.to_html()


def _class_index(name: str) -> int:
    try:
        return CLASSES.index(name)
    except ValueError:
        raise InvalidArgument(f"unknown token class {name!r}; choose from {', '.join(CLASSES)}") from None


def audit_vocabulary(
    tokenizer: Tokenizer,
    counts: np.ndarray | None = None,
    *,
    ids: Iterable[int] | None = None,
    progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> VocabularyAudit:
    """Classify every id of ``tokenizer`` (or just ``ids``); ``counts[id]`` from a corpus count
    (:attr:`tokviz.core.analysis.usage.TokenCounts.counts`) adds the unused-on-corpus list.

    ``progress(done, total)`` is called between blocks of ids; ``cancel()`` returning True stops
    the audit with :class:`~tokviz.core.errors.Cancelled`.
    """
    chosen = audited_ids(tokenizer) if ids is None else sorted({int(i) for i in ids})
    for i in chosen[:1] + chosen[-1:]:
        tokenizer.id_bytes(i)  # an id outside the vocabulary is named before any work
    specials = special_ids(tokenizer)
    encode = batch_encoder(tokenizer)
    classes = np.zeros(len(chosen), dtype=np.int8)
    total = len(chosen)
    for start in range(0, total, _BLOCK):
        if cancel is not None and cancel():
            raise Cancelled()
        stop = min(start + _BLOCK, total)
        classes[start:stop] = classify_block(tokenizer, chosen[start:stop], specials, encode)
        if progress is not None:
            progress(min(start + _BLOCK, total), total)
    return VocabularyAudit(tokenizer, np.array(chosen, dtype=np.int64), classes, counts)
