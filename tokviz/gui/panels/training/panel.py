"""The training panel: pick a corpus, set the vocabulary, train in a worker thread, save and export.

The panel only gathers settings and shows progress; the core's trainer runs in
:class:`~tokviz.gui.workers.training.TrainJob`'s thread. A finished model is offered in every
tokenizer picker at once through the shared registry, and its merges stream into the timeline
while it trains (see :func:`tokviz.gui.panels.training.install.install`, which docks both).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.corpus import resolve_source
from tokviz.core.errors import TokvizError
from tokviz.core.formats import export_gpt2, export_hf, export_tiktoken, save_model
from tokviz.core.pretokenize import validate_pattern
from tokviz.core.resources import resource_path
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget
from tokviz.gui.workers.jobs import Job, run_job
from tokviz.gui.workers.training import TrainJob, TrainOutcome, TrainSettings, TrainStatus

if TYPE_CHECKING:
    pass

SOURCE_FILES, SOURCE_EDITOR, SOURCE_PYDOC, SOURCE_SAMPLES = "files", "editor", "pydoc", "samples"
SOURCES = (
    (SOURCE_FILES, "Files and folders"),
    (SOURCE_EDITOR, "The editor's text"),
    (SOURCE_PYDOC, "Python documentation topics (built in)"),
    (SOURCE_SAMPLES, "tokviz samples (built in)"),
)
PRETOKENIZERS = (
    ("gpt2", "GPT-2 regex"),
    ("cl100k", "cl100k regex"),
    ("none", "None: merge across the whole text"),
    ("custom", "Custom regex…"),
)
TIE_RULES = (
    ("lexicographic", "Lexicographic: greatest bytes win"),
    ("first-seen", "First seen: earliest pair wins (the lecture's rule)"),
)
DEFAULT_VOCAB = 1000
PREVIEW_CHARS = 3000
LECTURE_TEXT = "the cat in the hat"
EXPORTS = (
    ("gpt2", "vocab.json + merges.txt (GPT-2 layout)…"),
    ("tiktoken", ".tiktoken rank file…"),
    ("hf", "tokenizer.json (Hugging Face)…"),
)


def pydoc_topics_text() -> str:
    """The Python documentation topics that ship with every Python (``help()`` shows them)."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[k] for k in sorted(topics))


def human_bytes(n: int) -> str:
    """1234567 -> '1.2 MB'."""
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{int(size):,} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} bytes"


def human_seconds(s: float) -> str:
    """Seconds as '45 s' or '3 min 05 s'."""
    s = max(0.0, s)
    if s < 10:
        return f"{s:.1f} s"
    if s < 60:
        return f"{s:.0f} s"
    minutes, sec = divmod(int(round(s)), 60)
    return f"{minutes} min {sec:02d} s"


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


