"""A run's outputs: checked before any work starts, then written all together or not at all.

:func:`check_outputs` refuses, before training or exporting begins, every output that would
destroy data or could not be written: an output that is a corpus input or another output of the
same run, a device, FIFO or folder where a file is meant (or a file where a folder is meant), a
read-only file, a missing or read-only folder. A symlink is written through to its target, and
the symlink stays. Every message names the path as the user gave it.

:class:`OutputWriter` writes each output to a temporary file beside its target (so the rename
stays on one file system), fsyncs it, and renames the files into place only when all of them are
written. Until then a failure or Ctrl+C removes the temporary files and leaves the old outputs
untouched. The renames are recorded first in a small journal beside each output: a process
killed in the middle of them leaves the journal, and the next check of the same outputs finishes
the renames, so the outputs end all new. Until then every reader of one of the outputs refuses it
in one line naming the set (:func:`unfinished_set`), and ``tokviz finish`` (:func:`finish_set`)
finishes the renames without running the command again. Ctrl+C and SIGTERM arriving during the renames are held
until the last one is done. Two runs writing into the same folders take turns (see
:mod:`tokviz.core.io.output_lock`): each holds the folders' lock from staging to its last rename, so
the outputs end as one run's whole set, and a check removes only temporary files and journals
whose run is gone. A folder of several files (GPT-2's ``vocab.json`` +
``merges.txt``) also gets a manifest of their checksums, written before them, so a loader can
refuse a pair that is half old and half new (:func:`mismatched_files`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import signal
import stat
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from ..errors import TokvizError
from .atomic import fsync_dir, write_and_close
from .filekind import ReadProblem, read_regular_file
from .output_lock import TEMP_NAME, locked_folders, temp_is_stale, temp_name

PathLike = str | os.PathLike[str]

MANIFEST_NAME = ".tokviz-files.json"
MANIFEST_FORMAT = "tokviz-files"
JOURNAL_SUFFIX = ".tokviz-commit"
# A journal longer than this is no journal tokviz wrote (one line per output of a run).
_JOURNAL_CAP = 16 * 2**20
# Tests set these to N to end the process (like a kill), to press Ctrl+C, or to pause (saying so
# on standard error and waiting for a line on standard input) right after the N-th write or
# rename step.
FAULT_ENV = "TOKVIZ_TEST_EXIT_AFTER_STEP"
SIGINT_ENV = "TOKVIZ_TEST_SIGINT_AFTER_STEP"
PAUSE_ENV = "TOKVIZ_TEST_PAUSE_AFTER_STEP"
_HELD_SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s is not None)
_LOCK_TRIES = 20
_O_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation on a raw descriptor
_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class OutputError(TokvizError):
    """An output cannot be written, or writing it would destroy a file the run needs."""


class InterruptedAfterCommit(KeyboardInterrupt):
    """Ctrl+C arrived while the outputs were being renamed: it was held, and all of them are new."""


@dataclass(frozen=True)
class Output:
    """One output a run asks for: a file, or a folder holding the named ``files``.

    ``what`` is how messages name it: the option (``-o``, ``--export-hf``) or a phrase.
    """

    path: Path
    what: str
    files: tuple[str, ...] = ()

    @classmethod
    def file(cls, path: PathLike, what: str) -> Output:
        """A single output file."""
        return cls(Path(path), what)

    @classmethod
    def folder(cls, path: PathLike, what: str, files: Sequence[str]) -> Output:
        """A folder whose ``files`` are written together (other files in it are left alone)."""
        return cls(Path(path), what, tuple(files))

    @property
    def is_folder(self) -> bool:
        """Whether this output is a folder of files rather than one file."""
        return bool(self.files)


@dataclass(frozen=True)
class CheckedOutput:
    """An output that passed :func:`check_outputs`, with the real path it will be written to."""

    output: Output
    target: Path
    exists: bool


# ============================================================================ checking
def check_outputs(outputs: Sequence[Output], inputs: Sequence[PathLike] = ()) -> list[CheckedOutput]:
    """Check every output of a run before any work starts; :class:`OutputError` names the first bad one.

    ``inputs`` are the files and folders the run reads (the corpus): no output may be one of them.
    A commit of the same outputs that was killed half way is finished first (see the module doc),
    and temporary files a run killed before its commit left beside these outputs are removed.
    """
    _refuse_inside_new_folders(outputs)
    checked = [_check_one(o) for o in outputs]
    with _locked(checked):
        _recover(checked)
    files: list[tuple[Path, Output, str]] = []  # (real path, owner, how to name it)
    for c in checked:
        if c.output.is_folder:
            for name in c.output.files:
                files.append((_real(c.target / name), c.output, str(c.output.path / name)))
        else:
            files.append((c.target, c.output, str(c.output.path)))
    _refuse_overlaps(checked, files)
    _refuse_inputs(files, inputs)
    return checked


def _rename_targets(checked: Sequence[CheckedOutput]) -> list[Path]:
    """Every path a commit of ``checked`` may rename onto (a folder's manifest and files included)."""
    targets: list[Path] = []
    for c in checked:
        targets.append(c.target)
        if c.output.is_folder and c.target.is_dir():
            targets += [c.target / MANIFEST_NAME, *(_real(c.target / name) for name in c.output.files)]
    return targets


def _recover(checked: Sequence[CheckedOutput]) -> None:
    """Finish commits that were killed half way and remove temporary files whose run is gone.

    Runs under the outputs' lock: no live run is committing into these folders meanwhile.
    """
    for target in _rename_targets(checked):
        finish_interrupted(target)
        _remove_stale_temps(target)
        _remove_stale_temps(_journal_path(target))  # a journal cut short


@contextlib.contextmanager
def _locked(checked: Sequence[CheckedOutput]) -> Iterator[None]:
    """Hold the lock of every folder the outputs, and any journal beside them, rename into.

    A journal names folders of its own; it is read before locking to know them, and again once
    locked: if it changed meanwhile, the locks are taken again with its new folders.
    """
    targets = _rename_targets(checked)
    folders = {t.parent for t in targets} | {t for t in targets if t.is_dir()}
    for _ in range(_LOCK_TRIES):
        wanted = {_real(f) for f in folders | _journal_folders(targets)}
        with locked_folders(wanted):
            if {_real(f) for f in _journal_folders(targets)} <= wanted:
                yield
                return
    raise OutputError(f"{targets[0]}: other runs keep changing these outputs; try again")


def _journal_folders(targets: Sequence[Path]) -> set[Path]:
    """The folders that journals beside ``targets`` rename into."""
    folders: set[Path] = set()
    for target in targets:
        for _temp, dest in _journal_renames(_journal_path(target)):
            folders.add(dest.parent)
    return folders


def _check_one(output: Output) -> CheckedOutput:
    """The checks that need only this output: kind, permissions and an existing, writable folder."""
    given = str(output.path)
    if not given:
        raise OutputError(f"{output.what}: the output path is empty")
    target = _real(output.path)
    st = _stat(target, given)
    if output.is_folder:
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{given} is {_kind(st.st_mode)}, not a folder; {output.what} writes a folder")
        if st is None:
            _check_folder(target.parent, given)
        else:
            _check_folder(target, given)
            for name in output.files:
                _check_file(_real(target / name), str(output.path / name), output.what)
        return CheckedOutput(output, target, st is not None)
    _check_file(target, given, output.what)
    return CheckedOutput(output, target, st is not None)


def _check_file(target: Path, given: str, what: str) -> None:
    """A file output: a regular, writable file or a new name in an existing, writable folder."""
    st = _stat(target, given)
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(f"{given} is a folder; {what} writes a file, give a file name")
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"{given} is {_kind(st.st_mode)}, not a regular file; {what} writes only files")
        # Like a shell redirect; a file with no write bit at all is refused even for root.
        if not os.access(target, os.W_OK) or not st.st_mode & 0o222:
            raise OutputError(f"{given}: Permission denied (the file is read-only)")
    _check_folder(target.parent, given)


