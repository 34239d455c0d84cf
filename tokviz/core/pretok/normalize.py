"""Normalizers: the Unicode forms, lowercasing and accent stripping a tokenizer applies before it
cuts text, with the semantics of HF ``tokenizers``' normalizers.

A :class:`Normalizer` is a few steps out of :data:`NORMALIZER_STEPS`, always applied in one
canonical order: the Unicode form first (``nfc`` or ``nfkc``), then ``lowercase``, then
``strip-accents``. Lowercasing is per character, as HF's ``Lowercase`` is (no final-sigma rule:
``"ΑΣ"`` becomes ``"ασ"``). Stripping accents is HF's ``StripAccents`` after ``NFD``, as BERT's
normalizer does it: HF's ``StripAccents`` removes combining marks and only finds them in
decomposed text. Putting it last leaves no mark behind, whatever lowercasing made (``"İ"``
lowercases to ``"i"`` + U+0307, which it then strips).

The steps run on Python's :mod:`unicodedata`, which is several times faster than calling the
library (NFC of CJK text at 400 MB/s against 2 MB/s), so training normalizes at the speed it
pre-tokenizes. The two follow different Unicode versions (Python 3.11 knows 14.0; ``tokenizers``
0.2x normalizes with older tables and lowercases with newer ones), so the characters on which they
disagree are found by asking ``tokenizers`` itself, once per process: a text that holds one is
normalized by the library. :meth:`Normalizer.hf_json` is what makes ``tokenizers`` normalize as
this module does, and :meth:`Normalizer.spm_rules_tsv` the rules that make a SentencePiece model
do the same on the texts its rule format can express (see there).

:meth:`Normalizer.aligned` also says where each normalized character came from, so that tokens
found in the normalized text are drawn over the text the user typed.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import InvalidArgument

# Every step a normalizer may have, in the order they run.
NORMALIZER_STEPS: tuple[str, ...] = ("nfc", "nfkc", "lowercase", "strip-accents")

# The HF normalizers each step is made of, as tokenizer.json writes them.
_HF_STEPS: dict[str, tuple[dict[str, Any], ...]] = {
    "nfc": ({"type": "NFC"},),
    "nfkc": ({"type": "NFKC"},),
    "lowercase": ({"type": "Lowercase"},),
    "strip-accents": ({"type": "NFD"}, {"type": "StripAccents"}),
}
_Form = Literal["NFC", "NFD", "NFKC", "NFKD"]
_FORMS: dict[str, _Form] = {"nfc": "NFC", "nfkc": "NFKC"}
_SIGMA = "\u03a3"  # the one letter Python lowercases by context (final sigma); HF does not
# Planes 0-3 and 14 hold every assigned character but private use; planes 4-13 are unassigned.
_SCANNED = itertools.chain(range(0xD800), range(0xE000, 0x40000), range(0xE0000, 0xF0000))
_UNASSIGNED_PLANES = (0x40000, 0xDFFFF)
# Hangul vowel and trailing consonant jamo: each composes with the syllable before it.
_JAMO_FOLLOWERS = itertools.chain(range(0x1161, 0x1176), range(0x11A8, 0x11C3))
# Hangul syllables: decomposed by an algorithm, not by unicodedata.decomposition's table.
_HANGUL_SYLLABLES = range(0xAC00, 0xD7A4)


def parse_normalizer(spec: str) -> Normalizer:
    """The normalizer a spec names: ``none``, one of :data:`NORMALIZER_STEPS`, or several joined by
    ``+`` in any order (``nfkc+lowercase``); :class:`InvalidArgument` in one line otherwise."""
    if not isinstance(spec, str):
        raise InvalidArgument(f"a normalizer is named by a string, not {type(spec).__name__}")
    text = spec.strip().lower()
    if text in ("", "none"):
        return Normalizer(())
    names = [s.strip() for s in text.split("+")]
    unknown = [s for s in names if s not in NORMALIZER_STEPS]
    if unknown:
        raise InvalidArgument(
            f"unknown normalizer {unknown[0]!r} in {spec!r}: use none, or {', '.join(NORMALIZER_STEPS)} joined by +"
        )
    if "nfc" in names and "nfkc" in names:
        raise InvalidArgument(f"the normalizer {spec!r} names both nfc and nfkc: choose one Unicode form")
    return Normalizer(tuple(s for s in NORMALIZER_STEPS if s in names))


@dataclass(frozen=True)
class Normalizer:
    """Steps out of :data:`NORMALIZER_STEPS` in their canonical order (``()``: no normalizer)."""

    steps: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.steps, tuple) or any(s not in NORMALIZER_STEPS for s in self.steps):
            raise InvalidArgument(
                f"normalizer steps must be a tuple out of {NORMALIZER_STEPS}, got {self.steps!r}"
            )
        if self.steps != tuple(s for s in NORMALIZER_STEPS if s in self.steps):
            raise InvalidArgument(
                f"normalizer steps {self.steps!r} are not once each in the order {NORMALIZER_STEPS}"
            )
        if "nfc" in self.steps and "nfkc" in self.steps:
            raise InvalidArgument("a normalizer has one Unicode form: nfc or nfkc, not both")

    @property
    def name(self) -> str:
        """``none`` or the steps joined by ``+`` (what :func:`parse_normalizer` reads back)."""
        return "+".join(self.steps) or "none"

    def __bool__(self) -> bool:
        return bool(self.steps)

    def __str__(self) -> str:
        return self.name

    def __call__(self, text: str) -> str:
        """``text`` normalized exactly as ``tokenizers`` normalizes it with :meth:`hf_json`.

        Lone surrogates, which the library cannot take, are left as they are.
        """
        if not self.steps or (text.isascii() and "lowercase" not in self.steps):
            return text
        if text.isascii():
            return text.lower()
        if self.library_decides(text):
            return _library_normalizer(self).normalize_str(text)
        return self._python(text)

    def library_decides(self, text: str) -> bool:
        """Whether ``self(text)`` asks ``tokenizers`` itself: ``text`` holds a character on which
        Python's Unicode tables and the library's disagree (or that Python's leave unassigned),
        and no lone surrogate. Otherwise Python's :mod:`unicodedata` normalizes it."""
        if not self.steps or text.isascii():
            return False
        divergent = _tables().divergent
        if len(text) <= _LOOKED_UP_ONE_BY_ONE:
            found = any(divergent[ord(c)] for c in text)
        else:
            found = bool(divergent[_code_points(text)].any())
        return found and not _LONE_SURROGATE.search(text)

    def _python(self, text: str) -> str:
        """The steps run on Python's Unicode tables."""
        for step in self.steps:
            if step in _FORMS:
                text = unicodedata.normalize(_FORMS[step], text)
            elif step == "lowercase":
                text = "".join(map(str.lower, text)) if _SIGMA in text else text.lower()
            else:
                text = unicodedata.normalize("NFD", text).translate(_tables().marks)
        return text

    def aligned(self, text: str) -> tuple[str, list[int]]:
        """``(normalized, origin)``: ``self(text)`` and, for each of its characters, the index in
        ``text`` of the character it came from.

        The text is cut where normalization cannot reach across (before a character that starts
        a new cluster: one with no combining class, that nothing before it composes with), and each
        piece is normalized alone, its characters all pointing at the piece's first one: ``"ﬁ"``
        gives ``"fi"`` from index 0 twice, ``"e\\u0301"`` under NFC gives ``"é"`` from index 0.
        ``origin`` never decreases. Runs of characters that each normalize to one character, by
        themselves, map one to one without being cut.
        """
        if not self.steps:
            return text, list(range(len(text)))
        if text.isascii():
            return self(text), list(range(len(text)))
        codes = _code_points(text)
        joins = _tables().joins_previous[codes]
        parts: list[str] = []
        origin: list[int] = []
        done = 0
        for start, end in _runs(_complex(self)[codes]):
            if start > 0 and joins[start]:
                start -= 1  # the cluster starts at the character before the run
            if start > done:
                plain = text[done:start]
                parts.append(self(plain))
                origin.extend(range(done, start))
            for a, b in _clusters(joins, start, end):
                piece = self(text[a:b])
                parts.append(piece)
                origin.extend(itertools.repeat(a, len(piece)))
            done = end
        if done < len(text):
            parts.append(self(text[done:]))
            origin.extend(range(done, len(text)))
        return "".join(parts), origin

    def hf_json(self) -> dict[str, Any] | None:
        """The ``normalizer`` object of a tokenizer.json that normalizes as this one (None: none)."""
        parts = [dict(p) for s in self.steps for p in _HF_STEPS[s]]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"type": "Sequence", "normalizers": parts}

    @classmethod
    def from_hf_json(cls, spec: Any) -> Normalizer | None:
        """The normalizer a tokenizer.json's ``normalizer`` object is, or None when it is something
        else (a Replace, BERT's normalizer, steps in another order): ``Normalizer(())`` for null."""
        if spec is None:
            return cls(())
        if not isinstance(spec, dict):
            return None
        flat = list(_flattened(spec))
        for candidate in _every_normalizer():
            if _flat_parts(candidate) == flat:
                return candidate
        return None

    def spm_rule_name(self) -> str:
        """The SentencePiece rule name a model trained with this normalizer has: ``identity`` for
        none, ``user_defined`` for the rules of :meth:`spm_rules_tsv` (SentencePiece names a model
        trained with a rule file so)."""
        return "user_defined" if self.steps else "identity"

    def spm_rules_tsv(self) -> str | None:
        """SentencePiece ``normalization_rule_tsv`` content that normalizes as this normalizer
        (None for none, where the built-in ``identity`` fits).

        Built as SentencePiece builds its own ``nfkc.tsv``: a rule for each character whose
        normalization changes it, and one for each sequence of decomposed characters (and their
        canonical equivalents, character by character) that composes or otherwise normalizes
        differently from its characters one by one; rules that shorter rules already give are left
        out. SentencePiece applies the longest rule at each position without looking further, so
        texts in a Unicode form (NFC, NFD, or characters with their marks in canonical order) come
        out as here; marks in a non-canonical order are outside what its rule format can express.
        """
        if not self.steps:
            return None
        return _rules_tsv(self)


