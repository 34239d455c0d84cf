"""tiktoken's ``.tiktoken`` rank files: base64 token and rank per line (the one reader and writer)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from pathlib import Path

from ..errors import ExportError, TokenizerLoadError
from ..outputs import Output
from ..tokenizer import Tokenizer
from ._common import (
    MAX_ID,
    TIKTOKEN_CAP,
    PathLike,
    _check_count,
    _read_file,
    _short,
)
from ._writing import encode_text, write_one
from .engine import tokenizer_from_ranks


def export_tiktoken(tokenizer: Tokenizer, path: PathLike) -> Path:
    """Write a ``.tiktoken`` rank file (checked and atomic, see :mod:`tokviz.core.outputs`)."""
    write_one(Output.file(path, "the .tiktoken file"), tiktoken_file_bytes(tokenizer))
    return Path(path)


def tiktoken_file_bytes(tokenizer: Tokenizer) -> bytes:
    """A ``.tiktoken`` rank file's bytes: ``base64(token bytes) rank`` per line, ranks = ids.

    The format has no special tokens (tiktoken passes them separately) and ranks decide the
    merge order, so the ordinary ids must be exactly 0..N-1, each bytes value must appear once,
    and the merges must create their tokens in id order. tiktoken then merges by the rank of the
    merged bytes, which for trained vocabularies gives the same ids as the merge list (tested).
    """
    specials = set(tokenizer.special_tokens.values())
    ids = sorted(i for i in tokenizer.vocab if i not in specials)
    if ids != list(range(len(ids))):
        gap = next(k for k, i in enumerate(ids) if i != k)
        raise ExportError(
            f"cannot write a .tiktoken file: its ranks are the ids 0..{len(ids) - 1}, "
            f"but this vocabulary has no ordinary id {gap}"
        )
    seen: dict[bytes, int] = {}
    for i in ids:
        data = tokenizer.vocab[i]
        if data in seen:
            raise ExportError(
                f"cannot write a .tiktoken file: ids {seen[data]} and {i} have the same bytes "
                f"{_short(data)}, and a rank file keys tokens by their bytes"
            )
        seen[data] = i
    made = {left + right for left, right in tokenizer.merges}
    previous = -1
    for rank, (left, right) in enumerate(tokenizer.merges):
        token_id = seen[left + right]
        if token_id <= previous:
            raise ExportError(
                f"cannot write a .tiktoken file: merge {rank} makes id {token_id}, which is not after the id "
                f"{previous} of the merge before it, so ranks would not follow the merge order"
            )
        previous = token_id
    for i in ids:
        data = tokenizer.vocab[i]
        if len(data) > 1 and data not in made:
            raise ExportError(f"cannot write a .tiktoken file: id {i} ({_short(data)}) is made by no merge")
    lines = [f"{base64.b64encode(tokenizer.vocab[i]).decode('ascii')} {i}\n" for i in ids]
    return encode_text("".join(lines), "the .tiktoken file")


def load_tiktoken_file(
    path: PathLike,
    pretokenizer: str = "gpt2",
    special_tokens: Mapping[str, int] | None = None,
    name: str | None = None,
) -> Tokenizer:
    """Load a ``.tiktoken`` rank file: tiktoken encodes, and the merges are recovered on first use."""
    p = Path(path)
    return tiktoken_from_data(
        _read_file(p, TokenizerLoadError, TIKTOKEN_CAP), p.name, pretokenizer, special_tokens, name or p.stem
    )


def tiktoken_from_data(
    data: bytes,
    file_name: str,
    pretokenizer: str = "gpt2",
    special_tokens: Mapping[str, int] | None = None,
    name: str = "tiktoken",
) -> Tokenizer:
    """A tokenizer from the bytes of a ``.tiktoken`` file already read (``file_name`` starts messages)."""
    ranks = parse_tiktoken_file(data, file_name)
    for text, token_id in (special_tokens or {}).items():
        if token_id in ranks.values():
            raise TokenizerLoadError(
                f"{file_name}: special token {_short(text)} has id {token_id}, an ordinary rank"
            )
    try:
        return tokenizer_from_ranks(ranks, special_tokens, pretokenizer, name)
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(f"{file_name}: {exc}") from None


def parse_tiktoken_file(data: bytes, name: str) -> dict[bytes, int]:
    """Validate and parse ``.tiktoken`` data into ``{token bytes: rank}`` (``name`` starts every message).

    The one reader of the format, for user files and the bundled encodings alike. One
    ``base64-token rank`` pair per line, separated by one space (a blank line is skipped, a line
    may end in CR). Stricter than tiktoken's own reader: the base64 must be valid, a token may not
    be empty or listed twice, a rank must be a decimal integer below 2^31 and belong to one token,
    and every single byte must have a token.
    """
    a2b = binascii.a2b_base64
    ranks: dict[bytes, int] = {}
    owners: dict[int, bytes] = {}
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")  # a byte-order mark is not a token
    _check_count(len(lines), "lines", name, TokenizerLoadError)
    for number, line in enumerate(lines, start=1):
        line = line.rstrip(b"\r")
        if not line:
            continue
        parts = line.split(b" ")
        # bytes.isdigit() accepts only the ASCII digits 0-9.
        if len(parts) != 2 or not parts[1].isdigit() or len(parts[1]) > 10:
            raise TokenizerLoadError(f"{name}, line {number}: not a 'base64-token rank' pair")
        try:
            token = a2b(parts[0], strict_mode=True)
        except (binascii.Error, ValueError):
            raise TokenizerLoadError(f"{name}, line {number}: the token is not valid base64") from None
        rank = int(parts[1])
        if not token:
            raise TokenizerLoadError(f"{name}, line {number}: the token is empty")
        if rank > MAX_ID:
            raise TokenizerLoadError(f"{name}, line {number}: rank {rank} is larger than 2^31 - 1")
        if token in ranks:
            raise TokenizerLoadError(
                f"{name}, line {number}: token {_short(token)} already has rank {ranks[token]}"
            )
        if rank in owners:
            raise TokenizerLoadError(
                f"{name}, line {number}: rank {rank} is already used by {_short(owners[rank])}"
            )
        ranks[token] = rank
        owners[rank] = token
    if not ranks:
        raise TokenizerLoadError(f"{name}: the file holds no tokens")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise TokenizerLoadError(
            f"{name}: no token for the single byte {missing[0]:02X}; not a byte-level BPE file"
        )
    return ranks
