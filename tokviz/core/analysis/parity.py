"""Which languages pay: the tokens the same content costs in each language of a parallel set.

A parallel set is a folder with one UTF-8 file per language whose line *n* says the same thing in
every file (FLORES-200's ``eng_Latn.devtest``, or ``en.txt``, ``hi.txt``; see
:mod:`tokviz.core.corpus.languages`). :func:`read_parallel` reads it, refusing files that are not aligned;
:func:`measure_parity` encodes every line on its own (as a sentence is, newlines not counted) under
every tokenizer, and :class:`ParityTable` holds the counts and the **premium**: a language's tokens
over the reference language's tokens for the same lines (2.0: the same content costs twice the
tokens). No Qt here.
"""

from __future__ import annotations

import csv
import io
import os
import stat
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..bpe.tokenizer import Tokenizer
from ..corpus.containers import TEXT_FILE, container_of
from ..corpus.documents import CorpusReader, ReadOptions
from ..corpus.languages import Language, language_of
from ..corpus.reading import CorpusFile, sniff
from ..errors import Cancelled, CorpusError
from ..io.filekind import ReadProblem, megabytes, read_regular_file
from ..io.safe_text import csv_cell
from ..show.html_table import table_html
from ..show.svg_chart import bar_chart_svg
from .metrics import encoded_parts

# FLORES-200's devtest files are about 200 KB each; a language file past this is not a sentence set.
MAX_LANGUAGE_FILE_BYTES = 64 * 2**20
# All language files together: FLORES-200's devtest split is about 50 MB; text is held in memory.
MAX_PARALLEL_BYTES = 256 * 2**20
# The languages one folder may hold: FLORES-200 has 204; a folder of thousands is not a parallel set.
MAX_LANGUAGES = 1000
DEFAULT_REFERENCE = "en"
# Columns of every output form, in order; the CSV and JSON use these names.
PARITY_FIELDS = (
    "tokenizer",
    "language",
    "code",
    "lines",
    "bytes",
    "characters",
    "tokens",
    "bytes_per_token",
    "characters_per_token",
    "premium",
)
_HEADERS = (
    ("tokenizer", False),
    ("language", False),
    ("code", False),
    ("lines", True),
    ("tokens", True),
    ("bytes/token", True),
    ("chars/token", True),
    ("premium", True),
)
_NAMING_HINT = "one UTF-8 file per language, named like en.txt or FLORES-200's eng_Latn.devtest"


@dataclass(frozen=True)
class LanguageText:
    """One language's file of a parallel set: its language, path and lines (no line endings)."""

    language: Language
    path: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class ParallelSet:
    """The language files of one folder, aligned line by line, and how many other files it held."""

    folder: str
    texts: tuple[LanguageText, ...]
    other_files: int = 0

    @property
    def languages(self) -> tuple[Language, ...]:
        """The languages, in the order of their codes."""
        return tuple(t.language for t in self.texts)

    @property
    def line_count(self) -> int:
        """Lines per file (the same in every file)."""
        return len(self.texts[0].lines) if self.texts else 0


def read_parallel(folder: str | os.PathLike[str], field: str = "text") -> ParallelSet:
    """Read the language files of ``folder`` (FLORES-200's root: its ``devtest`` folder).

    A language file of records (``eng_Latn.parquet``, ``en.jsonl``: FLORES+ as published) holds a
    sentence per record, in ``field``; a record is a line.

    Raises :class:`CorpusError` with one line for a folder that is missing or empty, holds no
    language file, or holds a file that is not a readable UTF-8 regular file, two files of one
    language, or files whose line counts differ (naming the file that differs).
    """
    root = os.fspath(folder)
    names = _listing(root)
    if not any(language_of(n) for n in names) and os.path.isdir(os.path.join(root, "devtest")):
        root = os.path.join(root, "devtest")  # FLORES-200's top folder: its devtest split
        names = _listing(root)
    if not names:
        raise CorpusError(f"{root} is empty: a parallel set has {_NAMING_HINT}", root)
    named = [(n, language_of(n)) for n in names]
    found = [(n, lang) for n, lang in named if lang is not None]
    if not found:
        raise CorpusError(
            f"{root} holds no language files ({len(names):,} other files): a parallel set has {_NAMING_HINT}",
            root,
        )
    if len(found) > MAX_LANGUAGES:
        raise CorpusError(
            f"{root} holds {len(found):,} language files; at most {MAX_LANGUAGES:,} are read", root
        )
    seen: dict[str, str] = {}
    texts = []
    total = 0
    for name, language in sorted(found, key=lambda pair: pair[1].code):
        if language.code in seen:
            raise CorpusError(f"{seen[language.code]} and {name} in {root} both hold {language.code}", root)
        seen[language.code] = name
        path = os.path.join(root, name)
        total += _size(path)
        if total > MAX_PARALLEL_BYTES:
            limit = megabytes(MAX_PARALLEL_BYTES)
            raise CorpusError(
                f"the language files in {root} hold more than {limit} of text; choose fewer", root
            )
        texts.append(LanguageText(language, path, _read_lines(path, field)))
    _check_aligned(texts)
    return ParallelSet(root, tuple(texts), len(names) - len(found))


