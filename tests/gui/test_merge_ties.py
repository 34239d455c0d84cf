"""The merge table says which pairs were tied at each step and which one the tie rule picked."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.merge_model import COUNT, TIES, MergeTableModel

from ..texts import CAT, CAT_TRAINING


def test_the_ties_cell_lists_the_lecture_examples_tied_pairs_with_the_winner_marked(qtbot):
    result = train_bpe(text=CAT, **CAT_TRAINING)
    model = MergeTableModel()
    model.set_source(result.tokenizer("lecture"), result.history, corpus_initial=result.initial_tokens)
    assert [model.index(step, TIES).data() for step in (1, 2, 3)] == ["4", "3", "2"]
    tips = [model.index(step, TIES).data(Qt.ItemDataRole.ToolTipRole) for step in (1, 2, 3)]
    assert tips[0].splitlines()[1:] == [
        "▶ t + h  (2, merged)",
        "   h + e  (2)",
        "   e + ·  (2)",
        "   a + t  (2)",
    ]
    assert tips[1].splitlines()[1:] == ["▶ th + e  (2, merged)", "   e + ·  (2)", "   a + t  (2)"]
    assert tips[2].splitlines()[1:] == ["▶ the + ·  (2, merged)", "   a + t  (2)"]
    assert "Count 2 in the training corpus" in model.index(1, COUNT).data(Qt.ItemDataRole.ToolTipRole)
