"""The Train panel remembers its corpus and settings between launches.

What is remembered: the corpus kind, the listed files and folders (those gone since are dropped
without a word), the algorithm, its normalizer and library options, the vocabulary size, the special tokens, the pre-tokenizer and its custom regex,
the tie rule, "Replace invalid UTF-8", the folders' include/exclude patterns and size cap, and the
text field of records. The model name is not: it names one run; nor are the
settings the lecture demo puts in for its run. Values are written through
:class:`~tokviz.gui.settings.Settings` whenever one of them changes. A custom regex that is refused
(too large to compile, invalid, or catastrophic) is never remembered, and one found in the settings
that is too large to compile is dropped at launch with a message.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QStandardItemModel

from tokviz.gui.panels.training.corpus import SOURCE_FILES
from tokviz.gui.panels.training.form import TrainForm
from tokviz.gui.panels.training.panel import TrainPanel
from tokviz.gui.settings import (
    TRAIN_ALGORITHM,
    TRAIN_BYTE_FALLBACK,
    TRAIN_COVERAGE,
    TRAIN_EXCLUDE,
    TRAIN_INCLUDE,
    TRAIN_MAX_FILE_SIZE,
    TRAIN_MAX_PIECE,
    TRAIN_NORMALIZER,
    TRAIN_PATHS,
    TRAIN_PATTERN,
    TRAIN_PRETOKENIZER,
    TRAIN_RECORD_FIELD,
    TRAIN_REPLACE_INVALID,
    TRAIN_SOURCE,
    TRAIN_SPECIAL_TOKENS,
    TRAIN_SPLIT_DIGITS,
    TRAIN_TIE_RULE,
    TRAIN_VOCAB_SIZE,
    Settings,
)
from tokviz.gui.workers.pattern_check import CHECKING, size_problem


def restore_train_settings(form: TrainForm, settings: Settings) -> str | None:
    """Put the remembered settings back into ``form``; a value it cannot take keeps the default.

    A remembered custom regex too large to compile (a hand-edited settings file) is dropped from
    the settings, and the returned line says why; otherwise None.
    """
    form.files.clear()
    for path in settings.get(TRAIN_PATHS):
        if Path(path).exists():
            form.files.addItem(path)
    vocab = settings.get(TRAIN_VOCAB_SIZE)
    # Qt reads a damaged number as 0: keep the default rather than clamp it to the minimum.
    if form.vocab_size.minimum() <= vocab <= form.vocab_size.maximum():
        form.vocab_size.setValue(vocab)
    form.specials.setText(settings.get(TRAIN_SPECIAL_TOKENS))
    note = _restore_pattern(form, settings)
    row = form.pretokenizer.findData(settings.get(TRAIN_PRETOKENIZER))
    if row >= 0:
        form.pretokenizer.setCurrentIndex(row)
    form.set_tie_rule(settings.get(TRAIN_TIE_RULE))
    form.replace_invalid.setChecked(settings.get(TRAIN_REPLACE_INVALID))
    form.filters.set_values(
        settings.get(TRAIN_INCLUDE), settings.get(TRAIN_EXCLUDE), settings.get(TRAIN_MAX_FILE_SIZE)
    )
    form.record_field.set_field(settings.get(TRAIN_RECORD_FIELD))
    _restore_algorithm(form, settings)
    kind = settings.get(TRAIN_SOURCE)
    row = form.source.findData(kind)
    model = form.source.model()
    item = model.item(row) if row >= 0 and isinstance(model, QStandardItemModel) else None
    if item is not None and item.isEnabled():
        form.set_source_kind(kind)
    else:
        form.set_source_kind(SOURCE_FILES)
    return note


def _restore_algorithm(form: TrainForm, settings: Settings) -> None:
    """The remembered algorithm, normalizer and library options into the form."""
    rows = form.algorithm_rows
    rows.set_algorithm(settings.get(TRAIN_ALGORITHM))
    rows.set_normalizer(settings.get(TRAIN_NORMALIZER) or None)
    rows.coverage.setValue(settings.get(TRAIN_COVERAGE))
    rows.byte_fallback.setChecked(settings.get(TRAIN_BYTE_FALLBACK))
    rows.split_digits.setChecked(settings.get(TRAIN_SPLIT_DIGITS))
    rows.max_piece.setValue(settings.get(TRAIN_MAX_PIECE))


def _remember_algorithm(form: TrainForm, settings: Settings) -> None:
    rows = form.algorithm_rows
    settings.set(TRAIN_ALGORITHM, rows.algorithm())
    settings.set(TRAIN_NORMALIZER, str(rows.normalizer.currentData()))
    settings.set(TRAIN_COVERAGE, rows.coverage.value())
    settings.set(TRAIN_BYTE_FALLBACK, rows.byte_fallback.isChecked())
    settings.set(TRAIN_SPLIT_DIGITS, rows.split_digits.isChecked())
    settings.set(TRAIN_MAX_PIECE, rows.max_piece.value())


def _restore_pattern(form: TrainForm, settings: Settings) -> str | None:
    """The remembered custom regex into the form, unless it is too large to compile (then why)."""
    pattern = settings.get(TRAIN_PATTERN)
    refused = size_problem(pattern) if pattern else None
    if refused is not None:
        settings.remove(TRAIN_PATTERN)
        return f"The remembered custom regex was not restored: {refused}"
    form.pattern.setText(pattern)
    return None


def _remember_pattern(form: TrainForm, settings: Settings) -> None:
    """Remember the typed regex unless it is refused; a refused one also drops the remembered one.

    A regex still being checked is remembered (it passed the size gate); should the check refuse
    it, :meth:`PatternCheck.checked` saves again and it is dropped.
    """
    pattern = form.pattern.text()
    problem = form.pattern_check.problem(pattern) if pattern else None
    if problem is None or problem == CHECKING:
        settings.set(TRAIN_PATTERN, pattern)
    else:
        settings.remove(TRAIN_PATTERN)


def remember_train_settings(form: TrainForm, settings: Settings) -> None:
    """Store the form's current settings."""
    settings.set(TRAIN_SOURCE, form.source_kind())
    settings.set(TRAIN_PATHS, form.corpus_paths())
    settings.set(TRAIN_VOCAB_SIZE, form.vocab_size.value())
    if not form.table_lock.locked:  # a count table's settings are shown, not the user's
        settings.set(TRAIN_SPECIAL_TOKENS, form.specials.text())
        settings.set(TRAIN_PRETOKENIZER, str(form.pretokenizer.currentData()))
        _remember_pattern(form, settings)
    settings.set(TRAIN_TIE_RULE, str(form.tie_rule.currentData()))
    settings.set(TRAIN_REPLACE_INVALID, form.replace_invalid.isChecked())
    settings.set(TRAIN_INCLUDE, form.filters.include.text())
    settings.set(TRAIN_EXCLUDE, form.filters.exclude.text())
    settings.set(TRAIN_MAX_FILE_SIZE, form.filters.max_size.text())
    settings.set(TRAIN_RECORD_FIELD, form.record_field.field())
    _remember_algorithm(form, settings)


def follow_train_settings(form: TrainPanel, settings: Settings) -> None:
    """Restore the remembered settings, then remember every later change as it happens."""
    note = restore_train_settings(form, settings)
    if note is not None:
        form.error.setText(note)
        form.error.setVisible(True)

    def save(*_args: object) -> None:
        if not form.applying_demo:
            remember_train_settings(form, settings)

    form.source.currentIndexChanged.connect(save)
    form.vocab_size.valueChanged.connect(save)
    form.specials.textChanged.connect(save)
    form.pretokenizer.currentIndexChanged.connect(save)
    form.pattern.textChanged.connect(save)
    form.pattern_check.checked.connect(save)
    form.tie_rule.currentIndexChanged.connect(save)
    form.replace_invalid.toggled.connect(save)
    form.corpusPathsChanged.connect(save)
    form.filters.changed.connect(save)
    form.record_field.changed.connect(save)
    rows = form.algorithm_rows
    for changed in (
        rows.choice.currentIndexChanged,
        rows.normalizer.currentIndexChanged,
        rows.coverage.valueChanged,
        rows.byte_fallback.toggled,
        rows.split_digits.toggled,
        rows.max_piece.valueChanged,
    ):
        changed.connect(save)
