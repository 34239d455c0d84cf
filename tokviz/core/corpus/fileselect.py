"""Choosing the text files of a corpus or an evaluation set from files, folders and globs.

This is the one file selector of tokviz: training, counting, evaluation, usage and the GUI all
choose their files here, so they read the same files and say the same about what they left out.

A folder is whatever happens to be in it (``/usr/lib/python3.11`` holds ``.pyc`` and ``.so``
files beside the sources, a checkout holds ``.git``), so :func:`select_files` walks it and keeps
only what is text: each file is sniffed by content (gzip, bzip2 and xz files decompressed first,
see :mod:`tokviz.core.corpus.reading`), and whatever is left out is counted by reason ("binary", "not
UTF-8", "too large", a folder that cannot be read, ...), with the commonest suffixes of each
kind, so a caller can say what it skipped in one line. A folder's files are also read to their
end before use: text that stops being UTF-8 deep inside, and a run of NUL bytes past the sniffed
start (a text file padded to gigabytes), make a file left out like any other; with
``include_binary`` those are read too, when they decode as UTF-8. A file named explicitly was
asked for, so the binary sniff does not apply to it: it is read when it decodes as UTF-8 (NUL
bytes and all), and one that is binary and not UTF-8 is an error naming it, not a silent skip.

``include`` / ``exclude`` globs are matched on the path relative to the folder given (``*.py``
matches a name at any depth, ``src/**/*.py`` a path, ``build/`` or ``tests`` a whole folder);
hidden files and folders (``.git``, ``.venv``) are not looked at; a folder reached twice through
symbolic links (a link loop included) is walked once, and a file reached twice is used once; FIFOs,
sockets and devices are never opened. The order is deterministic: the paths as given, each folder's
entries sorted by name.

The result feeds both training (:func:`corpus_source` and :meth:`Selection.corpus_files` give
:class:`CorpusFile` items for :mod:`tokviz.core.training.train`) and evaluation
(:mod:`tokviz.core.analysis.evaluation`). This module depends on ``corpus`` for sniffing and reading;
``corpus`` does not depend on it.
"""

from __future__ import annotations

import glob
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Cancelled, CorpusError, InvalidArgument
from ..io.filekind import kind_problem, megabytes
from .containers import (
    ARROW,
    DATASET_DESCRIPTIONS,
    PARQUET,
    TEXT_FILE,
    container_of,
    dataset_data_files,
    json_named,
)
from .reading import (
    BINARY,
    NOT_UTF8,
    SNIFF_SIZE,
    TEXT,
    UNREADABLE,
    CorpusFile,
    CorpusSource,
    iter_file_text,
    sniff,
)

# Why a file was left out. The order is the order of the note.
SKIP_BINARY = "binary"
SKIP_NOT_UTF8 = "not-utf8"
SKIP_TOO_LARGE = "too-large"
SKIP_FILTERED = "filtered"
SKIP_SPECIAL = "special"
SKIP_UNREADABLE = "unreadable"
SKIP_UNREADABLE_FOLDER = "unreadable-folder"
SKIP_DUPLICATE = "duplicate"
SKIP_DATASET = "dataset-description"
SKIP_REASONS = (
    SKIP_BINARY,
    SKIP_NOT_UTF8,
    SKIP_TOO_LARGE,
    SKIP_FILTERED,
    SKIP_SPECIAL,
    SKIP_UNREADABLE,
    SKIP_UNREADABLE_FOLDER,
    SKIP_DUPLICATE,
    SKIP_DATASET,
)
# Reasons a file of a folder is not used although nobody asked for it to be left out.
_NOT_TEXT = frozenset(SKIP_REASONS) - {SKIP_FILTERED}
# A run of this many NUL characters past the sniffed start makes a folder's file binary.
NUL_RUN = 32
_NULS = "\0" * NUL_RUN

_MAGIC = re.compile(r"[*?[]")