def _flattened(spec: dict[str, Any]) -> Iterator[dict[str, Any] | None]:
    """The normalizers of a tokenizer.json spec, Sequences opened (None for one that is not a dict)."""
    if spec.get("type") == "Sequence":
        for part in spec.get("normalizers") or ():
            if isinstance(part, dict):
                yield from _flattened(part)
            else:
                yield None
    else:
        yield spec


def _flat_parts(normalizer: Normalizer) -> list[dict[str, Any]]:
    return [p for s in normalizer.steps for p in _HF_STEPS[s]]


def _every_normalizer() -> Iterator[Normalizer]:
    """Every normalizer there is (a few dozen), none first."""
    for size in range(len(NORMALIZER_STEPS) + 1):
        for steps in itertools.combinations(NORMALIZER_STEPS, size):
            if not ("nfc" in steps and "nfkc" in steps):
                yield Normalizer(steps)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LOOKED_UP_ONE_BY_ONE = 16
"""Up to this many characters are looked up in the tables one by one: a numpy lookup costs more
than that (building the rules of :meth:`Normalizer.spm_rules_tsv` asks of each character alone)."""


@functools.cache
def _library_normalizer(normalizer: Normalizer) -> Any:
    """``tokenizers``' own normalizer for :meth:`Normalizer.hf_json` (for the texts on which
    Python's tables and the library's disagree)."""
    import json

    from tokenizers import Tokenizer as HFTokenizer

    doc = {
        "version": "1.0",
        "normalizer": normalizer.hf_json(),
        "model": {"type": "WordLevel", "vocab": {"x": 0}, "unk_token": "x"},
    }
    return HFTokenizer.from_str(json.dumps(doc)).normalizer


