"""A settings file edited by hand, or left behind by a hostile value, never stops the window opening.

Each case writes an INI file in a temporary folder and opens the real main window on it in a child
process (offscreen), capped at :data:`ADDRESS_CAP` bytes of address space: a regex the engine
starts to build, or ``/dev/zero`` read to its end, fails there instead of filling the machine. The
child prints what the window shows (tests/gui/launch_probe.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tokviz.core.formats import save_model
from tokviz.core.training.train import train_bpe

from ..cli.helpers import ROOT, child_env

# The window takes about 0.8 GB of address space to open offscreen; this leaves room for its work.
ADDRESS_CAP = 3 << 30
# A child that hangs (a FIFO opened in the GUI thread) is stopped here.
CHILD_TIMEOUT = 120
HUGE_REPEAT = "a{100000000}"


def _launch(tmp_path: Path, ini_text: str, *options: str) -> dict:
    """Open the window on settings ``ini_text`` (written by hand); what it shows, as a dict."""
    ini = tmp_path / "tokviz.ini"
    ini.write_text(ini_text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "tests.gui.launch_probe", str(ADDRESS_CAP), str(ini), *options],
        cwd=ROOT,
        env=dict(child_env(), QT_QPA_PLATFORM="offscreen", HOME=str(tmp_path), MALLOC_ARENA_MAX="2"),
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("PROBE "))
    report = json.loads(line.removeprefix("PROBE "))
    assert report["shown"]
    return report


def _hostile_model(tmp_path: Path) -> Path:
    result = train_bpe(text="the cat in the hat " * 20, vocab_size=270, pretokenizer=r"\w+|\S")
    path = tmp_path / "hostile.json"
    save_model(path, result.tokenizer("hostile"))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pretokenizer"] = HUGE_REPEAT
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- regexes


def test_typing_a_pattern_too_large_to_compile_is_refused_and_never_saved(tmp_path):
    report = _launch(tmp_path, "[train]\npattern=\\\\w+\n", "--type", HUGE_REPEAT)
    assert "repeats too much" in report["pattern_error"]
    assert report["dock_accepted"] is False and "repeats too much" in report["dock_error"]
    assert "repeats too much" in report["dialog_problem"]
    assert report["saved_pattern"] != HUGE_REPEAT


def test_a_hostile_pattern_in_the_settings_is_refused_at_launch(tmp_path):
    report = _launch(tmp_path, f"[train]\npretokenizer=custom\npattern={HUGE_REPEAT}\n")
    assert "was not restored" in report["train_error"] and "repeats too much" in report["train_error"]
    assert report["pattern"] == "" and report["saved_pattern"] == ""


def test_a_remembered_model_with_a_hostile_pattern_is_refused_at_launch(tmp_path):
    model = _hostile_model(tmp_path)
    entry = json.dumps(json.dumps({"path": str(model), "label": "hostile", "options": {}}))
    ini = f"[General]\nviews=gpt2, file:{model}\n\n[tokenizers]\nremembered={entry}\n"
    report = _launch(tmp_path, ini, "--wait-error")
    assert "hostile.json" in report["last_error"] and "repeats too much" in report["last_error"]


# ---------------------------------------------------------------- typed values


@pytest.mark.parametrize("written", ["1e308", "1e999", "nan", "-5", "huge"])
def test_a_point_size_out_of_range_falls_back_or_is_clamped(tmp_path, written):
    report = _launch(tmp_path, f"[General]\npointSize={written}\n")
    assert 7.0 <= report["point_size"] <= 48.0


def test_typed_keys_clamp_or_fall_back():
    from PySide6.QtCore import QSettings

    from tokviz.gui.settings import EXPORT_FORMAT, EXPORT_SCALE, POINT_SIZE, THEME, TRAIN_VOCAB_SIZE, Settings

    store = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "tokviz-test", "typed")
    settings = Settings(store)
    for key, written, read in (
        (POINT_SIZE, "1000", 48.0),
        (POINT_SIZE, "1e308", POINT_SIZE.default),  # Qt reads it as infinity
        (POINT_SIZE, "nan", POINT_SIZE.default),
        (TRAIN_VOCAB_SIZE, "1e308", TRAIN_VOCAB_SIZE.default),
        (EXPORT_SCALE, "0.001", 0.25),
        (TRAIN_VOCAB_SIZE, "-3", 0),
        (THEME, "plaid", "system"),
        (EXPORT_FORMAT, "exe", "png"),
    ):
        store.setValue(key.name, written)
        assert settings.get(key) == read, key.name


def test_on_off_keys_read_only_on_and_off():
    from PySide6.QtCore import QSettings

    from tokviz.gui.settings import SHOW_CHUNKS, SHOW_IDS, SPECIALS_IN_TEXT, SYNC_SCROLL, Settings

    store = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "tokviz-test", "switches")
    settings = Settings(store)
    for key, written, read in (
        (SHOW_CHUNKS, "maybe", False),
        (SHOW_IDS, "2", False),
        (SYNC_SCROLL, "perhaps", True),
        (SHOW_IDS, "true", True),
        (SHOW_IDS, "0", False),
        (SHOW_CHUNKS, True, True),
        (SPECIALS_IN_TEXT, "sometimes", "special"),
    ):
        store.setValue(key.name, written)
        assert settings.get(key) == read, (key.name, written)


# ---------------------------------------------------------------- the chart's files


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_chart_files_that_are_a_fifo_or_a_device_are_skipped_with_a_message(tmp_path):
    fifo = tmp_path / "notes.fifo"
    os.mkfifo(fifo)
    kept = tmp_path / "kept.txt"
    kept.write_text("the cat in the hat\n", encoding="utf-8")
    report = _launch(tmp_path, f"[chart]\nfiles={fifo}, /dev/zero, {kept}\n")
    assert report["chart_files"] == [str(kept)]
    said = " ".join(report["status"])
    assert "notes.fifo" in said and "FIFO" in said and "zero" in said and "character device" in said


def test_a_chart_file_over_the_size_cap_is_skipped_with_a_message(tmp_path):
    from tokviz.gui.panels.chart.files import CHART_FILE_CAP

    big = tmp_path / "big.txt"
    with big.open("wb") as fh:
        fh.truncate(CHART_FILE_CAP + 1)
    report = _launch(tmp_path, f"[chart]\nfiles={big}\n")
    assert report["chart_files"] == []
    assert any("big.txt" in s and "larger than" in s for s in report["status"])


def test_the_vocabulary_filter_refuses_a_regex_too_large_to_compile():
    from tokviz.core.bpe.tokenizer import Tokenizer
    from tokviz.gui.models.vocabulary import VocabModel

    model = VocabModel()
    model.set_tokenizer(Tokenizer({i: bytes([i]) for i in range(256)}, []))
    model.set_filter("((((a{100}){100}){100}){100})", use_regex=True)
    assert model.rowCount() == 0
    assert model.filter_error is not None and "repeats too much" in model.filter_error