def _listing(root: str) -> list[str]:
    """The names in ``root`` that are not hidden, or a one-line error when it is not a folder."""
    if not os.path.isdir(root):
        reason = "does not exist" if not os.path.exists(root) else "is not a folder"
        raise CorpusError(f"{root} {reason}: give a folder with {_NAMING_HINT}", root)
    try:
        return sorted(n for n in os.listdir(root) if not n.startswith("."))
    except OSError as exc:
        raise CorpusError(f"{root} cannot be listed ({exc.strerror or exc})", root) from None


def _size(path: str) -> int:
    """A file's size on disk (0 when it cannot be examined: reading it then says why)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _read_lines(path: str, field: str = "text") -> tuple[str, ...]:
    """A language file's lines: strict UTF-8, a leading BOM dropped, ``\\n`` or ``\\r\\n`` endings;
    a file of records gives one line per record (its ``field``; a record without it is an error,
    as a missing line would misalign the set)."""
    records = _records_of(path, field)
    if records is not None:
        return records
    try:
        data = read_regular_file(path, MAX_LANGUAGE_FILE_BYTES)
    except ReadProblem as exc:
        if exc.reason.startswith("is larger"):
            limit = megabytes(MAX_LANGUAGE_FILE_BYTES)
            raise CorpusError(
                f"{path} {exc.reason}: a language file is read whole, up to {limit}", path
            ) from None
        raise CorpusError(f"{path} {exc.reason}; a language file must be a regular text file", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path} is not valid UTF-8 (byte offset {exc.start})", path, exc.start) from None
    text = text.removeprefix("\ufeff")
    if not text:
        return ()
    lines = text.removesuffix("\n").split("\n")
    return tuple(line.removesuffix("\r") for line in lines)


def _records_of(path: str, field: str) -> tuple[str, ...] | None:
    """The sentences of a language file of records, one per record, or None for a text file (and
    for anything not a regular file, which :func:`_read_lines` refuses without opening it)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        sniffed = sniff(Path(path))
    except OSError as exc:
        raise CorpusError(f"cannot read {path}: {exc.strerror or exc}", path) from None
    container = container_of(Path(path), sniffed)
    if container == TEXT_FILE:
        return None
    reader = CorpusReader(ReadOptions(field=field))
    file = CorpusFile(Path(path), os.stat(path).st_size, sniffed.compression, container)
    lines = tuple("".join(document) for document in reader.corpus([file]))
    skipped = reader.tally.skipped_note()
    if skipped is not None:
        raise CorpusError(
            f"{path}: {skipped}; every record must hold a sentence to keep the set aligned", path
        )
    return lines


def _check_aligned(texts: Sequence[LanguageText]) -> None:
    """Every file must have as many lines as the others (most of them decide, a tie the first)."""
    counts = Counter(len(t.lines) for t in texts)
    expected = max(
        counts, key=lambda n: (counts[n], -min(i for i, t in enumerate(texts) if len(t.lines) == n))
    )
    for t in texts:
        if len(t.lines) != expected:
            others = counts[expected]
            raise CorpusError(
                f"{t.path} has {_lines(len(t.lines))} where {'the other file has' if others == 1 else f'{others} other files have'} "
                f"{expected:,}: parallel files must be aligned line by line",
                t.path,
            )
    if all(not line for t in texts for line in t.lines):
        raise CorpusError(f"the language files in {os.path.dirname(texts[0].path) or '.'} hold no text")


