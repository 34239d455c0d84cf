"""What the training panel says about a corpus, without Qt: sources, sizes, previews and special tokens."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tokviz.core.corpus import resolve_source
from tokviz.core.errors import TokvizError
from tokviz.gui.panels.training.report import human_bytes

SOURCE_FILES, SOURCE_EDITOR, SOURCE_PYDOC, SOURCE_SAMPLES = "files", "editor", "pydoc", "samples"
SOURCES = (
    (SOURCE_FILES, "Files and folders"),
    (SOURCE_EDITOR, "The editor's text"),
    (SOURCE_PYDOC, "Python documentation topics (built in)"),
    (SOURCE_SAMPLES, "tokviz samples (built in)"),
)
PREVIEW_CHARS = 3000


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


def describe_files(paths: list[str]) -> CorpusInfo:
    """Size and preview of files and folders (runs in a worker: folders may be large)."""
    try:
        files, _ = resolve_source([Path(p) for p in paths])
    except TokvizError as exc:
        return CorpusInfo("", "", 0, str(exc))
    total = sum(f.size for f in files)
    preview = ""
    for f in files[:20]:
        try:
            with open(f.path, "rb") as fh:
                preview += fh.read(PREVIEW_CHARS - len(preview)).decode("utf-8", errors="replace")
        except OSError as exc:
            return CorpusInfo("", "", total, f"cannot read {f.path}: {exc.strerror or exc}")
        if len(preview) >= PREVIEW_CHARS:
            break
        preview += "\n"
    n = len(files)
    return CorpusInfo(f"{n:,} file{'s' if n != 1 else ''} · {human_bytes(total)}", preview, total)


def describe_text(text: str, label: str) -> CorpusInfo:
    """Size and preview of a text corpus."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    return CorpusInfo(f"{label} · {len(text):,} characters · {human_bytes(size)}", text[:PREVIEW_CHARS], size)