@dataclass(frozen=True)
class SelectedFile:
    """One chosen file: where it is, how it was reached, its size on disk, its compression and what
    holds its text (``text``, ``jsonl``, ``parquet``, ``arrow``: see :mod:`tokviz.core.corpus.containers`).

    ``root`` is the folder argument it was found under, as the user gave it (``None`` for a file
    named directly or by a glob); ``relative`` is its path under that folder with ``/`` separators
    (for a named file: the path as given).
    """

    path: Path
    relative: str
    root: str | None
    size: int
    compression: str | None = None
    container: str = TEXT_FILE

    @property
    def corpus_file(self) -> CorpusFile:
        """The same file as :mod:`tokviz.core.corpus.documents` reads it (training, evaluation)."""
        return CorpusFile(self.path, self.size, self.compression, self.container)

    @property
    def folder(self) -> str:
        """The folder it lies in, relative to its root (``""`` at the top; for a named file, its
        folder as given), for per-folder totals."""
        return self.relative.rpartition("/")[0]


@dataclass(frozen=True)
class Skipped:
    """How many files were left out for one reason, their bytes on disk, and what they were.

    ``kinds`` are the commonest suffixes among them (".pyc", ".so", "no extension"), most frequent first.
    """

    reason: str
    files: int
    bytes: int
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class Selection:
    """What :func:`select_files` chose: the files in order, and the files it left out by reason.

    ``json_as_text`` are the files named as JSON (``.json``, ``.jsonl``) that are read as plain
    text, and ``as_text`` whether that was asked for: either way the note says so.
    """

    files: tuple[SelectedFile, ...]
    skipped: tuple[Skipped, ...] = ()
    max_size: int | None = field(default=None, repr=False)
    json_as_text: tuple[str, ...] = ()
    as_text: bool = False

    @property
    def bytes(self) -> int:
        """Bytes on disk of the chosen files (compressed files by their compressed size)."""
        return sum(f.size for f in self.files)

    def skipped_count(self, reason: str | None = None) -> int:
        """How many files were left out for ``reason`` (one of :data:`SKIP_REASONS`), or for any."""
        return sum(s.files for s in self.skipped if reason is None or s.reason == reason)

    def corpus_files(self) -> list[CorpusFile]:
        """The chosen files as training reads them (:class:`tokviz.core.corpus.reading.CorpusFile`)."""
        return [f.corpus_file for f in self.files]

    @property
    def compressed(self) -> int:
        """How many of the chosen files are compressed."""
        return sum(1 for f in self.files if f.compression)

    def left_out(self) -> int:
        """How many files (and unreadable folders) were left out for not being usable text:
        every reason but the include/exclude patterns, which were asked for."""
        return sum(s.files for s in self.skipped if s.reason in _NOT_TEXT)

    def note(self, replace_hint: str = "--replace-invalid") -> str | None:
        """One line about what was left out ("skipped 1,204 binary files (.pyc, .so); 3 files
        larger than 1 MB"), or None when nothing was. ``replace_hint`` names the way to read
        non-UTF-8 text anyway. Files left out by the include/exclude patterns were asked to be, so
        they are mentioned last and briefly."""
        parts = [_describe(s, self.max_size, replace_hint) for s in self.skipped]
        said = [("skipped " + "; ".join(parts))] if parts else []
        if self.json_as_text:
            said.append(_as_text_note(self.json_as_text, self.as_text))
        return "; ".join(said) or None

    @property
    def has_records(self) -> bool:
        """Whether any chosen file holds records (JSON Lines, Parquet, Arrow) rather than plain text."""
        return any(f.container != TEXT_FILE for f in self.files)


def _as_text_note(paths: Sequence[str], asked: bool) -> str:
    """``read 2 .json files as plain text, not as JSON Lines (a.json, b.json)``."""
    n = len(paths)
    shown = ", ".join(paths[:3]) + (", …" if n > 3 else "")
    why = "as asked" if asked else "not as JSON Lines (one record per line)"
    return f"read {n:,} JSON {'file' if n == 1 else 'files'} as plain text, {why} ({shown})"


