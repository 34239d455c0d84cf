"""tiktoken's compiled BPE over a rank table, handed only pieces of bounded length.

tiktoken merges each pre-token its regex finds in one native call whose memory grows with the
pre-token (about 32 bytes a byte): a 200 MB line of letters asks for 6.4 GB and aborts the whole
process from Rust. :class:`BoundedBPE` is the one way tokviz calls tiktoken to encode text, and
it never hands it a pre-token longer than :data:`~tokviz.core.pretok.pretokenize.LONGEST_PRETOKEN`
characters: such a pre-token is merged in the pieces training counts
(:func:`~tokviz.core.pretok.stretches.encoding_pieces`), everything else exactly as tiktoken would.

Finding the long pre-tokens costs next to nothing on ordinary text. A text no longer than the
bound cannot hold one; for the published patterns a space after a non-space always begins a
pre-token, so only a stretch without such a space for the bound's length may hold one, and only
that stretch is split here (with the pre-tokenizer, cutting as tiktoken cuts): its long pre-tokens
are merged piece by piece, the text between them by tiktoken as usual. Other patterns are split
here whenever the text is longer than the bound, and each chunk merged on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..pretok.pretokenize import LONGEST_PRETOKEN, PUBLISHED_PATTERNS, Pretokenizer, replace_lone_surrogates
from ..pretok.stretches import PieceMemo, encoding_pieces, space_windows

if TYPE_CHECKING:
    import tiktoken

# The patterns in which a space after a non-space always begins a pre-token.
_SPACE_SAFE = frozenset(PUBLISHED_PATTERNS.values())


class BoundedBPE:
    """Encodes text with a ``tiktoken.Encoding`` whose native calls see bounded pieces only.

    ``whole_text``: the encoding's own pattern is the pre-tokenizer's, so tiktoken may cut the
    text itself; otherwise ``split`` (the pre-tokenizer, cutting as the encoding's regex would)
    cuts it and tiktoken merges each chunk.
    """

    def __init__(
        self,
        encoding: tiktoken.Encoding,
        pretokenizer: Pretokenizer,
        whole_text: bool,
    ) -> None:
        self.encoding = encoding
        self.whole_text = whole_text
        self._split = pretokenizer.split
        self._space_safe = whole_text and pretokenizer.pattern in _SPACE_SAFE
        self._memo = PieceMemo()

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of ``text`` with special-token strings read as plain text (lone surrogates as U+FFFD)."""
        if self.whole_text:
            encode = self.encoding.encode_ordinary
            if len(text) <= LONGEST_PRETOKEN:
                return encode(text)
            if self._space_safe:
                out: list[int] = []
                for start, end, exact in space_windows(text):
                    out += encode(text[start:end]) if exact else self._around_long(text[start:end])
                return out
        return self._by_chunks(text)

    def _around_long(self, text: str) -> list[int]:
        r"""A stretch that may hold a long pre-token: tiktoken encodes the runs between long ones
        whole, and each long one is merged in pieces.

        A run is cut after a pre-token that ends in a non-space: the regex reads nothing behind
        it, and each match before it ends where the next character's class says, with or without
        the text after. Whitespace is not such a place (``\s+(?!\S)`` and ``\s++$`` look past
        it), so the whitespace pre-tokens just before a long one are merged one by one.
        """
        chunks = self._split(text)
        encode = self.encoding.encode_ordinary
        if max(map(len, chunks), default=0) <= LONGEST_PRETOKEN:
            return encode(text)
        out: list[int] = []
        run = pos = 0
        tail: list[str] = []  # the pre-tokens since the last one that ends in a non-space
        for chunk in chunks:
            if len(chunk) > LONGEST_PRETOKEN:
                head = pos - sum(map(len, tail))
                if head > run:
                    out += encode(text[run:head])
                for short in tail:
                    out += self._merge(short)
                for piece in encoding_pieces(chunk):
                    out += self._memo.ids(piece, self._merge)
                run, tail = pos + len(chunk), []
            elif chunk[-1].isspace():
                tail.append(chunk)
            else:
                tail = []
            pos += len(chunk)
        if run < len(text):
            out += encode(text[run:])
        return out

    def _by_chunks(self, text: str) -> list[int]:
        """Split ``text`` here and merge each chunk's pieces, one native call each."""
        out: list[int] = []
        for chunk in self._split(text):
            pieces = encoding_pieces(chunk)
            if len(pieces) == 1:
                out += self._merge(chunk)
                continue
            for piece in pieces:
                out += self._memo.ids(piece, self._merge)
        return out

    def _merge(self, piece: str) -> list[int]:
        """tiktoken's ids of one piece, merged whole (as its own loop merges one pre-token)."""
        try:
            data = piece.encode("utf-8")
        except UnicodeEncodeError:
            data = replace_lone_surrogates(piece).encode("utf-8")
        return self.encoding._encode_single_piece(data)
