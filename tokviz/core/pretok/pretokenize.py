"""Pre-tokenizers: cut text into chunks before BPE so that merges never cross a chunk boundary.

Named patterns are tiktoken's own (``gpt2`` is r50k's pattern, ``cl100k`` cl100k_base's), so
chunking matches the reference exactly. ``none`` keeps each document whole, the lecture's setting.
A custom pattern is any regex; text it does not match becomes chunks of its own, so nothing is
ever dropped and the round trip holds.

Every custom pattern (typed by a user, read from a model file or a tokenizer.json) is bounded: it is
tried on a few short hostile texts when it is resolved, and each later run has a time limit that
grows with the text (:func:`time_limit`). A pattern with catastrophic backtracking such as
``(a|a)+$`` then fails with a one-line :class:`PatternTimeoutError` instead of hanging the CLI or
the window. The named GPT-2 / cl100k patterns are linear and keep their unbounded fast paths.
Before any of that, a pattern too long or repeating too much to compile in bounded memory is
refused unread by the engine (:mod:`.regex_bounds`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

import regex

from ..errors import ArgumentTypeError, PretokenizerError
from .regex_bounds import check_pattern_bounds, shorten_pattern

GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)

# GPT-2's pattern as its paper's code publishes it (openai/gpt-2, src/encoder.py), alternative by
# alternative: contractions, letters, digits and other symbols (each with one leading space), then
# whitespace. GPT2_PATTERN above is tiktoken's rewrite of it, with possessive quantifiers (``++``)
# and ``\s++$``; it cuts the same chunks (the tests check both on every sample), and is what runs.
GPT2_PUBLISHED_ALTERNATIVES = (
    "'s|'t|'re|'ve|'m|'ll|'d",
    r" ?\p{L}+",
    r" ?\p{N}+",
    r" ?[^\s\p{L}\p{N}]+",
    r"\s+(?!\S)",
    r"\s+",
)
GPT2_PUBLISHED_PATTERN = "|".join(GPT2_PUBLISHED_ALTERNATIVES)

# o200k_base's pattern (GPT-4o), as tiktoken publishes it. It is not one of NAMED_PATTERNS: its
# ``[\r\n/]*`` tail can run past a newline, so the safe cuts below do not hold for it, and training
# offers the two classic patterns only.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

NAMED_PATTERNS: dict[str, str | None] = {"none": None, "gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN}
# The published patterns tokviz knows by name (resolve_pretokenizer accepts each name).
PUBLISHED_PATTERNS: dict[str, str] = {"gpt2": GPT2_PATTERN, "cl100k": CL100K_PATTERN, "o200k": O200K_PATTERN}

# The same patterns restricted to ASCII text, for the standard ``re`` engine, which is about twice
# as fast as ``regex`` on them. On pure-ASCII input they cut exactly the same chunks (the tests
# check this); \p{L} and \p{N} are A-Za-z and 0-9 there and \s is the same six characters.
_ASCII_PATTERNS: dict[str, re.Pattern[str]] = {
    "gpt2": re.compile(
        r"""'(?:[sdmt]|ll|ve|re)| ?[A-Za-z]++| ?[0-9]++| ?[^\sA-Za-z0-9]++|\s++$|\s+(?!\S)|\s""", re.ASCII
    ),
    "cl100k": re.compile(
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\nA-Za-z0-9]?+[A-Za-z]++|[0-9]{1,3}+| ?[^\sA-Za-z0-9]++[\r\n]*+"""
        r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        re.ASCII,
    ),
    # In ASCII there is no Lt, Lm, Lo or M: upper case is A-Z and lower case a-z.
    "o200k": re.compile(
        r"""[^\r\nA-Za-z0-9]?[A-Z]*[a-z]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
        r"""|[^\r\nA-Za-z0-9]?[A-Z]+[a-z]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
        r"""|[0-9]{1,3}| ?[^\sA-Za-z0-9]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
        re.ASCII,
    ),
}
# The patterns whose non-ASCII windows can be widened to the safe cuts (see _split_mixed).
_MIXED_SAFE = ("gpt2", "cl100k")
# Mixed text: ASCII stretches at least this long go to the fast engine (see Pretokenizer._split_mixed).
_FAST_STRETCH = 64
_LONG_ASCII = re.compile(rf"[\x00-\x7f]{{{_FAST_STRETCH},}}")

