"""tiktoken's ``.tiktoken`` rank files: base64 token and rank per line (the one reader and writer)."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..bpe.tokenizer import Tokenizer
from ..errors import ExportError, TokenizerLoadError
from ..pretok.pretokenize import Pretokenizer
from ._common import (
    MAX_ID,
    TIKTOKEN_CAP,
    PathLike,
    _check_count,
    _is_int,
    _read_file,
    _short,
    check_file_pattern,
    read_json,
)
from ._writing import encode_text, write_file
from .engine import tokenizer_from_ranks
from .tiktoken_sidecar import SIDECAR_FORMAT, SIDECAR_VERSION, WHOLE_TEXT_PATTERN, sidecar_path
from .whisper import LANGUAGES_BEFORE_V3, WHISPER_FILE_NAME, whisper_special_tokens


def export_tiktoken(tokenizer: Tokenizer, path: PathLike) -> Path:
    """Write a ``.tiktoken`` rank file (checked and atomic, see :mod:`tokviz.core.io.outputs`)."""
    return write_file(path, "the .tiktoken file", tiktoken_file_bytes(tokenizer))


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


# tokviz's sidecar next to a rank file (``name.tiktoken.json``, see tiktoken_sidecar.py): the
# pattern and special tokens the format itself cannot carry.
SIDECAR_CAP = 64 * 2**20
ASSUMED_PATTERN = "pre-tokenizer assumed: GPT-2"
ASSUMED_SPECIALS = "special tokens: none known"

# A special token given by text alone (``--special-token TEXT``) gets the next free id.
SpecialTokens = Mapping[str, int | None] | Iterable[str]


@dataclass(frozen=True)
class PublishedFile:
    """A rank file OpenAI publishes, known by its SHA-256: its pattern and specials (None: they
    depend on the model using the file, so they stay unknown)."""

    name: str
    pattern: str
    special_tokens: Mapping[str, int] | None
    # What the file alone cannot settle and tokviz chose (said in the tokenizer's assumptions).
    assumption: str | None = None


# Every rank file tiktoken_ext/openai_public.py loads, by the SHA-256 it checks, with the pattern
# and specials it gives them (p50k_edit shares p50k_base's file; the file alone means p50k_base),
# and Whisper's multilingual file.
PUBLISHED_FILES: dict[str, PublishedFile] = {
    "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930": PublishedFile(
        "r50k_base", "gpt2", {"<|endoftext|>": 50256}
    ),
    "94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069": PublishedFile(
        "p50k_base", "gpt2", {"<|endoftext|>": 50256}
    ),
    "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7": PublishedFile(
        "cl100k_base",
        "cl100k",
        {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    ),
    "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d": PublishedFile(
        "o200k_base", "o200k", {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
    ),
    # Whisper's multilingual.tiktoken (openai-whisper): GPT-2's pattern, Whisper's special tokens
    # after its 50,257 ranks (see .whisper; its gpt2.tiktoken is r50k_base's file, WHISPER_ENGLISH).
    "b34b360dbb493e781e479794586d661700670d65564001f23024971d1f2fa126": PublishedFile(
        "whisper multilingual",
        "gpt2",
        whisper_special_tokens(50257),
        "special tokens: Whisper large-v3's (100 languages; earlier multilingual models have 99, "
        "so their ids after <|su|> are one lower: give them in a sidecar)",
    ),
}
R50K_SHA256 = "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930"
# r50k_base's file under Whisper's name for it: Whisper's English-only models' special tokens.
WHISPER_ENGLISH = PublishedFile("whisper gpt2", "gpt2", whisper_special_tokens(50256, LANGUAGES_BEFORE_V3))


def published_file(data: bytes, file_name: str) -> PublishedFile | None:
    """The OpenAI file ``data`` is, by its SHA-256 (and, for Whisper's ``gpt2.tiktoken``, its name)."""
    digest = hashlib.sha256(data).hexdigest()
    if digest == R50K_SHA256 and file_name == WHISPER_FILE_NAME:
        return WHISPER_ENGLISH
    return PUBLISHED_FILES.get(digest)


def load_tiktoken_file(
    path: PathLike,
    pretokenizer: str | Pretokenizer | None = None,
    special_tokens: SpecialTokens | None = None,
    name: str | None = None,
) -> Tokenizer:
    """Load a ``.tiktoken`` rank file: tiktoken encodes, and the merges are recovered on first use.

    The pattern and special tokens come from the arguments, else from a sidecar
    ``<file>.tiktoken.json``, else from OpenAI's published files (by SHA-256); see
    :func:`tiktoken_from_data`.
    """
    p = Path(path)
    data = _read_file(p, TokenizerLoadError, TIKTOKEN_CAP)
    return tiktoken_from_data(data, p, pattern=pretokenizer, special_tokens=special_tokens, name=name)


def read_sidecar(
    path: PathLike, data: bytes | None = None
) -> tuple[str | None, dict[str, int] | None] | None:
    """The ``(pattern, special tokens)`` of a rank file's sidecar, or None when it has none.

    A field that is absent or null is None. A sidecar that exists but is not tokviz's format, or
    that names another rank file by its ``sha256`` (``data`` is the rank file's bytes), is refused
    with a one-line :class:`TokenizerLoadError` naming it, never ignored or silently applied.
    """
    side = sidecar_path(path)
    if not side.exists():
        return None
    doc = read_json(side, cap=SIDECAR_CAP)
    if not isinstance(doc, dict) or doc.get("format") != SIDECAR_FORMAT:
        raise TokenizerLoadError(f'{side.name}: not a tokviz sidecar (expected "format": "{SIDECAR_FORMAT}")')
    if doc.get("version") != SIDECAR_VERSION:
        raise TokenizerLoadError(
            f"{side.name}: sidecar version {doc.get('version')!r} is not {SIDECAR_VERSION}; update tokviz"
        )
    digest = doc.get("sha256")
    if data is not None and isinstance(digest, str) and digest != hashlib.sha256(data).hexdigest():
        raise TokenizerLoadError(
            f"{side.name} belongs to another version of {Path(path).name} (its sha256 differs): "
            "export the model again, or delete the sidecar and give --pattern and --special-token"
        )
    pattern = _sidecar_pattern(doc, side.name)
    raw = doc.get("special_tokens")
    specials: dict[str, int] | None = None
    if raw is not None:
        if not isinstance(raw, dict):
            raise TokenizerLoadError(f'{side.name}: "special_tokens" must be an object {{"text": id}}')
        specials = {}
        for text, token_id in raw.items():
            if not text or not _is_int(token_id) or not 0 <= token_id <= MAX_ID:
                raise TokenizerLoadError(
                    f"{side.name}: special token {_short(text)} needs an id from 0 to 2^31 - 1, got {token_id!r}"
                )
            specials[text] = token_id
    return pattern, specials


def _sidecar_pattern(doc: Mapping[str, object], side_name: str) -> str | None:
    """The sidecar's pattern (``"none"`` for tiktoken's whole-text one), checked before any compile."""
    pattern = doc.get("pattern")
    if pattern is None:
        return None
    if not isinstance(pattern, str) or not pattern:
        raise TokenizerLoadError(f'{side_name}: "pattern" must be a non-empty string or null')
    check_file_pattern(pattern, '"pattern"', side_name)
    if pattern == WHOLE_TEXT_PATTERN and doc.get("pretokenizer") == "none":
        return "none"  # tiktoken's spelling of "no pre-tokenizer"
    return pattern


def special_ids(given: SpecialTokens, ranks: Mapping[bytes, int], file_name: str) -> dict[str, int]:
    """``{text: id}`` for special tokens given with or without ids: one without gets the next free id.

    An id that is an ordinary rank or belongs to another special is refused, naming the file.
    """
    pairs = list(given.items()) if isinstance(given, Mapping) else [(text, None) for text in given]
    taken = set(ranks.values())
    out: dict[str, int] = {}
    for text, token_id in pairs:
        if not isinstance(text, str) or not text:
            raise TokenizerLoadError(f"{file_name}: a special token must be a non-empty string, got {text!r}")
        if token_id is None:
            continue
        if token_id in taken:
            raise TokenizerLoadError(
                f"{file_name}: special token {_short(text)} has id {token_id}, an ordinary rank"
            )
        if token_id in out.values():
            raise TokenizerLoadError(
                f"{file_name}: special token {_short(text)} has id {token_id}, already given"
            )
        out[text] = token_id
    next_id = max([*taken, *out.values()], default=-1) + 1
    for text, token_id in pairs:
        if token_id is None and text not in out:
            out[text] = next_id
            next_id += 1
    return out


def _with_given(known: Mapping[str, int], given: SpecialTokens | None) -> dict[str, int | None]:
    """The known special tokens with the given ones added: a given id wins, a bare text keeps a known id."""
    out: dict[str, int | None] = dict(known)
    pairs = given.items() if isinstance(given, Mapping) else ((text, None) for text in given or ())
    for text, token_id in pairs:
        if token_id is not None or text not in out:
            out[text] = token_id
    return out


def tiktoken_from_data(
    data: bytes,
    path: PathLike,
    *,
    pattern: str | Pretokenizer | None = None,
    special_tokens: SpecialTokens | None = None,
    name: str | None = None,
) -> Tokenizer:
    """A tokenizer from the bytes of a ``.tiktoken`` file already read from ``path``.

    A rank file holds no pattern and no special tokens. The pattern is the first of: ``pattern``;
    the sidecar ``<file>.tiktoken.json`` next to ``path`` (:func:`read_sidecar`); OpenAI's own file
    with the same SHA-256 (:data:`PUBLISHED_FILES`). The special tokens are the sidecar's or the
    published file's, with ``special_tokens`` added (a given id wins; a text without one keeps a
    known id or takes the next free one). Otherwise the GPT-2 pattern and no specials are used and
    said so in ``tokenizer.assumptions``, so no guess reads as a fact.
    """
    p = Path(path)
    file_name = p.name
    ranks = parse_tiktoken_file(data, file_name)
    side = read_sidecar(p, data) if p.name else None
    published = published_file(data, file_name)
    assumptions: list[str] = []
    chosen_pattern: str | Pretokenizer
    if pattern is not None:
        chosen_pattern = pattern
    elif side is not None and side[0] is not None:
        chosen_pattern = side[0]
    elif published is not None:
        chosen_pattern = published.pattern
    else:
        chosen_pattern = "gpt2"
        assumptions.append(ASSUMED_PATTERN)
    known: Mapping[str, int] | None = None
    if side is not None and side[1] is not None:
        known = side[1]
    elif published is not None:
        known = published.special_tokens  # None when the file alone does not say
        if published.assumption and special_tokens is None:
            assumptions.append(published.assumption)
    if known is None and special_tokens is None:
        assumptions.append(ASSUMED_SPECIALS)
    chosen_specials = _with_given(known or {}, special_tokens)
    specials = special_ids(chosen_specials, ranks, file_name)
    try:
        tokenizer = tokenizer_from_ranks(ranks, specials, chosen_pattern, name or p.stem or "tiktoken")
    except TokenizerLoadError as exc:
        raise TokenizerLoadError(f"{file_name}: {exc}") from None
    tokenizer.assumptions = tuple(assumptions)
    return tokenizer


def parse_tiktoken_file(data: bytes, name: str) -> dict[bytes, int]:
    """Validate and parse ``.tiktoken`` data into ``{token bytes: rank}`` (``name`` starts every message).

    The one reader of the format, for user files and the bundled encodings alike. One
    ``base64-token rank`` pair per line, separated by one space (a blank line is skipped, a line
    may end in CR). A token of padding alone (``= 50256``) is the empty token, as tiktoken reads it
    (Whisper's multilingual file has one; BPE never produces it). Stricter than tiktoken's own
    reader otherwise: the base64 must be valid, a token may not be listed twice, a rank must be a
    decimal integer below 2^31 and belong to one token, and every single byte must have a token.
    """
    data = data.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark is not a token
    _check_count(data.count(b"\n") + 1, "lines", name, TokenizerLoadError)
    ranks = _parse_well_formed(data)
    if ranks is None:  # something is wrong: the line-by-line reading says what, and where
        ranks = _parse_line_by_line(data.split(b"\n"), name)
    if not ranks:
        raise TokenizerLoadError(f"{name}: the file holds no tokens")
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise TokenizerLoadError(
            f"{name}: no token for the single byte {missing[0]:02X}; not a byte-level BPE file"
        )
    return ranks


_STRICT_A2B = functools.partial(binascii.a2b_base64, strict_mode=True)
# Lines made of base64 characters, one space and 1 to 10 ASCII digits, each ended by a newline.
_PLAIN_LINES = re.compile(rb"(?:[A-Za-z0-9+/=]+ [0-9]{1,10}\n)+")


def _parse_well_formed(body: bytes) -> dict[bytes, int] | None:
    """The table of a file every line of which is a plain ``base64-token rank`` pair, checked and
    split a column at a time (o200k's 200,000 lines in a fifth of the line-by-line time); None as
    soon as any rule of :func:`parse_tiktoken_file` might be broken, or for what this path leaves
    to the line-by-line reader (a CR, a blank line inside, a token of padding alone)."""
    if not body.endswith(b"\n"):
        body += b"\n"
    # A token of valid base64 never starts with padding: "=" there is a token of padding alone.
    if body.startswith(b"=") or b"\n=" in body or _PLAIN_LINES.fullmatch(body) is None:
        return None
    fields = body.replace(b"\n", b" ").split(b" ")
    del fields[-1]  # after the last newline
    tokens, numbers = fields[0::2], fields[1::2]
    try:
        decoded = list(map(_STRICT_A2B, tokens))
    except (binascii.Error, ValueError):
        return None
    ranks = list(map(int, numbers))
    table = dict(zip(decoded, ranks, strict=True))
    if len(table) != len(ranks) or len(set(ranks)) != len(ranks) or max(ranks) > MAX_ID:
        return None
    return table


def _parse_line_by_line(lines: list[bytes], name: str) -> dict[bytes, int]:
    """:func:`parse_tiktoken_file`'s rules applied one line at a time: the first broken one raises
    :class:`TokenizerLoadError` naming its line."""
    ranks: dict[bytes, int] = {}
    owners: dict[int, bytes] = {}
    for number, line in enumerate(lines, start=1):
        line = line.rstrip(b"\r")
        if not line:
            continue
        parts = line.split(b" ")
        # bytes.isdigit() accepts only the ASCII digits 0-9.
        if len(parts) != 2 or not parts[0] or not parts[1].isdigit() or len(parts[1]) > 10:
            raise TokenizerLoadError(f"{name}, line {number}: not a 'base64-token rank' pair")
        if parts[0] and not parts[0].strip(b"="):
            token = b""  # padding alone: tiktoken reads an empty token (Whisper's multilingual file)
        else:
            try:
                token = _STRICT_A2B(parts[0])
            except (binascii.Error, ValueError):
                raise TokenizerLoadError(f"{name}, line {number}: the token is not valid base64") from None
        rank = int(parts[1])
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
    return ranks
