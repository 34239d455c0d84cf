"""A tokenizer over a tiktoken rank table: tiktoken encodes, merges are recovered on first use."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import TokenizerLoadError
from ..pretokenize import NAMED_PATTERNS, Pretokenizer, resolve_pretokenizer
from ..recovery import WHOLE_PIECE_PATTERN, recover_merges
from ..tokenizer import Tokenizer


class TiktokenEngine:
    """tokviz's fast-engine protocol over a ``tiktoken.Encoding`` built from a rank table.

    For the named GPT-2 and cl100k patterns tiktoken also does the chunking (its patterns are
    the same); for any other pre-tokenizer tokviz chunks, and an encoding whose pattern takes
    each chunk whole only merges it (through tiktoken's public ``encode_ordinary``).
    """

    def __init__(self, ranks: Mapping[bytes, int], pretokenizer: Pretokenizer, name: str = "tokviz") -> None:
        import tiktoken

        self._whole_text = pretokenizer.pattern is not None and pretokenizer.pattern == NAMED_PATTERNS.get(
            pretokenizer.name
        )
        self._split = pretokenizer.split
        pattern = pretokenizer.pattern if self._whole_text and pretokenizer.pattern else WHOLE_PIECE_PATTERN
        self.encoding = tiktoken.Encoding(
            name,
            pat_str=pattern,
            mergeable_ranks=ranks if isinstance(ranks, dict) else dict(ranks),
            special_tokens={},
        )

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token strings treated as plain text."""
        encode = self.encoding.encode_ordinary
        if self._whole_text:
            return encode(text)
        out: list[int] = []
        for chunk in self._split(text):
            out.extend(encode(chunk))
        return out


def tokenizer_from_ranks(
    ranks: Mapping[bytes, int],
    special_tokens: Mapping[str, int] | None = None,
    pretokenizer: str = "gpt2",
    name: str = "tiktoken",
) -> Tokenizer:
    """A tokenizer over a tiktoken rank table: tiktoken encodes, merges are recovered on first use."""
    pre = resolve_pretokenizer(pretokenizer)
    frozen = dict(ranks)
    try:
        engine = TiktokenEngine(frozen, pre, name)
    except ValueError as exc:
        raise TokenizerLoadError(f"tiktoken cannot use this rank table: {exc}") from None
    vocab = {rank: token for token, rank in frozen.items()}
    return Tokenizer(
        vocab,
        lambda: recover_merges(frozen),
        dict(special_tokens or {}),
        pre,
        name=name,
        engine=engine,
    )