def _check_folder(folder: Path, given: str) -> None:
    """The folder an output goes into exists, is a folder, and new files can be made in it."""
    st = _stat(folder, given)
    if st is None:
        raise OutputError(f"{given}: the folder {folder} does not exist")
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{given}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputError(f"{given}: Permission denied (cannot create files in {folder})")


def _refuse_overlaps(checked: Sequence[CheckedOutput], files: Sequence[tuple[Path, Output, str]]) -> None:
    """No two outputs may be one file, and no file output may be a folder output's folder."""
    for i, (a, owner_a, name_a) in enumerate(files):
        for b, owner_b, name_b in files[i + 1 :]:
            if _same(a, b):
                raise OutputError(
                    f"{name_a} and {name_b} are the same file: {owner_a.what} and {owner_b.what} "
                    "would overwrite each other"
                )
    for c in checked:
        for path, owner, name in files:
            if c.output.is_folder and owner is not c.output and _same(path, c.target):
                raise OutputError(f"{name} is the folder {c.output.what} writes into")


def _refuse_inside_new_folders(outputs: Sequence[Output]) -> None:
    """An output inside a folder that another output creates would stop that folder being made."""
    for folder in outputs:
        real = _real(folder.path)
        if not folder.is_folder or os.path.lexists(real):
            continue
        for other in outputs:
            if other is not folder and _inside(_real(other.path), real):
                raise OutputError(
                    f"{other.path} is inside {folder.path}, which {folder.what} creates; "
                    "create the folder first or save it elsewhere"
                )


