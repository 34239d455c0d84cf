"""The training panel's widgets and their layout: the corpus, settings, run, output and demo boxes.

:class:`TrainForm` only builds and arranges the widgets (and reads what they say);
:class:`~tokviz.gui.panels.training.panel.TrainPanel` adds the behaviour and wires the signals.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
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
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tokviz.core.io.resources import resource_path
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.training.algorithm import AlgorithmRows, engine_vocab_hint
from tokviz.gui.panels.training.corpus import (
    SOURCE_EDITOR,
    SOURCE_FILES,
    SOURCE_PYDOC,
    SOURCES,
    parse_specials,
    pydoc_topics_text,
)
from tokviz.gui.panels.training.counts import save_counts_button
from tokviz.gui.panels.training.filters import FileFilters
from tokviz.gui.panels.training.record_field import RecordField
from tokviz.gui.panels.training.saving import EXPORTS
from tokviz.gui.panels.training.scroll import FormScroll
from tokviz.gui.panels.training.table_settings import TableLock
from tokviz.gui.widgets.boxes import STRETCH, column, row, scrolled
from tokviz.gui.workers.engine_training import EngineSettings
from tokviz.gui.workers.pattern_check import PatternCheck
from tokviz.gui.workers.training import TrainSettings

# Short labels, read whole in a 1024-pixel dock; each item's tooltip says what it does.
PRETOKENIZERS = (
    ("gpt2", "GPT-2 regex", "GPT-2's regex: words, numbers and punctuation are cut apart first"),
    ("cl100k", "cl100k regex", "cl100k's regex (GPT-4): like GPT-2's, with digits in groups of three"),
    ("none", "None", "None: merges may cross words, spaces and punctuation (the whole text is one chunk)"),
    ("custom", "Custom regex…", "Your own regex: each match is a chunk that merges never cross"),
)
# Short labels, read whole in a 1024-pixel dock; each item's tooltip says the rule in full.
TIE_RULES = (
    ("lexicographic", "Greatest bytes", "Lexicographic: the pair with the greatest bytes wins"),
    (
        "first-seen",
        "First seen (lecture)",
        "First seen: the pair met first in the corpus wins (the lecture's rule)",
    ),
)
DEFAULT_VOCAB = 1000


class TrainForm(QWidget):
    """The training panel's widgets, built by :meth:`_build_ui` one box at a time, and the settings they hold."""

    registry: TokenizerRegistryModel
    _editor_text: Callable[[], str] | None

    # ================================================================ layout
    def _build_ui(self) -> None:
        corpus = self._build_corpus_box()
        settings = self._build_settings_box()
        self._build_run_controls()
        self._build_output_controls()
        demo = self._build_demo_box()
        self._lay_out(corpus, settings, demo)
        self._cancel_action = QAction("Cancel training", self)
        self._cancel_action.setShortcut(QKeySequence(Qt.Key.Key_Escape))
        self._cancel_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.addAction(self._cancel_action)

    def _build_corpus_box(self) -> QGroupBox:
        """Where the text comes from: the source, the file list and its buttons, size and preview."""
        corpus = QGroupBox("Corpus", self)
        self.source = QComboBox(corpus)
        self.source.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.source.setMinimumContentsLength(9)
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
        # Which files of the folders are used; binary ones never are (the corpus line counts them).
        self.filters = FileFilters(corpus)
        self.record_field = RecordField(corpus)  # shown when the files hold records
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
        cl.addWidget(self.filters)
        cl.addWidget(self.record_field)
        cl.addWidget(self.corpus_info)
        cl.addWidget(self.preview)
        return corpus

    def _build_settings_box(self) -> QGroupBox:
        """Vocabulary size, special tokens, pre-tokenizer (and custom regex), tie rule, invalid UTF-8, name."""
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
        self.pretokenizer.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.pretokenizer.setMinimumContentsLength(9)
        self.pretokenizer.setObjectName("pretokenizerChoice")
        self.pretokenizer.setAccessibleName("Pre-tokenizer")
        self.pretokenizer.setToolTip("How the text is cut into chunks before BPE: merges never cross a cut")
        for index, (key, label, meaning) in enumerate(PRETOKENIZERS):
            self.pretokenizer.addItem(label, key)
            self.pretokenizer.setItemData(index, meaning, Qt.ItemDataRole.ToolTipRole)
        self.pattern = QLineEdit(settings)
        self.pattern_check = PatternCheck(self)
        self.pattern.setObjectName("customPattern")
        self.pattern.setAccessibleName("Custom pre-tokenizer regex")
        self.pattern.setPlaceholderText(r"a regex, e.g. \s?\w+|\s?[^\w\s]+|\s+")
        self.pattern_error = QLabel(settings)
        self.pattern_error.setObjectName("patternError")
        self.pattern_error.setWordWrap(True)
        self.pattern_error.setStyleSheet("color: #d6336c;")
        self.tie_rule = QComboBox(settings)
        self.tie_rule.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.tie_rule.setMinimumContentsLength(9)
        self.tie_rule.setObjectName("tieRule")
        self.tie_rule.setAccessibleName("Tie rule")
        self.tie_rule.setToolTip("Which pair wins when several have the highest count")
        for index, (key, label, rule) in enumerate(TIE_RULES):
            self.tie_rule.addItem(label, key)
            self.tie_rule.setItemData(index, rule, Qt.ItemDataRole.ToolTipRole)
        self.replace_invalid = QCheckBox("Replace invalid UTF-8", settings)
        self.replace_invalid.setObjectName("replaceInvalid")
        self.replace_invalid.setToolTip(
            "Read bytes that are not UTF-8 as U+FFFD; otherwise training stops with an error"
        )
        self.name = QLineEdit(settings)
        self.name.setObjectName("modelName")
        self.name.setAccessibleName("Model name")
        self.name.setToolTip(
            "Name in the tokenizer pickers; left empty, the name says the corpus, size and pre-tokenizer"
        )
        # Each run makes a new model; taking the place of the one of the same name is asked for here.
        self.replace_model = QCheckBox(settings)
        self.replace_model.setObjectName("replaceModel")
        self.replace_model.setToolTip("Unchecked, the run makes a new model (its name gets a number)")
        form = QFormLayout(settings)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow("Vocabulary size", self.vocab_size)
        form.addRow("", self.vocab_hint)
        form.addRow("Special tokens", self.specials)
        form.addRow("Pre-tokenizer", self.pretokenizer)
        form.addRow("Regex", self.pattern)
        form.addRow("", self.pattern_error)
        form.addRow("Ties", self.tie_rule)
        form.addRow(self.replace_invalid)  # across both columns: it would set the form's width
        form.addRow("Name", self.name)
        form.addRow(self.replace_model)
        self.form = form
        bpe_only = {"pretokenizer": self.pretokenizer, "pattern": self.pattern, "tie_rule": self.tie_rule}
        self.algorithm_rows = AlgorithmRows(form, settings, bpe_only)
        self.table_lock = TableLock(self)
        return settings

    def _build_run_controls(self) -> None:
        """Train and Cancel, the progress bar and the status, error and result lines."""
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

    def _build_output_controls(self) -> None:
        """Save model… and the Export menu (one action per format in ``EXPORTS``)."""
        self.save_button = QPushButton("Save model…", self)
        self.save_button.setObjectName("saveModelButton")
        self.save_button.setToolTip(
            "Save as a tokviz model file (vocabulary, merges, settings and merge history)"
        )
        self.save_counts_button = save_counts_button(self)
        self.export_button = QToolButton(self)
        self.export_button.setObjectName("exportButton")
        self.export_button.setText("Export ▾")
        self.export_button.setToolTip("Export for other tools")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_menu = QMenu(self.export_button)
        self.export_menu.setToolTipsVisible(True)  # a greyed format says why
        self.export_actions: dict[str, QAction] = {}
        for kind, label in EXPORTS:
            act = self.export_menu.addAction(label)
            act.setObjectName(f"export_{kind}")
            self.export_actions[kind] = act
        self.export_button.setMenu(self.export_menu)

    def _build_demo_box(self) -> QGroupBox:
        """The lecture's worked example, with and without GPT-2 chunks."""
        demo = QGroupBox("Lecture demo", self)
        demo.setObjectName("demoBox")
        self.demo_none_button = QPushButton("“the cat in the hat”", demo)
        self.demo_none_button.setObjectName("demoNoneButton")
        self.demo_none_button.setToolTip(
            "Train 3 merges on the lecture's example, no pre-tokenizer, first-seen ties: "
            "18 → 16 → 14 → 12 tokens (Ctrl+Shift+L)"
        )
        self.demo_gpt2_button = QPushButton("… with GPT-2 chunks", demo)
        self.demo_gpt2_button.setObjectName("demoGpt2Button")
        self.demo_gpt2_button.setToolTip(
            "The same, but chunks never merge across boundaries: no “the␣” token"
        )
        # One above the other: side by side they would set the dock's minimum width.
        dl = QVBoxLayout(demo)
        dl.addWidget(self.demo_none_button)
        dl.addWidget(self.demo_gpt2_button)
        return demo

    def _lay_out(self, corpus: QGroupBox, settings: QGroupBox, demo: QGroupBox) -> None:
        """Stack the boxes and rows in a scroll area that fills the panel."""
        run_row = row((self.train_button, 1), self.cancel_button)
        out_row = row(self.save_button, self.export_button, self.save_counts_button, STRETCH)
        inner = QWidget(self)
        column(
            corpus,
            settings,
            self.status,
            self.error,
            self.result,
            out_row,
            demo,
            STRETCH,
            parent=inner,
            margins=6,
        )
        scroll = self.form_scroll = scrolled(inner, "trainScroll", self, FormScroll)
        # Never cut the form off silently: a dock squeezed below its minimum scrolls instead.
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        # Train, Cancel and the progress stay below the scrolling form: always on screen, however
        # tall the form grows (a file list and its filters on a 768-pixel projector).
        footer = column(
            run_row, self.progress, margins=(6, 2, 6 + scroll.verticalScrollBar().sizeHint().width(), 6)
        )
        column((scroll, 1), footer, parent=self, margins=0, spacing=0)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)

    # ================================================================ what the widgets say
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

    def editor_text(self) -> str:
        """The editor's current text ('' without an editor)."""
        return self._editor_text() if self._editor_text is not None else ""

    def corpus_source(self) -> str | list[Path]:
        """What the trainer reads: a list of paths, or the text itself."""
        kind = self.source_kind()
        if kind == SOURCE_FILES:
            return [Path(p) for p in self.corpus_paths()]
        if kind == SOURCE_EDITOR:
            return self.editor_text()
        if kind == SOURCE_PYDOC:
            return pydoc_topics_text()
        return [resource_path("samples")]

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

    def pattern_problem(self) -> str | None:
        """Why the custom regex cannot be used, or None (also None when no custom regex is chosen, or
        a library trains)."""
        if self.pretokenizer.currentData() != "custom" or self.algorithm_rows.algorithm() != "bpe":
            return None
        if not self.pattern.text():
            return "Type a regex: each match becomes one chunk."
        return self.pattern_check.problem(self.pattern.text())

    def special_tokens(self) -> list[str]:
        """The special tokens a run uses: a count table's own while it is the corpus, else the field's."""
        locked = self.table_lock.special_tokens()
        return locked if locked is not None else parse_specials(self.specials.text())

    def update_vocab_hint(self, *_args: object) -> None:
        """Say what the vocabulary size holds: 256 bytes, the special tokens and at most how many merges."""
        n_special = len(self.special_tokens())
        vocab = self.vocab_size.value()
        if self.algorithm_rows.algorithm() != "bpe":
            self.vocab_hint.setText(engine_vocab_hint(self.algorithm_rows.algorithm(), vocab, n_special))
            return
        floor = 256 + n_special
        if vocab < floor:
            self.vocab_hint.setText(
                f"<span style='color:#d6336c'>Too small: the 256 bytes{f' and {n_special} special tokens' if n_special else ''} need at least {floor:,}.</span>"
            )
        else:
            specials = f" + {n_special} special" if n_special else ""
            self.vocab_hint.setText(f"= 256 bytes{specials} + at most {vocab - floor:,} merges")

    def typed_name(self) -> str:
        """The name the user typed ('' when they left it to the settings)."""
        return self.name.text().strip()

    def update_model_name(self, *_args: object) -> None:
        """Show the name a run gets when none is typed, and offer to replace a model of the typed name."""
        self.name.setPlaceholderText(self._auto_name())
        typed = self.typed_name()
        clash = bool(typed) and self.registry.has_model(typed)
        if clash:
            self.replace_model.setText(f"Replace “{typed}”")
        else:
            self.replace_model.setChecked(False)
        self.form.setRowVisible(self.replace_model, clash)

    def _run_basics(self) -> dict[str, Any]:
        """What every run takes from the form, whatever the algorithm: the corpus, its filters, the name."""
        name = self.typed_name() or self._auto_name()
        files = self.source_kind() == SOURCE_FILES
        include, exclude = self.filters.globs() if files else ((), ())
        return {
            "source": self.corpus_source(),
            "errors": "replace" if self.replace_invalid.isChecked() else "strict",
            "name": name,
            "replace": self.replace_model.isChecked() and self.registry.has_model(name),
            "include": include,
            "exclude": exclude,
            "max_file_size": self.filters.max_bytes() if files else None,
            "field": self.record_field.field(),
        }

    def settings(self) -> TrainSettings:
        """The byte-level BPE run the current settings describe (the corpus is read when training starts)."""
        return TrainSettings(
            vocab_size=self.vocab_size.value(),
            special_tokens=tuple(self.special_tokens()),
            pretokenizer=self.pretokenizer_spec(),
            tie_break=str(self.tie_rule.currentData()),
            normalizer=self._bpe_normalizer(),
            **self._run_basics(),
        )

    def _bpe_normalizer(self) -> str | None:
        """The normalizer byte-level BPE trains with (None: none; a count table keeps its own)."""
        spec = self.algorithm_rows.normalizer_spec()
        return None if self.table_lock.locked or spec in (None, "none") else spec

    def engine_settings(self) -> EngineSettings:
        """The library run (Unigram, SentencePiece BPE, WordPiece) the current settings describe."""
        options = self.algorithm_rows.engine_options(self.vocab_size.value(), tuple(self.special_tokens()))
        return EngineSettings(options=options, **self._run_basics())

    def _auto_name(self) -> str:
        """A name from the settings that make the model: its algorithm, size, corpus (pre-tokenizer, normalizer)."""
        algorithm, norm = self.algorithm_rows.algorithm(), self.algorithm_rows.normalizer_spec()
        named = f"{algorithm}-{self.vocab_size.value()} {self._corpus_name()}"
        if algorithm != "bpe":
            return f"{named} ({norm})" if norm is not None else named
        pre = self.pretokenizer_spec()
        parts = [
            pre if pre in ("none", "gpt2", "cl100k") else "custom",
            *([norm] if norm not in (None, "none") else []),
        ]
        return f"{named} ({', '.join(parts)})"

    def _corpus_name(self) -> str:
        """The corpus in a word: ``editor``, ``python-docs``, ``samples`` or the first file's name."""
        kind = self.source_kind()
        if kind != SOURCE_FILES:
            return {SOURCE_EDITOR: "editor", SOURCE_PYDOC: "python-docs"}.get(kind, "samples")
        paths = self.corpus_paths()
        if not paths:
            return "files"
        first = Path(paths[0]).name or paths[0]
        return first if len(paths) == 1 else f"{first} +{len(paths) - 1}"

    @staticmethod
    def _disable_item(combo: QComboBox, key: str) -> None:
        row = combo.findData(key)
        model = combo.model()
        item = model.item(row) if isinstance(model, QStandardItemModel) else None  # a combo box's own model
        if item is not None:
            item.setEnabled(False)