# Time limits of a custom pattern. Legitimate pre-tokenizer regexes cut about 10 million
# characters a second (0.07-0.15 us per character measured for GPT-2's, cl100k's and \w+-style
# patterns); the per-character allowance is a hundred times that, and the base covers start-up
# and a loaded machine. So only a pattern that backtracks catastrophically ever reaches the limit:
# a 256K-character training part gets 3.6 s, a 1 MB editor text 11 s.
PATTERN_TIME_BASE = 1.0
PATTERN_TIME_PER_CHAR = 10e-6
# Limit of each trial run on a short hostile text (a legitimate pattern needs microseconds).
TRIAL_TIME_LIMIT = 0.25
# The trial texts: a run of this many copies of one character, then an end that may not match.
TRIAL_RUN = 32
TRIAL_SEEDS = "a1 .\n\u00e9"
TRIAL_ENDS = ("\x00", "")
# At most this many distinct characters of a pattern are tried (plus the seeds).
TRIAL_MAX_CHARS = 24


class PatternTimeoutError(PretokenizerError):
    """A custom pre-tokenizer regex ran past its time limit: it backtracks catastrophically.

    Raised (one line, naming the shortened pattern) instead of letting the regex engine run for
    hours; a :class:`~tokviz.core.errors.TokvizError`, so the CLI exits 1 with the message and the
    GUI shows it.
    """


def time_limit(n_chars: int) -> float:
    """Seconds a custom pattern may take on a text of ``n_chars`` code points (see the constants)."""
    return PATTERN_TIME_BASE + PATTERN_TIME_PER_CHAR * max(n_chars, 0)


def pattern_overrun(pattern: str | None, seconds: float, n_chars: int) -> PatternTimeoutError:
    """The one-line error for a pattern that ran past its limit of ``seconds`` on ``n_chars``."""
    return PatternTimeoutError(
        f"the pre-tokenizer regex {shorten_pattern(pattern or '')} takes too long "
        f"(over {seconds:.1f} s on {n_chars:,} characters; catastrophic backtracking?)"
    )


# A UTF-16 surrogate standing alone in a str: UTF-8 cannot encode it. Every encoder reads it as
# U+FFFD (as tiktoken does), one code point for one, so offsets on the text do not move.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD, the reading every encoder uses."""
    return LONE_SURROGATE.sub("\ufffd", text)


# Where the named GPT-2 / cl100k patterns always have a chunk boundary, whatever follows: before a
# space that follows a non-space, and after a lone newline between two non-spaces. The chunking on
# each side of such a cut depends on nothing across it, so the two sides encode independently.
SAFE_CUT_PATTERN = r"(?<=\S) |(?<=\S\n)(?=\S)"


def last_cut_before(text: str, pos: int) -> int:
    """The last safe cut before ``pos`` (0 when there is none)."""
    return last_safe_cut(text, 0, pos, newline_cuts=True)


def first_cut_after(text: str, pos: int) -> int:
    """The first safe cut at or after ``pos`` (the end of the text when there is none)."""
    return first_safe_cut(text, pos, newline_cuts=True)


# One whitespace character, and the last or first non-whitespace one: \s as the patterns read it.
_WHITESPACE = regex.compile(r"\s")
_LAST_NON_SPACE = regex.compile(r"(?r)\S")
_FIRST_NON_SPACE = regex.compile(r"\S")


def _is_cut(text: str, c: int, end: int, newline_cuts: bool) -> bool:
    """Whether ``c`` is a safe cut seeing ``text`` up to ``end``: a space after a non-space, or
    (``newline_cuts``) the start of a non-space after a lone newline after a non-space."""
    if c <= 0 or c >= end:
        return False
    if text[c] == " " and not _WHITESPACE.match(text, c - 1):
        return True
    return (
        newline_cuts
        and c >= 2
        and text[c - 1] == "\n"
        and not _WHITESPACE.match(text, c - 2)
        and not _WHITESPACE.match(text, c)
    )


def last_safe_cut(text: str, lo: int, hi: int, newline_cuts: bool) -> int:
    """The last safe cut ``c`` with ``lo < c < hi`` (only ``text[:hi]`` seen), or ``lo`` when none.

    A cut sits at a space or just after a newline, so the search jumps from one of those to the
    next at memchr speed, and over a run of whitespace with one scan: a 1 MB line without a
    space, or a run of a million spaces, costs a few C calls, not a regex step per character.
    """
    end = hi
    while end > lo:
        space = text.rfind(" ", lo + 1, end)
        newline = text.rfind("\n", lo, end - 1) if newline_cuts else -1
        c = max(space, newline + 1 if newline >= 0 else -1)
        if c <= lo:
            return lo
        if _is_cut(text, c, hi, newline_cuts):
            return c
        # ``c`` lies in a run of whitespace: the run can hold a cut only right after its start.
        found = _LAST_NON_SPACE.search(text, lo, c)
        if found is None:
            return lo
        q = found.start()
        for after in (q + 1, q + 2):
            if after < c and _is_cut(text, after, hi, newline_cuts):
                return after
        end = q + 1
    return lo