def _refuse_inputs(files: Sequence[tuple[Path, Output, str]], inputs: Sequence[PathLike]) -> None:
    """No output may be a corpus file (given, or read from a corpus folder), nor a corpus folder."""
    for item in inputs:
        source = _real(Path(item))
        for path, owner, name in files:
            if _same(path, source):
                raise OutputError(
                    f"{name} is the corpus {item}: writing {owner.what} there would destroy the corpus"
                )
            if _inside(path, source) and path.is_file() and not _hidden(path.relative_to(source)):
                raise OutputError(
                    f"{name} is a file of the corpus folder {item}: writing {owner.what} there "
                    "would destroy the corpus"
                )


def _hidden(relative: Path) -> bool:
    """Whether a path inside a corpus folder is hidden (training skips those, like tokviz's own files)."""
    return any(part.startswith(".") for part in relative.parts)


def _real(path: Path) -> Path:
    """The path with every symlink resolved (a dangling one gives the file it would create)."""
    return Path(os.path.realpath(path))


def _stat(path: Path, given: str) -> os.stat_result | None:
    """``os.stat`` (never ``open``, so a FIFO cannot block), ``None`` when nothing is there."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise OutputError(f"{given}: {exc.strerror or exc}") from None


def _kind(mode: int) -> str:
    """What a non-regular file is, for messages ("a FIFO (named pipe)")."""
    if stat.S_ISDIR(mode):
        return "a folder"
    for test, words in _KINDS:
        if test(mode):
            return words
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _same(a: Path, b: Path) -> bool:
    """The same file: equal real paths, or one file under two names (a hard link)."""
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies inside ``folder`` (both real paths)."""
    return folder in path.parents


# ============================================================================ writing
@dataclass
class _Staged:
    """One temporary file or folder, written and fsynced, waiting to be renamed onto ``target``."""

    temp: Path
    target: Path
    given: str


