"""A tokenizer over a tiktoken rank table: tiktoken encodes, merges are recovered on first use."""

from __future__ import annotations

from collections.abc import Mapping

from ..bpe.native_bpe import BoundedBPE
from ..bpe.tokenizer import Tokenizer
from ..errors import TokenizerLoadError
from ..io.recovery import WHOLE_PIECE_PATTERN, recover_merges
from ..pretok.pretokenize import Pretokenizer, reference_bound, resolve_pretokenizer


class TiktokenEngine:
    """tokviz's fast-engine protocol over a ``tiktoken.Encoding`` built from a rank table.

    tiktoken is the reference for a rank table, so it also chunks the text with the
    pre-tokenizer's pattern whenever its regex engine accepts that pattern (``whole_text``); a
    pattern only Python's ``regex`` understands is chunked by tokviz, and tiktoken merges each chunk
    (its pattern then takes a chunk whole). ``none`` keeps the text whole either way. Every call
    goes through :class:`~tokviz.core.bpe.native_bpe.BoundedBPE`, so no pre-token longer than the
    bound reaches tiktoken.
    """

    def __init__(self, ranks: Mapping[bytes, int], pretokenizer: Pretokenizer, name: str = "tokviz") -> None:
        import tiktoken

        table = ranks if isinstance(ranks, dict) else dict(ranks)
        encoding: tiktoken.Encoding | None = None
        whole_text = False
        if pretokenizer.pattern is not None:
            try:
                encoding = tiktoken.Encoding(
                    name, pat_str=pretokenizer.pattern, mergeable_ranks=table, special_tokens={}
                )
                whole_text = True
            except ValueError:  # the Rust regex engine does not accept this pattern
                encoding = None
        if encoding is None:
            encoding = tiktoken.Encoding(
                name, pat_str=WHOLE_PIECE_PATTERN, mergeable_ranks=table, special_tokens={}
            )
            whole_text = pretokenizer.pattern is None
        self.encoding = encoding
        self.whole_text = whole_text
        # When tiktoken cuts the text, a stretch tokviz cuts must be cut as tiktoken's regex does.
        self._bpe = BoundedBPE(
            encoding, reference_bound(pretokenizer) if whole_text else pretokenizer, whole_text
        )

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token strings treated as plain text."""
        return self._bpe.encode_ordinary(text)


def tokenizer_from_ranks(
    ranks: Mapping[bytes, int],
    special_tokens: Mapping[str, int] | None = None,
    pretokenizer: str | Pretokenizer = "gpt2",
    name: str = "tiktoken",
    *,
    specials_in_text: bool = True,
) -> Tokenizer:
    """A tokenizer over a tiktoken rank table: tiktoken encodes, merges are recovered on first use.

    When tiktoken chunks the text, tokviz's own chunks (the views' chunk numbers, the pre-tokenizer
    panel, replay) use the Unicode version tiktoken's regex engine knows
    (:func:`~tokviz.core.pretok.pretokenize.reference_bound`), so both cut every text alike. A token with
    no bytes (one line of Whisper's multilingual file) keeps its id for decoding; BPE never makes it.
    ``specials_in_text=False``: the special ids only decode (see :class:`~tokviz.core.bpe.tokenizer.Tokenizer`).
    """
    pre = resolve_pretokenizer(pretokenizer)
    frozen = dict(ranks)
    try:
        engine = TiktokenEngine(frozen, pre, name)
    except ValueError as exc:
        raise TokenizerLoadError(f"tiktoken cannot use this rank table: {exc}") from None
    if engine.whole_text:
        pre = reference_bound(pre)
    vocab = {rank: token for token, rank in frozen.items()}
    # The table less the empty token, if there is one (o200k's table is 10 MB: no copy otherwise).
    mergeable = {token: rank for token, rank in frozen.items() if token} if b"" in frozen else frozen
    tokenizer = Tokenizer(
        vocab,
        lambda: recover_merges(mergeable),
        dict(special_tokens or {}),
        pre,
        name=name,
        engine=engine,
        specials_in_text=specials_in_text,
    )
    tokenizer.merges_follow_ids = True  # recover_merges lists the merges in rank order
    if len(mergeable) != len(frozen):  # the empty token is no merge: count without recovering them
        tokenizer._merge_count_hint = len(mergeable) - 256
    return tokenizer
