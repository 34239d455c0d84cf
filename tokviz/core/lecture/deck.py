"""Lecture decks: a plain-text TOML file of slides by kind, each with its text, tokenizers and notes.

TOML because a lecturer writes it by hand and Python reads it without a dependency (``tomllib``);
its multi-line strings hold speaker notes and its arrays of tables (``[[slide]]``) are the slides
in order. Markdown with front matter would need a YAML parser and a second syntax for options.

Loading checks everything before anything is used: an unknown key, slide kind or tokenizer gets
one line naming the file, the line and what is allowed (:class:`DeckError`); nothing half-loads.
The same check holds every deck to the limits below (file size, nesting, slides, steps, the length
of each text, bullets, tokenizers, pictures), so drawing or exporting a deck that loaded is
bounded work; tokenizer files and pictures must be in the deck's folder (or below it), and
pictures are checked before any decoder sees them (:mod:`tokviz.core.lecture.deck_assets`).
:func:`deck_toml` writes a deck back so that loading it again gives the same deck.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import TokvizError
from ..formats.registry import is_builtin
from ..io.resources import resource_path
from .deck_assets import AssetError, asset_path, read_picture

MAX_DECK_BYTES = 1 << 20
"""A deck is a short text file; a bigger one is refused before it is parsed."""
MAX_SLIDES = 200
MAX_STEPS = 200
"""Steps of all slides together: the pages of a handout or the pictures of an export per step."""
MAX_NESTING = 32
"""Arrays and inline tables inside each other (a deck needs 2); deeper is refused before parsing."""
MAX_SLIDE_CHARS = 1_000
"""A slide's sample text: longer text in a deck is refused, and longer text typed live is cut."""
MAX_CHARS = {
    "title": 200,
    "word": 64,
    "caption": 300,
    "cluster": 64,
    "text": MAX_SLIDE_CHARS,
    "train_text": MAX_SLIDE_CHARS,
    "body": 4_000,
    "notes": 20_000,
}
"""The longest each text of a deck may be, in characters."""
MAX_BODY_LINES = 40
"""Bullets and paragraphs of a text slide (a projected slide shows about a dozen)."""
MAX_TOKENIZERS = 8
"""Tokenizers a slide (or the deck) names; each is a row of the slide."""
MAX_PICTURE_TOTAL = 64 * 2**20
"""All the picture files of a deck together, in bytes (each is at most 8 MB)."""
MAX_DRAWN_PIXELS = 16 * 4096 * 4096
"""The PNG pixels a deck's slides draw in all, a picture counted on every slide that shows it:
each is decoded and drawn again (about a second for 4096 × 4096), so this bounds a handout's
time: 16 pictures of 4096 × 4096, or 125 screenshots of 1920 × 1080."""

_TIE_BREAKS = ("first-seen", "lexicographic")
MODEL_KEYS = ("model", "bpe", "unigram")
"""Keys that name a model file beside the deck (empty: the bundled one)."""
MAX_NBEST = 10
"""Best segmentations a lattice slide lists."""
_PRETOKENIZERS = ("none", "gpt2", "cl100k", "o200k")


class DeckError(TokvizError):
    """A deck file that cannot be used; the message names the file and line and what is allowed."""


@dataclass(frozen=True)
class Option:
    """One key a slide kind takes: its TOML type, a default, and what it means (for messages and docs)."""

    kind: type | tuple[type, ...]
    default: Any
    meaning: str


_COMMON: dict[str, Option] = {
    "title": Option(str, "", "the heading shown on the slide"),
    "notes": Option(str, "", "speaker notes (presenter window and handout)"),
}
_TEXT = Option(str, "", "the sample text, editable on the slide")
_TOKENIZERS = Option(list, [], "tokenizer names or files beside the deck")

