"""The Train panel's algorithm choice and the options that go with it.

Byte-level BPE is tokviz's own trainer; Unigram and SentencePiece BPE are trained by
sentencepiece, WordPiece by tokenizers (:mod:`tokviz.core.training.engine_run`). The core says
which options apply to each algorithm (:func:`~tokviz.core.training.engine_options.options_for`);
an option that does not apply is greyed, its tooltip saying why, and the library options are
hidden for byte-level BPE, which has none of them. The normalizer applies to every algorithm.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QSpinBox,
    QWidget,
)

from tokviz.core.training.engine_options import ALGORITHMS, EngineOptions, options_for

# Short labels, read whole in a 1024-pixel dock; the tooltip says which library trains it.
ALGORITHM_LABELS = {
    "bpe": ("Byte-level BPE", "Byte-level BPE, trained by tokviz (with its merge replay)"),
    "unigram": ("Unigram", "Unigram language model (Kudo 2018), trained by sentencepiece"),
    "sentencepiece-bpe": ("SentencePiece BPE", "BPE over characters, trained by sentencepiece"),
    "wordpiece": ("WordPiece", "WordPiece (BERT), trained by Hugging Face tokenizers"),
}
LIBRARY_DEFAULT = ""  # the normalizer item that leaves the library's own
NORMALIZERS = (
    (LIBRARY_DEFAULT, "Library default", "The library's own normalization (sentencepiece: NFKC)"),
    ("none", "None", "The text is trained on as it is"),
    ("nfc", "NFC", "Unicode NFC: composed characters (Qwen2)"),
    ("nfkc", "NFKC", "Unicode NFKC: compatibility forms folded (ligatures, full-width digits)"),
    ("lowercase", "Lowercase", "Everything lowercased"),
    ("strip-accents", "Strip accents", "Accents removed (decomposed, then combining marks dropped)"),
    ("lowercase+strip-accents", "Lowercase, no accents", "Lowercased and accents removed (BERT uncased)"),
)
# What an option is, for the tooltip of one that does not apply.
OPTION_NAMES = {
    "character_coverage": "Character coverage",
    "byte_fallback": "Byte fallback",
    "split_digits": "Split digits",
    "max_piece_length": "Maximum piece length",
    "user_symbols": "User symbols",
    "normalizer": "A normalizer",
}
# The byte-level BPE settings, and why the library algorithms do without them.
BPE_ONLY_WHY = {
    "pretokenizer": "SentencePiece reads the text as one stream (a space becomes ▁); WordPiece splits "
    "at whitespace and punctuation: the regex pre-tokenizer is byte-level BPE's own",
    "pattern": "SentencePiece and WordPiece cut the text their own way: the regex is byte-level BPE's own",
    "tie_rule": "The tie rule is byte-level BPE's own: the libraries break their ties themselves",
}


def algorithm_label(algorithm: str) -> str:
    """``unigram`` -> ``Unigram``."""
    return ALGORITHM_LABELS.get(algorithm, (algorithm, ""))[0]


def engine_vocab_hint(algorithm: str, vocab: int, n_symbols: int) -> str:
    """What the vocabulary size holds for a library algorithm: every piece, its own specials included
    (short: it shares the form's width with byte-level BPE's one-line hint)."""
    own = "[UNK] &amp; co." if algorithm == "wordpiece" else "&lt;unk&gt; &lt;s&gt; &lt;/s&gt;"
    symbols = {0: "", 1: " + 1 symbol"}.get(n_symbols, f" + {n_symbols} symbols")
    return f"<span>= all pieces: {own}{symbols} included</span>"  # rich text: the escapes show as < >


class AlgorithmRows(QObject):
    """The algorithm combo box and the library options, as rows of the settings form.

    ``changed(algorithm)`` follows a new choice, after the rows show what applies to it.
    """

    changed = Signal(str)

    def __init__(self, form: QFormLayout, parent: QWidget, bpe_only: dict[str, QWidget]) -> None:
        super().__init__(parent)
        self.form = form
        self.bpe_only = bpe_only
        self.bpe_tips = {name: w.toolTip() for name, w in bpe_only.items()}
        self.choice = QComboBox(parent)
        self.choice.setObjectName("trainAlgorithm")
        self.choice.setAccessibleName("Training algorithm")
        self.choice.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.choice.setMinimumContentsLength(9)
        for index, algorithm in enumerate(ALGORITHMS):
            label, tip = ALGORITHM_LABELS.get(algorithm, (algorithm, algorithm))
            self.choice.addItem(label, algorithm)
            self.choice.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        self.normalizer = QComboBox(parent)
        self.normalizer.setObjectName("trainNormalizer")
        self.normalizer.setAccessibleName("Normalizer")
        self.normalizer.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.normalizer.setMinimumContentsLength(9)
        for index, (spec, label, tip) in enumerate(NORMALIZERS):
            self.normalizer.addItem(label, spec)
            self.normalizer.setItemData(index, tip, Qt.ItemDataRole.ToolTipRole)
        self.normalizer.setToolTip("How the text is normalized before training, and before every encoding")
        self.coverage = QDoubleSpinBox(parent)
        self.coverage.setObjectName("characterCoverage")
        self.coverage.setAccessibleName("Character coverage")
        self.coverage.setDecimals(4)
        self.coverage.setRange(0.0, 1.0)
        self.coverage.setSingleStep(0.0005)
        self.coverage.setSpecialValueText("Library default")
        self.byte_fallback = QCheckBox("Byte fallback", parent)
        self.byte_fallback.setObjectName("byteFallback")
        self.split_digits = QCheckBox("Split digits", parent)
        self.split_digits.setObjectName("splitDigits")
        self.max_piece = QSpinBox(parent)
        self.max_piece.setObjectName("maxPieceLength")
        self.max_piece.setAccessibleName("Maximum piece length")
        self.max_piece.setRange(0, 1024)
        self.max_piece.setSpecialValueText("Library default")
        self.tips = {
            "character_coverage": "Share of the corpus's characters the vocabulary must cover; the rarest "
            "of the rest become unknown (or bytes, with byte fallback)",
            "byte_fallback": "Spell characters outside the vocabulary as <0x..> byte pieces instead of <unk>",
            "split_digits": "Every digit is a piece of its own",
            "max_piece_length": "The longest piece, in characters",
        }
        self.widgets: dict[str, QWidget] = {
            "character_coverage": self.coverage,
            "byte_fallback": self.byte_fallback,
            "split_digits": self.split_digits,
            "max_piece_length": self.max_piece,
            "normalizer": self.normalizer,
        }
        self._add_rows()
        self.choice.currentIndexChanged.connect(self._on_choice)
        self.apply()

    def _add_rows(self) -> None:
        """The algorithm first; the normalizer under the special tokens; the library options after the ties."""
        form = self.form
        form.insertRow(0, "Algorithm", self.choice)
        specials_row = self._row_of("specialTokens")
        form.insertRow(specials_row + 1, "Normalizer", self.normalizer)
        after = self._row_of("tieRule") + 1
        form.insertRow(after, "Coverage", self.coverage)
        form.insertRow(after + 1, "Longest piece", self.max_piece)
        form.insertRow(after + 2, self.byte_fallback)
        form.insertRow(after + 3, self.split_digits)

    def _row_of(self, name: str) -> int:
        for row in range(self.form.rowCount()):
            item = self.form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            widget = item.widget() if item is not None else None
            if widget is not None and widget.objectName() == name:
                return row
        return self.form.rowCount() - 1

    # ---------------------------------------------------------------- what the rows say
    def algorithm(self) -> str:
        """The chosen algorithm: ``bpe``, ``unigram``, ``sentencepiece-bpe`` or ``wordpiece``."""
        return str(self.choice.currentData())

    def set_algorithm(self, algorithm: str) -> None:
        """Choose an algorithm (an unknown name keeps the choice)."""
        row = self.choice.findData(algorithm)
        if row >= 0:
            self.choice.setCurrentIndex(row)

    def normalizer_spec(self) -> str | None:
        """The chosen normalizer as ``parse_normalizer`` takes it, or None for the library's default."""
        spec = str(self.normalizer.currentData())
        return None if spec == LIBRARY_DEFAULT else spec

    def set_normalizer(self, spec: str | None) -> None:
        """Choose a normalizer (None: the library's default; for byte-level BPE, none)."""
        row = self.normalizer.findData(LIBRARY_DEFAULT if spec is None else spec)
        if row >= 0:
            self.normalizer.setCurrentIndex(row)
        self._keep_normalizer_valid()

    def engine_options(self, vocab_size: int, user_symbols: tuple[str, ...]) -> EngineOptions:
        """The library run the rows describe (options that do not apply stay the library's default)."""
        algorithm = self.algorithm()
        applies = set(options_for(algorithm))
        return EngineOptions(
            algorithm=algorithm,
            vocab_size=vocab_size,
            normalizer=self.normalizer_spec() if "normalizer" in applies else None,
            character_coverage=(self.coverage.value() or None) if "character_coverage" in applies else None,
            byte_fallback=(self.byte_fallback.isChecked() or None) if "byte_fallback" in applies else None,
            split_digits=(self.split_digits.isChecked() or None) if "split_digits" in applies else None,
            max_piece_length=(self.max_piece.value() or None) if "max_piece_length" in applies else None,
            user_symbols=user_symbols if "user_symbols" in applies else (),
        )

    def why_not(self, option: str, algorithm: str | None = None) -> str | None:
        """Why ``option`` does not apply to ``algorithm`` (the chosen one), or None when it does."""
        algorithm = algorithm or self.algorithm()
        if option in BPE_ONLY_WHY:
            return None if algorithm == "bpe" else BPE_ONLY_WHY[option]
        if option in options_for(algorithm):
            return None
        name = OPTION_NAMES.get(option, option)
        return f"{name} does not apply to {algorithm_label(algorithm)}: its library has no such option"

    # ---------------------------------------------------------------- showing what applies
    def _on_choice(self, *_args: object) -> None:
        if self.algorithm() != "bpe" and self.normalizer.currentData() == "none":
            # Byte-level BPE's "none" becomes the library's own default, as every other option is.
            self.normalizer.setCurrentIndex(self.normalizer.findData(LIBRARY_DEFAULT))
        self.apply()
        self.changed.emit(self.algorithm())

    def apply(self) -> None:
        """Show the library options for a library algorithm, each greyed when it does not apply, and
        grey byte-level BPE's own settings for the others; the tooltips say why."""
        algorithm = self.algorithm()
        engine = algorithm != "bpe"
        for option, widget in self.widgets.items():
            why = self.why_not(option)
            widget.setEnabled(why is None)
            widget.setToolTip(why or self.tips.get(option, widget.toolTip()))
            if option != "normalizer":
                self.form.setRowVisible(widget, engine)
        reasons = set(BPE_ONLY_WHY.values())
        for option, widget in self.bpe_only.items():
            # Enabled again by the panel when byte-level BPE is chosen (a count table may keep them
            # locked, with its own tooltip: the tooltip greying replaced is put back).
            why, shown = self.why_not(option), widget.toolTip()
            if why is not None:
                if shown not in reasons:
                    self.bpe_tips[option] = shown
                widget.setEnabled(False)
                widget.setToolTip(why)
            elif shown in reasons:
                widget.setToolTip(self.bpe_tips[option])
        self._keep_normalizer_valid()

    def _keep_normalizer_valid(self) -> None:
        """Byte-level BPE has no library: its normalizer is one of tokviz's (no "library default")."""
        bpe = self.algorithm() == "bpe"
        model = self.normalizer.model()
        item = model.item(0) if isinstance(model, QStandardItemModel) else None
        if item is not None:
            item.setEnabled(not bpe)
        if bpe and self.normalizer.currentData() == LIBRARY_DEFAULT:
            self.normalizer.setCurrentIndex(self.normalizer.findData("none"))

    def set_enabled(self, on: bool) -> None:
        """Lock the rows during a run (and put back what applies after it); byte-level BPE's own
        settings are only ever greyed here."""
        self.choice.setEnabled(on)
        if on:
            self.apply()
        else:
            for widget in (*self.widgets.values(), *self.bpe_only.values()):
                widget.setEnabled(False)
