"""What the training panel says about a corpus, without Qt: sources, sizes, previews and special tokens."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import QWidget

from tokviz.core.corpus.containers import TEXT_FILE, record_fields
from tokviz.core.corpus.documents import CorpusReader, ReadOptions
from tokviz.core.corpus.fileselect import select_files
from tokviz.core.corpus.reading import CorpusFile, open_decompressed
from tokviz.core.errors import TokvizError
from tokviz.gui.panels.training.report import human_bytes
from tokviz.gui.panels.training.table_settings import TableSettings
from tokviz.gui.widgets import file_dialogs

SOURCE_FILES, SOURCE_EDITOR, SOURCE_PYDOC, SOURCE_SAMPLES = "files", "editor", "pydoc", "samples"
SOURCES = (
    (SOURCE_FILES, "Files and folders"),
    (SOURCE_EDITOR, "The editor's text"),
    (SOURCE_PYDOC, "Python documentation topics (built in)"),
    (SOURCE_SAMPLES, "tokviz samples (built in)"),
)
PREVIEW_CHARS = 3000
# The preview of a corpus of records shows at most this many records.
PREVIEW_RECORDS = 12
# How many of the files used the corpus line's tooltip lists.
FILES_LISTED = 40


def pydoc_topics_text() -> str:
    """The Python documentation topics that ship with every Python (``help()`` shows them)."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[k] for k in sorted(topics))


def parse_specials(text: str) -> list[str]:
    """Special tokens from the settings field: separated by commas, surrounding spaces dropped."""
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


@dataclass(frozen=True)
class CorpusInfo:
    """What the panel shows about the chosen corpus: a summary line and the start of its text."""

    summary: str
    preview: str
    size: int
    error: str | None = None
    skipped: int = 0
    files_used: tuple[str, ...] = ()
    table: TableSettings | None = None  # the count table's own settings, when the corpus is one
    fields: tuple[str, ...] = ()  # the text fields of the first file of records, when there is one


def describe_files(
    paths: list[str],
    errors: str = "strict",
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    max_size: int | None = None,
    field: str = "text",
) -> CorpusInfo:
    """Size, files used and skipped, and a preview of files and folders (runs in a worker: folders may be large).

    The selection is training's own (:func:`~tokviz.core.corpus.fileselect.select_files`, with the same
    filters and ``errors``), so the counts are what training will read. The preview shows only text that
    decoded cleanly, from the first files (decompressed when compressed): never the bytes of a
    binary file. The files used are listed in :attr:`CorpusInfo.files_used`. When the files hold
    records (JSON Lines, Parquet, Arrow), the preview shows the first records' ``field`` as training
    will read it, one record after the other, and :attr:`CorpusInfo.fields` offers the fields
    with text of the first such file.
    """
    try:
        selection = select_files(paths, include, exclude, max_size=max_size, errors=errors)
    except TokvizError as exc:
        return CorpusInfo("", "", 0, str(exc))
    files = selection.corpus_files()
    note = selection.note("“Replace invalid UTF-8”")
    if note:
        note = note.replace("by --include/--exclude", "by the include/exclude patterns")
    if not files:
        return CorpusInfo("", "", 0, f"No file is left to train on: {note or 'the folders are empty'}.")
    fields: tuple[str, ...] = ()
    records_note = ""
    try:
        if selection.has_records:
            first = next(f for f in files if f.container != TEXT_FILE)
            fields = tuple(record_fields(first.path, first.container, first.compression))
            preview, records_note = _records_start(files[:20], field, errors)
        else:
            preview = _text_start(files[:20])
    except (TokvizError, OSError) as exc:
        return CorpusInfo("", "", selection.bytes, str(exc), fields=fields)
    n = len(files)
    line = f"{n:,} file{'s' if n != 1 else ''} · {human_bytes(selection.bytes)}"
    if selection.compressed:  # the text is larger: the run says how large, once it has read it
        line += f" on disk ({selection.compressed:,} compressed)"
    if note:
        line += f" · {note}"
    if records_note:
        line += f" · {records_note}"
    used = tuple(f"{f.path}  ({human_bytes(f.size)})" for f in files[:FILES_LISTED])
    if len(files) > FILES_LISTED:
        used += (f"… and {len(files) - FILES_LISTED:,} more",)
    return CorpusInfo(
        line, preview, selection.bytes, skipped=selection.left_out(), files_used=used, fields=fields
    )


def _text_start(files: list[CorpusFile]) -> str:
    """The start of the first text files, as much as the preview shows."""
    preview = ""
    for f in files:
        preview += _clean_start(f, PREVIEW_CHARS - len(preview))
        if len(preview) >= PREVIEW_CHARS:
            break
        preview += "\n"
    return preview


def _records_start(files: list[CorpusFile], field: str, errors: str) -> tuple[str, str]:
    """The first records' text as training reads it (``field``, each record a document, marked
    where it starts), and what reading them said about records skipped (“first: …”)."""
    reader = CorpusReader(ReadOptions(field=field, max_records=PREVIEW_RECORDS), errors)
    parts = []
    size = 0
    for k, document in enumerate(reader.corpus(files), start=1):
        text = "".join(document)[: PREVIEW_CHARS - size]
        parts.append(f"── record {k} ──\n{text}")
        size += len(text)
        if size >= PREVIEW_CHARS:
            break
    skipped = reader.tally.skipped_note()
    if not parts and skipped:
        raise TokvizError(f"No record of the first ones has text in “{field}”: {skipped}")
    return "\n".join(parts), (f"in the first records, {skipped}" if skipped else f"records: “{field}”")


def _clean_start(file: CorpusFile, limit: int) -> str:
    """Up to ``limit`` characters from the start of ``file``, stopping before any invalid UTF-8."""
    out = ""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open_decompressed(file.path, file.compression) as fh:
        while len(out) < limit:
            block = fh.read(4096)
            try:
                out += decoder.decode(block, final=not block)
            except UnicodeDecodeError as exc:
                out += exc.object[: exc.start].decode("utf-8", errors="ignore")
                break
            if not block:
                break
    return out[:limit]


def describe_text(text: str, label: str) -> CorpusInfo:
    """Size and preview of a text corpus."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    return CorpusInfo(f"{label} · {len(text):,} characters · {human_bytes(size)}", text[:PREVIEW_CHARS], size)


def ask_corpus_files(parent: QWidget) -> list[str]:
    """Ask for corpus files (and count tables); [] when the dialog is cancelled."""
    paths, _ = file_dialogs.get_open_file_names(
        parent,
        "Corpus files",
        str(Path.home()),
        # The first filter is the one shown: it must not hide the count tables the panel trains from.
        "Corpus files and count tables (*.txt *.md *.py *.json *.csv *.html *.gz *.bz2 *.xz *.parquet *.tsv)"
        ";;Text files (*.txt *.md *.py *.json *.csv *.html *.gz *.bz2 *.xz)"
        ";;Count tables (*.parquet *.tsv);;All files (*)",
    )
    return list(paths)