def _describe(s: Skipped, max_size: int | None, replace_hint: str) -> str:
    n = f"{s.files:,} {'file' if s.files == 1 else 'files'}"
    kinds = ""
    if s.kinds:
        kinds = f" ({', '.join(s.kinds[:3])}{', …' if len(s.kinds) > 3 else ''})"
    if s.reason == SKIP_BINARY:
        return f"{s.files:,} binary {'file' if s.files == 1 else 'files'}{kinds}"
    if s.reason == SKIP_NOT_UTF8:
        return f"{n} not in UTF-8{kinds} ({replace_hint} reads them)"
    if s.reason == SKIP_TOO_LARGE:
        cap = f" {megabytes(max_size)}" if max_size is not None else " the size limit"
        return f"{n} larger than{cap}{kinds}"
    if s.reason == SKIP_FILTERED:
        return f"{n} by --include/--exclude"
    if s.reason == SKIP_SPECIAL:
        return f"{n} that are not regular files (FIFOs, sockets, devices)"
    if s.reason == SKIP_DUPLICATE:
        return f"{n} reached twice through links"
    if s.reason == SKIP_DATASET:
        return f"{n} describing a dataset beside its data files{kinds}"
    if s.reason == SKIP_UNREADABLE_FOLDER:
        return f"{s.files:,} {'folder' if s.files == 1 else 'folders'} that could not be read"
    return f"{n} that could not be read{kinds}"