SLIDE_KINDS: dict[str, dict[str, Option]] = {
    "roundtrip": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "anatomy": {
        "text": _TEXT,
        "cluster": Option(str, "", "a text whose visible characters hold several code points"),
    },
    "views": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "merges": {
        "text": _TEXT,
        "merges": Option(int, 3, "how many merges to learn, one per click"),
        "pretokenizer": Option(str, "none", "none, gpt2, cl100k or o200k"),
        "tie_break": Option(str, "first-seen", "first-seen or lexicographic"),
        "train_text": Option(str, "", "learn the merges on this text and apply them to text"),
    },
    "chunks": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "exchange": {
        "text": _TEXT,
        "tokenizers": _TOKENIZERS,
        "samples": Option(list, [], "bundled sample names measured in the chart"),
    },
    "cost": {
        "text": _TEXT,
        "tokenizers": _TOKENIZERS,
        "d": Option(int, 768, "embedding width for V × d"),
        "long": Option(int, 0, "a worked example: the same text as this many tokens…"),
        "short": Option(int, 0, "…and as this many: their score matrices compared"),
    },
    "stream": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "regex": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "digits": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "chain": {
        "text": _TEXT,
        "merges": Option(int, 3, "how many merges to learn and replay"),
        "pretokenizer": Option(str, "none", "none, gpt2, cl100k or o200k"),
        "tie_break": Option(str, "first-seen", "first-seen or lexicographic"),
    },
    "samples": {
        "text": _TEXT,
        "tokenizers": _TOKENIZERS,
        "samples": Option(list, [], "bundled sample names, one row each"),
    },
    "broken": {"text": _TEXT, "tokenizers": _TOKENIZERS},
    "lattice": {
        "text": Option(str, "", "the word (or short text) whose lattice is shown, editable on the slide"),
        "model": Option(str, "", "a unigram .model beside the deck; empty: the bundled one"),
        "nbest": Option(int, 5, "how many best segmentations the table lists"),
    },
    "greedy": {
        "text": _TEXT,
        "word": Option(
            str, "", "the word whose lattice is shown; empty: the first the two models cut differently"
        ),
        "bpe": Option(str, "", "a BPE .model beside the deck; empty: the bundled one"),
        "unigram": Option(str, "", "a unigram .model of the same size and corpus; empty: the bundled one"),
    },
    "text": {"body": Option(str, "", "the slide's words; lines starting with '- ' are bullets")},
    "image": {
        "path": Option(str, "", "a PNG or SVG file beside the deck"),
        "caption": Option(str, "", "a line under the picture"),
    },
}
"""Every slide kind and the keys it takes besides ``kind``, ``title`` and ``notes``."""


@dataclass(frozen=True)
class Slide:
    """One slide: its kind, heading, notes and the kind's options (defaults filled in)."""

    kind: str
    title: str = ""
    notes: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """An option of this slide's kind (its default when the deck leaves it out)."""
        if key in self.options:
            return self.options[key]
        return SLIDE_KINDS[self.kind][key].default

    @property
    def steps(self) -> int:
        """How many clicks the slide takes before the next slide (a merge slide: one per merge)."""
        return 1 + int(self.get("merges")) if self.kind == "merges" and not self.get("train_text") else 1


@dataclass(frozen=True)
class Deck:
    """A lecture: a title, default text and tokenizers, and its slides in order; ``folder`` resolves files."""

    title: str
    slides: tuple[Slide, ...]
    text: str = ""
    tokenizers: tuple[str, ...] = ()
    folder: Path | None = None

    def resolve(self, name: str) -> str:
        """A tokenizer name as the registry takes it: built-in names as they are, files beside the deck."""
        if is_builtin(name) or self.folder is None:
            return name
        return str(self.folder / name)


def deck_files(deck: Deck, path: str | os.PathLike[str] | None = None) -> list[Path]:
    """The files a deck reads: the deck file itself (``path``) and the tokenizers and pictures beside it.

    Outputs written from the deck must not land on any of them.
    """
    files = [Path(path)] if path is not None else []
    if deck.folder is None:
        return files
    names = set(deck.tokenizers)
    for slide in deck.slides:
        names.update(slide.options.get("tokenizers") or ())
        if slide.kind == "image":
            names.add(str(slide.get("path")))
        names.update(str(slide.options.get(key) or "") for key in MODEL_KEYS)
    return files + [deck.folder / name for name in sorted(names) if name and not is_builtin(name)]


