"""One registry entry (:class:`TokenizerEntry`), what the pickers say about its tokenizer, the work
its views will ask of it done while it loads, and which edits its views may encode in the GUI thread.

None of it needs Qt: the entry itself, the tooltip text (what the tokenizer is, anything its loader
had to guess or warns about, why replay is not exact) and :func:`warmed`, which builds slow
first-use tables in the loading worker rather than later in the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer, assigned_code_points
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.formats.registry import load_warnings

if TYPE_CHECKING:
    from tokviz.gui.workers.jobs import Job


@dataclass
class TokenizerEntry:
    """One tokenizer on offer: a built-in name or file (``source``), loaded on first use."""

    key: str
    label: str
    source: str | None
    tokenizer: Tokenizer | None = None
    counts: dict[int, int] | None = None
    merges_ready: bool = False
    loading: Job | None = field(default=None, repr=False)
    preparing: Job | None = field(default=None, repr=False)
    options: dict[str, Any] = field(default_factory=dict)  # a file's loader options (pattern, specials)


CHARACTERS_TIP = (
    "characters: one token per Unicode code point, id = the code point (ord). The scheme implies "
    "1,114,112 ids; about 145,000 are assigned characters and a text uses a few hundred."
)


def describe(tok: Tokenizer | None, where: str) -> str:
    """A picker entry's tooltip: ``where`` it comes from, then what its loader assumed or warns about
    ("⚠ pre-tokenizer assumed: GPT-2") and why replay cannot be exact, one line each."""
    if isinstance(tok, CharacterTokenizer):
        return CHARACTERS_TIP
    lines = [where]
    if tok is not None:
        lines += [f"⚠ {a}" for a in tok.assumptions]
        lines += [f"⚠ {w}" for w in load_warnings(tok)]
        if tok.replay_note:
            lines.append(f"replay: {tok.replay_note}")
    return "\n".join(lines)


def warmed(tok: Tokenizer) -> Tokenizer:
    """``tok``, with its slow first-use tables built (call it in a worker thread).

    The characters tokenizer's list of assigned code points (the vocabulary browser's rows, the
    view's "87% never assigned") takes a few hundred milliseconds once.
    """
    if isinstance(tok, CharacterTokenizer):
        assigned_code_points()
    return tok


# Windows up to this many code points are encoded in the GUI thread (a few ms); larger ones go to a worker.
SYNC_LIMIT = 4000


def encodes_in_gui_thread(key: str, tokenizer: Tokenizer, size: int) -> bool:
    """Whether a window of ``size`` code points may be encoded synchronously, in the GUI thread.

    Only small windows of tokenizers whose pre-tokenizer is known to be fast (built-in names,
    models trained with a named pattern) do. A tokenizer loaded from a file, or any custom
    pattern, always goes to a worker: a pattern that backtracks catastrophically runs until its
    time limit (seconds) before it fails, and the window must keep turning meanwhile.
    """
    return size <= SYNC_LIMIT and not key.startswith("file:") and not tokenizer.pretokenizer.bounded