# ----------------------------------------------------------------------------- globs
def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """A compiled regex for one glob over ``/``-separated paths, matched with ``fullmatch``.

    ``*`` and ``?`` stay inside one path segment, ``[abc]`` / ``[!abc]`` are character classes,
    and ``**`` as a whole segment matches any number of segments, none included (``a/**/b``
    matches ``a/b`` and ``a/x/y/b``; a trailing ``/**`` matches everything below).
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/"):
                j = i + 2
                if j == n:
                    out.append(".*")
                    i = j
                    continue
                if pattern[j] == "/":
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
            while i < n and pattern[i] == "*":
                i += 1
            out.append("[^/]*")
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find(
                "]", i + 2 if pattern.startswith("[!", i) or pattern.startswith("[]", i) else i + 1
            )
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                negate = body.startswith("!")
                body = body[1:] if negate else body
                body = body.replace("\\", "\\\\").replace("^", "\\^")
                out.append(f"[{'^/' if negate else ''}{body}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.DOTALL)


@dataclass(frozen=True)
class PathGlob:
    """One include/exclude glob: matched on a relative path (``/`` inside it) or on a name."""

    regex: re.Pattern[str]
    anchored: bool  # has a "/" inside: matched on the whole relative path, else on a name
    folder_only: bool  # ended with "/": matches folders (and so everything under them)

    @classmethod
    def parse(cls, pattern: str) -> PathGlob:
        """Read one pattern (``*.py``, ``src/**/*.py``, ``build/``); an empty one is refused."""
        text = pattern.strip().replace(os.sep, "/")
        while text.startswith("./"):
            text = text[2:]
        folder_only = text.endswith("/")
        text = text.strip("/")
        if not text:
            raise InvalidArgument(f"the file pattern {pattern!r} matches nothing; give a glob such as '*.py'")
        return cls(glob_to_regex(text), "/" in text, folder_only)

    def matches(self, relative: str, is_folder: bool) -> bool:
        """Whether the file or folder at ``relative`` matches (folder-only globs match folders only)."""
        if self.folder_only and not is_folder:
            return False
        subject = relative if self.anchored else relative.rpartition("/")[2]
        return self.regex.fullmatch(subject) is not None

    def matches_file(self, relative: str) -> bool:
        """Whether a file at ``relative`` matches, itself or through a folder above it."""
        return self.matches(relative, False) or any(self.matches(f, True) for f in _folders_of(relative))


class PathFilter:
    """``include`` / ``exclude`` globs over relative paths (see :func:`select_files` for the rules)."""

    def __init__(self, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> None:
        for value, what in ((include, "include"), (exclude, "exclude")):
            if isinstance(value, str):
                raise InvalidArgument(f"{what} must be a list of glob patterns, not one string")
        self.include = [PathGlob.parse(p) for p in include]
        self.exclude = [PathGlob.parse(p) for p in exclude]

    def folder_excluded(self, relative: str) -> bool:
        """Whether a folder (and so everything under it) is excluded."""
        return any(g.matches(relative, True) for g in self.exclude)

    def selects(self, relative: str) -> bool:
        """Whether a file at ``relative`` is wanted: not excluded (itself or a folder above it),
        and included (itself or a folder above it) when there are include patterns."""
        folders = _folders_of(relative)
        if any(g.matches(relative, False) for g in self.exclude):
            return False
        if any(self.folder_excluded(f) for f in folders):
            return False
        if not self.include:
            return True
        return any(g.matches(relative, False) for g in self.include) or any(
            g.matches(f, True) for g in self.include for f in folders
        )


def _folders_of(relative: str) -> list[str]:
    parts = relative.split("/")[:-1]
    return ["/".join(parts[: k + 1]) for k in range(len(parts))]


# ----------------------------------------------------------------------------- selecting
def corpus_source(
    source: CorpusSource, errors: str = "strict", as_text: bool = False
) -> tuple[list[CorpusFile], str | None]:
    """What training reads for ``source``: the files :func:`select_files` chooses, or literal text.

    A ``str`` is the text itself. A path (``os.PathLike``) or a list of paths is selected as
    :func:`select_files` does (``as_text`` reads JSON Lines as plain text); a selection that
    leaves nothing is a :class:`CorpusError` that says what the folders held.
    """
    if isinstance(source, str):
        return [], source
    items = [source] if isinstance(source, os.PathLike) else list(source)
    if not items:
        raise CorpusError("the corpus is empty: no files were given")
    selection = select_files(items, errors=errors, as_text=as_text)
    if not selection.files:
        found = selection.note("replacing invalid UTF-8")
        holds = f"no text files ({found})" if found else "no files"
        raise CorpusError(f"the corpus is empty: the folder holds {holds}")
    return selection.corpus_files(), None


def select_files(
    paths: Iterable[str | os.PathLike[str]],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    *,
    max_size: int | None = None,
    errors: str = "strict",
    check_whole: bool = True,
    cancel: Callable[[], bool] | None = None,
    include_binary: bool = False,
    as_text: bool = False,
) -> Selection:
    """Choose the text files among ``paths`` (files, folders walked recursively, globs).

    A path that does not exist but holds ``*``, ``?`` or ``[`` is expanded as a glob (``**``
    recursive); each result is then a file or a folder like any other path. ``include`` and
    ``exclude`` are glob lists matched on each file's path relative to the folder it was found
    under (for a named file, the path as given): a pattern without ``/`` matches a name at any
    depth, one with ``/`` the whole relative path, one ending in ``/`` a folder; a file is kept
    when no exclude pattern matches it or a folder above it and, if there are include patterns,
    one matches it or a folder above it.

    Only text is kept: binary files, files over ``max_size`` bytes on disk, files and folders that
    cannot be read, FIFOs, devices and (unless ``errors="replace"``) text that is not UTF-8 are
    left out and counted in :attr:`Selection.skipped`. With ``check_whole`` each file found in a
    folder or by a glob is read to its end, so a bad byte deep inside (strict mode) or a run of
    :data:`NUL_RUN` NUL bytes is found now, not half-way through a run. The binary sniff is for
    files found in folders and globs: a file named in ``paths`` was asked for, and is kept when it
    decodes as UTF-8 (NUL bytes and all) or is text not in UTF-8 (reading it names the bad byte);
    one that is binary and not UTF-8 (unless ``errors="replace"``) or damaged is a
    :class:`CorpusError` naming it, as is a path that does not exist or a glob that matches
    nothing. ``include_binary`` keeps a folder's binary-looking files and NUL runs the same way.
    ``cancel`` is polled between files; when it returns True, :class:`Cancelled` is raised.

    Files of records are kept with their container (:func:`~tokviz.core.corpus.containers.container_of`):
    Parquet and Arrow files, binary as they are, and JSON Lines, known by name or content
    (``as_text`` reads JSON Lines as plain text, and the note says so, as it does for a ``.json``
    file that is not JSON Lines). In a folder saved by ``datasets`` (``state.json`` beside
    ``dataset_info.json``), the data files ``state.json`` lists are read and the files that
    describe the dataset, and cache files it does not list, are left out and counted.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if errors not in ("strict", "replace"):
        raise InvalidArgument(f"errors must be 'strict' or 'replace', not {errors!r}")
    if max_size is not None and (isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 0):
        raise InvalidArgument(f"max_size must be a non-negative number of bytes, not {max_size!r}")
    walker = _Walker(PathFilter(include, exclude), max_size, errors, check_whole, cancel)
    walker.include_binary = include_binary
    walker.as_text = as_text
    items = list(paths)
    if not items:
        raise CorpusError("no files were given")
    for item in items:
        walker.add(os.fspath(item))
    return walker.result()


class _Walker:
    """The state of one selection: files kept, counts by reason, and what was already visited."""

    def __init__(
        self,
        filters: PathFilter,
        max_size: int | None,
        errors: str,
        check_whole: bool,
        cancel: Callable[[], bool] | None,
    ) -> None:
        self.filters = filters
        self.max_size = max_size
        self.errors = errors
        self.check_whole = check_whole
        self.cancel = cancel
        self.include_binary = False
        self.as_text = False
        self.json_as_text: list[str] = []
        self.files: list[SelectedFile] = []
        self.counts: Counter[str] = Counter()
        self.sizes: Counter[str] = Counter()
        self.kinds: dict[str, Counter[str]] = {}
        self.seen_files: set[tuple[int, int]] = set()
        self.seen_folders: set[tuple[int, int]] = set()

    def result(self) -> Selection:
        skipped = tuple(
            Skipped(
                r,
                self.counts[r],
                self.sizes[r],
                tuple(k for k, _ in self.kinds.get(r, Counter()).most_common()),
            )
            for r in SKIP_REASONS
            if self.counts[r]
        )
        return Selection(tuple(self.files), skipped, self.max_size, tuple(self.json_as_text), self.as_text)

    def add(self, given: str) -> None:
        """One argument: a folder, a file, or a glob that expands to them."""
        try:
            st = os.stat(given)
        except FileNotFoundError:
            if _MAGIC.search(given):
                self._add_glob(given)
                return
            raise CorpusError(_missing(given), path=given) from None
        except OSError as exc:
            raise CorpusError(f"cannot examine {given}: {exc.strerror or exc}", path=given) from None
        if stat.S_ISDIR(st.st_mode):
            self._walk(Path(given), given, st)
            return
        problem = kind_problem(st.st_mode)
        if problem is not None:
            raise CorpusError(
                f"the corpus {given} {problem}; a corpus must be regular files or folders", path=given
            )
        self._consider(Path(given), _clean(given), None, st, named=True)

    def _add_glob(self, pattern: str) -> None:
        found = sorted(glob.glob(pattern, recursive=True))
        if not found:
            raise CorpusError(f"no file or folder matches {pattern}", path=pattern)
        for path in found:
            try:
                st = os.stat(path)
            except OSError:
                self._skip(SKIP_UNREADABLE, Path(path), 0)
                continue
            if stat.S_ISDIR(st.st_mode):
                self._walk(Path(path), path, st)
            else:
                self._consider(Path(path), _clean(path), None, st)

    def _walk(self, root: Path, given: str, st: os.stat_result) -> None:
        self.seen_folders.add((st.st_dev, st.st_ino))
        for entry, relative in self._entries(root, ""):
            try:
                entry_st = entry.stat()
            except OSError:
                self._skip(SKIP_UNREADABLE, Path(entry.path), 0)
                continue
            self._consider(Path(entry.path), relative, given, entry_st)

    def _entries(self, folder: Path, prefix: str) -> Iterator[tuple[os.DirEntry[str], str]]:
        """The non-folder entries under ``folder`` in sorted order, with their relative paths.

        A folder that cannot be listed (no permission) is counted, like a file that cannot be read.
        """
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            self.counts[SKIP_UNREADABLE_FOLDER] += 1
            return
        data_files = dataset_data_files(folder)
        for entry in entries:
            if entry.name.startswith("."):
                continue
            relative = f"{prefix}{entry.name}"
            if not _is_folder(entry):
                if data_files is not None and _describes_dataset(entry.name, data_files):
                    self._skip(SKIP_DATASET, Path(entry.path), _size_of(entry))
                    continue
                yield entry, relative
            elif self._first_visit(entry, relative):
                yield from self._entries(Path(entry.path), relative + "/")

    def _first_visit(self, entry: os.DirEntry[str], relative: str) -> bool:
        """Whether to walk the folder ``entry``: not a link loop, not walked already, not excluded."""
        try:
            st = entry.stat()
        except OSError:
            self.counts[SKIP_UNREADABLE_FOLDER] += 1
            return False
        key = (st.st_dev, st.st_ino)
        if key in self.seen_folders or self.filters.folder_excluded(relative):
            return False
        self.seen_folders.add(key)
        return True

    def _consider(
        self, path: Path, relative: str, root: str | None, st: os.stat_result, named: bool = False
    ) -> None:
        if self.cancel is not None and self.cancel():
            raise Cancelled("file selection cancelled")
        reason = self._left_out_by_name(path, relative, st)
        if reason is not None:
            self._skip(reason, path, 0 if reason == SKIP_SPECIAL else st.st_size)
            return
        try:
            sniffed = sniff(path)
            kind, compression = sniffed.kind, sniffed.compression
            container = container_of(path, sniffed, self.as_text)
        except OSError as exc:
            if named:
                raise CorpusError(f"cannot read {path}: {exc.strerror or exc}", path=str(path)) from None
            kind, compression, container = UNREADABLE, None, TEXT_FILE
        file = SelectedFile(path, relative, root, st.st_size, compression, container)
        if container in (PARQUET, ARROW):
            self.files.append(file)  # binary by nature; pyarrow reads it, and names what is wrong
            return
        if named:
            kind = _named_kind(file, kind, self.errors)
        elif kind == BINARY and self.include_binary:
            kind = NOT_UTF8 if self.errors == "replace" else _read_to_end(file, "strict", nul_runs=False)
        elif kind == TEXT and self.check_whole:
            kind = _whole_file_kind(file, self.errors, nul_runs=not self.include_binary)
        if kind == TEXT or (kind == NOT_UTF8 and (self.errors == "replace" or named)):
            self.files.append(file)
            if container == TEXT_FILE and json_named(path):
                self.json_as_text.append(relative)
            return
        self._skip(
            {BINARY: SKIP_BINARY, NOT_UTF8: SKIP_NOT_UTF8}.get(kind, SKIP_UNREADABLE), path, st.st_size
        )

    def _left_out_by_name(self, path: Path, relative: str, st: os.stat_result) -> str | None:
        """Why a file is left out before it is opened (what it is, the patterns, a link to a file
        already taken, its size), or None."""
        if not stat.S_ISREG(st.st_mode):
            return SKIP_SPECIAL
        if not self.filters.selects(relative):
            return SKIP_FILTERED
        key = (st.st_dev, st.st_ino)
        if key in self.seen_files:
            return SKIP_DUPLICATE
        self.seen_files.add(key)
        if self.max_size is not None and st.st_size > self.max_size:
            return SKIP_TOO_LARGE
        return None

    def _skip(self, reason: str, path: Path, size: int) -> None:
        self.counts[reason] += 1
        self.sizes[reason] += size
        if reason in (SKIP_BINARY, SKIP_NOT_UTF8, SKIP_TOO_LARGE, SKIP_UNREADABLE):
            self.kinds.setdefault(reason, Counter())[suffix_kind(path)] += 1
        elif reason == SKIP_DATASET:
            self.kinds.setdefault(reason, Counter())[path.name] += 1


def _describes_dataset(name: str, data_files: Sequence[str]) -> bool:
    """Whether a file of a ``datasets`` folder is not one of its data files: ``state.json``,
    ``dataset_info.json``, or an Arrow cache file its ``state.json`` does not list."""
    return name in DATASET_DESCRIPTIONS or (name.endswith(".arrow") and name not in data_files)


def _size_of(entry: os.DirEntry[str]) -> int:
    try:
        return entry.stat().st_size
    except OSError:
        return 0


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows links
    except OSError:
        return False


def _missing(given: str) -> str:
    """Why a path that does not exist cannot be a corpus (a broken link, standard input, absent)."""
    if os.path.lexists(given):
        return f"{given} is a broken symbolic link"
    if given == "-":
        return "'-' (standard input) cannot be a corpus: save the text to a file and give its path"
    return f"{given}: file or folder not found"


def _named_kind(file: SelectedFile, kind: str, errors: str) -> str:
    """What a file the user named is taken for. It was asked for, so the binary sniff does not
    leave it out: one that decodes as UTF-8 to its end (a log with NUL bytes) is text, and with
    ``errors="replace"`` any file is read. Binary and not UTF-8, or damaged, is an error naming
    it; text that is not UTF-8 is kept (reading it names the bad byte)."""
    if kind == BINARY:
        kind = NOT_UTF8 if errors == "replace" else _read_to_end(file, "strict", nul_runs=False)
        if kind == NOT_UTF8 and errors != "replace":
            kind = BINARY
    _refuse_if_not_text(file, kind)
    return kind


def _refuse_if_not_text(file: SelectedFile, kind: str) -> None:
    """A file the user named was asked for: binary or damaged is an error."""
    path = file.path
    if kind == BINARY:
        packed = f"{file.compression}-compressed " if file.compression else ""
        raise CorpusError(
            f"{path} is a {packed}binary file, not text; a corpus file must hold UTF-8 text", path=str(path)
        )
    if kind == UNREADABLE:
        raise CorpusError(f"cannot decompress {path}: the file is damaged or cut short", path=str(path))


def _whole_file_kind(file: SelectedFile, errors: str, nul_runs: bool = True) -> str:
    """What a folder's file is once read to its end (see :func:`_read_to_end`); files no longer
    than the sniff are already known."""
    if file.compression is None and file.size <= SNIFF_SIZE:
        return TEXT
    return _read_to_end(file, errors, nul_runs)


def _read_to_end(file: SelectedFile, errors: str, nul_runs: bool = True) -> str:
    """What a file is once read to its end: ``text``; ``not-utf8`` when strict decoding fails;
    ``binary`` at a run of :data:`NUL_RUN` NUL bytes (a text padded with zeros to a huge size)
    when ``nul_runs`` looks for them; ``unreadable`` for a damaged compressed file."""
    tail = ""
    try:
        for piece in iter_file_text(file.corpus_file, errors):
            if nul_runs and (_NULS in tail + piece[: NUL_RUN - 1] or _NULS in piece):
                return BINARY
            tail = piece[-(NUL_RUN - 1) :]
    except CorpusError as exc:
        return NOT_UTF8 if exc.offset is not None else UNREADABLE
    return TEXT


def suffix_kind(path: Path) -> str:
    """How a left-out file is named in a note: its suffix (".pyc", ".tar.gz") or "no extension"."""
    suffixes = path.suffixes
    if not suffixes or len(path.suffix) > 8 or not path.suffix[1:].isalnum():
        return "no extension"
    if (
        path.suffix in (".gz", ".bz2", ".xz", ".zst", ".zstd")
        and len(suffixes) > 1
        and len(suffixes[-2]) <= 5
    ):
        return "".join(suffixes[-2:])
    return path.suffix


def _clean(given: str) -> str:
    """A named path as a relative path for the patterns: ``/`` separators, no leading ``./``."""
    text = given.replace(os.sep, "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def parse_size(text: str) -> int:
    """A size such as ``500000``, ``64K``, ``10MB`` or ``1.5 GiB`` in bytes (K, M, G are powers of 1024).

    Raises :class:`InvalidArgument` with an example for anything else, so ``--max-file-size`` can
    use it directly.
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*", text, re.IGNORECASE)
    if not m:
        raise InvalidArgument(f"{text!r} is not a size; write e.g. 500000, 64K, 10MB or 1.5G")
    number = float(m.group(1))
    power = "kmgt".find(m.group(2).lower()) + 1 if m.group(2) else 0
    return int(number * 1024**power)
