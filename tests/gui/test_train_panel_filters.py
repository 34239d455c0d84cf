"""The Train panel's folder filters: what will be used and what is skipped (and why), then trained on."""

from __future__ import annotations

from pathlib import Path

import pytest

from tokviz.core.formats.model_file import load_model
from tokviz.gui.panels.training.filters import split_globs
from tokviz.gui.panels.training.panel import SOURCE_FILES, TrainPanel


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "core.py").write_text("def add(a, b):\n    return a + b\n" * 40, encoding="utf-8")
    (root / "pkg" / "notes.md").write_text("# Notes\n\nadding numbers\n" * 40, encoding="utf-8")
    (root / "tests" / "test_core.py").write_text("assert add(1, 2) == 3\n" * 40, encoding="utf-8")
    (root / "pkg" / "core.cpython-311.pyc").write_bytes(b"\xa7\r\r\n\x00\x00\x00\x00" + bytes(range(256)) * 4)
    return root


@pytest.fixture
def panel(train_panel: TrainPanel) -> TrainPanel:
    return train_panel


def measured(qtbot, panel: TrainPanel) -> str:
    qtbot.waitUntil(
        lambda: panel._info_job is None and panel.corpus_info.text() != "Measuring…", timeout=20000
    )
    return panel.corpus_info.text()


def set_filters(panel: TrainPanel, include: str = "", exclude: str = "", max_size: str = "") -> None:
    panel.filters.set_values(include, exclude, max_size)


def test_add_folder_shows_what_is_used_and_what_is_skipped_with_the_reason(qtbot, panel, folder) -> None:
    panel.add_paths([str(folder)])
    assert panel.filters.isVisible()
    assert "3 files" in measured(qtbot, panel) and "skipped 1 binary file (.pyc)" in panel.corpus_info.text()

    set_filters(panel, exclude="tests/, *.md")
    line = measured(qtbot, panel)
    assert line.startswith("1 file ·")
    assert "1 binary file (.pyc)" in line and "1 file by the include/exclude patterns" in line
    assert "core.py" in panel.corpus_info.toolTip() and "notes.md" not in panel.corpus_info.toolTip()
    assert panel.preview.toPlainText().startswith("def add(a, b):")


def test_filters_that_leave_nothing_or_a_bad_size_say_so(qtbot, panel, folder) -> None:
    panel.add_paths([str(folder)])
    set_filters(panel, include="*.rs")
    assert "No file is left to train on" in measured(qtbot, panel)
    set_filters(panel, max_size="lots")
    assert panel.filters.error.isVisible() and "Max size" in panel.filters.error.text()
    assert panel.start() is None
    assert "Max size" in panel.error.text()


def test_training_uses_the_selection_and_the_saved_model_records_it(qtbot, panel, folder, tmp_path) -> None:
    panel.add_paths([str(folder)])
    set_filters(panel, include="*.py", exclude="tests/")
    panel.vocab_size.setValue(280)
    panel.name.setText("adder")
    assert panel.source_kind() == SOURCE_FILES
    with qtbot.waitSignal(panel.run.ended, timeout=60000):
        panel.start()
    assert panel.outcome is not None and panel.outcome.settings.include == ("*.py",)
    with qtbot.waitSignal(panel.fileJobDone, timeout=20000) as done:
        panel.save_model_to(tmp_path / "adder.json")
    assert done.args == [""]
    loaded = load_model(tmp_path / "adder.json")
    assert loaded.tokenizer.name == "adder"
    files = loaded.provenance["corpus"]["files"]
    assert [Path(f["path"]).name for f in files] == ["core.py"]
    assert loaded.provenance["selection"] == {"include": ["*.py"], "exclude": ["tests/"]}


def test_globs_may_be_separated_by_commas_or_spaces() -> None:
    assert split_globs(" *.py, *.md  tests/ ,*.py") == ("*.py", "*.md", "tests/")
    assert split_globs("") == ()