class TrainPanel(QWidget):
    """Dock contents for training. Signals (GUI thread, in order for one run):

    ``trainingStarted(TrainSettings)``, then ``progressChanged(TrainStatus)`` and
    ``mergesArrived(tuple[MergeStep, ...])`` while it runs, then one of
    ``trainingFinished(TrainOutcome, key)``, ``trainingCancelled()`` or ``trainingFailed(message)``,
    then ``trainingEnded()``.
    """

    trainingStarted = Signal(object)
    progressChanged = Signal(object)
    mergesArrived = Signal(object)
    trainingFinished = Signal(object, str)
    trainingCancelled = Signal()
    trainingFailed = Signal(str)
    trainingEnded = Signal()
    fileJobDone = Signal(str)

    def __init__(
        self,
        registry: TokenizerRegistryModel,
        editor_text: Callable[[], str] | None = None,
        set_editor_text: Callable[[str], None] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("trainPanel")
        self.setAcceptDrops(True)
        self.registry = registry
        self._editor_text = editor_text
        self._set_editor_text = set_editor_text
        self.job: TrainJob | None = None
        self.outcome: TrainOutcome | None = None
        self.key: str | None = None
        self.timeline: TimelineWidget | None = None
        self.last_status: TrainStatus | None = None
        self._info_job: Job | None = None
        self._file_job: Job | None = None
        self._info_generation = 0
        self._build_ui()
        self._wire()
        self._on_source_changed()
        self._on_pretokenizer_changed()
        self._update_vocab_hint()
        self._set_running(False)

    # ================================================================ layout
    def _build_ui(self) -> None:
        corpus = QGroupBox("Corpus", self)
        self.source = QComboBox(corpus)
        self.source.setObjectName("corpusSource")
        self.source.setAccessibleName("Training corpus")
        for key, label in SOURCES:
            self.source.addItem(label, key)
        if self._editor_text is None:
            self._disable_item(self.source, SOURCE_EDITOR)
        self.files = QListWidget(corpus)
        self.files.setObjectName("corpusFiles")
        self.files.setAccessibleName("Corpus files and folders")
        self.files.setToolTip("Files and folders to train on; drop them here")
        self.files.setMaximumHeight(72)
        self.add_files_button = QPushButton("Add files…", corpus)
        self.add_files_button.setObjectName("addCorpusFiles")
        self.add_folder_button = QPushButton("Add folder…", corpus)
        self.add_folder_button.setObjectName("addCorpusFolder")
        self.clear_files_button = QPushButton("Clear", corpus)
        self.clear_files_button.setObjectName("clearCorpusFiles")
        self.file_buttons = QWidget(corpus)
        fb = QHBoxLayout(self.file_buttons)
        fb.setContentsMargins(0, 0, 0, 0)
        fb.addWidget(self.add_files_button)
        fb.addWidget(self.add_folder_button)
        fb.addWidget(self.clear_files_button)
        fb.addStretch(1)
        self.corpus_info = QLabel(corpus)
        self.corpus_info.setObjectName("corpusInfo")
        self.corpus_info.setWordWrap(True)
        self.preview = QPlainTextEdit(corpus)
        self.preview.setObjectName("corpusPreview")
        self.preview.setAccessibleName("Corpus preview")
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.preview.setMaximumHeight(96)
        self.preview.setPlaceholderText("The start of the corpus appears here")
        cl = QVBoxLayout(corpus)
        cl.addWidget(self.source)
        cl.addWidget(self.files)
        cl.addWidget(self.file_buttons)
        cl.addWidget(self.corpus_info)
        cl.addWidget(self.preview)

        settings = QGroupBox("Settings", self)
        self.vocab_size = QSpinBox(settings)
        self.vocab_size.setObjectName("vocabSize")
        self.vocab_size.setAccessibleName("Vocabulary size")
        self.vocab_size.setRange(1, 1_000_000)
        self.vocab_size.setGroupSeparatorShown(True)
        self.vocab_size.setValue(DEFAULT_VOCAB)
        self.vocab_size.setToolTip("Total tokens: 256 bytes + special tokens + merges")
        self.vocab_hint = QLabel(settings)
        self.vocab_hint.setObjectName("vocabHint")
        self.vocab_hint.setWordWrap(True)
        self.specials = QLineEdit(settings)
        self.specials.setObjectName("specialTokens")
        self.specials.setAccessibleName("Special tokens")
        self.specials.setText("<|endoftext|>")
        self.specials.setPlaceholderText("comma-separated, e.g. <|endoftext|>")
        self.specials.setToolTip("Never split, never merged; each gets an id after the merges")
        self.pretokenizer = QComboBox(settings)
        self.pretokenizer.setObjectName("pretokenizerChoice")
        self.pretokenizer.setAccessibleName("Pre-tokenizer")
        self.pretokenizer.setToolTip("How the text is cut into chunks before BPE: merges never cross a cut")
        for key, label in PRETOKENIZERS:
            self.pretokenizer.addItem(label, key)
        self.pattern = QLineEdit(settings)
        self.pattern.setObjectName("customPattern")
        self.pattern.setAccessibleName("Custom pre-tokenizer regex")
        self.pattern.setPlaceholderText(r"a regex, e.g. \s?\w+|\s?[^\w\s]+|\s+")
        self.pattern_error = QLabel(settings)
        self.pattern_error.setObjectName("patternError")
        self.pattern_error.setWordWrap(True)
        self.pattern_error.setStyleSheet("color: #d6336c;")
        self.tie_rule = QComboBox(settings)
        self.tie_rule.setObjectName("tieRule")
        self.tie_rule.setAccessibleName("Tie rule")
        self.tie_rule.setToolTip("Which pair wins when several have the highest count")
        for key, label in TIE_RULES:
            self.tie_rule.addItem(label, key)
        self.replace_invalid = QCheckBox("Replace invalid UTF-8 (else stop with an error)", settings)
        self.replace_invalid.setObjectName("replaceInvalid")
        self.name = QLineEdit(settings)
        self.name.setObjectName("modelName")
        self.name.setAccessibleName("Model name")
        self.name.setToolTip("Name in the tokenizer pickers; training again under the same name replaces it")
        form = QFormLayout(settings)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Vocabulary size", self.vocab_size)
        form.addRow("", self.vocab_hint)
        form.addRow("Special tokens", self.specials)
        form.addRow("Pre-tokenizer", self.pretokenizer)
        form.addRow("Regex", self.pattern)
        form.addRow("", self.pattern_error)
        form.addRow("Ties", self.tie_rule)
        form.addRow("", self.replace_invalid)
        form.addRow("Name", self.name)
        self.form = form

        self.train_button = QPushButton("Train", self)
        self.train_button.setObjectName("trainButton")
        self.train_button.setToolTip("Train a byte-level BPE vocabulary on the corpus (Ctrl+T)")
        self.train_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("cancelButton")
        self.cancel_button.setToolTip("Stop training; nothing changes (Esc)")
        self.progress = QProgressBar(self)
        self.progress.setObjectName("trainProgress")
        self.progress.setAccessibleName("Training progress")
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setFormat("")
        self.progress.setTextVisible(True)
        self.status = QLabel(self)
        self.status.setObjectName("trainStatus")
        self.status.setWordWrap(True)
        self.error = QLabel(self)
        self.error.setObjectName("trainError")
        self.error.setWordWrap(True)
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error.setStyleSheet("color: #d6336c;")
        self.error.hide()
        self.result = QLabel(self)
        self.result.setObjectName("trainResult")
        self.result.setWordWrap(True)
        self.save_button = QPushButton("Save model…", self)
        self.save_button.setObjectName("saveModelButton")
        self.save_button.setToolTip(
            "Save as a tokviz model file (vocabulary, merges, settings and merge history)"
        )
        self.export_button = QToolButton(self)
        self.export_button.setObjectName("exportButton")
        self.export_button.setText("Export ▾")
        self.export_button.setToolTip("Export for other tools")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_menu = QMenu(self.export_button)
        self.export_actions: dict[str, QAction] = {}
        for kind, label in EXPORTS:
            act = self.export_menu.addAction(label)
            act.setObjectName(f"export_{kind}")
            act.triggered.connect(lambda *_, k=kind: self.choose_export(k))
            self.export_actions[kind] = act
        self.export_button.setMenu(self.export_menu)

        run_row = QHBoxLayout()
        run_row.addWidget(self.train_button, 1)
        run_row.addWidget(self.cancel_button)
        out_row = QHBoxLayout()
        out_row.addWidget(self.save_button)
        out_row.addWidget(self.export_button)
        out_row.addStretch(1)

        demo = QGroupBox("Lecture demo", self)
        demo.setObjectName("demoBox")
        self.demo_none_button = QPushButton("“the cat in the hat”, no pre-tokenizer", demo)
        self.demo_none_button.setObjectName("demoNoneButton")
        self.demo_none_button.setToolTip(
            "Train 3 merges on the lecture's example (first-seen ties): 18 → 16 → 14 → 12 tokens (Ctrl+Shift+L)"
        )
        self.demo_gpt2_button = QPushButton("… with GPT-2 chunks", demo)
        self.demo_gpt2_button.setObjectName("demoGpt2Button")
        self.demo_gpt2_button.setToolTip(
            "The same, but chunks never merge across boundaries: no “the␣” token"
        )
        dl = QHBoxLayout(demo)
        dl.addWidget(self.demo_none_button, 1)
        dl.addWidget(self.demo_gpt2_button)

        inner = QWidget(self)
        layout = QVBoxLayout(inner)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(corpus)
        layout.addWidget(settings)
        layout.addLayout(run_row)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.error)
        layout.addWidget(self.result)
        layout.addLayout(out_row)
        layout.addWidget(demo)
        layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setObjectName("trainScroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(inner)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

        cancel_action = QAction("Cancel training", self)
        cancel_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        cancel_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        cancel_action.triggered.connect(self.cancel)
        self.addAction(cancel_action)

    @staticmethod
    def _disable_item(combo: QComboBox, key: str) -> None:
        row = combo.findData(key)
        item = combo.model().item(row)  # type: ignore[attr-defined]
        if item is not None:
            item.setEnabled(False)

    def _wire(self) -> None:
        self.source.currentIndexChanged.connect(self._on_source_changed)
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.clear_files_button.clicked.connect(self.clear_files)
        self.vocab_size.valueChanged.connect(self._update_vocab_hint)
        self.specials.textChanged.connect(self._update_vocab_hint)
        self.pretokenizer.currentIndexChanged.connect(self._on_pretokenizer_changed)
        self.pattern.textChanged.connect(self._validate_pattern)
        self.train_button.clicked.connect(lambda: self.start())
        self.cancel_button.clicked.connect(self.cancel)
        self.save_button.clicked.connect(self.choose_save_path)
        self.demo_none_button.clicked.connect(lambda: self.run_demo("none"))
        self.demo_gpt2_button.clicked.connect(lambda: self.run_demo("gpt2"))

    def connect_timeline(self, timeline: TimelineWidget) -> None:
        """Stream merges into ``timeline`` while training, and show the model there when done."""
        self.timeline = timeline
        self.trainingStarted.connect(
            lambda s: timeline.begin_live(max(0, s.vocab_size - 256 - len(s.special_tokens)))
        )
        self.mergesArrived.connect(timeline.append_merges)
        self.trainingCancelled.connect(lambda: timeline.end_live(None))
        self.trainingFailed.connect(lambda _m: timeline.end_live(None))

        def finished(outcome: TrainOutcome, key: str) -> None:
            res = outcome.result
            timeline.remember_history(key, res.history, res.initial_tokens)
            timeline.end_live(key)

        self.trainingFinished.connect(finished)

    # ================================================================ corpus
    def source_kind(self) -> str:
        """Which corpus is chosen: ``files``, ``editor``, ``pydoc`` or ``samples``."""
        return str(self.source.currentData())

    def set_source_kind(self, kind: str) -> None:
        """Choose the corpus kind."""
        row = self.source.findData(kind)
        if row >= 0:
            self.source.setCurrentIndex(row)

    def corpus_paths(self) -> list[str]:
        """The files and folders listed for the ``files`` corpus."""
        return [self.files.item(i).text() for i in range(self.files.count())]

    def add_paths(self, paths: list[str]) -> None:
        """Add files or folders to the corpus (and choose the files corpus)."""
        known = set(self.corpus_paths())
        for p in paths:
            if p and p not in known:
                self.files.addItem(p)
                known.add(p)
        self.set_source_kind(SOURCE_FILES)
        self.refresh_corpus_info()

    def clear_files(self) -> None:
        """Empty the file list."""
        self.files.clear()
        self.refresh_corpus_info()

    def choose_files(self) -> None:
        """Ask for corpus files."""
        paths, _ = QFileDialog.getOpenFileNames(
            self,
            "Corpus files",
            str(Path.home()),
            "Text files (*.txt *.md *.py *.json *.csv *.html);;All files (*)",
        )
        if paths:
            self.add_paths(paths)

    def choose_folder(self) -> None:
        """Ask for a corpus folder (every file in it, recursively, hidden ones skipped)."""
        path = QFileDialog.getExistingDirectory(self, "Corpus folder", str(Path.home()))
        if path:
            self.add_paths([path])

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and not self.running:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            self.add_paths(paths)
            event.acceptProposedAction()

    def _on_source_changed(self, *_args: object) -> None:
        files = self.source_kind() == SOURCE_FILES
        self.files.setVisible(files)
        self.file_buttons.setVisible(files)
        self.refresh_corpus_info()

    def editor_text(self) -> str:
        """The editor's current text ('' without an editor)."""
        return self._editor_text() if self._editor_text is not None else ""

    def corpus_source(self) -> object:
        """What the trainer reads: a list of paths, or the text itself."""
        kind = self.source_kind()
        if kind == SOURCE_FILES:
            return [Path(p) for p in self.corpus_paths()]
        if kind == SOURCE_EDITOR:
            return self.editor_text()
        if kind == SOURCE_PYDOC:
            return pydoc_topics_text()
        return [resource_path("samples")]

    def refresh_corpus_info(self) -> None:
        """Update the size line and the preview for the chosen corpus."""
        self._info_generation += 1
        generation = self._info_generation
        kind = self.source_kind()
        if kind == SOURCE_EDITOR:
            self._show_info(describe_text(self.editor_text(), "Editor text"))
            return
        if kind == SOURCE_PYDOC:
            from pydoc_data.topics import topics

            self._show_info(describe_text(pydoc_topics_text(), f"{len(topics)} topics of the Python docs"))
            return
        paths = [str(resource_path("samples"))] if kind == SOURCE_SAMPLES else self.corpus_paths()
        if not paths:
            self._show_info(CorpusInfo("Add files or a folder (or drop them here).", "", 0))
            return
        self.corpus_info.setText("Measuring…")
        job = run_job(lambda: describe_files(paths), self)
        self._info_job = job

        def done(info: CorpusInfo) -> None:
            if generation == self._info_generation:
                self._info_job = None
                self._show_info(info)

        job.returned.connect(done)

    def _show_info(self, info: CorpusInfo) -> None:
        if info.error:
            self.corpus_info.setText(f"<span style='color:#d6336c'>{_html(info.error)}</span>")
        else:
            self.corpus_info.setText(info.summary)
        self.preview.setPlainText(info.preview)

    # ================================================================ settings
    def pretokenizer_spec(self) -> str:
        """The pre-tokenizer setting as the core takes it: a name or the custom regex."""
        key = str(self.pretokenizer.currentData())
        return self.pattern.text() if key == "custom" else key

    def set_pretokenizer(self, spec: str) -> None:
        """Choose ``none``, ``gpt2``, ``cl100k`` or a custom regex."""
        row = self.pretokenizer.findData(spec)
        if row >= 0:
            self.pretokenizer.setCurrentIndex(row)
        else:
            self.pretokenizer.setCurrentIndex(self.pretokenizer.findData("custom"))
            self.pattern.setText(spec)

    def set_tie_rule(self, rule: str) -> None:
        """Choose ``lexicographic`` or ``first-seen``."""
        row = self.tie_rule.findData(rule)
        if row >= 0:
            self.tie_rule.setCurrentIndex(row)

    def _on_pretokenizer_changed(self, *_args: object) -> None:
        custom = self.pretokenizer.currentData() == "custom"
        self.pattern.setEnabled(custom)
        self.form.setRowVisible(self.pattern, custom)
        if custom:
            self.pattern.setFocus()
        self._validate_pattern()

    def pattern_problem(self) -> str | None:
        """Why the custom regex cannot be used, or None (also None when no custom regex is chosen)."""
        if self.pretokenizer.currentData() != "custom":
            return None
        if not self.pattern.text():
            return "Type a regex: each match becomes one chunk."
        return validate_pattern(self.pattern.text())

    def _validate_pattern(self, *_args: object) -> None:
        problem = self.pattern_problem()
        self.pattern_error.setText(problem or "")
        self.form.setRowVisible(self.pattern_error, bool(problem))
        self._update_train_enabled()

    def _update_vocab_hint(self, *_args: object) -> None:
        n_special = len(parse_specials(self.specials.text()))
        vocab = self.vocab_size.value()
        floor = 256 + n_special
        if vocab < floor:
            self.vocab_hint.setText(
                f"<span style='color:#d6336c'>Too small: the 256 bytes{f' and {n_special} special tokens' if n_special else ''} need at least {floor:,}.</span>"
            )
        else:
            specials = f" + {n_special} special" if n_special else ""
            self.vocab_hint.setText(f"= 256 bytes{specials} + at most {vocab - floor:,} merges")

    def _update_train_enabled(self) -> None:
        self.train_button.setEnabled(not self.running and self.pattern_problem() is None)

    def settings(self) -> TrainSettings:
        """The run the current settings describe (the corpus is read when training starts)."""
        name = self.name.text().strip() or self._auto_name()
        return TrainSettings(
            source=self.corpus_source(),
            vocab_size=self.vocab_size.value(),
            special_tokens=tuple(parse_specials(self.specials.text())),
            pretokenizer=self.pretokenizer_spec(),
            tie_break=str(self.tie_rule.currentData()),
            errors="replace" if self.replace_invalid.isChecked() else "strict",
            name=name,
        )

    def _auto_name(self) -> str:
        pre = self.pretokenizer_spec()
        base = f"bpe-{self.vocab_size.value()}" + (
            f" ({pre})" if pre in ("none", "gpt2", "cl100k") else " (custom)"
        )
        names = {self.registry.label(k) for k in self.registry.keys()}
        name, n = base, 2
        while name in names:
            name = f"{base} #{n}"
            n += 1
        return name

    # ================================================================ training
    @property
    def running(self) -> bool:
        """True while a training run is in progress."""
        return self.job is not None

    def start(self, settings: TrainSettings | None = None) -> TrainJob | None:
        """Train with ``settings`` (default: the panel's) in a worker thread; returns the job, or None on a settings error."""
        if self.running:
            return None
        problem = self.pattern_problem()
        if problem:
            self._show_error(problem)
            return None
        if settings is None:
            if self.source_kind() == SOURCE_FILES and not self.corpus_paths():
                self._show_error("Add files or a folder to train on (or drop them on this panel).")
                return None
            settings = self.settings()
        self._show_error(None)
        self.result.setText("")
        job = TrainJob(settings, self)
        self.job = job
        job.progress.connect(self._on_progress)
        job.mergesBatch.connect(self.mergesArrived)
        job.finished.connect(self._on_finished)
        job.failed.connect(self._on_failed)
        job.cancelled.connect(self._on_cancelled)
        job.stopped.connect(lambda j=job: self._on_stopped(j))
        self.last_status = None
        self.progress.setValue(0)
        self.progress.setFormat("starting…")
        self.status.setText("Reading the corpus…")
        self._set_running(True)
        self.trainingStarted.emit(settings)
        job.start()
        return job

    def cancel(self) -> None:
        """Stop the running training; the app stays as it was before it started."""
        if self.job is not None:
            self.job.cancel()
            self.status.setText("Cancelling…")
            self.cancel_button.setEnabled(False)

    def shutdown(self, msecs: int = 5000) -> None:
        """Cancel and wait for the training thread (the window is closing)."""
        if self.job is not None:
            self.job.cancel()
            self.job.wait(msecs)

    def _set_running(self, running: bool) -> None:
        self.cancel_button.setEnabled(running)
        for w in (
            self.source,
            self.files,
            self.file_buttons,
            self.vocab_size,
            self.specials,
            self.pretokenizer,
            self.pattern,
            self.tie_rule,
            self.replace_invalid,
            self.name,
            self.demo_none_button,
            self.demo_gpt2_button,
        ):
            w.setEnabled(not running)
        if not running:
            self.pattern.setEnabled(self.pretokenizer.currentData() == "custom")
        has_model = self.outcome is not None and not running
        self.save_button.setEnabled(has_model)
        self.export_button.setEnabled(has_model)
        self._update_train_enabled()

    def _on_progress(self, status: TrainStatus) -> None:
        self.last_status = status
        self.progress.setValue(int(status.fraction * 1000))
        pct = int(status.fraction * 100)
        self.progress.setFormat(f"{status.phase} · {pct}%")
        parts: list[str] = []
        if status.phase == "pre-tokenizing":
            parts.append(f"{human_bytes(status.done)} of {human_bytes(status.total)}")
            if status.rate > 0:
                parts.append(f"{human_bytes(int(status.rate))}/s")
        elif status.phase in ("merging", "done"):
            parts.append(f"{status.done:,} of {status.total:,} merges")
            if status.rate > 0 and status.phase == "merging":
                parts.append(f"{status.rate:,.0f} merges/s")
        if status.eta is not None and status.phase != "done":
            parts.append(f"{human_seconds(status.eta)} left")
        parts.append(f"{human_seconds(status.elapsed)} so far")
        self.status.setText(f"<b>{status.phase.capitalize()}</b> · " + " · ".join(parts))
        self.progressChanged.emit(status)

    def _on_finished(self, outcome: TrainOutcome) -> None:
        res = outcome.result
        counts = {r.new_id: r.count for r in res.history}
        key = self.registry.add_tokenizer(outcome.settings.name, outcome.tokenizer, counts)
        self.outcome = outcome
        self.key = key
        self.progress.setValue(1000)
        self.progress.setFormat("done")
        merges = len(res.merges)
        short = (
            f" The corpus ran out of pairs after {merges:,} merges."
            if merges < res.vocab_size_requested - 256 - len(res.special_tokens)
            else ""
        )
        self.status.setText(
            f"Done in {human_seconds(outcome.wall_time)} · {res.timings.get('pretokenize', 0):.1f} s pre-tokenizing, "
            f"{res.timings.get('merge', 0):.1f} s merging"
        )
        self.result.setText(
            f"<b>{_html(outcome.settings.name)}</b>: {len(res.vocab):,} tokens ({merges:,} merges) from "
            f"{human_bytes(res.corpus_bytes)}, {res.unique_words:,} unique chunks; "
            f"{res.initial_tokens:,} → {res.history[-1].tokens_after if res.history else res.initial_tokens:,} corpus tokens. "
            f"Now in every tokenizer picker.{short}"
        )
        self.trainingFinished.emit(outcome, key)

    def _on_failed(self, message: str) -> None:
        self._show_error(message)
        self.status.setText("Training failed; nothing changed.")
        self.progress.setValue(0)
        self.progress.setFormat("")
        self.trainingFailed.emit(message)

    def _on_cancelled(self) -> None:
        self.status.setText("Cancelled; nothing changed.")
        self.progress.setValue(0)
        self.progress.setFormat("")
        self.trainingCancelled.emit()

    def _on_stopped(self, job: TrainJob) -> None:
        if self.job is job:
            self.job = None
            self._set_running(False)
            self.trainingEnded.emit()
        job.deleteLater()

    def _show_error(self, message: str | None) -> None:
        self.error.setText(message or "")
        self.error.setVisible(bool(message))

    # ================================================================ demo
    def run_demo(self, pretokenizer: str = "none") -> TrainJob | None:
        """The lecture's worked example: 3 merges of “the cat in the hat” with first-seen ties.

        With no pre-tokenizer the merges are ``th``, ``the``, ``the·`` (18 → 16 → 14 → 12 tokens);
        with GPT-2's chunks ``the·`` cannot form, because a space starts the next chunk.
        """
        if self.running:
            return None
        if self._set_editor_text is not None:
            self._set_editor_text(LECTURE_TEXT)
        self.vocab_size.setValue(259)
        self.specials.setText("")
        self.set_pretokenizer(pretokenizer)
        self.set_tie_rule("first-seen")
        label = "no pre-tokenizer" if pretokenizer == "none" else f"{pretokenizer} chunks"
        self.name.setText(f"lecture ({label})")
        if self._editor_text is not None:
            self.set_source_kind(SOURCE_EDITOR)
            return self.start()
        return self.start(
            TrainSettings(LECTURE_TEXT, 259, (), pretokenizer, "first-seen", name=self.name.text())
        )

    # ================================================================ save and export
    def choose_save_path(self) -> None:
        """Ask where to save the trained model."""
        if self.outcome is None:
            return
        default = str(Path.home() / f"{_file_stem(self.outcome.settings.name)}.tokviz.json")
        path, _ = QFileDialog.getSaveFileName(
            self, "Save tokviz model", default, "tokviz model (*.json);;All files (*)"
        )
        if path:
            self.save_model_to(path)

    def save_model_to(self, path: str | os.PathLike[str]) -> Job | None:
        """Save the trained model, its settings and merge history (in a worker); ``fileJobDone`` reports."""
        outcome = self.outcome
        if outcome is None:
            return None
        res = outcome.result
        tok = outcome.tokenizer
        return self._file_task(
            lambda: save_model(path, tok, res.settings(), res.history), f"Saved {Path(path).name}"
        )

    def choose_export(self, kind: str) -> None:
        """Ask where to export: a folder for vocab.json + merges.txt, a file otherwise."""
        if self.outcome is None:
            return
        stem = _file_stem(self.outcome.settings.name)
        if kind == "gpt2":
            path = QFileDialog.getExistingDirectory(
                self, "Export vocab.json + merges.txt into", str(Path.home())
            )
        elif kind == "tiktoken":
            path, _ = QFileDialog.getSaveFileName(
                self, "Export .tiktoken", str(Path.home() / f"{stem}.tiktoken"), "tiktoken ranks (*.tiktoken)"
            )
        else:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export tokenizer.json", str(Path.home() / "tokenizer.json"), "JSON (*.json)"
            )
        if path:
            self.export_to(kind, path)

    def export_to(self, kind: str, path: str | os.PathLike[str]) -> Job | None:
        """Export the trained model as ``gpt2`` (folder), ``tiktoken`` or ``hf`` (files), in a worker."""
        if self.outcome is None:
            return None
        tok = self.outcome.tokenizer
        fn: Callable[[], Any] = {
            "gpt2": lambda: export_gpt2(tok, path),
            "tiktoken": lambda: export_tiktoken(tok, path),
            "hf": lambda: export_hf(tok, path),
        }[kind]
        return self._file_task(fn, f"Exported to {path}")

    def _file_task(self, fn: Callable[[], Any], success: str) -> Job:
        self._show_error(None)
        job = run_job(fn, self)
        self._file_job = job

        def done(_value: object) -> None:
            self.status.setText(success)
            self.fileJobDone.emit("")

        def failed(exc: BaseException) -> None:
            message = str(exc) if isinstance(exc, TokvizError) else f"{type(exc).__name__}: {exc}"
            self._show_error(message)
            self.fileJobDone.emit(message)

        job.returned.connect(done)
        job.errored.connect(failed)
        return job


def _file_stem(name: str) -> str:
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-")
    return keep or "model"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