def first_safe_cut(text: str, pos: int, newline_cuts: bool) -> int:
    """The first safe cut at or after ``pos`` (the whole text seen), or ``len(text)`` when none;
    searched as :func:`last_safe_cut` does, forwards."""
    n = len(text)
    start = pos
    while start < n:
        space = text.find(" ", start)
        newline = text.find("\n", max(start - 1, 0)) if newline_cuts else -1
        found = [c for c in (space, newline + 1 if newline >= 0 else -1) if c >= pos]
        if not found:
            return n
        c = min(found)
        if _is_cut(text, c, n, newline_cuts):
            return c
        following = _FIRST_NON_SPACE.search(text, c)
        if following is None:
            return n
        start = max(following.start(), c + 1)
    return n


@dataclass(frozen=True)
class Pretokenizer:
    """A named or custom chunking rule; ``pattern`` is None for ``none`` (whole documents)."""

    name: str
    pattern: str | None
    _compiled: regex.Pattern | None = field(default=None, repr=False, compare=False)
    _tiles: bool = field(default=True, repr=False, compare=False)
    # Whether each run has a time limit: every pattern but the named, known-linear ones.
    _bounded: bool = field(default=False, repr=False, compare=False)

    @property
    def bounded(self) -> bool:
        """True for a pattern that runs with a time limit: anything but the named, linear ones.

        Such a pattern can take up to :func:`time_limit` seconds before it fails, so a GUI runs it
        off its own thread.
        """
        return self._bounded

    def unbounded(self) -> Pretokenizer:
        """This pre-tokenizer without the regex engine's time limit, for a caller that bounds it.

        The limit costs the engine a clock check per match (about 0.6 us, which makes a short-match
        pattern four times slower). Training's counting processes run without it: their parent
        terminates a process whose part overruns :func:`time_limit`.
        """
        return replace(self, _bounded=False) if self._bounded else self

    def split(self, text: str) -> list[str]:
        """The chunks of ``text`` in order; joined they give ``text`` back exactly."""
        _require_str(text)
        if not text:
            return []
        if self._compiled is None:
            return [text]
        if self._tiles:
            fast = _ASCII_PATTERNS.get(self.name)
            if fast is None:
                return self._compiled.findall(text)
            if text.isascii():
                return fast.findall(text)
            if self.name not in _MIXED_SAFE:
                return self._compiled.findall(text)
            return self._split_mixed(text, fast)
        return [text[s:e] for s, e in self.spans(text)]

    def _split_mixed(self, text: str, fast: re.Pattern[str]) -> list[str]:
        """Split long ASCII stretches with the fast engine and everything between with regex.

        Each stretch of at least :data:`_FAST_STRETCH` ASCII characters is narrowed to its first and
        last safe cut, so both engines see whole chunks; shorter stretches stay with regex, where
        switching engines would cost more than it saves (text dense in other scripts).
        """
        assert self._compiled is not None
        slow = self._compiled
        out: list[str] = []
        pos = 0
        for m in _LONG_ASCII.finditer(text):
            s, e = m.span()
            s = max(s, pos)
            end = last_safe_cut(text, s, e, newline_cuts=True)
            start = s + first_safe_cut(text[s:end], 0, newline_cuts=True)
            if start >= end:
                continue  # no two cuts inside the stretch
            if start > pos:
                out.extend(slow.findall(text, pos, start))
            out.extend(fast.findall(text[start:end]))
            pos = end
        if pos < len(text):
            out.extend(slow.findall(text, pos, len(text)))
        return out

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Code-point ``(start, end)`` of every chunk; they tile ``text`` with no gap."""
        _require_str(text)
        if not text:
            return []
        if self._compiled is None:
            return [(0, len(text))]
        out: list[tuple[int, int]] = []
        if self._tiles:
            pos = 0
            for chunk in self.split(text):
                end = pos + len(chunk)
                out.append((pos, end))
                pos = end
            return out
        limit = time_limit(len(text)) if self._bounded else None
        pos = 0
        try:
            for m in self._compiled.finditer(text, timeout=limit):
                s, e = m.span()
                if s == e:
                    continue
                if s > pos:
                    out.append((pos, s))
                out.append((s, e))
                pos = e
        except TimeoutError:
            raise pattern_overrun(self.pattern, limit or 0.0, len(text)) from None
        if pos < len(text):
            out.append((pos, len(text)))
        return out

    def to_json(self) -> str:
        """The spec that recreates this pre-tokenizer: a name for the named ones, else the regex."""
        return self.name if self.name in NAMED_PATTERNS else (self.pattern or "none")


def reference_bound(pre: Pretokenizer) -> Pretokenizer:
    """``pre`` cutting text exactly as tiktoken's regex engine does, for tokenizers tiktoken encodes.

    ``regex`` knows a newer Unicode than tiktoken, so a code point assigned only in the newer
    version would be cut differently (see :mod:`tokviz.core.pretok.unicode_reference`); the returned
    pre-tokenizer treats such code points as tiktoken does. Name, pattern and equality stay those of
    ``pre``. Trained tokviz models keep ``regex``'s own Unicode: they have no other reference.
    """
    from .unicode_reference import LazyReferencePattern

    if pre.pattern is None or pre._compiled is None or isinstance(pre._compiled, LazyReferencePattern):
        return pre
    return replace(pre, _compiled=LazyReferencePattern(pre.pattern, pre._compiled))


def _require_str(text: object) -> None:
    """Refuse a text that is not a ``str`` (None, bytes, a number) with a one-line TokvizError."""
    if not isinstance(text, str):
        hint = "; decode bytes to str first" if isinstance(text, (bytes, bytearray)) else ""
        raise ArgumentTypeError(f"the text to pre-tokenize must be a str, got {type(text).__name__}{hint}")


def resolve_pretokenizer(spec: str | Pretokenizer | None) -> Pretokenizer:
    """Turn ``"none"``, ``"gpt2"``, ``"cl100k"`` or a regex string into a :class:`Pretokenizer`.

    Raises :class:`PretokenizerError` with the regex engine's message for an invalid pattern.
    """
    if isinstance(spec, Pretokenizer):
        return spec
    if spec is None or spec == "none":
        return Pretokenizer("none", None)
    if not isinstance(spec, str):
        raise PretokenizerError(f"pre-tokenizer must be a name or a regex string, not {type(spec).__name__}")
    key = spec.strip().lower()
    if key in ("r50k", "r50k_base", "gpt-2"):
        key = "gpt2"
    if key in ("cl100k_base",):
        key = "cl100k"
    if key in ("o200k", "o200k_base"):
        return Pretokenizer("o200k", O200K_PATTERN, regex.compile(O200K_PATTERN), True)
    if key in NAMED_PATTERNS and NAMED_PATTERNS[key] is not None:
        pattern = NAMED_PATTERNS[key]
        return Pretokenizer(key, pattern, regex.compile(pattern), True)
    if spec == "":
        raise PretokenizerError("the pre-tokenizer regex is empty")
    check_pattern_bounds(spec)  # before the cache below keeps the pattern, and before compiling
    compiled, problem, too_slow = _checked_pattern(spec)
    if compiled is None:
        raise PatternTimeoutError(problem) if too_slow else PretokenizerError(problem)
    name = {GPT2_PATTERN: "gpt2", CL100K_PATTERN: "cl100k", O200K_PATTERN: "o200k"}.get(spec, "custom")
    return Pretokenizer(name, spec, compiled, False, name == "custom")


@functools.lru_cache(maxsize=64)
def _checked_pattern(pattern: str) -> tuple[regex.Pattern | None, str, bool]:
    """Compile and try a custom pattern once: ``(compiled, "", False)`` or ``(None, message, too_slow)``.

    Cached because the GUI checks the pattern being typed on every keystroke and then resolves
    it again, and a model file's pattern is resolved by every tokenizer made from it.
    """
    try:
        compiled = compile_custom_pattern(pattern)
    except PretokenizerError as exc:
        return None, str(exc), False
    if pattern not in (GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN):
        for text in _trial_texts(pattern):
            try:
                for _ in compiled.finditer(text, timeout=TRIAL_TIME_LIMIT):
                    pass
            except TimeoutError:
                message = (
                    f"the pre-tokenizer regex {shorten_pattern(pattern)} takes too long (catastrophic "
                    f"backtracking): over {TRIAL_TIME_LIMIT} s on a test text of {TRIAL_RUN} x "
                    f"{shorten_pattern(text[0])}"
                )
                return None, message, True
    return compiled, "", False


def _trial_texts(pattern: str) -> list[str]:
    """Short texts on which a backtracking pattern explodes: runs of one character, then an odd end.

    The characters are a letter, a digit, a space, a dot, a newline, a non-ASCII letter and the
    pattern's own literal characters; ``(a|a)+$`` or ``(x+)+y`` fail on ``"a" * 32 + "\\x00"``
    after trying 2**32 ways, where any linear pattern takes microseconds.
    """
    chars = dict.fromkeys(TRIAL_SEEDS)
    for c in pattern:
        if len(chars) >= len(TRIAL_SEEDS) + TRIAL_MAX_CHARS:
            break
        if c.isprintable() and not c.isspace():
            chars.setdefault(c)
    return [c * TRIAL_RUN + end for c in chars for end in TRIAL_ENDS]


def compile_custom_pattern(pattern: str) -> regex.Pattern:
    """Compile a user's regex, turning any failure into a one-line :class:`PretokenizerError`.

    A pattern too long or repeating too much is refused before the engine sees it
    (:func:`~tokviz.core.pretok.regex_bounds.check_pattern_bounds`).
    """
    check_pattern_bounds(pattern)
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        where = f" at position {exc.pos}" if getattr(exc, "pos", None) is not None else ""
        raise PretokenizerError(
            f"invalid pre-tokenizer regex{where}: {exc.msg if hasattr(exc, 'msg') else exc}"
        ) from None
    except (RecursionError, OverflowError, ValueError, TypeError) as exc:
        raise PretokenizerError(f"invalid pre-tokenizer regex: {exc}") from None


def validate_pattern(pattern: str) -> str | None:
    """The error message for a custom regex, or None when it is usable (for as-you-type checks)."""
    try:
        resolve_pretokenizer(pattern)
    except PretokenizerError as exc:
        return str(exc)
    return None


# Training cuts a pre-token longer than this many characters into pieces of this length (the last
# shorter), so a pathological one (20 MB of "a", a file padded with NUL bytes) costs the memory of
# one such piece, repeated, not of its whole length; see :func:`cut_long_pretokens`.
LONGEST_PRETOKEN = 1 << 16


def cut_long_pretokens(words: list[str]) -> tuple[list[str], int]:
    """``words`` with each one longer than :data:`LONGEST_PRETOKEN` characters cut into pieces of
    that length from its start, and how many were cut.

    Training and count tables both count through here, so a table trains exactly like its text.
    No merge crosses a cut: a pair at a cut (inside a run of one letter, most often) is not
    counted, which is the price of memory that follows the corpus's unique content.
    """
    if all(len(w) <= LONGEST_PRETOKEN for w in words):
        return words, 0
    out: list[str] = []
    cut = 0
    for w in words:
        if len(w) <= LONGEST_PRETOKEN:
            out.append(w)
            continue
        cut += 1
        out.extend(pretoken_pieces(w))
    return out, cut


def pretoken_pieces(word: str) -> list[str]:
    """``word`` in pieces of :data:`LONGEST_PRETOKEN` characters from its start (the last shorter):
    what training counts and every encoder merges in place of a longer pre-token."""
    return [word[s:e] for s, e in piece_spans(0, len(word))] or [word]


def piece_spans(start: int, end: int) -> Iterator[tuple[int, int]]:
    """The ``(start, end)`` of each piece of the pre-token at ``start:end`` (see :func:`pretoken_pieces`)."""
    for s in range(start, end, LONGEST_PRETOKEN):
        yield s, min(s + LONGEST_PRETOKEN, end)


def long_pretokens_note(cut: int) -> str | None:
    """The one line that says training cut ``cut`` long pre-tokens, or None when it cut none."""
    if not cut:
        return None
    many = "pre-tokens" if cut != 1 else "pre-token"
    return (
        f"{cut:,} {many} longer than {LONGEST_PRETOKEN:,} characters "
        f"{'were' if cut != 1 else 'was'} cut into pieces of {LONGEST_PRETOKEN:,} for training"
    )


class SpecialSplitter:
    """Cuts text at special tokens, longest match first, so a special token is never split."""

    def __init__(self, specials: Iterable[str]) -> None:
        self.specials = sorted({s for s in specials if s}, key=lambda s: (-len(s), s))
        self._re = regex.compile("|".join(regex.escape(s) for s in self.specials)) if self.specials else None

    def __bool__(self) -> bool:
        return bool(self.specials)

    def segments(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """Yield ``(start, end, is_special)`` code-point ranges that tile ``text``."""
        if self._re is None:
            if text:
                yield 0, len(text), False
            return
        pos = 0
        for m in self._re.finditer(text):
            s, e = m.span()
            if s > pos:
                yield pos, s, False
            yield s, e, True
            pos = e
        if pos < len(text):
            yield pos, len(text), False

    def documents(self, text: str) -> list[str]:
        """The ordinary text between special tokens (the specials themselves are dropped)."""
        if self._re is None:
            return [text] if text else []
        return [part for part in self._re.split(text) if part]