def sample_names() -> tuple[str, ...]:
    """The bundled sample texts an exchange slide can measure (file names without extension)."""
    return tuple(sorted(p.stem for p in resource_path("samples").iterdir() if p.is_file()))


def default_deck() -> Deck:
    """The bundled lecture deck: from the encoding contract to byte-level BPE and Unigram, in twenty slides."""
    return load_deck(resource_path("decks", "lecture1.toml"))


# ============================================================================ loading
def load_deck(path: str | os.PathLike[str]) -> Deck:
    """Read and check a deck file; raises :class:`DeckError` naming the file and line."""
    p = Path(path)
    label = str(path)
    try:
        if not p.is_file():
            raise DeckError(f"{label}: not a deck file (no such file, or not a regular file)")
        if p.stat().st_size > MAX_DECK_BYTES:
            raise DeckError(f"{label}: {p.stat().st_size:,} bytes is too big for a deck (at most 1 MB)")
        raw = p.read_bytes()
    except OSError as exc:
        raise DeckError(f"{label}: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DeckError(f"{label}: not UTF-8 text (byte {exc.start})") from None
    return parse_deck(text, label, p.resolve().parent)


def parse_deck(source: str, label: str = "<deck>", folder: Path | None = None) -> Deck:
    """Parse deck text; ``label`` names it in messages and ``folder`` is where its files are."""
    deep = _too_deep(source)
    if deep:
        raise DeckError(f"{label}:{deep}: arrays or tables nested more than {MAX_NESTING} deep")
    try:
        data = tomllib.loads(source)
    except tomllib.TOMLDecodeError as exc:
        raise DeckError(f"{label}:{_toml_message(exc)}") from None
    except RecursionError:  # not reached after _too_deep; a parser's limit is still one line
        raise DeckError(f"{label}: arrays or tables nested too deeply") from None
    lines = _SourceLines(source)
    allowed_top = ("title", "text", "tokenizers", "slide")
    for key in data:
        if key not in allowed_top:
            raise DeckError(
                f"{label}:{lines.top_key(key)}: unknown key {key!r}; a deck has {', '.join(allowed_top)}"
            )
    title = _typed(data.get("title", ""), str, label, lines.top_key("title"), "title")
    text = _typed(data.get("text", ""), str, label, lines.top_key("text"), "text")
    tokenizers = _tokenizer_list(data.get("tokenizers", []), label, lines.top_key("tokenizers"), folder)
    for key, value in (("title", title), ("text", text), ("tokenizers", tokenizers)):
        _check_size(key, value, f"{label}:{lines.top_key(key)}: the deck's")
    raw_slides = data.get("slide", [])
    if not isinstance(raw_slides, list) or not raw_slides:
        raise DeckError(f"{label}: a deck needs at least one [[slide]] table")
    if len(raw_slides) > MAX_SLIDES:
        raise DeckError(f"{label}: {len(raw_slides)} slides; a deck has at most {MAX_SLIDES}")
    pictures = _Pictures(folder)
    slides = tuple(_slide(s, i, label, lines, folder, pictures) for i, s in enumerate(raw_slides))
    steps = sum(slide.steps for slide in slides)
    if steps > MAX_STEPS:
        raise DeckError(f"{label}: {steps:,} steps (clicks) in all; a deck has at most {MAX_STEPS}")
    return Deck(title=title, slides=slides, text=text, tokenizers=tuple(tokenizers), folder=folder)


def _too_deep(source: str) -> int:
    """The line where arrays or inline tables nest more than :data:`MAX_NESTING` deep, or 0.

    Strings and comments are skipped, so the count is TOML's own nesting; a table header
    (``[[slide]]``) opens and closes on its line.
    """
    depth = 0
    line = 1
    for found in _NESTING_TOKENS.finditer(source):
        token = found.group()
        if token[0] in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif token[0] in "]}":
            depth = max(depth - 1, 0)
        else:
            line += token.count("\n")
    return 0


# What the nesting count sees: strings (multi-line ones first), comments, brackets and line ends.
_NESTING_TOKENS = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*(?:"""|$)'
    r"|'''(?:[^']|'(?!''))*(?:'''|$)"
    r'|"(?:[^"\\\n]|\\.)*"?'
    r"|'[^'\n]*'?"
    r"|#[^\n]*"
    r"|[\[\]{}\n]",
    re.DOTALL,
)


def _slide(
    raw: object, index: int, label: str, lines: _SourceLines, folder: Path | None, pictures: _Pictures
) -> Slide:
    at = lines.slide(index)
    where = f"{label}:{at}: slide {index + 1}"
    if not isinstance(raw, dict):
        raise DeckError(f"{where}: a slide is a [[slide]] table")
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in SLIDE_KINDS:
        shown = f"{kind!r}" if kind is not None else "no kind"
        raise DeckError(
            f"{label}:{lines.slide_key(index, 'kind') or at}: slide {index + 1} has {shown}; "
            f"kind is one of {', '.join(SLIDE_KINDS)}"
        )
    options = SLIDE_KINDS[kind]
    allowed = {"kind", *_COMMON, *options}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        line = lines.slide_key(index, key) or at
        if key not in allowed:
            raise DeckError(
                f"{label}:{line}: slide {index + 1} ({kind}) has no key {key!r}; "
                f"it takes {', '.join(sorted(allowed - {'kind'}))}"
            )
        if key == "kind":
            continue
        spec = _COMMON.get(key) or options[key]
        values[key] = _typed(value, spec.kind, label, line, key)
        if key == "tokenizers":
            values[key] = tuple(_tokenizer_list(value, label, line, folder))
        elif key == "samples":
            values[key] = tuple(_typed(v, str, label, line, "samples") for v in value)
        _check_size(key, values[key], f"{label}:{line}: slide {index + 1}'s")
    _check_values(kind, values, f"{label}:{at}: slide {index + 1} ({kind})", folder)
    if kind == "image" and folder is not None:
        pictures.check(
            str(values.get("path", "")), f"{label}:{lines.slide_key(index, 'path') or at}: slide {index + 1}"
        )
    options_only = {k: v for k, v in values.items() if k not in _COMMON}
    return Slide(kind, values.get("title", ""), values.get("notes", ""), options_only)


def _check_values(kind: str, values: Mapping[str, Any], where: str, folder: Path | None) -> None:
    merges = values.get("merges")
    if merges is not None and not 0 <= merges <= 64:
        raise DeckError(f"{where}: merges is {merges}; a slide shows 0 to 64 merges, one per click")
    if values.get("pretokenizer", "none") not in _PRETOKENIZERS:
        raise DeckError(f"{where}: pretokenizer is one of {', '.join(_PRETOKENIZERS)}")
    if values.get("tie_break", "first-seen") not in _TIE_BREAKS:
        raise DeckError(f"{where}: tie_break is one of {', '.join(_TIE_BREAKS)}")
    unknown = [name for name in values.get("samples", ()) if name not in sample_names()]
    if unknown:
        raise DeckError(f"{where}: no bundled sample {unknown[0]!r}; samples are {', '.join(sample_names())}")
    d = values.get("d")
    if d is not None and not 1 <= d <= 1 << 16:
        raise DeckError(f"{where}: d is {d}; an embedding width is 1 to 65,536")
    for key in ("long", "short"):
        n = values.get(key)
        if n is not None and not 0 <= n <= 1 << 24:
            raise DeckError(f"{where}: {key} is {n}; a token count is 0 to 16,777,216")
    nbest = values.get("nbest")
    if nbest is not None and not 1 <= nbest <= MAX_NBEST:
        raise DeckError(f"{where}: nbest is {nbest}; a slide lists 1 to {MAX_NBEST} best segmentations")
    _check_models(values, where, folder)
    if kind == "image" and not values.get("path", ""):
        raise DeckError(f'{where}: an image slide needs path = "picture.png"')


def _check_models(values: Mapping[str, Any], where: str, folder: Path | None) -> None:
    """Refuse a model key (:data:`MODEL_KEYS`) that names no file in the deck's folder."""
    for key in MODEL_KEYS:
        name = values.get(key)
        if name and folder is not None:
            try:
                found = asset_path(folder, name).is_file()
            except AssetError as exc:
                raise DeckError(f"{where}: {key} {exc}") from None
            if not found:
                raise DeckError(f"{where}: {key} names {name!r}, which is not a file beside the deck")


def _check_size(key: str, value: object, whose: str) -> None:
    """Refuse a text longer than :data:`MAX_CHARS` allows, a body of too many lines, or too many tokenizers."""
    cap = MAX_CHARS.get(key)
    if isinstance(value, str) and cap is not None and len(value) > cap:
        raise DeckError(f"{whose} {key} is {len(value):,} characters long; at most {cap:,}")
    if key == "body" and isinstance(value, str):
        lines = sum(1 for line in value.splitlines() if line.strip())
        if lines > MAX_BODY_LINES:
            raise DeckError(
                f"{whose} body has {lines:,} bullets and paragraphs; a slide shows at most {MAX_BODY_LINES}"
            )
    if key == "tokenizers" and isinstance(value, list | tuple) and len(value) > MAX_TOKENIZERS:
        raise DeckError(f"{whose} tokenizers list {len(value):,}; a slide shows at most {MAX_TOKENIZERS}")


class _Pictures:
    """The pictures of one deck, each read and checked once, their bytes counted against
    :data:`MAX_PICTURE_TOTAL` and the pixels of every slide that shows one against
    :data:`MAX_DRAWN_PIXELS`."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.pixels_of: dict[str, int] = {}
        self.total = 0
        self.drawn = 0

    def check(self, name: str, where: str) -> None:
        if self.folder is None:
            return
        if name not in self.pixels_of:
            try:
                picture = read_picture(self.folder, name)
            except AssetError as exc:
                raise DeckError(f"{where}: {exc}") from None
            self.pixels_of[name] = picture.width * picture.height
            self.total += len(picture.data)
            if self.total > MAX_PICTURE_TOTAL:
                raise DeckError(
                    f"{where}: the deck's pictures take more than {MAX_PICTURE_TOTAL >> 20} MB together"
                )
        self.drawn += self.pixels_of[name]
        if self.drawn > MAX_DRAWN_PIXELS:
            raise DeckError(
                f"{where}: the deck's slides draw more than {MAX_DRAWN_PIXELS:,} picture pixels in all "
                "(16 pictures of 4096 × 4096)"
            )


def _typed(value: object, kind: type | tuple[type, ...], label: str, line: int, key: str) -> Any:
    if isinstance(value, bool) and kind is int:
        value = None  # TOML's true is not a count
    if not isinstance(value, kind):
        names = {str: "a string", int: "a whole number", list: "a list"}
        wanted = names.get(kind, "a value") if isinstance(kind, type) else "a value"
        raise DeckError(f"{label}:{line}: {key} must be {wanted}, not {type(value).__name__}")
    return value


def _tokenizer_list(value: object, label: str, line: int, folder: Path | None) -> list[str]:
    names = _typed(value, list, label, line, "tokenizers")
    out: list[str] = []
    for name in names:
        _typed(name, str, label, line, "tokenizers")
        if is_builtin(name):
            out.append(name)
            continue
        if folder is not None:
            try:
                path = asset_path(folder, name)
            except AssetError as exc:
                raise DeckError(f"{label}:{line}: tokenizer {exc}") from None
            if path.exists():
                out.append(name)
                continue
        raise DeckError(
            f"{label}:{line}: unknown tokenizer {name!r}; use bytes, characters, words, gpt2, cl100k, "
            "o200k or a tokenizer file beside the deck"
        )
    return out


def _toml_message(exc: tomllib.TOMLDecodeError) -> str:
    """tomllib's message after ``FILE:``: its '(at line N, column M)' becomes ``N: ... (column M)``."""
    message = str(exc)
    found = re.search(r"\(at line (\d+), column (\d+)\)", message)
    if found:
        head = message[: found.start()].strip()
        return f"{found.group(1)}: not TOML: {head} (column {found.group(2)})"
    return f" not TOML: {message}"


class _SourceLines:
    """Line numbers of a deck's keys and ``[[slide]]`` headers, for messages (tomllib keeps none)."""

    _HEADER = re.compile(r"^\s*\[\[\s*slide\s*\]\]\s*(#.*)?$")
    _KEY = re.compile(r"^\s*([A-Za-z0-9_\"'-]+)\s*=")

    def __init__(self, source: str) -> None:
        self.lines = source.splitlines()
        self.headers = [i + 1 for i, line in enumerate(self.lines) if self._HEADER.match(line)]

    def _key_in(self, key: str, start: int, stop: int) -> int:
        for number in range(start, min(stop, len(self.lines)) + 1):
            found = self._KEY.match(self.lines[number - 1])
            if found and found.group(1).strip("\"'") == key:
                return number
        return 0

    def top_key(self, key: str) -> int:
        """The line of a top-level key (before the first slide), or 1."""
        stop = self.headers[0] - 1 if self.headers else len(self.lines)
        return self._key_in(key, 1, stop) or 1

    def slide(self, index: int) -> int:
        """The line of the ``[[slide]]`` header of slide ``index`` (0-based), or 1."""
        return self.headers[index] if index < len(self.headers) else 1

    def slide_key(self, index: int, key: str) -> int:
        """The line of ``key`` inside slide ``index``, or 0 when it is not written there."""
        if index >= len(self.headers):
            return 0
        stop = self.headers[index + 1] - 1 if index + 1 < len(self.headers) else len(self.lines)
        return self._key_in(key, self.headers[index] + 1, stop)


# ============================================================================ writing
def deck_toml(deck: Deck) -> str:
    """The deck as TOML that :func:`parse_deck` reads back to an equal deck (defaults left out)."""
    out: list[str] = []
    if deck.title:
        out.append(f"title = {_toml_string(deck.title)}")
    if deck.text:
        out.append(f"text = {_toml_string(deck.text)}")
    if deck.tokenizers:
        out.append(f"tokenizers = {_toml_list(deck.tokenizers)}")
    for slide in deck.slides:
        out.append("")
        out.append("[[slide]]")
        out.append(f"kind = {_toml_string(slide.kind)}")
        if slide.title:
            out.append(f"title = {_toml_string(slide.title)}")
        for key in SLIDE_KINDS[slide.kind]:
            if key in slide.options:
                out.append(f"{key} = {_toml_value(slide.options[key])}")
        if slide.notes:
            out.append(f"notes = {_toml_string(slide.notes)}")
    return "\n".join(out) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list | tuple):
        return _toml_list(value)
    return _toml_string(str(value))


def _toml_list(values: Any) -> str:
    return "[" + ", ".join(_toml_string(str(v)) for v in values) + "]"


def _escape(text: str, keep_newlines: bool) -> str:
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n" and keep_newlines:
            out.append("\n")
        elif ch == "\t":
            out.append("\\t")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04X}")
        else:
            out.append(ch)
    return "".join(out)


def _toml_string(text: str) -> str:
    """A TOML basic string; text with newlines becomes a multi-line string a person can read."""
    if "\n" in text:
        return '"""\n' + _escape(text, keep_newlines=True) + '"""'
    return '"' + _escape(text, keep_newlines=False) + '"'
