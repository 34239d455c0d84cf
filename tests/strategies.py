"""Hypothesis strategies for the text that breaks tokenizers, shared by every test that generates text.

Use these instead of a bare ``st.text()`` whenever generated text goes into a tokenizer, a
pre-tokenizer, a trainer, a decoder or a view:

- :func:`hard_text` -- a string mixing ordinary text with the cases that have broken (or could
  break) byte-level BPE code. Each ingredient is there for a reason:

  * arbitrary Unicode from ``st.text()`` and plain ASCII words: the ordinary case must keep working;
  * contractions (``'s``, ``'LL``) and case-folding look-alikes (``ſ``, the Kelvin sign): the
    pre-tokenizer patterns treat ``'s`` specially, and cl100k's is case-insensitive there;
  * ZWJ emoji, skin tones, keycaps, tag sequences and regional-indicator flags: many code points
    that render as one glyph, 4-byte UTF-8 that BPE splits inside a character;
  * NFD text (a base letter followed by combining marks, Hangul as jamo) and stray combining marks:
    ``\\p{L}`` does not match a mark, so words break where a reader sees none;
  * line and paragraph separators (U+2028, U+2029), NEL (U+0085), the ideographic space (U+3000),
    NBSP, zero-width and BOM characters, and the ASCII separators U+001C..U+001F that Python's
    ``str.isspace`` accepts but the regex ``\\s`` does not: the places where fast ASCII paths,
    ``str.splitlines`` and Qt disagree about what is a space or a line;
  * whitespace runs up to :data:`LONG_RUN` (2,000) characters: long chunks (the encoder's heap
    path), ``\\s+(?!\\S)`` backtracking, and buffers that must wait for a safe cut;
  * CJK without spaces (including astral ideographs): long chunks with no safe cut at all;
  * runs of digits (ASCII, Arabic-Indic, full-width, superscripts) and of punctuation: cl100k
    groups digits in threes, and punctuation runs carry trailing newlines into their chunk;
  * optionally, whole special tokens and their prefixes and suffixes (``specials=``): a prefix
    that never completes must stay text, and two halves that meet must become the special.

  Pieces are drawn from a small pool and repeated, so that pairs recur and BPE has something to
  merge (the trainer tests need ties and counts above one, not only a soup of distinct pairs).

- :func:`pieces_with_specials` -- a list of strings for streaming encoders (``encode_iterable``):
  their join holds at least one whole special token cut at a drawn position (every position,
  over a run), plus arbitrary further cuts, empty pieces included.

- :func:`text_with_lone_surrogates` and :func:`replace_lone_surrogates` -- text holding lone
  UTF-16 surrogates (which a Python ``str`` can hold and UTF-8 cannot encode), and the defined
  expected reading of it: each lone surrogate is read as U+FFFD, as tiktoken and the bundled
  tokenizers do. No high surrogate is ever directly followed by a low one, so every surrogate is
  truly alone (a pair would be one astral character in UTF-16, a different question).

Sizes are bounded so that generation stays fast: at most ``max_pieces`` short pieces (each under
about 40 characters) plus at most one long whitespace run.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from hypothesis import strategies as st

__all__ = [
    "HARD_SAMPLE",
    "LONG_RUN",
    "hard_text",
    "pieces_with_specials",
    "replace_lone_surrogates",
    "text_with_lone_surrogates",
]

LONG_RUN = 2_000
"""The longest whitespace run :func:`hard_text` generates."""

WORDS = (
    "the", " the", "cat", " cat", " in", " hat", "Hello", " world", "HELLO", "aaaa", "ab", "x", "xx",
    "def", " f", "(x):", "return", "a", "Zz", "naïve", "Straße", "Ærøskøbing", "Русский", "العربية",
    "हिन्दी",
)  # fmt: skip
CONTRACTIONS = (
    "'s",
    "'t",
    "'re",
    "'ve",
    "'m",
    "'ll",
    "'d",
    "'S",
    "'LL",
    "'Ve",
    "n't",
    "'",
    "''",
    "'ſ",
    "'\u212a",
)
CASE_FOLDING = ("ſ", "\u212a", "İ", "ß", "ﬀ", "ǅ")
EMOJI = (
    "🌍", "👍🏽", "👩‍👩‍👧‍👦", "🏳️‍🌈", "👨🏽‍💻", "🧑‍🤝‍🧑", "🇯🇵", "🇫🇷", "🇺🇸", "🇦", "1️⃣", "#️⃣", "✅", "❤️", "❤",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "\u200d", "\ufe0f",
)  # fmt: skip
"""ZWJ sequences, skin tones, flags (and a lone regional indicator), keycaps, a tag sequence, lone ZWJ/VS16."""
NFD = tuple(
    unicodedata.normalize("NFD", s) for s in ("déjà vu", "Ñandú", "Ελληνικά", "Tiếng Việt", "한국어", "ça")
) + ("e\u0301\u0302\u0323", "\u0301", "\u0308\u0308", "o\u0338", "a\u0300 ")
SEPARATORS = (
    "\u2028", "\u2029", "\x85", "\u3000", "\u00a0", "\u200b", "\ufeff", "\u2009", "\u202f",
    "\x1c", "\x1d", "\x1e", "\x1f", "\x0b", "\x0c", "\r", "\r\n", "\n", "\n\n", "\t", " ", "  ",
)  # fmt: skip
RUN_UNITS = (" ", "\n", "\t", "\r\n", " \n", "\u3000", "\u00a0", "\x85", "\u2028", "  \t", "\n\n ")
"""What the long whitespace runs are made of (one unit repeated)."""
CJK = "日本語のテキストと中文文本还有한국어문장도있습니다東京都渋谷区漢字仮名交じり文𠀀𠮷，。！？「」"
DIGITS = "0123456789"
OTHER_DIGITS = ("١٢٣", "１２３", "²³", "½", "3.14159", "1,000,000", "-273.15", "2024-05-17", "0xDEADBEEF")
PUNCTUATION = ".,;:!?-_*#@$%^&()[]{}<>|/\\\"'`~=+"


FIXED_PIECES = WORDS + CONTRACTIONS + CASE_FOLDING + EMOJI + NFD + SEPARATORS + OTHER_DIGITS
"""Every fixed ingredient above, in one tuple."""


def _hard_sample() -> str:
    glue = ("we", " it", "DON", " x", "a", "Hi")
    pieces = [glue[i % len(glue)] + piece for i, piece in enumerate(FIXED_PIECES)]
    pieces += [" 1234567 ", "...!!! ??? <<<>>> ((( ", CJK, "   three spaces\n\n\nthree newlines  \t\n"]
    return "".join(pieces)


HARD_SAMPLE = _hard_sample()
"""One string holding every fixed ingredient (each glued to a word), CJK, digits and runs: for
deterministic tests (or ``@example``) that must see every hard case at least once."""


def _runs(alphabet: str, max_size: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=1, max_size=max_size)


def _special_parts(specials: Sequence[str]) -> st.SearchStrategy[str]:
    """Whole special tokens, and every proper prefix and suffix of one."""
    whole = [s for s in specials if s]
    parts = sorted(
        {s[:k] for s in whole for k in range(1, len(s))} | {s[k:] for s in whole for k in range(1, len(s))}
    )
    options = [st.sampled_from(whole)]
    if parts:
        options.append(st.sampled_from(parts))
    return st.one_of(*options)


def _sample_slice(sample: str, max_size: int = 40) -> st.SearchStrategy[str]:
    """A stretch of ``sample``: several hard cases side by side, as they occur in real text."""
    return st.tuples(st.integers(0, len(sample) - 1), st.integers(1, max_size)).map(
        lambda start_n: sample[start_n[0] : start_n[0] + start_n[1]]
    )


def _piece(specials: Sequence[str], ascii_only: bool) -> st.SearchStrategy[str]:
    """One short piece of hard text (under about 40 characters)."""
    if ascii_only:
        options = [
            st.sampled_from([p for p in FIXED_PIECES if p.isascii()]),
            _sample_slice("".join(c for c in HARD_SAMPLE if c.isascii())),
            st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=10),
        ]
    else:
        options = [
            st.sampled_from(FIXED_PIECES),
            _sample_slice(HARD_SAMPLE),
            st.text(max_size=10),
            st.text(
                alphabet=st.one_of(
                    st.sampled_from(CJK), st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF)
                ),
                min_size=1,
                max_size=16,
            ),
        ]
    options += [_runs(DIGITS, 40), _runs(PUNCTUATION, 20)]
    if any(specials):
        options.append(_special_parts(specials))
    return st.one_of(*options)


def _long_run(max_run: int, ascii_only: bool) -> st.SearchStrategy[str]:
    """One whitespace unit repeated up to ``max_run`` characters in all."""
    units = [u for u in RUN_UNITS if u.isascii() or not ascii_only]
    return st.tuples(st.sampled_from(units), st.integers(1, max_run)).map(
        lambda unit_n: (unit_n[0] * unit_n[1])[: unit_n[1]]
    )


@st.composite
def _hard_text(
    draw: st.DrawFn, max_pieces: int, max_run: int, specials: tuple[str, ...], ascii_only: bool
) -> str:
    pool = draw(st.lists(_piece(specials, ascii_only), min_size=1, max_size=8))
    order = draw(st.lists(st.integers(0, len(pool) - 1), max_size=max_pieces))
    parts = [pool[i] for i in order]
    if max_run and draw(st.integers(0, 3)) == 0:  # a long run in about one text out of four
        parts.insert(draw(st.integers(0, len(parts))), draw(_long_run(max_run, ascii_only)))
    return "".join(parts)


def hard_text(
    *, max_pieces: int = 24, max_run: int = LONG_RUN, specials: Sequence[str] = (), ascii_only: bool = False
) -> st.SearchStrategy[str]:
    """Strings that mix ordinary text with every hard case listed in this module's docstring.

    ``max_pieces`` bounds the number of short pieces; ``max_run`` the length of the one optional
    long whitespace run (0: none). With ``specials``, whole special tokens and their prefixes and
    suffixes are among the pieces. ``ascii_only`` keeps only the ASCII hard cases (contractions,
    the separators U+001C..U+001F, runs), for code with a fast path on pure-ASCII text; specials
    are then expected to be ASCII too. The empty string is included. Never holds a surrogate.
    """
    return _hard_text(max_pieces, max_run, tuple(specials), ascii_only)


def _cut(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cuts), len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def _pieces_with_specials(
    draw: st.DrawFn, specials: tuple[str, ...], max_pieces: int, max_run: int
) -> list[str]:
    text = draw(hard_text(max_pieces=max_pieces, max_run=max_run, specials=specials))
    special = draw(st.sampled_from([s for s in specials if s]))
    at = draw(st.integers(0, len(text)))
    text = text[:at] + special + text[at:]
    inside = at + draw(st.integers(0, len(special)))  # the cut through the special token
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=max_pieces))
    return _cut(text, [inside, *cuts])


def pieces_with_specials(
    specials: Sequence[str], *, max_pieces: int = 12, max_run: int = LONG_RUN
) -> st.SearchStrategy[list[str]]:
    """Lists of pieces for streaming encoders; their join is hard text holding a whole special token.

    One occurrence of a special token is always cut at a drawn position (0..len, so across a run
    every position), and the text is cut at further drawn positions; repeated cuts give empty
    pieces. The text itself also holds whole specials and their prefixes and suffixes.
    """
    if not any(specials):
        raise ValueError("pieces_with_specials needs at least one non-empty special token")
    return _pieces_with_specials(tuple(specials), max_pieces, max_run)


_SURROGATE = re.compile("[\ud800-\udfff]")
_HIGH_THEN_LOW = re.compile("([\ud800-\udbff])(?=[\udc00-\udfff])")


def replace_lone_surrogates(text: str) -> str:
    """The defined reading of text with lone surrogates: each one becomes U+FFFD, nothing else changes."""
    return _SURROGATE.sub("\ufffd", text)


@st.composite
def _text_with_lone_surrogates(draw: st.DrawFn, max_pieces: int) -> str:
    text = draw(hard_text(max_pieces=max_pieces, max_run=0))
    surrogates = draw(st.lists(st.integers(0xD800, 0xDFFF).map(chr), min_size=1, max_size=4))
    for s in surrogates:
        at = draw(st.integers(0, len(text)))
        text = text[:at] + s + text[at:]
    # A high surrogate right before a low one would spell one astral character in UTF-16: keep them apart.
    return _HIGH_THEN_LOW.sub(r"\1 ", text)


def text_with_lone_surrogates(*, max_pieces: int = 12) -> st.SearchStrategy[str]:
    """Hard text with one to four lone surrogates (U+D800..U+DFFF) inserted at drawn positions.

    The expected reading is :func:`replace_lone_surrogates` of the text.
    """
    return _text_with_lone_surrogates(max_pieces)