@dataclass(frozen=True)
class _Tables:
    """What every normalizer needs to know about Unicode, built once per process."""

    marks: dict[int, None]  # combining marks (Python's general category M), for str.translate
    changing: frozenset[int]  # characters some step changes or reorders
    # By code point: characters a cluster cannot start with, and those Python's tables and
    # tokenizers' may treat differently (numpy arrays of bools, one entry a code point).
    joins_previous: Any
    divergent: Any


@functools.cache
def _tables() -> _Tables:
    """Scan every assigned code point once: what changes, what joins the character before it, and
    where Python and ``tokenizers`` disagree (the library asked about each character that either
    could change)."""
    marks: dict[int, None] = {}
    changing: set[int] = set()
    unassigned: list[int] = []
    composes_after: set[int] = set(_JAMO_FOLLOWERS)
    for c in _SCANNED:
        ch = chr(c)
        category = unicodedata.category(ch)
        if category == "Cn":
            unassigned.append(c)
            continue
        if category[0] == "M":
            marks[c] = None
        decomposition = unicodedata.decomposition(ch)
        if decomposition or category[0] == "M" or unicodedata.combining(ch) or ch.lower() != ch:
            changing.add(c)
        parts = decomposition.split()
        if len(parts) == 2 and not parts[0].startswith("<") and unicodedata.normalize("NFC", ch) == ch:
            composes_after.add(int(parts[1], 16))
    changing.update(_HANGUL_SYLLABLES)
    joins: set[int] = set(composes_after)
    for c in changing:
        ch = chr(c)
        for form in ("NFD", "NFKD"):
            first = unicodedata.normalize(form, ch)[:1]
            if unicodedata.combining(first) or ord(first) in composes_after:
                joins.add(c)
        if unicodedata.combining(ch):
            joins.add(c)
    divergent = _library_disagreements(sorted(changing), marks)
    joins |= divergent
    lo, hi = _UNASSIGNED_PLANES
    return _Tables(
        marks=marks,
        changing=frozenset(changing),
        joins_previous=_mask(joins),
        divergent=_mask(itertools.chain(divergent, unassigned, range(lo, hi + 1))),
    )