def _lines(n: int) -> str:
    return f"{n:,} line" if n == 1 else f"{n:,} lines"


def find_language(languages: Sequence[Language], query: str) -> Language:
    """The language ``query`` names (a file code, an ISO 639-1/-3 code or an English name)."""
    for language in languages:
        if language.code == query:
            return language
    for language in languages:
        if language.matches(query):
            return language
    codes = ", ".join(lang.code for lang in languages)
    raise CorpusError(f"no file for the language {query!r} (the folder has: {codes})")


# ----------------------------------------------------------------------------- measuring
@dataclass(frozen=True)
class ParityRow:
    """One language under one tokenizer: what its lines cost, and the premium over the reference."""

    tokenizer: str
    language: Language
    lines: int
    bytes: int
    characters: int
    tokens: int
    premium: float | None

    @property
    def bytes_per_token(self) -> float | None:
        """UTF-8 bytes over tokens (None when there are no tokens)."""
        return self.bytes / self.tokens if self.tokens else None

    @property
    def characters_per_token(self) -> float | None:
        """Code points over tokens (None when there are no tokens)."""
        return self.characters / self.tokens if self.tokens else None

    def as_dict(self) -> dict[str, object]:
        """The row under :data:`PARITY_FIELDS`, numbers unrounded."""
        return {
            "tokenizer": self.tokenizer,
            "language": self.language.name,
            "code": self.language.code,
            "lines": self.lines,
            "bytes": self.bytes,
            "characters": self.characters,
            "tokens": self.tokens,
            "bytes_per_token": self.bytes_per_token,
            "characters_per_token": self.characters_per_token,
            "premium": self.premium,
        }


@dataclass(frozen=True)
class ParityTable:
    """Every chosen language under every tokenizer, each tokenizer's rows dearest first."""

    reference: Language
    tokenizers: tuple[str, ...]
    languages: tuple[Language, ...]
    entries: tuple[ParityRow, ...]

    def of(self, tokenizer: str) -> list[ParityRow]:
        """One tokenizer's rows, the highest premium first."""
        return [r for r in self.entries if r.tokenizer == tokenizer]

    def worst(self, tokenizer: str, n: int = 3) -> list[ParityRow]:
        """The ``n`` languages with the highest premium under ``tokenizer`` (the reference left out)."""
        return [r for r in self.of(tokenizer) if r.language != self.reference and r.premium is not None][:n]

    def premium_range(self, tokenizer: str) -> tuple[float, float] | None:
        """The lowest and highest premium under ``tokenizer``, or None when none is defined."""
        premiums = [r.premium for r in self.of(tokenizer) if r.premium is not None]
        return (min(premiums), max(premiums)) if premiums else None

    def headers(self) -> list[str]:
        """The column names of :meth:`rows`."""
        return [name for name, _ in _HEADERS]

    def right_aligned(self) -> list[bool]:
        """Which columns of :meth:`rows` are numbers (aligned right)."""
        return [right for _, right in _HEADERS]

    def rows(self) -> list[list[str]]:
        """The table as text cells: counts with separators, ratios with two decimals."""
        return [
            [
                r.tokenizer,
                r.language.name,
                r.language.code,
                f"{r.lines:,}",
                f"{r.tokens:,}",
                _fixed(r.bytes_per_token),
                _fixed(r.characters_per_token),
                "-" if r.premium is None else f"{r.premium:.2f}×",
            ]
            for r in self.entries
        ]

    def summary(self, n: int = 3) -> list[str]:
        """One line per tokenizer naming its dearest languages: "GPT-2: Amharic 9.10×, Tamil 7.52×, ..."."""
        lines = []
        for tok in self.tokenizers:
            worst = ", ".join(f"{r.language.name} {r.premium:.2f}×" for r in self.worst(tok, n))
            lines.append(f"{tok}: {worst or 'no language but the reference'}")
        return lines

    def caption(self) -> str:
        """What the premium means, against which language, over how many lines."""
        lines = self.entries[0].lines if self.entries else 0
        return (
            f"premium: tokens over {self.reference.name}'s ({self.reference.code}) for the same "
            f"{lines:,} {'line' if lines == 1 else 'lines'}, each line encoded on its own"
        )

    def plot_svg(self) -> str:
        """The premiums as inline SVG bars, one per tokenizer, the dearest language on top and a
        dashed line at 1.0 (as costly as the reference)."""
        premium = {(r.tokenizer, r.language): r.premium for r in self.entries}
        first = self.tokenizers[0] if self.tokenizers else ""
        order = sorted(self.languages, key=lambda lang: (-(premium.get((first, lang)) or 0.0), lang.code))
        series = {tok: [premium.get((tok, lang)) for lang in order] for tok in self.tokenizers}
        return bar_chart_svg(
            [lang.name for lang in order],
            series,
            title=f"Tokens for the same lines as {self.reference.name}",
            value_label=f"premium (× {self.reference.name}'s tokens)",
            reference=1.0,
        )

    def html(self) -> str:
        """The chart, then the table as a self-contained, escaped HTML ``<table>`` (what notebooks show)."""
        table = table_html(self.headers(), self.rows(), self.right_aligned(), caption=self.caption())
        return f"<div>{self.plot_svg()}</div>{table}"

    _repr_html_ = html


