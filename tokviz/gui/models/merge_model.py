"""The merge-history table: one row per merge step, computed only when the view asks for it.

GPT-2 has 50,000 merges and cl100k 100,000, so rows are never materialised: ``data()`` reads the
tokenizer's merge list, the training history (count and ties, for models trained in the app) and
the replay trace of the editor's text (tokens after the step, a lookup) for the one cell asked.
Row 0 is the start (single bytes). While a model trains, merges are appended in batches instead.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok.bytes_ import hex_bytes, printable_token
from tokviz.core.training.replay import ReplayTrace
from tokviz.gui.models.columns import ColumnsModel

COLUMNS = ("Step", "Merge", "New token", "Id", "Count", "Ties", "Text tokens", "Corpus tokens")
STEP, MERGE, NEW, ID, COUNT, TIES, TEXT_TOKENS, CORPUS_TOKENS = range(len(COLUMNS))
_NUMERIC = {STEP, ID, COUNT, TIES, TEXT_TOKENS, CORPUS_TOKENS}
_TIPS = {
    STEP: "Merge number (1-based); step 0 is the text as single bytes",
    MERGE: "The two tokens that are joined (· is a space, ↵ a newline)",
    NEW: "The token this merge creates",
    ID: "Id of the new token",
    COUNT: "How often the pair occurred in the training corpus when it was merged",
    TIES: "How many pairs had that same highest count; hover a cell for the tied pairs and the one picked",
    TEXT_TOKENS: "Tokens of the editor's text after this step",
    CORPUS_TOKENS: "Tokens of the training corpus after this step",
}

StepRole = Qt.ItemDataRole.UserRole + 1
ChangesTextRole = Qt.ItemDataRole.UserRole + 2


class MergeTableModel(ColumnsModel):
    """Rows are merge steps of one tokenizer (or of a run still training); see the module docstring.

    With ``changes_only`` the rows are just the steps that change the text (plus step 0), which
    turns 50,000 GPT-2 merges into the hundred or so that matter for a paragraph.
    """

    columns = COLUMNS
    column_tips = _TIPS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tokenizer: Tokenizer | None = None
        self.history: Sequence[MergeStep] = ()
        self.trace: ReplayTrace | None = None
        self.corpus_initial: int | None = None
        self._event_steps: list[int] = []
        self.changes_only = False
        self.current_step = -1
        self.live = False
        self._live_records: list[MergeStep] = []
        self._bold = QFont()
        self._bold.setBold(True)
        self.muted = QColor("#8a8a8a")
        self.current_fill = QColor(47, 111, 179, 60)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        """Titles of two words on two lines ("Text / tokens"): the columns then need only their
        numbers' width, and the whole table fits a 1024-pixel projector in presentation mode."""
        value = super().headerData(section, orientation, role)
        if role == Qt.ItemDataRole.DisplayRole and isinstance(value, str):
            return value.replace(" ", "\n")
        return value

    # ---------------------------------------------------------------- content
    def set_source(
        self,
        tokenizer: Tokenizer | None,
        history: Sequence[MergeStep] | None = None,
        trace: ReplayTrace | None = None,
        corpus_initial: int | None = None,
    ) -> None:
        """Show a tokenizer's merges (its merge tables must be built: call from a worker first).

        ``history`` and ``corpus_initial`` (the corpus's tokens before any merge) come from a
        training run; ``trace`` is the replay of the editor's text.
        """
        self.beginResetModel()
        self.live = False
        self._live_records = []
        self.tokenizer = tokenizer
        self.history = history or ()
        self.corpus_initial = corpus_initial
        self._set_trace(trace)
        self.current_step = -1
        self.endResetModel()

    def _set_trace(self, trace: ReplayTrace | None) -> None:
        self.trace = trace
        self._event_steps = [e.step for e in trace.events] if trace is not None else []

    def set_trace(self, trace: ReplayTrace | None) -> None:
        """New text, same tokenizer: only the text-token column (and the changes-only rows) change."""
        if self.changes_only:
            self.beginResetModel()
            self._set_trace(trace)
            self.endResetModel()
            return
        self._set_trace(trace)
        if self.rowCount():
            # Fonts and colours mark the rows that change the text, so every column is refreshed.
            self.dataChanged.emit(self.index(0, 0), self.index(self.rowCount() - 1, len(COLUMNS) - 1))

    def set_changes_only(self, on: bool) -> None:
        """List only the merges that change the editor's text."""
        if on != self.changes_only:
            self.beginResetModel()
            self.changes_only = on
            self.endResetModel()

    def begin_live(self) -> None:
        """Start showing a run that is still training: rows arrive through :meth:`append_merges`."""
        self.beginResetModel()
        self.live = True
        self._live_records = []
        self.tokenizer = None
        self.history = ()
        self.corpus_initial = None
        self._set_trace(None)
        self.current_step = -1
        self.endResetModel()

    def append_merges(self, records: Sequence[MergeStep]) -> None:
        """Add a batch of merges made by the running trainer (one insert for the whole batch)."""
        if not self.live or not records:
            return
        first = len(self._live_records) + 1  # row 0 is the start row
        self.beginInsertRows(QModelIndex(), first, first + len(records) - 1)
        self._live_records.extend(records)
        self.endInsertRows()

    def has_history(self) -> bool:
        """True when the merges come with a training run's counts (in the app, or saved in the model)."""
        return self.live or bool(self.history)

    def set_current_step(self, step: int) -> None:
        """Shade the row of the step the timeline shows."""
        old = self.row_of_step(self.current_step)
        self.current_step = step
        for row in {old, self.row_of_step(step)}:
            if row >= 0:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    # ---------------------------------------------------------------- rows and steps
    @property
    def merge_count(self) -> int:
        """Merges listed (training so far, or the tokenizer's)."""
        if self.live:
            return len(self._live_records)
        return self.tokenizer.merge_count if self.tokenizer is not None else 0

    def step_of_row(self, row: int) -> int:
        """The merge step a row shows (0 is the start row)."""
        if self.changes_only and self.trace is not None and not self.live:
            return 0 if row == 0 else self.trace.events[row - 1].step
        return row

    def row_of_step(self, step: int) -> int:
        """The row showing ``step``, or -1 (a step that does not change the text in changes-only mode)."""
        if step < 0:
            return -1
        if self.changes_only and self.trace is not None and not self.live:
            if step == 0:
                return 0
            i = bisect_left(self._event_steps, step)
            if i == len(self._event_steps) or self._event_steps[i] != step:
                return -1
            return i + 1
        return step if step <= self.merge_count else -1

    def nearest_row(self, step: int) -> int:
        """The row of ``step`` or, in changes-only mode, of the last change at or before it."""
        row = self.row_of_step(step)
        if row >= 0 or not (self.changes_only and self.trace is not None):
            return row
        prev = self.trace.previous_event(step)
        return 0 if prev is None else self.row_of_step(prev)

    def record(self, step: int) -> MergeStep | None:
        """The training record of a step, when there is one (models trained in the app)."""
        records = self._live_records if self.live else self.history
        if 1 <= step <= len(records):
            r = records[step - 1]
            return r if r.step == step else None
        return None

    def merge_parts(self, step: int) -> tuple[bytes, bytes, int] | None:
        """(left bytes, right bytes, new id) of merge ``step`` (1-based)."""
        rec = self.record(step)
        if rec is not None:
            return rec.left, rec.right, rec.new_id
        tok = self.tokenizer
        if tok is None or not 1 <= step <= tok.merge_count:
            return None
        left, right = tok.merges[step - 1]
        return left, right, tok.id_of_merge(step - 1)

    # ---------------------------------------------------------------- Qt model
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid():
            return 0
        if self.live:
            return len(self._live_records) + 1
        if self.tokenizer is None:
            return 0
        if self.changes_only and self.trace is not None:
            return len(self.trace.events) + 1
        return self.tokenizer.merge_count + 1

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            not index.isValid()
            or not 0 <= index.row() < self.rowCount()
            or not 0 <= index.column() < len(COLUMNS)
        ):
            return None
        step = self.step_of_row(index.row())
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            return self._display(step, col)
        if role == StepRole:
            return step
        if role == ChangesTextRole:
            return self._changes_text(step)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._ties_tooltip(step) if col == TIES else self._tooltip(step)
        return self._look(step, col, role)

    def _look(self, step: int, col: int, role: int) -> Any:
        """How a cell looks: alignment, bold when the merge changes the text, muted when it does not,
        shaded on the timeline's step."""
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col in _NUMERIC:
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole:
            return self._bold if step > 0 and self._changes_text(step) else None
        if role == Qt.ItemDataRole.ForegroundRole:
            if step > 0 and self.trace is not None and not self._changes_text(step):
                return self.muted
            return None
        if role == Qt.ItemDataRole.BackgroundRole:
            return self.current_fill if step == self.current_step else None
        return None

    def _changes_text(self, step: int) -> bool:
        return self.trace is not None and step > 0 and self.trace.changes_text(step)

    def _display(self, step: int, col: int) -> str:
        if col == STEP:
            return f"{step:,}" if step else "start"
        if step == 0:
            return self._start_text(col)
        if col in (MERGE, NEW, ID):
            return self._merge_text(step, col)
        if col == TEXT_TOKENS:
            return f"{self.trace.token_count(step):,}" if self.trace is not None else ""
        return self._training_text(step, col)

    def _start_text(self, col: int) -> str:
        """The start row: the text and the corpus as single bytes."""
        if col == MERGE:
            return "single bytes"
        if col == TEXT_TOKENS:
            return f"{self.trace.initial_tokens:,}" if self.trace is not None else ""
        if col == CORPUS_TOKENS:
            return f"{self.corpus_initial:,}" if self.corpus_initial is not None else ""
        return ""

    def _merge_text(self, step: int, col: int) -> str:
        """The merge's pair, its new token or the new token's id."""
        parts = self.merge_parts(step)
        if parts is None:
            return ""
        left, right, new_id = parts
        if col == MERGE:
            return f"{printable_token(left)} + {printable_token(right)}"
        if col == NEW:
            return printable_token(left + right)
        return str(new_id)

    def _training_text(self, step: int, col: int) -> str:
        """What the training run recorded: the pair's count, its ties, the corpus's tokens after."""
        rec = self.record(step)
        if rec is None:
            return ""
        if col == COUNT:
            return f"{rec.count:,}"
        if col == TIES:
            return str(rec.ties) if rec.ties > 1 else ""
        if col == CORPUS_TOKENS:
            return f"{rec.tokens_after:,}"
        return ""

    def _tooltip(self, step: int) -> str:
        if step == 0:
            return "The text as single bytes, before any merge"
        parts = self.merge_parts(step)
        if parts is None:
            return ""
        left, right, new_id = parts
        lines = [
            f"Merge {step:,}: {hex_bytes(left)} + {hex_bytes(right)} → id {new_id} ({hex_bytes(left + right)})"
        ]
        if self.trace is not None:
            if self.trace.changes_text(step):
                lines.append(
                    f"Changes the text: {self.trace.token_count(step - 1):,} → {self.trace.token_count(step):,} tokens"
                )
            else:
                lines.append("Does not occur in the text")
        rec = self.record(step)
        if rec is not None:
            lines.append(f"Count {rec.count:,} in the training corpus")
        if rec is not None and rec.ties > 1:
            lines.append(f"{rec.ties} pairs were tied at count {rec.count:,} (hover Ties for them)")
        return "\n".join(lines)

    def _ties_tooltip(self, step: int) -> str:
        """The pairs tied for the highest count at ``step``, in the tie rule's order, the merged one marked."""
        rec = self.record(step)
        if rec is None or rec.ties <= 1:
            return "No tie: this pair alone had the highest count" if rec is not None else ""
        lines = [f"{rec.ties} pairs tied at count {rec.count:,}; the tie rule picked the first:"]
        for k, (left, right) in enumerate(rec.tied):
            pair = f"{printable_token(left)} + {printable_token(right)}"
            lines.append(f"▶ {pair}  ({rec.count:,}, merged)" if k == 0 else f"   {pair}  ({rec.count:,})")
        if rec.ties > len(rec.tied) and rec.tied:
            lines.append(f"   … and {rec.ties - len(rec.tied):,} more")
        return "\n".join(lines)