@dataclass
class OutputWriter:
    """Writes checked outputs to temporary files, then renames them all into place at once.

    Use it as a context manager: leaving it by an exception (or Ctrl+C) before :meth:`commit`
    removes every temporary file, so the old outputs stay as they were. From the first
    :meth:`stage` to the end of :meth:`commit` (or :meth:`discard`) it holds the outputs' lock.
    """

    checked: Sequence[CheckedOutput]
    _staged: list[_Staged] = field(default_factory=list)
    _temps: list[Path] = field(default_factory=list)
    _lock: contextlib.ExitStack | None = None

    def __enter__(self) -> OutputWriter:
        """The writer itself; leaving the block by an exception discards what was staged."""
        return self

    def __exit__(self, kind: object, exc: object, tb: object) -> None:
        """Remove every temporary file when the block failed (or Ctrl+C) before its commit."""
        if exc is not None:
            self.discard()

    def stage(self, output: Output, data: bytes | Mapping[str, bytes]) -> None:
        """Write ``output``'s contents to temporary files: bytes for a file, ``{name: bytes}`` for a folder.

        A failure discards everything staged so far (and lets other runs write these outputs again).
        """
        c = self._checked(output)
        self._hold_lock()
        try:
            self._stage(c, output, data)
        except BaseException:
            self.discard()
            raise

    def _stage(self, c: CheckedOutput, output: Output, data: bytes | Mapping[str, bytes]) -> None:
        """Stage one checked output (see :meth:`stage`)."""
        if not output.is_folder:
            if not isinstance(data, bytes):
                raise OutputError(f"{output.what} is a file: stage its bytes")
            self._stage_file(c.target, str(output.path), data)
            return
        if isinstance(data, bytes) or set(data) != set(output.files):
            raise OutputError(f"{output.what} is a folder: stage {{name: bytes}} for each of {output.files}")
        manifest = _manifest(data)
        if not os.path.isdir(c.target):  # looked at again under the lock: another run may have made it
            # A new folder is built whole under a temporary name and appears in one rename.
            temp = _fresh_name(c.target)
            with _naming(str(output.path)):
                os.mkdir(temp)
            self._temps.append(temp)
            for name in (MANIFEST_NAME, *output.files):
                with _naming(str(output.path / name)):
                    _write_new(temp / name, manifest if name == MANIFEST_NAME else data[name], None)
                _step()
            fsync_dir(temp)
            self._staged.append(_Staged(temp, c.target, str(output.path)))
            return
        # An existing folder keeps its other files: the manifest goes first, then each file.
        self._stage_file(c.target / MANIFEST_NAME, str(output.path / MANIFEST_NAME), manifest)
        for name in output.files:
            self._stage_file(_real(c.target / name), str(output.path / name), data[name])

    def commit(self) -> None:
        """Rename every staged file into place (journalled, with Ctrl+C and SIGTERM held until the end)."""
        try:
            with _hold_signals():
                self._rename_all()
        finally:
            self._release_lock()
        self._staged.clear()
        self._temps.clear()

    def _rename_all(self) -> None:
        """Write the journal, rename each staged file onto its target, then remove the journal."""
        journals = self._write_journal() if len(self._staged) > 1 else []
        done: list[str] = []
        for s in self._staged:
            try:
                _rename(s.temp, s.target)
            except OSError as exc:
                self._staged = self._staged[len(done) :]
                self.discard()
                _remove_journals(journals)
                written = f" ({', '.join(done)} already written)" if done else ""
                raise OutputError(f"cannot write {s.given}: {exc.strerror or exc}{written}") from None
            done.append(s.given)
            _step()
        for folder in {s.target.parent for s in self._staged}:
            fsync_dir(folder)
        if journals:
            _remove_journals(journals)
            _step()

    def discard(self) -> None:
        """Remove every temporary file and folder; the targets are untouched."""
        for temp in self._temps:
            _remove(temp)
        self._temps.clear()
        self._staged.clear()
        self._release_lock()

    def _hold_lock(self) -> None:
        """Take the outputs' lock (once), then tidy what killed runs left, before anything is staged."""
        if self._lock is not None:
            return
        stack = contextlib.ExitStack()
        stack.enter_context(_locked(self.checked))
        self._lock = stack
        _recover(self.checked)

    def _release_lock(self) -> None:
        """Let other runs write these outputs again."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _checked(self, output: Output) -> CheckedOutput:
        """The check result of ``output``: only checked outputs may be written."""
        for c in self.checked:
            if c.output == output:
                return c
        raise OutputError(f"{output.what} was not checked: pass it to check_outputs first")

    def _stage_file(self, target: Path, given: str, data: bytes) -> None:
        """Write one temporary file beside ``target`` (keeping an existing file's mode)."""
        temp = _fresh_name(target)
        mode = None
        with contextlib.suppress(OSError):
            mode = stat.S_IMODE(os.stat(target).st_mode)
        self._temps.append(temp)
        with _naming(given):
            _write_new(temp, data, mode)
        self._staged.append(_Staged(temp, target, given))
        _step()

    def _write_journal(self) -> list[Path]:
        """Record the renames beside every target, so a killed commit can be finished, and a
        reader of any one output can tell that its set is not whole (:func:`unfinished_set`)."""
        record = json.dumps({"renames": [[str(s.temp), str(s.target)] for s in self._staged]}).encode()
        journals: list[Path] = []
        for s in self._staged:
            journal = _journal_path(s.target)
            if journal in journals:
                continue
            temp = _fresh_name(journal)
            self._temps.append(temp)
            with _naming(s.given):
                _write_new(temp, record, None)
                os.replace(temp, journal)
            self._temps.remove(temp)
            journals.append(journal)
        for folder in {j.parent for j in journals}:
            fsync_dir(folder)
        _step()
        return journals


def write_outputs(
    contents: Sequence[tuple[Output, bytes | Mapping[str, bytes]]], inputs: Sequence[PathLike] = ()
) -> None:
    """Check, write and commit outputs whose contents are ready (all of them or none)."""
    checked = check_outputs([o for o, _ in contents], inputs)
    with OutputWriter(checked) as writer:
        for output, data in contents:
            writer.stage(output, data)
        writer.commit()


def finish_interrupted(target: Path) -> list[Path]:
    """Finish a commit that was killed after its journal was written; returns the paths it renamed.

    Only renames that the journal lists, of tokviz's own temporary names beside their targets,
    are done; a journal that does not hold to this is removed and nothing else happens.
    """
    journal = _journal_path(target)
    if not os.path.lexists(journal):
        return []
    finished: list[Path] = []
    renames = _journal_renames(journal)
    for temp, dest in renames:
        try:
            _rename(temp, dest)
        except OSError:
            continue
        finished.append(dest)
    for folder in {p.parent for p in finished}:
        fsync_dir(folder)
    _remove_journals([_journal_path(dest) for _temp, dest in renames] + [journal])
    return finished


def _remove_journals(journals: Sequence[Path]) -> None:
    """Remove every copy of a commit's journal (the set is whole, or was never touched)."""
    for journal in dict.fromkeys(journals):
        _remove(journal)
    for folder in {j.parent for j in journals}:
        with contextlib.suppress(OSError):
            fsync_dir(folder)


@dataclass(frozen=True)
class UnfinishedSet:
    """Outputs written together whose renames a stopped run left half done: ``pending`` are the
    targets whose new file still waits under its temporary name, ``members`` all of them."""

    journal: Path
    members: tuple[Path, ...]
    pending: tuple[Path, ...]

    def names(self) -> str:
        """The members for a message: below the folder they share, a folder output once (``hf/``),
        then that folder ("m.json, m.tiktoken, hf/ in /work/run")."""
        root = Path(os.path.commonpath([str(m.parent) for m in self.members]))
        shown: dict[str, None] = {}
        for member in self.members:
            parts = member.relative_to(root).parts
            shown[parts[0] + "/" if len(parts) > 1 else parts[0]] = None
        return f"{', '.join(shown)} in {root}"


def unfinished_set(path: PathLike) -> UnfinishedSet | None:
    """The set of outputs ``path`` belongs to when a stopped run left its renames half done, else None.

    Every reader of a file tokviz writes as part of a set asks this first: the journal a commit
    writes beside each of its targets stays until the last rename is done, so a journal whose
    renames still wait means some outputs are new and others old. Looked for beside ``path``,
    beside its folder (a folder output renamed whole) and, for a folder, beside its files. A few
    ``stat`` calls; nothing is written.
    """
    target = _real(Path(path))
    candidates = [_journal_path(target), _journal_path(target.parent)]
    if target.is_dir():
        with contextlib.suppress(OSError):
            candidates += [target / n for n in os.listdir(target) if n.endswith(JOURNAL_SUFFIX)]
    for journal in candidates:
        if not os.path.lexists(journal):
            continue
        renames = _journal_renames(journal)
        pending = tuple(dest for temp, dest in renames if os.path.lexists(temp))
        if pending:
            return UnfinishedSet(journal, tuple(dest for _temp, dest in renames), pending)
    return None


def unfinished_problem(path: PathLike) -> str | None:
    """What a reader says of ``path`` when its set is unfinished (one line naming the set and how
    it is finished), or None when the set is whole."""
    found = unfinished_set(path)
    if found is None:
        return None
    return (
        f"{path} is one of the outputs {found.names()}, which a run that was stopped (or is still "
        f"writing them) left half replaced; finish them with 'tokviz finish {path}', or run the "
        "command that wrote them again"
    )


def finish_set(path: PathLike) -> UnfinishedSet | None:
    """Finish the renames of ``path``'s unfinished set (under its folders' lock, as a writer
    would); returns what it was, or None when there was nothing to finish."""
    found = unfinished_set(path)
    if found is None:
        return None
    target = found.journal.parent / found.journal.name.removeprefix(".").removesuffix(JOURNAL_SUFFIX)
    with locked_folders({m.parent for m in found.members} | {found.journal.parent}):
        finish_interrupted(target)
    still = unfinished_set(path)
    if still is not None:
        raise OutputError(
            f"cannot finish the outputs {still.names()}: {', '.join(map(str, still.pending))} "
            "could not be renamed into place (is the folder writable?)"
        )
    return found


def _journal_path(target: Path) -> Path:
    """Where a commit whose first output is ``target`` keeps its journal."""
    return target.parent / f".{target.name}{JOURNAL_SUFFIX}"


def _journal_renames(journal: Path) -> list[tuple[Path, Path]]:
    """The (temporary file, target) renames a journal lists that hold to the rules; none if unreadable.

    Only tokviz's own temporary names beside their targets are taken.
    """
    try:
        renames = json.loads(read_regular_file(journal, _JOURNAL_CAP))["renames"]
    except (ReadProblem, ValueError, KeyError, TypeError):
        return []
    found: list[tuple[Path, Path]] = []
    for pair in renames if isinstance(renames, list) else ():
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
            continue
        temp, dest = Path(pair[0]), Path(pair[1])
        match = TEMP_NAME.fullmatch(temp.name)
        if temp.parent == dest.parent and match is not None and match["name"] == dest.name:
            found.append((temp, dest))
    return found


def _remove_stale_temps(target: Path) -> None:
    """Remove tokviz's temporary files for ``target`` whose run is no longer running (a kill left them)."""
    try:
        names = os.listdir(target.parent)
    except OSError:
        return
    for name in names:
        if temp_is_stale(name, target.name):
            _remove(target.parent / name)


# ============================================================================ the folder manifest
def _manifest(files: Mapping[str, bytes]) -> bytes:
    """The checksums of a folder's files, so a reader can tell a half-replaced set from a whole one."""
    sums = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
    return (json.dumps({"format": MANIFEST_FORMAT, "version": 1, "sha256": sums}, indent=1) + "\n").encode()


def mismatched_files(paths: Sequence[PathLike]) -> str | None:
    """Why files written together into one folder do not belong together, or ``None``.

    Uses the folder's manifest: if some of the files match their checksum and others do not, a
    write was interrupted between them. No manifest, other folders, or no file matching (all were
    replaced by something else since) give ``None``: there is nothing to compare with.
    """
    folders = {Path(p).parent for p in paths}
    if len(folders) != 1:
        return None
    folder = folders.pop()
    try:
        sums = json.loads((folder / MANIFEST_NAME).read_bytes())["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(sums, dict):
        return None
    matched: list[str] = []
    other: list[str] = []
    for p in paths:
        name = Path(p).name
        try:
            digest = hashlib.sha256(Path(p).read_bytes()).hexdigest()
        except OSError:
            return None
        (matched if sums.get(name) == digest else other).append(name)
    if matched and other:
        return (
            f"{folder}: {', '.join(other)} and {', '.join(matched)} are not from the same export "
            "(a write was interrupted between them); export them again"
        )
    return None


# ============================================================================ small helpers
def _fresh_name(target: Path) -> Path:
    """A temporary name beside ``target`` that nothing uses yet (naming this process, see output_lock)."""
    for _ in range(100):
        temp = temp_name(target)
        if not os.path.lexists(temp):
            return temp
    raise OutputError(f"cannot find a free temporary name beside {target}")


def _write_new(path: Path, data: bytes, mode: int | None) -> None:
    """Create ``path`` (which must not exist), write ``data`` in full and fsync it."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, 0o666 if mode is None else mode)
    write_and_close(fd, data)
    if mode is not None and os.name == "posix":
        os.chmod(path, mode)  # os.open applied the umask; an existing file keeps its exact mode


def _rename(temp: Path, target: Path) -> None:
    """Move a temporary file over its target, or a new temporary folder to its (free) name."""
    if temp.is_dir():
        os.rename(temp, target)
    else:
        os.replace(temp, target)


@contextlib.contextmanager
def _naming(given: str) -> Iterator[None]:
    """An OS error inside (a full disk, a lost permission) becomes one naming the user's path."""
    try:
        yield
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if exc.errno == errno.ENOSPC:
            reason = "No space left on device"
        raise OutputError(f"cannot write {given}: {reason}") from None


def _remove(path: Path) -> None:
    """Remove a temporary file or folder of ours, quietly."""
    with contextlib.suppress(OSError):
        if path.is_dir() and not path.is_symlink():
            for child in path.iterdir():
                child.unlink()
            path.rmdir()
        else:
            path.unlink()


_steps = 0


def _step() -> None:
    """Count one write or rename step; a test can end the process here as a kill would, or press Ctrl+C."""
    global _steps
    kill, interrupt, pause = (os.environ.get(v) for v in (FAULT_ENV, SIGINT_ENV, PAUSE_ENV))
    if not (kill or interrupt or pause):
        return
    _steps += 1
    if kill and _steps == int(kill):
        os._exit(137)
    if interrupt and _steps == int(interrupt):
        signal.raise_signal(signal.SIGINT)
    if pause and _steps == int(pause):
        print(f"paused after step {_steps}", file=sys.stderr, flush=True)
        sys.stdin.readline()


@contextlib.contextmanager
def _hold_signals() -> Iterator[None]:
    """Hold Ctrl+C and SIGTERM while the renames run, then deliver them: the outputs end all new.

    A held SIGTERM is raised again once the renames are done, so its own handler (or the default
    end of the process) follows; a held Ctrl+C becomes :class:`InterruptedAfterCommit`.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def remember(signum: int, _frame: FrameType | None) -> None:
        pending.append(signum)

    previous = {signum: signal.signal(signum, remember) for signum in _HELD_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
    for signum in dict.fromkeys(pending):
        if signum != signal.SIGINT:
            signal.raise_signal(signum)
    if signal.SIGINT in pending:
        raise InterruptedAfterCommit
