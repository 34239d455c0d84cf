"""OpenAI's published encodings shipped with tokviz (r50k_base = GPT-2, cl100k_base, o200k_base), loaded offline.

The ``.tiktoken`` files live in ``resources/encodings``. Every load checks the file's SHA-256
against the published digest, so a corrupt or swapped file is refused rather than used.
Their merge lists come back from the rank tables through :func:`tokviz.core.io.recovery.recover_merges`.
A copy of one that a user opens is recognised by its SHA-256
(:data:`tokviz.core.formats.tiktoken_file.PUBLISHED_FILES`) and gets the same pattern and specials.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType

from tiktoken.load import check_hash

from ..errors import TokenizerLoadError
from ..io.recovery import recover_merges
from ..io.resources import resource_path
from .encoding_names import encoding_aliases
from .tiktoken_file import parse_tiktoken_file


@dataclass(frozen=True)
class BundledEncoding:
    """Facts about one shipped encoding: its published hash, specials and chunking pattern.

    Its file in ``resources/encodings`` is named after it (:attr:`filename`).
    """

    name: str
    sha256: str
    rank_count: int
    special_tokens: MappingProxyType[str, int] = field(repr=False)
    # A name tokviz.core.pretok.pretokenize.resolve_pretokenizer understands.
    pattern: str

    @property
    def filename(self) -> str:
        """The rank file's name, as OpenAI publishes it: ``NAME.tiktoken``."""
        return f"{self.name}.tiktoken"


BUNDLED: dict[str, BundledEncoding] = {
    encoding.name: encoding
    for encoding in (
        BundledEncoding(
            name="r50k_base",
            sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
            rank_count=50256,
            special_tokens=MappingProxyType({"<|endoftext|>": 50256}),
            pattern="gpt2",
        ),
        BundledEncoding(
            name="cl100k_base",
            sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            rank_count=100256,
            special_tokens=MappingProxyType(
                {
                    "<|endoftext|>": 100257,
                    "<|fim_prefix|>": 100258,
                    "<|fim_middle|>": 100259,
                    "<|fim_suffix|>": 100260,
                    "<|endofprompt|>": 100276,
                }
            ),
            pattern="cl100k",
        ),
        BundledEncoding(
            name="o200k_base",
            sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            rank_count=199998,
            special_tokens=MappingProxyType({"<|endoftext|>": 199999, "<|endofprompt|>": 200018}),
            pattern="o200k",
        ),
    )
}


_ALIASES = encoding_aliases(by_short_name=False)


def bundled_encoding(name: str) -> BundledEncoding:
    """The shipped encoding called ``name`` ("gpt2"/"r50k_base", "cl100k"/"cl100k_base" or "o200k"/"gpt-4o")."""
    key = _ALIASES.get(name.strip().lower()) if isinstance(name, str) else None
    if key is None:
        known = ", ".join(sorted(_ALIASES))
        raise TokenizerLoadError(f"no bundled encoding called {name!r}; choose one of: {known}")
    return BUNDLED[key]


def load_bundled_ranks(name: str) -> dict[bytes, int]:
    """The ``{token bytes: rank}`` table of a shipped encoding, hash-checked, without the network.

    The result is a fresh dict each call; the parsed table is cached for the process.
    """
    return dict(_load_ranks(bundled_encoding(name).name))


def bundled_ranks_view(name: str) -> Mapping[bytes, int]:
    """:func:`load_bundled_ranks` without the copy: the process's one parsed table, read-only."""
    return _load_ranks(bundled_encoding(name).name)


def bundled_merges(name: str) -> list[tuple[bytes, bytes]]:
    """The ordered merge list of a shipped encoding (see :func:`recover_merges`), cached per process."""
    return list(_merges(bundled_encoding(name).name))


@cache
def _load_ranks(key: str) -> MappingProxyType[bytes, int]:
    enc = BUNDLED[key]
    path = resource_path("encodings", enc.filename)
    # The bytes are read and checked here rather than through tiktoken.load.load_tiktoken_bpe,
    # whose read_file_cached would also write a copy into the system temp folder.
    data = path.read_bytes()
    if not check_hash(data, enc.sha256):
        raise TokenizerLoadError(
            f"bundled encoding {path} does not match its published SHA-256 {enc.sha256}; "
            "the file is corrupt or was replaced: reinstall tokviz-desktop"
        )
    ranks = parse_tiktoken_file(data, str(path))
    if len(ranks) != enc.rank_count:
        raise TokenizerLoadError(f"{path} has {len(ranks)} ranks, expected {enc.rank_count}")
    return MappingProxyType(ranks)


@cache
def _merges(key: str) -> tuple[tuple[bytes, bytes], ...]:
    return tuple(recover_merges(_load_ranks(key)))
