"""The sidecar of an exported ``.tiktoken`` file: the pattern and special tokens the rank file cannot hold.

A ``.tiktoken`` file is only ``base64(token) rank`` lines: tiktoken takes the pre-tokenizer
pattern and the special tokens as arguments. So an export writes ``<file>.json`` beside it
(``model.tiktoken`` -> ``model.tiktoken.json``)::

    {"format": "tokviz-tiktoken-sidecar", "version": 1, "name": "py32k", "pretokenizer": "cl100k",
     "pattern": "...", "special_tokens": {"<|endoftext|>": 32000}, "sha256": "<of the rank file>"}

tokviz reads it back when it loads the rank file, and :func:`tiktoken_snippet` shows the three
lines of Python that build the same ``tiktoken.Encoding``. They pass the rank file's SHA-256 to
``load_tiktoken_bpe``: tiktoken caches every file it loads by its path (in the system's temporary
folder), so without the hash a file exported again to the same path loads as the old one. A model trained with no pre-tokenizer
gets tiktoken's whole-text pattern (``[\\s\\S]+``), which gives the same chunks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from ..bpe.tokenizer import Tokenizer
from ..pretok.pretokenize import Pretokenizer
from ._common import PathLike
from ._writing import encode_text
from .hf_verify import HARD_SAMPLE

SIDECAR_FORMAT = "tokviz-tiktoken-sidecar"
SIDECAR_VERSION = 1
# tiktoken's pattern for "no pre-tokenizer": the whole text is one piece.
WHOLE_TEXT_PATTERN = r"[\s\S]+"


def sidecar_path(path: PathLike) -> Path:
    """Where the sidecar of the rank file ``path`` goes: the same name with ``.json`` added."""
    p = Path(path)
    return p.with_name(p.name + ".json")


def tiktoken_pattern(pre: Pretokenizer) -> str:
    """The ``pat_str`` that makes tiktoken chunk text as ``pre`` does."""
    return WHOLE_TEXT_PATTERN if pre.pattern is None else pre.pattern


def sidecar_bytes(tokenizer: Tokenizer, rank_file: bytes) -> bytes:
    """The sidecar JSON for ``tokenizer``'s rank file ``rank_file`` (pattern, pre-tokenizer name,
    special tokens, and the rank file's SHA-256)."""
    doc = {
        "format": SIDECAR_FORMAT,
        "version": SIDECAR_VERSION,
        "name": tokenizer.name,
        "pretokenizer": tokenizer.pretokenizer.name,
        "pattern": tiktoken_pattern(tokenizer.pretokenizer),
        "special_tokens": dict(sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])),
        "sha256": hashlib.sha256(rank_file).hexdigest(),
    }
    return encode_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", "the .tiktoken sidecar")


def tiktoken_snippet(path: PathLike) -> str:
    """The three lines of Python that load the exported rank file and its sidecar with tiktoken."""
    ranks = Path(path).name
    side = sidecar_path(path).name
    return (
        "import json, pathlib, tiktoken; from tiktoken.load import load_tiktoken_bpe\n"
        f'side = json.loads(pathlib.Path("{side}").read_text(encoding="utf-8"))\n'
        f'enc = tiktoken.Encoding(side["name"], pat_str=side["pattern"], mergeable_ranks=load_tiktoken_bpe("{ranks}", side["sha256"]), '
        'special_tokens=side["special_tokens"])'
    )


def tiktoken_pattern_problem(pre: Pretokenizer) -> str | None:
    """Why tiktoken's regex engine refuses ``pre``'s pattern (one line), or ``None``; checked before training."""
    import tiktoken

    try:
        tiktoken.Encoding(
            "check",
            pat_str=tiktoken_pattern(pre),
            mergeable_ranks={bytes([b]): b for b in range(256)},
            special_tokens={},
        )
    except ValueError as exc:
        return f"tiktoken cannot use the pre-tokenizer pattern ({str(exc).splitlines()[0]})"
    return None


def tiktoken_difference(
    tokenizer: Tokenizer, ranks: dict[bytes, int], sample: Iterable[str] = ()
) -> str | None:
    """Why tiktoken, given the rank file and sidecar, would not encode like ``tokenizer``, or ``None``.

    Builds the ``tiktoken.Encoding`` the snippet builds and compares ids on a hard built-in sample
    (scripts, emoji, whitespace and digit runs), on ``sample`` and on each special token.
    """
    import tiktoken

    problem = tiktoken_pattern_problem(tokenizer.pretokenizer)
    if problem is not None:
        return problem
    try:
        encoding = tiktoken.Encoding(
            tokenizer.name or "tokviz",
            pat_str=tiktoken_pattern(tokenizer.pretokenizer),
            mergeable_ranks=ranks,
            special_tokens=dict(tokenizer.special_tokens),
        )
    except ValueError as exc:  # a pattern tiktoken's regex engine refuses
        return f"tiktoken cannot use the pre-tokenizer pattern ({str(exc).splitlines()[0]})"
    texts = [*HARD_SAMPLE, *sample]
    specials = list(tokenizer.special_tokens)
    if specials:
        texts.append(" and ".join(f"{s}x{s}" for s in specials))
    for text in texts:
        if encoding.encode(text, allowed_special="all") != tokenizer.encode(text):
            return f"tiktoken splits {text[:30]!r} differently (its regex engine reads the pattern otherwise)"
    return None