def _mask(members: Iterable[int]) -> Any:
    """A numpy array of bools over every code point, true at ``members``."""
    import numpy as np

    mask = np.zeros(0x110000, dtype=bool)
    mask[np.fromiter(members, dtype=np.int64)] = True
    return mask


def _code_points(text: str) -> Any:
    """``text``'s code points as a numpy array (lone surrogates too), to look up in the masks."""
    import numpy as np

    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def _runs(flags: Any) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each run of true values in an array of bools."""
    import numpy as np

    edges = np.flatnonzero(np.diff(flags.astype(np.int8), prepend=0, append=0))
    return zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True)


def _library_disagreements(changing: list[int], marks: dict[int, None]) -> set[int]:
    """The characters on which a step gives another result with Python's tables than with
    ``tokenizers``', with the characters such a composed character decomposes into (so that their
    composition is left to the library too). Each step is asked once about all of them, each
    character between two NULs, which neither composes nor reorders across."""
    from tokenizers import normalizers as hf

    text = "\0".join(map(chr, changing))
    python = {
        "NFC": lambda s: unicodedata.normalize("NFC", s),
        "NFKC": lambda s: unicodedata.normalize("NFKC", s),
        "NFD": lambda s: unicodedata.normalize("NFD", s),
        "Lowercase": lambda s: "".join(map(str.lower, s)),
        "StripAccents": lambda s: s.translate(marks),
    }
    library = {
        "NFC": hf.NFC(),
        "NFKC": hf.NFKC(),
        "NFD": hf.NFD(),
        "Lowercase": hf.Lowercase(),
        "StripAccents": hf.StripAccents(),
    }
    differ: set[int] = set()
    for step, ours in python.items():
        theirs = library[step].normalize_str(text).split("\0")
        for c, a, b in zip(changing, ours(text).split("\0"), theirs, strict=True):
            if a != b:
                differ.add(c)
    for c in list(differ):
        decomposed = unicodedata.normalize("NFD", chr(c))
        if len(decomposed) > 1 and unicodedata.normalize("NFC", decomposed) == chr(c):
            differ.update(map(ord, decomposed))
    return differ


@functools.cache
def _complex(normalizer: Normalizer) -> Any:
    """By code point: the characters that do not map one to one by themselves under
    ``normalizer``: that join the cluster before them, whose own normalization is not a single
    character, or that the library normalizes (each then a piece of its own, at least)."""
    tables = _tables()
    mask = tables.joins_previous | tables.divergent
    mask[[c for c in tables.changing if len(normalizer(chr(c))) != 1]] = True
    return mask


def _clusters(joins: Any, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The pieces of ``[start, end)`` that normalize independently: each starts at a character that
    joins nothing before it (``joins``: by position; the first character always starts one)."""
    a = start
    for i in range(start + 1, end):
        if not joins[i]:
            yield a, i
            a = i
    if a < end:
        yield a, end