def _fixed(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


ParityProgress = Callable[[int, int], None]


def measure_parity(
    parallel: ParallelSet,
    tokenizers: Sequence[Tokenizer],
    labels: Sequence[str],
    *,
    reference: str = DEFAULT_REFERENCE,
    languages: Sequence[str] = (),
    progress: ParityProgress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> ParityTable:
    """Encode every line of the chosen ``languages`` (default: all) under every tokenizer.

    ``reference`` names the language premiums are measured against (always included);
    ``progress(done, total)`` is told after each language and tokenizer; ``cancelled`` returning
    True stops the work with :class:`Cancelled`. Raises :class:`CorpusError` for a language the
    set does not have.
    """
    if len(labels) != len(tokenizers):
        raise ValueError("labels must name every tokenizer")
    ref = find_language(parallel.languages, reference)
    chosen = {find_language(parallel.languages, q) for q in languages} | {ref} if languages else None
    texts = [t for t in parallel.texts if chosen is None or t.language in chosen]
    total, done = len(texts) * len(tokenizers), 0
    entries: list[ParityRow] = []
    for tokenizer, label in zip(tokenizers, labels):
        counts: dict[Language, tuple[int, int, int, int]] = {}
        for text in texts:
            if cancelled is not None and cancelled():
                raise Cancelled()
            counts[text.language] = _count(tokenizer, text.lines)
            done += 1
            if progress is not None:
                progress(done, total)
        ref_tokens = counts[ref][3]
        rows = [
            ParityRow(label, lang, n, nbytes, chars, tokens, tokens / ref_tokens if ref_tokens else None)
            for lang, (n, nbytes, chars, tokens) in counts.items()
        ]
        rows.sort(key=lambda r: (-(r.premium or 0.0), r.language.code))
        entries.extend(rows)
    return ParityTable(ref, tuple(labels), tuple(t.language for t in texts), tuple(entries))


def _count(tokenizer: Tokenizer, lines: Sequence[str]) -> tuple[int, int, int, int]:
    """(lines, UTF-8 bytes, code points, tokens) of ``lines``, each encoded on its own."""
    nbytes = chars = tokens = 0
    for line in lines:
        nbytes += len(line.encode("utf-8", "surrogatepass"))
        chars += len(line)
        if line:  # a long line is encoded in parts, never whole
            tokens += sum(len(ids) for _, ids in encoded_parts(tokenizer, line))
    return len(lines), nbytes, chars, tokens


def iter_rows(table: ParityTable) -> Iterator[dict[str, object]]:
    """The table's rows as dicts under :data:`PARITY_FIELDS` (for CSV and JSON)."""
    for row in table.entries:
        yield row.as_dict()


def parity_csv(table: ParityTable) -> str:
    """The rows as CSV under :data:`PARITY_FIELDS`, numbers rounded as every tokviz file rounds them."""
    from .evaluation import rounded_rows

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(PARITY_FIELDS), lineterminator="\n")
    writer.writeheader()
    for row in rounded_rows(iter_rows(table)):
        writer.writerow({k: "" if v is None else csv_cell(v) for k, v in row.items()})
    return buffer.getvalue()


def bundled_sample() -> str:
    """The folder of the small parallel sample that ships with tokviz (for illustration, not a benchmark)."""
    from ..io.resources import resource_path

    return str(resource_path("parallel"))
