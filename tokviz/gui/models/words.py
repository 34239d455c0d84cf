"""Where the words tokenizer's vocabulary comes from in the window, and rebuilding it when that changes.

The lecture's word-level tokenizer (:class:`~tokviz.core.bpe.lecture_tokenizers.WordTokenizer`) has a
vocabulary only once it has a corpus. In the window the corpus is, by the user's choice:

* tokviz's word list (the default; resources/words/words.tsv, the words of the Python documentation
  topics and tokviz's samples): a fixed vocabulary, so any other word (a name, another language, a
  new term) is ``<unk>`` and counted: the lesson of unknown words;
* the editor's text: the vocabulary follows the text, rebuilt 0.6 s after the last edit, so a word
  just typed is ``<unk>`` until then, and its size grows with every new word;
* text files the user chooses.

The choice is remembered for the next launch. A rebuilt tokenizer replaces the old one under the same registry key, and every view, the chart
and the vocabulary browser switch to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from tokviz.core.bpe.lecture_tokenizers import WordTokenizer
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.formats.registry import load_tokenizer
from tokviz.gui.models.entries import TokenizerEntry
from tokviz.gui.settings import WORDS_FILES, WORDS_SOURCE, Settings
from tokviz.gui.workers.jobs import Job, run_job

WORDS_KEY = "words"
# The words vocabulary follows the editor's text this long after the last edit.
WORDS_REBUILD_MS = 600
FROM_EDITOR = "editor"
FROM_SAMPLE = "sample"
FROM_FILES = "files"
SOURCES = (FROM_EDITOR, FROM_SAMPLE, FROM_FILES)


class WordsCorpus(QObject):
    """The words tokenizer's corpus for one registry, and its rebuilds (in a worker, latest wins).

    ``entry()`` is the registry's entry for the words tokenizer (None when it offers none): a
    rebuild waits for its first build. ``rebuilt(Tokenizer)`` hands the registry each new
    vocabulary; ``failed(source, message)`` says why one could not be built.
    """

    rebuilt = Signal(Tokenizer)
    failed = Signal(str, str)

    def __init__(self, entry: Callable[[], TokenizerEntry | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._entry = entry
        # The corpus chosen last time, unless its files are gone (then the editor's text).
        settings = Settings()
        self.source = settings.get(WORDS_SOURCE)
        self.files: list[str] = [str(f) for f in settings.get(WORDS_FILES)]
        if self.source not in SOURCES or (
            self.source == FROM_FILES and not (self.files and all(Path(f).is_file() for f in self.files))
        ):
            self.source, self.files = FROM_SAMPLE, []
        self.editor_text = ""
        self._generation = 0
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(WORDS_REBUILD_MS)
        self.timer.timeout.connect(self.rebuild)

    def builder(self) -> Callable[[], Tokenizer]:
        """A function that builds the words tokenizer from the current corpus (run in a worker)."""
        source, files, text = self.source, list(self.files), self.editor_text
        if source == FROM_FILES and files:
            return lambda: WordTokenizer.from_files(files)
        if source == FROM_EDITOR:
            return lambda: WordTokenizer.from_text(text, corpus="the editor's text")
        return lambda: load_tokenizer(WORDS_KEY)

    def describe(self, tok: Tokenizer | None) -> str:
        """The words picker entry's tooltip: what a token is and which corpus the vocabulary is from."""
        where = {
            FROM_EDITOR: "the editor's text, rebuilt 0.6 s after you stop typing (a word you have just "
            "typed shows as <unk> until then)",
            FROM_SAMPLE: "tokviz's word list (the words of the Python documentation and tokviz's samples)",
        }.get(self.source, ", ".join(Path(p).name for p in self.files))
        size = f" ({tok.word_count:,} entries and <unk>)" if isinstance(tok, WordTokenizer) else ""
        return (
            "words: one token per word, digit, whitespace run or punctuation mark. The vocabulary is every one "
            f"of them in {where}{size}; anything else shows as <unk>. Choose the corpus with the "
            "view's ‘Vocab’ button."
        )

    def set_source(self, source: str, files: Sequence[str] = ()) -> Job | None:
        """Build the vocabulary from the editor's text, the word list or ``files`` from now on."""
        if source not in SOURCES:
            raise ValueError(f"unknown words corpus {source!r}; choose one of {', '.join(SOURCES)}")
        self.source = source
        self.files = [str(f) for f in files] if source == FROM_FILES else []
        settings = Settings()
        settings.set(WORDS_SOURCE, source)
        settings.set(WORDS_FILES, self.files)
        return self.rebuild()

    def note_editor_text(self, text: str) -> None:
        """The editor's text changed: rebuild (debounced) when the vocabulary is built from it."""
        if text == self.editor_text:
            return
        self.editor_text = text
        entry = self._entry()
        asked_for = entry is not None and (entry.tokenizer is not None or entry.loading is not None)
        if self.source == FROM_EDITOR and asked_for:
            self.timer.start()

    def rebuild(self) -> Job | None:
        """Build the words tokenizer again now, in a worker; views switch to it when it is done.

        Returns the job, or None while the words tokenizer has not been built yet (its first
        build uses the current corpus; one still running is followed by a rebuild).
        """
        self.timer.stop()
        entry = self._entry()
        if entry is None or entry.tokenizer is None:
            if entry is not None and entry.loading is not None:
                self.timer.start()  # the first build is running: rebuild after it, never race it
            return None
        self._generation += 1
        generation = self._generation
        job = run_job(self.builder(), self)

        def built(tok: Tokenizer) -> None:
            if generation == self._generation:
                self.rebuilt.emit(tok)

        def failed(exc: BaseException) -> None:
            message = str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}"
            self.failed.emit(", ".join(self.files) or WORDS_KEY, message)

        job.returned.connect(built)
        job.errored.connect(failed)
        return job