# ------------------------------------------------------------------ SentencePiece rules


@functools.cache
def _rules_tsv(normalizer: Normalizer) -> str:
    """The rule lines of :meth:`Normalizer.spm_rules_tsv` (see there)."""
    form: _Form = "NFKD" if "nfkc" in normalizer.steps else "NFD"
    rules: dict[tuple[int, ...], str] = {}
    alternatives: dict[str, set[str]] = {}
    decomposed: set[str] = set()
    for c in _assigned():
        ch = chr(c)
        out = normalizer(ch)
        if out != ch:
            rules[(c,)] = out
        parts = unicodedata.normalize(form, ch)
        if len(parts) == 1:
            alternatives.setdefault(parts, set()).add(ch)
        else:
            decomposed.add(parts)
    for parts in sorted(decomposed):
        out = normalizer(parts)
        if out == parts:
            continue
        choices = [sorted(alternatives.get(p, set()) | {p}) for p in parts]
        # Equivalent sequences normalize alike through a Unicode form; without one, each is asked.
        alike = "nfc" in normalizer.steps or "nfkc" in normalizer.steps
        for key in itertools.product(*choices):
            source = "".join(key)
            if out != source and (alike or normalizer(source) == out):
                rules[tuple(map(ord, source))] = out
    kept = _without_redundant(rules)
    return "".join(
        " ".join(f"{c:X}" for c in key) + "\t" + " ".join(f"{ord(t):X}" for t in kept[key]) + "\n"
        for key in sorted(kept)
    )


def _assigned() -> Iterator[int]:
    """Every assigned code point but private use (Python's tables), NUL left out (SentencePiece
    reads a rule file as text)."""
    for c in itertools.chain(range(1, 0xD800), range(0xE000, 0x40000), range(0xE0000, 0xF0000)):
        if unicodedata.category(chr(c)) != "Cn":
            yield c


def _without_redundant(rules: dict[tuple[int, ...], str]) -> dict[tuple[int, ...], str]:
    """The rules without those that the shorter ones already give, as SentencePiece's builder
    prunes its own maps (``RemoveRedundantMap``)."""
    kept: dict[tuple[int, ...], str] = {k: v for k, v in rules.items() if len(k) == 1}
    longest = max(map(len, rules), default=1)
    for size in range(2, longest + 1):
        for key, value in rules.items():
            if len(key) == size and _apply_rules(kept, key, size - 1) != value:
                kept[key] = value
    return kept


def _apply_rules(rules: dict[tuple[int, ...], str], text: tuple[int, ...], longest: int) -> str:
    """SentencePiece's normalization by rules: the longest rule at each position, else the character."""
    out: list[str] = []
    i = 0
    while i < len(text):
        for size in range(min(longest, len(text) - i), 0, -1):
            key = text[i : i + size]
            if key in rules:
                out.append(rules[key])
                i += size
                break
        else:
            out.append(chr(text[i]))
            i += 1
    return "".join(out)
