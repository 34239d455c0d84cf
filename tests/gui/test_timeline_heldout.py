"""Held-out curves on the merge timeline, and "Use this size" putting a smaller vocabulary in the registry."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tokviz.core.training.train import train_bpe
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.timeline.panel import TimelineWidget

ENGLISH = "The exchange rate between text and sequence length decides what fits a context. " * 20
GERMAN = "Der Wechselkurs zwischen Text und Sequenzlänge entscheidet, was in einen Kontext passt. " * 20


@pytest.fixture(scope="module")
def model():
    return train_bpe(text=ENGLISH + GERMAN, vocab_size=360, workers=1).tokenizer("small")


@pytest.fixture
def registry():
    return TokenizerRegistryModel()


@pytest.fixture
def timeline(qtbot, registry, model):
    widget = TimelineWidget(registry)
    qtbot.addWidget(widget)
    widget.resize(1200, 420)
    widget.show()
    widget.set_text("the text in the editor")
    with qtbot.waitSignal(widget.traceReady, timeout=30000):
        widget.set_tokenizer(model)
    qtbot.waitUntil(widget.is_ready, timeout=30000)
    return widget


@pytest.fixture
def flores(tmp_path: Path) -> Path:
    (tmp_path / "eng_Latn.devtest").write_text(ENGLISH, encoding="utf-8")
    (tmp_path / "deu_Latn.devtest").write_text(GERMAN, encoding="utf-8")
    return tmp_path


def test_held_out_files_draw_a_curve_per_language_on_the_bytes_per_token_axis(qtbot, timeline, model, flores):
    heldout = timeline.heldout
    heldout.grouping.setCurrentIndex(heldout.grouping.findData("language"))
    with qtbot.waitSignal(heldout.swept, timeout=30000) as swept:
        heldout.set_paths([flores])
    sweep = swept.args[0]
    assert [c.group for c in sweep.curves][-1] == "all"
    assert {c.group for c in sweep.curves} == {"English", "German", "all"}
    lines = [item for item in heldout.plot_items if hasattr(item, "getOriginalDataset")]
    assert len(lines) == 3
    english = [c.group for c in sweep.curves].index("English")
    x, y = lines[english].getOriginalDataset()
    assert len(x) == model.merge_count + 1
    assert np.allclose(y, sweep.curves[english].bytes_per_token)
    assert y[-1] == pytest.approx(len(ENGLISH.encode()) / len(model.encode(ENGLISH)))
    assert y[40] == pytest.approx(len(ENGLISH.encode()) / len(model.encode_with_merges(ENGLISH, 40)))
    assert "English" in heldout.status.text() and "German" in heldout.status.text()
    low, high = timeline.plot.ratio_box.viewRange()[1]
    assert high >= float(np.nanmax(y))  # the axis makes room for the held-out curves


def test_use_this_size_adds_the_prefix_vocabulary_at_the_cursor(qtbot, timeline, registry, model):
    timeline.set_step(40)
    qtbot.waitUntil(lambda: timeline.is_ready() and timeline.step == 40, timeout=30000)
    with qtbot.waitSignal(timeline.heldout.sizeAdded, timeout=5000) as added:
        timeline.heldout.use_size.click()
    key = added.args[0]
    small = registry.tokenizer(key)
    assert small is not None and small.vocab_size == 296 and small.merge_count == 40
    assert small.encode(ENGLISH) == model.encode_with_merges(ENGLISH, 40)
    assert key in registry.keys()


def test_a_sweep_can_be_cancelled_and_clearing_removes_the_curves(qtbot, timeline, flores):
    heldout = timeline.heldout
    with qtbot.waitSignal(heldout.swept, timeout=30000):
        heldout.set_paths([flores])
    assert heldout.plot_items
    heldout.clear()
    assert heldout.plot_items == [] and heldout.sweep is None
    heldout.set_paths([flores])
    assert heldout.running() and heldout.cancel_button.isVisible()
    heldout.cancel()
    qtbot.waitUntil(lambda: not heldout.running(), timeout=30000)
    assert not heldout.cancel_button.isVisible()
    # Cancelled while reading, or done before the flag was seen: never a half-drawn sweep.
    assert heldout.status.text() == "Held-out: Cancelled" or heldout.sweep is not None


def test_another_tokenizer_replaces_the_curves(qtbot, timeline, flores):
    heldout = timeline.heldout
    with qtbot.waitSignal(heldout.swept, timeout=30000):
        heldout.set_paths([flores])
    other = train_bpe(text=GERMAN, vocab_size=300, workers=1).tokenizer("other")
    with qtbot.waitSignal(heldout.swept, timeout=30000) as swept:
        timeline.set_tokenizer(other)
    assert swept.args[0].merge_count == other.merge_count


def test_folder_names_show_as_text_in_the_legend(qtbot, timeline, tmp_path):
    folder = tmp_path / "<i>notes"
    folder.mkdir()
    (folder / "a.txt").write_text(ENGLISH, encoding="utf-8")
    heldout = timeline.heldout
    heldout.grouping.setCurrentIndex(heldout.grouping.findData("folder"))
    with qtbot.waitSignal(heldout.swept, timeout=30000):
        heldout.set_paths([tmp_path])
    assert "<i>notes (" in heldout.status.text()
    assert heldout.status.textFormat() == Qt.TextFormat.PlainText
    names = [item for item in heldout.plot_items if hasattr(item, "textItem")]
    assert {item.textItem.toPlainText() for item in names} == {"<i>notes", "all"}
