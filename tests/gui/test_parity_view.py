"""The chart panel's parity view: sorted bars of each language's premium, per tokenizer, chosen and remembered."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDockWidget, QWidget

from tokviz.core.analysis.parity import bundled_sample, measure_parity, read_parallel
from tokviz.gui.drawing.parity_chart import plot_parity
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.chart import ExchangeChart
from tokviz.gui.panels.chart import parity as parity_module
from tokviz.gui.panels.chart.parity import PARITY_VIEW, ParityView
from tokviz.gui.settings import PARITY_FOLDER, PARITY_LANGUAGES, PARITY_REFERENCE, PARITY_TOKENIZERS, Settings

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


@pytest.fixture
def registry(qtbot, gpt2, cl100k) -> TokenizerRegistryModel:
    model = TokenizerRegistryModel(builtins=("gpt2", "cl100k", "o200k"))
    for key in model.keys():
        model.load_builtin_now(key)
    return model


def open_view(qtbot, registry: TokenizerRegistryModel, settings: Settings) -> ParityView:
    view = ParityView(registry, settings)
    qtbot.addWidget(view)
    view.resize(1000, 420)
    view.show()
    qtbot.waitUntil(view.is_ready, timeout=30000)
    return view


def test_the_bundled_sample_is_drawn_dearest_first_with_the_worst_named(qtbot, registry) -> None:
    view = open_view(qtbot, registry, Settings())
    table = view.table
    assert table is not None and table.tokenizers == ("GPT-2", "cl100k", "o200k")
    assert len(table.languages) == len(read_parallel(bundled_sample()).texts)
    heights = view.canvas.bar_heights()["GPT-2"]
    assert heights == sorted(heights, reverse=True) and heights[-1] == 1.0
    worst = table.worst("GPT-2", 1)[0]
    assert view.canvas.tick_labels()[0] in (worst.language.name, worst.language.code)
    assert f"GPT-2: {worst.language.name} {worst.premium:.2f}×" in view.canvas.caption.text()
    assert view.canvas.describe(0).splitlines()[:2] == [
        f"{worst.language.name} ({worst.language.code})",
        f"GPT-2: {worst.tokens:,} tokens, {worst.premium:.2f}× English",
    ]


def test_the_numbers_are_the_cores(qtbot, registry, gpt2) -> None:
    view = open_view(qtbot, registry, Settings())
    expected = measure_parity(read_parallel(bundled_sample()), [gpt2], ["GPT-2"])
    assert view.table is not None
    assert view.table.of("GPT-2") == expected.of("GPT-2")


def test_tokenizers_and_languages_are_chosen_and_remembered(qtbot, registry) -> None:
    settings = Settings()
    view = open_view(qtbot, registry, settings)
    view.set_tokenizers(["o200k"])
    view.set_languages(["hi", "ta", "en"])
    view.set_reference("hi")
    qtbot.waitUntil(view.is_ready, timeout=30000)
    assert view.table is not None and view.table.tokenizers == ("o200k",)
    assert {lang.code for lang in view.table.languages} == {"en", "hi", "ta"}
    assert view.table.reference.code == "hi" and view.reference_picker.currentText() == "Hindi"
    assert settings.get(PARITY_TOKENIZERS) == ["o200k"]
    assert settings.get(PARITY_LANGUAGES) == ["hi", "ta", "en"]
    assert settings.get(PARITY_REFERENCE) == "hi"

    again = open_view(qtbot, registry, settings)
    assert again.table is not None and again.table.tokenizers == ("o200k",)
    assert {lang.code for lang in again.table.languages} == {"en", "hi", "ta"}
    assert again.table.reference.code == "hi"


def test_a_folder_of_parallel_text_is_read_and_remembered(qtbot, registry, tmp_path: Path) -> None:
    (tmp_path / "eng_Latn.devtest").write_text("The cat sleeps.\n", encoding="utf-8")
    (tmp_path / "kat_Geor.devtest").write_text("კატას სძინავს.\n", encoding="utf-8")
    settings = Settings()
    view = open_view(qtbot, registry, settings)
    view.set_folder(tmp_path)
    qtbot.waitUntil(view.is_ready, timeout=30000)
    assert [lang.code for lang in view.table.languages] == ["eng_Latn", "kat_Geor"]
    assert view.table.reference.code == "eng_Latn" and settings.get(PARITY_FOLDER) == str(tmp_path)
    assert view.folder_button.text() == tmp_path.name


def test_the_menus_offer_every_tokenizer_and_language(qtbot, registry) -> None:
    view = open_view(qtbot, registry, Settings())
    view.tokenizers_button.menu().aboutToShow.emit()
    assert [a.text() for a in view.tokenizers_button.menu().actions()] == ["GPT-2", "cl100k", "o200k"]
    view.languages_button.menu().aboutToShow.emit()
    languages = [a for a in view.languages_button.menu().actions() if a.isCheckable()]
    assert len(languages) == len(view.table.languages) and all(a.isChecked() for a in languages)
    next(a for a in languages if a.text() == "Tamil (ta)").setChecked(False)
    qtbot.waitUntil(view.is_ready, timeout=30000)
    assert "ta" not in {lang.code for lang in view.table.languages}


def test_measuring_runs_off_the_gui_thread(qtbot, registry, monkeypatch) -> None:
    threads = []

    def recording(*args, **kwargs):
        threads.append(threading.current_thread())
        return measure_parity(*args, **kwargs)

    monkeypatch.setattr(parity_module, "measure_parity", recording)
    open_view(qtbot, registry, Settings())
    assert threads and all(t is not threading.main_thread() for t in threads)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_folder_that_cannot_be_read_says_why_in_one_line(qtbot, registry, tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_text("one\n", encoding="utf-8")
    os.mkfifo(tmp_path / "fr.txt")
    view = open_view(qtbot, registry, Settings())
    view.set_folder(tmp_path)
    qtbot.waitUntil(lambda: "FIFO" in view.status.text(), timeout=30000)
    assert "\n" not in view.status.text() and view.table is None


def test_exports_png_svg_and_csv(qtbot, registry, tmp_path: Path) -> None:
    view = open_view(qtbot, registry, Settings())
    assert view.export(tmp_path / "p.png", "png").read_bytes().startswith(b"\x89PNG")
    assert b"Tamil" in view.export(tmp_path / "p.svg", "svg").read_bytes()
    assert (
        view.export(tmp_path / "p", "csv").read_text(encoding="utf-8").startswith("tokenizer,language,code")
    )


def test_the_command_lines_plot_is_the_same_drawing(qapp, gpt2, tmp_path: Path) -> None:
    table = measure_parity(read_parallel(bundled_sample()), [gpt2], ["GPT-2"])
    assert plot_parity(table, tmp_path / "parity.png", scale=2).read_bytes().startswith(b"\x89PNG")
    assert b"Georgian" in plot_parity(table, tmp_path / "parity.svg").read_bytes()


def test_the_chart_panel_offers_the_parity_view(qtbot, registry) -> None:
    chart = ExchangeChart(registry)
    qtbot.addWidget(chart)
    view = ParityView(registry, Settings())
    chart.add_view(PARITY_VIEW, "Parity across languages", view)
    chart.resize(1000, 420)
    chart.show()
    chart.set_view(PARITY_VIEW)
    assert view.isVisible() and not chart.canvas.isVisible() and not chart.inputs_button.isVisible()
    qtbot.waitUntil(view.is_ready, timeout=30000)
    chart.set_view("bytes")
    assert chart.canvas.isVisible() and not view.isVisible()


def test_the_windows_chart_dock_has_the_parity_view(qtbot) -> None:
    from tokviz.gui import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1024, 768)
    window.show()
    qtbot.waitUntil(window.is_ready, timeout=20000)
    dock = window.findChild(QDockWidget, "exchangeChartDock")
    dock.toggleViewAction().trigger()
    chart = window.findChild(QWidget, "compareChart")
    assert chart.view_picker.findData(PARITY_VIEW) >= 0
    qtbot.waitUntil(chart.is_ready, timeout=60000)
    size = window.size()
    chart.set_view(PARITY_VIEW)
    view = window.findChild(ParityView, "parityView")
    qtbot.waitUntil(view.is_ready, timeout=60000)
    assert view.table is not None and len(view.table.tokenizers) == 3
    assert window.size() == size  # the view takes the chart's place; the window keeps its size
    window.close()
